// Tests for gui/core/measurements: importing `gemmscope bench --json` output (our H100 run in
// docs/results, read here independently with nlohmann::json), errors that name the bad field or
// path, arithmetic intensity by hand, and ceilings from a device description checked against
// the figures in ../shared/reference/hopper-blackwell-facts.md.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "gui/core/measurements.hpp"
#include "tests/support/scratch.hpp"

using namespace gs;
using namespace gs::gui;
using Catch::Matchers::Contains;
using gs::test::thrown_message;

namespace {

const std::string kH100Bench = std::string(GEMMSCOPE_SOURCE_DIR) + "/docs/results/2026-11-21-h100/bench.json";

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

const Variant* find_variant(const Measurements& m, const std::string& id, uint32_t size) {
  for (const Variant& v : m.variants)
    if (v.kernel_id == id && v.shape.m == size && v.shape.n == size && v.shape.k == size) return &v;
  return nullptr;
}

// A temporary file holding `text`, removed at scope end.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& text) {
    path = (std::filesystem::temp_directory_path() / ("gemmscope_test_" + std::to_string(std::rand()) + ".json")).string();
    std::ofstream(path) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

}  // namespace

TEST_CASE("importing the H100 bench.json gives the file's TFLOP/s and cuBLAS figures", "[gui]") {
  REQUIRE(std::filesystem::exists(kH100Bench));
  const nlohmann::json file = read_json(kH100Bench);
  Measurements m;
  const int added = m.import_file(kH100Bench, 1.0);
  int ok_results = 0;
  for (const auto& r : file["results"]) {
    if (r["status"] != "ok") continue;
    ++ok_results;
    const Variant* v = find_variant(m, r["kernel"].get<std::string>(), r["shape"]["m"].get<uint32_t>());
    REQUIRE(v != nullptr);
    CHECK(v->source == MeasurementSource::imported);
    CHECK(v->device == r["device"].get<std::string>());
    CHECK(v->latest_tflops() == Approx(r["tflops"]["median"].get<double>()));
    REQUIRE(v->latest_cublas());
    CHECK(*v->latest_cublas() == Approx(r["cublas_tflops"].get<double>()));
  }
  CHECK(added == ok_results);
  CHECK(ok_results >= 1);
  // The figure the project quotes for its H100 run at 4096³.
  const Variant* hopper = find_variant(m, "hopper_tma_wgmma_64", 4096);
  REQUIRE(hopper != nullptr);
  CHECK(hopper->latest_tflops() == Approx(320.9).margin(0.05));
  CHECK(*hopper->latest_cublas() == Approx(758.0).margin(0.5));
  // The file's device description sets the ceilings (an H100 at its 1980 MHz maximum clock).
  CHECK(m.ceilings.name == file["device"]["name"].get<std::string>());
  // Importing twice adds a second point to the same variants, not new variants.
  const size_t variants = m.variants.size();
  m.import_file(kH100Bench, 2.0);
  CHECK(m.variants.size() == variants);
  CHECK(find_variant(m, "hopper_tma_wgmma_64", 4096)->points.size() == 2);
}

TEST_CASE("malformed bench JSON names the field that is wrong", "[gui]") {
  const nlohmann::json good = {{"kernel", "simt_naive"},
                               {"shape", {{"m", 256}, {"n", 256}, {"k", 128}}},
                               {"tflops", {{"median", 1.5}, {"min", 1.4}, {"max", 1.6}}},
                               {"device", "test GPU"},
                               {"cublas_tflops", 3.0}};
  Measurements m;
  CHECK(m.add_bench_json(good, MeasurementSource::gpu, 0.0) == 1);
  CHECK(m.variants.at(0).latest_tflops() == 1.5);
  CHECK(*m.variants.at(0).latest_cublas() == 3.0);

  nlohmann::json j = good;
  j.erase("tflops");
  CHECK_THAT(thrown_message([&] { m.add_bench_json(j, MeasurementSource::gpu, 0.0); }), Contains("'tflops'"));
  j = good;
  j["shape"].erase("k");
  CHECK_THAT(thrown_message([&] { m.add_bench_json(j, MeasurementSource::gpu, 0.0); }), Contains("'k'"));
  j = good;
  j["tflops"]["median"] = "fast";
  CHECK_THAT(thrown_message([&] { m.add_bench_json(j, MeasurementSource::gpu, 0.0); }), Contains("'median'"));
  j = good;
  j.erase("kernel");
  CHECK_THAT(thrown_message([&] { m.add_bench_json(j, MeasurementSource::gpu, 0.0); }), Contains("'kernel'"));
  CHECK_THAT(thrown_message([&] { m.add_bench_json({{"results", 5}}, MeasurementSource::gpu, 0.0); }),
             Contains("'results'"));
  CHECK_THAT(thrown_message([&] { m.add_bench_json(42, MeasurementSource::gpu, 0.0); }), Contains("object"));
  // A failed run without timing is skipped, not an error.
  j = good;
  j["status"] = "failed";
  j["tflops"] = nullptr;
  CHECK(m.add_bench_json(j, MeasurementSource::gpu, 0.0) == 0);
  CHECK(m.variants.size() == 1);  // nothing half-added by the failures above
}

TEST_CASE("a bench result with non-default build parameters is its own variant", "[gui][params]") {
  nlohmann::json j = {{"kernel", "hopper_two_consumers"},
                      {"shape", {{"m", 4096}, {"n", 4096}, {"k", 4096}}},
                      {"tflops", {{"median", 600.0}, {"min", 590.0}, {"max", 610.0}}},
                      {"device", "test GPU"},
                      {"params", {{"stages", 3}}}};
  Measurements m;
  CHECK(m.add_bench_json(j, MeasurementSource::gpu, 0.0) == 1);
  j["params"]["stages"] = 2;
  j["tflops"]["median"] = 500.0;
  CHECK(m.add_bench_json(j, MeasurementSource::gpu, 1.0) == 1);
  REQUIRE(m.variants.size() == 2);
  CHECK(m.variants[0].params.empty());  // the default: the kernel as it ships
  CHECK(m.variants[1].params == "stages=2");
  CHECK_THAT(m.variants[1].label(), Contains("hopper_two_consumers stages=2 4096"));
  j["params"] = {{"stages", "deep"}};
  CHECK_THAT(thrown_message([&] { m.add_bench_json(j, MeasurementSource::gpu, 0.0); }), Contains("'stages'"));
  j["params"] = 3;
  CHECK_THAT(thrown_message([&] { m.add_bench_json(j, MeasurementSource::gpu, 0.0); }), Contains("'params'"));
}

TEST_CASE("importing a missing file, a directory or broken JSON gives a clear error", "[gui]") {
  Measurements m;
  const std::string missing = "/nonexistent/dir/bench.json";
  CHECK_THAT(thrown_message([&] { m.import_file(missing, 0.0); }), Contains(missing) && Contains("no such file"));
  const std::string dir = std::filesystem::temp_directory_path().string();
  CHECK_THAT(thrown_message([&] { m.import_file(dir, 0.0); }), Contains("directory"));
  CHECK_THAT(thrown_message([&] { m.import_file("", 0.0); }), Contains("no file"));
  TempFile broken("{\"results\": [ {\"kernel\": ");
  CHECK_THAT(thrown_message([&] { m.import_file(broken.path, 0.0); }), Contains(broken.path) && Contains("not valid JSON"));
  TempFile no_tflops(R"({"results": [{"kernel": "simt_naive", "shape": {"m": 64, "n": 64, "k": 64}}]})");
  CHECK_THAT(thrown_message([&] { m.import_file(no_tflops.path, 0.0); }),
             Contains(no_tflops.path) && Contains("'tflops'"));
  CHECK(m.variants.empty());
}

TEST_CASE("arithmetic intensity of a GEMM, by hand", "[gui]") {
  // 4096³, bf16 A and B (2 bytes), f32 C (4 bytes): each matrix moved once.
  const double n = 4096.0;
  const double by_hand = 2.0 * n * n * n / (2.0 * n * n * 2.0 + n * n * 4.0);  // = 1024 FLOP/byte
  CHECK(gemm_intensity({4096, 4096, 4096}, kernels::DType::bf16, kernels::DType::f32) == Approx(by_hand));
  CHECK(by_hand == Approx(1024.0));
  // All f32: 2·M·N·K / (4·(MK + KN + MN)), a non-square shape.
  const double m = 128, nn = 256, k = 64;
  CHECK(gemm_intensity({128, 256, 64}, kernels::DType::f32, kernels::DType::f32) ==
        Approx(2 * m * nn * k / (4 * (m * k + k * nn + m * nn))));
  // A variant uses its kernel's types: hopper_tma_wgmma_64 is bf16 in, f32 out.
  Measurements ms;
  Variant& v = ms.variant("hopper_tma_wgmma_64", {4096, 4096, 4096}, MeasurementSource::model, "model");
  CHECK(ms.intensity_of(v) == Approx(by_hand));
}

TEST_CASE("ceilings from a device description match the H100 reference figures", "[gui]") {
  // The H100 of our run: 132 SMs, 1980 MHz maximum clock, HBM3 at 2619 MHz on 5120 bits.
  const nlohmann::json h100 = {{"name", "NVIDIA H100 80GB HBM3"}, {"cc_major", 9},          {"cc_minor", 0},
                               {"sms", 132},                      {"sm_clock_mhz", 1980},   {"mem_clock_mhz", 2619},
                               {"mem_bus_width", 5120}};
  auto c = ceilings_from_device(h100);
  REQUIRE(c);
  CHECK(c->tensor_tflops == Approx(1070.0).margin(1.0));  // facts: "1070 at the 1.98 GHz maximum clock"
  CHECK(c->memory_tbps == Approx(3.35).margin(0.01));     // facts: 3.35 TB/s peak
  CHECK(c->fp32_tflops == Approx(67.0).margin(0.5));      // facts: about 67 TFLOP/s fp32
  // At the rated 1.83 GHz the tensor figure is NVIDIA's 989.4.
  nlohmann::json rated = h100;
  rated["sm_clock_mhz"] = 1830;
  CHECK(ceilings_from_device(rated)->tensor_tflops == Approx(989.4).margin(0.5));
  CHECK(ceilings_from_device(rated)->ridge_intensity() == Approx(989.4 / 3.352).margin(0.5));
  // Unknown architectures and missing fields leave the ceilings alone.
  nlohmann::json unknown = h100;
  unknown["cc_major"] = 7;
  CHECK_FALSE(ceilings_from_device(unknown));
  CHECK_FALSE(ceilings_from_device({{"name", "x"}}));
  CHECK_FALSE(ceilings_from_device("NVIDIA H100"));
}

TEST_CASE("a single GPU result that describes its device sets the roofline's ceilings", "[gui]") {
  // What a live bench in the app adds: one result of run::bench_result_json, not a whole file.
  nlohmann::json result = {{"kernel", "hopper_tma_wgmma_64"},
                           {"shape", {{"m", 4096}, {"n", 4096}, {"k", 4096}}},
                           {"tflops", {{"median", 322.1}, {"min", 300.0}, {"max", 330.0}}},
                           {"cublas_tflops", 757.5},
                           {"device", "NVIDIA H100 80GB HBM3"},
                           {"status", "ok"}};
  Measurements without;
  const DeviceCeilings defaults = without.ceilings;
  REQUIRE(without.add_bench_json(result, MeasurementSource::gpu, 1.0) == 1);
  CHECK(without.ceilings.tensor_tflops == defaults.tensor_tflops);  // nothing to go on: the defaults stay

  // The H100 of our runs at its 1980 MHz maximum clock: 132 × 4096 × 1.98 GHz.
  result["device_info"] = {{"name", "NVIDIA H100 80GB HBM3"}, {"cc_major", 9},        {"cc_minor", 0},
                           {"sms", 132},                      {"sm_clock_mhz", 1980}, {"mem_clock_mhz", 2619},
                           {"mem_bus_width", 5120}};
  Measurements with;
  REQUIRE(with.add_bench_json(result, MeasurementSource::gpu, 1.0) == 1);
  CHECK(with.ceilings.name == "NVIDIA H100 80GB HBM3");
  CHECK(with.ceilings.tensor_tflops == Approx(1070.5).margin(0.5));
  CHECK(with.ceilings.tensor_tflops != Approx(defaults.tensor_tflops).margin(1.0));
  CHECK(with.ceilings.basis.find("132 SMs") != std::string::npos);
}

namespace {
// The notes of a bench result imported with `key` set to `value` (the result still imported).
MeasurementNotes imported_notes(nlohmann::json result, const char* key, const nlohmann::json& value) {
  result[key] = value;
  Measurements m;
  REQUIRE(m.add_bench_json(result, MeasurementSource::imported, 1.0) == 1);
  return m.variants.front().points.back().notes;
}
}  // namespace

TEST_CASE("the SM clock a run held is read from bench's sm_clock_counted_mhz, never from NVML's reported clock",
          "[gui][clock]") {
  nlohmann::json result = {{"kernel", "hopper_fewer_arrivals"},
                           {"shape", {{"m", 8192}, {"n", 8192}, {"k", 8192}}},
                           {"tflops", {{"median", 640.0}, {"min", 630.0}, {"max", 650.0}}},
                           {"device", "NVIDIA H200"},
                           {"status", "ok"},
                           {"conditions", {{"sm_clock_reported_mhz", {{"median", 1500}, {"min", 1500}}}}},
                           {"sm_clock_counted_mhz", 1367.4}};
  Measurements m;
  REQUIRE(m.add_bench_json(result, MeasurementSource::imported, 1.0) == 1);
  REQUIRE(m.variants.front().points.back().notes.counted_clock_mhz);
  CHECK(*m.variants.front().points.back().notes.counted_clock_mhz == Approx(1367.4));
  // A file of before the field, a null (not counted), and nonsense: absent, and the result still imported.
  for (const nlohmann::json& value : {nlohmann::json(nullptr), nlohmann::json("fast"), nlohmann::json(-5),
                                      nlohmann::json(1e12)}) {
    INFO(value.dump());
    CHECK_FALSE(imported_notes(result, "sm_clock_counted_mhz", value).counted_clock_mhz);
  }
  result.erase("sm_clock_counted_mhz");
  Measurements old;
  REQUIRE(old.add_bench_json(result, MeasurementSource::imported, 1.0) == 1);
  CHECK_FALSE(old.variants.front().points.back().notes.counted_clock_mhz);  // the reported 1500 is not taken for it
}

TEST_CASE("how long the card ran before a result's timed rounds is read from bench's sustained_ms", "[gui][clock]") {
  nlohmann::json result = {{"kernel", "hopper_producer_consumer"},
                           {"shape", {{"m", 4096}, {"n", 4096}, {"k", 4096}}},
                           {"tflops", {{"median", 494.0}, {"min", 490.0}, {"max", 500.0}}},
                           {"device", "NVIDIA H200"},
                           {"status", "ok"},
                           {"sustained_ms", 2004.6}};
  Measurements m;
  REQUIRE(m.add_bench_json(result, MeasurementSource::imported, 1.0) == 1);
  REQUIRE(m.variants.front().points.back().notes.sustained_ms);
  CHECK(*m.variants.front().points.back().notes.sustained_ms == Approx(2004.6));
  for (const nlohmann::json& value : {nlohmann::json(nullptr), nlohmann::json("long"), nlohmann::json(-1)}) {
    INFO(value.dump());
    CHECK_FALSE(imported_notes(result, "sustained_ms", value).sustained_ms);
  }
  result.erase("sustained_ms");  // a file of before the option
  Measurements old;
  REQUIRE(old.add_bench_json(result, MeasurementSource::imported, 1.0) == 1);
  CHECK_FALSE(old.variants.front().points.back().notes.sustained_ms);
}

TEST_CASE("a compute ceiling at another clock is the same SMs and FLOP per cycle at that clock", "[gui][clock]") {
  const DeviceCeilings rated;  // the H100's: 989 TFLOP/s bf16 at 1.83 GHz, 67 fp32 at 1.98 GHz
  CHECK(rated.compute_tflops_at(false, 1830.0) == Approx(989.0));
  CHECK(rated.compute_tflops_at(false, 1680.0) == Approx(989.0 * 1680.0 / 1830.0));  // 908
  CHECK(rated.compute_tflops_at(false, 1680.0) == Approx(908.0).margin(0.5));
  CHECK(rated.compute_tflops_at(true, 1485.0) == Approx(67.0 * 0.75));
  // A device's ceilings are at the clock its driver reports, both of them.
  const nlohmann::json h100 = {{"name", "NVIDIA H100 80GB HBM3"}, {"cc_major", 9}, {"cc_minor", 0}, {"sms", 132},
                               {"sm_clock_mhz", 1980}, {"mem_clock_mhz", 2619}, {"mem_bus_width", 5120}};
  const auto c = ceilings_from_device(h100);
  REQUIRE(c);
  CHECK(c->tensor_clock_mhz == 1980.0);
  CHECK(c->fp32_clock_mhz == 1980.0);
  CHECK(c->compute_tflops_at(false, 1367.0) == Approx(132 * 4096 * 1.367e9 / 1e12));
}
