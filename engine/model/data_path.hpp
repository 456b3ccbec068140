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
  [[gnu::always_inline]] Taken take(uint64_t request, uint64_t cycles) {
    // A request behind the frontier from where every cycle is held gets what a request at the
    // frontier gets, as in take_any (step 09's fragment loads, most of its requests: the call
    // was a sixth of its ld.shared's instructions).
    if (cycles > 0 && request < frontier_ && request >= held_from_ && request >= base()) request = frontier_;
    // The commonest case inline (a request at or past the frontier that ends in its first word
    // of the calendar, inside the window): what take_any does for it, without a call.
    if (request >= frontier_ && cycles > 0 && cycles <= 64 - request % 64 && request + cycles <= base() + kCycles) {
      busy_[(request / 64) % kWords] |= (cycles == 64 ? ~uint64_t(0) : (uint64_t(1) << cycles) - 1) << (request % 64);
      note_if_full(request / 64);
      if (request > frontier_) held_from_ = request;  // the cycles between are free
      frontier_ = request + cycles;
      return {request, frontier_};
    }
    return take_any(request, cycles);
  }

  // take for any request.
  [[gnu::noinline]] Taken take_any(uint64_t request, uint64_t cycles) {
    if (cycles == 0) return {request, request};
    // A request behind the frontier from where every cycle up to it is held (held_from_) gets
    // what a request at the frontier gets: the search below would find no free cycle before the
    // frontier and take the rest from there. Step 09's path runs ahead of its warps' clocks: 30%
    // of its fragment loads are requested 64 to 191 cycles behind the frontier, every cycle
    // between held, and their search was 5% of its time.
    if (request < frontier_ && request >= held_from_ && request >= base()) request = frontier_;
    if (request >= frontier_) {  // the common case: nothing is held at or after request
      cover(request + cycles);
      mark(request, cycles);
      if (request > frontier_) held_from_ = request;
      frontier_ = request + cycles;
      return {request, frontier_};
    }
    request = std::max(request, base());
    uint64_t first = ~uint64_t(0), at = request, left = cycles;
    while (left > 0 && at < frontier_) {
      // Full words hold no free cycle: on from the first that is not full.
      if (const uint64_t open = first_open_word(at / 64, frontier_ / 64); open != at / 64) {
        at = open * 64;
        if (at >= frontier_) break;
      }
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
          note_if_full(at / 64);
          const uint64_t last = at / 64 * 64 + uint64_t(std::countr_zero(bit));
          return {first, last + 1};
        }
      }
      note_if_full(at / 64);
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
    full_.fill(0);
    frontier_ = held_from_ = 0;
  }

  // Every cycle at or after it is free (the last request's end, at the latest).
  uint64_t frontier() const { return frontier_; }

  static constexpr uint64_t kWords = 256;
  static constexpr uint64_t kCycles = kWords * 64;  // 16384 cycles: a request hoisted past a long wait still fits

 private:
  // The oldest cycle kept (a multiple of 64): the window holds the kCycles up to the frontier
  // (to its word's end), or those from cycle 0 while the frontier is below kCycles. A function
  // of the frontier rather than a member: only cover moves the window, each time to where the
  // new frontier needs it, so the two never part. A member of its own beside held_from_ made the
  // class 8 bytes longer, which moved every field of Cta after its two calendars: steps 08 and
  // 10 ran 3-4% slower for that alone (a pad of 8 bytes in the base did the same).
  uint64_t base() const { return frontier_ > kCycles ? (frontier_ - kCycles + 63) / 64 * 64 : 0; }
  // Moves the calendar's window on so that it holds cycles up to `end` (exclusive), forgetting
  // the oldest.
  void cover(uint64_t end) {
    const uint64_t base = this->base();
    if (end <= base + kCycles) return;
    const uint64_t new_base = (end - kCycles + 63) / 64 * 64;
    if (new_base - base >= kCycles) {
      busy_.fill(0);
      full_.fill(0);
    } else {
      for (uint64_t c = base; c < new_base; c += 64) {
        const uint64_t slot = (c / 64) % kWords;
        busy_[slot] = 0;
        full_[slot / 64] &= ~(uint64_t(1) << (slot % 64));
      }
    }
  }
  // Keeps full_'s bit of word `index` (cycles 64 index .. 64 index + 63) up to date after bits
  // were set in it.
  void note_if_full(uint64_t index) {
    const uint64_t slot = index % kWords;
    if (busy_[slot] == ~uint64_t(0)) full_[slot / 64] |= uint64_t(1) << (slot % 64);
  }
  // The first word index in [from, last] whose word is not full, or last + 1. A run of 64
  // slots of full_ is one summary word, and the ring wraps at a multiple of 64 slots, so the
  // indices inside one summary word count up with the slots.
  uint64_t first_open_word(uint64_t from, uint64_t last) const {
    for (uint64_t index = from; index <= last;) {
      const uint64_t slot = index % kWords;
      const uint64_t open = ~full_[slot / 64] >> (slot % 64);
      if (open != 0) return std::min(index + uint64_t(std::countr_zero(open)), last + 1);
      index += 64 - slot % 64;
    }
    return last + 1;
  }
  void mark(uint64_t from, uint64_t cycles) {
    for (uint64_t c = from; cycles > 0;) {
      const uint64_t bit = c % 64, n = std::min<uint64_t>(cycles, 64 - bit);
      const uint64_t bits = n == 64 ? ~uint64_t(0) : ((uint64_t(1) << n) - 1) << bit;
      busy_[(c / 64) % kWords] |= bits;
      note_if_full(c / 64);
      c += n;
      cycles -= n;
    }
  }

  std::array<uint64_t, kWords> busy_{};
  // Bit i: busy_[i] is full (every cycle held). take's search steps over such words at once: a
  // hoisted ld.shared's request may lie far behind the frontier of a busy path, and the
  // search went word by word (simt_smem_tiling: DataPath::take 13-19% of its time).
  std::array<uint64_t, kWords / 64> full_{};
  uint64_t frontier_ = 0;  // every cycle at or after it is free
  // Every cycle of [held_from_, frontier_) is held (as far as the window keeps them: below base()
  // nothing is kept). Set where a request leaves free cycles before it at the frontier; a search
  // that fills holes behind it leaves it where it was, which is still true, only later than it
  // could be.
  uint64_t held_from_ = 0;
};

}  // namespace gs::model
