// The model's dispatch comes from the op table's exec column: a not_modelled op is refused
// before the run starts, naming the op and the instruction, never skipped silently.
#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"

using namespace gs;
using builder::Builder;
using builder::Reg;

TEST_CASE("a kernel using a not_modelled op is refused before it runs", "[model][dispatch]") {
  // tcgen05.fence::before_thread_sync: not modelled yet (elect.sync and stmatrix.trans, the ops
  // this test used before, now are). The builder has no tcgen05 methods yet, so the
  // instruction is put into the kernel directly.
  REQUIRE_FALSE(ir::op_info(ir::Op::tcgen05_fence_before).modelled);
  Builder b("fence_tcgen05", ir::Arch::sm_100a);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  Reg t = b.special(ir::Special::tid_x, "t");
  (void)t;
  b.ret();
  ir::Kernel k = b.finish();
  ir::Inst fence;
  fence.op = ir::Op::tcgen05_fence_before;
  k.insts.insert(k.insts.begin() + 1, fence);
  model::GemmBuffers bufs;
  bufs.c.resize(4);
  try {
    model::simulate(k, bufs);
    FAIL("simulate ran a kernel with a not_modelled op");
  } catch (const model::NotModelledError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("tcgen05"));
    CHECK_THAT(what, Catch::Contains("instruction 1 (tcgen05"));
    CHECK_THAT(what, Catch::Contains("not modelled"));
  }
}

TEST_CASE("every op the table marks modelled has an exec function, and the others do not", "[model][dispatch]") {
  for (const ir::OpInfo& info : ir::all_ops()) {
    INFO(info.id);
    CHECK(model::has_semantics(info.op) == (info.modelled && info.op != ir::Op::label));
  }
}
