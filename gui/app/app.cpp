#include "gui/app/app.hpp"
#include "gui/app/startup.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <stdexcept>

#include <dlfcn.h>
#include <link.h>

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <imgui_internal.h>  // the tables' pool, to reset their column widths on a new scale
#include <fmt/format.h>
#include <stb_image_write.h>

#include "gui/app/assets.hpp"
#include "gui/app/layout.hpp"
#include "gui/app/renderer.hpp"
#include "gui/app/saved_layout.hpp"
#include "gui/app/shell.hpp"
#include "gui/app/theme.hpp"
#include "gui/core/picture.hpp"
#include "run/output_file.hpp"
#include "run/sim_job.hpp"

namespace gs::gui {

bool display_available() {
  const char* x = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (x && *x) || (w && *w);
}

FrameStats summarize_frame_times(std::vector<double> ms) {
  FrameStats s;
  s.frames = int(ms.size());
  if (ms.empty()) return s;
  double sum = 0.0;
  for (double v : ms) sum += v;
  s.mean_ms = sum / double(ms.size());
  std::sort(ms.begin(), ms.end());
  // Nearest-rank p95: the smallest value with at least 95% of the frames at or below it.
  const size_t rank = size_t(std::max<double>(1.0, std::ceil(0.95 * double(ms.size()))));
  s.p95_ms = ms[std::min(rank, ms.size()) - 1];
  s.max_ms = ms.back();
  return s;
}

namespace {

void glfw_error(int code, const char* text) { last_glfw_error() = fmt::format("GLFW error {}: {}", code, text); }

// The back buffer as PNG bytes (rows flipped: OpenGL's origin is bottom-left): all of it, or
// the rectangle at (x, y) from the top-left of a w x h part.
std::string png_of_back_buffer(int fb_w, int fb_h, int x = 0, int y = 0, int w = -1, int h = -1) {
  if (w < 0) w = fb_w;
  if (h < 0) h = fb_h;
  std::vector<unsigned char> pixels(size_t(w) * size_t(h) * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(x, fb_h - y - h, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  for (size_t i = 3; i < pixels.size(); i += 4) pixels[i] = 255;  // opaque, whatever the framebuffer's alpha
  std::string png;
  stbi_flip_vertically_on_write(1);
  const auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
  };
  if (!stbi_write_png_to_func(append, &png, w, h, 4, pixels.data(), w * 4)) png.clear();
  return png;
}

// File > Save picture as PNG: the window, or a view's window cropped out of it (window
// coordinates scaled to the framebuffer's pixels, clamped to it).
bool save_png_picture(AppState& app, const PngRequest& r, int fb_w, int fb_h) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float sx = display.x > 0 ? float(fb_w) / display.x : 1.0f, sy = display.y > 0 ? float(fb_h) / display.y : 1.0f;
  int x = 0, y = 0, w = fb_w, h = fb_h;
  if (r.area.size.x > 0 && r.area.size.y > 0) {
    x = std::clamp(int(std::lround(r.area.pos.x * sx)), 0, fb_w - 1);
    y = std::clamp(int(std::lround(r.area.pos.y * sy)), 0, fb_h - 1);
    w = std::clamp(int(std::lround(r.area.size.x * sx)), 1, fb_w - x);
    h = std::clamp(int(std::lround(r.area.size.y * sy)), 1, fb_h - y);
  }
  const std::string png = png_of_back_buffer(fb_w, fb_h, x, y, w, h);
  if (!png.empty()) return save_picture(app, r.path, png);
  app.add_problem({Severity::error, "app", "picture", "picture not saved", fmt::format("cannot encode {}x{} pixels as PNG", w, h)});
  return false;
}

// Under AddressSanitizer only: keeps the OpenGL driver (Mesa's *_dri.so, libgallium) loaded to
// the end. Mesa dlcloses it when GLFW closes the display; buffers the driver still points to
// from its globals then look leaked to LeakSanitizer at exit (240 bytes under Xvfb, "from
// <unknown module>") on every GUI run. A suppressions file cannot name them: suppressions
// match module and function names, and an unmapped module has neither. Kept mapped, the
// buffers stay reachable, as they are, and any other leak still reports.
void keep_gl_driver_loaded_for_lsan() {
#if defined(__SANITIZE_ADDRESS__)
  std::vector<std::string> drivers;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) -> int {
        const char* name = info->dlpi_name;
        if (name && (std::strstr(name, "_dri.so") || std::strstr(name, "libgallium")))
          static_cast<std::vector<std::string>*>(out)->push_back(name);
        return 0;
      },
      &drivers);
  // Outside the iteration, which holds the loader's lock: one more reference, never dropped.
  for (const std::string& d : drivers) dlopen(d.c_str(), RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
#endif
}

// Draws the frame. Headless, it also waits for the drawing to finish, so that the frame time
// includes the (software) rasterizer's work. A function of its own so that a profiler can
// count just this part of a frame (callgrind --toggle-collect='*draw_opengl*').
[[gnu::noinline]] void draw_opengl(Renderer& renderer, ImVec4 clear, bool finish) {
  renderer.render(ImGui::GetDrawData(), clear);
  if (finish) glFinish();
}

// Where frames' time went, summed from the third frame on (the first ones build the font atlas
// and the layout; steady state is what users feel): building the UI (our views and ImGui),
// rasterizing it (OpenGL, software under Xvfb) and presenting it (the swap).
struct FrameTotals {
  double ui_ms = 0.0, gl_ms = 0.0, swap_ms = 0.0;
  size_t vertices = 0;       // the last frame's, from ImGui's draw data
  double drawn_share = 0.0;  // the share of the window's pixels drawn, summed over frames
};

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

// A window with an OpenGL 3.3 core context, or nullptr after saying why on err (no display, no
// driver for the profile).
GLFWwindow* open_window(const AppOptions& o, std::ostream& err) {
  glfwSetErrorCallback(glfw_error);
  if (!display_available() || !glfwInit()) {
    err << "gemmscope gui: cannot open a window: no display"
        << (last_glfw_error().empty() ? "" : " (" + last_glfw_error() + ")")
        << ". Run it on a desktop, or headless under Xvfb: xvfb-run -a gemmscope gui --screenshot out.png\n";
    return nullptr;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  // The UI is painted in order and never tests depth; without a depth or stencil buffer
  // llvmpipe shades tiles of rectangles with its 8-bit span code (renderer.hpp).
  glfwWindowHint(GLFW_DEPTH_BITS, 0);
  glfwWindowHint(GLFW_STENCIL_BITS, 0);
  GLFWwindow* window = glfwCreateWindow(o.width, o.height, "gemmscope", nullptr, nullptr);
  if (!window) {
    err << "gemmscope gui: cannot create an OpenGL 3.3 window (" << last_glfw_error()
        << "). Check the graphics driver (glxinfo | grep 'core profile').\n";
    glfwTerminate();
    return nullptr;
  }
  return window;
}

}  // namespace

std::string& last_glfw_error() {
  static std::string e;
  return e;
}

int run_app(const AppOptions& o, std::ostream& out, std::ostream& err) {
  const bool headless = !o.screenshot.empty() || !o.state_json.empty() || o.frame_stats || !o.picture.empty();
  if (const int bad = check_app_options(o, err)) return bad;

  // Output paths are checked before any work, and a failed run never replaces what they hold
  // (run/output_file.hpp).
  run::OutputFile screenshot_out, state_out;
  try {
    if (!o.screenshot.empty()) screenshot_out = run::OutputFile(o.screenshot, "--screenshot");
    if (!o.state_json.empty()) state_out = run::OutputFile(o.state_json, "--state-json");
    if (!o.picture.empty()) run::OutputFile(o.picture, "--save-picture");  // checked now, written at the end
    // Read first, written at the end, unless it is not a layout (then it is never touched).
    if (!o.layout_file.empty() && layout_file_replaceable(o.layout_file)) run::OutputFile(o.layout_file, "--layout-file");
  } catch (const run::OutputPathError& e) {
    err << "gemmscope gui: " << e.what() << "\n";
    return 2;
  }

  AppState app;
  app.config_dir = o.use_settings ? config_directory() : "";
  std::string warnings;
  app.settings = o.use_settings ? load_settings(app.config_dir, &warnings) : Settings::defaults();
  if (o.theme) app.settings.theme = *o.theme;
  app.playback.speed = app.settings.play_speed;

  const std::optional<run::SimRequest> first = first_request(o, app.settings, err, &warnings);
  if (!first) return 2;
  if (!warnings.empty()) app.add_problem({Severity::warning, "settings", "settings", "settings were reset", warnings});
  // Inputs are read before the window opens: headless, one that fails is bad input (exit 2).
  if (const int bad = import_files(o, app, headless, err)) return bad;
  const run::SimRequest& req = *first;

  GLFWwindow* window = open_window(o, err);
  if (!window) return 1;
  const std::string icon_warning = set_window_icon(window, assets_dir());
  if (!icon_warning.empty()) app.add_problem({Severity::warning, "app", "icon", "the window icon is missing", icon_warning});
  glfwMakeContextCurrent(window);
  keep_gl_driver_loaded_for_lsan();
  const char* gl_renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const std::string renderer = gl_renderer ? gl_renderer : "unknown renderer";
  glfwSwapInterval(headless ? 0 : 1);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  // The window layout is read and written here, not by ImGui (saved_layout.hpp). Headless runs
  // are reproducible: no saved layout unless --layout-file names one.
  std::string layout_path =
      !o.layout_file.empty() ? o.layout_file : headless || app.config_dir.empty() ? "" : app.config_dir + "/imgui.ini";
  io.IniFilename = nullptr;
  if (!layout_path.empty()) {
    const LayoutFile layout = read_layout_file(layout_path);
    if (!layout.notice.empty()) app.add_problem({Severity::warning, "app", "layout", "window layout reset", layout.notice});
    if (!layout.text.empty()) ImGui::LoadIniSettingsFromMemory(layout.text.data(), layout.text.size());
    if (!layout.replaceable) layout_path.clear();  // not a layout: never written over
  }
  // No keyboard navigation: Space and the arrows belong to the transport (views.hpp).

  // The UI scale: the saved one if set, else from the window's size and the monitor's content
  // scale, again whenever the window is resized (layout.hpp).
  float scale = 1.0f;
  auto wanted_scale = [&] {
    if (app.settings.font_scale > 0.0f) return app.settings.font_scale;
    int ww = 0, wh = 0;
    float xscale = 1.0f, yscale = 1.0f;
    glfwGetFramebufferSize(window, &ww, &wh);  // pixels on X11 and Wayland alike
    if (ww <= 0 || wh <= 0) return scale;      // minimised: keep the fonts
    glfwGetWindowContentScale(window, &xscale, &yscale);
    return choose_ui_scale(ww, wh, xscale);
  };
  scale = wanted_scale();
  Fonts fonts = load_fonts(scale);
  if (!fonts.warning.empty()) app.add_problem({Severity::warning, "app", "font", "a font is missing", fonts.warning});
  apply_theme(app.settings.theme, scale);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  Renderer draw_gl;
  draw_gl.set_text_runs(o.text_runs);
  draw_gl.set_damage_tracking(o.damage);
  if (!draw_gl.init()) {
    err << "gemmscope gui: cannot set up OpenGL drawing on " << renderer << ": " << draw_gl.error() << "\n";
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return 1;
  }

  Shell shell(app, fonts, scale);
  shell.set_views(o.views, headless && o.layout_file.empty());

  int exit_code = 0;
  // Headless: open synchronously so the first frame already shows the kernel; interactive:
  // open as a job so the window appears at once.
  if (headless) {
    app.open_now(req);
    if (!app.kernel) {
      // Nothing to show (out of memory, a model that cannot launch the kernel): the window
      // still shows the problem, but the run failed.
      err << "gemmscope gui: cannot open " << req.kernel_id << ": " << app.status << "\n";
      exit_code = 1;
    }
    for (int i = 0; i < o.steps; ++i)
      if (!app.step(o.step_unit, true)) break;
    if (o.select_line) app.select_ptx_line(o.select_line);
    // The first frame shows the SASS view filled in, as it shows the kernel.
    const std::vector<std::string> shown = shell.shown_view_names();
    if (std::find(shown.begin(), shown.end(), "sass") != shown.end()) compile_sass_now(app);
  } else {
    app.request_open(req);
  }

  std::vector<double> frame_ms;
  // Where a frame's time goes: building the UI (our views and ImGui), rasterizing it (OpenGL,
  // software under Xvfb), and presenting it (the swap, a copy to the X server under Xvfb).
  FrameTotals totals;
  auto ms_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  };
  auto last = std::chrono::steady_clock::now();
  for (int frame = 0; !glfwWindowShouldClose(window); ++frame) {
    const auto t0 = std::chrono::steady_clock::now();
    if (headless && o.resize_width > 0 && frame == o.frames / 2) glfwSetWindowSize(window, o.resize_width, o.resize_height);
    if (headless) glfwPollEvents();
    else if (app.playback.playing || app.busy()) glfwPollEvents();
    else glfwWaitEventsTimeout(0.25);  // idle: no busy loop
    const double dt = std::chrono::duration<double>(t0 - last).count();
    last = t0;
    app.poll_jobs();
    if (!headless) app.advance_playing(dt);
    for (int i = 0; i < o.steps_per_frame; ++i)
      if (!app.step(o.step_unit, true)) break;

    if (const float want = wanted_scale(); want != scale) {
      // Between frames, where ImGui allows the atlas to change.
      scale = want;
      io.Fonts->Clear();
      fonts = load_fonts(scale);
      apply_theme(app.settings.theme, scale);
      shell.set_fonts(fonts, scale);
      // Table columns keep the widths measured in the old font: let every table size them again.
      ImGuiContext& g = *ImGui::GetCurrentContext();
      for (int i = 0; i < g.Tables.GetMapSize(); ++i)
        if (ImGuiTable* table = g.Tables.TryGetMapData(i)) table->IsResetAllRequest = true;
      if (!draw_gl.reload_fonts()) {
        err << "gemmscope gui: cannot upload the fonts on " << renderer << ": " << draw_gl.error() << "\n";
        exit_code = 1;
        break;
      }
    }
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    const auto ui0 = std::chrono::steady_clock::now();
    shell.draw_frame();
    ImGui::Render();
    if (frame >= 2) totals.ui_ms += ms_since(ui0);
    if (const ImDrawData* dd = ImGui::GetDrawData()) {
      totals.vertices = size_t(dd->TotalVtxCount);
    }
    const auto gl0 = std::chrono::steady_clock::now();
    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window, &fb_w, &fb_h);
    glViewport(0, 0, fb_w, fb_h);
    const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    for (const auto& [texture, version] : shell.image_versions()) draw_gl.set_image_version(texture, version);
    draw_opengl(draw_gl, ImVec4(bg.x * 0.8f, bg.y * 0.8f, bg.z * 0.8f, 1.0f), headless);
    if (frame >= 2) {
      totals.gl_ms += ms_since(gl0);
      totals.drawn_share += double(draw_gl.stats().drawn_pixels) / std::max(1.0, double(fb_w) * double(fb_h));
    }
    const bool last_frame = headless && frame + 1 >= o.frames;
    double png_ms = 0.0;  // writing the screenshot is not part of the frame's time
    if (last_frame && !o.screenshot.empty()) {
      const auto png0 = std::chrono::steady_clock::now();
      try {
        const std::string png = png_of_back_buffer(fb_w, fb_h);
        if (png.empty()) throw std::runtime_error(fmt::format("cannot encode the {}x{} screenshot as PNG", fb_w, fb_h));
        screenshot_out.write(png);
      } catch (const std::exception& e) {
        err << "gemmscope gui: " << e.what() << "\n";
        exit_code = 1;
      }
      png_ms = ms_since(png0);
    }
    if (const auto picture = shell.take_png_request()) save_png_picture(app, *picture, fb_w, fb_h);
    if (last_frame && !o.picture.empty() && o.picture_view && o.picture_svg_part) {
      try {
        if (!save_picture(app, o.picture, view_svg(app, *o.picture_view, *o.picture_svg_part))) {
          err << "gemmscope gui: " << app.problems.back().detail << "\n";
          exit_code = 1;
        }
      } catch (const std::runtime_error& e) {
        err << "gemmscope gui: --save-picture: " << e.what() << "\n";
        exit_code = 1;
      }
    } else if (last_frame && !o.picture.empty()) {
      const PngRequest r{o.picture, o.picture_view ? shell.view_rect(*o.picture_view) : Rect{}};
      if (o.picture_view && r.area.size.x <= 0) {
        err << "gemmscope gui: --save-picture: the " << view_name(*o.picture_view) << " view is not shown (add it with --view)\n";
        exit_code = 1;
      } else if (!save_png_picture(app, r, fb_w, fb_h)) {
        err << "gemmscope gui: " << app.problems.back().detail << "\n";
        exit_code = 1;
      }
    }
    const auto swap0 = std::chrono::steady_clock::now();
    glfwSwapBuffers(window);
    if (frame >= 2) totals.swap_ms += ms_since(swap0);
    frame_ms.push_back(ms_since(t0) - png_ms);
    if (io.WantSaveIniSettings && !layout_path.empty()) {
      std::string error;
      if (!save_layout_file(layout_path, error))
        app.add_problem({Severity::warning, "app", "layout", "window layout not saved", error});
      io.WantSaveIniSettings = false;
    }
    if (shell.quit_requested()) glfwSetWindowShouldClose(window, GLFW_TRUE);
    if (last_frame) break;
  }

  if (!o.state_json.empty()) {
    nlohmann::json j = app.describe();
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    j["window"] = {{"width", width},
                   {"height", height},
                   {"scale", scale},
                   {"renderer", renderer},
                   {"status_bar_height", shell.status_bar_height()}};
    j["layout"] = shell.describe_layout();
    j["shown_views"] = shell.shown_view_names();
    j["assets"] = {{"dir", assets_dir()}, {"window_icon", icon_warning.empty()}};
    j["open_seconds"] = app.kernel ? app.kernel->open_seconds : 0.0;
    try {
      state_out.write(j.dump(2) + "\n");
    } catch (const std::exception& e) {
      err << "gemmscope gui: " << e.what() << "\n";
      exit_code = 1;
    }
  }
  if (o.frame_stats)
    print_frame_stats(out, frame_ms, totals, draw_gl.stats(), o, shell.shown_view_names().size(),
                      app.kernel ? app.kernel->open_seconds : 0.0, renderer);
  if (headless) report_problems(app, err);
  else remember_session(app, err);
  if (!layout_path.empty()) {
    std::string error;
    if (!save_layout_file(layout_path, error)) err << "gemmscope gui: window layout not saved: " << error << "\n";
  }
  app.cancel_jobs();
  app.jobs.clear();  // joins the job threads before the context goes
  shell.release_gl();
  draw_gl.shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}

}  // namespace gs::gui
