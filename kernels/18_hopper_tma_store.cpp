// Step 18 — Hopper: an asynchronous TMA-store epilogue (fast.cu's matmul_10).
//
// What it teaches: the copy engine can write C too. Until step 17 each consumer thread stores
// its 128 accumulators to global memory itself (64 st.global.v2 per thread per tile, each
// waiting for its memory pipe), and the next tile's wgmmas wait behind them. Here the consumers
// hand C to the copy engine in chunks of 64x64 f32 (16 KiB): they write a chunk into a shared
// staging buffer, one thread per warpgroup issues cp.async.bulk.tensor...global.shared::cta (a
// TMA store, clipped at C's edges like the loads are zero-filled), and the warpgroup writes the
// next chunk while the copy engine reads this one; after the tile they go straight on to the
// next tile's K loop with the last stores still in flight.
//
// Why is it correct? Two rules make it so (PTX ISA, cp.async.bulk and the memory consistency
// model):
//   * the TMA store reads shared memory through the async proxy, so the threads' ordinary
//     st.shared writes must be made visible to it: fence.proxy.async after the writes, then a
//     barrier, then the store (mistake missing-proxy-fence);
//   * a store reads its buffer asynchronously: the issuing thread closes its stores into bulk
//     groups (cp.async.bulk.commit_group) and cp.async.bulk.wait_group.read N returns once at
//     most N groups may still read shared memory. With two buffers per warpgroup, wait_group.read
//     1 before writing a buffer again means the store that last read it has finished (mistake
//     reuse-staging-before-wait); wait_group.read 0 before the CTA exits.
//
// Phases, as the code runs them: launch, tile walk, barriers, producer and consumers' K loop are
// step 17's (clusters of "cluster" CTAs sharing B through multicast); the epilogue, per
// consumer warpgroup and tile, for chunk c = 0..3 of its 64 rows x 256 columns:
//   * the issuer waits until buffer c % 2 is no longer read (wait_group.read 1), bar.sync 1;
//   * every thread writes its accumulators of columns 64c.. into the buffer, fence.proxy.async,
//     bar.sync 1;
//   * the issuer stores the buffer to C at (row m0 + 64·slab, column n0 + 64c) and commits.
// bar.sync 1 counts both consumer warpgroups (256 threads): they leave the K loop together.
//
// What changed from step 17: two staging buffers sC per consumer warpgroup (64 KiB beside the
// ring), C as an f32 tensor map, the epilogue above instead of st.global.
//
// What it leaves: the buffer is packed (the TMA store's box, swizzle none), so the eight rows a
// warp's st.shared.v2 writes at once lie 256 bytes apart, in the same eight banks: an 8-way
// conflict the Shared-memory view shows. stmatrix with a padded or swizzled staging tile (issue
// 31's next step) removes it.
//
// C's type is a build parameter, c_dtype: f32 (as cuBLAS's f32 output, the default) or bf16 (as
// fast.cu writes it): each pair of accumulators is rounded to nearest even into one bf16x2 word
// (cvt.rn.bf16x2.f32), the staging buffers hold 8 KiB a chunk, and C's tensor map is bf16. Half
// the bytes go to HBM; cuBLAS is then timed with a bf16 C too.
#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/cluster_parts.hpp"
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

constexpr std::string_view kId = "hopper_tma_store";

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
// The epilogue: a consumer's 64 rows x 256 columns go out in chunks of 64 x 64 elements of C
// through two staging buffers (each 64 rows of 256 bytes of f32, or 128 of bf16: the TMA store's
// box packed in shared memory).
constexpr uint32_t kChunkCols = 64;  // bn / kChunkCols chunks a tile: 4 as it ships
constexpr uint32_t kBuffers = 2;                       // per consumer warpgroup
constexpr uint32_t kStoreBarrier = 1;                  // bar.sync id of the consumers' epilogue (0: the init's)

// The deliberate mistakes, each with what it changes (the registry entry says the symptom).
constexpr const char* kMissingProxyFence = "missing-proxy-fence";    // no fence.proxy.async after the writes
constexpr const char* kReuseBeforeWait = "reuse-staging-before-wait";  // no wait_group.read before a rewrite

// C (M x N of f32 or bf16, row-major) as a tensor of 64 x 64 boxes for the TMA stores.
ir::TensorMapDesc c_store_map(uint32_t M, uint32_t N, DType c_dtype) {
  ir::TensorMapDesc d;
  d.source = ir::ParamRole::c;
  d.dtype = c_dtype == DType::f32 ? ir::TensorDtype::f32 : ir::TensorDtype::bf16;
  d.global_dim = {N, M, 1, 1, 1};
  d.global_strides_bytes = {uint64_t(N) * (c_dtype == DType::f32 ? 4 : 2), 0, 0, 0};
  d.box_dim = {kChunkCols, 64, 1, 1, 1};
  return d;
}

ir::Kernel build_hopper_tma_store(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const uint32_t stages = cfg.param("stages");
  const uint32_t bn = cfg.param("bn");  // the tile's N: 256 as it ships
  const auto order = tile_order::Order(cfg.param("order"));
  const uint32_t kCluster = cfg.param("cluster");
  const uint32_t kSliceRows = bn / kCluster;  // B's box: each CTA loads 1/cluster of its rows
  const DType c_dtype = cfg.param("c_dtype") == 16 ? DType::bf16 : DType::f32;
  const bool zero_acc = cfg.param("zero_acc") == 1;  // zero the accumulators, not scale-d 0 (a variant)
  const uint32_t es = c_dtype == DType::f32 ? 4 : 2;  // bytes of one element of C
  const uint32_t chunk_bytes = 64 * kChunkCols * es;   // a staging buffer: 16 KiB of f32, 8 KiB of bf16
  Builder b(std::string(kId), ir::Arch::sm_90a);
  const uint32_t tiles_m = hopper::ceil_div(M, kBM), tiles_n = hopper::ceil_div(N, bn);
  const uint32_t cluster_rows = hopper::ceil_div(tiles_m, kCluster);  // tile-rows of cluster tiles
  const uint32_t cluster_tiles = cluster_rows * tiles_n;
  const uint32_t clusters = std::min(cfg.param("ctas") / kCluster, cluster_tiles);
  b.set_launch({.grid = {clusters * kCluster, 1, 1}, .block = {kThreads, 1, 1}, .cluster = {kCluster, 1, 1}});
  b.set_min_ctas_per_sm(1);  // with .maxntid: ptxas fixes the count at entry, so setmaxnreg takes effect
  b.declare_tile_walk(tile_order::walk(order, cluster_rows, tiles_n, kGroupM / kCluster, clusters, kCluster, tiles_m));

  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, kBM, Swizzle::b128));
  auto tmap_b =
      b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, kSliceRows, Swizzle::b128));
  auto tmap_c = b.tensor_map_param("tmap_C", c_store_map(M, N, c_dtype));
  const tma_ring::Ring ring = tma_ring::declare_ring(b, stages, kABytes, hopper::b_tile_bytes(bn));
  tile_order::CornerHandoff handoff = tile_order::corner_handoff(b, order, stages);  // Hilbert: producer -> consumers
  // Buffer i of consumer warpgroup s is sC[2s + i].
  const builder::Smem sC = b.operand_stages("sC", ir::GemmOperand::c, kConsumers * kBuffers, chunk_bytes, 1024);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg wg = (tid >> 7).named("wg");
  Reg rank = b.special(ir::Special::cluster_ctarank, "rank");
  Reg cluster = (b.special(ir::Special::ctaid_x, "cta") / kCluster).named("cluster");
  Reg my_tiles =
      ((b.mov(Type::u32, cluster_tiles + clusters - 1, "tiles_rounded") - cluster) / clusters).named("my_tiles");
  const auto tile_corner = [&](const Reg& i) {
    const hopper::TileCorner ct = tile_order::tile_corner(b, order, (cluster + i * clusters).named("cluster_tile"),
                                                              cluster_rows, tiles_n, kGroupM / kCluster,
                                                              kCluster * kBM, bn);
    return hopper::TileCorner{(ct.m0 + rank * kBM).named("m0"), ct.n0};
  };
  tma_ring::init_ring(b, ring, tid, kCluster > 1 ? kWarpArrivals * kCluster : kWarpArrivals);
  if (kCluster > 1) {
    b.comment("every CTA's barriers are initialised before any CTA multicasts into it or arrives on them");
    b.barrier_cluster_arrive();
    b.barrier_cluster_wait();
  }
  const uint32_t k_blocks = hopper::ceil_div(K, kBK);

  // The producer is step 17's, now tma_ring::cluster_producer (kernels/cluster_parts.cpp).
  b.comment("warpgroup 0 produces (step 17)");
  b.if_((wg == 0).named("producer_wg"), [&] {
    b.role(ir::WarpRole::producer, [&] {
      b.setmaxnreg(false, kProducerRegs);
      b.if_((tid == 0).named("producer"), [&] {
        tma_ring::cluster_producer(b, {.ring = &ring,
                                       .tmap_a = tmap_a,
                                       .tmap_b = tmap_b,
                                       .cluster = kCluster,
                                       .b_rows = bn,
                                       .k_block = kBK,
                                       .rank = rank,
                                       .my_tiles = my_tiles,
                                       .tile_corner = tile_corner,
                                       .k_blocks = k_blocks,
                                       .handoff = &handoff,
                                       .suspend_hint_ns = kSuspendHintNs});
      });
    });
  });

  b.comment(fmt::format("warpgroups 1 and 2 consume: each owns 64 rows of every 128x{} tile", bn));
  b.if_((wg != 0).named("consumer_wg"), [&] {
    b.role(ir::WarpRole::consumer, [&] {
      b.setmaxnreg(true, kConsumerRegs);
      Reg slab = (wg - 1).named("consumer");
      Reg slab_off = (slab * kSlabBytes).named("slab_off");
      const std::vector<Reg> acc = hopper::accumulators(b, bn, "acc");
      const hopper::RingDescriptors descriptors = hopper::ring_descriptors(b, ring, 1, slab_off);
      Reg elected = b.elect_sync("elected");
      std::optional<tma_ring::ClusterRelease> release;  // lane q arrives on CTA q's empty[stage]
      if (kCluster > 1) release = tma_ring::cluster_release(b, ring, (tid & 31).named("lane_id"), kCluster);
      Reg stage = b.mov(Type::u32, 0, "stage");
      Reg phase = b.mov(Type::u32, 0, "phase");
      Reg wg_thread = (tid & 127).named("wg_thread");
      Reg issuer = (wg_thread == 0).named("store_issuer");  // one thread per warpgroup stores
      Reg tmC = b.tensor_map_address(tmap_c, "tmC");
      // This warpgroup's two buffers, and this thread's place in a buffer:
      // (T128, V2) -> (M64, N8): row 16w + l/4 (+8), columns 2(l%4), +1 of each 8-column block.
      Reg buffers = (b.smem_address(sC, 0, "sC_base") + slab * (kBuffers * chunk_bytes)).named("sC_mine");
      Reg warp = (wg_thread >> 5).named("warp_in_wg");
      Reg lane = (wg_thread & 31).named("lane");
      Reg at_thread =
          (((warp << 4) + (lane >> 2)) * (kChunkCols * es) + ((lane & 3) * (2 * es))).named("at_thread");
      Reg my_slot = (buffers + at_thread).named("my_slot");
      tile_order::consumer_corner_registers(b, handoff);
      b.loop("tile", my_tiles, [&](const Reg& i) {
        const hopper::TileCorner at = handoff.used ? handoff.received : tile_corner(i);
        if (zero_acc) {
          b.comment("the variant zero_acc=1: zero the accumulators, then every wgmma accumulates");
          hopper::zero_accumulators(b, acc);
        }
        b.k_loop("kb", k_blocks, [&](const Reg& kb) {
          hopper::consume_k_block(b, ring, descriptors, stage, phase, bn, {acc}, kb, kSuspendHintNs, !zero_acc);
          tile_order::receive_corner(b, handoff, stage, kb);
          if (kCluster == 1) b.if_(elected, [&] { b.mbarrier_arrive(ring.empty_at(stage)); });
          else tma_ring::release_stage_in_cluster(b, *release, stage);
          tma_ring::next_stage(b, stage, phase, stages);
        });
        b.role(ir::WarpRole::epilogue, [&] {
          Reg row0 = (at.m0 + (slab << 6)).named("row0");
          for (uint32_t c = 0; c < bn / kChunkCols; ++c) {
            const int64_t buffer = int64_t(c % kBuffers) * chunk_bytes;
            b.comment(fmt::format("chunk {}: columns {}..{} through buffer {}", c, c * kChunkCols,
                                  (c + 1) * kChunkCols - 1, c % kBuffers));
            // Mistake reuse-staging-before-wait: the buffer is written while the store that
            // read it two chunks ago may still be reading.
            if (!cfg.has(kReuseBeforeWait))
              b.if_(issuer, [&] { b.cp_async_bulk_wait_group_read(kBuffers - 1); });
            b.bar_sync(kStoreBarrier, 128 * kConsumers);  // the buffer is free for every writer
            for (uint32_t jj = 0; jj < kChunkCols / 8; ++jj) {
              const uint32_t j = c * (kChunkCols / 8) + jj;  // the 8-column block of the tile
              for (uint32_t h = 0; h < 2; ++h) {
                const int64_t offset = buffer + int64_t(8 * h) * kChunkCols * es + int64_t(jj) * 8 * es;
                if (c_dtype == DType::f32)
                  b.st_shared(Type::f32, Addr::at(my_slot, offset), {acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]});
                else  // the pair rounded to bf16 (first column in the low half): one 32-bit word
                  b.st_shared(Type::b32, Addr::at(my_slot, offset),
                              {hopper::pack_bf16x2(b, acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1], "c_pair")});
              }
            }
            // Mistake missing-proxy-fence: the TMA store may read what the generic proxy has
            // not made visible to the async proxy.
            if (!cfg.has(kMissingProxyFence)) b.fence_proxy_async();
            b.bar_sync(kStoreBarrier, 128 * kConsumers);  // every write is in and fenced
            b.if_(issuer, [&] {
              b.cp_async_bulk_tensor_store(tmC, {(at.n0 + c * kChunkCols).named("c_col"), row0},
                                           Addr::at(buffers, buffer));
              b.cp_async_bulk_commit_group();
            });
          }
        });
      });
      b.comment("the last stores must have read their buffers before the CTA's shared memory goes away");
      b.if_(issuer, [&] { b.cp_async_bulk_wait_group_read(0); });
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

KernelInfo hopper_tma_store_info() {
  KernelInfo k;
  hopper::set_hopper_info(k, kId, {kBM, kShippedBN, kBK});
  k.title = "Hopper async TMA-store epilogue: C through shared staging buffers";
  k.delta = "the consumers write C in 64x64 chunks to two shared staging buffers per warpgroup and one thread stores "
            "each with a TMA store (bulk groups, wait_group.read before a buffer is rewritten), while the next tile "
            "starts";
  k.explanation =
      "The clustered, persistent kernel of the previous step with a new epilogue. Instead of 128 global stores per "
      "thread, each consumer warpgroup hands C to the copy engine: its threads write a 64x64 chunk of their "
      "accumulators into a staging buffer in shared memory, make the writes visible to the async proxy with "
      "fence.proxy.async, meet at a barrier, and one thread issues a TMA store of the buffer to C (clipped at C's "
      "edges) and commits it to a bulk group. The warpgroup writes the next chunk into its second buffer while the "
      "first is read; before it writes a buffer again, the issuing thread waits with cp.async.bulk.wait_group.read 1 "
      "until at most one store (the other buffer's) may still read. After a tile the consumers go straight on to the "
      "next one with the last stores still in flight, and wait_group.read 0 before the end.";
  k.example_shape = {256, 512, 512};  // two pairs, 8 K-blocks around the ring; four chunks per slab
  // 64 KiB of staging buffers (f32 C's; bf16's take half, the ring is sized for either) leave room
  // for 3 ring stages of 48 KiB (227 KiB in all) at bn=256, more at a smaller bn.
  // The tile's N is the build parameter bn, as in step 14: a consumer's bn columns go out in bn/64
  // chunks, and the staging buffers' 64 KiB (sized for f32 C) count against the ring's stages.
  hopper::declare_tile_n(
      k,
      {.bn_default = kShippedBN,
       .stages_default = 3,
       .a_bytes = kABytes,
       .other_bytes = kConsumers * kBuffers * 64 * kChunkCols * 4,
       .other_what = "the 64 KiB of staging buffers",
       .tile_ns = {128, 256},
       .bn_note = "; 128 or 256 only: an odd count of 64-column chunks reuses a staging buffer a store may still "
                  "read (a race)"},
      {{"cluster", "CTAs per cluster sharing B's box (step 17; 1: plain loads)", 2, {1, 2, 4}},
       persistent_ctas_param(),
       tile_order::order_param(tile_order::Order::grouped),
       c_dtype_param(),
       {"zero_acc",
        "how a tile's sum starts: 0 the first wgmma with scale-d 0 (D = A·B, nothing zeroed: the ladder's way), 1 "
        "128 mov.f32 of 0 a thread before the tile and every wgmma accumulating (the plain way)",
        0,
        {0, 1}}});
  k.mistakes = {
      {kMissingProxyFence, "the threads write a staging buffer and meet at the barrier without fence.proxy.async",
       "the TMA store (async proxy) reads bytes the generic proxy's st.shared may not have made visible to it: "
       "missing-proxy-fence; C may hold stale chunks on the GPU"},
      {kReuseBeforeWait, "the issuing thread never waits with cp.async.bulk.wait_group.read before a buffer is rewritten",
       "chunk 2 is written into buffer 0 while chunk 0's store may still read it: a bulk-store-race (C is wrong when "
       "the copy engine is slower than the threads)"},
  };
  // No cta_tile: a CTA writes several tiles of C (opening it generates all of A and B).
  // Where this step's lesson shows: the epilogue through shared memory and a TMA store.
  k.focus_views = {"timeline", "smem", "diff"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::ring_wraps}, {StopKind::tma_store}, {StopKind::pipeline_drains}};
  k.pictures = {"smem", "timeline"};
  k.build = build_hopper_tma_store;
  return k;
}

}  // namespace gs::kernels
