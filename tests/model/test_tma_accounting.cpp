// The mbarrier's transaction accounting against the loads in flight: a phase that completes
// while TMA loads that complete their bytes on it are still in flight counted too few bytes
// (early-phase-completion), and the waiters it releases read before the data lands.
#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"

using namespace gs;

namespace {

const model::Hazard* find_hazard(const model::SimResult& r, model::HazardKind kind) {
  for (const model::Hazard& h : r.hazards)
    if (h.kind == kind) return &h;
  return nullptr;
}

}  // namespace

namespace {

// One thread expects `expected` bytes on one barrier and loads two 2 KiB boxes of A onto it,
// then waits for the phase: with 2 KiB expected, the phase completes when the first box lands
// (and the CTA exits with the second in flight, which the model reports as well).
ir::Kernel two_loads_kernel(uint32_t expected) {
  using builder::Addr;
  using builder::Reg;
  builder::Builder b("two_loads", ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  const builder::Param tm =
      b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, 64, 32, 64, 16, layout::Swizzle::none));
  const builder::Smem tiles = b.shared("tiles", 2 * 2048, 128, ir::SmemUse::tile);
  const builder::Smem bar = b.mbarriers("full", ir::BarrierRole::full, 1);
  const Reg tid = b.special(ir::Special::tid_x, "tid");
  b.if_((tid == 0u).named("leader"), [&] {
    b.mbarrier_init(bar.at(), 1);
    b.fence_mbarrier_init();
    const Reg map = b.tensor_map_address(tm, "map");
    b.mbarrier_arrive_expect_tx(bar.at(), expected);
    b.cp_async_bulk_tensor_load(tiles.at(), map, {0, 0}, bar.at());
    b.cp_async_bulk_tensor_load(tiles.at(2048), map, {0, 16}, bar.at());
    b.mbarrier_wait(bar.at(), 0u);
  });
  b.ret();
  return b.finish();
}

}  // namespace

TEST_CASE("model: a phase that completes with TMA bytes still in flight to it is an early-phase-completion",
          "[model][hazards]") {
  for (const uint32_t expected : {4096u, 2048u}) {
    DYNAMIC_SECTION("expect_tx " << expected) {
      const ir::Kernel k = two_loads_kernel(expected);
      model::GemmBuffers bufs;
      bufs.a.assign(32 * 64 * 2, 0);
      bufs.c.assign(16, 0);
      const model::SimResult r = model::simulate(k, bufs);
      const model::Hazard* early = find_hazard(r, model::HazardKind::early_phase_completion);
      if (expected == 4096) {
        CHECK(r.hazards.empty());
        continue;
      }
      REQUIRE(early);
      CHECK(k.insts[early->inst].op == ir::Op::cp_async_bulk_tensor_load);
      CHECK_THAT(early->detail, Catch::Contains("mbarrier 'full'") && Catch::Contains("completed phase 0") &&
                                    Catch::Contains("2048 bytes") && Catch::Contains("issued by this CTA"));
    }
  }
}

namespace {

// One warp stages 2 KiB, one lane stores it with TMA and commits; then the warp writes the tile
// again. `wait`: the lane's wait_group.read before the rewrite (-1: none, and none at the end).
ir::Kernel store_then_rewrite_kernel(int wait) {
  using builder::Addr;
  using builder::Reg;
  builder::Builder b("store_then_rewrite", ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  const builder::Param tm =
      b.tensor_map_param("tmap_C", ir::row_major_bf16_map(ir::ParamRole::c, 64, 16, 64, 16, layout::Swizzle::none));
  const builder::Smem tile = b.shared("tile", 2048, 128, ir::SmemUse::staging);
  const Reg tid = b.special(ir::Special::tid_x, "tid");
  const Reg at = (b.smem_address(tile, 0, "base") + tid * 64u).named("at");
  const auto write_tile = [&] {
    for (int64_t i = 0; i < 16; ++i) b.st_shared(ir::Type::u32, Addr::at(at, 4 * i), {tid});
    b.fence_proxy_async();
    b.bar_sync(0);
  };
  write_tile();
  const Reg leader = (tid == 0u).named("leader");
  b.if_(leader, [&] {
    b.cp_async_bulk_tensor_store(b.tensor_map_address(tm, "map"), {0, 0}, tile.at());
    b.cp_async_bulk_commit_group();
    if (wait >= 0) b.cp_async_bulk_wait_group_read(uint32_t(wait));
  });
  b.bar_sync(0);
  write_tile();
  b.ret();
  return b.finish();
}

}  // namespace

TEST_CASE("model: a TMA store's buffer may be rewritten once wait_group.read retired its group", "[model][hazards]") {
  for (const int wait : {0, 1, -1}) {
    DYNAMIC_SECTION("wait_group.read " << wait) {
      const ir::Kernel k = store_then_rewrite_kernel(wait);
      model::GemmBuffers bufs;
      bufs.c.assign(16 * 64 * 2, 0);
      const model::SimResult r = model::simulate(k, bufs);
      const model::Hazard* race = find_hazard(r, model::HazardKind::bulk_store_race);
      const model::Hazard* exit = find_hazard(r, model::HazardKind::exit_with_pending_tma);
      if (wait == 0) {
        CHECK(r.hazards.empty());
        continue;
      }
      // wait_group.read 1 leaves the one group reading; no wait at all, too, and the CTA
      // exits with the store still reading.
      REQUIRE(race);
      CHECK(k.insts[race->inst].op == ir::Op::st_shared);
      REQUIRE(exit);
      CHECK_THAT(exit->detail, Catch::Contains("TMA store"));
    }
  }
}
