// [gpu] The GPU runner end to end: every kernel the GPU can run is correct at three shapes,
// the model computes the GPU's bytes (also for deterministic mistakes), a deadlocking kernel is
// reported as a hang, and a faulting kernel as a fault, each followed by a job that works.
// Without a GPU every [gpu] case prints "skipped: ..." and returns; the one case without the
// tag checks that the deliberately failing kernels are valid PTX.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/builder/builder.hpp"
#include "engine/ptx/emit.hpp"
#include "run/gpu_bench.hpp"
#include "run/gpu_compare.hpp"
#include "run/gpu_launch.hpp"
#include "run/timeline_doc.hpp"
#include "run/timeline_stats.hpp"
#include "tests/cuda/gpu_test_support.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;
using Catch::Contains;
using namespace std::chrono_literals;

namespace {

// GPU 0, listed in a child. Empty name when the listing failed (the test then fails on it).
const cuda::DeviceInfo& the_device() {
  static const cuda::DeviceInfo device = [] {
    const run::DeviceList list = run::list_devices_isolated();
    return list.job.ok() ? list.devices.front() : cuda::DeviceInfo{};
  }();
  return device;
}

bool runnable(const kernels::KernelInfo& info) {
  std::string why;
  if (cuda::can_run(the_device(), ir::arch_name(info.arch), &why)) return true;
  WARN("skipped " << info.id << ": " << why);
  return false;
}

// The first three shapes the kernel takes: its example, an odd one (edges), then larger ones.
std::vector<kernels::GemmShape> three_shapes(const kernels::KernelInfo& info) {
  std::vector<kernels::GemmShape> shapes;
  for (const kernels::GemmShape s : {info.example_shape, kernels::GemmShape{100, 70, 33}, kernels::GemmShape{256, 192, 128},
                                     kernels::GemmShape{512, 384, 320}, kernels::GemmShape{384, 640, 96},
                                     kernels::GemmShape{64, 64, 64}}) {
    if (shapes.size() == 3) break;
    try {
      kernels::check_build_shape(info, s);
      shapes.push_back(s);
    } catch (const kernels::ConfigError&) {
    }
  }
  return shapes;
}

// One thread stores a word a terabyte past C (a 128-byte buffer): an illegal address.
ir::Kernel far_store_kernel() {
  builder::Builder b("store_far_away", ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  builder::Reg C = b.global_ptr(pc, "C_ptr");
  builder::Reg far = (C + (1ull << 40)).named("far");
  b.st_global(ir::Type::u32, builder::Addr::at(far), {1u});
  b.ret();
  return b.finish();
}

ir::Kernel trap_kernel() {
  builder::Builder b("trap_now", ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  b.trap();
  b.ret();
  return b.finish();
}

run::BenchResult check_once(const std::string& id, kernels::GemmShape shape) {
  run::BenchRequest req;
  req.kernel_id = id;
  req.shape = shape;
  req.reps = 0;
  req.cublas = false;
  return run::run_bench(req);
}

}  // namespace

TEST_CASE("[gpu] runner: every kernel the GPU can run is correct at three shapes", "[run][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  REQUIRE_FALSE(the_device().name.empty());
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    if (!runnable(info)) continue;
    const std::vector<kernels::GemmShape> shapes = three_shapes(info);
    REQUIRE(shapes.size() == 3);
    for (const kernels::GemmShape& s : shapes) {
      const run::BenchResult r = check_once(info.id, s);
      INFO(info.id << " " << s.m << "x" << s.n << "x" << s.k << ": " << run::bench_summary_line(r));
      REQUIRE(r.status == run::GpuStatus::ok);
      CHECK(r.checked);
      CHECK(r.reference == "cpu");
      CHECK(r.cmp.correct);
      CHECK(r.cmp.unwritten == 0);
      CHECK(r.cmp.rel_err <= run::random_input_tolerance(info.ab_dtype, r.shape.k));
    }
  }
}

TEST_CASE("[gpu] runner: timing gives reps, a stable C and a cuBLAS baseline", "[run][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    if (!runnable(info)) continue;
    run::BenchRequest req;
    req.kernel_id = info.id;
    req.shape = {512, 512, 512};
    req.reps = 5;
    req.warmup = 1;
    const run::BenchResult r = run::run_bench(req);
    INFO(info.id << ": " << run::bench_summary_line(r));
    REQUIRE(r.status == run::GpuStatus::ok);
    CHECK(r.ok());
    CHECK(r.kernel.reps == 5);
    CHECK(r.kernel.min_ms > 0.0);
    CHECK(r.kernel.min_ms <= r.kernel.median_ms);
    CHECK(r.kernel.median_ms <= r.kernel.max_ms);
    CHECK(r.consistent);
    CHECK(r.input_sets >= 2);
    // The driver's occupancy answer: at least one whole cluster (or CTA) fits on the GPU, and at
    // most as many CTAs as its SMs hold.
    CHECK(r.grid_ctas > 0);
    CHECK(r.resident_ctas >= r.cluster_ctas);
    CHECK(r.resident_ctas % r.cluster_ctas == 0);
    CHECK(r.resident_ctas <= unsigned(the_device().sms) * 32u);
    if (r.cublas) {
      CHECK(r.cublas->reps == 5);
      CHECK(r.cublas->median_ms > 0.0);
      // Ours and cuBLAS in paired rounds: a ratio per round, its quartiles around its median.
      CHECK(r.paired);
      REQUIRE(r.paired_ratio);
      CHECK(r.paired_ratio->q1 <= r.paired_ratio->median);
      CHECK(r.paired_ratio->median <= r.paired_ratio->q3);
      CHECK(r.paired_ratio->median > 0.0);
    } else {
      WARN("no cuBLAS baseline: " << r.cublas_error);
    }
    // NVML ships with the driver: the card's power was sampled while the launches ran, or the
    // result says why not.
    if (r.conditions) {
      CHECK(r.conditions->samples > 0);
      CHECK(r.conditions->power_median_w > 0.0);
    } else {
      WARN("no power samples: " << r.conditions_error);
      CHECK_FALSE(r.conditions_error.empty());
    }
    // The SMs counted the clock they held right after the timed rounds (at 512^3 a warp may live
    // too short for %globaltimer to move: then the note says so); never above what the driver allows.
    if (r.sm_clock_counted_mhz) {
      CHECK(*r.sm_clock_counted_mhz > 0.2 * the_device().sm_clock_khz / 1000.0);
      CHECK(*r.sm_clock_counted_mhz < 1.3 * the_device().sm_clock_khz / 1000.0);
    } else {
      WARN("no counted clock: " << r.counted_clock_note);
      CHECK_THAT(r.counted_clock_note, Contains("not counted"));
    }
    const nlohmann::json j = run::bench_result_json(r);
    CHECK(j["device"] == the_device().name);
    CHECK(j["tflops"]["median"].get<double>() > 0.0);
    // The whole device description, from which the app's roofline takes its ceilings.
    CHECK(j["device_info"]["sms"] == the_device().sms);
    CHECK(j["device_info"]["sm_clock_mhz"] == the_device().sm_clock_khz / 1000);
  }
}

TEST_CASE("[gpu] runner: bench counts the SM clock the card held under a long GEMM, and can skip it",
          "[run][gpu][clock]") {
  // Step 16 at 8192^3 on a Hopper card: launches of milliseconds, long enough for the card to sit
  // at its power limit and for every warp's %globaltimer to move many times.
  GS_REQUIRE_GPU_OR_SKIP();
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_fewer_arrivals");
  if (!runnable(info)) {
    WARN("skipped: " << info.id << " does not run on " << the_device().name);
    return;
  }
  run::BenchRequest req;
  req.kernel_id = info.id;
  req.shape = {8192, 8192, 8192};
  req.reps = 10;
  const run::BenchResult r = run::run_bench(req);
  INFO(run::bench_summary_line(r) << "\n" << r.counted_clock_note);
  REQUIRE(r.status == run::GpuStatus::ok);
  CHECK(r.ok());
  REQUIRE(r.sm_clock_counted_mhz);
  const double max_mhz = the_device().sm_clock_khz / 1000.0;
  CHECK(*r.sm_clock_counted_mhz > 0.5 * max_mhz);
  CHECK(*r.sm_clock_counted_mhz <= 1.02 * max_mhz);
  CHECK_THAT(r.counted_clock_note, Contains("counted right after the timed rounds by the SMs"));
  const nlohmann::json j = run::bench_result_json(r);
  CHECK(j["sm_clock_counted_mhz"].get<double>() == *r.sm_clock_counted_mhz);
  CHECK_THAT(j["method"].get<std::string>(), Contains("the SM clock held"));
  CHECK(j["counted_launches_mhz"].size() == 5);
  // No run passes its own ceiling at the clock it held: bf16 wgmma's 4096 FLOP a cycle an SM
  // (the machine description's wgmma_flops_per_cycle) on every SM at the held clock.
  const double ceiling = double(the_device().sms) * 4096.0 * *r.sm_clock_counted_mhz * 1e6 / 1e12;
  CHECK(run::tflops_of(r.shape, r.kernel.median_ms) <= 1.01 * ceiling);
  // cuBLAS's side: its power alone and the clock a spin counted right behind it; the same spin
  // after ours reads about what ours' SMs counted (the spin's check: docs/results/2026-12-02-cublas-side).
  if (r.paired) {
    CHECK((r.cublas_conditions || !r.cublas_conditions_error.empty()));
    REQUIRE(r.cublas_clock_set_mhz());  // the clock step the card was set to right after it
    CHECK(*r.cublas_clock_set_mhz() > 0.5 * max_mhz);
    CHECK(*r.cublas_clock_set_mhz() <= 1.02 * max_mhz);
    WARN("cuBLAS: " << (r.cublas_conditions ? r.cublas_conditions->power_median_w : 0.0) << " W; spins after it "
                    << fmt::format("{:.0f}", fmt::join(r.cublas_clock_spins_mhz, ", ")) << " MHz; after ours "
                    << fmt::format("{:.0f}", fmt::join(r.clock_spins_after_ours_mhz, ", ")) << " MHz");
  }
  WARN(info.id << " at 8192^3: the SMs counted " << *r.sm_clock_counted_mhz << " MHz; NVML reported "
                << (r.conditions ? std::to_string(r.conditions->sm_clock_reported_median_mhz) : std::string("nothing")));
  // Skipped on request: absent, and the result as good.
  req.counted_clock = false;
  req.reps = 3;
  req.shape = {2048, 2048, 2048};
  const run::BenchResult skipped = run::run_bench(req);
  REQUIRE(skipped.status == run::GpuStatus::ok);
  CHECK(skipped.ok());
  CHECK_FALSE(skipped.sm_clock_counted_mhz);
  CHECK(run::bench_result_json(skipped)["sm_clock_counted_mhz"].is_null());
}

TEST_CASE("[gpu] runner: with the timeline recorded, every step computes the same C and its records decode",
          "[run][gpu][timeline]") {
  // The recording CTAs run the instrumented code and the others a plain copy (engine/ir/
  // instrument.hpp): the first wave records, so both paths run in every kernel with more CTAs.
  GS_REQUIRE_GPU_OR_SKIP();
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    if (!runnable(info)) continue;
    run::BenchRequest req;
    req.kernel_id = info.id;
    req.shape = info.example_shape;
    req.reps = 2;
    req.warmup = 0;
    req.cublas = false;
    req.timeline = run::TimelineRequest{.ctas = run::TimelineCtas::wave, .capacity = 4096, .sms = 2};
    const run::BenchResult r = run::run_bench(req);
    INFO(info.id << ": " << run::bench_summary_line(r) << " " << r.timeline_error);
    REQUIRE(r.status == run::GpuStatus::ok);
    CHECK(r.cmp.correct);
    REQUIRE(r.timeline);
    CHECK(r.timeline->c_identical.value_or(false));
    CHECK(r.timeline->warnings.empty());
    CHECK(!r.timeline->events.empty());
    CHECK(r.ok());
  }
}

TEST_CASE("[gpu] runner: every CTA of a grid records its start, end and SM with capacity 0", "[run][gpu][timeline]") {
  // `timeline --ctas all --capacity 0`: where and when each CTA of a whole launch ran.
  GS_REQUIRE_GPU_OR_SKIP();
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_producer_consumer");
  if (!runnable(info)) return;
  run::BenchRequest req;
  req.kernel_id = info.id;
  req.shape = {1024, 1024, 512};  // 64 CTAs
  req.reps = 2;
  req.warmup = 0;
  req.cublas = false;
  req.timeline = run::TimelineRequest{.ctas = run::TimelineCtas::all, .capacity = 0};
  const run::BenchResult r = run::run_bench(req);
  INFO(run::bench_summary_line(r) << " " << r.timeline_error);
  REQUIRE(r.status == run::GpuStatus::ok);
  REQUIRE(r.timeline);
  CHECK(r.timeline->c_identical.value_or(false));
  CHECK(r.timeline->warnings.empty());
  CHECK(r.timeline->events.empty());
  const std::vector<run::CtaRun> runs = run::cta_runs(*r.timeline);
  REQUIRE(runs.size() == 64);
  for (const run::CtaRun& c : runs) CHECK(c.end_ns > c.start_ns);
}

TEST_CASE("[gpu] runner: the model computes the GPU's bytes, mistakes included", "[run][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    if (!runnable(info)) continue;
    for (const run::ModelComparison& c : run::compare_kernel_with_model(info)) {
      INFO(info.id << " " << (c.mistake.empty() ? "(as written)" : c.mistake) << ": " << c.verdict);
      CHECK(c.as_expected);
      if (c.behaviour == run::MistakeBehaviour::deterministic) {
        CHECK(c.bit_identical);
        if (c.mistake.empty()) CHECK(c.gpu_correct);
      }
      if (c.behaviour == run::MistakeBehaviour::race) WARN(c.kernel_id << " " << c.mistake << ": " << c.verdict);
    }
  }
}

TEST_CASE("[gpu] runner: step 17's clusters of 1, 2 and 4 compute the model's bytes at odd shapes", "[run][gpu][step17]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_cluster_multicast");
  if (!runnable(info)) return;
  // 384x768x192: an idle rank in every pair (and three in a cluster of 4) of the last
  // tile-row; 1000x1000x1000: edges in M, N and K; 128x128x4096: one tile, 64 K-blocks.
  for (const uint32_t cluster : {1u, 2u, 4u})
    for (const kernels::GemmShape s : {kernels::GemmShape{384, 768, 192}, kernels::GemmShape{1000, 1000, 1000},
                                       kernels::GemmShape{128, 128, 4096}}) {
      run::CompareOptions options;
      options.shape = s;
      options.params = {{"cluster", cluster}};
      const run::ModelComparison c = run::compare_with_model(info.id, "", options);
      INFO("cluster=" << cluster << " " << s.m << "x" << s.n << "x" << s.k << ": " << c.verdict);
      CHECK(c.as_expected);
      CHECK(c.bit_identical);
      CHECK(c.gpu_correct);
    }
}

TEST_CASE("[gpu] runner: step 18's TMA-store epilogue computes the model's bytes at odd shapes", "[run][gpu][step18]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_tma_store");
  if (!runnable(info)) return;
  // 1000^3: partial store boxes at C's edges; 384x768x192: idle ranks of the last pair row;
  // 640x264x136: 5 tile-rows (clusters of 4 leave ranks outside C), a last tile-column 8 wide;
  // 64x1024x256: 64 rows, so half of every store box lies outside C.
  for (const uint32_t cluster : {1u, 2u, 4u})
    for (const kernels::GemmShape s : {kernels::GemmShape{1000, 1000, 1000}, kernels::GemmShape{384, 768, 192},
                                       kernels::GemmShape{640, 264, 136}, kernels::GemmShape{64, 1024, 256}}) {
      run::CompareOptions options;
      options.shape = s;
      options.params = {{"cluster", cluster}};
      const run::ModelComparison c = run::compare_with_model(info.id, "", options);
      INFO("cluster=" << cluster << " " << s.m << "x" << s.n << "x" << s.k << ": " << c.verdict);
      CHECK(c.as_expected);
      CHECK(c.bit_identical);
      CHECK(c.gpu_correct);
    }
}

TEST_CASE("[gpu] runner: step 19's stmatrix epilogue computes the model's bytes, both C types", "[run][gpu][step19]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_stmatrix_epilogue");
  if (!runnable(info)) return;
  // The GPU's C against the model's at `s` with `params`: bit for bit, and right.
  const auto same_bytes = [&](const kernels::GemmShape& s, const kernels::ParamValues& params) {
    run::CompareOptions options;
    options.shape = s;
    options.params = params;
    const run::ModelComparison c = run::compare_with_model(info.id, "", options);
    INFO(kernels::params_text(params) << " " << s.m << "x" << s.n << "x" << s.k << ": " << c.verdict);
    CHECK(c.as_expected);
    CHECK(c.bit_identical);
    CHECK(c.gpu_correct);
  };
  // 200x264x136: a partial tile-row, a last tile-column 8 wide, sums bf16 must round;
  // 384x768x192: 3x3 tiles (odd) and an idle rank; 64x1024x256: half of every store box clipped.
  for (const uint32_t c_dtype : {16u, 32u})
    for (const uint32_t cluster : {1u, 2u, 4u})
      for (const kernels::GemmShape s : {kernels::GemmShape{200, 264, 136}, kernels::GemmShape{384, 768, 192},
                                         kernels::GemmShape{64, 1024, 256}})
        same_bytes(s, {{"cluster", cluster}, {"c_dtype", c_dtype}});
  // The L2 cache hint on C's stores (c_store_hint=evict_first) changes where C's lines sit in L2,
  // never C: the same bytes as the model, which ignores the hint.
  for (const uint32_t c_dtype : {16u, 32u})
    for (const kernels::GemmShape s : {kernels::GemmShape{200, 264, 136}, kernels::GemmShape{384, 768, 192}})
      same_bytes(s, {{"cluster", 2}, {"c_dtype", c_dtype}, {"c_store_hint", 1}});
  // staging=slab (every chunk its own buffer, two meetings a tile) in clusters of 1, 2 and 4, and on
  // 72 tiles of 64 CTAs, where eight CTAs stage a second slab into their first one's buffers.
  for (const uint32_t cluster : {1u, 2u, 4u})
    for (const kernels::GemmShape s : {kernels::GemmShape{200, 264, 136}, kernels::GemmShape{384, 768, 192},
                                       kernels::GemmShape{1152, 2048, 64}})
      same_bytes(s, {{"cluster", cluster}, {"c_dtype", 16}, {"staging", 1}, {"stages", 3}, {"ctas", 64}});
  // cuBLAS's 256x128 tile (bm=256), in clusters sharing A side by side (share=a) or B one above the
  // other: 264x264x72 leaves a pair's second CTA right of C, 520x136x72 below it; 2304x1024x64 on 64
  // CTAs gives four pairs a second tile.
  for (const uint32_t c_dtype : {16u, 32u})
    for (const auto& [share, cluster] : {std::pair{1u, 2u}, std::pair{1u, 4u}, std::pair{0u, 2u}, std::pair{0u, 1u}})
      for (const kernels::GemmShape s : {kernels::GemmShape{264, 264, 72}, kernels::GemmShape{520, 136, 72},
                                         kernels::GemmShape{2304, 1024, 64}})
        same_bytes(s, {{"bm", 256}, {"bn", 128}, {"share", share}, {"cluster", cluster}, {"c_dtype", c_dtype}, {"ctas", 64}});
}

TEST_CASE("[gpu] runner: non-default tiles of steps 10, 16 and 19 compute the model's bytes", "[run][gpu][tiles]") {
  GS_REQUIRE_GPU_OR_SKIP();
  // Step 10's CTA and warp tiles (unequal sides: B's stages twice or half A's) and the Hopper
  // steps' tile N (tests/kernels/test_mma_tile_params.cpp), bit for bit against the model.
  struct Case {
    std::string_view id;
    kernels::ParamValues params;
    std::vector<kernels::GemmShape> shapes;
  };
  const Case cases[] = {
      {"ampere_ldmatrix", {{"bm", 64}, {"bn", 256}, {"wm", 32}}, {{128, 512, 96}, {512, 1024, 256}}},
      {"ampere_ldmatrix", {{"bm", 256}, {"bn", 64}, {"wn", 32}}, {{256, 128, 160}, {1024, 512, 256}}},
      {"ampere_ldmatrix", {{"bm", 64}, {"bn", 64}, {"wm", 32}, {"wn", 32}, {"stages", 6}}, {{192, 320, 224}}},
      {"hopper_fewer_arrivals", {{"bn", 128}, {"stages", 7}}, {{200, 264, 136}, {1000, 1000, 1000}}},
      {"hopper_fewer_arrivals", {{"bn", 192}}, {{200, 264, 136}, {384, 768, 192}}},
      {"hopper_stmatrix_epilogue", {{"bn", 128}, {"stages", 6}}, {{200, 264, 136}, {384, 768, 192}}},
      {"hopper_stmatrix_epilogue", {{"bn", 128}, {"c_dtype", 32}, {"ctas", 64}}, {{200, 264, 136}, {1024, 2048, 64}}},
      {"hopper_stmatrix_epilogue", {{"bn", 128}, {"cluster", 4}}, {{200, 264, 136}, {64, 1024, 256}}},
  };
  for (const Case& c : cases) {
    const kernels::KernelInfo& info = kernels::kernel_or_throw(c.id);
    if (!runnable(info)) continue;
    for (const kernels::GemmShape& s : c.shapes) {
      run::CompareOptions options;
      options.shape = s;
      options.params = c.params;
      const run::ModelComparison r = run::compare_with_model(info.id, "", options);
      INFO(c.id << " " << kernels::params_text(c.params) << " " << s.m << "x" << s.n << "x" << s.k << ": " << r.verdict);
      CHECK(r.as_expected);
      CHECK(r.bit_identical);
      CHECK(r.gpu_correct);
    }
  }
}

TEST_CASE("[gpu] runner: a deadlocked kernel is reported as a hang and the next job works", "[run][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_tma_wgmma_64");
  if (!runnable(info)) return;
  run::CompareOptions options;
  options.kernel_limit = 3s;
  const auto t0 = std::chrono::steady_clock::now();
  const run::ModelComparison hang = run::compare_with_model(info.id, "wrong-expect-tx", options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(hang.gpu_error);
  CHECK(hang.gpu_status == run::GpuStatus::timed_out);
  CHECK_THAT(hang.gpu_error, Contains("kernel 'hopper_tma_wgmma_64' did not finish in 3 s") &&
                                 Contains("likely an mbarrier deadlock") && Contains("the model can show where"));
  CHECK(hang.verdict == "hangs on the GPU too (timed out), deadlock in the model");
  CHECK(seconds < 60.0);
  const run::BenchResult after = check_once(info.id, info.example_shape);
  INFO(run::bench_summary_line(after));
  CHECK(after.ok());
}

TEST_CASE("runner: the deliberately failing kernels assemble, so they fail on the GPU for their reason",
          "[run][binding]") {
  test::check_assembles(ptx::emit(far_store_kernel()).text, ir::Arch::sm_80, "store_far_away");
  test::check_assembles(ptx::emit(trap_kernel()).text, ir::Arch::sm_80, "trap_now");
  const auto plan = run::plan_arguments(far_store_kernel(), {{}, {}, {0x1000, 128}}, {});
  REQUIRE(plan.size() == 1);
  CHECK(plan[0].value == 0x1000);
}

TEST_CASE("[gpu] runner: a faulting or trapping kernel is reported and the runner keeps working", "[run][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  model::GemmBuffers buffers;
  buffers.c.assign(128, 0xFF);
  for (const ir::Kernel& kernel : {far_store_kernel(), trap_kernel()}) {
    const run::KernelRun r = run::run_kernel_once(kernel, buffers, {}, 10s);
    INFO(r.job.error);
    CHECK(r.job.status == run::GpuStatus::failed);
    CHECK_THAT(r.job.error, Contains("kernel '" + kernel.name + "' failed: ") && Contains("CUDA_ERROR_"));
    WARN(kernel.name << " is reported as: " << r.job.error);
  }
  const run::BenchResult after = check_once("simt_naive", {128, 128, 64});
  INFO(run::bench_summary_line(after));
  CHECK(after.ok());
}
