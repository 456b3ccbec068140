// The "simulate" job: build a kernel for a shape, feed it generated inputs on the CPU model,
// trace one CTA, and judge the output against the reference GEMM. The command line
// (`gemmscope sim`), the GUI and the benchmarks all run it through here.
//
//   run::SimReport r = run::run_sim({.kernel_id = "hopper_tma_wgmma_64"});
//   r.ok();                        // correct, completed, no hazards
//   run::sim_report_json(r);       // what `gemmscope sim --json` prints
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir/kernel.hpp"
#include "engine/model/model.hpp"
#include "engine/model/trace.hpp"
#include <optional>

#include "engine/ir/instrument.hpp"
#include "run/gemm_data.hpp"
#include "run/host_memory.hpp"
#include "kernels/registry.hpp"

namespace gs::run {

// What to run: the one request of the command line, the GUI (which keeps it with the kernel
// it opened) and the benchmarks.
struct SimRequest {
  std::string kernel_id;
  kernels::GemmShape shape;            // a 0 takes that dimension of the kernel's example shape
  std::set<std::string> mistakes;      // names from the kernel's registry entry
  kernels::ParamValues params;         // build parameters; an unset one takes the kernel's default
  InputMode inputs = InputMode::integer;
  uint64_t seed = 1;
  std::array<uint32_t, 3> cta{0, 0, 0};  // the CTA to trace (ctaid x, y, z)
  bool trace = true;                     // false: fast mode everywhere, no Trace
  // true: run only the traced CTA (the GUI's microscope at any shape). C is then mostly
  // unwritten, so no reference is computed and the report has no verdict (judged() false).
  bool only_traced_cta = false;
  // With only_traced_cta: skip the middle passes of long loops (model::SimOptions::fast_forward).
  bool fast_forward = true;
  uint32_t threads = 0;  // threads of a whole-grid run (0: one per core); the result is the same
  // The card the time is predicted on (model::timing::kMachines; nullptr: the kernel's target's,
  // timing::machine_for). A card that cannot run the kernel's target is refused (ModelError).
  const model::timing::Machine* machine = nullptr;
  std::function<void(uint64_t done_ctas, uint64_t total_ctas)> progress;
  const std::atomic<bool>* cancel = nullptr;
  // Set: the model runs the kernel instrumented with the timeline pass (engine/ir/instrument)
  // and keeps the records it wrote. No trace is kept (its instructions are not the kernel's)
  // but the passes fast-forward skipped (SimReport::timeline_skips).
  std::optional<ir::TimelineOptions> timeline;
};

struct SimReport {
  // What ran.
  std::string kernel_id;
  kernels::GemmShape shape;
  std::set<std::string> mistakes;
  kernels::ParamValues params;  // every parameter the kernel declares, as built
  InputMode inputs = InputMode::integer;
  uint64_t seed = 1;
  std::array<uint32_t, 3> cta{0, 0, 0};
  kernels::DType ab_dtype = kernels::DType::f32, c_dtype = kernels::DType::f32;
  ir::Kernel kernel;  // as built (launch grid, instructions for traces and hazard lines)
  // What happened.
  model::GemmBuffers buffers;      // whole grid: A and B as fed, C as the model left it
  // Only the traced CTA ran: A, B and C at their full size, of which only that CTA's rows of A,
  // columns of B and tile of C were ever generated or touched (buffers is then empty).
  std::shared_ptr<const std::array<ReservedBytes, 3>> traced_memory;
  std::vector<double> reference;   // C = A·B in double, row-major
  model::SimResult result;         // stats, the traced CTA, hazards
  Comparison cmp;
  double seconds = 0.0;            // the model run (result.stats.wall_seconds)
  double total_seconds = 0.0;      // build + data + model + reference + comparison
  bool judged = true;              // false: only the traced CTA ran, cmp is not a verdict
  // The registers per thread the prediction's occupancy counted (ptx::kernel_registers), and
  // where the count came from or why there is none.
  uint32_t registers = 0;
  std::string registers_source;
  // ld.shared ptxas folded into a wider load of another (model::shared_load_folds), the loads
  // that carry them, and where the SASS counts came from ("" when the kernel has no narrow
  // shared load, so none were asked for).
  uint32_t shared_loads_folded = 0, shared_load_leaders = 0;
  std::string sass_source;
  std::optional<ir::TimelineLayout> timeline;  // request.timeline: the records' layout ...
  std::vector<uint8_t> timeline_bytes;         // ... and the records
  // With request.timeline, run alone: the passes fast-forward skipped (Trace::fast_forwards,
  // in trace warps of timeline_ctas), the one part of that run's trace kept.
  std::vector<model::FastForward> timeline_skips;
  std::vector<model::TracedCta> timeline_ctas;

  // C as the model left it, whichever way it ran.
  std::span<const uint8_t> c_bytes() const;
  bool hazard_free() const { return result.hazards.empty(); }
  // The verdict the command line turns into exit code 0: nothing wrong found. A run of only the
  // traced CTA is not judged on C, so there it means completed without hazards.
  bool ok() const { return (!judged || cmp.correct) && result.completed && result.hazards.empty(); }
};

// The request behind every figure a front end calls the model's prediction of a build at a shape
// (the speed ladder, the Compare view, the sweep), as `gemmscope sim ID --traced-cta-only` makes
// it: the traced CTA alone, the grid predicted from it, and traced. Only a traced CTA goes
// through its L1 and the SM's store path (exec_global.cpp); an untraced one is costed with every
// load an L2 hit and no store path, and predicts another figure (step 23 at 4096³ on the B200:
// 1065 TFLOP/s untraced, 994 traced), so one prediction would show two numbers.
SimRequest prediction_request(const std::string& kernel_id, kernels::GemmShape shape,
                              const kernels::ParamValues& params = {}, const std::set<std::string>& mistakes = {},
                              const model::timing::Machine* machine = nullptr);

// Throws kernels::ConfigError for bad input: unknown id or mistake, a shape the kernel does
// not take, a CTA outside the grid ("CTA (5,0) is outside the grid (2,2,1): x=5 ..."), a
// whole-grid run larger than the memory this machine has free (require_whole_grid_fits).
// Throws model::ModelError when the model cannot launch the kernel at all.
SimReport run_sim(const SimRequest& request);

// Bytes a whole-grid run holds at its peak: A and B as values and as device bytes, C, and the
// double-precision reference.
uint64_t whole_grid_bytes(const kernels::KernelInfo& info, kernels::GemmShape shape);
// Throws kernels::ConfigError, naming both sizes, when whole_grid_bytes is more than
// available_memory_bytes (run/host_memory.hpp): said before anything is allocated.
void require_whole_grid_fits(const kernels::KernelInfo& info, kernels::GemmShape shape);

// The model's guard against an endless loop for this launch, in modeled cycles per CTA,
// scaled to the work the build declares (its CTA tile, kernels::tile_of; sim_job.cpp says how),
// and that rule in words.
struct CycleBudget {
  uint64_t cycles = 0;
  std::string basis;
};
CycleBudget cycle_budget(const kernels::GemmShape& tile, kernels::GemmShape shape, const ir::LaunchShape& launch);

// One object: kernel, shape {m,n,k}, mistakes, inputs, seed, cta, grid, correct, completed,
// error, max_abs_err, rel_err, mismatches, unwritten, first_mismatch, warp_instructions,
// ctas, smem {accesses, wavefronts, ideal_wavefronts, bank_conflicts}, tma {transfers, bytes},
// mma_ops, hazards [{kind, inst, warp, lane, address, cycle, detail, ptx}], cycles,
// predicted_tflops, predicted_seconds, seconds, ok. Non-finite numbers are null.
nlohmann::json sim_report_json(const SimReport& report);

// The same facts as an aligned table for a terminal, ending in a newline.
std::string sim_report_table(const SimReport& report);

// The traced CTA as JSON (for `gemmscope sim --trace FILE`): the kernel's instructions with
// their PTX text, every event (kind names from model::event_kind_name, null for "none"
// sentinels), the side tables the events index, and the hazards.
nlohmann::json trace_json(const model::Trace& trace, const ir::Kernel& kernel);

// What a traced CTA run alone skipped (model/fast_forward.hpp), one line per loop:
// "K loop L_kb: iterations 21..110 of 128 fast-forwarded (run with their time, not traced or
// computed), in 3 instances". Empty when it skipped nothing.
std::vector<std::string> fast_forward_lines(const model::Trace& trace, const ir::Kernel& kernel);

// "(1,0)" for z == 0, "(1,0,2)" otherwise.
std::string format_cta(const std::array<uint32_t, 3>& cta);

}  // namespace gs::run
