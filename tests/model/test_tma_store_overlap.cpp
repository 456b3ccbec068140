// Step 25's overlapped TMA-store epilogue in the model: C at three shapes (two not whole tiles)
// on integer and random inputs, its three mistakes caught with what they are (the proxy fence,
// the bulk group's race, the tensor-memory buffer released before its load was waited for), and
// the overlap it is for: the buffer goes back to the MMA thread before its stores are done, and
// the stores run under the next tile's MMAs.
#include <algorithm>

#include <catch2/catch.hpp>

#include "engine/model/trace.hpp"
#include "tests/model/model_fixture.hpp"

using namespace gs;

namespace {

constexpr const char* kStep = "blackwell_tma_store_epilogue";
const kernels::ParamValues kSixteen{{"ctas", 16}};

const model::Hazard* find_hazard(const model::SimResult& r, model::HazardKind kind) {
  for (const model::Hazard& h : r.hazards)
    if (h.kind == kind) return &h;
  return nullptr;
}

}  // namespace

TEST_CASE("tma-store epilogue: step 25 is exact on integers and close on random inputs at three shapes",
          "[model][tcgen05][tma-store]") {
  // Small shapes (the suite runs under the sanitizers) on 16 CTAs: 24 whole tiles (some CTAs
  // one, some two); partial tiles on every edge (M 1000, N 1032: 8 x 5 tiles, the last
  // tile-column 8 wide, K 200: the last K-block zero-filled past K; buffers 0, 1, 0); and 2 x 2
  // tiles whose second row and column hold 8 rows and 8 columns of C (a store box clipped to 8 x
  // 8 of its 128 x 32, six of each tile's eight sub-tiles wholly outside C).
  for (const kernels::GemmShape s : {kernels::GemmShape{768, 1024, 128}, kernels::GemmShape{1000, 1032, 200},
                                     kernels::GemmShape{136, 264, 72}}) {
    for (bool integer : {true, false}) {
      DYNAMIC_SECTION(s.m << "x" << s.n << "x" << s.k << (integer ? " int" : " random")) {
        test::ModelRun r = test::run_model(kStep, s, integer, 25 + s.m, {}, {}, kSixteen);
        INFO(test::hazard_list(r.result) << r.result.error);
        CHECK(r.result.completed);
        CHECK(r.result.hazards.empty());
        if (integer) CHECK(r.mismatches == 0);  // integer-valued sums are exact in f32
        else CHECK(r.rel_err < 1e-5);           // bf16 inputs, f32 sums in another order than the reference's
      }
    }
  }
}

TEST_CASE("tma-store epilogue: step 25's mistakes are caught at the instruction that breaks the rule",
          "[model][tcgen05][tma-store][mistakes]") {
  const kernels::GemmShape shape{768, 1024, 128};
  SECTION("no fence.proxy.async: the TMA store reads what the generic proxy wrote") {
    const test::ModelRun r = test::run_model(kStep, shape, true, 3, {"missing-proxy-fence"}, {}, kSixteen);
    const model::Hazard* h = find_hazard(r.result, model::HazardKind::missing_proxy_fence);
    REQUIRE(h);
    CHECK(r.kernel.insts[h->inst].op == ir::Op::cp_async_bulk_tensor_store);
  }
  SECTION("a staging buffer rewritten before wait_group.read: the store that read it may still read") {
    const test::ModelRun r = test::run_model(kStep, shape, true, 3, {"reuse-staging-before-wait"}, {}, kSixteen);
    const model::Hazard* h = find_hazard(r.result, model::HazardKind::bulk_store_race);
    REQUIRE(h);
    CHECK(r.kernel.insts[h->inst].op == ir::Op::st_shared);
    CHECK_THAT(h->detail, Catch::Contains("cp.async.bulk.wait_group.read"));
  }
  SECTION("tmem_empty arrived on before tcgen05.wait::ld: a tmem-race at the arrive") {
    const test::ModelRun r = test::run_model(kStep, shape, true, 3, {"release-tmem-before-ld-wait"}, {}, kSixteen);
    const model::Hazard* h = find_hazard(r.result, model::HazardKind::tmem_race);
    REQUIRE(h);
    CHECK(r.kernel.insts[h->inst].op == ir::Op::mbarrier_arrive);
    CHECK_THAT(h->detail, Catch::Contains("before tcgen05.wait::ld") &&
                                 (Catch::Contains("columns 0..255") || Catch::Contains("columns 256..511")));
  }
  SECTION("the kernel as written: none of them") {
    const test::ModelRun r = test::run_model(kStep, shape, true, 3, {}, {}, kSixteen);
    INFO(test::hazard_list(r.result));
    CHECK(r.result.hazards.empty());
    CHECK(r.mismatches == 0);
  }
}

TEST_CASE("tma-store epilogue: the buffer goes back before its stores finish, and they run under the next MMAs",
          "[model][tcgen05][timeline]") {
  // 48 tiles on 16 CTAs: three a CTA (buffers 0, 1, 0), as the example's on 148.
  const test::ModelRun r = test::run_model(kStep, {768, 2048, 128}, true, 9, {}, {}, kSixteen);
  REQUIRE(r.result.completed);
  const model::Trace& t = r.result.trace;
  std::vector<const model::TmemOp*> mmas, releases;
  for (const model::TmemOp& op : t.tmem) {
    if (op.kind == model::TmemOpKind::mma) mmas.push_back(&op);
    if (op.kind == model::TmemOpKind::release) releases.push_back(&op);
  }
  std::vector<const model::TmaTransfer*> stores;
  for (const model::Event& e : t.events)
    if (e.cta == 0 && e.kind == model::EventKind::tma_issue && t.tma[e.payload].store) stores.push_back(&t.tma[e.payload]);
  REQUIRE(stores.size() == 3 * 8);  // 3 tiles of 8 sub-tiles
  REQUIRE(releases.size() >= 4);    // each epilogue warp hands the first buffer back
  // The first tile's buffer is released (its loads all waited for) before its last store is done.
  const uint64_t first_release = std::min_element(releases.begin(), releases.end(), [](auto* a, auto* b) {
                                   return a->issue_cycle < b->issue_cycle;
                                 })[0]->issue_cycle;
  CHECK(first_release < stores[7]->complete_cycle);
  CHECK(first_release > stores[6]->issue_cycle);  // after the seventh sub-tile was handed to the copy engine
  // Stores issued while a tcgen05.mma of a later tile is on the tensor core.
  uint32_t under = 0;
  for (const model::TmaTransfer* s : stores)
    under += std::any_of(mmas.begin(), mmas.end(), [&](const model::TmemOp* m) {
      return m->issue_cycle <= s->issue_cycle && s->issue_cycle < m->complete_cycle;
    });
  CHECK(under > 0);
}
