// TMA box placement in shared memory (facts sheet §4 "Shared-memory image of a box", §3).
#include "engine/layout/tma_box.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "engine/layout/format_detail.hpp"

namespace gs::layout {

namespace {

using detail::str;

constexpr uint32_t kMaxRank = 5;        // facts §4 "rank: 1..5"
constexpr uint32_t kMaxBoxDim = 256;    // facts §4 "boxDim[i]: 1..256 elements"
constexpr uint32_t kMaxElemStride = 8;  // facts §4 "elementStrides[i]: 1..8"
constexpr uint32_t kRowGranule = 16;    // facts §4 "boxDim[0]·elementSize ... multiple of 16"

std::string field(const char* name, uint32_t index) {
    return std::string(name) + "[" + str(index) + "]";
}

uint64_t box_bytes_wide(const TmaBox& box) {
    uint64_t bytes = uint64_t{box.box_dim[0]} * box.elem_bytes;
    for (uint32_t i = 1; i < box.rank; ++i) bytes *= tma_box_extent(box, i);
    return bytes;
}

}  // namespace

void validate_tma_box(const TmaBox& box) {
    if (box.rank < 1 || box.rank > kMaxRank) {
        throw std::invalid_argument("TMA rank=" + str(box.rank) + " is out of range: use 1..5");
    }
    if (box.elem_bytes != 1 && box.elem_bytes != 2 && box.elem_bytes != 4 &&
        box.elem_bytes != 8) {
        throw std::invalid_argument("TMA element size " + str(box.elem_bytes) +
                                    " B is not supported: use 1, 2, 4 or 8 bytes (bf16 = 2)");
    }
    for (uint32_t i = 0; i < box.rank; ++i) {
        if (box.box_dim[i] < 1 || box.box_dim[i] > kMaxBoxDim) {
            throw std::invalid_argument(field("boxDim", i) + "=" + str(box.box_dim[i]) +
                                        " is out of range: each box dimension is 1..256 elements");
        }
        if (box.element_strides[i] < 1 || box.element_strides[i] > kMaxElemStride) {
            throw std::invalid_argument(field("elementStrides", i) + "=" +
                                        str(box.element_strides[i]) +
                                        " is out of range: element strides are 1..8");
        }
    }
    const uint32_t row_bytes = box.box_dim[0] * box.elem_bytes;
    if (row_bytes % kRowGranule != 0) {
        throw std::invalid_argument(
            "boxDim[0]=" + str(box.box_dim[0]) + " elements of " + str(box.elem_bytes) +
            " B = " + str(row_bytes) + " B is not a multiple of 16 B: use a multiple of " +
            str(kRowGranule / box.elem_bytes) + " elements");
    }
    const uint32_t span = swizzle_span_bytes(box.swizzle);
    if (span != 0 && row_bytes > span) {
        const std::string mode(swizzle_name(box.swizzle));
        throw std::invalid_argument("boxDim[0]=" + str(box.box_dim[0]) + " elements of " +
                                    str(box.elem_bytes) + " B = " + str(row_bytes) +
                                    " B exceeds the " + mode + " swizzle span (" + str(span) +
                                    " B): use at most " + str(span / box.elem_bytes) +
                                    " elements");
    }
    if (box_bytes_wide(box) > std::numeric_limits<uint32_t>::max()) {
        throw std::invalid_argument("TMA box of " + str(box_bytes_wide(box)) +
                                    " B does not fit a 32-bit shared-memory address space");
    }
}

uint32_t tma_box_extent(const TmaBox& box, uint32_t dim) {
    if (dim >= box.rank) {
        throw std::invalid_argument("TMA box dimension " + str(dim) + " does not exist: rank is " +
                                    str(box.rank));
    }
    // elementStrides[0] is ignored with interleave NONE (facts §4): dim 0 moves whole.
    if (dim == 0) return box.box_dim[0];
    const uint32_t stride = box.element_strides[dim];
    if (stride == 0) {
        throw std::invalid_argument(field("elementStrides", dim) +
                                    "=0 is out of range: element strides are 1..8");
    }
    return (box.box_dim[dim] + stride - 1) / stride;
}

uint32_t tma_box_row_bytes(const TmaBox& box) { return box.box_dim[0] * box.elem_bytes; }

uint32_t tma_box_bytes(const TmaBox& box) {
    validate_tma_box(box);
    return static_cast<uint32_t>(box_bytes_wide(box));
}

uint32_t tma_box_smem_offset(const TmaBox& box, std::span<const uint32_t> box_coord,
                             uint32_t smem_base) {
    validate_tma_box(box);
    if (box_coord.size() != box.rank) {
        throw std::invalid_argument("TMA box coordinate has " + str(box_coord.size()) +
                                    " entries, the box has rank " + str(box.rank));
    }
    if (smem_base % kRowGranule != 0) {
        throw std::invalid_argument("TMA shared destination " + detail::hex(smem_base) +
                                    " is not 16-byte aligned");
    }
    // Dense box order: pitch[0] = elem_bytes, pitch[i] = pitch[i-1] * extent[i-1].
    uint32_t linear = 0;
    uint32_t pitch = box.elem_bytes;
    for (uint32_t i = 0; i < box.rank; ++i) {
        const uint32_t extent = tma_box_extent(box, i);
        if (box_coord[i] >= extent) {
            throw std::invalid_argument("TMA box coordinate[" + str(i) + "]=" +
                                        str(box_coord[i]) + " is outside the box: use 0.." +
                                        str(extent - 1));
        }
        linear += box_coord[i] * pitch;
        pitch *= extent;
    }
    // Swizzle the absolute address: the hardware XORs address bits (facts §3).
    return swizzle_address(box.swizzle, smem_base + linear);
}

std::vector<uint32_t> tma_box_smem_image(const TmaBox& box, uint32_t smem_base) {
    const uint32_t bytes = tma_box_bytes(box);  // validates
    const uint32_t count = bytes / box.elem_bytes;
    std::vector<uint32_t> image;
    image.reserve(count);
    std::array<uint32_t, 5> coord{};
    for (uint32_t e = 0; e < count; ++e) {
        image.push_back(tma_box_smem_offset(box, std::span<const uint32_t>(coord.data(), box.rank),
                                            smem_base));
        // Odometer increment, dim 0 fastest.
        for (uint32_t i = 0; i < box.rank; ++i) {
            if (++coord[i] < tma_box_extent(box, i)) break;
            coord[i] = 0;
        }
    }
    return image;
}

bool tma_box_base_is_aligned(const TmaBox& box, uint32_t smem_base) {
    return smem_base % swizzle_required_alignment(box.swizzle) == 0;
}

}  // namespace gs::layout
