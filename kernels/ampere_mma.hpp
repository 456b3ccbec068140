// What the Ampere steps (08-10) share: the m16n8k16 accumulators of a warp tile and the
// epilogue that stores them to C. Each step builds its own operand fragments, which is where
// the steps differ; the accumulator layout (facts §2) is the same in all three.
#pragma once

#include <vector>

#include "engine/builder/builder.hpp"

namespace gs::kernels::ampere {

// f32 accumulators of an mf × nf grid of m16n8 tiles, zeroed: tile (i, j) is registers
// 4·(i·nf + j) .. +3, register v holding (row g + 8·(v/2), col 2q + v%2) of the tile.
std::vector<builder::Reg> zero_accumulators(builder::Builder& b, uint32_t mf, uint32_t nf);

// One mma.sync per m16n8 tile: acc(i, j) += a[i] · b[j] (a[i]: 4 A registers, b[j]: 2 B).
void mma_tiles(builder::Builder& b, std::vector<builder::Reg>& acc, const std::vector<std::vector<builder::Reg>>& a,
               const std::vector<std::vector<builder::Reg>>& bf);

// Stores the accumulators to C (f32, row-major, N columns): `c_row` is the address of
// C[tile row 0 + g][tile col 0 + 2q] of tile (0, 0) for this lane, tiles 16 rows and 8
// columns apart; one st.global.v2.f32 per row half of a tile.
void store_accumulators(builder::Builder& b, const std::vector<builder::Reg>& acc, const builder::Reg& c_lane,
                        uint32_t mf, uint32_t nf, uint32_t n);

}  // namespace gs::kernels::ampere
