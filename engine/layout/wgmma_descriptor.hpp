// The 64-bit shared-memory matrix descriptor of wgmma.mma_async (sm_90a), and which shared
// bytes the tensor core reads through it. The sm_100a (tcgen05.mma) descriptors live in
// umma_descriptor.hpp, included at the end, because the GUI shows both side by side.
//
// Bit layout (facts sheet §1.4, [CUTLASS GmmaDescriptor], [DEV] for 128B K-major):
//
//     bits  0-13  start address   (addr  & 0x3FFFF) >> 4
//     bits 16-29  LBO             (bytes & 0x3FFFF) >> 4
//     bits 32-45  SBO             (bytes & 0x3FFFF) >> 4
//     bits 49-51  base offset     0 when the tile sits on its swizzle repeat
//     bits 62-63  layout type     0 none, 1 128B, 2 64B, 3 32B
//
// Everything else is reserved (0). Worked example [DEV]: a 128B K-major tile at 0x400 gives
// 0x4000004000010040 (start field 0x40, LBO field 1, SBO field 64, type 1).
//
// How the tensor core reads every field (wgmma_descriptor_smem_address below) was established
// by probe wgmma-desc, 2026-11-24 H100 (docs/results/2026-11-24-h100-desc): 32 descriptors,
// every swizzle K- and MN-major, LBO/SBO off the canonical values, base offsets 0-5 on tiles on
// and off their repeat; the GPU read exactly the bytes the formula names, element by element.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/layout/swizzle.hpp"

namespace gs::layout {

// A decoded descriptor. Addresses and offsets are in BYTES (the encoder divides by 16);
// base_offset is the raw 3-bit field.
struct WgmmaDescriptor {
    uint32_t start_address = 0;
    uint32_t leading_byte_offset = 0;  // LBO
    uint32_t stride_byte_offset = 0;   // SBO
    uint32_t base_offset = 0;          // 0..7
    Swizzle swizzle = Swizzle::none;

    auto operator<=>(const WgmmaDescriptor&) const = default;
};

// The sm_90 layout-type field of a swizzle: none=0, 128B=1, 64B=2, 32B=3 (facts §1.4).
uint32_t wgmma_layout_type(Swizzle sw);
Swizzle swizzle_of_wgmma_layout_type(uint32_t layout_type);  // throws unless 0..3

// Throws std::invalid_argument if start/LBO/SBO is not a multiple of 16 or is >= 2^18 (the
// field keeps bits 4..17 only: the encoder would silently wrap), or base_offset > 7.
uint64_t encode_wgmma_descriptor(const WgmmaDescriptor& desc);

// The inverse: bytes = field << 4. Reserved bits are ignored here (what the hardware does
// with them is unknown); wgmma_descriptor_reserved_bits() reports them.
WgmmaDescriptor decode_wgmma_descriptor(uint64_t bits);
uint64_t wgmma_descriptor_reserved_bits(uint64_t bits);

// One line for the GUI and the trace: "start=0x0400 LBO=16 SBO=1024 base=0 swizzle=128B",
// with " reserved=0x..." appended when reserved bits are set.
std::string describe_wgmma_descriptor(uint64_t bits);

// The canonical K-major descriptor of a tile whose rows (M or N) hold K contiguously
// (facts §1.4 "Meaning of LBO and SBO"):
//   * swizzled (32B/64B/128B): rows are packed at the swizzle span, so 8 rows = one repeat.
//     LBO = 16 (field 1; not read: probe wgmma-desc/64B-K LBO4096), SBO = 8 * span
//     (1024 for 128B). rows_stride_bytes_for_none must be 0.
//   * none: the tile is made of core matrices of 8 rows x 16 B stored as 128 contiguous
//     bytes, with the two core matrices of a k16 bf16 slice next to each other:
//     LBO = 128 (core matrix to core matrix along K); SBO = rows_stride_bytes_for_none, the
//     byte distance between 8-row groups (256 for a dense 8-row x k16 packing). Required.
// smem_addr must be a multiple of 16; to advance along K add 32 B per k16 step (facts §1.4).
WgmmaDescriptor kmajor_tile_descriptor(uint32_t smem_addr, Swizzle sw,
                                       uint32_t rows_stride_bytes_for_none = 0);

// The canonical MN-major descriptor (facts §1.4, from CUTLASS's canonical-layout comments;
// the roles confirmed by probe wgmma-desc/none-MN, 32B-MN, 64B-MN, 128B-MN n256 B,
// 2026-11-24 H100). mn_atom_stride_bytes = distance between neighbouring MN
// atoms (span bytes of contiguous MN elements; 16 B = 8 bf16 for none);
// k_group_stride_bytes = distance between neighbouring groups of 8 K rows. Swizzled modes put
// them in LBO and SBO respectively; none swaps the roles (SBO = atoms, LBO = K groups).
WgmmaDescriptor mnmajor_tile_descriptor(uint32_t smem_addr, Swizzle sw,
                                        uint32_t mn_atom_stride_bytes,
                                        uint32_t k_group_stride_bytes);

// The base-offset field for a swizzle pattern whose repeat starts at `pattern_start` (PTX ISA
// "Matrix Descriptor Format"): 0 when the pattern starts on its repeat (1024 / 512 / 256 B for
// 128B / 64B / 32B) and always for none; otherwise (pattern_start >> 7) & 7.
uint32_t wgmma_base_offset_for(uint32_t pattern_start, Swizzle sw);

// The shared byte address the tensor core reads for one byte of a bf16 operand's k16 slice
// under this descriptor, in two steps: the canonical layout gives a logical address, then the
// swizzle XORs its 16-byte chunk index (bits 4-6) with a phase taken from its own bits 7-9.
//
// K-major (k_major=true): row = M or N index (0..255), k_byte = byte in the row's 32-byte
// k16 slice (0..31, element k at bytes 2k, 2k+1).
//     swizzled: start + (row/8)*SBO + (row%8)*span + k_byte            (LBO is not read)
//     none:     start + (row/8)*SBO + (k_byte/16)*LBO + (row%8)*16 + k_byte%16
// MN-major (k_major=false): row = M or N index (0..255), k_byte = 2*k + byte (k 0..15).
//     swizzled: atoms of span/2 MN elements x 8 K rows, each K row `span` bytes:
//               start + (mn/(span/2))*LBO + (k/8)*SBO + (k%8)*span + (mn%(span/2))*2 + byte
//     none:     core matrices of 8 MN elements (16 B) x 8 K rows:
//               start + (mn/8)*SBO + (k/8)*LBO + (k%8)*16 + (mn%8)*2 + byte
// Swizzle (none: no change):
//     physical = logical ^ (phase << 4),  phase = ((logical >> 7) - base_offset) & mask
// with mask 7 / 3 / 1 for 128B / 64B / 32B. The phase comes from the ABSOLUTE address (facts
// §1.4 "Advancing along K", §3), so a descriptor whose swizzle differs from the TMA's reads the
// wrong bytes exactly as on the GPU; the base offset moves the pattern's origin to a 128-byte
// line that is not on the repeat. Probe wgmma-desc, 2026-11-24 H100, confirmed each term:
//   * the phase is taken after SBO is added (128B-K SBO1152: groups off the repeat shift it);
//   * K-major swizzled layouts do not read LBO (64B-K LBO4096); none does (none-K swapped);
//   * MN-major: none steps MN core matrices by SBO and K groups by LBO; swizzled modes step MN
//     atoms by LBO and K groups by SBO (none-MN, none-MN interleaved, 32B/64B/128B-MN, n256 B);
//   * base offset: subtracted from bits 7-9, masked like them (128B-K b1/b3, @128 b1/b5, @384
//     b3; 64B-K b1/b4, @128 b1, @640 b5; 32B-K b1, @128 b1; 128B/64B-MN @128 b1): a tile at P
//     off its repeat, written relative to P, reads right with the PTX ISA's (P >> 7) & 7 and
//     by absolute address with 0 (128B-K @128); none ignores it (none-K b3). Of the readings
//     tried on the raw outputs (ignore, add, XOR, relative to the start), only this one fits
//     every case.
// Throws std::invalid_argument for row/k_byte out of range; every field value is placed.
uint32_t wgmma_descriptor_smem_address(const WgmmaDescriptor& d, uint32_t row, uint32_t k_byte,
                                       bool k_major);

// The same without the range checks, for the model's inner loop: row < 256 and k_byte < 32
// are the caller's to guarantee. Everything is inline (span and mask from the mode by a
// switch, not through swizzle.cpp's checked table): the model calls it per 16-byte chunk.
inline uint32_t wgmma_descriptor_address_unchecked(const WgmmaDescriptor& d, uint32_t row,
                                                   uint32_t k_byte, bool k_major) {
    uint32_t span = 0;  // swizzle_span_bytes; the XOR mask is span / 16 - 1 (7 / 3 / 1)
    switch (d.swizzle) {
        case Swizzle::none: span = 0; break;
        case Swizzle::b32: span = 32; break;
        case Swizzle::b64: span = 64; break;
        case Swizzle::b128: span = 128; break;
    }
    const uint32_t lbo = d.leading_byte_offset;
    const uint32_t sbo = d.stride_byte_offset;
    uint32_t addr = d.start_address;
    if (k_major) {
        // 8-row groups SBO apart; inside a group rows at the span (swizzled), or 16 B apart
        // inside a core matrix whose K neighbour is LBO away (none).
        addr += (row / 8) * sbo;
        addr += span != 0 ? (row % 8) * span + k_byte
                          : (k_byte / 16) * lbo + (row % 8) * 16 + k_byte % 16;
    } else {
        // MN elements contiguous; 8 K rows per atom (swizzled) or core matrix (none).
        const uint32_t k = k_byte / 2;
        const uint32_t byte = k_byte % 2;
        if (span != 0) {
            const uint32_t atom_elems = span / 2;
            addr += (row / atom_elems) * lbo + (k / 8) * sbo + (k % 8) * span +
                    (row % atom_elems) * 2 + byte;
        } else {
            addr += (row / 8) * sbo + (k / 8) * lbo + (k % 8) * 16 + (row % 8) * 2 + byte;
        }
    }
    if (span == 0) return addr;
    const uint32_t phase = ((addr >> 7) - d.base_offset) & (span / 16 - 1);
    return addr ^ (phase << 4);
}

namespace detail {
// Bits 0-45 and 49-51, shared by the sm_90 and sm_100 encoders, with their range checks;
// `what` names the descriptor in error messages ("wgmma descriptor", "UMMA smem descriptor").
uint64_t encode_descriptor_common(std::string_view what, uint32_t start_address,
                                  uint32_t leading_byte_offset, uint32_t stride_byte_offset,
                                  uint32_t base_offset);
}  // namespace detail

}  // namespace gs::layout

#include "engine/layout/umma_descriptor.hpp"  // IWYU pragma: export
