// verify(): each rule is broken once on purpose and the message must say what is wrong.
#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "engine/ir/verify.hpp"

using namespace gs;
using namespace gs::builder;
using ir::Type;

namespace {
Builder small(ir::Arch arch = ir::Arch::sm_90a, uint32_t threads = 128) {
  Builder b("k", arch);
  b.set_launch({.grid = {1, 1, 1}, .block = {threads, 1, 1}});
  return b;
}
std::string problems_of(const ir::Kernel& k) {
  std::string all;
  for (const ir::Problem& p : ir::verify_problems(k)) all += p.message + "\n";
  return all;
}
}  // namespace

TEST_CASE("verify accepts a well-formed kernel", "[ir][verify]") {
  Builder b = small();
  Reg x = b.mov(Type::u32, 1, "x");
  (void)(x + 1);
  b.ret();
  const ir::Kernel k = b.finish();
  CHECK(ir::verify_problems(k).empty());
  CHECK_NOTHROW(ir::verify(k));
}

TEST_CASE("verify: a register read before it is written", "[ir][verify]") {
  Builder b = small();
  Reg x = b.reg(Type::u32, "x");
  (void)(x + 1);
  b.ret();
  const ir::Kernel k = b.finish();
  CHECK_THAT(problems_of(k), Catch::Contains("instruction 0 (add %t0 %x): %x is read before any instruction writes it"));
  CHECK_THROWS_AS(ir::verify(k), ir::VerifyError);
}

TEST_CASE("verify: operand types must fit the instruction type", "[ir][verify]") {
  Builder b = small();
  Reg x = b.mov(Type::u32, 1, "x");
  Reg f = b.mov(Type::f32, 1.0, "f");
  b.alu(ir::Op::add, Type::u32, {x, f}, "bad");
  Reg wide = b.mov(Type::u64, 1, "wide");
  b.alu(ir::Op::add, Type::u32, {x, wide}, "bad2");
  b.ret();
  const std::string p = problems_of(b.finish());
  CHECK_THAT(p, Catch::Contains("operand 2 is %f of type .f32, which does not fit .u32"));
  CHECK_THAT(p, Catch::Contains("operand 2 is %wide of type .u64, which does not fit .u32"));
}

TEST_CASE("verify: ops gated by target", "[ir][verify]") {
  Builder b = small(ir::Arch::sm_80);
  b.wgmma_fence();
  b.fence_proxy_async();
  b.special(ir::Special::cluster_ctarank, "rank");
  b.ret();
  const std::string p = problems_of(b.finish());
  CHECK_THAT(p, Catch::Contains("wgmma_fence is not available on sm_80: it needs sm_90a"));
  CHECK_THAT(p, Catch::Contains("fence_proxy_async is not available on sm_80: it needs sm_90, sm_90a, sm_100a"));
  CHECK_THAT(p, Catch::Contains("%cluster_ctarank needs sm_90 or later"));
}

TEST_CASE("verify: labels and the end of the kernel", "[ir][verify]") {
  Builder b = small();
  auto l = b.label("L_nowhere");
  b.bra(l);
  auto twice = b.label("L_twice");
  b.bind(twice);
  b.bind(twice);
  b.mov(Type::u32, 1, "x");
  const std::string p = problems_of(b.finish());
  CHECK_THAT(p, Catch::Contains("branch target L_nowhere is never bound"));
  CHECK_THAT(p, Catch::Contains("label L_twice is bound 2 times"));
  CHECK_THAT(p, Catch::Contains("the kernel must end with ret"));
}

TEST_CASE("verify: shared-memory budget and alignment", "[ir][verify]") {
  Builder b = small();
  b.shared("pad", 16, 16, ir::SmemUse::other);
  b.shared("big", 64 * 1024, 16, ir::SmemUse::other);
  b.ret();
  CHECK_THAT(problems_of(b.finish()),
             Catch::Contains("shared memory of 65552 B exceeds the static limit of 49152 B: use dynamic shared memory"));

  Builder d = small();
  d.use_dynamic_smem();
  d.shared("big", 240 * 1024, 16, ir::SmemUse::other);
  d.ret();
  CHECK_THAT(problems_of(d.finish()), Catch::Contains("exceeds the dynamic limit of 232448 B"));

  Builder a = small();
  a.shared("pad", 16, 16, ir::SmemUse::other);
  a.shared("tile", 8192, 128, ir::SmemUse::tile, layout::Swizzle::b128);
  a.ret();
  CHECK_THAT(problems_of(a.finish()),
             Catch::Contains("shared allocation 'tile' (a tile with 128B swizzle) must be 1024-byte aligned, is aligned to 128 B"));
}

TEST_CASE("verify: out-of-range shared offsets, launch shape, warpgroups", "[ir][verify]") {
  Builder b = small(ir::Arch::sm_90a, 96);
  auto bar = b.shared("bar", 8, 8, ir::SmemUse::mbarrier);
  b.mbarrier_init(bar.at(8), 1);
  Reg d = b.mov(Type::b64, 0, "desc");
  std::vector<Reg> acc;
  for (int i = 0; i < 4; ++i) acc.push_back(b.reg(Type::f32, "acc" + std::to_string(i)));
  b.wgmma_mma_async(8, acc, d, d, 0);
  b.bar_sync(16);
  b.ret();
  const std::string p = problems_of(b.finish());
  CHECK_THAT(p, Catch::Contains("offset 8 is outside shared allocation 'bar' of 8 B"));
  CHECK_THAT(p, Catch::Contains("wgmma is issued by warpgroups of 128 threads; the block has 96 threads"));
  CHECK_THAT(p, Catch::Contains("barrier id 16 is out of range 0..15"));

  Builder g("k", ir::Arch::sm_90a);
  g.set_launch({.grid = {3, 1, 1}, .block = {2048, 1, 1}, .cluster = {2, 1, 1}});
  g.ret();
  const std::string q = problems_of(g.finish());
  CHECK_THAT(q, Catch::Contains("block of 2048 threads: a CTA has 1 to 1024 threads"));
  CHECK_THAT(q, Catch::Contains("grid dimension 0 (3) is not a multiple of the cluster dimension (2)"));
}

TEST_CASE("verify: a bad tensor-map box names the field", "[ir][verify]") {
  Builder b = small();
  ir::TensorMapDesc d;
  d.source = ir::ParamRole::a;
  d.box_dim = {128, 64, 1, 1, 1};  // 256 B rows: too wide for the 128B swizzle
  d.swizzle = layout::Swizzle::b128;
  b.tensor_map_param("tmap_A", d);
  b.ret();
  CHECK_THAT(problems_of(b.finish()), Catch::Contains("tensor map 'tmap_A'") && Catch::Contains("128"));
}
