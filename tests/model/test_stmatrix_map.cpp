// stmatrix in the model against the op traits' stmatrix maps (op_traits.def, the Fragments view's
// "stmatrix m8n8" rows): one warp stores registers whose every b16 names its lane, register and
// half, the tile goes to C, and each (lane, value) of the map must be found at the map's (row,
// col) — for .x1/.x2/.x4, with and without .trans. A few positions are also read straight off
// the PTX ISA's stmatrix fragment figure (lane l: row l/4, elements 2(l%4), 2(l%4)+1), so the
// test does not rest on the map alone.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "engine/builder/builder.hpp"
#include "engine/layout/op_traits.hpp"
#include "engine/model/model.hpp"

using namespace gs;

namespace {

using builder::Addr;
using builder::Builder;
using builder::Reg;

constexpr uint32_t kTileRows = 32, kRowBytes = 16;  // up to four 8x8 b16 matrices, stacked

// Register j of lane l holds b16 2(l·num + j) (low) and 2(l·num + j) + 1 (high); lane l names
// tile row l (matrix l/8, row l%8) at 16·l. After the store every lane copies row l to C.
ir::Kernel store_kernel(uint32_t num, bool trans) {
  Builder b("stmatrix_map", ir::Arch::sm_90);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto tile = b.shared("tile", kTileRows * kRowBytes, 128, ir::SmemUse::tile);
  Reg lane = b.special(ir::Special::laneid, "lane");
  Reg row_at = (b.smem_address(tile, 0, "tile_addr") + lane * kRowBytes).named("row_at");
  for (uint32_t w = 0; w < kRowBytes; w += 4) b.st_shared(ir::Type::b32, Addr::at(row_at, w), {0});
  b.bar_sync(0);
  std::vector<Reg> values;
  for (uint32_t j = 0; j < num; ++j) {
    Reg low = (lane * (2 * num) + 2 * j).named("low");
    values.push_back((low | ((low + 1) << 16)).named("pair"));
  }
  b.stmatrix(num, trans, Addr::at(row_at), values);
  b.bar_sync(0);
  Reg c_row = (b.global_ptr(pc, "C_ptr") + b.mul_wide(lane, kRowBytes, "c_off")).named("c_row");
  for (uint32_t w = 0; w < kRowBytes; w += 4)
    b.st_global(ir::Type::b32, Addr::at(c_row, w), {b.ld_shared(ir::Type::b32, Addr::at(row_at, w), "word")});
  b.ret();
  return b.finish();
}

// The tile as the model stored it: u16 at (row, col), rows 16 bytes.
std::vector<uint16_t> stored_tile(uint32_t num, bool trans) {
  model::GemmBuffers bufs;
  bufs.c.assign(kTileRows * kRowBytes, 0xEE);
  const model::SimResult r = model::simulate(store_kernel(num, trans), bufs);
  REQUIRE(r.hazards.empty());
  std::vector<uint16_t> tile(kTileRows * 8);
  std::memcpy(tile.data(), bufs.c.data(), bufs.c.size());
  return tile;
}

uint16_t sent(uint32_t num, uint32_t lane, uint32_t value) { return uint16_t(2 * (lane * num + value / 2) + value % 2); }

}  // namespace

TEST_CASE("stmatrix in the model puts every lane's values where the op traits' map says", "[model][stmatrix][fragments]") {
  for (const bool trans : {false, true})
    for (const uint32_t num : {1u, 2u, 4u}) {
      INFO((trans ? "stmatrix_trans" : "stmatrix") << " .x" << num);
      const layout::OperandMap* m = layout::find_fragment_map(trans ? "stmatrix_trans" : "stmatrix");
      REQUIRE(m);
      CHECK(m->op == (trans ? ir::Op::stmatrix_trans : ir::Op::stmatrix));
      const layout::FragmentMap map = m->build(int(num));
      REQUIRE(map.threads == 32);
      REQUIRE(map.rows == int(8 * num));
      const std::vector<uint16_t> tile = stored_tile(num, trans);
      int mismatches = 0;
      for (int lane = 0; lane < 32; ++lane)
        for (int v = 0; v < map.values_per_thread; ++v) {
          const layout::Coord c = map.at(lane, v);
          const uint16_t got = tile[size_t(c.row) * 8 + size_t(c.col)];
          if (got != sent(num, uint32_t(lane), uint32_t(v)) && ++mismatches <= 3)
            FAIL_CHECK("lane " << lane << " value " << v << " -> (" << c.row << ", " << c.col << ") holds " << got
                               << ", sent " << sent(num, uint32_t(lane), uint32_t(v)));
        }
      CHECK(mismatches == 0);
      // Rows past the matrices keep the zero fill.
      for (size_t i = 8 * num * 8; i < tile.size(); ++i) CHECK(tile[i] == 0);
    }
}

TEST_CASE("stmatrix in the model follows the PTX ISA's fragment figure", "[model][stmatrix][fragments]") {
  // Without .trans lane l's register j lands in row 8j + l/4, columns 2(l%4) (low) and +1 (high).
  const std::vector<uint16_t> x4 = stored_tile(4, false);
  CHECK(x4[0 * 8 + 0] == sent(4, 0, 0));        // lane 0 reg 0 low: (0, 0)
  CHECK(x4[1 * 8 + 3] == sent(4, 5, 1));        // lane 5 reg 0 high: (1, 2 + 1)
  CHECK(x4[7 * 8 + 7] == sent(4, 31, 1));       // lane 31 reg 0 high: (7, 7)
  CHECK(x4[(24 + 2) * 8 + 4] == sent(4, 10, 6));  // lane 10 reg 3 low: matrix 3, (2, 4)
  // .trans: the same lane's elements run down a column: lane l, register j -> rows 8j + 2(l%4)
  // (+1), column l/4.
  const std::vector<uint16_t> t2 = stored_tile(2, true);
  CHECK(t2[2 * 8 + 1] == sent(2, 5, 0));        // lane 5 reg 0 low: (2, 1)
  CHECK(t2[3 * 8 + 1] == sent(2, 5, 1));        // lane 5 reg 0 high: (3, 1)
  CHECK(t2[(8 + 6) * 8 + 7] == sent(2, 31, 2));  // lane 31 reg 1 low: matrix 1, (6, 7)
}
