// The model's dispatch comes from the op table's exec column: a not_modelled op is refused
// before the run starts, naming the op and the instruction, never skipped silently.
#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"

using namespace gs;
using builder::Builder;
using builder::Reg;

TEST_CASE("a kernel using a not_modelled op is refused before it runs", "[model][dispatch]") {
  // stmatrix.trans: not modelled yet (elect.sync, the op this test used first, now is).
  REQUIRE_FALSE(ir::op_info(ir::Op::stmatrix_trans).modelled);
  Builder b("store_fragment", ir::Arch::sm_90);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto s = b.shared("s", 64, 16, ir::SmemUse::other);
  Reg a = b.smem_address(s, 0, "a");
  b.stmatrix(1, true, builder::Addr::at(a), {a});
  b.ret();
  const ir::Kernel k = b.finish();
  model::GemmBuffers bufs;
  bufs.c.resize(4);
  try {
    model::simulate(k, bufs);
    FAIL("simulate ran a kernel with a not_modelled op");
  } catch (const model::NotModelledError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("stmatrix"));
    CHECK_THAT(what, Catch::Contains("instruction 1 (stmatrix"));
    CHECK_THAT(what, Catch::Contains("not modelled"));
  }
}

TEST_CASE("every op the table marks modelled has an exec function, and the others do not", "[model][dispatch]") {
  for (const ir::OpInfo& info : ir::all_ops()) {
    INFO(info.id);
    CHECK(model::has_semantics(info.op) == (info.modelled && info.op != ir::Op::label));
  }
}
