#include "gui/app/headless_outputs.hpp"

#include <algorithm>
#include <chrono>
#include <ostream>
#include <stdexcept>

#include <fmt/format.h>

#include "gui/app/app_window.hpp"
#include "gui/app/assets.hpp"
#include "gui/app/save_picture.hpp"
#include "gui/app/saved_layout.hpp"
#include "gui/app/shell.hpp"
#include "gui/core/picture.hpp"

namespace gs::gui {

int HeadlessOutputs::check_paths(std::ostream& err) {
  try {
    if (!o_.screenshot.empty()) screenshot_out_ = run::OutputFile(o_.screenshot, "--screenshot");
    if (!o_.state_json.empty()) state_out_ = run::OutputFile(o_.state_json, "--state-json");
    if (!o_.picture.empty()) run::OutputFile(o_.picture, "--save-picture");  // checked now, written at the end
    // Read first, written at the end, unless it is not a layout (then it is never touched).
    if (!o_.layout_file.empty() && layout_file_replaceable(o_.layout_file)) run::OutputFile(o_.layout_file, "--layout-file");
  } catch (const run::OutputPathError& e) {
    err << "gemmscope gui: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

int HeadlessOutputs::write_last_frame(AppState& app, const Shell& shell, int fb_w, int fb_h, std::ostream& err,
                                      double& png_ms) {
  int exit_code = 0;
  png_ms = 0.0;
  if (!o_.screenshot.empty()) {
    const auto png0 = std::chrono::steady_clock::now();
    try {
      const std::string png = png_of_back_buffer(fb_w, fb_h);
      if (png.empty()) throw std::runtime_error(fmt::format("cannot encode the {}x{} screenshot as PNG", fb_w, fb_h));
      screenshot_out_.write(png);
    } catch (const std::exception& e) {
      err << "gemmscope gui: " << e.what() << "\n";
      exit_code = 1;
    }
    png_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - png0).count();
  }
  if (o_.picture.empty()) return exit_code;
  if (o_.picture_view && o_.picture_svg_part) {
    try {
      if (!save_picture(app, o_.picture, view_svg(app, *o_.picture_view, *o_.picture_svg_part))) {
        err << "gemmscope gui: " << app.problems.back().detail << "\n";
        exit_code = 1;
      }
    } catch (const std::runtime_error& e) {
      err << "gemmscope gui: --save-picture: " << e.what() << "\n";
      exit_code = 1;
    }
    return exit_code;
  }
  const PngRequest r{o_.picture, o_.picture_view ? shell.view_rect(*o_.picture_view) : Rect{}};
  if (o_.picture_view && r.area.size.x <= 0) {
    err << "gemmscope gui: --save-picture: the " << view_name(*o_.picture_view) << " view is not shown (add it with --view)\n";
    exit_code = 1;
  } else if (!save_png_picture(app, r, fb_w, fb_h)) {
    err << "gemmscope gui: " << app.problems.back().detail << "\n";
    exit_code = 1;
  }
  return exit_code;
}

int HeadlessOutputs::write_state(AppState& app, const AppWindow& window, const Shell& shell, std::ostream& err) {
  if (o_.state_json.empty()) return 0;
  nlohmann::json j = app.describe();
  int width = 0, height = 0;
  window.framebuffer_size(width, height);
  j["window"] = {{"width", width},
                 {"height", height},
                 {"scale", window.scale()},
                 {"renderer", window.renderer_name()},
                 {"status_bar_height", shell.status_bar_height()},
                 // Where ImGui saw the pointer in the last frame (null: nowhere, as headless runs
                 // should: no hover in their pictures).
                 {"pointer", ImGui::IsMousePosValid() ? nlohmann::json::array({ImGui::GetIO().MousePos.x,
                                                                               ImGui::GetIO().MousePos.y})
                                                      : nlohmann::json(nullptr)}};
  j["layout"] = shell.describe_layout();
  j["shown_views"] = shell.shown_view_names();
  j["assets"] = {{"dir", assets_dir()}, {"window_icon", window.icon_warning().empty()}};
  j["open_seconds"] = app.kernel ? app.kernel->open_seconds : 0.0;
  try {
    state_out_.write(j.dump(2) + "\n");
  } catch (const std::exception& e) {
    err << "gemmscope gui: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

void print_frame_stats(std::ostream& out, const std::vector<double>& frame_ms, const FrameTotals& t,
                       const RenderStats& r, const AppOptions& o, size_t views, double open_seconds,
                       const std::string& renderer) {
  std::vector<double> steady(frame_ms.begin() + std::min<size_t>(2, frame_ms.size()), frame_ms.end());
  const FrameStats s = summarize_frame_times(steady.empty() ? frame_ms : steady);
  out << fmt::format("frames {}  mean {:.2f} ms  p95 {:.2f} ms  max {:.2f} ms  ({}x{}, {} views, open {:.3f} s, {})\n",
                     s.frames, s.mean_ms, s.p95_ms, s.max_ms, o.width, o.height, views, open_seconds, renderer);
  if (s.frames == 0) return;
  out << fmt::format(
      "per frame: ui {:.2f} ms  OpenGL {:.2f} ms  swap {:.2f} ms  ({} ImGui commands, {} vertices; {} draw calls, "
      "{} of them opaque fills and {} blended fills)\n",
      t.ui_ms / s.frames, t.gl_ms / s.frames, t.swap_ms / s.frames, r.commands, t.vertices, r.draws, r.opaque_draws,
      r.solid_draws);
  out << fmt::format("damage: {:.1f}% of the window drawn per frame ({}; last frame {} of {} tiles changed)\n",
                     100.0 * t.drawn_share / s.frames, o.damage ? "changed tiles only" : "tracking off", r.dirty_tiles,
                     r.tiles);
  const TextRunStats& text = r.text;
  out << fmt::format("text: {} glyphs, {} of them in {} runs; {} runs composed in the last frame, cache emptied {} times\n",
                     text.glyphs, text.merged_glyphs, text.runs, text.composed, text.clears);
}

}  // namespace gs::gui
