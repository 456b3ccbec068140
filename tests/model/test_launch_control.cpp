// Cluster launch control in the model (step 24): the grid's queue of CTAs not yet launched, as
// clusterlaunchcontrol.try_cancel sees it. C at three shapes (one not whole tiles) on integer and
// random inputs with a first wave smaller than the grid, so that most tiles are taken from the
// queue; the queue's answers (lowest CTA first, each once, in the order of modeled time, "none
// left" once per CTA at the end); a cancelled CTA never runs; the same answers and C on every run;
// and the two mistakes caught with what they are.
#include <algorithm>
#include <set>

#include <catch2/catch.hpp>

#include "engine/model/machine.hpp"
#include "tests/model/model_fixture.hpp"
#include "tests/support/param_combos.hpp"

using namespace gs;

namespace {

constexpr const char* kStep = "blackwell_clc";

const model::Hazard* find_hazard(const model::SimResult& r, model::HazardKind kind) {
  for (const model::Hazard& h : r.hazards)
    if (h.kind == kind) return &h;
  return nullptr;
}

model::SimOptions wave_of(uint32_t resident) {
  model::SimOptions o;
  o.resident_ctas = resident;
  return o;
}

}  // namespace

TEST_CASE("launch control: step 24 is exact on integers and close on random inputs at three shapes",
          "[model][launch-control]") {
  // 24, 12 and 12 tiles (the second of four K-blocks, the last with partial tiles on every edge,
  // K 200 zero-filled past K) on a first wave of 4 CTAs: 8 to 20 tiles come from the queue.
  for (const kernels::GemmShape shape :
       {kernels::GemmShape{768, 1024, 128}, kernels::GemmShape{512, 768, 256}, kernels::GemmShape{488, 520, 200}}) {
    for (bool integer : {true, false}) {
      DYNAMIC_SECTION(shape.m << "x" << shape.n << "x" << shape.k << (integer ? " int" : " random")) {
        test::ModelRun r = test::run_model(kStep, shape, integer, 24 + shape.m, {}, wave_of(4));
        INFO(test::hazard_list(r.result) << r.result.error);
        CHECK(r.result.completed);
        CHECK(r.result.hazards.empty());
        if (integer) CHECK(r.mismatches == 0);
        else CHECK(r.rel_err < 1e-5);
        // Only the first wave ran, and between them they wrote every tile once.
        const model::CSchedule& s = r.result.schedule;
        const uint32_t tiles = s.tiles_m * s.tiles_n;
        CHECK(r.result.stats.ctas == 4);
        std::set<uint32_t> written;
        for (const model::TileVisit& v : s.visits) {
          CHECK(v.cta < 4);
          written.insert(v.tile);
        }
        CHECK(written.size() == tiles);
        CHECK(s.visits.size() == tiles);
      }
    }
  }
}

TEST_CASE("launch control: the queue cancels the lowest CTA not yet launched, each once, in modeled time",
          "[model][launch-control]") {
  const kernels::GemmShape shape{1024, 1024, 128};  // 8 x 4 = 32 tiles, 32 CTAs
  test::ModelRun r = test::run_model(kStep, shape, true, 7, {}, wave_of(5));
  REQUIRE(r.result.completed);
  const std::vector<model::LaunchCancel>& answers = r.result.schedule.cancels;
  std::vector<uint32_t> cancelled;
  std::vector<uint32_t> none_left_per_cta(5, 0);
  for (size_t i = 0; i < answers.size(); ++i) {
    const model::LaunchCancel& a = answers[i];
    REQUIRE(a.asker < 5);  // only the first wave's CTAs ever ran
    if (a.cancelled == ir::kNone) none_left_per_cta[a.asker]++;
    else cancelled.push_back(a.cancelled);
    // Served in the order of the askers' modeled cycles, to within the grid's round of 32 cycles.
    if (i > 0) CHECK(a.cycle + model::kClusterQuantum >= answers[i - 1].cycle);
    // Each answer lands a fixed time after its request (the facts table's clc_latency, a model
    // choice), and the record says when.
    CHECK(a.landed > a.cycle);
    CHECK(a.landed - a.cycle == answers[0].landed - answers[0].cycle);
  }
  // CTAs 5..31, lowest first: each taken once, and none of them ran.
  std::vector<uint32_t> expected(27);
  for (uint32_t i = 0; i < 27; ++i) expected[i] = 5 + i;
  CHECK(cancelled == expected);
  // Every CTA stopped at its first "none left", and asked no more.
  CHECK(none_left_per_cta == std::vector<uint32_t>(5, 1));
  // The tiles were not dealt round-robin: the CTA that asked first got the next one, so the
  // schedule is the model's record, and each CTA's tiles come in the order it asked.
  for (uint32_t cta = 0; cta < 5; ++cta) {
    uint64_t last = 0;
    for (const model::TileVisit& v : r.result.schedule.visits)
      if (v.cta == cta) {
        CHECK(v.cycle >= last);
        last = v.cycle;
      }
  }
}

TEST_CASE("launch control: the same inputs give the same C and the same answers, on any number of threads",
          "[model][launch-control]") {
  const kernels::GemmShape shape{768, 1024, 128};
  model::SimOptions one = wave_of(3), many = wave_of(3);
  one.threads = 1;
  many.threads = 4;
  test::ModelRun a = test::run_model(kStep, shape, false, 11, {}, one);
  test::ModelRun b = test::run_model(kStep, shape, false, 11, {}, many);
  REQUIRE(a.result.completed);
  CHECK(a.bufs.c == b.bufs.c);
  REQUIRE(a.result.schedule.cancels.size() == b.result.schedule.cancels.size());
  for (size_t i = 0; i < a.result.schedule.cancels.size(); ++i) {
    CHECK(a.result.schedule.cancels[i].asker == b.result.schedule.cancels[i].asker);
    CHECK(a.result.schedule.cancels[i].cancelled == b.result.schedule.cancels[i].cancelled);
    CHECK(a.result.schedule.cancels[i].cycle == b.result.schedule.cancels[i].cycle);
  }
  CHECK(a.result.stats.max_cta_cycles == b.result.stats.max_cta_cycles);
}

TEST_CASE("launch control: a first wave as large as the grid cancels nothing, and every CTA runs its own tile",
          "[model][launch-control]") {
  const kernels::GemmShape shape{384, 1024, 128};  // 12 tiles; the default wave is a B200's 148 SMs
  test::ModelRun r = test::run_model(kStep, shape, true, 3);
  REQUIRE(r.result.completed);
  CHECK(r.mismatches == 0);
  CHECK(r.result.stats.ctas == 12);
  for (const model::LaunchCancel& a : r.result.schedule.cancels) CHECK(a.cancelled == ir::kNone);
  for (const model::TileVisit& v : r.result.schedule.visits) CHECK(v.order == 0);
}

TEST_CASE("launch control: reading the answer before its mbarrier completed is named", "[model][launch-control][mistakes]") {
  test::ModelRun r = test::run_model(kStep, {768, 1024, 128}, true, 5, {"read-answer-before-wait"}, wave_of(4));
  INFO(test::hazard_list(r.result));
  const model::Hazard* early = find_hazard(r.result, model::HazardKind::clc_response_before_complete);
  REQUIRE(early);
  CHECK(r.kernel.insts[early->inst].op == ir::Op::ld_shared_b128);
  CHECK_THAT(early->detail, Catch::Contains("lands only at cycle") && Catch::Contains("clc_full"));
  // The stale answer says "none cancelled" to the TMA thread, which stops; the MMA thread reads
  // the landed answer later and waits for a tile nobody loads. The cancelled CTAs' tiles stay
  // uncomputed.
  CHECK_FALSE(r.result.completed);
  CHECK(find_hazard(r.result, model::HazardKind::deadlock));
  CHECK(r.mismatches > 0);
}

TEST_CASE("launch control: asking again after 'none left' is undefined, and the model says so",
          "[model][launch-control][mistakes]") {
  test::ModelRun r = test::run_model(kStep, {768, 1024, 128}, true, 5, {"ask-after-none-left"}, wave_of(4));
  INFO(test::hazard_list(r.result));
  const model::Hazard* again = find_hazard(r.result, model::HazardKind::clc_retry_after_empty);
  REQUIRE(again);
  CHECK(r.kernel.insts[again->inst].op == ir::Op::clc_try_cancel);
  CHECK_THAT(again->detail, Catch::Contains("undefined") && Catch::Contains("is_canceled false"));
  // The kernel as written asks no more after the answer: no such hazard, and C is right.
  test::ModelRun clean = test::run_model(kStep, {768, 1024, 128}, true, 5, {}, wave_of(4));
  CHECK(find_hazard(clean.result, model::HazardKind::clc_retry_after_empty) == nullptr);
  CHECK(clean.mismatches == 0);
}

TEST_CASE("launch control: one CTA run alone gets every resident-th queued CTA", "[model][launch-control]") {
  model::SimOptions o = wave_of(4);
  o.only_traced_cta = true;
  o.traced_cta = {1, 0, 0};
  test::ModelRun r = test::run_model(kStep, {768, 1024, 128}, true, 5, {}, o);  // 24 tiles
  REQUIRE(r.result.completed);
  std::vector<uint32_t> got;
  for (const model::LaunchCancel& a : r.result.schedule.cancels)
    if (a.cancelled != ir::kNone) got.push_back(a.cancelled);
  CHECK(got == std::vector<uint32_t>{5, 9, 13, 17, 21});
  CHECK(r.result.schedule.visits.size() == 6);  // its own tile and five more
}
