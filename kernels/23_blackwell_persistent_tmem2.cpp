// Step 23 — Blackwell: a persistent tcgen05 kernel with two accumulators in tensor memory.
//
// What it teaches: in step 21 a CTA computes one tile, so while its four epilogue warps drain the
// accumulator from TMEM and store it, the tensor core has nothing to do. Here one CTA per SM
// walks many tiles (as the Hopper step 15 did), and the accumulator is double-buffered: TMEM has
// 512 columns, enough for two 128x256 f32 accumulators, so the MMA thread accumulates tile i+1 in
// one buffer while the epilogue warps drain tile i from the other. The two buffers are a ring of
// two stages, handed back and forth with a pair of mbarriers each, exactly as the shared-memory
// stages are handed between the TMA thread and the MMA thread:
//   tmem_full[b]   the MMA thread's last tcgen05.commit of a tile arrives on it (one arrival):
//                  buffer b holds a finished accumulator, the epilogue may read it;
//   tmem_empty[b]  every epilogue thread arrives on it after its last tcgen05.ld of the buffer
//                  (128 arrivals): the MMA thread may overwrite buffer b.
// Each side keeps a position (acc, acc_phase) in this ring of two, advanced with the ring's own
// next_stage: acc counts 0, 1, 0, 1, ... and acc_phase flips each time acc wraps to 0, because
// buffer b's barriers complete one phase every second tile, not every tile. The MMA thread waits
// on tmem_empty[acc] with parity acc_phase ^ 1 (a fresh barrier passes it: both buffers start
// free), the epilogue on tmem_full[acc] with parity acc_phase.
//
// Phases, as the code runs them:
//   launch       min(ctas, tiles) CTAs (build parameter "ctas", 148: one per SM of a B200); CTA c
//                takes tiles c, c + ctas, c + 2·ctas, ... of the grouped tile order (step 15);
//   barriers     the ring's full/empty per stage, tmem_full[2] and tmem_empty[2]; warp 5
//                allocates all 512 TMEM columns (two accumulators of 256);
//   TMA warp     (warp 4) one thread walks the tiles and their K-blocks, filling the 4-stage ring
//                as in step 21; stage and phase run on across tiles;
//   MMA warp     (warp 5) one elected thread, per tile: wait tmem_empty[acc], then the K loop of
//                step 21 into the columns acc·256 .. acc·256+255, then tcgen05.commit to
//                tmem_full[acc], and on to the next buffer;
//   epilogue     (warps 0-3) per tile: wait tmem_full[acc], drain the buffer (warp w its lane
//                quarter, rows 32w..), clipped at C's edges, then tcgen05.fence::before_thread_sync
//                and arrive on tmem_empty[acc];
//   end          bar.sync, and warp 5 frees the 512 columns.
// While the epilogue drains tile i, the MMA thread is already accumulating tile i+1 in the other
// buffer: the Timeline shows the epilogue's stores under the next tile's MMAs, and the Tensor
// memory view shows the two buffers and who holds each.
//
// What changed from step 21: a persistent grid and tile loops around each role's work (step 15's
// walk), 512 TMEM columns as two accumulators, the barriers tmem_full[2] / tmem_empty[2] with a
// phase per buffer (tmem_full was one barrier waited on once), the epilogue's release of a
// buffer, and stores clipped at C's edges, so any M, N, K that are multiples of 8 run (step 20's
// clipping, now blackwell::drain_accumulator_clipped in tcgen05_parts.cpp).
#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/hopper_parts.hpp"
#include "kernels/registry.hpp"
#include "kernels/tcgen05_parts.hpp"
#include "kernels/tile_order.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::CtaGroup;
using builder::Reg;
using tma_ring::kBK;
using ir::Type;
using layout::Swizzle;

namespace {

constexpr std::string_view kId = "blackwell_persistent_tmem2";

constexpr uint32_t kBM = 128, kBN = 256;
constexpr uint32_t kStages = 4;
constexpr uint32_t kThreads = 6 * 32;     // warps 0-3 epilogue, 4 TMA, 5 MMA
constexpr uint32_t kTmaWarp = 4, kMmaWarp = 5;
constexpr uint32_t kAccumulators = 2;     // the ring of accumulators in TMEM
constexpr uint32_t kTmemColumns = kAccumulators * kBN;  // 512: all of TMEM's columns
constexpr uint32_t kEpilogueThreads = 4 * 32;           // tmem_empty's arrivals: every epilogue thread
constexpr uint32_t kABytes = kBM * kBK * 2, kBBytes = kBN * kBK * 2;  // 16 + 32 KiB per stage
constexpr uint32_t kGroupM = 16;          // tile-rows per group of the tile order (step 15)

// The deliberate mistakes, each with what it changes (the registry entry says the symptom).
constexpr const char* kReuseBeforeRelease = "reuse-before-release";  // no wait on tmem_empty[acc]
constexpr const char* kPhasePerTile = "phase-flips-every-tile";      // the MMA thread's parity flips per tile

ir::Kernel build_blackwell_persistent_tmem2(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  Builder b(std::string(kId), ir::Arch::sm_100a);
  const uint32_t tiles_m = hopper::ceil_div(M, kBM), tiles_n = hopper::ceil_div(N, kBN);
  const uint32_t tiles = tiles_m * tiles_n, ctas = std::min(cfg.param("ctas"), tiles);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {kThreads, 1, 1}});
  // One CTA per SM by design: without .minnctapersm 1 ptxas 13.0 capped the kernel at 64
  // registers and spilled 32 bytes (-v); with it, 118 registers and no spill.
  b.set_min_ctas_per_sm(1);
  b.declare_tile_walk(tile_order::walk(tile_order::Order::grouped, tiles_m, tiles_n, kGroupM, ctas, 1, tiles_m));

  // Boxes past A's and B's edges (M, N or K not whole tiles) are zero-filled by the copy engine.
  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, kBM, Swizzle::b128));
  auto tmap_b = b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, kBN, Swizzle::b128));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const tma_ring::Ring ring = tma_ring::declare_ring(b, kStages, kABytes, kBBytes);
  const builder::Smem tmem_full = b.mbarriers("tmem_full", ir::BarrierRole::other, kAccumulators);
  const builder::Smem tmem_empty = b.mbarriers("tmem_empty", ir::BarrierRole::other, kAccumulators);
  const builder::Smem tmem_slot = b.shared("tmem_slot", 4, 16, ir::SmemUse::other);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg warp = (tid >> 5).named("warp");
  Reg lane = (tid & 31).named("lane");
  Reg cta = b.special(ir::Special::ctaid_x, "cta");
  // This CTA's tiles: cta, cta + ctas, ... below `tiles` (at least one: ctas <= tiles).
  Reg my_tiles = ((b.mov(Type::u32, tiles + ctas - 1, "tiles_rounded") - cta) / ctas).named("my_tiles");
  const auto tile_corner = [&](const Reg& i) {
    return tile_order::tile_corner(b, tile_order::Order::grouped, (cta + i * ctas).named("tile"), tiles_m, tiles_n,
                                   kGroupM, kBM, kBN);
  };
  const uint32_t k_blocks = hopper::ceil_div(K, kBK);

  // tmem_full[b]: one arrival, the tile's last commit; tmem_empty[b]: every epilogue thread.
  // init_ring's fence.mbarrier_init covers these inits too.
  b.if_((tid == 0).named("init_thread"), [&] {
    for (uint32_t a = 0; a < kAccumulators; ++a) {
      b.mbarrier_init(tmem_full.at(8 * a), 1);
      b.mbarrier_init(tmem_empty.at(8 * a), kEpilogueThreads);
    }
  });
  tma_ring::init_ring(b, ring, tid, 1);
  Reg tmem_full_base = b.smem_address(tmem_full, 0, "tmem_full_base");
  Reg tmem_empty_base = b.smem_address(tmem_empty, 0, "tmem_empty_base");
  const auto full_of = [&](const Reg& acc) { return Addr::at((tmem_full_base + (acc << 3)).named("tmem_full_acc")); };
  const auto empty_of = [&](const Reg& acc) { return Addr::at((tmem_empty_base + (acc << 3)).named("tmem_empty_acc")); };
  Reg mma_warp = (warp == kMmaWarp).named("mma_warp");
  Reg tmem = blackwell::allocate_tmem(b, tmem_slot, mma_warp, kTmemColumns, CtaGroup::one);

  b.comment("warp 4: one thread fills the ring, tile after tile");
  b.if_((tid == kTmaWarp * 32).named("tma_thread"), [&] {
    b.role(ir::WarpRole::producer, [&] {
      Reg tmA = b.tensor_map_address(tmap_a, "tmA");
      Reg tmB = b.tensor_map_address(tmap_b, "tmB");
      Reg stage = b.mov(Type::u32, 0, "stage");
      Reg phase = b.mov(Type::u32, 0, "phase");
      b.loop("tile_load", my_tiles, [&](const Reg& i) {
        const hopper::TileCorner at = tile_corner(i);
        b.k_loop("kb_load", k_blocks, [&](const Reg& kb) {
          tma_ring::produce_k_block(b, ring, stage, phase, tmA, tmB, kb, at.m0, at.n0);
        });
      });
    });
  });

  b.comment("warp 5: one elected thread accumulates each tile in the buffer the epilogue gave back");
  b.if_(mma_warp, [&] {
    b.role(ir::WarpRole::mma_issuer, [&] {
      Reg elected = b.elect_sync("mma_thread");
      b.if_(elected, [&] {
        const layout::UmmaSmemDescriptor sw128 =
            layout::umma_descriptor_from(layout::kmajor_tile_descriptor(0, Swizzle::b128));
        Reg idesc = b.tmem_instr_descriptor({.m = kBM, .n = kBN}, "idesc");
        Reg always = b.mov(Type::pred, 1, "always");
        Reg stage = b.mov(Type::u32, 0, "stage");
        Reg phase = b.mov(Type::u32, 0, "phase");
        Reg acc = b.mov(Type::u32, 0, "acc");              // which accumulator: 0, 1, 0, 1, ...
        Reg acc_phase = b.mov(Type::u32, 0, "acc_phase");  // flips when acc wraps to 0
        b.loop("tile", my_tiles, [&](const Reg& i) {
          (void)i;
          // Mistake reuse-before-release: no wait, the buffer may still be being drained.
          if (!cfg.has(kReuseBeforeRelease)) {
            b.comment("wait until the epilogue released buffer acc (a fresh barrier passes parity 1)");
            b.mbarrier_wait(empty_of(acc), acc_phase ^ 1);
          }
          b.tcgen05_fence_after_thread_sync();
          // [d] of tcgen05.mma: a .b32 register, columns acc·256 .. of the allocation.
          Reg d_tmem = b.mov(Type::b32, (tmem + acc * kBN).named("acc_columns"), "d_tmem");
          b.k_loop("kb", k_blocks, [&](const Reg& kb) {
            b.mbarrier_wait(ring.full_at(stage), phase);
            b.tcgen05_fence_after_thread_sync();
            Reg a_desc = b.umma_descriptor(ring.a_at(stage), sw128, "a_desc");
            Reg b_desc = b.umma_descriptor(ring.b_at(stage), sw128, "b_desc");
            blackwell::mma_k_block(b, d_tmem, a_desc, b_desc, idesc, (kb != 0).named("accumulate"), always, CtaGroup::one);
            b.tcgen05_commit(ring.empty_at(stage));
            tma_ring::next_stage(b, stage, phase, kStages);
          });
          b.comment("the tensor core arrives on tmem_full[acc] when the tile's MMAs are done");
          b.tcgen05_commit(full_of(acc));
          // Mistake phase-flips-every-tile: the parity flips at every tile, as if there were
          // one buffer, instead of when acc wraps to 0.
          if (cfg.has(kPhasePerTile)) {
            acc ^= 1;
            acc_phase ^= 1;
          } else {
            tma_ring::next_stage(b, acc, acc_phase, kAccumulators);
          }
        });
      });
    });
  });

  b.comment("warps 0-3: drain each finished accumulator, one quarter of TMEM's lanes each, and give it back");
  b.if_((warp < 4).named("epilogue_warp"), [&] {
    b.role(ir::WarpRole::epilogue, [&] {
      Reg C = b.global_ptr(pc, "C_ptr");
      Reg acc = b.mov(Type::u32, 0, "acc");
      Reg acc_phase = b.mov(Type::u32, 0, "acc_phase");
      b.loop("tile_store", my_tiles, [&](const Reg& i) {
        const hopper::TileCorner at = tile_corner(i);
        b.mbarrier_wait(full_of(acc), acc_phase);
        b.tcgen05_fence_after_thread_sync();
        Reg acc_tmem = (tmem + acc * kBN).named("acc_tmem");
        // (T128, V256) -> (M128, N256): thread 32w + l holds row 32w + l, register j column j.
        blackwell::drain_accumulator_clipped(b, acc_tmem, lane, (warp << 5).named("lane0"), kBN, C,
                                             (at.m0 + (warp << 5)).named("row0"), at.n0, M, N);
        b.comment("every tcgen05.ld of this thread is done: give the buffer back to the MMA thread");
        b.tcgen05_fence_before_thread_sync();
        b.mbarrier_arrive(empty_of(acc));
        tma_ring::next_stage(b, acc, acc_phase, kAccumulators);
      });
    });
  });

  b.comment("everyone is done with TMEM before the allocating warp frees it");
  b.bar_sync(0);
  b.if_(mma_warp, [&] {
    b.tcgen05_fence_after_thread_sync();
    b.tcgen05_dealloc(tmem, kTmemColumns);
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo blackwell_persistent_tmem2_info() {
  KernelInfo k;
  blackwell::set_blackwell_info(k, kId, {kBM, kBN, kBK});
  k.title = "Blackwell persistent grid, two accumulators in tensor memory";
  k.delta = "one CTA per SM walks the tiles; 512 TMEM columns hold two 128x256 accumulators, so the epilogue drains "
            "tile i while the MMA thread accumulates tile i+1 (tmem_full[2] / tmem_empty[2], a phase per buffer)";
  k.explanation =
      "The three roles of the previous step, launched once per SM instead of once per tile: each CTA walks tiles "
      "c, c+148, c+296, ... in the grouped order. Warp 5 allocates all 512 columns of tensor memory as two "
      "accumulators of 256 columns. The MMA thread accumulates a tile in buffer acc, commits to tmem_full[acc] and "
      "goes straight on to the next tile in the other buffer, once the epilogue has given that buffer back. The "
      "four epilogue warps wait on tmem_full[acc], drain the buffer with tcgen05.ld and store it, and every "
      "epilogue thread then arrives on tmem_empty[acc]. The two buffers form a ring of two: each side's buffer "
      "index goes 0, 1, 0, 1 and its parity flips when the index wraps, since each buffer's barriers complete "
      "once every second tile. So the epilogue's stores of one tile run under the next tile's MMAs, and the "
      "tensor core no longer waits for the epilogue.";
  // 37 x 12 = 444 tiles = 3 per CTA on 148 CTAs: every CTA uses buffer 0, buffer 1, and buffer 0
  // again. K 512: 8 K-blocks a tile (its ring of 4 stages wraps twice a tile), so the next tile's
  // MMAs run longer than the gap between the epilogue's loads, and the Tensor-memory view shows
  // one buffer read while the other fills (at K 128, two K-blocks a tile, that overlap came and
  // went with a few cycles of the model's mbarrier wake).
  k.example_shape = {4736, 3072, 512};
  k.constraints = hopper::edge_shape_constraints();
  k.check_shape = [](const GemmShape& s, const GemmShape&) { hopper::check_edge_shape(kId, s); };
  k.params = {{"ctas",
               "persistent CTAs in the grid: 148 is one per SM of a B200 (NVIDIA's figure, unconfirmed); fewer give "
               "each CTA more tiles",
               148,
               {16, 32, 64, 128, 148}}};
  k.mistakes = {
      {kReuseBeforeRelease, "the MMA thread does not wait on tmem_empty[acc] before accumulating into buffer acc",
       "the MMA thread overwrites an accumulator the epilogue warps are still reading: a tmem-race names the "
       "tcgen05.mma and the warps whose tcgen05.ld it overtook, and C gets rows of the next tile"},
      {kPhasePerTile, "the MMA thread's tmem_empty parity flips at every tile instead of when the buffer index wraps",
       "the second tile waits on tmem_empty[1] for a phase that completes only after the epilogue drained buffer 1, "
       "which the MMA thread has not filled yet: a deadlock (each buffer's barriers complete once every second "
       "tile, so each buffer needs its own phase)"},
  };
  // No cta_tile: a CTA writes several tiles of C (opening it generates all of A and B).
  // Where this step's lesson shows: two accumulators in TMEM, the epilogue under the next MMAs.
  k.focus_views = {"tmem", "timeline", "schedule"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  // (The TMA thread starts the next tile's loads before the first stage has even landed.)
  k.stops = {{StopKind::next_tile}, {StopKind::tcgen05_mma}, {StopKind::tmem_read}, {StopKind::pipeline_drains}};
  k.pictures = {"tmem", "timeline"};
  k.build = build_blackwell_persistent_tmem2;
  return k;
}

}  // namespace gs::kernels
