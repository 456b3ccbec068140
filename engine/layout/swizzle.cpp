// Swizzle modes and the address XOR (facts sheet §3). See swizzle.hpp for the contract.
#include "engine/layout/swizzle.hpp"

#include <array>
#include <cctype>
#include <stdexcept>
#include <string>

#include "engine/layout/format_detail.hpp"

namespace gs::layout {

namespace {

// One row per mode, in enumerator order, so every per-mode number lives in one table.
struct SwizzleTraits {
    std::string_view name;
    uint32_t cu_enum;       // CUtensorMapSwizzle (facts §3)
    uint32_t span_bytes;    // widest inner box row (facts §3 "Inner box limit")
    uint32_t repeat_bytes;  // period of the XOR pattern (facts §3 "The repeat")
    uint32_t mask;          // address bits 7.. that feed the XOR (facts §3 [DEV])
    int bms_bits;           // CuTe Swizzle<B,4,3> (facts §3)
};

constexpr std::array<SwizzleTraits, 4> kTraits{{
    {"none", 0, 0, 16, 0, 0},
    {"32B", 1, 32, 256, 1, 1},
    {"64B", 2, 64, 512, 3, 2},
    {"128B", 3, 128, 1024, 7, 3},
}};

const SwizzleTraits& traits(Swizzle sw) {
    const auto index = static_cast<size_t>(sw);
    if (index >= kTraits.size()) {
        throw std::invalid_argument("swizzle value " + detail::str(static_cast<uint32_t>(index)) +
                                    " is not a Swizzle mode (valid: none, 32B, 64B, 128B)");
    }
    return kTraits[index];
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        const auto ca = std::tolower(static_cast<unsigned char>(a[i]));
        const auto cb = std::tolower(static_cast<unsigned char>(b[i]));
        if (ca != cb) return false;
    }
    return true;
}

}  // namespace

std::string_view swizzle_name(Swizzle sw) { return traits(sw).name; }

std::optional<Swizzle> parse_swizzle(std::string_view text) {
    for (size_t i = 0; i < kTraits.size(); ++i) {
        if (equals_ignoring_case(text, kTraits[i].name)) return static_cast<Swizzle>(i);
    }
    return std::nullopt;
}

uint32_t cu_tensor_map_swizzle(Swizzle sw) { return traits(sw).cu_enum; }
uint32_t swizzle_span_bytes(Swizzle sw) { return traits(sw).span_bytes; }
uint32_t swizzle_repeat_bytes(Swizzle sw) { return traits(sw).repeat_bytes; }
uint32_t swizzle_required_alignment(Swizzle sw) { return traits(sw).repeat_bytes; }
uint32_t swizzle_mask(Swizzle sw) { return traits(sw).mask; }

uint32_t swizzle_xor_bits(Swizzle sw, uint32_t byte_addr) {
    return (byte_addr >> 7) & swizzle_mask(sw);
}

uint32_t swizzle_address(Swizzle sw, uint32_t byte_addr) {
    // Bits 7..9 are read and bits 4..6 are written: disjoint, hence an involution.
    return byte_addr ^ (swizzle_xor_bits(sw, byte_addr) << 4);
}

uint32_t SwizzleBMS::apply(uint32_t offset) const {
    if (bits < 0 || base < 0 || shift < bits || base + shift + bits > 32) {
        throw std::invalid_argument(
            "Swizzle<" + detail::str(bits) + "," + detail::str(base) + "," + detail::str(shift) +
            "> is not supported: need B >= 0, M >= 0, S >= B and M + S + B <= 32 "
            "(the TMA modes are <1,4,3>, <2,4,3>, <3,4,3>)");
    }
    if (bits == 0) return offset;
    // Source field: bits [base+shift, base+shift+bits); it lands on [base, base+bits).
    const uint32_t field = ((uint32_t{1} << bits) - 1) << (base + shift);
    return offset ^ ((offset & field) >> shift);
}

SwizzleBMS to_bms(Swizzle sw) { return SwizzleBMS{traits(sw).bms_bits, 4, 3}; }

std::vector<TileLaneRead> tile_warp_read(bool column, Swizzle sw, uint32_t base) {
  std::vector<TileLaneRead> out;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t offset = 16 * lane;  // a row read: lane l's 16 bytes follow lane l-1's
    const uint32_t row = column ? lane : offset / 128;
    const uint32_t chunk = column ? 0 : offset % 128 / 16;
    out.push_back({lane, swizzle_address(sw, base + 128 * row + 16 * chunk)});
  }
  return out;
}

}  // namespace gs::layout
