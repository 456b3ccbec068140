// Operand signatures (signatures.def): verify() checks every instruction against its op's
// signature, the builder derives what an instruction writes from it, and code reads operands
// by role through the generated accessors.
#include <catch2/catch.hpp>

#include <string>

#include "engine/builder/builder.hpp"
#include "engine/ir/signature.hpp"
#include "engine/ir/verify.hpp"

using namespace gs;
using builder::Addr;
using builder::Builder;
using builder::Reg;

namespace {

std::string problems_of(const ir::Kernel& k) {
  std::string s;
  for (const ir::Problem& p : ir::verify_problems(k)) s += p.message + "\n";
  return s;
}

}  // namespace

TEST_CASE("every op names a signature whose fields are well formed", "[ir][signature]") {
  for (const ir::OpInfo& info : ir::all_ops()) {
    INFO(info.id);
    const auto fields = ir::signature_fields(info.signature);
    bool seen_non_dst = false;
    for (size_t i = 0; i < fields.size(); ++i) {
      // dst fields come first (the builder's ndst counts them), opt fields come last.
      if (fields[i].kind != ir::FieldKind::dst) seen_non_dst = true;
      CHECK_FALSE((fields[i].kind == ir::FieldKind::dst && seen_non_dst));
      if (fields[i].count == ir::FieldCount::opt) CHECK(i + 1 == fields.size());
      CHECK(!fields[i].role.empty());
    }
    CHECK(!ir::signature_name(info.signature).empty());
  }
}

TEST_CASE("accessors read wgmma and TMA operands by role", "[ir][signature]") {
  Builder b("roles", ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {128, 1, 1}});
  auto tile = b.shared("tile", 2048, 1024, ir::SmemUse::tile);
  auto bar = b.mbarriers("full", ir::BarrierRole::full, 1);
  auto tmap = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, 64, 64, 64, 16, layout::Swizzle::b128));
  Reg addr = b.smem_address(tile, 0, "addr");
  Reg ad = b.wgmma_descriptor(addr, layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "a_desc");
  Reg bd = b.wgmma_descriptor(addr, layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "b_desc");
  Reg tm = b.tensor_map_address(tmap, "tm");
  Reg x = b.mov(ir::Type::u32, 0, "x");
  b.mbarrier_init(bar.at(), 1);
  b.cp_async_bulk_tensor_load(tile.at(), tm, {x, x}, bar.at());
  std::vector<Reg> acc;
  for (int v = 0; v < 8; ++v) acc.push_back(b.mov(ir::Type::f32, 0.0, "acc"));
  b.wgmma_fence();
  b.wgmma_mma_async(16, acc, ad, bd, 1, 1, 1, 0, 1);
  b.ret();
  const ir::Kernel k = b.finish();
  const ir::Inst* w = nullptr;
  const ir::Inst* t = nullptr;
  for (const ir::Inst& in : k.insts) {
    if (in.op == ir::Op::wgmma_mma_async) w = &in;
    if (in.op == ir::Op::cp_async_bulk_tensor_load) t = &in;
  }
  REQUIRE(w);
  REQUIRE(t);
  const ir::wgmma_operands wo = ir::wgmma_operands_of(*w);
  CHECK(wo.d.size() == 8);
  CHECK(wo.d[3].id == acc[3].id());
  CHECK(wo.a_desc.id == ad.id());
  CHECK(wo.b_desc.id == bd.id());
  CHECK(wo.a_desc_at == 8);
  CHECK(wo.trans_a.imm == 0);
  CHECK(wo.trans_b.imm == 1);
  CHECK(w->ndst == 8);  // the builder takes ndst from the signature's dst fields
  const ir::tensor_load_operands to = ir::tensor_load_operands_of(*t);
  CHECK(to.map.id == tm.id());
  CHECK(to.coords.size() == 2);
  CHECK(to.coords_at == 2);
  CHECK(to.bar.kind == ir::OperandKind::mem_smem);
  CHECK(ir::field_operands(*w).size() == ir::signature_fields(ir::Signature::wgmma).size());
  CHECK(problems_of(k).empty());
}

TEST_CASE("verify reports an instruction that does not fit its signature, by role", "[ir][signature]") {
  Builder b("bad", ir::Arch::sm_90);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto bar = b.mbarriers("full", ir::BarrierRole::full, 1);
  Reg x = b.mov(ir::Type::u32, 1, "x");
  b.mbarrier_init(bar.at(), 1);
  b.ret();
  ir::Kernel k = b.finish();
  REQUIRE(problems_of(k).empty());

  SECTION("an operand too many") {
    for (ir::Inst& in : k.insts)
      if (in.op == ir::Op::mbarrier_init) in.operands.push_back(ir::Operand::integer(3));
    const std::string p = problems_of(k);
    CHECK_THAT(p, Catch::Contains("mbarrier_init takes 2 operands (bar, count"));
    CHECK_THAT(p, Catch::Contains("has 3"));
  }
  SECTION("a register where the field takes a memory operand") {
    for (ir::Inst& in : k.insts)
      if (in.op == ir::Op::mbarrier_init) in.operands[0] = ir::Operand::reg(x.id());
    CHECK_THAT(problems_of(k), Catch::Contains("operand 0 ('bar' of mbar_init) is a register, but the field takes a memory operand"));
  }
  SECTION("a hand-made instruction whose ndst disagrees with the signature") {
    for (ir::Inst& in : k.insts)
      if (in.op == ir::Op::mov) in.ndst = 0;
    CHECK_THAT(problems_of(k), Catch::Contains("writes its first 1 operand(s), but the instruction says ndst = 0"));
  }
}
