// Pieces the Hopper steps 12.. share, so that each step's file shows what it changes and not
// the same fragment loops again: the accumulator registers, the k16 wgmmas of one 64-wide K
// block, the clipping epilogue, and the shape rules of a kernel that takes any M, N, K that
// are multiples of 8 (TMA zero-fills the edge tiles, the epilogue clips its stores).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/builder/builder.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels::hopper {

inline constexpr uint32_t kBK = 64;  // 64 bf16 = 128 B: one row of the 128B swizzle
inline constexpr uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// The n/2 f32 accumulators of one m64nNk16 wgmma, per thread: prefix0, prefix1, ...
std::vector<builder::Reg> accumulators(builder::Builder& b, uint32_t n, const std::string& prefix);

// The wgmmas of one 64-wide K block: for each of its four k16 steps, one m64nNk16 per 64-row
// slab of A (acc[i] with a_desc[i]) against the same B tile. Inside the 128B-swizzled tiles a
// k16 step is +32 B, +2 in the descriptors' address field (facts §1.4, [DEV]). `accumulate` is
// the scale-d of the block's first k16 step (0 on a tile's first block: D = A·B, no zeroing).
void wgmma_k_block(builder::Builder& b, uint32_t n, const std::vector<std::vector<builder::Reg>>& acc,
                   const std::vector<builder::Reg>& a_desc, const builder::Reg& b_desc, const builder::Src& accumulate);

// Stores one warpgroup's 64×n accumulators to C (f32, row-major M×N) at rows row0..row0+63,
// columns col0..col0+n-1. Thread t of the warpgroup (wg_thread, 0..127) holds rows
// 16(t/32) + (t%32)/4 (+8) and column pairs 8j + 2(t%4) (facts §1.5). Elements outside M×N
// are skipped: N is a multiple of 8, so an 8-column block is wholly in or out.
void store_tile_clipped(builder::Builder& b, const std::vector<builder::Reg>& acc, uint32_t n, const builder::Reg& c_base,
                        const builder::Reg& wg_thread, const builder::Reg& row0, const builder::Reg& col0, uint32_t M,
                        uint32_t N);

// Advances a ring position (stage, phase) to the next K-block: the stage counts 0..stages-1
// and the phase parity flips when it wraps to 0 (each pass over the ring is one phase of every
// stage's barriers). flip_phase = false is the mistake of a ring whose parity never flips.
void next_stage(builder::Builder& b, builder::Reg& stage, builder::Reg& phase, uint32_t stages, bool flip_phase = true);

// M, N, K multiples of 8 in 8..65536: the TMA maps' row stride (2K bytes) must be a multiple
// of 16 bytes, and the epilogue clips in blocks of 8 columns.
void check_edge_shape(std::string_view kernel, const GemmShape& s);
std::vector<std::string> edge_shape_constraints();

}  // namespace gs::kernels::hopper
