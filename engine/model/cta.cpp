// run_cta: one CTA in modeled time. Warps issue on their scheduler (warp % 4) in order of
// readiness; asynchronous completions (TMA) interleave by cycle; lanes of a warp reconverge
// by running the lanes with the smallest program counter first (min-PC), which is exact
// for the structured control flow the builder emits (if_, loops, wait loops).
#include <algorithm>
#include <bit>
#include <functional>

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
    case Family::mma: exec_mma(x); break;
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

// Every live warp waits and nothing is in flight: name what they wait for, grouping the
// warps that wait for the same thing.
void report_deadlock(Cta& c) {
  std::vector<std::pair<std::string, std::vector<uint32_t>>> waits;  // description -> warps
  uint32_t inst = 0xFFFFFFFFu, warp = 0xFFFFFFFFu;
  uint64_t addr = 0;
  for (Warp& w : c.warps) {
    if (w.state == WarpState::exited || w.state == WarpState::ready) continue;
    uint32_t at_pc = 0;
    const uint32_t pc = w.next_pc(&at_pc);
    if (inst == 0xFFFFFFFFu) {
      inst = pc;
      warp = w.id;
    }
    std::string what;
    if (w.state == WarpState::mbar_wait) {
      const Mbarrier& m = c.mbars.at(w.wait_mbar);
      addr = w.wait_mbar;
      what = fmt::format(
          "wait on mbarrier '{}' for parity {} (phase {} in progress: {} of {} arrivals pending, {} transaction bytes "
          "still expected)",
          smem_name(c, w.wait_mbar), w.wait_parity, m.phase, m.pending, m.expected, m.tx);
    } else if (w.state == WarpState::bar_wait) {
      what = fmt::format("wait at bar.sync {} ({} of {} threads arrived)", w.wait_bar_id, c.bar_arrived[w.wait_bar_id],
                         c.bar_expected[w.wait_bar_id]);
    } else {
      what = "wait";
    }
    auto it = std::find_if(waits.begin(), waits.end(), [&](const auto& p) { return p.first == what; });
    if (it == waits.end()) waits.push_back({what, {w.id}});
    else it->second.push_back(w.id);
  }
  std::string detail = "every warp is blocked and nothing is in flight:";
  for (const auto& [what, ids] : waits) {
    std::string list;
    for (size_t i = 0; i < ids.size() && i < 8; ++i) list += (i ? ", " : "") + std::to_string(ids[i]);
    if (ids.size() > 8) list += fmt::format(" and {} more", ids.size() - 8);
    detail += fmt::format(" warp{} {} {};", ids.size() > 1 ? "s" : "", list, what);
  }
  detail += " On the GPU the kernel hangs.";
  report(c, "deadlock", inst, warp, 0xFFFFFFFFu, addr, detail);
  c.failed = true;
  c.failure = "deadlock: " + detail;
}

// The ready warp that issues next: smallest (issue time, warp). Returns nullptr if none.
Warp* peek_ready(Cta& c, uint64_t* time) {
  auto& h = c.ready_heap;
  const auto cmp = std::greater<Cta::ReadyEntry>();
  while (!h.empty()) {
    const Cta::ReadyEntry top = h.front();
    if (top.version != c.ready_version[top.warp]) {  // superseded
      std::pop_heap(h.begin(), h.end(), cmp);
      h.pop_back();
      continue;
    }
    const uint64_t t = std::max(c.ready_key[top.warp], c.scheduler_free[top.warp & 3]);
    if (t > top.time) {  // its scheduler became busy since: re-queue at the real time
      std::pop_heap(h.begin(), h.end(), cmp);
      h.back().time = t;
      std::push_heap(h.begin(), h.end(), cmp);
      continue;
    }
    *time = t;
    return &c.warps[top.warp];
  }
  return nullptr;
}

void pop_ready(Cta& c) {
  std::pop_heap(c.ready_heap.begin(), c.ready_heap.end(), std::greater<Cta::ReadyEntry>());
  c.ready_heap.pop_back();
}

}  // namespace

void Cta::push_ready(uint32_t w, uint64_t at) {
  ready_key[w] = at;
  const uint32_t v = ++ready_version[w];
  ready_heap.push_back({at, w, v});
  std::push_heap(ready_heap.begin(), ready_heap.end(), std::greater<ReadyEntry>());
}

void run_cta(Cta& c, const SimOptions& opt) {
  const ir::Kernel& k = *c.launch.kernel;
  const uint32_t ninst = uint32_t(k.insts.size());
  trace_event(c, EventKind::cta_start, 0, 0xFFFF, 0xFFFFFFFFu, 0, 0xFFFFFFFFu, c.launch.cta_linear);
  bool exited_with_pending_tma = false;
  for (;;) {
    if (c.failed) break;
    // The next warp to issue: earliest time it can issue on its scheduler.
    uint64_t next_time = ~uint64_t(0);
    Warp* next = peek_ready(c, &next_time);
    // The next asynchronous completion.
    auto tma = std::min_element(c.tma_pending.begin(), c.tma_pending.end(),
                                [](const PendingTma& a, const PendingTma& b) { return a.complete_at < b.complete_at; });
    if (tma != c.tma_pending.end() && (!next || tma->complete_at <= next_time)) {
      if (!next && !exited_with_pending_tma) {
        bool all_exited = true;
        for (const Warp& w : c.warps) all_exited = all_exited && w.state == WarpState::exited;
        if (all_exited) {
          exited_with_pending_tma = true;
          const TmaJob& job = c.tma_jobs[tma->record];
          report(c, "exit-with-pending-tma", job.inst, job.warp, 0xFFFFFFFFu, job.smem_dst,
                 fmt::format("the CTA exited while {} TMA load(s) were still writing its shared memory: nothing waited "
                             "on their mbarrier. On the H100 this kernel failed with CUDA_ERROR_LAUNCH_FAILED "
                             "(docs/results/2026-11-21-h100)",
                             c.tma_pending.size()));
        }
      }
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
    pop_ready(c);
    if (w.live() == 0) {
      w.state = WarpState::exited;
      c.unready(w.id);
      continue;
    }
    uint32_t at_pc = 0;
    const uint32_t pc = w.next_pc(&at_pc);
    if (pc >= ninst) {  // fell off the end: the lanes exit
      w.exited |= at_pc;
      c.push_ready(w.id, w.ready_at);
      continue;
    }
    const ir::Inst& in = k.insts[pc];
    if (in.op == Op::label) {  // labels are not instructions: no issue slot
      w.set_pc(at_pc, pc + 1);
      c.push_ready(w.id, w.ready_at);
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
    if (w.state == WarpState::ready) c.push_ready(w.id, w.ready_at);
    else c.unready(w.id);
  }
  uint64_t end = c.now;
  for (const Warp& w : c.warps) end = std::max(end, w.ready_at);
  c.cost.cycles = end;
  trace_event(c, EventKind::cta_end, end, 0xFFFF, 0xFFFFFFFFu, 0, 0xFFFFFFFFu, c.launch.cta_linear);
  if (c.trace) c.trace->end_cycle = end;
}

}  // namespace gs::model
