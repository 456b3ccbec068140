// Pieces the Blackwell steps 21.. share, so that each step's file shows what it changes: the
// tensor-memory allocation handshake, the k16 tcgen05.mma of one 64-wide K block, the epilogue
// that drains an accumulator from TMEM with tcgen05.ld, and the registry fields of sm_100a.
// The ring of stages (full/empty mbarriers, TMA producer) is the Hopper one (hopper_parts.hpp).
#pragma once

#include <string_view>

#include "engine/builder/builder.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels::blackwell {

// A 32-bit TMEM address: lane in bits 31-16, column in bits 15-0 (facts §9.1).
inline constexpr uint32_t tmem_lane_bits(uint32_t lane) { return lane << 16; }

// The warp `alloc_warp` (a predicate true for every lane of exactly one warp) allocates
// `columns` of tensor memory and gives up the permit; the base address lands in `slot`
// (4 bytes of shared memory). Then every thread of the CTA meets at bar.sync 0 and reads the
// base address: the tcgen05 fences order the allocation before the barrier and the reads
// after it (facts §9.2).
builder::Reg allocate_tmem(builder::Builder& b, const builder::Smem& slot, const builder::Reg& alloc_warp,
                           uint32_t columns, builder::CtaGroup group);

// The four k16 tcgen05.mma of one 64-wide K block into the accumulator at `d_tmem`: the
// descriptors advance 32 B per k16 step inside the 128B-swizzled tiles (+2 in the 16-byte
// address field, facts §9.2 as §1.4). `accumulate` is the first MMA's enable_input_d (false
// on a tile's first K block: D = A·B), `always` a true predicate for the other three.
// d_tmem must be a .b32 register: ptxas rejects a .u32 one ("Arguments mismatch for
// instruction 'tcgen05.mma'" [PTXAS 13.0 probe]), while tcgen05.ld and dealloc take either.
void mma_k_block(builder::Builder& b, const builder::Reg& d_tmem, const builder::Reg& a_desc,
                 const builder::Reg& b_desc, const builder::Reg& idesc, const builder::Reg& accumulate,
                 const builder::Reg& always, builder::CtaGroup group);

// One epilogue warp's share of an accumulator (`lane`: the thread's lane in its warp): the 32 TMEM lanes starting at `lane0` (its
// quarter, facts §9.3) hold rows row0 .. row0+31 of C; columns 0..columns-1 of the accumulator
// at `tmem_base` go to C's columns col0.. . Each tcgen05.ld.32x32b.x32 brings one row's 32
// consecutive columns into a thread, stored as eight 16-byte vectors (C is f32, row-major N).
void drain_accumulator(builder::Builder& b, const builder::Reg& tmem_base, const builder::Reg& lane, const builder::Reg& lane0,
                       uint32_t columns, const builder::Reg& c_base, const builder::Reg& row0,
                       const builder::Reg& col0, uint32_t N);

// The same for a tile that may cross C's edges (step 23's persistent walk takes any M, N, K
// that are multiples of 8; TMA zero-fills what lies outside A and B): rows at or past M and
// 8-column pieces at or past N are not stored. N is a multiple of 8, so a piece is wholly
// inside C or outside it (step 20 taught this clipping inline).
void drain_accumulator_clipped(builder::Builder& b, const builder::Reg& tmem_base, const builder::Reg& lane,
                               const builder::Reg& lane0, uint32_t columns, const builder::Reg& c_base,
                               const builder::Reg& row0, const builder::Reg& col0, uint32_t M, uint32_t N);

// What every Blackwell step shares in its registry entry: sm_100a, bf16 A and B (B N×K), f32
// C, shapes that are whole tiles.
void set_blackwell_info(KernelInfo& k, std::string_view id, GemmShape tile);

}  // namespace gs::kernels::blackwell
