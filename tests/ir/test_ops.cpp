// The op table is the single source of truth: check it is complete and consistent.
#include <set>

#include <catch2/catch.hpp>

#include "engine/ir/ops.hpp"

using namespace gs::ir;

TEST_CASE("op table: one row per op, unique ids, spellings and targets", "[ir][ops]") {
  std::set<std::string_view> ids;
  for (const OpInfo& info : all_ops()) {
    CHECK(ids.insert(info.id).second);
    CHECK(op_info(info.op).id == info.id);
    CHECK(find_op(info.id) == info.op);
    CHECK(info.archs != 0);
    CHECK(info.min_ptx >= 10);
    CHECK(!info.summary.empty());
    if (info.op != Op::label) CHECK(!info.spelling.empty());
    if (info.syntax == Syntax::wgmma || info.syntax == Syntax::tensor_load || info.syntax == Syntax::ldmatrix)
      CHECK(info.spelling.find("{n}") != std::string_view::npos);
  }
  CHECK(ids.size() == size_t(Op::count_));
  CHECK(!find_op("no_such_op").has_value());
}

TEST_CASE("op table: Hopper-only and Blackwell-only ops are gated", "[ir][ops]") {
  CHECK(op_info(Op::wgmma_mma_async).archs == arch_bit(Arch::sm_90a));
  CHECK_FALSE(op_info(Op::cp_async_bulk_tensor_load).archs & arch_bit(Arch::sm_80));
  CHECK(op_info(Op::tcgen05_mma).archs == arch_bit(Arch::sm_100a));
  CHECK(op_info(Op::tcgen05_mma).min_ptx == 86);
  CHECK(op_info(Op::add).archs == kAllArchs);
}

TEST_CASE("types: register classes and relaxed operand typing", "[ir][types]") {
  CHECK(register_type(Type::bf16) == Type::b16);
  CHECK(register_type(Type::bf16x2) == Type::b32);
  CHECK(register_fits(Type::u32, Type::b32));
  CHECK(register_fits(Type::s32, Type::u32));
  CHECK(register_fits(Type::b64, Type::u64));
  CHECK(register_fits(Type::f32, Type::b32));
  CHECK_FALSE(register_fits(Type::f32, Type::u32));
  CHECK_FALSE(register_fits(Type::u64, Type::u32));
  CHECK_FALSE(register_fits(Type::pred, Type::b32));
  CHECK(parse_arch("sm_90a") == Arch::sm_90a);
  CHECK_FALSE(parse_arch("sm_91").has_value());
  CHECK(arch_min_ptx(Arch::sm_100a) == 86);
}
