// Step 23's double-buffered tensor-memory accumulator in the model: C at three shapes (one not
// whole tiles) on integer and random inputs, its two mistakes caught with what they are (the
// tensor-memory race, the deadlock of a parity that flips every tile), and the overlap it is
// for: the epilogue drains one buffer while the next tile's MMAs run into the other.
#include <catch2/catch.hpp>

#include "engine/model/trace.hpp"
#include "tests/model/model_fixture.hpp"
#include "tests/support/param_combos.hpp"

using namespace gs;

namespace {

constexpr const char* kStep = "blackwell_persistent_tmem2";

const model::Hazard* find_hazard(const model::SimResult& r, model::HazardKind kind) {
  for (const model::Hazard& h : r.hazards)
    if (h.kind == kind) return &h;
  return nullptr;
}

// In the traced CTA (rank 0): the epilogue's tcgen05.ld and its stores of C, and how many of
// each run while a tcgen05.mma is on the tensor core (from its issue to its completion), for a
// load an MMA into other columns.
struct Overlap {
  uint32_t loads = 0, loads_under_mma = 0, stores = 0, stores_under_mma = 0;
};
Overlap epilogue_under_mmas(const model::Trace& t) {
  std::vector<const model::TmemOp*> mmas;
  for (const model::TmemOp& m : t.tmem)
    if (m.kind == model::TmemOpKind::mma) mmas.push_back(&m);
  const auto under = [&](uint64_t at, const model::TmemOp* other_than) {
    for (const model::TmemOp* m : mmas)
      if (m->issue_cycle <= at && at < m->complete_cycle &&
          (!other_than || m->column >= other_than->column + other_than->columns ||
           other_than->column >= m->column + m->columns))
        return true;
    return false;
  };
  Overlap o;
  for (const model::Event& e : t.events) {
    if (e.cta != 0) continue;
    if (e.kind == model::EventKind::tmem_op && t.tmem[e.payload].kind == model::TmemOpKind::load) {
      ++o.loads;
      o.loads_under_mma += under(e.cycle, &t.tmem[e.payload]);
    } else if (e.kind == model::EventKind::global_access && t.global[e.payload].store) {
      ++o.stores;
      o.stores_under_mma += under(e.cycle, nullptr);
    }
  }
  return o;
}

}  // namespace

TEST_CASE("tmem double buffer: step 23 is exact on integers and close on random inputs at three shapes",
          "[model][tcgen05]") {
  struct Case {
    kernels::GemmShape shape;
    kernels::ParamValues params;
  };
  // Small shapes (the suite runs under the sanitizers; the example's 444 tiles took 50 s there):
  // 24 tiles on 16 CTAs (some CTAs one tile, some two), 32 tiles on 16 CTAs (each buffer once
  // a CTA, K 256: four K-blocks), and a shape of partial tiles on every edge (M 1000, N 1032: 8
  // x 5 tiles, K 200: the last K-block zero-filled past K) on 16 CTAs (buffers 0, 1, 0).
  for (const Case& c : {Case{{768, 1024, 128}, {{"ctas", 16}}}, Case{{1024, 1024, 256}, {{"ctas", 16}}},
                        Case{{1000, 1032, 200}, {{"ctas", 16}}}}) {
    for (bool integer : {true, false}) {
      DYNAMIC_SECTION(c.shape.m << "x" << c.shape.n << "x" << c.shape.k << (integer ? " int" : " random")) {
        test::ModelRun r = test::run_model(kStep, c.shape, integer, 23 + c.shape.m, {}, {}, c.params);
        INFO(test::hazard_list(r.result) << r.result.error);
        CHECK(r.result.completed);
        CHECK(r.result.hazards.empty());
        if (integer) CHECK(r.mismatches == 0);
        else CHECK(r.rel_err < 1e-5);  // bf16 inputs, f32 sums in another order than the reference's
      }
    }
  }
}

TEST_CASE("tmem double buffer: reusing a buffer before the epilogue released it is a tmem-race", "[model][tcgen05][mistakes]") {
  // 64 tiles on 16 CTAs, four a CTA: its third tile reuses buffer 0 (a small shape: the suite runs
  // under the sanitizers).
  const kernels::GemmShape shape{1024, 2048, 128};
  const kernels::ParamValues sixteen{{"ctas", 16}};
  test::ModelRun r = test::run_model(kStep, shape, true, 5, {"reuse-before-release"}, {}, sixteen);
  INFO(test::hazard_list(r.result));
  const model::Hazard* race = find_hazard(r.result, model::HazardKind::tmem_race);
  REQUIRE(race);
  CHECK(r.kernel.insts[race->inst].op == ir::Op::tcgen05_mma);  // named at the MMA that overwrites
  CHECK_THAT(race->detail, Catch::Contains("tcgen05.mma writes tensor-memory columns 0..255") &&
                               Catch::Contains("tcgen05.ld") && Catch::Contains("tmem_empty"));
  // And the epilogue's later loads of the overwritten columns, once those MMAs are complete, are
  // the other side of the race: nothing it acquired orders them after the MMA that wrote them.
  bool read_side = false;
  for (const model::Hazard& h : r.result.hazards)
    read_side = read_side || (h.kind == model::HazardKind::tmem_race && r.kernel.insts[h.inst].op == ir::Op::tcgen05_ld_32x32b &&
                              h.detail.find("has not acquired the arrival of the tcgen05.commit") != std::string::npos);
  CHECK(read_side);
  // The kernel as written hands the buffers over: no race, the same C.
  test::ModelRun clean = test::run_model(kStep, shape, true, 5, {}, {}, sixteen);
  CHECK(find_hazard(clean.result, model::HazardKind::tmem_race) == nullptr);
  CHECK(clean.mismatches == 0);
}

TEST_CASE("tmem double buffer: a parity that flips every tile deadlocks on the second buffer", "[model][tcgen05][mistakes]") {
  // 16 CTAs of three tiles each (the example's 148 CTAs took 14 s under the sanitizers).
  const test::WholeGrid g = test::small_whole_grid(kernels::kernel_or_throw(kStep));
  REQUIRE(g.params.at("ctas") == 16);
  test::ModelRun r = test::run_model(kStep, g.shape, true, 5, {"phase-flips-every-tile"}, {}, g.params);
  CHECK_FALSE(r.result.completed);
  const model::Hazard* dl = find_hazard(r.result, model::HazardKind::deadlock);
  REQUIRE(dl);
  // The MMA thread waits for buffer 1's release with parity 0, which only the epilogue's drain of
  // buffer 1 completes; the epilogue waits for buffer 1's tmem_full, which the MMA never commits.
  CHECK_THAT(r.result.error, Catch::Contains("deadlock") && Catch::Contains("tmem_empty[1]") &&
                                 Catch::Contains("parity 0"));
}

TEST_CASE("tmem double buffer: the epilogue drains one buffer while the next tile's MMAs fill the other",
          "[model][tcgen05][timeline]") {
  // 64 tiles on 16 CTAs (four a CTA, buffers 0, 1, 0, 1) with K 512: eight K blocks a tile, so the
  // next tile's MMAs outlast the gap between the epilogue's loads (at the example's K of 128, two K
  // blocks a tile, they can end before the epilogue's second load while its first waits for the
  // commit: whether a load falls under them is then a matter of a few cycles).
  test::ModelRun r = test::run_model(kStep, {1024, 2048, 512}, true, 9, {}, {}, {{"ctas", 16}});
  REQUIRE(r.result.completed);
  const Overlap two = epilogue_under_mmas(r.result.trace);
  CHECK(two.loads == 4 * 4 * 8);  // 4 tiles, 4 epilogue warps, 8 loads of 32 columns
  CHECK(two.loads_under_mma > 0);   // a load of one buffer while the MMAs fill the other
  CHECK(two.stores > 0);
  CHECK(two.stores_under_mma > 0);  // C of one tile stored under the next tile's MMAs
  // Step 21 has one accumulator: its epilogue starts when the last MMA is done, never under one.
  test::ModelRun one = test::run_model("blackwell_ws_ring", {256, 512, 512}, true, 9);
  REQUIRE(one.result.completed);
  const Overlap single = epilogue_under_mmas(one.result.trace);
  CHECK(single.loads == 4 * 8);
  CHECK(single.stores > 0);
  CHECK(single.loads_under_mma == 0);
  CHECK(single.stores_under_mma == 0);
}
