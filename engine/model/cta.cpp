// run_cta: one CTA in modeled time. Warps issue on their scheduler (warp % 4) in order of
// readiness; asynchronous completions (TMA) interleave by cycle; lanes of a warp reconverge
// by running the lanes with the smallest program counter first (min-PC), which is exact
// for the structured control flow the builder emits (if_, loops, wait loops).
#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "engine/model/machine.hpp"

namespace gs::model {

using ir::Family;
using ir::Op;

namespace {

void dispatch(ExecContext& x) {
  const ir::OpInfo& info = x.inst.info();
  switch (info.family) {
    case Family::alu: exec_alu(x); break;
    case Family::convert:
      if (x.inst.op == Op::cvta_to_global || x.inst.op == Op::cvta_param) exec_alu(x);
      else exec_convert(x);
      break;
    case Family::memory: exec_memory(x); break;
    case Family::control: exec_control(x); break;
    case Family::barrier:
    case Family::fence: exec_barrier(x); break;
    case Family::mbarrier: exec_mbarrier(x); break;
    case Family::tma: exec_tma(x); break;
    case Family::wgmma: exec_wgmma(x); break;
    default: exec_unsupported(x); break;
  }
}

std::string smem_name(const Cta& c, uint32_t addr) {
  for (const ir::SharedAlloc& a : c.launch.kernel->smem) {
    const uint32_t base = timing::kSmemBaseAddress + a.offset;
    if (addr >= base && addr < base + a.bytes)
      return addr == base ? a.name : fmt::format("{}+{}", a.name, addr - base);
  }
  return fmt::format("0x{:X}", addr);
}

// Every live warp waits and nothing is in flight: name what each waits for.
void report_deadlock(Cta& c) {
  std::string detail = "every warp is blocked and nothing is in flight:";
  uint32_t inst = 0xFFFFFFFFu, warp = 0xFFFFFFFFu;
  uint64_t addr = 0;
  int listed = 0;
  for (const Warp& w : c.warps) {
    if (w.state == WarpState::exited || w.state == WarpState::ready) continue;
    uint32_t at_pc = 0;
    const uint32_t pc = const_cast<Warp&>(w).next_pc(&at_pc);
    if (inst == 0xFFFFFFFFu) {
      inst = pc;
      warp = w.id;
    }
    if (listed++ >= 4) continue;
    if (w.state == WarpState::mbar_wait) {
      const Mbarrier& m = c.mbars.at(w.wait_mbar);
      addr = w.wait_mbar;
      detail += fmt::format(
          " warp {} waits on mbarrier '{}' for parity {} (phase {} in progress: {} of {} arrivals pending, {} "
          "transaction bytes still expected);",
          w.id, smem_name(c, w.wait_mbar), w.wait_parity, m.phase, m.pending, m.expected, m.tx);
    } else if (w.state == WarpState::bar_wait) {
      detail += fmt::format(" warp {} waits at bar.sync {} ({} of {} threads arrived);", w.id, w.wait_bar_id,
                            c.bar_arrived[w.wait_bar_id], c.bar_expected[w.wait_bar_id]);
    }
  }
  if (listed > 4) detail += fmt::format(" and {} more warps.", listed - 4);
  detail += " On the GPU the kernel hangs.";
  report(c, "deadlock", inst, warp, 0xFFFFFFFFu, addr, detail);
  c.failed = true;
  c.failure = "deadlock: " + detail;
}

}  // namespace

void run_cta(Cta& c, const SimOptions& opt) {
  const ir::Kernel& k = *c.launch.kernel;
  const uint32_t ninst = uint32_t(k.insts.size());
  trace_event(c, EventKind::cta_start, 0, 0xFFFF, 0xFFFFFFFFu, 0, 0xFFFFFFFFu, c.launch.cta_linear);
  for (;;) {
    if (c.failed) break;
    // The next warp to issue: earliest time it can issue on its scheduler.
    Warp* next = nullptr;
    uint64_t next_time = ~uint64_t(0);
    {
      const uint64_t* key = c.ready_key.data();
      const uint32_t nw = uint32_t(c.ready_key.size());
      uint32_t best = nw;
      for (uint32_t i = 0; i < nw; ++i) {
        const uint64_t t = std::max(key[i], c.scheduler_free[i & 3]);
        if (t < next_time) {
          next_time = t;
          best = i;
        }
      }
      if (best < nw) next = &c.warps[best];
    }
    // The next asynchronous completion.
    auto tma = std::min_element(c.tma_pending.begin(), c.tma_pending.end(),
                                [](const PendingTma& a, const PendingTma& b) { return a.complete_at < b.complete_at; });
    if (tma != c.tma_pending.end() && (!next || tma->complete_at <= next_time)) {
      const PendingTma p = *tma;
      c.tma_pending.erase(tma);
      c.now = std::max(c.now, p.complete_at);
      complete_tma(c, p);
      continue;
    }
    if (!next) {
      bool all_exited = true;
      for (const Warp& w : c.warps) all_exited = all_exited && w.state == WarpState::exited;
      if (!all_exited) report_deadlock(c);
      break;
    }
    if (next_time > opt.max_cycles_per_cta) {
      report(c, "hang", 0xFFFFFFFFu, next->id, 0xFFFFFFFFu, 0,
             fmt::format("the CTA ran past {} modeled cycles without finishing: probably an endless loop",
                         opt.max_cycles_per_cta));
      c.failed = true;
      c.failure = "the CTA did not finish";
      break;
    }

    Warp& w = *next;
    if (w.live() == 0) {
      w.state = WarpState::exited;
      c.ready_key[w.id] = ~uint64_t(0);
      continue;
    }
    uint32_t at_pc = 0;
    const uint32_t pc = w.next_pc(&at_pc);
    if (pc >= ninst) {  // fell off the end: the lanes exit
      w.exited |= at_pc;
      continue;
    }
    const ir::Inst& in = k.insts[pc];
    if (in.op == Op::label) {  // labels are not instructions: no issue slot
      w.set_pc(at_pc, pc + 1);
      continue;
    }
    c.now = next_time;
    c.scheduler_free[w.id % 4] = next_time + 1;
    uint32_t mask = at_pc;
    if (in.guard != ir::kNone) {
      const uint64_t* g = c.reg_lanes(w.id, in.guard);
      uint32_t pass = 0;
      for (uint32_t l = 0; l < 32; ++l)
        if ((at_pc >> l & 1) && ((g[l] & 1) != 0) != in.guard_negated) pass |= 1u << l;
      mask = pass;
    }
    ExecContext x{c, w, in, pc, mask, at_pc};
    c.stats->warp_instructions++;
    c.stats->thread_instructions += uint32_t(std::popcount(mask));
    w.instructions++;
    trace_event(c, EventKind::warp_inst, c.now, w.id, pc, mask);
    if (mask != 0) dispatch(x);
    if (!x.block) {
      const uint32_t fall_through = x.branch_handled ? (at_pc & ~mask) : at_pc;
      if (fall_through) w.set_pc(fall_through, pc + 1);
    }
    if ((w.present & ~w.exited) == 0) w.state = WarpState::exited;
    if (w.state == WarpState::ready || w.state == WarpState::exited) w.ready_at = c.now + x.latency;
    c.ready_key[w.id] = w.state == WarpState::ready ? w.ready_at : ~uint64_t(0);
  }
  uint64_t end = c.now;
  for (const Warp& w : c.warps) end = std::max(end, w.ready_at);
  c.cost.cycles = end;
  trace_event(c, EventKind::cta_end, end, 0xFFFF, 0xFFFFFFFFu, 0, 0xFFFFFFFFu, c.launch.cta_linear);
  if (c.trace) c.trace->end_cycle = end;
}

}  // namespace gs::model
