// bfloat16 <-> float, header-only: the one rounding rule of the model (cvt, packed cvt), the
// data generator and the tests.
//
// bf16 is the top 16 bits of an IEEE binary32: 1 sign, 8 exponent, 7 mantissa bits. Going
// down rounds to nearest, ties to even (what cvt.rn.bf16.f32 and PyTorch do); going up is
// exact (append 16 zero bits).
#pragma once

#include <bit>
#include <cstdint>

namespace gs::ir {

inline float bf16_to_f32(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }

inline uint16_t f32_to_bf16_rne(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  // NaN stays a NaN: truncating could clear every mantissa bit and make it an infinity, so
  // keep the sign and force a quiet mantissa.
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0)
    return uint16_t((bits >> 16) | 0x0040u);
  // Add just under half an ulp of bf16 plus the kept lowest bit: a tie (low half exactly
  // 0x8000) rounds up only when the kept part is odd. Overflow carries into the exponent,
  // which is the correct rounding up to the next binade or to infinity.
  const uint32_t lsb = (bits >> 16) & 1u;
  return uint16_t((bits + 0x7FFFu + lsb) >> 16);
}

// The float that a value becomes after a trip through bf16.
inline float round_to_bf16(float f) { return bf16_to_f32(f32_to_bf16_rne(f)); }

}  // namespace gs::ir
