// The Sweep view headless: `gui --sweep-param` runs a small sweep on the model before the first
// frame; the state JSON holds its cells and the screenshot its heat map: cells whose predictions
// differ in different colours of the scale, the cell that cannot be built not in any, and the
// fastest outlined. Bad --sweep-param values are refused before a window opens.
#include <catch2/catch.hpp>

#include <fstream>

#include "gui/core/colors.hpp"
#include "tests/gui/headless.hpp"
#include "tests/support/cli_run.hpp"
#include "tests/support/scratch.hpp"

using namespace gs::gui::test;

namespace {

bool close_to(std::array<int, 3> p, const gs::gui::Rgb& want, int tolerance) {
  for (int i = 0; i < 3; ++i)
    if (std::abs(p[i] - int(want[i])) > tolerance) return false;
  return true;
}

int colour_distance(std::array<int, 3> a, std::array<int, 3> b) {
  return std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]);
}

}  // namespace

TEST_CASE("the Sweep view draws a finished two-parameter sweep as a heat map with the fastest outlined",
          "[gui][xvfb][sweep]") {
  if (!xvfb_or_skip()) return;
  const Headless h = run_headless("sweep", "--kernel simt_blocktile_2d --view sweep --sweep-param bm=32,64,128 "
                                           "--sweep-param bn=32,64 --sweep-size 256 --size 1280x800",
                                  "1280x800");
  INFO(h.output);
  REQUIRE(h.code == 0);
  REQUIRE(!h.state.is_discarded());
  const auto& sweep = h.state["views"]["sweep"];
  CHECK(sweep["choice"]["axes"] == std::vector<std::string>{"bm", "bn"});
  const auto& run = sweep["run"];
  CHECK(run["done"] == 6);
  CHECK(run["total"] == 6);
  CHECK(run["running"] == false);
  CHECK(run["rows"] == 3);
  REQUIRE(run["cols"] == 2);
  REQUIRE(run["cells"].size() == 6);
  CHECK(run["cells"][0]["state"] == "invalid");
  CHECK_THAT(run["cells"][0]["reason"].get<std::string>(), Catch::Contains("16 threads"));
  REQUIRE(run["best"].is_number());
  const size_t best = run["best"];

  const auto& drawn = h.state["drawn"];
  REQUIRE(drawn.contains("sweep.predicted.grid"));
  REQUIRE(drawn.contains("sweep.predicted.best"));
  const auto grid = drawn["sweep.predicted.grid"].get<std::array<float, 4>>();  // first cell: x, y, w, h
  const float s = h.state["window"]["scale"].get<float>();
  const bool dark = true;  // --no-settings: the default theme
  // A cell's fill, inside its left edge (past the fastest's outline) at mid height, clear of its
  // centred text.
  const auto fill = [&](size_t i) {
    const size_t r = i / 2, c = i % 2;
    return h.pixel(int(grid[0] + float(c) * grid[2] + 6.5f * s), int(grid[1] + (float(r) + 0.5f) * grid[3]));
  };
  double shade_lo = 2, shade_hi = -1;
  size_t lo = 0, hi = 0;
  for (size_t i = 2; i < 6; ++i) {  // bm=64 and 128: built
    const double shade = run["cells"][i]["shade"];
    INFO("cell " << i << " shade " << shade);
    CHECK(close_to(fill(i), gs::gui::heat_rgb(shade), 6));  // the scale's colour for its figure
    if (shade < shade_lo) shade_lo = shade, lo = i;
    if (shade > shade_hi) shade_hi = shade, hi = i;
  }
  // The slowest and the fastest cell are drawn in clearly different colours.
  REQUIRE(shade_hi - shade_lo > 0.5);
  CHECK(hi == best);
  CHECK(colour_distance(fill(lo), fill(hi)) > 60);
  // The cell that cannot be built is in none of the scale's colours: dim.
  const auto invalid = fill(0);
  CHECK(std::max({invalid[0], invalid[1], invalid[2]}) < 120);
  // The fastest cell's outline.
  const auto b = drawn["sweep.predicted.best"].get<std::array<float, 4>>();
  CHECK(b[0] == Approx(grid[0] + float(best % 2) * grid[2]));
  CHECK(close_to(h.pixel(int(b[0] + 2.5f * s), int(b[1] + b[3] * 0.5f)), gs::gui::best_rgb(dark), 6));
  // Progress: the bar is full.
  REQUIRE(drawn.contains("sweep.progress"));
  CHECK_THAT(sweep["run"]["summary"].get<std::string>(), Catch::Contains("6 of 6 points"));
  CHECK(h.state["fits"]["sweep.map_width"]["needed"].get<double>() <=
        h.state["fits"]["sweep.map_width"]["available"].get<double>());
}

TEST_CASE("the Sweep view draws one parameter as a line", "[gui][xvfb][sweep]") {
  if (!xvfb_or_skip()) return;
  const Headless line = run_headless("sweep-line", "--kernel simt_blocktile_2d --view sweep --sweep-param bk=8,16 "
                                                   "--sweep-size 256 --size 1280x800",
                                     "1280x800");
  INFO(line.output);
  REQUIRE(line.code == 0);
  const auto& run = line.state["views"]["sweep"]["run"];
  CHECK(run["rows"] == 1);
  CHECK(run["cols"] == 2);
  CHECK(run["done"] == 2);
  REQUIRE(line.state["drawn"].contains("sweep.plot"));
  CHECK_FALSE(line.state["drawn"].contains("sweep.predicted.grid"));
}

TEST_CASE("gui --sweep-param: a value, parameter or count the view cannot sweep exits 2 naming it, before a window "
          "opens",
          "[gui][sweep]") {
  const gs::test::ScratchDir dir;
  struct Bad {
    std::vector<std::string> args;
    const char* names;
  };
  for (const Bad& bad : {Bad{{"--kernel", "simt_blocktile_2d", "--sweep-param", "bm=33"}, "33"},
                         Bad{{"--kernel", "simt_blocktile_2d", "--sweep-param", "nope=1,2"}, "nope"},
                         Bad{{"--kernel", "simt_naive", "--sweep-param", "bm=32"}, "no build parameters"},
                         Bad{{"--kernel", "simt_blocktile_2d", "--sweep-param", "bm=32", "--sweep-param", "bn=32",
                              "--sweep-param", "bk=8"},
                             "at most 2"},
                         Bad{{"--kernel", "simt_blocktile_2d", "--sweep-param", "bm="}, "bm="},
                         Bad{{"--kernel", "simt_blocktile_2d", "--sweep-size", "0"}, "not a problem size"}}) {
    std::vector<std::string> args = {"gui", "--no-settings"};
    args.insert(args.end(), bad.args.begin(), bad.args.end());
    const std::string state = dir.path("state.json");
    args.insert(args.end(), {"--state-json", state});
    const gs::test::CliRun r = gs::test::run_cli(args);
    INFO(bad.names << "\n" << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(bad.names));
    CHECK_FALSE(std::filesystem::exists(state));  // nothing ran
  }
}

TEST_CASE("the Sweep view shows a sweep measured on a GPU elsewhere: both heat maps, the measured one's fastest outlined",
          "[gui][xvfb][sweep]") {
  if (!xvfb_or_skip()) return;
  const std::string file = std::string(GEMMSCOPE_SOURCE_DIR) + "/docs/results/2026-12-02-sweep/call1/sweep-step16.json";
  const Headless h = run_headless("sweep-import", "--kernel hopper_fewer_arrivals --view sweep --sweep-import " + file +
                                                      " --sweep-size 8192 --size 1280x800",
                                  "1280x800");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& run = h.state["views"]["sweep"]["run"];
  CHECK(run["measured"] == true);
  CHECK(run["measured_on"] == "NVIDIA H200");
  CHECK(run["shape"] == std::vector<uint32_t>{8192, 8192, 8192});
  CHECK(run["done"] == 9);
  REQUIRE(run["best"].is_number());
  CHECK(run["best"] == run["best_measured"]);
  const auto& drawn = h.state["drawn"];
  REQUIRE(drawn.contains("sweep.predicted.grid"));
  REQUIRE(drawn.contains("sweep.measured.grid"));
  REQUIRE(drawn.contains("sweep.measured.best"));
  const auto pred = drawn["sweep.predicted.grid"].get<std::array<float, 4>>();
  const auto meas = drawn["sweep.measured.grid"].get<std::array<float, 4>>();
  CHECK((meas[0] != pred[0] || meas[1] != pred[1]));  // two maps, not one drawn twice
  const float s = h.state["window"]["scale"].get<float>();
  const size_t best = run["best"];
  const auto b = drawn["sweep.measured.best"].get<std::array<float, 4>>();
  CHECK(b[0] == Approx(meas[0] + float(best % 3) * meas[2]));
  CHECK(close_to(h.pixel(int(b[0] + 2.5f * s), int(b[1] + b[3] * 0.5f)), gs::gui::best_rgb(true), 6));
}

TEST_CASE("gui --sweep-import: a file that is not a sweep's exits 2 naming it", "[gui][sweep]") {
  const gs::test::ScratchDir dir;
  const std::string bad = dir.path("bad.json");
  std::ofstream(bad) << R"({"kernel": "nope", "axes": [], "points": []})";
  const gs::test::CliRun r = gs::test::run_cli({"gui", "--no-settings", "--sweep-import", bad, "--state-json", dir.path("s.json")});
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("nope") && Catch::Contains("--sweep-import"));
  const gs::test::CliRun both = gs::test::run_cli({"gui", "--no-settings", "--sweep-import", bad, "--sweep-param", "stages=2"});
  CHECK(both.code != 0);
  CHECK_THAT(both.err, Catch::Contains("--sweep-import") && Catch::Contains("--sweep-param"));
}
