// exec_control, exec_barrier, exec_mbarrier: branches and thread exit, CTA barriers and
// fences, and mbarriers with phases, arrivals and transaction bytes (facts §6).
#include <algorithm>
#include <bit>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "engine/model/exec_context.hpp"
#include "engine/model/tcgen05.hpp"
#include "engine/ir/mbarrier_name.hpp"
#include "engine/ir/signature.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

using ir::Op;

void trace_mbar(Cta& cta, EventKind kind, uint64_t cycle, uint32_t warp, uint32_t inst, uint32_t addr,
                const Mbarrier& m, uint32_t value) {
  if (!cta.trace) return;
  MbarEvent ev;
  static_cast<MbarrierPhase&>(ev) = m;
  ev.addr = addr;
  ev.value = value;
  const uint32_t index = append(cta.trace->mbar, ev);
  trace_event(cta, kind, cycle, warp, inst, 0, index, addr);
}

namespace {

// bra, decoded (select_control): the target pc is looked up once, not on every issue.
void exec_bra(ExecContext& x) {
  x.warp.set_pc(x.mask, x.dec.branch_target);
  // Lanes whose guard was false fall through (the scheduler advances at_pc & ~mask).
  x.branch_handled = true;
}

// Its straight path (DecodedInst::direct): all 32 lanes take the branch, which the scheduler
// carries out by sending the warp to direct_next_pc, the target. Nothing to record but the
// issue, so not direct_traceable (which would record a register write).
uint32_t direct_bra(Cta&, Warp&, const DecodedInst&) { return timing::kAluLatency; }

}  // namespace

ExecFn select_control(const ir::Inst& in, Program& p, DecodedInst& d, const ir::Kernel&) {
  if (in.op != Op::bra) return nullptr;
  d.branch_target = p.label_target[in.operands[0].id];
  d.direct = direct_bra;
  d.direct_next_pc = d.branch_target;
  return exec_bra;
}

void exec_control(ExecContext& x) {
  Warp& w = x.warp;
  switch (x.inst.op) {
    case Op::bra:  // decoded to exec_bra (select_control), which has its target at hand
      exec_bra(x);
      break;
    case Op::ret:
    case Op::exit:
      w.exited |= x.mask;
      x.branch_handled = true;
      break;
    case Op::trap:
      report(x.cta, HazardKind::trap, x.inst_id, w.id, uint32_t(std::countr_zero(x.mask)), 0,
             "the kernel executed trap: on the GPU the launch fails with an illegal-instruction error");
      x.cta.failed = true;
      x.cta.failure = "the kernel trapped";
      w.exited |= x.mask;
      x.branch_handled = true;
      break;
    default: not_handled(x, "exec_control");
  }
}

// Threads a CTA-wide barrier waits for: every warp that has not fully exited, in whole warps.
static uint32_t live_threads(const Cta& c) {
  uint32_t n = 0;
  for (const Warp& w : c.warps)
    if ((w.exited & w.present) != w.present) n += 32;
  return n;
}

namespace {

// A warp's arrival at barrier `id` (bar.sync when `sync`, else bar.arrive), for exec_bar and its
// straight path alike. `threads`: the count the instruction gives; DecodedInst::kEveryThread: none,
// every live thread of the CTA, a CTA-wide barrier, the one that orders all shared accesses (a
// plain number, not an optional: GCC 12 warned that an optional's payload may be read unset).
// Where the arrival completes the barrier, every warp waiting on it continues and the latency is
// kBarrierLatency; otherwise a bar.sync's warp waits (its state bar_wait), and the answer is 0.
uint32_t arrive_at_bar(Cta& c, Warp& warp, uint32_t inst, uint32_t mask, uint32_t id, uint32_t threads, bool sync) {
  const bool cta_wide = threads == DecodedInst::kEveryThread;
  const uint32_t expected = cta_wide ? live_threads(c) : threads;
  c.bar_expected[id] = expected;
  c.bar_arrived[id] += 32;
  if (c.bar_arrived[id] >= expected) {
    // Release: every warp waiting on this id continues.
    c.bar_arrived[id] = 0;
    if (cta_wide) ++c.barrier_epoch;  // a CTA-wide barrier orders all shared accesses
    // What any of the meeting warps acquired from peer CTAs, all of them have now.
    std::array<uint32_t, kMaxClusterRanks> acquired = warp.acquired;
    for (const Warp& w : c.warps)
      if (w.state == WarpState::bar_wait && w.wait_bar_id == id)
        for (uint32_t r = 0; r < kMaxClusterRanks; ++r) acquired[r] = std::max(acquired[r], w.acquired[r]);
    warp.acquired = acquired;
    // Inside the CTA every meeting warp releases, and each acquires what all of them knew.
    WarpClock clock{};
    for (Warp& w : c.warps)
      if (&w == &warp || (w.state == WarpState::bar_wait && w.wait_bar_id == id)) {
        warp_releases(c, w, inst, cta_wide);  // a named barrier of some warps hands nothing back
        join_clock(clock, w.clock);
      }
    warp.clock = clock;
    for (Warp& w : c.warps)
      if (w.state == WarpState::bar_wait && w.wait_bar_id == id) {
        w.acquired = acquired;
        w.clock = clock;
        wake(c, w, c.now + timing::kBarrierLatency);
        trace_event(c, EventKind::bar_released, c.now, w.id, kNone, 0, id, expected);
      }
    return timing::kBarrierLatency;
  }
  if (sync) {
    warp.state = WarpState::bar_wait;
    warp.wait_bar_id = id;
    warp.wait_since = c.now;
    trace_event(c, EventKind::bar_blocked, c.now, warp.id, inst, mask, id, expected);
  }
  return 0;
}

// exec_bar's straight path (DecodedInst::direct) for an untraced whole warp's bar.sync, its id
// and count decoded once (DecodedInst::barrier_id, barrier_threads; bar_sync_direct_for): the
// same arrival, without the signature's parse on each issue and without leaving the scheduler's
// straight loop (cta.cpp), whose round trip through the general loop, twice a K step, was 4% of
// step 09 beside the parse's 1%. Nothing here declines: the answer is the releasing warp's
// latency, or kWaitsAtBarrier for a warp that now waits (its state says so too).
uint32_t direct_bar_sync(Cta& c, Warp& w, const DecodedInst& d) {
  const uint32_t pc = uint32_t(&d - c.program->insts.data());
  const uint32_t latency = arrive_at_bar(c, w, pc, kAllLanes, d.barrier_id, d.barrier_threads, true);
  return latency ? latency : kWaitsAtBarrier;
}

}  // namespace

void exec_bar(ExecContext& x) {
  expect_op(x, "exec_bar", Op::bar_sync, Op::bar_arrive);
  const ir::Inst& in = x.inst;
  // bar.sync id (, threads) and bar.arrive id, threads: the count is optional for bar.sync
  // only, and a CTA-wide barrier (no count) is the one that orders all shared accesses.
  const ir::Operand id_op = in.op == Op::bar_sync ? ir::barrier_operands_of(in).id : ir::barrier_arrive_operands_of(in).id;
  const std::optional<ir::Operand> threads_op =
      in.op == Op::bar_sync ? ir::barrier_operands_of(in).threads : ir::barrier_arrive_operands_of(in).threads;
  const uint32_t id = uint32_t(id_op.imm) & 15;
  // A count is a multiple of 32 (engine/ir/verify.cpp), never kEveryThread.
  const uint32_t threads = threads_op ? uint32_t(threads_op->imm) : uint32_t(DecodedInst::kEveryThread);
  if (const uint32_t latency = arrive_at_bar(x.cta, x.warp, x.inst_id, x.mask, id, threads, in.op == Op::bar_sync))
    x.latency = latency;
}

DirectFn bar_sync_direct_for(const ir::Inst& in, DecodedInst& d) {
  if (in.op != Op::bar_sync) return nullptr;
  const ir::barrier_operands ops = ir::barrier_operands_of(in);
  const bool count_fits = !ops.threads || (ops.threads->kind == ir::OperandKind::imm &&
                                           uint64_t(ops.threads->imm) < DecodedInst::kEveryThread);
  if (!count_fits) return nullptr;  // a count in a register, or past the field: exec_bar takes it
  d.barrier_id = uint8_t(uint32_t(ops.id.imm) & 15);
  d.barrier_threads = ops.threads ? uint16_t(ops.threads->imm) : DecodedInst::kEveryThread;
  return direct_bar_sync;
}

// fence.mbarrier_init and fence.proxy.async: barriers initialised so far become visible to
// the async proxy; fence.proxy.async also orders this warp's generic shared writes before
// later async-proxy reads (TMA stores, wgmma), so it waits until they are performed: until the
// L1's data path has taken them (Warp::shared_done). On the H100, step 18's staging writes of a
// 64-column chunk (128 8-byte stores, 8 wavefronts each: 1024) took 1070 cycles from the barrier
// before them to the one after their fence (2026-12-06, docs/results/2026-12-06-one-wave).
void exec_fence(ExecContext& x) {
  expect_op(x, "exec_fence", Op::fence_proxy_async, Op::fence_mbarrier_init);
  Cta& c = x.cta;
  for (auto& [addr, m] : c.mbars)
    if (m.initialized) m.init_fenced = true;
  if (x.inst.op == Op::fence_proxy_async) {
    if (x.warp.shared_done > c.now) x.latency = uint32_t(std::max<uint64_t>(x.latency, x.warp.shared_done - c.now));
    ++c.smem_writes;
    // The warp's own flags clear; the range shrinks to the words other warps left flagged, so
    // that the next fence (and a TMA store's check, and the tensor cores' reads) look at those
    // only, not at every word generic stores have flagged since the CTA began.
    const uint32_t hi = std::min<uint32_t>(c.unfenced_hi, uint32_t(c.smem_word_state.size()));
    uint32_t left_lo = ~0u, left_hi = 0;
    for (uint32_t w = c.unfenced_lo; w < hi; ++w) {
      SmemWord& s = c.smem_word_state[w];
      if (s.writer_warp == x.warp.id) s.generic_since_fence = false;
      if (s.generic_since_fence) {
        left_lo = std::min(left_lo, w);
        left_hi = w + 1;
      }
    }
    c.unfenced_lo = left_lo;
    c.unfenced_hi = left_hi;
  }
}

std::string barrier_name(const Cta& c, uint32_t addr) {
  std::string name;
  if (c.launch.kernel && addr >= timing::kSmemBaseAddress)
    name = ir::mbarrier_name_at(*c.launch.kernel, addr - timing::kSmemBaseAddress);
  return name.empty() ? fmt::format("the mbarrier at 0x{:X}", addr) : fmt::format("mbarrier '{}'", name);
}

namespace {

// A phase of the mbarrier at `addr` has just completed: TMA loads still in flight that complete
// their bytes on it were counted out of it. In a correct protocol every load of a phase lands
// before the phase completes, and the next phase's loads are issued only after the waiters
// released the buffer (so after the completion): a load in flight here means the phase's
// expect_tx counted too few bytes. The late bytes land in a buffer its consumers already read
// (or are reading), and they count towards the next phase. tcgen05.commit arrivals queue
// alike but carry no bytes: they are not loads. A load issued onto bytes an earlier load was
// still writing (TmaJob::refill) belongs to a later phase issued too early: its tma-race names
// that cause, so it is not counted here.
void check_loads_in_flight(Cta& c, uint32_t addr, const Mbarrier& m) {
  uint64_t bytes = 0;
  const TmaJob* first = nullptr;
  for (const PendingTma& p : c.tma_pending) {
    const TmaJob& job = c.tma_jobs[p.record];
    if (job.commit_arrival || job.refill || job.mbar != addr) continue;
    bytes += job.bytes;
    if (!first) first = &job;
  }
  if (!first) return;
  const bool cluster = c.launch.cluster && c.launch.cluster->ctas.size() > 1;
  const std::string issuer = !cluster                                     ? std::string("this CTA")
                             : first->from_rank == c.launch.cluster_rank ? fmt::format("this CTA (rank {})", first->from_rank)
                                                                         : fmt::format("CTA rank {}", first->from_rank);
  report(c, HazardKind::early_phase_completion, first->inst, first->warp, kNone, addr,
         fmt::format("{}{} completed phase {} while {} bytes of TMA loads that complete on it were still in "
                     "flight (the first issued by {}): its expect_tx counted fewer bytes than the loads bring, so the "
                     "warps waiting on it read the buffer before those bytes land, and the late bytes count towards "
                     "the next phase. Expect every byte this CTA receives, including what peers multicast into it",
                     barrier_name(c, addr), cluster ? fmt::format(" of CTA rank {}", c.launch.cluster_rank) : "",
                     m.phase - 1, bytes, issuer));
}

}  // namespace

void mbarrier_check_phase(Cta& c, uint32_t addr, uint64_t cycle) {
  Mbarrier& m = c.mbars[addr];
  if (!m.initialized || m.pending_arrivals != 0 || m.tx_count != 0) return;
  m.phase += 1;
  m.pending_arrivals = m.expected;
  m.completed_releases = m.phase_releases;
  m.phase_releases = {};
  m.completed_clock = m.phase_clock;
  m.phase_clock = {};
  m.visible_at = cycle;
  check_loads_in_flight(c, addr, m);
  trace_mbar(c, EventKind::mbar_phase_flip, cycle, kNoWarp, kNone, addr, m, m.phase & 1);
  // Wake every warp waiting on a parity that is now complete.
  for (Warp& w : c.warps) {
    if (w.state != WarpState::mbar_wait || w.wait_mbar != addr) continue;
    if ((m.phase & 1) == w.wait_parity) continue;  // still the waited-on phase in progress
    wake(c, w, cycle + c.launch.figures->mbarrier_wake);
    w.woken_from_mbar = true;
    trace_mbar(c, EventKind::mbar_wait_released, cycle, w.id, kNone, addr, m, w.wait_parity);
  }
}

namespace {

// The barrier an mbarrier instruction names, checked: an 8-byte aligned shared address that
// (except for mbarrier.init) was initialised. nullptr after reporting why not.
Mbarrier* named_mbarrier(ExecContext& x, const ir::Operand& bar, uint32_t* addr_out) {
  Cta& c = x.cta;
  x.latency = timing::kMbarrierLatency;
  const uint32_t first = uint32_t(std::countr_zero(x.mask));
  const uint32_t addr = memory_address32(x, bar, first);
  *addr_out = addr;
  if (addr % 8 != 0 || !smem_ptr(x, addr, 8, first, x.inst.op == Op::mbarrier_init)) {
    report(c, HazardKind::bad_mbarrier, x.inst_id, x.warp.id, first, addr,
           fmt::format("0x{:X} is not an 8-byte aligned address inside shared memory: an mbarrier lives there", addr));
    return nullptr;
  }
  Mbarrier& m = c.mbars[addr];
  if (x.inst.op != Op::mbarrier_init && !m.initialized) {
    report(c, HazardKind::uninitialized_mbarrier, x.inst_id, x.warp.id, first, addr,
           fmt::format("the mbarrier at 0x{:X} is used before mbarrier.init", addr));
    return nullptr;
  }
  return &m;
}

}  // namespace

void exec_mbarrier_init(ExecContext& x) {
  expect_op(x, "exec_mbarrier_init", Op::mbarrier_init);
  const ir::mbar_init_operands ops = ir::mbar_init_operands_of(x.inst);
  uint32_t addr = 0;
  Mbarrier* m = named_mbarrier(x, ops.bar, &addr);
  if (!m) return;
  Sources src(x);
  const uint32_t count = uint32_t(src.get(1, uint32_t(std::countr_zero(x.mask))));
  *m = Mbarrier{};
  m->initialized = true;
  m->expected = m->pending_arrivals = count;
  m->init_inst = x.inst_id;
  trace_mbar(x.cta, EventKind::mbar_init, x.cta.now, x.warp.id, x.inst_id, addr, *m, count);
}

namespace {

// `lanes` arrivals of warp x.warp on the mbarrier at `addr` of CTA t (x.cta, or a peer for a
// remote arrive).
void arrive_on(ExecContext& x, Cta& t, uint32_t addr, Mbarrier& m, uint32_t lanes, uint32_t first) {
  // An arrive releases what the arriving CTA's warps did before it (reads of shared memory a
  // peer's multicast may then overwrite): the phase carries that release to its waiters.
  const uint32_t rank = x.cta.launch.cluster_rank;
  if (rank < kMaxClusterRanks) m.phase_releases[rank] = ++x.cta.releases;
  // Inside the CTA, warp by warp (the tensor-memory checks): the phase carries the arriver's clock.
  if (&t == &x.cta) {
    warp_releases(x.cta, x.warp, x.inst_id);
    join_clock(m.phase_clock, x.warp.clock);
  } else if (x.warp.tmem_unreleased_reads.any()) {
    // A remote arrive of a warp that read this CTA's TMEM (step 26: rank 1's epilogue gives a
    // buffer back to the leader, whose MMA writes it): the reads are released, and checked to
    // be waited for, as by a local arrive; the peer's clocks are another CTA's, not joined.
    warp_releases(x.cta, x.warp, x.inst_id);
  }
  if (lanes > m.pending_arrivals) {
    report(x.cta, HazardKind::mbarrier_over_arrival, x.inst_id, x.warp.id, first, addr,
           fmt::format("{} arrival(s) on the mbarrier at 0x{:X} but only {} are pending in this phase: the "
                       "PTX ISA leaves this undefined (the model counts the extra ones towards the next "
                       "phase); wait for the phase to complete before arriving again",
                       lanes, addr, m.pending_arrivals));
  }
  uint32_t left = lanes;
  while (left > 0) {  // arrivals past a phase's count roll into the next phase
    const uint32_t take = std::min(left, m.pending_arrivals);
    m.pending_arrivals -= take;
    left -= take;
    trace_mbar(t, EventKind::mbar_arrive, x.cta.now, peer_warp(t, rank, x.warp.id), x.inst_id, addr, m, take);
    const uint32_t before = m.phase;
    // A peer's barrier hears of the arrive remote_arrive cycles later: its waiters wake that much
    // later (the phase itself flips now; a peer's wait issued in between passes early). The
    // .release.cluster form arrives after its fences (ptxas puts MEMBAR.ALL.GPU before the
    // SYNCS.ARRIVE): cluster_release_stall later still (probe remote_arrive_round_trip_cluster_scope:
    // 1893.2 cycles on the H100, 2026-11-28, where the stall after the arrive read 699).
    const uint64_t arrived = x.cta.now + (x.inst.op == Op::mbarrier_arrive_remote_cluster_scope
                                              ? x.cta.launch.figures->cluster_release_stall
                                              : 0);
    mbarrier_check_phase(t, addr, &t == &x.cta ? arrived : arrived + x.cta.launch.figures->remote_arrive);
    if (m.phase == before || take == 0) break;
  }
}

// mbarrier.arrive{.release.cluster}.shared::cluster: each active lane arrives once on the
// mbarrier its shared::cluster address (mapa) names, in this CTA or a peer. The .release.cluster
// form holds the issuing warp while its memory operations are made visible to the whole
// cluster (the GPU-wide memory barrier ptxas puts before it).
void arrive_remote(ExecContext& x, const ir::Operand& bar) {
  x.cta.cost.peer_released = true;  // the cluster's CTAs now go at the slowest one's pace (timing::predict_gemm)
  x.latency = timing::kMbarrierLatency;
  if (x.inst.op == Op::mbarrier_arrive_remote_cluster_scope) x.latency += x.cta.launch.figures->cluster_release_stall;
  for (uint32_t l = 0; l < 32; ++l) {
    if (!(x.mask >> l & 1)) continue;
    const uint32_t address = memory_address32(x, bar, l);
    uint32_t local = 0;
    Cta* t = cluster_target(x, address, l, &local);
    if (!t) continue;
    auto it = t->mbars.find(local);
    if (local % 8 != 0 || it == t->mbars.end() || !it->second.initialized) {
      report(x.cta, HazardKind::uninitialized_mbarrier, x.inst_id, x.warp.id, l, address,
             fmt::format("remote arrive on shared::cluster address 0x{:X} (CTA rank {}, 0x{:X}): no initialised "
                         "mbarrier there",
                         address, t->launch.cluster_rank, local));
      continue;
    }
    arrive_on(x, *t, local, it->second, 1, l);
  }
}

}  // namespace

// mbarrier.arrive, mbarrier.arrive.expect_tx and mbarrier.expect_tx: each active lane adds
// its transaction bytes (expect_tx forms) and arrives (arrive forms); the remote arrive
// reaches a peer CTA's mbarrier.
void exec_mbarrier_arrive(ExecContext& x) {
  expect_op(x, "exec_mbarrier_arrive", Op::mbarrier_arrive, Op::mbarrier_arrive_expect_tx, Op::mbarrier_expect_tx,
            Op::mbarrier_arrive_remote, Op::mbarrier_arrive_remote_cluster_scope);
  Cta& c = x.cta;
  const ir::Inst& in = x.inst;
  if (in.op == Op::mbarrier_arrive_remote || in.op == Op::mbarrier_arrive_remote_cluster_scope)
    return arrive_remote(x, ir::mbar_arrive_operands_of(in).bar);
  const bool arrives = in.op != Op::mbarrier_expect_tx, expects = in.op != Op::mbarrier_arrive;
  const ir::Operand bar = in.op == Op::mbarrier_arrive            ? ir::mbar_arrive_operands_of(in).bar
                          : in.op == Op::mbarrier_arrive_expect_tx ? ir::mbar_arrive_tx_operands_of(in).bar
                                                                   : ir::mbar_tx_operands_of(in).bar;
  uint32_t addr = 0;
  Mbarrier* mp = named_mbarrier(x, bar, &addr);
  if (!mp) return;
  Mbarrier& m = *mp;
  const uint32_t first = uint32_t(std::countr_zero(x.mask));
  const uint32_t lanes = lane_count(x.mask);
  if (expects) {
    Sources src(x);
    const uint32_t bytes = uint32_t(src.get(in.op == Op::mbarrier_expect_tx ? 1 : 2, first));
    m.tx_count += int64_t(bytes) * lanes;
    trace_mbar(c, EventKind::mbar_expect_tx, c.now, x.warp.id, x.inst_id, addr, m, bytes * lanes);
  }
  if (arrives) arrive_on(x, c, addr, m, lanes, first);
}

namespace {

// A wait on `addr` returned: stale when no phase of the barrier completed since this warp's
// previous wait on it returned, i.e. it returned on a phase the warp had already consumed.
void note_wait_returned(ExecContext& x, uint32_t addr, const Mbarrier& m, uint32_t parity) {
  Warp& w = x.warp;
  auto it = std::find_if(w.passed_phases.begin(), w.passed_phases.end(), [&](const auto& p) { return p.first == addr; });
  const bool stale = it != w.passed_phases.end() && it->second == m.phase;
  w.stale_wait = stale ? Warp::StaleWait{x.inst_id, addr, parity, m.phase} : Warp::StaleWait{};
  if (it == w.passed_phases.end())
    w.passed_phases.emplace_back(addr, m.phase);
  else
    it->second = m.phase;
}

}  // namespace

namespace {

// "hopper_parts.cpp:125": where the kernel's C++ recorded instruction `inst`; "" when unknown.
std::string source_of(const ir::Kernel& k, uint32_t inst) {
  if (inst >= k.insts.size()) return "";
  const ir::SourceLoc& s = k.insts[inst].src;
  if (!s.known() || s.file >= k.source_files.size()) return "";
  const std::string& f = k.source_files[s.file];
  return fmt::format("{}:{}", f.substr(f.find_last_of('/') + 1), s.line);
}

// Where the kernel writes the register a wait takes its parity from: the lines, in order.
std::string parity_writers(const ir::Kernel& k, uint32_t wait) {
  const ir::Operand parity = ir::mbar_wait_operands_of(k.insts[wait]).parity;
  if (parity.kind != ir::OperandKind::reg || parity.id >= k.regs.size()) return "";
  std::vector<std::string> lines;
  for (uint32_t i = 0; i < k.insts.size(); ++i) {
    const ir::Inst& in = k.insts[i];
    for (uint32_t d = 0; d < in.ndst && d < in.operands.size(); ++d)
      if (in.operands[d].kind == ir::OperandKind::reg && in.operands[d].id == parity.id) {
        const std::string at = source_of(k, i);
        if (!at.empty() && std::find(lines.begin(), lines.end(), at) == lines.end()) lines.push_back(at);
      }
  }
  std::string list;
  for (const std::string& l : lines) list += (list.empty() ? "" : ", ") + l;
  return fmt::format(" The parity is register %{}, written only at {}{}.", k.regs[parity.id].name,
                     list.empty() ? "no line" : list, lines.size() <= 1 ? ": nothing flips it when the ring wraps" : "");
}

}  // namespace

std::string stale_wait_cause(const Cta& cta, uint32_t warp) {
  if (warp >= cta.warps.size() || cta.warps[warp].stale_wait.inst == kNone) return "";
  const Warp::StaleWait& s = cta.warps[warp].stale_wait;
  std::string name;
  if (cta.launch.kernel && s.addr >= timing::kSmemBaseAddress)
    name = ir::mbarrier_name_at(*cta.launch.kernel, s.addr - timing::kSmemBaseAddress);
  if (name.empty()) name = fmt::format("the mbarrier at 0x{:X}", s.addr);
  std::string text = fmt::format(
      "The warp did wait first, but on the wrong parity: its wait on {} asked for parity {} while {} was in phase {} "
      "(parity {}), not yet complete. Phase {}, which has parity {} and which this warp had already waited "
      "through, made the wait return at once. Flip the parity the wait asks for each time the ring wraps to stage 0.",
      name, s.parity, name, s.phase, s.phase & 1, s.phase - 1, (s.phase - 1) & 1);
  if (cta.launch.kernel && s.inst < cta.launch.kernel->insts.size()) {
    const std::string at = source_of(*cta.launch.kernel, s.inst);
    if (!at.empty()) text += fmt::format(" The wait is at {}.", at);
    text += parity_writers(*cta.launch.kernel, s.inst);
  }
  return text;
}

// mbarrier.try_wait.parity (sleeps until the phase completes, then runs again) and
// mbarrier.test_wait.parity (never waits). A suspend-time hint bounds how long the GPU may
// suspend the thread before try_wait answers false and the wait loop retries; the model's
// waiter sleeps until the phase completes either way (it never spins), so the hint changes
// neither its results nor its timing.
void exec_mbarrier_wait(ExecContext& x) {
  expect_op(x, "exec_mbarrier_wait", Op::mbarrier_try_wait_parity, Op::mbarrier_test_wait_parity);
  Cta& c = x.cta;
  const ir::mbar_wait_operands ops = ir::mbar_wait_operands_of(x.inst);
  uint32_t addr = 0;
  Mbarrier* mp = named_mbarrier(x, ops.bar, &addr);
  if (!mp) return;
  Mbarrier& m = *mp;
  Sources src(x);
  const uint32_t parity = uint32_t(src.get(2, uint32_t(std::countr_zero(x.mask)))) & 1;
  // The phase with parity p is complete when the current phase's parity differs
  // (facts §6 [DEV]: on a fresh barrier parity 1 passes and parity 0 waits).
  const bool done = (m.phase & 1) != parity;
  const uint32_t dst = ops.done.id;
  // A wait that finds its phase complete when it first asks answers later than one a completion
  // woke (probe mbarrier_wait_done: 50 cycles on the H100, where the woken hand-offs' steps are 8).
  if (!std::exchange(x.warp.woken_from_mbar, false) && done) x.latency = timing::kMbarrierWaitDoneLatency;
  if (done) {
    // A phase flipped by a peer's arrive still on its way: the wait returns when it arrives and
    // wakes the warp, as if it had blocked (mbarrier_check_phase's wake).
    if (m.visible_at > c.now)
      x.latency = uint32_t(std::max<uint64_t>(x.latency, m.visible_at - c.now + c.launch.figures->mbarrier_wake));
    note_wait_returned(x, addr, m, parity);
    for (uint32_t r = 0; r < kMaxClusterRanks; ++r)
      x.warp.acquired[r] = std::max(x.warp.acquired[r], m.completed_releases[r]);
    join_clock(x.warp.clock, m.completed_clock);
  }
  if (done || x.inst.op == Op::mbarrier_test_wait_parity) {
    for (uint32_t l = 0; l < 32; ++l)
      if (x.mask >> l & 1) c.reg(x.warp.id, dst, l) = done ? 1 : 0;
    src.wrote(dst);
  } else {
    x.block = true;  // sleep until the phase completes, then run try_wait again
    x.warp.state = WarpState::mbar_wait;
    x.warp.wait_mbar = addr;
    x.warp.wait_parity = parity;
    x.warp.wait_since = c.now;
    trace_mbar(c, EventKind::mbar_wait_blocked, c.now, x.warp.id, x.inst_id, addr, m, parity);
  }
}


}  // namespace gs::model
