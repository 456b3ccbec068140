#include "engine/ir/signature.hpp"

#include <array>
#include <string>
#include <vector>

namespace gs::ir {

namespace {

struct SignatureTable {
  std::array<std::string_view, size_t(Signature::count_)> names{};
  std::array<std::vector<FieldInfo>, size_t(Signature::count_)> fields{};
};

const SignatureTable& table() {
  static const SignatureTable t = [] {
    SignatureTable s;
    std::vector<FieldInfo>* current = nullptr;
#define SIG_BEGIN(name)                                     \
  s.names[size_t(Signature::name)] = #name;                 \
  current = &s.fields[size_t(Signature::name)];
#define FIELD(role, kind, type, count) \
  current->push_back({#role, FieldKind::kind, TypeRule::type, FieldCount::count});
#define SIG_END(name)
#include "engine/ir/signatures.def"
#undef SIG_BEGIN
#undef FIELD
#undef SIG_END
    (void)current;
    return s;
  }();
  return t;
}

}  // namespace

std::string_view signature_name(Signature s) { return table().names.at(size_t(s)); }

std::span<const FieldInfo> signature_fields(Signature s) { return table().fields.at(size_t(s)); }

size_t field_count(const FieldInfo& f, const Inst& in, size_t remaining) {
  switch (f.count) {
    case FieldCount::one: return 1;
    case FieldCount::opt: return remaining > 0 ? 1 : 0;
    case FieldCount::vec: return in.vec;
    case FieldCount::aux: return in.aux;
    case FieldCount::aux_half: return in.aux / 2;
    case FieldCount::four: return 4;
    case FieldCount::two: return 2;
  }
  return 0;
}

Type field_type(TypeRule rule, const Inst& in) {
  switch (rule) {
    case TypeRule::any: return Type::none;
    case TypeRule::inst: return in.type;
    case TypeRule::inst2: return in.type2;
    case TypeRule::wide: return in.type == Type::s32 ? Type::s64 : Type::u64;
    case TypeRule::pred: return Type::pred;
    case TypeRule::b32: return Type::b32;
    case TypeRule::b64: return Type::b64;
    case TypeRule::u32: return Type::u32;
    case TypeRule::u64: return Type::u64;
    case TypeRule::f32: return Type::f32;
    case TypeRule::b128: return Type::b128;
  }
  return Type::none;
}

size_t signature_dst_count(Signature s, const Inst& in) {
  size_t n = 0;
  for (const FieldInfo& f : signature_fields(s)) {
    if (f.kind != FieldKind::dst) break;
    n += field_count(f, in, 1);
  }
  return n;
}

std::vector<std::span<const Operand>> field_operands(const Inst& in) {
  std::vector<std::span<const Operand>> out;
  size_t at = 0;
  for (const FieldInfo& f : signature_fields(in.info().signature)) {
    const size_t n = field_count(f, in, in.operands.size() - std::min(at, in.operands.size()));
    if (at + n > in.operands.size())
      throw SignatureError(std::string(in.info().id) + ": operand '" + std::string(f.role) + "' is missing");
    out.push_back(std::span<const Operand>(in.operands).subspan(at, n));
    at += n;
  }
  if (at != in.operands.size())
    throw SignatureError(std::string(in.info().id) + ": " + std::to_string(in.operands.size() - at) +
                         " operand(s) more than its signature has");
  return out;
}

}  // namespace gs::ir
