#include "gui/core/stall_causes.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "gui/core/barrier_label.hpp"
#include "gui/core/warps_data.hpp"

namespace gs::gui {

namespace {

// Each kind's JSON id, name and a learner's sentence, in StallKind's order.
struct StallKindText {
  const char* id;
  const char* name;
  const char* meaning;
};
constexpr std::array<StallKindText, size_t(StallKind::count_)> kStallKinds{{
    {"issuing", "issuing", "the cycle the warp issued an instruction"},
    {"dependency", "dependency or pipe (issue model)",
     "between issues with no wait before them: an operand not yet written (the scoreboard), a busy pipe or "
     "store path, or another warp issuing on the same scheduler"},
    {"mbarrier", "mbarrier wait", "asleep in mbarrier.try_wait until the phase it waits for completes"},
    {"bar_sync", "bar.sync", "at bar.sync (or barrier.cluster.wait) until the other warps arrive, and its latency"},
    {"wgmma_wait", "wgmma.wait_group", "in wgmma.wait_group until the warpgroup's MMAs in flight complete"},
    {"wgmma_issue", "wgmma issue",
     "at a wgmma until the SM's wgmma issue takes it: the wgmmas before it are still being handed to the tensor "
     "cores"},
    {"cp_async_wait", "cp.async wait", "in cp.async.wait_group until its copies land in shared memory"},
    {"fast_forwarded", "fast-forwarded (not traced)",
     "passes of a long loop fast-forward skipped: the warp's clock moved on by their time, their causes "
     "were not traced"},
    {"not_started", "not started", "before the warp's first issue"},
    {"finished", "idle after the warp finished", "after the warp's exit, while other warps of the CTA still ran"},
}};

const StallKindText* text_of(StallKind k) { return size_t(k) < kStallKinds.size() ? &kStallKinds[size_t(k)] : nullptr; }

}  // namespace

const char* stall_kind_name(StallKind k) { return text_of(k) ? text_of(k)->name : "?"; }
const char* stall_kind_id(StallKind k) { return text_of(k) ? text_of(k)->id : "?"; }
const char* stall_kind_meaning(StallKind k) { return text_of(k) ? text_of(k)->meaning : ""; }

std::string StallCause::name() const {
  return kind == StallKind::mbarrier && !barrier.empty() ? "mbarrier wait " + barrier : stall_kind_name(kind);
}

uint64_t WarpStalls::cycles_of(StallKind k) const {
  uint64_t n = 0;
  for (const StallCause& c : causes)
    if (c.kind == k) n += c.cycles;
  return n;
}

uint64_t WarpStalls::total() const {
  uint64_t n = 0;
  for (const StallCause& c : causes) n += c.cycles;
  return n;
}

uint64_t StallData::total_of(StallKind k) const {
  uint64_t n = 0;
  for (const StallCause& c : total)
    if (c.kind == k) n += c.cycles;
  return n;
}

namespace {

using model::EventKind;

// One issue of a warp and what explains the cycles after it.
struct Issue {
  uint64_t cycle = 0;
  StallKind after = StallKind::dependency;
  uint32_t mbar = kNone;  // the barrier's shared address when `after` is mbarrier
};

StallKind wait_kind_of(ir::Op op) {
  switch (op) {
    case ir::Op::bar_sync:
    case ir::Op::barrier_cluster_wait: return StallKind::bar_sync;
    case ir::Op::wgmma_wait_group: return StallKind::wgmma_wait;
    case ir::Op::cp_async_wait_group:
    case ir::Op::cp_async_wait_all: return StallKind::cp_async_wait;
    case ir::Op::exit:
    case ir::Op::ret: return StallKind::finished;
    default: return StallKind::dependency;
  }
}

// Causes keyed by (kind, barrier) so they come out in StallKind order, barriers by name.
using CauseMap = std::map<std::pair<StallKind, std::string>, uint64_t>;

void add(CauseMap& m, StallKind k, const std::string& barrier, uint64_t cycles) {
  if (cycles) m[{k, barrier}] += cycles;
}

std::vector<StallCause> to_causes(const CauseMap& m) {
  std::vector<StallCause> out;
  for (const auto& [key, cycles] : m) out.push_back({key.first, key.second, cycles});
  return out;
}

// Cycles of [b, e) that fall in the sorted, disjoint stretches `skips`.
uint64_t overlap(uint64_t b, uint64_t e, const std::vector<std::pair<uint64_t, uint64_t>>& skips) {
  uint64_t n = 0;
  for (const auto& [sb, se] : skips)
    if (sb < e && b < se) n += std::min(e, se) - std::max(b, sb);
  return n;
}

}  // namespace

StallData stall_causes(const ir::Kernel& kernel, const model::Trace& t) {
  StallData d;
  d.end_cycle = t.end_cycle;
  std::vector<std::vector<Issue>> issues(t.warps);
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> skips(t.warps);
  for (const model::Event& e : t.events) {
    if (e.warp >= t.warps) continue;
    std::vector<Issue>& mine = issues[e.warp];
    switch (e.kind) {
      case EventKind::warp_inst:
        mine.push_back({e.cycle, e.inst < kernel.insts.size() ? wait_kind_of(kernel.insts[e.inst].op) : StallKind::dependency});
        break;
      case EventKind::mbar_wait_blocked:  // stamped at its try_wait's issue, right after it
        if (!mine.empty() && mine.back().cycle == e.cycle && e.payload < t.mbar.size()) {
          mine.back().after = StallKind::mbarrier;
          mine.back().mbar = t.mbar[e.payload].addr;
        }
        break;
      case EventKind::wgmma_issue_wait:  // stamped at the wgmma's issue, right after it
        if (!mine.empty() && mine.back().cycle == e.cycle) mine.back().after = StallKind::wgmma_issue;
        break;
      case EventKind::fast_forward:
        if (e.payload < t.fast_forwards.size()) {
          const model::FastForward& f = t.fast_forwards[e.payload];
          // Stamped at the backward branch's issue; the clock moves on after that cycle.
          if (f.cycles) skips[e.warp].push_back({f.cycle + 1, f.cycle + 1 + f.cycles});
        }
        break;
      default: break;
    }
  }
  std::map<uint32_t, std::string> names;  // barrier address -> declared name
  const auto barrier_name = [&](uint32_t addr) -> const std::string& {
    auto it = names.find(addr);
    if (it == names.end()) it = names.emplace(addr, mbarrier_label(kernel, nullptr, addr)).first;
    return it->second;
  };
  CauseMap total;
  for (uint16_t w = 0; w < t.warps; ++w) {
    WarpStalls ws;
    ws.warp = w;
    ws.label = warp_label(t, w);
    CauseMap m;
    const std::vector<Issue>& is = issues[w];
    std::sort(skips[w].begin(), skips[w].end());
    ws.issues = is.size();
    // A stretch [b, e) explained by `k`, less what fast-forward skipped in it.
    const auto stretch = [&](uint64_t b, uint64_t e, StallKind k, const std::string& barrier) {
      if (e <= b) return;
      const uint64_t skipped = overlap(b, e, skips[w]);
      add(m, StallKind::fast_forwarded, "", skipped);
      add(m, k, barrier, e - b - skipped);
    };
    const uint64_t end = std::max(d.end_cycle, is.empty() ? 0 : is.back().cycle + 1);
    if (is.empty()) {
      stretch(0, end, StallKind::not_started, "");
    } else {
      stretch(0, is.front().cycle, StallKind::not_started, "");
      for (size_t i = 0; i < is.size(); ++i) {
        const uint64_t b = is[i].cycle, e = i + 1 < is.size() ? is[i + 1].cycle : end;
        if (e == b) continue;  // two issues at one cycle: never for one warp, but not ours to count twice
        add(m, StallKind::issuing, "", 1);
        // After the last issue the warp is done unless it is asleep in a wait it never left
        // (a deadlock): then that wait holds it to the end.
        StallKind k = is[i].after;
        if (i + 1 == is.size() && k == StallKind::dependency) k = StallKind::finished;
        stretch(b + 1, e, k, k == StallKind::mbarrier ? barrier_name(is[i].mbar) : std::string());
      }
    }
    ws.causes = to_causes(m);
    for (const StallCause& c : ws.causes) add(total, c.kind, c.barrier, c.cycles);
    d.warps.push_back(std::move(ws));
  }
  d.total = to_causes(total);
  return d;
}

nlohmann::json stall_causes_json(const StallData& d) {
  const auto causes_json = [](const std::vector<StallCause>& causes, uint64_t span) {
    nlohmann::json out = nlohmann::json::array();
    for (const StallCause& c : causes)
      out.push_back({{"kind", stall_kind_id(c.kind)},
                     {"barrier", c.barrier.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.barrier)},
                     {"name", c.name()},
                     {"cycles", c.cycles},
                     {"share", span ? double(c.cycles) / double(span) : 0.0}});
    return out;
  };
  nlohmann::json warps = nlohmann::json::array();
  for (const WarpStalls& w : d.warps)
    warps.push_back({{"warp", w.warp}, {"label", w.label}, {"issues", w.issues}, {"causes", causes_json(w.causes, w.total())}});
  uint64_t all = 0;
  for (const StallCause& c : d.total) all += c.cycles;
  return {{"end_cycle", d.end_cycle}, {"warps", warps}, {"total", causes_json(d.total, all)}};
}

}  // namespace gs::gui
