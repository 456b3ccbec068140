#include "gui/app/startup.hpp"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "gui/core/recorded_timeline.hpp"
#include "gui/core/throughput_data.hpp"
#include "run/input_file.hpp"
#include "run/run_time.hpp"

namespace gs::gui {

namespace {

bool window_size_ok(int w, int h) { return w >= 320 && h >= 240 && w <= 8192 && h <= 8192; }

// Why the kernel cannot be built at the request's shape; empty when it can.
std::string shape_refusal(const run::SimRequest& req) {
  if (req.shape.m == 0 && req.shape.n == 0 && req.shape.k == 0) return "";
  try {
    const kernels::KernelInfo& info = kernels::kernel_or_throw(req.kernel_id);
    kernels::build_kernel(info, {info.resolve(req.shape), req.mistakes, req.params});
  } catch (const kernels::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

int check_app_options(const AppOptions& o, std::ostream& err) {
  if (o.steps_per_frame < 0 || o.steps_per_frame > 1000000) {
    err << fmt::format("gemmscope gui: --steps-per-frame {} is out of range: use 0 to 1000000\n", o.steps_per_frame);
    return 2;
  }
  if (o.frames < 1 || o.frames > 100000) {
    err << fmt::format("gemmscope gui: --frames {} is out of range: use 1 to 100000\n", o.frames);
    return 2;
  }
  if (!window_size_ok(o.width, o.height)) {
    err << fmt::format("gemmscope gui: --size {}x{} is out of range: use 320x240 to 8192x8192\n", o.width, o.height);
    return 2;
  }
  if ((o.resize_width || o.resize_height) && !window_size_ok(o.resize_width, o.resize_height)) {
    err << fmt::format("gemmscope gui: --resize-to {}x{} is out of range: use 320x240 to 8192x8192\n", o.resize_width,
                       o.resize_height);
    return 2;
  }
  return 0;
}

std::optional<run::SimRequest> first_request(const AppOptions& o, const Settings& settings, std::ostream& err,
                                             std::string* settings_warnings) {
  run::SimRequest req;
  req.kernel_id = o.kernel_id.empty() ? settings.last_kernel : o.kernel_id;
  if (!kernels::find_kernel(req.kernel_id)) {
    if (!o.kernel_id.empty()) {
      try {
        kernels::kernel_or_throw(o.kernel_id);
      } catch (const std::exception& e) {
        err << "gemmscope gui: " << e.what() << "\n";
      }
      return std::nullopt;
    }
    req.kernel_id = kernels::all_kernels().front().id;  // first use, or a stale settings file: the ladder's start
  }
  req.shape = o.shape;
  if (o.kernel_id.empty() && o.shape.m == 0) req.shape = {settings.last_m, settings.last_n, settings.last_k};
  req.mistakes = o.mistakes;
  req.params = o.params;
  req.only_traced_cta = !o.whole_grid;
  // Bad shapes, mistakes or parameters named on the command line are usage errors, found before
  // any window opens. Without --kernel only the mistakes and parameters are the user's: they are
  // checked against the kernel the settings open (a stale shape there is not a usage error).
  if (o.kernel_id.empty()) {
    try {
      const kernels::KernelInfo& info = kernels::kernel_or_throw(req.kernel_id);
      kernels::require_mistakes(info, req.mistakes);
      kernels::resolve_params(info, req.params);
    } catch (const kernels::ConfigError& e) {
      err << "gemmscope gui: " << e.what() << "\n";
      return std::nullopt;
    }
    // A shape the kernel no longer takes (its tiles changed, or the file was edited) is the
    // settings' fault: the example shape opens instead, and the Problems view says why.
    if (const std::string why = shape_refusal(req); !why.empty()) {
      if (settings_warnings)
        *settings_warnings += fmt::format("settings: 'last_shape' [{}, {}, {}] does not fit {}: {}; using the "
                                          "example shape\n",
                                          req.shape.m, req.shape.n, req.shape.k, req.kernel_id, why);
      req.shape = {};
    }
    return req;
  }
  try {
    const kernels::KernelInfo& info = kernels::kernel_or_throw(req.kernel_id);
    const kernels::GemmShape shape = info.resolve(req.shape);
    kernels::build_kernel(info, {shape, req.mistakes, req.params});
    if (o.whole_grid) run::require_whole_grid_fits(info, shape);
  } catch (const kernels::ConfigError& e) {
    err << "gemmscope gui: " << e.what() << "\n";
    return std::nullopt;
  }
  return req;
}

int import_timeline_option(AppOptions& o, AppState& app, bool headless, std::ostream& err,
                           std::optional<std::array<uint32_t, 3>>& cta) {
  std::string path = o.import_timeline;
  for (auto it = o.import_json.begin(); it != o.import_json.end();) {
    if (!is_timeline_file(*it)) {
      ++it;
      continue;
    }
    if (!path.empty() && path != *it) {
      err << fmt::format("gemmscope gui: --import '{}' is a timeline, and '{}' is one too: the Timeline view shows "
                         "one recording at a time\n", *it, path);
      return 2;
    }
    path = *it;
    it = o.import_json.erase(it);
  }
  if (path.empty()) return 0;
  if (!import_timeline(app, path, /*model_job=*/!headless)) {
    if (!headless) return 0;
    const Problem& p = app.problems.back();
    err << "gemmscope gui: --import-timeline: " << p.title << ": " << p.detail << "\n";
    return 2;
  }
  const RecordedTimeline& r = *app.recorded_timeline;
  if ((o.kernel_id.empty() || o.kernel_id == r.measured.kernel_id) && o.shape.m == 0 && o.shape.n == 0 &&
      o.shape.k == 0) {
    const run::SimRequest recorded = recorded_request(r);  // its build too, unless the command line names one
    o.kernel_id = r.measured.kernel_id;
    o.shape = r.measured.shape;
    if (o.params.empty()) o.params = recorded.params;
    if (o.mistakes.empty()) o.mistakes = recorded.mistakes;
    cta = recorded.cta;
  }
  if (headless && !model_timeline_now(app)) {
    err << "gemmscope gui: --import-timeline: the model's timeline of " << r.measured.kernel_id
        << " failed: " << r.model_error << "\n";
    return 1;
  }
  return 0;
}

int refuse_long_run(const run::SimRequest& req, double limit_seconds, std::ostream& err) {
  if (req.only_traced_cta || limit_seconds <= 0.0) return 0;
  run::RunEstimate e;
  try {
    e = run::time_whole_grid(req, model::grid_threads(req.threads));
  } catch (const std::exception&) {
    return 0;  // the open says what is wrong, as it would without the estimate
  }
  if (e.seconds <= limit_seconds) return 0;
  const kernels::KernelInfo& info = kernels::kernel_or_throw(req.kernel_id);
  const kernels::GemmShape s = info.resolve(req.shape);
  err << fmt::format("gemmscope gui: this whole-grid run of {} at {}x{}x{} would take {}; run it with --allow-long to "
                     "wait for it, or leave out --whole-grid to trace one CTA at this shape\n",
                     req.kernel_id, s.m, s.n, s.k, e.text());
  return 2;
}

int import_files(const AppOptions& o, AppState& app, bool headless, std::ostream& err) {
  int failed = 0;
  for (const std::string& path : o.import_json) {
    const size_t before = app.problems.size();
    import_bench_json(app, path);
    if (app.problems.size() == before) continue;
    ++failed;
    if (headless) {
      const Problem& p = app.problems.back();
      err << "gemmscope gui: --import: " << p.title << ": " << p.detail << "\n";
    }
  }
  return headless && failed > 0 ? 2 : 0;
}

int check_sweep_option(const AppOptions& o, const run::SimRequest& first, std::ostream& err) {
  if (!o.sweep_import.empty()) {  // a file that cannot be shown is refused before a window opens
    try {
      const run::SweepResult file =
          run::sweep_from_json(run::parse_json_bounded(run::read_input_file(o.sweep_import, kMaxSweepFileBytes), 32));
      if (file.axes.size() > kMaxSweepAxes)
        throw kernels::ConfigError(fmt::format("it sweeps {} parameters; the Sweep view draws one or two",
                                               file.axes.size()));
    } catch (const std::exception& e) {
      err << "gemmscope gui: --sweep-import: cannot show " << o.sweep_import << ": " << e.what() << "\n";
      return 2;
    }
  }
  if (o.sweep_axes.empty()) return 0;
  if (o.sweep_axes.size() > kMaxSweepAxes) {
    err << fmt::format("gemmscope gui: --sweep-param is given {} times: the Sweep view draws at most {} parameters (a "
                       "heat map); `gemmscope sweep` takes more\n",
                       o.sweep_axes.size(), kMaxSweepAxes);
    return 2;
  }
  run::SweepRequest req;
  req.kernel_id = first.kernel_id;
  req.axes = o.sweep_axes;
  req.shapes = {o.sweep_shape.value_or(kSweepShape)};
  try {
    run::check_sweep(req);
  } catch (const kernels::ConfigError& e) {
    err << "gemmscope gui: --sweep-param: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

int sweep_option(const AppOptions& o, AppState& app, bool headless, std::ostream& err) {
  SweepChoice& c = sweep_choice(app);
  if (o.sweep_shape) c.shape = *o.sweep_shape;
  if (!o.sweep_import.empty()) {
    if (import_sweep_json(app, o.sweep_import) > 0 || !headless) return 0;
    err << "gemmscope gui: --sweep-import: " << app.status << "\n";
    return 2;
  }
  if (o.sweep_axes.empty()) return 0;
  c.axes.clear();
  for (const run::SweepAxis& a : o.sweep_axes) {
    c.axes.push_back(a.name);
    std::vector<uint32_t> values = a.values;
    std::sort(values.begin(), values.end());  // the view lists a parameter's values in order
    c.values[a.name] = values;
  }
  if (!headless) {
    start_sweep(app);
    return 0;
  }
  if (run_sweep_now(app)) return 0;
  err << "gemmscope gui: the sweep could not run: " << (app.sweep.run ? app.sweep.run->error : app.status) << "\n";
  return 1;
}

void report_problems(const AppState& app, std::ostream& err) {
  size_t model = 0, advice = 0;
  for (const Problem& p : app.problems) {
    if (p.source == "model") {
      ++(p.kind.starts_with("advice") ? advice : model);
      continue;
    }
    std::string detail = p.detail;
    while (!detail.empty() && detail.back() == '\n') detail.pop_back();
    err << "gemmscope gui: " << severity_name(p.severity) << ": " << p.title << (detail.empty() ? "" : ": " + detail)
        << "\n";
  }
  if (model > 0)
    err << fmt::format("gemmscope gui: the model reports {} problem{} (the Problems view lists them; so does "
                       "`gemmscope sim`)\n",
                       model, model == 1 ? "" : "s");
  // Advice comes from the views' data (gui/core/advisories), which `sim` does not derive.
  if (advice > 0)
    err << fmt::format("gemmscope gui: {} piece{} of performance advice (the Problems view lists {})\n", advice,
                       advice == 1 ? "" : "s", advice == 1 ? "it" : "them");
}

void remember_session(AppState& app, std::ostream& err) {
  if (app.config_dir.empty()) return;
  app.settings.play_speed = app.playback.speed;
  if (app.kernel) {
    app.settings.last_kernel = app.kernel->request.kernel_id;
    app.settings.last_m = app.kernel->request.shape.m;
    app.settings.last_n = app.kernel->request.shape.n;
    app.settings.last_k = app.kernel->request.shape.k;
  }
  std::string error;
  if (!save_settings(app.settings, app.config_dir, &error)) err << "gemmscope gui: settings not saved: " << error << "\n";
}

}  // namespace gs::gui
