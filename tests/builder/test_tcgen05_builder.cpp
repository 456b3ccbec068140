// The tcgen05 builder methods (facts §9): one golden PTX line per method, the argument checks
// a learner meets first, and ptxas -arch=sm_100a accepting a tiny kernel of each CTA group
// (the two groups cannot share a kernel: ptxas rejects the mix, see the probe below).
#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "engine/ir/verify.hpp"
#include "engine/ptx/emit.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;
using namespace gs::builder;
using ir::Type;

namespace {

std::string last(const Builder& b) {
  const ir::Kernel& k = b.kernel();
  return ptx::format_instruction(k, ptx::register_names(k), k.insts.back());
}

// A kernel that uses every tcgen05 method once, in the given CTA group, in the order a
// real kernel would: alloc, MMA, commit, wait, ld, st, dealloc.
ir::Kernel every_method(CtaGroup group) {
  Builder b(group == CtaGroup::one ? "tcgen05_one" : "tcgen05_pair", ir::Arch::sm_100a);
  const uint32_t ctas = group == CtaGroup::one ? 1u : 2u;
  b.set_launch({.grid = {ctas, 1, 1}, .block = {128, 1, 1}, .cluster = {ctas, 1, 1}});
  Smem tiles = b.shared("tiles", 2 * 16384, 1024, ir::SmemUse::tile, layout::Swizzle::b128);
  Smem bar = b.shared("done", 8, 8, ir::SmemUse::mbarrier);
  Smem slot = b.shared("tmem_slot", 4, 16, ir::SmemUse::other);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg tiles_addr = b.smem_address(tiles, 0, "tiles_addr");
  b.mbarrier_init(bar.at(), 1);
  b.tcgen05_alloc(slot.at(), 256, group);
  b.tcgen05_relinquish_alloc_permit(group);
  b.tcgen05_fence_before_thread_sync();
  b.bar_sync(0);
  b.tcgen05_fence_after_thread_sync();
  Reg tmem = b.ld_shared(Type::u32, slot.at(), "tmem");
  Reg idesc = b.tmem_instr_descriptor({.m = group == CtaGroup::one ? 128u : 256u, .n = 256}, "idesc");
  Reg a = b.umma_descriptor(tiles_addr, layout::umma_descriptor_from(layout::kmajor_tile_descriptor(0, layout::Swizzle::b128)), "a_desc");
  Reg bd = b.umma_descriptor(tiles_addr, layout::umma_descriptor_from(layout::kmajor_tile_descriptor(16384, layout::Swizzle::b128)), "b_desc");
  Reg accumulate = (tid != 0).named("accumulate");
  b.tcgen05_mma(Addr::at(tmem), a, bd, idesc, accumulate, group);
  b.tcgen05_mma_tmem_a(Addr::at(tmem), Addr::at(tmem, 128), bd, idesc, accumulate, group);
  b.tcgen05_commit(bar.at(), group);
  Reg mask = b.mov(Type::b16, 3, "mask");
  b.tcgen05_commit_multicast(bar.at(), mask, group);
  b.mbarrier_wait(bar.at(), 0);
  b.tcgen05_fence_after_thread_sync();
  std::vector<Reg> v = b.tcgen05_ld_32x32b(8, Addr::at(tmem, 16), "v");
  b.tcgen05_wait_ld();
  b.tcgen05_st_32x32b(Addr::at(tmem), v);
  b.tcgen05_wait_st();
  b.tcgen05_dealloc(tmem, 256, group);
  b.ret();
  return b.finish();
}

}  // namespace

TEST_CASE("golden: tcgen05 allocation, MMA, commit and fences", "[builder][ptx][tcgen05]") {
  Builder b("golden", ir::Arch::sm_100a);
  Smem slot = b.shared("slot", 4, 16, ir::SmemUse::other);
  Reg t = b.mov(Type::u32, 0, "t");
  Reg p = (t == 0).named("acc");
  Reg d = b.mov(Type::b64, 0, "d");
  b.tcgen05_alloc(slot.at(), 512);
  CHECK(last(b) == "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [gs_smem], 512;");
  b.tcgen05_alloc(slot.at(), 32, CtaGroup::two);
  CHECK(last(b) == "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [gs_smem], 32;");
  b.tcgen05_relinquish_alloc_permit();
  CHECK(last(b) == "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  b.tcgen05_relinquish_alloc_permit(CtaGroup::two);
  CHECK(last(b) == "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;");
  b.tcgen05_dealloc(t, 64);
  CHECK(last(b) == "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %t, 64;");
  b.tcgen05_dealloc(t, t, CtaGroup::two);
  CHECK(last(b) == "tcgen05.dealloc.cta_group::2.sync.aligned.b32 %t, %t;");
  Reg tm = b.mov(Type::b32, 0, "tm");  // tcgen05.mma wants its TMEM addresses in .b32 registers
  b.tcgen05_mma(Addr::at(tm), d, d, 0x08400490u, p);
  CHECK(last(b) == "tcgen05.mma.cta_group::1.kind::f16 [%tm], %d, %d, 0x8400490, %acc;");
  b.tcgen05_mma(Addr::at(tm), d, d, t, p, CtaGroup::two);
  CHECK(last(b) == "tcgen05.mma.cta_group::2.kind::f16 [%tm], %d, %d, %t, %acc;");
  b.tcgen05_mma_tmem_a(Addr::at(tm), Addr::at(tm, 64), d, t, p);
  CHECK(last(b) == "tcgen05.mma.cta_group::1.kind::f16 [%tm], [%tm+64], %d, %t, %acc;");
  // A .u32 address is copied into a .b32 register first (ptxas rejects [%u32] here).
  const size_t before = b.kernel().insts.size();
  b.tcgen05_mma(Addr::at(t, 32), d, d, t, p);
  CHECK(last(b) == "tcgen05.mma.cta_group::1.kind::f16 [%t_b32+32], %d, %d, %t, %acc;");
  REQUIRE(b.kernel().insts.size() == before + 2);
  const ir::Kernel& k = b.kernel();
  CHECK(ptx::format_instruction(k, ptx::register_names(k), k.insts[before]) == "mov.b32 %t_b32, %t;");
  b.tcgen05_commit(slot.at());
  CHECK(last(b) == "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [gs_smem];");
  b.tcgen05_commit(slot.at(), CtaGroup::two);
  CHECK(last(b) == "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [gs_smem];");
  Reg mask = b.mov(Type::b16, 3, "mask");
  b.tcgen05_commit_multicast(slot.at(), mask, CtaGroup::two);
  CHECK(last(b) ==
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [gs_smem], %mask;");
  b.tcgen05_fence_before_thread_sync();
  CHECK(last(b) == "tcgen05.fence::before_thread_sync;");
  b.tcgen05_fence_after_thread_sync();
  CHECK(last(b) == "tcgen05.fence::after_thread_sync;");
}

TEST_CASE("golden: tcgen05 ld/st and the two descriptors", "[builder][ptx][tcgen05]") {
  Builder b("golden", ir::Arch::sm_100a);
  Reg t = b.mov(Type::u32, 0, "t");
  std::vector<Reg> v = b.tcgen05_ld_32x32b(2, Addr::at(t, 8), "v");
  CHECK(last(b) == "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%v0, %v1}, [%t+8];");
  b.tcgen05_wait_ld();
  CHECK(last(b) == "tcgen05.wait::ld.sync.aligned;");
  b.tcgen05_st_32x32b(Addr::at(t), v);
  CHECK(last(b) == "tcgen05.st.sync.aligned.32x32b.x2.b32 [%t], {%v0, %v1};");
  b.tcgen05_wait_st();
  CHECK(last(b) == "tcgen05.wait::st.sync.aligned;");
  // The facts §9.2 example: bf16 x bf16 -> f32, M=128, N=256, both K-major.
  b.tmem_instr_descriptor({.m = 128, .n = 256}, "idesc");
  CHECK(last(b) == "mov.b32 %idesc, 0x8400490;");
  CHECK_THAT(b.kernel().insts.back().comment, Catch::Contains("bf16 x bf16 -> f32, M=128 N=256"));
  // K-major SW128 tile: version bit 46 and layout code 2 at bits 61-63 (sm_90 would be 1 << 62).
  b.umma_descriptor(t, layout::umma_descriptor_from(layout::kmajor_tile_descriptor(0, layout::Swizzle::b128)), "desc");
  CHECK(last(b) == "or.b64 %desc, %desc_start, 0x4000404000010000;");
  CHECK_THAT(b.kernel().insts.back().comment, Catch::Contains("layout=128B"));
}

TEST_CASE("tcgen05 builder: bad counts and shapes are refused with the rule", "[builder][tcgen05]") {
  Builder b("bad", ir::Arch::sm_100a);
  Smem slot = b.shared("slot", 4, 16, ir::SmemUse::other);
  Reg t = b.mov(Type::u32, 0, "t");
  CHECK_THROWS_WITH(b.tcgen05_alloc(slot.at(), 48), Catch::Contains("tcgen05.alloc of 48 columns") &&
                                                      Catch::Contains("power of two of columns from 32 to 512"));
  CHECK_THROWS_WITH(b.tcgen05_alloc(slot.at(), 16), Catch::Contains("of 16 columns"));
  CHECK_THROWS_WITH(b.tcgen05_alloc(slot.at(), 1024), Catch::Contains("of 1024 columns"));
  CHECK_THROWS_WITH(b.tcgen05_dealloc(t, 96), Catch::Contains("tcgen05.dealloc of 96 columns"));
  CHECK_NOTHROW(b.tcgen05_alloc(slot.at(), t));  // a register count is the model's to check
  CHECK_THROWS_WITH(b.tcgen05_ld_32x32b(3, Addr::at(t)), Catch::Contains("x3: the repeat count is a power of two"));
  CHECK_THROWS_WITH(b.tcgen05_ld_32x32b(256, Addr::at(t)), Catch::Contains("x256"));
  CHECK_THROWS_WITH(b.tcgen05_st_32x32b(Addr::at(t), {}), Catch::Contains("tcgen05.st.32x32b.x0"));
  CHECK_THROWS_WITH(b.tmem_instr_descriptor({.m = 96, .n = 128}, "i"), Catch::Contains("M=96"));
  CHECK_THROWS_WITH(b.tmem_instr_descriptor({.m = 128, .n = 260}, "i"), Catch::Contains("N=260"));
}

TEST_CASE("tcgen05 builder: ptxas -arch=sm_100a accepts every method, per CTA group", "[builder][ptxas][tcgen05]") {
  for (CtaGroup group : {CtaGroup::one, CtaGroup::two}) {
    const ir::Kernel k = every_method(group);
    INFO(ir::verify_problems(k).size() << " verify problems");
    REQUIRE_NOTHROW(ir::verify(k));
    test::check_assembles(ptx::emit(k).text, ir::Arch::sm_100a, k.name);
  }
}
