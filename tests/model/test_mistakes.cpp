// Each deliberate mistake a kernel declares must be caught by the model: a hazard of the
// expected kind, a wrong result against the reference, or (a performance mistake) more
// shared-memory bank conflicts than the kernel without it.
#include <map>

#include <catch2/catch.hpp>

#include "tests/model/model_fixture.hpp"
#include "tests/support/param_combos.hpp"

using namespace gs;

namespace {
bool has_hazard(const model::SimResult& r, const std::string& kind) {
  for (const model::Hazard& h : r.hazards)
    if (model::hazard_kind_name(h.kind) == kind) return true;
  return false;
}

// What a performance mistake costs, from one run: the traced CTA's global sectors, or the
// whole grid's shared-memory bank conflicts or warp instructions.
uint64_t cost_of(const model::SimResult& r, const std::string& cost) {
  if (cost == "sectors") {
    uint64_t sectors = 0;
    for (const model::GlobalAccess& g : r.trace.global) sectors += g.sectors;
    return sectors;
  }
  if (cost == "bank-conflicts") return r.stats.smem_bank_conflicts;
  return r.stats.warp_instructions;
}

struct Expect {
  std::string hazard;  // empty: no hazard required
  bool wrong_result;
  std::string cost;  // a correct but slower kernel: what grows over the kernel as written
};

// How each declared mistake shows itself on the model.
const std::map<std::string, Expect>& expected_symptoms() {
  static const std::map<std::string, Expect> expected{
      {"skip-mbarrier-wait", {"tma-race", true}},  // and exit-with-pending-tma: the H100 faults on it
      {"wrong-swizzle", {"", true}},
      // Blackwell steps 21-22: a stage refilled before the MMAs' commit released it; the pair's
      // MMA issued without rank 1's word that its half landed (a cluster-race: the model runs
      // the pair in step, so its half has landed and C comes out right); the epilogue reading
      // TMEM before any MMA; commits that reach one CTA of the pair only.
      {"refill-before-release", {"tma-race", true}},
      {"skip-peer-wait", {"cluster-race", false}},
      {"skip-tmem-full-wait", {"", true}},
      {"commit-to-one-cta", {"deadlock", false}},
      {"wrong-expect-tx", {"deadlock", false}},
      {"missing-wgmma-fence", {"missing-wgmma-fence", false}},
      {"missing-init-fence", {"missing-init-fence", false}},
      {"swap-row-col", {"", false, "sectors"}},
      // A warp reads Bs rows other warps wrote in the same barrier interval (C may still come out right).
      {"no-sync-after-load", {"shared-race", false}},
      {"no-transpose", {"", false, "bank-conflicts"}},
      {"scalar-loads", {"", false, "instructions"}},
      {"slab-overlap", {"", true}},
      {"phase-not-flipped", {"", true}},
      {"skip-empty-wait", {"tma-race", true}},
      {"wrong-empty-barrier", {"deadlock", false}},
      {"register-overcommit", {"deadlock", false}},
      {"tile-stride-off-by-one", {"", true}},
      {"arrival-count-mismatch", {"deadlock", false}},
      {"steady-state-wait-at-tail", {"cp-async-read-before-wait", true}},
      {"no-sync-before-prefetch", {"cp-async-race", false}},
      {"unswizzled-ldmatrix", {"", false, "bank-conflicts"}},
      {"ld-before-commit", {"tmem-read-before-commit", false}},
      {"wrong-lane-quarter", {"tmem-wrong-lane-quarter", true}},
      {"no-dealloc", {"tmem-not-freed", false}},
      // Step 17: a multicast that leaves out the peers (their full barriers never complete); a
      // stage released to the own producer only (a peer's multicast overwrites what the peer read
      // with no release from it: C may still come out right, the timing decides); full barriers
      // expecting the own slice of B only (the phase completes with the peers' slices in flight).
      {"multicast-without-peers", {"deadlock", false}},
      {"release-own-cta-only", {"cluster-race", false}},
      // Its C at the example shape depends on the timing (right under the L2-share TMA rate);
      // test_cluster_multicast.cpp checks it wrong where the ring wraps many times.
      {"expect-own-slice-only", {"early-phase-completion", false}},
      // Step 18: the TMA store reads a staging buffer the threads wrote without the proxy fence;
      // a staging buffer rewritten before wait_group.read retired the store that read it (the
      // model's stores read at issue: C comes out right, the order is not guaranteed).
      {"missing-proxy-fence", {"missing-proxy-fence", false}},
      {"reuse-staging-before-wait", {"bulk-store-race", false}},
      {"unswizzled-staging", {"", false, "bank-conflicts"}},
      {"swizzle-not-in-store-map", {"", true}},
      // Step 23: the MMA thread accumulates into a buffer the epilogue is still reading (C is
      // wrong whenever the MMA overtakes a read, which the timing decides); the MMA thread's
      // tmem_empty parity flipped at every tile (it waits on buffer 1's first release, which
      // needs buffer 1 filled first).
      {"reuse-before-release", {"tmem-race", false}},
      {"phase-flips-every-tile", {"deadlock", false}},
      // Step 24: the answer read before it landed (at 12 tiles on a B200's 148 SMs the queue is
      // empty from the start, so the stale zeros say what the answer would have: C comes out
      // right; test_launch_control.cpp checks it wrong with a queue); one more try_cancel after
      // "none left" (undefined in the PTX ISA; the model answers "none left" again).
      {"read-answer-before-wait", {"clc-response-before-complete", false}},
      {"ask-after-none-left", {"clc-retry-after-empty", false}},
      // Step 25 (its missing-proxy-fence and reuse-staging-before-wait are step 18's, above):
      // tmem_empty arrived on between the last tcgen05.ld and its tcgen05.wait::ld (the model's
      // loads read at issue, so C comes out right; the race is named at the arrive).
      {"release-tmem-before-ld-wait", {"tmem-race", false}},
      // Step 26 (its commit-to-one-cta is step 22's, above): each CTA's epilogue releases its
      // own tmem_empty, so the leader's pair MMA overwrites rank 1's columns with no release of
      // rank 1's reads ordering them before it (the model's loads read at issue: C comes out right).
      {"release-tmem-to-own-cta", {"tmem-race", false}},
  };
  return expected;
}

// Runs the mistake at the shape and build and checks it shows as expected_symptoms says.
void check_caught(const kernels::KernelInfo& info, const std::string& mistake, kernels::GemmShape shape,
                  const kernels::ParamValues& params) {
  REQUIRE(expected_symptoms().count(mistake));
  const Expect& e = expected_symptoms().at(mistake);
  test::ModelRun r = test::run_model(info.id, shape, true, 7, {mistake}, {}, params);
  INFO(test::hazard_list(r.result));
  if (!e.hazard.empty()) CHECK(has_hazard(r.result, e.hazard));
  if (e.wrong_result) CHECK(r.mismatches > 0);
  if (!e.cost.empty()) {
    // Correct, and visibly more expensive than the kernel as written.
    test::ModelRun clean = test::run_model(info.id, shape, true, 7, {}, {}, params);
    CHECK(r.mismatches == 0);
    CHECK(r.result.hazards.empty());
    CHECK(cost_of(r.result, e.cost) > cost_of(clean.result, e.cost));
  } else {
    // Caught one way or the other.
    CHECK((!r.result.hazards.empty() || r.mismatches > 0));
  }
}
}  // namespace

TEST_CASE("mistakes: every declared mistake is caught", "[model][mistakes]") {
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    for (const kernels::Mistake& m : info.mistakes) {
      DYNAMIC_SECTION(info.id << " --break " << m.name) {
        // The example shape (step 23's with its fewest CTAs: test::small_whole_grid).
        const test::WholeGrid g = test::small_whole_grid(info);
        check_caught(info, m.name, g.shape, g.params);
      }
    }
  }
}

TEST_CASE("mistakes: still caught with a tile that is not the step's default", "[model][mistakes][tiles]") {
  // Step 10's CTA and warp tiles and the Hopper steps' tile N (tests/kernels/test_mma_tile_params.cpp):
  // a mistake's symptom must not depend on the tile it was written for.
  struct Case {
    std::string id, mistake;
    kernels::GemmShape shape;
    kernels::ParamValues params;
  };
  const Case cases[] = {
      {"ampere_ldmatrix", "unswizzled-ldmatrix", {128, 512, 96}, {{"bm", 64}, {"bn", 256}, {"wm", 32}}},
      {"hopper_two_consumers", "register-overcommit", {256, 384, 128}, {{"bn", 192}}},
      {"hopper_fewer_arrivals", "arrival-count-mismatch", {256, 256, 256}, {{"bn", 128}}},
      {"hopper_stmatrix_epilogue", "unswizzled-staging", {256, 256, 128}, {{"bn", 128}}},
      {"hopper_stmatrix_epilogue", "swizzle-not-in-store-map", {256, 256, 128}, {{"bn", 128}}},
      {"hopper_stmatrix_epilogue", "missing-proxy-fence", {256, 256, 128}, {{"bn", 128}}},
      {"hopper_stmatrix_epilogue", "reuse-staging-before-wait", {256, 384, 128}, {{"bn", 128}, {"c_dtype", 32}}},
      // Step 19 at cuBLAS's 256x128 tile, in pairs side by side sharing A.
      {"hopper_stmatrix_epilogue", "unswizzled-staging", {256, 256, 128}, {{"bm", 256}, {"bn", 128}, {"share", 1}}},
      {"hopper_stmatrix_epilogue", "swizzle-not-in-store-map", {256, 256, 128}, {{"bm", 256}, {"bn", 128}, {"share", 1}}},
      {"hopper_stmatrix_epilogue", "missing-proxy-fence", {256, 256, 128}, {{"bm", 256}, {"bn", 128}, {"share", 1}}},
      {"hopper_stmatrix_epilogue", "reuse-staging-before-wait", {264, 264, 128},
       {{"bm", 256}, {"bn", 128}, {"share", 1}, {"c_dtype", 32}}},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.id << " --break " << c.mistake << " " << kernels::params_text(c.params)) {
      check_caught(kernels::kernel_or_throw(c.id), c.mistake, c.shape, c.params);
    }
  }
}

TEST_CASE("mistakes: the Hopper kernel declares the five mistakes of the issue", "[model][mistakes]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_tma_wgmma_64");
  std::set<std::string> names;
  for (const kernels::Mistake& m : info.mistakes) names.insert(m.name);
  CHECK(names == std::set<std::string>{"skip-mbarrier-wait", "wrong-swizzle", "wrong-expect-tx", "missing-wgmma-fence",
                                       "missing-init-fence"});
}

TEST_CASE("mistakes: the deadlock report names the barrier, its phase, arrivals and bytes", "[model][mistakes]") {
  test::ModelRun r = test::run_model("hopper_tma_wgmma_64", {64, 64, 64}, true, 3, {"wrong-expect-tx"});
  CHECK_FALSE(r.result.completed);
  REQUIRE(!r.result.hazards.empty());
  const model::Hazard* dl = nullptr;
  for (const model::Hazard& h : r.result.hazards)
    if (h.kind == model::HazardKind::deadlock) dl = &h;
  REQUIRE(dl);
  CHECK_THAT(dl->detail, Catch::Contains("mbarrier 'full'") && Catch::Contains("parity 0") &&
                             Catch::Contains("1024 transaction bytes still expected") &&
                             Catch::Contains("0 of 1 arrivals pending"));
  CHECK_THAT(r.result.error, Catch::Contains("deadlock"));
}

TEST_CASE("mistakes: a deadlock in a ring names the stage's barrier by its declared name", "[model][mistakes]") {
  // Step 16 with step 15's empty count: the producer waits for a release of stage 0 that never comes.
  test::ModelRun r = test::run_model("hopper_fewer_arrivals", {128, 256, 256}, true, 3, {"arrival-count-mismatch"});
  CHECK_FALSE(r.result.completed);
  CHECK_THAT(r.result.error, Catch::Contains("wait on mbarrier 'empty[0]' for parity 0"));
}

TEST_CASE("mistakes: wrong-swizzle is deterministic (the GPU must match it bit for bit)", "[model][mistakes]") {
  test::ModelRun a = test::run_model("hopper_tma_wgmma_64", {128, 64, 128}, true, 11, {"wrong-swizzle"});
  test::ModelRun b = test::run_model("hopper_tma_wgmma_64", {128, 64, 128}, true, 11, {"wrong-swizzle"});
  CHECK(a.mismatches > 0);
  CHECK(a.bufs.c == b.bufs.c);
  CHECK(a.result.hazards.empty());  // nothing the model can flag: only the numbers are wrong
}

TEST_CASE("mistakes: skip-mbarrier-wait over-arrives on the barrier nobody waits on", "[model][mistakes]") {
  // On the H100 this mistake makes the launch fail (docs/results/2026-11-21-h100/bench.log);
  // the model names the cause: the next K-block's expect_tx arrives on a phase nobody waited
  // through. (With the measured TMA latency, 345 cycles, the last boxes land before the
  // epilogue's stores are done, so the model no longer sees the CTA exit with them in flight.)
  test::ModelRun r = test::run_model("hopper_tma_wgmma_64", {64, 64, 128}, true, 2, {"skip-mbarrier-wait"});
  bool over = false;
  for (const model::Hazard& h : r.result.hazards) over = over || h.kind == model::HazardKind::mbarrier_over_arrival;
  CHECK(over);
}
