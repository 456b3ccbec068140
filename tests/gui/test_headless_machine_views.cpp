// The machine views (GPU, Memory, Tiling) headless: their --state-json sections and pixels where
// the views say they drew.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "gui/core/colors.hpp"
#include "tests/gui/headless.hpp"
#include "tests/support/scratch.hpp"
#include "tests/support/xml_check.hpp"

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

namespace {

// Everything `gui --save-picture VIEW=FILE.svg` wrote, parsed (well-formed or the test fails).
std::vector<gs::test::XmlElement> svg_of(const std::string& path) { return gs::test::parse_xml(gs::test::read_file(path)); }

size_t count_class(const std::vector<gs::test::XmlElement>& doc, const std::string& cls) {
  size_t n = 0;
  for (const gs::test::XmlElement& e : doc) n += e.name == "rect" && e.attr("class") == cls;
  return n;
}

}  // namespace

TEST_CASE("the machine views save as SVG and PNG, and step 16's tile orders and a held clock show, at 1280x800 and "
          "2560x1440",
          "[gui][xvfb][picture]") {
  if (!xvfb_or_skip()) return;
  const gs::test::ScratchDir dir;
  // A result of step 16 at its example shape on the H200 whose SMs counted 1367 MHz.
  const std::string bench = dir.write("bench.json", R"({"kernel": "hopper_fewer_arrivals",
      "shape": {"m": 256, "n": 512, "k": 512}, "tflops": {"median": 20.0, "min": 19.0, "max": 21.0},
      "device": "NVIDIA H200", "status": "ok", "sm_clock_counted_mhz": 1367.0})");
  struct Size {
    const char* size;
    const char* screen;
    const char* view;  // the view whose picture is saved
    const char* ext;
  };
  for (const Size& s : {Size{"1280x800", "1280x800", "gpu", "svg"}, Size{"2560x1440", "2560x1440", "memory", "svg"},
                        Size{"1280x800", "1280x800", "memory", "png"}, Size{"2560x1440", "2560x1440", "gpu", "png"}}) {
    INFO(s.size << " " << s.view << "." << s.ext);
    const std::string picture = dir.path(fmt::format("{}-{}.{}", s.view, s.size, s.ext));
    const Headless h = run_headless(fmt::format("machine_{}_{}_{}", s.view, s.size, s.ext),
                                    fmt::format("--kernel hopper_fewer_arrivals --machine h200 --view gpu --view memory "
                                                "--view schedule --view throughput --size {} --import {} "
                                                "--save-picture {}={}",
                                                s.size, bench, s.view, picture),
                                    s.screen);
    INFO(h.output);
    REQUIRE(h.code == 0);
    const auto& v = h.state["views"];
    if (std::string(s.ext) == "svg") {
      const std::vector<gs::test::XmlElement> doc = svg_of(picture);
      if (std::string(s.view) == "gpu") {
        CHECK(count_class(doc, "gpc") == v["gpu"]["gpcs"].size());
        CHECK(count_class(doc, "sm") == v["gpu"]["sms"].get<size_t>());
        CHECK(count_class(doc, "sub") == v["gpu"]["sub_partitions"].size());
      } else {
        CHECK(count_class(doc, "level") == v["memory"]["open"]["levels"].size());
        CHECK(count_class(doc, "traffic") == 4);  // L1 data path, L2, HBM, stores
      }
    } else {
      // The PNG is the view's window cut out of the frame.
      const auto r = h.state["layout"]["views"][s.view].get<std::array<float, 4>>();
      int w = 0, hh = 0, n = 0;
      REQUIRE(stbi_info(picture.c_str(), &w, &hh, &n));
      CHECK(w == int(std::lround(r[2])));
      CHECK(hh == int(std::lround(r[3])));
    }
    // Step 16's tile orders, its grouped order marked; at its example shape they tie, and the note says why.
    const auto& orders = v["schedule"]["tile_orders"];
    REQUIRE(orders.size() == 3);
    CHECK(orders[1]["open"] == true);
    CHECK(orders[0]["hbm_bytes"] == orders[1]["hbm_bytes"]);
    CHECK_THAT(v["schedule"]["tile_orders_note"].get<std::string>(), Catch::Matchers::Contains("in flight at once"));
    // The table is drawn, inside the window: the schedule's orders take pixels that are not the background.
    REQUIRE(h.state["drawn"].contains("schedule.orders"));
    const auto t = h.state["drawn"]["schedule.orders"].get<std::array<float, 4>>();
    CHECK(t[2] > 0);
    CHECK(t[3] > 0);
    CHECK(t[0] + t[2] <= h.w);
    CHECK(t[1] + t[3] <= h.h);
    std::set<std::array<int, 3>> colours;  // its text and rows, not an empty patch
    for (int y = int(t[1]); y < int(t[1] + t[3]); y += 2)
      for (int x = int(t[0]); x < int(t[0] + t[2]); x += 3) colours.insert(h.pixel(x, y));
    CHECK(colours.size() > 3);
    // The held clock of the imported run: the tensor ceiling at 1.37 GHz, in the caption.
    const auto& held = v["throughput"]["held_ceiling"];
    REQUIRE(held.is_object());
    CHECK(held["clock_mhz"].get<double>() == 1367.0);
    CHECK_THAT(v["throughput"]["caption"].get<std::string>(), Catch::Matchers::Contains("held 1.37 GHz: 739"));
  }
}

TEST_CASE("the Throughput view draws the card's SM clock and power under the TFLOP/s, ours and cuBLAS's, at 1280x800 "
          "and 2560x1440",
          "[gui][xvfb][throughput][clock]") {
  if (!xvfb_or_skip()) return;
  const gs::test::ScratchDir dir;
  // A result of step 16 on the H200: its SMs counted 1367 MHz at 612 W; cuBLAS alone drew 655 W
  // and left the SMs at 1512 MHz.
  const std::string bench = dir.write("bench.json", R"({"kernel": "hopper_fewer_arrivals",
      "shape": {"m": 4096, "n": 4096, "k": 4096}, "tflops": {"median": 640.0, "min": 630.0, "max": 650.0},
      "device": "NVIDIA H200", "status": "ok", "sm_clock_counted_mhz": 1367.0,
      "conditions": {"power_w": {"median": 612.0, "max": 615.0}, "temperature_c_max": 61},
      "cublas_conditions": {"power_w": {"median": 655.0, "max": 660.0}}, "cublas_clock_set_mhz": 1512.0,
      "sustained_ms": 2004.6})");
  for (const char* size : {"1280x800", "2560x1440"}) {
    INFO(size);
    const Headless h = run_headless(fmt::format("throughput_card_{}", size),
                                    fmt::format("--kernel hopper_fewer_arrivals --machine h200 --view throughput "
                                                "--size {} --import {}",
                                                size, bench),
                                    size);
    INFO(h.output);
    REQUIRE(h.code == 0);
    // The data: the imported point with both sides' clock and power.
    const nlohmann::json* run = nullptr;
    for (const auto& v : h.state["views"]["throughput"]["variants"])
      if (v["source"] == "imported") run = &v;
    REQUIRE(run != nullptr);
    const auto& p = (*run)["points"][0];
    CHECK(p["clock_mhz"].get<double>() == 1367.0);
    CHECK(p["power_w"].get<double>() == 612.0);
    CHECK(p["cublas_clock_set_mhz"].get<double>() == 1512.0);
    CHECK(p["cublas_power_w"].get<double>() == 655.0);
    CHECK((*run)["cublas_power_w"].get<double>() == 655.0);
    CHECK((*run)["sustained_ms"].get<double>() == 2004.6);  // timed under the power limit (bench --sustain)
    // The pixels: each strip under the TFLOP/s plot holds the run's level in its colour.
    const auto rgb = gs::gui::series_rgb(uint32_t((*run)["color_slot"].get<int>()), true);
    for (const char* strip : {"throughput.clock", "throughput.power"}) {
      INFO(strip);
      REQUIRE(h.state["drawn"].contains(strip));
      const auto r = h.state["drawn"][strip].get<std::array<float, 4>>();
      CHECK(r[3] > 40.0f);  // room for a level between its ticks
      CHECK(r[0] + r[2] <= h.w + 1);
      CHECK(r[1] + r[3] <= h.h + 1);
      int hits = 0;
      for (int y = int(r[1]); y < int(r[1] + r[3]); ++y)
        for (int x = int(r[0]); x < int(r[0] + r[2]); x += 2)
          hits += same(h.pixel(x, y), {int(rgb[0]), int(rgb[1]), int(rgb[2])}, 40);
      CHECK(hits > 20);
    }
  }
}
