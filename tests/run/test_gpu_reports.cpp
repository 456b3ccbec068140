// run/gpu_bench + gpu_compare: the numbers, the JSON and the verdicts, built from fake
// measurements so they are checked without a GPU.
#include <cstring>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "engine/model/timing.hpp"
#include "kernels/registry.hpp"
#include "run/gpu_bench.hpp"
#include "run/sim_job.hpp"
#include "run/gpu_compare.hpp"

using namespace gs;
using Catch::Contains;

namespace {

run::BenchResult fake_result() {
  run::BenchResult r;
  r.kernel_id = "hopper_tma_wgmma_64";
  r.shape = {4096, 4096, 4096};
  r.device = "NVIDIA H100 80GB HBM3";
  r.driver = "13.0";
  r.sm_clock_mhz = 1980;
  r.date = "2026-03-01T12:34:56Z";
  r.status = run::GpuStatus::ok;
  r.checked = true;
  r.reference = "cublas";
  r.cmp.correct = true;
  r.cmp.rel_err = 2.5e-6;
  r.cmp.tolerance = 1e-2;
  r.kernel = run::summarize_times({0.4, 0.5, 0.3, 0.45});  // median 0.425
  r.cublas = run::summarize_times({0.25, 0.2, 0.3});      // median 0.25
  r.input_sets = 2;
  r.warmup = 3;
  return r;
}

std::vector<uint8_t> f32_bytes(const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

}  // namespace

TEST_CASE("bench: times summarise to median, min and max", "[run][bench]") {
  const run::TimingSummary odd = run::summarize_times({3.0, 1.0, 2.0});
  CHECK(odd.median_ms == 2.0);
  CHECK(odd.min_ms == 1.0);
  CHECK(odd.max_ms == 3.0);
  CHECK(odd.reps == 3);
  CHECK(run::summarize_times({4.0, 1.0, 2.0, 3.0}).median_ms == 2.5);
  CHECK(run::summarize_times({}).reps == 0);
  // 2·4096³ flops in 1 ms = 137.4 TFLOP/s.
  CHECK(run::tflops_of({4096, 4096, 4096}, 1.0) == Approx(137.438953472));
  CHECK(run::tflops_of({4096, 4096, 4096}, 0.0) == 0.0);
}

TEST_CASE("bench: enough input copies to defeat the L2, within memory", "[run][bench]") {
  const size_t l2 = size_t(50) << 20, memory = size_t(80) << 30;
  CHECK(run::input_set_count(size_t(64) << 20, l2, memory) == 2);   // 4096² bf16 A + B
  CHECK(run::input_set_count(size_t(20) << 20, l2, memory) == 5);   // 100 MiB / 20 MiB
  CHECK(run::input_set_count(65536, l2, memory) == 64);             // tiny: capped
  CHECK(run::input_set_count(size_t(30) << 30, l2, memory) == 2);   // never fewer than 2
  CHECK(run::input_set_count(size_t(1) << 20, l2, size_t(16) << 20) == 4);  // a quarter of memory
}

TEST_CASE("bench: the JSON result has the documented shape", "[run][bench]") {
  const run::BenchResult r = fake_result();
  const nlohmann::json j = run::bench_result_json(r);
  for (const char* key : {"device", "driver", "sm_clock_mhz", "date", "kernel", "shape", "tflops", "ms", "cublas_tflops",
                          "ratio_vs_cublas", "rel_err", "reps"})
    CHECK(j.contains(key));
  CHECK(j["device"] == "NVIDIA H100 80GB HBM3");
  CHECK(j["driver"] == "13.0");
  CHECK(j["sm_clock_mhz"] == 1980);
  CHECK(j["date"] == "2026-03-01T12:34:56Z");
  CHECK(j["kernel"] == "hopper_tma_wgmma_64");
  CHECK(j["shape"] == nlohmann::json({{"m", 4096}, {"n", 4096}, {"k", 4096}}));
  CHECK(j["ms"]["median"].get<double>() == Approx(0.425));
  CHECK(j["ms"]["min"].get<double>() == Approx(0.3));
  CHECK(j["ms"]["max"].get<double>() == Approx(0.5));
  const double tf = run::tflops_of(r.shape, 0.425);
  CHECK(j["tflops"]["median"].get<double>() == Approx(tf));
  CHECK(j["tflops"]["max"].get<double>() == Approx(run::tflops_of(r.shape, 0.3)));  // from the fastest launch
  CHECK(j["tflops"]["min"].get<double>() == Approx(run::tflops_of(r.shape, 0.5)));
  CHECK(j["cublas_tflops"].get<double>() == Approx(run::tflops_of(r.shape, 0.25)));
  CHECK(j["ratio_vs_cublas"].get<double>() == Approx(0.25 / 0.425));
  CHECK(j["rel_err"].get<double>() == Approx(2.5e-6));
  CHECK(j["reps"] == 4);
  CHECK(j["verdict"] == "ok");
  CHECK(j["reference"] == "cublas");
  CHECK(j["c_dtype"] == "f32");  // C's type, the kernel's and cuBLAS's alike
  CHECK(r.ok());
  run::BenchResult bf16 = fake_result();
  bf16.c_dtype = kernels::DType::bf16;
  CHECK(run::bench_result_json(bf16)["c_dtype"] == "bf16");
  CHECK_THAT(run::bench_summary_line(bf16), Catch::Contains("bf16 C in both"));
  // The device description travels with each result (the app's roofline reads it), null when
  // the child reported none.
  CHECK(j["device_info"].is_null());
  run::BenchResult described = fake_result();
  described.device_info = cuda::DeviceInfo{};
  described.device_info->name = "NVIDIA H100 80GB HBM3";
  described.device_info->sms = 132;
  described.device_info->sm_clock_khz = 1980000;
  const nlohmann::json dj = run::bench_result_json(described);
  CHECK(dj["device_info"]["sms"] == 132);
  CHECK(dj["device_info"]["sm_clock_mhz"] == 1980);
  CHECK(dj["device_info"]["name"] == "NVIDIA H100 80GB HBM3");

  run::BenchResult untimed = fake_result();
  untimed.kernel = {};
  untimed.cublas.reset();
  untimed.checked = true;
  untimed.cmp.rel_err = INFINITY;
  untimed.cmp.correct = false;
  const nlohmann::json u = run::bench_result_json(untimed);
  CHECK(u["tflops"]["median"].is_null());
  CHECK(u["ms"]["median"].is_null());
  CHECK(u["cublas_tflops"].is_null());
  CHECK(u["ratio_vs_cublas"].is_null());
  CHECK(u["rel_err"].is_null());  // JSON has no infinity
  CHECK(u["reps"] == 0);
  CHECK(u["verdict"] == "WRONG");
  CHECK_FALSE(untimed.ok());
}

TEST_CASE("bench: a sustained load before the timed rounds is said in the JSON and the method, and read back",
          "[run][bench][clock]") {
  const run::BenchResult plain = fake_result();
  CHECK(run::bench_result_json(plain)["sustained_ms"] == 0.0);
  CHECK(run::bench_result_json(plain)["sustain_launches"] == 0);
  CHECK_THAT(run::measurement_method(plain), !Catch::Contains("--sustain"));
  run::BenchResult r = fake_result();
  r.sustained_ms = 2004.6;
  r.sustain_launches = 1234;
  const nlohmann::json j = run::bench_result_json(r);
  CHECK(j["sustained_ms"].get<double>() == Approx(2004.6));
  CHECK(j["sustain_launches"] == 1234);
  CHECK_THAT(j["method"].get<std::string>(), Catch::Contains("1234 more in 2005 ms (--sustain"));
  const run::BenchResult back = run::bench_result_from_json(j);
  CHECK(back.sustained_ms == Approx(2004.6));
  CHECK(back.sustain_launches == 1234);
}

TEST_CASE("bench: the table and the progress line say what happened", "[run][bench]") {
  run::BenchResult hung = fake_result();
  hung.status = run::GpuStatus::timed_out;
  hung.error = "kernel 'hopper_tma_wgmma_64' did not finish in 10 s: likely an mbarrier deadlock";
  const std::string table = run::bench_table({fake_result(), hung});
  CHECK_THAT(table, Contains("hopper_tma_wgmma_64") && Contains("4096x4096x4096") && Contains("timed out"));
  CHECK_THAT(table, Contains(fmt::format("{:.1f}", run::tflops_of({4096, 4096, 4096}, 0.425))));
  CHECK_THAT(run::bench_summary_line(fake_result()), Contains("TFLOP/s") && Contains("cuBLAS") && Contains("correct"));
  CHECK_THAT(run::bench_summary_line(hung), Contains("timed out: kernel 'hopper_tma_wgmma_64' did not finish"));
  // A cluster launch with more clusters than fit at once says so (its last clusters run after
  // the others); one that fits, or an occupancy the driver did not give, says nothing.
  run::BenchResult clusters = fake_result();
  clusters.grid_ctas = 128;
  clusters.cluster_ctas = 4;
  clusters.resident_ctas = 120;
  CHECK(clusters.waves() == 2);
  CHECK_THAT(run::bench_summary_line(clusters),
             Contains("128 CTAs in 2 waves: only 120 fit at once in clusters of 4"));
  const nlohmann::json cj = run::bench_result_json(clusters);
  CHECK(cj["grid_ctas"] == 128);
  CHECK(cj["cluster_ctas"] == 4);
  CHECK(cj["resident_ctas"] == 120);
  CHECK(cj["waves"] == 2);
  clusters.resident_ctas = 128;
  CHECK(clusters.waves() == 1);
  CHECK_THAT(run::bench_summary_line(clusters), !Contains("waves"));
  clusters.resident_ctas = 0;
  CHECK(clusters.waves() == 0);
  CHECK(run::bench_result_json(clusters)["resident_ctas"].is_null());
  CHECK(run::bench_result_json(clusters)["waves"].is_null());
  CHECK(run::utc_timestamp_now().size() == 20);
  CHECK(run::utc_timestamp_now().back() == 'Z');
  CHECK(run::fresh_seed() != run::fresh_seed());
}

TEST_CASE("bench: the cuBLAS reference comparison catches the poison and large errors", "[run][bench]") {
  const kernels::GemmShape shape{2, 2, 64};
  const std::vector<uint8_t> ref = f32_bytes({1.0f, 2.0f, 3.0f, 4.0f});
  const run::Comparison same =
      run::compare_with_gpu_reference(ref, ref, kernels::DType::f32, shape, kernels::DType::bf16);
  CHECK(same.correct);
  CHECK(same.rel_err == 0.0);
  CHECK(same.tolerance == 1e-2);

  std::vector<uint8_t> unwritten = ref;
  std::memset(unwritten.data() + 8, 0xFF, 4);
  const run::Comparison u = run::compare_with_gpu_reference(unwritten, ref, kernels::DType::f32, shape, kernels::DType::bf16);
  CHECK_FALSE(u.correct);
  CHECK(u.unwritten == 1);
  CHECK_THAT(u.first_mismatch, Contains("C[1][0] was never written"));

  // f32 inputs: a relative error of 1e-5 passes against cuBLAS (it rounds too), 1e-3 does not.
  const std::vector<uint8_t> close = f32_bytes({1.00001f, 2.0f, 3.0f, 4.0f});
  CHECK(run::compare_with_gpu_reference(close, ref, kernels::DType::f32, shape, kernels::DType::f32).correct);
  const std::vector<uint8_t> far = f32_bytes({1.01f, 2.0f, 3.0f, 4.0f});
  const run::Comparison f = run::compare_with_gpu_reference(far, ref, kernels::DType::f32, shape, kernels::DType::f32);
  CHECK_FALSE(f.correct);
  CHECK_THAT(f.first_mismatch, Contains("C[0][0] = 1.00999999 but cuBLAS has 1"));
}

TEST_CASE("compare: C bytes are compared element by element", "[run][compare]") {
  const kernels::GemmShape shape{2, 3, 16};
  const std::vector<uint8_t> a = f32_bytes({1, 2, 3, 4, 5, 6});
  std::vector<uint8_t> b = a;
  CHECK(run::compare_c_bytes(a, b, kernels::DType::f32, shape).identical);
  b = f32_bytes({1, 2, 3, 4, 7, 8});
  const run::ByteComparison d = run::compare_c_bytes(a, b, kernels::DType::f32, shape);
  CHECK_FALSE(d.identical);
  CHECK(d.differing == 2);
  CHECK(d.elements == 6);
  CHECK(d.first_difference == "C[1][1]: GPU 5 (0x40a00000), model 7 (0x40e00000)");
}

TEST_CASE("compare: each kind of mistake is judged by what it should do", "[run][compare]") {
  CHECK(run::known_mistake_behaviour("") == run::MistakeBehaviour::deterministic);
  CHECK(run::known_mistake_behaviour("wrong-swizzle") == run::MistakeBehaviour::deterministic);
  CHECK(run::known_mistake_behaviour("missing-wgmma-fence") == run::MistakeBehaviour::deterministic);
  CHECK(run::known_mistake_behaviour("missing-init-fence") == run::MistakeBehaviour::deterministic);
  CHECK(run::known_mistake_behaviour("skip-mbarrier-wait") == run::MistakeBehaviour::race);
  CHECK(run::known_mistake_behaviour("no-sync-after-load") == run::MistakeBehaviour::race);
  CHECK(run::known_mistake_behaviour("phase-not-flipped") == run::MistakeBehaviour::race);
  CHECK(run::known_mistake_behaviour("skip-empty-wait") == run::MistakeBehaviour::race);
  CHECK(run::known_mistake_behaviour("wrong-expect-tx") == run::MistakeBehaviour::deadlock);
  CHECK(run::known_mistake_behaviour("release-own-cta-only") == run::MistakeBehaviour::race);
  CHECK(run::known_mistake_behaviour("expect-own-slice-only") == run::MistakeBehaviour::race);
  CHECK(run::known_mistake_behaviour("skip-peer-wait") == run::MistakeBehaviour::race);
  CHECK(run::known_mistake_behaviour("missing-proxy-fence") == run::MistakeBehaviour::race);
  CHECK(run::known_mistake_behaviour("reuse-staging-before-wait") == run::MistakeBehaviour::race);
  CHECK(run::known_mistake_behaviour("multicast-without-peers") == run::MistakeBehaviour::deterministic);  // the model's deadlock decides

  run::ModelComparison hang;
  hang.mistake = "wrong-expect-tx";
  hang.gpu_status = run::GpuStatus::timed_out;
  hang.model_completed = false;
  hang.model_error = "CTA (0,0,0): deadlock";
  run::judge_comparison(hang);
  CHECK(hang.as_expected);
  CHECK(hang.verdict == "hangs on the GPU too (timed out), deadlock in the model");
  hang.gpu_status = run::GpuStatus::ok;
  run::judge_comparison(hang);
  CHECK_FALSE(hang.as_expected);
  CHECK_THAT(hang.verdict, Contains("the GPU did not time out"));

  run::ModelComparison same;
  same.mistake = "wrong-swizzle";
  same.gpu_status = run::GpuStatus::ok;
  same.model_completed = true;
  same.compared = true;
  same.bit_identical = true;
  run::judge_comparison(same);
  CHECK(same.as_expected);
  CHECK(same.verdict == "identical, bit for bit (both wrong the same way)");
  same.bit_identical = false;
  same.differing_elements = 3;
  same.elements = 100;
  same.first_difference = "C[0][1]: GPU 1, model 2";
  run::judge_comparison(same);
  CHECK_FALSE(same.as_expected);
  CHECK_THAT(same.verdict, Contains("DIFFERENT: 3 of 100 elements differ; first: C[0][1]"));

  run::ModelComparison race = same;
  race.mistake = "skip-mbarrier-wait";
  run::judge_comparison(race);
  CHECK(race.as_expected);
  CHECK_THAT(race.verdict, Contains("race: 3 of 100") && Contains("not a failure"));

  const nlohmann::json j = run::model_comparison_json(race);
  CHECK(j["mistake"] == "skip-mbarrier-wait");
  CHECK(j["behaviour"] == "race");
  CHECK(j["differing_elements"] == 3);
  CHECK(j["as_expected"] == true);
  CHECK_THAT(run::model_comparison_table({hang, same, race}),
             Contains("wrong-expect-tx") && Contains("UNEXPECTED: ") && Contains("race"));
}

TEST_CASE("bench: quartiles and paired rounds give the spread of every figure", "[run][bench]") {
  const run::TimingSummary t = run::summarize_times({5.0, 1.0, 4.0, 2.0, 3.0});
  CHECK(t.median_ms == 3.0);
  CHECK(t.q1_ms == 2.0);
  CHECK(t.q3_ms == 4.0);
  const run::Spread s = run::spread_of({1.0, 2.0, 3.0, 4.0});  // linear between the sorted values
  CHECK(s.median == Approx(2.5));
  CHECK(s.q1 == Approx(1.75));
  CHECK(s.q3 == Approx(3.25));

  // Paired rounds: the ratio is the median of the rounds' ratios, not the medians' ratio.
  run::BenchResult r = fake_result();
  r.paired = true;
  r.paired_ratio = run::Spread{0.61, 0.58, 0.64};
  const nlohmann::json j = run::bench_result_json(r);
  CHECK(j["ratio_vs_cublas"].get<double>() == Approx(0.61));
  CHECK(j["ratio_iqr"] == nlohmann::json::array({0.58, 0.64}));
  CHECK(j["paired_rounds"] == true);
  CHECK(j["ms"]["q1"].get<double>() == Approx(r.kernel.q1_ms));
  CHECK_THAT(j["method"].get<std::string>(), Contains("paired rounds") && Contains("interquartile"));
  CHECK_THAT(run::bench_summary_line(r), Contains("61.0%, IQR 58.0-64.0"));
  CHECK_THAT(run::bench_table({r}), Contains("ratio IQR") && Contains("58.0-64.0"));
  // A result of before paired rounds keeps the medians' ratio, and says how it was measured.
  const nlohmann::json old = run::bench_result_json(fake_result());
  CHECK(old["ratio_iqr"].is_null());
  CHECK_THAT(old["method"].get<std::string>(), Contains("block of its own"));
}

TEST_CASE("bench: the card's power, temperature and clock limits travel with each result", "[run][bench]") {
  std::vector<cuda::GpuSample> samples(5);
  for (int i = 0; i < 5; ++i) {
    samples[size_t(i)].power_w = 600.0 + 10 * i;
    samples[size_t(i)].temp_c = 60 + uint32_t(i);
    samples[size_t(i)].sm_clock_mhz = 1980 - 10 * uint32_t(i);
  }
  samples[3].limits = 0x4;         // power cap
  samples[4].limits = 0x4 | 0x20;  // and thermal slowdown
  const cuda::GpuConditions c = cuda::summarize(samples);
  CHECK(c.samples == 5);
  CHECK(c.power_median_w == Approx(620.0));
  CHECK(c.power_max_w == Approx(640.0));
  CHECK(c.temp_max_c == 64);
  CHECK(c.sm_clock_reported_median_mhz == 1960);
  CHECK(c.sm_clock_reported_min_mhz == 1940);
  CHECK(c.limits == std::vector<std::string>{"power cap", "thermal slowdown"});
  CHECK(cuda::clock_limit_names(0x1).empty());  // idle is no limit on a benchmark
  CHECK(cuda::summarize({}).samples == 0);

  run::BenchResult r = fake_result();
  r.conditions = c;
  const nlohmann::json j = run::bench_result_json(r);
  CHECK(j["conditions"]["power_w"]["median"].get<double>() == Approx(620.0));
  CHECK(j["conditions"]["clock_limits"] == nlohmann::json::array({"power cap", "thermal slowdown"}));
  CHECK_THAT(run::bench_summary_line(r), Contains("620 W (max 640), 64 C") && Contains("power cap"));
  CHECK_THAT(run::bench_table({r}), Contains("620W 64C"));
  // Without NVML the result says why, and nothing is made up.
  run::BenchResult none = fake_result();
  none.conditions_error = "libnvidia-ml.so.1 not found";
  const nlohmann::json n = run::bench_result_json(none);
  CHECK(n["conditions"].is_null());
  CHECK_THAT(n["method"].get<std::string>(), Contains("power not sampled (libnvidia-ml.so.1 not found)"));
}

TEST_CASE("bench: the SM clock the SMs counted travels with each result, apart from NVML's", "[run][bench][clock]") {
  run::BenchResult r = fake_result();
  r.counted_clock_note = "not counted (--no-counted-clock)";
  nlohmann::json j = run::bench_result_json(r);
  CHECK(j["sm_clock_counted_mhz"].is_null());
  CHECK(j["counted_clock_note"] == "not counted (--no-counted-clock)");
  CHECK_THAT(j["method"].get<std::string>(), Contains("SM clock not counted (--no-counted-clock)"));
  CHECK_THAT(run::bench_summary_line(r), !Contains("counted"));
  r.sm_clock_counted_mhz = 1367.4;
  r.counted_clock_note = "counted by the SMs: the median over 1056 warps";
  j = run::bench_result_json(r);
  CHECK(j["sm_clock_counted_mhz"].get<double>() == 1367.4);
  CHECK_THAT(j["method"].get<std::string>(), Contains("the SM clock held, 1367 MHz, counted by the SMs"));
  CHECK_THAT(run::bench_summary_line(r), Contains("the SMs counted 1367 MHz"));
  CHECK(r.ok());  // a clock counted or not never decides the verdict
  r.sm_clock_counted_mhz.reset();
  CHECK(r.ok());
}

TEST_CASE("bench: the held clock is the counted launches' cycles over the median timed launch, not one launch's count",
          "[run][bench][clock]") {
  // As an H200 showed at 8192^3: the counting launches ran at 1373-1628 MHz, the plain launch
  // beside each 3% faster than the instrumented one; the timed median took 1.414 ms.
  const std::vector<run::CountedLaunch> launches = {{1.682, 1.633, 1373.0},
                                                    {1.442, 1.400, 1628.0},
                                                    {1.500, 1.456, 1560.0},
                                                    {1.560, 1.515, 1500.0},
                                                    {1.470, 1.427, 1590.0}};
  const run::HeldClock h = run::held_clock_of(launches, 1.414);
  REQUIRE(h.mhz);
  // cycles (ms x MHz): 2.3093, 2.3476, 2.34, 2.34, 2.3373 M; median 2.34 M; cost 1.03.
  CHECK(h.overhead == Approx(1.03).epsilon(0.001));
  CHECK(h.cycles == Approx(2.34e6 / h.overhead).epsilon(1e-6));
  CHECK(*h.mhz == Approx(2.34e6 / h.overhead / 1.414e-3 / 1e6).epsilon(1e-6));
  CHECK(*h.mhz > 1600.0);  // above the first launch's 1373: the rounds ran faster than that launch
  CHECK(h.launch_mhz.size() == 5);
  CHECK_THAT(h.note, Contains("the clock of the median timed launch") && Contains("1.414 ms") && Contains("+3.0%"));
  // Launches that counted nothing: no clock, and why.
  const run::HeldClock none = run::held_clock_of({{1.4, 1.3, std::nullopt}}, 1.414);
  CHECK_FALSE(none.mhz);
  CHECK_THAT(none.note, Contains("not counted"));
  // Nothing timed: the counting launches' own median clock.
  const run::HeldClock untimed = run::held_clock_of(launches, 0.0);
  REQUIRE(untimed.mhz);
  CHECK(*untimed.mhz == 1560.0);
}

TEST_CASE("bench: cuBLAS's side of the paired rounds has its own power and the clock a spin counted after it",
          "[run][bench][clock]") {
  run::BenchResult r = fake_result();
  r.paired = true;
  nlohmann::json j = run::bench_result_json(r);
  CHECK(j["cublas_conditions"].is_null());
  CHECK(j["cublas_clock_set_mhz"].is_null());
  CHECK_THAT(j["method"].get<std::string>(), Contains("cuBLAS's power not sampled (no NVML)"));
  cuda::GpuConditions c;
  c.samples = 30;
  c.power_median_w = 655.0;
  c.power_max_w = 660.0;
  c.how = "sampled in the last 300 ms of 1300 ms of cuBLAS back to back after the timed rounds";
  r.cublas_conditions = c;
  r.cublas_clock_spins_mhz = {1512.0, 1518.0, 1530.0};
  r.clock_spins_after_ours_mhz = {1490.0, 1495.0, 1501.0};
  j = run::bench_result_json(r);
  CHECK(j["cublas_conditions"]["power_w"]["median"].get<double>() == 655.0);
  CHECK(j["cublas_clock_set_mhz"].get<double>() == 1512.0);  // the first spin: the clock cuBLAS left
  CHECK(j["cublas_clock_spins_mhz"].size() == 3);
  CHECK(j["clock_spins_after_ours_mhz"][0].get<double>() == 1490.0);
  const std::string method = j["method"].get<std::string>();
  CHECK_THAT(method, Contains("cuBLAS's power and temperature sampled in the last 300 ms of 1300 ms of cuBLAS"));
  CHECK_THAT(method, Contains("the SM clock the card was set to right after cuBLAS, 1512 MHz, counted by 3 short FFMA spins"));
  CHECK_THAT(method, Contains("the same spins after ours read 1490, 1495, 1501 MHz"));
  CHECK_THAT(run::bench_summary_line(r), Contains("cuBLAS 655 W, clock set to 1512 MHz after it"));
  // A spin that read no clock (0) is no clock.
  r.cublas_clock_spins_mhz = {0.0};
  CHECK(run::bench_result_json(r)["cublas_clock_set_mhz"].is_null());
}

TEST_CASE("bench: the counted clock is the clock-counting build's warps' own count (here on the model)",
          "[run][bench][clock]") {
  // The build bench launches after the timed rounds, run on the model: its %clock64 is the
  // modeled cycle and its %globaltimer that cycle in ns at its machine's clock, so the warps
  // count the machine's clock.
  const kernels::KernelInfo& info = kernels::kernel_or_throw("simt_naive");
  const kernels::GemmShape shape = info.example_shape;
  const ir::Kernel plain = kernels::build_kernel(info, {shape, {}, kernels::resolve_params(info, {})});
  const ir::TimelineOptions o = run::counted_clock_options(plain);
  CHECK(o.first_cta == 0);
  CHECK(o.ctas == std::min<uint64_t>(plain.launch.ctas(), 132));  // the first wave's CTAs on 132 SMs
  CHECK(o.capacity <= 64);                                         // only the warps' headers are read
  run::SimRequest req;
  req.kernel_id = info.id;
  req.shape = shape;
  req.inputs = run::InputMode::integer;
  req.timeline = o;
  const run::SimReport s = run::run_sim(req);
  REQUIRE(s.result.completed);
  REQUIRE(s.timeline);
  const run::CountedClock c = run::counted_clock_of(plain, *s.timeline, s.timeline_bytes, 0.25);
  REQUIRE(c.mhz);
  CHECK(*c.mhz == Approx(model::timing::machine_for(plain.target).clock_hz / 1e6).epsilon(0.02));
  CHECK_THAT(c.note, Contains("median over") && Contains("%clock64 over its %globaltimer") && Contains("0.250 ms"));
  // Records no warp finished (a zeroed buffer): no clock, and why; records of another size: no clock, no throw.
  const run::CountedClock none = run::counted_clock_of(plain, *s.timeline, std::vector<uint8_t>(s.timeline_bytes.size()), 0.25);
  CHECK_FALSE(none.mhz);
  CHECK_THAT(none.note, Contains("not counted"));
  const run::CountedClock bad = run::counted_clock_of(plain, *s.timeline, std::vector<uint8_t>(5), 0.25);
  CHECK_FALSE(bad.mhz);
  CHECK_THAT(bad.note, Contains("not counted"));
}
