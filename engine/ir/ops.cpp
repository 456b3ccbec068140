#include "engine/ir/ops.hpp"

#include <array>

namespace gs::ir {

namespace {
constexpr std::array<OpInfo, size_t(Op::count_)> kOps{{
#define OP(id_, spelling_, syntax_, signature_, family_, exec_, archs_, min_ptx_, flags_, summary_)             \
  OpInfo{Op::id_, #id_, spelling_, Syntax::syntax_, Signature::signature_, Family::family_, \
         std::string_view(#exec_) != "not_modelled", archs_, min_ptx_, uint16_t(flags_), summary_},
#include "engine/ir/ops.def"
#undef OP
}};

// The table is indexed by the enum: check the generated order once, at compile time.
constexpr bool table_in_enum_order() {
  for (size_t i = 0; i < kOps.size(); ++i)
    if (size_t(kOps[i].op) != i) return false;
  return true;
}
static_assert(table_in_enum_order(), "ops.def rows must generate the table in enum order");
}  // namespace

const OpInfo& op_info(Op op) { return kOps[size_t(op)]; }
std::span<const OpInfo> all_ops() { return kOps; }

std::optional<Op> find_op(std::string_view id) {
  for (const OpInfo& info : kOps)
    if (info.id == id) return info.op;
  return std::nullopt;
}

std::string_view family_name(Family f) {
  constexpr std::array<std::string_view, 15> names{
      "alu",  "convert", "memory", "control",  "barrier", "fence",   "mbarrier", "tma",
      "wgmma", "mma",    "ldmatrix", "cp_async", "cluster", "misc", "tcgen05"};
  return names[size_t(f)];
}

}  // namespace gs::ir
