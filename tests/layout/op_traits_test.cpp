// Tests for engine/layout/op_traits: every op has a scope, every map of the table builds for
// every parameter value and is a bijection of its operand's tile, parameters are checked, and
// the read pattern and tensor-memory rule say what the facts sheet says (§1.4, §9.3).
#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>
#include <string>

#include "engine/layout/op_traits.hpp"

using namespace gs::layout;
using gs::ir::Op;

TEST_CASE("every op has traits, and the collective ops a scope wider than a thread", "[layout][op_traits]") {
  for (const gs::ir::OpInfo& info : gs::ir::all_ops()) {
    INFO(info.id);
    const OpTraits& t = op_traits(info.op);
    CHECK(t.op == info.op);
    // A warp-collective op (.sync.aligned, bar) runs over at least a warp.
    if (info.flags & gs::ir::F_SYNC) CHECK(t.scope != ThreadScope::thread);
  }
  CHECK(op_traits(Op::wgmma_mma_async).scope == ThreadScope::warpgroup);
  CHECK(op_traits(Op::mma_sync).scope == ThreadScope::warp);
  CHECK(op_traits(Op::tcgen05_mma).scope == ThreadScope::thread);
  CHECK(op_traits(Op::tcgen05_mma_cta_pair).scope == ThreadScope::cta_pair);
  CHECK(op_traits(Op::bar_sync).scope == ThreadScope::cta);
  CHECK(thread_scope_name(ThreadScope::cta_pair) == "CTA pair");
}

TEST_CASE("every fragment map of the table builds for each of its parameters as a bijection", "[layout][op_traits]") {
  std::set<std::string> ids;
  for (const OperandMap& m : fragment_maps()) {
    INFO(m.id);
    CHECK(ids.insert(std::string(m.id)).second);
    CHECK(find_fragment_map(m.id) == &m);
    CHECK(!m.title.empty());
    CHECK(!m.citation.empty());
    // The op's traits list this map.
    bool listed = false;
    for (const OperandMap& x : op_traits(m.op).maps) listed |= &x == &m;
    CHECK(listed);
    CHECK(m.param.valid(m.param.default_value));
    for (int p : m.param.values()) {
      const FragmentMap f = m.build(p);
      CHECK(f.is_bijection());
      CHECK(f.threads * f.values_per_thread == f.rows * f.cols);
    }
  }
  CHECK(find_fragment_map("no such map") == nullptr);
}

TEST_CASE("a map's parameter is checked, with the valid values in the message", "[layout][op_traits]") {
  const OperandMap* acc = find_fragment_map("wgmma_acc");
  REQUIRE(acc);
  CHECK(acc->param.values().size() == 32);
  CHECK(acc->build(16).cols == 16);
  CHECK_THROWS_WITH(acc->build(12), Catch::Contains("N = 12") && Catch::Contains("8, 16, 24"));
  const OperandMap* ld = find_fragment_map("tcgen05_32x32b");
  REQUIRE(ld);
  CHECK(ld->param.values() == std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128});
  CHECK_FALSE(ld->param.valid(3));
  CHECK(ld->param.nearest(3) == 2);
  CHECK(ld->param.nearest(1000) == 128);
  const OperandMap* a = find_fragment_map("mma_a");
  REQUIRE(a);
  CHECK(a->basis() == FactBasis::probe);
  CHECK(a->probe == "mma");
  CHECK(find_fragment_map("tcgen05_32x32b")->basis() == FactBasis::citation);
  CHECK(a->register_of(5) == 2);
  CHECK(a->half_of(5) == 1);
  CHECK(find_fragment_map("mma_c")->half_of(3) == -1);
}

TEST_CASE("stmatrix's maps: one row per form, on the ldmatrix probe, at the instruction's .xN", "[layout][op_traits]") {
  for (const Op op : {Op::stmatrix, Op::stmatrix_trans}) {
    const std::span<const OperandMap> maps = op_traits(op).maps;
    REQUIRE(maps.size() == 1);
    const OperandMap& m = maps[0];
    INFO(m.id);
    CHECK(m.operand == "src");
    CHECK(m.packed16);
    CHECK(m.basis() == FactBasis::probe);
    CHECK(m.probe == "ldmatrix");  // `gemmscope probe ldmatrix` runs stmatrix .x1/.x2/.x4 (.trans) too
    CHECK(m.param.values() == std::vector<int>{1, 2, 4});
    CHECK(m.param.default_value == 4);  // step 19's stmatrix.x4
    CHECK_THROWS_WITH(m.build(3), Catch::Contains("x = 3") && Catch::Contains("1, 2, 4"));
    // The map of the ldmatrix form of the same direction, cell for cell.
    const OperandMap* ld = find_fragment_map(op == Op::stmatrix ? "ldmatrix" : "ldmatrix_trans");
    REQUIRE(ld);
    for (int x : m.param.values()) CHECK(m.build(x).table == ld->build(x).table);
  }
  CHECK(find_fragment_map("stmatrix")->op == Op::stmatrix);
  CHECK(find_fragment_map("stmatrix_trans")->op == Op::stmatrix_trans);
  // A map's parameter is its instruction's {n} (Inst::aux), which the Fragments view reads off a
  // kernel's instructions: every row that takes one belongs to an op spelled with {n}.
  for (const OperandMap& x : fragment_maps())
    if (x.param.takes_param()) CHECK(gs::ir::op_info(x.op).spelling.find("{n}") != std::string_view::npos);
}

TEST_CASE("the descriptor read pattern: lane 8g + r reads row 8(g%2) + r of chunk g/2", "[layout][op_traits]") {
  const CoreMatrixRead* w = op_traits(Op::wgmma_mma_async).smem_read;
  const CoreMatrixRead* t = op_traits(Op::tcgen05_mma).smem_read;
  REQUIRE(w);
  REQUIRE(t);
  CHECK(op_traits(Op::tcgen05_mma_cta_pair).smem_read);
  CHECK(op_traits(Op::add).smem_read == nullptr);
  // Every (row, chunk) of a batch is read by exactly one lane.
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (uint32_t lane = 0; lane < 32; ++lane) seen.insert({CoreMatrixRead::row_of_lane(lane), CoreMatrixRead::chunk_of_lane(lane)});
  CHECK(seen.size() == 32);
  CHECK(CoreMatrixRead::row_of_lane(9) == 9);
  CHECK(CoreMatrixRead::chunk_of_lane(9) == 0);
  CHECK(CoreMatrixRead::row_of_lane(17) == 1);
  CHECK(CoreMatrixRead::chunk_of_lane(17) == 1);
  // wgmma: warp 6 is warp 2 of its warpgroup: A rows 32.., B rows 2N/4..
  CHECK(w->a_first_row(6) == 32);
  CHECK(w->b_first_row(6, 128) == 64);
  CHECK(w->b_rows(128) == 32);
  // tcgen05.mma: one thread reads the whole tile.
  CHECK(t->a_first_row(6) == 0);
  CHECK(t->a_rows(128) == 128);
}

TEST_CASE("the tensor-memory rule: warp w touches lanes 32(w%4)..+31", "[layout][op_traits]") {
  REQUIRE(op_traits(Op::tcgen05_ld_32x32b).tmem_access);
  REQUIRE(op_traits(Op::tcgen05_st_32x32b).tmem_access);
  CHECK(op_traits(Op::tcgen05_mma).tmem_access == nullptr);
  CHECK(TmemAccessRule::first_lane(5) == 32);
  CHECK(TmemAccessRule::allows(5, 32, 32));
  CHECK_FALSE(TmemAccessRule::allows(5, 0, 32));
  CHECK_FALSE(TmemAccessRule::allows(5, 48, 32));
  CHECK(TmemAccessRule::allows(7, 96, 32));
}
