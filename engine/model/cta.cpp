// run_cta: one CTA in modeled time. Warps issue on their scheduler (warp % 4) in order of
// readiness; asynchronous completions (TMA) interleave by cycle; lanes of a warp reconverge
// by running the lanes with the smallest program counter first (min-PC), which is exact
// for the structured control flow the builder emits (if_, loops, wait loops).
#include <algorithm>
#include <bit>
#include <span>

#include <fmt/format.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "engine/model/exec_context.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

namespace {

// What a blocked CTA's live warps wait for, grouping the warps that wait for the same thing
// (" warps 0, 1 wait on ...; warp 4 wait at ...;"), and the first blocked warp's next instruction.
struct BlockedWarps {
  std::string text;
  uint32_t inst = kNone, warp = kNone;
  uint64_t addr = 0;
};

BlockedWarps blocked_warps(Cta& c) {
  std::vector<std::pair<std::string, std::vector<uint32_t>>> waits;  // description -> warps
  uint32_t inst = kNone, warp = kNone;
  uint64_t addr = 0;
  for (Warp& w : c.warps) {
    if (w.state == WarpState::exited || w.state == WarpState::ready) continue;
    uint32_t at_pc = 0;
    const uint32_t pc = w.next_pc(&at_pc);
    if (inst == kNone) {
      inst = pc;
      warp = w.id;
    }
    std::string what;
    if (w.state == WarpState::mbar_wait) {
      const Mbarrier& m = c.mbars.at(w.wait_mbar);
      addr = w.wait_mbar;
      what = fmt::format(
          "wait on {} for parity {} (phase {} in progress: {} of {} arrivals pending, {} transaction bytes "
          "still expected)",
          barrier_name(c, w.wait_mbar), w.wait_parity, m.phase, m.pending_arrivals, m.expected, m.tx_count);
    } else if (w.state == WarpState::bar_wait) {
      what = fmt::format("wait at bar.sync {} ({} of {} threads arrived)", w.wait_bar_id, c.bar_arrived[w.wait_bar_id],
                         c.bar_expected[w.wait_bar_id]);
    } else if (w.state == WarpState::cluster_wait) {
      what = fmt::format("wait at barrier.cluster (phase {}; a peer CTA's warps never arrived)",
                         c.launch.cluster ? c.launch.cluster->barrier_phase : 0);
    } else if (w.state == WarpState::regs_wait) {
      what = fmt::format("wait at setmaxnreg.inc {} (the warps' limits hold {} of the CTA's {} registers, and no "
                         "warp will free any with setmaxnreg.dec)",
                         w.wait_regs, registers_held(c), c.register_pool);
    } else {
      what = "wait";
    }
    auto it = std::find_if(waits.begin(), waits.end(), [&](const auto& p) { return p.first == what; });
    if (it == waits.end()) waits.push_back({what, {w.id}});
    else it->second.push_back(w.id);
  }
  BlockedWarps b{"", inst, warp, addr};
  for (const auto& [what, ids] : waits) {
    std::string list;
    for (size_t i = 0; i < ids.size() && i < 8; ++i) list += (i ? ", " : "") + std::to_string(ids[i]);
    if (ids.size() > 8) list += fmt::format(" and {} more", ids.size() - 8);
    b.text += fmt::format(" warp{} {} {};", ids.size() > 1 ? "s" : "", list, what);
  }
  return b;
}

}  // namespace

// Every live warp waits and nothing is in flight: name what they wait for. In a cluster, one
// report names every blocked CTA's waits by rank (a peer's missing arrive is often what the
// first CTA waits for, and which CTA is stuck where is the lesson: step 26's commit-to-one-cta).
void report_deadlock(Cta& c, std::span<Cta* const> blocked_peers) {
  const BlockedWarps b = blocked_warps(c);
  std::string detail = "every warp is blocked and nothing is in flight:" + b.text;
  if (!blocked_peers.empty()) {
    detail = fmt::format("every warp of the cluster is blocked and nothing is in flight: in CTA rank {},{}",
                         c.launch.cluster_rank, b.text);
    for (Cta* p : blocked_peers) detail += fmt::format(" in CTA rank {},{}", p->launch.cluster_rank, blocked_warps(*p).text);
  }
  detail += " On the GPU the kernel hangs.";
  report(c, HazardKind::deadlock, b.inst, b.warp, kNone, b.addr, detail);
  c.failed = true;
  c.failure = "deadlock: " + detail;
  for (Cta* p : blocked_peers) {
    p->failed = true;
    p->failure = c.failure;
  }
}

namespace {

// One scheduler's pick: the smallest max(key, free_at) over its warps' ready keys, and the
// first slot that has it. Not-ready warps have key kNotReady, which never wins (an empty
// scheduler answers kNotReady, slot 0).
struct Rescan {
  uint64_t time;
  uint32_t slot;
};
[[gnu::always_inline]] inline Rescan rescan(const std::array<uint64_t, Cta::kWarpsPerScheduler>& keys,
                                            uint64_t free_at) {
  static_assert(Cta::kWarpsPerScheduler == 8);
  // Each slot as one number, max(key, free_at) * 8 + slot, which orders (time, slot) as the
  // pick does (the first slot wins a tie): each step of the minimum is then one compare and
  // one select instead of a compare and two selects.
  const auto at = [&](uint32_t j) { return std::max(keys[j], free_at) * 8 + j; };
  // A tree of pairwise minimums rather than a running one: the next issue waits for this
  // answer, and the tree's chain of dependent steps is 3 long instead of 8. (GCC turns a tree
  // of std::min into a running minimum; the empty asm statement hides each step from it.)
  const auto min = [](uint64_t a, uint64_t b) {
    uint64_t m = std::min(a, b);
#if defined(__GNUC__)
    asm("" : "+r"(m));
#endif
    return m;
  };
  const uint64_t m = min(min(min(at(0), at(1)), min(at(2), at(3))), min(min(at(4), at(5)), min(at(6), at(7))));
  return {m / 8, uint32_t(m % 8)};
}

// The ready warp that issues next: the smallest (issue time, warp) over the four schedulers'
// picks; nullptr if no warp is ready. Runs before every issue, which leaves one scheduler
// to rescan (the issuer's).
[[gnu::always_inline]] inline Warp* peek_ready(Cta& c, uint64_t* time) {
  for (uint32_t stale = c.stale_picks; stale; stale &= stale - 1) {
    const uint32_t s = uint32_t(std::countr_zero(stale));
    const Rescan r = rescan(c.ready_key[s], c.scheduler_free[s]);
    c.pick[s] = Cta::pick_of(r.time, 4 * r.slot + s);
  }
  c.stale_picks = 0;
  // The smallest of the four picks (Cta::pick). Picks name distinct warps, so no two ready
  // ones are equal; an empty scheduler's kNoPick only ties with another empty one.
  const uint64_t best = std::min(std::min(c.pick[0], c.pick[1]), std::min(c.pick[2], c.pick[3]));
  if (best == Cta::kNoPick) return nullptr;
  *time = best >> 5;
  return &c.warps[best & 31];
}

#if defined(__x86_64__) && defined(__GNUC__)
// push_ready for the warp that has just issued (AVX2 build), with its scheduler's pick brought
// up to date at once instead of by peek_ready's rescan. It computes the same pick, another
// way: the warps whose key is at most free_at can all issue at free_at, and the first slot of
// them wins; only when there is none is the pick the smallest (key, slot), as rescan finds it.
// Measured on simt_naive, 94% of picks have such a warp (most of a scheduler's warps wait for
// it, not for a latency), and the mask of them is two vector compares where rescan is a tree
// of 15 scalar steps. The keys are compared before the issuer's new key is stored: a vector
// load of a key just stored as a scalar would wait for the store to complete (no forwarding),
// which is what made an AVX2 rescan slower than the scalar one. The issuer's slot is then
// taken from `key` itself. Keys and times are below 2^62, so signed compares order them.
__attribute__((target("avx2"))) inline uint32_t keys_later_than(const uint64_t* keys, __m256i time) {
  const __m256i k = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys));
  return uint32_t(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(k, time))));  // bit i: keys[i] > time
}
__attribute__((target("avx2"))) inline void push_issued_avx2(Cta& c, uint32_t warp, uint64_t key) {
  const uint32_t s = warp & 3, slot = warp >> 2;
  std::array<uint64_t, Cta::kWarpsPerScheduler>& keys = c.ready_key[s];
  const uint64_t free_at = c.scheduler_free[s];
  // A CTA of at most four warps (the Ampere steps'): the issuer is its scheduler's only warp, and
  // the pick below comes to max(key, free_at) for it (every other slot is kNotReady).
  if (c.one_warp_per_scheduler) {
    keys[0] = key;
    c.pick[s] = std::max(key, free_at) << 5 | s;
    c.stale_picks &= ~(1u << s);
    return;
  }
  const __m256i free_v = _mm256_set1_epi64x(int64_t(free_at));
  const uint32_t later = keys_later_than(keys.data(), free_v) | keys_later_than(keys.data() + 4, free_v) << 4;
  const uint32_t others = ~later & ~(1u << slot) & 0xFFu;
  const uint32_t ready_by_free = others | uint32_t(key <= free_at) << slot;
  keys[slot] = key;
  if (ready_by_free) {
    c.pick[s] = free_at << 5 | (4 * uint32_t(std::countr_zero(ready_by_free)) + s);
  } else {
    const Rescan r = rescan(keys, free_at);
    c.pick[s] = Cta::pick_of(r.time, 4 * r.slot + s);
  }
  c.stale_picks &= ~(1u << s);  // everything that set it (issue, wakes during it) is in the keys read
}

// lane_bits, 4 lanes per instruction.
__attribute__((target("avx2"))) inline uint32_t lane_bits_avx2(const uint64_t* lanes) {
  uint32_t bits = 0;
#pragma GCC unroll 8  // 8 steps: unrolled (GCC), as the lane loops of exec_alu.cpp are
  for (uint32_t l = 0; l < 32; l += 4) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes + l));
    bits |= uint32_t(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_slli_epi64(v, 63)))) << l;
  }
  return bits;
}
#endif

// The lanes of a warp whose guard predicate lets them run (all 32; the caller ANDs in the
// lanes at the pc).
template <bool kAvx2>
[[gnu::always_inline]] inline uint32_t guard_lanes(const Warp& w, const DecodedInst& d) {
  const uint64_t* guard = w.regs + 32 * size_t(d.guard);
  uint32_t pass = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  if constexpr (kAvx2) pass = lane_bits_avx2(guard);
  else pass = lane_bits(guard);
#else
  pass = lane_bits(guard);
#endif
  return d.guard_negated ? ~pass : pass;
}

// The issue model (decode.hpp, DecodedInst::Issue). The cycle from which every register the
// instruction reads or writes holds its last value (a write still in flight blocks a later
// read and a later write alike, as the hardware's scoreboard does).
// The first four entries without a loop (the list is padded to four with an always-ready
// register, DecodedInst::kReadyFloor): most instructions read at most four registers, and the
// loop's exit at a count that changes from one instruction to the next was a quarter of the
// straight loop's own time (perf on step 08: the loop's line and its max).
[[gnu::always_inline]] inline uint64_t operands_ready(const Warp& w, const DecodedInst& d, const uint32_t* sb) {
  static_assert(DecodedInst::kReadyFloor == 4);
  const uint32_t* r = sb + d.ready_at;
  const uint64_t* ready = w.reg_ready;
  uint64_t t = std::max(std::max(ready[r[0]], ready[r[1]]), std::max(ready[r[2]], ready[r[3]]));
  for (uint32_t i = 4, n = d.nready; i < n; ++i) t = std::max(t, ready[r[i]]);
  return t;
}
// After an issue at `now` whose latency is `latency`: the written registers are ready when it
// is over, and the warp's next issue is the next cycle (result, store) or after it (whole);
// for a warp at one pc, no earlier than the next instruction's operands are ready.
[[gnu::always_inline]] inline uint64_t next_issue(Cta& c, Warp& w, uint32_t pc, const DecodedInst& d,
                                                  const DecodedInst* decoded, uint32_t ninst, const uint32_t* sb,
                                                  uint64_t now, uint32_t latency) {
  uint64_t at = now + latency;
  w.issue_at[pc & kHoistWindow] = now;
  if (d.issue != DecodedInst::Issue::whole) {
    at = now + 1;
    // An FFMA reading two new registers holds its warp a part of a cycle (DecodedInst::read_cycles).
    if (d.read_cycles > 0) {
      w.read_debt += d.read_cycles;
      if (w.read_debt >= 1.0f) {
        at += 1;
        w.read_debt -= 1.0f;
      }
    }
    // A traced CTA's global store waits for the SM's store path (exec_mem.cpp, account_global).
    if (d.issue == DecodedInst::Issue::store) at = std::max(at, w.store_hold);
    uint64_t ready = now + (d.result_latency ? d.result_latency : latency);
    // An IMAD waits for its sub-partition's pipe, which takes one every pipe_cycles.
    if (d.pipe_cycles) {
      uint64_t& free_at = c.imad_free[w.id & 3];
      const uint64_t start = std::max(now, free_at);
      free_at = start + d.pipe_cycles;
      ready += start - now;
    }
    // A load ptxas schedules `hoist` instructions earlier: its data comes `latency` after that
    // slot issued (DecodedInst::hoist; only while the warp runs one pc, so that the slots between
    // are this run's).
    if (d.hoist && w.uniform) ready = std::max(now + 1, w.issue_at[(pc - d.hoist) & kHoistWindow] + latency);
    const uint32_t* r = sb + d.writes_at;
    for (uint32_t i = 0; i < d.nwrites; ++i) w.reg_ready[r[i]] = ready;
  }
  if (w.uniform && w.upc < ninst) at = std::max(at, operands_ready(w, decoded[w.upc], sb));
  return at;
}

// The common issues of an untraced CTA with no copy in flight, one after another: a warp
// whose live lanes are all 32 and at one pc, at an instruction with a straight path
// (DecodedInst::direct) whose guard holds in every lane. Each does what the general loop of
// run_cta_loop does for it, testing only what this case needs (nothing is recorded, no lane
// exits or diverges, and the only change of a warp's state is a bar.sync's: its warp may wait at
// the barrier, or release the warps that wait there). It returns, with the count of issues it made,
// at the first pick that is not such an issue, or whose straight path declines: the general
// loop then issues that pick (peek_ready gives it again: setting `now` and the scheduler's
// busy time below does not make the pick stale, and the general loop sets the same values).
// A loop of its own, so that what it keeps from issue to issue stays in registers; inside
// the general loop, with its many cases, the compiler kept them on the stack (callgrind on
// simt_naive 256³: 230.7 -> 215.4 instructions per warp-instruction in all).
// After warp w's issue in the straight loop of a CTA with one warp a scheduler: its next
// instructions whose straight paths keep to its own state (DecodedInst::own_state), issued at
// once, each at the cycle the scheduler would pick it (max(ready, scheduler free): the warp is
// its scheduler's only one), up to the first that is not such an instruction, is past
// max_cycles, has a guard that fails in a lane, or whose straight path declines (which then
// changed nothing: the scheduler's busy time is put back, and the warp waits to be picked for
// it as before). Such an issue reads and writes only the warp's registers and its scheduler's
// pipes and busy time, and adds to counts: other warps' issues between two of them in modeled
// time would neither see nor change what they do, and the shared parts of the SM (the L1 data
// path, shared memory, barriers) see every other issue in the order they did. What a run of
// them saves is a pick and a push each (a quarter of step 08's issues are mma.sync and loop
// bookkeeping after its loads). Returns the issues it made; Cta::now is left as it was.
template <bool kAvx2>
[[gnu::always_inline]] inline uint64_t own_run(Cta& c, Warp& w, const DecodedInst* decoded, uint32_t ninst,
                                               const uint32_t* sb, uint64_t max_cycles) {
  uint64_t issued = 0;
  uint64_t& free_at = c.scheduler_free[w.id & 3];
  const uint64_t now = c.now;  // the issue before the run's: what the loop goes on from
  while (w.upc < ninst) {
    const uint32_t pc = w.upc;
    const DecodedInst& d = decoded[pc];
    const uint64_t time = std::max(w.ready_at, free_at);
    if (!d.own_state || time > max_cycles || (d.guard != ir::kNone && guard_lanes<kAvx2>(w, d) != kAllLanes)) break;
    const uint64_t now_before = c.now, free_before = free_at;
    c.now = time;
    free_at = time + 1;
    const uint32_t latency = d.direct(c, w, d);
    if (latency == 0) {
      c.now = now_before;
      free_at = free_before;
      break;
    }
    ++issued;
    w.upc = d.direct_next_pc;
    w.ready_at = next_issue(c, w, pc, d, decoded, ninst, sb, time, latency);
  }
  c.now = now;
  return issued;
}

template <bool kAvx2>
[[gnu::always_inline]] inline uint64_t straight_issues(Cta& c, const DecodedInst* decoded, uint32_t ninst,
                                                       uint64_t max_cycles, bool own_runs) {
  uint64_t issued = 0;
  const uint32_t* const sb = c.program->scoreboard_regs.data();
  for (;;) {
    uint64_t time = 0;
    Warp* const next = peek_ready(c, &time);
    if (!next || time > max_cycles || !next->uniform || next->live() != kAllLanes || next->upc >= ninst) break;
    Warp& w = *next;
    const uint32_t pc = w.upc;
    const DecodedInst& d = decoded[pc];
    if (!d.direct || (d.guard != ir::kNone && guard_lanes<kAvx2>(w, d) != kAllLanes)) break;
    // No scoreboard check here: the warp's ready time already waits for this instruction's
    // registers (next_issue folds them in for a warp at one pc); the general loop checks again.
    c.now = time;
    c.scheduler_free[w.id & 3] = time + 1;
    const uint32_t latency = d.direct(c, w, d);
    if (latency == 0) break;
    ++issued;
    w.upc = d.direct_next_pc;
    // A bar.sync's warp that now waits at its barrier (direct_bar_sync) leaves the picks until
    // the barrier releases it, as the general loop leaves it: no ready time, no run after it.
    if (latency == kWaitsAtBarrier) [[unlikely]] {
      c.unready(w.id);
      continue;
    }
    w.ready_at = next_issue(c, w, pc, d, decoded, ninst, sb, time, latency);
    if (own_runs) issued += own_run<kAvx2>(c, w, decoded, ninst, sb, max_cycles);
#if defined(__x86_64__) && defined(__GNUC__)
    if constexpr (kAvx2) push_issued_avx2(c, w.id, w.ready_at);
    else c.push_ready(w.id, w.ready_at);
#else
    c.push_ready(w.id, w.ready_at);
#endif
  }
  return issued;
}
// flatten: everything it calls but the straight paths is inlined into it (push_issued_avx2
// has a second caller, the general loop, and GCC would otherwise call it out of line).
[[gnu::noinline, gnu::flatten]] uint64_t straight_issues_baseline(Cta& c, const DecodedInst* decoded,
                                                                  uint32_t ninst, uint64_t max_cycles, bool own_runs) {
  return straight_issues<false>(c, decoded, ninst, max_cycles, own_runs);
}
#if defined(__x86_64__) && defined(__GNUC__)
[[gnu::noinline, gnu::flatten]] __attribute__((target("avx2,popcnt"))) uint64_t straight_issues_avx2(
    Cta& c, const DecodedInst* decoded, uint32_t ninst, uint64_t max_cycles, bool own_runs) {
  return straight_issues<true>(c, decoded, ninst, max_cycles, own_runs);
}
#else
uint64_t straight_issues_avx2(Cta& c, const DecodedInst* decoded, uint32_t ninst, uint64_t max_cycles, bool own_runs) {
  return straight_issues<false>(c, decoded, ninst, max_cycles, own_runs);
}
#endif

// The scheduler loop, compiled twice (below): for baseline x86-64 and, where the CPU has
// them, for AVX2 and POPCNT, where counting the lanes of a mask and gathering a guard
// predicate take a few instructions. The two compute the same thing.
template <bool kAvx2>
[[gnu::always_inline]] inline void run_cta_loop(Cta& c, const SimOptions& opt, uint64_t horizon) {
  const ir::Kernel& k = *c.launch.kernel;
  const uint32_t ninst = uint32_t(k.insts.size());
  const ir::Inst* const insts = k.insts.data();
  const DecodedInst* const decoded = c.program->insts.data();
  // Fixed for the whole run; held here, the loop does not reload them after every exec call.
  const uint64_t max_cycles = opt.max_cycles_per_cta;
  const bool traced = c.trace != nullptr;
  const bool record_registers = traced && c.launch.record_registers;
  const FastForwardPlan* const fast_forward = c.fast_forward;
  // Counted here and added to the statistics once, at the end: nothing reads them meanwhile.
  uint64_t warp_instructions = 0, thread_instructions = 0;
  const uint32_t* const sb = c.program->scoreboard_regs.data();
  if (!c.started) {
    trace_event(c, EventKind::cta_start, 0, kNoWarp, kNone, 0, kNone, c.launch.cta_linear);
    // A row a warp of nregs + 1: the last, never written, is the always-ready register that
    // pads the scoreboard's lists (DecodedInst::kReadyFloor).
    c.reg_ready.assign(c.warps.size() * (size_t(c.nregs) + 1), 0);
    c.store_free = 0;
    c.mma_free.fill(0);
    c.imad_free.fill(0);
    c.l1.clear();
    c.l1_clock = 0;
    c.forget_reads();  // the reads of the CTA that ran before on this Cta (Cta::smem_read_bits)
    for (Warp& w : c.warps) w.reg_ready = c.reg_ready.data() + size_t(w.id) * (size_t(c.nregs) + 1);
  }
  c.started = true;
  c.blocked = c.paused = false;
  bool exited_with_pending_tma = false;
  for (;;) {
    if (c.failed) break;
    if (!traced && !fast_forward && c.tma_pending.empty()) {
      const uint64_t limit = std::min(max_cycles, horizon);
      const bool own_runs = opt.own_runs && c.one_warp_per_scheduler;
      const uint64_t n = kAvx2 ? straight_issues_avx2(c, decoded, ninst, limit, own_runs)
                               : straight_issues_baseline(c, decoded, ninst, limit, own_runs);
      warp_instructions += n;
      thread_instructions += 32 * n;
    }
    // The next warp to issue: earliest time it can issue on its scheduler.
    uint64_t next_time = ~uint64_t(0);
    Warp* next = peek_ready(c, &next_time);
    // The next asynchronous completion.
    const auto earlier = [](const PendingTma& a, const PendingTma& b) { return a.complete_at < b.complete_at; };
    const auto tma = std::min_element(c.tma_pending.begin(), c.tma_pending.end(), earlier);
    // Past the horizon (a cluster's CTAs go through modeled time together): stop before it.
    if (const uint64_t event = std::min(next ? next_time : ~uint64_t(0),
                                        tma != c.tma_pending.end() ? tma->complete_at : ~uint64_t(0));
        event != ~uint64_t(0) && event > horizon) {
      c.blocked = c.paused = true;
      c.next_event = event;
      break;
    }
    if (tma != c.tma_pending.end()) {
      if (!next || tma->complete_at <= next_time) {
        if (!next && !exited_with_pending_tma) {
          bool all_exited = true;
          for (const Warp& w : c.warps) all_exited = all_exited && w.state == WarpState::exited;
          if (all_exited && !c.tma_jobs[tma->record].commit_arrival &&
              !c.tma_jobs[tma->record].clc_response) {  // a late commit arrival or launch-control answer: no copy
            exited_with_pending_tma = true;
            const TmaJob& job = c.tma_jobs[tma->record];
            report(c, HazardKind::exit_with_pending_tma, job.inst, job.warp, kNone, job.smem_dst,
                   fmt::format("the CTA exited while {} TMA load(s) were still writing its shared memory: nothing "
                               "waited on their mbarrier. On the H100 this kernel failed with "
                               "CUDA_ERROR_LAUNCH_FAILED (docs/results/2026-11-21-h100)",
                               c.tma_pending.size()));
          }
        }
        const PendingTma p = *tma;
        c.tma_pending.erase(tma);
        c.now = std::max(c.now, p.complete_at);
        complete_tma(c, p);
        continue;
      }
    }
    if (!next) {
      bool all_exited = true;
      for (const Warp& w : c.warps) all_exited = all_exited && w.state == WarpState::exited;
      if (!all_exited) {
        if (c.launch.cluster && c.launch.cluster->ctas.size() > 1) c.blocked = true;  // a peer may release it (simulate.cpp)
        else report_deadlock(c);
      }
      break;
    }
    if (next_time > max_cycles) {
      report(c, HazardKind::hang, kNone, next->id, kNone, 0,
             fmt::format("the CTA ran past {} modeled cycles without finishing{}: probably an endless loop",
                         opt.max_cycles_per_cta,
                         opt.max_cycles_basis.empty() ? "" : " (" + opt.max_cycles_basis + ")"));
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
    const DecodedInst& d = decoded[pc];
    if (d.is_label) {  // labels are not instructions: no issue slot (only reached at pc 0:
                       // branches and fall-throughs step over them, DecodedInst::next_pc)
      w.set_pc(at_pc, d.next_pc);
      c.push_ready(w.id, w.ready_at);
      continue;
    }
    if (const uint64_t ready = operands_ready(w, d, sb); ready > next_time) {  // a register still in flight
      w.ready_at = ready;
      c.push_ready(w.id, ready);
      continue;
    }
    c.now = next_time;
    // The issuer's scheduler is busy this cycle. Its pick is not marked stale here: every
    // path below either marks it (unready, push_ready) or brings it up to date
    // (push_issued_avx2).
    c.scheduler_free[w.id & 3] = next_time + 1;
    uint32_t mask = at_pc;
    if (d.guard != ir::kNone) mask = at_pc & guard_lanes<kAvx2>(w, d);
    ++warp_instructions;
    if constexpr (kAvx2) thread_instructions += uint32_t(std::popcount(mask));  // one instruction
    else thread_instructions += lane_count(mask);
    if (traced) {
      // The warp enters a region its kernel declared (Builder::role). Code outside every
      // region (loop counters, branches between regions) keeps the role it last entered.
      if (d.role != ir::WarpRole::none && d.role != w.role) {
        w.role = d.role;
        trace_event(c, EventKind::role_enter, c.now, w.id, pc, mask, kNone, uint32_t(d.role));
      }
      trace_event(c, EventKind::warp_inst, c.now, w.id, pc, mask);
    }
    // A whole warp first tries the form's straight path (DecodedInst::direct), which needs no
    // ExecContext; where there is none, or it declines, exec runs. In the traced CTA only
    // forms whose trace record is the destination's reg_write take it, and that record is
    // made here, as note_decoded_write would have made it.
    uint32_t latency = 0;
    uint64_t hold = 0;  // ExecContext::hold_until
    // A long loop's backward branch in a traced CTA run alone: it may skip passes
    // (fast_forward.hpp), and the warp's clock moves on by their time.
    uint64_t skipped_cycles = 0;
    if (fast_forward && fast_forward->loop_at[pc] != kNone) {
      // The issue slots so far go into the CTA's cost first: a fast-forward grows them with
      // the rest of its work (fast_forward_at).
      c.cost.warp_instructions += warp_instructions;
      c.stats->warp_instructions += warp_instructions;
      c.stats->thread_instructions += thread_instructions;
      c.issued += warp_instructions;
      warp_instructions = thread_instructions = 0;
      skipped_cycles = fast_forward_at(c, w, pc, mask);
    }
    if (mask == kAllLanes && d.direct && (!traced || d.direct_traceable)) {
      latency = d.direct(c, w, d);
      if (latency != 0 && record_registers) record_register_write(c, w.id, pc, d.dst, mask);
    }
    if (latency != 0) {
      // No block, no lane exited: every lane at this pc goes on to direct_next_pc (the next
      // instruction, or the target of a bra all of them take).
      if (w.uniform) w.upc = d.direct_next_pc;
      else w.set_pc_per_lane(at_pc, d.direct_next_pc);
    } else {
      ExecContext x{c, w, insts[pc], d, pc, mask, at_pc};
      if (mask != 0) d.exec(x);
      if (!x.block) {
        const uint32_t fall_through = x.branch_handled ? (at_pc & ~mask) : at_pc;
        if (fall_through) w.set_pc(fall_through, d.next_pc);
      }
      latency = x.latency;
      hold = x.hold_until;
    }
    if ((w.present & ~w.exited) == 0) w.state = WarpState::exited;
    // A fast-forward moves the warp's clock on by the skipped passes' time (fast_forward.hpp).
    if (w.state == WarpState::exited) w.ready_at = c.now + latency + skipped_cycles;
    else if (w.state == WarpState::ready)
      w.ready_at = std::max(hold, next_issue(c, w, pc, d, decoded, ninst, sb, c.now + skipped_cycles, latency));
    if (w.state != WarpState::ready) c.unready(w.id);
#if defined(__x86_64__) && defined(__GNUC__)
    else if constexpr (kAvx2) push_issued_avx2(c, w.id, w.ready_at);
#endif
    else c.push_ready(w.id, w.ready_at);
  }
  c.stats->warp_instructions += warp_instructions;
  c.stats->thread_instructions += thread_instructions;
  c.issued += warp_instructions;
  c.cost.warp_instructions += warp_instructions;
  uint64_t end = c.now;
  for (const Warp& w : c.warps) end = std::max(end, w.ready_at);
  c.cost.cycles = end;
  if (c.blocked) return;
  trace_event(c, EventKind::cta_end, end, kNoWarp, kNone, 0, kNone, c.launch.cta_linear);
  if (c.trace) c.trace->end_cycle = end;
}

void run_cta_baseline(Cta& c, const SimOptions& opt, uint64_t horizon) { run_cta_loop<false>(c, opt, horizon); }
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,popcnt"))) void run_cta_avx2(Cta& c, const SimOptions& opt, uint64_t horizon) {
  run_cta_loop<true>(c, opt, horizon);
}
#else
void run_cta_avx2(Cta& c, const SimOptions& opt, uint64_t horizon) { run_cta_loop<false>(c, opt, horizon); }
#endif

}  // namespace

void run_cta(Cta& c, const SimOptions& opt, uint64_t horizon) {
  if (c.avx2) run_cta_avx2(c, opt, horizon);
  else run_cta_baseline(c, opt, horizon);
  if (!c.blocked && !c.failed) {
    check_tmem_at_exit(c);
    check_bulk_stores_at_exit(c);
  }
}

}  // namespace gs::model
