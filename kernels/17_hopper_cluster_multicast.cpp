// Step 17 — Hopper: thread-block clusters and TMA multicast (fast.cu's matmul_8).
//
// What it teaches: CTAs on neighbouring SMs can share what they load. Two 128x256 tiles of one
// tile-column need the same 256 columns of B; in step 16 each CTA fetches them from L2 for
// itself. Launched as a cluster of kCluster CTAs (the build parameter "cluster": 1, 2 or 4),
// the CTAs compute the kCluster tiles of one tile-column at the same time, and each loads only
// its 1/kCluster of B's box with cp.async.bulk.tensor...multicast::cluster: the copy engine
// writes the slice into the same shared-memory offset of EVERY CTA of the cluster (cta_mask
// 0b11 for a pair) and completes its bytes on the full barrier at the same offset in each.
// So each stage's 32 KiB of B leaves L2 once per cluster: per CTA, 16 KiB of A + 16 KiB of B
// instead of 48 KiB. B, not A, is the shared operand because it is the larger box (256 rows
// against 128): sharing it saves twice the bytes sharing A would.
//
// Phases, as the code runs them:
//   * launch: "ctas" CTAs (build parameter, 128) in clusters of kCluster (.reqnctapercluster, from set_launch's cluster
//     dims); rank = %cluster_ctarank, the bit of this CTA in a cta_mask;
//   * tile walk: C is cut into cluster tiles of (kCluster·128)x256 — kCluster tiles of one
//     tile-column, one per rank (rank r takes rows m0 + 128r). Cluster c walks cluster tiles
//     c, c + clusters, ... in step 15's grouped order (16 tile-rows per group), and both CTAs
//     read the same number of tiles and K-blocks, so their rings stay in step. When the
//     tile-rows do not divide by kCluster, the last cluster tile's upper ranks lie below C:
//     they still run the whole protocol (their A box is wholly outside A, so TMA fills it with
//     zeros, and their slice of B is one the peers need), and the clipping epilogue stores
//     none of their rows;
//   * barriers: full[s] expects one arrival (this CTA's producer) and A's + B's tile bytes
//     transaction bytes: its own A box and ALL kCluster slices of B, including the ones its
//     peers issue. empty[s] expects 8·kCluster arrivals: one lane of each consumer warp of
//     every CTA of the cluster, because a stage of this CTA is written by every producer of
//     the cluster, so each must know that every CTA is done with the stage. Before any CTA may
//     multicast into a peer or arrive on its barriers, the peer's barriers must be initialised:
//     barrier.cluster.arrive/wait after the init;
//   * producer (one thread per CTA): wait empty[s]; arrive.expect_tx(full[s], 48 KiB); load A's
//     box into this CTA; multicast slice `rank` of B (rows n0 + rank·256/kCluster) into
//     sB[s] + rank·kSliceBytes of every CTA;
//   * consumers: wait full[s]; the wgmmas of step 16; then lane q of each warp arrives on
//     empty[s] of CTA q, every CTA of the cluster in one instruction (mapa gives CTA q's
//     address of this CTA's empty[s]; mbarrier.arrive.shared::cluster arrives there, at CTA
//     scope: it guards reads already done, so it need not publish anything to the cluster);
//   * epilogue: step 16's clipped stores; then barrier.cluster.arrive/wait once more, so no CTA
//     exits while a peer may still arrive on its barriers.
// With "cluster" 1 the kernel is step 16's (plain loads, local arrivals) with the cluster tile
// walk: the baseline the pairs are measured against. C's type is a build parameter, c_dtype:
// f32 (the default) or bf16, each pair rounded to nearest even into one bf16x2 word and stored
// with one st.global.b32 (half the bytes; cuBLAS is then timed with a bf16 C too).
//
// What changed from step 16: the cluster launch and rank, the per-cluster tile walk, the
// multicast of B slices, full[s] counting every slice, empty[s] counting every CTA's consumers
// and released through mapa + remote arrive, and the two cluster barriers.
//
// The tile's N is the build parameter bn, as in step 14 (hopper::declare_tile_n): each CTA of a
// cluster loads bn/cluster rows of B's box, a multiple of 8 (whole 1024-byte swizzle atoms) for
// every bn and cluster it takes.
#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/hopper_parts.hpp"
#include "kernels/tile_order.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using tma_ring::kBK;
using ir::Type;
using layout::Swizzle;

namespace {

constexpr std::string_view kId = "hopper_cluster_multicast";

constexpr uint32_t kBM = 128;
constexpr uint32_t kShippedBN = 256;  // the tile's N as it ships: the build parameter bn's default
constexpr uint32_t kConsumers = 2;
constexpr uint32_t kThreads = 128 * (1 + kConsumers);
constexpr uint32_t kABytes = kBM * kBK * 2;  // 16 KiB per stage (B: hopper::b_tile_bytes(bn), 32 KiB at 256)
constexpr uint32_t kSlabBytes = 64 * kBK * 2;                         // one consumer's rows of A
constexpr uint32_t kProducerRegs = 24, kConsumerRegs = 240;
constexpr uint32_t kGroupM = 16;  // tile-rows per group of the tile order
constexpr uint32_t kWarpArrivals = 4 * kConsumers;  // one elected lane per consumer warp, per CTA
constexpr uint32_t kSuspendHintNs = 10'000'000;     // the try_wait suspend-time hint (ns)

// The deliberate mistakes, each with what it changes (the registry entry says the symptom).
constexpr const char* kMaskWithoutPeers = "multicast-without-peers";  // cta_mask = this CTA's bit only
constexpr const char* kReleaseOwnOnly = "release-own-cta-only";       // step 16's release: own empty[s], 8 arrivals
constexpr const char* kExpectOwnSlice = "expect-own-slice-only";      // full[s] expects A + this CTA's slice of B

ir::Kernel build_hopper_cluster_multicast(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const uint32_t stages = cfg.param("stages");
  const uint32_t bn = cfg.param("bn");  // the tile's N: 256 as it ships
  const auto order = tile_order::Order(cfg.param("order"));
  const uint32_t kCluster = cfg.param("cluster");
  const DType c_dtype = cfg.param("c_dtype") == 16 ? DType::bf16 : DType::f32;
  if (kCluster == 1 && (cfg.has(kMaskWithoutPeers) || cfg.has(kReleaseOwnOnly) || cfg.has(kExpectOwnSlice)))
    throw ConfigError(fmt::format("the mistakes of {} concern a CTA's peers: build it with cluster=2 or 4, not "
                                  "cluster=1 (a cluster of one CTA has no peer)",
                                  kId));
  const uint32_t kSliceRows = bn / kCluster, kSliceBytes = hopper::b_tile_bytes(bn) / kCluster;
  Builder b(std::string(kId), ir::Arch::sm_90a);
  const uint32_t tiles_m = hopper::ceil_div(M, kBM), tiles_n = hopper::ceil_div(N, bn);
  const uint32_t cluster_rows = hopper::ceil_div(tiles_m, kCluster);  // tile-rows of cluster tiles
  const uint32_t cluster_tiles = cluster_rows * tiles_n;
  const uint32_t clusters = std::min(cfg.param("ctas") / kCluster, cluster_tiles);
  b.set_launch({.grid = {clusters * kCluster, 1, 1}, .block = {kThreads, 1, 1}, .cluster = {kCluster, 1, 1}});
  b.set_min_ctas_per_sm(1);  // with .maxntid: ptxas fixes the count at entry, so setmaxnreg takes effect
  b.declare_tile_walk(tile_order::walk(order, cluster_rows, tiles_n, kGroupM / kCluster, clusters, kCluster, tiles_m));

  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, kBM, Swizzle::b128));
  // B's box is one CTA's slice: kSliceRows rows of N (all 256 with cluster 1).
  auto tmap_b =
      b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, kSliceRows, Swizzle::b128));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const tma_ring::Ring ring = tma_ring::declare_ring(b, stages, kABytes, hopper::b_tile_bytes(bn));
  tile_order::CornerHandoff handoff = tile_order::corner_handoff(b, order, stages);  // Hilbert: producer -> consumers

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg wg = (tid >> 7).named("wg");
  Reg rank = b.special(ir::Special::cluster_ctarank, "rank");
  Reg cluster = (b.special(ir::Special::ctaid_x, "cta") / kCluster).named("cluster");
  // This cluster's tiles: cluster, cluster + clusters, ... below cluster_tiles (at least one).
  Reg my_tiles =
      ((b.mov(Type::u32, cluster_tiles + clusters - 1, "tiles_rounded") - cluster) / clusters).named("my_tiles");
  // Rank r's tile: the r-th 128 rows of the cluster tile, in the cluster tile's 256 columns.
  const auto tile_corner = [&](const Reg& i) {
    const hopper::TileCorner ct = tile_order::tile_corner(b, order, (cluster + i * clusters).named("cluster_tile"),
                                                              cluster_rows, tiles_n, kGroupM / kCluster,
                                                              kCluster * kBM, bn);
    return hopper::TileCorner{(ct.m0 + rank * kBM).named("m0"), ct.n0};
  };
  const bool release_all = kCluster > 1 && !cfg.has(kReleaseOwnOnly);
  tma_ring::init_ring(b, ring, tid, release_all ? kWarpArrivals * kCluster : kWarpArrivals);
  if (kCluster > 1) {
    b.comment("every CTA's barriers are initialised before any CTA multicasts into it or arrives on them");
    b.barrier_cluster_arrive();
    b.barrier_cluster_wait();
  }
  const uint32_t k_blocks = hopper::ceil_div(K, kBK);

  b.comment("warpgroup 0 produces; it needs few registers and gives the rest back");
  b.if_((wg == 0).named("producer_wg"), [&] {
    b.role(ir::WarpRole::producer, [&] {
      b.setmaxnreg(false, kProducerRegs);
      b.if_((tid == 0).named("producer"), [&] {
        Reg tmA = b.tensor_map_address(tmap_a, "tmA");
        Reg tmB = b.tensor_map_address(tmap_b, "tmB");
        // Bit r of the mask is the CTA of %cluster_ctarank r: every CTA of the cluster.
        Reg cta_mask = cfg.has(kMaskWithoutPeers) ? ((b.mov(Type::u16, 1, "one") << rank).named("cta_mask"))
                                                  : b.mov(Type::u16, (1u << kCluster) - 1, "cta_mask");
        Reg slice_row = (rank * kSliceRows).named("slice_row");      // this CTA's rows of B's box
        Reg slice_off = (rank * kSliceBytes).named("slice_off");     // and where they land in sB[s]
        // This CTA receives its A box and every CTA's slice of B (or, mistaken, its own slice only).
        const uint32_t expected = cfg.has(kExpectOwnSlice) ? kABytes + kSliceBytes : kABytes + hopper::b_tile_bytes(bn);
        Reg stage = b.mov(Type::u32, 0, "stage");
        Reg phase = b.mov(Type::u32, 0, "phase");
        b.loop("tile_load", my_tiles, [&](const Reg& i) {
          const hopper::TileCorner at = tile_corner(i);
          b.k_loop("kb_load", k_blocks, [&](const Reg& kb) {
            b.comment("wait until every CTA of the cluster released this stage (a fresh barrier passes parity 1)");
            b.mbarrier_wait(ring.empty_at(stage), phase ^ 1, kSuspendHintNs);
            tile_order::publish_corner(b, handoff, stage, kb, at);
            const Addr full_s = ring.full_at(stage);
            b.mbarrier_arrive_expect_tx(full_s, expected);
            Reg k0 = (kb * kBK).named("k0");
            b.cp_async_bulk_tensor_load(Addr::at(ring.a_at(stage)), tmA, {k0, at.m0}, full_s);
            if (kCluster == 1) {
              b.cp_async_bulk_tensor_load(Addr::at(ring.b_at(stage)), tmB, {k0, at.n0}, full_s);
            } else {
              b.comment("this CTA's slice of B, into the same offset of every CTA of cta_mask");
              b.cp_async_bulk_tensor_load_multicast(Addr::at((ring.b_at(stage) + slice_off).named("sB_slice")), tmB,
                                                    {k0, (at.n0 + slice_row).named("b_row")}, full_s, cta_mask);
            }
            tma_ring::next_stage(b, stage, phase, stages);
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
      Reg elected = b.elect_sync("elected");  // this warp's one arriving lane (own CTA only)
      // Lane q arrives on CTA q's empty[stage] (a shared::cluster address, from mapa).
      std::optional<tma_ring::ClusterRelease> release;
      if (release_all) release = tma_ring::cluster_release(b, ring, (tid & 31).named("lane"), kCluster);
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
          if (!release_all) {
            b.if_(elected, [&] { b.mbarrier_arrive(ring.empty_at(stage)); });  // step 16: this CTA's barrier only
          } else {
            b.comment("release the stage in every CTA, lane q on CTA q: each one's producer multicasts here");
            tma_ring::release_stage_in_cluster(b, *release, stage);
          }
          tma_ring::next_stage(b, stage, phase, stages);
        });
        b.role(ir::WarpRole::epilogue, [&] {
          b.comment("rows below C (an idle rank of the last cluster tile) are clipped like any edge");
          hopper::store_tile_clipped(b, acc[0], bn, C, wg_thread, (at.m0 + (slab << 6)).named("row0"), at.n0, M, N,
                                     c_dtype);
        });
      });
    });
  });
  if (kCluster > 1) {
    b.comment("no CTA exits while a peer may still arrive on its barriers");
    b.barrier_cluster_arrive();
    b.barrier_cluster_wait();
  }
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo hopper_cluster_multicast_info() {
  KernelInfo k;
  hopper::set_hopper_info(k, kId, {kBM, kShippedBN, kBK});
  k.title = "Hopper clusters + TMA multicast: CTA pairs share B";
  k.delta = "clusters of 2 CTAs compute two tiles of one tile-column; each loads half of B's box and multicasts it "
            "into both CTAs, and consumers release a stage on the empty barriers of both";
  k.explanation =
      "The persistent kernel of the previous step, launched in clusters of two CTAs on neighbouring SMs (the "
      "build parameter 'cluster' takes 1, 2 or 4). A cluster computes the tiles of one tile-column that lie "
      "one above the other, so they need the same 256 columns of B. Each CTA loads its own rows of A and only "
      "its share of B, with a multicast TMA load that writes the share into the same shared-memory offset of "
      "every CTA of the cluster and counts its bytes on each CTA's full barrier: B leaves L2 once per cluster, "
      "and each SM fetches 32 KiB per stage instead of 48. Every CTA's full barrier therefore expects all of "
      "B's bytes, including those its peers issue. A stage of one CTA is now written by the producers of all "
      "CTAs, so a stage is free only when every CTA's consumers are done with it: each consumer warp arrives "
      "on the empty barrier of every CTA (mapa turns the local address into the peer's, and the arrive "
      "reaches across the cluster), and the empty barriers expect 8 arrivals per CTA. Cluster barriers make "
      "sure the barriers exist before the first multicast, and that no CTA exits while peers still arrive on "
      "its barriers. The grid walks cluster tiles, so the CTAs of a cluster always work on neighbours; a rank "
      "whose tile falls below C still loads its share of B for the others and stores nothing.";
  // Two cluster tiles of 256x256 (four CTAs), 8 K-blocks: the 3-stage ring wraps, so both the
  // full and the empty barriers' phases matter.
  k.example_shape = {256, 512, 512};
  hopper::declare_tile_n(k, {.bn_default = kShippedBN, .stages_default = 3, .a_bytes = kABytes},
                         {{"cluster",
                           "CTAs per cluster: the tiles one above the other that share B's box (1 is step 16's "
                           "kernel with plain loads)",
                           2,
                           {1, 2, 4}},
                          persistent_ctas_param(),
                          tile_order::order_param(tile_order::Order::grouped),
                          c_dtype_param()});
  k.mistakes = {
      {kMaskWithoutPeers, "each CTA multicasts its slice of B with a cta_mask of its own bit only",
       "no full barrier ever receives the peers' slices: every CTA's consumers wait on full[0] forever with "
       "the peers' bytes still expected (a deadlock; the GPU hangs)"},
      {kReleaseOwnOnly,
       "the consumers release a stage as in step 16: one arrival per warp on this CTA's empty barrier, which "
       "expects 8",
       "a producer refills a stage when its own consumers are done, with no word from the peer's: its multicast "
       "may land in the peer's stage while the peer still reads it (a cluster-race whatever the timing; on the "
       "GPU C is wrong when the peer is slower)"},
      {kExpectOwnSlice, "each CTA's full barrier expects its A box and its own slice of B only",
       "the phase completes when A and this CTA's slice have landed, with the peers' slices still on their way: "
       "the consumers read the stage early (a race), and the late bytes count towards the next phase"},
  };
  // No cta_tile: a CTA writes several tiles of C (opening it generates all of A and B).
  // Where this step's lesson shows: a cluster sharing its loads by multicast.
  k.focus_views = {"tma", "schedule", "timeline"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::cluster_barrier}, {StopKind::multicast}, {StopKind::ring_wraps}, {StopKind::pipeline_drains}};
  k.pictures = {"schedule", "tma"};
  k.build = build_hopper_cluster_multicast;
  return k;
}

}  // namespace gs::kernels
