// Step 16 — Hopper: the mbarrier protocol with the fewest arrivals (fast.cu's matmul_7).
//
// What it teaches: what a barrier costs. In step 15 every one of the 256 consumer threads
// arrives on a stage's empty barrier: 8 warp-instructions that each update the barrier in
// shared memory 32 times over. The producer needs to know only that every consumer warp is
// done with the stage, so one lane per warp is enough: elect.sync picks it (the lowest running
// lane; the same lane every time, so it is elected once, before the loop), and the empty
// barriers expect 8 arrivals (2 consumer warpgroups × 4 warps) instead of 256.
// Why not one arrival per warpgroup, as fast.cu does? wgmma.wait_group waits for the groups of
// the executing thread (PTX ISA), so a lane of warp 0 knows that warp 0's share of the wgmma
// is done, not that warp 3 has even issued its own: one arrival per warp is the fewest the
// PTX ISA's wording makes safe.
// Every wait is now try_wait with a suspend-time hint: a thread whose phase is not complete
// may be suspended for up to kSuspendHintNs before the loop retries, instead of a
// system-dependent limit, so waiting warps do not keep issuing try_wait.
//
// What changed from step 15: elect.sync once per consumer warp, the elected lane arrives on
// empty[s], the empty barriers' count (8), and the hint on every mbarrier wait.
//
// The tile's N is the build parameter bn, as in step 14 (hopper::declare_tile_n).
#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/hopper_parts.hpp"
#include "kernels/tile_order.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels {

using builder::Builder;
using builder::Reg;
using tma_ring::kBK;
using ir::Type;
using layout::Swizzle;

namespace {

constexpr std::string_view kId = "hopper_fewer_arrivals";

constexpr uint32_t kBM = 128;
constexpr uint32_t kShippedBN = 256;  // the tile's N as it ships: the build parameter bn's default
constexpr uint32_t kConsumers = 2;
constexpr uint32_t kThreads = 128 * (1 + kConsumers);
constexpr uint32_t kABytes = kBM * kBK * 2;  // 16 KiB per stage (B: hopper::b_tile_bytes(bn), 32 KiB at 256)
constexpr uint32_t kSlabBytes = 64 * kBK * 2;                         // one consumer's rows of A
constexpr uint32_t kProducerRegs = 24, kConsumerRegs = 240;
constexpr uint32_t kGroupM = 16;  // tile-rows per group of the tile order
constexpr uint32_t kEmptyArrivals = 4 * kConsumers;  // one elected lane per consumer warp
constexpr uint32_t kSuspendHintNs = 10'000'000;      // the try_wait suspend-time hint (ns)

ir::Kernel build_hopper_fewer_arrivals(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const uint32_t stages = cfg.param("stages");
  const uint32_t bn = cfg.param("bn");  // the tile's N: 256 as it ships
  const auto order = tile_order::Order(cfg.param("order"));
  Builder b(std::string(kId), ir::Arch::sm_90a);
  const uint32_t tiles_m = hopper::ceil_div(M, kBM), tiles_n = hopper::ceil_div(N, bn);
  const uint32_t tiles = tiles_m * tiles_n, ctas = std::min(cfg.param("ctas"), tiles);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {kThreads, 1, 1}});
  b.set_min_ctas_per_sm(1);  // with .maxntid: ptxas fixes the count at entry, so setmaxnreg takes effect
  b.declare_tile_walk(tile_order::walk(order, tiles_m, tiles_n, kGroupM, ctas, 1, tiles_m));

  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, kBM, Swizzle::b128));
  auto tmap_b = b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, bn, Swizzle::b128));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const tma_ring::Ring ring = tma_ring::declare_ring(b, stages, kABytes, hopper::b_tile_bytes(bn));
  tile_order::CornerHandoff handoff = tile_order::corner_handoff(b, order, stages);  // Hilbert: producer -> consumers

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg wg = (tid >> 7).named("wg");
  Reg cta = b.special(ir::Special::ctaid_x, "cta");
  // This CTA's tiles: cta, cta + stride, ... below `tiles` (at least one: ctas <= tiles).
  const uint32_t stride = ctas;
  Reg my_tiles = ((b.mov(Type::u32, tiles + stride - 1, "tiles_rounded") - cta) / stride).named("my_tiles");
  const auto tile_corner = [&](const Reg& i) {
    return tile_order::tile_corner(b, order, (cta + i * stride).named("tile"), tiles_m, tiles_n, kGroupM, kBM, bn);
  };
  // Mistake arrival-count-mismatch: the count of step 15 (every consumer thread) stays.
  tma_ring::init_ring(b, ring, tid, cfg.has("arrival-count-mismatch") ? 128 * kConsumers : kEmptyArrivals);
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
        b.loop("tile_load", my_tiles, [&](const Reg& i) {
          const hopper::TileCorner at = tile_corner(i);
          b.k_loop("kb_load", k_blocks, [&](const Reg& kb) {
            if (handoff.used) {  // the wait produce_k_block does, then the corner before the arrive
              b.mbarrier_wait(ring.empty_at(stage), phase ^ 1, kSuspendHintNs);
              tile_order::publish_corner(b, handoff, stage, kb, at);
            }
            tma_ring::produce_k_block(b, ring, stage, phase, tmA, tmB, kb, at.m0, at.n0,
                                    {.wait_empty = !handoff.used, .suspend_hint_ns = kSuspendHintNs});
          });
        });
      });
    });
  });

  b.comment(fmt::format("warpgroups 1 and 2 consume: each owns 64 rows of every 128x{} tile", bn));
  b.if_((wg != 0).named("consumer_wg"), [&] {
    b.role(ir::WarpRole::consumer, [&] {
      b.setmaxnreg(true, kConsumerRegs);
      Reg slab = (wg - 1).named("consumer");
      Reg slab_off = (slab * kSlabBytes).named("slab_off");
      const std::vector<std::vector<Reg>> acc = {hopper::accumulators(b, bn, "acc")};
      const hopper::RingDescriptors descriptors = hopper::ring_descriptors(b, ring, acc.size(), slab_off);
      Reg elected = b.elect_sync("elected");  // this warp's one arriving lane
      Reg stage = b.mov(Type::u32, 0, "stage");
      Reg phase = b.mov(Type::u32, 0, "phase");
      Reg wg_thread = (tid & 127).named("wg_thread");
      Reg C = b.global_ptr(pc, "C_ptr");
      tile_order::consumer_corner_registers(b, handoff);
      b.loop("tile", my_tiles, [&](const Reg& i) {
        const hopper::TileCorner at = handoff.used ? handoff.received : tile_corner(i);
        b.k_loop("kb", k_blocks, [&](const Reg& kb) {
          hopper::consume_k_block(b, ring, descriptors, stage, phase, bn, acc, kb, kSuspendHintNs);
          tile_order::receive_corner(b, handoff, stage, kb);
          b.if_(elected, [&] { b.mbarrier_arrive(ring.empty_at(stage)); });  // 1 of the 8 arrivals
          tma_ring::next_stage(b, stage, phase, stages);
        });
        b.role(ir::WarpRole::epilogue, [&] {
          b.comment("the producer is already loading the next tile while this one is stored");
          hopper::store_tile_clipped(b, acc[0], bn, C, wg_thread, (at.m0 + (slab << 6)).named("row0"), at.n0, M, N);
        });
      });
    });
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo hopper_fewer_arrivals_info() {
  KernelInfo k;
  hopper::set_hopper_info(k, kId, {kBM, kShippedBN, kBK});
  k.title = "Hopper persistent, fewest mbarrier arrivals";
  k.delta = "one elected lane per consumer warp arrives on the empty barrier (8 arrivals instead of 256), and "
            "every mbarrier wait carries a suspend-time hint";
  k.explanation =
      "The persistent kernel of the previous step with a cheaper barrier protocol. Releasing a stage needs "
      "only the news that each consumer warp has finished its wgmmas on it, not 256 separate arrivals: "
      "elect.sync picks one lane of each warp, that lane arrives, and the empty barriers are initialised to "
      "expect 8 arrivals (two consumer warpgroups of four warps). All waits use mbarrier.try_wait with a "
      "suspend-time hint, so a warp whose stage is not ready sleeps in the barrier instead of spinning "
      "through the retry loop.";
  // 8 K-blocks per tile: the 3-stage ring wraps, so the empty barriers' phases matter (the
  // persistent walk itself is step 15's example).
  k.example_shape = {256, 512, 512};
  hopper::declare_tile_n(k, {.bn_default = kShippedBN, .stages_default = 3, .a_bytes = kABytes},
                         {persistent_ctas_param(), tile_order::order_param(tile_order::Order::grouped)});
  k.mistakes = {
      {"arrival-count-mismatch", "the empty barriers still expect 256 arrivals while only 8 elected lanes arrive",
       "no stage is ever released: the producer waits on empty[0] forever after the first pass (a deadlock; the "
       "GPU hangs)"},
  };
  // No cta_tile: a CTA writes several tiles of C (opening it generates all of A and B).
  // Where this step's lesson shows: fewer arrivals on the empty barriers.
  k.focus_views = {"timeline", "warps", "diff"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_mbarrier_wait}, {StopKind::ring_wraps}, {StopKind::pipeline_drains}};
  k.pictures = {"timeline"};
  k.build = build_hopper_fewer_arrivals;
  return k;
}

}  // namespace gs::kernels
