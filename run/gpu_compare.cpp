#include "run/gpu_compare.hpp"

#include <cstring>
#include <set>

#include <fmt/format.h>

#include "engine/model/model.hpp"
#include "run/gemm_data.hpp"
#include "run/gpu_launch.hpp"

namespace gs::run {

namespace {

std::string element_text(const std::vector<uint8_t>& bytes, kernels::DType dtype, size_t index) {
  const double value = load_element(bytes, dtype, index);
  if (dtype == kernels::DType::f32) {
    uint32_t bits;
    std::memcpy(&bits, bytes.data() + index * 4, 4);
    return fmt::format("{:.9g} (0x{:08x})", value, bits);
  }
  uint16_t bits;
  std::memcpy(&bits, bytes.data() + index * 2, 2);
  return fmt::format("{:.9g} (0x{:04x})", value, bits);
}

std::string mistake_label(const std::string& mistake) { return mistake.empty() ? "(as written)" : mistake; }

}  // namespace

std::string_view mistake_behaviour_name(MistakeBehaviour b) {
  switch (b) {
    case MistakeBehaviour::deterministic: return "deterministic";
    case MistakeBehaviour::race: return "race";
    case MistakeBehaviour::deadlock: return "deadlock";
  }
  return "?";
}

MistakeBehaviour known_mistake_behaviour(std::string_view mistake) {
  // The GPU's output with a missing wait depends on when the TMA bytes land: a race.
  if (mistake == "skip-mbarrier-wait") return MistakeBehaviour::race;
  // Warps compute on a shared-memory chunk other warps may not have written yet.
  if (mistake == "no-sync-after-load") return MistakeBehaviour::race;
  // A ring whose consumers' parity does not flip at the wrap either passes on the previous
  // phase (stale stage, a tma-race: the model's order) or, when the loads have already landed,
  // waits for a phase that never comes (the H100 hung, docs/results/2026-11-24-h100-hopper).
  if (mistake == "phase-not-flipped") return MistakeBehaviour::race;
  // Refilling stages without the empty wait: undefined arrivals on the full barriers; the
  // model deadlocks, the H100 faulted (CUDA_ERROR_LAUNCH_FAILED), same run.
  if (mistake == "skip-empty-wait") return MistakeBehaviour::race;
  // The Ampere seed's pitfalls (ampere_cp_async): reading a stage before its cp.async group
  // landed, and a prefetch racing slower warps' reads: timing-dependent on the GPU.
  if (mistake == "steady-state-wait-at-tail" || mistake == "no-sync-before-prefetch") return MistakeBehaviour::race;
  // Step 17's stage released to the own producer only (a peer's multicast overwrites a stage
  // the peer may still be reading) and full barriers that expect the own slice of B only (the
  // phase completes before the peers' slices land; the late bytes unbalance the next phases,
  // which may hang): what the GPU computes depends on when the peers' copies land.
  if (mistake == "release-own-cta-only" || mistake == "expect-own-slice-only") return MistakeBehaviour::race;
  // Step 22's leader issuing the pair's MMA without rank 1's word that its stage landed.
  if (mistake == "skip-peer-wait") return MistakeBehaviour::race;
  // Step 18's TMA stores reading staging buffers the threads wrote without fence.proxy.async,
  // or that they rewrite before wait_group.read: what lands in C depends on the copy's timing.
  if (mistake == "missing-proxy-fence" || mistake == "reuse-staging-before-wait") return MistakeBehaviour::race;
  // The barrier waits for bytes that never come: the GPU hangs, the model reports a deadlock.
  if (mistake == "wrong-expect-tx") return MistakeBehaviour::deadlock;
  // wrong-swizzle, missing-wgmma-fence, missing-init-fence, the kernel as written, and mistakes
  // not listed here: the output is the same on every run.
  return MistakeBehaviour::deterministic;
}

ByteComparison compare_c_bytes(const std::vector<uint8_t>& gpu, const std::vector<uint8_t>& model,
                               kernels::DType c_dtype, kernels::GemmShape shape) {
  ByteComparison r;
  const size_t es = dtype_bytes(c_dtype);
  r.elements = uint64_t(shape.m) * shape.n;
  if (gpu.size() != r.elements * es || model.size() != r.elements * es) {
    r.differing = r.elements;
    r.first_difference = fmt::format("C sizes differ: the GPU's has {} bytes, the model's {}, {}x{} needs {}",
                                     gpu.size(), model.size(), shape.m, shape.n, r.elements * es);
    return r;
  }
  for (size_t i = 0; i < r.elements; ++i) {
    if (std::memcmp(gpu.data() + i * es, model.data() + i * es, es) == 0) continue;
    if (r.differing++ == 0)
      r.first_difference = fmt::format("C[{}][{}]: GPU {}, model {}", i / shape.n, i % shape.n,
                                       element_text(gpu, c_dtype, i), element_text(model, c_dtype, i));
  }
  r.identical = r.differing == 0;
  return r;
}

void judge_comparison(ModelComparison& c) {
  c.behaviour = known_mistake_behaviour(c.mistake);
  if (c.behaviour == MistakeBehaviour::deterministic && !c.mistake.empty() && !c.model_completed &&
      c.model_error.find("deadlock") != std::string::npos)
    c.behaviour = MistakeBehaviour::deadlock;  // the model says so, for mistakes not in the list
  const bool gpu_ok = c.gpu_status == GpuStatus::ok;
  const std::string gpu_text = fmt::format("the GPU {}: {}", gpu_status_name(c.gpu_status), c.gpu_error);
  const std::string diff_text =
      fmt::format("{} of {} elements differ; first: {}", c.differing_elements, c.elements, c.first_difference);
  switch (c.behaviour) {
    case MistakeBehaviour::deadlock:
      c.as_expected = c.gpu_status == GpuStatus::timed_out && !c.model_completed;
      if (c.as_expected)
        c.verdict = "hangs on the GPU too (timed out), deadlock in the model";
      else if (c.model_completed)
        c.verdict = "expected a deadlock, but the model completed; " + (gpu_ok ? "the GPU finished too" : gpu_text);
      else
        c.verdict = "deadlock in the model, but the GPU did not time out: " +
                    (gpu_ok ? std::string("it finished") : gpu_text);
      return;
    case MistakeBehaviour::race:
      // Anything the GPU does is possible: wrong output, a hang, even a fault (a CTA that exits
      // while its TMA loads are still landing). Only a crashed child or no GPU is unexpected.
      c.as_expected = gpu_ok || c.gpu_status == GpuStatus::timed_out || c.gpu_status == GpuStatus::failed;
      if (!gpu_ok)
        c.verdict = "race: " + gpu_text;
      else if (!c.compared)
        c.verdict = "race: the GPU finished; the model did not (" + c.model_error + ")";
      else if (c.bit_identical)
        c.verdict = "race: identical to the model this time (the GPU's output depends on timing)";
      else
        c.verdict = "race: " + diff_text + " (the GPU's output depends on timing; not a failure)";
      return;
    case MistakeBehaviour::deterministic:
      c.as_expected = gpu_ok && c.model_completed && c.bit_identical;
      if (!gpu_ok)
        c.verdict = gpu_text;
      else if (!c.model_completed)
        c.verdict = "the model did not complete: " + c.model_error;
      else if (!c.bit_identical)
        c.verdict = "DIFFERENT: " + diff_text;
      else if (c.gpu_correct)
        c.verdict = "identical, bit for bit (C correct)";
      else
        c.verdict = "identical, bit for bit (both wrong the same way)";
      return;
  }
}

ModelComparison compare_with_model(const std::string& kernel_id, const std::string& mistake,
                                   const CompareOptions& options) {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kernel_id);
  ModelComparison c;
  c.kernel_id = info.id;
  c.mistake = mistake;
  c.shape = info.resolve(options.shape);
  c.seed = options.seed;
  std::set<std::string> mistakes;
  if (!mistake.empty()) mistakes.insert(mistake);
  const ir::Kernel kernel = kernels::build_kernel(info, {c.shape, mistakes, options.params});
  const kernels::DType c_dtype = kernels::c_dtype_of(info, options.params);
  const GemmData data = make_gemm_data(info, c_dtype, c.shape, InputMode::integer, c.seed);
  const std::vector<double> reference = reference_gemm(data);
  model::GemmBuffers buffers{data.a_bytes, data.b_bytes, poisoned_output(c.shape, c_dtype)};

  // The GPU first, while this process is small (the child is a fork of it).
  const KernelRun gpu = run_kernel_once(kernel, buffers, c.shape, options.kernel_limit, options.job);
  c.gpu_status = gpu.job.status;
  c.gpu_error = gpu.job.error;
  if (gpu.job.ok())
    c.gpu_correct = compare_output(gpu.c, c_dtype, reference, c.shape, InputMode::integer, info.ab_dtype).correct;

  model::SimOptions sim;
  sim.trace = false;
  try {
    const model::SimResult m = model::simulate(kernel, buffers, sim);
    c.model_completed = m.completed;
    c.model_error = m.error;
    for (const model::Hazard& h : m.hazards) c.hazards.push_back(std::string(model::hazard_kind_name(h.kind)) + ": " + h.detail);
    if (m.completed)
      c.model_correct =
          compare_output(buffers.c, c_dtype, reference, c.shape, InputMode::integer, info.ab_dtype).correct;
  } catch (const model::ModelError& e) {
    c.model_completed = false;
    c.model_error = std::string("the model could not run the kernel: ") + e.what();
  }

  if (gpu.job.ok() && c.model_completed) {
    const ByteComparison bytes = compare_c_bytes(gpu.c, buffers.c, c_dtype, c.shape);
    c.compared = true;
    c.bit_identical = bytes.identical;
    c.elements = bytes.elements;
    c.differing_elements = bytes.differing;
    c.first_difference = bytes.first_difference;
  }
  judge_comparison(c);
  return c;
}

std::vector<ModelComparison> compare_kernel_with_model(const kernels::KernelInfo& info,
                                                       const CompareOptions& options) {
  std::vector<ModelComparison> rows;
  rows.push_back(compare_with_model(info.id, "", options));
  for (const kernels::Mistake& m : info.mistakes) rows.push_back(compare_with_model(info.id, m.name, options));
  return rows;
}

nlohmann::json model_comparison_json(const ModelComparison& c) {
  return {{"kernel", c.kernel_id},
          {"mistake", c.mistake.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.mistake)},
          {"shape", {{"m", c.shape.m}, {"n", c.shape.n}, {"k", c.shape.k}}},
          {"seed", c.seed},
          {"inputs", "int"},
          {"behaviour", mistake_behaviour_name(c.behaviour)},
          {"gpu_status", gpu_status_name(c.gpu_status)},
          {"gpu_error", c.gpu_error},
          {"gpu_correct", c.gpu_correct},
          {"model_completed", c.model_completed},
          {"model_error", c.model_error},
          {"model_correct", c.model_correct},
          {"hazards", c.hazards},
          {"compared", c.compared},
          {"bit_identical", c.compared ? nlohmann::json(c.bit_identical) : nlohmann::json(nullptr)},
          {"elements", c.elements},
          {"differing_elements", c.compared ? nlohmann::json(c.differing_elements) : nlohmann::json(nullptr)},
          {"first_difference", c.first_difference},
          {"as_expected", c.as_expected},
          {"verdict", c.verdict}};
}

std::string model_comparison_table(const std::vector<ModelComparison>& rows) {
  std::string out = fmt::format("{:<22} {:<20} {:<13} {:<10} {:<10} {:>9}  {}\n", "kernel", "mistake", "behaviour", "GPU",
                                "model", "differing", "verdict");
  for (const ModelComparison& c : rows) {
    out += fmt::format("{:<22} {:<20} {:<13} {:<10} {:<10} {:>9}  {}{}\n", c.kernel_id, mistake_label(c.mistake),
                       mistake_behaviour_name(c.behaviour), gpu_status_name(c.gpu_status),
                       c.model_completed ? (c.hazards.empty() ? "ok" : "hazards") : "no end",
                       c.compared ? std::to_string(c.differing_elements) : "-", c.as_expected ? "" : "UNEXPECTED: ",
                       c.verdict);
  }
  return out;
}

}  // namespace gs::run
