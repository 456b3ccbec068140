// Step 25 — Blackwell: an overlapped TMA-store epilogue.
//
// What it teaches: step 23's epilogue threads store C themselves, eight st.global.v4 of 16 bytes
// a thread for every 32 columns, and they keep their accumulator buffer until the last store has
// left. Here they hand C to the copy engine, as the Hopper step 18 did, in sub-tiles of 128 rows
// x 32 columns (128 bytes of f32 a row: one row of the 128B swizzle):
//   tcgen05.ld -> registers -> st.shared.v4 into a 128B-swizzled staging buffer -> TMA store.
// Two staging buffers take turns, so the copy engine reads sub-tile s while the warps read
// sub-tile s+1 out of TMEM and write it into the other buffer. Three rules keep it correct:
//   * fence.proxy.async after the st.shared, then the barrier, then the store: the TMA store
//     reads through the async proxy (mistake missing-proxy-fence);
//   * before a buffer is written again, the issuing thread waits with
//     cp.async.bulk.wait_group.read 1 until the store that read it two sub-tiles ago is done
//     reading (mistake reuse-staging-before-wait);
//   * tmem_empty[acc] is arrived on right after tcgen05.wait::ld of the buffer's last sub-tile,
//     before that sub-tile is staged and stored, so the MMA thread's next tile starts while the
//     tile's last stores are still in flight; arriving before the wait would hand over columns a
//     load may not have read yet (mistake release-tmem-before-ld-wait).
//
// Phases, as the code runs them: launch, barriers, TMA warp and MMA warp are step 23's; the
// epilogue (warps 0-3), per tile: wait tmem_full[acc]; for sub-tile s = 0..7 through buffer s%2:
// each warp tcgen05.ld's its 32 rows x 32 columns and waits (after s = 7 every thread arrives on
// tmem_empty[acc]); the issuer (thread 0) waits until buffer s%2 is read, bar.sync 1; each thread
// writes its row, 8 x 16 bytes, piece p at p ^ (row%8); fence.proxy.async, bar.sync 1; the
// issuer stores the buffer to C at (m0, n0 + 32s), clipped at C's edges, and commits. After its
// last tile the issuer waits with wait_group.read 0.
//
// A delta of step 23, not 24: the static walk keeps the epilogue the only change (CLC would add
// its answer ring to every loop), and not of step 22: the CTA pair's epilogue is the same per CTA.
//
// What changed from step 23: C as a 128B-swizzled tensor map with 128-byte x 128-row boxes; two
// staging buffers of 16 KiB beside the 4 stages (224 KiB); the epilogue above instead of
// drain_accumulator_clipped; the TMA store clips at C's edges, so any M, N, K multiple of 8 runs.
// C's type is the build parameter c_dtype (step 18's): f32 by default; bf16 rounds each pair with
// cvt.rn.bf16x2.f32, so a 128-byte row holds 64 columns: 4 sub-tiles of 64 a tile, read with
// tcgen05.ld.32x32b.x64. The sub-tile loop (its code, with the three rules and the mistakes) is
// blackwell::store_accumulator in tcgen05_store_parts.cpp, which step 26 shares.
#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/hopper_parts.hpp"
#include "kernels/registry.hpp"
#include "kernels/tcgen05_parts.hpp"
#include "kernels/tcgen05_store_parts.hpp"
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

constexpr std::string_view kId = "blackwell_tma_store_epilogue";

constexpr uint32_t kBM = 128, kBN = 256;
constexpr uint32_t kStages = 4;
constexpr uint32_t kThreads = 6 * 32;     // warps 0-3 epilogue, 4 TMA, 5 MMA
constexpr uint32_t kTmaWarp = 4, kMmaWarp = 5;
constexpr uint32_t kAccumulators = 2;     // the ring of accumulators in TMEM (step 23)
constexpr uint32_t kTmemColumns = kAccumulators * kBN;
constexpr uint32_t kEpilogueThreads = 4 * 32;
constexpr uint32_t kABytes = kBM * kBK * 2, kBBytes = kBN * kBK * 2;
constexpr uint32_t kGroupM = 16;
constexpr uint32_t kStoreBarrier = 1;     // bar.sync id of the epilogue warps (0: the init's)

// The deliberate mistakes, each with what it changes (the registry entry says the symptom).
constexpr const char* kMissingProxyFence = "missing-proxy-fence";        // no fence.proxy.async
constexpr const char* kReuseBeforeWait = "reuse-staging-before-wait";    // no wait_group.read
constexpr const char* kReleaseBeforeWait = "release-tmem-before-ld-wait";  // arrive, then wait::ld

ir::Kernel build_blackwell_tma_store_epilogue(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const DType c_dtype = cfg.param("c_dtype") == 16 ? DType::bf16 : DType::f32;
  Builder b(std::string(kId), ir::Arch::sm_100a);
  const uint32_t tiles_m = hopper::ceil_div(M, kBM), tiles_n = hopper::ceil_div(N, kBN);
  const uint32_t tiles = tiles_m * tiles_n, ctas = std::min(cfg.param("ctas"), tiles);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {kThreads, 1, 1}});
  b.set_min_ctas_per_sm(1);  // one CTA per SM (step 23: without it ptxas caps the registers)
  b.declare_tile_walk(tile_order::walk(tile_order::Order::grouped, tiles_m, tiles_n, kGroupM, ctas, 1, tiles_m));

  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, kBM, Swizzle::b128));
  auto tmap_b = b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, kBN, Swizzle::b128));
  auto tmap_c = b.tensor_map_param("tmap_C", blackwell::c_store_map(M, N, c_dtype));
  const tma_ring::Ring ring = tma_ring::declare_ring(b, kStages, kABytes, kBBytes);
  // 1024-aligned: the 128B swizzle's pattern repeats every 1024 bytes from an aligned base.
  const builder::Smem sC = b.operand_stages("sC", ir::GemmOperand::c, blackwell::kStagingBuffers,
                                            blackwell::kStagingBytes, 1024, Swizzle::b128);
  const builder::Smem tmem_full = b.mbarriers("tmem_full", ir::BarrierRole::other, kAccumulators);
  const builder::Smem tmem_empty = b.mbarriers("tmem_empty", ir::BarrierRole::other, kAccumulators);
  const builder::Smem tmem_slot = b.shared("tmem_slot", 4, 16, ir::SmemUse::other);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg warp = (tid >> 5).named("warp");
  Reg lane = (tid & 31).named("lane");
  Reg cta = b.special(ir::Special::ctaid_x, "cta");
  Reg my_tiles = ((b.mov(Type::u32, tiles + ctas - 1, "tiles_rounded") - cta) / ctas).named("my_tiles");
  const auto tile_corner = [&](const Reg& i) {
    return tile_order::tile_corner(b, tile_order::Order::grouped, (cta + i * ctas).named("tile"), tiles_m, tiles_n,
                                   kGroupM, kBM, kBN);
  };
  const uint32_t k_blocks = hopper::ceil_div(K, kBK);

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

  b.comment("warp 4: one thread fills the ring, tile after tile (step 23)");
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

  b.comment("warp 5: one elected thread accumulates each tile in the buffer the epilogue gave back (step 23)");
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
        Reg acc = b.mov(Type::u32, 0, "acc");
        Reg acc_phase = b.mov(Type::u32, 0, "acc_phase");
        b.loop("tile", my_tiles, [&](const Reg& i) {
          (void)i;
          b.mbarrier_wait(empty_of(acc), acc_phase ^ 1);
          b.tcgen05_fence_after_thread_sync();
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
          b.tcgen05_commit(full_of(acc));
          tma_ring::next_stage(b, acc, acc_phase, kAccumulators);
        });
      });
    });
  });

  b.comment("warps 0-3: each finished accumulator goes to C in sub-tiles of 128-byte rows through two staging buffers");
  b.if_((warp < 4).named("epilogue_warp"), [&] {
    b.role(ir::WarpRole::epilogue, [&] {
      // The sub-tile loop the header describes, with its three rules, is blackwell::store_accumulator
      // (tcgen05_store_parts.cpp), which step 26 shares.
      const blackwell::TmaStoreEpilogue e = blackwell::tma_store_epilogue(
          b, tmap_c, sC, tid, warp, lane, tmem, c_dtype, kStoreBarrier,
          {.missing_proxy_fence = cfg.has(kMissingProxyFence), .reuse_before_wait = cfg.has(kReuseBeforeWait),
           .release_before_ld_wait = cfg.has(kReleaseBeforeWait)});
      Reg acc = b.mov(Type::u32, 0, "acc");
      Reg acc_phase = b.mov(Type::u32, 0, "acc_phase");
      b.loop("tile_store", my_tiles, [&](const Reg& i) {
        const hopper::TileCorner at = tile_corner(i);
        b.mbarrier_wait(full_of(acc), acc_phase);
        b.tcgen05_fence_after_thread_sync();
        Reg acc_tmem = (e.quarter + acc * kBN).named("acc_tmem");
        blackwell::store_accumulator(b, e, acc_tmem, kBN, at.m0, at.n0, [&] {
          b.comment("the buffer's last tcgen05.ld is done: give it back before its stores finish");
          b.tcgen05_fence_before_thread_sync();
          b.mbarrier_arrive(empty_of(acc));
        });
        tma_ring::next_stage(b, acc, acc_phase, kAccumulators);
      });
      blackwell::finish_tma_stores(b, e);
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

KernelInfo blackwell_tma_store_epilogue_info() {
  KernelInfo k;
  blackwell::set_blackwell_info(k, kId, {kBM, kBN, kBK});
  k.title = "Blackwell overlapped TMA-store epilogue: TMEM to swizzled staging to TMA store";
  k.delta = "the epilogue drains each accumulator in 32-column sub-tiles through two 128B-swizzled staging buffers "
            "and TMA stores (fence.proxy.async, bulk groups, wait_group.read 1), and gives the TMEM buffer back "
            "right after its last tcgen05.wait::ld, before its stores finish";
  k.explanation =
      "Step 23's persistent kernel with a new epilogue. The four epilogue warps read an accumulator out of tensor "
      "memory 32 columns at a time (64 with bf16 C; tcgen05.ld, tcgen05.wait::ld), write the sub-tile into a 128B-swizzled "
      "staging buffer in shared memory (conflict-free st.shared.v4), make it visible to the async proxy with "
      "fence.proxy.async, meet at a barrier, and one thread hands it to the copy engine with a TMA store, clipped at "
      "C's edges, closed into a bulk group. Two staging buffers take turns: the copy engine reads one while the "
      "warps fill the other, and before a buffer is written again wait_group.read 1 makes sure its last store is "
      "done reading. As soon as the last sub-tile's load has completed, every epilogue thread arrives on "
      "tmem_empty, so the MMA thread starts the next tile in that buffer while the stores are still in flight.";
  // As step 23: 444 tiles, 3 per CTA on 148 CTAs (buffers 0, 1, 0).
  k.example_shape = {4736, 3072, 128};
  k.constraints = hopper::edge_shape_constraints();
  k.check_shape = [](const GemmShape& s, const GemmShape&) { hopper::check_edge_shape(kId, s); };
  k.params = {{"ctas",
               "persistent CTAs in the grid: 148 is one per SM of a B200 (NVIDIA's figure, unconfirmed); fewer give "
               "each CTA more tiles",
               148,
               {16, 32, 64, 128, 148}},
              c_dtype_param()};
  k.mistakes = {
      {kMissingProxyFence, "the epilogue writes a staging buffer and meets at the barrier without fence.proxy.async",
       "the TMA store (async proxy) reads bytes the threads' st.shared (generic proxy) may not have made visible to "
       "it: missing-proxy-fence; C may hold stale sub-tiles on the GPU"},
      {kReuseBeforeWait, "the issuing thread never waits with cp.async.bulk.wait_group.read before a buffer is rewritten",
       "sub-tile 2 is written into buffer 0 while sub-tile 0's store may still read it: a bulk-store-race (C is wrong "
       "when the copy engine is slower than the threads)"},
      {kReleaseBeforeWait, "the epilogue arrives on tmem_empty after its last tcgen05.ld but before tcgen05.wait::ld",
       "the MMA thread may start the next tile in columns the load has not read yet: a tmem-race names the arrive "
       "and the load it came before (release a TMEM buffer only after tcgen05.wait::ld)"},
  };
  // No cta_tile: a CTA writes several tiles of C (opening it generates all of A and B).
  k.focus_views = {"timeline", "tmem", "smem"};
  k.stops = {{StopKind::tmem_read}, {StopKind::tma_store}, {StopKind::next_tile}, {StopKind::pipeline_drains}};
  k.pictures = {"timeline", "tmem"};
  k.build = build_blackwell_tma_store_epilogue;
  return k;
}

}  // namespace gs::kernels
