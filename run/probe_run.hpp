// Probes on the GPU: the kernels of kernels/probes.hpp run on silicon and on the model, and
// both outputs are checked against the tables the model uses — the op traits' fragment maps
// (engine/layout/op_traits.def) and layout::swizzle_address — and against each other, so a
// probe that passes proves those tables on the GPU.
//
//   TMA placement   box of 16/32/64 bf16 × 64 rows, swizzle 32B/64B/128B/none: every element
//                   sits where layout::swizzle_address puts it (facts §3)
//   mbarrier parity test_wait.parity 0/1 on a fresh barrier, then after one arrival:
//                   0, 1, 1, 0 (facts §6)
//   wgmma map       m64nNk16, N = 8, 16, 64, 256: thread t, register v holds the element the
//                   op traits' wgmma_acc map gives (facts §1.5)
//   mma             mma.sync m16n8k16: A, B and C placed by the mma_a/mma_b/mma_c maps, D read
//                   back by mma_c (facts §2)
//   ldmatrix        ldmatrix and stmatrix .x1/.x2/.x4, with and without .trans: which b16 of
//                   which row address each lane's register holds, by the ldmatrix maps (facts
//                   §2, probe_matrix.hpp)
//   wgmma-desc      one operand read through a descriptor (every swizzle, K- and MN-major,
//                   LBO, SBO, base offset): the shared byte of every element (probe_desc.hpp)
//
// The cases (kernel + inputs) come from probe_cases.hpp. A failed check names the first
// mismatch: "row 3 col 16: GPU holds element (3,0), formula says (3,16)".
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/kernel.hpp"
#include "engine/layout/swizzle.hpp"
#include "engine/model/model.hpp"
#include "kernels/probes.hpp"
#include "run/gpu_job.hpp"

namespace gs::run {

enum class ProbeKind { tma_placement, mbarrier_parity, wgmma_accumulators, mma_sync_fragments, wgmma_descriptor, cluster, warpgroup, matrix };

struct ProbeCase {
  std::string group;  // "tma", "mbarrier", "wgmma", "wgmma-desc" or "mma": what `gemmscope probe NAME` selects
  std::string name;   // "tma 16x64 32B", "mbarrier parity", "wgmma m64n64k16"
  ProbeKind kind = ProbeKind::tma_placement;
  uint32_t box_cols = 0;                             // tma: bf16 per box row
  layout::Swizzle swizzle = layout::Swizzle::none;   // tma
  uint32_t n = 0;                                    // wgmma, wgmma-desc: N
  kernels::WgmmaDescProbe desc;                      // wgmma-desc: the descriptor under test
  uint32_t matrix_num = 0;                           // ldmatrix/stmatrix: .x1, .x2, .x4
  bool matrix_trans = false, matrix_store = false;   // .trans; stmatrix rather than ldmatrix
  ir::Kernel kernel;
  model::GemmBuffers buffers;  // A and B as the probe wants them, C poisoned
};

// The inputs of each probe (the kernel is built by the caller, see probe_cases.hpp):
//   tma: A = a 64 × box_cols table whose element i holds the u16 i; C = 0xEE bytes.
//   mbarrier: C = 16 bytes of 0xEE.
//   wgmma: A[r][0] = r, A[r][1] = 1; B[c][0] = 256, B[c][1] = c (K-major, other k zero), so
//          D[r][c] = 256·r + c; C = 128 · N/2 f32 of 0xFF.
ProbeCase make_tma_probe_case(uint32_t box_cols, layout::Swizzle swizzle, ir::Kernel kernel);
ProbeCase make_mbarrier_probe_case(ir::Kernel kernel);
ProbeCase make_wgmma_probe_case(uint32_t n, ir::Kernel kernel);
//   wgmma-desc: A = the self-describing region (probe_desc.hpp), B = the identity operand laid
//          out 128B-swizzled K-major, C = 128 · N/2 f32 of 0xFF.
ProbeCase make_wgmma_desc_probe_case(const kernels::WgmmaDescProbe& desc, ir::Kernel kernel);
// facts §1.5: the (row, col) of D that thread t's accumulator register v holds.
void wgmma_accumulator_position(uint32_t t, uint32_t v, uint32_t& row, uint32_t& col);
//   mma: A (16×16), B (16×8) and C (16×8) of small integers, packed into per-lane fragments
//        by the facts §2 maps; C's second half receives D (4 f32 per lane).
ProbeCase make_mma_probe_case(ir::Kernel kernel);
// Clusters (kernels::build_cluster_probe): TMA multicast, mapa + ld/st.shared::cluster, remote
// mbarrier arrive and barrier.cluster; C must hold what the probe's comment says.
ProbeCase make_cluster_probe_case(ir::Kernel kernel);
// setmaxnreg, bar.sync 1, 256 and elect.sync (kernels::build_warpgroup_probe): C = one u32 per
// thread, poisoned with 0xEE bytes; 1 where elect.sync elected the thread, 2 elsewhere.
ProbeCase make_warpgroup_probe_case(ir::Kernel kernel);

struct ProbeCheck {
  bool pass = false;
  uint64_t checked = 0;     // facts (elements, results, registers) looked at
  uint64_t mismatches = 0;
  std::string first_mismatch;  // empty when pass
};

// One output against the formula; `who` names the output in the message ("GPU", "model").
ProbeCheck check_probe_output(const ProbeCase& probe, const std::vector<uint8_t>& c, std::string_view who);
// The GPU's output against the model's, fact by fact, in the probe's own terms.
ProbeCheck compare_probe_outputs(const ProbeCase& probe, const std::vector<uint8_t>& gpu,
                                 const std::vector<uint8_t>& model);

struct ProbeReport {
  std::string group, name;
  std::string skipped;  // why the probe did not run on this GPU; empty when it ran
  GpuStatus gpu_status = GpuStatus::failed;
  std::string gpu_error;
  ProbeCheck gpu_vs_formula;
  bool model_completed = false;
  std::string model_error;  // why it did not complete, or its first hazard
  uint64_t model_hazards = 0;
  ProbeCheck model_vs_formula;
  ProbeCheck gpu_vs_model;
  std::vector<uint8_t> gpu_c, model_c;  // the raw outputs (`gemmscope probe --save DIR` writes them)
  bool pass() const {
    return skipped.empty() && gpu_status == GpuStatus::ok && model_completed && model_hazards == 0 && gpu_vs_formula.pass &&
           model_vs_formula.pass && gpu_vs_model.pass;
  }
};

// Runs the model side of a report (used by run_probes; exposed so tests can check the checks
// without a GPU).
void run_probe_on_model(const ProbeCase& probe, ProbeReport& report, std::vector<uint8_t>& model_c);

struct ProbeOptions {
  std::chrono::milliseconds kernel_limit{10'000};
  GpuJobOptions job;
};

struct ProbeRun {
  DeviceList devices;  // devices.job.no_gpu(): nothing ran (the command line exits 3)
  std::vector<ProbeReport> reports;
  bool all_passed() const;  // every probe that ran passed, and none failed to run
};

// Lists the GPUs (one child), then runs each case in its own child on GPU 0 and on the model.
// Cases whose target the GPU cannot run are reported as skipped. on_report (optional) is
// called after each case, for progress output.
ProbeRun run_probes(const std::vector<ProbeCase>& cases, const ProbeOptions& options = {},
                    const std::function<void(const ProbeReport&)>& on_report = {});

// "PASS  tma 64x64 128B  (4096 elements where the formula and the model put them)" or
// "FAIL  tma 64x64 128B  row 3 col 16: GPU holds element (3,0), formula says (3,16)".
std::string probe_report_line(const ProbeReport& report);

}  // namespace gs::run
