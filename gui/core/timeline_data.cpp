#include "gui/core/timeline_data.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/kernel_cache.hpp"
#include "gui/core/timeline_compare_data.hpp"
#include "gui/core/warps_data.hpp"

namespace gs::gui {

nlohmann::json skipped_json(const SkippedSpan& k) {
  return {{"begin", k.begin},   {"end", k.end},       {"first", k.first}, {"count", k.count},
          {"passes", k.passes}, {"k_loop", k.k_loop}, {"text", skipped_text(k)}};
}

namespace {

using model::EventKind;

// Each warp's states as segments with an end, and the cycles it waited.
void fill_segments(const WarpTimelines& timelines, uint64_t end, std::vector<TimelineRow>& rows) {
  for (size_t w = 0; w < rows.size() && w < timelines.size(); ++w) {
    const std::vector<ActivitySegment>& segs = timelines[w];
    for (size_t i = 0; i < segs.size(); ++i) {
      const uint64_t b = segs[i].begin, e = i + 1 < segs.size() ? segs[i + 1].begin : std::max(end, b);
      // A zero-length state is dropped, except the last: how the warp ended (exited, or
      // deadlocked when the CTA ended with it blocked) is stamped at the trace's last cycle.
      if (e <= b && i + 1 < segs.size()) continue;
      rows[w].segments.push_back({b, e, segs[i].activity});
      if (is_waiting(segs[i].activity)) rows[w].waiting_cycles += e - b;
    }
  }
}

// Intervals [issue, complete) of every MMA (wgmma, mma.sync, tcgen05.mma), merged where they
// overlap: the tensor cores' busy time.
void fill_tensor_lane(const model::Trace& t, TimelineData& d) {
  std::vector<TimelineSpan> spans;
  for (uint32_t i = 0; i < t.mma.size(); ++i)
    if (t.mma[i].complete_cycle > t.mma[i].issue_cycle) spans.push_back({t.mma[i].issue_cycle, t.mma[i].complete_cycle, i});
  for (const model::MmaSyncOp& o : t.mma_sync) spans.push_back({o.issue_cycle, o.complete_cycle, kNone});
  // tcgen05.mma keeps no MmaOp: its TMEM record has the tensor core's stretch (a pair's MMA is
  // recorded in both CTAs; the merge below makes one stretch of the two).
  for (const model::TmemOp& o : t.tmem)
    if (o.kind == model::TmemOpKind::mma && o.mma == kNone && o.complete_cycle > o.issue_cycle)
      spans.push_back({o.issue_cycle, o.complete_cycle, kNone});
  std::sort(spans.begin(), spans.end(), [](const TimelineSpan& a, const TimelineSpan& b) { return a.begin < b.begin; });
  for (const TimelineSpan& s : spans) {
    if (!d.tensor.empty() && s.begin <= d.tensor.back().end)
      d.tensor.back().end = std::max(d.tensor.back().end, s.end);
    else
      d.tensor.push_back(s);
  }
  for (const TimelineSpan& s : d.tensor) d.tensor_busy_cycles += s.end - s.begin;
}

}  // namespace

TimelineData timeline_data(const LoadedKernel& k) { return timeline_data(k, warp_timelines(k)); }

TimelineData timeline_data(const LoadedKernel& k, const WarpTimelines& timelines) {
  TimelineData d;
  const model::Trace& t = k.trace();
  d.end_cycle = t.end_cycle;
  d.rows.resize(t.warps);
  for (uint16_t w = 0; w < t.warps; ++w) {
    d.rows[w].warp = w;
    d.rows[w].label = warp_label(t, w);
  }
  fill_segments(timelines, d.end_cycle, d.rows);
  for (uint32_t e : t.of_kind(EventKind::tma_issue)) {
    const model::Event& ev = t.events[e];
    if (ev.warp < d.rows.size()) d.rows[ev.warp].tma_issues.push_back(ev.cycle);
    if (ev.payload < t.tma.size()) {
      const model::TmaTransfer& x = t.tma[ev.payload];
      d.tma.push_back({x.issue_cycle, std::max(x.complete_cycle, x.issue_cycle + 1), ev.payload});
    }
  }
  for (const model::FastForward& f : t.fast_forwards)
    if (f.warp < d.rows.size())
      d.rows[f.warp].skipped.push_back({f.cycle, f.cycle + f.cycles, f.first, f.count, f.passes, f.k_loop});
  for (const model::CWrite& w : t.c_writes)
    if (w.warp < d.rows.size() && (d.rows[w.warp].stores.empty() || d.rows[w.warp].stores.back() != w.cycle))
      d.rows[w.warp].stores.push_back(w.cycle);
  fill_tensor_lane(t, d);
  d.stalls = stall_causes(k.report.kernel, t);
  return d;
}

const TimelineData& timeline_data_cached(const std::shared_ptr<const LoadedKernel>& k) {
  // The warps' states come from the warps view's cache: the trace is replayed once for both.
  return cached_for_kernel<TimelineData>(
      k, [&k](const LoadedKernel& lk) { return timeline_data(lk, warp_timelines_cached(k)); });
}

namespace {

// The pixel column of `cycle` on `columns` columns spanning [0, end).
uint32_t column_of(uint64_t cycle, uint64_t end, uint32_t columns) {
  return uint32_t(std::min<uint64_t>(columns - 1, cycle * columns / std::max<uint64_t>(1, end)));
}

}  // namespace

std::vector<TimelineSegment> segments_at_pixels(const std::vector<TimelineSegment>& segments, uint64_t end_cycle,
                                                uint32_t columns) {
  if (columns == 0 || end_cycle <= columns || segments.empty()) return segments;
  std::vector<TimelineSegment> out;
  size_t j = 0;  // the first segment that may overlap the column
  for (uint32_t p = 0; p < columns; ++p) {
    const uint64_t lo = p * end_cycle / columns, hi = (uint64_t(p) + 1) * end_cycle / columns;
    while (j < segments.size() && segments[j].end <= lo) ++j;
    std::array<uint64_t, 8> cycles{};  // per WarpActivity
    bool any = false;
    for (size_t i = j; i < segments.size() && segments[i].begin < hi; ++i) {
      const uint64_t b = std::max(lo, segments[i].begin), e = std::min(hi, segments[i].end);
      if (e > b) cycles[size_t(segments[i].activity)] += e - b, any = true;
    }
    if (!any) continue;
    const auto most = WarpActivity(std::max_element(cycles.begin(), cycles.end()) - cycles.begin());
    if (!out.empty() && out.back().activity == most && out.back().end == lo)
      out.back().end = hi;
    else
      out.push_back({lo, hi, most});
  }
  // How the warp ended (exited, deadlocked: short, or stamped at the last cycle with no
  // length) stays visible whatever took most of the last column.
  const TimelineSegment& last = segments.back();
  if (!out.empty() && out.back().activity != last.activity) {
    const uint64_t b = std::max(last.begin, out.back().begin);
    out.back().end = b;
    if (out.back().end == out.back().begin) out.pop_back();
    if (!out.empty() && out.back().activity == last.activity) out.back().end = last.end;
    else out.push_back({b, last.end, last.activity});
  }
  return out;
}

std::vector<uint64_t> ticks_at_pixels(const std::vector<uint64_t>& cycles, uint64_t end_cycle, uint32_t columns) {
  if (columns == 0 || end_cycle <= columns) return cycles;
  std::vector<uint64_t> out;
  for (uint64_t c : cycles)
    if (out.empty() || column_of(c, end_cycle, columns) != column_of(out.back(), end_cycle, columns)) out.push_back(c);
  return out;
}

std::vector<TimelineSpan> spans_at_pixels(std::vector<TimelineSpan> spans, uint64_t end_cycle, uint32_t columns) {
  if (columns == 0 || end_cycle <= columns) return spans;
  std::sort(spans.begin(), spans.end(), [](const TimelineSpan& a, const TimelineSpan& b) { return a.begin < b.begin; });
  std::vector<TimelineSpan> out;
  for (const TimelineSpan& s : spans) {
    if (!out.empty() && column_of(s.begin, end_cycle, columns) <= column_of(out.back().end, end_cycle, columns))
      out.back().end = std::max(out.back().end, s.end);
    else
      out.push_back(s);
  }
  return out;
}

std::string skipped_text(const SkippedSpan& s) {
  return fmt::format("fast-forwarded: {} {}..{} of {} skipped ({}), run with their time but not traced",
                     s.k_loop ? "K iterations" : "passes", s.first + 1, s.first + s.count, s.passes, s.count);
}

const SkippedSpan* skipped_at(const std::vector<SkippedSpan>& spans, uint64_t at) {
  for (const SkippedSpan& s : spans)
    if (s.begin <= at && at < s.end) return &s;
  return nullptr;
}

const std::vector<TimelineLegendItem>& timeline_legend() {
  static const std::vector<TimelineLegendItem> items = {
      {"ready", TimelineMark::state, WarpActivity::ready},
      {"waiting on an mbarrier", TimelineMark::state, WarpActivity::waiting_mbarrier},
      {"at bar.sync", TimelineMark::state, WarpActivity::waiting_bar},
      {"in wgmma.wait", TimelineMark::state, WarpActivity::waiting_wgmma},
      {"deadlocked", TimelineMark::state, WarpActivity::deadlocked},
      {"exited", TimelineMark::state, WarpActivity::exited},
      {"TMA issue", TimelineMark::tma_issue},
      {"store to C", TimelineMark::store},
      {"fast-forwarded (passes skipped)", TimelineMark::skipped},
  };
  return items;
}

std::string timeline_role(const TimelineRow& row, const Snapshot* s) {
  if (s)
    for (const WarpSnapshot& w : s->warps)
      if (w.warp == row.warp && w.role != ir::WarpRole::none) return std::string(ir::warp_role_name(w.role));
  return "";
}

std::string timeline_label(const TimelineRow& row, const Snapshot* s) {
  const std::string role = timeline_role(row, s);
  return role.empty() ? row.label : row.label + " " + role;
}

uint32_t timeline_position_at(const LoadedKernel& k, uint64_t cycle) {
  model::Cursor c(k.trace());
  c.jump_to_cycle(cycle);
  return c.position();
}

namespace {

nlohmann::json record_button_json(const AppState& app) {
  const RecordButton b = record_button(app);
  return {{"enabled", b.enabled}, {"label", b.label}, {"tooltip", b.tooltip},
          {"gpu", gpu_presence_name(app.gpu.state)}, {"gpu_reason", app.gpu.reason}};
}

}  // namespace

nlohmann::json describe_timeline(AppState& app) {
  if (!app.kernel) return {{"recorded", describe_timeline_compare(app)}, {"record_button", record_button_json(app)}};
  const TimelineData& d = timeline_data_cached(app.kernel);
  const Snapshot* s = app.snapshot();
  nlohmann::json rows = nlohmann::json::array();
  for (const TimelineRow& r : d.rows) {
    nlohmann::json segs = nlohmann::json::array();
    for (const TimelineSegment& s : r.segments) segs.push_back({s.begin, s.end, warp_activity_name(s.activity)});
    nlohmann::json skipped = nlohmann::json::array();
    for (const SkippedSpan& k : r.skipped) skipped.push_back(skipped_json(k));
    rows.push_back({{"warp", r.warp},
                    {"label", r.label},
                    {"role", timeline_role(r, s)},  // at the cursor, as the Warps view says
                    {"segments", segs},
                    {"tma_issues", r.tma_issues.size()},
                    {"stores", r.stores.size()},
                    {"skipped", skipped},
                    {"waiting_cycles", r.waiting_cycles}});
  }
  nlohmann::json legend = nlohmann::json::array();
  for (const TimelineLegendItem& item : timeline_legend()) legend.push_back(item.name);
  return {{"end_cycle", d.end_cycle},
          {"cursor_cycle", s ? s->cycle : 0},
          {"rows", rows},
          {"tma_transfers", d.tma.size()},
          {"tensor_stretches", d.tensor.size()},
          {"tensor_busy_cycles", d.tensor_busy_cycles},
          {"tensor_busy_share", d.tensor_busy_share()},
          {"legend", legend},
          {"stalls", stall_causes_json(d.stalls)},
          {"record_button", record_button_json(app)},
          {"recorded", describe_timeline_compare(app)}};  // a GPU's timeline beside the model's, or null
}

}  // namespace gs::gui
