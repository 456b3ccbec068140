// The GPU view's data: the anatomy of the card the run is predicted on (timing::Machine, its
// machine description engine/model/machines.hpp), drawn from the description's figures, never
// from a picture: GPCs and their SMs, one SM's four sub-partitions with their register file,
// FMA lanes and tensor core, its shared memory / L1, the L2 and HBM. On top, the grid: which SMs
// the CTAs of the traced CTA's wave hold (the prediction's wave: timing::Prediction::wave_ctas),
// its cluster pairs, and the sub-partition each traced warp issues on (the model's rule,
// timing::scheduler_of_warp). No ImGui: the view draws this, the tests read it.
//
// Where CTAs land: the hardware's CTA-to-SM assignment is not published, and the model only
// counts CTAs per wave. The view places a wave's CTAs cluster by cluster (in linear order of
// clusters) on consecutive SMs, a cluster never split across GPCs, and says so.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;

struct GpuGpc {
  uint32_t first_sm = 0, sms = 0;  // SMs [first_sm, first_sm + sms)
};

// One sub-partition of the SM (a scheduler and what it feeds), from the description's per-SM
// figures divided by the schedulers.
struct GpuSubPartition {
  uint32_t registers = 0;       // 32-bit registers of its slice of the register file
  double fma_lanes = 0;         // FP32 FMA lanes: fma_pipe_rate / schedulers x 32
  double tensor_flops = 0;      // its tensor core's dense bf16 FLOP/cycle
  double issue = 0;             // warp-instructions a cycle
  std::vector<uint16_t> warps;  // the traced CTA's warps (numbered in the CTA) that issue here
};

struct GpuData {
  bool available = false;
  std::string note;       // why not, or how CTAs were placed
  std::string machine;    // "H100 SXM" (MachineDesc::name)
  std::string card;       // "H100" (timing::Machine::name)
  bool confirmed = true;  // false: NVIDIA's figures, unconfirmed (B200)
  uint32_t sms = 0, gpcs = 0;
  std::string sms_source, gpcs_source;
  std::vector<GpuGpc> gpc;  // gpcs entries; SMs split as evenly as whole TPCs (2 SMs) allow
  // One SM.
  uint32_t schedulers = 0;
  std::vector<GpuSubPartition> sub;
  uint32_t smem_bytes = 0, l1_bytes = 0;
  double smem_bytes_per_cycle = 0, l1_lines_per_cycle = 0, tma_bytes_per_cycle = 0;
  std::string tensor_op;  // "wgmma", "tcgen05.mma", "mma.sync" by the kernel's target
  // The chip's memory.
  uint64_t l2_bytes = 0;
  double l2_gbs = 0, hbm_gbs = 0, hbm_gb = 0;
  // The grid on the chip.
  uint64_t ctas = 0, wave_ctas = 0, waves = 0;
  uint32_t wave = 0;      // the traced CTA's wave (0-based)
  uint32_t resident = 0;  // CTAs per SM in a wave
  uint32_t cluster_size = 1;
  uint32_t traced_cta = 0, traced_sm = kNone;
  uint32_t first_warp = 0;  // the traced CTA's warp 0 as a trace warp (a cluster's ranks are all traced)
  std::vector<uint32_t> sm_ctas;     // [sm] CTAs of the wave on it
  std::vector<uint32_t> sm_cluster;  // [sm] the cluster of its first CTA (kNone: idle)
  uint32_t occupied_sms = 0;
};

// Built once per kernel (kernel_cache.hpp); empty without a kernel.
const GpuData& gpu_data(const std::shared_ptr<const LoadedKernel>& kernel);
nlohmann::json describe_gpu(AppState& app);

}  // namespace gs::gui
