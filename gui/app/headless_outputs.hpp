// What a headless run of the app writes (run_app, app.cpp): --screenshot (the last frame's
// back buffer), --save-picture (a view's window as PNG, or its SVG picture), --state-json (the
// app's state after the last frame) and --frame-stats (where the frames' time went). The
// output paths are checked before any work, and a failed run never replaces what they hold
// (run/output_file.hpp).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "gui/app/app.hpp"
#include "gui/app/renderer.hpp"
#include "run/output_file.hpp"

namespace gs::gui {

class AppWindow;
class Shell;

// Where frames' time went, summed from the third frame on (the first ones build the font atlas
// and the layout; steady state is what users feel): building the UI (our views and ImGui),
// rasterizing it (OpenGL, software under Xvfb) and presenting it (the swap).
struct FrameTotals {
  double ui_ms = 0.0, gl_ms = 0.0, swap_ms = 0.0;
  size_t vertices = 0;       // the last frame's, from ImGui's draw data
  double drawn_share = 0.0;  // the share of the window's pixels drawn, summed over frames
};

class HeadlessOutputs {
 public:
  explicit HeadlessOutputs(const AppOptions& o) : o_(o) {}
  // Checks the output paths; 0, or 2 after naming the bad one on err.
  int check_paths(std::ostream& err);
  // After the last frame is drawn, before the swap: the screenshot and the picture. Returns 1
  // after saying why on err when one was not written, else 0. `png_ms`: the time spent
  // encoding the screenshot (not part of the frame's time).
  int write_last_frame(AppState& app, const Shell& shell, int fb_w, int fb_h, std::ostream& err, double& png_ms);
  // After the loop: the state JSON (1 when it was not written, else 0).
  int write_state(AppState& app, const AppWindow& window, const Shell& shell, std::ostream& err);

 private:
  const AppOptions& o_;
  run::OutputFile screenshot_out_, state_out_;
};

void print_frame_stats(std::ostream& out, const std::vector<double>& frame_ms, const FrameTotals& t,
                       const RenderStats& r, const AppOptions& o, size_t views, double open_seconds,
                       const std::string& renderer);

}  // namespace gs::gui
