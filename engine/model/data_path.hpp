// The SM's L1 data path as a calendar of cycles (Cta::data_path): one wavefront a cycle, shared
// memory's and global loads' and stores' alike. A request takes the first free cycles at or after
// the cycle it was made, not merely those after the last request's: a load that ptxas schedules
// earlier than the IR's order (DecodedInst::hoist) is requested at that earlier slot, before the
// stores and loads it moved above, which the model issues first (step 05's copy: the SASS issues
// its 8 LDG before its 8 STS, the IR loads and stores one element at a time).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

namespace gs::model {

class DataPath {
 public:
  struct Taken {
    uint64_t first;  // the first cycle the request holds the path
    uint64_t end;    // one past the last
  };

  // Holds `cycles` free cycles of the path, the first ones at or after `request` (not
  // necessarily adjacent: other requests may already hold cycles between them). A request
  // further back than the calendar keeps (kCycles) is made at its oldest cycle.
  Taken take(uint64_t request, uint64_t cycles) {
    if (cycles == 0) return {request, request};
    if (request >= frontier_) {  // the common case: nothing is held at or after request
      cover(request + cycles);
      mark(request, cycles);
      frontier_ = request + cycles;
      return {request, frontier_};
    }
    request = std::max(request, base_);
    uint64_t first = ~uint64_t(0), at = request, left = cycles;
    while (left > 0 && at < frontier_) {
      uint64_t& word = busy_[(at / 64) % kWords];
      uint64_t free = ~word & (~uint64_t(0) << (at % 64));
      if (at / 64 == frontier_ / 64) free &= (uint64_t(1) << (frontier_ % 64)) - 1;  // no further than the frontier
      while (free != 0 && left > 0) {
        const uint64_t bit = free & (~free + 1);
        if (first == ~uint64_t(0)) first = at / 64 * 64 + uint64_t(std::countr_zero(free));
        word |= bit;
        free &= free - 1;
        --left;
        if (left == 0) {
          const uint64_t last = at / 64 * 64 + uint64_t(std::countr_zero(bit));
          return {first, last + 1};
        }
      }
      at = at / 64 * 64 + 64;
    }
    // The rest from the frontier on, adjacent.
    const uint64_t from = frontier_;
    cover(from + left);
    mark(from, left);
    frontier_ = from + left;
    return {first == ~uint64_t(0) ? from : first, frontier_};
  }

  void reset() {
    busy_.fill(0);
    base_ = frontier_ = 0;
  }

  // Every cycle at or after it is free (the last request's end, at the latest).
  uint64_t frontier() const { return frontier_; }

  static constexpr uint64_t kWords = 256;
  static constexpr uint64_t kCycles = kWords * 64;  // 16384 cycles: a request hoisted past a long wait still fits

 private:
  // Moves the calendar's window on so that it holds cycles up to `end` (exclusive), forgetting
  // the oldest.
  void cover(uint64_t end) {
    if (end <= base_ + kCycles) return;
    const uint64_t new_base = (end - kCycles + 63) / 64 * 64;
    if (new_base - base_ >= kCycles) busy_.fill(0);
    else
      for (uint64_t c = base_; c < new_base; c += 64) busy_[(c / 64) % kWords] = 0;
    base_ = new_base;
  }
  void mark(uint64_t from, uint64_t cycles) {
    for (uint64_t c = from; cycles > 0;) {
      const uint64_t bit = c % 64, n = std::min<uint64_t>(cycles, 64 - bit);
      const uint64_t bits = n == 64 ? ~uint64_t(0) : ((uint64_t(1) << n) - 1) << bit;
      busy_[(c / 64) % kWords] |= bits;
      c += n;
      cycles -= n;
    }
  }

  std::array<uint64_t, kWords> busy_{};
  uint64_t base_ = 0;      // the oldest cycle kept (a multiple of 64)
  uint64_t frontier_ = 0;  // every cycle at or after it is free
};

}  // namespace gs::model
