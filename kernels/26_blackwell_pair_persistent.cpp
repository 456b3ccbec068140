// Step 26 — Blackwell: a persistent CTA pair (step 25's kernel on step 22's 2-SM MMA).
//
// What it teaches: steps 22 and 25 together. Step 22 made a 2-CTA cluster one 256-row tensor
// core (tcgen05.mma.cta_group::2: each SM fetches half of B); step 25 made one CTA per SM walk
// tiles with two TMEM accumulators and an epilogue under the next tile's MMAs. Here each
// CLUSTER walks PAIR TILES of 256x256 (pair tiles c, c + clusters, ... of the grouped order),
// both CTAs the same pair tile at the same time, each its own 128 rows.
//
// The new lesson is who gives an accumulator back. The leader's tcgen05.mma.cta_group::2 writes
// BOTH CTAs' TMEM (columns acc·256.. of rank 0's, rows 0-127, and of rank 1's, rows 128-255), so
// before reusing buffer acc it must know that both epilogues are done with it:
//   * the LEADER's tmem_empty[acc] counts 2 x 128 arrivals, and every epilogue thread of both
//     CTAs arrives there (rank 1 remotely, at an address from mapa; CTA scope is enough: it
//     releases reads already done, as step 17's stage release);
//   * rank 1's own tmem_empty is never waited on.
// Without it (mistake release-tmem-to-own-cta) the leader's next MMA overwrites rank 1's columns
// while rank 1's warps may still read them: step 23's reuse-before-release across two SMs. The
// other barriers are step 22's: peer_full (rank 1 relays each full[s]) and commits with
// .multicast::cluster, mask 0b11 (empty[s] per K-block, tmem_full[acc] per tile).
//
// Phases, as the code runs them:
//   launch       min(ctas / 2, pair tiles) clusters of 2 CTAs ("ctas", 148: one per SM of a B200);
//                cluster c walks pair tiles c, c + clusters, ... of the grouped order (8 pair-rows
//                a group: step 23's 16 tile-rows); rank r's part: rows pair_m0 + 128r, and for its
//                loads half of B's columns, pair_n0 + 128r (step 22);
//   barriers     the ring's full/empty (empty: one arrival, the leader's multicast commit),
//                peer_full (rank 1's relay), tmem_full[2] (the multicast commit) and tmem_empty[2]
//                (the leader's: 256 arrivals); barrier.cluster so neither CTA signals an
//                uninitialised barrier of the other; warp 5 of each CTA allocates all 512 TMEM
//                columns with cta_group::2 (the pair's two accumulators of 256);
//   TMA warp     (warp 4) one thread of each CTA walks the cluster's pair tiles and their
//                K-blocks, loading its 128 rows of A and its half of B into the ring;
//   MMA warp     (warp 5) on rank 0 one thread, per pair tile: wait tmem_empty[acc] (both CTAs'
//                epilogues), the K loop of step 22 (full[s] and peer_full[s], four k16
//                tcgen05.mma.cta_group::2, commit.multicast to both empty[s]) into columns acc·256..,
//                then commit.multicast to both CTAs' tmem_full[acc]; on rank 1 one thread waits on
//                each full[s] and relays it to the leader's peer_full[s];
//   epilogue     (warps 0-3) of each CTA, per pair tile: wait its own tmem_full[acc], then step 25's
//                8 sub-tiles of its 128 rows x 256 columns through the two staging buffers to TMA
//                stores (clipped at C's edges); after the last tcgen05.wait::ld every thread arrives
//                on the leader's tmem_empty[acc]; after the last tile, wait_group.read 0;
//   end          barrier.cluster (the leader's MMAs write rank 1's TMEM, so neither frees its
//                columns while the pair may touch them), then warp 5 frees the 512 columns.
//
// What changed from step 25: the (2,1,1) cluster and its barriers, the pair tile and the walk
// over pair tiles by cluster, step 22's half-B loads, relay and multicast commits (cta_group::2 on
// every tcgen05 op), tmem_empty on the leader counting both CTAs' epilogues and arrived on
// remotely by rank 1, and 6 stages: a stage is 32 KiB now (half of B), so 6 stages and the two
// staging buffers fill step 25's 224 KiB. The epilogue's sub-tile loop is step 25's, now
// blackwell::store_accumulator in tcgen05_store_parts.cpp. What changed from step 22: the
// persistent walk, two accumulators (tmem_full[2] / tmem_empty[2], a phase per buffer: step 23),
// and the TMA-store epilogue, which clips, so any M, N, K multiple of 8 runs.
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

constexpr std::string_view kId = "blackwell_pair_persistent";

constexpr uint32_t kPairM = 256, kBN = 256;  // the pair's tile
constexpr uint32_t kCtaM = kPairM / 2, kHalfN = kBN / 2;
constexpr uint32_t kCluster = 2;
constexpr uint32_t kStages = 6;
constexpr uint32_t kThreads = 6 * 32;  // warps 0-3 epilogue, 4 TMA, 5 MMA (rank 0) or relay (rank 1)
constexpr uint32_t kTmaWarp = 4, kMmaWarp = 5;
constexpr uint32_t kAccumulators = 2;
constexpr uint32_t kTmemColumns = kAccumulators * kBN;  // 512: all of each CTA's TMEM
constexpr uint32_t kEpilogueThreads = 4 * 32;
constexpr uint32_t kABytes = kCtaM * kBK * 2, kBBytes = kHalfN * kBK * 2;  // 16 + 16 KiB per stage
constexpr uint32_t kGroupM = 16 / kCluster;  // pair-rows a group: step 23's 16 tile-rows
constexpr uint32_t kStoreBarrier = 1;        // bar.sync id of the epilogue warps (0: the init's)

// The deliberate mistakes, each with what it changes (the registry entry says the symptom).
constexpr const char* kReleaseOwnCta = "release-tmem-to-own-cta";  // rank 1 releases its own tmem_empty
constexpr const char* kCommitToOneCta = "commit-to-one-cta";       // commits without .multicast::cluster

ir::Kernel build_blackwell_pair_persistent(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const DType c_dtype = cfg.param("c_dtype") == 16 ? DType::bf16 : DType::f32;
  Builder b(std::string(kId), ir::Arch::sm_100a);
  const uint32_t tiles_m = hopper::ceil_div(M, kCtaM), tiles_n = hopper::ceil_div(N, kBN);
  const uint32_t pair_rows = hopper::ceil_div(M, kPairM), pair_tiles = pair_rows * tiles_n;
  const uint32_t clusters = std::min(cfg.param("ctas") / kCluster, pair_tiles);
  b.set_launch({.grid = {clusters * kCluster, 1, 1}, .block = {kThreads, 1, 1}, .cluster = {kCluster, 1, 1}});
  b.set_min_ctas_per_sm(1);  // one CTA per SM (step 23: without it ptxas caps the registers)
  b.declare_tile_walk(tile_order::walk(tile_order::Order::grouped, pair_rows, tiles_n, kGroupM, clusters, kCluster, tiles_m));

  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, kCtaM, Swizzle::b128));
  auto tmap_b = b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, kHalfN, Swizzle::b128));
  auto tmap_c = b.tensor_map_param("tmap_C", blackwell::c_store_map(M, N, c_dtype));
  const tma_ring::Ring ring = tma_ring::declare_ring(b, kStages, kABytes, kBBytes);
  const builder::Smem sC = b.operand_stages("sC", ir::GemmOperand::c, blackwell::kStagingBuffers,
                                            blackwell::kStagingBytes, 1024, Swizzle::b128);
  const builder::Smem peer_full = b.mbarriers("peer_full", ir::BarrierRole::other, kStages);
  const builder::Smem tmem_full = b.mbarriers("tmem_full", ir::BarrierRole::other, kAccumulators);
  const builder::Smem tmem_empty = b.mbarriers("tmem_empty", ir::BarrierRole::other, kAccumulators);
  const builder::Smem tmem_slot = b.shared("tmem_slot", 4, 16, ir::SmemUse::other);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg warp = (tid >> 5).named("warp");
  Reg lane = (tid & 31).named("lane");
  Reg rank = b.special(ir::Special::cluster_ctarank, "rank");
  Reg cluster = (b.special(ir::Special::ctaid_x, "cta") / kCluster).named("cluster");
  // This cluster's pair tiles: cluster, cluster + clusters, ... below pair_tiles (at least one).
  Reg my_tiles = ((b.mov(Type::u32, pair_tiles + clusters - 1, "tiles_rounded") - cluster) / clusters).named("my_tiles");
  const auto pair_corner = [&](const Reg& i) {
    return tile_order::tile_corner(b, tile_order::Order::grouped, (cluster + i * clusters).named("pair_tile"),
                                   pair_rows, tiles_n, kGroupM, kPairM, kBN);
  };
  const uint32_t k_blocks = hopper::ceil_div(K, kBK);

  // Mistake release-tmem-to-own-cta: each CTA's tmem_empty counts its own epilogue only.
  const uint32_t empty_arrivals = cfg.has(kReleaseOwnCta) ? kEpilogueThreads : kCluster * kEpilogueThreads;
  b.if_((tid == 0).named("init_thread"), [&] {
    for (uint32_t s = 0; s < kStages; ++s) b.mbarrier_init(peer_full.at(8 * s), 1);  // rank 1's relay
    for (uint32_t a = 0; a < kAccumulators; ++a) {
      b.mbarrier_init(tmem_full.at(8 * a), 1);                // the leader's multicast commit
      b.mbarrier_init(tmem_empty.at(8 * a), empty_arrivals);  // the leader's: both CTAs' epilogues
    }
  });
  tma_ring::init_ring(b, ring, tid, 1);  // empty[s]: the leader's multicast commit
  b.comment("both CTAs' barriers are initialised before either CTA signals the other's");
  b.barrier_cluster_arrive();
  b.barrier_cluster_wait();
  Reg tmem_full_base = b.smem_address(tmem_full, 0, "tmem_full_base");
  Reg tmem_empty_base = b.smem_address(tmem_empty, 0, "tmem_empty_base");
  const auto full_of = [&](const Reg& acc) { return Addr::at((tmem_full_base + (acc << 3)).named("tmem_full_acc")); };
  const auto empty_of = [&](const Reg& acc) { return Addr::at((tmem_empty_base + (acc << 3)).named("tmem_empty_acc")); };
  Reg mma_warp = (warp == kMmaWarp).named("mma_warp");
  Reg tmem = blackwell::allocate_tmem(b, tmem_slot, mma_warp, kTmemColumns, CtaGroup::two);
  Reg leader = (rank == 0).named("leader");
  Reg pair_mask = b.mov(Type::u16, 3, "pair_mask");
  // Mistake commit-to-one-cta: the plain commit arrives on the leader's barrier only.
  const auto commit_to_pair = [&](const Addr& bar) {
    if (cfg.has(kCommitToOneCta)) b.tcgen05_commit(bar, CtaGroup::two);
    else b.tcgen05_commit_multicast(bar, pair_mask, CtaGroup::two);
  };

  b.comment("warp 4 of each CTA: one thread loads its A rows and half of B of each pair tile");
  b.if_((tid == kTmaWarp * 32).named("tma_thread"), [&] {
    b.role(ir::WarpRole::producer, [&] {
      Reg tmA = b.tensor_map_address(tmap_a, "tmA");
      Reg tmB = b.tensor_map_address(tmap_b, "tmB");
      Reg stage = b.mov(Type::u32, 0, "stage");
      Reg phase = b.mov(Type::u32, 0, "phase");
      b.loop("tile_load", my_tiles, [&](const Reg& i) {
        const hopper::TileCorner at = pair_corner(i);
        Reg m0 = (at.m0 + rank * kCtaM).named("m0");
        Reg b_n0 = (at.n0 + rank * kHalfN).named("b_n0");
        b.k_loop("kb_load", k_blocks, [&](const Reg& kb) {
          tma_ring::produce_k_block(b, ring, stage, phase, tmA, tmB, kb, m0, b_n0);
        });
      });
    });
  });

  b.comment("warp 5: on rank 0 one thread issues each pair tile's MMAs; on rank 1 it relays full[s] to rank 0");
  b.if_(mma_warp, [&] {
    Reg elected = b.elect_sync("mma_thread");
    b.if_((elected & leader).named("issuer"), [&] {
      b.role(ir::WarpRole::mma_issuer, [&] {
        const layout::UmmaSmemDescriptor sw128 =
            layout::umma_descriptor_from(layout::kmajor_tile_descriptor(0, Swizzle::b128));
        Reg idesc = b.tmem_instr_descriptor({.m = kPairM, .n = kBN}, "idesc");
        Reg always = b.mov(Type::pred, 1, "always");
        Reg peer_full_base = b.smem_address(peer_full, 0, "peer_full_base");
        Reg stage = b.mov(Type::u32, 0, "stage");
        Reg phase = b.mov(Type::u32, 0, "phase");
        Reg acc = b.mov(Type::u32, 0, "acc");
        Reg acc_phase = b.mov(Type::u32, 0, "acc_phase");
        b.loop("tile", my_tiles, [&](const Reg& i) {
          (void)i;
          b.comment("wait until BOTH CTAs' epilogues released buffer acc: this MMA writes both TMEMs");
          b.mbarrier_wait(empty_of(acc), acc_phase ^ 1);
          b.tcgen05_fence_after_thread_sync();
          Reg d_tmem = b.mov(Type::b32, (tmem + acc * kBN).named("acc_columns"), "d_tmem");
          b.k_loop("kb", k_blocks, [&](const Reg& kb) {
            b.mbarrier_wait(ring.full_at(stage), phase);
            b.mbarrier_wait(Addr::at((peer_full_base + (stage << 3)).named("peer_full_s")), phase);
            b.tcgen05_fence_after_thread_sync();
            Reg a_desc = b.umma_descriptor(ring.a_at(stage), sw128, "a_desc");
            Reg b_desc = b.umma_descriptor(ring.b_at(stage), sw128, "b_desc");
            blackwell::mma_k_block(b, d_tmem, a_desc, b_desc, idesc, (kb != 0).named("accumulate"), always, CtaGroup::two);
            commit_to_pair(ring.empty_at(stage));
            tma_ring::next_stage(b, stage, phase, kStages);
          });
          b.comment("the tensor cores arrive on both CTAs' tmem_full[acc] when the pair tile's MMAs are done");
          commit_to_pair(full_of(acc));
          tma_ring::next_stage(b, acc, acc_phase, kAccumulators);
        });
      });
    });
    b.if_((elected & (rank != 0)).named("relay"), [&] {
      b.role(ir::WarpRole::producer, [&] {
        Reg leader_peer_full = b.mapa(b.smem_address(peer_full, 0, "peer_full_local"), 0u, "leader_peer_full");
        Reg stage = b.mov(Type::u32, 0, "stage");
        Reg phase = b.mov(Type::u32, 0, "phase");
        b.loop("tile_relay", my_tiles, [&](const Reg& i) {
          (void)i;
          b.k_loop("kb_relay", k_blocks, [&](const Reg& kb) {
            (void)kb;
            b.mbarrier_wait(ring.full_at(stage), phase);
            // .release.cluster: the leader's MMA reads the bytes that landed here (step 22).
            b.mbarrier_arrive_remote(Addr::at((leader_peer_full + (stage << 3)).named("leader_peer_full_s")), true);
            tma_ring::next_stage(b, stage, phase, kStages);
          });
        });
      });
    });
  });

  b.comment("warps 0-3 of each CTA: its 128 rows of each pair tile go to C through the staging buffers (step 25)");
  b.if_((warp < 4).named("epilogue_warp"), [&] {
    b.role(ir::WarpRole::epilogue, [&] {
      const blackwell::TmaStoreEpilogue e =
          blackwell::tma_store_epilogue(b, tmap_c, sC, tid, warp, lane, tmem, c_dtype, kStoreBarrier, {});
      // The leader's tmem_empty[0] as a shared::cluster address (rank 0's own on rank 0).
      Reg leader_empty = b.mapa(tmem_empty_base, 0u, "leader_tmem_empty");
      Reg acc = b.mov(Type::u32, 0, "acc");
      Reg acc_phase = b.mov(Type::u32, 0, "acc_phase");
      b.loop("tile_store", my_tiles, [&](const Reg& i) {
        const hopper::TileCorner at = pair_corner(i);
        b.mbarrier_wait(full_of(acc), acc_phase);
        b.tcgen05_fence_after_thread_sync();
        Reg acc_tmem = (e.quarter + acc * kBN).named("acc_tmem");
        blackwell::store_accumulator(b, e, acc_tmem, kBN, (at.m0 + rank * kCtaM).named("m0"), at.n0, [&] {
          b.comment("the buffer's last tcgen05.ld is done: give it back to the leader, who writes both TMEMs");
          b.tcgen05_fence_before_thread_sync();
          // Mistake release-tmem-to-own-cta: rank 1 arrives on its own tmem_empty, which nobody waits on.
          if (cfg.has(kReleaseOwnCta)) b.mbarrier_arrive(empty_of(acc));
          else b.mbarrier_arrive_remote(Addr::at((leader_empty + (acc << 3)).named("leader_tmem_empty_acc")), false);
        });
        tma_ring::next_stage(b, acc, acc_phase, kAccumulators);
      });
      blackwell::finish_tma_stores(b, e);
    });
  });

  b.comment("neither CTA frees its TMEM or exits while the pair may still touch it");
  b.barrier_cluster_arrive();
  b.barrier_cluster_wait();
  b.if_(mma_warp, [&] {
    b.tcgen05_fence_after_thread_sync();
    b.tcgen05_dealloc(tmem, kTmemColumns, CtaGroup::two);
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo blackwell_pair_persistent_info() {
  KernelInfo k;
  blackwell::set_blackwell_info(k, kId, {kCtaM, kBN, kBK});
  k.title = "Blackwell persistent CTA pair: 2-SM MMA, two accumulators, TMA-store epilogue";
  k.delta = "step 25's persistent kernel on step 22's CTA pair: each cluster walks 256x256 pair tiles, the leader's "
            "cta_group::2 MMAs fill both CTAs' two accumulators, and both CTAs' epilogues release the leader's "
            "tmem_empty (rank 1 with a remote arrive)";
  k.explanation =
      "The persistent kernel of the previous step, run by CTA pairs. Each cluster of two CTAs walks pair tiles of "
      "256x256 in the grouped order, both CTAs the same tile at the same time. As in the 2-SM step, each CTA loads "
      "its own 128 rows of A and half of B's columns, rank 1 tells the leader when its stage has landed, and the "
      "leader issues tcgen05.mma.cta_group::2, which writes the accumulator into both CTAs' tensor memory; its "
      "commits reach both CTAs with .multicast::cluster. Each CTA's epilogue drains its own 128 rows through the "
      "two swizzled staging buffers to TMA stores. The new rule: the leader's MMA overwrites both CTAs' "
      "accumulators, so the leader's tmem_empty counts the epilogue threads of both CTAs, and rank 1's threads "
      "arrive on it remotely (mapa gives them its address). Half of B per SM, the epilogue under the next tile's "
      "MMAs: the fastest kernel of the ladder.";
  // 37 x 6 = 222 pair tiles = 3 per cluster on 74 clusters (148 CTAs): buffers 0, 1, 0, as step 25's.
  k.example_shape = {9472, 1536, 128};
  k.constraints = hopper::edge_shape_constraints();
  k.check_shape = [](const GemmShape& s, const GemmShape&) { hopper::check_edge_shape(kId, s); };
  k.params = {{"ctas",
               "persistent CTAs in the grid, two a cluster: 148 is one per SM of a B200 (NVIDIA's figure, "
               "unconfirmed); fewer give each cluster more pair tiles",
               148,
               {8, 16, 32, 64, 128, 148}},
              c_dtype_param()};
  k.mistakes = {
      {kReleaseOwnCta, "each CTA's epilogue arrives on its own tmem_empty, and the leader's counts its own 128 threads",
       "the leader's next MMA into a buffer waits only for its own epilogue and overwrites rank 1's columns while "
       "rank 1's warps may still read them: a tmem-race names the tcgen05.mma and rank 1's unreleased tcgen05.ld "
       "(C gets rows of the next pair tile whenever rank 1's epilogue is slower)"},
      {kCommitToOneCta, "the leader's commits arrive only on its own barriers (no .multicast::cluster)",
       "rank 1's empty barriers and tmem_full never complete: its TMA thread waits forever to refill a stage and "
       "its epilogue waits forever for the accumulator (a deadlock; the GPU hangs)"},
  };
  // No cta_tile: a CTA writes several tiles of C (opening it generates all of A and B).
  k.focus_views = {"tmem", "schedule", "timeline"};
  k.stops = {{StopKind::tcgen05_mma}, {StopKind::tmem_read}, {StopKind::tma_store}, {StopKind::next_tile}};
  k.pictures = {"tmem", "schedule"};
  k.build = build_blackwell_pair_persistent;
  return k;
}

}  // namespace gs::kernels
