// Operand signatures (signatures.def): what each operand of an instruction is, by role.
//
// Every ops.def row names a signature. From the table come
//   * accessors by role, e.g. `wgmma_operands_of(inst).a_desc` or `load_operands_of(inst).d`
//     (a span of the vec destinations), used by the printer, the model and the views instead
//     of operand positions; `.a_desc_at` is the field's index in Inst::operands, for code
//     that resolves operands by index (the model's Sources);
//   * the run-time description (signature_fields) that verify() checks every instruction
//     against: operand count, kinds and register types per field.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "engine/ir/kernel.hpp"

namespace gs::ir {

// enum class Signature is generated in ops.hpp (every OpInfo names one).
std::string_view signature_name(Signature s);

// What may stand in a field (see signatures.def).
enum class FieldKind : uint8_t { dst, src, reg, imm, addr, label };
// The register type the field's register operands must fit.
enum class TypeRule : uint8_t { any, inst, inst2, wide, pred, b32, b64, u32, u64, f32, b128 };
// How many operands the field has.
enum class FieldCount : uint8_t { one, opt, vec, aux, aux_half, four, two };

struct FieldInfo {
  std::string_view role;
  FieldKind kind;
  TypeRule type;
  FieldCount count;
};

// The fields of a signature, in operand order.
std::span<const FieldInfo> signature_fields(Signature s);
// The number of operands a field has in this instruction (opt: 0 or 1, from the operand count).
size_t field_count(const FieldInfo& f, const Inst& in, size_t remaining);
// The register type a field's operands must fit in this instruction (Type::none: any).
Type field_type(TypeRule rule, const Inst& in);
// The number of leading operands a signature writes (the dst fields, which come first).
size_t signature_dst_count(Signature s, const Inst& in);

// The operands of each field of the instruction's signature, in field order (for code that
// treats fields generically, like the printer). Throws SignatureError when they do not fit.
std::vector<std::span<const Operand>> field_operands(const Inst& in);

// Thrown by an accessor whose instruction does not have the signature's shape (verify()
// catches every such instruction first; this guards code that reads unverified IR).
class SignatureError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {
template <FieldCount C>
struct FieldValue {
  using type = std::span<const Operand>;
};
template <>
struct FieldValue<FieldCount::one> {
  using type = Operand;
};
template <>
struct FieldValue<FieldCount::opt> {
  using type = std::optional<Operand>;
};

// Takes the next field's operands from `in`, advancing `at`.
template <FieldCount C>
typename FieldValue<C>::type take(const Inst& in, size_t& at, const FieldInfo& f) {
  const size_t n = field_count(f, in, in.operands.size() - std::min(at, in.operands.size()));
  if (at + n > in.operands.size())
    throw SignatureError(std::string(in.info().id) + ": operand '" + std::string(f.role) + "' is missing");
  const size_t first = at;
  at += n;
  if constexpr (C == FieldCount::one) {
    return in.operands[first];
  } else if constexpr (C == FieldCount::opt) {
    return n ? std::optional<Operand>(in.operands[first]) : std::nullopt;
  } else {
    return std::span<const Operand>(in.operands).subspan(first, n);
  }
}
}  // namespace detail

// ---- generated: one struct and one accessor per signature ----------------------------------
#define SIG_BEGIN(name) struct name##_operands {
#define FIELD(role, kind_, type_, count_)            \
  detail::FieldValue<FieldCount::count_>::type role{}; \
  size_t role##_at = 0; /* index of the field's first operand in Inst::operands */
#define SIG_END(name) };
#include "engine/ir/signatures.def"
#undef SIG_BEGIN
#undef FIELD
#undef SIG_END

#define SIG_BEGIN(name)                                                 \
  inline name##_operands name##_operands_of(const Inst& in) {           \
    const std::span<const FieldInfo> fields = signature_fields(Signature::name); \
    name##_operands r;                                                  \
    size_t at = 0, field = 0;                                           \
    (void)fields;                                                       \
    (void)at;                                                           \
    (void)field;
#define FIELD(role, kind_, type_, count_) \
  r.role##_at = at;                       \
  r.role = detail::take<FieldCount::count_>(in, at, fields[field++]);
#define SIG_END(name) \
  return r;           \
  }
#include "engine/ir/signatures.def"
#undef SIG_BEGIN
#undef FIELD
#undef SIG_END

}  // namespace gs::ir
