// Bit sets over shared memory's 4-byte words, a 64-bit word of bits for 64 of them: what Cta
// keeps of every word that a test of its 16-byte record would otherwise answer (smem_ready,
// tma_pending_bits, records_landed). Each function walks words [lo, hi) a 64-bit word at a time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gs::model::word_bits {

// f(index of the 64-bit word, the mask of [lo, hi)'s bits in it) for each 64-bit word the range
// touches, until f returns false; whether it never did.
template <typename F>
inline bool each_run(uint32_t lo, uint32_t hi, F&& f) {
  for (; lo < hi; lo = (lo | 63) + 1) {
    const uint32_t n = std::min(hi - lo, 64 - (lo & 63));
    if (!f(lo >> 6, (n == 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1) << (lo & 63))) return false;
  }
  return true;
}

// Sets (kSet) or clears bits [lo, hi); whether any of them was set before.
template <bool kSet>
inline bool mark(std::vector<uint64_t>& bits, uint32_t lo, uint32_t hi) {
  uint64_t had = 0;
  each_run(lo, hi, [&](uint32_t i, uint64_t run) {
    had |= bits[i] & run;
    if constexpr (kSet) bits[i] |= run;
    else bits[i] &= ~run;
    return true;
  });
  return had != 0;
}

inline bool at(const std::vector<uint64_t>& bits, uint32_t w) { return bits[w >> 6] >> (w & 63) & 1; }

inline bool any(const std::vector<uint64_t>& bits, uint32_t lo, uint32_t hi) {
  return !each_run(lo, hi, [&](uint32_t i, uint64_t run) { return (bits[i] & run) == 0; });
}

inline bool all(const std::vector<uint64_t>& bits, uint32_t lo, uint32_t hi) {
  return each_run(lo, hi, [&](uint32_t i, uint64_t run) { return (bits[i] & run) == run; });
}

// The 64-bit words a set of `words` bits takes.
inline size_t words_for(size_t words) { return (words + 63) / 64; }

}  // namespace gs::model::word_bits
