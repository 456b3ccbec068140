// Step 21 — Blackwell: a warp-specialized ring around tcgen05.mma (the tcgen05 twin of the
// Hopper steps 13-14).
//
// What it teaches: on Blackwell the accumulator lives in tensor memory (TMEM), not in
// registers, so the warps split the work three ways instead of two:
//   TMA warp (warp 4)       one thread walks K and fills a ring of kStages stages, as in step 13:
//                           wait empty[s], arrive.expect_tx 48 KiB on full[s], two TMA boxes.
//   MMA warp (warp 5)       allocates 256 TMEM columns for the 128x256 f32 accumulator, then one
//                           elected thread waits full[s] and issues four tcgen05.mma (k16 each).
//                           It never waits for them: tcgen05.commit to empty[s] makes the tensor
//                           core arrive on empty[s] once those MMAs have read the stage, and a
//                           last commit to tmem_full says the accumulator is complete.
//   epilogue (warps 0-3)    wait tmem_full, then each warp drains its quarter of TMEM's 128 lanes
//                           (rows 32w..32w+31: a warp may only touch lanes 32·(warp%4).., facts
//                           §9.3) with tcgen05.ld.32x32b.x32 and stores the rows to C.
// No warp holds accumulators, so nothing needs setmaxnreg, and the MMA issuer is one thread:
// the tensor core works through the queue of MMAs while that thread already waits on the next
// stage. A stage is refilled only after the commit released it, i.e. after the tensor core has
// finished reading it, which is what the Hopper consumers did by hand with wgmma.wait.
//
// TMEM layout (cta_group::1, M = 128): accumulator row i is TMEM lane i, column j is TMEM column
// base + j (facts §9.3), so the 128x256 tile takes lanes 0-127 × columns 0-255.
//
// What changed from step 20: warp specialization (TMA / MMA / epilogue warps), a 4-stage ring
// (4 × 48 KiB) with empty barriers released by tcgen05.commit, the 128x256 tile (N = 256, the
// largest MMA of cta_group::1), and an epilogue that starts only when the last commit lands.
#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/hopper_parts.hpp"
#include "kernels/registry.hpp"
#include "kernels/tcgen05_parts.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::CtaGroup;
using builder::Reg;
using tma_ring::kBK;
using ir::Type;
using layout::Swizzle;

namespace {

constexpr std::string_view kId = "blackwell_ws_ring";

constexpr uint32_t kBM = 128, kBN = 256;
constexpr uint32_t kStages = 4;
constexpr uint32_t kThreads = 6 * 32;     // warps 0-3 epilogue, 4 TMA, 5 MMA
constexpr uint32_t kTmaWarp = 4, kMmaWarp = 5;
constexpr uint32_t kTmemColumns = kBN;    // one f32 accumulator column per output column
constexpr uint32_t kABytes = kBM * kBK * 2, kBBytes = kBN * kBK * 2;  // 16 + 32 KiB per stage

ir::Kernel build_blackwell_ws_ring(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  Builder b(std::string(kId), ir::Arch::sm_100a);
  b.set_launch({.grid = {N / kBN, M / kBM, 1}, .block = {kThreads, 1, 1}});

  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, kBM, Swizzle::b128));
  auto tmap_b = b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, kBN, Swizzle::b128));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const tma_ring::Ring ring = tma_ring::declare_ring(b, kStages, kABytes, kBBytes);
  const builder::Smem tmem_full = b.mbarriers("tmem_full", ir::BarrierRole::other, 1);
  const builder::Smem tmem_slot = b.shared("tmem_slot", 4, 16, ir::SmemUse::other);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg warp = (tid >> 5).named("warp");
  Reg lane = (tid & 31).named("lane");
  Reg m0 = (b.special(ir::Special::ctaid_y, "cta_y") * kBM).named("m0");
  Reg n0 = (b.special(ir::Special::ctaid_x, "cta_x") * kBN).named("n0");
  const uint32_t k_blocks = K / kBK;

  // tmem_full: one arrival, the final commit; empty[s]: one arrival per phase, the MMA
  // thread's tcgen05.commit. init_ring's fence.mbarrier_init covers both inits.
  b.if_((tid == 0).named("init_thread"), [&] { b.mbarrier_init(tmem_full.at(), 1); });
  tma_ring::init_ring(b, ring, tid, 1);
  Reg mma_warp = (warp == kMmaWarp).named("mma_warp");
  Reg tmem = blackwell::allocate_tmem(b, tmem_slot, mma_warp, kTmemColumns, CtaGroup::one);

  b.comment("warp 4: one thread fills the ring");
  b.if_((tid == kTmaWarp * 32).named("tma_thread"), [&] {
    b.role(ir::WarpRole::producer, [&] {
      Reg tmA = b.tensor_map_address(tmap_a, "tmA");
      Reg tmB = b.tensor_map_address(tmap_b, "tmB");
      Reg stage = b.mov(Type::u32, 0, "stage");
      Reg phase = b.mov(Type::u32, 0, "phase");
      b.k_loop("kb_load", k_blocks, [&](const Reg& kb) {
        // Mistake refill-before-release: the producer does not wait for the commit's release.
        tma_ring::produce_k_block(b, ring, stage, phase, tmA, tmB, kb, m0, n0,
                                {.wait_empty = !cfg.has("refill-before-release")});
      });
    });
  });

  b.comment("warp 5: one elected thread issues every MMA and commit");
  b.if_(mma_warp, [&] {
    b.role(ir::WarpRole::mma_issuer, [&] {
      Reg elected = b.elect_sync("mma_thread");
      b.if_(elected, [&] {
        const layout::UmmaSmemDescriptor sw128 =
            layout::umma_descriptor_from(layout::kmajor_tile_descriptor(0, Swizzle::b128));
        Reg idesc = b.tmem_instr_descriptor({.m = kBM, .n = kBN}, "idesc");
        Reg always = b.mov(Type::pred, 1, "always");
        Reg d_tmem = b.mov(Type::b32, tmem, "d_tmem");  // [d] of tcgen05.mma: a .b32 register
        Reg stage = b.mov(Type::u32, 0, "stage");
        Reg phase = b.mov(Type::u32, 0, "phase");
        b.k_loop("kb", k_blocks, [&](const Reg& kb) {
          b.mbarrier_wait(ring.full_at(stage), phase);
          b.tcgen05_fence_after_thread_sync();
          Reg a_desc = b.umma_descriptor(ring.a_at(stage), sw128, "a_desc");
          Reg b_desc = b.umma_descriptor(ring.b_at(stage), sw128, "b_desc");
          blackwell::mma_k_block(b, d_tmem, a_desc, b_desc, idesc, (kb != 0).named("accumulate"), always, CtaGroup::one);
          b.comment("the tensor core arrives on empty[s] when these MMAs are done reading the stage");
          b.tcgen05_commit(ring.empty_at(stage));
          tma_ring::next_stage(b, stage, phase, kStages);
        });
        b.comment("and on tmem_full when every MMA of the tile is done: the accumulator is complete");
        b.tcgen05_commit(tmem_full.at());
      });
    });
  });

  b.comment("warps 0-3: drain the accumulator, one quarter of TMEM's lanes each");
  b.if_((warp < 4).named("epilogue_warp"), [&] {
    b.role(ir::WarpRole::epilogue, [&] {
      // Mistake skip-tmem-full-wait: no wait for the final commit.
      if (!cfg.has("skip-tmem-full-wait")) b.mbarrier_wait(tmem_full.at(), 0u);
      b.tcgen05_fence_after_thread_sync();
      // Mistake wrong-lane-quarter: warp w reads the lanes of quarter w+1 (its rows stay 32w..).
      Reg quarter = cfg.has("wrong-lane-quarter") ? ((warp + 1) & 3).named("quarter") : warp;
      Reg C = b.global_ptr(pc, "C_ptr");
      blackwell::drain_accumulator(b, tmem, lane, (quarter << 5).named("lane0"), kBN, C,
                                   (m0 + (warp << 5)).named("row0"), n0, N);
      b.tcgen05_fence_before_thread_sync();
    });
  });

  b.comment("everyone is done with TMEM before the allocating warp frees it");
  b.bar_sync(0);
  // Mistake no-dealloc: the CTA exits with its columns still allocated.
  if (!cfg.has("no-dealloc")) {
    b.if_(mma_warp, [&] {
      b.tcgen05_fence_after_thread_sync();
      b.tcgen05_dealloc(tmem, kTmemColumns);
    });
  }
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo blackwell_ws_ring_info() {
  KernelInfo k;
  blackwell::set_blackwell_info(k, kId, {kBM, kBN, kBK});
  k.title = "Blackwell warp-specialized ring: TMA warp, MMA thread, TMEM epilogue";
  k.delta = "a TMA warp, one MMA-issuing thread and an epilogue warpgroup around a 4-stage ring whose stages "
            "tcgen05.commit releases; a 128x256 accumulator in 256 TMEM columns";
  k.explanation =
      "Three kinds of warps share one CTA. Warp 4's first thread fills a ring of four 48 KiB stages with TMA, "
      "waiting on each stage's empty barrier before refilling it. Warp 5 allocates 256 columns of tensor "
      "memory for the 128x256 f32 accumulator; one elected thread of it waits on each stage's full barrier and "
      "issues four tcgen05.mma (M=128, N=256, K=16) that read A and B from shared memory and accumulate in "
      "TMEM. It does not wait for them: tcgen05.commit asks the tensor core to arrive on the stage's empty "
      "barrier once they are done, which is what lets the TMA thread refill it. After the last K block a "
      "final commit arrives on tmem_full. The four epilogue warps wait on it; warp w may only read TMEM "
      "lanes 32w..32w+31, which hold rows 32w..32w+31 of the tile, and copies them out with "
      "tcgen05.ld.32x32b.x32, 32 columns at a time. Finally the allocating warp frees the columns.";
  k.example_shape = {256, 512, 512};  // 8 K blocks: the 4-stage ring wraps once
  k.mistakes = {
      {"skip-tmem-full-wait", "the epilogue does not wait on tmem_full before tcgen05.ld",
       "the epilogue reads TMEM at once, before the MMA thread has issued (let alone finished) the MMAs that "
       "fill it: C is wrong; a read of columns an MMA is still writing is a tmem-read-before-commit hazard"},
      {"wrong-lane-quarter", "epilogue warp w reads the lanes of quarter w+1",
       "a warp may only access its own quarter of TMEM's lanes (warp % 4): the model reports the access"},
      {"no-dealloc", "the allocating warp never runs tcgen05.dealloc",
       "the CTA exits with 256 TMEM columns allocated: the next CTA on the SM would block in tcgen05.alloc"},
      {"refill-before-release", "the TMA thread refills a stage without waiting on its empty barrier",
       "the copy engine overwrites a stage the tensor core has not finished reading (and one whose earlier "
       "load may not have landed): a race on the stage, and C is wrong"},
  };
  k.cta_tile = [](const GemmShape& s, const GemmShape& tile, const std::array<uint32_t, 3>& cta) {
    return tile_of_block(s, tile, cta[1], cta[0]);
  };
  // Where this step's lesson shows: TMA, MMA and epilogue warps around a ring.
  k.focus_views = {"tmem", "timeline", "warps"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::tcgen05_mma}, {StopKind::ring_wraps}, {StopKind::tmem_read}, {StopKind::pipeline_drains}};
  k.pictures = {"tmem", "timeline"};
  k.build = build_blackwell_ws_ring;
  return k;
}

}  // namespace gs::kernels
