#include "run/sim_job.hpp"

#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "engine/ptx/emit.hpp"

namespace gs::run {

std::string format_cta(const std::array<uint32_t, 3>& cta) {
  return cta[2] == 0 ? fmt::format("({},{})", cta[0], cta[1]) : fmt::format("({},{},{})", cta[0], cta[1], cta[2]);
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void require_cta_in_grid(const std::array<uint32_t, 3>& cta, const ir::LaunchShape& launch) {
  const auto& g = launch.grid;
  if (cta[0] >= g[0] || cta[1] >= g[1] || cta[2] >= g[2])
    throw kernels::ConfigError(fmt::format("CTA {} is outside the grid ({},{},{}): x must be below {}, y below {}{}",
                                           format_cta(cta), g[0], g[1], g[2], g[0], g[1],
                                           g[2] > 1 ? fmt::format(", z below {}", g[2]) : std::string()));
}

// JSON has no NaN or infinity: write null, which a reader cannot mistake for a small error.
nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json id_or_null(uint32_t v) { return v == ir::kNone ? nlohmann::json(nullptr) : nlohmann::json(v); }

// The PTX of the instructions that hazards name, for the JSON and the table.
std::string instruction_ptx(const ir::Kernel& kernel, const std::vector<std::string>& reg_names, uint32_t inst) {
  if (inst >= kernel.insts.size()) return {};
  try {
    return ptx::format_instruction(kernel, reg_names, kernel.insts[inst]);
  } catch (const std::exception&) {
    return std::string(kernel.insts[inst].info().spelling);
  }
}

// 1234567 -> "1,234,567".
std::string group_digits(uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string result_line(const SimReport& r) {
  const Comparison& c = r.cmp;
  if (c.correct)
    return r.inputs == InputMode::integer
               ? "correct (exact, integer inputs)"
               : fmt::format("correct (relative error {:.2e} <= {:.0e}, random inputs)", c.rel_err, c.tolerance);
  // Every element within its bound, but the whole is off: a small error spread everywhere.
  if (c.mismatches == 0) return "WRONG: " + c.first_mismatch;
  std::string line = fmt::format("WRONG: {} of {} elements differ", group_digits(c.mismatches), group_digits(c.elements));
  if (c.unwritten > 0) line += fmt::format(" ({} never written)", group_digits(c.unwritten));
  if (!c.first_mismatch.empty()) line += "; " + c.first_mismatch;
  if (r.inputs == InputMode::random && std::isfinite(c.rel_err))
    line += fmt::format("; relative error {:.2e} (bound {:.0e})", c.rel_err, c.tolerance);
  return line;
}

}  // namespace

SimReport run_sim(const SimRequest& req) {
  const Clock::time_point t0 = Clock::now();
  const kernels::KernelInfo& info = kernels::kernel_or_throw(req.kernel_id);
  SimReport r;
  r.kernel_id = info.id;
  r.shape = info.resolve(req.shape);
  r.mistakes = req.mistakes;
  r.inputs = req.inputs;
  r.seed = req.seed;
  r.cta = req.cta;
  r.ab_dtype = info.ab_dtype;
  r.c_dtype = info.c_dtype;
  r.kernel = kernels::build_kernel(info, {r.shape, r.mistakes});
  require_cta_in_grid(r.cta, r.kernel.launch);

  GemmData data = make_gemm_data(info, r.shape, r.inputs, r.seed);
  r.buffers.a = std::move(data.a_bytes);
  r.buffers.b = std::move(data.b_bytes);
  r.buffers.c = poisoned_output(r.shape, info.c_dtype);

  model::SimOptions opts;
  opts.traced_cta = r.cta;
  opts.trace = req.trace;
  opts.progress = req.progress;
  opts.cancel = req.cancel;
  opts.only_traced_cta = req.only_traced_cta;
  const double flops = 2.0 * double(r.shape.m) * double(r.shape.n) * double(r.shape.k);
  const Clock::time_point model_start = Clock::now();
  r.result = model::simulate(r.kernel, r.buffers, opts, flops);
  r.seconds = r.result.stats.wall_seconds > 0.0 ? r.result.stats.wall_seconds : seconds_since(model_start);

  r.judged = !req.only_traced_cta;
  if (r.judged) {
    r.reference = reference_gemm(data);
    r.cmp = compare_output(r.buffers.c, info.c_dtype, r.reference, r.shape, r.inputs, info.ab_dtype);
  }
  r.total_seconds = seconds_since(t0);
  return r;
}

nlohmann::json sim_report_json(const SimReport& r) {
  using nlohmann::json;
  const model::SimStats& s = r.result.stats;
  const std::vector<std::string> reg_names = ptx::register_names(r.kernel);
  json hazards = json::array();
  for (const model::Hazard& h : r.result.hazards)
    hazards.push_back({{"kind", model::hazard_kind_name(h.kind)},
                       {"inst", id_or_null(h.inst)},
                       {"warp", id_or_null(h.warp)},
                       {"lane", id_or_null(h.lane)},
                       {"address", h.address},
                       {"cycle", h.cycle},
                       {"detail", h.detail},
                       {"ptx", instruction_ptx(r.kernel, reg_names, h.inst)}});
  const auto& g = r.kernel.launch.grid;
  return {
      {"kernel", r.kernel_id},
      {"shape", {{"m", r.shape.m}, {"n", r.shape.n}, {"k", r.shape.k}}},
      {"mistakes", r.mistakes},
      {"inputs", std::string(input_mode_name(r.inputs))},
      {"seed", r.seed},
      {"cta", r.cta},
      {"grid", g},
      {"correct", r.cmp.correct},
      {"completed", r.result.completed},
      {"cancelled", r.result.cancelled},
      {"error", r.result.error.empty() ? json(nullptr) : json(r.result.error)},
      {"ok", r.ok()},
      {"max_abs_err", finite_or_null(r.cmp.max_abs_err)},
      {"rel_err", finite_or_null(r.cmp.rel_err)},
      {"mismatches", r.cmp.mismatches},
      {"unwritten", r.cmp.unwritten},
      {"first_mismatch", r.cmp.first_mismatch.empty() ? json(nullptr) : json(r.cmp.first_mismatch)},
      {"ctas", s.ctas},
      {"warp_instructions", s.warp_instructions},
      {"smem",
       {{"accesses", s.smem_accesses},
        {"wavefronts", s.smem_wavefronts},
        {"ideal_wavefronts", s.smem_ideal_wavefronts},
        {"bank_conflicts", s.smem_bank_conflicts}}},
      {"tma", {{"transfers", s.tma_transfers}, {"bytes", s.tma_bytes}}},
      {"mma_ops", s.mma_ops},
      {"hazards", hazards},
      {"cycles", s.traced_cta_cycles},
      {"predicted_tflops", finite_or_null(s.predicted_tflops)},
      {"predicted_seconds", finite_or_null(s.predicted_seconds)},
      {"seconds", r.seconds},
  };
}

std::string sim_report_table(const SimReport& r) {
  const model::SimStats& s = r.result.stats;
  const kernels::KernelInfo* info = kernels::find_kernel(r.kernel_id);
  std::string out;
  auto row = [&out](std::string_view label, const std::string& value) {
    out += fmt::format("{:<19} {}\n", label, value);
  };
  row("kernel", info ? fmt::format("{} (step {:02}, {})", r.kernel_id, info->step, ir::arch_name(info->arch))
                     : r.kernel_id);
  const auto& g = r.kernel.launch.grid;
  row("shape", fmt::format("M={} N={} K={}  (grid {}x{}x{}, {} threads per CTA)", r.shape.m, r.shape.n, r.shape.k, g[0],
                           g[1], g[2], r.kernel.launch.threads()));
  std::string mistakes;
  for (const std::string& m : r.mistakes) mistakes += (mistakes.empty() ? "" : ", ") + m;
  row("mistakes", mistakes.empty() ? "none" : mistakes);
  row("inputs", fmt::format("{} (seed {}), {} A and B, {} C", r.inputs == InputMode::integer ? "integers in [-4, 4]" : "random in [-1, 1)",
                            r.seed, kernels::dtype_name(r.ab_dtype), kernels::dtype_name(r.c_dtype)));
  row("result", result_line(r));
  if (!r.result.completed)
    row("completed", r.result.cancelled       ? std::string("no: cancelled")
                     : r.result.error.empty() ? std::string("no")
                                              : "no: " + r.result.error);
  row("warp instructions", fmt::format("{} (whole grid, {} CTAs)", group_digits(s.warp_instructions), group_digits(s.ctas)));
  row("shared memory", fmt::format("{} accesses, {} wavefronts (ideal {}), {} bank conflicts", group_digits(s.smem_accesses),
                                   group_digits(s.smem_wavefronts), group_digits(s.smem_ideal_wavefronts),
                                   group_digits(s.smem_bank_conflicts)));
  row("TMA", fmt::format("{} transfers, {} bytes", group_digits(s.tma_transfers), group_digits(s.tma_bytes)));
  row("MMA", fmt::format("{} instructions", group_digits(s.mma_ops)));
  row("cycles", fmt::format("{} (modeled, traced CTA {})", group_digits(s.traced_cta_cycles), format_cta(r.cta)));
  row("predicted", std::isfinite(s.predicted_tflops) && s.predicted_tflops > 0.0
                       ? fmt::format("{:.2f} TFLOP/s on an H100 ({:.3g} s, modeled)", s.predicted_tflops, s.predicted_seconds)
                       : std::string("n/a"));
  row("model time", fmt::format("{:.3f} s (whole job {:.3f} s)", r.seconds, r.total_seconds));
  if (r.result.hazards.empty()) {
    row("hazards", "none");
  } else {
    row("hazards", fmt::format("{}", r.result.hazards.size()));
    const std::vector<std::string> reg_names = ptx::register_names(r.kernel);
    for (const model::Hazard& h : r.result.hazards) {
      std::string where;
      if (h.inst != ir::kNone) where += fmt::format(" at instruction {}", h.inst);
      if (h.warp != ir::kNone) where += fmt::format(" (warp {})", h.warp);
      out += fmt::format("  {}{}: {}\n", model::hazard_kind_name(h.kind), where, h.detail);
      const std::string text = instruction_ptx(r.kernel, reg_names, h.inst);
      if (!text.empty()) out += fmt::format("      {}\n", text);
    }
  }
  return out;
}

}  // namespace gs::run
