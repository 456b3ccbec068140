// The straight paths of an untraced whole warp's cp.async, commit_group and wait_group
// (engine/model/exec_cp_async.cpp: direct_cp_async, direct_commit_group, direct_wait_group)
// against their exec forms (SimOptions::straight_copies = false): the same C, statistics, cycles,
// and hazards, for the Ampere steps' cp.async rings as written, with each of their
// mistakes (a read before the wait, a copy racing the other warps' reads), and at shapes of
// one and of several CTAs.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "tests/model/model_fixture.hpp"

using namespace gs;

TEST_CASE("cp.async's straight paths do what its exec forms do", "[model][cp_async]") {
  struct Case {
    std::string id;
    kernels::GemmShape shape;
    std::set<std::string> mistakes;
  };
  const std::vector<Case> cases = {
      {"ampere_cp_async", {64, 64, 64}, {}},
      {"ampere_cp_async", {128, 128, 256}, {}},
      {"ampere_cp_async", {64, 64, 64}, {"steady-state-wait-at-tail"}},
      {"ampere_cp_async", {64, 64, 64}, {"no-sync-before-prefetch"}},
      {"ampere_ldmatrix", {128, 128, 128}, {}},
  };
  for (const Case& k : cases)
    for (const bool trace : {false, true}) {
      INFO(test::case_label(k.id, k.shape, k.mistakes, trace));
      model::SimOptions opt;
      opt.trace = trace;
      opt.straight_copies = false;
      const test::ModelRun exec = test::run_model(k.id, k.shape, true, 7, k.mistakes, opt);
      opt.straight_copies = true;
      const test::ModelRun straight = test::run_model(k.id, k.shape, true, 7, k.mistakes, opt);
      CHECK(straight.bufs.c == exec.bufs.c);
      CHECK(straight.mismatches == exec.mismatches);
      test::check_same_run(straight.result, exec.result);
      if (k.mistakes.empty()) {
        CHECK(straight.mismatches == 0);
        CHECK(straight.result.hazards.empty());
      } else {
        CHECK(!straight.result.hazards.empty());
      }
    }
}
