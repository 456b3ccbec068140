// The model's dispatch comes from the op table's exec column: a not_modelled op is refused
// before the run starts, naming the op and the instruction, never skipped silently.
#include <catch2/catch.hpp>

#include <set>

#include "engine/builder/builder.hpp"
#include "engine/model/decode.hpp"
#include "engine/model/exec.hpp"
#include "engine/model/exec_context.hpp"
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

namespace {

// ops.def's exec column as (op, function name, function), for the exec functions the table
// names (labels and not_modelled ops have none).
struct Routed {
  ir::Op op;
  const char* name;
  model::ExecFn fn;
};

constexpr model::ExecFn no_exec = nullptr;
constexpr model::ExecFn not_modelled = nullptr;
using model::exec_alu, model::exec_convert, model::exec_memory, model::exec_control, model::exec_bar,
    model::exec_fence, model::exec_mbarrier_init, model::exec_mbarrier_arrive, model::exec_mbarrier_wait,
    model::exec_tma_load, model::exec_tma_load_multicast, model::exec_tma_store, model::exec_bulk_group,
    model::exec_tma_nothing_pending, model::exec_createpolicy,
    model::exec_cluster, model::exec_wgmma, model::exec_mma, model::exec_ldmatrix, model::exec_stmatrix,
    model::exec_setmaxnreg, model::exec_elect_sync, model::exec_tcgen05, model::exec_cp_async,
    model::exec_cp_async_commit_group, model::exec_cp_async_wait_group, model::exec_launch_control,
    model::exec_ld_shared_b128;

const Routed kRouted[] = {
#define OP(id, spelling, syntax, signature, family, exec, archs, min_ptx, flags, summary) {ir::Op::id, #exec, exec},
#include "engine/ir/ops.def"
#undef OP
};

}  // namespace

TEST_CASE("every exec function refuses an op it does not name, before it reads anything", "[model][dispatch]") {
  // A one-warp CTA with one register, and an instruction whose op no exec function runs (a
  // label): each function the table names must throw NotModelledError naming itself, whether
  // it dispatches with a switch or runs a fixed set of ops with if/else (exec.hpp, expect_op).
  std::set<model::ExecFn> tried;
  for (const Routed& r : kRouted) {
    if (!r.fn || !tried.insert(r.fn).second) continue;
    INFO(r.name << " (routed " << ir::op_info(r.op).id << ")");
    model::Cta c;
    c.nregs = 1;
    c.regs.assign(32, 0);
    c.warps.resize(1);
    model::Warp& w = c.warps[0];
    w.regs = c.regs.data();
    ir::Inst in{.op = ir::Op::label, .ndst = 1};
    in.operands = {ir::Operand::reg(0)};
    model::DecodedInst d{};
    model::ExecContext x{c, w, in, d, 7, 1u, 1u};
    try {
      r.fn(x);
      FAIL(r.name << " ran an op it does not name");
    } catch (const model::NotModelledError& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains(r.name) && Catch::Contains("instruction 7"));
    }
  }
  CHECK(tried.size() >= 20);
}
