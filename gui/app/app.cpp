#include "gui/app/app.hpp"
#include "gui/app/startup.hpp"

#include <algorithm>
#include <chrono>
#include <cfloat>
#include <cmath>
#include <iterator>
#include <ostream>

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>

#include "gui/app/app_window.hpp"
#include "gui/app/assets.hpp"
#include "gui/core/article_pictures.hpp"
#include "gui/app/headless_outputs.hpp"
#include "gui/app/save_picture.hpp"
#include "gui/app/saved_layout.hpp"
#include "gui/app/shell.hpp"
#include "gui/core/occupancy.hpp"
#include "gui/core/resource_advice.hpp"
#include "gui/core/sass_data.hpp"
#include "gui/core/prediction_cache.hpp"
#include "gui/core/speed_ladder.hpp"
#include "run/sim_job.hpp"

namespace gs::gui {

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

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// Draws the frame. Headless, it also waits for the drawing to finish, so that the frame time
// includes the (software) rasterizer's work. A function of its own so that a profiler can
// count just this part of a frame (callgrind --toggle-collect='*draw_opengl*').
[[gnu::noinline]] void draw_opengl(Renderer& renderer, ImVec4 clear, bool finish) {
  renderer.render(ImGui::GetDrawData(), clear);
  if (finish) glFinish();
}

// The app's state before the first frame: settings (unless the run ignores them), the theme
// asked for, and the imported bench results.
// Returns the settings' warnings, which the caller reports once the first request has added its
// own (a stale last_shape).
std::string init_state(AppState& app, const AppOptions& o) {
  app.config_dir = o.use_settings ? config_directory() : "";
  std::string warnings;
  app.settings = o.use_settings ? load_settings(app.config_dir, &warnings) : Settings::defaults();
  if (o.theme) app.settings.theme = *o.theme;
  if (o.all_views) app.settings.focus_layout = false;
  app.predict_on = o.machine;
  app.playback.speed = app.settings.play_speed;
  // The speed ladder's shipped measurements; without them it shows the model's figures and the
  // learner's own runs only, and says why.
  try {
    app.speed_ladder.references = load_reference_runs(assets_dir().empty() ? "" : assets_dir() + "/reference");
  } catch (const std::exception& e) {
    app.speed_ladder.references_error = e.what();
    app.add_problem({Severity::warning, "app", "assets", "no shipped reference measurements", e.what()});
  }
  // The model's speeds an earlier run of this build made (not settings: --no-settings keeps them).
  app.speed_ladder.cache_dir = cache_directory();
  app.speed_ladder.program = program_identity();
  read_kept_predictions(app.speed_ladder);
  return warnings;
}

// Opens the first kernel. Headless: synchronously, stepped and selected as the options say, so
// the first frame already shows it (1 when it could not be opened); interactive: as a job, so
// the window appears at once.
int open_first(AppState& app, const Shell& shell, const AppOptions& o, const run::SimRequest& req, bool headless,
               std::ostream& err) {
  app.throughput_view.select_tab = o.throughput_tab;
  if (o.compare_with) app.compare_view.a = *o.compare_with;
  for (const std::string& id : o.open_first) {
    run::SimRequest first = req;
    first.kernel_id = id;
    first.mistakes.clear();
    first.params.clear();
    first.only_traced_cta = true;
    app.open_now(first);
    if (!app.kernel) err << "gemmscope gui: --open-first: cannot open " << id << ": " << app.status << "\n";
  }
  if (!headless) {
    // A whole grid asks first when it would take long (AppState::request_model_run).
    app.request = req;
    if (req.only_traced_cta) app.request_open(req);
    else app.request_model_run();
    return 0;
  }
  int exit_code = 0;
  app.open_now(req);
  if (!app.kernel) {
    // Nothing to show (out of memory, a model that cannot launch the kernel): the window
    // still shows the problem, but the run failed.
    err << "gemmscope gui: cannot open " << req.kernel_id << ": " << app.status << "\n";
    exit_code = 1;
  }
  // The transport steps by the unit asked for, from here on too (its combo shows it).
  app.set_step_unit(o.step_unit);
  for (int i = 0; i < o.steps; ++i)
    if (!app.step(o.step_unit, true)) break;
  if (o.select_line) app.select_ptx_line(o.select_line);
  if (!o.show_picture.empty()) {
    // One of the step's pictures, as the lesson's button shows it (a layout in the lesson's
    // picture window, a view brought to the front).
    const kernels::KernelInfo& info = kernels::kernel_or_throw(req.kernel_id);
    if (std::find(info.pictures.begin(), info.pictures.end(), o.show_picture) == info.pictures.end()) {
      std::string valid;
      for (const std::string& p : info.pictures) valid += (valid.empty() ? "'" : ", '") + p + "'";
      err << "gemmscope gui: --show-picture '" << o.show_picture << "' is not a picture of " << req.kernel_id
          << ": its pictures are " << (valid.empty() ? "none" : valid) << "\n";
      return 2;
    }
    show_article_picture(app, parse_article_picture(o.show_picture));
  }
  // The first frame shows the SASS, Schedule and Problems views filled in, as it shows the kernel.
  const std::vector<std::string> shown = shell.shown_view_names();
  const auto showing = [&](const char* view) { return std::find(shown.begin(), shown.end(), view) != shown.end(); };
  if (showing("sass")) compile_sass_now(app);
  if (showing("timeline") || showing("sweep")) gpu_presence_now(app);  // "Record on this GPU", "on the GPU too"
  // Every step's model speed at 4096³ for the Ladder's list; the Blackwell steps' alone for the
  // Throughput view's Blackwell tab.
  if (showing("ladder")) predict_speed_ladder_now(app);
  else if (showing("throughput")) predict_speed_ladder_now(app, ir::Arch::sm_100a);
  // The two variants' model runs when the Compare view was asked for (not with every view: they
  // take seconds; drawn, the view starts them as a job).
  const bool compare_asked = o.compare_with || std::find(o.views.begin(), o.views.end(), ViewId::compare) != o.views.end();
  if (showing("compare") && compare_asked) compare_now(app);
  if (app.kernel && (showing("schedule") || showing("problems"))) {
    count_registers_now(*app.kernel);
    update_resource_advice(app);  // the Problems view's spill and occupancy advice
  }
  return exit_code;
}

// One frame: events, jobs, playback, the UI built and drawn into the back buffer (not yet
// swapped). Adds its parts' times to `totals` from the third frame on.
void build_and_draw_frame(AppState& app, AppWindow& window, Shell& shell, const AppOptions& o, bool headless,
                          int frame, double dt, FrameTotals& totals) {
  app.poll_jobs();
  if (!headless) app.advance_playing(dt);
  for (int i = 0; i < o.steps_per_frame; ++i)
    if (!app.step(o.step_unit, true)) break;
  ImGui_ImplGlfw_NewFrame();
  if (headless) {
    // A headless picture shows the app as it is, not wherever the X server's pointer happens
    // to be (the middle of Xvfb's screen, inside most windows): no hover, no tooltip, no press.
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    std::fill(std::begin(io.MouseDown), std::end(io.MouseDown), false);
  }
  ImGui::NewFrame();
  const auto ui0 = std::chrono::steady_clock::now();
  shell.draw_frame();
  ImGui::Render();
  if (frame >= 2) totals.ui_ms += ms_since(ui0);
  if (const ImDrawData* dd = ImGui::GetDrawData()) totals.vertices = size_t(dd->TotalVtxCount);
  const auto gl0 = std::chrono::steady_clock::now();
  int fb_w = 0, fb_h = 0;
  window.framebuffer_size(fb_w, fb_h);
  glViewport(0, 0, fb_w, fb_h);
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  for (const auto& [texture, version] : shell.image_versions()) window.gl().set_image_version(texture, version);
  draw_opengl(window.gl(), ImVec4(bg.x * 0.8f, bg.y * 0.8f, bg.z * 0.8f, 1.0f), headless);
  if (frame >= 2) {
    totals.gl_ms += ms_since(gl0);
    totals.drawn_share += double(window.gl().stats().drawn_pixels) / std::max(1.0, double(fb_w) * double(fb_h));
  }
}

void save_layout(AppState& app, const std::string& layout_path) {
  std::string error;
  if (!save_layout_file(layout_path, error)) app.add_problem({Severity::warning, "app", "layout", "window layout not saved", error});
}

}  // namespace

int run_app(const AppOptions& o, std::ostream& out, std::ostream& err) {
  const bool headless = !o.screenshot.empty() || !o.state_json.empty() || o.frame_stats || !o.picture.empty();
  if (const int bad = check_app_options(o, err)) return bad;
  HeadlessOutputs outputs(o);
  if (const int bad = outputs.check_paths(err)) return bad;

  AppState app;
  std::string warnings = init_state(app, o);
  // A recorded timeline is read first: it may choose the first kernel (the recorded one).
  AppOptions opts = o;
  std::optional<std::array<uint32_t, 3>> recorded_cta;
  if (const int bad = import_timeline_option(opts, app, headless, err, recorded_cta)) return bad;
  std::optional<run::SimRequest> first = first_request(opts, app.settings, err, &warnings);
  if (!first) return 2;
  if (const int bad = check_sweep_option(o, *first, err)) return bad;
  if (recorded_cta) first->cta = *recorded_cta;
  app.long_run_limit = o.allow_long ? 0.0 : run::kLongRunSeconds;
  if (headless)
    if (const int refused = refuse_long_run(*first, app.long_run_limit, err)) return refused;
  if (!warnings.empty()) app.add_problem({Severity::warning, "settings", "settings", "settings were reset", warnings});
  // Inputs are read before the window opens: headless, one that fails is bad input (exit 2).
  if (const int bad = import_files(opts, app, headless, err)) return bad;

  std::unique_ptr<AppWindow> window = AppWindow::open(o, headless, app, err);
  if (!window) return 1;
  Shell shell(app, window->fonts(), window->scale());
  shell.set_views(o.views, headless && o.layout_file.empty());
  int exit_code = open_first(app, shell, o, *first, headless, err);
  exit_code = std::max(exit_code, sweep_option(o, app, headless, err));

  ImGuiIO& io = ImGui::GetIO();
  const std::string& layout_path = window->layout_path();
  std::vector<double> frame_ms;
  FrameTotals totals;
  auto last = std::chrono::steady_clock::now();
  for (int frame = 0; !window->should_close(); ++frame) {
    const auto t0 = std::chrono::steady_clock::now();
    if (headless && o.resize_width > 0 && frame == o.frames / 2)
      glfwSetWindowSize(window->glfw(), o.resize_width, o.resize_height);
    if (headless) glfwPollEvents();
    else if (app.playback.playing || app.busy()) glfwPollEvents();
    else glfwWaitEventsTimeout(0.25);  // idle: no busy loop
    const double dt = std::chrono::duration<double>(t0 - last).count();
    last = t0;
    if (!window->follow_scale(app.settings, shell, err)) {
      exit_code = 1;
      break;
    }
    build_and_draw_frame(app, *window, shell, o, headless, frame, dt, totals);
    int fb_w = 0, fb_h = 0;
    window->framebuffer_size(fb_w, fb_h);
    const bool last_frame = headless && frame + 1 >= o.frames;
    double png_ms = 0.0;  // writing the screenshot is not part of the frame's time
    if (const auto picture = shell.take_png_request()) save_png_picture(app, *picture, fb_w, fb_h);
    if (last_frame) exit_code = std::max(exit_code, outputs.write_last_frame(app, shell, fb_w, fb_h, err, png_ms));
    const auto swap0 = std::chrono::steady_clock::now();
    glfwSwapBuffers(window->glfw());
    if (frame >= 2) totals.swap_ms += ms_since(swap0);
    frame_ms.push_back(ms_since(t0) - png_ms);
    if (io.WantSaveIniSettings && !layout_path.empty()) {
      save_layout(app, layout_path);
      io.WantSaveIniSettings = false;
    }
    if (shell.quit_requested()) glfwSetWindowShouldClose(window->glfw(), GLFW_TRUE);
    if (last_frame) break;
  }

  exit_code = std::max(exit_code, outputs.write_state(app, *window, shell, err));
  if (o.frame_stats)
    print_frame_stats(out, frame_ms, totals, window->gl().stats(), o, shell.shown_view_names().size(),
                      app.kernel ? app.kernel->open_seconds : 0.0, window->renderer_name());
  if (headless) report_problems(app, err);
  else remember_session(app, err);
  if (!layout_path.empty()) {
    std::string error;
    if (!save_layout_file(layout_path, error)) err << "gemmscope gui: window layout not saved: " << error << "\n";
  }
  app.cancel_jobs();
  app.jobs.clear();  // joins the job threads before the context goes
  shell.release_gl();
  return exit_code;
}

}  // namespace gs::gui
