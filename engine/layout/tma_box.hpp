// Where a TMA tiled load (cp.async.bulk.tensor, interleave NONE) puts each element of its box
// in shared memory, and the cuTensorMapEncodeTiled rules a box must obey.
//
// Shared-memory image of a box (facts sheet §4, [DEV] for the 2-D case): elements in box
// order, dimension 0 fastest, densely packed, so a "box row" is boxDim[0] * elemSize bytes;
// then the swizzle XOR of §3 is applied to the byte address. For a 2-D bf16 box of 64 × 64
// with 128B swizzle at a 1024-aligned base:
//
//     // (col c, row r) -> byte  base + swizzle(128*r + 2*c)
//     // row r's 16-byte chunk j lands at chunk j ^ (r % 8)
//
// The hardware XORs address bits, so we swizzle the *absolute* address base + linear. With the
// alignment rule of §3 (base a multiple of the repeat) that equals swizzling the offset inside
// the box; with a misaligned base the model places bytes the way the address bits say, which
// is our best guess of what hardware does (whether TMA traps instead is UNCONFIRMED, §3).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/layout/swizzle.hpp"

namespace gs::layout {

// The parts of a tiled tensor map that decide the shared-memory image of one box.
// Entries at index >= rank are ignored.
struct TmaBox {
    uint32_t rank = 2;                      // 1..5 (facts §4)
    std::array<uint32_t, 5> box_dim{};      // elements per dimension, dim 0 innermost, 1..256
    uint32_t elem_bytes = 2;                // 1, 2, 4 or 8 (bf16 = 2)
    Swizzle swizzle = Swizzle::none;
    std::array<uint32_t, 5> element_strides{1, 1, 1, 1, 1};  // 1..8 (facts §4)
};

// Throws std::invalid_argument naming the field unless (facts §4, §3):
//   rank in 1..5; elem_bytes in {1,2,4,8}; box_dim[i] in 1..256;
//   box_dim[0]*elem_bytes a multiple of 16 (interleave NONE);
//   with swizzle != none, box_dim[0]*elem_bytes <= swizzle span (32/64/128 B);
//   element_strides[i] in 1..8.
void validate_tma_box(const TmaBox& box);

// How many elements TMA moves along dimension dim: box_dim[0] for dim 0, because
// elementStrides[0] is ignored with interleave NONE (facts §4 [CUDA.H]); otherwise
// ceil(box_dim[dim] / element_strides[dim]) (facts §4 "With stride s, TMA moves
// ceil(boxDim/s) elements").
uint32_t tma_box_extent(const TmaBox& box, uint32_t dim);

// Bytes of one box row in shared memory: box_dim[0] * elem_bytes.
uint32_t tma_box_row_bytes(const TmaBox& box);

// Bytes the box occupies in shared memory, which is also the complete_tx byte count the
// mbarrier receives (facts §4; out-of-bounds elements are filled and still count):
// box_dim[0]*elem_bytes * prod_{i>=1} ceil(box_dim[i]/element_strides[i]).
// elementStrides[0] does not appear: it is ignored with interleave NONE (facts §4).
// Validates the box first (validate_tma_box).
uint32_t tma_box_bytes(const TmaBox& box);

// The physical shared byte address of one element of the box.
// box_coord has rank entries, dim 0 first; entry i indexes the elements TMA actually moved,
// so it must be < tma_box_extent(box, i). smem_base is the destination operand of the
// copy and must be 16-byte aligned. The swizzle is applied to smem_base + linear offset.
// Throws std::invalid_argument for a bad box, a coordinate out of range or a wrong count.
uint32_t tma_box_smem_offset(const TmaBox& box, std::span<const uint32_t> box_coord,
                             uint32_t smem_base);

// The same for every element at once, in box order (dim 0 fastest): entry e is the address
// of the e-th element TMA moves. The GUI colours shared memory from this; the model's TMA
// engine uses it to scatter a box. Size = tma_box_bytes / elem_bytes.
std::vector<uint32_t> tma_box_smem_image(const TmaBox& box, uint32_t smem_base);

// Whether smem_base satisfies our alignment rule for the box's swizzle (facts §3): a multiple
// of swizzle_required_alignment. Not enforced by tma_box_smem_offset, so that a learner's
// misaligned buffer shows the scrambled image instead of an exception.
bool tma_box_base_is_aligned(const TmaBox& box, uint32_t smem_base);

}  // namespace gs::layout
