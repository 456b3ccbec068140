// Step 15 — Hopper: a persistent grid (fast.cu's matmul_6).
//
// What it teaches: launching one CTA per SM and letting each walk many tiles. Step 14 launches
// one CTA per tile: every CTA pays for its prologue (barrier init, the first loads landing
// before any math) and its epilogue (128 KiB of stores with the tensor cores idle), and the
// last wave leaves SMs empty. Here 128 CTAs (build parameter "ctas"; fast.cu found 128 faster than all 132
// SMs: 2048 tiles of 128×256 at 8192² are exactly 16 per CTA) each take tiles
// cta, cta + grid, cta + 2·grid, ... The ring of stages and its phases run on across tiles, so
// while the consumers store tile i, the producer is already loading tile i+1's first K-blocks:
// the epilogue overlaps the next loads.
//
// Tile order: consecutive tile numbers are handed to CTAs that run at the same time, so the
// order decides which A rows and B columns a wave shares in L2. Tiles go in groups of kGroupM
// tile-rows: inside a group column by column, each column of kGroupM tiles sharing one B
// panel, and the ~128 tiles of a wave cover a compact block of C (a grouped, "swizzled"
// order; facts §11). For any tiles_m, tiles_n (the last group may be shorter):
//   group = t / (kGroupM·tiles_n), rows = min(kGroupM, tiles_m − kGroupM·group),
//   p = t mod (kGroupM·tiles_n), tile_m = kGroupM·group + p mod rows, tile_n = p / rows.
//
// What changed from step 14: the grid (min(128, tiles) CTAs), the tile loops around both the
// producer's and the consumers' K loops, the tile-order arithmetic, and stage/phase that are
// no longer reset per tile.
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

constexpr std::string_view kId = "hopper_persistent";

constexpr uint32_t kBM = 128;
constexpr uint32_t kShippedBN = 256;  // the tile's N as it ships: the build parameter bn's default
constexpr uint32_t kConsumers = 2;
constexpr uint32_t kThreads = 128 * (1 + kConsumers);
constexpr uint32_t kABytes = kBM * kBK * 2;  // 16 KiB per stage (B: hopper::b_tile_bytes(bn), 32 KiB at 256)
constexpr uint32_t kSlabBytes = 64 * kBK * 2;                         // one consumer's rows of A
constexpr uint32_t kProducerRegs = 24, kConsumerRegs = 240;
constexpr uint32_t kGroupM = 16;  // tile-rows per group of the tile order

ir::Kernel build_hopper_persistent(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const uint32_t stages = cfg.param("stages");
  const uint32_t bn = cfg.param("bn");  // the tile's N: 256 as it ships
  const auto order = tile_order::Order(cfg.param("order"));
  Builder b(std::string(kId), ir::Arch::sm_90a);
  const uint32_t tiles_m = hopper::ceil_div(M, kBM), tiles_n = hopper::ceil_div(N, bn);
  const uint32_t tiles = tiles_m * tiles_n, ctas = std::min(cfg.param("ctas"), tiles);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {kThreads, 1, 1}});
  b.set_min_ctas_per_sm(1);  // with .maxntid: ptxas fixes the count at entry, so setmaxnreg takes effect
  if (!cfg.has("tile-stride-off-by-one"))  // the walk it means: the mistake walks another
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
  // Mistake tile-stride-off-by-one: the walk steps by ctas + 1 and skips tiles.
  const uint32_t stride = cfg.has("tile-stride-off-by-one") ? ctas + 1 : ctas;
  Reg my_tiles = ((b.mov(Type::u32, tiles + stride - 1, "tiles_rounded") - cta) / stride).named("my_tiles");
  const auto tile_corner = [&](const Reg& i) {
    return tile_order::tile_corner(b, order, (cta + i * stride).named("tile"), tiles_m, tiles_n, kGroupM, kBM, bn);
  };
  tma_ring::init_ring(b, ring, tid, 128 * kConsumers);
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
              b.mbarrier_wait(ring.empty_at(stage), phase ^ 1);
              tile_order::publish_corner(b, handoff, stage, kb, at);
            }
            tma_ring::produce_k_block(b, ring, stage, phase, tmA, tmB, kb, at.m0, at.n0, {.wait_empty = !handoff.used});
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
      Reg stage = b.mov(Type::u32, 0, "stage");
      Reg phase = b.mov(Type::u32, 0, "phase");
      Reg wg_thread = (tid & 127).named("wg_thread");
      Reg C = b.global_ptr(pc, "C_ptr");
      tile_order::consumer_corner_registers(b, handoff);
      b.loop("tile", my_tiles, [&](const Reg& i) {
        const hopper::TileCorner at = handoff.used ? handoff.received : tile_corner(i);
        b.k_loop("kb", k_blocks, [&](const Reg& kb) {
          hopper::consume_k_block(b, ring, descriptors, stage, phase, bn, acc, kb);
          tile_order::receive_corner(b, handoff, stage, kb);
          b.mbarrier_arrive(ring.empty_at(stage));
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

KernelInfo hopper_persistent_info() {
  KernelInfo k;
  hopper::set_hopper_info(k, kId, {kBM, kShippedBN, kBK});
  k.title = "Hopper persistent grid, grouped tile order";
  k.delta = "a persistent grid: 128 CTAs walk the 128x256 tiles in a grouped order; the ring runs on across "
            "tiles, so one tile's epilogue overlaps the next tile's loads";
  k.explanation =
      "The same three warpgroups as the previous step, launched once per SM instead of once per tile. CTA c "
      "computes tiles c, c+128, c+256, ... of C, numbered in a grouped order: sixteen tile-rows at a time, "
      "column by column, so the tiles that run at the same moment share their rows of A and columns of B in "
      "L2. The producer does not stop at the end of a tile: it goes on filling the ring with the next tile's "
      "K-blocks while the consumers store their accumulators, so the stores no longer leave the copy engine "
      "idle, and the prologue (barrier set-up, the first loads) is paid once per SM, not once per tile.";
  // 43 x 3 = 129 tiles over 128 CTAs: the smallest kind of shape where a CTA walks more than
  // one tile (CTA 0 takes tiles 0 and 128); K = 16, a single zero-filled K-block, keeps the
  // model run short. The last group of the tile order has 11 tile-rows.
  k.example_shape = {5504, 768, 16};
  hopper::declare_tile_n(k, {.bn_default = kShippedBN, .stages_default = 3, .a_bytes = kABytes},
                         {persistent_ctas_param(), tile_order::order_param(tile_order::Order::grouped)});
  k.mistakes = {
      {"tile-stride-off-by-one", "each CTA steps through the tiles by (CTAs + 1) instead of the number of CTAs",
       "some tiles are never computed: their part of C is never written (wrong C; the schedule shows the holes)"},
  };
  // No cta_tile: a CTA writes several tiles of C (opening it generates all of A and B).
  // Where this step's lesson shows: persistent CTAs walking many tiles.
  k.focus_views = {"schedule", "timeline", "tma"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_tma_load}, {StopKind::ring_wraps}, {StopKind::next_tile}, {StopKind::pipeline_drains}};
  k.pictures = {"schedule", "timeline"};
  k.build = build_hopper_persistent;
  return k;
}

}  // namespace gs::kernels
