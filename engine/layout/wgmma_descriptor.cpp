// wgmma shared-memory descriptors (facts sheet §1.4). See wgmma_descriptor.hpp.
#include "engine/layout/wgmma_descriptor.hpp"

#include <stdexcept>

#include "engine/layout/format_detail.hpp"

namespace gs::layout {

namespace {

using detail::hex;
using detail::str;

// Field positions (facts §1.4 table).
constexpr int kStartShift = 0;
constexpr int kLboShift = 16;
constexpr int kSboShift = 32;
constexpr int kBaseShift = 49;
constexpr int kLayoutShift = 62;
constexpr uint64_t kField14 = 0x3FFF;  // 14-bit address-like fields
constexpr uint64_t kField3 = 0x7;
constexpr uint32_t kAddressWindow = 1u << 18;  // (x & 0x3FFFF) >> 4 keeps 18 bits of bytes

constexpr uint64_t kUsedBits = (kField14 << kStartShift) | (kField14 << kLboShift) |
                               (kField14 << kSboShift) | (kField3 << kBaseShift) |
                               (uint64_t{3} << kLayoutShift);

// k16 slice of a 16-bit operand: 16 elements * 2 B (facts §1.4 "Each k16 step of bf16 is
// 32 bytes"). The widest operand is N=256 rows.
constexpr uint32_t kSliceBytes = 32;
constexpr uint32_t kMaxRows = 256;

// PTX's matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4, with the two cases where it would
// lose information turned into errors.
uint64_t encode_field(std::string_view what, const char* name, uint32_t bytes) {
    if (bytes % 16 != 0) {
        throw std::invalid_argument(std::string(what) + " " + name + "=" + hex(bytes) +
                                    " is not a multiple of 16 bytes");
    }
    if (bytes >= kAddressWindow) {
        throw std::invalid_argument(std::string(what) + " " + name + "=" + hex(bytes) +
                                    " does not fit the 18-bit byte window: use 0..0x3FFF0");
    }
    return bytes >> 4;
}

}  // namespace

uint64_t detail::encode_descriptor_common(std::string_view what, uint32_t start_address,
                                          uint32_t leading_byte_offset,
                                          uint32_t stride_byte_offset, uint32_t base_offset) {
    if (base_offset > kField3) {
        throw std::invalid_argument(std::string(what) + " base_offset=" + str(base_offset) +
                                    " does not fit the 3-bit field: use 0..7");
    }
    uint64_t bits = 0;
    bits |= encode_field(what, "start address", start_address) << kStartShift;
    bits |= encode_field(what, "LBO", leading_byte_offset) << kLboShift;
    bits |= encode_field(what, "SBO", stride_byte_offset) << kSboShift;
    bits |= uint64_t{base_offset} << kBaseShift;
    return bits;
}

uint32_t wgmma_layout_type(Swizzle sw) {
    switch (sw) {
        case Swizzle::none: return 0;
        case Swizzle::b128: return 1;
        case Swizzle::b64: return 2;
        case Swizzle::b32: return 3;
    }
    throw std::invalid_argument("swizzle value " + str(static_cast<uint32_t>(sw)) +
                                " is not a Swizzle mode (valid: none, 32B, 64B, 128B)");
}

Swizzle swizzle_of_wgmma_layout_type(uint32_t layout_type) {
    switch (layout_type) {
        case 0: return Swizzle::none;
        case 1: return Swizzle::b128;
        case 2: return Swizzle::b64;
        case 3: return Swizzle::b32;
        default: break;
    }
    throw std::invalid_argument("wgmma layout type " + str(layout_type) +
                                " is invalid: use 0 (none), 1 (128B), 2 (64B) or 3 (32B)");
}

uint64_t encode_wgmma_descriptor(const WgmmaDescriptor& desc) {
    uint64_t bits = detail::encode_descriptor_common("wgmma descriptor", desc.start_address,
                                                     desc.leading_byte_offset,
                                                     desc.stride_byte_offset, desc.base_offset);
    bits |= uint64_t{wgmma_layout_type(desc.swizzle)} << kLayoutShift;
    return bits;
}

WgmmaDescriptor decode_wgmma_descriptor(uint64_t bits) {
    WgmmaDescriptor d;
    d.start_address = static_cast<uint32_t>(((bits >> kStartShift) & kField14) << 4);
    d.leading_byte_offset = static_cast<uint32_t>(((bits >> kLboShift) & kField14) << 4);
    d.stride_byte_offset = static_cast<uint32_t>(((bits >> kSboShift) & kField14) << 4);
    d.base_offset = static_cast<uint32_t>((bits >> kBaseShift) & kField3);
    d.swizzle = swizzle_of_wgmma_layout_type(static_cast<uint32_t>(bits >> kLayoutShift));
    return d;
}

uint64_t wgmma_descriptor_reserved_bits(uint64_t bits) { return bits & ~kUsedBits; }

std::string describe_wgmma_descriptor(uint64_t bits) {
    const WgmmaDescriptor d = decode_wgmma_descriptor(bits);
    std::string line = "start=" + hex(d.start_address, 4) +
                       " LBO=" + str(d.leading_byte_offset) +
                       " SBO=" + str(d.stride_byte_offset) + " base=" + str(d.base_offset) +
                       " swizzle=" + std::string(swizzle_name(d.swizzle));
    if (const uint64_t reserved = wgmma_descriptor_reserved_bits(bits); reserved != 0) {
        line += " reserved=" + hex(reserved, 16);
    }
    return line;
}

WgmmaDescriptor kmajor_tile_descriptor(uint32_t smem_addr, Swizzle sw,
                                       uint32_t rows_stride_bytes_for_none) {
    WgmmaDescriptor d;
    d.start_address = smem_addr;
    d.swizzle = sw;
    if (sw == Swizzle::none) {
        if (rows_stride_bytes_for_none == 0) {
            throw std::invalid_argument(
                "K-major no-swizzle descriptor needs rows_stride_bytes_for_none, the byte "
                "distance between 8-row groups (SBO), e.g. 256 for dense 8 x k16 bf16 groups");
        }
        d.leading_byte_offset = 128;  // one core matrix (8 rows x 16 B) further along K
        d.stride_byte_offset = rows_stride_bytes_for_none;
    } else {
        if (rows_stride_bytes_for_none != 0) {
            throw std::invalid_argument(
                "rows_stride_bytes_for_none=" + str(rows_stride_bytes_for_none) +
                " is only for Swizzle::none: a " + std::string(swizzle_name(sw)) +
                " K-major tile has SBO = 8 x span = " + str(8 * swizzle_span_bytes(sw)) +
                " B; pass 0");
        }
        d.leading_byte_offset = 16;  // not read (probe wgmma-desc/64B-K LBO4096); CUTLASS writes 1
        d.stride_byte_offset = 8 * swizzle_span_bytes(sw);
    }
    (void)encode_wgmma_descriptor(d);  // same range checks as the encoder, reported now
    return d;
}

WgmmaDescriptor mnmajor_tile_descriptor(uint32_t smem_addr, Swizzle sw,
                                        uint32_t mn_atom_stride_bytes,
                                        uint32_t k_group_stride_bytes) {
    WgmmaDescriptor d;
    d.start_address = smem_addr;
    d.swizzle = sw;
    // facts §1.4: swizzled MN-major has LBO = MN atoms, SBO = 8-K-row groups; none swaps
    // (probe wgmma-desc/*-MN, 2026-11-24 H100).
    const bool swapped = sw == Swizzle::none;
    d.leading_byte_offset = swapped ? k_group_stride_bytes : mn_atom_stride_bytes;
    d.stride_byte_offset = swapped ? mn_atom_stride_bytes : k_group_stride_bytes;
    (void)encode_wgmma_descriptor(d);
    return d;
}

uint32_t wgmma_base_offset_for(uint32_t pattern_start, Swizzle sw) {
    if (sw == Swizzle::none || pattern_start % swizzle_repeat_bytes(sw) == 0) return 0;
    return (pattern_start >> 7) & 7;
}

uint32_t wgmma_descriptor_smem_address(const WgmmaDescriptor& d, uint32_t row, uint32_t k_byte,
                                       bool k_major) {
    if (row >= kMaxRows) {
        throw std::invalid_argument("wgmma operand row " + str(row) +
                                    " is out of range: use 0..255 (M=64 for A, N<=256 for B)");
    }
    if (k_byte >= kSliceBytes) {
        throw std::invalid_argument("wgmma k_byte " + str(k_byte) +
                                    " is outside the 32-byte k16 slice of a bf16 operand: use "
                                    "0..31");
    }
    return wgmma_descriptor_address_unchecked(d, row, k_byte, k_major);
}

}  // namespace gs::layout
