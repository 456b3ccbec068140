// Step 22 — Blackwell: one MMA for two SMs (tcgen05.mma.cta_group::2 over a 2-CTA cluster).
//
// What it teaches: a CTA pair can act as one 256-row tensor core. The cluster's two CTAs (ranks
// 0 and 1, on two SMs) compute a 256x256 tile of C together:
//   * each CTA loads its own 128 rows of A (rank r: rows m0 + 128r ..) and HALF of B's 256
//     columns (rank r: columns n0 + 128r ..) into the same shared-memory offsets;
//   * one thread of rank 0 (the leader) issues tcgen05.mma.cta_group::2 with M = 256, N = 256:
//     the pair's tensor cores read A from each CTA's own shared memory and B from both halves,
//     and each CTA's TMEM receives its 128 rows x 256 columns of the accumulator (lane i of rank
//     r is row 128r + i). B is read once for both CTAs' rows: per SM, half the B traffic of
//     step 21 for the same 128x256 output;
//   * the leader may only issue once BOTH CTAs' stages have landed: rank 1's MMA warp, which
//     has no MMA to issue, waits on its own full[s] and relays it with a remote arrive on the
//     leader's peer_full[s];
//   * tcgen05.commit.multicast::cluster with mask 0b11 arrives on empty[s] (and at the end on
//     tmem_full) in BOTH CTAs: each CTA's TMA thread refills, and each epilogue drains, only
//     when the pair's MMAs are done with its shared memory and TMEM;
//   * both CTAs allocate their 256 TMEM columns with the same warp (warp 5) and the cta_group::2
//     forms: ptxas rejects a kernel that mixes cta_group::1 and ::2 tcgen05 ops.
// Shared B, fetched once: the sharing is done by the pair MMA reading each CTA's half, not by a
// TMA multicast (a multicast of B into both CTAs would hand the MMA the wrong half from the
// peer: PTX ISA tcgen05.mma, "B in shared memory of the current CTA and optionally the peer
// CTA"; CUTLASS splits A along M and B along N over the pair).
//
// What changed from step 21: a (2,1,1) cluster and cluster barriers around the kernel, the pair
// tile (256x256, each CTA's A box 128 rows and B box 128 rows), the relay barrier peer_full,
// cta_group::2 on every tcgen05 op, M = 256 in the instruction descriptor, and multicast commits.
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

constexpr std::string_view kId = "blackwell_2sm";

constexpr uint32_t kPairM = 256, kBN = 256;  // the pair's tile
constexpr uint32_t kCtaM = kPairM / 2, kHalfN = kBN / 2;
constexpr uint32_t kStages = 4;
constexpr uint32_t kThreads = 6 * 32;  // warps 0-3 epilogue, 4 TMA, 5 MMA (rank 0) or relay (rank 1)
constexpr uint32_t kTmaWarp = 4, kMmaWarp = 5;
constexpr uint32_t kTmemColumns = kBN;
constexpr uint32_t kABytes = kCtaM * kBK * 2, kBBytes = kHalfN * kBK * 2;  // 16 + 16 KiB per stage

ir::Kernel build_blackwell_2sm(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  Builder b(std::string(kId), ir::Arch::sm_100a);
  b.set_launch({.grid = {2 * (N / kBN), M / kPairM, 1}, .block = {kThreads, 1, 1}, .cluster = {2, 1, 1}});

  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, kCtaM, Swizzle::b128));
  auto tmap_b = b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, kHalfN, Swizzle::b128));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const tma_ring::Ring ring = tma_ring::declare_ring(b, kStages, kABytes, kBBytes);
  const builder::Smem peer_full = b.mbarriers("peer_full", ir::BarrierRole::other, kStages);
  const builder::Smem tmem_full = b.mbarriers("tmem_full", ir::BarrierRole::other, 1);
  const builder::Smem tmem_slot = b.shared("tmem_slot", 4, 16, ir::SmemUse::other);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg warp = (tid >> 5).named("warp");
  Reg lane = (tid & 31).named("lane");
  Reg rank = b.special(ir::Special::cluster_ctarank, "rank");
  b.comment("the pair's tile: rows pair_m0.., columns pair_n0..; this CTA's rows and half of B's columns");
  Reg pair_m0 = (b.special(ir::Special::ctaid_y, "cta_y") * kPairM).named("pair_m0");
  Reg pair_n0 = ((b.special(ir::Special::ctaid_x, "cta_x") >> 1) * kBN).named("pair_n0");
  Reg m0 = (pair_m0 + rank * kCtaM).named("m0");
  Reg b_n0 = (pair_n0 + rank * kHalfN).named("b_n0");
  const uint32_t k_blocks = K / kBK;

  b.if_((tid == 0).named("init_thread"), [&] {
    for (uint32_t s = 0; s < kStages; ++s) b.mbarrier_init(peer_full.at(8 * s), 1);  // rank 1's relay
    b.mbarrier_init(tmem_full.at(), 1);  // the leader's last commit
  });
  tma_ring::init_ring(b, ring, tid, 1);  // empty[s]: the leader's multicast commit
  b.comment("both CTAs' barriers are initialised before either CTA signals the other's");
  b.barrier_cluster_arrive();
  b.barrier_cluster_wait();
  Reg mma_warp = (warp == kMmaWarp).named("mma_warp");
  Reg tmem = blackwell::allocate_tmem(b, tmem_slot, mma_warp, kTmemColumns, CtaGroup::two);
  Reg leader = (rank == 0).named("leader");
  Reg pair_mask = b.mov(Type::u16, 3, "pair_mask");

  b.comment("warp 4 of each CTA: one thread loads this CTA's A rows and half of B");
  b.if_((tid == kTmaWarp * 32).named("tma_thread"), [&] {
    b.role(ir::WarpRole::producer, [&] {
      Reg tmA = b.tensor_map_address(tmap_a, "tmA");
      Reg tmB = b.tensor_map_address(tmap_b, "tmB");
      Reg stage = b.mov(Type::u32, 0, "stage");
      Reg phase = b.mov(Type::u32, 0, "phase");
      b.k_loop("kb_load", k_blocks,
             [&](const Reg& kb) { tma_ring::produce_k_block(b, ring, stage, phase, tmA, tmB, kb, m0, b_n0); });
    });
  });

  b.comment("warp 5: on rank 0 one thread issues the pair's MMAs; on rank 1 it relays full[s] to rank 0");
  b.if_(mma_warp, [&] {
    Reg elected = b.elect_sync("mma_thread");
    b.if_((elected & leader).named("issuer"), [&] {
      b.role(ir::WarpRole::mma_issuer, [&] {
        const layout::UmmaSmemDescriptor sw128 =
            layout::umma_descriptor_from(layout::kmajor_tile_descriptor(0, Swizzle::b128));
        Reg idesc = b.tmem_instr_descriptor({.m = kPairM, .n = kBN}, "idesc");
        Reg always = b.mov(Type::pred, 1, "always");
        Reg d_tmem = b.mov(Type::b32, tmem, "d_tmem");  // [d] of tcgen05.mma: a .b32 register
        Reg peer_full_base = b.smem_address(peer_full, 0, "peer_full_base");
        Reg stage = b.mov(Type::u32, 0, "stage");
        Reg phase = b.mov(Type::u32, 0, "phase");
        b.k_loop("kb", k_blocks, [&](const Reg& kb) {
          b.mbarrier_wait(ring.full_at(stage), phase);
          // Mistake skip-peer-wait: the MMA reads rank 1's half before it has landed.
          if (!cfg.has("skip-peer-wait"))
            b.mbarrier_wait(Addr::at((peer_full_base + (stage << 3)).named("peer_full_s")), phase);
          b.tcgen05_fence_after_thread_sync();
          Reg a_desc = b.umma_descriptor(ring.a_at(stage), sw128, "a_desc");
          Reg b_desc = b.umma_descriptor(ring.b_at(stage), sw128, "b_desc");
          blackwell::mma_k_block(b, d_tmem, a_desc, b_desc, idesc, (kb != 0).named("accumulate"), always, CtaGroup::two);
          // Mistake commit-to-one-cta: the plain commit arrives on the leader's barrier only.
          if (cfg.has("commit-to-one-cta")) b.tcgen05_commit(ring.empty_at(stage), CtaGroup::two);
          else b.tcgen05_commit_multicast(ring.empty_at(stage), pair_mask, CtaGroup::two);
          tma_ring::next_stage(b, stage, phase, kStages);
        });
        if (cfg.has("commit-to-one-cta")) b.tcgen05_commit(tmem_full.at(), CtaGroup::two);
        else b.tcgen05_commit_multicast(tmem_full.at(), pair_mask, CtaGroup::two);
      });
    });
    b.if_((elected & (rank != 0)).named("relay"), [&] {
      b.role(ir::WarpRole::producer, [&] {
        Reg leader_peer_full = b.mapa(b.smem_address(peer_full, 0, "peer_full_local"), 0u, "leader_peer_full");
        Reg stage = b.mov(Type::u32, 0, "stage");
        Reg phase = b.mov(Type::u32, 0, "phase");
        b.k_loop("kb_relay", k_blocks, [&](const Reg& kb) {
          (void)kb;
          b.mbarrier_wait(ring.full_at(stage), phase);
          // .release.cluster: the leader's MMA reads the bytes that landed here, so the arrive
          // must publish them to the cluster (a stage's release, steps 17-18, guards reads
          // already done and needs only the default CTA scope).
          b.mbarrier_arrive_remote(Addr::at((leader_peer_full + (stage << 3)).named("leader_peer_full_s")), true);
          tma_ring::next_stage(b, stage, phase, kStages);
        });
      });
    });
  });

  b.comment("warps 0-3 of each CTA: drain this CTA's 128 rows of the accumulator");
  b.if_((warp < 4).named("epilogue_warp"), [&] {
    b.role(ir::WarpRole::epilogue, [&] {
      b.mbarrier_wait(tmem_full.at(), 0u);
      b.tcgen05_fence_after_thread_sync();
      Reg C = b.global_ptr(pc, "C_ptr");
      blackwell::drain_accumulator(b, tmem, lane, (warp << 5).named("lane0"), kBN, C, (m0 + (warp << 5)).named("row0"),
                                   pair_n0, N);
      b.tcgen05_fence_before_thread_sync();
    });
  });

  b.comment("neither CTA frees its TMEM or exits while the pair may still touch it");
  b.barrier_cluster_arrive();
  b.barrier_cluster_wait();
  // Mistake no-dealloc: the columns stay allocated at exit.
  if (!cfg.has("no-dealloc")) {
    b.if_(mma_warp, [&] {
      b.tcgen05_fence_after_thread_sync();
      b.tcgen05_dealloc(tmem, kTmemColumns, CtaGroup::two);
    });
  }
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo blackwell_2sm_info() {
  KernelInfo k;
  blackwell::set_blackwell_info(k, kId, {kPairM, kBN, kBK});
  k.title = "Blackwell 2-SM MMA: cta_group::2 over a CTA pair, 256x256 tile";
  k.delta = "a 2-CTA cluster shares one tcgen05.mma.cta_group::2 (M=256): each CTA loads its A rows and half of B, "
            "rank 0 issues, multicast commits release both CTAs";
  k.explanation =
      "Two CTAs of a cluster, on two SMs, work as one tensor core of 256 rows. Each loads its own 128 rows of A "
      "and half of the 256 columns of B into the same shared-memory offsets. Rank 1 has no MMAs to issue: its "
      "MMA warp waits until its stage has landed and tells rank 0 with a remote mbarrier arrive. Rank 0's MMA "
      "thread, once both CTAs' stages are in, issues tcgen05.mma.cta_group::2 with M=256, N=256: the pair's "
      "tensor cores read B's two halves from the two CTAs, so each SM fetches only half of B, and each CTA's "
      "TMEM receives its 128 rows of the 256x256 accumulator. tcgen05.commit with .multicast::cluster and mask "
      "0b11 arrives on the stage's empty barrier in both CTAs, and at the end on both tmem_full barriers; each "
      "CTA's epilogue then drains its own TMEM. Both CTAs allocate with the same warp and every tcgen05 op "
      "says cta_group::2.";
  k.example_shape = {256, 512, 512};  // two pairs, 8 K blocks: the 4-stage ring wraps once
  k.mistakes = {
      {"commit-to-one-cta", "the leader's commits arrive only on its own barriers (no .multicast::cluster)",
       "rank 1's empty barriers and tmem_full never complete: its TMA thread waits forever to refill a stage "
       "and its epilogue waits forever for the accumulator (a deadlock; the GPU hangs)"},
      {"skip-peer-wait", "the leader issues the pair's MMAs when its own stage has landed, without waiting for rank 1's",
       "the MMA reads rank 1's half of B (and its rows of A) with nothing ordering rank 1's loads before it (a "
       "cluster-race): C is wrong whenever rank 1's stage lands late"},
      {"no-dealloc", "neither CTA runs tcgen05.dealloc",
       "both CTAs exit with 256 TMEM columns allocated: the next CTA pair on these SMs would block in tcgen05.alloc"},
  };
  // Both CTAs of a pair read inside the pair's 256x256 tile: rank r's A rows and B half are in it.
  k.cta_tile = [](const GemmShape& s, const GemmShape& tile, const std::array<uint32_t, 3>& cta) {
    return tile_of_block(s, tile, cta[1], cta[0] / 2);
  };
  // Where this step's lesson shows: a CTA pair as one 256-row tensor core.
  k.focus_views = {"tmem", "tma", "schedule"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_tma_load}, {StopKind::tcgen05_mma}, {StopKind::tmem_read}, {StopKind::pipeline_drains}};
  k.pictures = {"tmem", "schedule"};
  k.build = build_blackwell_2sm;
  return k;
}

}  // namespace gs::kernels
