// exec_alu / exec_convert: integer, floating-point and predicate arithmetic and conversions.
// Each instruction resolves its sources once (a register's 32 lanes or one broadcast value),
// then runs one tight loop over the active lanes.
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "engine/model/decode.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

using ir::Op;
using ir::Type;
using ir::TypeClass;

namespace {

template <class F>
inline void each_lane(uint32_t mask, F&& f) {
  if (mask == kAllLanes) {  // the common, converged case: a plain loop the compiler can unroll
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

// `bits` and `cls` are ir::type_bits / ir::type_class of the instruction's type: passed in
// so that the decoded forms, where they are compile-time constants, fold the switches away.
[[gnu::always_inline]] inline bool compare(ir::CmpOp c, uint32_t bits, TypeClass cls, uint64_t a, uint64_t b) {
  switch (cls) {
    case TypeClass::floating: {
      const double x = bits == 64 ? as_f64(a) : double(as_f32(a));
      const double y = bits == 64 ? as_f64(b) : double(as_f32(b));
      if (std::isnan(x) || std::isnan(y)) return false;  // PTX's plain comparisons are ordered
      return compare_values(c, x, y);
    }
    case TypeClass::signed_int: return compare_values(c, sign_extend(a, bits), sign_extend(b, bits));
    default:
      // Narrower than 64 bits, both values are below 2^63, where signed order is unsigned
      // order: compared signed, the vectorised lane loops of the forms need no sign flips
      // (AVX2 compares 64-bit lanes signed only).
      if (bits < 64) return compare_values(c, int64_t(mask_to_bits(a, bits)), int64_t(mask_to_bits(b, bits)));
      return compare_values(c, a, b);
  }
}

// arith() of an op it has no rule for: exec_alu and select_alu pass it only the ops its
// switch names, so this is a broken routing, reported rather than computed as 0.
[[noreturn, gnu::cold]] void arith_not_handled(Op op) {
  throw NotModelledError(fmt::format("the CPU model's arithmetic has no rule for {}", ir::op_info(op).id));
}

// One binary/ternary operation on raw bits of a type of type_bits `type_bits` and class `cls`.
[[gnu::always_inline]] inline uint64_t arith(Op op, uint32_t type_bits, TypeClass cls, uint64_t a, uint64_t b,
                                             uint64_t c) {
  const uint32_t bits = std::max<uint32_t>(type_bits, 1);
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
    default: arith_not_handled(op);
  }
}

// ---- decoded forms ------------------------------------------------------------------------
// The instructions that dominate a run (address arithmetic, loop control, the fma of a SIMT
// inner loop) with register or constant operands. select_alu picks one of these at decode
// time for an (op, type) it knows; each computes exactly what exec_alu's general path
// computes for that form (the same arith/compare), without resolving operands per issue.

const uint64_t kZeroLanes[32] = {};

// The lane loops of a full warp, simple enough to vectorise: the compiler may assume the
// destination overlaps no source (restrict), which the decoder guarantees (dst_source)...
template <class Lane>
[[gnu::always_inline]] inline void lanes_into(const uint64_t* __restrict a, const uint64_t* __restrict b,
                                              const uint64_t* __restrict c, uint64_t* __restrict d) {
  const Lane lane;
  // Unrolled (GCC; other compilers ignore the pragma): vectorised, the loop is 8 steps of a
  // few instructions each, and counting the steps cost about as many instructions again.
  // (Unrolling by 8 lets the vectoriser run first; unrolling by 32 would leave it scalar.)
#pragma GCC unroll 8
  for (uint32_t l = 0; l < 32; ++l) d[l] = lane(a[l], b[l], c[l]);
}
// ... or that it is source kSource and overlaps neither of the others (p, q in order).
template <class Lane, int kSource>
[[gnu::always_inline]] inline void lanes_in_place(uint64_t* d, const uint64_t* __restrict p,
                                                  const uint64_t* __restrict q) {
  const Lane lane;
#pragma GCC unroll 8  // as in lanes_into
  for (uint32_t l = 0; l < 32; ++l) {
    const uint64_t v = d[l];
    if constexpr (kSource == 0) d[l] = lane(v, p[l], q[l]);
    else if constexpr (kSource == 1) d[l] = lane(p[l], v, q[l]);
    else d[l] = lane(p[l], q[l], v);
  }
}

// The lanes of a decoded form's three sources for this warp (select_alu makes the sources
// past nsrc constants of kZeroLanes), after the register read checks. Always inlined, so
// that s[] lives in registers rather than in a stack array (which GCC aligns for vector
// stores, at the price of a realigned stack frame).
// source_lanes: the lanes only; returns the lanes that have written every source register.
[[gnu::always_inline]] inline uint32_t source_lanes(const Warp& w, const DecodedInst& d, const uint64_t* s[3]) {
  uint32_t written_in_all = ~0u;
#pragma GCC unroll 3
  for (uint32_t i = 0; i < 3; ++i) {
    if (d.src[i].is_reg) {
      s[i] = w.regs + 32 * size_t(d.src[i].reg);
      written_in_all &= w.written[d.src[i].reg];
    } else {
      s[i] = d.src[i].lanes;
    }
  }
  return written_in_all;
}
[[gnu::always_inline]] inline void decoded_sources(ExecContext& x, const uint64_t* s[3]) {
  const DecodedInst& d = x.dec;
  const uint32_t written_in_all = source_lanes(x.warp, d, s);
  if (decoded_reads_need_checks(x, written_in_all)) [[unlikely]]
    for (uint32_t i = 0; i < 3; ++i)
      if (d.src[i].is_reg) check_register_read(x, d.src[i].reg, x.mask);
}

// Some lanes of a warp: Lanes{}(a, b, c, r) writes all 32 lanes' results into a scratch
// copy, and the active lanes are copied out of it. Out of line (and so compiled for baseline
// x86-64, which computes the same bits), so that the full-warp paths of the forms keep no
// 256-byte scratch array in their stack frame.
template <class Lanes>
[[gnu::noinline]] void some_lanes(const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* out,
                                  uint32_t mask) {
  uint64_t r[32];
  Lanes{}(a, b, c, r);
  for (uint32_t m = mask; m; m &= m - 1) out[std::countr_zero(m)] = r[std::countr_zero(m)];
}
template <class Lane>
struct EachLane {  // a form's lane function over a whole warp
  void operator()(const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* r) const {
    const Lane lane;
    for (uint32_t l = 0; l < 32; ++l) r[l] = lane(a[l], b[l], c[l]);
  }
};

// d = lane(s0, s1, s2) on the active lanes. Sources are checked in operand order, as Sources
// does. A full warp is computed in place when the destination is at most one of the sources;
// otherwise (or for some lanes only) the result goes through a buffer, so that every source
// is read before the destination is written. Always inlined: each form is compiled once for
// baseline x86-64 and once for AVX2 (below).
template <class Lane>
[[gnu::always_inline]] inline void alu_lanes(ExecContext& x) {
  const DecodedInst& d = x.dec;
  const uint32_t mask = x.mask;
  const uint64_t* s[3];
  decoded_sources(x, s);
  uint64_t* out = x.warp.regs + 32 * size_t(d.dst);
  if (mask == kAllLanes && d.dst_source == DecodedInst::kDstIsNoSource) {
    lanes_into<Lane>(s[0], s[1], s[2], out);
  } else if (mask == kAllLanes && d.dst_source == 0) {
    lanes_in_place<Lane, 0>(out, s[1], s[2]);
  } else if (mask == kAllLanes && d.dst_source == 1) {
    lanes_in_place<Lane, 1>(out, s[0], s[2]);
  } else if (mask == kAllLanes && d.dst_source == 2) {
    lanes_in_place<Lane, 2>(out, s[0], s[1]);
  } else {
    some_lanes<EachLane<Lane>>(s[0], s[1], s[2], out, mask);
  }
  note_decoded_write(x, d.dst);
}

// The straight path of a form (decode.hpp, DirectFn): what alu_lanes and note_decoded_write
// do for a whole warp when decoded_reads_need_checks finds nothing to check and nothing is
// traced, which is then all they do. Without the loads of an ExecContext's fields and the
// trace and wgmma tests, a form costs about 30 instructions fewer (callgrind on simt_naive,
// 5 of whose 8 loop instructions are such forms: add.u64 92 -> 62, fma.f32 131 -> 95), and
// the scheduler builds no ExecContext for it.
// direct_sources: the sources' lanes (as decoded_sources), and whether every lane has
// written every source register and none can be a wgmma accumulator (else the caller
// declines, and exec makes the checks).
[[gnu::always_inline]] inline bool direct_sources(const Warp& w, const DecodedInst& d, const uint64_t* s[3]) {
  return source_lanes(w, d, s) == kAllLanes && d.no_wgmma_regs;
}
template <class Lane>
[[gnu::always_inline]] inline bool direct_lanes(Warp& w, const DecodedInst& d) {
  const uint64_t* s[3];
  if (!direct_sources(w, d, s)) return false;
  uint64_t* out = w.regs + 32 * size_t(d.dst);
  if (d.dst_source == DecodedInst::kDstIsNoSource) lanes_into<Lane>(s[0], s[1], s[2], out);
  else if (d.dst_source == 0) lanes_in_place<Lane, 0>(out, s[1], s[2]);
  else if (d.dst_source == 1) lanes_in_place<Lane, 1>(out, s[0], s[2]);
  else if (d.dst_source == 2) lanes_in_place<Lane, 2>(out, s[0], s[1]);
  else some_lanes<EachLane<Lane>>(s[0], s[1], s[2], out, kAllLanes);
  w.written[d.dst] = kAllLanes;  // |= all lanes
  return true;
}

// ir::type_bits and ir::type_class of the types the forms are instantiated for, known at
// compile time (select_alu checks they agree with the IR's table).
constexpr uint32_t form_bits(Type t) {
  return t == Type::pred ? 1 : (t == Type::b64 || t == Type::u64 || t == Type::s64 || t == Type::f64) ? 64 : 32;
}
constexpr TypeClass form_class(Type t) {
  switch (t) {
    case Type::pred: return TypeClass::pred;
    case Type::b32:
    case Type::b64: return TypeClass::bits;
    case Type::u32:
    case Type::u64: return TypeClass::unsigned_int;
    case Type::s32:
    case Type::s64: return TypeClass::signed_int;
    default: return TypeClass::floating;
  }
}

// What one lane of a form computes.
template <Op kOp, Type kType>
struct AluLane {
  [[gnu::always_inline]] uint64_t operator()(uint64_t a, uint64_t b, uint64_t c) const {
    if constexpr (kOp == Op::mov) return mask_to_bits(a, form_bits(kType));
    else if constexpr (kOp == Op::selp) return c ? a : b;
    else return arith(kOp, form_bits(kType), form_class(kType), a, b, c);
  }
};
template <ir::CmpOp kCmp, Type kType>
struct SetpLane {
  [[gnu::always_inline]] uint64_t operator()(uint64_t a, uint64_t b, uint64_t) const {
    return compare(kCmp, form_bits(kType), form_class(kType), a, b) ? 1 : 0;
  }
};

template <class Lane, uint32_t kLatency>
[[gnu::always_inline]] inline void run_form(ExecContext& x) {
  alu_lanes<Lane>(x);
  x.latency = kLatency;
}
constexpr uint32_t form_latency(Op op) {
  return (op == Op::div || op == Op::rem) ? timing::kSfuLatency : timing::kAluLatency;
}

// The baseline build of each form, and (x86-64 with GCC or Clang) an AVX2 build of the same
// source that select_alu picks where the CPU has AVX2: the lane loops then move 4 lanes per
// instruction instead of 2. The integer operations are exact either way, and the f32 ones
// (add, mul) are single IEEE operations whose results do not depend on the vector width; the
// AVX2 build does not enable FMA, so nothing can be contracted.
template <Op kOp, Type kType>
void exec_alu_form(ExecContext& x) {
  run_form<AluLane<kOp, kType>, form_latency(kOp)>(x);
}
template <ir::CmpOp kCmp, Type kType>
void exec_setp_form(ExecContext& x) {
  run_form<SetpLane<kCmp, kType>, timing::kAluLatency>(x);
}
template <Op kOp, Type kType>
uint32_t direct_alu_form(Cta&, Warp& w, const DecodedInst& d) {
  return direct_lanes<AluLane<kOp, kType>>(w, d) ? form_latency(kOp) : 0;
}
template <ir::CmpOp kCmp, Type kType>
uint32_t direct_setp_form(Cta&, Warp& w, const DecodedInst& d) {
  return direct_lanes<SetpLane<kCmp, kType>>(w, d) ? timing::kAluLatency : 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
constexpr bool kHaveAvx2Forms = true;
template <Op kOp, Type kType>
__attribute__((target("avx2"))) void exec_alu_form_avx2(ExecContext& x) {
  run_form<AluLane<kOp, kType>, form_latency(kOp)>(x);
}
template <ir::CmpOp kCmp, Type kType>
__attribute__((target("avx2"))) void exec_setp_form_avx2(ExecContext& x) {
  run_form<SetpLane<kCmp, kType>, timing::kAluLatency>(x);
}
template <Op kOp, Type kType>
__attribute__((target("avx2"))) uint32_t direct_alu_form_avx2(Cta&, Warp& w, const DecodedInst& d) {
  return direct_lanes<AluLane<kOp, kType>>(w, d) ? form_latency(kOp) : 0;
}
template <ir::CmpOp kCmp, Type kType>
__attribute__((target("avx2"))) uint32_t direct_setp_form_avx2(Cta&, Warp& w, const DecodedInst& d) {
  return direct_lanes<SetpLane<kCmp, kType>>(w, d) ? timing::kAluLatency : 0;
}
#else
constexpr bool kHaveAvx2Forms = false;
template <Op kOp, Type kType>
void exec_alu_form_avx2(ExecContext& x) {
  exec_alu_form<kOp, kType>(x);
}
template <ir::CmpOp kCmp, Type kType>
void exec_setp_form_avx2(ExecContext& x) {
  exec_setp_form<kCmp, kType>(x);
}
template <Op kOp, Type kType>
uint32_t direct_alu_form_avx2(Cta& c, Warp& w, const DecodedInst& d) {
  return direct_alu_form<kOp, kType>(c, w, d);
}
template <ir::CmpOp kCmp, Type kType>
uint32_t direct_setp_form_avx2(Cta& c, Warp& w, const DecodedInst& d) {
  return direct_setp_form<kCmp, kType>(c, w, d);
}
#endif

// A form's exec function and its straight path (DecodedInst::direct), both of the build this
// CPU runs.
struct Form {
  ExecFn exec = nullptr;
  DirectFn direct = nullptr;
};
template <Op kOp, Type kType>
Form alu_form_fn() {
  if (kHaveAvx2Forms && cpu_has_avx2()) return {exec_alu_form_avx2<kOp, kType>, direct_alu_form_avx2<kOp, kType>};
  return {exec_alu_form<kOp, kType>, direct_alu_form<kOp, kType>};
}
template <ir::CmpOp kCmp, Type kType>
Form setp_form_fn() {
  if (kHaveAvx2Forms && cpu_has_avx2()) return {exec_setp_form_avx2<kCmp, kType>, direct_setp_form_avx2<kCmp, kType>};
  return {exec_setp_form<kCmp, kType>, direct_setp_form<kCmp, kType>};
}

// fma.rn.f32: std::fma on floats is a library call per lane unless the compiler may assume
// an FMA unit. Where the CPU has one, the lanes use the instruction; both round once, so the
// bits are the same either way (and so are they for 2 or 4 lanes per instruction: each lane
// is one correctly rounded fma).
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("fma"))) void fma_f32_lanes_hw(const uint64_t* a, const uint64_t* b, const uint64_t* c,
                                                     uint64_t* r) {
  for (uint32_t l = 0; l < 32; ++l) r[l] = from_f32(std::fma(as_f32(a[l]), as_f32(b[l]), as_f32(c[l])));
}
// Four lanes per step: each lane's f32 is the low half of its 64-bit word, so vpermd gathers
// the low halves of 4 lanes, vfmadd rounds each once (what std::fma does per lane), and the
// results go back zero-extended (from_f32). The compiler does not vectorise the scalar loop.
__attribute__((target("avx2"))) inline __m128 low_halves_of_4_lanes(const uint64_t* p) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i low_words = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  return _mm256_castps256_ps128(_mm256_permutevar8x32_ps(_mm256_castsi256_ps(v), low_words));
}
__attribute__((target("avx2,fma"))) void fma_f32_lanes_avx2(const uint64_t* a, const uint64_t* b, const uint64_t* c,
                                                            uint64_t* r) {
#pragma GCC unroll 8  // as in lanes_into
  for (uint32_t l = 0; l < 32; l += 4) {
    const __m128 f =
        _mm_fmadd_ps(low_halves_of_4_lanes(a + l), low_halves_of_4_lanes(b + l), low_halves_of_4_lanes(c + l));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + l), _mm256_cvtepu32_epi64(_mm_castps_si128(f)));
  }
}
bool cpu_has_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("fma");
}
#else
void fma_f32_lanes_hw(const uint64_t*, const uint64_t*, const uint64_t*, uint64_t*) {}
void fma_f32_lanes_avx2(const uint64_t*, const uint64_t*, const uint64_t*, uint64_t*) {}
bool cpu_has_fma() { return false; }
#endif

// Chosen at decode time only where cpu_has_fma(): alu_lanes, with the lane loop done by
// fma_f32_lanes_hw (or its AVX2 build, which the AVX2 build of the form has inline).
template <bool kAvx2>
struct FmaF32Lanes {
  [[gnu::always_inline]] void operator()(const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* r) const {
    if (kAvx2) fma_f32_lanes_avx2(a, b, c, r);
    else fma_f32_lanes_hw(a, b, c, r);
  }
};
template <bool kAvx2>
[[gnu::always_inline]] inline void fma_f32_form(ExecContext& x) {
  const DecodedInst& d = x.dec;
  const uint64_t* s[3];
  decoded_sources(x, s);
  // A full warp is written in place: both lane functions read a lane's (or 4 lanes') sources
  // before they write it, and registers either coincide or do not overlap.
  uint64_t* out = x.warp.regs + 32 * size_t(d.dst);
  if (x.mask == kAllLanes) FmaF32Lanes<kAvx2>{}(s[0], s[1], s[2], out);
  else some_lanes<FmaF32Lanes<kAvx2>>(s[0], s[1], s[2], out, x.mask);
  note_decoded_write(x, d.dst);
  x.latency = timing::kAluLatency;
}
void exec_fma_f32(ExecContext& x) { fma_f32_form<false>(x); }
// The straight path (direct_lanes): a whole warp is written in place, as above.
template <bool kAvx2>
[[gnu::always_inline]] inline uint32_t fma_f32_direct(Warp& w, const DecodedInst& d) {
  const uint64_t* s[3];
  if (!direct_sources(w, d, s)) return 0;
  FmaF32Lanes<kAvx2>{}(s[0], s[1], s[2], w.regs + 32 * size_t(d.dst));
  w.written[d.dst] = kAllLanes;
  return timing::kAluLatency;
}
uint32_t direct_fma_f32(Cta&, Warp& w, const DecodedInst& d) { return fma_f32_direct<false>(w, d); }
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) void exec_fma_f32_avx2(ExecContext& x) { fma_f32_form<true>(x); }
__attribute__((target("avx2,fma"))) uint32_t direct_fma_f32_avx2(Cta&, Warp& w, const DecodedInst& d) {
  return fma_f32_direct<true>(w, d);
}
#else
void exec_fma_f32_avx2(ExecContext& x) { fma_f32_form<false>(x); }
uint32_t direct_fma_f32_avx2(Cta&, Warp& w, const DecodedInst& d) { return fma_f32_direct<false>(w, d); }
#endif

Form fma_f32_form() {
  if (!cpu_has_fma()) return alu_form_fn<Op::fma, Type::f32>();
  if (kHaveAvx2Forms && cpu_has_avx2()) return {exec_fma_f32_avx2, direct_fma_f32_avx2};
  return {exec_fma_f32, direct_fma_f32};
}
bool is_fma_f32_hw(ExecFn fn) { return fn == exec_fma_f32_avx2 || fn == exec_fma_f32; }

// The integer and predicate types the decoded forms cover; others take the general path.
template <Op kOp>
Form alu_form_for(Type t) {
  switch (t) {
    case Type::pred: return alu_form_fn<kOp, Type::pred>();
    case Type::b32: return alu_form_fn<kOp, Type::b32>();
    case Type::u32: return alu_form_fn<kOp, Type::u32>();
    case Type::s32: return alu_form_fn<kOp, Type::s32>();
    case Type::b64: return alu_form_fn<kOp, Type::b64>();
    case Type::u64: return alu_form_fn<kOp, Type::u64>();
    case Type::s64: return alu_form_fn<kOp, Type::s64>();
    default: return {};
  }
}

template <ir::CmpOp kCmp>
Form setp_form_for(Type t) {
  switch (t) {
    case Type::u32: return setp_form_fn<kCmp, Type::u32>();
    case Type::s32: return setp_form_fn<kCmp, Type::s32>();
    case Type::u64: return setp_form_fn<kCmp, Type::u64>();
    case Type::s64: return setp_form_fn<kCmp, Type::s64>();
    case Type::f32: return setp_form_fn<kCmp, Type::f32>();
    default: return {};
  }
}

Form setp_form(const ir::Inst& in) {
  switch (in.cmp) {
    case ir::CmpOp::eq: return setp_form_for<ir::CmpOp::eq>(in.type);
    case ir::CmpOp::ne: return setp_form_for<ir::CmpOp::ne>(in.type);
    case ir::CmpOp::lt: return setp_form_for<ir::CmpOp::lt>(in.type);
    case ir::CmpOp::le: return setp_form_for<ir::CmpOp::le>(in.type);
    case ir::CmpOp::gt: return setp_form_for<ir::CmpOp::gt>(in.type);
    case ir::CmpOp::ge: return setp_form_for<ir::CmpOp::ge>(in.type);
    default: return {};
  }
}

Form alu_form(const ir::Inst& in) {
  switch (in.op) {
    case Op::mov: return alu_form_for<Op::mov>(in.type);
    case Op::selp: return alu_form_for<Op::selp>(in.type);
    case Op::setp: return setp_form(in);
    case Op::fma:
      if (in.type != Type::f32) return {};
      return fma_f32_form();
    case Op::add: return in.type == Type::f32 ? alu_form_fn<Op::add, Type::f32>() : alu_form_for<Op::add>(in.type);
    case Op::mul: return in.type == Type::f32 ? alu_form_fn<Op::mul, Type::f32>() : Form{};
    case Op::sub: return alu_form_for<Op::sub>(in.type);
    case Op::mul_lo: return alu_form_for<Op::mul_lo>(in.type);
    case Op::mad_lo: return alu_form_for<Op::mad_lo>(in.type);
    case Op::mul_wide: return alu_form_for<Op::mul_wide>(in.type);
    case Op::and_: return alu_form_for<Op::and_>(in.type);
    case Op::or_: return alu_form_for<Op::or_>(in.type);
    case Op::xor_: return alu_form_for<Op::xor_>(in.type);
    case Op::not_: return alu_form_for<Op::not_>(in.type);
    case Op::shl: return alu_form_for<Op::shl>(in.type);
    case Op::shr: return alu_form_for<Op::shr>(in.type);
    case Op::min: return alu_form_for<Op::min>(in.type);
    case Op::max: return alu_form_for<Op::max>(in.type);
    default: return {};
  }
}

}  // namespace

ExecFn select_alu(const ir::Inst& in, Program& p, DecodedInst& d, const ir::Kernel& k) {
  // One destination register and one to three sources, each a register or a constant:
  // special registers vary per lane, CTA and cycle, so those keep the general path.
  if (in.ndst != 1 || in.operands.empty() || in.operands[0].kind != ir::OperandKind::reg) return nullptr;
  const size_t nsrc = in.operands.size() - 1;
  if (nsrc < 1 || nsrc > 3) return nullptr;
  DecodedInst form = d;
  form.dst = in.operands[0].id;
  form.nsrc = uint8_t(nsrc);
  for (size_t i = 0; i < nsrc; ++i) {
    const ir::Operand& o = in.operands[1 + i];
    if (o.kind == ir::OperandKind::reg) {
      form.src[i] = {true, o.id, nullptr};
    } else if (o.kind == ir::OperandKind::imm || o.kind == ir::OperandKind::fimm) {
      form.src[i] = {false, ir::kNone, nullptr};  // filled below, once the form is known
    } else {
      return nullptr;
    }
  }
  if (form_bits(in.type) != ir::type_bits(in.type) || form_class(in.type) != ir::type_class(in.type)) return nullptr;
  const Form chosen = alu_form(in);
  const ExecFn fn = chosen.exec;
  if (!fn || (is_fma_f32_hw(fn) && nsrc != 3)) return nullptr;
  form.direct = chosen.direct;
  form.direct_traceable = true;  // alu_lanes and fma_f32_form record nothing but note_decoded_write's
  for (size_t i = 0; i < nsrc; ++i)
    if (!form.src[i].is_reg) form.src[i].lanes = p.constant_lanes(k, in, in.operands[1 + i]);
  for (size_t i = nsrc; i < form.src.size(); ++i) form.src[i] = {false, ir::kNone, kZeroLanes};  // unused: zeros
  form.dst_source = DecodedInst::kDstIsNoSource;
  for (size_t i = 0; i < nsrc; ++i)
    if (form.src[i].is_reg && form.src[i].reg == form.dst)
      form.dst_source = form.dst_source == DecodedInst::kDstIsNoSource ? uint8_t(i) : DecodedInst::kDstIsSeveralSources;
  d = form;
  return fn;
}

void exec_alu(ExecContext& x) {
  const ir::Inst& in = x.inst;
  Sources src(x);
  const uint32_t dst = in.operands[0].id;
  uint64_t* d = x.cta.reg_lanes(x.warp.id, dst);
  const uint32_t mask = x.mask;
  const uint32_t bits = ir::type_bits(in.type);
  const TypeClass cls = ir::type_class(in.type);
  switch (in.op) {
    case Op::mov:
    case Op::cvta_to_global:
    case Op::cvta_param: {
      each_lane(mask, [&](uint32_t l) { d[l] = mask_to_bits(src.get(1, l), bits); });
      break;
    }
    case Op::setp:
      each_lane(mask, [&](uint32_t l) { d[l] = compare(in.cmp, bits, cls, src.get(1, l), src.get(2, l)) ? 1 : 0; });
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
        each_lane(mask, [&](uint32_t l) { d[l] = arith(in.op, bits, cls, src.get(1, l), src.get(2, l), 0); });
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
    case Op::sub:
    case Op::mul:
    case Op::mul_lo:
    case Op::mul_hi:
    case Op::mul_wide:
    case Op::mad_lo:
    case Op::mad_wide:
    case Op::div:
    case Op::rem:
    case Op::min:
    case Op::max:
    case Op::neg:
    case Op::and_:
    case Op::or_:
    case Op::xor_:
    case Op::not_:
    case Op::shl:
    case Op::shr: {
      const size_t n = in.operands.size();
      each_lane(mask, [&](uint32_t l) {
        d[l] = arith(in.op, bits, cls, n > 1 ? src.get(1, l) : 0, n > 2 ? src.get(2, l) : 0, n > 3 ? src.get(3, l) : 0);
      });
      break;
    }
    default: not_handled(x, "exec_alu");
  }
  x.latency = (in.op == Op::div || in.op == Op::rem) ? timing::kSfuLatency : timing::kAluLatency;
  src.wrote(dst);
}

void exec_convert(ExecContext& x) {
  expect_op(x, "exec_convert", Op::cvt, Op::cvt_pack);
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
      d[l] = (uint64_t(f32_to_bf16_rne(as_f32(src.get(1, l)))) << 16) | f32_to_bf16_rne(as_f32(src.get(2, l)));
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
      if (to == Type::bf16) return f32_to_bf16_rne(float(value));  // f32 sources only: exact in double
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
    report(x.cta, HazardKind::unsupported, x.inst_id, x.warp.id, kNone, 0,
           fmt::format("the model does not implement cvt.{}.{}: results of this instruction are zero",
                       ir::type_name(to), ir::type_name(from)));
  src.wrote(dst);
}

}  // namespace gs::model
