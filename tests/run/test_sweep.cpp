// run/sweep: the combinations of a sweep, the checks before it runs, the model's figures per
// point, the invalid points' reasons, the order by speed, stopping part way, JSON and CSV.
#include <atomic>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "run/sim_job.hpp"
#include "run/sweep.hpp"

using namespace gs;
using Catch::Matchers::Contains;

TEST_CASE("sweep: every combination, the last axis fastest", "[run][sweep]") {
  const std::vector<kernels::ParamValues> c = run::sweep_combinations({{"bm", {32, 64}}, {"tm", {4, 8, 16}}});
  REQUIRE(c.size() == 6);
  CHECK(c[0] == kernels::ParamValues{{"bm", 32}, {"tm", 4}});
  CHECK(c[1] == kernels::ParamValues{{"bm", 32}, {"tm", 8}});
  CHECK(c[3] == kernels::ParamValues{{"bm", 64}, {"tm", 4}});
  CHECK(c[5] == kernels::ParamValues{{"bm", 64}, {"tm", 16}});
}

TEST_CASE("sweep: a bad request is refused before anything runs, naming what is valid", "[run][sweep][errors]") {
  run::SweepRequest req;
  req.kernel_id = "simt_blocktile_1d";
  req.shapes = {{512, 512, 512}};
  CHECK_THROWS_WITH(run::check_sweep(req), Contains("a sweep needs at least one --param") && Contains("bm, bn, bk, tm"));
  req.axes = {{"bq", {64}}};
  CHECK_THROWS_WITH(run::check_sweep(req),
                    "unknown build parameter 'bq' for simt_blocktile_1d: valid parameters are bm, bn, bk, tm");
  req.axes = {{"bm", {64, 48}}};
  CHECK_THROWS_WITH(run::check_sweep(req),
                    "bm=48 is not a value simt_blocktile_1d takes: choose one of 32, 64, 128, 256 (default 64)");
  req.axes = {{"bm", {64}}, {"bm", {128}}};
  CHECK_THROWS_WITH(run::check_sweep(req), Contains("--param bm is given twice"));
  req.axes = {{"bm", {64, 64}}};
  CHECK_THROWS_WITH(run::check_sweep(req), Contains("the value 64 is given twice"));
  req.axes = {{"bm", {64}}};
  req.kernel_id = "simt_naive";
  CHECK_THROWS_WITH(run::check_sweep(req), Contains("unknown build parameter 'bm' for simt_naive"));
  req.axes = {};
  CHECK_THROWS_WITH(run::check_sweep(req), Contains("simt_naive has no build parameters to sweep"));
  req.kernel_id = "nope";
  CHECK_THROWS_WITH(run::check_sweep(req), Contains("unknown kernel id 'nope'"));
}

TEST_CASE("sweep: the model's figures per point, the invalid ones with reasons, sorted by speed", "[run][sweep][model]") {
  run::SweepRequest req;
  req.kernel_id = "simt_blocktile_1d";
  req.axes = {{"bm", {32, 64}}, {"tm", {4, 8}}};
  req.shapes = {{512, 512, 512}, {0, 0, 0}};  // and the example shape
  std::vector<size_t> seen;
  run::SweepResult r = run::run_sweep(req, [&](const run::SweepPoint&, size_t done, size_t total) {
    CHECK(total == 8);
    seen.push_back(done);
  });
  CHECK(seen == std::vector<size_t>{1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(r.total == 8);
  CHECK_FALSE(r.stopped);
  CHECK(r.predicted_on == "H100");
  REQUIRE(r.shapes.size() == 2);
  CHECK((r.shapes[1].m == 128 && r.shapes[1].n == 128 && r.shapes[1].k == 32));
  // bm=32 tm=4 and bm=64 tm=4: 512 and 1024 threads copy more rows of A a round than bm.
  REQUIRE(r.invalid.size() == 4);
  REQUIRE(r.points.size() == 4);
  for (const run::SweepPoint& p : r.invalid) {
    CHECK(p.swept.at("tm") == 4);
    CHECK_THAT(p.invalid, Contains("rows of A's chunk a round"));
    CHECK(p.params.empty());
  }
  // Each valid point is the model's prediction of that build at that shape, as `sim
  // --traced-cta-only` makes it.
  for (const run::SweepPoint& p : r.points) {
    CHECK(p.swept.at("tm") == 8);
    CHECK(p.model_error.empty());
    CHECK(p.predicted_tflops > 0.0);
    CHECK_FALSE(p.bound.empty());
    CHECK(p.params.size() == 4);
    run::SimRequest sim;
    sim.kernel_id = req.kernel_id;
    sim.shape = p.shape;
    sim.params = p.swept;
    sim.only_traced_cta = true;
    const run::SimReport alone = run::run_sim(sim);
    CHECK(alone.result.stats.predicted_tflops == p.predicted_tflops);
    CHECK(std::string(alone.result.stats.prediction.parts.bound) == p.bound);
  }
  // Sorted: per shape in the request's order, fastest first.
  run::sort_by_speed(r);
  CHECK(r.points[0].shape.m == 512);
  CHECK(r.points[1].shape.m == 512);
  CHECK(r.points[2].shape.m == 128);
  CHECK(r.points[0].predicted_tflops >= r.points[1].predicted_tflops);
  CHECK(r.points[2].predicted_tflops >= r.points[3].predicted_tflops);
  // The table ranks them and lists the invalid ones with their reasons.
  const std::string table = run::sweep_table(r);
  CHECK_THAT(table, Contains("simt_blocktile_1d at 512x512x512, predicted on H100 (sorted by predicted TFLOP/s)"));
  CHECK_THAT(table, Contains("4 combinations the kernel cannot build:"));
  CHECK_THAT(table, Contains("bm=32 tm=4 at 512x512x512: simt_blocktile_1d cannot be built with"));
}

TEST_CASE("sweep: a shape one tile takes and another does not is an invalid point of that shape", "[run][sweep][model]") {
  run::SweepRequest req;
  req.kernel_id = "simt_blocktile_2d";
  req.axes = {{"bm", {64, 128}}};
  req.shapes = {{192, 256, 64}};
  const run::SweepResult r = run::run_sweep(req);
  REQUIRE(r.points.size() == 1);
  CHECK(r.points[0].swept.at("bm") == 64);
  REQUIRE(r.invalid.size() == 1);
  CHECK(r.invalid[0].swept.at("bm") == 128);
  CHECK_THAT(r.invalid[0].invalid, Contains("M=192 is not a positive multiple of 128"));
}

TEST_CASE("sweep: stopping keeps the points that finished", "[run][sweep][model]") {
  std::atomic<bool> stop{false};
  run::SweepRequest req;
  req.kernel_id = "simt_blocktile_2d";
  req.axes = {{"bk", {8, 16, 32}}, {"tm", {4, 8}}};
  req.shapes = {{256, 256, 256}};
  req.stop = &stop;
  const run::SweepResult r = run::run_sweep(req, [&](const run::SweepPoint&, size_t done, size_t) {
    if (done == 2) stop = true;
  });
  CHECK(r.stopped);
  CHECK(r.total == 6);
  CHECK(r.points.size() + r.invalid.size() == 2);
  const nlohmann::json j = run::sweep_json(r);
  CHECK(j["stopped"] == true);
  CHECK(j["points"].size() + j["invalid"].size() == 2);
  CHECK_THAT(run::sweep_table(r), Contains("stopped after 2 of 6 points"));
}

TEST_CASE("sweep: JSON and CSV hold every point, valid ones first", "[run][sweep]") {
  // Points made by hand: the writers, not the model, are under test here.
  run::SweepResult r;
  r.kernel_id = "simt_warptile";
  r.axes = {{"bm", {64, 128}}, {"wn", {32}}};
  r.shapes = {{512, 512, 512}};
  r.predicted_on = "H200";
  r.total = 2;
  run::SweepPoint fast;
  fast.shape = {512, 512, 512};
  fast.swept = {{"bm", 128}, {"wn", 32}};
  fast.params = {{"bm", 128}, {"wn", 32}, {"bk", 16}};
  fast.predicted_tflops = 21.5;
  fast.predicted_seconds = 1.25e-5;
  fast.bound = "l1";
  fast.ctas_per_sm = 2;
  run::SweepPoint bad;
  bad.shape = fast.shape;
  bad.swept = {{"bm", 64}, {"wn", 32}};
  bad.invalid = "a reason, with a comma and a \"quote\"";
  r.points = {fast};
  r.invalid = {bad};
  const nlohmann::json j = run::sweep_json(r);
  CHECK(j["kernel"] == "simt_warptile");
  CHECK(j["predicted_on"] == "H200");
  CHECK(j["gpu"] == false);
  CHECK(j["axes"][0] == nlohmann::json{{"name", "bm"}, {"values", {64, 128}}});
  REQUIRE(j["points"].size() == 1);
  CHECK(j["points"][0]["swept"] == nlohmann::json{{"bm", 128}, {"wn", 32}});
  CHECK(j["points"][0]["predicted_tflops"] == 21.5);
  CHECK(j["points"][0]["bound"] == "l1");
  CHECK(j["points"][0]["ctas_per_sm"] == 2);
  CHECK(j["points"][0]["gpu_tflops"].is_null());
  CHECK(j["points"][0]["vs_cublas"].is_null());
  CHECK(j["points"][0]["model_error"].is_null());
  REQUIRE(j["invalid"].size() == 1);
  CHECK(j["invalid"][0]["reason"] == bad.invalid);
  const std::string csv = run::sweep_csv(r);
  std::istringstream lines(csv);
  std::string header, first, second, extra;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  CHECK_FALSE(std::getline(lines, extra));
  CHECK(header ==
        "kernel,m,n,k,bm,wn,valid,predicted_tflops,bound,ctas_per_sm,gpu_tflops,cublas_tflops,vs_cublas,vs_cublas_q1,"
        "vs_cublas_q3,note");
  CHECK(first == "simt_warptile,512,512,512,128,32,yes,21.5,l1,2,,,,,,");
  CHECK(second == "simt_warptile,512,512,512,64,32,no,,,,,,,,,\"a reason, with a comma and a \"\"quote\"\"\"");
}

TEST_CASE("sweep: with the GPU, points rank by measured TFLOP/s and carry cuBLAS's figures", "[run][sweep]") {
  // GPU results made by hand (this test needs no GPU): the sweep's figures, order and writers.
  const auto measured = [](double ms, double cublas_ms, run::Spread ratio) {
    run::BenchResult b;
    b.kernel_id = "simt_warptile";
    b.shape = {4096, 4096, 4096};
    b.status = run::GpuStatus::ok;
    b.checked = true;
    b.cmp.correct = true;
    b.kernel.median_ms = ms;
    b.kernel.reps = 20;
    b.cublas = run::TimingSummary{};
    b.cublas->median_ms = cublas_ms;
    b.cublas->reps = 20;
    b.paired = true;
    b.paired_ratio = ratio;
    return b;
  };
  run::SweepResult r;
  r.kernel_id = "simt_warptile";
  r.axes = {{"bk", {8, 16, 32}}};
  r.shapes = {{4096, 4096, 4096}};
  r.predicted_on = "H100";
  r.gpu = true;
  r.total = 3;
  run::SweepPoint a, b, c;
  for (run::SweepPoint* p : {&a, &b, &c}) p->shape = r.shapes[0];
  a.swept = {{"bk", 8}};
  a.predicted_tflops = 40.0;  // the model's favourite ...
  a.gpu = measured(10.0, 5.0, {0.5, 0.45, 0.55});
  b.swept = {{"bk", 16}};
  b.predicted_tflops = 30.0;  // ... is not the GPU's
  b.gpu = measured(8.0, 5.0, {0.625, 0.6, 0.65});
  c.swept = {{"bk", 32}};
  c.predicted_tflops = 50.0;
  c.gpu = run::BenchResult{};  // the GPU job failed: nothing measured
  c.gpu->status = run::GpuStatus::failed;
  c.gpu->error = "a fault";
  r.points = {a, b, c};
  run::sort_by_speed(r);
  CHECK(r.points[0].swept.at("bk") == 16);
  CHECK(r.points[1].swept.at("bk") == 8);
  CHECK(r.points[2].swept.at("bk") == 32);  // unmeasured last, whatever the model says
  const double flop = 2.0 * 4096.0 * 4096.0 * 4096.0;
  REQUIRE(r.points[0].gpu_tflops());
  CHECK(*r.points[0].gpu_tflops() == Approx(flop / 8e-3 / 1e12));
  CHECK(*r.points[0].cublas_tflops() == Approx(flop / 5e-3 / 1e12));
  CHECK_FALSE(r.points[2].gpu_tflops());
  const nlohmann::json j = run::sweep_json(r);
  CHECK(j["gpu"] == true);
  CHECK(j["points"][0]["gpu_tflops"].get<double>() == Approx(flop / 8e-3 / 1e12));
  CHECK(j["points"][0]["vs_cublas"] == nlohmann::json{{"median", 0.625}, {"q1", 0.6}, {"q3", 0.65}});
  CHECK(j["points"][0]["gpu"]["kernel"] == "simt_warptile");
  CHECK(j["points"][2]["gpu_tflops"].is_null());
  const std::string csv = run::sweep_csv(r);
  CHECK_THAT(csv, Contains(",16,yes,30,,0,17.1799,27.4878,0.625,0.6,0.65,\n"));
  const std::string table = run::sweep_table(r);
  CHECK_THAT(table, Contains("measured on the GPU (sorted by measured TFLOP/s)"));
  CHECK_THAT(table, Contains("0.625 (0.600-0.650)"));
}

namespace {

// A sweep measured on an H200 (docs/results/2026-12-02-sweep: step 16, stages x order, two sizes).
nlohmann::json h200_sweep_file() {
  std::ifstream in(std::string(GEMMSCOPE_SOURCE_DIR) + "/docs/results/2026-12-02-sweep/call1/sweep-step16.json");
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("sweep: a file read back gives every point's figures as written", "[run][sweep]") {
  const nlohmann::json file = h200_sweep_file();
  const run::SweepResult r = run::sweep_from_json(file);
  CHECK(r.kernel_id == "hopper_fewer_arrivals");
  CHECK(r.gpu);
  REQUIRE(r.axes.size() == 2);
  CHECK(r.axes[1].name == "order");
  REQUIRE(r.shapes.size() == 2);
  REQUIRE(r.points.size() == file["points"].size());
  const nlohmann::json back = run::sweep_json(r);
  for (size_t i = 0; i < r.points.size(); ++i) {
    const nlohmann::json& want = file["points"][i];
    const nlohmann::json& got = back["points"][i];
    INFO("point " << i << " " << want["swept"].dump());
    CHECK(got["swept"] == want["swept"]);
    CHECK(got["shape"] == want["shape"]);
    CHECK(got["bound"] == want["bound"]);
    for (const char* key : {"predicted_tflops", "gpu_tflops", "cublas_tflops"}) {
      REQUIRE(got[key].is_number());
      CHECK(got[key].get<double>() == Approx(want[key].get<double>()).epsilon(1e-12));
    }
    for (const char* key : {"median", "q1", "q3"})
      CHECK(got["vs_cublas"][key].get<double>() == Approx(want["vs_cublas"][key].get<double>()).epsilon(1e-12));
    REQUIRE(r.points[i].gpu);
    CHECK(r.points[i].gpu->ok());
    CHECK(r.points[i].gpu->device == want["gpu"]["device"].get<std::string>());
  }
}

TEST_CASE("sweep: a file that is not a sweep's is refused naming the field", "[run][sweep][errors]") {
  const nlohmann::json good = h200_sweep_file();
  const auto refused = [&](auto change, const std::string& names) {
    nlohmann::json j = good;
    change(j);
    INFO(names);
    CHECK_THROWS_WITH(run::sweep_from_json(j), Contains(names));
  };
  refused([](nlohmann::json& j) { j["kernel"] = "nope"; }, "nope");
  refused([](nlohmann::json& j) { j["points"][1]["swept"]["stages"] = 7; }, "points[1]");
  refused([](nlohmann::json& j) { j["points"][0]["predicted_tflops"] = -1.0; }, "predicted_tflops");
  refused([](nlohmann::json& j) { j["points"][2]["gpu"]["ms"] = "fast"; }, "points[2]");
  refused([](nlohmann::json& j) { j["points"][3]["shape"]["m"] = 1000; }, "not one of the file's 'shapes'");
  refused([](nlohmann::json& j) { j["axes"] = nlohmann::json::array(); }, "at least one axis");
  refused([](nlohmann::json& j) { j = nlohmann::json::array(); }, "'points'");
  CHECK_THROWS_AS(run::sweep_from_json(nlohmann::json{{"kernel", "hopper_fewer_arrivals"}, {"axes", 3}, {"points", 4}}),
                  kernels::ConfigError);
}
