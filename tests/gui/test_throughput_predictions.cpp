// The Throughput view's predictions beside the measurements (throughput_data.hpp,
// PredictionRow), on real model runs at small shapes: the model's breakdown travels with its
// point and comes out unchanged, the error is predicted / measured - 1 against the same build at
// the same shape, a GPU run wins over an imported file, a build or a mistake of its own never
// pairs with the kernel as it ships, and a prediction with nothing measured keeps its bar alone.
#include <catch2/catch.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "gui/core/app_state.hpp"
#include "gui/core/throughput_data.hpp"
#include "gui/core/view_data.hpp"

using namespace gs;
using namespace gs::gui;
using Catch::Matchers::Contains;

namespace {

nlohmann::json result(const std::string& kernel, kernels::GemmShape s, double tflops, const std::string& device,
                      nlohmann::json params = nlohmann::json::object(),
                      nlohmann::json mistakes = nlohmann::json::array()) {
  return {{"kernel", kernel},
          {"shape", {{"m", s.m}, {"n", s.n}, {"k", s.k}}},
          {"tflops", {{"median", tflops}}},
          {"device", device},
          {"params", params},
          {"mistakes", mistakes}};
}

const nlohmann::json* prediction_json(const nlohmann::json& d, const std::string& kernel) {
  for (const auto& p : d["predictions"])
    if (p["kernel"] == kernel) return &p;
  return nullptr;
}

constexpr const char* kH100 = "NVIDIA H100 80GB HBM3";

}  // namespace

TEST_CASE("throughput: the model's prediction sits beside the measurement of the same build, with the error and the "
          "breakdown the model recorded",
          "[gui][throughput][predictions]") {
  AppState app;
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const model::SimStats& st = app.kernel->report.result.stats;
  const kernels::GemmShape shape = app.kernel->request.shape;  // the example shape, 128x128x256
  REQUIRE(shape.m <= 256);
  // A measurement of the same build 10% slower than predicted: the error is +10%.
  const double measured = st.predicted_tflops / 1.1;
  app.measurements.add_bench_json(result("hopper_tma_wgmma_64", shape, measured, kH100), MeasurementSource::imported, 1.0);
  const ThroughputData d = prepare_throughput(app);
  REQUIRE(d.predictions.size() == 1);
  const PredictionRow& p = d.predictions[0];
  CHECK(p.predicted_tflops == Approx(st.predicted_tflops));
  REQUIRE(p.measured_tflops);
  CHECK(*p.measured_tflops == Approx(measured));
  REQUIRE(p.error);
  CHECK(*p.error == Approx(0.1));
  CHECK(error_text(*p.error) == "+10.0%");
  CHECK(p.measured_source == "imported");
  CHECK(p.same_machine);
  CHECK(p.machine == "H100");
  // The parts are the model's own, unchanged: the bound is the largest at the wave's time.
  REQUIRE(p.has_parts);
  CHECK(p.bound == st.prediction.parts.bound);
  CHECK(p.cycles_per_wave == Approx(st.prediction.cycles_per_wave));
  const auto rows = model::timing::breakdown_rows(st.prediction.parts);
  REQUIRE(p.parts.size() == rows.size());
  int bounds = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    INFO(rows[i].name);
    CHECK(p.parts[i].name == rows[i].name);
    CHECK(p.parts[i].cycles == Approx(rows[i].cycles));
    CHECK(p.parts[i].share == Approx(rows[i].cycles / st.prediction.cycles_per_wave));
    CHECK(p.parts[i].share <= 1.0 + 1e-9);
    CHECK(p.parts[i].index == i);
    if (p.parts[i].bound) {
      ++bounds;
      CHECK(p.parts[i].share == Approx(1.0));
    }
  }
  CHECK(bounds == 1);
  CHECK_THAT(p.occupancy_line, Contains("occupancy: up to"));
  CHECK_THAT(p.wave_line, Contains("cycles per wave at"));
  CHECK_THAT(p.clock_line, Contains("clock: "));
  CHECK_THAT(p.launch_line, Contains("us a launch (launch_us)"));
  CHECK(p.coupling_line.empty());  // one CTA a launch's cluster: nobody to wait for
  CHECK(p.drift_line.empty());     // eight CTAs an SM and no ring: the waves' count stands
  // The same in --state-json, the measurement still listed as a variant of its own.
  const nlohmann::json j = describe_throughput(app);
  const nlohmann::json* pj = prediction_json(j, "hopper_tma_wgmma_64");
  REQUIRE(pj != nullptr);
  CHECK((*pj)["error"].get<double>() == Approx(0.1));
  CHECK((*pj)["error_text"] == "+10.0%");
  CHECK((*pj)["bound"] == std::string(st.prediction.parts.bound));
  CHECK((*pj)["parts"].size() == rows.size());
  CHECK((*pj)["measured_source"] == "imported");
  size_t variants = 0;
  for (const auto& v : j["variants"]) variants += v["kernel"] == "hopper_tma_wgmma_64";
  CHECK(variants == 2);  // the measurement and the prediction, side by side
}

TEST_CASE("throughput: a GPU run wins over an imported result; another build, a mistake or another card are told apart",
          "[gui][throughput][predictions]") {
  AppState app;
  app.open_now({.kernel_id = "simt_smem_tiling", .shape = {128, 128, 128}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const double predicted = app.kernel->report.result.stats.predicted_tflops;
  const kernels::GemmShape shape{128, 128, 128};
  SECTION("a model-only variant keeps its bar without an error") {
    const ThroughputData d = prepare_throughput(app);
    REQUIRE(d.predictions.size() == 1);
    CHECK_FALSE(d.predictions[0].measured_tflops);
    CHECK_FALSE(d.predictions[0].error);
    CHECK(d.predictions[0].has_parts);
    const nlohmann::json j = describe_throughput(app);
    CHECK(j["predictions"][0]["error"].is_null());
    CHECK(j["predictions"][0]["parts"].size() == model::timing::breakdown_rows({}).size());
  }
  SECTION("the GPU's run is the measurement when there is one") {
    app.measurements.add_bench_json(result("simt_smem_tiling", shape, predicted * 2, kH100), MeasurementSource::imported, 1.0);
    app.measurements.add_bench_json(result("simt_smem_tiling", shape, predicted / 2, kH100), MeasurementSource::gpu, 2.0);
    const ThroughputData d = prepare_throughput(app);
    REQUIRE(d.predictions.size() == 1);
    CHECK(d.predictions[0].measured_source == "gpu");
    CHECK(*d.predictions[0].error == Approx(1.0));
  }
  SECTION("a mistake's run and another build are variants of their own, never the kernel as it ships") {
    app.measurements.add_bench_json(
        result("simt_smem_tiling", shape, 1.0, kH100, nlohmann::json::object(), nlohmann::json::array({"no-sync-after-load"})),
        MeasurementSource::imported, 1.0);
    const ThroughputData d = prepare_throughput(app);
    REQUIRE(d.predictions.size() == 1);
    CHECK_FALSE(d.predictions[0].measured_tflops);
    bool own = false;
    for (const ThroughputRow& r : d.rows) own = own || r.label.find("mistake no-sync-after-load") != std::string::npos;
    CHECK(own);
  }
  SECTION("measured on another card: the error is shown, marked") {
    app.measurements.add_bench_json(result("simt_smem_tiling", shape, predicted, "NVIDIA H200"), MeasurementSource::imported, 1.0);
    const ThroughputData d = prepare_throughput(app);
    REQUIRE(d.predictions[0].error);
    CHECK(*d.predictions[0].error == Approx(0.0).margin(1e-9));
    CHECK_FALSE(d.predictions[0].same_machine);
  }
}

TEST_CASE("throughput: a build with its own parameters pairs with the measurement of that build", "[gui][throughput][predictions]") {
  AppState app;
  app.open_now({.kernel_id = "hopper_producer_consumer", .params = {{"stages", 3}}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const kernels::GemmShape shape = app.kernel->request.shape;
  const double predicted = app.kernel->report.result.stats.predicted_tflops;
  app.measurements.add_bench_json(result("hopper_producer_consumer", shape, predicted / 2, kH100, {{"stages", 3}}),
                                  MeasurementSource::imported, 1.0);
  app.measurements.add_bench_json(result("hopper_producer_consumer", shape, predicted * 4, kH100),
                                  MeasurementSource::imported, 2.0);
  const ThroughputData d = prepare_throughput(app);
  REQUIRE(d.predictions.size() == 1);
  CHECK(d.predictions[0].params == "stages=3");
  CHECK_THAT(d.predictions[0].label, Contains("stages=3"));
  REQUIRE(d.predictions[0].error);
  CHECK(*d.predictions[0].error == Approx(1.0));  // the stages=3 run, not the default one
}

#include <fstream>

#include "gui/core/colors.hpp"
#include "tests/gui/headless.hpp"

TEST_CASE("throughput: the breakdown bar is drawn at 1280x800, the bound's column full in its colour",
          "[gui][xvfb][throughput][predictions]") {
  using namespace gs::gui::test;
  if (!xvfb_or_skip()) return;
  // A measurement of step 11 at its example shape, the shape the model opens it at.
  const auto file = headless_dir() / "step11-bench.json";
  std::ofstream(file) << nlohmann::json::array({result("hopper_tma_wgmma_64", {128, 128, 256}, 40.0, kH100)}).dump();
  const Headless h = run_headless("throughput_predictions",
                                  "--kernel hopper_tma_wgmma_64 --import '" + file.string() +
                                      "' --view throughput --size 1280x800 --theme dark");
  INFO(h.output);
  REQUIRE(h.code == 0);
  REQUIRE(h.w == 1280);
  const auto& p = h.state["views"]["throughput"]["predictions"];
  REQUIRE(p.size() == 1);
  CHECK(p[0]["measured_tflops"].get<double>() == Approx(40.0));
  CHECK_FALSE(p[0]["error"].is_null());
  REQUIRE(h.state["drawn"].contains("throughput.breakdown.0"));
  const auto g = h.state["drawn"]["throughput.breakdown.0"].get<std::array<float, 4>>();  // x, y, w, h
  REQUIRE(g[0] + g[2] <= float(h.w));
  REQUIRE(g[1] + g[3] <= float(h.h));
  const auto& parts = p[0]["parts"];
  const float slot = g[2] / float(parts.size());
  size_t coloured = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const int x = int(g[0] + slot * (float(i) + 0.5f));
    const auto bottom = h.pixel(x, int(g[1] + g[3]) - 2);
    const Rgb c = limit_rgb(uint32_t(i), true);
    INFO(parts[i]["name"] << " at " << x);
    if (parts[i]["bound"].get<bool>()) {
      // Opaque, full height: the limit's own colour at the bottom and near the top.
      for (const auto& px : {bottom, h.pixel(x, int(g[1]) + 3)})
        for (int ch = 0; ch < 3; ++ch) CHECK(std::abs(px[ch] - int(c[ch])) <= 3);
    }
    if (parts[i]["share"].get<double>() > 0.3) {
      // A column at least a third high: its colour shows at the bottom (blended when not the bound).
      const int dist = std::abs(bottom[0] - int(c[0])) + std::abs(bottom[1] - int(c[1])) + std::abs(bottom[2] - int(c[2]));
      CHECK(dist < 200);
      ++coloured;
    }
  }
  CHECK(coloured >= 1);
}

TEST_CASE("throughput: with an H200 in the machine the app predicts on the H200, and pairs it with its runs",
          "[gui][throughput][predictions]") {
  AppState app;
  app.gpu = {GpuPresenceState::found, "NVIDIA H200", ""};
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const model::SimStats& st = app.kernel->report.result.stats;
  CHECK(st.predicted_on == &model::timing::kH200);
  CHECK(app.kernel->request.machine == &model::timing::kH200);
  const kernels::GemmShape shape = app.kernel->request.shape;
  app.measurements.add_bench_json(result("hopper_tma_wgmma_64", shape, st.predicted_tflops, "NVIDIA H200"),
                                  MeasurementSource::imported, 1.0);
  const ThroughputData d = prepare_throughput(app);
  REQUIRE(d.predictions.size() == 1);
  CHECK(d.predictions[0].machine == "H200");
  CHECK(d.predictions[0].same_machine);
  // The same kernel on the H100 (no GPU found here) is a prediction of another card, with the
  // H100's figures: a different time.
  AppState plain;
  plain.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  REQUIRE(plain.kernel);
  CHECK(plain.kernel->report.result.stats.predicted_on == &model::timing::kH100);
  CHECK(plain.kernel->report.result.stats.predicted_tflops != Approx(st.predicted_tflops).epsilon(0.001));
  // A Blackwell step runs on no Hopper card: the B200's figures, whatever GPU is here.
  app.open_now({.kernel_id = "blackwell_tcgen05_basic", .only_traced_cta = true});
  REQUIRE(app.kernel);
  CHECK(app.kernel->report.result.stats.predicted_on == &model::timing::kB200);
}

TEST_CASE("throughput: the card asked for (gui --machine) holds for every Hopper step opened after a Blackwell one",
          "[gui][throughput][predictions]") {
  AppState app;  // no GPU here
  app.predict_on = &model::timing::kH200;
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  REQUIRE(app.kernel);
  CHECK(app.kernel->report.result.stats.predicted_on == &model::timing::kH200);
  // The ladder opens the next step from the request on screen (its card included).
  run::SimRequest next = app.request;
  next.kernel_id = "blackwell_tcgen05_basic";
  next.shape = {};
  app.open_now(next);
  REQUIRE(app.kernel);
  CHECK(app.kernel->report.result.stats.predicted_on == &model::timing::kB200);
  next = app.request;
  next.kernel_id = "hopper_producer_consumer";
  app.open_now(next);
  REQUIRE(app.kernel);
  CHECK(app.kernel->report.result.stats.predicted_on == &model::timing::kH200);
}

TEST_CASE("throughput: two neighbouring steps at one shape say why one is faster, with the measured ratio beside",
          "[gui][throughput][predictions][compare]") {
  AppState app;
  const kernels::GemmShape shape{512, 512, 512};
  app.open_now({.kernel_id = "hopper_producer_consumer", .shape = shape, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const model::timing::Prediction first = app.kernel->report.result.stats.prediction;
  // Only one step so far: nothing to compare.
  CHECK(prepare_throughput(app).comparisons.empty());
  app.open_now({.kernel_id = "hopper_two_consumers", .shape = shape, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const model::timing::Prediction second = app.kernel->report.result.stats.prediction;
  ThroughputData d = prepare_throughput(app);
  REQUIRE(d.comparisons.size() == 1);
  StepComparison c = d.comparisons[0];
  CHECK(c.from == "hopper_producer_consumer");  // ladder order, whatever the order they were opened in
  CHECK(c.to == "hopper_two_consumers");
  CHECK(c.machine == "H100");
  CHECK(c.predicted_speedup == Approx(first.seconds / second.seconds));
  CHECK(c.bound_from == first.parts.bound);
  CHECK(c.bound_to == second.parts.bound);
  CHECK_FALSE(c.measured_speedup);
  REQUIRE_FALSE(c.lines.empty());
  CHECK_THAT(c.lines[0], Contains("hopper_two_consumers is predicted"));
  // Both measured on one card: the measured ratio sits beside the predicted one.
  app.measurements.add_bench_json(result("hopper_producer_consumer", shape, 300.0, kH100), MeasurementSource::imported,
                                  1.0);
  app.measurements.add_bench_json(result("hopper_two_consumers", shape, 360.0, kH100), MeasurementSource::imported,
                                  2.0);
  d = prepare_throughput(app);
  REQUIRE(d.comparisons.size() == 1);
  REQUIRE(d.comparisons[0].measured_speedup);
  CHECK(*d.comparisons[0].measured_speedup == Approx(1.2));
  // The state JSON has it, for the headless checks.
  const nlohmann::json j = describe_throughput(app);
  REQUIRE(j["comparisons"].size() == 1);
  CHECK(j["comparisons"][0]["from"] == "hopper_producer_consumer");
  CHECK(j["comparisons"][0]["measured_speedup"].get<double>() == Approx(1.2));
  // A build of its own is not the step as it ships: it is left out of the comparisons.
  app.open_now({.kernel_id = "hopper_two_consumers",
                .shape = shape,
                .params = {{"stages", 3}},
                .only_traced_cta = true});
  CHECK(prepare_throughput(app).comparisons.size() == 1);
}

TEST_CASE("throughput: gui --open-first and --throughput-tab why show why one step is faster, on screen and in the "
          "state",
          "[gui][xvfb][throughput][compare]") {
  using namespace gs::gui::test;
  if (!xvfb_or_skip()) return;
  const Headless h = run_headless("throughput_why",
                                  "--open-first hopper_producer_consumer --kernel hopper_two_consumers --m 512 --n 512 "
                                  "--k 512 --view throughput --throughput-tab why --size 1280x800 --theme dark");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& c = h.state["views"]["throughput"]["comparisons"];
  REQUIRE(c.size() == 1);
  CHECK(c[0]["from"] == "hopper_producer_consumer");
  CHECK(c[0]["to"] == "hopper_two_consumers");
  CHECK(c[0]["lines"].size() >= 2);
  // The tab was brought to the front once: its header line is drawn, as text on the window.
  REQUIRE(h.state["drawn"].contains("throughput.why.0"));
  const auto g = h.state["drawn"]["throughput.why.0"].get<std::array<float, 4>>();  // x, y, w, h
  REQUIRE(g[2] > 100.0f);
  REQUIRE(g[0] + g[2] <= float(h.w));
  REQUIRE(g[1] + g[3] <= float(h.h));
  std::set<int> colours;
  for (int x = int(g[0]); x < int(g[0] + g[2]); x += 2) {
    const auto p = h.pixel(x, int(g[1] + g[3] / 2));
    colours.insert(p[0] << 16 | p[1] << 8 | p[2]);
  }
  CHECK(colours.size() > 3);  // glyphs, not an empty row
  // An unknown kernel for --open-first: a usage error naming it, nothing rendered.
  const Headless bad = run_headless("throughput_why_bad", "--open-first nope --kernel hopper_two_consumers");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.output, Contains("unknown kernel id 'nope'"));
}

TEST_CASE("throughput: every Blackwell step's B200 prediction at 4096³ beside the figures published for its technique",
          "[gui][throughput][published]") {
  AppState app;
  app.request.kernel_id = "blackwell_clc";
  predict_speed_ladder_now(app, ir::Arch::sm_100a);  // the tab's rows need only these
  const ThroughputData d = prepare_throughput(app);
  // Steps 20-26, in ladder order, each with the speed ladder's own figure (the same prediction
  // everywhere) and the rows of run/published_figures.def for its step.
  REQUIRE(d.published.size() == 7);
  const std::vector<SpeedRow> rows = speed_rows(app);
  for (size_t i = 0; i < d.published.size(); ++i) {
    const PublishedRow& r = d.published[i];
    INFO(r.kernel_id);
    CHECK(r.step == int(20 + i));
    REQUIRE(r.predicted);
    CHECK(r.predicted->machine == "B200");
    CHECK_FALSE(r.predicted->confirmed);
    const auto ladder = std::find_if(rows.begin(), rows.end(), [&](const SpeedRow& s) { return s.kernel_id == r.kernel_id; });
    REQUIRE(ladder != rows.end());
    CHECK(r.predicted->tflops == ladder->predicted->tflops);
    CHECK(r.published == run::published_for_step(r.step));
  }
  CHECK(d.published[3].published.empty());                     // step 23: persistent on one SM, none found
  CHECK(d.published[5].published.empty());                     // step 25: none found
  CHECK(d.published[6].kernel_id == "blackwell_pair_persistent");
  CHECK(d.published[6].published.front()->tflops == 1273.32);  // step 26: gau-nernst's v6, on the pair
  // The state says what each figure is.
  const nlohmann::json j = describe_throughput(app)["published"];
  REQUIRE(j.size() == 7);
  CHECK(j[6]["predicted"]["standing"] == "predicted on a B200 from NVIDIA's figures, unconfirmed");
  CHECK(j[6]["published"][0]["standing"] == "published, not measured here");
  CHECK(j[6]["published"][0]["url"].get<std::string>().starts_with("https://github.com/gau-nernst/learn-cuda/"));
  CHECK(j[4]["published"][0]["source"].get<std::string>().starts_with("Modular"));
}

TEST_CASE("throughput: gui --throughput-tab published shows the Blackwell steps' predictions and published figures",
          "[gui][xvfb][throughput][published]") {
  using namespace gs::gui::test;
  if (!xvfb_or_skip()) return;
  const Headless h = run_headless("throughput_published", "--kernel blackwell_clc --view throughput --throughput-tab "
                                                          "published --size 1280x800 --theme dark");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& p = h.state["views"]["throughput"]["published"];
  REQUIRE(p.size() == 7);
  CHECK(p[0]["predicted"]["tflops"].get<double>() > 0.0);
  // The tab was in front: its first source line is drawn as text inside the window.
  REQUIRE(h.state["drawn"].contains("throughput.published"));
  const auto g = h.state["drawn"]["throughput.published"].get<std::array<float, 4>>();  // x, y, w, h
  REQUIRE(g[2] > 100.0f);
  REQUIRE(g[0] + g[2] <= float(h.w));
  REQUIRE(g[1] + g[3] <= float(h.h));
  std::set<int> colours;
  for (int x = int(g[0]); x < int(g[0] + g[2]); x += 2) {
    const auto px = h.pixel(x, int(g[1] + g[3] / 2));
    colours.insert(px[0] << 16 | px[1] << 8 | px[2]);
  }
  CHECK(colours.size() > 3);  // glyphs, not an empty row
}

TEST_CASE("throughput: a cluster that releases stages in both CTAs says it waits for the slower one",
          "[gui][throughput][predictions]") {
  AppState app;
  app.open_now({.kernel_id = "hopper_cluster_multicast", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const model::SimStats& st = app.kernel->report.result.stats;
  const double measured = st.predicted_tflops;
  app.measurements.add_bench_json(result("hopper_cluster_multicast", app.kernel->request.shape, measured, kH100),
                                  MeasurementSource::imported, 1.0);
  const ThroughputData d = prepare_throughput(app);
  REQUIRE(d.predictions.size() == 1);
  CHECK_THAT(d.predictions[0].coupling_line, Contains("clusters: clusters of 2") && Contains("pair_coupling"));
  const nlohmann::json j = describe_throughput(app);
  const nlohmann::json* pj = prediction_json(j, "hopper_cluster_multicast");
  REQUIRE(pj != nullptr);
  CHECK((*pj)["coupling_line"] == d.predictions[0].coupling_line);
}

TEST_CASE("throughput: step 13's 6-stage ring at 8192^3 says its waves drift apart and read B again",
          "[gui][throughput][predictions]") {
  AppState app;
  app.open_now({.kernel_id = "hopper_producer_consumer",
                .shape = {8192, 8192, 8192},
                .params = {{"stages", 6}, {"bn", 128}},
                .only_traced_cta = true});
  REQUIRE(app.kernel);
  const model::SimStats& st = app.kernel->report.result.stats;
  app.measurements.add_bench_json(result("hopper_producer_consumer", app.kernel->request.shape, 381.6, kH100,
                                         {{"stages", 6}, {"bn", 128}}),
                                  MeasurementSource::imported, 1.0);
  const ThroughputData d = prepare_throughput(app);
  REQUIRE(d.predictions.size() == 1);
  CHECK_THAT(d.predictions[0].drift_line, Contains("drift: its 6-stage ring") && Contains("drift_blur_waves") &&
                                              Contains("GB more"));
  CHECK(st.prediction.drift.extra_bytes > 1e9);
  const nlohmann::json j = describe_throughput(app);
  const nlohmann::json* pj = prediction_json(j, "hopper_producer_consumer");
  REQUIRE(pj != nullptr);
  CHECK((*pj)["drift_line"] == d.predictions[0].drift_line);
}
