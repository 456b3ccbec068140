// run_cta: one CTA in modeled time. Warps issue on their scheduler (warp % 4) in order of
// readiness; asynchronous completions (TMA) interleave by cycle; lanes of a warp reconverge
// by running the lanes with the smallest program counter first (min-PC), which is exact
// for the structured control flow the builder emits (if_, loops, wait loops).
#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "engine/model/machine.hpp"

namespace gs::model {


namespace {

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
  const uint32_t nwarps = uint32_t(c.warps.size());
  Cta::SchedulerPick best;
  for (uint32_t s = 0; s < 4; ++s) {
    Cta::SchedulerPick& p = c.pick[s];
    if (p.stale) {  // rescan this scheduler's warps s, s+4, s+8, ...
      p = Cta::SchedulerPick{.stale = false};
      const uint64_t free_at = c.scheduler_free[s];
      for (uint32_t w = s; w < nwarps; w += 4) {
        const uint64_t key = c.ready_key[w];
        if (key == ~uint64_t(0)) continue;
        const uint64_t t = std::max(key, free_at);
        if (t < p.time) {  // warps are visited in increasing order: ties keep the smaller
          p.time = t;
          p.warp = w;
        }
      }
    }
    if (p.time < best.time || (p.time == best.time && p.time != ~uint64_t(0) && p.warp < best.warp)) best = p;
  }
  if (best.time == ~uint64_t(0)) return nullptr;
  *time = best.time;
  return &c.warps[best.warp];
}

}  // namespace

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
    const DecodedInst& d = c.program->insts[pc];
    if (d.is_label) {  // labels are not instructions: no issue slot
      w.set_pc(at_pc, pc + 1);
      c.push_ready(w.id, w.ready_at);
      continue;
    }
    c.now = next_time;
    c.set_scheduler_free(w.id % 4, next_time + 1);
    uint32_t mask = at_pc;
    if (d.guard != ir::kNone) {
      const uint64_t* g = c.reg_lanes(w.id, d.guard);
      uint32_t pass = 0;
      for (uint32_t l = 0; l < 32; ++l) pass |= uint32_t(g[l] & 1) << l;
      mask = at_pc & (d.guard_negated ? ~pass : pass);
    }
    ExecContext x{c, w, k.insts[pc], d, pc, mask, at_pc};
    c.stats->warp_instructions++;
    c.stats->thread_instructions += uint32_t(std::popcount(mask));
    w.instructions++;
    if (c.trace) trace_event(c, EventKind::warp_inst, c.now, w.id, pc, mask);
    if (mask != 0) d.exec(x);
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
