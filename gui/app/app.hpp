// The app shell: a GLFW window with an OpenGL 3.3 core context, Dear ImGui, the fonts, the
// themes, the menus, the window layout, and the frame loop that polls jobs, advances playback
// and draws every shown view. The same loop renders headless screenshots under Xvfb.
#pragma once

#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gui/core/app_state.hpp"

namespace gs::gui {

struct AppOptions {
  std::string screenshot;          // non-empty: render `frames` frames, write this PNG, exit
  int frames = 4;                  // frames to render before the screenshot (>= 1)
  std::string kernel_id;           // empty: the last kernel from the settings
  // Kernels opened first, as they ship, at the same shape and card, one after another, before
  // kernel_id: their predictions stay in the Throughput view (its Why faster tab).
  std::vector<std::string> open_first;
  std::string throughput_tab;      // the Throughput view's table to show first ("why", ...); "": its own
  std::optional<run::KernelVariant> compare_with;  // the Compare view's A (B: the kernel opened); nullopt: its default
  kernels::GemmShape shape;        // 0s: the kernel's example shape
  std::set<std::string> mistakes;
  kernels::ParamValues params;     // build parameters (unset: the kernel's defaults)
  std::vector<ViewId> views;       // empty: the settings' show flags, in the focus layout unless all_views
  bool all_views = false;          // --view all: every shown view in a window of its own (no focus layout)
  int width = 1600, height = 1000;
  int resize_width = 0, resize_height = 0;  // headless, > 0: the window's size from frame `frames / 2` on
  bool frame_stats = false;        // print mean and p95 frame time
  std::string state_json;          // write AppState::describe() here after the last frame
  int steps = 0;                   // playback steps before rendering
  int steps_per_frame = 0;         // headless: playback steps at the start of every frame
  StepUnit step_unit = StepUnit::instruction;
  uint32_t select_line = 0;        // a PTX line to select (1-based; 0: none)
  std::optional<Theme> theme;
  std::vector<std::string> import_json;  // bench JSON files to show in the throughput view (a
                                         // timeline document among them goes to the Timeline view)
  std::string import_timeline;     // a timeline recorded on a GPU (bench --timeline) for the Timeline view
  bool whole_grid = false;         // open with the whole grid run (a verdict), not one CTA
  // Run a whole grid expected to take longer than run::kLongRunSeconds without asking
  // (headless: without it such a run is refused, exit 2).
  bool allow_long = false;
  // --machine: the card to predict on (nullptr: the GPU found here when the model knows it, else
  // the kernel's target's machine; AppState::predict_on).
  const model::timing::Machine* machine = nullptr;
  bool use_settings = true;        // false: defaults, nothing read or written (tests)
  // A window layout file (imgui.ini format) to read at the start and write at the end instead
  // of the config directory's; headless, windows are then placed as in the app (saved places,
  // kept on screen) instead of tiled every frame.
  std::string layout_file;
  bool text_runs = true;           // false: every glyph drawn as its own quad (same pixels)
  bool damage = true;              // false: every frame drawn in full (same pixels; damage.hpp)
  // Headless: after the last frame, save this view's window (or, with no view, the window) as
  // PNG the way File > Save picture does; with picture_svg_part set, the view's SVG picture of
  // that index (picture.hpp's svg_pictures_of) at the cursor instead.
  std::string picture;
  std::optional<ViewId> picture_view;
  // Headless: show this article picture of the step (KernelInfo::pictures, as declared) as the
  // lesson's picture button would.
  std::string show_picture;
  std::optional<size_t> picture_svg_part;
  // The Sweep view's parameters and values (--sweep-param) and size (--sweep-size): with axes,
  // the sweep of the first kernel runs at the start (headless: to its end before the first frame).
  std::vector<run::SweepAxis> sweep_axes;
  std::optional<kernels::GemmShape> sweep_shape;
  // A `gemmscope sweep --json` file the Sweep view shows at the start (import_sweep_json).
  std::string sweep_import;
};

// Frame-time figures of a run (headless), in milliseconds.
struct FrameStats {
  int frames = 0;
  double mean_ms = 0.0, p95_ms = 0.0, max_ms = 0.0;
};
FrameStats summarize_frame_times(std::vector<double> ms);

// Runs the app. Returns the process exit code: 0 ok, 1 no display / OpenGL failure / a file
// that could not be written, 2 bad options (the message names the value).
int run_app(const AppOptions& options, std::ostream& out, std::ostream& err);

// True when an X11 or Wayland display is named in the environment.
bool display_available();

}  // namespace gs::gui
