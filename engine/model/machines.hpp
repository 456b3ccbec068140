// The machine descriptions: every hardware number the timing model uses, per GPU, each with its
// source. The figures are the rows of machine_figures.def; a machine gives each a value and
// where it comes from:
//   * "probe NAME, CARD, DATE": measured by gemmscope_timing_probes (bench/timing_probes.cpp;
//     docs/results/2026-11-27-h100-probes has the run);
//   * "[DEV] ...": read from the device (cudaDeviceGetAttribute, nvidia-smi) on our H100;
//   * "datasheet ..." / "NVIDIA ...": the vendor's figure, not measured here;
//   * "model choice ...": a number no probe measured yet, said so.
// The B200 is NVIDIA's figures and the H100's per-SM numbers: UNCONFIRMED, no B200 was measured.
// timing.hpp's constants read the H100's (the per-SM numbers of every machine).
#pragma once

#include <cstdint>
#include <string_view>

namespace gs::model::timing {

struct Figure {
  double value = 0;
  const char* source = "";
};

struct MachineDesc {
  const char* name;  // "H100 SXM"
#define FIGURE(name, unit, meaning) Figure name;
#include "engine/model/machine_figures.def"
#undef FIGURE
};

// One row of the description, for tables and JSON: the figure's name, unit, meaning, value, source.
struct FigureRow {
  std::string_view name, unit, meaning;
  const Figure* figure;
};
template <class F>
void for_each_figure(const MachineDesc& m, F&& f) {
#define FIGURE(n, unit, meaning) f(FigureRow{#n, unit, meaning, &m.n});
#include "engine/model/machine_figures.def"
#undef FIGURE
}

// H100 SXM5 80GB HBM3 (700 W). Probe figures: gemmscope_timing_probes on an H100, 2026-11-27.
inline constexpr MachineDesc kH100Desc{
    .name = "H100 SXM",
    .sms = {132, "[DEV] cudaDeviceGetAttribute, H100 80GB HBM3 (facts §10)"},
    .clock_rated_mhz = {1830, "NVIDIA datasheet: 989.4 TFLOP/s dense bf16 = 132 x 4096 x 1.83 GHz"},
    .clock_max_mhz = {1980, "[DEV] nvidia-smi clocks.max.sm (facts §10)"},
    .clock_sustained_mhz = {1980, "nvidia-smi every 100 ms during the ladder bench, H100 80GB HBM3, 2026-11-27: 1980 MHz in all 104 samples above 300 W (docs/results/2026-11-27-h100-probes/smi.csv); probe sm_clock_under_mma, clock64 over launch time, gives 1819 MHz, a lower bound (mean warp span)"},
    .schedulers_per_sm = {4, "NVIDIA Hopper whitepaper: 4 sub-partitions per SM"},
    .issue_per_scheduler = {1, "NVIDIA Hopper whitepaper: one warp-instruction per cycle per scheduler"},
    .max_threads_per_sm = {2048, "[DEV] cudaDeviceGetAttribute (facts §10)"},
    .max_ctas_per_sm = {32, "[DEV] cudaDeviceGetAttribute (facts §10)"},
    .registers_per_sm = {65536, "[DEV] cudaDeviceGetAttribute (facts §10)"},
    .fma_pipe_rate = {4, "probe ffma_issue_32warps: 3.92, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .alu_pipe_rate = {4, "probe iadd_issue_32warps: 3.95, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .imad_pipe_rate = {2, "probe imad_issue_32warps: 2.00, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .sfu_pipe_rate = {0.5, "NVIDIA Hopper whitepaper: 16 SFU lanes per SM"},
    .alu_latency = {2, "probe iadd_latency: 2.01, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .fma_latency = {4, "probe ffma_latency: 4.04, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .imad_latency = {4, "probe imad_latency: 4.03, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .sfu_latency = {16, "model choice: order of magnitude"},
    .shared_latency = {23, "probe lds_latency: 23.0, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .l1_latency = {43, "probe l1_latency: 43.1, the 64-bit address add included, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .l2_latency = {287, "probe l2_latency: 287.0, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .hbm_latency = {694, "probe hbm_latency: 694.4, random 4-KiB-spaced lines of 1 GiB (TLB misses included), H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .barrier_latency = {20, "model choice: not measured"},
    .mbarrier_latency = {8, "model choice: not measured"},
    .tma_latency = {600, "model choice: not measured"},
    .mma_sync_latency = {24, "probe hmma_latency: 24.03, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .wgmma_latency = {32, "model choice: not measured"},
    .smem_bytes_per_sm = {233472, "[DEV] 228 KiB (facts §10)"},
    .smem_reserved_per_cta = {1024, "[DEV] driver-reserved per block (facts §10)"},
    .smem_bytes_per_cycle = {128, "NVIDIA: 32 banks x 4 B per cycle (facts §8)"},
    .l1_bytes = {262144, "NVIDIA Hopper whitepaper: 256 KB L1 + shared per SM"},
    .l2_bytes = {52428800, "[DEV] cudaDeviceGetAttribute L2 size (facts §10)"},
    .line_bytes = {128, "CUDA programming guide: 128-byte lines"},
    .sector_bytes = {32, "CUDA programming guide: 32-byte sectors"},
    .l2_bandwidth_gbs = {8383, "probe l2_read_bw with 4 loads in flight a thread: 8383 GB/s over an 8 MiB footprint (8462 in an earlier call; 7441 with one in flight), H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-s2)"},
    .hbm_bandwidth_gbs = {2930, "probe hbm_read_bw: 2930 GB/s, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .hbm_peak_gbs = {3352, "[DEV] 2619 MHz x 2 x 5120 bit / 8 (facts §10)"},
    .tma_bytes_per_cycle = {40, "model choice: fitted to fast.cu's matmul_2 at 280-311 TFLOP/s (anchors.md)"},
    .wgmma_flops_per_cycle = {4096, "NVIDIA: 989.4 TFLOP/s / 132 SMs / 1.83 GHz (facts §1.6)"},
    .mma_sync_flops_per_cycle = {2731, "probe hmma_issue_8warps: 0.667 mma.sync per cycle x 4096 FLOP, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .tcgen05_flops_per_cycle = {8192, "NVIDIA B200 figures (no Hopper tcgen05): see B200"},
};

// H200 SXM 141GB HBM3e: the same GH100 SMs (the per-SM figures are the H100's), more and
// faster memory.
inline constexpr MachineDesc kH200Desc = [] {
  MachineDesc m = kH100Desc;
  m.name = "H200 SXM";
  m.clock_max_mhz = {1980, "[DEV] H200 132 SMs, 1980 MHz max (anchors.md, 2026-11-27)"};
  m.hbm_bandwidth_gbs = {4300, "model choice: 90% of NVIDIA's 4.8 TB/s (not measured)"};
  m.hbm_peak_gbs = {4800, "NVIDIA H200 datasheet: 4.8 TB/s HBM3e"};
  return m;
}();

// B200: NVIDIA's figures, UNCONFIRMED (facts table engine/layout/blackwell_facts.def); per-SM
// figures the B200's datasheet does not give are the H100's.
inline constexpr MachineDesc kB200Desc = [] {
  MachineDesc m = kH100Desc;
  m.name = "B200";
  m.sms = {148, "NVIDIA B200 figures, UNCONFIRMED"};
  m.clock_rated_mhz = {1860, "2.25 PFLOP/s dense bf16 / 148 SMs / 8192 FLOP/cycle (NVIDIA, UNCONFIRMED)"};
  m.clock_max_mhz = {1860, "as the rated clock (UNCONFIRMED)"};
  m.clock_sustained_mhz = {1860, "as the rated clock (UNCONFIRMED)"};
  m.l2_bytes = {132120576, "NVIDIA B200 figures: 126 MB L2 (UNCONFIRMED)"};
  m.hbm_bandwidth_gbs = {7200, "model choice: 90% of NVIDIA's 8 TB/s (UNCONFIRMED)"};
  m.hbm_peak_gbs = {8000, "NVIDIA B200 datasheet: 8 TB/s HBM3e (UNCONFIRMED)"};
  m.tcgen05_flops_per_cycle = {8192, "2 x Hopper's per SM: 2.25 PFLOP/s over 148 SMs near 1.86 GHz (NVIDIA, UNCONFIRMED)"};
  return m;
}();

}  // namespace gs::model::timing
