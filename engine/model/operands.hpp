// Source operands of one warp-instruction, resolved once: a register's 32 lanes, or one
// value broadcast to every lane. Reading checks uninitialised lanes and registers that an
// unfinished wgmma still owns; Sources::wrote() does the bookkeeping of a destination.
#pragma once

#include <array>
#include <cstdint>

#include "engine/model/exec_context.hpp"

namespace gs::model {

class Sources {
 public:
  explicit Sources(ExecContext& x);
  uint64_t get(size_t operand, uint32_t lane) const {
    const Slot& s = slots_[operand];
    return s.lanes ? s.lanes[lane] : s.value;
  }
  // The operand's 32 lanes where it is a register (or a per-lane special), else null.
  const uint64_t* lanes(size_t operand) const { return slots_[operand].lanes; }
  // After writing destination register `reg` for the active lanes.
  void wrote(uint32_t reg);

 private:
  struct Slot {
    const uint64_t* lanes;
    uint64_t value;
  };
  // Room for the largest instruction (wgmma m64n256k16: 128 accumulators + 7 operands).
  // Left uninitialised on purpose: only the operands the constructor resolves are read.
  static constexpr size_t kMaxOperands = 136;
  ExecContext& x_;
  Slot slots_[kMaxOperands];
  std::array<uint64_t, 32> scratch_;  // per-lane special registers (written before a slot points here)
};

// The value of a special register for one lane of a warp of a CTA.
uint64_t special_value(const Cta& cta, ir::Special s, uint32_t warp, uint32_t lane);
// Bookkeeping shared by every register write (written lanes, wgmma ownership, trace) and
// the checks of every register read (uninitialised lanes, registers a wgmma still owns).
// The inline parts handle the common case (nothing to report, nothing to record) without a
// call; the *_slow functions hold the whole rule and run whenever there may be more to do.
void note_register_write_slow(ExecContext& x, uint32_t reg, uint32_t mask);
void check_register_read_slow(ExecContext& x, uint32_t reg, uint32_t mask);

// Records a reg_write event with the values of the lanes in `mask` (traced CTA only).
void record_register_write(Cta& c, uint32_t warp, uint32_t inst, uint32_t reg, uint32_t mask);

// Always inlined, also into the AVX2 builds of the forms (GCC does not inline ordinary
// functions into functions compiled for another target on its own).
[[gnu::always_inline]] inline void note_register_write(ExecContext& x, uint32_t reg, uint32_t mask) {
  Cta& c = x.cta;
  const size_t slot = size_t(x.warp.id) * c.nregs + reg;
  if (c.wgmma_acc[slot] || c.trace) {
    note_register_write_slow(x, reg, mask);
    return;
  }
  c.written[slot] |= mask;
}

[[gnu::always_inline]] inline void check_register_read(ExecContext& x, uint32_t reg, uint32_t mask) {
  const Cta& c = x.cta;
  const size_t slot = size_t(x.warp.id) * c.nregs + reg;
  if ((c.written[slot] & mask) != mask || c.wgmma_acc[slot]) check_register_read_slow(x, reg, mask);
}

// The same rules for the decoded forms (decode.hpp), whose registers the decoder has looked
// at: where none of them can be a wgmma accumulator (DecodedInst::no_wgmma_regs), reading is
// fine when every running lane has been written in every source, and writing only marks the
// lanes written. `written_in_all` is the AND of the sources' Warp::written; when this says
// there may be more to do, the caller runs check_register_read on each source in operand
// order, which reports exactly what it always did.
[[gnu::always_inline]] inline bool decoded_reads_need_checks(const ExecContext& x, uint32_t written_in_all) {
  return (written_in_all & x.mask) != x.mask || !x.dec.no_wgmma_regs;
}
[[gnu::always_inline]] inline void note_decoded_write(ExecContext& x, uint32_t reg) {
  if (x.dec.no_wgmma_regs && !x.cta.trace) x.warp.written[reg] |= x.mask;
  else note_register_write(x, reg, x.mask);
}

}  // namespace gs::model
