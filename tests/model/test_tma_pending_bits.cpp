// A TMA load in flight is a bit a word (Cta::tma_pending_bits), tested by each shared path beside
// the words' records: every kind of access onto words a load is still writing is a tma-race at
// the first lane that touches one, fast and traced alike, and none onto words beside the box or
// after the wait.
#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"
#include "engine/model/timing.hpp"

using namespace gs;

namespace {

enum class Access { ld_u32, ld_v4, st_u32, ldmatrix_x4, stmatrix_x4 };

const char* name_of(Access a) {
  switch (a) {
    case Access::ld_u32: return "ld.shared.u32";
    case Access::ld_v4: return "ld.shared.v4";
    case Access::st_u32: return "st.shared.u32";
    case Access::ldmatrix_x4: return "ldmatrix.x4";
    case Access::stmatrix_x4: return "stmatrix.x4";
  }
  return "";
}

constexpr uint32_t kBoxAt = 1024;  // the box's 2 KiB land at bytes 1024..3071 of the tile

// One warp: lane 0 loads a 2 KiB box of A into the tile at kBoxAt; then (after the phase's wait
// where `wait`) every lane makes one access of kind `a` 16 bytes apart from byte `from` of the tile.
ir::Kernel access_kernel(Access a, uint32_t from, bool wait) {
  using builder::Addr;
  using builder::Reg;
  builder::Builder b("tma_pending_access", ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  const builder::Smem tile = b.shared("tile", 4096, 128, ir::SmemUse::tile);
  const builder::Param tm =
      b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, 64, 32, 64, 16, layout::Swizzle::none));
  const builder::Smem bar = b.mbarriers("full", ir::BarrierRole::full, 1);
  const Reg tid = b.special(ir::Special::tid_x, "tid");
  // Every word written first: the accesses find nothing to report but the load.
  const Reg mine = (b.smem_address(tile, 0, "tile_at") + tid * 128u).named("mine");
  for (int64_t i = 0; i < 32; ++i) b.st_shared(ir::Type::u32, Addr::at(mine, 4 * i), {tid});
  b.fence_proxy_async();
  b.if_((tid == 0u).named("leader"), [&] {
    b.mbarrier_init(bar.at(), 1);
    b.fence_mbarrier_init();
    b.mbarrier_arrive_expect_tx(bar.at(), 2048);
    b.cp_async_bulk_tensor_load(tile.at(kBoxAt), b.tensor_map_address(tm, "map"), {0, 0}, bar.at());
  });
  if (wait) b.mbarrier_wait(bar.at(), 0u);
  const Reg at = (b.smem_address(tile, from, "from") + tid * 16u).named("at");
  switch (a) {
    case Access::ld_u32: b.ld_shared(ir::Type::u32, Addr::at(at), "x"); break;
    case Access::ld_v4: b.ld_vec(ir::Op::ld_shared, ir::Type::b32, 4, Addr::at(at), "v"); break;
    case Access::st_u32: b.st_shared(ir::Type::u32, Addr::at(at), {tid}); break;
    case Access::ldmatrix_x4: b.ldmatrix(4, false, Addr::at(at), "m"); break;
    case Access::stmatrix_x4: b.stmatrix(4, false, Addr::at(at), {tid, tid, tid, tid}); break;
  }
  if (!wait) b.mbarrier_wait(bar.at(), 0u);  // the CTA does not exit with the load in flight
  b.ret();
  return b.finish();
}

std::vector<model::Hazard> races(const model::SimResult& r) {
  std::vector<model::Hazard> out;
  for (const model::Hazard& h : r.hazards)
    if (h.kind == model::HazardKind::tma_race) out.push_back(h);
  return out;
}

}  // namespace

TEST_CASE("model: every shared access onto words a TMA load is still writing is a tma-race, at the first such lane",
          "[model][hazards]") {
  for (const Access a : {Access::ld_u32, Access::ld_v4, Access::st_u32, Access::ldmatrix_x4, Access::stmatrix_x4}) {
    // From byte 640 the lanes' 16 bytes reach the box from lane 24 on; from 0 they end at 511.
    for (const uint32_t from : {640u, 0u}) {
      for (const bool wait : {false, true}) {
        DYNAMIC_SECTION(name_of(a) << " from byte " << from << (wait ? " after the wait" : " before the wait")) {
          const ir::Kernel k = access_kernel(a, from, wait);
          for (const bool traced : {true, false}) {
            model::GemmBuffers bufs;
            bufs.a.assign(32 * 64 * 2, 0);
            bufs.c.assign(16, 0);
            model::SimOptions opt;
            opt.trace = traced;
            const model::SimResult r = model::simulate(k, bufs, opt);
            std::string details;
            for (const model::Hazard& h : r.hazards) details += h.detail + "\n";
            INFO((traced ? "traced: " : "fast: ") << details);
            CHECK(r.error.empty());
            const std::vector<model::Hazard> found = races(r);
            if (wait || from == 0) {
              CHECK(found.empty());
              continue;
            }
            REQUIRE(found.size() == 1);
            CHECK(found[0].lane == 24);
            CHECK(found[0].address == model::timing::kSmemBaseAddress + kBoxAt);
            CHECK(found[0].warp == 0);
          }
        }
      }
    }
  }
}
