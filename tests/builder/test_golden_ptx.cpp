// Golden PTX lines: one per builder op, checked against the exact text we expect ptxas to
// see. The whole-kernel ptxas runs (tests/kernels) check that these spellings assemble.
#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "engine/ptx/emit.hpp"

using namespace gs;
using namespace gs::builder;
using ir::Type;

namespace {

// The PTX text of the last recorded instruction.
std::string last(const Builder& b) {
  const ir::Kernel& k = b.kernel();
  return ptx::format_instruction(k, ptx::register_names(k), k.insts.back());
}

struct Fixture {
  Builder b{"golden", ir::Arch::sm_90a};
  Reg x = b.mov(Type::u32, 7, "x");
  Reg y = b.mov(Type::u32, 9, "y");
  Reg f = b.mov(Type::f32, 1.5, "f");
  Reg p64 = b.mov(Type::u64, 0, "p");
  ir::Kernel done() { return b.finish(); }
};

}  // namespace

TEST_CASE("golden: registers, immediates and ALU operators", "[builder][ptx]") {
  Fixture t;
  CHECK(last(t.b) == "mov.u64 %p, 0;");
  auto sum = t.x + t.y;
  CHECK(last(t.b) == "add.u32 %t0, %x, %y;");
  (t.x - 3).named("d");
  CHECK(last(t.b) == "sub.u32 %d, %x, 3;");
  (void)(t.x * 4);
  CHECK(last(t.b) == "mul.lo.u32 %t2, %x, 4;");
  (void)(t.f * t.f);
  CHECK(last(t.b) == "mul.f32 %t3, %f, %f;");
  (void)(t.x << 6);
  CHECK(last(t.b) == "shl.b32 %t4, %x, 6;");
  (void)(t.x >> 5);
  CHECK(last(t.b) == "shr.u32 %t5, %x, 5;");
  (void)(t.x & 31);
  CHECK(last(t.b) == "and.b32 %t6, %x, 31;");
  (void)(t.x | t.y);
  CHECK(last(t.b) == "or.b32 %t7, %x, %y;");
  (void)(~t.x);
  CHECK(last(t.b) == "not.b32 %t8, %x;");
  sum += 1;
  CHECK(last(t.b) == "add.u32 %t0, %t0, 1;");
  sum ^= 1;
  CHECK(last(t.b) == "xor.b32 %t0, %t0, 1;");
  (void)(t.x / t.y);
  CHECK(last(t.b) == "div.u32 %t9, %x, %y;");
  (void)(t.x % 3);
  CHECK(last(t.b) == "rem.u32 %t10, %x, 3;");
  t.b.mul_wide(t.x, 4u, "w");
  CHECK(last(t.b) == "mul.wide.u32 %w, %x, 4;");
  t.b.fma(t.f, t.f, t.f, "g");
  CHECK(last(t.b) == "fma.rn.f32 %g, %f, %f, %f;");
  t.b.mov(Type::u64, 1 << 20, "big");
  CHECK(last(t.b) == "mov.u64 %big, 0x100000;");
}

TEST_CASE("golden: floating immediates print as exact bit patterns", "[builder][ptx]") {
  Fixture t;
  t.b.mov(Type::f32, 1.0, "one");
  CHECK(last(t.b) == "mov.f32 %one, 0f3F800000;");
  t.b.mov(Type::f64, -2.0, "m2");
  CHECK(last(t.b) == "mov.f64 %m2, 0dC000000000000000;");
}

TEST_CASE("golden: comparisons, select and conversions", "[builder][ptx]") {
  Fixture t;
  (void)(t.x < t.y);
  CHECK(last(t.b) == "setp.lt.u32 %t0, %x, %y;");
  Reg p = (t.x == 0).named("is0");
  CHECK(last(t.b) == "setp.eq.u32 %is0, %x, 0;");
  (void)(t.x >= 2);
  CHECK(last(t.b) == "setp.ge.u32 %t2, %x, 2;");
  (void)(t.x != 2);
  CHECK(last(t.b) == "setp.ne.u32 %t3, %x, 2;");
  t.b.selp(t.x, t.y, p, "s");
  CHECK(last(t.b) == "selp.u32 %s, %x, %y, %is0;");
  t.b.cvt(Type::u64, t.x, ir::Rounding::none, "x64");
  CHECK(last(t.b) == "cvt.u64.u32 %x64, %x;");
  t.b.cvt(Type::bf16, t.f, ir::Rounding::rn, "h");
  CHECK(last(t.b) == "cvt.rn.bf16.f32 %h, %f;");
}

TEST_CASE("golden: special registers, parameters and shared addresses", "[builder][ptx]") {
  Builder b("golden", ir::Arch::sm_90a);
  b.special(ir::Special::tid_x, "tid");
  CHECK(last(b) == "mov.u32 %tid_, %tid.x;");  // %tid is PTX's own name
  b.special(ir::Special::cluster_ctarank, "rank");
  CHECK(last(b) == "mov.u32 %rank, %cluster_ctarank;");
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  b.global_ptr(pa, "A_ptr");
  CHECK(last(b) == "cvta.to.global.u64 %A_ptr, %A_ptr_param;");
  CHECK(ptx::format_instruction(b.kernel(), ptx::register_names(b.kernel()), b.kernel().insts[2]) ==
        "ld.param.u64 %A_ptr_param, [A];");
  ir::TensorMapDesc d;
  d.source = ir::ParamRole::a;
  d.global_dim = {64, 64, 1, 1, 1};
  d.global_strides_bytes = {128, 0, 0, 0};
  d.box_dim = {64, 64, 1, 1, 1};
  auto tm = b.tensor_map_param("tmap_A", d);
  b.tensor_map_address(tm, "tmA");
  CHECK(last(b) == "cvta.param.u64 %tmA, %tmA_param;");
  auto s = b.shared("tile", 4096, 1024, ir::SmemUse::tile, layout::Swizzle::b128);
  auto s2 = b.shared("bar", 8, 8, ir::SmemUse::mbarrier);
  b.smem_address(s2, 0, "bar_addr");
  CHECK(last(b) == "mov.u32 %bar_addr, gs_smem+4096;");
  b.smem_address(s, 0, "tile_addr");
  CHECK(last(b) == "mov.u32 %tile_addr, gs_smem;");
}

TEST_CASE("golden: loads and stores", "[builder][ptx]") {
  Fixture t;
  t.b.ld_global(Type::f32, Addr::at(t.p64, 16), "v");
  CHECK(last(t.b) == "ld.global.f32 %v, [%p+16];");
  t.b.ld_vec(ir::Op::ld_shared, Type::b32, 4, Addr::at(t.x), "q");
  CHECK(last(t.b) == "ld.shared.v4.b32 {%q0, %q1, %q2, %q3}, [%x];");
  t.b.st_global(Type::f32, Addr::at(t.p64, -8), {t.f});
  CHECK(last(t.b) == "st.global.f32 [%p-8], %f;");
  t.b.st(ir::Op::st_global, Type::f32, Addr::at(t.p64), {t.f, t.f});
  CHECK(last(t.b) == "st.global.v2.f32 [%p], {%f, %f};");
  t.b.st_shared(Type::u32, Addr::at(t.x, 4), {t.y});
  CHECK(last(t.b) == "st.shared.u32 [%x+4], %y;");
}

TEST_CASE("golden: barriers, fences and mbarriers", "[builder][ptx]") {
  Fixture t;
  auto bar = t.b.shared("full", 8, 8, ir::SmemUse::mbarrier);
  t.b.bar_sync(0);
  CHECK(last(t.b) == "bar.sync 0;");
  t.b.bar_sync(1, 256);
  CHECK(last(t.b) == "bar.sync 1, 256;");
  t.b.bar_arrive(2, 128);
  CHECK(last(t.b) == "bar.arrive 2, 128;");
  t.b.fence_proxy_async();
  CHECK(last(t.b) == "fence.proxy.async.shared::cta;");
  t.b.fence_mbarrier_init();
  CHECK(last(t.b) == "fence.mbarrier_init.release.cluster;");
  t.b.mbarrier_init(bar.at(), 1);
  CHECK(last(t.b) == "mbarrier.init.shared::cta.b64 [gs_smem], 1;");
  t.b.mbarrier_arrive(bar.at());
  CHECK(last(t.b) == "mbarrier.arrive.shared::cta.b64 _, [gs_smem];");
  t.b.mbarrier_arrive_expect_tx(bar.at(), 16384);
  CHECK(last(t.b) == "mbarrier.arrive.expect_tx.shared::cta.b64 _, [gs_smem], 16384;");
  t.b.mbarrier_expect_tx(bar.at(), 64);
  CHECK(last(t.b) == "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [gs_smem], 64;");
  t.b.mbarrier_try_wait_parity(bar.at(), t.x, "ok");
  CHECK(last(t.b) == "mbarrier.try_wait.parity.shared::cta.b64 %ok, [gs_smem], %x;");
  t.b.mbarrier_test_wait_parity(bar.at(), 1, "done");
  CHECK(last(t.b) == "mbarrier.test_wait.parity.shared::cta.b64 %done, [gs_smem], 1;");
}

TEST_CASE("golden: control flow", "[builder][ptx]") {
  Fixture t;
  Reg p = (t.x < 3).named("q");
  auto l = t.b.label("L_top");
  t.b.bind(l);
  CHECK(last(t.b) == "L_top:");
  t.b.bra_if(p, l);
  CHECK(last(t.b) == "@%q bra L_top;");
  t.b.bra_if(p, l, true);
  CHECK(last(t.b) == "@!%q bra L_top;");
  t.b.bra(l);
  CHECK(last(t.b) == "bra L_top;");
  t.b.ret();
  CHECK(last(t.b) == "ret;");
  t.b.trap();
  CHECK(last(t.b) == "trap;");
}

TEST_CASE("golden: TMA", "[builder][ptx]") {
  Fixture t;
  auto tile = t.b.shared("tile", 8192, 1024, ir::SmemUse::tile, layout::Swizzle::b128);
  auto bar = t.b.shared("full", 8, 8, ir::SmemUse::mbarrier);
  t.b.cp_async_bulk_tensor_load(tile.at(), t.p64, {t.x, t.y}, bar.at());
  CHECK(last(t.b) ==
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [gs_smem], [%p, {%x, %y}], "
        "[gs_smem+8192];");
  t.b.cp_async_bulk_tensor_store(t.p64, {t.x, t.y, 0}, tile.at());
  CHECK(last(t.b) == "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%p, {%x, %y, 0}], [gs_smem];");
  t.b.cp_async_bulk_commit_group();
  CHECK(last(t.b) == "cp.async.bulk.commit_group;");
  t.b.cp_async_bulk_wait_group_read(0);
  CHECK(last(t.b) == "cp.async.bulk.wait_group.read 0;");
  t.b.prefetch_tensormap(t.p64);
  CHECK(last(t.b) == "prefetch.tensormap [%p];");
  // The L2 cache-hint form: a policy from createpolicy, the store's .L2::cache_hint and operand.
  const Reg policy = t.b.createpolicy_fractional_evict_first("pol");
  CHECK(last(t.b) == "createpolicy.fractional.L2::evict_first.b64 %pol;");
  t.b.cp_async_bulk_tensor_store(t.p64, {t.x, t.y}, tile.at(), policy);
  CHECK(last(t.b) ==
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint [%p, {%x, %y}], [gs_smem], %pol;");
  CHECK_NOTHROW(t.done());  // verify() takes the optional b64 policy operand
}

TEST_CASE("golden: wgmma", "[builder][ptx]") {
  Fixture t;
  Reg desc = t.b.wgmma_descriptor(t.x, layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "desc");
  CHECK(last(t.b) == "or.b64 %desc, %desc_start, 0x4000004000010000;");
  // Arithmetic on a descriptor (b64) is u64 arithmetic: PTX has no add.b64.
  (void)(desc + t.b.mul_wide(t.x, 1024u, "stage_off"));
  CHECK(last(t.b) == "add.u64 %t0, %desc, %stage_off;");
  (void)(desc - t.p64);
  CHECK(last(t.b) == "sub.u64 %t1, %desc, %p;");
  std::vector<Reg> acc;
  for (int i = 0; i < 4; ++i) acc.push_back(t.b.reg(Type::f32, "d" + std::to_string(i)));
  t.b.wgmma_fence();
  CHECK(last(t.b) == "wgmma.fence.sync.aligned;");
  t.b.wgmma_mma_async(8, acc, desc, desc, 0);
  CHECK(last(t.b) == "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%d0, %d1, %d2, %d3}, %desc, %desc, 0, 1, 1, 0, 0;");
  t.b.wgmma_commit_group();
  CHECK(last(t.b) == "wgmma.commit_group.sync.aligned;");
  t.b.wgmma_wait_group(1);
  CHECK(last(t.b) == "wgmma.wait_group.sync.aligned 1;");
  CHECK_THROWS_WITH(t.b.wgmma_mma_async(20, acc, desc, desc, 0), Catch::Contains("N=20 is not a multiple of 8"));
  CHECK_THROWS_WITH(t.b.wgmma_mma_async(16, acc, desc, desc, 0), Catch::Contains("needs 8 f32 accumulator registers, got 4"));
}

TEST_CASE("golden: Ampere, cluster and warp-specialisation families", "[builder][ptx]") {
  Fixture t;
  std::vector<Reg> d, a, bb, c;
  for (int i = 0; i < 4; ++i) d.push_back(t.b.reg(Type::f32, "d" + std::to_string(i)));
  for (int i = 0; i < 4; ++i) a.push_back(t.b.reg(Type::b32, "a" + std::to_string(i)));
  for (int i = 0; i < 2; ++i) bb.push_back(t.b.reg(Type::b32, "b" + std::to_string(i)));
  t.b.mma_sync(d, a, bb, d);
  CHECK(last(t.b) ==
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, "
        "{%d0, %d1, %d2, %d3};");
  t.b.ldmatrix(4, false, Addr::at(t.x), "m");
  CHECK(last(t.b) == "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%m0, %m1, %m2, %m3}, [%x];");
  t.b.ldmatrix(2, true, Addr::at(t.x), "n");
  CHECK(last(t.b) == "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%n0, %n1}, [%x];");
  t.b.stmatrix(4, true, Addr::at(t.x), a);
  CHECK(last(t.b) == "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%x], {%a0, %a1, %a2, %a3};");
  t.b.cp_async_cg(Addr::at(t.x), Addr::at(t.p64, 32));
  CHECK(last(t.b) == "cp.async.cg.shared.global [%x], [%p+32], 16;");
  t.b.cp_async_commit_group();
  CHECK(last(t.b) == "cp.async.commit_group;");
  t.b.cp_async_wait_group(1);
  CHECK(last(t.b) == "cp.async.wait_group 1;");
  t.b.mapa(t.x, 1, "remote");
  CHECK(last(t.b) == "mapa.shared::cluster.u32 %remote, %x, 1;");
  t.b.barrier_cluster_arrive();
  CHECK(last(t.b) == "barrier.cluster.arrive.release.aligned;");
  t.b.barrier_cluster_wait();
  CHECK(last(t.b) == "barrier.cluster.wait.acquire.aligned;");
  t.b.setmaxnreg(true, 240);
  CHECK(last(t.b) == "setmaxnreg.inc.sync.aligned.u32 240;");
  t.b.setmaxnreg(false, 24);
  CHECK(last(t.b) == "setmaxnreg.dec.sync.aligned.u32 24;");
  CHECK_THROWS_WITH(t.b.setmaxnreg(true, 28), Catch::Contains("multiple of 8 in 24..256"));
  t.b.elect_sync("leader");
  CHECK(last(t.b) == "elect.sync _|%leader, 0xFFFFFFFF;");
}
