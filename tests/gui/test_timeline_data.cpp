// The timeline view's data: each traced warp's states over modeled time, the TMA engine's
// transfers and the tensor cores' busy stretches, all from the trace.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/timeline_data.hpp"
#include "gui/core/warps_data.hpp"

#include <algorithm>
#include <set>
#include "tests/gui/gui_fixture.hpp"

using namespace gs;
using namespace gs::gui;

TEST_CASE("timeline: warps' states cover the run, with the TMA transfers and the tensor cores' busy time",
          "[gui][timeline]") {
  const auto& k = test::hopper_kernel();
  const model::Trace& t = k->trace();
  const TimelineData d = timeline_data(*k);
  REQUIRE(d.rows.size() == t.warps);
  CHECK(d.end_cycle == t.end_cycle);
  for (const TimelineRow& r : d.rows) {
    INFO("warp " << r.warp);
    REQUIRE_FALSE(r.segments.empty());
    for (size_t i = 1; i < r.segments.size(); ++i) CHECK(r.segments[i].begin == r.segments[i - 1].end);
    CHECK(r.segments.back().end == d.end_cycle);
    CHECK(r.waiting_cycles > 0);  // one stage: the consumers wait for every K-block's TMA
    CHECK(r.waiting_cycles < d.end_cycle);
    CHECK(r.stores.size() > 0);   // every warp stores its part of C
  }
  CHECK(d.tma.size() == t.of_kind(model::EventKind::tma_issue).size());
  uint64_t issued = 0;
  for (const TimelineRow& r : d.rows) issued += r.tma_issues.size();
  CHECK(issued == d.tma.size());
  REQUIRE_FALSE(d.tensor.empty());
  for (size_t i = 1; i < d.tensor.size(); ++i) CHECK(d.tensor[i].begin > d.tensor[i - 1].end);  // merged
  CHECK(d.tensor_busy_share() > 0.0);
  CHECK(d.tensor_busy_share() < 0.5);  // one stage: loads and math take turns
}

TEST_CASE("timeline: mma.sync keeps the tensor cores busy too (an Ampere step is not 'busy 0%')", "[gui][timeline]") {
  const auto k = open_kernel({.kernel_id = "ampere_mma_global", .only_traced_cta = true});
  const model::Trace& t = k->trace();
  REQUIRE(t.mma.empty());  // no wgmma
  REQUIRE_FALSE(t.mma_sync.empty());
  CHECK(t.mma_sync.size() == k->report.result.stats.mma_ops);  // one record per mma.sync the traced CTA ran
  for (const model::MmaSyncOp& o : t.mma_sync) CHECK(o.complete_cycle > o.issue_cycle);
  const TimelineData d = timeline_data(*k);
  REQUIRE_FALSE(d.tensor.empty());
  CHECK(d.tensor_busy_share() > 0.0);
  CHECK(d.tensor_busy_share() <= 1.0);
}

TEST_CASE("timeline: a deadlocked warp ends in the deadlocked state, and a click lands on that cycle",
          "[gui][timeline]") {
  AppState app;
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .mistakes = {"wrong-expect-tx"}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const TimelineData d = timeline_data(*app.kernel);
  uint32_t deadlocked = 0;
  for (const TimelineRow& r : d.rows) deadlocked += r.segments.back().activity == WarpActivity::deadlocked;
  CHECK(deadlocked > 0);
  const uint64_t mid = d.end_cycle / 2;
  const uint32_t pos = timeline_position_at(*app.kernel, mid);
  REQUIRE(pos < app.kernel->trace().events.size());
  CHECK(app.kernel->trace().events[pos].cycle >= mid);
  if (pos > 0) CHECK(app.kernel->trace().events[pos - 1].cycle < mid);
  const nlohmann::json j = describe_timeline(app);
  CHECK(j["rows"].size() == d.rows.size());
  CHECK(j["tma_transfers"] == d.tma.size());
}

TEST_CASE("timeline: a warp's label names the role at the cursor, as the Warps view does, and none where none is declared",
          "[gui][timeline]") {
  // Step 01 declares its SIMT loop and its epilogue, step 03 only its epilogue, step 14 a
  // producer, two consumers and their epilogues: the role word changes as the cursor moves.
  for (const char* id : {"simt_naive", "simt_smem_tiling", "hopper_two_consumers"}) {
    INFO(id);
    AppState app;
    app.set_kernel(open_kernel({.kernel_id = id, .only_traced_cta = true}));
    REQUIRE(app.kernel);
    const TimelineData& d = timeline_data_cached(app.kernel);
    const uint32_t events = app.event_count();
    size_t with_role = 0, without_role = 0;
    for (uint32_t pos : {0u, events / 4, events / 2, 3 * events / 4, events - 1}) {
      app.seek(pos);
      const Snapshot* s = app.snapshot();
      REQUIRE(s);
      const std::vector<WarpRow> warps = warp_rows(*app.kernel, *s);
      for (const TimelineRow& r : d.rows) {
        INFO("warp " << r.warp << " at " << pos);
        const auto w = std::find_if(warps.begin(), warps.end(), [&](const WarpRow& x) { return x.warp == r.warp; });
        REQUIRE(w != warps.end());
        // The Warps view's role word (before its ", N regs"), "-" for none.
        const std::string warps_role = w->role.substr(0, w->role.find(','));
        const std::string role = timeline_role(r, s);
        CHECK(role == (warps_role == "-" ? "" : warps_role));
        CHECK(timeline_label(r, s) == (role.empty() ? r.label : r.label + " " + role));
        (role.empty() ? without_role : with_role) += 1;
      }
    }
    // At the start no warp has entered a declared region yet: no role word.
    app.seek(0);
    for (const TimelineRow& r : d.rows) CHECK(timeline_label(r, app.snapshot()) == r.label);
    CHECK(with_role > 0);
    CHECK(without_role > 0);
  }
}

TEST_CASE("timeline: drawn at pixels, a row has at most one state per pixel column and keeps its cover",
          "[gui][timeline]") {
  const auto& k = test::hopper_kernel();
  const TimelineData d = timeline_data(*k);
  REQUIRE(d.end_cycle > 400);
  for (const uint32_t columns : {50u, 200u}) {
    for (const TimelineRow& r : d.rows) {
      INFO("warp " << r.warp << " on " << columns << " columns");
      REQUIRE(r.segments.size() > 3);
      const std::vector<TimelineSegment> runs = segments_at_pixels(r.segments, d.end_cycle, columns);
      CHECK(runs.size() <= size_t(columns) + 1);  // + the zero-length end state
      CHECK(runs.size() <= r.segments.size() + 1);  // a run boundary needs a state change
      CHECK(runs.front().begin <= r.segments.front().begin);
      CHECK(runs.back().end == d.end_cycle);
      for (size_t i = 1; i < runs.size(); ++i) {
        CHECK(runs[i].begin == runs[i - 1].end);
        CHECK(runs[i].activity != runs[i - 1].activity);  // neighbours of one state merged
      }
      CHECK(runs.back().activity == r.segments.back().activity);  // how the warp ended stays visible
      // Each state's cycles move by at most the columns where states mix (one column each).
      const uint64_t column_cycles = d.end_cycle / columns + 1;
      for (const WarpActivity a : {WarpActivity::ready, WarpActivity::waiting_mbarrier}) {
        uint64_t before = 0, after = 0;
        for (const TimelineSegment& g : r.segments) before += g.activity == a ? g.end - g.begin : 0;
        for (const TimelineSegment& g : runs) after += g.activity == a ? g.end - g.begin : 0;
        CHECK(double(after) == Approx(double(before)).margin(double(column_cycles * r.segments.size())));
      }
      const std::vector<uint64_t> ticks = ticks_at_pixels(r.stores, d.end_cycle, columns);
      CHECK(ticks.size() <= columns);
      CHECK(ticks.size() <= r.stores.size());
    }
    CHECK(spans_at_pixels(d.tma, d.end_cycle, columns).size() <= columns);
  }
  // With a pixel per cycle or more, nothing changes.
  const TimelineRow& r0 = d.rows[0];
  CHECK(segments_at_pixels(r0.segments, d.end_cycle, uint32_t(d.end_cycle)).size() == r0.segments.size());
}

TEST_CASE("timeline: the legend names every state the rows draw and both ticks", "[gui][timeline]") {
  AppState app = test::hopper_app();
  const nlohmann::json j = describe_timeline(app);
  REQUIRE(j.contains("legend"));
  std::set<std::string> names;
  for (const auto& n : j["legend"]) names.insert(n.get<std::string>());
  const TimelineData& d = timeline_data_cached(app.kernel);
  for (const TimelineRow& r : d.rows)
    for (const TimelineSegment& g : r.segments) {
      if (g.activity == WarpActivity::not_started) continue;  // not drawn
      bool named = false;
      for (const TimelineLegendItem& item : timeline_legend())
        named |= item.mark == TimelineMark::state && item.activity == g.activity && names.count(item.name);
      CHECK(named);
    }
  CHECK(names.count("TMA issue"));
  CHECK(names.count("store to C"));
}

TEST_CASE("timeline: a fast-forwarded stretch is each warp's skip, hatched in the legend, with how many passes",
          "[gui][timeline][fast]") {
  AppState app;
  // K = 16384: 256 K blocks, so the traced CTA run alone skips the K loops' middle passes.
  app.open_now({.kernel_id = "hopper_producer_consumer", .shape = {256, 256, 16384}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const model::Trace& t = app.kernel->trace();
  REQUIRE_FALSE(t.fast_forwards.empty());
  const TimelineData d = timeline_data(*app.kernel);
  size_t skips = 0;
  for (const TimelineRow& r : d.rows)
    for (const SkippedSpan& k : r.skipped) {
      ++skips;
      INFO("warp " << r.warp);
      CHECK(k.begin < k.end);
      CHECK(k.end <= d.end_cycle);
      CHECK(k.k_loop);
      CHECK(k.passes == 256);
      CHECK(skipped_at(r.skipped, k.begin) == &k);
      CHECK(skipped_at(r.skipped, k.end) != &k);
      CHECK_THAT(skipped_text(k), Catch::Contains(fmt::format("K iterations {}..{} of 256 skipped ({})", k.first + 1,
                                                             k.first + k.count, k.count)));
    }
  CHECK(skips == t.fast_forwards.size());
  const nlohmann::json j = describe_timeline(app);
  size_t described = 0;
  for (const auto& row : j["rows"]) described += row["skipped"].size();
  CHECK(described == skips);
  std::set<std::string> legend;
  for (const auto& n : j["legend"]) legend.insert(n.get<std::string>());
  CHECK(legend.count("fast-forwarded (passes skipped)"));
  // A run that skips nothing has no skipped stretch.
  for (const TimelineRow& r : timeline_data(*test::hopper_kernel()).rows) CHECK(r.skipped.empty());
}

namespace {

// The epilogue warps' (w0-w3) stores into C that the Timeline draws inside a stretch of its
// tensor lane (an MMA in flight), and all of them.
std::pair<size_t, size_t> epilogue_stores_under_tensor(const TimelineData& d) {
  size_t under = 0, all = 0;
  for (const TimelineRow& r : d.rows) {
    if (r.warp >= 4) continue;
    for (uint64_t at : r.stores) {
      ++all;
      under += std::any_of(d.tensor.begin(), d.tensor.end(),
                           [&](const TimelineSpan& s) { return s.begin <= at && at < s.end; });
    }
  }
  return {under, all};
}

}  // namespace

TEST_CASE("timeline: step 23's epilogue stores one tile under the tensor cores' next tile, step 21's after them",
          "[gui][timeline][tmem]") {
  // Two accumulators: the epilogue warps store tile i while the MMAs of tile i+1 run.
  const auto two = open_kernel({.kernel_id = "blackwell_persistent_tmem2", .only_traced_cta = true});
  const auto [under, all] = epilogue_stores_under_tensor(timeline_data(*two));
  CHECK(all > 0);
  CHECK(under > 0);
  // One accumulator: the epilogue starts when the last MMA is done.
  const auto one = open_kernel({.kernel_id = "blackwell_ws_ring", .only_traced_cta = true});
  const auto [under1, all1] = epilogue_stores_under_tensor(timeline_data(*one));
  CHECK(all1 > 0);
  CHECK(under1 == 0);
}
