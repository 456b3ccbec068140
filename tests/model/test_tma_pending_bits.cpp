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
// `settled`: a bar.sync after the words are written, so that their records are plain reads from an
// earlier barrier interval and only the pending bit tells of the load (the reads' look at a whole
// line, look_at_line, and its AVX2 form).
ir::Kernel access_kernel(Access a, uint32_t from, bool wait, bool settled = false) {
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
  if (settled) b.bar_sync(0);
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

// The kernel on the model, fast or traced, with A, B and C sized for the kernels here.
model::SimResult run(const ir::Kernel& k, bool traced) {
  model::GemmBuffers bufs;
  bufs.a.assign(32 * 64 * 2, 0);
  bufs.b.assign(64 * 4, 0);
  bufs.c.assign(16 * 64 * 2, 0);
  model::SimOptions opt;
  opt.trace = traced;
  return model::simulate(k, bufs, opt);
}

std::string details(const model::SimResult& r, bool traced) {
  std::string out = traced ? "traced:\n" : "fast:\n";
  for (const model::Hazard& h : r.hazards) out += h.detail + "\n";
  return out;
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
        for (const bool settled : {false, true}) {
          DYNAMIC_SECTION(name_of(a) << " from byte " << from << (wait ? " after the wait" : " before the wait")
                                     << (settled ? ", the words written before a bar.sync" : "")) {
            const ir::Kernel k = access_kernel(a, from, wait, settled);
            for (const bool traced : {true, false}) {
              const model::SimResult r = run(k, traced);
              INFO(details(r, traced));
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
}

namespace {

// Whether each record holds what a landing leaves in it is a bit a word too (Cta::records_landed):
// a box landing again on words no path wrote since is not looked at. Two warps; lane 0 loads a
// 2 KiB box of A into the tile and everyone waits; warp 0 then writes the box's first 128 bytes,
// with st.shared (no fence.proxy.async) or cp.async (waited for), and lane 0 loads the box again
// over them and everyone waits. `after`: what comes after, which the records of the first words
// decide: a TMA store of the tile (a word a generic store left unfenced is missing-proxy-fence)
// or warp 1's read of those words (a word warp 0 wrote in this barrier interval is a race).
enum class Rewrite { none, st_shared, cp_async };

ir::Kernel land_again_kernel(Rewrite rewrite, bool tma_store_after) {
  using builder::Addr;
  using builder::Reg;
  builder::Builder b("land_again", ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {64, 1, 1}});
  const builder::Smem tile = b.shared("tile", 2048, 128, ir::SmemUse::tile);
  const builder::Param ta =
      b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, 64, 32, 64, 16, layout::Swizzle::none));
  const builder::Param tc =
      b.tensor_map_param("tmap_C", ir::row_major_bf16_map(ir::ParamRole::c, 64, 16, 64, 16, layout::Swizzle::none));
  const builder::Param pb = b.param("B", ir::ParamKind::global_ptr, ir::ParamRole::b);
  const builder::Smem bar = b.mbarriers("full", ir::BarrierRole::full, 1);
  const Reg tid = b.special(ir::Special::tid_x, "tid");
  const Reg leader = (tid == 0u).named("leader");
  const auto load = [&](uint32_t phase) {
    b.if_(leader, [&] {
      if (phase == 0) {
        b.mbarrier_init(bar.at(), 1);
        b.fence_mbarrier_init();
      }
      b.mbarrier_arrive_expect_tx(bar.at(), 2048);
      b.cp_async_bulk_tensor_load(tile.at(), b.tensor_map_address(ta, "map_a"), {0, 0}, bar.at());
    });
    if (phase == 0) b.bar_sync(0);  // the barrier initialised before anyone waits on it
    b.mbarrier_wait(bar.at(), phase);
  };
  load(0);
  const Reg warp0 = (tid < 32u).named("warp0");
  const Reg at = (b.smem_address(tile, 0, "tile_at") + tid * 4u).named("at");
  if (rewrite == Rewrite::st_shared) b.if_(warp0, [&] { b.st_shared(ir::Type::u32, Addr::at(at), {tid}); });
  if (rewrite == Rewrite::cp_async)
    b.if_(warp0, [&] {
      const Reg from = (b.global_ptr(pb, "B_ptr") + b.mul_wide(tid, 4u, "off")).named("from");
      b.cp_async_ca(Addr::at(at), Addr::at(from), 4);
      b.cp_async_commit_group();
      b.cp_async_wait_all();
    });
  load(1);
  if (tma_store_after) {
    b.if_(leader, [&] {
      b.cp_async_bulk_tensor_store(b.tensor_map_address(tc, "map_c"), {0, 0}, tile.at());
      b.cp_async_bulk_commit_group();
      b.cp_async_bulk_wait_group_read(0);
    });
  } else {
    b.if_((tid >= 32u).named("warp1"), [&] {
      b.ld_shared(ir::Type::u32, Addr::at((b.smem_address(tile, 0, "tile_at1") + (tid - 32u) * 4u).named("at1")),
                  "x");
    });
  }
  b.ret();
  return b.finish();
}

}  // namespace

TEST_CASE("model: a box landing again over words a warp wrote since leaves them as the copy engine's",
          "[model][hazards]") {
  for (const Rewrite rewrite : {Rewrite::none, Rewrite::st_shared, Rewrite::cp_async}) {
    for (const bool tma_store_after : {true, false}) {
      DYNAMIC_SECTION((rewrite == Rewrite::none ? "no write" : rewrite == Rewrite::st_shared ? "st.shared" : "cp.async")
                      << (tma_store_after ? ", then a TMA store" : ", then warp 1 reads")) {
        const ir::Kernel k = land_again_kernel(rewrite, tma_store_after);
        for (const bool traced : {true, false}) {
          const model::SimResult r = run(k, traced);
          INFO(details(r, traced));
          CHECK(r.error.empty());
          CHECK(r.hazards.empty());
        }
      }
    }
  }
}
