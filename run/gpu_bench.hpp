// Verification and timing of a ladder kernel on the GPU, next to cuBLAS.
//
//   run::BenchResult r = run::run_bench({.kernel_id = "hopper_tma_wgmma_64", .shape = {4096, 4096, 4096}});
//   run::bench_result_json(r);   // {device, driver, sm_clock_mhz, date, kernel, shape, tflops, ms, ...}
//
// One GPU job (one forked child, run/gpu_job.hpp) per kernel and shape:
//  1. check: fresh inputs (run::make_gemm_data with a new seed every time; random bf16 or f32
//     values, or integers for a bit-exact verdict), C poisoned with 0xFF bytes (so an element
//     the kernel never writes is caught), one launch under the kernel watchdog, C compared with
//     the reference:
//       - the CPU reference (reference_gemm, in double) while M·N·K <= kCpuReferenceMaxMacs;
//       - above that (every 4096³ and 8192³ run) the CPU reference takes minutes, so cuBLAS's
//         output (same inputs, fp32 accumulation, f32 C) is the reference. cuBLAS rounds too,
//         so rel_err there is "distance from cuBLAS" and the bound is 1e-2 for bf16 inputs and
//         1e-4 (not 1e-5) for f32 inputs;
//  2. timing (reps > 0): warm-up launches, then `reps` timed launches, each between two CUDA
//     events; the inputs rotate among enough copies to exceed twice the L2 (50 MiB on H100), so
//     every launch reads A and B from HBM like a real GEMM. Median, min and max per launch;
//     TFLOP/s = 2·M·N·K / time. C is poisoned before the timed launches and must come out
//     identical to the checked C (a kernel whose output changes from run to run races);
//  3. cuBLAS (CublasLt: same A, B layout "nk"/"kn" from KernelInfo::b_layout, same C type) timed
//     in the same launches' rounds: ours and cuBLAS alternate launch by launch (paired rounds) on
//     the same input copies, so a clock that moves during the run moves under both; each round
//     gives a ratio, and the ratio is their median with its interquartile range. Meanwhile NVML
//     samples the card's power, temperature and the reasons it holds its clock down
//     (cuda/nvml.hpp; not the held clock, which NVML does not report).
// A slow kernel gets fewer reps (at most max_timing_seconds of timed launches); `reps` in the
// result is the number actually timed.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/cuda/nvml.hpp"
#include "run/gemm_data.hpp"
#include "run/gpu_job.hpp"
#include "run/timeline_doc.hpp"
#include "kernels/registry.hpp"

namespace gs::run {

// Up to this many multiply-adds the CPU computes the reference (a few seconds on one core).
inline constexpr uint64_t kCpuReferenceMaxMacs = uint64_t(1) << 31;

struct BenchRequest {
  std::string kernel_id;
  kernels::GemmShape shape;  // a 0 takes that dimension of the kernel's example shape
  std::set<std::string> mistakes;  // deliberate mistakes to switch on (for profiling one, e.g. with ncu)
  kernels::ParamValues params;     // build parameters; an unset one takes the kernel's default
  int reps = 20;             // timed launches; 0 = check only (one launch, no timing)
  int warmup = 3;            // untimed launches before the timed ones
  // Before the timed rounds (after the warm-up), ours and cuBLAS (ours alone without it) run in
  // alternation for at least this long, so that the rounds are timed at the clock the card holds
  // under its power limit, as the model's machine description has it (its clocks are 2-s probes);
  // 0: none, the rounds then run at the clock a few milliseconds of work leave (up to 14% higher
  // on the H200, docs/results/2026-12-05-device).
  double sustain_ms = 0.0;
  bool cublas = true;        // time cuBLAS too (and use it as the reference above the CPU limit)
  InputMode inputs = InputMode::random;
  uint64_t seed = 0;  // 0: a fresh seed for this check
  // A launch still running this long after it started is reported as a hang. Large problems
  // get more: kernel_limit + 2·M·N·K / 1e11 s (the time at 0.1 TFLOP/s).
  std::chrono::milliseconds kernel_limit{10'000};
  double max_timing_seconds = 30.0;  // caps reps × time per launch, for slow kernels
  // Set: after the timed launches, the kernel instrumented with the timeline pass
  // (engine/ir/instrument.hpp) is timed the same way (its overhead), run once more to record,
  // and its C compared with the plain kernel's byte for byte.
  std::optional<TimelineRequest> timeline;
  // After the timed rounds, while the card is still at their load: launches of the build with
  // the timeline pass (the first wave's CTAs recording), each just after a plain launch, whose
  // warps count the SM clock they ran at (%clock64 over %globaltimer, as a timeline's clock_ghz):
  // with their cycles, the clock the timed rounds held (HeldClock), which NVML's reported clock
  // is not. False: skip them (`bench --no-counted-clock`).
  bool counted_clock = true;
  GpuJobOptions job;
};

struct TimingSummary {
  double median_ms = 0.0, min_ms = 0.0, max_ms = 0.0;
  double q1_ms = 0.0, q3_ms = 0.0;  // the quartiles: the spread is the interquartile range q3 - q1
  int reps = 0;  // 0: not timed
};

// Median (mean of the two middle values for an even count), quartiles (linear between the sorted
// values), min and max of per-launch times.
TimingSummary summarize_times(std::vector<double> ms);
// The q-quantile (0..1) of sorted values, linear between neighbours; 0 for none.
double quantile_of_sorted(const std::vector<double>& sorted, double q);

// A spread of per-round figures: the median and the quartiles.
struct Spread {
  double median = 0.0, q1 = 0.0, q3 = 0.0;
};
Spread spread_of(std::vector<double> values);
// 2·M·N·K / (ms · 1e9): TFLOP/s for a time in milliseconds; 0 for ms <= 0.
double tflops_of(kernels::GemmShape shape, double ms);

struct BenchResult {
  // What ran.
  std::string kernel_id;
  kernels::GemmShape shape;
  kernels::ParamValues params;  // every parameter the kernel declares, as built
  std::set<std::string> mistakes;  // the deliberate mistakes it was built with (--break)
  InputMode inputs = InputMode::random;
  uint64_t seed = 0;
  // Where and when.
  std::string device;  // "NVIDIA H100 80GB HBM3"
  std::string driver;  // "13.0"
  int sm_clock_mhz = 0;
  std::optional<cuda::DeviceInfo> device_info;  // the whole description (the child reported it)
  std::string date;  // ISO 8601 UTC, "2026-03-01T12:34:56Z"
  // How the GPU job ended.
  GpuStatus status = GpuStatus::failed;
  std::string error;  // why, when status is not ok
  // The check.
  bool checked = false;
  std::string reference;  // "cpu", "cublas", or "none" (no reference could be had)
  Comparison cmp;
  double check_ms = 0.0;  // the checked launch (cold: includes first-touch effects)
  int registers = 0;
  // The launch: its CTAs, the cluster's size, and how many CTAs the GPU holds at once (the
  // driver's occupancy answer; 0 when unknown). More CTAs than resident ones run in waves.
  unsigned grid_ctas = 0;
  unsigned cluster_ctas = 1;
  unsigned resident_ctas = 0;
  // Waves of resident CTAs the grid takes (0 when unknown).
  unsigned waves() const { return resident_ctas ? (grid_ctas + resident_ctas - 1) / resident_ctas : 0; }
  // The timing.
  TimingSummary kernel;
  int warmup = 0;
  double sustained_ms = 0.0;  // how long the launches before the timed ones ran (BenchRequest::sustain_ms)
  int sustain_launches = 0;   // of ours, in them
  int input_sets = 0;       // copies of A and B rotated between launches
  bool consistent = true;   // C after the timed launches == the checked C, bit for bit
  std::optional<TimingSummary> cublas;
  // Ours and cuBLAS timed in paired rounds (ours, cuBLAS, ours, cuBLAS, ...; what every run with
  // cuBLAS does since 2026-12-02): each round's ratio, cuBLAS's time over ours. Older files
  // timed each in a block of its own: no per-round ratio.
  bool paired = false;
  std::optional<Spread> paired_ratio;
  // The card while the timed launches ran (NVML: power, temperature, the clock the driver
  // reports and the reasons it gave for holding the clock down), or why there are none.
  std::optional<cuda::GpuConditions> conditions;
  std::string conditions_error;
  // The SM clock the median timed launch ran at, from cycles its SMs counted (request.counted_clock,
  // HeldClock: the instrumented launches' %clock64 over %globaltimer, their cycles held against
  // the median's time). Absent where it was not asked for or the instrumented build could not
  // run; counted_clock_note says how it was counted, or why there is none (never an error of the
  // result).
  std::optional<double> sm_clock_counted_mhz;
  std::string counted_clock_note;
  std::vector<double> counted_launches_mhz;  // each counting launch's own clock (HeldClock::launch_mhz)
  // cuBLAS's side (paired rounds): the card over a second of cuBLAS alone, as `conditions` is
  // ours, and the SM clock the card was set to right after it, counted by kSpins clock spins
  // launched behind it on the same stream (kernels::build_clock_spin_probe; cuBLAS cannot be
  // instrumented): the first spin's clock, every spin's in cublas_clock_spins_mhz. A spin reads
  // the clock step the card is at once the load has gone (the spins agree to the MHz), which is
  // not the clock inside a GEMM's launches: on an H200 (docs/results/2026-12-02-cublas-side) the
  // same spins after ours' power soak (clock_spins_after_ours_mhz, where it ran) read -9% to
  // +10% off the clock our timed launches held (sm_clock_counted_mhz; quartiles -6% to +2%,
  // 6-9% low at 4096^3). Comparable between the two sides, never a held clock.
  std::optional<cuda::GpuConditions> cublas_conditions;
  std::string cublas_conditions_error;
  std::vector<double> cublas_clock_spins_mhz, clock_spins_after_ours_mhz;
  std::string clock_spin_error;  // why there are no spins, where they could not be prepared
  std::optional<double> cublas_clock_set_mhz() const {
    return !cublas_clock_spins_mhz.empty() && cublas_clock_spins_mhz.front() > 0.0
               ? std::optional<double>(cublas_clock_spins_mhz.front())
               : std::nullopt;
  }
  std::string cublas_error;      // why there is no cuBLAS timing
  std::string cublas_algorithm;  // CublasLt::last_algorithm()
  // C's element type of this build, which cuBLAS writes too (kernels::c_dtype_of).
  kernels::DType c_dtype = kernels::DType::f32;
  // The timeline (request.timeline): decoded, with the overhead and the C comparison.
  std::optional<TimelineDoc> timeline;
  std::string timeline_error;  // why there is none, when one was asked for

  // The job ran, the output was checked against a reference and is correct, and it is stable.
  // With a timeline asked for: it was recorded and the instrumented kernel's C is the plain one's.
  bool ok() const {
    return status == GpuStatus::ok && checked && cmp.correct && consistent && timeline_error.empty() &&
           (!timeline || timeline->c_identical.value_or(false));
  }
};

// The clock-counting build's recording options (BenchRequest::counted_clock): the first wave's
// CTAs on 132 SMs (the H100's and H200's), a few records a warp, since only each warp's header
// (%clock64 and %globaltimer at its start and end) is read.
ir::TimelineOptions counted_clock_options(const ir::Kernel& kernel);
// The held SM clock as a clock-counting launch's records say it: the median over the recording
// warps of each one's %clock64 over its %globaltimer (a timeline's clock_ghz), in MHz, with how
// it was counted (`launch_ms`: that launch's time); no clock, and the note saying why, when no
// warp finished with a clock or the records do not decode. Never throws.
struct CountedClock {
  std::optional<double> mhz;
  std::string note;
};
CountedClock counted_clock_of(const ir::Kernel& plain, const ir::TimelineLayout& layout,
                              const std::vector<uint8_t>& records, double launch_ms);

// One of the clock-counting launches bench makes right after the timed rounds, each just after a
// plain launch: its time, that plain launch's, and the clock its warps counted (counted_clock_of).
struct CountedLaunch {
  double ms = 0.0, plain_ms = 0.0;
  std::optional<double> mhz;
};
// The clock the timed rounds' median launch ran at. Under a power cap the clock moves from launch
// to launch (an H200 at 8192^3: launch times 15% apart within a run), so one launch's count is
// not the rounds' clock; the cycles a launch takes hardly move with it. So: the plain build's
// cycles are each counting launch's time x its clock, the median, over the instrumentation's
// cost (the median of each counting launch's time over the plain launch's just before it, at the
// same moment of the card's clock), and the held clock is those cycles over `median_ms`, the
// median timed launch's time. Without a timed median, the counting launches' median clock.
// No clock, and the note saying why, when no launch counted one.
struct HeldClock {
  std::optional<double> mhz;
  double cycles = 0.0, overhead = 0.0;  // the plain build's cycles; instrumented over plain time
  std::vector<double> launch_mhz;       // each counting launch's own clock
  std::string note;
};
HeldClock held_clock_of(const std::vector<CountedLaunch>& launches, double median_ms);

// Throws kernels::ConfigError for an unknown kernel id or a shape the kernel does not take
// (before any GPU work). Everything that happens on the GPU is reported in the result.
BenchResult run_bench(const BenchRequest& request);

// The result as JSON: device, driver, sm_clock_mhz, device_info (device_json, or null), date,
// kernel, shape {m,n,k},
// tflops {median,min,max}, ms {median,min,max}, cublas_tflops, ratio_vs_cublas, rel_err, reps,
// then status, error, correct, reference, inputs, seed, tolerance, mismatches, unwritten,
// first_mismatch, check_ms, registers, c_dtype ("f32" or "bf16": the kernel's C and cuBLAS's), grid_ctas, cluster_ctas, resident_ctas, waves, warmup, sustained_ms and sustain_launches (bench --sustain; 0 without), input_sets, consistent, cublas_ms {median,min,
// max}, cublas_algorithm, cublas_error, paired_rounds, ratio_iqr [q1, q3] (paired rounds only; the
// ratio is then the rounds' median), method (measurement_method), conditions {samples, power_w
// {median,max}, temperature_c_max, sm_clock_reported_mhz {median,min}, clock_limits} and
// conditions_error, sm_clock_counted_mhz (the SMs' own count of the clock they held: null where
// not counted) and counted_clock_note, cublas_conditions (as conditions, for cuBLAS alone) and
// cublas_conditions_error, cublas_clock_set_mhz (the first spin after cuBLAS: null where not
// spun), cublas_clock_spins_mhz and clock_spins_after_ours_mhz (every spin). ms and cublas_ms also carry q1 and q3. Numbers that do not
// exist are null.
nlohmann::json bench_result_json(const BenchResult& result);
// A result back from what bench_result_json wrote (a file from another machine: `gemmscope sweep
// --json`'s points): what ran, where, the verdict and the timings as their summaries (the
// per-launch times, conditions and timeline are not in the file and stay empty). Throws
// kernels::ConfigError naming the field and what it should be.
BenchResult bench_result_from_json(const nlohmann::json& j);

// One row per result: kernel, shape, TFLOP/s (median), ms (median, min–max), cuBLAS TFLOP/s,
// ratio, rel_err, verdict.
std::string bench_table(const std::vector<BenchResult>& results);

// How the figures were measured, in words: warm-up, timed launches, input rotation, paired rounds,
// medians and spreads, whether the card's power was sampled.
std::string measurement_method(const BenchResult& result);

// One line for progress output: "412.3 TFLOP/s (0.333 ms), cuBLAS 655.0 (63%), rel_err 2.1e-06".
std::string bench_summary_line(const BenchResult& result);

// "2026-03-01T12:34:56Z" for now.
std::string utc_timestamp_now();

// A seed no earlier call in this process returned (random_device, the clock and a counter).
uint64_t fresh_seed();

// How many copies of the inputs (set_bytes each) make the rotation exceed twice the L2, at
// least 2 and at most 64, and never more than a quarter of the device memory.
int input_set_count(std::size_t set_bytes, std::size_t l2_bytes, std::size_t device_memory_bytes);

// The comparison against a GPU reference (cuBLAS's C as bytes of c_dtype): the same fields as
// compare_output, with the bound described above.
Comparison compare_with_gpu_reference(const std::vector<uint8_t>& c_bytes, const std::vector<uint8_t>& ref_bytes,
                                      kernels::DType c_dtype, kernels::GemmShape shape, kernels::DType ab_dtype);

}  // namespace gs::run
