// The GPU view's data: the card's anatomy from its machine description, the wave's CTAs on
// its SMs, the cluster pairs, and the sub-partition each traced warp issues on.
#include <catch2/catch.hpp>

#include <map>
#include <numeric>

#include "engine/model/timing.hpp"
#include "gui/core/app_state.hpp"
#include "gui/core/gpu_data.hpp"
#include "gui/core/colors.hpp"
#include "gui/core/drawing.hpp"
#include "gui/core/picture.hpp"
#include "tests/support/xml_check.hpp"

using namespace gs;
using namespace gs::gui;
namespace timing = gs::model::timing;

namespace {

uint32_t sum(const std::vector<uint32_t>& v) { return std::accumulate(v.begin(), v.end(), 0u); }

}  // namespace

TEST_CASE("gpu: SMs and GPCs are the machine description's, for each card", "[gui][gpu_view]") {
  struct Case {
    const char* kernel;
    const timing::Machine* card;
  };
  for (const Case& c : {Case{"simt_naive", &timing::kH100}, Case{"simt_naive", &timing::kH200},
                        Case{"blackwell_tcgen05_basic", &timing::kB200}}) {
    INFO(c.card->name);
    auto k = open_kernel({.kernel_id = c.kernel, .only_traced_cta = true, .machine = c.card});
    const GpuData& d = gpu_data(k);
    REQUIRE(d.available);
    CHECK(d.card == c.card->name);
    CHECK(d.sms == uint32_t(c.card->desc->sms.value));
    CHECK(d.gpcs == uint32_t(c.card->desc->gpcs.value));
    REQUIRE(d.gpc.size() == d.gpcs);
    uint32_t sms = 0;
    for (const GpuGpc& g : d.gpc) {
      CHECK(g.first_sm == sms);
      CHECK(g.sms % 2 == 0);  // whole TPCs
      sms += g.sms;
    }
    CHECK(sms == d.sms);
    CHECK(d.confirmed == c.card->confirmed);
    CHECK(d.l2_bytes == uint64_t(c.card->desc->l2_bytes.value));
    CHECK(d.hbm_gb == c.card->desc->hbm_gb.value);
    REQUIRE(d.sub.size() == 4);
    CHECK(d.sub[0].registers * 4 == uint32_t(c.card->desc->registers_per_sm.value));
  }
  // The H100 SXM: 132 SMs in 8 GPCs; the B200 is marked as NVIDIA's figures.
  auto h100 = open_kernel({.kernel_id = "simt_naive", .only_traced_cta = true, .machine = &timing::kH100});
  CHECK(gpu_data(h100).sms == 132);
  CHECK(gpu_data(h100).gpcs == 8);
  auto b200 = open_kernel({.kernel_id = "blackwell_tcgen05_basic", .only_traced_cta = true});
  CHECK_FALSE(gpu_data(b200).confirmed);
  CHECK(gpu_data(b200).tensor_op == "tcgen05.mma");
}

TEST_CASE("gpu: the occupied SMs of a small grid are its CTAs, one each", "[gui][gpu_view]") {
  // 256x192 in 64x64 tiles: 12 CTAs, one wave.
  auto k = open_kernel({.kernel_id = "hopper_tma_wgmma_64", .shape = {256, 192, 64}, .only_traced_cta = true});
  const GpuData& d = gpu_data(k);
  REQUIRE(d.ctas == 12);
  CHECK(d.waves == 1);
  CHECK(d.wave == 0);
  CHECK(sum(d.sm_ctas) == 12);
  CHECK(d.occupied_sms == 12);
  REQUIRE(d.traced_sm != kNone);
  CHECK(d.sm_ctas[d.traced_sm] == 1);
  CHECK(d.sm_ctas[d.sms - 1] == 0);
}

TEST_CASE("gpu: a wave of a large grid fills the SMs the prediction's wave holds", "[gui][gpu_view]") {
  auto k =
      open_kernel({.kernel_id = "simt_warptile", .shape = {4096, 4096, 64}, .cta = {5, 3, 0}, .only_traced_cta = true});
  const GpuData& d = gpu_data(k);
  const timing::Prediction& p = k->report.result.stats.prediction;
  REQUIRE(d.ctas == 32 * 32);
  CHECK(d.wave_ctas == p.wave_ctas);
  CHECK(d.waves == p.waves);
  CHECK(d.wave == uint32_t((3 * 32 + 5) / p.wave_ctas));
  CHECK(sum(d.sm_ctas) == uint32_t(std::min<uint64_t>(p.wave_ctas, d.ctas - uint64_t(d.wave) * p.wave_ctas)));
  for (uint32_t n : d.sm_ctas) CHECK(n <= d.resident);
}

TEST_CASE("gpu: a cluster's CTAs sit on neighbouring SMs of one GPC", "[gui][gpu_view]") {
  auto k = open_kernel({.kernel_id = "blackwell_2sm", .only_traced_cta = true});
  const GpuData& d = gpu_data(k);
  REQUIRE(d.cluster_size == 2);
  const auto gpc_of = [&](uint32_t sm) {
    for (uint32_t g = 0; g < d.gpc.size(); ++g)
      if (sm < d.gpc[g].first_sm + d.gpc[g].sms) return g;
    return kNone;
  };
  uint32_t pairs = 0;
  for (uint32_t sm = 0; sm + 1 < d.sms; sm += 2) {
    if (d.sm_ctas[sm] == 0) {
      CHECK(d.sm_ctas[sm + 1] == 0);  // no CTA of a cluster alone
      continue;
    }
    CHECK(d.sm_ctas[sm + 1] > 0);
    CHECK(d.sm_cluster[sm + 1] == d.sm_cluster[sm]);
    CHECK(gpc_of(sm + 1) == gpc_of(sm));
    if (sm >= 2 && d.sm_ctas[sm - 2]) CHECK(d.sm_cluster[sm - 2] != d.sm_cluster[sm]);
    ++pairs;
  }
  CHECK(pairs * 2 == sum(d.sm_ctas));
}

TEST_CASE("gpu: each traced warp issues on the sub-partition the model's rule gives it", "[gui][gpu_view]") {
  auto k = open_kernel({.kernel_id = "hopper_producer_consumer", .only_traced_cta = true});
  const GpuData& d = gpu_data(k);
  REQUIRE(k->trace().warps_per_cta == 8);
  CHECK(d.sub[0].warps == std::vector<uint16_t>{0, 4});
  CHECK(d.sub[3].warps == std::vector<uint16_t>{3, 7});
  size_t warps = 0;
  for (const GpuSubPartition& s : d.sub) warps += s.warps.size();
  CHECK(warps == 8);
}

TEST_CASE("gpu: the SVG picture is well formed and carries the card's figures, for the H100 and the H200",
          "[gui][gpu_view][picture]") {
  for (const timing::Machine* card : {&timing::kH100, &timing::kH200}) {
    INFO(card->name);
    AppState app;
    app.open_now({.kernel_id = "hopper_tma_wgmma_64", .shape = {256, 192, 64}, .only_traced_cta = true,
                  .machine = card});
    REQUIRE(app.kernel);
    const GpuData& d = gpu_data(app.kernel);
    REQUIRE(svg_pictures_of(ViewId::gpu).size() == 1);
    const std::vector<gs::test::XmlElement> doc = gs::test::parse_xml(view_svg(app, ViewId::gpu, 0));
    const timing::MachineDesc& m = *card->desc;
    uint32_t gpcs = 0, sms = 0, sm_rects = 0, occupied = 0, traced = 0, subs = 0;
    std::map<std::string, const gs::test::XmlElement*> memory;
    std::string title;
    for (const gs::test::XmlElement& e : doc) {
      if (e.name == "title") title = e.text;
      if (e.name != "rect") continue;
      const std::string cls = e.attr("class");
      if (cls == "gpc") {
        ++gpcs;
        sms += std::stoul(e.attr("data-sms"));
      } else if (cls == "sm") {
        const uint32_t sm = std::stoul(e.attr("data-sm")), ctas = std::stoul(e.attr("data-ctas"));
        REQUIRE(sm < d.sm_ctas.size());
        CHECK(ctas == d.sm_ctas[sm]);  // the wave's CTAs where the view puts them
        ++sm_rects;
        if (ctas) {
          ++occupied;
          const gs::gui::Rgb want = cta_rgb(d.sm_cluster[sm]);
          CHECK(e.attr("fill") == svg_color(want));
        }
        if (e.attr("data-traced") == "1") {
          ++traced;
          CHECK(sm == d.traced_sm);
        }
      } else if (cls == "memory") {
        memory[e.attr("data-level")] = &e;
      } else if (cls == "sub") {
        ++subs;
        CHECK(std::stoul(e.attr("data-registers")) * m.schedulers_per_sm.value == m.registers_per_sm.value);
        CHECK(std::stod(e.attr("data-tensor-flops")) ==
              Approx(m.wgmma_flops_per_cycle.value / m.schedulers_per_sm.value));
      }
    }
    CHECK_THAT(title, Catch::Matchers::Contains(m.name));
    CHECK(gpcs == uint32_t(m.gpcs.value));
    CHECK(sms == uint32_t(m.sms.value));
    CHECK(sm_rects == uint32_t(m.sms.value));
    CHECK(occupied == d.occupied_sms);
    CHECK(occupied == 12);  // 256x192 in 64x64 tiles: 12 CTAs, one an SM
    CHECK(traced == 1);
    CHECK(subs == uint32_t(m.schedulers_per_sm.value));
    REQUIRE(memory.count("L2"));
    REQUIRE(memory.count("HBM"));
    CHECK(std::stod(memory["L2"]->attr("data-bytes")) == Approx(m.l2_bytes.value));
    CHECK(std::stod(memory["L2"]->attr("data-gbs")) == Approx(m.l2_bandwidth_gbs.value));
    CHECK(std::stod(memory["HBM"]->attr("data-bytes")) == Approx(m.hbm_gb.value * 1e9));
    CHECK(std::stod(memory["HBM"]->attr("data-gbs")) == Approx(m.hbm_bandwidth_gbs.value));
  }
  // The two cards' pictures differ where their descriptions do: HBM.
  CHECK(timing::kH100.desc->hbm_gb.value != timing::kH200.desc->hbm_gb.value);
}
