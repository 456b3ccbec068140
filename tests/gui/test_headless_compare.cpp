// The Compare view for real, under Xvfb: `--compare-with` sets A beside the kernel opened (B), the
// state says what both sides are and what it bought, and both timelines are drawn, A's lanes
// over B's; a variant that is not one is a usage error naming what would be valid.
#include <catch2/catch.hpp>

#include "tests/gui/headless.hpp"
#include "tests/support/shell.hpp"

using namespace gs::gui::test;
using Catch::Matchers::Contains;

namespace {

// The share of a lane's pixels (sampled along its middle) that differ from the window's
// background at the lane's left edge row above the plot (the axis row's gap).
double painted_share(const Headless& h, const std::array<float, 4>& lane) {
  const int y = int(lane[1] + lane[3] / 2);
  const auto bg = h.pixel(int(lane[0]) - 2, int(lane[1] - lane[3] / 2));  // left of the plot in the axis row
  int painted = 0, n = 0;
  for (int x = int(lane[0]) + 1; x < int(lane[0] + lane[2]) - 1; x += 2, ++n) painted += h.pixel(x, y) != bg;
  return n ? double(painted) / n : 0.0;
}

}  // namespace

TEST_CASE("the Compare view sets two steps side by side", "[gui][xvfb][compare]") {
  if (!xvfb_or_skip()) return;
  const Headless h = run_headless(
      "compare", "--kernel hopper_producer_consumer --param stages=4 --compare-with hopper_producer_consumer:stages=2 "
                 "--view compare --size 1280x800",
      "1280x800");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& c = h.state["views"]["compare"];
  CHECK(c["current"] == true);
  CHECK(c["a"] == "hopper_producer_consumer:stages=2");
  CHECK(c["b"] == "hopper_producer_consumer:stages=4");
  CHECK(c["side_a"]["error"] == "");
  CHECK(c["side_b"]["error"] == "");
  CHECK(c["side_a"]["predicted"] == true);
  CHECK(c["side_b"]["predicted"] == true);
  CHECK_THAT(c["bought"].get<std::string>(), Contains("B is predicted"));
  CHECK(c["diff"]["summary"] == "stages 2 -> 4");
  CHECK(c["side_b"]["smem"]["bytes"].get<uint64_t>() > c["side_a"]["smem"]["bytes"].get<uint64_t>());
  // Both sides' lanes are drawn: A's first lane and B's first lane have their states painted.
  const auto& drawn = h.state["drawn"];
  REQUIRE(drawn.contains("compare.lanes"));
  REQUIRE(drawn.contains("compare.lanes_b"));
  const auto a = drawn["compare.lanes"].get<std::array<float, 4>>();
  const auto b = drawn["compare.lanes_b"].get<std::array<float, 4>>();
  CHECK(b[1] > a[1]);
  REQUIRE(b[1] + b[3] < float(h.h));
  CHECK(painted_share(h, a) > 0.3);
  CHECK(painted_share(h, b) > 0.3);
  CHECK(distinct_colours(h) > 50);
}

TEST_CASE("compare: a --compare-with that names no variant is a usage error naming the valid ones", "[gui][xvfb][compare]") {
  if (!xvfb_or_skip()) return;
  const std::string gui = gs::test::shell_quote(GEMMSCOPE_CLI_PATH) + " gui --no-settings --view compare --frames 1 ";
  const gs::test::ShellRun bad_value =
      gs::test::run_shell(gui + "--kernel hopper_producer_consumer --compare-with hopper_producer_consumer:stages=10");
  INFO(bad_value.output);
  CHECK(bad_value.code == 2);
  CHECK_THAT(bad_value.output, Contains("stages=10") && Contains("2, 3, 4, 5, 6, 7, 8, 9"));
  const gs::test::ShellRun bad_id = gs::test::run_shell(gui + "--compare-with simt_nope");
  INFO(bad_id.output);
  CHECK(bad_id.code == 2);
  CHECK_THAT(bad_id.output, Contains("simt_nope") && Contains("simt_naive"));
}
