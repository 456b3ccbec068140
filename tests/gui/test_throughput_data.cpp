// Tests for gui/core/throughput_data: the model's prediction appears as a model-sourced variant
// once a kernel opens, imports and their errors go through the app (problems, never a throw),
// rows carry cuBLAS, ratio and intensity computed from the imported file, and the GPU note
// follows what the GPU runner reported.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/model/machine_ceilings.hpp"
#include "gui/core/app_state.hpp"
#include "gui/core/throughput_data.hpp"
#include "gui/core/view_data.hpp"
#include "tests/cuda/gpu_test_support.hpp"

using namespace gs;
using namespace gs::gui;
using Catch::Matchers::Contains;

namespace {

const std::string kH100Bench = std::string(GEMMSCOPE_SOURCE_DIR) + "/docs/results/2026-11-21-h100/bench.json";

const nlohmann::json* variant_json(const nlohmann::json& d, const std::string& kernel, const std::string& source,
                                   uint32_t m) {
  for (const auto& v : d["variants"])
    if (v["kernel"] == kernel && v["source"] == source && v["shape"]["m"] == m) return &v;
  return nullptr;
}

}  // namespace

TEST_CASE("opening a kernel adds the model's prediction as a model variant", "[gui]") {
  AppState app;
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const double predicted = app.kernel->report.result.stats.predicted_tflops;
  REQUIRE(predicted > 0.0);
  const kernels::GemmShape shape = app.kernel->request.shape;
  const nlohmann::json d = describe_throughput(app);
  const nlohmann::json* v = variant_json(d, "hopper_tma_wgmma_64", "model", shape.m);
  REQUIRE(v != nullptr);
  CHECK((*v)["latest_tflops"].get<double>() == Approx(predicted));
  CHECK((*v)["points"].size() == 1);
  CHECK((*v)["cublas_tflops"].is_null());
  CHECK((*v)["ratio"].is_null());
  // Intensity with bf16 A, B and f32 C at the opened shape, by hand.
  const double m = shape.m, n = shape.n, k = shape.k;
  CHECK((*v)["intensity"].get<double>() == Approx(2 * m * n * k / (2 * (m * k + k * n) + 4 * m * n)));
  // No GPU word yet.
  CHECK(d["gpu_status"] == "unknown");
  // The bench controls' state travels with the view's data, the power-limit option among them.
  CHECK(d["controls"]["sustained"] == false);
  app.throughput_view.sustained = true;
  CHECK(describe_throughput(app)["controls"]["sustained"] == true);
  app.throughput_view.sustained = false;
  // The ceilings are the reference H100's until a file or a GPU says otherwise.
  CHECK(d["ceilings"]["tensor_tflops"].get<double>() == Approx(989.0));
  CHECK(d["ceilings"]["ridge_intensity"].get<double>() == Approx(989.0 / 3.35));
}

TEST_CASE("importing the H100 run shows its TFLOP/s, cuBLAS and ratio per variant", "[gui]") {
  AppState app;
  CHECK(import_bench_json(app, kH100Bench) > 0);
  CHECK(app.problems.empty());
  std::ifstream f(kH100Bench);
  const nlohmann::json file = nlohmann::json::parse(f);
  const nlohmann::json d = describe_throughput(app);
  for (const auto& r : file["results"]) {
    const nlohmann::json* v =
        variant_json(d, r["kernel"].get<std::string>(), "imported", r["shape"]["m"].get<uint32_t>());
    REQUIRE(v != nullptr);
    const double tflops = r["tflops"]["median"], cublas = r["cublas_tflops"];
    CHECK((*v)["latest_tflops"].get<double>() == Approx(tflops));
    CHECK((*v)["cublas_tflops"].get<double>() == Approx(cublas));
    // Our ratio agrees with the one the bench wrote.
    CHECK((*v)["ratio"].get<double>() == Approx(r["ratio_vs_cublas"].get<double>()).epsilon(1e-6));
    CHECK((*v)["device"] == r["device"]);
  }
  const nlohmann::json* hopper = variant_json(d, "hopper_tma_wgmma_64", "imported", 4096);
  REQUIRE(hopper != nullptr);
  CHECK((*hopper)["latest_tflops"].get<double>() == Approx(320.9).margin(0.05));
  CHECK((*hopper)["cublas_tflops"].get<double>() == Approx(758.0).margin(0.5));
  CHECK((*hopper)["intensity"].get<double>() == Approx(1024.0));
  // Ceilings from the file's device: 132 SMs × 4096 FLOP/clock × its reported clock.
  const double clock_ghz = file["device"]["sm_clock_mhz"].get<double>() / 1000.0;
  CHECK(d["ceilings"]["tensor_tflops"].get<double>() ==
        Approx(file["device"]["sms"].get<double>() * 4096 * clock_ghz / 1000.0));
  // Same kernel and shape -> same colour, whatever the source.
  app.measurements.add_model_prediction("hopper_tma_wgmma_64", {4096, 4096, 4096}, 500.0, "H100", 9.0);
  const ThroughputData td = prepare_throughput(app);
  int imported_slot = -1, model_slot = -2;
  for (const ThroughputRow& r : td.rows)
    if (r.kernel_id == "hopper_tma_wgmma_64" && r.shape.m == 4096)
      (r.source == MeasurementSource::model ? model_slot : imported_slot) = r.color_slot;
  CHECK(imported_slot == model_slot);
}

TEST_CASE("import errors become app problems and never throw", "[gui]") {
  AppState app;
  CHECK(import_bench_json(app, "/no/such/bench.json") == 0);
  REQUIRE(app.problems.size() == 1);
  CHECK(app.problems[0].source == "app");
  CHECK(app.problems[0].severity == Severity::error);
  CHECK_THAT(app.problems[0].detail, Contains("/no/such/bench.json"));
  CHECK(import_bench_json(app, std::filesystem::temp_directory_path().string()) == 0);
  REQUIRE(app.problems.size() == 2);
  CHECK_THAT(app.problems[1].detail, Contains("directory"));
  CHECK(app.measurements.variants.empty());
}

TEST_CASE("the GPU note follows the runner's reports", "[gui]") {
  AppState app;
  CHECK(gpu_note(app).state == GpuAvailability::unknown);
  // What request_gpu_bench's completion adds on a machine without a driver.
  app.add_problem({Severity::warning, "gpu", "bench", "GPU bench of simt_naive: no driver", "libcuda.so.1 not found"});
  GpuNote n = gpu_note(app);
  CHECK(n.state == GpuAvailability::not_found);
  CHECK_THAT(n.text, Contains("libcuda.so.1 not found"));
  CHECK(describe_throughput(app)["gpu_status"] == "not found");
  // A GPU result: found, with the device's name.
  AppState with_gpu;
  with_gpu.measurements.add_bench_json({{"kernel", "simt_naive"},
                                        {"shape", {{"m", 1024}, {"n", 1024}, {"k", 1024}}},
                                        {"tflops", {{"median", 5.0}}},
                                        {"device", "NVIDIA H100 80GB HBM3"}},
                                       MeasurementSource::gpu, 1.0);
  n = gpu_note(with_gpu);
  CHECK(n.state == GpuAvailability::found);
  CHECK_THAT(n.text, Contains("NVIDIA H100 80GB HBM3"));
}

TEST_CASE("bench controls: shapes, defaults and invalid requests", "[gui]") {
  ThroughputControls c = default_throughput_controls();
  CHECK(c.kernel_ids.size() == kernels::all_kernels().size());
  // Timed a few launches after a start unless asked to run under the power limit first (2 s).
  CHECK_FALSE(c.sustained);
  CHECK(ThroughputControls::kSustainMs == 2000.0);
  c.shape_choice = 3;
  CHECK(bench_shape(c).m == 8192);
  CHECK(bench_shape(c).k == 8192);
  c.shape_choice = int(std::size(kBenchSizes));  // custom
  c.custom = {128, 256, 512};
  CHECK(bench_shape(c).n == 256);
  // A shape the Hopper kernel cannot take (M not a multiple of its 64-row tile) is refused
  // with the kernel's own message and starts nothing.
  AppState app;
  c.kernel_ids = {"hopper_tma_wgmma_64"};
  c.custom = {100, 128, 128};
  CHECK_FALSE(start_gpu_bench(app, c));
  CHECK(app.jobs.empty());
  REQUIRE(app.problems.size() == 1);
  CHECK(app.problems[0].source == "app");
  CHECK_THAT(app.problems[0].detail, Contains("100"));
  // No kernel ticked.
  c.kernel_ids.clear();
  CHECK_FALSE(start_gpu_bench(app, c));
  CHECK(app.problems.size() == 2);
}

TEST_CASE("a GPU bench from the app: points arrive as jobs complete, or the note says no GPU", "[gui][gpu]") {
  AppState app;
  app.settings.bench_reps = 5;
  app.request_gpu_bench({"hopper_tma_wgmma_64"}, {1024, 1024, 1024}, 2);
  CHECK(gpu_note(app).state == GpuAvailability::benchmarking);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  while (app.busy() && std::chrono::steady_clock::now() < deadline) {
    app.poll_jobs();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  app.poll_jobs();
  REQUIRE_FALSE(app.busy());
  const std::string& skip = cuda::test::gpu_skip_reason();
  const GpuNote note = gpu_note(app);
  const nlohmann::json d = describe_throughput(app);
  if (!skip.empty()) {
    // No GPU here: one warning problem from the runner, the note says so, nothing plotted.
    CHECK(note.state == GpuAvailability::not_found);
    CHECK(d["gpu_status"] == "not found");
    CHECK(app.measurements.variants.empty());
    REQUIRE(app.problems.size() == 1);
    CHECK(app.problems[0].severity == Severity::warning);
    CHECK(app.problems[0].source == "gpu");
    return;
  }
  INFO(app.problems.size() << " problem(s): " << (app.problems.empty() ? "" : app.problems[0].detail));
  CHECK(note.state == GpuAvailability::found);
  const nlohmann::json* v = variant_json(d, "hopper_tma_wgmma_64", "gpu", 1024);
  REQUIRE(v != nullptr);
  const auto& points = (*v)["points"];
  REQUIRE(points.size() == 2);  // one point per repeat, in time order
  CHECK(points[0]["t"].get<double>() < points[1]["t"].get<double>());
  const double tflops = (*v)["latest_tflops"], cublas = (*v)["cublas_tflops"];
  CHECK(tflops > 1.0);
  CHECK(tflops < d["ceilings"]["tensor_tflops"].get<double>());
  CHECK(cublas > 1.0);
  CHECK((*v)["ratio"].get<double>() == Approx(tflops / cublas));
  WARN("GPU bench from the app: " << tflops << " TFLOP/s, cuBLAS " << cublas << " on " << (*v)["device"]);
}

TEST_CASE("roofline: the verdict is read off the point and the roofs drawn", "[gui][throughput]") {
  // At 2048x2048x1024 step 16's CTAs each fetch their tiles of A and B through L2 (about 80
  // FLOP per L2 byte, left of the ridge), but the GEMM's unique DRAM bytes give 341 FLOP/byte,
  // right of it: the point drawn at 341 sits under the tensor roof, and so must the verdict.
  AppState app;
  app.open_now({.kernel_id = "hopper_fewer_arrivals", .shape = {2048, 2048, 1024}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const nlohmann::json j = describe_throughput(app);
  const nlohmann::json& v = j["verdict"];
  REQUIRE(v.is_object());
  CHECK(v["intensity"].get<double>() == Approx(2.0 * 2048 * 2048 * 1024 / (2.0 * 2 * 2048 * 1024 + 4.0 * 2048 * 2048)));
  CHECK(v["memory_bound"] == false);
  CHECK(v["roof"] == "tensor");
  CHECK(j["achieved"]["l2_intensity"].get<double>() < v["ridge"].get<double>());
  CHECK_THAT(j["caption"].get<std::string>(), Contains("compute-bound") && !Contains("memory-bound"));
  // Every row: the verdict follows from where the row is drawn, and the model's point is under
  // the roof drawn over it.
  for (const auto& r : j["variants"]) {
    INFO(r["label"]);
    CHECK(r["roof"]["intensity"] == r["intensity"]);
    CHECK(r["roof"]["memory_bound"] == (r["intensity"].get<double>() < r["roof"]["ridge"].get<double>()));
    CHECK(r["latest_tflops"].get<double>() <= r["roof"]["roof_tflops"].get<double>());
  }
}

TEST_CASE("roofline: a Blackwell step is drawn against the B200's ceilings", "[gui][throughput]") {
  AppState app;
  CHECK(import_bench_json(app, kH100Bench) > 0);
  app.open_now({.kernel_id = "blackwell_2sm", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const nlohmann::json j = describe_throughput(app);
  CHECK(j["ceilings"]["machine"] == "B200");
  CHECK(j["ceilings"]["tensor_tflops"].get<double>() == Approx(model::timing::kB200Ceilings.tensor_tflops));
  CHECK(j["ceilings"]["memory_tbps"].get<double>() == Approx(model::timing::kB200Ceilings.memory_tbps));
  int model_rows = 0, h100_rows = 0;
  for (const auto& r : j["variants"]) {
    INFO(r["label"]);
    if (r["source"] == "model") {
      ++model_rows;
      CHECK(r["machine"] == "B200");
      CHECK(r["on_roofline"] == true);
      CHECK(r["latest_tflops"].get<double>() <= r["roof"]["roof_tflops"].get<double>());
    } else {
      ++h100_rows;
      CHECK(r["machine"] == "H100");
      CHECK(r["on_roofline"] == false);  // the H100 runs are not drawn under a B200's roofs
    }
  }
  CHECK(model_rows == 1);
  CHECK(h100_rows > 0);
  // Back on a Hopper step, the imported H100's own ceilings return.
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  CHECK(describe_throughput(app)["ceilings"]["machine"] == "H100");
  CHECK(describe_throughput(app)["ceilings"]["name"] == app.measurements.ceilings.name);
}

TEST_CASE("roofline: imported fp32 SIMT results are judged against the fp32 roof", "[gui][throughput]") {
  AppState app;
  CHECK(import_bench_json(app, kH100Bench) > 0);
  const nlohmann::json j = describe_throughput(app);
  const nlohmann::json* naive = variant_json(j, "simt_naive", "imported", 4096);
  REQUIRE(naive != nullptr);
  CHECK((*naive)["fp32"] == true);
  CHECK((*naive)["roof"]["ceiling_tflops"].get<double>() == Approx(j["ceilings"]["fp32_tflops"].get<double>()));
  CHECK((*naive)["roof"]["roof"] == "fp32");
  const nlohmann::json* hopper = variant_json(j, "hopper_tma_wgmma_64", "imported", 4096);
  REQUIRE(hopper != nullptr);
  CHECK((*hopper)["roof"]["roof"] == "tensor");
}

TEST_CASE("roofline: tiling raises the achieved intensity; TMA bytes count for the Hopper steps", "[gui][throughput]") {
  const auto achieved = [](const std::string& id, kernels::GemmShape shape) {
    auto k = open_kernel({.kernel_id = id, .shape = shape, .only_traced_cta = true});
    const auto a = achieved_intensity(*k);
    REQUIRE(a);
    return *a;
  };
  const AchievedIntensity naive = achieved("simt_naive", {128, 128, 64});
  const AchievedIntensity tiled = achieved("simt_warptile", {128, 128, 64});
  CHECK(tiled.intensity() > 10.0 * naive.intensity());
  const AchievedIntensity tma = achieved("hopper_tma_wgmma_64", {128, 128, 256});
  CHECK(tma.tma_bytes > 0);
  CHECK_FALSE(tma.fp32);
  // 64x64 tile, K 256: A and B tiles of 64x256 bf16 each, read once per CTA: 2·64·64·256 FLOP
  // over 2·64·256·2 bytes of TMA plus C's stores.
  CHECK(tma.tma_bytes == 2 * 64 * 256 * 2);
}

TEST_CASE("roofline: a kernel predicted on an H200 is drawn against the H200's ceilings, with its runs",
          "[gui][throughput]") {
  AppState app;
  app.predict_on = &model::timing::kH200;
  CHECK(import_bench_json(app, kH100Bench) > 0);
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const nlohmann::json j = describe_throughput(app);
  CHECK(j["ceilings"]["machine"] == "H200");
  CHECK(j["ceilings"]["memory_tbps"].get<double>() == Approx(model::timing::kH200Ceilings.memory_tbps));
  int model_rows = 0;
  for (const auto& r : j["variants"]) {
    INFO(r["label"]);
    if (r["source"] == "model") {
      ++model_rows;
      CHECK(r["machine"] == "H200");
      CHECK(r["on_roofline"] == true);
    } else {
      CHECK(r["on_roofline"] == false);  // the imported H100 runs are not drawn under the H200's roofs
    }
  }
  CHECK(model_rows == 1);
}

TEST_CASE("a GPU result's paired rounds, spread, power and method reach the throughput rows", "[gui][throughput]") {
  AppState app;
  // A result as `gemmscope bench --json` writes it since paired rounds and NVML sampling.
  const nlohmann::json result = {
      {"kernel", "hopper_persistent"},
      {"shape", {{"m", 4096}, {"n", 4096}, {"k", 4096}}},
      {"device", "NVIDIA H200"},
      {"tflops", {{"median", 744.6}, {"min", 740.0}, {"max", 747.0}}},
      {"cublas_tflops", 777.7},
      {"ratio_vs_cublas", 0.962},
      {"ratio_iqr", {0.958, 0.965}},
      {"paired_rounds", true},
      {"method", "3 warm-up launches, then 20 timed; ours and cuBLAS alternated launch by launch (paired rounds)"},
      {"conditions",
       {{"samples", 40},
        {"power_w", {{"median", 612.0}, {"max", 655.0}}},
        {"temperature_c_max", 58},
        {"sm_clock_reported_mhz", {{"median", 1980}, {"min", 1965}}},
        {"clock_limits", {"power cap"}}}}};
  CHECK(app.measurements.add_bench_json(result, MeasurementSource::imported, 0.0) == 1);
  const nlohmann::json d = describe_throughput(app);
  const nlohmann::json* v = variant_json(d, "hopper_persistent", "imported", 4096);
  REQUIRE(v != nullptr);
  // The paired rounds' median, not latest / cuBLAS (744.6 / 777.7 = 0.957).
  CHECK((*v)["ratio"].get<double>() == Approx(0.962));
  CHECK((*v)["ratio_iqr"] == nlohmann::json::array({0.958, 0.965}));
  CHECK((*v)["power_w"].get<double>() == Approx(612.0));
  CHECK((*v)["temperature_c"] == 58);
  CHECK((*v)["clock_limits"] == nlohmann::json::array({"power cap"}));
  CHECK_THAT((*v)["method"].get<std::string>(), Catch::Contains("paired rounds"));
  // A figure that makes no sense is left out, not shown.
  nlohmann::json odd = result;
  odd["shape"]["m"] = 8192;
  odd["conditions"]["power_w"]["median"] = -5.0;
  odd["ratio_iqr"] = {"a", 0.9};
  CHECK(app.measurements.add_bench_json(odd, MeasurementSource::imported, 1.0) == 1);
  const nlohmann::json d2 = describe_throughput(app);
  const nlohmann::json* o = variant_json(d2, "hopper_persistent", "imported", 8192);
  REQUIRE(o != nullptr);
  CHECK((*o)["power_w"].is_null());
  CHECK((*o)["ratio_iqr"].is_null());
  CHECK((*o)["ratio"].get<double>() == Approx(744.6 / 777.7));
}

TEST_CASE("roofline: the compute ceiling at the clock a run of the kernel on screen held, beside the rated one",
          "[gui][throughput][clock]") {
  // An H200 result of step 16 whose SMs counted 1367 MHz (NVML reported 1500 meanwhile).
  const auto result = [](const char* kernel, uint32_t size, std::optional<double> counted) {
    nlohmann::json r = {{"kernel", kernel},
                        {"shape", {{"m", size}, {"n", size}, {"k", size}}},
                        {"tflops", {{"median", 640.0}, {"min", 630.0}, {"max", 650.0}}},
                        {"device", "NVIDIA H200"},
                        {"status", "ok"},
                        {"conditions", {{"sm_clock_reported_mhz", {{"median", 1500}, {"min", 1500}}}}}};
    if (counted) r["sm_clock_counted_mhz"] = *counted;
    return r;
  };
  AppState app;
  app.open_now({.kernel_id = "hopper_fewer_arrivals", .only_traced_cta = true, .machine = &model::timing::kH200});
  REQUIRE(app.kernel);
  // An old file, without the counted clock: the rated ceiling only.
  REQUIRE(app.measurements.add_bench_json(result("hopper_fewer_arrivals", 8192, std::nullopt),
                                          MeasurementSource::imported, 1.0) == 1);
  nlohmann::json j = describe_throughput(app);
  CHECK(j["held_ceiling"].is_null());
  CHECK_THAT(j["caption"].get<std::string>(), !Contains("held"));
  CHECK(j["ceilings"]["tensor_clock_mhz"].get<double>() == model::timing::kH200.desc->clock_rated_mhz.value);
  // Another kernel's counted clock is not this kernel's.
  REQUIRE(app.measurements.add_bench_json(result("hopper_persistent", 8192, 1500.0), MeasurementSource::imported, 2.0) ==
          1);
  CHECK(describe_throughput(app)["held_ceiling"].is_null());
  // This kernel's: 989 TFLOP/s at 1.83 GHz becomes 989 x 1367 / 1830 = 739 at the clock it held.
  REQUIRE(app.measurements.add_bench_json(result("hopper_fewer_arrivals", 8192, 1367.0), MeasurementSource::imported,
                                          3.0) == 1);
  const ThroughputData d = prepare_throughput(app);
  REQUIRE(d.held);
  CHECK(d.held->clock_mhz == 1367.0);
  CHECK_FALSE(d.held->fp32);
  CHECK(d.held->rated_tflops == Approx(989.0));
  CHECK(d.held->rated_clock_mhz == 1830.0);
  CHECK(d.held->tflops == Approx(989.0 * 1367.0 / 1830.0));
  CHECK(d.held->text == "bf16 tensor 989 TFLOP/s at 1.83 GHz; this run held 1.37 GHz: 739");
  CHECK(d.held->label == d.rows[d.held->row].label);
  CHECK_THAT(d.held->label, Contains("hopper_fewer_arrivals 8192"));
  j = describe_throughput(app);
  CHECK(j["held_ceiling"]["clock_mhz"].get<double>() == 1367.0);
  CHECK(j["held_ceiling"]["tflops"].get<double>() == Approx(738.8).margin(0.1));
  CHECK_THAT(j["caption"].get<std::string>(), Contains("held 1.37 GHz: 739 TFLOP/s"));
  // Each variant says what its SMs counted (null where they did not).
  const nlohmann::json* counted = variant_json(j, "hopper_fewer_arrivals", "imported", 8192);
  REQUIRE(counted != nullptr);
  CHECK((*counted)["sm_clock_counted_mhz"].get<double>() == 1367.0);
  // A run at the shape on screen wins over one at another shape.
  const kernels::GemmShape here = app.kernel->report.shape;
  nlohmann::json same = result("hopper_fewer_arrivals", 8192, 1401.0);
  same["shape"] = {{"m", here.m}, {"n", here.n}, {"k", here.k}};
  REQUIRE(app.measurements.add_bench_json(same, MeasurementSource::imported, 4.0) == 1);
  CHECK(prepare_throughput(app).held->clock_mhz == 1401.0);
  // Runs on another card than the figure's are not drawn under its roofs, nor give its held clock.
  AppState h100;
  h100.open_now({.kernel_id = "hopper_fewer_arrivals", .only_traced_cta = true, .machine = &model::timing::kH100});
  REQUIRE(h100.measurements.add_bench_json(result("hopper_fewer_arrivals", 8192, 1367.0), MeasurementSource::imported,
                                           1.0) == 1);
  CHECK_FALSE(prepare_throughput(h100).held);
}

TEST_CASE("each point carries the card's SM clock and power: counted and sampled for a GPU run, the model's own clock "
          "for its prediction",
          "[gui][throughput][clock]") {
  const auto run = [](std::optional<double> counted, std::optional<double> watts) {
    nlohmann::json r = {{"kernel", "hopper_persistent"},
                        {"shape", {{"m", 4096}, {"n", 4096}, {"k", 4096}}},
                        {"tflops", {{"median", 600.0}, {"min", 590.0}, {"max", 610.0}}},
                        {"device", "NVIDIA H200"},
                        {"status", "ok"}};
    if (counted) r["sm_clock_counted_mhz"] = *counted;
    if (watts) r["conditions"] = {{"power_w", {{"median", *watts}, {"max", *watts + 3.0}}}};
    return r;
  };
  AppState app;
  REQUIRE(app.measurements.add_bench_json(run(1620.0, 690.0), MeasurementSource::gpu, 5.0) == 1);
  REQUIRE(app.measurements.add_bench_json(run(std::nullopt, 650.0), MeasurementSource::gpu, 9.0) == 1);
  ModelPrediction mp;
  mp.prediction.clock_hz = 1.55e9;
  mp.machine = "H200";
  app.measurements.add_model_prediction("hopper_persistent", {4096, 4096, 4096}, 640.0, "H200", 1.0, mp);
  const ThroughputData d = prepare_throughput(app);
  const auto row = [&](MeasurementSource s) {
    const auto it = std::find_if(d.rows.begin(), d.rows.end(), [&](const ThroughputRow& r) { return r.source == s; });
    REQUIRE(it != d.rows.end());
    return *it;
  };
  const ThroughputRow gpu = row(MeasurementSource::gpu), model = row(MeasurementSource::model);
  REQUIRE(gpu.clock_mhz.size() == 2);
  REQUIRE(gpu.power_w.size() == 2);
  CHECK(gpu.clock_mhz[0] == 1620.0);
  CHECK(std::isnan(gpu.clock_mhz[1]));  // not counted: not guessed from NVML or the point before
  CHECK(gpu.power_w[0] == 690.0);
  CHECK(gpu.power_w[1] == 650.0);
  REQUIRE(model.clock_mhz.size() == 1);
  CHECK(model.clock_mhz[0] == Approx(1550.0));
  CHECK(std::isnan(model.power_w[0]));  // the model has no power
  // The same in the view's JSON, null where not known.
  const nlohmann::json j = describe_throughput(app);
  const nlohmann::json* g = variant_json(j, "hopper_persistent", "gpu", 4096);
  REQUIRE(g != nullptr);
  const nlohmann::json& pts = (*g)["points"];
  REQUIRE(pts.size() == 2);
  CHECK(pts[0]["clock_mhz"].get<double>() == 1620.0);
  CHECK(pts[1]["clock_mhz"].is_null());
  CHECK(pts[1]["power_w"].get<double>() == 650.0);
  const nlohmann::json* m = variant_json(j, "hopper_persistent", "model", 4096);
  REQUIRE(m != nullptr);
  CHECK((*m)["points"][0]["clock_mhz"].get<double>() == Approx(1550.0));
  CHECK((*m)["points"][0]["power_w"].is_null());
}
