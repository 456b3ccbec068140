// run_bench: the check and the timing of one kernel at one shape in one GPU job (see
// gpu_bench.hpp for the method). The JSON, the table and the summary line are in
// gpu_bench_report.cpp.
#include "run/gpu_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "engine/cuda/context.hpp"
#include "engine/cuda/cublas.hpp"
#include "engine/cuda/nvml.hpp"
#include "engine/ir/instrument.hpp"
#include "engine/model/timeline_decode.hpp"
#include "engine/ptx/emit.hpp"
#include "kernels/timing_probes.hpp"
#include "run/gpu_launch.hpp"
#include "run/host_memory.hpp"
#include "run/sim_job.hpp"

namespace gs::run {

namespace {

using std::chrono::milliseconds;
using nlohmann::json;

// Whole milliseconds, rounded up, and at most a day (a limit nobody waits for anyway).
milliseconds ms_of(double ms) { return milliseconds(static_cast<long long>(std::ceil(std::clamp(ms, 0.0, 864e5)))); }

// The watchdog limit of one launch: the base, plus the time the GEMM takes at 0.1 TFLOP/s.
milliseconds launch_limit(milliseconds base, kernels::GemmShape s) {
  const double flops = 2.0 * double(s.m) * double(s.n) * double(s.k);
  return base + ms_of(flops / 1e11 * 1000.0);
}

json comparison_json(const Comparison& c) {
  return {{"correct", c.correct},       {"max_abs_err", c.max_abs_err}, {"rel_err", c.rel_err},
          {"elements", c.elements},     {"mismatches", c.mismatches},   {"unwritten", c.unwritten},
          {"non_finite", c.non_finite}, {"tolerance", c.tolerance},     {"first_mismatch", c.first_mismatch}};
}

Comparison comparison_from_json(const json& j) {
  Comparison c;
  c.correct = j.value("correct", false);
  c.max_abs_err = j.value("max_abs_err", 0.0);
  c.rel_err = j.value("rel_err", 0.0);
  c.elements = j.value("elements", uint64_t{0});
  c.mismatches = j.value("mismatches", uint64_t{0});
  c.unwritten = j.value("unwritten", uint64_t{0});
  c.non_finite = j.value("non_finite", uint64_t{0});
  c.tolerance = j.value("tolerance", 0.0);
  c.first_mismatch = j.value("first_mismatch", std::string());
  return c;
}

cuda::BLayout cublas_layout(kernels::BLayout b) { return b == kernels::BLayout::nk ? cuda::BLayout::nk : cuda::BLayout::kn; }

// One cuBLAS GEMM with the kernel's types: bf16 or f32 inputs, f32 or bf16 C.
void enqueue_cublas(cuda::CublasLt& lt, const kernels::KernelInfo& info, kernels::DType c_dtype, kernels::GemmShape s,
                    cuda::DevicePtr a, cuda::DevicePtr b, cuda::DevicePtr c, cuda::StreamHandle stream) {
  const cuda::GemmShape shape{s.m, s.n, s.k};
  if (info.ab_dtype == kernels::DType::bf16)
    lt.matmul_bf16(shape, a, b, cublas_layout(info.b_layout), c,
                   c_dtype == kernels::DType::f32 ? cuda::GemmOutput::f32 : cuda::GemmOutput::bf16, stream);
  else
    lt.matmul_f32(shape, a, b, cublas_layout(info.b_layout), c, stream);
}

// NVML averages power over its last second (Ampere and newer); a run shorter than that is soaked
// this long with our kernel alone to read its power.
constexpr double kPowerWindowMs = 1000.0;
constexpr double kPowerSoakMs = 1300.0;
// The clock spins after a soak (kernels::build_clock_spin_probe): a CTA on each of the H100's and
// H200's 132 SMs, 8·8192 dependent FFMAs of about 4 cycles (0.13-0.19 ms between 1.4 and
// 1.98 GHz: %globaltimer's steps are a small part of it), three back to back.
constexpr uint32_t kSpinCtas = 132, kSpinReps = 8192;
constexpr int kSpins = 3;

json conditions_json(const cuda::GpuConditions& c) {
  return {{"samples", c.samples},
          {"power_w", {{"median", c.power_median_w}, {"max", c.power_max_w}}},
          {"temperature_c_max", c.temp_max_c},
          {"sm_clock_reported_mhz", {{"median", c.sm_clock_reported_median_mhz}, {"min", c.sm_clock_reported_min_mhz}}},
          {"clock_limits", c.limits}};
}

// Everything a bench child needs, made in the parent before the fork.
struct BenchPlan {
  const kernels::KernelInfo* info = nullptr;
  kernels::DType c_dtype = kernels::DType::f32;  // the build's (kernels::c_dtype_of)
  ir::Kernel kernel;
  std::string ptx;
  kernels::GemmShape shape;
  GemmData data;
  std::vector<double> cpu_reference;  // empty when cuBLAS is the reference
  bool cpu_ref = true;
  std::vector<uint8_t> poison;
  milliseconds check_limit{0};
  std::optional<ir::InstrumentedKernel> timeline;  // the kernel with the timeline pass, when asked
  std::string timeline_ptx;
  // The build that counts the held SM clock (BenchRequest::counted_clock): the timeline pass on
  // the first wave's CTAs, a few records a warp (only the warps' headers are read).
  std::optional<ir::InstrumentedKernel> clock;
  std::string clock_ptx;
  // The clock spin (kernels::build_clock_spin_probe), for cuBLAS's side of the paired rounds:
  // launched right after a second of cuBLAS alone, it counts the clock cuBLAS's load left.
  std::optional<ir::Kernel> spin;
  std::string spin_ptx;
};

// Records a warp in the clock-counting build: the clock comes from each warp's header (its
// %clock64 and %globaltimer at start and end), which a warp past its capacity still writes.
constexpr uint32_t kClockRecords = 16;
// Pairs of a plain and a clock-counting launch after the timed rounds (count_clock).
constexpr int kCountedLaunches = 5;

// The counted clock's launches, made ready before the timed rounds (their JIT must not sit between
// them and the launches): the instrumented kernel, a record buffer for each launch and a C of
// their own (the checked C stays as the timed launches left it).
struct ClockLaunch {
  LoadedKernel loaded;
  std::vector<cuda::DeviceBuffer> records;  // one a counted launch
  cuda::DeviceBuffer c;
  std::vector<cuda::KernelArgs> args;  // per counted launch; kernel arguments point into themselves: never moved
};

std::optional<ClockLaunch> prepare_clock_launch(GpuJobContext& job, const cuda::Context& context, const BenchPlan& p,
                                                const std::vector<GemmDeviceBuffers>& sets, json& out) {
  if (!p.clock) return std::nullopt;
  try {
    job.step("counted clock: compiling the instrumented kernel");
    ClockLaunch l{load_kernel(job, context, p.clock->kernel, p.clock_ptx), {}, cuda::DeviceBuffer(sets.front().c.bytes), {}};
    l.args.reserve(kCountedLaunches);
    for (int i = 0; i < kCountedLaunches; ++i) {
      l.records.emplace_back(std::size_t(p.clock->layout.buffer_bytes()));
      l.records.back().memset_u8(0);
      GemmDeviceBuffers s = sets[size_t(i) % sets.size()];
      s.c = {l.c.ptr(), l.c.size()};
      s.timeline = {l.records.back().ptr(), l.records.back().size()};
      l.args.push_back(make_kernel_args(plan_arguments(p.clock->kernel, s, p.shape)));
    }
    return l;
  } catch (const std::exception& e) {
    out["counted_clock_error"] = fmt::format("the instrumented build could not be prepared: {}", e.what());
    return std::nullopt;
  }
}

// Right after the timed rounds, while the card is at their load: kCountedLaunches pairs of a
// plain launch and an instrumented one back to back, each timed between events. The records go
// back to the parent, which reads each launch's clock and, with the plain launch beside it, the
// instrumentation's cost (read_counted_clock).
void count_clock(GpuJobContext& job, ClockLaunch& l, const BenchPlan& p, int sets, milliseconds limit,
                 const cuda::Stream& stream, const std::function<void(int set)>& plain, json& out) {
  try {
    job.step(fmt::format("counted clock: {} instrumented launches, each after a plain one, at the timed rounds' load",
                         kCountedLaunches));
    size_t next = 0;
    const auto [plain_ms, ms] =
        time_interleaved(job, p.clock->kernel.name, limit, 0, kCountedLaunches, sets, stream, plain, [&](int) {
          cuda::prepare_launch(l.loaded.function, l.loaded.config, l.args[next++]).enqueue(stream.handle());
        });
    json launches = json::array();
    for (size_t i = 0; i < ms.size(); ++i)
      launches.push_back({{"ms", ms[i]}, {"plain_ms", plain_ms[i]}, {"records", json::binary(download_bytes(l.records[i]))}});
    out["counted_clock"] = {{"launches", launches}};
  } catch (const std::exception& e) {
    out["counted_clock_error"] = fmt::format("the instrumented launches failed: {}", e.what());
  }
}

// The instrumented kernel: timed in alternation with the plain one (`plain`) on the same input
// sets (its overhead), then run once more on a zeroed record buffer and a poisoned C, which
// must come out as c_out.
json timeline_child(GpuJobContext& job, const cuda::Context& context, const BenchPlan& p,
                    const std::vector<GemmDeviceBuffers>& sets, cuda::DeviceBuffer& c, const std::vector<uint8_t>& c_out,
                    int warmup, int reps, milliseconds limit, const cuda::Stream& stream,
                    const std::function<void(int set)>& plain) {
  job.step("timeline: compiling the instrumented kernel");
  const LoadedKernel loaded = load_kernel(job, context, p.timeline->kernel, p.timeline_ptx);
  cuda::DeviceBuffer records(std::size_t(p.timeline->layout.buffer_bytes()));
  records.memset_u8(0);
  std::vector<cuda::PreparedLaunch> launches;
  std::vector<cuda::KernelArgs> args;
  args.reserve(sets.size());
  for (GemmDeviceBuffers s : sets) {
    s.timeline = {records.ptr(), records.size()};
    args.push_back(make_kernel_args(plan_arguments(p.timeline->kernel, s, p.shape)));
    launches.push_back(cuda::prepare_launch(loaded.function, loaded.config, args.back()));
  }
  json out{{"registers", loaded.registers}};
  if (reps > 0) {
    job.step(fmt::format("timeline: timing {} instrumented launches, each after a plain one", reps));
    const auto [plain_ms, instrumented_ms] =
        time_interleaved(job, p.timeline->kernel.name, limit, warmup, reps, int(sets.size()), stream, plain,
                         [&](int set) { launches[size_t(set)].enqueue(stream.handle()); });
    out["ms"] = instrumented_ms;
    out["plain_ms"] = plain_ms;
  }
  job.step("timeline: recording");
  records.memset_u8(0);
  c.memset_u8(0xFF);
  context.synchronize();
  out["record_ms"] = launch_once(job, loaded, args.front(), p.timeline->kernel.name, limit);
  out["c_identical"] = download_bytes(c) == c_out;
  out["records"] = json::binary(download_bytes(records));
  return out;
}

// The grid's CTAs and how many of them the GPU holds at once (the driver's occupancy answer);
// a driver that cannot answer leaves resident_ctas out and says why.
json occupancy_json(const cuda::PreparedLaunch& launch) {
  const cuda::LaunchConfig& c = launch.config();
  json out{{"grid_ctas", c.grid[0] * c.grid[1] * c.grid[2]}, {"cluster_ctas", c.cluster[0] * c.cluster[1] * c.cluster[2]}};
  try {
    out["resident_ctas"] = launch.resident_ctas();
  } catch (const std::exception& e) {
    out["error"] = e.what();
  }
  return out;
}

// The clock spin's launch (BenchPlan::spin), made ready before the timed rounds like the counted
// clock's: its module and a C for its records.
struct SpinLaunch {
  LoadedKernel loaded;
  std::vector<cuda::DeviceBuffer> c;   // one a spin
  std::vector<cuda::KernelArgs> args;  // kernel arguments point into themselves: never moved once made
};

std::optional<SpinLaunch> prepare_spin_launch(GpuJobContext& job, const cuda::Context& context, const BenchPlan& p,
                                              json& out) {
  if (!p.spin) return std::nullopt;
  try {
    SpinLaunch l{load_kernel(job, context, *p.spin, p.spin_ptx), {}, {}};
    l.args.reserve(kSpins);
    for (int i = 0; i < kSpins; ++i) {
      l.c.emplace_back(std::size_t(kSpinCtas) * 32 * kernels::kTimingOutBytes);
      l.args.emplace_back().add_ptr(l.c.back().ptr());
    }
    return l;
  } catch (const std::exception& e) {
    out["clock_spin_error"] = fmt::format("the clock spin could not be prepared: {}", e.what());
    return std::nullopt;
  }
}

// The SM clock of one spin's records: the median over its CTAs of lane 0's cycles over its
// nanoseconds, in MHz (0 when no CTA has both).
double spin_mhz(const std::vector<uint8_t>& records) {
  std::vector<double> mhz;
  for (size_t at = 0; at + kernels::kTimingOutBytes <= records.size(); at += 32 * kernels::kTimingOutBytes) {
    uint64_t cycles = 0, ns = 0;
    std::memcpy(&cycles, records.data() + at, 8);
    std::memcpy(&ns, records.data() + at + 16, 8);
    if (cycles > 0 && ns > 0) mhz.push_back(1e3 * double(cycles) / double(ns));
  }
  return mhz.empty() ? 0.0 : spread_of(mhz).median;
}

// `launch` back to back for kPowerSoakMs on `stream`, NVML sampling (the samples after its
// one-second window are kept), then, where `spin` is given, kSpins clock spins enqueued behind
// the last launch before the host waits: their clocks, first to last, go to "spins_mhz".
json soak(GpuJobContext& job, const cuda::DeviceInfo& device, const cuda::Stream& stream,
          const std::function<void(int)>& launch, int sets, double per_launch_ms, SpinLaunch* spin,
          milliseconds limit, const std::string& who, std::vector<cuda::GpuSample>& samples) {
  json out;
  cuda::GpuSampler sampler(device);
  job.wait_for_kernel(who, limit, [&] {
    const auto t0 = std::chrono::steady_clock::now();
    int launched = 0;
    const int batch = std::max(1, int(20.0 / per_launch_ms));  // about 20 ms of launches a batch
    while (true) {
      for (int i = 0; i < batch; ++i) launch(launched++ % sets);
      if (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() >= kPowerSoakMs) break;
      stream.synchronize();
    }
    // The spins queue behind the launches still in flight: the first starts as the last ends.
    if (spin)
      for (cuda::KernelArgs& a : spin->args)
        cuda::prepare_launch(spin->loaded.function, spin->loaded.config, a).enqueue(stream.handle());
    stream.synchronize();
    if (spin) {
      json mhz = json::array();
      for (const cuda::DeviceBuffer& c : spin->c) mhz.push_back(spin_mhz(download_bytes(c)));
      out["spins_mhz"] = mhz;
    }
  });
  samples = sampler.stop();
  if (samples.empty()) out["conditions_error"] = sampler.why().empty() ? "NVML gave no sample" : sampler.why();
  std::erase_if(samples, [](const cuda::GpuSample& s) { return s.t_ms < kPowerWindowMs; });
  return out;
}

json bench_child(GpuJobContext& job, const BenchPlan& p, const BenchRequest& req) {
  json out;
  job.step("creating the CUDA context");
  cuda::Context context(0);
  out["device"] = device_of(context);
  const LoadedKernel loaded = load_kernel(job, context, p.kernel, p.ptx);
  out["registers"] = loaded.registers;

  job.step("uploading the inputs");
  cuda::DeviceBuffer a = device_copy(p.data.a_bytes), b = device_copy(p.data.b_bytes), c = device_copy(p.poison);
  const GemmDeviceBuffers spans{{a.ptr(), a.size()}, {b.ptr(), b.size()}, {c.ptr(), c.size()}};
  cuda::KernelArgs args = make_kernel_args(plan_arguments(p.kernel, spans, p.shape));
  const double check_ms = launch_once(job, loaded, args, p.kernel.name, p.check_limit);
  out["check_ms"] = check_ms;
  const std::vector<uint8_t> c_out = download_bytes(c);

  // cuBLAS: the baseline, and the reference where the CPU one is too slow.
  cuda::CublasLt* lt = nullptr;
  std::optional<cuda::DeviceBuffer> c_blas;
  double blas_once_ms = 0.0;
  if (req.cublas || !p.cpu_ref) {
    job.step("opening cuBLASLt");
    cuda::CublasLt& instance = cuda::CublasLt::instance();
    if (!instance.available()) {
      out["cublas_error"] = instance.unavailable_reason();
    } else {
      try {
        c_blas.emplace(device_copy(p.poison));
        cuda::Event start, stop;
        job.wait_for_kernel("cuBLAS", p.check_limit, [&] {
          start.record();
          enqueue_cublas(instance, *p.info, p.c_dtype, p.shape, a.ptr(), b.ptr(), c_blas->ptr(), nullptr);
          stop.record();
          stop.synchronize();
        });
        blas_once_ms = cuda::Event::elapsed_ms(start, stop);
        lt = &instance;
      } catch (const std::exception& e) {
        out["cublas_error"] = e.what();
      }
    }
  }

  job.step("comparing C with the reference");
  const kernels::DType ab = p.info->ab_dtype, cd = p.c_dtype;
  if (p.cpu_ref) {
    out["reference"] = "cpu";
    out["cmp"] = comparison_json(compare_output(c_out, cd, p.cpu_reference, p.shape, req.inputs, ab));
  } else if (lt) {
    out["reference"] = "cublas";
    out["cmp"] = comparison_json(compare_with_gpu_reference(c_out, download_bytes(*c_blas), cd, p.shape, ab));
  } else {
    out["reference"] = "none";
  }
  if (req.reps <= 0) return out;

  // Timing: copies of A and B so that the rotation exceeds the L2.
  const cuda::DeviceInfo& device = context.device();
  const int sets = input_set_count(a.size() + b.size(), std::size_t(device.l2_bytes), device.total_mem);
  job.step(fmt::format("uploading {} copies of A and B", sets - 1));
  std::vector<cuda::DeviceBuffer> copies;
  std::vector<GemmDeviceBuffers> set_spans{spans};
  for (int i = 1; i < sets; ++i) {
    copies.push_back(device_copy(p.data.a_bytes));
    copies.push_back(device_copy(p.data.b_bytes));
    const cuda::DeviceBuffer& ca = copies[copies.size() - 2];
    const cuda::DeviceBuffer& cb = copies.back();
    set_spans.push_back({{ca.ptr(), ca.size()}, {cb.ptr(), cb.size()}, spans.c});
  }
  std::optional<ClockLaunch> clock = prepare_clock_launch(job, context, p, set_spans, out);
  std::optional<SpinLaunch> spin = lt && req.cublas ? prepare_spin_launch(job, context, p, out) : std::nullopt;
  std::vector<cuda::PreparedLaunch> launches;
  for (const GemmDeviceBuffers& s : set_spans) {
    const cuda::KernelArgs set_args = make_kernel_args(plan_arguments(p.kernel, s, p.shape));
    launches.push_back(cuda::prepare_launch(loaded.function, loaded.config, set_args));
  }
  out["occupancy"] = occupancy_json(launches.front());
  const double per_launch = std::max(check_ms, 1e-3);
  const double affordable = std::max(3.0, req.max_timing_seconds * 1000.0 / per_launch);  // launches in the cap
  const int reps = int(std::min(double(req.reps), affordable));
  const int warmup = per_launch > 1000.0 ? std::min(req.warmup, 1) : std::max(req.warmup, 0);
  const milliseconds base = req.kernel_limit;
  c.memset_u8(0xFF);  // the timed launches must write all of C again
  context.synchronize();
  cuda::Stream stream;
  const auto kernel_launch = [&](int set) { launches[size_t(set)].enqueue(stream.handle()); };
  const auto blas_launch = [&](int set) {
    const GemmDeviceBuffers& s = set_spans[size_t(set)];
    enqueue_cublas(*lt, *p.info, p.c_dtype, p.shape, s.a.ptr, s.b.ptr, c_blas->ptr(), stream.handle());
  };
  // The card's power, temperature and the reasons it gives for holding its clock down, sampled
  // while the timed launches run (cuda/nvml.hpp; none without NVML, and the JSON says why).
  cuda::GpuSampler sampler(device);
  std::vector<double> times, blas;
  bool paired = false;
  if (req.sustain_ms > 0.0) {
    const bool with_blas = lt && req.cublas;
    const double per_round = per_launch + (with_blas ? std::max(blas_once_ms, 1e-3) : 0.0);
    job.step(fmt::format("running {} for {:.0f} ms before the timed rounds", with_blas ? "ours and cuBLAS" : "ours",
                         req.sustain_ms));
    const auto [launches, ran_ms] = sustain_load(
        job, p.kernel.name + (with_blas ? " and cuBLAS" : ""), base, req.sustain_ms, per_round, sets, stream,
        kernel_launch, with_blas ? std::function<void(int)>(blas_launch) : std::function<void(int)>());
    out["sustain"] = {{"ms", ran_ms}, {"launches", launches}, {"with_cublas", with_blas}};
  }
  if (lt && req.cublas) {
    // Paired rounds: our kernel and cuBLAS launch by launch in alternation on the same input set,
    // so a clock or power state that moves during the run moves under both, and each round gives
    // one ratio (read_child_result).
    try {
      const double blas_per = std::max(blas_once_ms, 1e-3);
      job.step(fmt::format("timing {} paired rounds (ours, then cuBLAS) after {} warm-up", reps, warmup));
      std::tie(times, blas) = time_interleaved(job, p.kernel.name + " and cuBLAS",
                                               base + ms_of(4.0 * (per_launch + blas_per) * (warmup + reps)), warmup,
                                               reps, sets, stream, kernel_launch, blas_launch);
      out["cublas"] = {{"ms", blas}, {"algorithm", lt->last_algorithm()}};
      paired = true;
    } catch (const std::exception& e) {
      out["cublas_error"] = e.what();
    }
  }
  if (!paired) {
    job.step(fmt::format("timing {} launches after {} warm-up", reps, warmup));
    times = time_launches(job, p.kernel.name, base + ms_of(4.0 * per_launch * (warmup + reps)), warmup, reps, sets,
                          stream, kernel_launch);
  }
  // The clock the SMs held: counted inside a launch right after the timed rounds, the next input
  // set of their rotation (A and B from HBM, as theirs).
  if (clock) count_clock(job, *clock, p, sets, base + ms_of(8.0 * per_launch * kCountedLaunches), stream, kernel_launch, out);
  // NVML's power on Ampere and newer is the average of the last second: a sample from the first
  // second of a run reads partly the card before it, and only later ones count. A timed block
  // shorter than that has none: ours then runs back to back a little longer than the window.
  std::vector<cuda::GpuSample> samples = sampler.stop();
  const double sampled_ms = samples.empty() ? 0.0 : samples.back().t_ms - samples.front().t_ms;
  const bool sampled_any = !samples.empty();
  std::erase_if(samples, [](const cuda::GpuSample& s) { return s.t_ms < kPowerWindowMs; });
  std::string sampled_how =
      fmt::format("sampled over {} after their first second ({:.0f} ms in all)",
                  req.sustain_ms > 0.0 ? "the sustained load and the timed launches" : "the timed launches", sampled_ms);
  if (sampled_any && samples.empty()) {
    job.step("sampling the card's power while our kernel runs back to back");
    // The clock spins after it read what the SMs also counted in our own launch: their check.
    const json ours = soak(job, device, stream, kernel_launch, sets, per_launch, spin ? &*spin : nullptr,
                           base + ms_of(2.0 * kPowerSoakMs + 10.0 * per_launch), p.kernel.name, samples);
    if (ours.contains("spins_mhz")) out["clock_spins_after_ours_mhz"] = ours["spins_mhz"];
    sampled_how = fmt::format("sampled in the last {:.0f} ms of {:.0f} ms of ours back to back after the timed "
                              "launches (they took {:.0f} ms, less than NVML's one-second power average): the card "
                              "under this kernel sustained, not during the timed launches",
                              kPowerSoakMs - kPowerWindowMs, kPowerSoakMs, sampled_ms);
  }
  if (!samples.empty()) {
    out["conditions"] = conditions_json(cuda::summarize(samples));
    out["conditions"]["how"] = sampled_how;
  } else {
    out["conditions_error"] = sampler.why().empty() ? "NVML gave no sample" : sampler.why();
  }
  // cuBLAS's side (paired rounds): its power over a second of it alone, then the clock its load
  // left, counted by the spins (cuBLAS cannot be instrumented).
  if (paired) {
    job.step("sampling the card's power while cuBLAS runs back to back, then the clock it leaves");
    const double blas_per = std::max(blas_once_ms, 1e-3);
    try {
      std::vector<cuda::GpuSample> blas_samples;
      const json side = soak(job, device, stream, blas_launch, sets, blas_per, spin ? &*spin : nullptr,
                             base + ms_of(2.0 * kPowerSoakMs + 10.0 * blas_per), "cuBLAS", blas_samples);
      if (!blas_samples.empty()) {
        out["cublas_conditions"] = conditions_json(cuda::summarize(blas_samples));
        out["cublas_conditions"]["how"] = fmt::format("sampled in the last {:.0f} ms of {:.0f} ms of cuBLAS back to back "
                                                      "after the timed rounds",
                                                      kPowerSoakMs - kPowerWindowMs, kPowerSoakMs);
      } else {
        out["cublas_conditions_error"] = side.value("conditions_error", std::string("NVML gave no sample after its "
                                                                                    "first second"));
      }
      if (side.contains("spins_mhz")) out["cublas_clock_spins_mhz"] = side["spins_mhz"];
    } catch (const std::exception& e) {
      out["cublas_conditions_error"] = e.what();
    }
  }
  out["timing"] = {{"ms", times},     {"warmup", warmup},
                   {"input_sets", sets}, {"consistent", download_bytes(c) == c_out},
                   {"paired", paired}};

  if (p.timeline) {
    try {
      out["timeline"] = timeline_child(job, context, p, set_spans, c, c_out, warmup, reps,
                                       base + ms_of(16.0 * per_launch * (warmup + reps + 1)), stream,
                                       [&](int set) { launches[size_t(set)].enqueue(stream.handle()); });
    } catch (const std::exception& e) {
      out["timeline_error"] = e.what();
    }
  }

  return out;
}

// The counted clock (BenchRequest::counted_clock): the warps' headers of the instrumented launch,
// decoded against the plain kernel; the median over the warps of each one's %clock64 over its
// %globaltimer, as a timeline's clock_ghz. Never an error of the result: a clock that could not be
// counted is absent and the note says why.
void read_counted_clock(const json& v, const BenchPlan& p, BenchResult& r) {
  if (!p.clock) return;  // the note was set when the build was refused
  if (v.contains("counted_clock_error")) {
    r.counted_clock_note = "not counted: " + v["counted_clock_error"].get<std::string>();
    return;
  }
  if (!v.contains("counted_clock")) {
    r.counted_clock_note = "not counted: no timed rounds (give --reps 1 or more)";
    return;
  }
  std::vector<CountedLaunch> launches;
  std::string why;
  for (const json& l : v["counted_clock"].value("launches", json::array())) {
    CountedLaunch c{l.value("ms", 0.0), l.value("plain_ms", 0.0), std::nullopt};
    if (l.contains("records") && l["records"].is_binary()) {
      const CountedClock counted = counted_clock_of(p.kernel, p.clock->layout, l["records"].get_binary(), c.ms);
      c.mhz = counted.mhz;
      if (!counted.mhz) why = counted.note;
    }
    launches.push_back(c);
  }
  const HeldClock held = held_clock_of(launches, r.kernel.median_ms);
  r.sm_clock_counted_mhz = held.mhz;
  r.counted_launches_mhz = held.launch_mhz;
  r.counted_clock_note = held.mhz || why.empty() ? held.note : why;
}

// The child's timeline, decoded against the plain kernel, with what ran and the overhead.
void read_timeline(const json& v, const BenchPlan& p, const std::set<std::string>& mistakes, BenchResult& r) {
  r.timeline_error = v.value("timeline_error", std::string());
  if (!v.contains("timeline")) {
    if (r.timeline_error.empty()) r.timeline_error = "the timeline was not recorded (give --reps 1 or more)";
    return;
  }
  const json& t = v["timeline"];
  const std::vector<uint8_t>& bytes = t.at("records").get_binary();
  TimelineDoc doc = timeline_doc(p.kernel, model::decode_timeline(p.kernel, p.timeline->layout, bytes), "gpu");
  doc.kernel_id = r.kernel_id;
  doc.shape = r.shape;
  doc.build_known = true;
  doc.params = r.params;
  doc.mistakes = mistakes;
  doc.device = r.device;
  doc.date = r.date;
  doc.c_identical = t.value("c_identical", false);
  // The overhead compares the launches timed in alternation (the plain kernel's own timed block
  // ran earlier, at another moment of the card's clock).
  if (t.contains("plain_ms")) doc.plain_ms = summarize_times(t["plain_ms"].get<std::vector<double>>()).median_ms;
  else if (r.kernel.reps > 0) doc.plain_ms = r.kernel.median_ms;
  if (t.contains("ms")) doc.instrumented_ms = summarize_times(t["ms"].get<std::vector<double>>()).median_ms;
  r.timeline = std::move(doc);
}

cuda::GpuConditions conditions_from_json(const json& c) {
  cuda::GpuConditions g;
  g.samples = c.value("samples", 0);
  g.power_median_w = c.at("power_w").value("median", 0.0);
  g.power_max_w = c.at("power_w").value("max", 0.0);
  g.temp_max_c = c.value("temperature_c_max", 0u);
  g.sm_clock_reported_median_mhz = c.at("sm_clock_reported_mhz").value("median", 0u);
  g.sm_clock_reported_min_mhz = c.at("sm_clock_reported_mhz").value("min", 0u);
  g.limits = c.value("clock_limits", std::vector<std::string>{});
  g.how = c.value("how", std::string());
  return g;
}

void read_child_result(const json& v, BenchResult& r) {
  const cuda::DeviceInfo device = device_from_json(v.at("device"));
  r.device = device.name;
  r.driver = driver_version_text(device.driver_version);
  r.sm_clock_mhz = device.sm_clock_khz / 1000;
  r.device_info = device;
  r.registers = v.value("registers", 0);
  if (v.contains("occupancy")) {
    const json& o = v["occupancy"];
    r.grid_ctas = o.value("grid_ctas", 0u);
    r.cluster_ctas = o.value("cluster_ctas", 1u);
    r.resident_ctas = o.value("resident_ctas", 0u);
  }
  r.check_ms = v.value("check_ms", 0.0);
  r.reference = v.value("reference", std::string("none"));
  r.checked = v.contains("cmp");
  if (r.checked) r.cmp = comparison_from_json(v["cmp"]);
  r.cublas_error = v.value("cublas_error", std::string());
  if (v.contains("sustain")) {
    r.sustained_ms = v["sustain"].value("ms", 0.0);
    r.sustain_launches = v["sustain"].value("launches", 0);
  }
  if (v.contains("timing")) {
    const json& t = v["timing"];
    r.kernel = summarize_times(t.at("ms").get<std::vector<double>>());
    r.warmup = t.value("warmup", 0);
    r.input_sets = t.value("input_sets", 0);
    r.consistent = t.value("consistent", true);
  }
  if (v.contains("cublas")) {
    const std::vector<double> blas = v["cublas"].at("ms").get<std::vector<double>>();
    r.cublas = summarize_times(blas);
    r.cublas_algorithm = v["cublas"].value("algorithm", std::string());
    if (v.contains("timing") && v["timing"].value("paired", false)) {
      const std::vector<double> ours = v["timing"].at("ms").get<std::vector<double>>();
      std::vector<double> ratios;
      for (size_t i = 0; i < std::min(ours.size(), blas.size()); ++i)
        if (ours[i] > 0) ratios.push_back(blas[i] / ours[i]);
      r.paired = !ratios.empty();
      if (r.paired) r.paired_ratio = spread_of(ratios);
    }
  }
  if (v.contains("conditions")) r.conditions = conditions_from_json(v["conditions"]);
  r.conditions_error = v.value("conditions_error", std::string());
  if (v.contains("cublas_conditions")) r.cublas_conditions = conditions_from_json(v["cublas_conditions"]);
  r.cublas_conditions_error = v.value("cublas_conditions_error", std::string());
  r.cublas_clock_spins_mhz = v.value("cublas_clock_spins_mhz", std::vector<double>{});
  r.clock_spins_after_ours_mhz = v.value("clock_spins_after_ours_mhz", std::vector<double>{});
  r.clock_spin_error = v.value("clock_spin_error", std::string());
  if (r.reference == "none" && r.error.empty())
    r.error = "no reference: the CPU reference is too slow at this size and cuBLAS is unavailable (" + r.cublas_error +
              ")";
}

}  // namespace

ir::TimelineOptions counted_clock_options(const ir::Kernel& kernel) {
  return timeline_options(kernel, {.ctas = TimelineCtas::wave, .capacity = kClockRecords});
}

int input_set_count(std::size_t set_bytes, std::size_t l2_bytes, std::size_t device_memory_bytes) {
  if (set_bytes == 0) return 2;
  const std::size_t l2 = l2_bytes ? l2_bytes : std::size_t(50) << 20;
  std::size_t sets = (2 * l2 + set_bytes - 1) / set_bytes;
  sets = std::clamp<std::size_t>(sets, 2, 64);
  if (device_memory_bytes > 0) sets = std::min(sets, std::max<std::size_t>(2, device_memory_bytes / 4 / set_bytes));
  return int(sets);
}

BenchResult run_bench(const BenchRequest& req) {
  BenchPlan p;
  p.info = &kernels::kernel_or_throw(req.kernel_id);
  p.shape = p.info->resolve(req.shape);
  if (req.reps < 0) throw kernels::ConfigError(fmt::format("--reps {} is negative: give 0 (check only) or more", req.reps));
  BenchResult r;
  r.params = kernels::resolve_params(*p.info, req.params);
  p.c_dtype = kernels::c_dtype_of(*p.info, r.params);
  r.c_dtype = p.c_dtype;
  r.mistakes = req.mistakes;
  // ConfigError for a shape, mistake or parameter it does not take.
  p.kernel = kernels::build_kernel(*p.info, {p.shape, req.mistakes, r.params});
  r.kernel_id = p.info->id;
  r.shape = p.shape;
  r.inputs = req.inputs;
  r.seed = req.seed ? req.seed : fresh_seed();
  r.date = utc_timestamp_now();

  p.ptx = ptx::emit(p.kernel).text;
  if (req.timeline) {  // ConfigError / invalid_argument for options the kernel cannot take
    try {
      p.timeline = ir::instrument_timeline(p.kernel, timeline_options(p.kernel, *req.timeline));
    } catch (const std::invalid_argument& e) {
      throw kernels::ConfigError(e.what());
    }
    p.timeline_ptx = ptx::emit(p.timeline->kernel).text;
  }
  if (req.cublas && req.reps > 0) {
    p.spin = kernels::build_clock_spin_probe(kSpinCtas, kSpinReps);
    p.spin_ptx = ptx::emit(*p.spin).text;
  }
  if (req.counted_clock && req.reps > 0) {
    // The first wave's CTAs record (132 SMs on the H100 and H200); a kernel the pass cannot
    // instrument has no counted clock, and the note says why.
    try {
      p.clock = ir::instrument_timeline(p.kernel, counted_clock_options(p.kernel));
      p.clock_ptx = ptx::emit(p.clock->kernel).text;
    } catch (const std::exception& e) {
      p.clock.reset();
      r.counted_clock_note = fmt::format("not counted: the timeline pass cannot instrument this build ({})", e.what());
    }
  } else {
    r.counted_clock_note = req.counted_clock ? "not counted: no timed rounds (--reps 0)" : "not counted (--no-counted-clock)";
  }
  // The host holds A and B (values and device bytes), C's poison and the CPU reference: a
  // shape this machine cannot hold fails its row up front, naming the size, instead of being
  // killed for memory half way (whole_grid_bytes counts the same buffers).
  if (const uint64_t need = whole_grid_bytes(*p.info, p.shape), have = available_memory_bytes(); need > have)
    throw std::runtime_error(fmt::format("the inputs and reference of {} at M={} N={} K={} need about {} of host "
                                         "memory, more than the {} this machine has free",
                                         p.info->id, p.shape.m, p.shape.n, p.shape.k, bytes_text(need),
                                         bytes_text(have)));
  p.data = make_gemm_data(*p.info, p.c_dtype, p.shape, req.inputs, r.seed);
  p.cpu_ref = uint64_t(p.shape.m) * p.shape.n * p.shape.k <= kCpuReferenceMaxMacs;
  if (p.cpu_ref) p.cpu_reference = reference_gemm(p.data);
  p.poison = poisoned_output(p.shape, p.c_dtype);
  p.check_limit = launch_limit(req.kernel_limit, p.shape);

  GpuJobOptions options = req.job;
  // The backstop: every watchdog limit the child can arm, with room to spare.
  options.limits.kernels = 3 * p.check_limit + 2 * req.kernel_limit + ms_of(8.0 * req.max_timing_seconds * 1000.0) +
                           ms_of(6.0 * kPowerSoakMs) + (p.clock ? p.check_limit * (2 * kCountedLaunches) : milliseconds(0)) +
                           // --sustain: its time, and its last chunk's overrun (a round at most)
                           (req.sustain_ms > 0.0 ? ms_of(2.0 * req.sustain_ms) + 2 * p.check_limit : milliseconds(0));
  const GpuJobResult job = run_gpu_job(
      fmt::format("bench {} {}x{}x{}", r.kernel_id, p.shape.m, p.shape.n, p.shape.k),
      [&](GpuJobContext& context) { return bench_child(context, p, req); }, options);
  r.status = job.status;
  r.error = job.error;
  if (job.ok()) {
    try {
      read_child_result(job.value, r);
      read_counted_clock(job.value, p, r);
      if (p.timeline) read_timeline(job.value, p, req.mistakes, r);
    } catch (const nlohmann::json::exception& e) {
      r.status = GpuStatus::failed;
      r.error = std::string("the bench job's result could not be read: ") + e.what();
    } catch (const std::invalid_argument& e) {  // records that do not decode
      r.timeline_error = e.what();
    }
  }
  return r;
}

Comparison compare_with_gpu_reference(const std::vector<uint8_t>& c_bytes, const std::vector<uint8_t>& ref_bytes,
                                      kernels::DType c_dtype, kernels::GemmShape shape, kernels::DType ab_dtype) {
  const size_t count = size_t(shape.m) * shape.n, es = dtype_bytes(c_dtype);
  if (c_bytes.size() != count * es || ref_bytes.size() != count * es)
    throw std::invalid_argument(fmt::format("compare_with_gpu_reference: C has {} bytes and the reference {}, but "
                                            "{}x{} needs {}",
                                            c_bytes.size(), ref_bytes.size(), shape.m, shape.n, count * es));
  Comparison r;
  r.elements = count;
  r.tolerance = ab_dtype == kernels::DType::bf16 ? 1e-2 : 1e-4;
  double ref_sq = 0.0;
  for (size_t i = 0; i < count; ++i) {
    const double v = load_element(ref_bytes, c_dtype, i);
    if (std::isfinite(v)) ref_sq += v * v;
  }
  const double rms = count ? std::sqrt(ref_sq / double(count)) : 0.0;
  double diff_sq = 0.0;
  for (size_t i = 0; i < count; ++i) {
    const double out = load_element(c_bytes, c_dtype, i), ref = load_element(ref_bytes, c_dtype, i);
    const bool unwritten = std::all_of(c_bytes.begin() + long(i * es), c_bytes.begin() + long((i + 1) * es),
                                       [](uint8_t byte) { return byte == 0xFF; });
    r.unwritten += unwritten;
    const bool finite = std::isfinite(out);
    r.non_finite += !finite;
    const double err = std::abs(out - ref);
    const double allowed = r.tolerance * (std::abs(ref) + rms);
    if (finite) {
      r.max_abs_err = std::max(r.max_abs_err, err);
      diff_sq += err * err;
    }
    if (!finite || !(err <= allowed)) {
      if (r.mismatches++ == 0)
        r.first_mismatch = unwritten ? fmt::format("C[{}][{}] was never written (still the 0xFF poison); cuBLAS has {:.9g}",
                                                   i / shape.n, i % shape.n, ref)
                                     : fmt::format("C[{}][{}] = {:.9g} but cuBLAS has {:.9g} (|error| {:.3g} > allowed {:.3g})",
                                                   i / shape.n, i % shape.n, out, ref, err, allowed);
    }
  }
  r.rel_err = r.non_finite ? INFINITY : ref_sq > 0.0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
  if (r.non_finite) r.max_abs_err = INFINITY;
  r.correct = r.mismatches == 0 && r.rel_err <= r.tolerance;
  if (!r.correct && r.first_mismatch.empty())
    r.first_mismatch = fmt::format("relative error {:.3g} from cuBLAS exceeds the bound {:.3g}", r.rel_err, r.tolerance);
  return r;
}

}  // namespace gs::run
