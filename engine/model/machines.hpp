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
  // The run the tensor-core clocks below describe (clock_tensor_l2_mhz, clock_tensor_hbm_mhz), and
  // so the measurement a prediction is to be compared with: a card under its power limit (seconds
  // of load: `bench --sustain`) or fresh (bench's default rounds of milliseconds).
  const char* clock_run;
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
    .clock_run = "under the power limit (probes of 101 launches back to back, 4-8 s): compare with `bench --sustain "
                 "2000`",
    .sms = {132, "[DEV] cudaDeviceGetAttribute, H100 80GB HBM3 (facts §10)"},
    .clock_rated_mhz = {1830, "NVIDIA datasheet: 989.4 TFLOP/s dense bf16 = 132 x 4096 x 1.83 GHz"},
    .clock_max_mhz = {1980, "[DEV] nvidia-smi clocks.max.sm (facts §10)"},
    .clock_sustained_mhz = {1832, "probes sm_clock_under_wgmma_streamed_l2_pause400_capped and _pause800_capped: 1828.3 and 1835.5 MHz (the mean), the tensor cores busy 44% and 26% of the time on random bf16 with TMA streaming alike, the 101st launch back to back: not held down by the power limit, H100 80GB HBM3, 2026-12-05 (docs/results/2026-12-05-sustained, call 7); sm_clock_under_wgmma on zero tiles, fresh, 1785 and 1798 on 2026-11-27 (docs/results/2026-11-27-h100-s3), sm_clock_under_mma 1815.7 and sm_clock_under_mma_capped (operands near zero) 1859.8 in call 7"},
    .clock_no_tensor_mhz = {1978, "probe sm_clock_under_ffma: 1977.8 MHz, 132 CTAs of 32 warps of FFMA chains, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-s4)"},
    .clock_tensor_l2_mhz = {1388, "probe sm_clock_under_wgmma_streamed_l2_matched_capped: 1400.2, 1378.6, 1379.8 and 1391.3 MHz in four calls (the mean), wgmma m64n256k16 from 2 warpgroups reading each stage a warp's TMA brings (4 boxes of 32 KiB in flight from an 8-MiB footprint of random bf16), the streaming ending with the wgmmas (span 96-97%, sm_clock_under_wgmma_streamed_l2_matched_span), the 101st launch back to back (about 5 s, past the power limit's one-second average), H100 80GB HBM3, 2026-12-05 (docs/results/2026-12-05-sustained, calls 3, 4, 7 and 8); where the wgmmas span half of each launch and the TMA runs alone in the rest (sm_clock_under_wgmma_streamed_l2_capped, span 50-52%) 1596-1651, the TMA alone 1980 (not held); launches of 1.5 ms, 23rd back to back (sm_clock_under_wgmma_l2_4_bench) 1749-1753 on 2026-11-28"},
    .clock_tensor_hbm_mhz = {1308, "probe sm_clock_under_wgmma_streamed_hbm_matched_capped: 1319.5, 1302.2 and 1302.3 MHz in three calls (the mean), the same from a 1-GiB footprint (about the HBM's bandwidth), the streaming ending with the wgmmas (span 87-92%), H100 80GB HBM3, 2026-12-05 (docs/results/2026-12-05-sustained, calls 3, 4 and 7); with half of each launch TMA alone (sm_clock_under_wgmma_streamed_hbm_capped, span 43-44%) 1461-1547"},
    .clock_tensor_alone_mhz = {1608, "probe sm_clock_under_wgmma_alone_capped: 1611.1, 1619.8, 1585.6, 1610.8 and 1610.3 MHz in five calls (the mean), wgmma m64n256k16 from 2 warpgroups on random bf16 tiles (the TMA idle after two rounds), the 101st launch back to back, H100 80GB HBM3, 2026-12-05 (docs/results/2026-12-05-sustained, calls 2-4, 7 and 8); mma.sync flat out on random operands (sm_clock_under_mma_random_capped, two thirds of wgmma's FLOP rate) 1810.3, near the ceiling (call 8)"},
    .tensor_l2_stream_gbs = {8550, "probe sm_clock_under_wgmma_streamed_l2_matched_gbs: 8549.6 GB/s, 132 CTAs x 25000 rounds x 4 boxes of 32 KiB (432.5 GB) over the longest span of the 101st launch back to back, H100 80GB HBM3, 2026-12-05 (call 8; one fresh launch read 9564 in call 7)"},
    .tensor_l2_busy_share = {0.957, "the wgmmas' 65536 repetitions of 1024 cycles (sm_clock_under_wgmma_streamed_l2_matched_rep: 1024.00) at clock_tensor_l2_mhz, 48.4 ms, over the streaming's 432.5 GB at tensor_l2_stream_gbs, 50.6 ms, H100 80GB HBM3, 2026-12-05 (calls 7 and 8; the span row, one fresh launch, reads 96-97%)"},
    .tensor_hbm_stream_gbs = {3153, "probe sm_clock_under_wgmma_streamed_hbm_matched_gbs: 3153.1 GB/s, 132 CTAs x 9500 rounds x 4 boxes of 32 KiB (164.4 GB) over the longest span of the 101st launch back to back, H100 80GB HBM3, 2026-12-05 (call 8)"},
    .tensor_hbm_busy_share = {0.984, "the wgmmas' 65536 repetitions of 1024 cycles at clock_tensor_hbm_mhz, 51.3 ms, over the streaming's 164.4 GB at tensor_hbm_stream_gbs, 52.1 ms, H100 80GB HBM3, 2026-12-05 (calls 7 and 8; the span rows, one fresh launch each, read 87-92%)"},
    .clock_cp_async_l2_mhz = {1755, "probe sm_clock_under_cp_async_l2_capped: 1737.9 and 1771.2 MHz in two calls (the mean), every SM's 8 warps each copying 4 x 512 bytes a round with cp.async.cg (16 bytes a lane) from an 8-MiB footprint and nothing else, the 101st launch back to back, H100 80GB HBM3, 2026-12-06 (docs/results/2026-12-06-card call 1, docs/results/2026-12-06-ctas call 2)"},
    .cp_async_l2_stream_gbs = {11414, "probe sm_clock_under_cp_async_l2_gbs: 11414 GB/s over the 101st launch back to back (one fresh launch read 11359 in an earlier call), H100 80GB HBM3, 2026-12-06 (docs/results/2026-12-06-ctas, call 2)"},
    .cp_async_line_bytes = {29.8, "probes sm_clock_under_cp_async_l2_rows64_capped/_gbs against sm_clock_under_cp_async_l2_capped/_gbs in the same calls: the copies in rows of 64 bytes (a line each 64 bytes, as step 10's) held 1733 and 1719 MHz moving 9282 and 9201 GB/s, as 512 contiguous bytes a copy (a line each 128) 1734 and 1746 MHz moving 11178 and 11260 GB/s; at one clock (the draw as the clock to the -1.92) a byte in rows of 64 draws 1.206 and 1.260 of a contiguous one, mean 1.233: the line beyond one a 128 bytes 0.233 x 128 = 29.8 bytes' worth; H100 80GB HBM3, 2026-12-06 (docs/results/2026-12-06-mio, calls 3 and 4)"},
    .clock_power_exponent = {2.30, "probes sm_clock_under_wgmma_streamed_l2_pause100/_pause200 (the tensor cores and the streaming slowed alike) and _wgpause400/_wgpause800 (the wgmma threads alone paused, the streaming at its own rate), each _capped against its call's matched row: the least-squares exponent through the four (log clocks, rms 2.1%; pause200's alone, 1.92, missed _wgpause400 by 7.3%): busy 92% of the launch 1427.3 MHz and 64% 1697.0 against 1379.8 (2026-12-05, docs/results/2026-12-05-sustained call 7); busy 47% with 9226 GB/s 1590.4 and 27% with 9370 GB/s 1783.1 against 1368.3 (2026-12-06, docs/results/2026-12-06-later-waves call 5, fit_exponent.py); busy 44% and 26% with the streaming slowed alike (_pause400, _pause800) 1828.3 and 1835.5, the ceiling (clock_sustained_mhz), where the law gives more; the four again in one call on 2026-12-07 (call 6: 1482.6, 1730.1, 1635.6, 1810.8 against 1392.1): through all eight 2.27, rms 2.7% with 2.27 or 2.30 (1.92: 3.8%); H100 80GB HBM3 (the H200 takes the same: kH200Desc)"},
    .l2_read_draw_share = {0.22, "probes sm_clock_under_wgmma_streamed_l2_handoff_pairmc_capped against _pair_capped (the hand-off row's load in CTA pairs streaming the same boxes from an 8-MiB footprint, each CTA loading half of each box into both, or the whole box itself: the same bytes delivered to every SM, L2 reading them once or twice a pair): 1542.3 / 1529.3 and 1560.0 / 1536.1 MHz in two runs, 1.2% higher with half the reads, where the rule with the L2 term all L2's reads gives 5.7%: the draw 2.7% lower by the exponent, which is 0.22 of the L2 term's half (0.16 and 0.29 in the two runs), H100 80GB HBM3, 2026-12-07 (docs/results/2026-12-07-pair-clock)"},
    .gpcs = {8, "NVIDIA Hopper whitepaper (NVIDIA H100 Tensor Core GPU Architecture): GH100 has 8 GPCs of 9 TPCs of 2 SMs; the H100 SXM5 enables 132 of its 144 SMs, in a split per GPC it does not publish (cluster4_ctas, 120, says the split is uneven)"},
    .schedulers_per_sm = {4, "NVIDIA Hopper whitepaper: 4 sub-partitions per SM"},
    .issue_per_scheduler = {1, "NVIDIA Hopper whitepaper: one warp-instruction per cycle per scheduler"},
    .max_threads_per_sm = {2048, "[DEV] cudaDeviceGetAttribute (facts §10)"},
    .max_ctas_per_sm = {32, "[DEV] cudaDeviceGetAttribute (facts §10)"},
    .cluster2_ctas = {132, "cuOccupancyMaxActiveClusters: 66 clusters of 2 of steps 17-18 (384 threads, 227 KiB, one CTA per SM), H100 80GB HBM3, 2026-11-28 (docs/results/2026-11-28-h100-s2)"},
    .cluster4_ctas = {120, "cuOccupancyMaxActiveClusters: 30 clusters of 4 of steps 17-18 (384 threads, 227 KiB, one CTA per SM), H100 80GB HBM3, 2026-11-28 (docs/results/2026-11-28-h100-s2)"},
    .pair_coupling = {0.0215, "probes tma_gemm_ring8192_split_wgmma_pair_coupled_s3/_s4_pace1_period against _pair_alone_ (the wgmma-paced first wave in clusters of two sharing B's rows, each stage released in both CTAs or in its own): 924.2 / 904.0 and 930.4 / 918.3 cycles at 3 stages, 812.3 / 797.6 and 823.6 / 797.4 at 4, in two runs: +2.2, +1.3, +1.8 and +3.3%, the mean (B multicast in halves beside the coupled release: -0.5% on average, _pair_multicast_), H100 80GB HBM3, 2026-12-07 (docs/results/2026-12-07-fastcu, call 1)"},
    .registers_per_sm = {65536, "[DEV] cudaDeviceGetAttribute (facts §10)"},
    .register_allocation_unit = {256, "CUDA C++ Programming Guide, Technical Specifications per Compute Capability 9.0: register allocation unit size 256, granularity warp"},
    .max_registers_per_thread = {255, "CUDA C++ Programming Guide, Technical Specifications per Compute Capability 9.0: maximum 255 32-bit registers per thread"},
    .fma_pipe_rate = {4, "probe ffma_issue_32warps: 3.92, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .alu_pipe_rate = {4, "probe iadd_issue_32warps: 3.95, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .imad_pipe_rate = {2, "probe imad_issue_32warps: 2.00, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .ffma_operand_read_cycles = {0.24, "probe outer_8x8_4warps: 2.86 warp-FFMA a cycle of the SM (an 8 x 8 outer product from registers, one warp a scheduler, each FFMA a new b and accumulator beside the a before it), where the model issues 3.46 without this: 89.5 cycles a pass of 64 FFMAs against 74, 0.24 a FFMA; with two warps a scheduler (outer_8x8_8warps) 3.42 against 3.57, the other warp issuing in most of those cycles; a chain's FFMA reading one new register a time (ffma_issue_1warp) 0.944 against 0.994; H200, 2026-12-03 (docs/results/2026-12-03-source, call 2); the H100 has the same SM, not probed for this"},
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
    .mbarrier_latency = {8, "model choice: not measured (the arrives and the woken waits are inside the hand-offs mbarrier_wake_latency is measured by)"},
    .mbarrier_wait_done_latency = {50, "probe mbarrier_wait_done: 58.06 cycles a pass of a loop of try_waits on a phase completed before, the same with the steps' 10-ms suspend hint (mbarrier_wait_done_hint), three runs, where the model's loop reads 16 with 8 for the wait: 58.06 - 16 + 8 = 50; H100 80GB HBM3, 2026-12-06 (docs/results/2026-12-06-one-wave, call 5); the H200 has the same SM, not probed for this"},
    .mbarrier_wake_latency = {48, "probe mbarrier_handoff_1 and _128: 124.07 cycles a round of two hand-offs on the H200 (one thread arriving or 128 alike), where the model reads 45 with 8 for this: 48 gives 125; H200, 2026-12-04 (docs/results/2026-12-04-handoff); the H100 has the same SM, not probed for this"},
    .remote_arrive_latency = {141, "probe remote_arrive_round_trip: 414.1 cycles a round trip on the H100 (two remote arrives, each woken as a local hand-off, mbarrier_wake_latency), where the model reads 133 without this, H100 80GB HBM3, 2026-11-28 (docs/results/2026-11-28-h100)"},
    .cluster_release_stall = {668, "probe remote_arrive_issue_cluster_scope: 674.1 cycles an arrive back to back, against 6.0 for the default mbarrier.arrive.shared::cluster (remote_arrive_issue); the SASS has MEMBAR.ALL.CTA, MEMBAR.ALL.GPU, ERRBAR, CGAERRBAR before each SYNCS.ARRIVE, H100 80GB HBM3, 2026-11-28 (docs/results/2026-11-28-h100)"},
    .tma_latency = {263, "probe tma_latency_1k: 351-357 cycles from expect_tx to the woken wait, less the model's own mbarrier steps (the wake, mbarrier_wake_latency, included since 2026-12-04: 303 before) and the 1-KiB transfer (356 in an earlier call), H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-s3)"},
    .mma_sync_latency = {24, "probe hmma_latency: 24.03, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .wgmma_latency = {55, "probe wgmma_n64_1wg / n128 / n256: one warpgroup waiting on each round of 4 wgmma leaves the tensor cores idle 54 / 54 / 67 cycles a round (2876 / 3386 / 3623 FLOP/cycle; two warpgroups: 4087-4094), H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-s3)"},
    .wgmma_issue_n64 = {8.1, "probe wgmma_issue_b16_n64_1wg: 135.56 cycles for 16, of which 6 past the queue at wgmma_crowded_issue_n64 and the burst's end 11.4 short of its last issue (as at N = 256): (135.56 + 11.4 - 6 x 10.98) / 10, H200 (the GH100 SM the H100 shares), 2026-12-04, deterministic in two runs (docs/results/2026-12-04-wgmma-queue)"},
    .wgmma_issue_n256 = {28.0, "probes wgmma_issue_b2/b4/b6/b8_n256_1wg: 44.62, 100.62, 156.62, 212.62 cycles for 2-8 back to back, 28.0 a wgmma (the SASS: 8 HGMMA.64x256x16 between the two CS2R), H200 (the GH100 SM the H100 shares), 2026-12-04, deterministic in two runs (docs/results/2026-12-04-wgmma-queue)"},
    .wgmma_crowded_issue_n64 = {11.0, "probes wgmma_issue_b16/b32_n64_1wg: 135.56 and 311.25 cycles, 10.98 a wgmma past the 16th, H200 (the GH100 SM the H100 shares), 2026-12-04, deterministic in two runs (docs/results/2026-12-04-wgmma-queue)"},
    .wgmma_crowded_issue_n256 = {53.0, "probes wgmma_issue_b12/b16/b24/b32_n256_1wg: 414.62, 626.62, 1050.62, 1473.81 cycles, 52.95 a wgmma past the 16th, H200 (the GH100 SM the H100 shares), 2026-12-04, deterministic in two runs (docs/results/2026-12-04-wgmma-queue)"},
    .wgmma_queue = {8, "probes wgmma_issue_b8/b12_n256_1wg: 28 cycles a wgmma up to 8 back to back, 50.5 for the 9th-12th (the first has left the tensor cores by the 9th's issue), H200 (the GH100 SM the H100 shares), 2026-12-04, deterministic in two runs (docs/results/2026-12-04-wgmma-queue)"},
    .smem_bytes_per_sm = {233472, "[DEV] 228 KiB (facts §10)"},
    .smem_reserved_per_cta = {1024, "[DEV] driver-reserved per block (facts §10)"},
    .smem_bytes_per_cycle = {128, "NVIDIA: 32 banks x 4 B per cycle (facts §8)"},
    .l1_bytes = {262144, "NVIDIA Hopper whitepaper: 256 KB L1 + shared per SM"},
    .l1_lines_per_cycle = {1, "probe l1_loads_stride4 / 32 / 128: 0.85, 0.13 and 0.03 warp-loads a cycle for loads of 1, 8 and 32 lines (L1 hits, 8 warps), about a cycle a line, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-s3); cp.async's lines alike: probes cp_async_fill_rows32_32warps and _rows64_ (16 and 8 lines a copy) 0.056 and 0.117 copies a cycle, 17.8 and 8.5 cycles a copy, H200, 2026-12-03 (docs/results/2026-12-03-lines)"},
    .l1_request_cycles = {0.064, "probe l1_loads_stride4_32warps: 0.941, 0.93 and 0.94 warp-loads a cycle of one line each (L1 hits, 32 warps): 1.064 cycles a load, its line's and 0.064 (loads of 8 and 32 lines take their lines' cycles within 1%: l1_loads_stride32, _stride128), H200, 2026-12-02 (docs/results/2026-12-02-device, -stalls: three calls); the H100 has the same SM"},
    .l1_miss_request_cycles = {0.30, "probe l1_fill_v1_32warps: 0.73 and 0.74 warp-loads a cycle of one line each, every line read once from L2 (32 warps): 1.36 cycles a load, 0.30 beyond a hit's 1.064 (of four lines, l1_fill_v4_32warps: 4.55 cycles, 0.29 beyond four lines' 4.26), H200, 2026-12-02 (docs/results/2026-12-02-stalls, call 2); the H100 has the same SM"},
    .cp_async_line_path_cycles = {0.20, "probes cp_async_fill_lds80_32warps and cp_async_fill_rows32_lds80_32warps (4 cp.async.cg of 512 bytes and 80 conflict-free ld.shared.u32 a round, 32 warps, the data path their bound): 95.0 cycles a warp's round with copies of 4 lines, 104.5 with copies of 16 lines of one sector: the 48 lines beyond the copies' 16 wavefronts add 9.5 cycles, 0.20 a line (the copies alone: 17.7 and 71.4 cycles, the tag stage), two runs each, H200, 2026-12-03 (docs/results/2026-12-03-lines, call 2); the H100 has the same SM"},
    .l1_pending_request_cycles = {0.23, "probe l1_fill_same_v1_32warps: 0.77 warp-loads a cycle of one line each where every warp reads the same 8 new lines a round (32 warps: a round's 256 loads are 8 misses and 248 that find their line on its way from L2): 1.30 cycles a load, so 0.23 beyond a hit's for each of the 248 after the misses' 0.30, H200, 2026-12-02 (docs/results/2026-12-02-stalls, call 3); the H100 has the same SM"},
    .mio_overlap_loss = {0.158, "probes cp_async_fill_rows32_lds48_c2_sync_8groups_32warps and _lds20_c2_sync_8groups_32warps (32 warps in 8 groups of 4 meeting at named barriers of their own, as co-resident CTAs do; 4 copies of 16 lines and 48 or 20 two-way ld.shared a warp's round) against the same rounds with no barrier (_lds48_c2_32warps, _lds20_c2_32warps), warp-instructions (copies and loads) a cycle: 0.429 / 0.471 and 0.285 / 0.326 (docs/results/2026-12-06-mio, call 1), 0.426 / 0.473 and 0.298 / 0.329 (docs/results/2026-12-06-tag, call 1): 10.81, 10.59, 12.10 and 7.69 cycles more a warp's round, where the shorter stage takes 65.2 (the copies' tag look-ups: 4 x (16 lines + l1_miss_request_cycles); the data path 121.6 and 65.6): 0.166, 0.162, 0.186 and 0.118, the mean; two H100 80GB HBM3, 2026-12-06; the H200 has the same SM, not probed for this"},
    .l2_bytes = {52428800, "[DEV] cudaDeviceGetAttribute L2 size (facts §10)"},
    .l2_kept_bytes = {29360128, "probes tma_l2_bw_footprint24m..80m (132 CTAs sweeping a footprint in 16-KiB TMA boxes, each box read again by another SM a sweep later) with Nsight Compute's DRAM bytes of the 4.43 GB each sweep delivers: 24 MiB 2.4% from HBM, 32 MiB 14.6%, 40 MiB 29.8%, 56 MiB 49.9%, 80 MiB 73.4%; a sweep of F keeping C/F of it gives C = 27.3, 28.1 and 28.0 MiB at 32, 40 and 56 MiB (21.3 at 80: past 56 MiB it keeps less, as on the H200), so 28 MiB, H100 80GB HBM3, 2026-12-06 (docs/results/2026-12-06-hbm, call 1)"},
    .gemm_box_latency_p50 = {1465, "probe tma_gemm_wave8192_p50: 1471 and 1458 cycles in two runs (the mean; step 13's first wave at 8192^3 without its math: 132 CTAs each loading its tile's A and B box of 128 rows x 64 bf16, K block after K block; every box from HBM once, then L2), H100 80GB HBM3, 2026-12-07 (docs/results/2026-12-07-ring-drift, call 1); at 4096^3 (a third from HBM) 1329 and 1338"},
    .gemm_box_latency_p90 = {1680, "probe tma_gemm_wave8192_p90: 1689 and 1670 cycles in two runs (the mean), H100 80GB HBM3, 2026-12-07 (docs/results/2026-12-07-ring-drift, call 1)"},
    .gemm_box_latency_p99 = {2093, "probe tma_gemm_wave8192_p99: 2133 and 2053 cycles in two runs (the mean), H100 80GB HBM3, 2026-12-07 (docs/results/2026-12-07-ring-drift, call 1)"},
    .drift_blur_waves = {15.7, "probe tma_gemm_ring8192_grid_split_wgmma_s6_pace1 (step 13's roles and math, no epilogue, the 8192^3 grid of 4096 CTAs, 31.0 waves, 6 stages: a ring nothing holds back) with Nsight Compute at the card's clock: 7.35 GB from HBM, where the waves' count (timing::hbm_read_bytes) is 4.09 (3 stages read 4.09) and a stream of CTAs 8.45: 0.747 of the way, the mean blur of 31.0 waves when it grows evenly to whole over 15.7 (1 - 15.7 / 62.1); 5 stages 7.33 GB (0.743), 4 stages 4.95 (0.197); H100 80GB HBM3, 2026-12-07 (docs/results/2026-12-07-ring-drift, call 1)"},
    .line_bytes = {128, "CUDA programming guide: 128-byte lines"},
    .sector_bytes = {32, "CUDA programming guide: 32-byte sectors"},
    .l2_bandwidth_gbs = {8383, "probe l2_read_bw with 4 loads in flight a thread: 8383 GB/s over an 8 MiB footprint (8458 in a later call; 7441 with one in flight; TMA boxes of each CTA's own, tma_l2_bw: 8229), H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-s2, -s3)"},
    .l2_shared_read_bandwidth_gbs = {12047, "probe tma_gemm32_mma0: 12009.5, 12044.0 and 12087.3 GB/s in three runs (the mean), 64x64-bf16 TMA boxes of A and B read as a GEMM of 64x64 tiles reads them (32x32 tiles, one wave of 1024 CTAs, 8 an SM, A's row panels shared by a tile row, B's by a tile column, no work between copies), H100 80GB HBM3, 2026-12-06 (docs/results/2026-12-06-later-waves, calls 2 and 3); consecutive CTAs reading each box together reach more (tma_l2_bw_share2 ... share264: 13276-19762 GB/s, median 14900, the figure until 2026-12-06), every CTA its own boxes 7170-7182 (tma_gemm32_mma0_own)"},
    .l2_copy_lines_gps = {122.1, "probe cp_gemm64_k256_lds0_x9: 3907.24 GB/s of cp.async copies in rows of 32 bytes (a line each 32 bytes: 122.1 G lines/s), step 09's copies in its geometry at its 4096^3 grid (64x64 tiles, 4096 CTAs, 9 an SM, 3.4 waves, no work between copies; with its 20 ld.shared a thread and step 3905.88: the lines bind, not the SM's data path); Nsight Compute at its locked clock: 1.09 ms (3.95 TB/s, the same at a lower SM clock: L2's limit, not the SM's), 0.53 GB from HBM; the 8192^3 grid 3634.23 (16.86 GB from HBM); a single SM's copies alone reach a line a cycle (l1_lines_per_cycle), 132 SMs about 0.5; H100 80GB HBM3, 2026-12-07 (docs/results/2026-12-07-new-kernels, call 2)"},
    .hbm_write_bandwidth_gbs = {2490, "probe hbm_write_bw_scattered: 2490 and 2498 GB/s in two calls (2894 and 2912 with 16-byte lanes, hbm_write_bw), H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-s3)"},
    .l2_write_bandwidth_gbs = {4035, "probe l2_write_bw: 4031.8, 4032.1 and 4035.8 GB/s in three calls, 16-B stores over an 8-MiB footprint from 1056 CTAs, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-s3; 4036.2, 4032.0, 4035.5 on 2026-12-06, docs/results/2026-12-06-one-wave call 2)"},
    .store_sm_bytes_per_cycle = {32.06, "probe store_sm_bw: 32.06 B/cycle in three runs, one CTA of 256 threads storing 16-B lanes over an 8-MiB footprint, its SM alone (store_sm_bw_scattered, an epilogue's 8-B lanes into 8 lines a warp-store: 29.83, a line a cycle on the L1's data path), H100 80GB HBM3, 2026-12-06 (docs/results/2026-12-06-one-wave, call 3)"},
    .store_line_bytes = {25.0, "probe l2_write_bw_scattered against l2_write_bw in the same three runs: 8-B lanes writing one sector in each of 8 lines a warp-store (an epilogue's pattern) into the same 8-MiB footprint, 2538.4, 2543.9, 2544.5 GB/s against 4036.2, 4032.0, 4035.5 (16-B lanes, a line each 128 bytes): a byte in lines of 32 bytes weighs 4034.6 / 2542.3 = 1.587 of one in whole lines, so each of the 3 lines beyond one a 128 bytes 0.587 x 128 / 3 = 25.0 bytes' worth, H100 80GB HBM3, 2026-12-06 (docs/results/2026-12-06-one-wave, call 2)"},
    .hbm_bandwidth_gbs = {2930, "probe hbm_read_bw: 2930 GB/s, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .hbm_gb = {80, "NVIDIA H100 datasheet: 80 GB HBM3 (H100 SXM)"},
    .hbm_peak_gbs = {3352, "[DEV] 2619 MHz x 2 x 5120 bit / 8 (facts §10)"},
    .tma_bytes_per_cycle = {107, "probe tma_sm_bw: 107.3 B/cycle, 4 boxes of 32 KiB in flight on one SM (tma_latency_32k - tma_latency_1k: 290 cycles for 31 KiB, 110 B/cycle), H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-s3)"},
    .wgmma_flops_per_cycle = {4096, "NVIDIA: 989.4 TFLOP/s / 132 SMs / 1.83 GHz (facts §1.6)"},
    .mma_sync_flops_per_cycle = {2731, "probe hmma_issue_8warps: 0.667 mma.sync per cycle x 4096 FLOP, H100 80GB HBM3, 2026-11-27 (docs/results/2026-11-27-h100-probes)"},
    .tcgen05_flops_per_cycle = {8192, "NVIDIA B200 figures (no Hopper tcgen05): see B200"},
    .launch_us = {4.03, "probe launch_132x128: 4.03 us, an empty launch of 132 CTAs, median of 200 back to back between events on a stream of their own as bench times a GEMM (run::time_launches; 384 threads and 200 KiB of shared memory a CTA: 5.57), H100 80GB HBM3, 2026-11-28 (docs/results/2026-11-28-h100-s3, call 7; on the default stream four calls read 5.34-7.36; the H200 reads 3.49-4.32 in three calls, docs/results/2026-11-28-h200)"},
    .cta_start_ns = {0.59, "probes launch_16384x128 - launch_132x128 over the 16252 more CTAs: (13.60 - 4.03) and (13.79 - 4.03) us, 0.59 and 0.60 ns a CTA (the 16384-CTA launches timed on the default stream in two calls, where the empty grid's cost is all the CTAs' starts; the 132-CTA launch on bench's stream, call 7; with 24 KiB of shared memory a CTA: 13.73, 13.66), H100 80GB HBM3, 2026-11-28 (docs/results/2026-11-28-h100-s3)"},
};

// H200 SXM 141GB HBM3e: the same GH100 SMs, with more and faster memory and a larger L2. Every
// figure below was measured by gemmscope_timing_probes on an H200 (2026-11-28,
// docs/results/2026-11-28-h200, call 1); the per-SM figures it keeps from the H100 read the same
// there (ffma 4.04, imad 4.03, iadd 2.01, hmma 24.03, lds 23.0, l1 43.1 cycles; FFMA, IMAD,
// mma.sync and ld.shared rates, wgmma 2883-4094 FLOP/cycle, one SM's TMA 107.0 B/cycle: all
// within 1% of the H100's).
inline constexpr MachineDesc kH200Desc = [] {
  MachineDesc m = kH100Desc;
  m.name = "H200 SXM";
  m.clock_run = "under the power limit (probes of 101 launches back to back, 4-10 s): compare with `bench --sustain "
                "2000`";
  m.sms = {132, "[DEV] cudaDeviceGetAttribute on the H200 (gemmscope devices), 2026-11-28 (docs/results/2026-11-28-h200)"};
  m.cluster2_ctas = {132, "bench's resident_ctas (cuOccupancyMaxActiveClusters) of step 17 in clusters of 2 (384 threads, 227 KiB, one CTA per SM), H200, 2026-11-28 (docs/results/2026-11-28-h200, call 2)"};
  m.cluster4_ctas = {120, "bench's resident_ctas (cuOccupancyMaxActiveClusters) of step 17 in clusters of 4, H200, 2026-11-28 (docs/results/2026-11-28-h200, call 2)"};
  m.pair_coupling = {0.0215, "the H100's (probes tma_gemm_ring8192_split_wgmma_pair_coupled/_alone, 2026-12-07, docs/results/2026-12-07-fastcu): the H200 has the same SM, not probed for this"};
  m.l2_read_draw_share = {0.22, "the H100's (probes sm_clock_under_wgmma_streamed_l2_handoff_pairmc_capped against _pair_capped, 2026-12-07, docs/results/2026-12-07-pair-clock): the same GH100 chip, not probed on an H200"};
  m.clock_max_mhz = {1980, "[DEV] nvidia-smi clocks.max.sm on the H200, 2026-11-28 (docs/results/2026-11-28-h200)"};
  m.clock_sustained_mhz = {1798, "probe sm_clock_under_wgmma: 1797.96 MHz (on random tiles 1747.9; sm_clock_under_mma 1799.0), H200, 2026-11-28 (docs/results/2026-11-28-h200)"};
  m.clock_no_tensor_mhz = {1978, "probe sm_clock_under_ffma: 1978.1 MHz, H200, 2026-11-28 (docs/results/2026-11-28-h200)"};
  m.clock_tensor_l2_mhz = {1352, "probe sm_clock_under_wgmma_streamed_l2_matched_capped: 1351.7 MHz, wgmma m64n256k16 from 2 warpgroups reading each stage a warp's TMA brings (4 boxes of 32 KiB in flight from an 8-MiB footprint of random bf16), the streaming ending with the wgmmas (span 105.8%: the wgmmas outlast it by 6%), the 101st launch back to back (about 5 s), H200, 2026-12-05 (docs/results/2026-12-05-sustained, call 5); where the wgmmas spanned half of each launch and the TMA ran alone in the rest (sm_clock_under_wgmma_streamed_l2_capped, 2026-12-02) 1579-1613"};
  m.clock_tensor_hbm_mhz = {1236, "probe sm_clock_under_wgmma_streamed_hbm_matched_capped: 1235.9 MHz, the same from a 1-GiB footprint (HBM), H200, 2026-12-05 (call 5); the streaming, sized on the H100, ends at 65% of the wgmmas' span here (span row 152.9%): tensor_hbm_stream_gbs is its bytes over the whole launch"};
  m.clock_tensor_alone_mhz = {1566, "not probed on an H200 (none was lent for sm_clock_under_wgmma_alone_capped): the clock at which wgmma alone draws what it draws on the H100 against the matched L2 row there, with the two cards' one exponent (clock_power_exponent) the H100's clock ratio: 1351.7 x 1608 / 1388"};
  m.clock_power_exponent = {2.30, "the H100's (the same GH100 chip), from its probes sm_clock_under_wgmma_streamed_l2_pause100/_pause200/_wgpause400/_wgpause800 in two calls (kH100Desc). The H200's own rows against its matched row in one call (2026-12-05, docs/results/2026-12-05-sustained call 5): _pause200_capped (the tensor cores busy 67.2% of the time, the streaming slowed alike) held 1656.6 MHz against 1351.7, where 2.30 gives 1607 (-3.0%; the H100's _pause200 sits 3.4% above its fit too; the row alone gives 1.95, this figure until 2026-12-07); _pause100_capped (busy 95%) 1376.4, where 2.30 gives 1382 (+0.4%); _pause400 and _pause800 (busy 44% and 26%) 1803.7 and 1773.8, the ceiling (clock_sustained_mhz). The H200 has not run the _wgpause rows: docs/results/2026-12-07-clock/device1.sh on an H200, then fit_h200.py, gives its own"};
  m.clock_cp_async_l2_mhz = {1709, "not probed on an H200: the clock at which cp.async from L2 alone draws what it draws on the H100 against the matched L2 row there, with the two cards' one exponent (clock_power_exponent) the H100's clock ratio: 1351.7 x 1755 / 1388"};
  m.cp_async_l2_stream_gbs = {11414, "the H100's probe sm_clock_under_cp_async_l2_gbs (2026-12-06; not probed on an H200)"};
  m.cp_async_line_bytes = {29.8, "the H100's probes sm_clock_under_cp_async_l2_rows64_* against _l2_* (2026-12-06; not probed on an H200, the same GH100 SMs)"};
  m.tensor_l2_stream_gbs = {8711, "probe sm_clock_under_wgmma_streamed_l2_matched_capped: 132 CTAs x 25000 rounds x 4 boxes of 32 KiB (432.5 GB) over the wgmmas' span, 65536 repetitions of 1024.00 cycles (sm_clock_under_wgmma_streamed_l2_matched_rep) at 1351.7 MHz: 49.6 ms, H200, 2026-12-05 (call 5)"};
  m.tensor_l2_busy_share = {1.0, "probe sm_clock_under_wgmma_streamed_l2_matched_span: 105.8% (the wgmmas span the whole launch), H200, 2026-12-05 (call 5)"};
  m.tensor_hbm_stream_gbs = {3027, "probe sm_clock_under_wgmma_streamed_hbm_matched_capped: 132 CTAs x 9500 rounds x 4 boxes of 32 KiB (164.4 GB) over the wgmmas' span, 65536 repetitions of 1024 cycles at 1235.9 MHz: 54.3 ms, H200, 2026-12-05 (call 5)"};
  m.tensor_hbm_busy_share = {1.0, "probe sm_clock_under_wgmma_streamed_hbm_matched_span: 152.9% (the wgmmas span the whole launch), H200, 2026-12-05 (call 5)"};
  m.cluster_release_stall = {314, "probe remote_arrive_issue_cluster_scope: 313.6 cycles an arrive back to back, against 6.0 for the default mbarrier.arrive.shared::cluster (the H100: 674), H200, 2026-11-28 (docs/results/2026-11-28-h200)"};
  m.l2_latency = {292, "probe l2_latency: 291.85, H200, 2026-11-28 (docs/results/2026-11-28-h200)"};
  m.hbm_latency = {693, "probe hbm_latency: 693.1, H200, 2026-11-28 (docs/results/2026-11-28-h200)"};
  m.tma_latency = {238, "probe tma_latency_1k: 336.8 cycles (337.2 and 336.7 on 2026-12-04), less the model's own 99 for the mbarrier steps, their wake included (mbarrier_wake_latency; 278 before it was measured), and the 1-KiB transfer, H200, 2026-11-28 (docs/results/2026-11-28-h200, 2026-12-04-handoff)"};
  m.remote_arrive_latency = {136, "probe remote_arrive_round_trip: 405.28 cycles a round trip in two calls (two remote arrives, each woken as a local hand-off), where the model reads 133 without this, H200, 2026-12-04 (docs/results/2026-12-04-handoff)"};
  m.l2_bytes = {62914560, "[DEV] cudaDeviceGetAttribute L2 size on the H200: 60 MiB, 2026-11-28 (docs/results/2026-11-28-h200)"};
  m.l2_kept_bytes = {31457280, "probes tma_l2_bw_footprint16m..80m (132 CTAs sweeping a footprint in 16-KiB TMA boxes, each box read again by another SM a sweep later) with Nsight Compute's DRAM bytes: to 28 MiB each byte from HBM once, 32 MiB 6% of the sweep from HBM, 40 MiB 21%, 56 MiB 42%, 80 MiB 72%: L2 keeps about half of its 60 MiB, H200, 2026-12-02 (docs/results/2026-12-02-l2)"};
  m.gemm_box_latency_p50 = {1467, "probe tma_gemm_wave8192_p50: 1468 and 1465 cycles in two runs, H200, 2026-12-04 (docs/results/2026-12-04-model-speed-3, call 6)"};
  m.gemm_box_latency_p90 = {1615, "probe tma_gemm_wave8192_p90: 1612 and 1618 cycles in two runs, H200, 2026-12-04 (docs/results/2026-12-04-model-speed-3, call 6)"};
  m.gemm_box_latency_p99 = {2110, "probe tma_gemm_wave8192_p99: 2152 and 2067 cycles in two runs, H200, 2026-12-04 (docs/results/2026-12-04-model-speed-3, call 6)"};
  m.drift_blur_waves = {22.4, "probe tma_gemm_ring8192_grid_split_wgmma_s6_pace1 with Nsight Compute at the card's clock: 6.87 GB from HBM against the waves' count 4.09 and a stream's 8.43 (with this card's l2_kept_bytes): 0.640 of the way, 1 - 22.4 / 62.1; 5 stages 4.70 GB (0.140, where the H100's 5 stages drifted as far as its 6), H200, 2026-12-04 (docs/results/2026-12-04-grid, calls 5 and 6)"};
  m.l2_bandwidth_gbs = {10018, "probe l2_read_bw: 10017.5 GB/s over an 8 MiB footprint, 4 loads in flight a thread (TMA boxes of each CTA's own, tma_l2_bw: 9451), H200, 2026-11-28 (docs/results/2026-11-28-h200)"};
  m.l2_shared_read_bandwidth_gbs = {16024, "probe tma_gemm32_mma0: 16085.5 and 15963.1 GB/s in two runs, 64x64-bf16 TMA boxes of A and B read as a GEMM of 64x64 tiles reads them (32x32 tiles, one wave of 1024 CTAs, 8 an SM, A's row panels shared by a tile row, B's by a tile column, no work between copies; Nsight Compute: L2 looks up 53% of the sectors it delivers), H200, 2026-12-03 (docs/results/2026-12-03-validation); consecutive CTAs reading each box together reach more (tma_l2_bw_share2 ... share264: 16331-21586 GB/s, median 19762, 2026-11-28), every CTA its own boxes 8140 (tma_gemm32_mma0_own)"};
  m.l2_copy_lines_gps = {146.0, "model choice: the H100's probe cp_gemm64_k256_lds0_x9 (122.1 G lines/s, 2026-12-07) scaled by the two cards' l2_read_bw (10018 / 8383 GB/s); not probed on an H200"};
  m.hbm_write_bandwidth_gbs = {2965, "probe hbm_write_bw_scattered: 2965.1 GB/s (3924.8 with 16-byte lanes, hbm_write_bw), H200, 2026-11-28 (docs/results/2026-11-28-h200)"};
  m.l2_write_bandwidth_gbs = {4552, "probe l2_write_bw: 4551.9 GB/s, 16-B stores over an 8-MiB footprint from 1056 CTAs, H200, 2026-11-28 (docs/results/2026-11-28-h200)"};
  m.store_line_bytes = {25.0, "the H100's probes l2_write_bw_scattered against l2_write_bw (2026-12-06; not probed on an H200, the same GH100 SMs and L2 design)"};
  m.store_sm_bytes_per_cycle = {32.06, "the H100's probe store_sm_bw (2026-12-06; not probed on an H200, the same GH100 SM)"};
  m.hbm_bandwidth_gbs = {4288, "probe hbm_read_bw: 4288.1 GB/s (TMA boxes, tma_hbm_bw: 4574.7), H200, 2026-11-28 (docs/results/2026-11-28-h200)"};
  m.hbm_gb = {141, "NVIDIA H200 datasheet: 141 GB HBM3e"};
  m.hbm_peak_gbs = {4814, "[DEV] 3201 MHz x 2 x 6016 bit / 8 (bench's device record on the H200, 2026-11-28; NVIDIA: 4.8 TB/s)"};
  m.launch_us = {4.04, "probe launch_132x128: 3.49, 4.32 and 4.32 us in three runs (the mean), bench's way (a stream of its own, 200 back to back between events), H200, 2026-11-28 (docs/results/2026-11-28-h200)"};
  m.cta_start_ns = {0.60, "probes launch_16384x128 - launch_132x128 over the 16252 more CTAs: (13.70 - 3.49), (13.73 - 4.32), (13.73 - 4.32) us, 0.63, 0.58 and 0.58 ns a CTA, H200, 2026-11-28 (docs/results/2026-11-28-h200)"};
  return m;
}();

// B200: NVIDIA's figures, UNCONFIRMED (facts table engine/layout/blackwell_facts.def); per-SM
// figures the B200's datasheet does not give are the H100's.
inline constexpr MachineDesc kB200Desc = [] {
  MachineDesc m = kH100Desc;
  m.name = "B200";
  m.clock_run = "the rated clock (UNCONFIRMED): no B200 measured";
  m.sms = {148, "NVIDIA B200 figures, UNCONFIRMED"};
  m.cluster2_ctas = {148, "no GPC layout known: every SM (UNCONFIRMED)"};
  m.cluster4_ctas = {148, "no GPC layout known: every SM (UNCONFIRMED)"};
  m.pair_coupling = {0.0215, "the H100's (probes tma_gemm_ring8192_split_wgmma_pair_coupled/_alone): UNCONFIRMED on a B200"};
  m.l2_read_draw_share = {0.22, "the H100's (probes sm_clock_under_wgmma_streamed_l2_handoff_pairmc_capped against _pair_capped): UNCONFIRMED on a B200"};
  m.l2_copy_lines_gps = {122.1, "the H100's (probe cp_gemm64_k256_lds0_x9, 2026-12-07): UNCONFIRMED on a B200"};
  m.clock_rated_mhz = {1860, "2.25 PFLOP/s dense bf16 / 148 SMs / 8192 FLOP/cycle (NVIDIA, UNCONFIRMED)"};
  m.clock_max_mhz = {1860, "as the rated clock (UNCONFIRMED)"};
  m.clock_sustained_mhz = {1860, "as the rated clock (UNCONFIRMED)"};
  m.clock_no_tensor_mhz = {1860, "as the rated clock (UNCONFIRMED)"};
  m.clock_tensor_l2_mhz = {1860, "as the rated clock (UNCONFIRMED)"};
  m.clock_tensor_hbm_mhz = {1860, "as the rated clock (UNCONFIRMED)"};
  m.clock_tensor_alone_mhz = {1860, "as the rated clock (UNCONFIRMED)"};
  m.clock_cp_async_l2_mhz = {1860, "as the rated clock (UNCONFIRMED): the B200's clock does not follow its load here (clock_tensor_l2_mhz is its ceiling)"};
  m.cp_async_line_bytes = {29.8, "the H100's (UNCONFIRMED: not probed on a B200, whose clock does not follow its load here)"};
  m.store_line_bytes = {25.0, "the H100's probes l2_write_bw_scattered against l2_write_bw (2026-12-06; UNCONFIRMED: not probed on a B200)"};
  m.store_sm_bytes_per_cycle = {32.06, "the H100's probe store_sm_bw (2026-12-06; UNCONFIRMED: not probed on a B200)"};
  m.tensor_l2_busy_share = {1.0, "model choice: the probe's tensor cores busy all the time, so that every load holds the rated clock (UNCONFIRMED)"};
  m.tensor_hbm_busy_share = {1.0, "model choice: as tensor_l2_busy_share (UNCONFIRMED)"};
  m.l2_bytes = {132120576, "NVIDIA B200 figures: 126 MB L2 (UNCONFIRMED)"};
  m.gemm_box_latency_p50 = {1465, "the H100's (probe tma_gemm_wave8192_p50, 2026-12-07): UNCONFIRMED on a B200"};
  m.gemm_box_latency_p90 = {1680, "the H100's (probe tma_gemm_wave8192_p90, 2026-12-07): UNCONFIRMED on a B200"};
  m.gemm_box_latency_p99 = {2093, "the H100's (probe tma_gemm_wave8192_p99, 2026-12-07): UNCONFIRMED on a B200"};
  m.drift_blur_waves = {15.7, "the H100's (probe tma_gemm_ring8192_grid_split_wgmma_s6_pace1, 2026-12-07): UNCONFIRMED on a B200"};
  m.l2_kept_bytes = {66060288, "half of the L2, as on the H200 (UNCONFIRMED: not probed on a B200)"};
  m.hbm_bandwidth_gbs = {7200, "model choice: 90% of NVIDIA's 8 TB/s (UNCONFIRMED)"};
  m.gpcs = {8, "reported: two dies of 4 GPCs each (no NVIDIA datasheet gives it; UNCONFIRMED)"};
  m.hbm_gb = {192, "NVIDIA B200 figures: 192 GB HBM3e (UNCONFIRMED)"};
  m.hbm_peak_gbs = {8000, "NVIDIA B200 datasheet: 8 TB/s HBM3e (UNCONFIRMED)"};
  m.hbm_write_bandwidth_gbs = {6120, "model choice: the H100's measured write/read ratio (2490/2930) x 7200 (UNCONFIRMED)"};
  m.tcgen05_flops_per_cycle = {8192, "2 x Hopper's per SM: 2.25 PFLOP/s over 148 SMs near 1.86 GHz (NVIDIA, UNCONFIRMED)"};
  m.launch_us = {4.03, "the H100's probe launch_132x128 (2026-11-28; UNCONFIRMED on a B200)"};
  m.cta_start_ns = {0.59, "the H100's probes launch_16384x128 - launch_132x128 (2026-11-28; UNCONFIRMED on a B200)"};
  return m;
}();

}  // namespace gs::model::timing
