// A traced CTA run alone is bounded by design (engine/model/fast_forward.hpp): at any shape it
// runs and traces the first and last passes of each long loop and skips the rest with their
// time, says so, and keeps the prediction the whole CTA's. Whole-grid runs skip nothing.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "run/sim_job.hpp"

using namespace gs;
using Catch::Matchers::Contains;

namespace {

uint64_t resident(const run::SimReport& r) {
  uint64_t bytes = 0;
  if (r.traced_memory)
    for (const run::ReservedBytes& b : *r.traced_memory) bytes += b.resident_bytes();
  return bytes;
}

}  // namespace

TEST_CASE("fast-forward: one CTA at the largest shapes runs a bounded number of events", "[run][sim][model][fast]") {
  struct Case {
    const char* id;
    kernels::GemmShape shape;
  };
  // Before: every K block of every tile, traced (a persistent CTA at 65536^3 walks some 2000
  // tiles of 1024 K blocks: billions of events, and its inputs were A and B whole, 16 GiB).
  for (const Case& c : {Case{"hopper_persistent", {65536, 65536, 65536}},
                        Case{"hopper_fewer_arrivals", {65536, 65536, 65536}},
                        Case{"simt_naive", {65536, 65536, 65536}},
                        Case{"simt_smem_tiling", {65536, 65536, 65536}}}) {
    INFO(c.id);
    const run::SimReport r = run::run_sim({.kernel_id = c.id, .shape = c.shape, .only_traced_cta = true});
    INFO(run::sim_report_table(r));
    CHECK(r.result.completed);
    CHECK(r.hazard_free());
    CHECK(r.result.trace.events.size() < 2'000'000u);
    CHECK_FALSE(r.result.trace.fast_forwards.empty());
    CHECK_FALSE(r.result.trace.of_kind(model::EventKind::fast_forward).empty());
    const std::vector<std::string> lines = run::fast_forward_lines(r.result.trace, r.kernel);
    REQUIRE_FALSE(lines.empty());
    CHECK_THAT(lines.front(), Contains("fast-forwarded") && Contains("of "));
    CHECK_THAT(run::sim_report_table(r), Contains("fast-forwarded"));
    // The whole CTA's time: far beyond what the passes that ran took.
    CHECK(r.result.stats.traced_cta_cycles > 1'000'000u);
    // The inputs of the passes that ran, not of all K (B's columns alone were a page per row of K).
    CHECK(resident(r) < (uint64_t(500) << 20));
  }
}

TEST_CASE("fast-forward: the skipped passes keep the CTA's time and the ring's protocol", "[run][sim][model][fast]") {
  // 256 K blocks of one tile (hopper, 5 stages: 10 a period) and 2 tiles each: the model
  // predicts nearly the same cycles with and without skipping, and the ring still ends clean.
  for (const char* id : {"hopper_two_consumers", "hopper_fewer_arrivals", "hopper_producer_consumer", "simt_naive"}) {
    INFO(id);
    run::SimRequest req{.kernel_id = id, .shape = {256, 512, 16384}, .only_traced_cta = true};
    req.fast_forward = false;
    const run::SimReport full = run::run_sim(req);
    req.fast_forward = true;
    const run::SimReport fast = run::run_sim(req);
    INFO(run::sim_report_table(fast));
    REQUIRE(full.result.completed);
    REQUIRE(fast.result.completed);
    CHECK(fast.hazard_free());
    CHECK(full.result.trace.fast_forwards.empty());
    CHECK_FALSE(fast.result.trace.fast_forwards.empty());
    CHECK(fast.result.trace.events.size() * 3 < full.result.trace.events.size());
    // simt_naive's 32 warps drift apart over the passes that run (one pass in eight misses L1):
    // the first skipper runs ahead of the others, and its own periods held 16% less than the
    // CTA's passes, by which every part of the prediction fell short. The work now grows by the
    // passes all warps ended (fast_forward_at); the cycles and the time still follow the
    // skippers' own periods (the ring kernels' warps move in step with their barriers).
    const double tol = 0.05;
    const double ratio = double(fast.result.stats.traced_cta_cycles) / double(full.result.stats.traced_cta_cycles);
    CHECK(ratio > 1 - tol);
    CHECK(ratio < 1 + tol);
    const double tflops = fast.result.stats.predicted_tflops / full.result.stats.predicted_tflops;
    CHECK(tflops > 1 - tol);
    CHECK(tflops < 1 + tol);
    // The issue slots grow with the skipped passes like the rest of the CTA's work (they did not,
    // and the issue part of a prediction then counted only the passes that ran).
    const double slots = double(fast.result.stats.traced_cost.warp_instructions) /
                         double(full.result.stats.traced_cost.warp_instructions);
    CHECK(slots > 1 - tol);
    CHECK(slots < 1 + tol);
    // And the L1 data path's cycles (global loads' lines and shared wavefronts) with them.
    const auto& fc = fast.result.stats.traced_cost;
    const auto& uc = full.result.stats.traced_cost;
    const double path = double(fc.lsu_cycles + fc.smem_wavefronts) / double(uc.lsu_cycles + uc.smem_wavefronts);
    CHECK(path > 1 - tol);
    CHECK(path < 1 + tol);
  }
}

TEST_CASE("fast-forward: a whole-grid run skips nothing and judges C correct", "[run][sim][model][fast]") {
  // K = 8192 in K blocks of 64: 128 passes, which a CTA run alone would skip.
  const run::SimReport r = run::run_sim({.kernel_id = "hopper_tma_wgmma_64", .shape = {64, 64, 8192}});
  CHECK(r.ok());
  CHECK(r.result.trace.fast_forwards.empty());
  const run::SimReport alone =
      run::run_sim({.kernel_id = "hopper_tma_wgmma_64", .shape = {64, 64, 8192}, .only_traced_cta = true});
  CHECK_FALSE(alone.result.trace.fast_forwards.empty());
}

TEST_CASE("fast-forward: a K loop's skip grows what the K loop does, not the epilogue beside it", "[run][sim][model][fast]") {
  // Step 25's epilogue warps store tile i's C while the MMA thread runs tile i+1's K loop: the
  // stores in a K loop's period are the tile's, which the K-loop jump grew by its 100-odd skipped
  // K blocks (1.8 GB of C a wave at 8192^3 for a 268 MB C). 16 CTAs of 3 tiles of 128 x 256,
  // 128 K blocks each: the stores the CTA counts with skipping are those without.
  run::SimRequest req{.kernel_id = "blackwell_tma_store_epilogue", .shape = {1024, 1536, 8192},
                      .params = {{"ctas", 16}}, .only_traced_cta = true};
  req.fast_forward = false;
  const run::SimReport full = run::run_sim(req);
  req.fast_forward = true;
  const run::SimReport fast = run::run_sim(req);
  REQUIRE(full.result.completed);
  REQUIRE(fast.result.completed);
  REQUIRE_FALSE(fast.result.trace.fast_forwards.empty());
  const uint64_t c_bytes = 3ull * 128 * 256 * 4;  // the CTA's three tiles of f32
  CHECK(full.result.stats.traced_cost.global_store_bytes == c_bytes);
  const double ratio = double(fast.result.stats.traced_cost.global_store_bytes) / double(c_bytes);
  CHECK(ratio > 0.95);
  CHECK(ratio < 1.05);
}
