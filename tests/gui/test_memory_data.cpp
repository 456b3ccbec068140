// The Memory view's data: each level's figures from the machine description, and the traffic
// through it from the model's prediction, with the share of the level's bandwidth it uses.
#include <catch2/catch.hpp>

#include "engine/model/timing.hpp"
#include "gui/core/app_state.hpp"
#include "gui/core/memory_data.hpp"
#include "gui/core/picture.hpp"
#include "tests/support/xml_check.hpp"

#include <fmt/format.h>

using namespace gs;
using namespace gs::gui;
namespace timing = gs::model::timing;

namespace {

const MemoryLevel& level(const MemoryColumn& c, const std::string& name) {
  for (const MemoryLevel& l : c.levels)
    if (l.name == name) return l;
  FAIL("no level " << name);
  return c.levels.front();
}

}  // namespace

TEST_CASE("memory: the traffic at each level is the prediction's", "[gui][memory]") {
  AppState app;
  app.open_now({.kernel_id = "hopper_tile_128", .shape = {1024, 1024, 512}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const MemoryData d = memory_data(app);
  REQUIRE(d.available);
  const timing::Prediction& p = app.kernel->report.result.stats.prediction;
  const timing::MachineDesc& m = *app.kernel->report.result.stats.predicted_on->desc;
  CHECK(d.open.levels.size() == 5);
  const MemoryLevel& l2 = level(d.open, "L2");
  REQUIRE(l2.traffic.size() == 1);
  CHECK(l2.traffic[0].amount == p.parts.l2_bytes_per_wave);
  CHECK(l2.traffic[0].cycles == p.parts.l2);
  CHECK(l2.capacity_bytes == m.l2_bytes.value);
  CHECK(l2.latency_cycles == m.l2_latency.value);
  const MemoryLevel& hbm = level(d.open, "HBM");
  REQUIRE(hbm.traffic.size() == 2);
  CHECK(hbm.traffic[0].amount == p.parts.hbm_bytes_per_wave);
  CHECK(hbm.traffic[1].amount == p.parts.store_bytes_per_wave);
  CHECK(hbm.traffic[1].cycles == p.parts.stores);
  CHECK(level(d.open, "shared memory / L1").traffic[0].cycles == p.parts.l1_data());
  CHECK(level(d.open, "shared memory / L1").traffic.size() == 1);  // no cp.async: no tag stage
  // Each share is the part's cycles over the wave's; the bound's, if a memory part, is the largest.
  REQUIRE(p.cycles_per_wave > 0);
  for (const MemoryLevel& l : d.open.levels)
    for (const MemoryTraffic& t : l.traffic) {
      INFO(t.part);
      CHECK(t.share == Approx(t.cycles / p.cycles_per_wave));
      CHECK(t.share <= 1.0 + 1e-9);
      CHECK(t.bound == (t.part == p.parts.bound));
      if (t.bound) CHECK(t.share == Approx(1.0));
    }
  // Bytes a second at the predicted speed: bytes a wave over the wave's seconds.
  CHECK(l2.traffic[0].gbs == Approx(p.parts.l2_bytes_per_wave / (p.cycles_per_wave / p.clock_hz) / 1e9));
  CHECK(d.open.tflops == p.tflops);
}

TEST_CASE("memory: the card's own levels (an H200's L2 and HBM are not an H100's)", "[gui][memory]") {
  AppState h100, h200;
  h100.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true, .machine = &timing::kH100});
  h200.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true, .machine = &timing::kH200});
  REQUIRE(h100.kernel);
  REQUIRE(h200.kernel);
  const MemoryData a = memory_data(h100), b = memory_data(h200);
  CHECK(a.open.card == "H100");
  CHECK(b.open.card == "H200");
  CHECK(level(a.open, "L2").capacity_bytes == timing::kH100Desc.l2_bytes.value);
  CHECK(level(b.open, "L2").capacity_bytes == timing::kH200Desc.l2_bytes.value);
  CHECK(level(b.open, "HBM").capacity_bytes == 141e9);
}

TEST_CASE("memory: the step before stands beside the open one once the model predicted it", "[gui][memory]") {
  AppState app;
  const kernels::GemmShape shape{512, 512, 256};
  app.open_now({.kernel_id = "hopper_tile_128", .shape = shape, .only_traced_cta = true});
  REQUIRE(app.kernel);
  MemoryData d = memory_data(app);
  CHECK_FALSE(d.before);
  CHECK_THAT(d.before_note, Catch::Matchers::Contains("open step 11 hopper_tma_wgmma_64"));
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .shape = shape, .only_traced_cta = true});
  const double step11_l2 = app.kernel->report.result.stats.prediction.parts.l2_bytes_per_wave;
  app.open_now({.kernel_id = "hopper_tile_128", .shape = shape, .only_traced_cta = true});
  d = memory_data(app);
  REQUIRE(d.before);
  CHECK(d.before->kernel_id == "hopper_tma_wgmma_64");
  CHECK(d.before->step == 11);
  CHECK(d.open.step == 12);
  CHECK(level(*d.before, "L2").traffic[0].amount == step11_l2);
  // A different shape of the step before does not count.
  app.open_now({.kernel_id = "hopper_tile_128", .shape = {1024, 512, 256}, .only_traced_cta = true});
  CHECK_FALSE(memory_data(app).before);
}

TEST_CASE("memory: the SVG picture is well formed and carries the levels and the traffic, for the H100 and the H200",
          "[gui][memory][picture]") {
  for (const timing::Machine* card : {&timing::kH100, &timing::kH200}) {
    INFO(card->name);
    AppState app;
    app.open_now({.kernel_id = "hopper_tile_128", .shape = {1024, 1024, 512}, .only_traced_cta = true, .machine = card});
    REQUIRE(app.kernel);
    const MemoryData d = memory_data(app);
    REQUIRE(d.available);
    REQUIRE(svg_pictures_of(ViewId::memory).size() == 1);
    const std::string svg = view_svg(app, ViewId::memory, 0);
    std::vector<const gs::test::XmlElement*> levels, traffic;
    const std::vector<gs::test::XmlElement> doc = gs::test::parse_xml(svg);
    for (const gs::test::XmlElement& e : doc)
      if (e.name == "rect" && e.attr("class") == "level") levels.push_back(&e);
      else if (e.name == "rect" && e.attr("class") == "traffic") traffic.push_back(&e);
    // One column: no step before was opened at this shape.
    REQUIRE(!d.before);
    REQUIRE(levels.size() == d.open.levels.size());
    size_t t = 0;
    for (size_t i = 0; i < levels.size(); ++i) {
      const MemoryLevel& l = d.open.levels[i];
      CHECK(levels[i]->attr("data-name") == l.name);
      CHECK(std::stod(levels[i]->attr("data-capacity")) == Approx(l.capacity_bytes).margin(1));
      CHECK(std::stod(levels[i]->attr("data-latency")) == Approx(l.latency_cycles));
      for (const MemoryTraffic& x : l.traffic) {
        REQUIRE(t < traffic.size());
        CHECK(traffic[t]->attr("data-part") == x.part);
        CHECK(std::stod(traffic[t]->attr("data-amount")) == Approx(x.amount).epsilon(1e-5));
        CHECK(std::stod(traffic[t]->attr("data-share")) == Approx(x.share).epsilon(1e-5));
        CHECK(traffic[t]->attr("data-bound") == (x.bound ? "1" : "0"));
        ++t;
      }
    }
    CHECK(t == traffic.size());
    // The figures are the card's: L2's and HBM's capacities from its description.
    CHECK(level(d.open, "L2").capacity_bytes == card->desc->l2_bytes.value);
    CHECK(level(d.open, "HBM").capacity_bytes == card->desc->hbm_gb.value * 1e9);
    CHECK_THAT(svg, Catch::Matchers::Contains(fmt::format("memory hierarchy of the {}", card->name)));
    // Its title says which step and card, and the bound caption is the prediction's.
    CHECK_THAT(svg, Catch::Matchers::Contains("bound by " + d.open.bound));
  }
  // Without a kernel: a clear error, no picture.
  AppState empty;
  CHECK_THROWS_WITH(view_svg(empty, ViewId::memory, 0), Catch::Matchers::Contains("no kernel"));
}

TEST_CASE("memory: a kernel that copies with cp.async shows the L1's tag stage beside its data path", "[gui][memory]") {
  AppState app;
  app.open_now({.kernel_id = "ampere_cp_async", .shape = {512, 512, 256}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const MemoryData d = memory_data(app);
  REQUIRE(d.available);
  const timing::Prediction& p = app.kernel->report.result.stats.prediction;
  REQUIRE(p.parts.l1_tag > 0);
  const MemoryLevel& l1 = level(d.open, "shared memory / L1");
  REQUIRE(l1.traffic.size() == 2);
  CHECK(l1.traffic[0].part == "L1 data path");
  CHECK(l1.traffic[1].part == "L1 tag stage");
  CHECK(l1.traffic[1].cycles == p.parts.l1_tag);
  CHECK(l1.traffic[1].share == Approx(p.parts.l1_tag / p.cycles_per_wave));
}
