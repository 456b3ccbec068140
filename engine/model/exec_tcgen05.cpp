// exec_tcgen05: Blackwell's tensor memory (facts §9.1, §9.3): allocation and its rules, the
// moves between tensor memory and registers with their lane quarters, tcgen05.commit's
// arrival once the MMAs it covers complete, and the fences. The MMA itself is in
// exec_tcgen05_mma.cpp.
//
// Tensor memory is per SM; the model keeps it per CTA (Cta::tmem), since a CTA runs alone on
// its SM. A TMEM address holds the lane in bits 31-16 and the column in bits 15-0.
#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "engine/ir/signature.hpp"
#include "engine/layout/op_traits.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/tcgen05.hpp"

namespace gs::model {

using ir::Op;

namespace {

uint32_t first_lane(uint32_t mask) { return uint32_t(std::countr_zero(mask | 0x80000000u)); }

uint8_t cta_group_of(const ir::Inst& in) {
  return ir::op_info(in.op).spelling.find("cta_group::2") != std::string_view::npos ? 2 : 1;
}

// The trace's record of a synchronous TMEM op of this warp (trace.hpp, TmemOp): it happens at issue.
void trace_now(ExecContext& x, TmemOp op) {
  op.issue_cycle = op.complete_cycle = x.cta.now;
  op.cta_group = cta_group_of(x.inst);
  trace_tmem(x.cta, x.cta.now, x.warp.id, x.inst_id, x.mask, op);
}

// tcgen05.alloc: the warp gets the lowest free block of `ncols` columns, aligned to its size
// (where the hardware places it is not documented; the address is read back from shared
// memory, so no kernel depends on it), and the address lands in shared memory.
void tmem_alloc(ExecContext& x) {
  Cta& c = x.cta;
  Warp& w = x.warp;
  TensorMemory& t = c.tmem;
  const ir::tmem_alloc_operands o = ir::tmem_alloc_operands_of(x.inst);
  Sources src(x);
  const uint32_t lane = first_lane(x.mask);
  const uint32_t n = uint32_t(src.get(o.ncols_at, lane));
  x.latency = timing::kSharedLatency;
  if (n < 32 || n > TensorMemory::kColumns || !std::has_single_bit(n)) {
    report(c, HazardKind::bad_tmem_alloc, x.inst_id, w.id, lane, n,
           fmt::format("tcgen05.alloc of {} columns: the count must be a power of two from 32 to 512 (32, 64, "
                       "128, 256 or 512); nothing was allocated",
                       n));
    return;
  }
  if (t.relinquished)
    report(c, HazardKind::bad_tmem_alloc, x.inst_id, w.id, lane, n,
           "tcgen05.alloc after tcgen05.relinquish_alloc_permit: the CTA promised to allocate no more");
  if (t.alloc_warp != kNone && t.alloc_warp != w.id)
    report(c, HazardKind::bad_tmem_alloc, x.inst_id, w.id, lane, n,
           fmt::format("warp {} allocates tensor memory, but warp {} already did: one warp does every allocation "
                       "and the matching dealloc",
                       w.id, t.alloc_warp));
  uint32_t col = 0;
  const auto overlaps = [&](uint32_t at) {
    return std::any_of(t.allocations.begin(), t.allocations.end(),
                       [&](const TmemAllocation& a) { return at < a.col + a.ncols && a.col < at + n; });
  };
  while (col + n <= TensorMemory::kColumns && overlaps(col)) col += n;
  if (col + n > TensorMemory::kColumns) {
    uint32_t used = 0;
    for (const TmemAllocation& a : t.allocations) used += a.ncols;
    const std::string detail = fmt::format(
        "tcgen05.alloc of {} columns blocks: {} of the 512 columns are allocated and no free block of {} is left. On "
        "the GPU the warp waits for columns that this CTA never frees: the kernel hangs",
        n, used, n);
    report(c, HazardKind::deadlock, x.inst_id, w.id, lane, n, detail);
    c.failed = true;
    c.failure = "deadlock: " + detail;
    return;
  }
  if (t.cells.empty()) t.cells.assign(size_t(TensorMemory::kLanes) * TensorMemory::kColumns, 0);
  if (t.read_stamp.empty()) t.read_stamp.assign(size_t(TensorMemory::kColumns) * kMaxCtaWarps, 0);
  t.allocations.push_back({col, n, w.id, x.inst_id});
  t.alloc_warp = w.id;
  trace_now(x, {.kind = TmemOpKind::alloc, .column = col, .lanes = TensorMemory::kLanes, .columns = n});
  const uint32_t dst = memory_address32(x, o.dst, lane);
  if (uint8_t* p = smem_ptr(x, dst, 4, lane, /*store=*/true)) {
    check_shared_words(x, dst, 4, lane, /*store=*/true);
    std::memcpy(p, &col, 4);  // lane 0, column col
  }
}

void tmem_dealloc(ExecContext& x) {
  Cta& c = x.cta;
  Warp& w = x.warp;
  TensorMemory& t = c.tmem;
  const ir::tmem_dealloc_operands o = ir::tmem_dealloc_operands_of(x.inst);
  Sources src(x);
  const uint32_t lane = first_lane(x.mask);
  const uint32_t taddr = uint32_t(src.get(o.taddr_at, lane)), n = uint32_t(src.get(o.ncols_at, lane));
  const uint32_t col = tmem_column(taddr);
  auto it = std::find_if(t.allocations.begin(), t.allocations.end(),
                         [&](const TmemAllocation& a) { return a.col == col && a.ncols == n && tmem_lane(taddr) == 0; });
  if (it == t.allocations.end()) {
    report(c, HazardKind::tmem_dealloc_mismatch, x.inst_id, w.id, lane, taddr,
           fmt::format("tcgen05.dealloc of {} columns at TMEM address 0x{:08X}: no allocation starts there with that "
                       "many columns (free exactly what tcgen05.alloc gave: the address it wrote and its count)",
                       n, taddr));
    return;
  }
  if (it->warp != w.id)
    report(c, HazardKind::tmem_dealloc_mismatch, x.inst_id, w.id, lane, taddr,
           fmt::format("warp {} frees tensor-memory columns {}..{} that warp {} allocated: the same warp must "
                       "allocate and free",
                       w.id, it->col, it->col + it->ncols - 1, it->warp));
  t.allocations.erase(it);
  trace_now(x, {.kind = TmemOpKind::dealloc, .column = col, .lanes = TensorMemory::kLanes, .columns = n});
}

// tcgen05.ld / st 32x32b.x{n}: thread i of the warp moves lane (taddr.lane + i), register j
// is column (taddr.col + j) (facts §9.3). Returns false (after reporting) when the columns
// are not allocated; a lane-quarter violation is reported and the access still made, so
// that the learner sees the numbers it moved.
// The lanes a warp's 32x32b access touches and the op traits' verdict on them, for the trace.
TmemOp lane_quarter_verdict(ExecContext& x, TmemOp op) {
  using layout::TmemAccessRule;
  if (!layout::op_traits(x.inst.op).tmem_access) return op;
  op.quarter = uint8_t(TmemAccessRule::quarter_of_warp(x.warp.id));
  op.outside_quarter = !TmemAccessRule::allows(x.warp.id, op.lane, op.lanes);
  return op;
}

bool tmem_access_ok(ExecContext& x, uint32_t taddr, uint32_t ncols, const char* what) {
  Cta& c = x.cta;
  const uint32_t lane0 = tmem_lane(taddr), col = tmem_column(taddr);
  const uint32_t quarter = layout::TmemAccessRule::first_lane(x.warp.id);
  if (!layout::TmemAccessRule::allows(x.warp.id, lane0, 32))
    report(c, HazardKind::tmem_wrong_lane_quarter, x.inst_id, x.warp.id, kNone, taddr,
           fmt::format("warp {} {} tensor-memory lanes {}..{}, but warp w may access only lanes 32*(w%4)..+31, "
                       "here {}..{}: put lane {} in bits 31-16 of the address",
                       x.warp.id, what, lane0, lane0 + 31, quarter, quarter + 31, quarter));
  if (!tmem_columns_allocated(c, col, ncols)) {
    report(c, HazardKind::tmem_unallocated, x.inst_id, x.warp.id, kNone, taddr,
           fmt::format("tcgen05 {} columns {}..{}, which are not inside one tcgen05.alloc block", what, col,
                       col + ncols - 1));
    return false;
  }
  return true;
}

// The tmem-race check of a tcgen05.ld of columns [col, col + n) by this warp: an MMA of another
// warp that wrote them must be ordered before the read (the reader acquired the arrival of a
// commit covering it, which carries the MMA thread's clock). Columns still pending are the
// tmem-read-before-commit the caller reported. Then the read is stamped for the next MMA's check.
void tmem_reads(ExecContext& x, uint32_t col, uint32_t n, uint32_t lane0) {
  Cta& c = x.cta;
  Warp& w = x.warp;
  TensorMemory& t = c.tmem;
  const uint32_t me = w.id % kMaxCtaWarps;
  bool reported = false;
  for (uint32_t j = col; j < col + n && j < TensorMemory::kColumns; ++j) {
    const uint32_t writer = t.writer[j];
    if (!reported && t.write_stamp[j] != 0 && writer != me && t.pending[j] == 0 &&
        w.clock[writer] < t.write_stamp[j]) {
      reported = true;
      report(c, HazardKind::tmem_race, x.inst_id, w.id, kNone, j,
             fmt::format("warp {} reads tensor-memory column {} with tcgen05.ld, which warp {}'s tcgen05.mma wrote "
                         "with nothing ordering this read after it: this warp has not acquired the arrival of the "
                         "tcgen05.commit that covers that MMA, so the column may hold another tile's accumulator. "
                         "Wait on the barrier that commit arrives on (with the parity of this use of the buffer) "
                         "before reading",
                         w.id, j, writer));
    }
    t.read_stamp[size_t(j) * kMaxCtaWarps + me] = w.clock[me] + 1;
    t.read_release[j] = c.releases + 1;
    w.tmem_unreleased_reads.set(j);
  }
  w.tmem_read_lane = lane0;
}

void tmem_ld(ExecContext& x) {
  Cta& c = x.cta;
  Warp& w = x.warp;
  const ir::tmem_load_operands o = ir::tmem_load_operands_of(x.inst);
  const uint32_t n = uint32_t(o.d.size());
  const uint32_t taddr = memory_address32(x, o.taddr, first_lane(x.mask));
  const uint32_t lane0 = tmem_lane(taddr), col = tmem_column(taddr);
  x.latency = timing::kSharedLatency;
  trace_now(x, lane_quarter_verdict(x, {.kind = TmemOpKind::load, .lane = lane0, .column = col, .lanes = 32, .columns = n}));
  const bool ok = tmem_access_ok(x, taddr, n, "reads");
  if (ok)
    for (uint32_t j = 0; j < n; ++j)
      if (c.tmem.pending[col + j] != 0) {
        report(c, HazardKind::tmem_read_before_commit, x.inst_id, w.id, kNone, taddr,
               fmt::format("tcgen05.ld reads column {} while a tcgen05.mma writing it has not completed: wait on "
                           "the mbarrier its tcgen05.commit arrives on (then tcgen05.fence::after_thread_sync) "
                           "before reading the accumulator",
                           col + j));
        break;
      }
  if (ok) tmem_reads(x, col, n, lane0);
  const size_t slot0 = size_t(w.id) * c.nregs;
  for (uint32_t j = 0; j < n; ++j) {
    const uint32_t reg = o.d[j].id;
    if (reg == kNone) continue;
    uint64_t* d = c.reg_lanes(w.id, reg);
    for (uint32_t l = 0; l < 32; ++l) {
      if (!(x.mask >> l & 1)) continue;
      const uint32_t lane = lane0 + l;
      d[l] = ok && lane < TensorMemory::kLanes ? c.tmem.cells[size_t(lane) * TensorMemory::kColumns + col + j] : 0;
    }
    c.written[slot0 + reg] |= x.mask;
    // The register arrives later: reading it before tcgen05.wait::ld is a hazard (operands.cpp).
    c.wgmma_acc[slot0 + reg] = kTmemLoadDestination;
    c.reg_pending[slot0 + reg] = 1;
    w.tmem_ld_regs.push_back(reg);
    if (c.trace && c.launch.record_registers) record_register_write(c, w.id, x.inst_id, reg, x.mask);
  }
}

void tmem_st(ExecContext& x) {
  Cta& c = x.cta;
  const ir::stmatrix_operands o = ir::stmatrix_operands_of(x.inst);
  const uint32_t n = uint32_t(o.values.size());
  Sources src(x);
  const uint32_t taddr = memory_address32(x, o.addr, first_lane(x.mask));
  const uint32_t lane0 = tmem_lane(taddr), col = tmem_column(taddr);
  x.latency = timing::kSharedLatency;
  trace_now(x, lane_quarter_verdict(x, {.kind = TmemOpKind::store, .lane = lane0, .column = col, .lanes = 32, .columns = n}));
  if (!tmem_access_ok(x, taddr, n, "writes")) return;
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t l = 0; l < 32; ++l)
      if ((x.mask >> l & 1) && lane0 + l < TensorMemory::kLanes)
        c.tmem.cells[size_t(lane0 + l) * TensorMemory::kColumns + col + j] = uint32_t(src.get(o.values_at + j, l));
}

// tcgen05.commit: one arrival, on each barrier it names, once every tcgen05.mma this thread
// issued before it has completed, whether or not an earlier commit covered it (facts §9.2). The arrival is an asynchronous
// completion like a TMA transfer's (Cta::tma_pending, TmaJob::commit_arrival).
void tmem_commit(ExecContext& x) {
  Cta& c = x.cta;
  Warp& w = x.warp;
  const bool multicast = x.inst.op == Op::tcgen05_commit_multicast || x.inst.op == Op::tcgen05_commit_cta_pair_multicast;
  const ir::Operand bar = multicast ? ir::mbar_ref_multicast_operands_of(x.inst).bar : ir::mbar_ref_operands_of(x.inst).bar;
  Sources src(x);
  x.latency = timing::kMbarrierLatency;
  for (uint32_t l = 0; l < 32; ++l) {
    if (!(x.mask >> l & 1)) continue;
    // Every MMA of the thread so far, including those an earlier commit covers whose arrival
    // has not landed: a final commit after per-stage commits arrives when the last MMA is done.
    std::erase_if(w.tmem_unreleased, [&](uint32_t m) { return c.tmem_mmas[m].released; });
    const uint64_t complete = std::max(c.now, w.tmem_mma_complete_at);
    const uint32_t record = uint32_t(c.tmem_commits.size());
    c.tmem_commits.push_back(w.tmem_unreleased);
    // A release of the issuing warp: its arrival carries the clock (the MMAs' write stamps).
    ++w.clock[w.id % kMaxCtaWarps];
    c.tmem_commit_clocks.push_back(w.clock);
    // The barriers: this CTA's or a peer's (a shared::cluster address), or the same offset in
    // every CTA of the mask.
    std::array<std::pair<Cta*, uint32_t>, 16> targets{};
    uint32_t ntargets = 0;
    const uint32_t address = memory_address32(x, bar, l);
    if (multicast) {
      const uint32_t mask = uint32_t(src.get(ir::mbar_ref_multicast_operands_of(x.inst).cta_mask_at, l)) & 0xFFFF;
      const Cluster* cl = c.launch.cluster;
      const uint32_t size = cl ? uint32_t(cl->ctas.size()) : 1;
      if (mask >> size != 0)
        report(c, HazardKind::out_of_bounds_shared, x.inst_id, w.id, l, mask,
               fmt::format("the tcgen05.commit multicast mask 0x{:X} names CTA ranks past the cluster's {} CTA(s)",
                           mask, size));
      for (uint32_t r = 0; r < size; ++r)
        if (mask >> r & 1) targets[ntargets++] = {cl ? cl->ctas[r] : &c, address & ((1u << kClusterRankShift) - 1)};
    } else {
      uint32_t local = 0;
      if (Cta* t = cluster_target(x, address, l, &local)) targets[ntargets++] = {t, local};
    }
    // The trace: one record in each CTA whose barrier it arrives on (the issuing warp only
    // in its own CTA), so each CTA's tensor-memory view sees the commits that release it.
    uint16_t ranks = 0;
    for (uint32_t i = 0; i < ntargets; ++i) ranks |= uint16_t(1u << targets[i].first->launch.cluster_rank);
    for (uint32_t i = 0; i < ntargets; ++i) {
      Cta& t = *targets[i].first;
      trace_tmem(t, c.now, &t == &c ? w.id : kNoWarp, x.inst_id, 1u << l,
                 {.kind = TmemOpKind::commit, .cta_group = cta_group_of(x.inst), .cta_mask = ranks,
                  .mbar = targets[i].second, .issue_cycle = c.now, .complete_cycle = complete});
    }
    for (uint32_t i = 0; i < ntargets; ++i) {
      auto [t, local] = targets[i];
      auto it = t->mbars.find(local);
      if (it == t->mbars.end() || !it->second.initialized) {
        report(c, HazardKind::uninitialized_mbarrier, x.inst_id, w.id, l, local,
               fmt::format("tcgen05.commit arrives on the mbarrier at 0x{:X} of CTA rank {}, which was never "
                           "initialised",
                           local, t->launch.cluster_rank));
        continue;
      }
      TmaJob job;
      job.commit_arrival = true;
      job.mbar = local;
      job.issue = c.now;
      job.complete = complete;
      job.inst = x.inst_id;
      job.warp = w.id;
      job.tmem_commit = t == &c ? record : kNone;
      t->tma_jobs.push_back(job);
      t->tma_pending.push_back({complete, uint32_t(t->tma_jobs.size() - 1)});
    }
    // The columns are released when the arrival in this CTA lands; a commit to a peer's
    // barrier only releases them at issue (the model cannot order the peer's arrival with
    // this CTA's reads), so the check misses a read-before-commit there rather than
    // reporting one that is not.
    if (std::none_of(targets.begin(), targets.begin() + ntargets, [&](const auto& p) { return p.first == &c; }))
      release_tmem_columns(c, record);
  }
}

}  // namespace

bool tmem_columns_allocated(const Cta& c, uint32_t col, uint32_t ncols) {
  return std::any_of(c.tmem.allocations.begin(), c.tmem.allocations.end(), [&](const TmemAllocation& a) {
    return col >= a.col && col + ncols <= a.col + a.ncols;
  });
}

void release_tmem_columns(Cta& c, uint32_t record) {
  for (uint32_t m : c.tmem_commits[record]) {
    TmemRange& r = c.tmem_mmas[m];
    if (r.released) continue;  // an earlier commit covering it already arrived
    r.released = true;
    for (uint32_t col = r.col; col < r.col + r.ncols && col < TensorMemory::kColumns; ++col)
      if (r.cta->tmem.pending[col] > 0) r.cta->tmem.pending[col]--;
  }
  c.tmem_commits[record].clear();
}

void warp_releases(Cta& c, Warp& w, uint32_t inst, bool hand_back) {
  ++w.clock[w.id % kMaxCtaWarps];
  if (w.tmem_unreleased_reads.none()) return;
  // A tcgen05.ld not yet waited for (its registers still pending) may not have read its columns:
  // a release now hands them over too early (facts: ld_wait_before_release).
  if (!w.tmem_ld_regs.empty() && inst != kNone) {
    uint32_t lo = TensorMemory::kColumns, hi = 0;
    for (uint32_t j = 0; j < TensorMemory::kColumns; ++j)
      if (w.tmem_unreleased_reads.test(j)) {
        lo = std::min(lo, j);
        hi = j;
      }
    report(c, HazardKind::tmem_race, inst, w.id, kNone, lo,
           fmt::format("warp {} releases tensor-memory columns {}..{} (an arrive or barrier after its tcgen05.ld) "
                       "before tcgen05.wait::ld: the load may not have read them yet, and the MMA thread that "
                       "acquires this release may overwrite them first. Wait with tcgen05.wait::ld, then "
                       "tcgen05.fence::before_thread_sync, then arrive",
                       w.id, lo, hi));
  }
  if (!hand_back) return;
  uint32_t first = TensorMemory::kColumns, last = 0;
  for (uint32_t j = 0; j < TensorMemory::kColumns; ++j)
    if (w.tmem_unreleased_reads.test(j)) {
      first = std::min(first, j);
      last = j;
    }
  w.tmem_unreleased_reads.reset();
  if (inst == kNone) return;  // barrier.cluster: no instruction of this warp to record it at
  trace_tmem(c, c.now, w.id, inst, kAllLanes,
             {.kind = TmemOpKind::release, .lane = w.tmem_read_lane, .column = first, .lanes = 32,
              .columns = last - first + 1, .issue_cycle = c.now, .complete_cycle = c.now});
}

namespace {

// A cta_group::2 MMA of the peer (the pair's leader) writes column j of `target`: the target's
// latest read of it must have been released (an arrive of the target CTA after the read) and
// that release acquired by the issuing thread. Reports the tmem-race; true when it did.
bool peer_read_unreleased(ExecContext& x, const Cta& target, uint32_t j, uint32_t col, uint32_t ncols) {
  const uint32_t rank = target.launch.cluster_rank, read = target.tmem.read_release[j];
  if (read == 0 || rank >= kMaxClusterRanks || x.warp.acquired[rank] >= read) return false;
  report(x.cta, HazardKind::tmem_race, x.inst_id, x.warp.id, kNone, j,
         fmt::format("CTA rank {}'s tcgen05.mma.cta_group::2 writes tensor-memory columns {}..{} of CTA rank {}, whose "
                     "tcgen05.ld of column {} is not ordered before it: no release rank {} made after that read has "
                     "reached this thread, so the MMA overwrites an accumulator rank {}'s epilogue may not have read "
                     "yet. The pair's MMA writes both CTAs' tensor memory: the barrier it waits on before reusing a "
                     "buffer (tmem_empty) must count the epilogue threads of both CTAs, and rank {}'s must arrive on "
                     "it (mapa + remote arrive)",
                     x.cta.launch.cluster_rank, col, col + ncols - 1, rank, j, rank, rank, rank));
  return true;
}

}  // namespace

void tmem_mma_writes(ExecContext& x, Cta& target, uint32_t col, uint32_t ncols) {
  TensorMemory& t = target.tmem;
  if (t.read_stamp.empty()) return;
  Warp& w = x.warp;
  const uint32_t me = w.id % kMaxCtaWarps;
  const bool own = &target == &x.cta;
  bool reported = false;
  for (uint32_t j = col; j < col + ncols && j < TensorMemory::kColumns; ++j) {
    uint32_t* stamps = &t.read_stamp[size_t(j) * kMaxCtaWarps];
    // A column no warp read since its last MMA (every stamp 0, as after every MMA into it, so
    // the K loop's MMAs) has no read to order and no stamp to clear.
    uint32_t any_read = 0;
    for (uint32_t v = 0; v < kMaxCtaWarps; ++v) any_read |= stamps[v];
    for (uint32_t v = 0; v < kMaxCtaWarps && own && !reported && any_read; ++v) {
      if (v == me || stamps[v] == 0 || w.clock[v] >= stamps[v]) continue;
      reported = true;
      report(x.cta, HazardKind::tmem_race, x.inst_id, w.id, kNone, j,
             fmt::format("tcgen05.mma writes tensor-memory columns {}..{} while warp {}'s tcgen05.ld of column {} is "
                         "not ordered before it: no release warp {} made after that read has reached this thread, so "
                         "the MMA overwrites an accumulator the epilogue may not have read yet. Wait on the barrier "
                         "the readers arrive on once they are done with the buffer (tmem_empty) before accumulating "
                         "into it again",
                         col, col + ncols - 1, v, j, v));
    }
    if (!own && !reported) reported = peer_read_unreleased(x, target, j, col, ncols);
    if (any_read) std::fill(stamps, stamps + kMaxCtaWarps, 0u);
    t.read_release[j] = 0;
    t.write_stamp[j] = own ? w.clock[me] + 1 : 0;
    t.writer[j] = uint16_t(me);
  }
}

void complete_tmem_commit(Cta& c, const PendingTma& p) {
  const TmaJob& job = c.tma_jobs[p.record];
  if (job.tmem_commit != kNone) release_tmem_columns(c, job.tmem_commit);
  auto it = c.mbars.find(job.mbar);
  if (it == c.mbars.end()) return;
  Mbarrier& m = it->second;
  if (m.pending_arrivals == 0) {
    report(c, HazardKind::mbarrier_over_arrival, job.inst, job.warp, kNone, job.mbar,
           fmt::format("a tcgen05.commit arrives on the mbarrier at 0x{:X} with no arrival pending in its phase",
                       job.mbar));
    return;
  }
  m.pending_arrivals -= 1;
  if (job.tmem_commit != kNone) join_clock(m.phase_clock, c.tmem_commit_clocks[job.tmem_commit]);
  trace_mbar(c, EventKind::mbar_arrive, p.complete_at, job.warp, job.inst, job.mbar, m, 1);
  mbarrier_check_phase(c, job.mbar, p.complete_at);
}

void check_tmem_at_exit(Cta& c) {
  for (const TmemAllocation& a : c.tmem.allocations)
    report(c, HazardKind::tmem_not_freed, a.inst, a.warp, kNone, a.col,
           fmt::format("the CTA exited with tensor-memory columns {}..{} still allocated (warp {} allocated them): "
                       "the allocating warp must tcgen05.dealloc them before exit, or the SM's next CTA cannot "
                       "allocate",
                       a.col, a.col + a.ncols - 1, a.warp));
  c.tmem.allocations.clear();
}

void exec_tcgen05(ExecContext& x) {
  Warp& w = x.warp;
  Cta& c = x.cta;
  x.latency = timing::kAluLatency;
  switch (x.inst.op) {
    case Op::tcgen05_alloc:
    case Op::tcgen05_alloc_cta_pair: tmem_alloc(x); break;
    case Op::tcgen05_dealloc:
    case Op::tcgen05_dealloc_cta_pair: tmem_dealloc(x); break;
    case Op::tcgen05_relinquish_alloc_permit:
    case Op::tcgen05_relinquish_alloc_permit_cta_pair:
      c.tmem.relinquished = true;
      trace_now(x, {.kind = TmemOpKind::relinquish});
      break;
    case Op::tcgen05_mma:
    case Op::tcgen05_mma_cta_pair: tmem_mma(x); break;
    case Op::tcgen05_commit:
    case Op::tcgen05_commit_multicast:
    case Op::tcgen05_commit_cta_pair:
    case Op::tcgen05_commit_cta_pair_multicast: tmem_commit(x); break;
    case Op::tcgen05_ld_32x32b: tmem_ld(x); break;
    case Op::tcgen05_st_32x32b: tmem_st(x); break;
    case Op::tcgen05_wait_ld:
      for (uint32_t r : w.tmem_ld_regs) c.reg_pending[size_t(w.id) * c.nregs + r] = 0;
      w.tmem_ld_regs.clear();
      break;
    case Op::tcgen05_wait_st:  // stores land at issue in the model
    case Op::tcgen05_fence_before:
    case Op::tcgen05_fence_after: break;  // the model runs tcgen05 ops in issue order
    default: not_handled(x, "exec_tcgen05");
  }
}

}  // namespace gs::model
