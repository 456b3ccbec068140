#include "gui/core/ladder_data.hpp"

#include <fmt/format.h>

#include "run/gemm_data.hpp"
#include "gui/core/app_state.hpp"
#include "gui/core/speed_ladder.hpp"
#include "gui/core/view_data.hpp"

namespace gs::gui {

kernels::GemmShape resolved_shape(const kernels::KernelInfo& info, kernels::GemmShape s) { return info.resolve(s); }

std::string shape_error(const kernels::KernelInfo& info, kernels::GemmShape shape, const kernels::ParamValues& params) {
  if (!info.check_shape) return {};
  try {
    kernels::check_build_shape(info, resolved_shape(info, shape), params);
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

RequestCheck check_request(const run::SimRequest& request) {
  RequestCheck c;
  const kernels::KernelInfo* info = kernels::find_kernel(request.kernel_id);
  if (!info) {
    c.shape_error = fmt::format("unknown kernel '{}'", request.kernel_id);
    return c;
  }
  for (const std::string& m : request.mistakes) {
    bool known = false;
    for (const kernels::Mistake& km : info->mistakes) known = known || km.name == m;
    if (!known) c.mistake_error = fmt::format("{} has no mistake '{}'", info->id, m);
  }
  try {
    kernels::resolve_params(*info, request.params);
  } catch (const kernels::ConfigError& e) {
    c.param_error = e.what();
  }
  if (c.param_error.empty()) c.shape_error = shape_error(*info, request.shape, request.params);
  if (!c.shape_error.empty() || !c.mistake_error.empty() || !c.param_error.empty()) return c;
  // The grid is whatever the kernel's build chooses (kernels differ in which grid axis walks
  // M), so ask the build rather than guessing from the tile.
  try {
    kernels::GemmConfig cfg{resolved_shape(*info, request.shape), request.mistakes, request.params};
    const ir::Kernel k = kernels::build_kernel(*info, cfg);
    c.grid = k.launch.grid;
    c.threads = k.launch.threads();
  } catch (const std::exception& e) {
    c.shape_error = e.what();
    return c;
  }
  for (int d = 0; d < 3; ++d)
    if (request.cta[d] >= c.grid[d]) {
      c.cta_error = fmt::format("CTA ({},{},{}) is outside the grid ({},{},{})", request.cta[0], request.cta[1],
                                request.cta[2], c.grid[0], c.grid[1], c.grid[2]);
      break;
    }
  return c;
}

namespace {

bool same_request(const run::SimRequest& a, const run::SimRequest& b) {
  return a.kernel_id == b.kernel_id && a.shape.m == b.shape.m && a.shape.n == b.shape.n && a.shape.k == b.shape.k &&
         a.mistakes == b.mistakes && a.params == b.params && a.cta == b.cta;
}

}  // namespace

const RequestCheck& RequestChecker::get(const run::SimRequest& request) {
  if (!last_ || !same_request(*last_, request)) {
    check_ = check_request(request);
    last_ = request;
  }
  return check_;
}

void select_ladder_kernel(AppState& app, const std::string& kernel_id) {
  const kernels::KernelInfo* info = kernels::find_kernel(kernel_id);
  if (!info) return;
  if (app.request.kernel_id == kernel_id) return;
  app.request.kernel_id = kernel_id;
  app.request.shape = info->example_shape;
  app.request.mistakes.clear();
  app.request.params.clear();
  app.request.cta = {0, 0, 0};
}

void set_mistake(AppState& app, const std::string& name, bool on) {
  if (on)
    app.request.mistakes.insert(name);
  else
    app.request.mistakes.erase(name);
}

void set_param(AppState& app, const kernels::BuildParam& param, uint32_t value) {
  if (value == param.default_value)
    app.request.params.erase(param.name);
  else
    app.request.params[param.name] = value;
}

run::SimRequest trace_request(const AppState& app) {
  run::SimRequest r = app.request;
  r.only_traced_cta = true;
  return r;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::correct: return "correct";
    case Verdict::wrong: return "wrong";
    case Verdict::not_judged: return "not judged";
  }
  return "?";
}

RunSummary run_summary(const LoadedKernel& k) {
  RunSummary s;
  const run::SimReport& r = k.report;
  s.kernel_id = k.request.kernel_id;
  s.shape = k.request.shape;
  s.completed = r.result.completed;
  s.verdict = !r.judged ? Verdict::not_judged : r.cmp.correct ? Verdict::correct : Verdict::wrong;
  s.mismatches = r.cmp.mismatches;
  s.elements = r.cmp.elements;
  s.warp_instructions = r.result.stats.warp_instructions;
  if (!k.whole_grid())
    s.warp_instructions_scope = r.result.trace.fast_forwards.empty()
                                    ? "traced CTA"
                                    : "traced CTA, passes that ran only: fast-forwarded passes not counted";
  s.traced_cycles = r.result.stats.traced_cta_cycles;
  s.predicted_tflops = r.result.stats.predicted_tflops;
  s.predicted_on = model::timing::machine_words(*r.result.stats.predicted_on);
  s.open_seconds = k.open_seconds;
  s.hazards = r.result.hazards.size();
  s.whole_grid = k.whole_grid();
  return s;
}

nlohmann::json describe_ladder(AppState& app) {
  nlohmann::json kernels_json = nlohmann::json::array();
  for (const kernels::KernelInfo& info : kernels::all_kernels())
    kernels_json.push_back({{"id", info.id},
                            {"step", info.step},
                            {"title", info.title},
                            {"arch", std::string(ir::arch_name(info.arch))},
                            {"family", std::string(kernels::family_name(info.family))},
                            {"delta", info.delta},
                            {"focus_views", info.focus_views},
                            {"mistakes", info.mistakes.size()}});
  const run::SimRequest& r = app.request;
  const RequestCheck check = check_request(r);
  nlohmann::json j{{"kernels", kernels_json},
                   {"selected", r.kernel_id},
                   {"shape", {{"m", r.shape.m}, {"n", r.shape.n}, {"k", r.shape.k}}},
                   {"mistakes_on", nlohmann::json(std::vector<std::string>(r.mistakes.begin(), r.mistakes.end()))},
                   {"params", r.params},
                   {"param_error", check.param_error},
                   {"inputs", std::string(run::input_mode_name(r.inputs))},
                   {"seed", r.seed},
                   {"cta", {r.cta[0], r.cta[1], r.cta[2]}},
                   {"shape_error", check.shape_error},
                   {"cta_error", check.cta_error},
                   {"grid", {check.grid[0], check.grid[1], check.grid[2]}},
                   {"gpu_repeats", app.ladder_view.gpu_repeats},
                   {"speed", describe_speed_ladder(app)}};
  if (app.kernel) {
    const RunSummary s = run_summary(*app.kernel);
    j["loaded"] = {{"kernel", s.kernel_id},
                   {"shape", {{"m", s.shape.m}, {"n", s.shape.n}, {"k", s.shape.k}}},
                   {"whole_grid", s.whole_grid},
                   {"completed", s.completed},
                   {"warp_instructions", s.warp_instructions},
                   {"warp_instructions_scope", s.warp_instructions_scope},
                   {"traced_cycles", s.traced_cycles},
                   {"predicted_tflops", s.predicted_tflops},
                   {"predicted_on", s.predicted_on},
                   {"open_seconds", s.open_seconds},
                   {"hazards", s.hazards}};
    j["verdict"] = verdict_name(s.verdict);
  } else {
    j["loaded"] = nullptr;
    j["verdict"] = nullptr;
  }
  return j;
}

}  // namespace gs::gui
