// Every op the op table marks modelled runs through the model at least once: the ladder's
// steps, the probes and one small kernel for the ops none of them uses. An exec function
// that does not name an op routed to it throws NotModelledError (exec.hpp, not_handled), so a
// new row whose exec column points at the wrong function fails here, and so does a new
// modelled op that nothing runs.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"
#include "kernels/registry.hpp"
#include "run/probe_cases.hpp"
#include "tests/model/model_fixture.hpp"
#include "tests/support/param_combos.hpp"
#include "tests/model/tma_store_kernel.hpp"

using namespace gs;
using builder::Builder;
using builder::Reg;
using ir::Op;
using ir::Type;

namespace {

// The ops no step of the ladder and no probe issues, each once, on one warp: integer
// arithmetic the steps reach only through other forms, min/max, the packing cvt, exit, an L2
// cache policy.
ir::Kernel leftover_ops_kernel() {
  Builder b("leftover_ops", ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  const builder::Param c = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const Reg t = b.special(ir::Special::tid_x, "t");
  const Reg seven = b.alu(Op::add, Type::s32, {t, 7}, "seven");
  Reg x = b.alu(Op::div, Type::s32, {seven, 3}, "q");
  x = b.alu(Op::rem, Type::s32, {x, 5}, "r");
  x = b.alu(Op::mul_hi, Type::u32, {x, 0x40000000u}, "hi");
  x = b.alu(Op::mad_lo, Type::u32, {x, 3, t}, "mad");
  x = b.alu(Op::neg, Type::s32, {x}, "neg");
  x = b.alu(Op::not_, Type::b32, {x}, "not");
  x = b.alu(Op::shr, Type::u32, {x, 1}, "shr");
  x = b.alu(Op::min, Type::u32, {x, 1000}, "lo");
  x = b.alu(Op::max, Type::u32, {x, 1}, "hi2");
  // cvt.rn.bf16x2.f32 d, hi, lo and mad.wide.u32 d64, a, b, c64: no builder method uses them.
  const Reg f = b.cvt(Type::f32, x, ir::Rounding::rn, "f");
  const Reg packed = b.reg(Type::b32, "packed");
  ir::Inst pack{.op = Op::cvt_pack, .type = Type::bf16x2, .type2 = Type::f32, .rounding = ir::Rounding::rn, .ndst = 1};
  pack.operands = {ir::Operand::reg(packed.id()), ir::Operand::reg(f.id()), ir::Operand::reg(f.id())};
  b.record(std::move(pack));
  const Reg base = b.global_ptr(c, "c");
  const Reg addr = b.reg(Type::u64, "addr");
  ir::Inst wide{.op = Op::mad_wide, .type = Type::u32, .ndst = 1};
  wide.operands = {ir::Operand::reg(addr.id()), ir::Operand::reg(t.id()), ir::Operand::integer(8), ir::Operand::reg(base.id())};
  b.record(std::move(wide));
  const Reg g = (f * f).named("g");  // mul.f32
  b.st_global(Type::u32, builder::Addr::at(addr), {x});
  b.st_global(Type::f32, builder::Addr::at(addr, 4), {g});
  b.st_global(Type::b32, builder::Addr::at(addr, 4), {packed});
  // cp.async.ca of 4 bytes of C back into shared memory, and wait_all; an mbarrier's
  // expect_tx; fence.acq_rel.cluster; bar.arrive by every lane of this one-warp CTA.
  const builder::Smem words = b.shared("words", 128, 16, ir::SmemUse::other);
  const builder::Smem bar = b.shared("bar", 16, 16, ir::SmemUse::mbarrier);
  const Reg dst = (b.smem_address(words, 0, "words0") + (t << 2)).named("dst");
  b.cp_async_ca(builder::Addr::at(dst), builder::Addr::at(addr), 4);
  b.cp_async_wait_all();
  b.if_(b.setp(ir::CmpOp::eq, t, 0, "first"), [&] {
    b.mbarrier_init(bar.at(), 1);
    b.mbarrier_expect_tx(bar.at(), 16);
  });
  b.fence_acq_rel_cluster();
  b.createpolicy_fractional_evict_first("policy");  // step 19 makes one only with c_store_hint=evict_first
  b.bar_arrive(1, 32);
  ir::Inst end{.op = Op::exit};
  b.record(std::move(end));
  return b.finish();
}

// tcgen05.st and wait::st, which no step uses (their epilogues only read tensor memory): one
// warp stores its lane index into column 0 of its quarter and reads it back; and the
// cta_group::1 form of tcgen05.commit.multicast (step 22's is cta_group::2).
ir::Kernel leftover_tcgen05_kernel() {
  Builder b("leftover_tcgen05", ir::Arch::sm_100a);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  const builder::Param c = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const builder::Smem slot = b.shared("tmem_addr", 16, 16, ir::SmemUse::other);
  const builder::Smem bar = b.shared("done", 8, 8, ir::SmemUse::mbarrier);
  const Reg t = b.special(ir::Special::tid_x, "t");
  b.tcgen05_alloc(slot.at(), 32);
  b.tcgen05_relinquish_alloc_permit();
  b.tcgen05_fence_before_thread_sync();
  b.bar_sync(0);
  b.tcgen05_fence_after_thread_sync();
  const Reg taddr = b.ld_shared(Type::b32, slot.at(), "taddr");
  b.tcgen05_st_32x32b(builder::Addr::at(taddr), {t});
  b.tcgen05_wait_st();
  // A commit with no MMA before it, multicast to this CTA alone (mask 1): it arrives at once.
  b.if_(b.setp(ir::CmpOp::eq, t, 0, "first"), [&] {
    b.mbarrier_init(bar.at(), 1);
    b.fence_mbarrier_init();
    b.tcgen05_commit_multicast(bar.at(), b.mov(Type::b16, 1, "self"), builder::CtaGroup::one);
  });
  b.mbarrier_wait(bar.at(), 0);
  const std::vector<Reg> back = b.tcgen05_ld_32x32b(1, builder::Addr::at(taddr), "back");
  b.tcgen05_wait_ld();
  const Reg base = b.global_ptr(c, "c");
  const Reg addr = (base + b.mul_wide(t, 4, "off")).named("addr");
  b.st_global(Type::u32, builder::Addr::at(addr), {back[0]});
  b.tcgen05_dealloc(taddr, 32);
  b.ret();
  return b.finish();
}

// trap, in a kernel of its own: the CTA fails, as on the GPU.
ir::Kernel trap_kernel() {
  Builder b("leftover_trap", ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  b.trap();
  b.ret();
  return b.finish();
}


struct Runner {
  std::set<Op> ran;

  // Runs the kernel when it has an op not run yet.
  void run(const ir::Kernel& k, model::GemmBuffers bufs, const std::string& what, bool completes = true) {
    std::set<Op> ops;
    for (const ir::Inst& in : k.insts) ops.insert(in.op);
    bool fresh = false;
    for (Op op : ops) fresh |= !ran.count(op);
    if (!fresh) return;
    INFO(what);
    model::SimOptions o;
    o.trace = false;
    model::SimResult r;
    REQUIRE_NOTHROW(r = model::simulate(k, bufs, o));
    CHECK(r.completed == completes);
    ran.insert(ops.begin(), ops.end());
  }
};

}  // namespace

TEST_CASE("every op the table marks modelled runs through the model", "[model][dispatch]") {
  Runner runner;
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    const test::WholeGrid g = test::small_whole_grid(info);  // step 23's example with its fewest CTAs
    const test::ModelRun r = test::run_model(info.id, g.shape, true, 1, {}, {}, g.params);
    runner.run(r.kernel, r.bufs, info.id);
  }
  for (const run::ProbeCase& p : run::probe_cases("all")) runner.run(p.kernel, p.buffers, p.name);
  model::GemmBuffers bufs;
  bufs.c.assign(32 * 8, 0);
  runner.run(leftover_ops_kernel(), bufs, "leftover ops");
  runner.run(leftover_tcgen05_kernel(), bufs, "leftover tcgen05");
  runner.run(trap_kernel(), bufs, "trap", false);
  model::GemmBuffers c32;
  c32.c.assign(32 * 32 * 2, 0);
  runner.run(test::tma_store_kernel(), c32, "TMA store and its bulk group, prefetch.tensormap");
  // The plain cta_group::2 commit: step 22's commit-to-one-cta mistake (rank 1's barriers are
  // never released, so the cluster deadlocks, as on the GPU).
  const test::ModelRun pair = test::run_model("blackwell_2sm", kernels::kernel_or_throw("blackwell_2sm").example_shape,
                                              true, 1, {"commit-to-one-cta"});
  runner.run(pair.kernel, pair.bufs, "blackwell_2sm commit-to-one-cta", false);
  for (const ir::OpInfo& info : ir::all_ops()) {
    if (!info.modelled || info.op == Op::label) continue;
    INFO(info.id << ": no step, probe or leftover kernel runs it (add it to leftover_ops_kernel)");
    CHECK(runner.ran.count(info.op) == 1);
  }
}
