// The timing model: every constant in one place, with where it comes from.
//
// Simple, documented and deterministic (it is a teaching model, not a cycle-accurate
// simulator):
//  * 4 schedulers per SM; warp w issues on scheduler w % 4, one warp-instruction per cycle.
//  * A warp issues in order; it waits only for the registers an instruction reads (a
//    scoreboard: independent instructions overlap), and for the whole latency of barriers,
//    waits and control (decode.hpp, DecodedInst::Issue).
//  * Global loads: L1 latency where the traced CTA's L1 holds every sector, L2 latency
//    otherwise.
//  * The L1's data path takes a shared-memory wavefront or a global access's 128-byte line a
//    cycle: shared memory and the L1 are one SRAM with one data path (probe l1_shared_mix_32warps).
//  * TMA: a fixed latency plus bytes / per-SM bandwidth on the SM's copy engine.
//  * wgmma m64nNk16 occupies the SM's tensor cores for N/2 cycles (facts §1.6: 4096 dense
//    bf16 FLOP/clock/SM); the warpgroup's group completes after its last MMA drains.
//  * Waits on barriers last until the event that releases them.
// The whole-GEMM prediction runs the traced CTA alone, then scales to waves of co-resident
// CTAs over the machine's SMs (the H100's for sm_80 and sm_90a kernels, a B200's for sm_100a:
// machine_for), with co-resident CTAs sharing the tensor cores and the copy bandwidth
// (predict_gemm below).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/types.hpp"  // ir::Arch
#include "engine/model/machines.hpp"

namespace gs::ir {
struct OutputTiling;
struct Kernel;
}

namespace gs::model::timing {

// The per-SM constants are the H100's machine description (machines.hpp: each figure with its
// source); the model runs every kernel's CTA on an H100 SM.
inline constexpr const MachineDesc& kSm = kH100Desc;
inline constexpr uint32_t kSms = uint32_t(kSm.sms.value);
inline constexpr double kClockHz = kSm.clock_rated_mhz.value * 1e6;
inline constexpr uint32_t kSmemPerSm = uint32_t(kSm.smem_bytes_per_sm.value);
inline constexpr uint32_t kReservedSmemPerCta = uint32_t(kSm.smem_reserved_per_cta.value);
inline constexpr uint32_t kMaxThreadsPerSm = uint32_t(kSm.max_threads_per_sm.value);
inline constexpr uint32_t kMaxCtasPerSm = uint32_t(kSm.max_ctas_per_sm.value);
inline constexpr uint32_t kSchedulersPerSm = uint32_t(kSm.schedulers_per_sm.value);
// The scheduler (sub-partition) warp `warp_in_cta` of a CTA issues on: warp % 4, the model's
// rule (machine.hpp, Cta's scheduler; cta.cpp), which the views show and never compute.
constexpr uint32_t scheduler_of_warp(uint32_t warp_in_cta) { return warp_in_cta % kSchedulersPerSm; }
inline constexpr uint32_t kTensorFlopsPerCycle = uint32_t(kSm.wgmma_flops_per_cycle.value);
inline constexpr uint32_t kSmemBaseAddress = 1024;  // first user byte of the shared window:
                                                    // the 1 KiB the driver reserves ([DEV] §3)

// Latencies in cycles (machines.hpp says where each comes from).
inline constexpr uint32_t kAluLatency = uint32_t(kSm.alu_latency.value);
inline constexpr uint32_t kFmaLatency = uint32_t(kSm.fma_latency.value);
inline constexpr uint32_t kImadLatency = uint32_t(kSm.imad_latency.value);
inline constexpr uint32_t kSfuLatency = uint32_t(kSm.sfu_latency.value);
inline constexpr uint32_t kSharedLatency = uint32_t(kSm.shared_latency.value);  // plus one cycle per extra wavefront
inline constexpr uint32_t kBarrierLatency = uint32_t(kSm.barrier_latency.value);
inline constexpr uint32_t kMbarrierLatency = uint32_t(kSm.mbarrier_latency.value);
inline constexpr uint32_t kMbarrierWaitDoneLatency = uint32_t(kSm.mbarrier_wait_done_latency.value);
// An SM's share of a bandwidth of the whole chip, in bytes per cycle at the sustained clock:
// what each SM gets when every SM draws on it at once, as in a full wave.
constexpr double per_sm_share(const MachineDesc& m, double gbs) {
  return gbs * 1e9 / m.sms.value / (m.clock_sustained_mhz.value * 1e6);
}

// The figures of a machine the traced CTA's own run reads (the exec functions, through
// Launch::figures): the ones that differ between GPUs of the same SM (an H100 and an H200 share
// the GH100 SM, not their memory). Everything else per SM is kSm's.
struct CtaFigures {
  uint32_t global_latency;         // an L2 hit (l2_latency); HBM is a bandwidth limit of the wave (timing.cpp)
  uint32_t l1_latency;             // a load the traced CTA's L1 holds (exec_global.cpp)
  uint32_t tma_latency;            // TMA issue to land, beyond the transfer (exec_async.cpp)
  uint32_t cluster_release_stall;  // a release.cluster remote arrive's fences (exec_sync.cpp)
  uint32_t mbarrier_wake;          // a phase's completion to its waiters' next issue (exec_sync.cpp)
  uint32_t remote_arrive;          // a remote arrive's trip to the peer's barrier (exec_sync.cpp)
  // The traced CTA's TMA loads: its SM's copy engine (tma_bytes_per_cycle, measured alone), but
  // no faster than the SM's share of what L2 delivers to all SMs at once (a CTA is predicted as
  // one of a full wave; the L2's limit for lines each SM reads on its own is the wave's, timing.cpp).
  double tma_bytes_per_cycle;
  // The traced CTA's stores into its first tile of C leave its SM at the SM's share of the L2's
  // write bandwidth, as every SM of a wave that started together stores at once (32 bytes a
  // sector touched, and store_line_bytes for each line it writes into beyond one a 128 bytes);
  // a warp's store waits for the ones before it, and so does a TMA store's box (its whole lines
  // weigh their bytes: 4035 GB/s over the H100's wave, as step 18's 128 KiB a CTA took at 2048^3
  // on the card, 2026-12-06; exec_global.cpp, take_store_path). L2 is a write-back cache: HBM
  // takes the lines later, at its own write bandwidth, which bounds the whole wave
  // (Breakdown::stores).
  double store_bytes_per_cycle;
  double store_line_bytes;
  // A CTA whose SM stores while the others compute (a persistent CTA's later tiles: the wave's
  // CTAs have drifted apart) has L2's write bandwidth nearly to itself: its SM's own path, one
  // sector a cycle (probe store_sm_bw), the lines on the L1's data path as any access's.
  double store_sm_bytes_per_cycle;
};
constexpr CtaFigures cta_figures(const MachineDesc& m) {
  const double l2_share = per_sm_share(m, m.l2_shared_read_bandwidth_gbs.value);
  return {uint32_t(m.l2_latency.value),
          uint32_t(m.l1_latency.value),
          uint32_t(m.tma_latency.value),
          uint32_t(m.cluster_release_stall.value),
          uint32_t(m.mbarrier_wake_latency.value),
          uint32_t(m.remote_arrive_latency.value),
          m.tma_bytes_per_cycle.value < l2_share ? m.tma_bytes_per_cycle.value : l2_share,
          per_sm_share(m, m.l2_write_bandwidth_gbs.value),
          m.store_line_bytes.value,
          m.store_sm_bytes_per_cycle.value};
}
// What a store of `bytes` touching `lines` 128-byte lines weighs on the SM's path into L2, in
// bytes' worth: each line beyond one a 128 bytes store_line_bytes more (probes l2_write_bw_scattered
// and l2_write_bw). Cycles on the path: this over CtaFigures::store_bytes_per_cycle.
constexpr double store_weight(const CtaFigures& f, double bytes, double lines) {
  const double beyond = lines - bytes / 128.0;
  return bytes + (beyond > 0 ? f.store_line_bytes * beyond : 0.0);
}
// The H100's: the default of a Launch, and the bound sim_job's cycle budget uses.
inline constexpr CtaFigures kH100Cta = cta_figures(kH100Desc);
inline constexpr uint32_t kGlobalLatency = kH100Cta.global_latency;
inline constexpr uint32_t kWgmmaPipelineLatency = uint32_t(kSm.wgmma_latency.value);
// The SM's wgmma issue: a wgmma m64nNk16 holds it wgmma_issue_cycles, the next wgmma waits; with
// kWgmmaQueue or more wgmmas on the tensor cores or waiting for them (`crowded`), the longer
// figure. Linear in N through the probes' N = 64 and N = 256, and one cycle at least.
inline constexpr uint32_t kWgmmaQueue = uint32_t(kSm.wgmma_queue.value);
constexpr uint32_t wgmma_issue_cycles(uint32_t n, bool crowded) {
  const double at64 = crowded ? kSm.wgmma_crowded_issue_n64.value : kSm.wgmma_issue_n64.value;
  const double at256 = crowded ? kSm.wgmma_crowded_issue_n256.value : kSm.wgmma_issue_n256.value;
  const double c = at64 + (at256 - at64) * (double(n) - 64.0) / 192.0;
  return c < 1.0 ? 1u : uint32_t(c + 0.5);
}
inline constexpr uint32_t kMmaSyncLatency = uint32_t(kSm.mma_sync_latency.value);
inline constexpr double kMmaSyncFlopsPerCycle = kSm.mma_sync_flops_per_cycle.value;  // per SM
// The SM's path for global loads and stores (L1): bytes per cycle, one warp-instruction at least.
inline constexpr uint32_t kLsuBytesPerCycle = uint32_t(kSm.smem_bytes_per_cycle.value);
inline constexpr double kL1LinesPerCycle = kSm.l1_lines_per_cycle.value;  // the traced CTA's loads and stores
// What a traced CTA's global load holds the data path beyond its lines' cycles: the L1 holds its
// data, it asks L2 for a sector, or it finds its sectors on their way from L2 (exec_mem.cpp).
inline constexpr double kL1RequestCycles = kSm.l1_request_cycles.value;
inline constexpr double kL1MissRequestCycles = kSm.l1_miss_request_cycles.value;
inline constexpr double kCpAsyncLinePathCycles = kSm.cp_async_line_path_cycles.value;
inline constexpr double kL1PendingRequestCycles = kSm.l1_pending_request_cycles.value;

// Cycles one m64nNk16 keeps the SM's tensor cores busy: 2·64·N·16 / 4096 = N/2.
constexpr uint32_t wgmma_busy_cycles(uint32_t n) { return n / 2; }

// Blackwell tcgen05.mma: a B200 SM's dense bf16 rate is taken as 8192 FLOP/cycle, twice
// Hopper's (about 2.25 PFLOP/s dense bf16 over 148 SMs near 1.9 GHz: NVIDIA's B200 figures,
// UNCONFIRMED, no B200 was measured; facts table engine/layout/blackwell_facts.def). One
// M x N x 16 MMA (per CTA of the pair) then keeps the SM's tensor core busy M*N/256 cycles.
inline constexpr uint32_t kTcgen05FlopsPerCycle = uint32_t(kB200Desc.tcgen05_flops_per_cycle.value);
constexpr uint32_t tcgen05_busy_cycles(uint32_t m, uint32_t n) { return 2 * m * n * 16 / kTcgen05FlopsPerCycle; }

// The machine a prediction is for: its SM count and clock, the figures of its machine
// description the whole-GEMM prediction reads (desc), and those the traced CTA's run reads (cta).
// The schedulers, pipes, latencies inside the SM and shared memory are the H100's for all of
// them (kSm): the H200 has the same SM, and no Blackwell part was measured here.
struct Machine {
  const char* name;     // "H100", "H200", "B200"
  const char* key;      // "h100": what `sim --machine` takes
  const char* article;  // "an H100", "a B200"
  uint32_t sms;
  double clock_hz;
  bool confirmed;       // false: vendor figures no run here has checked
  const MachineDesc* desc = &kH100Desc;  // every figure, with its source (machines.hpp)
  CtaFigures cta = kH100Cta;
};
inline constexpr Machine kH100{"H100", "h100", "an H100", kSms, kClockHz, true, &kH100Desc, kH100Cta};
// H200: the H100's SMs with its own memory system, measured by the same probes (machines.hpp).
inline constexpr Machine kH200{"H200",
                               "h200",
                               "an H200",
                               uint32_t(kH200Desc.sms.value),
                               kH200Desc.clock_rated_mhz.value * 1e6,
                               true,
                               &kH200Desc,
                               cta_figures(kH200Desc)};
// B200: 148 SMs; 2.25 PFLOP/s dense bf16 over 148 SMs at 8192 FLOP/cycle is 1.86 GHz. NVIDIA's
// figures, UNCONFIRMED (facts table: b200_machine, tensor_rate).
inline constexpr Machine kB200{"B200",
                               "b200",
                               "a B200",
                               uint32_t(kB200Desc.sms.value),
                               kB200Desc.clock_rated_mhz.value * 1e6,
                               false,
                               &kB200Desc,
                               cta_figures(kB200Desc)};
inline constexpr const Machine* kMachines[] = {&kH100, &kH200, &kB200};
// The machine that runs a kernel built for `arch` when no card is named: a B200 for sm_100a;
// the H100 for sm_90a and for sm_80 (the Ampere steps are measured on the H100 too).
constexpr const Machine& machine_for(ir::Arch arch) { return arch == ir::Arch::sm_100a ? kB200 : kH100; }
// Whether `m` runs code built for `arch`: sm_100a only on the B200, sm_80 and sm_90a on the
// Hopper cards (arch-specific sm_90a code does not run on a Blackwell part).
constexpr bool machine_runs(const Machine& m, ir::Arch arch) { return (arch == ir::Arch::sm_100a) == (&m == &kB200); }
// The machine whose key is `key` ("h100", "h200", "b200"), or nullptr.
const Machine* machine_by_key(std::string_view key);
// "h100, h200, b200": the keys, for an error message or a help text.
std::string machine_keys();
// "an H100", or "a B200 (NVIDIA's figures, unconfirmed)": what a prediction is on, in words.
inline std::string machine_words(const Machine& m) {
  return m.confirmed ? m.article : std::string(m.article) + " (NVIDIA's figures, unconfirmed)";
}

// What the traced CTA did, alone on its SM (run_cta fills it; simulate adds the kernel's facts).
struct CtaCost {
  uint64_t cycles = 0;              // the CTA alone on an SM
  uint64_t tensor_busy_cycles = 0;  // its SM's tensor cores busy (wgmma, tcgen05)
  // mma.sync's busy cycles of the sub-partitions' tensor cores (a quarter of the SM's rate each):
  // the SM's share is a quarter of them. An m16n8k16 holds its sub-partition 6 cycles, the SM 1.5;
  // counted as whole cycles of the SM (until 2026-12-07) it held the SM 2, a third too long.
  uint64_t mma_sync_partition_cycles = 0;
  double tensor_cycles() const { return double(tensor_busy_cycles) + double(mma_sync_partition_cycles) / 4.0; }
  uint64_t tma_bytes = 0;           // bytes its TMA loads brought in
  // Beyond tma_bytes, what its multicast loads delivered to the mask's other CTAs too (bytes x
  // the CTAs past the first), which by a cluster's symmetry is what the peers' multicasts
  // delivered to it: L2 reads them once, each SM receives them (sustained_clock's multicast term).
  uint64_t tma_multicast_extra_bytes = 0;
  uint64_t warp_instructions = 0;   // issue slots it took
  uint64_t smem_wavefronts = 0;     // its ld/st.shared, ldmatrix, stmatrix, cp.async wavefronts
  uint64_t lsu_cycles = 0;          // its global loads and stores on the SM's load/store path
  uint64_t global_load_bytes = 0;   // sectors x 32 B of its global loads (the traced CTA only)
  uint64_t cp_async_bytes = 0;      // of global_load_bytes, those its cp.async copies read (they draw more power a byte than the TMA's: sustained_clock)
  uint64_t cp_async_lines = 0;      // the 128-byte lines those copies read, a copy's distinct lines each (a line beyond one a 128 bytes draws more: cp_async_line_bytes)
  uint64_t tag_cycles = 0;          // the L1's tag stage taken by those copies' look-ups (a line a cycle, and each copy's request)
  uint64_t global_store_bytes = 0;  // C to HBM: the bytes its st.global lanes and its TMA stores write (L2 writes back whole sectors)
  uint32_t threads = 0;
  uint32_t smem_bytes = 0;
  uint32_t registers_per_thread = 0;  // ptxas -v's count (0: not known, occupancy without it)
  uint32_t cluster_ctas = 1;          // CTAs per cluster of its launch
  // A warp of it arrived on a peer CTA's mbarrier (mbarrier.arrive.shared::cluster): its cluster's
  // CTAs release stages in one another, so each goes at the slowest one's pace (pair_coupling).
  bool peer_released = false;
  // Cycles a pass of its K loop took, as the first warp to fast-forward that loop timed its period
  // (fast_forward.cpp; 0: no K loop was fast-forwarded): the pace its ring's refills are asked at
  // (wave_drift).
  double k_period_cycles = 0;
};

// The GEMM around the CTA: its tiling of C and K, for the bytes each wave reads from HBM.
struct GemmFacts {
  uint32_t tiles_m = 0, tiles_n = 0;    // 0: the kernel declares no tiling
  uint32_t tile_rows = 0, tile_cols = 0;
  uint64_t m = 0, n = 0, k = 0;
  uint32_t ab_bytes = 2;                // bytes per element of A and B
  // The tiles of C in the order the grid ran them (SimResult::schedule, whole-grid runs), or
  // empty: then row-major order (a CTA after CTA launch of tile after tile).
  std::vector<uint32_t> tile_order;
  // Its TMA ring as the kernel declares it (ir::SharedAlloc of operands A and B in stages,
  // declared_ring): stages, the K a stage holds, and A's and B's bytes of a stage; 0 without one.
  uint32_t ring_stages = 0;
  uint32_t ring_k = 0;
  uint32_t ring_stage_bytes = 0;
};

// A prediction's parts, in cycles per wave of one SM: each is how long the wave would take if
// that were the only limit; the wave takes the longest (`bound`).
struct Breakdown {
  double cta_alone = 0;   // the CTA's own cycles: issue, and the latency its warps do not hide
  double issue = 0;       // the SM's co-resident CTAs' instructions over its schedulers
  // The L1's one data path (shared memory and the L1 are one SRAM) takes shared-memory wavefronts
  // and global loads' and stores' lines, one a cycle: l1_data(), whose two shares these are.
  double smem = 0;        // shared-memory wavefronts
  double lsu = 0;         // global loads' and stores' lines
  double l1_data() const { return smem + lsu; }
  double l1_tag = 0;      // cp.async copies' lines looked up at the L1's tag stage, one a cycle, before the data path
  double tensor = 0;      // tensor-core busy time
  double l2 = 0;          // bytes through L2 (global loads, TMA): the wave's distinct panel bytes at the
                          // L2's bandwidth, or all its bytes at what L2 delivers to all SMs at once;
                          // for the waves whose CTAs read apart (l2_apart_waves), every byte at the
                          // L2's bandwidth
  double hbm = 0;         // bytes from HBM (A and B panels the wave needs that L2 does not hold)
  double stores = 0;      // C to HBM
  const char* bound = "";
  double hbm_bytes_per_wave = 0, l2_bytes_per_wave = 0, store_bytes_per_wave = 0;
  double l2_distinct_bytes_per_wave = 0;  // of l2_bytes_per_wave, the lines no other SM of the wave reads
  // Of the waves, the share whose CTAs' reads of a shared box no longer arrive together (the waves
  // after the first, with several CTAs an SM: they start as others end), so that L2 looks up
  // every byte at its bandwidth instead of delivering one look-up to several SMs (timing.cpp).
  double l2_apart_waves = 0;
  // cp.async copies' lines a wave (CtaCost::cp_async_lines of its CTAs): L2 looks each up, at most
  // l2_copy_lines_gps a second for all SMs; where those look-ups take longer than the bytes, they
  // are the L2 part (l2_by_copy_lines).
  double l2_copy_lines_per_wave = 0;
  bool l2_by_copy_lines = false;
  double wave_quantization = 0;  // share of the time lost to the last, partial wave (SMs idle or holding fewer CTAs)
};

// How far a GEMM launch's waves drift apart, and the HBM bytes that costs (wave_drift). Where
// one CTA an SM runs each tile and a TMA ring feeds it, the first wave's CTAs start together, and
// the ones that share a B panel (a tile column's, one tile row apart) read its lines at about the
// same time: HBM brings them once. Each SM keeps a pace of its own, a little faster or slower for
// good, so over the waves the CTAs' starts spread; once partners start further apart than L2 keeps
// a line, the second reads the panel from HBM again, and the waves have blurred into a stream of
// CTAs. What holds them together is the ring itself: a CTA that runs ahead of its partners is the
// first to ask for each box, waits for HBM where its ring does not cover that, and falls back. So:
//  * lead: a stage's refill is asked for when its block is done and needed stages - 1 K periods
//    later (CtaCost::k_period_cycles);
//  * late_share: the share of a K block's boxes that land after that lead, from the latencies a
//    GEMM wave's boxes take (gemm_box_latency_p50/p90/p99, exponential tails between and beyond
//    them, the part above tma_latency scaled by the stage's bytes over the probe's 32 KiB);
//  * pulls: the K blocks of a tile that land late, each pulling a CTA back to its partners; a tile
//    with none (a Poisson chance, exp(-pulls)) lets its SM's lead stand (free_share);
//  * blur: the spread grows evenly with the waves until, after drift_blur_waves, a wave is a stream
//    (machine figure, from a probe of step 13's roles and math whose 6-stage ring nothing holds
//    back); the launch's mean over its waves;
//  * the bytes: share = free_share x blur of the way from the waves' count (hbm_read_bytes) to a
//    stream's, where only the tiles that start within what L2 keeps of the waves' traffic share
//    their panels (hbm_read_bytes over windows of that many tiles).
// The H100's ring probe reads 4.09 / 4.95 / 7.33 / 7.35 GB at 3-6 stages (the rule: 4.09 / 4.62 /
// 7.21 / 7.35) and step 13 at 8192^3 4.37 / 4.37 / 4.37 / 5.91 / 7.78 at 2-6 (the rule, with the
// model's own K period: 4.37 / 4.37 / 4.87 / 7.68 / 7.83; docs/results/2026-12-07-ring-drift): at
// 5 stages step 13 reads less than the probe does, which the rule does not explain.
struct WaveDrift {
  double k_period = 0;    // cycles a K block of the traced CTA (CtaCost::k_period_cycles)
  double lead = 0;        // (stages - 1) x k_period
  double late_share = 0;  // of K blocks, those whose boxes land after the lead
  double pulls = 0;       // late K blocks a tile
  double free_share = 0;  // exp(-pulls)
  double waves = 0;       // the launch's waves (fractional)
  double blur = 0;        // the mean blurred share of its waves
  double share = 0;       // free_share x blur
  uint64_t window_tiles = 0;  // tiles that start within what L2 keeps, in a stream
  double count_bytes = 0, stream_bytes = 0, extra_bytes = 0;
};
// The K blocks of a tile in `g`'s declared ring: K over the K a stage holds (0 without a ring).
double ring_k_blocks(const GemmFacts& g);
// The share of a K block's boxes of `stage_bytes` (A's and B's) that land more than `lead` cycles
// after they are asked for, on `d` (gemm_box_latency_*; see WaveDrift).
double box_late_share(const MachineDesc& d, double lead, double stage_bytes);
// The drift of a launch of `total_ctas` in waves of `concurrent` tiles, one CTA an SM (WaveDrift);
// all zero where `g` declares no ring or `k_period` is 0.
WaveDrift wave_drift(const MachineDesc& d, const GemmFacts& g, uint64_t concurrent, uint64_t total_ctas,
                     double k_period);

struct Prediction {
  uint32_t ctas_per_sm = 1;
  const char* occupancy_bound = "";  // the resource that allows no more (timing::cta_limit)
  uint32_t resident = 1;          // CTAs per SM in a wave (at most ctas_per_sm)
  // CTAs in a wave: SMs x resident, or fewer where whole clusters must fit in one GPC
  // (cluster_ctas_at_once); cluster_basis says why when fewer.
  uint64_t wave_ctas = 0;
  std::string cluster_basis;
  // A cluster whose CTAs release stages in one another (CtaCost::peer_released) goes at its slowest
  // CTA's pace: the share its CTA's own time rises by (machine figure pair_coupling, scaled from a
  // pair to the cluster's size), and why; 0 and empty otherwise.
  double cluster_coupling = 0;
  std::string coupling_basis;
  uint64_t waves = 0;
  double cycles_per_wave = 0;
  // The last wave's cycles (cycles_per_wave when the grid is whole waves, or the wave is bound
  // by a CTA's own latency; fewer when its SMs hold fewer CTAs and a unit of the SM or the
  // memory system bounds it): seconds = ((waves - 1) x cycles_per_wave + this) / clock.
  double last_wave_cycles = 0;
  // CTAs the last wave's busiest SM holds, expected (resident when the grid is whole waves or a
  // CTA an SM): in a second wave its CTAs take the slots as they free, not an even share; after
  // more waves the even share (timing.cpp).
  double last_wave_busiest_ctas = 1;
  uint64_t last_wave_ctas = 0;  // the CTAs of the last wave (wave_ctas when the grid is whole waves)
  bool last_wave_uneven = false;  // a second, partial wave spread as its CTAs take the freed slots
  double clock_hz = 0;            // the sustained clock the seconds are at (sustained_clock)
  std::string clock_basis;        // why that clock
  // The traced CTA's loads as one of the wave (wave_loads, wave_cta_figures): the share of HBM's
  // latency a TMA load waits (the first wave's share of its distinct A and B panel bytes that came
  // from HBM, the later waves' as a panel's first reader), the latency that added, and why.
  double hbm_share_of_panels = 0;
  std::string load_basis;
  // Waves that drift apart (wave_drift: one CTA an SM, a TMA ring, several waves): the HBM bytes the
  // blur adds to the waves' count, and why (empty where the rule does not apply).
  WaveDrift drift;
  std::string drift_basis;
  // What the launch itself adds, as bench times a kernel between two events: the machine's
  // launch_us, and cta_start_ns for each CTA beyond the first wave's; launch_basis says so.
  double launch_seconds = 0;
  std::string launch_basis;
  double seconds = 0;             // the waves' time at clock_hz, plus launch_seconds
  double tflops = 0;
  Breakdown parts;
};

// CTAs of a launch in clusters of `cluster` CTAs that `m` holds at once with one CTA per SM (the
// machine's measured cluster2_ctas / cluster4_ctas); 0 where no figure exists (other sizes).
uint32_t cluster_ctas_at_once(const MachineDesc& m, uint32_t cluster);

// Co-resident CTAs per SM on `m`: the fewest that threads, shared memory, registers (when
// `registers_per_thread` is known: each warp gets its count x 32 rounded up to the allocation
// unit) and the CTA slots allow.
uint32_t ctas_per_sm(const MachineDesc& m, uint32_t threads, uint32_t smem_bytes, uint32_t registers_per_thread);
// The same, with the resource that allows the fewest ("threads", "shared memory", "registers",
// "CTA slots"; the first of equals).
struct CtaLimit {
  uint32_t ctas = 1;
  const char* resource = "";
};
CtaLimit cta_limit(const MachineDesc& m, uint32_t threads, uint32_t smem_bytes, uint32_t registers_per_thread);
// The CTAs per SM the register file alone allows (0 registers: the CTA slots).
uint32_t ctas_by_registers(const MachineDesc& m, uint32_t threads, uint32_t registers_per_thread);
// Bytes the GEMM's waves read from HBM: each wave of `concurrent` tiles (in the GEMM's tile
// order) needs its A row panels and B column panels; a panel the previous wave used (when that
// wave's panels fitted in L2 together), or B when all of B fits in L2 beside the wave's A
// panels, comes from L2. C is not counted here (stores). `l2_bytes` is what L2 keeps of a working
// set every SM reads: the machine's l2_kept_bytes (half its size: each partition its own copy).
double hbm_read_bytes(const GemmFacts& g, uint64_t concurrent, double l2_bytes);
// The A and B panel bytes of each wave of `concurrent` tiles, each panel counted once per wave
// however many of the wave's CTAs read it, summed over the waves: the distinct lines L2 serves.
double distinct_panel_bytes(const GemmFacts& g, uint64_t concurrent);
// What one tile order costs the memory system, counted as predict_gemm counts it for waves of
// `concurrent` tiles walked in g.tile_order (row-major when empty): the A and B bytes the waves
// read from HBM (hbm_read_bytes), the bytes the SMs read through L2 (every tile's A row panel and
// B column panel: each tile's CTA reads its own), and the distinct panel bytes L2 serves
// (distinct_panel_bytes). The Schedule view sets the tile orders a kernel takes side by side.
struct WalkTraffic {
  double hbm_bytes = 0;
  double l2_bytes = 0;
  double l2_distinct_bytes = 0;
  // How many times L2 serves each byte HBM brought: l2_bytes / hbm_bytes (0 without HBM bytes).
  double l2_reuse() const { return hbm_bytes > 0 ? l2_bytes / hbm_bytes : 0.0; }
};
WalkTraffic walk_traffic(const GemmFacts& g, uint64_t concurrent, double l2_bytes);
// The GEMM as a kernel declares it: its output tiling, K, and the walk it declares
// (OutputTiling::walk) as the tile order, the facts the prediction reads when only the traced
// CTA ran. An undeclared tiling gives empty facts (tiles_m 0).
GemmFacts declared_gemm_facts(const ir::OutputTiling& o, uint64_t k);
// The TMA ring kernel `k` declares (its shared-memory stages of operands A and B) into `g`
// (GemmFacts::ring_*): nothing where A's and B's allocations do not have the same stages, two or
// more.
void declare_ring(const ir::Kernel& k, GemmFacts& g);
// The traced CTA's figures as one of a GEMM's wave (simulate.cpp, before the run): the wave's
// CTAs that read an A or B panel ask for its boxes at about the same time, so where the panel
// comes from HBM (hbm_read_bytes: L2 did not keep it from the wave before) every one of them
// waits for HBM, not only the first. A TMA load then waits the share of the wave's distinct panel
// bytes HBM brings times the latency HBM adds over an L2 hit (probes hbm_latency - l2_latency),
// on top of its own. `hbm_share` is that share, 0..1 (hbm_share_of_panels). Only TMA loads: the
// model issues a SIMT step's loads one IR iteration at a time where the SASS hoists them ahead
// (architecture.md, "What the timing model leaves out"), so their latency is already over-counted;
// with HBM's added, steps 01-07 fell 20-45% below the card (2026-12-02's ladder on the H200).
double hbm_share_of_panels(const GemmFacts& g, uint64_t concurrent, double l2_bytes);
// Over a launch of `total_ctas` in waves of `concurrent`, `per_sm` an SM: the waves after the
// first whose CTAs read apart (several CTAs an SM, as predict_gemm's l2_apart_waves: later waves'
// CTAs start as others end) do not wait for a panel together. Its first reader waits for HBM, the
// others find its lines in L2, where the count of HBM's bytes (hbm_read_bytes) says they stayed:
// there a load waits for HBM in the share of all the panel bytes the CTAs read that HBM brings.
// A load's share of HBM's latency is the first wave's (`together`, hbm_share_of_panels) and the
// later waves' (`first_reader`) weighed by the waves. Nsight Compute's DRAM bytes agree with
// hbm_read_bytes within 7% where an SM runs 1-3 CTAs (step 12 at 8192^3 on an H100: 1.64 GB
// against 1.53; docs/results/2026-12-06-hbm), not where it runs 8-9 (steps 09 and 11 over many
// waves read 4-8 times as much: their CTAs drift further apart than L2 keeps a panel); those are
// bound by their data path and by L2's bandwidth, not by a TMA load's latency.
struct WaveLoads {
  double together = 0;      // the first wave's share (hbm_share_of_panels)
  double first_reader = 0;  // the later waves': HBM's bytes over every panel byte read
  double apart = 0;         // the share of the waves whose CTAs read apart
  double share = 0;         // what a load waits: (1 - apart) * together + apart * first_reader
};
WaveLoads wave_loads(const GemmFacts& g, uint64_t concurrent, uint64_t total_ctas, uint32_t per_sm, double l2_bytes);
CtaFigures wave_cta_figures(const Machine& m, double hbm_share);
// The tiles in flight at once in prediction `p` of a launch of `total_ctas` CTAs: a wave's CTAs
// (each at one tile), as predict_gemm counts the HBM bytes.
uint64_t concurrent_tiles(const Prediction& p, uint64_t total_ctas);
// The SM clock a kernel holds on `d`. Without tensor cores, the clock under FFMA. With them the
// card's power limit sets it: each load draws power in proportion to how much of it there is
// (the share of the time the tensor cores are busy; the bytes a second through L2 and to and
// from HBM), and the clock held at the limit goes as that sum to the power -1/clock_power_exponent
// (probes sm_clock_under_wgmma_streamed_l2_pause*: the tensor cores and the streaming slowed
// together), no higher than the clock of tensor cores that draw little power
// (clock_sustained_mhz). Each load's weight comes from the clock a probe of it held at the limit:
// wgmma alone (clock_tensor_alone_mhz), wgmma with TMA streaming from L2 (clock_tensor_l2_mhz, the
// unit: its sum is 1) and from HBM (clock_tensor_hbm_mhz). mma.sync's FLOP count as wgmma's: no
// probe has held mma.sync on random operands at the limit yet (sm_clock_under_mma_capped's
// operands are near zero, and its clock is not held).
struct ClockLoad {
  bool tensor_cores = false;
  double tensor_share = 0;  // the share of the time the SMs' tensor cores are busy at wgmma's rate
  double l2_gbs = 0;        // bytes a second the SMs read through L2 (those from HBM too)
  double multicast_gbs = 0;  // bytes a second multicast delivers to SMs beyond the one L2 read of them
  double cp_async_gbs = 0;  // of l2_gbs, the bytes a second cp.async copies read
  double cp_async_lines_per_byte = 1.0 / 128;  // the 128-byte lines those copies read a byte (1/128: whole lines)
  double hbm_gbs = 0;       // bytes a second to and from HBM
};
struct SustainedClock {
  double mhz = 0;
  double draw = 0;  // the load's power at a fixed clock against clock_tensor_l2_mhz's probe's (0 without tensor cores)
  std::string basis;
};
SustainedClock sustained_clock(const MachineDesc& d, const ClockLoad& load);
// The last, partial wave's `last_ctas` CTAs on `sms` SMs of `resident` slots each: entry k is the
// probability that the busiest SM runs k of them (they take the slots as they free, timing.cpp).
std::vector<double> busiest_sm_counts(uint32_t sms, uint32_t resident, uint64_t last_ctas);
// The expected slowest of n CTAs over that of a pair, each CTA's time a normal draw about one mean
// (order statistics; n past 16 as 16): 1 for a pair, 1.82 for four; 0 below two.
double expected_max_over_pair(uint32_t n);

// Whole-GEMM time on `m`: waves of co-resident CTAs on every SM; a wave takes the longest of
// the parts of Breakdown, at the machine's sustained clock; and the launch's own cost.
Prediction predict_gemm(const CtaCost& cta, uint64_t total_ctas, double flops, const Machine& m = kH100,
                        const GemmFacts& gemm = {});
// "bound by the tensor cores: cta 1.2 M cycles, ..." rows for a learner: (name, cycles, share).
struct PartRow {
  const char* name;
  const char* meaning;
  double cycles;
  bool sm_unit = false;  // a unit inside the SM (issue, the L1 data path or tag stage, tensor cores): a latency
                         // bound is the CTA's own time, which its busiest such unit fills in part
};
std::vector<PartRow> breakdown_rows(const Breakdown& b);

}  // namespace gs::model::timing
