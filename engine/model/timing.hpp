// The timing model: every constant in one place, with where it comes from.
//
// Simple, documented and deterministic (it is a teaching model, not a cycle-accurate
// simulator):
//  * 4 schedulers per SM; warp w issues on scheduler w % 4, one warp-instruction per cycle.
//  * A warp issues in order and waits for each instruction's latency before its next one
//    (no instruction-level parallelism inside a warp; parallelism comes from other warps).
//  * Shared-memory accesses cost one cycle per wavefront on the SM's shared-memory pipe.
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

#include "engine/ir/types.hpp"  // ir::Arch

namespace gs::model::timing {

// H100 SXM5 (facts §10, anchors.md).
inline constexpr uint32_t kSms = 132;               // [DEV]
inline constexpr double kClockHz = 1.83e9;          // rated boost behind NVIDIA's 989 TFLOP/s
inline constexpr uint32_t kSmemPerSm = 233472;      // 228 KiB [DEV]
inline constexpr uint32_t kReservedSmemPerCta = 1024;  // [DEV] driver-reserved per block
inline constexpr uint32_t kMaxThreadsPerSm = 2048;  // [DEV]
inline constexpr uint32_t kMaxCtasPerSm = 32;       // [DEV]
inline constexpr uint32_t kSchedulersPerSm = 4;     // one per sub-partition (Gordić)
inline constexpr uint32_t kTensorFlopsPerCycle = 4096;  // dense bf16 per SM (facts §1.6)
inline constexpr uint32_t kSmemBaseAddress = 1024;  // first user byte of the shared window:
                                                    // the 1 KiB the driver reserves ([DEV] §3)

// Latencies in cycles. Order-of-magnitude figures from microbenchmark literature for
// Hopper-class parts; the model only needs them to be plausible and fixed.
inline constexpr uint32_t kAluLatency = 4;
inline constexpr uint32_t kSfuLatency = 16;          // div/rem and conversions
inline constexpr uint32_t kSharedLatency = 30;       // plus one cycle per extra wavefront
inline constexpr uint32_t kGlobalLatency = 500;      // an L2/DRAM round trip
inline constexpr uint32_t kBarrierLatency = 20;      // bar.sync release to next issue
inline constexpr uint32_t kMbarrierLatency = 8;
inline constexpr uint32_t kTmaLatency = 600;         // issue to first byte landed
// Copy bandwidth per SM, bytes/cycle. Calibrated so the one-stage 64x64 kernel (fast.cu
// matmul_2) predicts within the measured 280-311 TFLOP/s of anchors.md: mostly L2 hits,
// about 40 B/cycle/SM = 9.7 TB/s over 132 SMs.
inline constexpr double kTmaBytesPerCycle = 40.0;
inline constexpr uint32_t kWgmmaPipelineLatency = 32;  // issue to first result
inline constexpr uint32_t kMmaSyncLatency = 32;

// Cycles one m64nNk16 keeps the SM's tensor cores busy: 2·64·N·16 / 4096 = N/2.
constexpr uint32_t wgmma_busy_cycles(uint32_t n) { return n / 2; }

// Blackwell tcgen05.mma: a B200 SM's dense bf16 rate is taken as 8192 FLOP/cycle, twice
// Hopper's (about 2.25 PFLOP/s dense bf16 over 148 SMs near 1.9 GHz: NVIDIA's B200 figures,
// UNCONFIRMED, no B200 was measured; facts table engine/layout/blackwell_facts.def). One
// M x N x 16 MMA (per CTA of the pair) then keeps the SM's tensor core busy M*N/256 cycles.
inline constexpr uint32_t kTcgen05FlopsPerCycle = 8192;
constexpr uint32_t tcgen05_busy_cycles(uint32_t m, uint32_t n) { return 2 * m * n * 16 / kTcgen05FlopsPerCycle; }

// The machine a whole-GEMM prediction is for: its SM count and clock. Everything else (the
// schedulers, latencies, shared memory and copy bandwidth per SM) is the H100's for both: a
// teaching model, and no Blackwell part was measured here.
struct Machine {
  const char* name;     // "H100", "B200"
  const char* article;  // "an H100", "a B200"
  uint32_t sms;
  double clock_hz;
  bool confirmed;       // false: vendor figures no run here has checked
};
inline constexpr Machine kH100{"H100", "an H100", kSms, kClockHz, true};
// B200: 148 SMs; 2.25 PFLOP/s dense bf16 over 148 SMs at 8192 FLOP/cycle is 1.86 GHz. NVIDIA's
// figures, UNCONFIRMED (facts table: b200_machine, tensor_rate).
inline constexpr Machine kB200{"B200", "a B200", 148, 1.86e9, false};
// The machine that runs a kernel built for `arch`: a B200 for sm_100a; the H100 for sm_90a and
// for sm_80 (the Ampere steps are measured on the H100 too).
constexpr const Machine& machine_for(ir::Arch arch) { return arch == ir::Arch::sm_100a ? kB200 : kH100; }
// "an H100", or "a B200 (NVIDIA's figures, unconfirmed)": what a prediction is on, in words.
inline std::string machine_words(const Machine& m) {
  return m.confirmed ? m.article : std::string(m.article) + " (NVIDIA's figures, unconfirmed)";
}

struct CtaCost {
  uint64_t cycles = 0;            // the CTA alone on an SM
  uint64_t tensor_busy_cycles = 0;
  uint64_t tma_bytes = 0;
  uint32_t threads = 0;
  uint32_t smem_bytes = 0;
};

struct Prediction {
  uint32_t ctas_per_sm = 1;
  uint64_t waves = 0;
  double cycles_per_wave = 0;
  double seconds = 0;
  double tflops = 0;
};

// Co-resident CTAs per SM from threads and shared memory (registers are not modelled).
uint32_t ctas_per_sm(uint32_t threads, uint32_t smem_bytes);
// Whole-GEMM time on `m`: waves of ctas_per_sm CTAs on every SM; a wave takes the longest of
// one CTA's own cycles, its SM's tensor-core work and its SM's copy traffic.
Prediction predict_gemm(const CtaCost& cta, uint64_t total_ctas, double flops, const Machine& m = kH100);

}  // namespace gs::model::timing
