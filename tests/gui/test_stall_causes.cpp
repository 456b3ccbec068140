// The model's stalls by cause (gui/core/stall_causes.hpp) on small real model runs: every warp's
// causes sum to the traced CTA's run, the issues are the warp's own, and the waits each kernel
// is known for show up under their own cause (step 11's one-stage "full" barrier, its
// wgmma.wait_group and its wgmmas held at issue, the SIMT tiling's bar.sync, step 09's cp.async
// waits, a long K loop's fast-forwarded passes).
#include <catch2/catch.hpp>

#include "gui/core/app_state.hpp"
#include "gui/core/stall_causes.hpp"
#include "gui/core/timeline_data.hpp"
#include "tests/gui/gui_fixture.hpp"

using namespace gs;
using namespace gs::gui;

namespace {

// Every warp's causes cover [0, end_cycle) exactly, its issuing cycles are its warp_inst
// events, and the CTA's total is the sum of the warps'.
void check_sums(const model::Trace& t, const StallData& d) {
  REQUIRE(d.warps.size() == t.warps);
  REQUIRE(d.end_cycle == t.end_cycle);
  std::vector<uint64_t> issues(t.warps);
  for (uint32_t e : t.of_kind(model::EventKind::warp_inst)) ++issues[t.events[e].warp];
  uint64_t all = 0;
  for (const WarpStalls& w : d.warps) {
    INFO("warp " << w.label);
    CHECK(w.total() == d.end_cycle);
    CHECK(w.issues == issues[w.warp]);
    CHECK(w.cycles_of(StallKind::issuing) == issues[w.warp]);
    for (const StallCause& c : w.causes) CHECK(c.cycles > 0);
    all += w.total();
  }
  uint64_t total = 0;
  for (const StallCause& c : d.total) total += c.cycles;
  CHECK(total == all);
  CHECK(d.total_of(StallKind::issuing) == t.of_kind(model::EventKind::warp_inst).size());
}

}  // namespace

TEST_CASE("stalls by cause: step 11 waits on its one 'full' barrier and on wgmma.wait_group, and every warp's causes "
          "sum to the run",
          "[gui][timeline][stalls]") {
  const auto& k = gui::test::hopper_kernel();
  const model::Trace& t = k->trace();
  const StallData d = stall_causes(k->report.kernel, t);
  check_sums(t, d);
  for (const WarpStalls& w : d.warps) {
    INFO("warp " << w.label);
    // One stage: every K-block's consumers sleep on the barrier "full" (its declared name).
    const auto full = std::find_if(w.causes.begin(), w.causes.end(),
                                   [](const StallCause& c) { return c.kind == StallKind::mbarrier; });
    REQUIRE(full != w.causes.end());
    CHECK(full->barrier == "full");
    CHECK(full->name() == "mbarrier wait full");
    CHECK(w.cycles_of(StallKind::wgmma_wait) > 0);
    CHECK(w.cycles_of(StallKind::dependency) > 0);
    // Each wgmma after the first of a K block waits at issue for the one before it (probes
    // wgmma_issue_*): those cycles are its own cause, the waits the model recorded, no more.
    uint64_t held = 0;
    for (uint32_t e : t.of_kind(model::EventKind::wgmma_issue_wait))
      if (t.events[e].warp == w.warp) held += t.events[e].a;
    CHECK(held > 0);
    CHECK(w.cycles_of(StallKind::wgmma_issue) == held);
    CHECK(w.cycles_of(StallKind::fast_forwarded) == 0);  // 4 K-blocks: nothing skipped
  }
  // The barrier sleeps are the Timeline's "waiting on an mbarrier" states, plus each wait's wake-up
  // latency before the try_wait issues again: never less, and not much more.
  const TimelineData td = timeline_data(*k);
  for (size_t w = 0; w < d.warps.size(); ++w) {
    uint64_t waiting = 0;
    for (const TimelineSegment& s : td.rows[w].segments)
      if (s.activity == WarpActivity::waiting_mbarrier) waiting += s.end - s.begin;
    const uint64_t stalled = d.warps[w].cycles_of(StallKind::mbarrier);
    CHECK(stalled >= waiting);
    CHECK(stalled <= waiting + 200);
  }
  const nlohmann::json j = stall_causes_json(d);
  REQUIRE(j["warps"].size() == t.warps);
  CHECK(j["end_cycle"] == t.end_cycle);
  double share = 0;
  for (const auto& c : j["warps"][0]["causes"]) share += c["share"].get<double>();
  CHECK(share == Approx(1.0));
  bool named = false;
  for (const auto& c : j["total"]) named = named || (c["kind"] == "mbarrier" && c["barrier"] == "full");
  CHECK(named);
}

TEST_CASE("stalls by cause: bar.sync in the SIMT tiling, cp.async waits in step 09", "[gui][timeline][stalls]") {
  SECTION("simt_smem_tiling") {
    const auto k = open_kernel({.kernel_id = "simt_smem_tiling", .shape = {64, 64, 128}, .only_traced_cta = true});
    const StallData d = stall_causes(k->report.kernel, k->trace());
    check_sums(k->trace(), d);
    CHECK(d.total_of(StallKind::bar_sync) > 0);
    CHECK(d.total_of(StallKind::mbarrier) == 0);
    CHECK(d.total_of(StallKind::finished) > 0);  // warps that exit before the last one
  }
  SECTION("ampere_cp_async") {
    const auto k = open_kernel({.kernel_id = "ampere_cp_async", .shape = {128, 128, 128}, .only_traced_cta = true});
    const StallData d = stall_causes(k->report.kernel, k->trace());
    check_sums(k->trace(), d);
    CHECK(d.total_of(StallKind::cp_async_wait) > 0);
  }
}

TEST_CASE("stalls by cause: passes fast-forward skipped are their own cause, not a wait", "[gui][timeline][stalls]") {
  const auto k = open_kernel(
      {.kernel_id = "hopper_producer_consumer", .shape = {128, 128, 8192}, .only_traced_cta = true});
  const model::Trace& t = k->trace();
  REQUIRE_FALSE(t.fast_forwards.empty());
  const StallData d = stall_causes(k->report.kernel, t);
  check_sums(t, d);
  for (const model::FastForward& f : t.fast_forwards) {
    INFO("warp " << f.warp);
    CHECK(d.warps[f.warp].cycles_of(StallKind::fast_forwarded) >= f.cycles);
  }
  // The producer's empty ring slots and the consumers' full ones: both barrier arrays show.
  bool full = false, empty = false;
  for (const StallCause& c : d.total) {
    full = full || c.barrier.rfind("full[", 0) == 0;
    empty = empty || c.barrier.rfind("empty[", 0) == 0;
  }
  CHECK(full);
  CHECK(empty);
}

#include "gui/core/colors.hpp"
#include "tests/gui/headless.hpp"

TEST_CASE("stalls by cause: each warp's bar is drawn right of its lane at 1280x800, in the lanes' colours",
          "[gui][xvfb][timeline][stalls]") {
  using namespace gs::gui::test;
  if (!xvfb_or_skip()) return;
  const Headless h = run_headless("timeline_stalls", "--kernel hopper_tma_wgmma_64 --view timeline --size 1280x800 --theme dark");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& st = h.state["views"]["timeline"]["stalls"];
  REQUIRE(st["warps"].size() >= 4);
  REQUIRE(h.state["drawn"].contains("timeline.stalls"));
  const auto g = h.state["drawn"]["timeline.stalls"].get<std::array<float, 4>>();  // x, y of row 0, width, row height
  REQUIRE(g[0] + g[2] <= float(h.w));
  size_t checked = 0;
  for (size_t w = 0; w < st["warps"].size(); ++w) {
    const auto& causes = st["warps"][w]["causes"];
    const int y = int(g[1] + g[3] * (float(w) + 0.5f));
    double at = 0;
    for (const auto& c : causes) {
      const double share = c["share"].get<double>();
      const float x0 = g[0] + g[2] * float(at), x1 = g[0] + g[2] * float(at + share);
      at += share;
      if (x1 - x0 < 6) continue;
      const int x = int((x0 + x1) / 2);
      Rgb want{};
      if (c["kind"] == "mbarrier") want = warn_rgb(true);
      else if (c["kind"] == "issuing") want = ok_rgb(true);
      else continue;
      INFO("warp " << w << " " << c["name"] << " at " << x << "," << y);
      const auto px = h.pixel(x, y);
      for (int ch = 0; ch < 3; ++ch) CHECK(std::abs(px[ch] - int(want[ch])) <= 3);
      ++checked;
    }
  }
  CHECK(checked >= 4);  // every warp's barrier wait at least
}
