// The CPU model: runs a verified ir::Kernel over a whole grid, computing exactly what the GPU
// computes, and records one chosen CTA in full detail (a Trace) while the rest run fast.
//
//   model::GemmBuffers bufs{a_bytes, b_bytes, c_bytes};
//   model::SimResult r = model::simulate(kernel, bufs, {.traced_cta = {0, 0, 0}});
//   // bufs.c now holds C; r.trace the traced CTA; r.hazards what went wrong.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/ir/kernel.hpp"
#include "engine/model/timing.hpp"
#include "engine/model/trace.hpp"

namespace gs::model {

// Device memory of a GEMM as raw bytes, laid out as on the GPU (row-major, element type of
// the kernel). The model binds global-pointer and tensor-map parameters to these by role.
struct GemmBuffers {
  std::vector<uint8_t> a, b, c;
};

// The same three buffers owned by the caller, as spans: run/ maps large ones sparsely, so that
// a run of one CTA touches only the rows and columns that CTA reads (run/sim_job.cpp).
struct GemmMemory {
  std::span<uint8_t> a, b, c;
  std::span<uint8_t> timeline{};  // an instrumented kernel's record buffer (ParamRole::timeline)
};

struct SimOptions {
  std::array<uint32_t, 3> traced_cta{0, 0, 0};  // ctaid of the CTA to trace in full
  bool trace = true;                            // false: fast mode everywhere
  bool record_registers = true;                 // reg_write events in the traced CTA
  bool only_traced_cta = false;                 // run just that CTA (prediction at large shapes;
                                                // C is then only partly written)
  // With only_traced_cta: run the first and last passes of each long loop and skip the rest,
  // with their time (engine/model/fast_forward.hpp), so that one CTA at any shape takes a
  // bounded time and memory. The CTA's C then holds only the passes that ran.
  bool fast_forward = true;
  uint64_t max_cycles_per_cta = 50'000'000;     // a CTA past this is reported as a hang; callers
                                                // that know the work scale it (run/sim_job.cpp)
  std::string max_cycles_basis;                 // how that limit was chosen, for the hang's message
  // Registers per thread ptxas -v gave the kernel (0: not known): the prediction's occupancy
  // counts the register file only with it (timing::ctas_per_sm).
  uint32_t registers_per_thread = 0;
  // The card to predict on (timing::kMachines): its figures time the traced CTA and the whole
  // GEMM. nullptr: the machine of the kernel's target (timing::machine_for).
  const timing::Machine* machine = nullptr;
  // SASS instructions ptxas made of each instruction (ptx::compiled_kernel, from its line
  // table; empty: not known). The timing then charges the ld.shared ptxas folded into one wider
  // load as that one load (decode.hpp, shared_load_folds); what each load computes is the same.
  std::vector<uint16_t> sass_per_inst;
  // The index of each instruction's first SASS instruction (ptx::CompiledKernel::sass_first;
  // empty: not known): a load goes no further up than ptxas put it (decode.cpp, set_hoists).
  std::vector<uint32_t> sass_first;
  // Threads the whole grid runs on (0: one per core). The result is the same for any count,
  // bit for bit (engine/model/grid.cpp says how); the traced CTA runs on one of them.
  uint32_t threads = 0;
  // Called between CTAs (with threads, from the calling thread, at least every quarter second).
  std::function<void(uint64_t done_ctas, uint64_t total_ctas)> progress;
  const std::atomic<bool>* cancel = nullptr;    // set to stop between CTAs
  // Kernels that use clusterlaunchcontrol: how many CTAs the GPU runs at once (the first wave;
  // 0: one per SM of the predicted machine). The rest wait in the grid's queue (grid.cpp).
  uint32_t resident_ctas = 0;
  // An untraced whole warp's cp.async, commit_group and wait_group run through their straight
  // paths (exec_cp_async.cpp), the same bits as their exec forms; false only to check the one
  // against the other (tests/model/test_cp_async_straight.cpp).
  bool straight_copies = true;
  // An untraced whole warp's bar.sync runs through its straight path (exec_sync.cpp,
  // direct_bar_sync), the same bits as exec_bar; false only to check the one against the other
  // (tests/model/test_bar_straight.cpp).
  bool straight_barriers = true;
  // In a CTA of at most four warps, the scheduler's straight loop runs a warp's run of issues
  // that keep to its own state at once (cta.cpp, own_run), the same bits as one pick at a time;
  // false only to check the one against the other (tests/model/test_own_runs.cpp).
  bool own_runs = true;
};

struct SimStats {
  uint64_t ctas = 0;
  uint64_t warp_instructions = 0;  // whole grid
  uint64_t thread_instructions = 0;
  uint64_t smem_accesses = 0;      // warp-level shared loads/stores (ld/st.shared, ldmatrix, ...)
  uint64_t smem_wavefronts = 0;
  uint64_t smem_ideal_wavefronts = 0;
  uint64_t smem_bank_conflicts = 0;  // wavefronts beyond the ideal
  // The tensor cores' reads of shared memory through wgmma descriptors (tensor_reads.cpp):
  // batches of 32 sixteen-byte core-matrix rows, their wavefronts and the excess over ideal.
  uint64_t tensor_smem_reads = 0;
  uint64_t tensor_smem_wavefronts = 0;
  uint64_t tensor_smem_bank_conflicts = 0;
  uint64_t tma_transfers = 0;
  uint64_t tma_bytes = 0;
  uint64_t mma_ops = 0;              // wgmma / mma.sync instructions (per warpgroup / warp)
  uint64_t traced_cta_cycles = 0;    // modeled cycles of the traced CTA
  uint64_t max_cta_cycles = 0;
  double predicted_seconds = 0.0;    // whole GEMM on predicted_on (timing.hpp)
  double predicted_tflops = 0.0;
  const timing::Machine* predicted_on = &timing::kH100;  // timing::machine_for(the kernel's target)
  timing::CtaCost traced_cost;       // what the traced CTA did (timing.hpp)
  timing::Prediction prediction;     // the whole GEMM, with its parts (timing.hpp)
  double wall_seconds = 0.0;         // how long the model took
};

// The whole-grid record of which CTA wrote which tile of C, in what order (the kernel declares
// the tiling: ir::OutputTiling). A visit is recorded when a CTA's store lands in a tile other
// than the one its previous store landed in, so a persistent CTA walking tiles leaves one visit
// per tile, and a CTA that comes back to a tile leaves a second visit of it.
struct TileVisit {
  uint32_t cta = 0;      // linear CTA id
  uint32_t tile = 0;     // row-major index into the tiles_m × tiles_n grid
  uint32_t order = 0;    // 0 for the CTA's first tile, 1 for its second, ...
  uint64_t cycle = 0;    // the CTA's modeled cycle at that first store
};
// One answer of clusterlaunchcontrol.try_cancel (launch-controlled grids, grid.cpp): which
// CTA asked, at what modeled cycle, when the answer landed in its shared memory (and completed
// its bytes on the mbarrier), and the first CTA of the cluster it cancelled (kNone: none was
// left). A cancelled cluster never runs: the asker does its work.
struct LaunchCancel {
  uint32_t asker = 0;                  // linear CTA id
  uint32_t cancelled = 0xFFFFFFFFu;    // linear id of the cancelled cluster's first CTA, or kNone
  uint64_t cycle = 0;                  // the asker's modeled cycle at the try_cancel
  uint64_t landed = 0;                 // the asker's modeled cycle when the answer landed
};
struct CSchedule {
  uint32_t tiles_m = 0, tiles_n = 0;  // 0: the kernel declares no tiling
  uint32_t tile_rows = 0, tile_cols = 0;
  std::vector<TileVisit> visits;      // CTA by CTA in the order the model ran them
  std::vector<LaunchCancel> cancels;  // launch-controlled grids: every try_cancel's answer
};

struct SimResult {
  SimStats stats;
  CSchedule schedule;           // which CTA wrote which tile of C (every CTA that ran)
  Trace trace;                  // the traced CTA (empty in fast mode)
  std::vector<Hazard> hazards;  // every distinct hazard, whole grid (first occurrence each)
  bool completed = true;        // false when a CTA deadlocked/hung or the run was cancelled
  bool cancelled = false;
  std::string error;            // why it did not complete, for a learner
};

// Thrown for launches the model cannot run at all (unbound parameter, bad tensor map, a
// buffer too small for the shape): the message names the parameter and what is expected.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown before a run starts when the kernel uses an op whose ops.def row is not_modelled:
// the message names the op and the instruction.
class NotModelledError : public ModelError {
 public:
  using ModelError::ModelError;
};

// Whether the model has semantics for an op (its ops.def exec column names a function).
bool has_semantics(ir::Op op);

// Whether the kernel asks the grid for clusters (clusterlaunchcontrol.try_cancel): its grid then
// runs as the GPU would launch it, a first wave in modeled time together (grid.cpp).
bool uses_launch_control(const ir::Kernel& k);

// The threads a run with SimOptions::threads = n uses: n, or one per core for 0.
uint32_t grid_threads(uint32_t n);

// Runs the whole grid. flops: 2·M·N·K of the GEMM, for the predicted TFLOP/s (0: skip).
SimResult simulate(const ir::Kernel& kernel, GemmBuffers& buffers, const SimOptions& options = {},
                   double flops = 0.0);
// The same with an instrumented kernel's record buffer bound to its timeline parameter.
SimResult simulate(const ir::Kernel& kernel, GemmBuffers& buffers, std::span<uint8_t> timeline,
                   const SimOptions& options = {}, double flops = 0.0);
SimResult simulate(const ir::Kernel& kernel, const GemmMemory& memory, const SimOptions& options = {},
                   double flops = 0.0);

}  // namespace gs::model
