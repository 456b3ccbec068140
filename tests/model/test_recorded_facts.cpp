// What the model records for the views, so that they never guess a kernel's facts: the roles
// warps enter, wgmma group state, the tensor core's shared-memory reads and who wrote each
// element of C.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "engine/builder/builder.hpp"
#include "engine/ir/signature.hpp"
#include "engine/layout/fragments.hpp"
#include "tests/model/model_fixture.hpp"
#include "tests/model/tma_store_kernel.hpp"

using namespace gs;
using model::EventKind;

namespace {

std::map<uint16_t, std::vector<ir::WarpRole>> roles_entered(const model::Trace& t) {
  std::map<uint16_t, std::vector<ir::WarpRole>> out;
  for (uint32_t e : t.of_kind(EventKind::role_enter)) out[t.events[e].warp].push_back(ir::WarpRole(t.events[e].a));
  return out;
}

}  // namespace

TEST_CASE("the model reports each warp entering the roles its kernel declares", "[model][facts]") {
  SECTION("simt_naive: every warp works, then stores") {
    const test::ModelRun r = test::run_model("simt_naive", {64, 64, 16}, true, 1);
    const auto roles = roles_entered(r.result.trace);
    REQUIRE(roles.size() == 32);
    for (const auto& [warp, seq] : roles) CHECK(seq == std::vector{ir::WarpRole::simt, ir::WarpRole::epilogue});
  }
  SECTION("hopper_tma_wgmma_64: warp 0 alternates producer and consumer per K-block") {
    const test::ModelRun r = test::run_model("hopper_tma_wgmma_64", {64, 64, 128}, true, 1);
    const auto roles = roles_entered(r.result.trace);
    using R = ir::WarpRole;
    CHECK(roles.at(0) == std::vector{R::producer, R::consumer, R::producer, R::consumer, R::epilogue});
    CHECK(roles.at(3) == std::vector{R::producer, R::consumer, R::producer, R::consumer, R::epilogue});
  }
}

TEST_CASE("the model records wgmma group state per warp", "[model][facts]") {
  const test::ModelRun r = test::run_model("hopper_tma_wgmma_64", {64, 64, 128}, true, 1);
  const model::Trace& t = r.result.trace;
  for (uint16_t w = 0; w < 4; ++w) {
    std::vector<std::pair<EventKind, uint32_t>> seq;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
      const model::Event& e = t.events[i];
      if (e.warp != w) continue;
      if (e.kind == EventKind::wgmma_commit || e.kind == EventKind::wgmma_wait_blocked || e.kind == EventKind::wgmma_wait_released)
        seq.emplace_back(e.kind, e.a);
    }
    // Per K-block: commit (1 group in flight), wait_group 0 blocks, then releases.
    const std::vector<std::pair<EventKind, uint32_t>> block = {
        {EventKind::wgmma_commit, 1}, {EventKind::wgmma_wait_blocked, 0}, {EventKind::wgmma_wait_released, 0}};
    std::vector<std::pair<EventKind, uint32_t>> want = block;
    want.insert(want.end(), block.begin(), block.end());
    CHECK(seq == want);
  }
}

TEST_CASE("the model records the tensor core's shared-memory reads through the descriptors", "[model][facts]") {
  const test::ModelRun r = test::run_model("hopper_tma_wgmma_64", {64, 64, 128}, true, 1);
  const model::Trace& t = r.result.trace;
  REQUIRE(t.mma.size() == 4 * 2 * 4);  // 4 warps x 2 K-blocks x 4 k16 steps
  for (const model::MmaOp& op : t.mma) {
    REQUIRE(op.a_read < t.tensor_reads.size());
    REQUIRE(op.b_read < t.tensor_reads.size());
    const model::TensorRead& read = t.tensor_reads[op.a_read];
    CHECK(read.op == ir::Op::wgmma_mma_async);
    REQUIRE(read.smem < t.smem.size());
    const model::SmemAccess& a = t.smem[read.smem];
    CHECK(a.mask == 0xFFFFFFFFu);
    CHECK(a.bytes == 16);
    CHECK(a.wavefronts == a.ideal_wavefronts);  // the 128B swizzle: conflict-free core matrices
    // Each lane's row and chunk as recorded: lane 8g + r is row 8(g%2) + r of chunk g/2 of the
    // issuing warp's rows (op traits, CoreMatrixRead).
    CHECK(read.chunk[31] == 1);
    CHECK(read.row[31] - read.row[0] == 15);
  }
  // Whole grid: one batch of A and one of B per warp and wgmma (N/4 = 16 rows of B).
  const model::SimStats& s = r.result.stats;
  CHECK(s.tensor_smem_reads == 2 * uint64_t(t.mma.size()));
  CHECK(s.tensor_smem_bank_conflicts == 0);
  CHECK(s.tensor_smem_wavefronts == 4 * s.tensor_smem_reads);  // 512 B = 4 wavefronts each
}

TEST_CASE("the model records which thread and register wrote each element of C", "[model][facts]") {
  SECTION("hopper_tma_wgmma_64: the observed map is the wgmma accumulator layout") {
    const test::ModelRun r = test::run_model("hopper_tma_wgmma_64", {64, 64, 64}, true, 1);
    const model::Trace& t = r.result.trace;
    REQUIRE(t.c_writes.size() == 128 * 32);  // 128 threads x 32 f32 accumulators
    const layout::FragmentMap acc = layout::wgmma_accumulator_layout(64);
    // Register v of thread t (acc[v]) sits at acc.at(t, v).
    std::map<uint32_t, uint32_t> reg_value;  // register id -> accumulator index
    for (const ir::Inst& in : r.kernel.insts)
      if (in.op == ir::Op::wgmma_mma_async) {
        const ir::wgmma_operands o = ir::wgmma_operands_of(in);
        for (uint32_t v = 0; v < o.d.size(); ++v) reg_value[o.d[v].id] = v;
        break;
      }
    for (const model::CWrite& w : t.c_writes) {
      REQUIRE(w.bytes == 4);
      const uint64_t e = w.byte_offset / 4;
      const layout::Coord c = acc.at(int(w.warp) * 32 + w.lane, int(reg_value.at(w.reg)));
      CHECK(e / 64 == uint64_t(c.row));
      CHECK(e % 64 == uint64_t(c.col));
    }
  }
  SECTION("simt_naive: thread t of the traced CTA wrote row t/32, column t%32 from acc") {
    const test::ModelRun r = test::run_model("simt_naive", {64, 64, 8}, true, 1);
    const model::Trace& t = r.result.trace;
    REQUIRE(t.c_writes.size() == 32 * 32);
    std::set<uint32_t> regs;
    for (const model::CWrite& w : t.c_writes) {
      const uint32_t thread = uint32_t(w.warp) * 32 + w.lane;
      CHECK(w.byte_offset / 4 == uint64_t(thread / 32) * 64 + thread % 32);
      regs.insert(w.reg);
    }
    CHECK(regs.size() == 1);
    CHECK(r.kernel.regs.at(*regs.begin()).name == "acc");
  }
}

TEST_CASE("the whole-grid run records which CTA wrote which tile of C, in order", "[model][facts][schedule]") {
  for (const char* id : {"simt_naive", "hopper_tma_wgmma_64"}) {
    DYNAMIC_SECTION(id) {
      const kernels::KernelInfo& info = kernels::kernel_or_throw(id);
      const kernels::GemmShape shape{128, 128, 64};
      const test::ModelRun r = test::run_model(id, shape, true, 1);
      const model::CSchedule& s = r.result.schedule;
      REQUIRE(s.tiles_m == 128 / info.tile.m);
      REQUIRE(s.tiles_n == 128 / info.tile.n);
      // One visit per tile, by the CTA the kernel's grid mapping (KernelInfo::cta_tile) names.
      REQUIRE(s.visits.size() == size_t(s.tiles_m) * s.tiles_n);
      std::set<uint32_t> tiles;
      for (const model::TileVisit& v : s.visits) {
        const auto& g = r.kernel.launch.grid;
        const std::array<uint32_t, 3> ctaid{v.cta % g[0], v.cta / g[0] % g[1], v.cta / (g[0] * g[1])};
        const kernels::CtaTile want = info.cta_tile(shape, info.tile, ctaid);
        CHECK(v.tile == want.m0 / info.tile.m * s.tiles_n + want.n0 / info.tile.n);
        CHECK(v.order == 0);
        tiles.insert(v.tile);
      }
      CHECK(tiles.size() == s.visits.size());
    }
  }
  SECTION("a CTA that writes several tiles leaves one visit per tile, numbered in its order") {
    // simt_naive's 32×32 CTA tile seen as 16×16 tiles: each CTA writes four of them, row by row
    // of C, so it goes top-left, top-right, top-left, ...: every change of tile is a visit.
    const kernels::KernelInfo& info = kernels::kernel_or_throw("simt_naive");
    kernels::GemmConfig cfg{{32, 32, 8}, {}};
    ir::Kernel k = kernels::build_kernel(info, cfg);
    k.output.tile_rows = k.output.tile_cols = 16;
    model::GemmBuffers bufs;
    bufs.a.assign(32 * 8 * 4, 0);
    bufs.b.assign(8 * 32 * 4, 0);
    bufs.c.assign(32 * 32 * 4, 0);
    const model::SimResult res = model::simulate(k, bufs, {.trace = false});
    REQUIRE(res.completed);
    const model::CSchedule& s = res.schedule;
    REQUIRE(s.tiles_m == 2);
    REQUIRE(s.tiles_n == 2);
    // Warp w stores rows w, w+... of C: each store instruction writes one row of 32 elements,
    // which spans tiles (r/16, 0) and (r/16, 1): two visits per row, alternating.
    REQUIRE(s.visits.size() >= 4);
    for (size_t i = 0; i < s.visits.size(); ++i) {
      CHECK(s.visits[i].order == i);
      if (i) CHECK(s.visits[i].tile != s.visits[i - 1].tile);
    }
    std::set<uint32_t> tiles;
    for (const model::TileVisit& v : s.visits) tiles.insert(v.tile);
    CHECK(tiles.size() == 4);
  }
}

TEST_CASE("a TMA store into C is recorded like st.global: in the traced CTA's writes and the grid's schedule",
          "[model][facts][schedule]") {
  // One lane stores a 16×16 tile with TMA to rows 16..31, columns 0..15 of a 32×32 C.
  const ir::Kernel k = test::tma_store_kernel();
  model::GemmBuffers bufs;
  bufs.c.assign(32 * 32 * 2, 0);
  const model::SimResult r = model::simulate(k, bufs);
  INFO(r.error);
  REQUIRE(r.completed);
  REQUIRE(r.trace.c_writes.size() == 256);
  for (const model::CWrite& w : r.trace.c_writes) {
    CHECK(w.reg == model::kNone);
    CHECK(w.bytes == 2);
    CHECK(w.byte_offset / 2 / 32 >= 16);   // rows 16..31
    CHECK(w.byte_offset / 2 % 32 < 16);    // columns 0..15
  }
  REQUIRE(r.schedule.visits.size() == 1);
  CHECK(r.schedule.visits[0].tile == 2);  // tile (1, 0) of the 2×2 grid of tiles
}
