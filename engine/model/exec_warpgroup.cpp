// exec_setmaxnreg and exec_elect_sync: the warp-specialisation ops of Hopper (facts §7).
//
// setmaxnreg moves registers between the warpgroups of a CTA. ptxas fixes a per-thread
// register count at entry (from .maxnreg, or .maxntid with .minnctapersm: 65536 / threads,
// rounded down to a multiple of 8, at most 248), and the CTA is given threads × that count.
// .dec N lowers the issuing warp's limit to N and returns the rest to the CTA's pool; .inc N
// waits until the pool can give the warp N per thread — if no other warp will ever free them,
// the GPU hangs, and the model reports the deadlock naming the request and the pool. (That
// the pool is the CTA's launch allocation, not the whole 64K file, is our reading of why
// every published split fills it exactly: 24 + 240 + 240 and 40 + 232 + 232 = 504 × 128 =
// 384 × 168; UNCONFIRMED on the GPU.)
#include <bit>

#include <fmt/format.h>

#include "engine/ir/signature.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/operands.hpp"

namespace gs::model {

uint32_t entry_register_limit(const ir::Kernel& k) {
  if (k.max_regs > 0) return k.max_regs;
  if (k.min_ctas_per_sm == 0 || k.launch.threads() == 0) return 0;  // ptxas cannot fix it
  const uint32_t per_thread = kRegisterFile / (k.launch.threads() * k.min_ctas_per_sm);
  return std::min<uint32_t>(per_thread, 255) / 8 * 8;
}

uint32_t registers_held(const Cta& c) {
  uint32_t held = 0;
  for (const Warp& w : c.warps) held += 32 * w.reg_limit;
  return held;
}

void exec_setmaxnreg(ExecContext& x) {
  expect_op(x, "exec_setmaxnreg", ir::Op::setmaxnreg_inc, ir::Op::setmaxnreg_dec);
  Cta& c = x.cta;
  Warp& w = x.warp;
  x.latency = timing::kAluLatency;
  const bool inc = x.inst.op == ir::Op::setmaxnreg_inc;
  const uint32_t n = uint32_t(ir::register_count_operands_of(x.inst).regs.imm);
  const char* spelling = inc ? "setmaxnreg.inc" : "setmaxnreg.dec";
  if (c.register_pool == 0) {
    report(c, HazardKind::bad_setmaxnreg, x.inst_id, w.id, 0xFFFFFFFFu, n,
           fmt::format("{} {}: ptxas cannot tell the register count at entry (no .maxnreg, or .maxntid without "
                       ".minnctapersm) and ignores the instruction (warning C7508)",
                       spelling, n));
    return;
  }
  if (x.mask != w.live()) {
    report(c, HazardKind::bad_setmaxnreg, x.inst_id, w.id, 0xFFFFFFFFu, n,
           fmt::format("{} .sync.aligned must be executed by every thread of the warpgroup; only lanes 0x{:08X} of "
                       "warp {} did",
                       spelling, x.mask, w.id));
  }
  if (inc ? n < w.reg_limit : n > w.reg_limit) {
    report(c, HazardKind::bad_setmaxnreg, x.inst_id, w.id, 0xFFFFFFFFu, n,
           fmt::format("{} {} while warp {}'s limit is {} registers per thread: .inc must not lower the limit and "
                       ".dec must not raise it",
                       spelling, n, w.id, w.reg_limit));
  }
  if (!inc || n <= w.reg_limit) {
    w.reg_limit = n;
    // Registers came back to the pool: warps waiting in setmaxnreg.inc try again.
    for (Warp& other : c.warps)
      if (other.state == WarpState::regs_wait) wake(c, other, c.now + timing::kAluLatency);
  } else {
    const uint32_t needed = registers_held(c) - 32 * w.reg_limit + 32 * n;
    if (needed > c.register_pool) {
      x.block = true;  // sleeps until a .dec frees registers, then runs again
      w.state = WarpState::regs_wait;
      w.wait_regs = n;
      w.wait_since = c.now;
      return;
    }
    w.reg_limit = n;
  }
  trace_event(c, EventKind::reg_limit, c.now, w.id, x.inst_id, x.mask, kNone, w.reg_limit);
}

// elect.sync _|p, membermask: p is true in exactly one lane, the lowest running lane of
// membermask (the leader lane id goes to the first destination unless it is the sink).
void exec_elect_sync(ExecContext& x) {
  expect_op(x, "exec_elect_sync", ir::Op::elect_sync);
  const ir::elect_operands ops = ir::elect_operands_of(x.inst);
  Sources src(x);
  const uint32_t lane0 = uint32_t(std::countr_zero(x.mask));
  const uint32_t members = uint32_t(src.get(2, lane0)) & x.mask;
  const uint32_t leader = members ? uint32_t(std::countr_zero(members)) : 32;
  Cta& c = x.cta;
  for (uint32_t l = 0; l < 32; ++l) {
    if (!(x.mask >> l & 1)) continue;
    c.reg(x.warp.id, ops.elected.id, l) = l == leader ? 1 : 0;
    if (ops.leader.kind == ir::OperandKind::reg) c.reg(x.warp.id, ops.leader.id, l) = leader;
  }
  src.wrote(ops.elected.id);
  if (ops.leader.kind == ir::OperandKind::reg) src.wrote(ops.leader.id);
  x.latency = timing::kAluLatency;
}

}  // namespace gs::model
