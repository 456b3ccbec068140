#include "engine/ir/types.hpp"

#include <array>

namespace gs::ir {

namespace {
struct TypeRow {
  Type type;
  std::string_view name;
  TypeClass cls;
  uint32_t bits;
  Type reg;
};
// One row per Type, in enum order.
constexpr std::array<TypeRow, 21> kTypes{{
    {Type::none, "", TypeClass::none, 0, Type::none},
    {Type::pred, "pred", TypeClass::pred, 1, Type::pred},
    {Type::b8, "b8", TypeClass::bits, 8, Type::b16},
    {Type::b16, "b16", TypeClass::bits, 16, Type::b16},
    {Type::b32, "b32", TypeClass::bits, 32, Type::b32},
    {Type::b64, "b64", TypeClass::bits, 64, Type::b64},
    {Type::u8, "u8", TypeClass::unsigned_int, 8, Type::u16},
    {Type::u16, "u16", TypeClass::unsigned_int, 16, Type::u16},
    {Type::u32, "u32", TypeClass::unsigned_int, 32, Type::u32},
    {Type::u64, "u64", TypeClass::unsigned_int, 64, Type::u64},
    {Type::s8, "s8", TypeClass::signed_int, 8, Type::s16},
    {Type::s16, "s16", TypeClass::signed_int, 16, Type::s16},
    {Type::s32, "s32", TypeClass::signed_int, 32, Type::s32},
    {Type::s64, "s64", TypeClass::signed_int, 64, Type::s64},
    {Type::f16, "f16", TypeClass::floating, 16, Type::b16},
    {Type::bf16, "bf16", TypeClass::floating, 16, Type::b16},
    {Type::f16x2, "f16x2", TypeClass::floating, 32, Type::b32},
    {Type::bf16x2, "bf16x2", TypeClass::floating, 32, Type::b32},
    {Type::f32, "f32", TypeClass::floating, 32, Type::f32},
    {Type::f64, "f64", TypeClass::floating, 64, Type::f64},
    {Type::b128, "b128", TypeClass::bits, 128, Type::b128},
}};
const TypeRow& row(Type t) { return kTypes[size_t(t)]; }

struct SpecialRow {
  std::string_view name;
  Type type;
  ArchMask archs;
};
constexpr std::array<SpecialRow, size_t(Special::count_)> kSpecials{{
    {"%tid.x", Type::u32, kAllArchs},          {"%tid.y", Type::u32, kAllArchs},
    {"%tid.z", Type::u32, kAllArchs},          {"%ntid.x", Type::u32, kAllArchs},
    {"%ntid.y", Type::u32, kAllArchs},         {"%ntid.z", Type::u32, kAllArchs},
    {"%ctaid.x", Type::u32, kAllArchs},        {"%ctaid.y", Type::u32, kAllArchs},
    {"%ctaid.z", Type::u32, kAllArchs},        {"%nctaid.x", Type::u32, kAllArchs},
    {"%nctaid.y", Type::u32, kAllArchs},       {"%nctaid.z", Type::u32, kAllArchs},
    {"%laneid", Type::u32, kAllArchs},         {"%warpid", Type::u32, kAllArchs},
    {"%smid", Type::u32, kAllArchs},           {"%clock", Type::u32, kAllArchs},
    {"%clock64", Type::u64, kAllArchs},        {"%cluster_ctarank", Type::u32, kSm90Up},
    {"%cluster_nctarank", Type::u32, kSm90Up}, {"%cluster_ctaid.x", Type::u32, kSm90Up},
    {"%cluster_ctaid.y", Type::u32, kSm90Up},  {"%cluster_ctaid.z", Type::u32, kSm90Up},
    {"%clusterid.x", Type::u32, kSm90Up},      {"%clusterid.y", Type::u32, kSm90Up},
    {"%clusterid.z", Type::u32, kSm90Up},      {"%dynamic_smem_size", Type::u32, kAllArchs},
    {"%globaltimer", Type::u64, kAllArchs},
}};
}  // namespace

std::string_view type_name(Type t) { return row(t).name; }
TypeClass type_class(Type t) { return row(t).cls; }
uint32_t type_bits(Type t) { return row(t).bits; }
Type register_type(Type t) { return row(t).reg; }

bool register_fits(Type reg, Type inst) {
  if (inst == Type::none) return true;
  const TypeClass rc = type_class(reg), ic = type_class(inst);
  if (rc == TypeClass::pred || ic == TypeClass::pred) return rc == ic;
  // 8-bit values live in 16-bit registers (PTX has no 8-bit registers).
  const uint32_t ib = type_bits(inst) == 8 ? 16 : type_bits(inst);
  if (type_bits(reg) != ib) return false;
  if (ic == TypeClass::bits || rc == TypeClass::bits) return true;
  if (ic == TypeClass::floating || rc == TypeClass::floating) return ic == rc;
  return true;  // signed and unsigned integers of one size mix freely
}

std::string_view arch_name(Arch a) {
  switch (a) {
    case Arch::sm_80: return "sm_80";
    case Arch::sm_90: return "sm_90";
    case Arch::sm_90a: return "sm_90a";
    case Arch::sm_100a: return "sm_100a";
  }
  return "?";
}

std::optional<Arch> parse_arch(std::string_view s) {
  for (Arch a : {Arch::sm_80, Arch::sm_90, Arch::sm_90a, Arch::sm_100a})
    if (arch_name(a) == s) return a;
  return std::nullopt;
}

uint32_t arch_min_ptx(Arch a) {
  switch (a) {
    case Arch::sm_80: return 70;
    case Arch::sm_90: return 78;
    case Arch::sm_90a: return 80;   // wgmma, setmaxnreg, .tensormap need 8.0 (facts §0)
    case Arch::sm_100a: return 86;  // tcgen05 needs 8.6 (facts §0)
  }
  return 80;
}

std::string_view special_name(Special s) { return kSpecials[size_t(s)].name; }
Type special_type(Special s) { return kSpecials[size_t(s)].type; }
ArchMask special_archs(Special s) { return kSpecials[size_t(s)].archs; }

std::string_view cmp_name(CmpOp c) {
  constexpr std::array<std::string_view, 7> names{"", "eq", "ne", "lt", "le", "gt", "ge"};
  return names[size_t(c)];
}

std::string_view rounding_name(Rounding r) {
  constexpr std::array<std::string_view, 9> names{"", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"};
  return names[size_t(r)];
}

}  // namespace gs::ir
