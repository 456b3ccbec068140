// The model's dispatch comes from the op table's exec column: a not_modelled op is refused
// before the run starts, naming the op and the instruction, never skipped silently.
#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"

using namespace gs;
using builder::Builder;
using builder::Reg;

TEST_CASE("a kernel using a not_modelled op is refused before it runs", "[model][dispatch]") {
  // tcgen05.mma with A in tensor memory: not modelled (ops.def: A's layout in TMEM is not
  // documented), so the model must refuse it rather than guess.
  REQUIRE_FALSE(ir::op_info(ir::Op::tcgen05_mma_tmem_a).modelled);
  Builder b("mma_a_tmem", ir::Arch::sm_100a);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  Reg t = b.special(ir::Special::tid_x, "t");
  Reg d = b.mov(ir::Type::b64, 0, "d");
  b.tcgen05_mma_tmem_a(builder::Addr::at(t), builder::Addr::at(t), d, t, (t == 0).named("p"));
  b.ret();
  ir::Kernel k = b.finish();
  model::GemmBuffers bufs;
  bufs.c.resize(4);
  try {
    model::simulate(k, bufs);
    FAIL("simulate ran a kernel with a not_modelled op");
  } catch (const model::NotModelledError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("tcgen05_mma_tmem_a"));
    CHECK_THAT(what, Catch::Contains("instruction 5 (tcgen05_mma_tmem_a"));  // after the two .b32 address copies
    CHECK_THAT(what, Catch::Contains("not modelled"));
  }
}

TEST_CASE("every op the table marks modelled has an exec function, and the others do not", "[model][dispatch]") {
  for (const ir::OpInfo& info : ir::all_ops()) {
    INFO(info.id);
    CHECK(model::has_semantics(info.op) == (info.modelled && info.op != ir::Op::label));
  }
}
