// Step 26's persistent CTA pair in the model: C at four shapes (three not whole pair tiles) on
// integer and random inputs, its two mistakes caught with what they are (rank 1's epilogue not
// releasing the leader's tmem_empty: the leader's MMA overwrites rank 1's columns, a tmem-race
// across the pair; commits without .multicast::cluster: rank 1 deadlocks), and what the pair is
// for: both CTAs' TMEM written by the leader's MMAs, tile after tile, in both buffers.
#include <algorithm>
#include <array>
#include <set>

#include <catch2/catch.hpp>

#include "engine/model/trace.hpp"
#include "tests/model/model_fixture.hpp"

using namespace gs;

namespace {

constexpr const char* kStep = "blackwell_pair_persistent";
const kernels::ParamValues kEight{{"ctas", 8}};  // 4 clusters

const model::Hazard* find_hazard(const model::SimResult& r, model::HazardKind kind) {
  for (const model::Hazard& h : r.hazards)
    if (h.kind == kind) return &h;
  return nullptr;
}

}  // namespace

TEST_CASE("pair persistent: step 26 is exact on integers and close on random inputs at four shapes",
          "[model][tcgen05][pair]") {
  // Small shapes (the suite runs under the sanitizers) on 4 clusters: 2 x 4 whole pair tiles
  // (two a cluster: buffers 0 and 1); partial pair tiles on every edge (M 1000: rank 1 of the
  // last pair-row holds 104 rows; N 1032: the last column 8 wide; K 200: the last K-block
  // zero-filled past K); one pair tile whose rank 1 holds 8 rows and a second column of 8; and
  // M 120, where rank 1's rows lie wholly below C (its loads zero-filled, its stores clipped away).
  for (const kernels::GemmShape s : {kernels::GemmShape{512, 1024, 128}, kernels::GemmShape{1000, 1032, 200},
                                     kernels::GemmShape{136, 264, 72}, kernels::GemmShape{120, 256, 64}}) {
    for (bool integer : {true, false}) {
      DYNAMIC_SECTION(s.m << "x" << s.n << "x" << s.k << (integer ? " int" : " random")) {
        test::ModelRun r = test::run_model(kStep, s, integer, 26 + s.m, {}, {}, kEight);
        INFO(test::hazard_list(r.result) << r.result.error);
        CHECK(r.result.completed);
        CHECK(r.result.hazards.empty());
        if (integer) CHECK(r.mismatches == 0);  // integer-valued sums are exact in f32
        else CHECK(r.rel_err < 1e-5);           // bf16 inputs, f32 sums in another order than the reference's
      }
    }
  }
  SECTION("bf16 C") {
    test::ModelRun r = test::run_model(kStep, {512, 1024, 128}, true, 5, {}, {}, {{"ctas", 8}, {"c_dtype", 16}});
    INFO(test::hazard_list(r.result) << r.result.error);
    CHECK(r.result.completed);
    CHECK(r.result.hazards.empty());
    CHECK(r.mismatches == 0);
  }
}

TEST_CASE("pair persistent: step 26's mistakes are caught with what they break", "[model][tcgen05][pair][mistakes]") {
  // 2 x 6 pair tiles on 4 clusters: three a cluster, so each cluster's third tile reuses buffer 0.
  const kernels::GemmShape shape{512, 1536, 128};
  SECTION("rank 1's epilogue releases its own tmem_empty: the leader's MMA overwrites rank 1's columns") {
    const test::ModelRun r = test::run_model(kStep, shape, true, 3, {"release-tmem-to-own-cta"}, {}, kEight);
    const model::Hazard* h = find_hazard(r.result, model::HazardKind::tmem_race);
    REQUIRE(h);
    CHECK(r.kernel.insts[h->inst].op == ir::Op::tcgen05_mma_cta_pair);
    CHECK_THAT(h->detail, Catch::Contains("of CTA rank 1") && Catch::Contains("tmem_empty") &&
                              Catch::Contains("both CTAs"));
  }
  SECTION("commits without .multicast::cluster: rank 1's barriers never complete, a deadlock") {
    const test::ModelRun r = test::run_model(kStep, shape, true, 3, {"commit-to-one-cta"}, {}, kEight);
    const model::Hazard* h = find_hazard(r.result, model::HazardKind::deadlock);
    REQUIRE(h);
    INFO(h->detail);
    CHECK(!r.result.completed);
    // One report for the cluster, by rank: rank 1's epilogue waits for the first tmem_full[0]
    // that the leader's plain commit never reaches, and the leader waits for rank 1's releases.
    const size_t rank1 = h->detail.find("in CTA rank 1,");
    REQUIRE(rank1 != std::string::npos);
    CHECK(h->detail.find("'tmem_full[0]' for parity 0", rank1) != std::string::npos);
    CHECK_THAT(h->detail, Catch::Contains("in CTA rank 0,") && Catch::Contains("128 of 256 arrivals pending"));
  }
  SECTION("the kernel as written: none of them") {
    const test::ModelRun r = test::run_model(kStep, shape, true, 3, {}, {}, kEight);
    INFO(test::hazard_list(r.result));
    CHECK(r.result.completed);
    CHECK(r.result.hazards.empty());
    CHECK(r.mismatches == 0);
  }
}

TEST_CASE("pair persistent: the leader's MMAs write both CTAs' TMEM, and rank 1's epilogue gives each buffer back",
          "[model][tcgen05][timeline]") {
  const test::ModelRun r = test::run_model(kStep, {512, 1536, 128}, true, 9, {}, {}, kEight);
  REQUIRE(r.result.completed);
  const model::Trace& t = r.result.trace;
  REQUIRE(t.ctas.size() == 2);  // the traced CTA's cluster: both ranks
  // Per rank: the pair MMAs that wrote its TMEM (one record per CTA), their columns, and the
  // columns its epilogue warps released (rank 1's with the remote arrive on the leader's tmem_empty).
  std::array<uint32_t, 2> pair_mmas{}, stores{};
  std::array<std::set<uint32_t>, 2> mma_columns, released_columns;
  for (const model::Event& e : t.events) {
    if (e.cta > 1) continue;
    if (e.kind == model::EventKind::tma_issue && t.tma[e.payload].store) ++stores[e.cta];
    if (e.kind != model::EventKind::tmem_op) continue;
    const model::TmemOp& op = t.tmem[e.payload];
    if (op.kind == model::TmemOpKind::mma) {
      pair_mmas[e.cta] += op.cta_group == 2;
      mma_columns[e.cta].insert(op.column);
    }
    if (op.kind == model::TmemOpKind::release) released_columns[e.cta].insert(op.column);
  }
  for (uint32_t rank : {0u, 1u}) {
    INFO("rank " << rank);
    // Three pair tiles of 2 K-blocks, 4 k16 MMAs each, all cta_group::2, into both accumulators
    // (columns 0 and 256) of both CTAs; each CTA's epilogue gives each buffer back and stores its
    // rows of each tile in 8 sub-tiles.
    CHECK(pair_mmas[rank] == 3 * 2 * 4);
    CHECK(mma_columns[rank] == std::set<uint32_t>{0, 256});
    CHECK(released_columns[rank].count(0) == 1);
    CHECK(released_columns[rank].count(256) == 1);
    CHECK(stores[rank] == 3 * 8);
  }
}
