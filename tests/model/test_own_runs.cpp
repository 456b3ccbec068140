// The scheduler's straight loop in a CTA of at most four warps runs a warp's run of issues that
// keep to its own state at once (engine/model/cta.cpp, own_run; DecodedInst::own_state) against
// one pick at a time (SimOptions::own_runs = false): the same C, statistics, cycles, schedule and
// hazards, for the Ampere steps (every one of their issues between loads is such a run) with
// their mistakes, and a Hopper step of four warps whose TMA and wgmma issues are not, at shapes
// of one and of several CTAs.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "tests/model/model_fixture.hpp"

using namespace gs;

TEST_CASE("a warp's run of issues that keep to its own state does what one pick at a time does", "[model][timing]") {
  struct Case {
    std::string id;
    kernels::GemmShape shape;
    std::set<std::string> mistakes;
  };
  const std::vector<Case> cases = {
      {"ampere_mma_global", {64, 32, 64}, {}},
      {"ampere_mma_global", {128, 128, 256}, {}},
      {"ampere_cp_async", {64, 64, 64}, {}},
      {"ampere_cp_async", {128, 128, 256}, {}},
      {"ampere_cp_async", {64, 64, 64}, {"steady-state-wait-at-tail"}},
      {"ampere_cp_async", {64, 64, 64}, {"no-sync-before-prefetch"}},
      {"ampere_ldmatrix", {128, 128, 128}, {}},
      {"ampere_ldmatrix", {256, 256, 256}, {"unswizzled-ldmatrix"}},
      {"hopper_tma_wgmma_64", {128, 128, 128}, {}},
  };
  for (const Case& k : cases)
    for (const bool trace : {false, true}) {
      INFO(test::case_label(k.id, k.shape, k.mistakes, trace));
      model::SimOptions opt;
      opt.trace = trace;
      opt.threads = 1;
      opt.own_runs = false;
      const test::ModelRun one = test::run_model(k.id, k.shape, true, 7, k.mistakes, opt);
      opt.own_runs = true;
      const test::ModelRun runs = test::run_model(k.id, k.shape, true, 7, k.mistakes, opt);
      CHECK(runs.bufs.c == one.bufs.c);
      CHECK(runs.mismatches == one.mismatches);
      test::check_same_run(runs.result, one.result);
      if (k.mistakes.empty()) CHECK(runs.mismatches == 0);
    }
}
