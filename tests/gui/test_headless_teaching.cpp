// The teaching flow as a learner first sees it (issue #33): a step opened at 1280x800 in the
// focus layout shows its lesson, the speed ladder with real figures at 4096³ and the views its
// lesson needs, and says that the traced shape fills a few SMs.
#include <fstream>

#include "gui/core/colors.hpp"
#include "kernels/registry.hpp"
#include "tests/gui/headless.hpp"

using namespace gs::gui::test;

namespace {

// The figure of `kernel` at 4096³ in a shipped reference run, read here without the importer.
double shipped_tflops(const std::string& file, const std::string& kernel) {
  std::ifstream f(std::string(GEMMSCOPE_SOURCE_DIR) + "/assets/reference/" + file);
  const nlohmann::json j = nlohmann::json::parse(f);
  for (const auto& r : j["results"])
    if (r["kernel"] == kernel && r["shape"]["m"] == 4096 && r["shape"]["n"] == 4096 && r["shape"]["k"] == 4096)
      return r["tflops"]["median"].get<double>();
  return 0.0;
}

}  // namespace

TEST_CASE("teaching: a step opens in its focus layout with its lesson and the speed ladder", "[gui][xvfb][teach]") {
  if (!xvfb_or_skip()) return;
  const Headless h = run_headless("teach", "--kernel hopper_producer_consumer --size 1280x800 --theme dark");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& s = h.state;

  // The focus layout: the lesson, the ladder and step 13's focus views in windows, the rest tabs.
  const auto& layout = s["layout"];
  CHECK(layout["focus"] == true);
  CHECK(layout["focus_views"] == nlohmann::json({"tma", "timeline", "warps"}));
  for (const char* v : {"lesson", "ladder", "tma", "timeline", "warps"}) {
    INFO(v);
    CHECK(layout["views"].contains(v));
  }
  CHECK_FALSE(layout["views"].contains("ptx"));
  const auto& tabs = layout["tabs"];
  CHECK(std::find(tabs.begin(), tabs.end(), "ptx") != tabs.end());
  CHECK(layout["not_used"].contains("tmem"));
  REQUIRE(layout["more"].is_array());
  // The lesson's window is the widest of the right part, and its text is read without scrolling.
  CHECK(layout["views"]["lesson"][2].get<double>() > 0.6 * 1280);
  REQUIRE(s["fits"].contains("lesson.height"));
  CHECK(s["fits"]["lesson.height"]["needed"].get<double>() <= s["fits"]["lesson.height"]["available"].get<double>());

  // The lesson is the step's own header.
  const auto& lesson = s["views"]["lesson"];
  CHECK_THAT(lesson["title"].get<std::string>(), Catch::StartsWith("Hopper: a producer warpgroup"));
  REQUIRE(lesson["sections"].size() >= 2);
  CHECK(lesson["sections"][0]["heading"] == "What it teaches");
  CHECK(lesson["mistakes"].size() == 3);

  // The speed ladder: every step, the model's figures at 4096³ and the shipped H100 run (the
  // card a Hopper step is predicted on here).
  const auto& speed = s["views"]["ladder"]["speed"];
  CHECK(speed["reference_card"] == "H100");
  REQUIRE(speed["rows"].size() == gs::kernels::ladder_steps().size());
  const auto row = [&](const std::string& id) {
    for (const auto& r : speed["rows"])
      if (r["kernel"] == id) return r;
    return nlohmann::json();
  };
  const auto two = row("hopper_two_consumers");
  CHECK(two["measured"]["tflops"].get<double>() ==
        Approx(shipped_tflops("h100-2026-12-07-ladder.json", "hopper_two_consumers")));
  CHECK(two["measured"]["source"] == "H100, 2026-12-07, shipped");
  CHECK(two["measured"]["sustained_ms"] == 0.0);
  CHECK(two["measured"]["method"].get<std::string>().rfind("short runs", 0) == 0);
  CHECK(two["vs_previous"].get<double>() ==
        Approx(shipped_tflops("h100-2026-12-07-ladder.json", "hopper_two_consumers") /
               shipped_tflops("h100-2026-12-07-ladder.json", "hopper_producer_consumer")));
  const auto own = row("hopper_producer_consumer");
  CHECK(own["selected"] == true);
  REQUIRE(own["predicted"].is_object());
  CHECK(own["predicted"]["machine"] == "H100");
  // At 4096³ the model predicts hundreds of TFLOP/s, not the few of 4 CTAs.
  CHECK(own["predicted"]["tflops"].get<double>() > 100.0);
  CHECK(row("blackwell_2sm")["predicted"]["machine"] == "B200");
  CHECK(row("blackwell_2sm")["measured"].contains("none"));

  // The example shape's 4 CTAs on 132 SMs, said in the ladder and the throughput view.
  const std::string fill = "4 CTAs on 132 SMs: 3% of the GPU; speed shown at 4096³";
  CHECK(speed["gpu_fill"] == fill);
  CHECK(s["views"]["throughput"]["gpu_fill"] == fill);

  // Pixels: the sentence is drawn in the warning amber where the ladder says it drew it.
  REQUIRE(s["drawn"].contains("ladder.fill"));
  const auto r = s["drawn"]["ladder.fill"].get<std::array<float, 4>>();
  const gs::gui::Rgb amber = gs::gui::warn_rgb(true);
  int amber_pixels = 0;
  for (int y = int(r[1]); y < int(r[1] + r[3]) && y < h.h; ++y)
    for (int x = int(r[0]); x < int(r[0] + r[2]) && x < h.w; ++x) {
      const auto p = h.pixel(x, y);
      if (std::abs(p[0] - int(amber[0])) <= 12 && std::abs(p[1] - int(amber[1])) <= 12 &&
          std::abs(p[2] - int(amber[2])) <= 12)
        ++amber_pixels;
    }
  CHECK(amber_pixels > 40);
  // And the lesson's window has text in it: many pixels far from its background.
  const auto lw = layout["views"]["lesson"].get<std::array<float, 4>>();
  const auto bg = h.pixel(int(lw[0] + lw[2]) - 4, int(lw[1] + lw[3]) - 4);
  int text_pixels = 0;
  for (int y = int(lw[1]) + 30; y < int(lw[1] + lw[3]) - 8; y += 2)
    for (int x = int(lw[0]) + 8; x < int(lw[0] + lw[2]) - 8; x += 2) {
      const auto p = h.pixel(x, y);
      if (std::abs(p[0] - bg[0]) + std::abs(p[1] - bg[1]) + std::abs(p[2] - bg[2]) > 150) ++text_pixels;
    }
  CHECK(text_pixels > 2000);
}

TEST_CASE("teaching: a shape that fills the GPU says nothing about idle SMs", "[gui][xvfb][teach]") {
  if (!xvfb_or_skip()) return;
  const Headless h =
      run_headless("teach-big", "--kernel hopper_producer_consumer --m 2048 --n 2048 --k 256 --size 1280x800");
  INFO(h.output);
  REQUIRE(h.code == 0);
  CHECK(h.state["views"]["ladder"]["speed"]["gpu_fill"] == "");
  CHECK_FALSE(h.state["drawn"].contains("ladder.fill"));
}

TEST_CASE("teaching: --view all is every view in a window of its own", "[gui][xvfb][teach]") {
  if (!xvfb_or_skip()) return;
  const Headless h = run_headless("teach-all", "--kernel simt_coalesced --view all --size 1600x1000");
  INFO(h.output);
  REQUIRE(h.code == 0);
  CHECK(h.state["layout"]["focus"] == false);
  CHECK(h.state["layout"]["tabs"].empty());
  CHECK(h.state["layout"]["views"].contains("ptx"));
  CHECK(h.state["layout"]["views"].contains("lesson"));
}
