// The app for real: `gemmscope gui` rendered under Xvfb (software OpenGL), checked by its
// pixels and by the data behind each view (--state-json). Needs xvfb-run (headless.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/layout/fragments.hpp"
#include "gui/core/session.hpp"
#include "gui/core/settings.hpp"
#include "tests/gui/headless.hpp"

using namespace gs::gui::test;

TEST_CASE("the app renders every view of the Hopper kernel and says what each shows", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  // Step 300 instructions in, then select PTX line 60 (which the test resolves below).
  const Headless h = run_headless("all", "--kernel hopper_tma_wgmma_64 --view all --size 1600x1000 --steps 300");
  INFO(h.output);
  REQUIRE(h.code == 0);
  REQUIRE(h.w == 1600);
  REQUIRE(h.h == 1000);
  REQUIRE(!h.state.is_discarded());
  CHECK(distinct_colours(h) > 200);

  const auto& s = h.state;
  CHECK(s["kernel"] == "hopper_tma_wgmma_64");
  // Every view but those closed at first (the Diff view: Settings::defaults).
  const auto& shown = gs::gui::Settings::defaults().show;
  CHECK(s["shown_views"].size() == size_t(std::count(shown.begin(), shown.end(), true)));
  CHECK(s["shown_views"].size() < size_t(gs::gui::ViewId::count_));
  for (const char* v :
       {"ladder", "ptx", "transport", "timeline", "warps", "smem", "tma", "fragments", "schedule", "throughput",
        "problems", "source", "diff"}) {
    INFO(v);
    CHECK(s["views"].contains(v));
    CHECK_FALSE(s["views"][v].contains("placeholder"));
  }

  // The playback position is an event of the trace, 300 instruction steps in: the instruction
  // under it is the selection, and the PTX view shows that instruction's line.
  auto k = gs::gui::open_kernel({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  const auto& insts = k->trace().of_kind(gs::model::EventKind::warp_inst);
  REQUIRE(insts.size() > 300);
  CHECK(s["position"] == insts[300]);
  const uint32_t inst = k->trace().events[insts[300]].inst;
  CHECK(s["selection"]["inst"] == inst);
  CHECK(s["selection"]["line"] == k->line_of(inst));
}

TEST_CASE("clicking a PTX line selects its instruction and jumps to its next execution", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  auto k = gs::gui::open_kernel({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  // The first wgmma of the K loop.
  uint32_t wgmma = gs::gui::kNone;
  for (uint32_t i = 0; i < k->kernel().insts.size() && wgmma == gs::gui::kNone; ++i)
    if (k->kernel().insts[i].op == gs::ir::Op::wgmma_mma_async) wgmma = i;
  REQUIRE(wgmma != gs::gui::kNone);
  const uint32_t line = k->line_of(wgmma);
  const Headless h = run_headless("ptx", "--kernel hopper_tma_wgmma_64 --view ptx --select-line " + std::to_string(line));
  INFO(h.output);
  REQUIRE(h.code == 0);
  CHECK(h.state["selection"]["inst"] == wgmma);
  CHECK(h.state["selection"]["line"] == line);
  // The cursor sits on the first execution of that wgmma.
  const auto& execs = k->trace().executions_of(wgmma);
  REQUIRE(!execs.empty());
  CHECK(h.state["position"] == execs.front());
  CHECK(distinct_colours(h) > 50);
}

TEST_CASE("the fragment map's pixels show the owning warp of known cells", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  const Headless h = run_headless("fragments", "--kernel hopper_tma_wgmma_64 --view fragments --size 1000x800");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& drawn = h.state["drawn"];
  REQUIRE(drawn.contains("fragments.grid"));
  const auto g = drawn["fragments.grid"].get<std::array<float, 4>>();  // first cell: x, y, w, h
  const auto& samples = h.state["views"]["fragments"]["cells_sample"];
  REQUIRE(samples.size() >= 4);
  // The wgmma m64nNk16 accumulator (PTX ISA, "wgmma D fragment"): row r belongs to warp r/16,
  // lane (r%8)*4 + (c%8)/2.
  for (const auto& c : samples) {
    const int row = c["row"], col = c["col"];
    INFO("cell (" << row << "," << col << ")");
    CHECK(c["warp"] == row / 16);
    CHECK(c["lane"] == (row % 8) * 4 + (col % 8) / 2);
    const int x = int(g[0] + (col + 0.5f) * g[2]), y = int(g[1] + (row + 0.5f) * g[3]);
    REQUIRE(x < h.w);
    REQUIRE(y < h.h);
    const auto p = h.pixel(x, y);
    const auto rgb = c["rgb"].get<std::array<int, 3>>();
    for (int i = 0; i < 3; ++i) CHECK(std::abs(p[i] - rgb[i]) <= 3);
  }
}


TEST_CASE("text drawn as cached runs looks as text drawn glyph by glyph", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  // Every text-heavy view; not the ladder, which shows the measured open time.
  const std::string args =
      "--kernel hopper_tma_wgmma_64 --steps 300 --frames 4 --frame-stats --view ptx --view transport --view warps "
      "--view smem --view tma --view fragments --view problems";
  const Headless runs = run_headless("text-runs", args);
  const Headless glyphs = run_headless("text-glyphs", args + " --no-text-runs");
  INFO(runs.output);
  INFO(glyphs.output);
  // The same picture, pixel for pixel.
  CHECK(differing_above_status_bar(runs, glyphs) == 0);

  // Most glyphs were drawn as runs (theme.cpp keeps them one texel per pixel); with
  // --no-text-runs none were.
  unsigned long glyph_count = 0, merged = 0, run_count = 0;
  const size_t at = runs.output.find("text: ");
  REQUIRE(at != std::string::npos);
  REQUIRE(std::sscanf(runs.output.c_str() + at, "text: %lu glyphs, %lu of them in %lu runs", &glyph_count, &merged,
                      &run_count) == 3);
  CHECK(glyph_count > 1000);
  CHECK(merged > glyph_count * 3 / 4);
  CHECK(run_count > 50);
  CHECK(glyphs.output.find("text: 0 glyphs") != std::string::npos);


  // Nothing moved in the last frame, so damage tracking drew none of it (gui/app/damage.hpp).
  CHECK(runs.output.find("last frame 0 of 400 tiles changed") != std::string::npos);
}

namespace {

// The "damage:" line of --frame-stats: the mean share of the window drawn per frame, in percent.
double drawn_percent(const Headless& h) {
  const size_t at = h.output.find("damage: ");
  double percent = -1.0;
  if (at == std::string::npos || std::sscanf(h.output.c_str() + at, "damage: %lf%%", &percent) != 1) return -1.0;
  return percent;
}

}  // namespace

TEST_CASE("drawing only the tiles that changed gives the picture of drawing everything", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  // The playback steps at every frame, so frames change some tiles and keep the others from
  // frames before; the text-heavy views (not the ladder, which shows the measured open time).
  const std::string args =
      "--kernel hopper_tma_wgmma_64 --steps 300 --steps-per-frame 3 --frames 12 --frame-stats --view ptx "
      "--view transport --view warps --view smem --view tma --view fragments --view problems";
  const Headless tracked = run_headless("damage-on", args);
  const Headless full = run_headless("damage-off", args + " --no-damage");
  INFO(tracked.output);
  INFO(full.output);
  CHECK(differing_above_status_bar(tracked, full) == 0);
  // Both stepped to the same place.
  CHECK(tracked.state["position"] == full.state["position"]);
  CHECK(tracked.state["position"].get<int>() > 0);

  // Most of each frame was kept from the one before; without tracking all of it was drawn.
  const double tracked_percent = drawn_percent(tracked), full_percent = drawn_percent(full);
  CHECK(tracked_percent > 0.0);
  CHECK(tracked_percent < 50.0);
  CHECK(full_percent == Approx(100.0));
}

TEST_CASE("bad options of gemmscope gui are usage errors naming the value", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  Headless h = run_headless("bad-view", "--view nosuchview");
  CHECK(h.code == 2);
  CHECK(h.output.find("nosuchview") != std::string::npos);
  h = run_headless("bad-kernel", "--kernel nosuch");
  CHECK(h.code == 2);
  CHECK(h.output.find("nosuch") != std::string::npos);
  h = run_headless("bad-shape", "--kernel hopper_tma_wgmma_64 --m 100");
  CHECK(h.code == 2);
  CHECK(h.output.find("100") != std::string::npos);
  h = run_headless("bad-steps-per-frame", "--kernel hopper_tma_wgmma_64 --steps-per-frame -3");
  CHECK(h.code == 2);
  CHECK(h.output.find("-3") != std::string::npos);
  h = run_headless("bad-param", "--kernel hopper_two_consumers --param stages=9");
  CHECK(h.code == 2);
  CHECK(h.output.find("stages=9") != std::string::npos);
  // Without --kernel (the settings' kernel: here the ladder's first step) a parameter or mistake
  // it does not take is a usage error too, not a failed open.
  h = run_headless("bad-param-no-kernel", "--param stages=2");
  CHECK(h.code == 2);
  CHECK(h.output.find("unknown build parameter 'stages'") != std::string::npos);
  h = run_headless("bad-mistake-no-kernel", "--break no-such-mistake");
  CHECK(h.code == 2);
  CHECK(h.output.find("no-such-mistake") != std::string::npos);
}

TEST_CASE("without a display, gemmscope gui says how to run it headless and exits 1", "[gui]") {
  const gs::test::ShellRun r = gs::test::run_shell("env -u DISPLAY -u WAYLAND_DISPLAY ASAN_OPTIONS=detect_leaks=1 '" +
                                                   std::string(GEMMSCOPE_CLI_PATH) + "' gui --no-settings --kernel simt_naive");
  const std::string& out = r.output;
  INFO(out);
  CHECK(r.code == 1);
  CHECK(out.find("no display") != std::string::npos);
  CHECK(out.find("xvfb-run") != std::string::npos);
}
