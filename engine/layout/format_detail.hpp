// Small string helpers for the error messages and one-line descriptions of engine/layout.
// GCC 12 has no <format>, and engine/layout must build with nothing but the standard library
// (its tests are compiled on their own), so the few conversions it needs live here.
#pragma once

#include <cstdint>
#include <string>

namespace gs::layout::detail {

// "0x" followed by at least min_digits upper-case hex digits: hex(0x400, 4) == "0x0400".
inline std::string hex(uint64_t value, int min_digits = 1) {
    static constexpr char kDigits[] = "0123456789ABCDEF";
    std::string digits;
    do {
        digits.insert(digits.begin(), kDigits[value & 0xF]);
        value >>= 4;
    } while (value != 0);
    while (static_cast<int>(digits.size()) < min_digits) digits.insert(digits.begin(), '0');
    return "0x" + digits;
}

inline std::string str(uint64_t value) { return std::to_string(value); }
inline std::string str(int64_t value) { return std::to_string(value); }
inline std::string str(int value) { return std::to_string(value); }
inline std::string str(uint32_t value) { return std::to_string(value); }

}  // namespace gs::layout::detail
