// exec_alu / exec_convert: integer, floating-point and predicate arithmetic and conversions.
// Each instruction resolves its sources once (a register's 32 lanes or one broadcast value),
// then runs one tight loop over the active lanes.
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "engine/model/machine.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

using ir::Op;
using ir::Type;
using ir::TypeClass;

namespace {

template <class F>
inline void each_lane(uint32_t mask, F&& f) {
  if (mask == 0xFFFFFFFFu) {  // the common, converged case: a plain loop the compiler can unroll
    for (uint32_t l = 0; l < 32; ++l) f(l);
    return;
  }
  while (mask) {
    const uint32_t l = uint32_t(std::countr_zero(mask));
    mask &= mask - 1;
    f(l);
  }
}

template <class T>
bool compare_values(ir::CmpOp c, T x, T y) {
  switch (c) {
    case ir::CmpOp::eq: return x == y;
    case ir::CmpOp::ne: return x != y;  // for floats: ordered, so NaN compares false (below)
    case ir::CmpOp::lt: return x < y;
    case ir::CmpOp::le: return x <= y;
    case ir::CmpOp::gt: return x > y;
    case ir::CmpOp::ge: return x >= y;
    case ir::CmpOp::none: return false;
  }
  return false;
}

bool compare(ir::CmpOp c, Type t, uint64_t a, uint64_t b) {
  const uint32_t bits = ir::type_bits(t);
  switch (ir::type_class(t)) {
    case TypeClass::floating: {
      const double x = bits == 64 ? as_f64(a) : double(as_f32(a));
      const double y = bits == 64 ? as_f64(b) : double(as_f32(b));
      if (std::isnan(x) || std::isnan(y)) return false;  // PTX's plain comparisons are ordered
      return compare_values(c, x, y);
    }
    case TypeClass::signed_int: return compare_values(c, sign_extend(a, bits), sign_extend(b, bits));
    default: return compare_values(c, mask_to_bits(a, bits), mask_to_bits(b, bits));
  }
}

// One binary/ternary operation on raw bits of type t.
uint64_t arith(Op op, Type t, uint64_t a, uint64_t b, uint64_t c) {
  const uint32_t bits = std::max<uint32_t>(ir::type_bits(t), 1);
  const TypeClass cls = ir::type_class(t);
  if (cls == TypeClass::floating) {
    if (bits == 64) {
      const double x = as_f64(a), y = as_f64(b), z = as_f64(c);
      switch (op) {
        case Op::add: return from_f64(x + y);
        case Op::sub: return from_f64(x - y);
        case Op::mul: return from_f64(x * y);
        case Op::fma: return from_f64(std::fma(x, y, z));
        case Op::min: return from_f64(std::fmin(x, y));
        case Op::max: return from_f64(std::fmax(x, y));
        case Op::neg: return from_f64(-x);
        default: break;
      }
    } else {
      const float x = as_f32(a), y = as_f32(b), z = as_f32(c);
      switch (op) {
        case Op::add: return from_f32(x + y);
        case Op::sub: return from_f32(x - y);
        case Op::mul: return from_f32(x * y);
        case Op::fma: return from_f32(std::fma(x, y, z));  // one rounding, like FFMA
        case Op::min: return from_f32(std::fmin(x, y));
        case Op::max: return from_f32(std::fmax(x, y));
        case Op::neg: return from_f32(-x);
        default: break;
      }
    }
  }
  const bool is_signed = cls == TypeClass::signed_int;
  switch (op) {
    case Op::add: return mask_to_bits(a + b, bits);
    case Op::sub: return mask_to_bits(a - b, bits);
    case Op::mul_lo: return mask_to_bits(a * b, bits);
    case Op::mad_lo: return mask_to_bits(a * b + c, bits);
    case Op::mul_hi:
      if (bits == 32) {
        if (is_signed) return mask_to_bits(uint64_t((sign_extend(a, 32) * sign_extend(b, 32)) >> 32), 32);
        return (mask_to_bits(a, 32) * mask_to_bits(b, 32)) >> 32;
      }
      return uint64_t((unsigned __int128)a * b >> 64);
    case Op::mul_wide:
      if (is_signed) return uint64_t(sign_extend(a, bits) * sign_extend(b, bits));
      return mask_to_bits(a, bits) * mask_to_bits(b, bits);
    case Op::mad_wide:
      if (is_signed) return uint64_t(sign_extend(a, bits) * sign_extend(b, bits)) + c;
      return mask_to_bits(a, bits) * mask_to_bits(b, bits) + c;
    case Op::div:
      if (mask_to_bits(b, bits) == 0) return mask_to_bits(~uint64_t(0), bits);
      if (is_signed) return mask_to_bits(uint64_t(sign_extend(a, bits) / sign_extend(b, bits)), bits);
      return mask_to_bits(a, bits) / mask_to_bits(b, bits);
    case Op::rem:
      if (mask_to_bits(b, bits) == 0) return mask_to_bits(a, bits);
      if (is_signed) return mask_to_bits(uint64_t(sign_extend(a, bits) % sign_extend(b, bits)), bits);
      return mask_to_bits(a, bits) % mask_to_bits(b, bits);
    case Op::min:
      if (is_signed) return mask_to_bits(uint64_t(std::min(sign_extend(a, bits), sign_extend(b, bits))), bits);
      return std::min(mask_to_bits(a, bits), mask_to_bits(b, bits));
    case Op::max:
      if (is_signed) return mask_to_bits(uint64_t(std::max(sign_extend(a, bits), sign_extend(b, bits))), bits);
      return std::max(mask_to_bits(a, bits), mask_to_bits(b, bits));
    case Op::neg: return mask_to_bits(uint64_t(0) - a, bits);
    case Op::and_: return a & b;
    case Op::or_: return a | b;
    case Op::xor_: return a ^ b;
    case Op::not_: return bits == 1 ? (a ^ 1) : mask_to_bits(~a, bits);
    case Op::shl: return mask_to_bits(b >= bits ? 0 : a << b, bits);
    case Op::shr:
      if (is_signed) return mask_to_bits(uint64_t(sign_extend(a, bits) >> std::min<uint64_t>(b, bits - 1)), bits);
      return b >= bits ? 0 : mask_to_bits(a, bits) >> b;
    default: return 0;
  }
}

// The hot 32-bit integer ops on register/immediate operands, without the generic operand
// machinery: the bulk of address arithmetic and loop control. Returns false when the
// instruction needs the general path.
bool exec_alu_fast(ExecContext& x) {
  const ir::Inst& in = x.inst;
  if (in.operands.size() != 3 || in.type == Type::pred || ir::type_bits(in.type) != 32 ||
      ir::type_class(in.type) == TypeClass::floating)
    return false;
  const ir::Operand& oa = in.operands[1];
  const ir::Operand& ob = in.operands[2];
  if (oa.kind != ir::OperandKind::reg || (ob.kind != ir::OperandKind::reg && ob.kind != ir::OperandKind::imm))
    return false;
  Cta& c = x.cta;
  const uint32_t mask = x.mask;
  check_register_read(x, oa.id, mask);
  const uint64_t* a = c.reg_lanes(x.warp.id, oa.id);
  uint64_t bimm[32];
  const uint64_t* b = bimm;
  if (ob.kind == ir::OperandKind::reg) {
    check_register_read(x, ob.id, mask);
    b = c.reg_lanes(x.warp.id, ob.id);
  } else {
    for (uint64_t& v : bimm) v = uint64_t(ob.imm);
  }
  const uint32_t dst = in.operands[0].id;
  uint64_t* d = c.reg_lanes(x.warp.id, dst);
  uint64_t r[32];
  const bool is_signed = ir::type_class(in.type) == TypeClass::signed_int;
  switch (in.op) {
    case Op::add: for (int l = 0; l < 32; ++l) r[l] = uint32_t(a[l] + b[l]); break;
    case Op::sub: for (int l = 0; l < 32; ++l) r[l] = uint32_t(a[l] - b[l]); break;
    case Op::mul_lo: for (int l = 0; l < 32; ++l) r[l] = uint32_t(a[l] * b[l]); break;
    case Op::and_: for (int l = 0; l < 32; ++l) r[l] = a[l] & b[l]; break;
    case Op::or_: for (int l = 0; l < 32; ++l) r[l] = a[l] | b[l]; break;
    case Op::xor_: for (int l = 0; l < 32; ++l) r[l] = a[l] ^ b[l]; break;
    case Op::shl: for (int l = 0; l < 32; ++l) r[l] = b[l] >= 32 ? 0 : uint32_t(a[l] << b[l]); break;
    case Op::shr:
      if (is_signed) return false;
      for (int l = 0; l < 32; ++l) r[l] = b[l] >= 32 ? 0 : uint32_t(a[l]) >> b[l];
      break;
    case Op::setp: {
      if (is_signed) return false;
      switch (in.cmp) {
        case ir::CmpOp::eq: for (int l = 0; l < 32; ++l) r[l] = uint32_t(a[l]) == uint32_t(b[l]); break;
        case ir::CmpOp::ne: for (int l = 0; l < 32; ++l) r[l] = uint32_t(a[l]) != uint32_t(b[l]); break;
        case ir::CmpOp::lt: for (int l = 0; l < 32; ++l) r[l] = uint32_t(a[l]) < uint32_t(b[l]); break;
        case ir::CmpOp::le: for (int l = 0; l < 32; ++l) r[l] = uint32_t(a[l]) <= uint32_t(b[l]); break;
        case ir::CmpOp::gt: for (int l = 0; l < 32; ++l) r[l] = uint32_t(a[l]) > uint32_t(b[l]); break;
        case ir::CmpOp::ge: for (int l = 0; l < 32; ++l) r[l] = uint32_t(a[l]) >= uint32_t(b[l]); break;
        default: return false;
      }
      break;
    }
    default: return false;
  }
  if (mask == 0xFFFFFFFFu) {
    for (int l = 0; l < 32; ++l) d[l] = r[l];
  } else {
    for (uint32_t m = mask; m; m &= m - 1) d[std::countr_zero(m)] = r[std::countr_zero(m)];
  }
  x.latency = timing::kAluLatency;
  note_register_write(x, dst, mask);
  return true;
}

}  // namespace

void exec_alu(ExecContext& x) {
  if (exec_alu_fast(x)) return;
  const ir::Inst& in = x.inst;
  Sources src(x);
  const uint32_t dst = in.operands[0].id;
  uint64_t* d = x.cta.reg_lanes(x.warp.id, dst);
  const uint32_t mask = x.mask;
  switch (in.op) {
    case Op::mov:
    case Op::cvta_to_global:
    case Op::cvta_param: {
      const uint32_t bits = ir::type_bits(in.type);
      each_lane(mask, [&](uint32_t l) { d[l] = mask_to_bits(src.get(1, l), bits); });
      break;
    }
    case Op::setp:
      each_lane(mask, [&](uint32_t l) { d[l] = compare(in.cmp, in.type, src.get(1, l), src.get(2, l)) ? 1 : 0; });
      break;
    case Op::selp:
      each_lane(mask, [&](uint32_t l) { d[l] = src.get(3, l) ? src.get(1, l) : src.get(2, l); });
      break;
    case Op::add:
      if (in.type == Type::u32 || in.type == Type::s32 || in.type == Type::b32) {
        each_lane(mask, [&](uint32_t l) { d[l] = uint32_t(src.get(1, l) + src.get(2, l)); });
      } else if (in.type == Type::u64 || in.type == Type::s64) {
        each_lane(mask, [&](uint32_t l) { d[l] = src.get(1, l) + src.get(2, l); });
      } else {
        each_lane(mask, [&](uint32_t l) { d[l] = arith(in.op, in.type, src.get(1, l), src.get(2, l), 0); });
      }
      break;
    case Op::fma:
      if (in.type == Type::f32) {
        each_lane(mask, [&](uint32_t l) {
          d[l] = from_f32(std::fma(as_f32(src.get(1, l)), as_f32(src.get(2, l)), as_f32(src.get(3, l))));
        });
        break;
      }
      [[fallthrough]];
    default: {
      const size_t n = in.operands.size();
      each_lane(mask, [&](uint32_t l) {
        d[l] = arith(in.op, in.type, n > 1 ? src.get(1, l) : 0, n > 2 ? src.get(2, l) : 0, n > 3 ? src.get(3, l) : 0);
      });
      break;
    }
  }
  x.latency = (in.op == Op::div || in.op == Op::rem) ? timing::kSfuLatency : timing::kAluLatency;
  src.wrote(dst);
}

void exec_convert(ExecContext& x) {
  const ir::Inst& in = x.inst;
  Sources src(x);
  const uint32_t dst = in.operands[0].id;
  uint64_t* d = x.cta.reg_lanes(x.warp.id, dst);
  const Type to = in.type, from = in.type2;
  const TypeClass tc = ir::type_class(to), fc = ir::type_class(from);
  const uint32_t tb = ir::type_bits(to), fb = ir::type_bits(from);
  x.latency = timing::kSfuLatency;

  if (in.op == Op::cvt_pack) {  // cvt.rn.bf16x2.f32 d, a, b: d.hi = a, d.lo = b
    each_lane(x.mask, [&](uint32_t l) {
      d[l] = (uint64_t(f32_to_bf16_rn(as_f32(src.get(1, l)))) << 16) | f32_to_bf16_rn(as_f32(src.get(2, l)));
    });
    src.wrote(dst);
    return;
  }
  auto convert = [&](uint64_t v) -> std::optional<uint64_t> {
    // Read the source as a double (exact for every source type we support).
    double value = 0;
    bool is_float_src = fc == TypeClass::floating;
    if (from == Type::bf16) value = bf16_to_f32(uint16_t(v));
    else if (from == Type::f32) value = as_f32(v);
    else if (from == Type::f64) value = as_f64(v);
    else if (fc == TypeClass::signed_int) value = double(sign_extend(v, fb));
    else if (fc == TypeClass::unsigned_int || fc == TypeClass::bits) value = double(mask_to_bits(v, fb));
    else return std::nullopt;

    if (tc == TypeClass::floating) {
      if (to == Type::f32) {
        if (from == Type::u64 || from == Type::s64) return std::nullopt;  // needs correct rounding from 64-bit ints
        return from_f32(float(value));  // exact for 32-bit ints in double, then one rounding
      }
      if (to == Type::f64) return from_f64(value);
      if (to == Type::bf16) return f32_to_bf16_rn(float(value));  // f32 sources only: exact in double
      return std::nullopt;
    }
    if (!is_float_src) {  // integer to integer: extend or truncate
      if (fc == TypeClass::signed_int) return mask_to_bits(uint64_t(sign_extend(v, fb)), tb);
      return mask_to_bits(mask_to_bits(v, fb), tb);
    }
    // float to integer: round as asked, saturate, NaN -> 0 (PTX cvt semantics).
    double r = value;
    switch (in.rounding) {
      case ir::Rounding::rni: r = std::nearbyint(value); break;
      case ir::Rounding::rmi: r = std::floor(value); break;
      case ir::Rounding::rpi: r = std::ceil(value); break;
      default: r = std::trunc(value); break;
    }
    if (std::isnan(r)) return 0;
    if (tc == TypeClass::signed_int) {
      const double lo = -std::ldexp(1.0, int(tb) - 1), hi = std::ldexp(1.0, int(tb) - 1) - 1;
      return mask_to_bits(uint64_t(int64_t(std::clamp(r, lo, hi))), tb);
    }
    return uint64_t(std::clamp(r, 0.0, std::ldexp(1.0, int(tb)) - 1));
  };
  bool unsupported = false;
  each_lane(x.mask, [&](uint32_t l) {
    if (auto v = convert(src.get(1, l))) d[l] = *v;
    else unsupported = true;
  });
  if (unsupported)
    report(x.cta, "unsupported", x.inst_id, x.warp.id, 0xFFFFFFFFu, 0,
           fmt::format("the model does not implement cvt.{}.{}: results of this instruction are zero",
                       ir::type_name(to), ir::type_name(from)));
  src.wrote(dst);
}

}  // namespace gs::model
