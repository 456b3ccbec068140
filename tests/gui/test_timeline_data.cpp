// The timeline view's data: each traced warp's states over modeled time, the TMA engine's
// transfers and the tensor cores' busy stretches, all from the trace.
#include <catch2/catch.hpp>

#include "gui/core/app_state.hpp"
#include "gui/core/timeline_data.hpp"
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
