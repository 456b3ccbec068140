// Shared-memory swizzles: the XOR that TMA applies when it writes a box and that wgmma /
// tcgen05.mma apply when they read a tile through a descriptor.
//
// One fact carries the whole file (facts sheet §3, verified [DEV] on an H100 for all three
// modes): on a shared-memory *byte address*,
//
//     physical = logical XOR (((logical >> 7) & mask) << 4),   mask = 7 / 3 / 1
//
// for 128B / 64B / 32B. In words: the 16-byte chunk index inside a 128-byte line (address
// bits 4..6) is XORed with address bits 7..9 (128B), 7..8 (64B) or bit 7 (32B). The XOR reads
// only bits that it does not change, so applying it twice gives the address back.
//
// The CuTe spelling of the same map is Swizzle<B,M,S> with M=4, S=3 and B=3/2/1
// (facts §3, [CUTLASS cute/swizzle.hpp]); SwizzleBMS keeps that form for the GUI, which
// shows swizzles the way CUTLASS users read them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gs::layout {

// The TMA swizzle modes that a GEMM uses. The enumerator order is ours; CU_TENSOR_MAP_SWIZZLE
// numbers them NONE=0, 32B=1, 64B=2, 128B=3 (facts §3), see cu_tensor_map_swizzle().
// The Blackwell-only 128B_ATOM_* modes are not modelled.
enum class Swizzle : uint8_t { none, b32, b64, b128 };

// "none", "32B", "64B", "128B": the names the GUI, the trace and the command line print.
std::string_view swizzle_name(Swizzle sw);

// Inverse of swizzle_name, case-insensitive ("128b" works). std::nullopt for anything else.
std::optional<Swizzle> parse_swizzle(std::string_view text);

// The CUtensorMapSwizzle value of a mode (facts §3): NONE=0, 32B=1, 64B=2, 128B=3.
uint32_t cu_tensor_map_swizzle(Swizzle sw);

// The widest inner box row that the mode accepts, in bytes: 0 (none: no limit from the
// swizzle), 32, 64, 128 (facts §3 "Inner box limit"). It is also the row pitch of the
// canonical K-major swizzled tile (facts §1.4).
uint32_t swizzle_span_bytes(Swizzle sw);

// The period of the pattern in shared memory: 1024 B (128B), 512 B (64B), 256 B (32B), and
// 16 B for none (one chunk; nothing repeats). Eight rows of `span` bytes.
uint32_t swizzle_repeat_bytes(Swizzle sw);

// The alignment we require of a swizzled tile's base (facts §3 "Alignment rule to adopt"):
// the repeat, so that swizzling the absolute address and swizzling the offset inside the
// tile agree and the wgmma base offset is 0. 16 B for none (TMA's minimum granule).
uint32_t swizzle_required_alignment(Swizzle sw);

// The address-bit mask that selects the XOR source: 7 / 3 / 1, and 0 for none.
uint32_t swizzle_mask(Swizzle sw);

// The value XORed into the 16-byte chunk index (address bits 4..6) of byte_addr:
// (byte_addr >> 7) & mask. 0 for none. The GUI shows it when hovering a byte.
uint32_t swizzle_xor_bits(Swizzle sw, uint32_t byte_addr);

// physical = logical XOR (swizzle_xor_bits(logical) << 4) (facts §3 [DEV]). An involution:
// swizzle_address(sw, swizzle_address(sw, a)) == a for every a.
uint32_t swizzle_address(Swizzle sw, uint32_t byte_addr);

// The two classic warp reads of a tile of 128-byte rows (a K-block of 64 bf16) that the
// Shared-memory view compares, 16 bytes a lane from `base`, through `sw`:
//   row read     lanes 8p..8p+7 read the 8 chunks of row p (consecutive 16-byte pieces);
//   column read  lane l reads chunk 0 of row l (one column of chunks, 128 bytes apart).
// Each lane's (lane, byte address) pair, in lane order.
struct TileLaneRead {
  uint32_t lane = 0, addr = 0;
};
std::vector<TileLaneRead> tile_warp_read(bool column, Swizzle sw, uint32_t base);

// CuTe-style Swizzle<B,M,S> on an offset o (facts §3):
//     o XOR ((o & (((1 << B) - 1) << (M + S))) >> S)
// B = number of XORed bits, M = lowest bit that changes, S = distance from the source bits
// down to the changed bits. apply() throws std::invalid_argument unless bits >= 0, base >= 0,
// shift >= bits (the source field must not overlap the field it changes, else the map is
// not an involution) and base + shift + bits <= 32 (the source field fits in 32 bits).
// Negative shifts (allowed by CuTe) are not needed by any TMA mode and are rejected.
struct SwizzleBMS {
    int bits = 0;
    int base = 4;
    int shift = 3;

    uint32_t apply(uint32_t offset) const;
};

// The CuTe parameters of a TMA mode: 128B = <3,4,3>, 64B = <2,4,3>, 32B = <1,4,3>,
// none = <0,4,3> (B=0 changes nothing).
SwizzleBMS to_bms(Swizzle sw);

}  // namespace gs::layout
