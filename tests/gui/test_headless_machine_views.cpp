// The machine views (GPU, Memory, Tiling) headless: their --state-json sections and pixels where
// the views say they drew.
#include <catch2/catch.hpp>

#include "gui/core/colors.hpp"
#include "tests/gui/headless.hpp"

using namespace gs::gui::test;

namespace {

std::array<int, 3> at(const Headless& h, float x, float y) { return h.pixel(int(x), int(y)); }
bool same(std::array<int, 3> a, std::array<int, 3> b, int tolerance = 3) {
  for (int i = 0; i < 3; ++i)
    if (std::abs(a[i] - b[i]) > tolerance) return false;
  return true;
}

}  // namespace

TEST_CASE("the machine views draw the card and its memory and the tiling and say what they show", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  const Headless h =
      run_headless("machine", "--kernel simt_warptile --view gpu --view memory --view tiling --size 1280x800");
  INFO(h.output);
  REQUIRE(h.code == 0);
  REQUIRE(!h.state.is_discarded());
  const auto& v = h.state["views"];
  // GPU: the H100's 132 SMs in 8 GPCs; step 07's example shape is 2x2 CTAs, one SM each.
  const auto& gpu = v["gpu"];
  CHECK(gpu["sms"] == 132);
  CHECK(gpu["gpcs"].size() == 8);
  CHECK(gpu["ctas"] == 4);
  CHECK(gpu["occupied_sms"] == 4);
  const auto& drawn = h.state["drawn"];
  REQUIRE(drawn.contains("gpu.traced_sm"));
  REQUIRE(drawn.contains("gpu.sm0"));
  // The traced CTA's SM is filled with its cluster's colour; the last SM of GPC 0 is idle.
  const auto sm = drawn["gpu.traced_sm"].get<std::array<float, 4>>();
  const gs::gui::Rgb want = gs::gui::cta_rgb(gpu["traced_cluster"].get<uint32_t>());
  const auto p = at(h, sm[0] + sm[2] * 0.6f, sm[1] + sm[3] * 0.6f);
  CHECK(same(p, {want[0], want[1], want[2]}));
  // SM 17, the last of GPC 0's three rows of six, holds no CTA: only its outline is drawn.
  const auto sm0 = drawn["gpu.sm0"].get<std::array<float, 4>>();
  CHECK(gpu["sm_ctas"][17] == 0);
  const auto idle = at(h, sm0[0] + sm0[2] * 5.5f, sm0[1] + sm0[3] * 2.5f);
  CHECK_FALSE(same(idle, p, 20));

  // Memory: the open step's levels with its prediction's traffic; the L2 bar is filled to its share.
  const auto& mem = v["memory"];
  REQUIRE(mem["available"] == true);
  CHECK(mem["open"]["levels"].size() == 5);
  CHECK(mem["open"]["kernel"] == "simt_warptile");
  double share = -1;
  for (const auto& l : mem["open"]["levels"])
    if (l["name"] == "L2") share = l["traffic"][0]["share"];
  REQUIRE(share > 0.0);
  REQUIRE(drawn.contains("memory.open.L2"));
  const auto bar = drawn["memory.open.L2"].get<std::array<float, 4>>();
  if (share > 0.1 && share < 0.9) {
    const auto filled = at(h, bar[0] + bar[2] * float(share) * 0.5f, bar[1] + 2);
    const auto empty = at(h, bar[0] + bar[2] * float(share + 1.0) * 0.5f, bar[1] + 2);
    CHECK_FALSE(same(filled, empty, 20));
  }

  // Tiling: the 128x128 tile of step 07, its chunk of K lit, the warp tiles in their colours.
  const auto& t = v["tiling"];
  CHECK(t["cta_tile"] == std::vector<int>{128, 128});
  CHECK(t["warps"].size() == 4);
  REQUIRE(drawn.contains("tiling.cta_tile"));
  REQUIRE(drawn.contains("tiling.tile"));
  const auto tile = drawn["tiling.tile"].get<std::array<float, 4>>();  // first cell: x, y, w, h
  // Warps 0 and 3 hold opposite corners of the tile: different colours; two cells of warp 0 alike.
  const auto w0a = at(h, tile[0] + tile[2] * 10.5f, tile[1] + tile[3] * 20.5f);
  const auto w0b = at(h, tile[0] + tile[2] * 30.5f, tile[1] + tile[3] * 50.5f);
  const auto w3 = at(h, tile[0] + tile[2] * 100.5f, tile[1] + tile[3] * 100.5f);
  CHECK_FALSE(same(w0a, w3, 20));
  CHECK(same(w0a, w0b));
  const auto cta = drawn["tiling.cta_tile"].get<std::array<float, 4>>();
  const auto y = at(h, cta[0] + cta[2] * 0.5f, cta[1] + cta[3] * 0.5f);
  CHECK(y[0] > 180);  // the traced tile's amber
  CHECK(y[2] < 120);
}
