// Pieces the Hopper steps 12.. share (namespace hopper), and the ring of stages they share
// with the Blackwell steps (namespace tma_ring), so that each step's file shows what it changes and not
// the same fragment loops again: the accumulator registers, the k16 wgmmas of one 64-wide K
// block, the clipping epilogue, and the shape rules of a kernel that takes any M, N, K that
// are multiples of 8 (TMA zero-fills the edge tiles, the epilogue clips its stores).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/builder/builder.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels::tma_ring {

// The TMA + mbarrier ring of stages the Hopper steps 13.. and the Blackwell steps 21.. share:
// the copy engine fills a stage, the tensor cores (wgmma or tcgen05.mma) empty it.

inline constexpr uint32_t kBK = 64;  // 64 bf16 = 128 B: one row of the 128B swizzle

// Advances a ring position (stage, phase) to the next K-block: the stage counts 0..stages-1
// and the phase parity flips when it wraps to 0 (each pass over the ring is one phase of every
// stage's barriers). flip_phase = false is the mistake of a ring whose parity never flips.
void next_stage(builder::Builder& b, builder::Reg& stage, builder::Reg& phase, uint32_t stages, bool flip_phase = true);

// The ring of stages of steps 13..: `stages` tiles of A and of B (1024-aligned for the 128B
// swizzle) and per stage a full and an empty mbarrier, with their base addresses in registers.
struct Ring {
  uint32_t stages = 0, a_bytes = 0, b_bytes = 0;
  builder::Smem full, empty;
  builder::Reg full_base, empty_base, a_base, b_base;
  // Shared addresses of stage `stage`'s barriers and tiles (one add each).
  builder::Addr full_at(const builder::Reg& stage) const;
  builder::Addr empty_at(const builder::Reg& stage) const;
  builder::Reg a_at(const builder::Reg& stage) const;
  builder::Reg b_at(const builder::Reg& stage) const;
};
// Declares the ring's shared memory (dynamic: it is past 48 KiB) and loads its base addresses.
Ring declare_ring(builder::Builder& b, uint32_t stages, uint32_t a_bytes, uint32_t b_bytes);
// Thread 0 initialises every stage's barriers (full: the producer's one arrive.expect_tx;
// empty: `empty_arrivals`), fences the inits for the copy engine; then bar.sync 0.
void init_ring(builder::Builder& b, const Ring& ring, const builder::Reg& tid, uint32_t empty_arrivals);

// The producer's K-block kb: wait until the consumers released the stage (parity phase^1:
// a fresh barrier passes it, so the first pass fills every stage freely), expect both boxes'
// bytes on full[stage], load A's box at (k0, m0) and B's at (k0, n0), advance the ring.
struct ProduceOptions {
  bool wait_empty = true;                    // false: the mistake skip-empty-wait
  std::optional<uint32_t> suspend_hint_ns;  // the try_wait hint of step 16
};
void produce_k_block(builder::Builder& b, const Ring& ring, builder::Reg& stage, builder::Reg& phase,
                     const builder::Reg& tmA, const builder::Reg& tmB, const builder::Reg& kb, const builder::Reg& m0,
                     const builder::Reg& n0, const ProduceOptions& options = {});

// A consumer warp's release of a stage in every CTA of a cluster of `cluster` CTAs, whose
// producers multicast into this CTA's copy of the stage: lane q (q < cluster) holds CTA q's
// empty[0] as a shared::cluster address (mapa) and arrives there, so one instruction of the
// warp releases the stage in every CTA at once (an elected lane arriving on each CTA in turn
// would issue `cluster` remote arrives one after the other).
struct ClusterRelease {
  builder::Reg releaser;    // this lane arrives: lane < cluster
  builder::Reg empty_base;  // its CTA's empty[0], shared::cluster
};
ClusterRelease cluster_release(builder::Builder& b, const Ring& ring, const builder::Reg& lane, uint32_t cluster);
void release_stage_in_cluster(builder::Builder& b, const ClusterRelease& r, const builder::Reg& stage);

}  // namespace gs::kernels::tma_ring

namespace gs::kernels::hopper {

using tma_ring::kBK;
using tma_ring::Ring;

inline constexpr uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// The n/2 f32 accumulators of one m64nNk16 wgmma, per thread: prefix0, prefix1, ...
std::vector<builder::Reg> accumulators(builder::Builder& b, uint32_t n, const std::string& prefix);

// The wgmmas of one 64-wide K block: for each of its four k16 steps, one m64nNk16 per 64-row
// slab of A (acc[i] with a_desc[i]) against the same B tile. Inside the 128B-swizzled tiles a
// k16 step is +32 B, +2 in the descriptors' address field (facts §1.4, [DEV]). `accumulate` is
// the scale-d of the block's first k16 step (0 on a tile's first block: D = A·B, no zeroing).
void wgmma_k_block(builder::Builder& b, uint32_t n, const std::vector<std::vector<builder::Reg>>& acc,
                   const std::vector<builder::Reg>& a_desc, const builder::Reg& b_desc, const builder::Src& accumulate);
// A descriptor from its low word (u32) and the high bits (RingDescriptors::high): zero-extended
// and ORed, so the upper half is a constant to ptxas.
builder::Reg descriptor_from_low(builder::Builder& b, const builder::Reg& lo, uint64_t high, const std::string& name);


// Stores one warpgroup's 64×n accumulators to C (row-major M×N of c_dtype) at rows
// row0..row0+63, columns col0..col0+n-1. Thread t of the warpgroup (wg_thread, 0..127) holds
// rows 16(t/32) + (t%32)/4 (+8) and column pairs 8j + 2(t%4) (facts §1.5). Elements outside M×N
// are skipped: N is a multiple of 8, so an 8-column block is wholly in or out. f32: one
// st.global.v2.f32 per pair; bf16: the pair rounded to nearest even into one bf16x2 word
// (cvt.rn.bf16x2.f32, the first column in the low half) and one st.global.b32.
void store_tile_clipped(builder::Builder& b, const std::vector<builder::Reg>& acc, uint32_t n, const builder::Reg& c_base,
                        const builder::Reg& wg_thread, const builder::Reg& row0, const builder::Reg& col0, uint32_t M,
                        uint32_t N, DType c_dtype = DType::f32);
// The pair (lo, hi) as one bf16x2 word, each rounded to nearest even: lo in bits 0-15 (the
// lower address when stored), hi in bits 16-31.
builder::Reg pack_bf16x2(builder::Builder& b, const builder::Reg& lo, const builder::Reg& hi, std::string name);

// M, N, K multiples of 8 in 8..65536: the TMA maps' row stride (2K bytes) must be a multiple
// of 16 bytes, and the epilogue clips in blocks of 8 columns.
void check_edge_shape(std::string_view kernel, const GemmShape& s);
std::vector<std::string> edge_shape_constraints();

// The consumers' wgmma descriptors of the ring's tiles (K-major, 128B swizzle), made once before
// the K loop from stage 0's tiles: A's from a_offset on, one per 64-row slab (slab i 8 KiB on,
// +512 in the address field), and B's. A descriptor's start-address field counts 16-byte units
// (facts §1.4), so stage s's descriptor is stage 0's plus s × the tile's bytes / 16: in the
// loop each K-block adds its stage's offset, which needs nothing of the stage's data.
// The loop's descriptors are made from their low 32 bits (the start address and the leading
// offset; a_lo, b_lo) over the high bits all of them share (the stride and the swizzle, `high`):
// a stage's and a k16 step's descriptor is one 32-bit add on the low word and an OR with a
// constant, so the warp hands one register to the uniform datapath before its wgmma. The 64-bit
// form (stage 0's + stage x units as a wide product) had ptxas convert the stage counter three
// times and wait on a 64-bit multiply between the full barrier and the first HGMMA, 3.4% of step
// 19's stall samples at 8192^3 on the H100 (docs/results/2026-12-07-step19 §3). The start field
// stays below 2^14 (shared memory under 256 KiB), so the add never carries into the high bits.
struct RingDescriptors {
  uint32_t a_stage_units = 0, b_stage_units = 0;  // one stage further: tile bytes / 16
  std::vector<builder::Reg> a_lo;  // stage 0's, slab i: the low 32 bits
  builder::Reg b_lo;               // stage 0's
  uint64_t high = 0;               // the bits above 31, the same in all
};
RingDescriptors ring_descriptors(builder::Builder& b, const Ring& ring, size_t slabs,
                                 const std::optional<builder::Reg>& a_offset);

// The consumers' K-block: the stage's descriptors (stage 0's plus its offset) and the
// accumulate flag first, since they need no data; then wait until full[stage] completes the
// pass's phase, and the wgmmas of acc.size() 64-row slabs of A against the whole B tile follow
// the wait at once, committed and waited for. Releasing the stage is left to the step.
// `scale_d_first` (the ladder's way): the tile's first block's first wgmma has scale-d 0, so D =
// A·B starts the sum and nothing zeroes the accumulators; false: every wgmma accumulates, and
// the caller zeroes the accumulators before the tile (zero_accumulators), the plain way.
// `groups_left`: the wgmma groups the block's wait leaves running (0: this block's is done; 1:
// it may still run, reading its stage, which the caller then releases a block later).
void consume_k_block(builder::Builder& b, const Ring& ring, const RingDescriptors& descriptors,
                     const builder::Reg& stage, const builder::Reg& phase, uint32_t n,
                     const std::vector<std::vector<builder::Reg>>& acc, const builder::Reg& kb,
                     std::optional<uint32_t> suspend_hint_ns = std::nullopt, bool scale_d_first = true,
                     uint32_t groups_left = 0);
// One mov.f32 of 0 into each accumulator.
void zero_accumulators(builder::Builder& b, const std::vector<builder::Reg>& acc);

// The grouped tile order of the persistent steps: tile t of a tiles_m × tiles_n grid, in
// groups of group_m tile-rows walked column by column; the result is the tile's first row and
// column of C for tiles of tile_m × tile_n elements.
struct TileCorner {
  builder::Reg m0, n0;
};
TileCorner grouped_tile_corner(builder::Builder& b, const builder::Reg& t, uint32_t tiles_m, uint32_t tiles_n,
                               uint32_t group_m, uint32_t tile_m, uint32_t tile_n);

// What every Hopper step from 12 on shares in its registry entry: sm_90a, bf16 A and B (B
// N×K), f32 C, the edge-shape rules, the tile.
void set_hopper_info(KernelInfo& k, std::string_view id, GemmShape tile);

// ---- the tile N as a build parameter "bn" (steps 14..19) ------------------------------------
// What a bn has to satisfy, and why 64, 128, 192 and 256 all do: a consumer's 64 × bn part of
// the tile is one wgmma.m64nNk16 a k16 step, N = bn (bf16: a multiple of 8 up to 256, PTX ISA
// "wgmma.mma_async"), whose accumulators take bn/2 f32 registers a thread (128 at 256, within
// the consumers' 240); B's tile is bn rows of 128 bytes, the TMA box bn rows (a box dimension
// is at most 256, cuTensorMapEncodeTiled) in the 128B swizzle (whole 8-row atoms); steps 17-19
// load B in bn/cluster-row slices (a multiple of 8 rows for clusters of up to 4: whole atoms);
// steps 18-19 store C in chunks of 64 (or 32) columns, which a multiple of 64 divides. What is
// left to check is shared memory: a stage is A's 16 KiB and B's bn·128 bytes.
inline constexpr uint32_t kTileNs[] = {64, 128, 192, 256};

// A ring step's tile N and stages as build parameters: the ring's A tile a_bytes a stage (16
// KiB: 128 rows), other_bytes of shared memory besides the ring and its barriers (step 18-19's
// staging buffers; other_what says what they are); the N it takes (kTileNs, or fewer where the
// step's structure rules some out: `bn_note` says why, in the parameter's description).
struct TileNRing {
  uint32_t bn_default = 256, stages_default = 3;
  uint32_t a_bytes = 0;
  uint32_t other_bytes = 0;
  std::string other_what;  // "the 32 KiB of staging buffers"
  std::vector<uint32_t> tile_ns{std::begin(kTileNs), std::end(kTileNs)};
  std::string bn_note;
};
// Sets the step's parameters ("bn" and "stages" first, then `others`), its build tile (k.tile's
// M and K with the build's bn) and its rule (KernelInfo::check_params): the stages of the
// build's bn must fit in shared memory. The stages run from 2 to the most the smallest bn
// leaves room for; the rule names the most the build's bn takes.
void declare_tile_n(KernelInfo& k, const TileNRing& ring, std::vector<BuildParam> others);
// That rule: nullopt where `stages` stages of bn and the ring's other bytes fit in shared memory,
// else a message saying the sum and the stages (and smaller tiles of ring.tile_ns) that fit.
std::optional<std::string> tile_n_ring_fits(const TileNRing& ring, uint32_t bn, uint32_t stages);
// The ring's B tile of one stage: bn rows of one 128-byte swizzle row.
inline constexpr uint32_t b_tile_bytes(uint32_t bn) { return bn * kBK * 2; }

}  // namespace gs::kernels::hopper
