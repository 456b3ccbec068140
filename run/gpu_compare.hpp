// The model against the GPU: the same kernel, the same integer inputs, both outputs compared
// byte for byte (architecture.md: "the model must compute what the GPU computes").
//
//   auto rows = run::compare_kernel_with_model(kernels::kernel_or_throw("hopper_tma_wgmma_64"));
//   // one row for the kernel as written, then one per deliberate mistake
//   std::cout << run::model_comparison_table(rows);
//
// Integer inputs in [-4, 4] make every fp32 sum exact in any order, so a correct kernel gives
// identical bytes on both. Mistakes behave in one of three ways:
//  * deterministic (wrong-swizzle, missing-wgmma-fence, missing-init-fence, and any mistake not
//    listed otherwise): C is wrong, or right, identically on both; bytes must match;
//  * race (skip-mbarrier-wait, phase-not-flipped, skip-empty-wait, steady-state-wait-at-tail,
//    no-sync-before-prefetch): the GPU's output depends on timing, so differences (and even a
//    hang or a fault) are reported but are no failure;
//  * deadlock (wrong-expect-tx, or any mistake whose model run does not complete): the model
//    reports the deadlock and the GPU must time out too: "hangs on the GPU too (timed out),
//    deadlock in the model".
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/gpu_job.hpp"
#include "kernels/registry.hpp"

namespace gs::run {

enum class MistakeBehaviour { deterministic, race, deadlock };
std::string_view mistake_behaviour_name(MistakeBehaviour b);  // "deterministic", "race", "deadlock"
// What a mistake is known to do on the GPU ("" = the kernel as written: deterministic).
MistakeBehaviour known_mistake_behaviour(std::string_view mistake);

struct CompareOptions {
  kernels::GemmShape shape;  // a 0 takes that dimension of the kernel's example shape
  kernels::ParamValues params;  // build parameters other than the kernel's defaults
  uint64_t seed = 1;         // of the integer inputs
  std::chrono::milliseconds kernel_limit{10'000};
  GpuJobOptions job;
};

struct ModelComparison {
  std::string kernel_id;
  std::string mistake;  // empty: the kernel as written
  kernels::GemmShape shape;
  uint64_t seed = 1;
  MistakeBehaviour behaviour = MistakeBehaviour::deterministic;
  // The GPU.
  GpuStatus gpu_status = GpuStatus::failed;
  std::string gpu_error;
  bool gpu_correct = false;  // equal to the exact reference
  // The model (fast mode, whole grid).
  bool model_completed = false;
  std::string model_error;
  std::vector<std::string> hazards;  // "tma-race: ..." one per distinct hazard
  bool model_correct = false;
  // Both.
  bool compared = false;  // both produced C
  bool bit_identical = false;
  uint64_t elements = 0;
  uint64_t differing_elements = 0;
  std::string first_difference;  // "C[3][17]: GPU 5 (0x40a00000), model 7 (0x40e00000)"
  // The verdict.
  bool as_expected = false;
  std::string verdict;  // one sentence
};

// Runs one configuration. Throws kernels::ConfigError for an unknown id, mistake or shape.
ModelComparison compare_with_model(const std::string& kernel_id, const std::string& mistake,
                                   const CompareOptions& options = {});

// The kernel as written, then every mistake of its registry entry, in order.
std::vector<ModelComparison> compare_kernel_with_model(const kernels::KernelInfo& info,
                                                       const CompareOptions& options = {});

// Fills behaviour, as_expected and verdict from the other fields (exposed for tests).
void judge_comparison(ModelComparison& c);

// The byte comparison of two C buffers of the kernel's C type: count of differing elements and
// the first one described.
struct ByteComparison {
  bool identical = false;
  uint64_t elements = 0;
  uint64_t differing = 0;
  std::string first_difference;
};
ByteComparison compare_c_bytes(const std::vector<uint8_t>& gpu, const std::vector<uint8_t>& model,
                               kernels::DType c_dtype, kernels::GemmShape shape);

nlohmann::json model_comparison_json(const ModelComparison& c);
std::string model_comparison_table(const std::vector<ModelComparison>& rows);

}  // namespace gs::run
