// The bench result as JSON, as a table row and as a progress line; timestamps and seeds.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <random>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "run/gpu_bench.hpp"

namespace gs::run {

namespace {

using nlohmann::json;

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json timing_json(const TimingSummary& t) {
  if (t.reps == 0) return {{"median", nullptr}, {"min", nullptr}, {"max", nullptr}, {"q1", nullptr}, {"q3", nullptr}};
  return {{"median", t.median_ms}, {"min", t.min_ms}, {"max", t.max_ms}, {"q1", t.q1_ms}, {"q3", t.q3_ms}};
}

json conditions_json(const std::optional<cuda::GpuConditions>& conditions) {
  if (!conditions) return nullptr;
  const cuda::GpuConditions& c = *conditions;
  return {{"samples", c.samples},
          {"power_w", {{"median", c.power_median_w}, {"max", c.power_max_w}}},
          {"temperature_c_max", c.temp_max_c},
          {"sm_clock_reported_mhz", {{"median", c.sm_clock_reported_median_mhz}, {"min", c.sm_clock_reported_min_mhz}}},
          {"clock_limits", c.limits},
          {"how", c.how}};
}

// TFLOP/s of a timing: the median time gives the median rate, the minimum time the maximum.
json tflops_json(kernels::GemmShape s, const TimingSummary& t) {
  if (t.reps == 0) return {{"median", nullptr}, {"min", nullptr}, {"max", nullptr}};
  return {{"median", tflops_of(s, t.median_ms)}, {"min", tflops_of(s, t.max_ms)}, {"max", tflops_of(s, t.min_ms)}};
}

std::string verdict(const BenchResult& r) {
  if (r.status != GpuStatus::ok) return std::string(gpu_status_name(r.status));
  if (!r.checked) return "unchecked";
  if (!r.cmp.correct) return "WRONG";
  if (!r.consistent) return "UNSTABLE";
  return "ok";
}

}  // namespace

std::string utc_timestamp_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

uint64_t fresh_seed() {
  static std::atomic<uint64_t> counter{0};
  uint64_t seed = 0;
  try {
    std::random_device device;
    seed = (uint64_t(device()) << 32) ^ device();
  } catch (const std::exception&) {
    // No entropy source: the clock and the counter still make every seed different.
  }
  seed ^= uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  seed += 0x9E3779B97F4A7C15ull * (counter.fetch_add(1) + 1);
  return seed ? seed : 1;
}

json bench_result_json(const BenchResult& r) {
  const bool timed = r.kernel.reps > 0;
  const bool have_blas = r.cublas && r.cublas->reps > 0;
  const double tflops = timed ? tflops_of(r.shape, r.kernel.median_ms) : 0.0;
  const double blas_tflops = have_blas ? tflops_of(r.shape, r.cublas->median_ms) : 0.0;
  json j;
  j["device"] = r.device;
  j["driver"] = r.driver;
  j["sm_clock_mhz"] = r.sm_clock_mhz;
  // SMs, clocks and memory bus: enough for a reader (the app's roofline) to work out the
  // device's ceilings from a single result.
  j["device_info"] = r.device_info ? device_json(*r.device_info) : json(nullptr);
  j["date"] = r.date;
  j["kernel"] = r.kernel_id;
  j["shape"] = {{"m", r.shape.m}, {"n", r.shape.n}, {"k", r.shape.k}};
  j["params"] = r.params;
  j["mistakes"] = r.mistakes;  // a set: sorted, as the JSON array
  j["tflops"] = tflops_json(r.shape, r.kernel);
  j["ms"] = timing_json(r.kernel);
  j["cublas_tflops"] = have_blas ? json(blas_tflops) : json(nullptr);
  // Paired rounds: the median of the rounds' ratios, and their quartiles; else the medians' ratio.
  j["ratio_vs_cublas"] = timed && have_blas && r.paired_ratio ? json(r.paired_ratio->median)
                         : timed && have_blas && blas_tflops > 0 ? json(tflops / blas_tflops)
                                                                 : json(nullptr);
  j["ratio_iqr"] = timed && have_blas && r.paired_ratio ? json::array({r.paired_ratio->q1, r.paired_ratio->q3})
                                                        : json(nullptr);
  j["rel_err"] = r.checked ? number_or_null(r.cmp.rel_err) : json(nullptr);
  j["reps"] = r.kernel.reps;
  // Beyond the summary: how the verdict and the numbers came about.
  j["status"] = gpu_status_name(r.status);
  j["error"] = r.error;
  j["correct"] = r.checked ? json(r.cmp.correct) : json(nullptr);
  j["verdict"] = verdict(r);
  j["reference"] = r.reference;
  j["inputs"] = input_mode_name(r.inputs);
  j["seed"] = r.seed;
  j["tolerance"] = r.checked ? json(r.cmp.tolerance) : json(nullptr);
  j["mismatches"] = r.checked ? json(r.cmp.mismatches) : json(nullptr);
  j["unwritten"] = r.checked ? json(r.cmp.unwritten) : json(nullptr);
  j["first_mismatch"] = r.cmp.first_mismatch;
  j["check_ms"] = r.status == GpuStatus::ok ? json(r.check_ms) : json(nullptr);
  j["registers"] = r.registers;
  j["c_dtype"] = kernels::dtype_name(r.c_dtype);
  j["grid_ctas"] = r.grid_ctas ? json(r.grid_ctas) : json(nullptr);
  j["cluster_ctas"] = r.cluster_ctas;
  j["resident_ctas"] = r.resident_ctas ? json(r.resident_ctas) : json(nullptr);
  j["waves"] = r.waves() ? json(r.waves()) : json(nullptr);
  j["warmup"] = r.warmup;
  j["sustained_ms"] = r.sustained_ms;
  j["sustain_launches"] = r.sustain_launches;
  j["input_sets"] = r.input_sets;
  j["consistent"] = r.consistent;
  j["cublas_ms"] = have_blas ? timing_json(*r.cublas) : json(nullptr);
  j["cublas_algorithm"] = r.cublas_algorithm;
  j["paired_rounds"] = r.paired;
  j["method"] = measurement_method(r);
  j["conditions"] = conditions_json(r.conditions);
  j["conditions_error"] = r.conditions_error;
  // The clock the SMs held, as they counted it (never NVML's sm_clock_reported_mhz above).
  j["sm_clock_counted_mhz"] = r.sm_clock_counted_mhz ? number_or_null(*r.sm_clock_counted_mhz) : json(nullptr);
  j["counted_clock_note"] = r.counted_clock_note;
  j["counted_launches_mhz"] = r.counted_launches_mhz;
  j["cublas_conditions"] = conditions_json(r.cublas_conditions);
  j["cublas_conditions_error"] = r.cublas_conditions_error;
  j["cublas_clock_set_mhz"] = r.cublas_clock_set_mhz() ? json(*r.cublas_clock_set_mhz()) : json(nullptr);
  j["cublas_clock_spins_mhz"] = r.cublas_clock_spins_mhz;
  j["clock_spins_after_ours_mhz"] = r.clock_spins_after_ours_mhz;
  j["clock_spin_error"] = r.clock_spin_error;
  j["cublas_error"] = r.cublas_error;
  if (r.timeline) {
    const TimelineDoc& t = *r.timeline;
    const auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    j["timeline"] = {{"instrumented_ms", opt(t.instrumented_ms)}, {"slowdown", opt(t.slowdown())},
                     {"c_identical", opt(t.c_identical)}, {"events", t.events.size()}, {"lost_records", t.lost},
                     {"warnings", t.warnings}};
  } else if (!r.timeline_error.empty()) {
    j["timeline"] = {{"error", r.timeline_error}};
  }
  return j;
}

std::string measurement_method(const BenchResult& r) {
  if (r.kernel.reps == 0) return "one checked launch, not timed";
  std::string m = fmt::format("{} warm-up launch{}, ", r.warmup, r.warmup == 1 ? "" : "es");
  if (r.sustain_launches > 0)
    m += fmt::format("{} more in {:.0f} ms (--sustain: the card at the clock its power limit leaves), ",
                     r.sustain_launches, r.sustained_ms);
  m += fmt::format("then {} timed, each between two events; A and B rotated over {} copies so that L2 does not hold them",
                   r.kernel.reps, r.input_sets);
  m += r.paired ? "; ours and cuBLAS alternated launch by launch (paired rounds): the ratio is the median of the "
                  "rounds' ratios, with its interquartile range"
       : r.cublas && r.cublas->reps > 0 ? "; cuBLAS timed in a block of its own after ours: the ratio is the medians'"
                                        : "";
  m += "; medians, with the interquartile range as the spread";
  m += r.conditions ? fmt::format("; power and temperature {} ({} samples)",
                                  r.conditions->how.empty() ? "sampled meanwhile" : r.conditions->how,
                                  r.conditions->samples)
                    : "; power not sampled (" +
                          (r.conditions_error.empty() ? std::string("no NVML") : r.conditions_error) + ")";
  m += r.sm_clock_counted_mhz ? fmt::format("; the SM clock held, {:.0f} MHz, {}", *r.sm_clock_counted_mhz,
                                            r.counted_clock_note)
                              : "; SM clock " + (r.counted_clock_note.empty() ? std::string("not counted")
                                                                              : r.counted_clock_note);
  if (r.paired) {
    m += r.cublas_conditions ? fmt::format("; cuBLAS's power and temperature {} ({} samples)",
                                           r.cublas_conditions->how, r.cublas_conditions->samples)
                             : "; cuBLAS's power not sampled (" +
                                   (r.cublas_conditions_error.empty() ? std::string("no NVML")
                                                                      : r.cublas_conditions_error) +
                                   ")";
    if (r.cublas_clock_set_mhz())
      m += fmt::format("; the SM clock the card was set to right after cuBLAS, {:.0f} MHz, counted by {} short FFMA spins "
                       "launched behind it ({:.0f} MHz; cuBLAS cannot be instrumented, and a spin reads the clock step "
                       "the card is at, which a launch of a GEMM can stay below)",
                       *r.cublas_clock_set_mhz(), r.cublas_clock_spins_mhz.size(), fmt::join(r.cublas_clock_spins_mhz, ", "));
    else if (!r.clock_spin_error.empty())
      m += "; cuBLAS's SM clock not counted (" + r.clock_spin_error + ")";
    if (!r.clock_spins_after_ours_mhz.empty())
      m += fmt::format("; the same spins after ours read {:.0f} MHz", fmt::join(r.clock_spins_after_ours_mhz, ", "));
  }
  return m;
}

std::string bench_summary_line(const BenchResult& r) {
  if (r.status != GpuStatus::ok) return fmt::format("{}: {}", gpu_status_name(r.status), r.error);
  std::string line;
  if (r.kernel.reps > 0)
    line = fmt::format("{:.1f} TFLOP/s ({:.3f} ms median of {})", tflops_of(r.shape, r.kernel.median_ms),
                       r.kernel.median_ms, r.kernel.reps);
  else
    line = fmt::format("one launch, {:.3f} ms", r.check_ms);
  if (r.cublas && r.cublas->reps > 0 && r.kernel.reps > 0) {
    const double blas = tflops_of(r.shape, r.cublas->median_ms);
    line += r.paired_ratio
                ? fmt::format(", cuBLAS {:.1f} ({:.1f}%, IQR {:.1f}-{:.1f} over {} paired rounds, {} C in both)", blas,
                              100.0 * r.paired_ratio->median, 100.0 * r.paired_ratio->q1, 100.0 * r.paired_ratio->q3,
                              r.kernel.reps, kernels::dtype_name(r.c_dtype))
                : fmt::format(", cuBLAS {:.1f} ({:.0f}%, {} C in both)", blas,
                              100.0 * tflops_of(r.shape, r.kernel.median_ms) / blas, kernels::dtype_name(r.c_dtype));
  }
  if (r.conditions) {
    line += fmt::format("; {:.0f} W (max {:.0f}), {} C", r.conditions->power_median_w, r.conditions->power_max_w,
                        r.conditions->temp_max_c);
    if (!r.conditions->limits.empty())
      line += fmt::format(", clock held down by {}", fmt::join(r.conditions->limits, ", "));
  }
  if (r.sm_clock_counted_mhz) line += fmt::format("; the SMs counted {:.0f} MHz", *r.sm_clock_counted_mhz);
  if (r.cublas_conditions || r.cublas_clock_set_mhz()) {
    line += "; cuBLAS";
    if (r.cublas_conditions) line += fmt::format(" {:.0f} W", r.cublas_conditions->power_median_w);
    if (r.cublas_clock_set_mhz()) line += fmt::format(", clock set to {:.0f} MHz after it", *r.cublas_clock_set_mhz());
  }
  if (r.checked)
    line += r.cmp.correct ? fmt::format(", correct (rel_err {:.1e} vs {})", r.cmp.rel_err, r.reference)
                          : fmt::format(", WRONG vs {}: {}", r.reference, r.cmp.first_mismatch);
  else
    line += ", not checked: " + r.error;
  if (r.waves() > 1 && r.cluster_ctas > 1)
    line += fmt::format("; {} CTAs in {} waves: only {} fit at once in clusters of {} (a cluster must fit in one GPC)",
                        r.grid_ctas, r.waves(), r.resident_ctas, r.cluster_ctas);
  if (!r.consistent) line += "; C changed between the checked launch and the timed ones (a race?)";
  if (r.timeline) {
    if (const std::optional<double> slow = r.timeline->slowdown())
      line += fmt::format("; timeline {:+.1f}%", 100.0 * *slow);
    line += r.timeline->c_identical.value_or(false) ? ", C identical" : ", C DIFFERS with the timeline";
  } else if (!r.timeline_error.empty()) {
    line += "; no timeline: " + r.timeline_error;
  }
  return line;
}

namespace {

// The kernel's id, with the build parameters that differ from its defaults ("… stages=3").
std::string kernel_label(const BenchResult& r) {
  const kernels::KernelInfo* info = kernels::find_kernel(r.kernel_id);
  const std::string changed = info ? kernels::non_default_params_text(*info, r.params) : kernels::params_text(r.params);
  return changed.empty() ? r.kernel_id : r.kernel_id + " " + changed;
}

}  // namespace

std::string bench_table(const std::vector<BenchResult>& results) {
  std::string out = fmt::format("{:<22} {:<16} {:>9} {:>22} {:>9} {:>6} {:>11} {:>9} {:>9}  {}\n", "kernel", "shape",
                                "TFLOP/s", "ms median (min-max)", "cuBLAS", "ratio", "ratio IQR", "power", "rel_err",
                                "verdict");
  for (const BenchResult& r : results) {
    const std::string shape = fmt::format("{}x{}x{}", r.shape.m, r.shape.n, r.shape.k);
    const bool timed = r.status == GpuStatus::ok && r.kernel.reps > 0;
    const bool blas = timed && r.cublas && r.cublas->reps > 0;
    const double tf = timed ? tflops_of(r.shape, r.kernel.median_ms) : 0.0;
    const double btf = blas ? tflops_of(r.shape, r.cublas->median_ms) : 0.0;
    const std::optional<Spread>& pr = r.paired_ratio;
    out += fmt::format(
        "{:<22} {:<16} {:>9} {:>22} {:>9} {:>6} {:>11} {:>9} {:>9}  {}\n", kernel_label(r), shape,
        timed ? fmt::format("{:.1f}", tf) : "-",
        timed ? fmt::format("{:.3f} ({:.3f}-{:.3f})", r.kernel.median_ms, r.kernel.min_ms, r.kernel.max_ms) : "-",
        blas ? fmt::format("{:.1f}", btf) : "-",
        blas && pr ? fmt::format("{:.1f}%", 100.0 * pr->median)
        : blas && btf > 0 ? fmt::format("{:.0f}%", 100.0 * tf / btf)
                          : "-",
        blas && pr ? fmt::format("{:.1f}-{:.1f}", 100.0 * pr->q1, 100.0 * pr->q3) : "-",
        timed && r.conditions ? fmt::format("{:.0f}W {}C", r.conditions->power_median_w, r.conditions->temp_max_c)
                              : "-",
        r.checked && std::isfinite(r.cmp.rel_err) ? fmt::format("{:.1e}", r.cmp.rel_err) : "-", verdict(r));
  }
  return out;
}


namespace {

// A timing summary back from timing_json: null figures are "not timed" (reps 0).
TimingSummary timing_from_json(const json& j, int reps) {
  TimingSummary t;
  if (!j.is_null() && !j.is_object())
    throw kernels::ConfigError(fmt::format("a time should be {{median, min, max, q1, q3}} in ms, got {}", j.dump()));
  if (j.is_null() || j.value("median", json()).is_null()) return t;
  t.median_ms = j.at("median").get<double>();
  t.min_ms = j.value("min", t.median_ms);
  t.max_ms = j.value("max", t.median_ms);
  t.q1_ms = j.contains("q1") && !j["q1"].is_null() ? j["q1"].get<double>() : t.median_ms;
  t.q3_ms = j.contains("q3") && !j["q3"].is_null() ? j["q3"].get<double>() : t.median_ms;
  t.reps = std::max(reps, 1);
  for (double v : {t.median_ms, t.min_ms, t.max_ms, t.q1_ms, t.q3_ms})
    if (!std::isfinite(v) || v <= 0.0)
      throw kernels::ConfigError(fmt::format("a time of {} ms: give a number above 0", v));
  return t;
}

GpuStatus gpu_status_from_name(const std::string& name) {
  for (GpuStatus s : {GpuStatus::ok, GpuStatus::no_driver, GpuStatus::no_device, GpuStatus::timed_out,
                      GpuStatus::failed, GpuStatus::crashed})
    if (gpu_status_name(s) == name) return s;
  throw kernels::ConfigError(fmt::format("'status' = \"{}\" is not one of: ok, no driver, no device, timed out, failed, "
                                         "crashed", name));
}

}  // namespace

BenchResult bench_result_from_json(const json& j) {
  if (!j.is_object()) throw kernels::ConfigError("a GPU result should be an object (bench_result_json's)");
  BenchResult r;
  try {
    r.kernel_id = j.at("kernel").get<std::string>();
    const json& s = j.at("shape");
    r.shape = {s.at("m").get<uint32_t>(), s.at("n").get<uint32_t>(), s.at("k").get<uint32_t>()};
    r.params = j.value("params", kernels::ParamValues{});
    r.mistakes = j.value("mistakes", std::set<std::string>{});
    r.device = j.value("device", std::string());
    r.driver = j.value("driver", std::string());
    r.sm_clock_mhz = j.value("sm_clock_mhz", 0);
    r.date = j.value("date", std::string());
    r.status = gpu_status_from_name(j.value("status", std::string("failed")));
    r.error = j.value("error", std::string());
    r.reference = j.value("reference", std::string("none"));
    r.checked = j.contains("correct") && !j["correct"].is_null();
    if (r.checked) {
      r.cmp.correct = j["correct"].get<bool>();
      if (j.contains("rel_err") && !j["rel_err"].is_null()) r.cmp.rel_err = j["rel_err"].get<double>();
      if (j.contains("mismatches") && !j["mismatches"].is_null()) r.cmp.mismatches = j["mismatches"].get<uint64_t>();
      if (j.contains("tolerance") && !j["tolerance"].is_null()) r.cmp.tolerance = j["tolerance"].get<double>();
      r.cmp.first_mismatch = j.value("first_mismatch", std::string());
    }
    const int reps = j.value("reps", 0);
    r.kernel = timing_from_json(j.value("ms", json()), reps);
    if (j.contains("cublas_ms") && !j["cublas_ms"].is_null()) {
      const TimingSummary blas = timing_from_json(j["cublas_ms"], reps);
      if (blas.reps > 0) r.cublas = blas;
    }
    r.paired = j.value("paired_rounds", false);
    const json iqr = j.value("ratio_iqr", json());
    if (r.paired && iqr.is_array() && iqr.size() == 2 && j.contains("ratio_vs_cublas") && !j["ratio_vs_cublas"].is_null())
      r.paired_ratio = Spread{j["ratio_vs_cublas"].get<double>(), iqr[0].get<double>(), iqr[1].get<double>()};
    r.consistent = j.value("consistent", true);
    r.sustained_ms = j.value("sustained_ms", 0.0);
    r.sustain_launches = j.value("sustain_launches", 0);
    r.registers = j.value("registers", 0);
    r.c_dtype = j.value("c_dtype", std::string("f32")) == "bf16" ? kernels::DType::bf16 : kernels::DType::f32;
    if (j.contains("grid_ctas") && !j["grid_ctas"].is_null()) r.grid_ctas = j["grid_ctas"].get<unsigned>();
    r.cluster_ctas = j.value("cluster_ctas", 1u);
    if (j.contains("resident_ctas") && !j["resident_ctas"].is_null()) r.resident_ctas = j["resident_ctas"].get<unsigned>();
    if (j.contains("sm_clock_counted_mhz") && !j["sm_clock_counted_mhz"].is_null())
      r.sm_clock_counted_mhz = j["sm_clock_counted_mhz"].get<double>();
    r.cublas_error = j.value("cublas_error", std::string());
    r.cublas_algorithm = j.value("cublas_algorithm", std::string());
  } catch (const nlohmann::json::exception& e) {
    throw kernels::ConfigError(fmt::format("a GPU result is not what `gemmscope bench --json` writes: {}", e.what()));
  }
  return r;
}

}  // namespace gs::run
