#include "gui/core/tmem_data.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/kernel_cache.hpp"
#include "gui/core/playback.hpp"
#include "gui/core/shared_memory_data.hpp"

namespace gs::gui {

using model::EventKind;
using model::TmemOpKind;

const char* tmem_cell_state_name(TmemCellState s) {
  switch (s) {
    case TmemCellState::free: return "free";
    case TmemCellState::allocated: return "allocated";
    case TmemCellState::accumulating: return "accumulating";
    case TmemCellState::complete: return "complete";
    case TmemCellState::read: return "read";
  }
  return "?";
}

std::string tmem_warps_text(const std::vector<uint16_t>& warps) {
  std::string s;
  for (uint16_t w : warps) s += fmt::format("{}w{}", s.empty() ? "" : " ", w);
  return s;
}

Rgb tmem_cell_rgb(TmemCellState s, bool dark) {
  switch (s) {
    case TmemCellState::free: return dark ? Rgb{40, 40, 46} : Rgb{236, 236, 240};
    case TmemCellState::allocated: return dark ? Rgb{84, 88, 104} : Rgb{196, 200, 214};
    case TmemCellState::accumulating: return warn_rgb(dark);
    case TmemCellState::complete: return ok_rgb(dark);
    case TmemCellState::read: return dark ? Rgb{90, 170, 250} : Rgb{40, 110, 210};
  }
  return muted_rgb(dark);
}

const char* tmem_owner_name(TmemOwner o) {
  switch (o) {
    case TmemOwner::unused: return "unused";
    case TmemOwner::mma: return "MMA thread";
    case TmemOwner::ready: return "ready for the readers";
    case TmemOwner::readers: return "readers";
    case TmemOwner::released: return "released";
  }
  return "?";
}

Rgb tmem_owner_rgb(TmemOwner o, bool dark) {
  switch (o) {
    case TmemOwner::unused:
    case TmemOwner::released: return tmem_cell_rgb(TmemCellState::allocated, dark);
    case TmemOwner::mma: return tmem_cell_rgb(TmemCellState::accumulating, dark);
    case TmemOwner::ready: return tmem_cell_rgb(TmemCellState::complete, dark);
    case TmemOwner::readers: return tmem_cell_rgb(TmemCellState::read, dark);
  }
  return muted_rgb(dark);
}

namespace {

constexpr uint32_t kBlocks = kTmemColumns / kTmemColumnBlock;

// "empty[2]" for barrier 2 of the allocation "empty", else the address.
std::string barrier_label(const ir::Kernel& kernel, uint32_t addr) {
  const uint32_t a = allocation_at(kernel, addr);
  if (a == kNone) return fmt::format("0x{:X}", addr);
  const ir::SharedAlloc& alloc = kernel.smem[a];
  const uint32_t index = (addr - smem_window_base() - alloc.offset) / 8;
  return alloc.bytes > 8 ? fmt::format("{}[{}]", alloc.name, index) : alloc.name;
}

uint32_t rank_of_traced_cta(const model::Trace& t) {
  for (const model::TracedCta& c : t.ctas)
    if (c.linear == t.traced_cta) return c.rank;
  return 0;
}

bool overlaps(uint32_t a0, uint32_t an, uint32_t b0, uint32_t bn) { return a0 < b0 + bn && b0 < a0 + an; }

void add_allocation(TmemHistory& h, const model::Event& ev, uint32_t index, const model::TmemOp& op) {
  if (op.kind == TmemOpKind::alloc) {
    h.allocations.push_back({.column = op.column, .columns = op.columns, .warp = ev.warp, .alloc_event = index,
                             .alloc_cycle = ev.cycle});
    return;
  }
  // A dealloc frees the live allocation at its column (the model reports a mismatch as a hazard).
  for (TmemAllocation& a : h.allocations)
    if (a.dealloc_event == kNone && a.column == op.column) {
      a.dealloc_event = index;
      a.dealloc_cycle = ev.cycle;
      a.dealloc_warp = ev.warp;
      return;
    }
}

// An MMA that starts a sum: in the accumulator of its columns, or a new one.
void add_accumulator_start(TmemHistory& h, uint32_t mma) {
  const TmemMma& m = h.mmas[mma];
  for (TmemAccumulator& a : h.accumulators)
    if (a.column == m.column && a.columns == m.columns && a.lane == m.lane) {
      a.starts.push_back(mma);
      return;
    }
  h.accumulators.push_back({.lane = m.lane, .column = m.column, .lanes = m.lanes, .columns = m.columns, .starts = {mma}});
  std::sort(h.accumulators.begin(), h.accumulators.end(),
            [](const TmemAccumulator& x, const TmemAccumulator& y) { return x.column < y.column; });
}

// Who holds accumulator `a` at the cursor (TmemOwner), from its latest sum's records.
TmemAccumulatorState accumulator_state(const TmemHistory& h, const TmemAccumulator& a, uint32_t index,
                                       const Snapshot& s) {
  TmemAccumulatorState st;
  uint32_t start = kNone;
  for (uint32_t m : a.starts)
    if (h.mmas[m].event <= s.position) {
      start = m;
      ++st.sums;
    }
  const std::string where = fmt::format("acc {}, columns {}-{}", index, a.column, a.column + a.columns - 1);
  if (start == kNone) {
    st.text = where + ": no sum started yet";
    return st;
  }
  // The sum's MMAs: from its start to the next MMA that starts a sum in the same columns.
  const TmemMma* last = &h.mmas[start];
  for (uint32_t m = start + 1; m < h.mmas.size() && h.mmas[m].event <= s.position; ++m) {
    const TmemMma& x = h.mmas[m];
    if (!overlaps(x.column, x.columns, a.column, a.columns)) continue;
    if (x.overwrite) break;
    last = &x;
  }
  st.mma_warp = last->warp;
  const bool arrived = last->commit != kNone && h.commits[last->commit].arrive_cycle <= s.cycle &&
                       last->complete_cycle <= s.cycle;
  // The reads of this sum so far, and the readers' releases after their last read.
  std::vector<std::pair<uint16_t, uint32_t>> last_read;  // (warp, event)
  for (const TmemAccess& x : h.accesses) {
    if (x.store || x.event <= last->event || x.event > s.position || !overlaps(x.column, x.columns, a.column, a.columns))
      continue;
    auto it = std::find_if(last_read.begin(), last_read.end(), [&](const auto& p) { return p.first == x.warp; });
    if (it == last_read.end()) {
      last_read.push_back({x.warp, x.event});
      st.readers.push_back(x.warp);
    } else {
      it->second = x.event;
    }
  }
  for (const auto& [warp, read] : last_read)
    for (const TmemRelease& r : h.releases)
      if (r.warp == warp && r.event > read && r.event <= s.position && overlaps(r.column, r.columns, a.column, a.columns)) {
        st.released.push_back(warp);
        break;
      }
  if (!st.readers.empty())
    st.owner = st.released.size() == st.readers.size() ? TmemOwner::released : TmemOwner::readers;
  else
    st.owner = arrived ? TmemOwner::ready : TmemOwner::mma;
  const std::string sum = fmt::format("sum {}", st.sums);
  switch (st.owner) {
    case TmemOwner::mma: st.text = fmt::format("{}: {}, MMA thread w{} accumulating", where, sum, st.mma_warp); break;
    case TmemOwner::ready: st.text = fmt::format("{}: {} complete, its commit arrived: the readers' turn", where, sum); break;
    case TmemOwner::readers:
      st.text = fmt::format("{}: {} read by {}{}", where, sum, tmem_warps_text(st.readers),
                            st.released.empty() ? "" : fmt::format(" (released by {})", tmem_warps_text(st.released)));
      break;
    case TmemOwner::released:
      st.text = fmt::format("{}: {} read and released by {}: free for the next sum", where, sum, tmem_warps_text(st.released));
      break;
    case TmemOwner::unused: break;
  }
  return st;
}

void fill_allocated_over_time(TmemHistory& h) {
  std::vector<std::pair<uint64_t, int64_t>> steps;
  for (const TmemAllocation& a : h.allocations) {
    steps.push_back({a.alloc_cycle, int64_t(a.columns)});
    if (a.dealloc_cycle != kTmemNever) steps.push_back({a.dealloc_cycle, -int64_t(a.columns)});
  }
  std::stable_sort(steps.begin(), steps.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  int64_t now = 0;
  for (const auto& [cycle, delta] : steps) {
    now += delta;
    if (!h.allocated_over_time.empty() && h.allocated_over_time.back().first == cycle)
      h.allocated_over_time.back().second = uint32_t(std::max<int64_t>(0, now));
    else
      h.allocated_over_time.push_back({cycle, uint32_t(std::max<int64_t>(0, now))});
    h.peak_columns = std::max(h.peak_columns, uint32_t(std::max<int64_t>(0, now)));
  }
}

}  // namespace

TmemHistory tmem_history(const LoadedKernel& k, uint32_t rank) {
  const model::Trace& t = k.trace();
  TmemHistory h;
  h.rank = rank;
  h.end_cycle = t.end_cycle;
  // The MMAs each issuing warp has not committed yet: the next commit is the first to cover them.
  std::vector<std::pair<uint16_t, std::vector<uint32_t>>> uncommitted;
  const auto pending_of = [&](uint16_t warp) -> std::vector<uint32_t>& {
    for (auto& [w, list] : uncommitted)
      if (w == warp) return list;
    return uncommitted.emplace_back(warp, std::vector<uint32_t>{}).second;
  };
  for (uint32_t e : t.of_kind(EventKind::tmem_op)) {
    const model::Event& ev = t.events[e];
    if (ev.cta != rank || ev.payload >= t.tmem.size()) continue;
    const model::TmemOp& op = t.tmem[ev.payload];
    switch (op.kind) {
      case TmemOpKind::alloc:
      case TmemOpKind::dealloc: add_allocation(h, ev, e, op); break;
      case TmemOpKind::relinquish: h.relinquished = true; break;
      case TmemOpKind::mma:
        pending_of(ev.warp).push_back(uint32_t(h.mmas.size()));
        h.mmas.push_back({.op = ev.payload, .event = e, .warp = ev.warp, .lane = op.lane, .column = op.column,
                          .lanes = op.lanes, .columns = op.columns, .issue_cycle = op.issue_cycle,
                          .complete_cycle = op.complete_cycle, .overwrite = op.overwrite});
        if (op.overwrite) add_accumulator_start(h, uint32_t(h.mmas.size() - 1));
        break;
      case TmemOpKind::release:
        h.releases.push_back({.event = e, .warp = ev.warp, .lane = op.lane, .column = op.column, .lanes = op.lanes,
                              .columns = op.columns, .cycle = ev.cycle});
        break;
      case TmemOpKind::commit: {
        TmemCommit c{.op = ev.payload, .event = e, .warp = ev.warp, .mbar = op.mbar,
                     .barrier = barrier_label(k.kernel(), op.mbar), .cta_mask = op.cta_mask,
                     .issue_cycle = op.issue_cycle, .arrive_cycle = op.complete_cycle};
        // It waits for every earlier MMA of the warp still running, also those an earlier
        // commit covers (facts table, commit_arrives_when_done): a final commit after per-stage
        // commits waits for the last stage's MMAs. An MMA's `commit` is the first covering it.
        for (uint32_t m : pending_of(ev.warp)) h.mmas[m].commit = uint32_t(h.commits.size());
        pending_of(ev.warp).clear();
        for (uint32_t m = 0; m < h.mmas.size(); ++m)
          if (h.mmas[m].warp == ev.warp && h.mmas[m].complete_cycle > c.issue_cycle) c.mmas.push_back(m);
        h.commits.push_back(std::move(c));
        break;
      }
      case TmemOpKind::load:
      case TmemOpKind::store: {
        TmemAccess a{.op = ev.payload, .event = e, .warp = ev.warp,
                     .quarter = op.quarter,
                     .store = op.kind == TmemOpKind::store, .lane = op.lane, .column = op.column, .lanes = op.lanes,
                     .columns = op.columns, .cycle = ev.cycle};
        a.outside_quarter = op.outside_quarter;
        for (const TmemMma& m : h.mmas)
          if (m.complete_cycle > ev.cycle && overlaps(m.column, m.columns, a.column, a.columns) &&
              overlaps(m.lane, m.lanes, a.lane, a.lanes))
            a.before_complete = true;
        h.accesses.push_back(a);
        break;
      }
    }
  }
  fill_allocated_over_time(h);
  return h;
}

const TmemHistories& tmem_histories_cached(const std::shared_ptr<const LoadedKernel>& k) {
  return cached_for_kernel<TmemHistories>(k, [](const LoadedKernel& lk) {
    TmemHistories all;
    const size_t ranks = std::max<size_t>(1, lk.trace().ctas.size());
    for (uint32_t r = 0; r < ranks; ++r) all.ranks.push_back(tmem_history(lk, r));
    return all;
  });
}

const TmemHistory* tmem_history_shown(const std::shared_ptr<const LoadedKernel>& k, const TmemViewOptions& o) {
  if (!k) return nullptr;
  const TmemHistories& all = tmem_histories_cached(k);
  if (o.rank >= 0 && size_t(o.rank) < all.ranks.size()) return &all.ranks[size_t(o.rank)];
  const uint32_t traced = rank_of_traced_cta(k->trace());
  return traced < all.ranks.size() ? &all.ranks[traced] : nullptr;
}

std::string tmem_quarter_lanes_text(const TmemQuarter& q) {
  return fmt::format("lanes {}-{}", q.lane0, q.lane0 + kTmemQuarterLanes - 1);
}

TmemState tmem_state(const TmemHistory& h, const Snapshot& s) {
  TmemState st;
  st.cycle = s.cycle;
  st.position = s.position;
  st.cells.assign(4 * kBlocks, TmemCellState::free);
  const auto paint = [&](uint32_t lane, uint32_t lanes, uint32_t column, uint32_t columns, TmemCellState state,
                         bool only_raise) {
    const auto [q0, q1] = layout::TmemAccessRule::quarters_touched(lane, lanes);
    for (uint32_t q = q0; q < q1; ++q)
      for (uint32_t b = column / kTmemColumnBlock; b < kBlocks && b * kTmemColumnBlock < column + columns; ++b) {
        TmemCellState& c = st.cells[q * kBlocks + b];
        // Only allocated columns hold anything: after a dealloc the picture is free again.
        if (state != TmemCellState::allocated && c == TmemCellState::free) continue;
        if (!only_raise || c < state) c = state;
      }
  };
  for (const TmemAllocation& a : h.allocations)
    if (a.live_at(s.position)) {
      st.allocated_columns += a.columns;
      paint(0, kTmemLanes, a.column, a.columns, TmemCellState::allocated, false);
    }
  // MMAs up to the cursor: accumulating until the tensor core is done with them. A later MMA
  // into complete columns (the next tile, or D += A·B again) makes them accumulate again.
  for (uint32_t i = 0; i < h.mmas.size() && h.mmas[i].event <= s.position; ++i) {
    const TmemMma& m = h.mmas[i];
    ++st.mmas_issued;
    st.latest_mma = i;
    const bool done = m.complete_cycle <= s.cycle;
    if (!done) ++st.mmas_in_flight;
    paint(m.lane, m.lanes, m.column, m.columns, done ? TmemCellState::complete : TmemCellState::accumulating, false);
  }
  for (uint32_t i = 0; i < h.commits.size() && h.commits[i].event <= s.position; ++i) {
    st.latest_commit = i;
    if (h.commits[i].arrive_cycle <= s.cycle) ++st.commits_arrived;
  }
  for (uint32_t q = 0; q < 4; ++q) st.quarters.push_back({.index = q, .lane0 = layout::TmemAccessRule::quarter_first_lane(q)});
  for (uint32_t i = 0; i < h.accesses.size() && h.accesses[i].event <= s.position; ++i) {
    const TmemAccess& a = h.accesses[i];
    st.latest_access = i;
    if (!a.store) paint(a.lane, a.lanes, a.column, a.columns, TmemCellState::read, true);
    const auto [q0, q1] = layout::TmemAccessRule::quarters_touched(a.lane, a.lanes);
    for (uint32_t q = q0; q < q1; ++q) {
      TmemQuarter& tq = st.quarters[q];
      if (std::find(tq.readers.begin(), tq.readers.end(), a.warp) != tq.readers.end()) continue;
      tq.readers.push_back(a.warp);
      if (a.quarter != q) tq.wrong_readers.push_back(a.warp);
    }
  }
  for (uint32_t i = 0; i < h.accumulators.size(); ++i) st.accumulators.push_back(accumulator_state(h, h.accumulators[i], i, s));
  return st;
}

nlohmann::json tmem_json(const TmemHistory& h, const TmemState& s) {
  nlohmann::json allocs = nlohmann::json::array();
  for (const TmemAllocation& a : h.allocations)
    allocs.push_back({{"column", a.column},
                      {"columns", a.columns},
                      {"warp", a.warp},
                      {"alloc_cycle", a.alloc_cycle},
                      {"dealloc_cycle", a.dealloc_cycle == kTmemNever ? nlohmann::json(nullptr) : nlohmann::json(a.dealloc_cycle)}});
  nlohmann::json commits = nlohmann::json::array();
  for (const TmemCommit& c : h.commits)
    commits.push_back({{"barrier", c.barrier},
                       {"warp", c.warp},
                       {"cta_mask", c.cta_mask},
                       {"mmas", c.mmas.size()},
                       {"issue_cycle", c.issue_cycle},
                       {"arrive_cycle", c.arrive_cycle}});
  nlohmann::json quarters = nlohmann::json::array();
  for (const TmemQuarter& q : s.quarters) quarters.push_back({{"lane0", q.lane0}, {"readers", q.readers}, {"wrong_readers", q.wrong_readers}});
  // The picture as one string per quarter: one letter per 8-column block (f a A c r).
  nlohmann::json rows = nlohmann::json::array();
  for (uint32_t q = 0; q < 4; ++q) {
    std::string row;
    for (uint32_t b = 0; b < kBlocks; ++b) row += "faAcr"[size_t(s.cell(q, b))];
    rows.push_back(row);
  }
  uint32_t outside = 0, early = 0;
  for (const TmemAccess& a : h.accesses) {
    outside += a.outside_quarter;
    early += a.before_complete;
  }
  nlohmann::json accumulators = nlohmann::json::array();
  for (uint32_t i = 0; i < h.accumulators.size() && i < s.accumulators.size(); ++i) {
    const TmemAccumulator& a = h.accumulators[i];
    const TmemAccumulatorState& as = s.accumulators[i];
    accumulators.push_back({{"column", a.column},
                            {"columns", a.columns},
                            {"sums_started", a.starts.size()},
                            {"sum", as.sums},
                            {"owner", tmem_owner_name(as.owner)},
                            {"mma_warp", as.mma_warp == kNoWarp ? nlohmann::json(nullptr) : nlohmann::json(as.mma_warp)},
                            {"readers", as.readers},
                            {"released", as.released},
                            {"text", as.text}});
  }
  return {{"used", h.used()},
          {"rank", h.rank},
          {"cycle", s.cycle},
          {"allocated_columns", s.allocated_columns},
          {"peak_columns", h.peak_columns},
          {"relinquished", h.relinquished},
          {"allocations", allocs},
          {"mmas", h.mmas.size()},
          {"mmas_issued", s.mmas_issued},
          {"mmas_in_flight", s.mmas_in_flight},
          {"commits", commits},
          {"commits_arrived", s.commits_arrived},
          {"accesses", h.accesses.size()},
          {"accesses_outside_quarter", outside},
          {"reads_before_complete", early},
          {"quarters", quarters},
          {"accumulators", accumulators},
          {"releases", h.releases.size()},
          {"cells", rows}};
}

nlohmann::json describe_tmem(AppState& app) {
  const Snapshot* s = app.snapshot();
  const TmemHistory* h = tmem_history_shown(app.kernel, app.tmem_view);
  if (!s || !h) return {{"kernel", nullptr}};
  return tmem_json(*h, tmem_state(*h, *s));
}

}  // namespace gs::gui
