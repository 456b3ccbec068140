// The wave drift rule (engine/model/timing.*, timing::wave_drift): a ring of TMA stages over many
// waves of one CTA an SM, whose SMs' own paces blur the waves, against the probes it was taken from
// (machines.hpp: gemm_box_latency_*, drift_blur_waves) and step 13's ring depths in sim's prediction.
#include <catch2/catch.hpp>

#include <string>

#include "engine/model/model.hpp"
#include "engine/model/timing.hpp"
#include "kernels/registry.hpp"
#include "run/sim_job.hpp"

using namespace gs;

TEST_CASE("drift: a K block's boxes land late as the probed GEMM wave's latencies say, scaled to their bytes",
          "[model][timing]") {
  using model::timing::box_late_share;
  const auto& d = model::timing::kH100Desc;
  // The probe's own K block (32 KiB): half land after p50, a tenth after p90, a hundredth after p99.
  CHECK(box_late_share(d, d.gemm_box_latency_p50.value, 32768) == Approx(0.5));
  CHECK(box_late_share(d, d.gemm_box_latency_p90.value, 32768) == Approx(0.1));
  CHECK(box_late_share(d, d.gemm_box_latency_p99.value, 32768) == Approx(0.01));
  CHECK(box_late_share(d, 0.0, 32768) == 1.0);  // asked for when needed: every block waits
  CHECK(box_late_share(d, 4000.0, 32768) < 1e-5);
  // A 128x256 tile's K block (48 KiB): the part above the TMA's own latency half as long again.
  const double p50_48k = d.tma_latency.value + 1.5 * (d.gemm_box_latency_p50.value - d.tma_latency.value);
  CHECK(box_late_share(d, p50_48k, 49152) == Approx(0.5));
  CHECK(box_late_share(d, d.gemm_box_latency_p90.value, 49152) > 0.4);
}

TEST_CASE("drift: a ring that hides its boxes lets the waves blur, and the blurred waves read B again",
          "[model][timing]") {
  using namespace model::timing;
  const auto& d = kH100Desc;
  // Step 13's geometry at 8192^3: 64 x 64 tiles of 128 x 128, K blocks of 64 (32 KiB a stage), one
  // CTA an SM, 132 at a time: 31.0 waves.
  GemmFacts g;
  g.tiles_m = g.tiles_n = 64;
  g.tile_rows = g.tile_cols = 128;
  g.m = g.n = g.k = 8192;
  g.ring_k = 64;
  g.ring_stage_bytes = 32768;
  const double period = 673;  // the model's K period of step 13 there (cycles)
  const auto drift = [&](uint32_t stages) {
    g.ring_stages = stages;
    return wave_drift(d, g, 132, 4096, period);
  };
  const WaveDrift s3 = drift(3), s4 = drift(4), s6 = drift(6);
  // The blur over 31.0 waves, growing evenly to whole over drift_blur_waves.
  const double blur = 1.0 - d.drift_blur_waves.value / (2.0 * 4096.0 / 132.0);
  CHECK(s6.blur == Approx(blur));
  // 3 stages ask for a block 1346 cycles ahead, before most boxes land: every tile pulls back.
  CHECK(s3.lead == Approx(2 * period));
  CHECK(s3.late_share == Approx(1.0));
  CHECK(s3.share < 1e-6);
  CHECK(s3.extra_bytes < 1e3);
  // 4 stages: a few late blocks a tile, most tiles held; 6: none.
  CHECK(s4.pulls > 1.0);
  CHECK(s4.share < 0.25 * blur);
  CHECK(s6.free_share > 0.99);
  CHECK(s6.share == Approx(blur).epsilon(0.01));
  // The waves read each B panel about once a wave (4.37 GB, what Nsight Compute counts for 2-4
  // stages on the H100); a stream of CTAs each its own B panel, A once a tile row's window.
  CHECK(s6.count_bytes == Approx(hbm_read_bytes(g, 132, d.l2_kept_bytes.value)));
  CHECK(s6.count_bytes / 1e9 == Approx(4.37).epsilon(0.01));
  CHECK(s6.stream_bytes > 2.0 * s6.count_bytes);
  CHECK(s6.extra_bytes == Approx(s6.share * (s6.stream_bytes - s6.count_bytes)));
  // Step 13 at 6 stages reads 7.78 GB there (docs/results/2026-12-07-ring-drift).
  CHECK((s6.count_bytes + s6.extra_bytes) / 1e9 == Approx(7.78).epsilon(0.03));
  // No ring, or no K period: nothing.
  g.ring_stages = 0;
  CHECK(wave_drift(d, g, 132, 4096, period).extra_bytes == 0.0);
  g.ring_stages = 6;
  CHECK(wave_drift(d, g, 132, 4096, 0.0).extra_bytes == 0.0);
}

TEST_CASE("drift: the ring probe's 6-stage grid reads what drift_blur_waves was taken from", "[model][timing]") {
  // tma_gemm_ring8192_grid_split_wgmma_s6_pace1: 64 x 64 tiles of 128 x 128, 120 K blocks of 64,
  // 4096 CTAs, one an SM: 7.35 GB from HBM on the H100 (4.09 at 3 stages), 6.87 on the H200.
  using namespace model::timing;
  GemmFacts g;
  g.tiles_m = g.tiles_n = 64;
  g.tile_rows = g.tile_cols = 128;
  g.m = g.n = 8192;
  g.k = 120 * 64;
  g.ring_stages = 6;
  g.ring_k = 64;
  g.ring_stage_bytes = 32768;
  for (const auto& [d, measured] : {std::pair{&kH100Desc, 7.35}, std::pair{&kH200Desc, 6.87}}) {
    const WaveDrift w = wave_drift(*d, g, 132, 4096, 673);
    CHECK(w.count_bytes / 1e9 == Approx(4.09).epsilon(0.01));
    CHECK((w.count_bytes + w.extra_bytes) / 1e9 == Approx(measured).epsilon(0.01));
  }
}

TEST_CASE("drift: step 13's deeper rings read more from HBM in sim's prediction, and say why", "[model][timing]") {
  const auto sim = [](uint32_t stages, uint32_t size) {
    return run::run_sim({.kernel_id = "hopper_producer_consumer",
                         .shape = {size, size, size},
                         .params = {{"stages", stages}, {"bn", 128}},
                         .only_traced_cta = true,
                         .machine = &model::timing::kH100});
  };
  const run::SimReport s3 = sim(3, 8192), s4 = sim(4, 8192), s6 = sim(6, 8192);
  for (const run::SimReport* r : {&s3, &s4, &s6}) {
    REQUIRE(r->result.completed);
    // The K loop's pace, as the fast-forward timed it.
    CHECK(r->result.stats.traced_cost.k_period_cycles > 500);
    CHECK_THAT(r->result.stats.prediction.drift_basis, Catch::Contains("drift_blur_waves"));
  }
  const auto& p3 = s3.result.stats.prediction;
  const auto& p6 = s6.result.stats.prediction;
  CHECK(p3.drift.extra_bytes < 0.01 * p3.drift.count_bytes);
  CHECK(p6.drift.extra_bytes > 0.5 * p6.drift.count_bytes);
  CHECK(p6.parts.hbm_bytes_per_wave > 1.5 * p3.parts.hbm_bytes_per_wave);
  // Six stages bound by HBM, slower than four; three about as fast as four.
  CHECK(std::string(p6.parts.bound) == "HBM");
  CHECK(p6.tflops < 0.9 * s4.result.stats.prediction.tflops);
  CHECK(p3.tflops == Approx(s4.result.stats.prediction.tflops).epsilon(0.02));
  // 4096^3's K loop is too short to fast-forward: its pace is timed all the same.
  const run::SimReport small = sim(6, 4096);
  REQUIRE(small.result.completed);
  CHECK(small.result.stats.traced_cost.k_period_cycles ==
        Approx(s6.result.stats.traced_cost.k_period_cycles).epsilon(0.05));
  // One CTA an SM but a single wave (2048^3: 256 tiles on 132 SMs is two; 1024^3 is 64 tiles): no drift.
  const run::SimReport one = sim(6, 1024);
  REQUIRE(one.result.completed);
  CHECK(one.result.stats.prediction.drift_basis.empty());
}

TEST_CASE("drift: a kernel's declared ring, in the facts the prediction reads", "[model][timing]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_producer_consumer");
  const ir::Kernel k = kernels::build_kernel(info, {{8192, 8192, 8192}, {}, {{"stages", 5}, {"bn", 128}}});
  model::timing::GemmFacts g = model::timing::declared_gemm_facts(k.output, 8192);
  model::timing::declare_ring(k, g);
  CHECK(g.ring_stages == 5);
  CHECK(g.ring_k == 64);
  CHECK(g.ring_stage_bytes == 32768);
  // Step 11 loads one K block at a time into one stage: no ring to run ahead with.
  const ir::Kernel one = kernels::build_kernel(kernels::kernel_or_throw("hopper_tma_wgmma_64"), {{1024, 1024, 1024}, {}, {}});
  model::timing::GemmFacts g1 = model::timing::declared_gemm_facts(one.output, 1024);
  model::timing::declare_ring(one, g1);
  CHECK(g1.ring_stages == 0);
}
