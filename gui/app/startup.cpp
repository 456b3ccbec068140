#include "gui/app/startup.hpp"

#include <ostream>

#include <fmt/format.h>

namespace gs::gui {

namespace {

bool window_size_ok(int w, int h) { return w >= 320 && h >= 240 && w <= 8192 && h <= 8192; }

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

std::optional<run::SimRequest> first_request(const AppOptions& o, const Settings& settings, std::ostream& err) {
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
