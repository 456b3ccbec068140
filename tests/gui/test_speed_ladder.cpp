// The speed ladder (gui/core/speed_ladder.hpp): the shipped reference runs read through the
// bench importer, the figures and ratios each row shows, and the sentence that says how little
// of the GPU a small traced shape fills.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "gui/core/app_state.hpp"
#include "gui/core/prediction_cache.hpp"
#include "gui/core/speed_ladder.hpp"
#include "run/sim_job.hpp"

using namespace gs::gui;
namespace fs = std::filesystem;

namespace {

const std::string kReferenceDir = std::string(GEMMSCOPE_SOURCE_DIR) + "/assets/reference";

// The figure of `kernel` at 4096³ as the shipped JSON file holds it, read here without the app's
// importer: {median TFLOP/s, cuBLAS TFLOP/s}.
std::pair<double, double> shipped(const std::string& file, const std::string& kernel) {
  std::ifstream f(kReferenceDir + "/" + file);
  const nlohmann::json j = nlohmann::json::parse(f);
  for (const auto& r : j["results"])
    if (r["kernel"] == kernel && r["shape"]["m"] == 4096 && r["shape"]["n"] == 4096 && r["shape"]["k"] == 4096)
      return {r["tflops"]["median"].get<double>(), r["cublas_tflops"].get<double>()};
  FAIL("no " << kernel << " at 4096³ in " << file);
  return {0, 0};
}

const SpeedRow& row_of(const std::vector<SpeedRow>& rows, const std::string& id) {
  for (const SpeedRow& r : rows)
    if (r.kernel_id == id) return r;
  FAIL("no row for " << id);
  return rows.front();
}

}  // namespace

TEST_CASE("speed ladder: the shipped runs are read with their card and date", "[gui][speed]") {
  const std::vector<ReferenceRun> runs = load_reference_runs(kReferenceDir);
  REQUIRE(runs.size() == 3);
  CHECK(runs[0].card == "H100");
  CHECK(runs[0].date == "2026-12-07");
  CHECK(runs[1].card == "H200");
  CHECK(runs[2].date == "2026-12-01");
  for (const ReferenceRun& r : runs) CHECK(!r.results.variants.empty());
}

TEST_CASE("speed ladder: a step's measured figure is the shipped file's, with its ratios", "[gui][speed]") {
  SpeedLadder ladder;
  ladder.references = load_reference_runs(kReferenceDir);
  const std::vector<SpeedRow> rows = speed_rows(ladder, Measurements{}, "H200", "hopper_two_consumers", {});
  REQUIRE(rows.size() == gs::kernels::all_kernels().size());
  const SpeedRow& two = row_of(rows, "hopper_two_consumers");
  REQUIRE(two.measured);
  const auto [tflops, cublas] = shipped("h200-2026-11-28-ladder.json", "hopper_two_consumers");
  CHECK(two.measured->tflops == Approx(tflops).epsilon(1e-12));
  CHECK(two.measured->source == "H200, 2026-11-28, shipped");
  CHECK_FALSE(two.measured->yours);
  CHECK(two.selected);
  // × the step before: step 13's figure of the same file.
  const auto before = shipped("h200-2026-11-28-ladder.json", "hopper_producer_consumer");
  REQUIRE(two.vs_previous);
  CHECK(*two.vs_previous == Approx(tflops / before.first));
  REQUIRE(two.vs_cublas);
  CHECK(*two.vs_cublas == Approx(tflops / cublas));
  // Step 19 is only in the later H200 run; Blackwell was never measured.
  const SpeedRow& s19 = row_of(rows, "hopper_stmatrix_epilogue");
  REQUIRE(s19.measured);
  CHECK(s19.measured->source == "H200, 2026-12-01, shipped");
  CHECK(s19.measured->tflops == Approx(shipped("h200-2026-12-01-steps-18-19.json", "hopper_stmatrix_epilogue").first));
  const SpeedRow& b = row_of(rows, "blackwell_ws_ring");
  CHECK_FALSE(b.measured);
  CHECK_THAT(b.not_measured, Catch::Contains("not measured here"));
  CHECK_FALSE(b.vs_previous);
}

TEST_CASE("speed ladder: the preferred card's run first, no ratio across cards", "[gui][speed]") {
  SpeedLadder ladder;
  ladder.references = load_reference_runs(kReferenceDir);
  const std::vector<SpeedRow> rows = speed_rows(ladder, Measurements{}, "H100", "simt_naive", {});
  const SpeedRow& tile = row_of(rows, "hopper_tile_128");
  REQUIRE(tile.measured);
  CHECK(tile.measured->tflops == Approx(shipped("h100-2026-12-07-ladder.json", "hopper_tile_128").first));
  CHECK(tile.measured->source == "H100, 2026-12-07, shipped");
  // Step 19 from the H100's own run, × step 18 of the same run.
  const SpeedRow& s19 = row_of(rows, "hopper_stmatrix_epilogue");
  REQUIRE(s19.measured);
  CHECK(s19.measured->source == "H100, 2026-12-07, shipped");
  REQUIRE(s19.vs_previous);
  CHECK(*s19.vs_previous == Approx(shipped("h100-2026-12-07-ladder.json", "hopper_stmatrix_epilogue").first /
                                   shipped("h100-2026-12-07-ladder.json", "hopper_tma_store").first));
  CHECK(row_of(rows, "simt_coalesced").vs_previous.has_value());
  // The shipped H100 run was short (bench all's default): the ladder says so beside it.
  REQUIRE(s19.measured->sustained_ms);
  CHECK(*s19.measured->sustained_ms == 0.0);
  CHECK_THAT(measured_method(*s19.measured), Catch::StartsWith("short runs"));
  MeasuredSpeed held = *s19.measured;
  held.sustained_ms = 2000.0;
  CHECK_THAT(measured_method(held), Catch::StartsWith("after 2 s of load: under the power limit"));
  held.sustained_ms.reset();
  CHECK(measured_method(held).empty());
  // On the H200 step 19 is only in the later run, and its ratio to step 18 is of the one card.
  const std::vector<SpeedRow> h200 = speed_rows(ladder, Measurements{}, "H200", "simt_naive", {});
  CHECK(row_of(h200, "hopper_stmatrix_epilogue").measured->source == "H200, 2026-12-01, shipped");
}

TEST_CASE("speed ladder: the learner's own GPU run replaces the shipped figure", "[gui][speed]") {
  SpeedLadder ladder;
  ladder.references = load_reference_runs(kReferenceDir);
  Measurements mine;
  Variant& v = mine.variant("hopper_tile_128", kSpeedShape, MeasurementSource::gpu, "NVIDIA H100 PCIe");
  v.points.push_back({1.0, 400.0, 700.0, std::nullopt});
  // Another shape or a mistake's run is not the step's speed at 4096³.
  mine.variant("hopper_tma_wgmma_64", {1024, 1024, 1024}, MeasurementSource::gpu, "NVIDIA H100 PCIe")
      .points.push_back({1.0, 123.0, 700.0, std::nullopt});
  const std::vector<SpeedRow> rows = speed_rows(ladder, mine, "H100", "", {});
  const SpeedRow& tile = row_of(rows, "hopper_tile_128");
  REQUIRE(tile.measured);
  CHECK(tile.measured->tflops == 400.0);
  CHECK(tile.measured->source == "your GPU");
  CHECK(tile.measured->yours);
  CHECK(*tile.vs_cublas == Approx(400.0 / 700.0));
  // The step before was measured on another card (the shipped H100 run): no ratio.
  CHECK_FALSE(tile.vs_previous);
  CHECK(row_of(rows, "hopper_tma_wgmma_64").measured->source == "H100, 2026-12-07, shipped");
}

TEST_CASE("speed ladder: a badly named or missing reference folder is an error naming it", "[gui][speed]") {
  CHECK_THROWS_WITH(load_reference_runs("/nonexistent/reference"), Catch::Contains("/nonexistent/reference"));
  const fs::path dir = fs::temp_directory_path() / ("gemmscope-speed-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(kReferenceDir + "/h100-2026-12-07-ladder.json", dir / "ladder.json",
                fs::copy_options::overwrite_existing);
  CHECK_THROWS_WITH(load_reference_runs(dir.string()), Catch::Contains("ladder.json") && Catch::Contains("<card>"));
  fs::remove_all(dir);
}

TEST_CASE("speed ladder: a small shape says how few SMs it fills", "[gui][speed]") {
  CHECK(gpu_fill_sentence(4, 132) == "4 CTAs on 132 SMs: 3% of the GPU; speed shown at 4096³");
  CHECK(gpu_fill_sentence(1, 148) == "1 CTA on 148 SMs: 1% of the GPU; speed shown at 4096³");
  CHECK(gpu_fill_sentence(66, 132) == "66 CTAs on 132 SMs: 50% of the GPU; speed shown at 4096³");
  CHECK(gpu_fill_sentence(132, 132).empty());
  CHECK(gpu_fill_sentence(5000, 132).empty());
  // From the opened kernel's launch (step 13's example shape: a 2 x 2 grid) and its machine.
  AppState app;
  app.open_now({.kernel_id = "hopper_producer_consumer", .only_traced_cta = true});
  REQUIRE(app.kernel);
  CHECK(gpu_fill_sentence(app) == "4 CTAs on 132 SMs: 3% of the GPU; speed shown at 4096³");
  app.open_now({.kernel_id = "blackwell_tcgen05_basic", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const auto& grid = app.kernel->kernel().launch.grid;
  CHECK_THAT(gpu_fill_sentence(app), Catch::StartsWith(std::to_string(grid[0] * grid[1] * grid[2]) + " CTA") &&
                                         Catch::Contains("on 148 SMs"));
}

TEST_CASE("speed ladder: the model's figure is the traced-CTA run's prediction at 4096³, kept for the next start",
          "[gui][speed]") {
  const fs::path dir = fs::temp_directory_path() / ("gemmscope-cache-app-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  AppState app;
  app.request.kernel_id = "hopper_tile_128";
  app.speed_ladder.cache_dir = dir.string();
  app.speed_ladder.program = program_identity();
  predict_speed_ladder_now(app);
  const std::vector<SpeedRow> rows = speed_rows(app);
  const SpeedRow& tile = row_of(rows, "hopper_tile_128");
  REQUIRE(tile.predicted);
  REQUIRE(tile.predicted->done);
  CHECK(tile.predicted->error.empty());
  CHECK(tile.predicted->machine == "H100");
  // The figure `gemmscope sim ID --m 4096 --n 4096 --k 4096 --traced-cta-only` prints: the traced CTA
  // alone, traced (cli/commands_sim.cpp). Step 23 stores C with st.global, which only a traced CTA
  // costs through the store path: run untraced, its figure is 7% higher (1065 against 994 TFLOP/s),
  // which the ladder showed until 2026-12-03.
  for (const char* id : {"hopper_tile_128", "blackwell_persistent_tmem2"}) {
    INFO(id);
    const gs::run::SimReport r =
        gs::run::run_sim({.kernel_id = id, .shape = kSpeedShape, .trace = true, .only_traced_cta = true});
    CHECK(row_of(rows, id).predicted->tflops == Approx(r.result.stats.predicted_tflops).epsilon(1e-12));
  }
  // Far above the example shape's few-CTA figure: the point of showing 4096³.
  CHECK(tile.predicted->tflops > 100.0);
  // Every step has its figure; Blackwell's on the B200, unconfirmed.
  for (const SpeedRow& row : rows) {
    INFO(row.kernel_id);
    REQUIRE(row.predicted);
    CHECK(row.predicted->tflops > 0.0);
  }
  CHECK(row_of(rows, "blackwell_2sm").predicted->machine == "B200");
  CHECK_FALSE(row_of(rows, "blackwell_2sm").predicted->confirmed);
  // Kept: asking again starts nothing.
  request_speed_predictions(app);
  CHECK(app.jobs.empty());
  // And kept on disk: the next start of this build reads every figure and predicts nothing.
  REQUIRE(fs::exists(dir / "speed-ladder.json"));
  AppState next;
  next.request.kernel_id = "hopper_tile_128";
  next.speed_ladder.cache_dir = dir.string();
  next.speed_ladder.program = app.speed_ladder.program;
  read_kept_predictions(next.speed_ladder);
  request_speed_predictions(next);
  CHECK(next.jobs.empty());
  REQUIRE(next.speed_ladder.predictions.size() == app.speed_ladder.predictions.size());
  for (const auto& [key, p] : app.speed_ladder.predictions) {
    INFO(key);
    CHECK(next.speed_ladder.predictions.at(key).tflops == p.tflops);
    CHECK(next.speed_ladder.predictions.at(key).machine == p.machine);
  }
  fs::remove_all(dir);
}

TEST_CASE("speed ladder: the predictions kept on disk are this build's only, and bad files are ignored",
          "[gui][speed]") {
  const fs::path dir = fs::temp_directory_path() / ("gemmscope-cache-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string me = program_identity();
  REQUIRE_FALSE(me.empty());
  std::map<std::string, SpeedPrediction> made;
  made["hopper_tile_128||H100"] = SpeedPrediction{true, 321.5, "H100", true, ""};
  made["blackwell_2sm||B200"] = SpeedPrediction{true, 1234.0, "B200", false, ""};
  made["simt_naive||H100"] = SpeedPrediction{true, 0.0, "H100", true, "cancelled"};  // not a figure: not kept
  made["simt_tiled||H100"] = SpeedPrediction{};                                      // pending: not kept
  std::string why;
  REQUIRE(save_prediction_cache(dir.string(), me, made, &why));
  const auto back = load_prediction_cache(dir.string(), me, &why);
  REQUIRE(back.size() == 2);
  CHECK(back.at("hopper_tile_128||H100").tflops == 321.5);
  CHECK(back.at("hopper_tile_128||H100").done);
  CHECK(back.at("blackwell_2sm||B200").machine == "B200");
  CHECK_FALSE(back.at("blackwell_2sm||B200").confirmed);
  // Another build's file is not read.
  CHECK(load_prediction_cache(dir.string(), me + " (rebuilt)", &why).empty());
  CHECK(why.find("another build") != std::string::npos);
  // Damaged files: nothing read, the reason named, no throw.
  const std::string file = (dir / "speed-ladder.json").string();
  const auto damaged = [&](const std::string& text) {
    std::ofstream(file, std::ios::trunc) << text;
    std::string reason;
    const auto got = load_prediction_cache(dir.string(), me, &reason);
    INFO(text.substr(0, 80));
    CHECK(got.empty());
    CHECK_FALSE(reason.empty());
  };
  damaged("");
  damaged("{\"program\": 3}");
  damaged(std::string(100000, '['));
  damaged(nlohmann::json{{"program", me}, {"predictions", {{"k", {{"tflops", "fast"}}}}}}.dump());
  damaged(nlohmann::json{{"program", me},
                         {"predictions", {{"k", {{"tflops", -1.0}, {"machine", "H100"}, {"confirmed", true},
                                                 {"error", ""}}}}}}.dump());
  std::ofstream(file, std::ios::trunc) << std::string(2 << 20, ' ');  // past the 1 MiB bound
  CHECK(load_prediction_cache(dir.string(), me, &why).empty());
  // No folder: nothing read or kept, and no throw.
  CHECK(load_prediction_cache("", me).empty());
  CHECK_FALSE(save_prediction_cache("", me, made));
  // A folder that cannot be made (a file in its place): not kept, the reason named.
  CHECK_FALSE(save_prediction_cache(file + "/below", me, made, &why));
  CHECK_FALSE(why.empty());
  fs::remove_all(dir);
}
