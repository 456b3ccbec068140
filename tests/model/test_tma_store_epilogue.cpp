// Step 18 in the model: the TMA-store epilogue computes C exactly (edges clipped by the store,
// idle ranks of a cluster store nothing outside C), every tile is written once, and its two
// mistakes are caught by the fence check and the bulk groups' accounting.
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "tests/model/model_fixture.hpp"

using namespace gs;

namespace {

constexpr const char* kId = "hopper_tma_store";

test::ModelRun run(kernels::GemmShape shape, uint32_t cluster, std::set<std::string> mistakes = {}) {
  return test::run_model(kId, shape, true, 13, std::move(mistakes), {}, {{"cluster", cluster}});
}

const model::Hazard* find_hazard(const model::SimResult& r, model::HazardKind kind) {
  for (const model::Hazard& h : r.hazards)
    if (h.kind == kind) return &h;
  return nullptr;
}

}  // namespace

TEST_CASE("step 18 is exact, its stores clipped at C's edges", "[model][tma-store]") {
  // 1000x1000x200: the last tile-row and -column are partial, so are the stores' boxes;
  // 384x768x192 in pairs: idle ranks; 128x128x1024: one tile, the ring wrapping five times;
  // 640x264x136 in fours: 5 tile-rows (the second cluster's ranks 1-3 lie outside C), a last
  // tile-column 8 wide, K in 3 blocks the last of which is mostly zero-filled; small analogues
  // of 4096x1024x8192 (tall), 64x8192x8192 (64 rows: half of every store box clipped) and
  // 8192x8192x64 (one K block); 8x8x8: one store box of which 8x8 elements land.
  std::vector<std::pair<uint32_t, kernels::GemmShape>> runs = {
      {2, {256, 512, 128}},   {2, {384, 768, 192}}, {1, {1000, 1000, 200}}, {2, {1000, 1000, 200}},
      {4, {128, 128, 1024}},  {4, {640, 264, 136}}, {2, {512, 128, 512}},   {2, {64, 1024, 256}},
      {1, {512, 512, 64}},    {2, {8, 8, 8}}};
  for (const auto& [cluster, s] : runs) {
    DYNAMIC_SECTION("cluster=" << cluster << " " << s.m << "x" << s.n << "x" << s.k) {
      const test::ModelRun r = run(s, cluster);
      INFO(test::hazard_list(r.result) << r.result.error);
      CHECK(r.result.completed);
      CHECK(r.result.hazards.empty());
      CHECK(r.mismatches == 0);
    }
  }
}

TEST_CASE("step 18 writes each tile of C once, through the copy engine", "[model][tma-store]") {
  const test::ModelRun r = run({512, 512, 64}, 2);
  REQUIRE(r.result.completed);
  std::map<uint32_t, std::set<uint32_t>> writers;
  for (const model::TileVisit& v : r.result.schedule.visits) writers[v.tile].insert(v.cta);
  CHECK(writers.size() == 4 * 2);
  for (const auto& [tile, ctas] : writers) CHECK(ctas.size() == 1);
  // Loads: per CTA and K-block its A box and its slice of B; stores: 2 consumers x 4 chunks.
  CHECK(r.result.stats.tma_transfers == 8 * (2 + 2 * 4));
  // The stores' bytes are C going to HBM in the prediction, as st.global's are: 8 CTAs of 128
  // KiB of C each, all in one wave.
  CHECK(r.result.stats.prediction.parts.store_bytes_per_wave == 8.0 * 128 * 256 * 4);
}

TEST_CASE("step 18's stores leave the SM at its share of L2's write bandwidth", "[model][tma-store][timing]") {
  // One CTA, one K block: the epilogue's 128 KiB of C (128 x 256 f32) are most of its time. A
  // TMA store's box goes at the SM's share of what L2 takes from every SM at once (4035 GB/s over
  // the H100's 132 SMs, probe l2_write_bw), not at the copy engine's 107 B/cycle for loads: at
  // 2048^3 on the H100 the one wave's CTAs stored theirs in 7500 cycles (2026-12-06).
  const test::ModelRun r = run({128, 256, 64}, 1);
  REQUIRE(r.result.completed);
  const double store_cycles = 128.0 * 256 * 4 / model::timing::kH100Cta.store_bytes_per_cycle;
  CHECK(double(r.result.stats.traced_cta_cycles) > store_cycles);
  CHECK(double(r.result.stats.traced_cta_cycles) < store_cycles + 6000);  // one K block and the prologue
}

TEST_CASE("a persistent CTA stores its later tiles at its SM's own rate, its first with the wave",
          "[model][timing]") {
  // Step 15 (st.global epilogue, 128 KiB of C a 128 x 256 tile), 64 persistent CTAs, K = 64: at
  // 1024 x 2048 each walks one tile, at 1024 x 4096 two. The first tile's stores go at the SM's
  // share of L2's write bandwidth in the epilogue's pattern (the wave's CTAs started together and
  // store together), the second's at the SM's own path (the wave has drifted apart; on the H100
  // step 15 at 8192^3 stored its first tile in 10.1k cycles, its fourth and later in 5.3-5.5k).
  model::SimOptions opt;
  opt.only_traced_cta = true;
  const auto cycles = [&](uint32_t n) {
    const test::ModelRun r =
        test::run_model("hopper_persistent", {1024, n, 64}, true, 3, {}, opt, {{"ctas", 64}});
    REQUIRE(r.result.completed);
    return double(r.result.stats.traced_cta_cycles);
  };
  const model::timing::CtaFigures& f = model::timing::kH100Cta;
  const double tile_bytes = 128.0 * 256 * 4;
  const double with_wave = model::timing::store_weight(f, tile_bytes, tile_bytes / 32) / f.store_bytes_per_cycle;
  const double alone = tile_bytes / f.store_sm_bytes_per_cycle;
  const double one = cycles(2048), two = cycles(4096);
  INFO("one tile " << one << ", two tiles " << two);
  CHECK(one > with_wave);                         // the first tile's epilogue with the wave
  CHECK(two - one > alone);                       // the second tile: its K block and its stores alone
  CHECK(two - one < alone + 0.5 * (with_wave - alone));  // not at the wave's share
}

namespace {

// One warp writes 16 8-byte words a lane into a staging tile as step 18's epilogue does (lane
// 4g + q at row g, bytes 8q, rows `stride` bytes apart), then fence.proxy.async: the cycles from
// before the first store to after the fence, into C.
uint64_t staging_fence_cycles(uint32_t stride) {
  using builder::Addr;
  using builder::Reg;
  using ir::Type;
  builder::Builder b("staging_fence", ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto tile = b.shared("tile", 8 * 288, 128, ir::SmemUse::other);
  Reg lane = b.special(ir::Special::tid_x, "lane");
  Reg at = (b.smem_address(tile, 0, "base") + (lane >> 2) * stride + ((lane & 3u) << 3)).named("at");
  Reg one = b.mov(Type::f32, 1.0f, "one");
  Reg t0 = b.special(ir::Special::clock64, "t0");
  for (int32_t i = 0; i < 16; ++i) b.st_shared(Type::f32, Addr::at(at, 32 * (i % 8)), {one, one});
  b.fence_proxy_async();
  Reg t1 = b.special(ir::Special::clock64, "t1");
  b.st_global(Type::u64, Addr::at(b.global_ptr(pc, "c"), 0), {(t1 - t0).named("cycles")});
  b.ret();
  model::GemmBuffers bufs;
  bufs.c.assign(8, 0);
  model::SimOptions opt;  // traced
  REQUIRE(model::simulate(b.finish(), bufs, opt).completed);
  uint64_t cycles = 0;
  std::memcpy(&cycles, bufs.c.data(), 8);
  return cycles;
}

}  // namespace

TEST_CASE("fence.proxy.async waits until the warp's shared writes are performed", "[model][tma-store][timing]") {
  // Rows 256 bytes apart (step 18's staging): each half-warp's 4 rows meet in the same 8 banks, 8
  // wavefronts a store, 128 for the 16; rows padded by 32 bytes: 2 a store. The fence waits for
  // the L1's data path to have taken them (on the H100 step 18's chunk of 128 such stores took 1070
  // cycles to its fence, 2026-12-06); the stores themselves issue a cycle apart.
  const uint64_t conflicted = staging_fence_cycles(256), padded = staging_fence_cycles(288);
  INFO("conflicted " << conflicted << ", padded " << padded);
  CHECK(conflicted >= 16 * 8);
  CHECK(padded < 16 * 4);
}

TEST_CASE("step 18's mistakes are caught at the instruction that breaks the rule", "[model][tma-store][mistakes]") {
  SECTION("no fence.proxy.async: the TMA store reads what the generic proxy wrote") {
    const test::ModelRun r = run({256, 512, 512}, 2, {"missing-proxy-fence"});
    const model::Hazard* h = find_hazard(r.result, model::HazardKind::missing_proxy_fence);
    REQUIRE(h);
    CHECK(r.kernel.insts[h->inst].op == ir::Op::cp_async_bulk_tensor_store);
  }
  SECTION("a buffer rewritten before wait_group.read: the store that read it may still read") {
    const test::ModelRun r = run({256, 512, 512}, 2, {"reuse-staging-before-wait"});
    const model::Hazard* h = find_hazard(r.result, model::HazardKind::bulk_store_race);
    REQUIRE(h);
    CHECK(r.kernel.insts[h->inst].op == ir::Op::st_shared);
    CHECK_THAT(h->detail, Catch::Contains("cp.async.bulk.wait_group.read"));
    // The mistake leaves the wait_group.read 0 before the end: the CTA exits with every read done.
    CHECK_FALSE(find_hazard(r.result, model::HazardKind::exit_with_pending_tma));
  }
}
