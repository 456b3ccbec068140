// Step 19 — Hopper: a stmatrix epilogue through a swizzled staging tile (fast.cu's matmul_12).
//
// What it teaches: how registers reach a shared tile decides how fast they get there. Step 18's
// staging buffer is the TMA store's box packed (rows of 256 bytes), so the eight rows a warp's
// st.shared writes at once start at the same bank: every write is an 8-way bank conflict, and
// the 8-KiB chunk a warpgroup stages takes four times the wavefronts it needs. Two changes:
//   * stmatrix.x4 (PTX ISA "stmatrix"): a warp stores four 8x8 matrices of b16 in one
//     instruction. A wgmma accumulator's 8-column block of a warp's 16 rows is two such
//     matrices, each already in stmatrix's fragment (lane l: row l/4, columns 2(l%4), +1), so a
//     bf16 pair is one register of one matrix; lane i names the 16-byte row i%8 of matrix i/8.
//     Without .trans: C is row-major like the fragment (.trans would write C's transpose, which
//     fits a column-major C, not this one);
//   * the staging tile is a 128B-swizzled box, 64 rows of 128 bytes: the 16-byte piece p of row
//     r sits at piece p ^ (r % 8) (facts §3, layout::swizzle_address). The eight rows of one
//     matrix then fill eight different pieces, all 32 banks: one wavefront a matrix, the ideal.
//     The TMA store reads the box through a tensor map with the same swizzle (CU_TENSOR_MAP_
//     SWIZZLE_128B), which undoes the XOR on its way to C; a 128B swizzle needs the box's rows
//     to be 128 bytes, so a chunk is 64 columns of bf16. Padding (fast.cu's way, a row of 128 +
//     16 bytes) is conflict-free too, but a TMA box is packed in shared memory: a padded tile
//     needs one store per row, the swizzle keeps one store per chunk.
//
// Why is C bf16 by default? C's type is the build parameter c_dtype, bf16 by default here: stmatrix
// stores b16, so bf16 C (as fast.cu writes it; bench times cuBLAS with a bf16 C then) is the path
// this step teaches. f32 (c_dtype=f32) cannot go through stmatrix; it keeps step 18's
// st.shared.v2.f32 writes into the same swizzled 8-KiB buffers, whose rows of 128 bytes hold 32
// columns: 8 chunks a tile instead of 4. Each write takes 4 wavefronts where its 256 bytes need 2
// (step 18's took 8): a v2 store is served a half-warp, 4 rows, at a time, and XOR by r % 8 only
// swaps the two pieces rows 0 and 1 (2 and 3) write, so two rows still share banks. No swizzle the
// TMA store knows removes that (each XORs the piece's lowest bit with the row's); 32-byte-wide
// boxes would.
//
// Phases, as the code runs them: launch, tile walk, barriers, producer and consumers' K loop are
// step 17's (clusters of "cluster" CTAs sharing B, or A with share=a, through multicast); the
// epilogue is step 18's with new writes, per consumer warpgroup and tile, for chunk c of its 64
// rows x 256 columns (at bm=256, of each of its two 64-row slabs in turn):
//   * the issuer waits until buffer c % 2 is no longer read (wait_group.read 1), bar.sync 1;
//   * every warp writes its 16 rows of the chunk: bf16, four stmatrix.x4 of bf16 pairs; f32,
//     eight st.shared.v2.f32; then fence.proxy.async (stmatrix is a generic-proxy write too),
//     bar.sync 1;
//   * the issuer stores the buffer to C at (row m0 + 64·slab, column n0 + c·chunk) and commits
//     (with c_store_hint=evict_first through the L2 policy its warpgroup made before the tiles).
//
// A micro-optimisation on C's stores, the build parameter c_store_hint (0 none, the default;
// 1 evict_first): C is written once and never read back by this kernel, while every CTA keeps
// reading A's and B's panels through L2. With evict_first each consumer warpgroup makes an L2
// policy once (createpolicy.fractional.L2::evict_first.b64, PTX ISA "createpolicy") and its TMA
// stores take the .L2::cache_hint form with it (PTX ISA "cp.async.bulk.tensor"), so C's lines
// are the first L2 evicts and push fewer panel lines out. C is the same bytes either way (the
// model stores the same; it keeps no L2 priorities, so its prediction does not change); whether
// the hint helps is measured on the GPU, with `bench --param c_store_hint=evict_first` against
// the default: on an H200 (2026-12-02, docs/results/2026-12-02-cublas-side) within every run's
// spread of the default at 2048^3 to 8192^3, both C types.
//
// Who meets at the epilogue's barriers, the build parameter store_barrier (0 consumers, the
// default; 1 warpgroup): both consumer warpgroups at one bar.sync of 256 threads, twice a chunk,
// or each at its own named barrier of 128 (ids 1 and 2). Each warpgroup writes its own buffers and
// has its own issuer, so nothing of the other's is waited for; the faster no longer waits for the
// slower. On an H200 (2026-12-03) it measured at most half a point of cuBLAS faster at 4096^3.
//
// How a consumer stages its slab, the build parameter staging (0 chunks, the default; 1 slab):
// chunks are written in turn through two buffers, each chunk waiting for the store that read its
// buffer two chunks before, so the warpgroup meets twice a chunk (8 times a tile of bf16). With
// slab every chunk has its own buffer (fast.cu's matmul_12 stages its whole slab the same way, in
// one padded tile): the issuer waits once for the last tile's stores (long done: a whole K loop
// ran since), the warps write all 16 stmatrix.x4 and meet once more, and the issuer stores the
// chunks in one bulk group. It takes bf16 C only (an f32 slab is 128 KiB a consumer) and its 64
// KiB of buffers at bn=256 leave room for 3 stages instead of 4. On an H200 (2026-12-03,
// docs/results/2026-12-03-slab) it measured 0.1-0.6 points of cuBLAS over the default at 4096^3 to
// 8192^3, inside the paired rounds' spread: the epilogue's meetings are not where the last points are.
//
// How long a K block's wgmmas may run, the build parameter wgmma_in_flight (0, the default; 1):
// with 0 a consumer waits for its block's wgmma group (wait_group 0) and then releases the stage,
// as fast.cu does; with 1 it waits only for the block before's (wait_group 1), so its wgmmas run
// on while the next block's full wait and wgmmas are issued, and it releases a stage one block
// later, once the wgmmas reading it are done (a stage the wgmmas still read must not be released:
// the producer would overwrite it). On an H200 (2026-12-03, docs/results/2026-12-03-slab) it
// lost 1.2-1.7 points of cuBLAS at 4096^3 and 6144^3 (0.971 against 0.985 at 4096^3), where the
// model predicts no difference: with two consumer warpgroups the other's wgmmas already fill the
// tensor cores while one waits, so nothing is gained, and Nsight Compute finds the consumers'
// next HGMMAs stalled at issue on the MIO queue (19% of the warps' stall samples against 3%): two
// warpgroups with two K blocks each outstanding fill the queue to the tensor cores, and a warp
// stuck issuing reaches its wait_group and its stage's release late.
//
// What changed from step 18: the swizzled staging buffers (8 KiB each for both types, so the
// ring takes up to 4 stages of 48 KiB), C's tensor map with the 128B swizzle, each thread's
// swizzled row addresses computed once before the tiles, stmatrix for bf16, bf16 by default,
// and the optional cache hint on C's stores.
//
// The tile's N is the build parameter bn, as in step 14 (hopper::declare_tile_n): a consumer's
// bn columns go out in bn/64 chunks of bf16 (bn/32 of f32), and the staging buffers' 32 KiB
// count against the ring's stages (8 fit at bn=64). bn=192 is for shapes whose 128x256 tiles
// leave the last round of the persistent walk part-empty: at 3000x5000x4096 with 132 CTAs, 480
// tiles of 128x256 take 4 rounds (3.64 tiles a CTA), 648 of 128x192 take 5 of three-quarter
// tiles (4.91), the model's 628.6 against 608.1 TFLOP/s on an H100 (not yet measured on a GPU).
// Its three chunks of bf16 make the buffers' turns odd: chunk i goes through buffer i % 2 and
// waits until only the newest store may read (wait_group.read 1), which for a tile's first chunk
// is the tile before's last, in buffer 0 too; that chunk waits for every store (read 0), all of
// them issued a whole K loop earlier.
//
// Why cuBLAS's tile (the build parameters bm and share)? On the H100 at 4096^3 cuBLAS runs a
// 256x128 tile (nvjet_sm90_tst_256x128_64x4_1x2: 64-wide K blocks in 4 stages, clusters of 1x2)
// and takes 3.7% fewer cycles than this step's 128x256, reading 10% fewer L2 sectors. Measured
// here (H100, 2026-12-06, docs/results/2026-12-06-tile256) the tile alone is not where cuBLAS
// gains: 256x128 in pairs sharing A reached 0.978 of cuBLAS at 4096^3 and 1.000 at 8192^3, where
// 128x256 in pairs sharing B reached 0.980 and 1.008 in the same run.
//   * bm (128, the default; 256): the tile's M. At 256 each consumer warpgroup owns 128 rows, two
//     64-row slabs of A: a k16 step is two wgmma.m64nNk16 sharing B's descriptor (acc[0] with A's
//     slab 0, acc[1] with slab 1, 8 KiB further: +512 in the descriptor), bn/2 accumulators each,
//     so bm=256 takes bn=128 only (128 a thread, as 64 x 256 has; 128 x 256 would need 256). A
//     stage is then A's 256 rows (32 KiB: one box, a box side being at most 256) and B's 128 (16
//     KiB): 48 KiB, as at 128x256, so 4 stages still fit beside the 32 KiB of staging buffers. The
//     epilogue sends each 64-row slab out as today, one after the other through the same buffers:
//     a consumer's chunks are slab 0's then slab 1's (row0 + 64).
//   * share (b, the default, step 17's; a): which operand a cluster's CTAs share. With share=b the
//     cluster's tiles lie one above the other (one tile-column: the same rows of B), with share=a
//     side by side (one tile-row: the same rows of A), cuBLAS's 1x2 pair: rank r takes the columns
//     n0 + r·bn of the cluster tile, each CTA loads its own B box whole and 1/cluster of A's box
//     (rows m0 + r·bm/cluster), multicast into every CTA (tma_ring::cluster_producer). The full
//     barrier still expects A's and B's whole boxes (every slice of A, its own B), and a stage is
//     still released on every CTA's empty barrier: every producer of the cluster writes into it.
//     The walk runs over cluster tiles of bm x (cluster·bn) (tile_order::walk_along_n); when the
//     tile-columns do not divide by the cluster, the last cluster tile's upper ranks lie right of C:
//     their B box is wholly outside (TMA fills zeros), their slice of A is one the peers need, and
//     their stores are clipped whole.
// What a CTA loads a stage: share=b at 128x256, 16 KiB of A + 32/c KiB of B; share=a at 256x128,
// 32/c KiB of A + 16 KiB of B: the same bytes for the same cluster c (the other pairings load
// more: 40 KiB at c=2), so where cuBLAS's tile gains is for the GPU to tell. A group of the
// grouped order is 2048 rows of C at either bm (16 tile-rows at 128, 8 at 256), so a wave's tiles
// cover about as many rows of A as columns of B with both tiles.
#include <array>
#include <optional>

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

constexpr std::string_view kId = "hopper_stmatrix_epilogue";

constexpr uint32_t kShippedBM = 128;  // the tile's M as it ships: the build parameter bm's default
constexpr uint32_t kWideBM = 256;     // bm's other value: cuBLAS's 256x128 tile (bn=128)
constexpr uint32_t kShippedBN = 256;  // the tile's N as it ships: the build parameter bn's default
constexpr uint32_t kConsumers = 2;
constexpr uint32_t kThreads = 128 * (1 + kConsumers);
// A's tile of one stage: bm rows of one 128-byte swizzle row, 16 KiB at 128 (B: hopper::b_tile_bytes(bn), 32 KiB at 256)
constexpr uint32_t a_tile_bytes(uint32_t bm) { return bm * kBK * 2; }
constexpr uint32_t kSlabRows = 64;  // rows of one wgmma.m64nNk16: a consumer owns bm/2 rows, bm/128 slabs
constexpr uint32_t kProducerRegs = 24, kConsumerRegs = 240;
constexpr uint32_t kGroupRows = 2048;  // rows of C per group of the grouped tile order (16 tile-rows at bm=128)
constexpr uint32_t kWarpArrivals = 4 * kConsumers;  // one elected lane per consumer warp, per CTA
constexpr uint32_t kSuspendHintNs = 10'000'000;     // the try_wait suspend-time hint (ns)
// The epilogue: each 64-row slab of a consumer goes out in chunks of 64 rows x 128 bytes (64 bf16 or 32 f32
// columns: one row of the 128B swizzle) through two staging buffers of 8 KiB.
constexpr uint32_t kChunkRows = 64, kRowBytes = 128;
constexpr uint32_t kChunkBytes = kChunkRows * kRowBytes;
constexpr uint32_t kBuffers = 2;       // per consumer warpgroup
constexpr uint32_t kStoreBarrier = 1;  // bar.sync id of the consumers' epilogue (0: the init's); 1 + slab per warpgroup
// The values of the build parameter store_barrier (named consumers and warpgroup on the command line).
constexpr uint32_t kBarrierConsumers = 0, kBarrierWarpgroup = 1;
// The values of the build parameter staging (named chunks and slab on the command line).
constexpr uint32_t kStagingChunks = 0, kStagingSlab = 1;
constexpr uint32_t kPiece = 16;        // bytes: one row of an 8x8 b16 matrix, one unit of the swizzle
// The values of the build parameter c_store_hint (named none and evict_first on the command line).
constexpr uint32_t kStoreHintNone = 0, kStoreHintEvictFirst = 1;
// The values of the build parameter share (named b and a on the command line).
constexpr uint32_t kShareB = 0, kShareA = 1;

// The deliberate mistakes, each with what it changes (the registry entry says the symptom).
constexpr const char* kUnswizzledStaging = "unswizzled-staging";  // packed staging tile, map without swizzle
constexpr const char* kSwizzleNotInMap = "swizzle-not-in-store-map";  // swizzled writes, unswizzled map
constexpr const char* kMissingProxyFence = "missing-proxy-fence";  // no fence.proxy.async after the writes
constexpr const char* kReuseBeforeWait = "reuse-staging-before-wait";  // no wait_group.read before a rewrite

// C (M x N of f32 or bf16, row-major) as a tensor of 64-row x 128-byte boxes for the TMA
// stores, read from shared memory through the 128B swizzle (or packed: `swizzle` none).
ir::TensorMapDesc c_store_map(uint32_t M, uint32_t N, DType c_dtype, Swizzle swizzle) {
  const uint32_t es = c_dtype == DType::f32 ? 4 : 2;
  ir::TensorMapDesc d;
  d.source = ir::ParamRole::c;
  d.dtype = c_dtype == DType::f32 ? ir::TensorDtype::f32 : ir::TensorDtype::bf16;
  d.global_dim = {N, M, 1, 1, 1};
  d.global_strides_bytes = {uint64_t(N) * es, 0, 0, 0};
  d.box_dim = {kRowBytes / es, kChunkRows, 1, 1, 1};
  d.swizzle = swizzle;
  return d;
}

ir::Kernel build_hopper_stmatrix_epilogue(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const uint32_t stages = cfg.param("stages");
  const uint32_t bm = cfg.param("bm");  // the tile's M: 128 as it ships
  const uint32_t bn = cfg.param("bn");  // the tile's N: 256 as it ships
  const uint32_t slabs = bm / kConsumers / kSlabRows;  // a consumer's 64-row slabs: 1, or 2 at bm=256
  const auto order = tile_order::Order(cfg.param("order"));
  const uint32_t kCluster = cfg.param("cluster");
  // share=a: the cluster's CTAs lie side by side and share A's box; b: one above the other, B's.
  const bool share_a = cfg.param("share") == kShareA;
  // The shared operand's box: each CTA loads 1/cluster of its rows (the other's box whole).
  const uint32_t a_box_rows = share_a ? bm / kCluster : bm, b_box_rows = share_a ? bn : bn / kCluster;
  const DType c_dtype = cfg.param("c_dtype") == 16 ? DType::bf16 : DType::f32;
  const uint32_t es = c_dtype == DType::f32 ? 4 : 2;  // bytes of one element of C
  const uint32_t chunk_cols = kRowBytes / es;          // 64 bf16 or 32 f32 columns a chunk
  const uint32_t chunks = bn / chunk_cols;            // 2 to 8 a tile (3 of bf16 at bn=192)
  // Mistake unswizzled-staging: the packed tile of step 18 (and a map that reads it packed).
  const bool swizzled = !cfg.has(kUnswizzledStaging);
  // Mistake swizzle-not-in-store-map: the writes swizzle, the TMA store reads the tile packed.
  const Swizzle map_swizzle = swizzled && !cfg.has(kSwizzleNotInMap) ? Swizzle::b128 : Swizzle::none;
  const bool evict_c_first = cfg.param("c_store_hint") == kStoreHintEvictFirst;
  const bool own_barrier = cfg.param("store_barrier") == kBarrierWarpgroup;
  // staging=slab: a buffer for every chunk of a consumer's slab (the rule in the info keeps C bf16).
  const bool whole_slab = cfg.param("staging") == kStagingSlab;
  const uint32_t buffers_each = whole_slab ? slabs * chunks : kBuffers;
  const uint32_t in_flight = cfg.param("wgmma_in_flight");  // wgmma groups a block's wait leaves running
  Builder b(std::string(kId), ir::Arch::sm_90a);
  const uint32_t tiles_m = hopper::ceil_div(M, bm), tiles_n = hopper::ceil_div(N, bn);
  // The grid of cluster tiles: kCluster tiles of one tile-column (share=b) or of one tile-row (share=a).
  const uint32_t cluster_rows = share_a ? tiles_m : hopper::ceil_div(tiles_m, kCluster);
  const uint32_t cluster_cols = share_a ? hopper::ceil_div(tiles_n, kCluster) : tiles_n;
  const uint32_t cluster_tiles = cluster_rows * cluster_cols;
  const uint32_t group_rows = kGroupRows / bm / (share_a ? 1 : kCluster);  // cluster-rows per group
  const uint32_t clusters = std::min(cfg.param("ctas") / kCluster, cluster_tiles);
  b.set_launch({.grid = {clusters * kCluster, 1, 1}, .block = {kThreads, 1, 1}, .cluster = {kCluster, 1, 1}});
  b.set_min_ctas_per_sm(1);  // with .maxntid: ptxas fixes the count at entry, so setmaxnreg takes effect
  b.declare_tile_walk(share_a ? tile_order::walk_along_n(order, tiles_m, cluster_cols, group_rows, clusters, kCluster,
                                                         tiles_n)
                              : tile_order::walk(order, cluster_rows, tiles_n, group_rows, clusters, kCluster, tiles_m));

  auto tmap_a =
      b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, a_box_rows, Swizzle::b128));
  auto tmap_b =
      b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, b_box_rows, Swizzle::b128));
  auto tmap_c = b.tensor_map_param("tmap_C", c_store_map(M, N, c_dtype, map_swizzle));
  const tma_ring::Ring ring = tma_ring::declare_ring(b, stages, a_tile_bytes(bm), hopper::b_tile_bytes(bn));
  tile_order::CornerHandoff handoff = tile_order::corner_handoff(b, order, stages);  // Hilbert: producer -> consumers
  // Buffer i of consumer warpgroup s is sC[buffers_each·s + i] (2 each; with staging=slab one a
  // chunk); 1024-aligned: the swizzle is taken from
  // address bits 7-9, so a buffer's row r must have r % 8 there.
  const builder::Smem sC = b.operand_stages("sC", ir::GemmOperand::c, kConsumers * buffers_each, kChunkBytes, 1024,
                                            swizzled ? Swizzle::b128 : Swizzle::none);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg wg = (tid / 128).named("wg");
  Reg rank = b.special(ir::Special::cluster_ctarank, "rank");
  Reg cluster = (b.special(ir::Special::ctaid_x, "cta") / kCluster).named("cluster");
  Reg my_tiles =
      ((b.mov(Type::u32, cluster_tiles + clusters - 1, "tiles_rounded") - cluster) / clusters).named("my_tiles");
  // Rank r's tile: the r-th bm rows of the cluster tile (share=b), or its r-th bn columns (share=a).
  const auto tile_corner = [&](const Reg& i) {
    const hopper::TileCorner ct = tile_order::tile_corner(
        b, order, (cluster + i * clusters).named("cluster_tile"), cluster_rows, cluster_cols, group_rows,
        share_a ? bm : kCluster * bm, share_a ? kCluster * bn : bn);
    if (share_a) return hopper::TileCorner{ct.m0, (ct.n0 + rank * bn).named("n0")};
    return hopper::TileCorner{(ct.m0 + rank * bm).named("m0"), ct.n0};
  };
  tma_ring::init_ring(b, ring, tid, kCluster > 1 ? kWarpArrivals * kCluster : kWarpArrivals);
  if (kCluster > 1) {
    b.comment("every CTA's barriers are initialised before any CTA multicasts into it or arrives on them");
    b.barrier_cluster_arrive();
    b.barrier_cluster_wait();
  }
  const uint32_t k_blocks = hopper::ceil_div(K, kBK);

  // The producer is step 17's, now tma_ring::cluster_producer (kernels/cluster_parts.cpp), which
  // also multicasts A's slices instead of B's (share=a).
  b.comment("warpgroup 0 produces (step 17)");
  b.if_((wg == 0).named("producer_wg"), [&] {
    b.role(ir::WarpRole::producer, [&] {
      b.setmaxnreg(false, kProducerRegs);
      b.if_((tid == 0).named("producer"), [&] {
        tma_ring::cluster_producer(b, {.ring = &ring,
                                       .tmap_a = tmap_a,
                                       .tmap_b = tmap_b,
                                       .cluster = kCluster,
                                       .shared = share_a ? tma_ring::SharedOperand::a : tma_ring::SharedOperand::b,
                                       .a_rows = bm,
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

  const uint32_t consumer_rows = slabs * kSlabRows;  // 64, or 128 at bm=256
  b.comment(fmt::format("warpgroups 1 and 2 consume: each owns {} rows of every {}x{} tile", consumer_rows, bm, bn));
  b.if_((wg != 0).named("consumer_wg"), [&] {
    b.role(ir::WarpRole::consumer, [&] {
      b.setmaxnreg(true, kConsumerRegs);
      Reg slab = (wg - 1).named("consumer");
      Reg slab_off = (slab * a_tile_bytes(consumer_rows)).named("slab_off");  // its rows of A's stage
      // One accumulator set a 64-row slab: acc[h] is rows 64h.. of the consumer's rows, bn/2 a thread.
      std::vector<std::vector<Reg>> acc;
      for (uint32_t h = 0; h < slabs; ++h)
        acc.push_back(hopper::accumulators(b, bn, slabs == 1 ? "acc" : fmt::format("acc{}_", h)));
      const hopper::RingDescriptors descriptors = hopper::ring_descriptors(b, ring, slabs, slab_off);
      Reg elected = b.elect_sync("elected");
      std::optional<tma_ring::ClusterRelease> release;  // lane q arrives on CTA q's empty[stage]
      if (kCluster > 1) release = tma_ring::cluster_release(b, ring, (tid % 32).named("lane_id"), kCluster);
      Reg stage = b.mov(Type::u32, 0, "stage");
      Reg phase = b.mov(Type::u32, 0, "phase");
      std::optional<Reg> held;  // wgmma_in_flight=1: the stage of the block whose wgmmas may still run
      if (in_flight != 0) held = b.mov(Type::u32, 0, "held_stage");
      Reg wg_thread = (tid % 128).named("wg_thread");
      Reg issuer = (wg_thread == 0).named("store_issuer");  // one thread per warpgroup stores
      Reg tmC = b.tensor_map_address(tmap_c, "tmC");
      // c_store_hint=evict_first: one L2 policy for every store of C (the issuer's; made by all,
      // one instruction, before the tiles).
      std::optional<Reg> c_policy;
      if (evict_c_first) c_policy = b.createpolicy_fractional_evict_first("c_policy");
      Reg buffers = (b.smem_address(sC, 0, "sC_base") + slab * (buffers_each * kChunkBytes)).named("sC_mine");
      Reg warp = (wg_thread / 32).named("warp_in_wg");
      Reg lane = (wg_thread % 32).named("lane");
      // This thread's four addresses in buffer 0, one per value of the 16-byte piece pair q
      // (computed once: a chunk's writes add only the buffer's and the row half's offsets).
      // Row r of a buffer is 128 bytes at r * 128; piece p of it sits at piece p ^ (r % 8).
      std::array<Reg, 4> slot;
      if (c_dtype == DType::bf16) {
        // stmatrix.x4 q writes 8-column blocks 2q, 2q+1 of the chunk (pieces 2q, 2q+1 of a row);
        // lane i names row i%8 of matrix i/8, matrices (block 2q rows 0-7, rows 8-15, block 2q+1 ...):
        // (T32, V1) -> (R16, P2): row 16w + i%16, piece 2q + i/16.
        Reg row = ((warp * 16) + (lane % 16)).named("st_row");
        Reg half = (lane / 16).named("st_block");
        for (uint32_t q = 0; q < 4; ++q) {
          // swizzled: (2q + i/16) ^ (i%8) = 2q ^ (i/16 ^ i%8), the two terms' bits being disjoint
          Reg piece = swizzled ? ((half ^ (lane % 8)) ^ (2 * q)).named("st_piece") : (half + 2 * q).named("st_piece");
          slot[q] = (buffers + row * kRowBytes + piece * kPiece).named(fmt::format("st_slot{}", q));
        }
      } else {
        // st.shared.v2.f32 of 8-column block q of the chunk, rows half h (+8): two f32 at bytes
        // 32q + 8(l%4) of the row, i.e. piece 2q + (l%4)/2, byte 8(l%2) inside it:
        // (T32, V2) -> (R8, C8): row 16w + l/4 (+8h), column 8q + 2(l%4) + e.
        Reg row = ((warp * 16) + (lane / 4)).named("st_row");
        Reg half = ((lane % 4) / 2).named("st_piece_half");
        Reg inside = ((lane % 2) * 8).named("st_inside");
        for (uint32_t q = 0; q < 4; ++q) {
          Reg piece = swizzled ? ((half ^ (lane / 4)) ^ (2 * q)).named("st_piece") : (half + 2 * q).named("st_piece");
          slot[q] = (buffers + row * kRowBytes + piece * kPiece + inside).named(fmt::format("st_slot{}", q));
        }
      }
      // The epilogue's barrier. Each warpgroup writes its own buffers and has its own issuer, so
      // store_barrier=warpgroup gives each its own named barrier of 128 threads (id 1 + slab: a
      // branch per warpgroup, bar.sync taking its id as an immediate); consumers (the default) has
      // both warpgroups meet at one barrier of 256, so the faster waits for the slower at every chunk.
      std::optional<Reg> first_slab, second_slab;  // made only where used: the default's PTX stays as it was
      if (own_barrier) {
        first_slab = (slab == 0).named("first_slab");
        second_slab = (slab != 0).named("second_slab");
      }
      const auto meet = [&] {
        if (!own_barrier) return b.bar_sync(kStoreBarrier, 128 * kConsumers);
        b.if_(*first_slab, [&] { b.bar_sync(kStoreBarrier, 128); });
        b.if_(*second_slab, [&] { b.bar_sync(kStoreBarrier + 1, 128); });
      };
      tile_order::consumer_corner_registers(b, handoff);
      b.loop("tile", my_tiles, [&](const Reg& i) {
        const hopper::TileCorner at = handoff.used ? handoff.received : tile_corner(i);
        const auto release_stage = [&](const Reg& s) {
          if (kCluster == 1) b.if_(elected, [&] { b.mbarrier_arrive(ring.empty_at(s)); });
          else tma_ring::release_stage_in_cluster(b, *release, s);
        };
        b.k_loop("kb", k_blocks, [&](const Reg& kb) {
          // A k16 step: one wgmma.m64nNk16 per slab (two at bm=256), all against B's one descriptor.
          hopper::consume_k_block(b, ring, descriptors, stage, phase, bn, acc, kb, kSuspendHintNs, true,
                                  in_flight);
          tile_order::receive_corner(b, handoff, stage, kb);
          if (in_flight == 0) {
            release_stage(stage);
          } else {
            // wgmma_in_flight=1: this block's wgmmas may still read their stage; the block
            // before's are done (wait_group 1), so its stage is the one to release.
            b.if_((kb != 0).named("not_first"), [&] { release_stage(*held); });
            b.mov(*held, stage);
          }
          tma_ring::next_stage(b, stage, phase, stages);
        });
        if (in_flight != 0) {
          b.comment("the tile's last wgmmas done before the epilogue reads their sums; their stage released");
          b.wgmma_wait_group(0);
          release_stage(*held);  // K > 0: every tile has a block
        }
        b.role(ir::WarpRole::epilogue, [&] {
          // The first row of C of each of the consumer's 64-row slabs (two at bm=256: acc[0], acc[1]).
          std::vector<Reg> row0{(at.m0 + slab * consumer_rows).named("row0")};
          for (uint32_t h = 1; h < slabs; ++h) row0.push_back((row0[0] + h * kSlabRows).named("row0"));
          // Every warp writes its 16 rows of 64-row slab s's chunk c into the buffer at `buffer` bytes.
          const auto write_chunk = [&](uint32_t s, uint32_t c, int64_t buffer) {
            const std::vector<Reg>& acc_s = acc[s];
            const uint32_t j0 = c * (chunk_cols / 8);  // the chunk's first 8-column block of the tile
            for (uint32_t q = 0; q < 4; ++q) {
              if (c_dtype == DType::bf16) {
                // blocks j, j+1 (j = j0 + 2q), rows 0-7 and 8-15 of each: register k is matrix k,
                // (T128, V4x2) -> (M64, N16): row 16w + l/4 + 8(k%2), col 8(j + k/2) + 2(l%4) + e
                const uint32_t j = j0 + 2 * q;
                std::vector<Reg> pairs;
                for (uint32_t m = 0; m < 4; ++m) {
                  const uint32_t a = 4 * (j + m / 2) + 2 * (m % 2);  // acc of (block j + m/2, row half m%2)
                  pairs.push_back(hopper::pack_bf16x2(b, acc_s[a], acc_s[a + 1], "c_pair"));
                }
                b.stmatrix(4, false, Addr::at(slot[q], buffer), pairs);
              } else {
                for (uint32_t h = 0; h < 2; ++h) {
                  // (T128, V2) -> (M64, N8): row 16w + l/4 + 8h, col 8(j0 + q) + 2(l%4) + e
                  const uint32_t a = 4 * (j0 + q) + 2 * h;
                  b.st_shared(Type::f32, Addr::at(slot[q], buffer + int64_t(8 * h) * kRowBytes),
                              {acc_s[a], acc_s[a + 1]});
                }
              }
            }
          };
          // The issuer's TMA store of slab s's chunk c from the buffer at `buffer` bytes.
          const auto store_chunk = [&](uint32_t s, uint32_t c, int64_t buffer) {
            const Reg c_col = (at.n0 + c * chunk_cols).named("c_col");
            if (c_policy) b.cp_async_bulk_tensor_store(tmC, {c_col, row0[s]}, Addr::at(buffers, buffer), *c_policy);
            else b.cp_async_bulk_tensor_store(tmC, {c_col, row0[s]}, Addr::at(buffers, buffer));
          };
          // A consumer's chunks in turn: slab 0's, then slab 1's (bm=256); chunk i is (i / chunks, i % chunks).
          const uint32_t all_chunks = slabs * chunks;
          if (whole_slab) {
            // staging=slab: the whole slab into its own buffers, two meetings a tile.
            b.comment(fmt::format("the slab's {} chunks at once, each through its own buffer", all_chunks));
            if (!cfg.has(kReuseBeforeWait)) b.if_(issuer, [&] { b.cp_async_bulk_wait_group_read(0); });
            meet();  // the last tile's stores have read every buffer
            for (uint32_t i = 0; i < all_chunks; ++i) write_chunk(i / chunks, i % chunks, int64_t(i) * kChunkBytes);
            if (!cfg.has(kMissingProxyFence)) b.fence_proxy_async();
            meet();  // every write is in and fenced
            b.if_(issuer, [&] {
              for (uint32_t i = 0; i < all_chunks; ++i) store_chunk(i / chunks, i % chunks, int64_t(i) * kChunkBytes);
              b.cp_async_bulk_commit_group();
            });
            return;
          }
          for (uint32_t i = 0; i < all_chunks; ++i) {
            const uint32_t s = i / chunks, c = i % chunks;
            const int64_t buffer = int64_t(i % kBuffers) * kChunkBytes;
            const std::string rows = slabs == 1 ? "" : fmt::format("rows {}..{}, ", s * kSlabRows, (s + 1) * kSlabRows - 1);
            b.comment(fmt::format("chunk {}: {}columns {}..{} through buffer {}", i, rows, c * chunk_cols,
                                  (c + 1) * chunk_cols - 1, i % kBuffers));
            // Chunk i's buffer was last read by the store of chunk i - 2 (wait_group.read 1 leaves
            // only the newest store reading). With an odd count a tile (bn=192: three of bf16) the
            // tile before's last chunk used buffer 0 too and is the newest store: the first chunk
            // waits for all of them, long done by now (a whole K loop ran since they were issued).
            const uint32_t may_read = i == 0 && all_chunks % kBuffers != 0 ? 0 : kBuffers - 1;
            if (!cfg.has(kReuseBeforeWait))
              b.if_(issuer, [&] { b.cp_async_bulk_wait_group_read(may_read); });
            meet();  // the buffer is free for every writer
            write_chunk(s, c, buffer);
            if (!cfg.has(kMissingProxyFence)) b.fence_proxy_async();
            meet();  // every write is in and fenced
            b.if_(issuer, [&] {
              store_chunk(s, c, buffer);
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

KernelInfo hopper_stmatrix_epilogue_info() {
  KernelInfo k;
  hopper::set_hopper_info(k, kId, {kShippedBM, kShippedBN, kBK});
  k.title = "Hopper stmatrix epilogue: C through a 128B-swizzled staging tile";
  k.delta = "the staging buffers become 128B-swizzled boxes (the TMA store's map unswizzles them), written "
            "conflict-free with stmatrix.x4 of bf16 pairs (f32: st.shared.v2 into the same swizzle, 2-way); bf16 C by "
            "default";
  k.explanation =
      "Step 18's epilogue with conflict-free staging writes. A warp's 16 rows of an 8-column block of the "
      "accumulators are two 8x8 matrices already in stmatrix's fragment, so a consumer warp rounds its pairs to bf16 "
      "and stores four matrices with one stmatrix.x4. The staging buffer is a box of 64 rows of 128 bytes in the "
      "128B swizzle: piece p of row r lies at piece p ^ (r % 8), so the eight rows of a matrix fall in eight "
      "different 16-byte pieces, all 32 banks, one wavefront each, where step 18's packed rows all started at the "
      "same bank. C's tensor map has the same swizzle, so the TMA store undoes it on the way to C. The rest is step "
      "18: fence.proxy.async, a barrier, one thread's TMA store in a bulk group, wait_group.read 1 before a buffer is "
      "rewritten, the next tile's K loop overlapping the last stores. stmatrix stores b16 only: with c_dtype=f32 the "
      "threads write the same swizzled buffers with st.shared.v2.f32 (32 columns a chunk, 8 chunks a tile): a 2-way "
      "conflict (two rows of a half-warp share banks), where step 18's was 4 times the ideal. The build parameter "
      "c_store_hint=evict_first adds the article's micro-optimisation on C's stores: C is written once and never read "
      "back, so the TMA stores carry an L2 evict-first policy (createpolicy, .L2::cache_hint) and C's lines leave L2 "
      "before A's and B's panels, which every CTA keeps reading. C's bytes are the same; the model keeps no L2 "
      "priorities, so what the hint is worth is measured on the GPU (bench, the default against the hinted build): on "
      "an H200 nothing measurable, within 0.3% of the default from 2048^3 to 8192^3. The build parameter "
      "store_barrier=warpgroup gives each consumer warpgroup its own named barrier of 128 threads in the epilogue "
      "(its buffers and its issuer are its own), where both meet at one of 256 by default: at most half a point of "
      "cuBLAS faster on an H200. The build parameter staging=slab gives every chunk of a consumer's slab its own "
      "buffer, so a tile's epilogue meets twice instead of twice a chunk (fast.cu stages its slab whole); its 64 KiB "
      "of buffers leave room for 3 stages (bf16 C only): 0.1-0.6 points of cuBLAS faster on an H200, inside the "
      "rounds' spread. The build parameter wgmma_in_flight=1 leaves a K block's wgmma group running (wait_group "
      "1) and releases its stage a block later: on an H200 it lost 1.2-1.7 points of cuBLAS, where the model sees "
      "no difference. The build parameters bm and share give cuBLAS's tile: bm=256 (with bn=128) makes each consumer "
      "warpgroup own 128 rows, two wgmma.m64n128k16 a k16 step against one B descriptor, and its two 64-row slabs "
      "go out through the same staging buffers one after the other; share=a lays a cluster's CTAs side by side "
      "along N, so they need the same rows of A: each loads 1/cluster of A's box and multicasts it, loads its own B "
      "whole, and still releases every stage on every CTA's empty barrier. At 256x128 with share=a a CTA loads the "
      "bytes 128x256 with share=b loads, 32 KiB a stage in pairs.";
  k.example_shape = {256, 512, 512};  // two pairs, 8 K-blocks around the ring; four chunks per slab
  // 32 KiB of staging buffers leave room for 4 ring stages of 48 KiB (227 KiB in all) at bn=256,
  // more at a smaller bn (declare_tile_n's rule, for bm=128; bm=256's is below).
  BuildParam c_dtype = c_dtype_param();
  c_dtype.default_value = 16;  // the type stmatrix stores; bench compares with cuBLAS's bf16 C
  k.c_dtype = DType::bf16;     // the kernel's C as it ships, for what reads KernelInfo::c_dtype
  hopper::declare_tile_n(
      k,
      {.bn_default = kShippedBN,
       .stages_default = 4,
       .a_bytes = a_tile_bytes(kShippedBM),
       .other_bytes = kConsumers * kBuffers * kChunkBytes,
       .other_what = "the 32 KiB of staging buffers",
       .tile_ns = {128, 192, 256},
       .bn_note = "; 128, 192 or 256 (192: three 64-column chunks of bf16 a slab, so a tile's first chunk waits for "
                  "every store of the tile before, whose last chunk used the same buffer)"},
      {{"cluster", "CTAs per cluster sharing one operand's box (share: B's by default, step 17; 1: plain loads)", 2,
        {1, 2, 4}},
       {"share",
        "the operand a cluster's CTAs share through multicast: 0 b (the cluster's tiles lie one above the other, in "
        "one tile-column: each CTA loads 1/cluster of B's box, step 17's way); 1 a (side by side, in one tile-row, "
        "as cuBLAS's 1x2 clusters: each CTA loads 1/cluster of A's box and its own B whole; cluster 2 or 4); "
        "share=b and share=a name them",
        kShareB,
        {kShareB, kShareA}},
       persistent_ctas_param(),
       tile_order::order_param(tile_order::Order::grouped),
       c_dtype,
       {"c_store_hint",
        "an L2 eviction hint on C's TMA stores: 0 none; 1 evict_first (createpolicy.fractional.L2::evict_first "
        "and the stores' .L2::cache_hint form: C, written once, leaves L2 before A's and B's panels); "
        "c_store_hint=none and c_store_hint=evict_first name them; its speed effect is measured on the GPU",
        kStoreHintNone,
        {kStoreHintNone, kStoreHintEvictFirst}},
       {"store_barrier",
        "the epilogue's bar.sync: 0 consumers (both consumer warpgroups meet at one barrier of 256 threads at every "
        "chunk); 1 warpgroup (each its own named barrier of 128: its buffers and its issuer are its own); "
        "store_barrier=consumers and store_barrier=warpgroup name them",
        kBarrierConsumers,
        {kBarrierConsumers, kBarrierWarpgroup}},
       {"wgmma_in_flight",
        "the wgmma groups a consumer's K block leaves running: 0 (its wait_group 0 waits for the block's "
        "wgmmas, then it releases their stage, as fast.cu does); 1 (wait_group 1: the block's wgmmas run on while the "
        "next block's are issued, and a stage is released one block later, once its wgmmas are done)",
        0,
        {0, 1}},
       {"staging",
        "how a consumer stages its slab of C (its bm/2 rows): 0 chunks (two 8-KiB buffers in turn, the barriers met twice "
        "a chunk); 1 slab (a buffer for every chunk, the whole slab written between two meetings a tile, as fast.cu's "
        "matmul_12 does; bf16 C only, and its 64 KiB of buffers at bn=256 leave room for 3 stages); staging=chunks "
        "and staging=slab name them",
        kStagingChunks,
        {kStagingChunks, kStagingSlab}}});
  // The tile's M, first: the tile is bm x bn (bm=256 takes bn=128, the rule below).
  k.params.insert(k.params.begin(),
                  BuildParam{"bm",
                   "rows of C a CTA's tile has: 128 (each consumer warpgroup 64 rows, one wgmma.m64nNk16 a k16 step); "
                   "256, cuBLAS's 256x128 tile (each consumer 128 rows: two m64nNk16 a k16 step against one B "
                   "descriptor, bn/2 accumulators each, so bn=128 only; A's box and stage 32 KiB)",
                   kShippedBM,
                   {kShippedBM, kWideBM}});
  k.build_tile = [](const ParamValues& p) { return GemmShape{p.at("bm"), p.at("bn"), kBK}; };
  for (BuildParam& p : k.params) {
    if (p.name == "stages")
      p.description = "shared-memory stages in the TMA ring (bm/8 KiB of A + bn/8 KiB of B each: 48 KiB at 128x256 "
                      "and at 256x128); how many fit depends on the tile";
    if (p.name == "order")  // kGroupRows: the group is rows of C, whatever bm
      p.description = "the tile order of the persistent walk: 0 row by row, 1 grouped (2048 rows of C, 16 tile-rows at "
                      "bm=128 or 8 at 256, walked column by column), 2 a Hilbert curve over the grid of cluster tiles";
  }
  // The rules of bm, share and staging=slab, then the ring's: the stages of the build's tile fit
  // beside the staging buffers (declare_tile_n's rule as it was for bm=128 and two buffers a consumer).
  k.check_params = [ring_rule = k.check_params](const ParamValues& p) -> std::optional<std::string> {
    const uint32_t bm = p.at("bm"), bn = p.at("bn");
    if (bm == kWideBM && bn != 128)
      return fmt::format("bm=256 takes bn=128 only (bn={} given): a consumer warpgroup owns 128 rows, two "
                         "wgmma.m64n{}k16 a k16 step, whose 2 x {} f32 accumulators a thread are more than its {} "
                         "registers hold; bm=128 takes bn=128, 192 or 256",
                         bn, bn, bn / 2, kConsumerRegs);
    if (p.at("share") == kShareA && p.at("cluster") == 1)
      return std::string("share=a takes cluster=2 or 4 (cluster=1 given): a cluster of one CTA has no peer to share "
                         "A's box with; with cluster=1 take share=b (plain loads of both boxes)");
    const bool slab = p.at("staging") == kStagingSlab;
    if (slab && p.at("c_dtype") != 16)
      return fmt::format("staging=slab takes c_dtype=bf16 only (c_dtype={} given): an f32 slab is bm/2 rows x bn x 4 "
                         "bytes a consumer, 128 KiB at 128x256 and 64 KiB at 256x128, which leaves room for 2 ring "
                         "stages; f32 C takes staging=chunks",
                         p.at("c_dtype"));
    if (bm == kShippedBM && !slab) return ring_rule(p);
    // The ring's rule with the build's A tile and, with staging=slab, a whole slab of bf16 C a
    // consumer as its other bytes (which depend on the tile, so no other bn is offered).
    const uint32_t staging = slab ? kConsumers * (bm / kConsumers) * bn * 2 : kConsumers * kBuffers * kChunkBytes;
    const hopper::TileNRing ring{
        .a_bytes = a_tile_bytes(bm),
        .other_bytes = staging,
        .other_what = slab ? fmt::format("{} KiB of staging (each consumer's {} x {} slab of bf16 C)", staging / 1024,
                                         bm / kConsumers, bn)
                           : std::string("the 32 KiB of staging buffers"),
        .tile_ns = {bn}};
    const std::optional<std::string> why = hopper::tile_n_ring_fits(ring, bn, p.at("stages"));
    if (!why) return std::nullopt;
    const std::string tile = bm == kShippedBM ? fmt::format("bn={}", bn) : fmt::format("bm={} bn={}", bm, bn);
    return slab ? fmt::format("staging=slab at {}: {}", tile, *why) : fmt::format("at {}: {}", tile, *why);
  };
  k.constraints.push_back("staging=slab takes c_dtype=bf16, and its slab-sized buffers count against the stages");
  k.constraints.push_back("bm=256 takes bn=128; share=a takes a cluster of 2 or 4");
  k.mistakes = {
      {kUnswizzledStaging, "the staging tile is packed (step 18's box, map without swizzle)",
       "C is right but every stmatrix matrix's 8 rows start at the same bank: 8 wavefronts instead of 1 "
       "(st.shared.v2.f32: 8 instead of 4), bank conflicts in the Shared-memory view and in ncu's counters"},
      {kSwizzleNotInMap, "the threads write the swizzled tile, but C's tensor map says no swizzle",
       "the TMA store copies the tile as if packed: within every 8 rows the 16-byte pieces of C land permuted "
       "(deterministic; rows whose r % 8 is 0 are right)"},
      {kMissingProxyFence, "the threads write a staging buffer and meet at the barrier without fence.proxy.async",
       "the TMA store (async proxy) reads bytes stmatrix (generic proxy) may not have made visible to it: "
       "missing-proxy-fence; C may hold stale chunks on the GPU"},
      {kReuseBeforeWait,
       "the issuing thread never waits with cp.async.bulk.wait_group.read before a buffer is rewritten",
       "chunk 2 is written into buffer 0 while chunk 0's store may still read it: a bulk-store-race (C is wrong when "
       "the copy engine is slower than the threads)"},
  };
  // No cta_tile: a CTA writes several tiles of C (opening it generates all of A and B).
  // Where this step's lesson shows: stmatrix into a swizzled staging tile.
  k.focus_views = {"smem", "timeline", "diff"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::stmatrix}, {StopKind::tma_store}, {StopKind::pipeline_drains},
              {StopKind::bank_conflict, kUnswizzledStaging}};
  k.pictures = {"ldmatrix --num 4", "swizzle --mode 128B", "smem"};
  k.build = build_hopper_stmatrix_epilogue;
  return k;
}

}  // namespace gs::kernels
