// Probe kernels: tiny kernels that expose one hardware fact as data, run on the GPU
// (`gemmscope probe`) and on the model, so the model's tables are checked against silicon.
// They are not part of the ladder.
#pragma once

#include <string>
#include <vector>

#include "engine/ir/kernel.hpp"
#include "engine/layout/swizzle.hpp"

namespace gs::kernels {

// TMA placement: one thread loads a box of box_cols bf16 × 64 rows of A (a row-major
// 64 × box_cols table) with the given swizzle into a 1024-aligned tile; then all 128 threads
// copy the tile's raw bytes to C (as u32 words). C[i] = shared word i of the tile.
ir::Kernel build_tma_placement_probe(uint32_t box_cols, layout::Swizzle swizzle);

// mbarrier parity (facts §6): one thread initialises a barrier with count 1, records
// test_wait.parity 0 and 1, arrives once, records them again; C[0..3] = the four results.
ir::Kernel build_mbarrier_parity_probe();

// wgmma accumulator map: with A[r][0] = r, A[r][1] = 1 and B[c][0] = 256, B[c][1] = c (other
// k zero), D[r][c] = 256·r + c. Each thread writes its N/2 raw accumulators to
// C[tid·N/2 + v], so C names the (row, col) every (thread, register) holds. A is 64×16,
// B is N×16 (K-major), both bf16, loaded by TMA with 32B swizzle (16 bf16 = 32 B rows).
ir::Kernel build_wgmma_layout_probe(uint32_t n);

// mma.sync m16n8k16 fragments (facts §2): one warp. Lane l loads its A fragment (4 b32 words at
// A[4l..]), its B fragment (2 words at B[2l..]) and its C fragment (4 f32 at C[4l..]) as the
// host packed them by the facts' maps, runs one mma.sync, and stores D to C[128 + 4l..]. If
// any of the A, B, C/D maps were wrong, D would not equal A·B + C at the D map's positions.
ir::Kernel build_mma_sync_probe();

}  // namespace gs::kernels
