// Step 14 — Hopper: a 128×256 tile, two consumer warpgroups, and setmaxnreg moving registers
// from the producer to the consumers (fast.cu's matmul_5).
//
// What it teaches: the register file is the limit on tile size, and it can be redistributed.
// A 64×256 slab of f32 accumulators is 128 registers per thread. With 384 threads per CTA and
// one CTA per SM (.maxntid 384 + .minnctapersm 1), ptxas gives every thread 168 registers at
// entry (65536 / 384, rounded down to a multiple of 8: facts §7 [PTXAS]). The producer needs
// few, the consumers many, so each warpgroup states what it wants as it takes its role:
//   producer:  setmaxnreg.dec 24   — returns 144 per thread to the CTA's pool
//   consumers: setmaxnreg.inc 240  — waits until the pool can give 72 more per thread
// 128 × (24 + 240 + 240) = 64512 = 384 × 168: the pool is used exactly. Asking for more
// (mistake register-overcommit) makes a consumer warp wait in setmaxnreg.inc for registers no
// one will free: the GPU hangs, and the model names the wait and the pool.
//
// What changed from step 13: 384 threads (warpgroup 0 produces, 1 and 2 consume), a 128×256
// tile (each consumer owns 64 rows and issues one m64n256k16 per k16 step: 128 clocks of the
// SM's tensor cores per instruction), B boxes of 256 rows, 3 stages of 48 KiB (144 KiB; 5 would
// not fit the 227 KiB; 4 measured 25% slower at 8192³ on the H100,
// docs/results/2026-11-24-h100-stages),
// empty barriers expecting 256 arrivals (both consumers), and the setmaxnreg pair.
//
// The tile's N is the build parameter bn (`--param bn=128`; 256 above is the default), as in
// step 13 and on to step 19 (hopper_parts.hpp, declare_tile_n): 64, 128, 192 or 256 (two
// consumers: 256 fits), each consumer's wgmma m64n<bn>k16 with bn/2 accumulator registers a
// thread, B's box and stage bn rows of 128 bytes.
// A stage is 16 + bn/8 KiB, so a smaller N leaves room for more stages: "stages" takes 2 up to
// what the build's N fits in 227 KiB (4 at 256, 5 at 192, 7 at 128, 9 at 64), and the rule names
// the limit of a combination that does not fit.
#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/hopper_parts.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels {

using builder::Builder;
using builder::Reg;
using tma_ring::kBK;
using ir::Type;
using layout::Swizzle;

namespace {

constexpr std::string_view kId = "hopper_two_consumers";

constexpr uint32_t kBM = 128;
constexpr uint32_t kShippedBN = 256;  // the tile's N as it ships: the build parameter bn's default
constexpr uint32_t kConsumers = 2;
constexpr uint32_t kThreads = 128 * (1 + kConsumers);
constexpr uint32_t kABytes = kBM * kBK * 2;  // 16 KiB per stage (B: hopper::b_tile_bytes(bn), 32 KiB at 256)
constexpr uint32_t kSlabBytes = 64 * kBK * 2;                         // one consumer's rows of A
constexpr uint32_t kProducerRegs = 24, kConsumerRegs = 240;

ir::Kernel build_hopper_two_consumers(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const uint32_t stages = cfg.param("stages");
  const uint32_t bn = cfg.param("bn");  // the tile's N: 256 as it ships
  Builder b(std::string(kId), ir::Arch::sm_90a);
  b.set_launch({.grid = {hopper::ceil_div(N, bn), hopper::ceil_div(M, kBM), 1}, .block = {kThreads, 1, 1}});
  b.set_min_ctas_per_sm(1);  // with .maxntid: ptxas fixes the count at entry, so setmaxnreg takes effect

  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, kBM, Swizzle::b128));
  auto tmap_b = b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, bn, Swizzle::b128));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const tma_ring::Ring ring = tma_ring::declare_ring(b, stages, kABytes, hopper::b_tile_bytes(bn));

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg wg = (tid >> 7).named("wg");
  Reg m0 = (b.special(ir::Special::ctaid_y, "cta_y") << 7).named("m0");
  // n0 = cta_x · bn: a shift for a power of two (cta_x << 8 as it ships).
  Reg cta_x = b.special(ir::Special::ctaid_x, "cta_x");
  Reg n0 = ((bn & (bn - 1)) == 0 ? cta_x << log2_exact(bn) : cta_x * bn).named("n0");
  tma_ring::init_ring(b, ring, tid, 128 * kConsumers);  // empty[s]: every thread of both consumers
  const uint32_t k_blocks = hopper::ceil_div(K, kBK);

  b.comment("warpgroup 0 produces; it needs few registers and gives the rest back");
  b.if_((wg == 0).named("producer_wg"), [&] {
    b.role(ir::WarpRole::producer, [&] {
      b.setmaxnreg(false, kProducerRegs);
      b.if_((tid == 0).named("producer"), [&] {
        Reg tmA = b.tensor_map_address(tmap_a, "tmA");
        Reg tmB = b.tensor_map_address(tmap_b, "tmB");
        Reg stage = b.mov(Type::u32, 0, "stage");
        Reg phase = b.mov(Type::u32, 0, "phase");
        b.k_loop("kb_load", k_blocks,
               [&](const Reg& kb) { tma_ring::produce_k_block(b, ring, stage, phase, tmA, tmB, kb, m0, n0); });
      });
    });
  });

  b.comment(fmt::format("warpgroups 1 and 2 consume: each owns 64 rows of the 128x{} tile", bn));
  b.if_((wg != 0).named("consumer_wg"), [&] {
    b.role(ir::WarpRole::consumer, [&] {
      // Mistake register-overcommit: 24 + 248 + 248 = 520 > 504 registers per thread-row.
      b.setmaxnreg(true, cfg.has("register-overcommit") ? kConsumerRegs + 8 : kConsumerRegs);
      Reg slab = (wg - 1).named("consumer");
      Reg slab_off = (slab * kSlabBytes).named("slab_off");
      const std::vector<std::vector<Reg>> acc = {hopper::accumulators(b, bn, "acc")};
      const hopper::RingDescriptors descriptors = hopper::ring_descriptors(b, ring, acc.size(), slab_off);
      Reg stage = b.mov(Type::u32, 0, "stage");
      Reg phase = b.mov(Type::u32, 0, "phase");
      b.k_loop("kb", k_blocks, [&](const Reg& kb) {
        hopper::consume_k_block(b, ring, descriptors, stage, phase, bn, acc, kb);
        b.mbarrier_arrive(ring.empty_at(stage));
        tma_ring::next_stage(b, stage, phase, stages);
      });
      b.role(ir::WarpRole::epilogue, [&] {
        Reg wg_thread = (tid & 127).named("wg_thread");
        Reg C = b.global_ptr(pc, "C_ptr");
        hopper::store_tile_clipped(b, acc[0], bn, C, wg_thread, (m0 + (slab << 6)).named("row0"), n0, M, N);
      });
    });
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo hopper_two_consumers_info() {
  KernelInfo k;
  hopper::set_hopper_info(k, kId, {kBM, kShippedBN, kBK});
  k.title = "Hopper 128x256 tile, two consumer warpgroups, setmaxnreg";
  k.delta = "a 128x256 tile shared by two consumer warpgroups (m64n256k16 each); setmaxnreg moves registers from "
            "the producer (24) to the consumers (240)";
  k.explanation =
      "Three warpgroups: one producer and two consumers. Each consumer owns 64 rows of a 128x256 tile and "
      "issues one wgmma.m64n256k16 per k16 step, the largest wgmma, which keeps the tensor cores busy for "
      "128 clocks per instruction; its 64x256 f32 accumulators take 128 registers per thread. ptxas gives "
      "each of the 384 threads 168 registers at entry. The producer, which only issues TMA loads, lowers its "
      "limit to 24 with setmaxnreg.dec; the consumers raise theirs to 240 with setmaxnreg.inc, which waits "
      "until the producer's registers are back in the pool: 24 + 240 + 240 = 504 = 3 x 168, exactly the "
      "CTA's registers. The ring has three stages of 48 KiB (a fourth measured slower), and a stage is released when both consumers "
      "(256 threads) have arrived on its empty barrier. The tile's N is a build parameter, bn (64, 128, 192 or "
      "256): a narrower tile issues narrower wgmmas and needs smaller stages (16 + bn/8 KiB), so more of them fit "
      "in shared memory; the sweep compares them (`gemmscope sweep hopper_two_consumers --param bn=128,256 --param "
      "stages=2,3,4,5`).";
  k.example_shape = {256, 512, 512};  // 8 K-blocks: the 3-stage ring wraps twice
  hopper::declare_tile_n(k, {.bn_default = kShippedBN, .stages_default = 3, .a_bytes = kABytes}, {});
  k.mistakes = {
      {"register-overcommit", "the consumers ask setmaxnreg.inc for 248 registers per thread instead of 240",
       "24 + 248 + 248 = 520 registers per thread-row is more than the CTA's 3 x 168: a consumer warp waits in "
       "setmaxnreg.inc forever, its stage is never released, and the whole CTA deadlocks (the GPU hangs)"},
  };
  k.cta_tile = [](const GemmShape& s, const GemmShape& tile, const std::array<uint32_t, 3>& cta) {
    return tile_of_block(s, tile, cta[1], cta[0]);
  };
  // Where this step's lesson shows: two consumer warpgroups share the ring.
  k.focus_views = {"warps", "timeline", "tma"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_tma_load}, {StopKind::more_registers}, {StopKind::first_wgmma}, {StopKind::ring_wraps},
              {StopKind::pipeline_drains}};
  k.pictures = {"wgmma-acc --n 256", "timeline"};
  k.build = build_hopper_two_consumers;
  return k;
}

}  // namespace gs::kernels
