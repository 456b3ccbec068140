// Bit-level helpers for the model: registers hold raw bits (zero-extended to 64), and these
// convert between bits and typed values exactly as the PTX ISA defines.
#pragma once

#include "engine/ir/bf16.hpp"

#include <bit>
#include <cmath>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace gs::model {

inline uint64_t mask_to_bits(uint64_t v, uint32_t bits) { return bits >= 64 ? v : (v & ((uint64_t(1) << bits) - 1)); }

inline int64_t sign_extend(uint64_t v, uint32_t bits) {
  if (bits >= 64) return int64_t(v);
  const uint64_t m = uint64_t(1) << (bits - 1);
  v = mask_to_bits(v, bits);
  return int64_t((v ^ m) - m);
}

inline float as_f32(uint64_t v) { return std::bit_cast<float>(uint32_t(v)); }
inline uint64_t from_f32(float f) { return std::bit_cast<uint32_t>(f); }
inline double as_f64(uint64_t v) { return std::bit_cast<double>(v); }
inline uint64_t from_f64(double d) { return std::bit_cast<uint64_t>(d); }

// bf16 conversions: the one rounding rule of the project (engine/ir/bf16.hpp).
using ir::bf16_to_f32;
using ir::f32_to_bf16_rne;

// Lane masks. The model counts and gathers lanes on every issue; std::popcount is a library
// call unless the build targets a CPU with POPCNT, so these are written out.

// Whether m is a power of two (std::has_single_bit, which counts bits: the same library call).
inline bool power_of_two(uint32_t m) { return m != 0 && (m & (m - 1)) == 0; }

// The number of lanes in a mask.
inline uint32_t lane_count(uint32_t m) {
  m = m - ((m >> 1) & 0x55555555u);
  m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
  m = (m + (m >> 4)) & 0x0F0F0F0Fu;
  return (m * 0x01010101u) >> 24;
}

// Bit l = bit 0 of lanes[l], for the 32 lanes of a register (a predicate as a lane mask).
inline uint32_t lane_bits(const uint64_t* lanes) {
  uint32_t bits = 0;
#if defined(__SSE2__)
  // Two lanes per step: shift bit 0 into each 64-bit sign bit, then movemask collects them.
  for (uint32_t l = 0; l < 32; l += 2) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(lanes + l));
    bits |= uint32_t(_mm_movemask_pd(_mm_castsi128_pd(_mm_slli_epi64(v, 63)))) << l;
  }
#else
  for (uint32_t l = 0; l < 32; ++l) bits |= uint32_t(lanes[l] & 1) << l;
#endif
  return bits;
}

// Whether a whole warp's lanes step evenly, lane l holding lanes[0] + step × l, counting
// only the bits under `keep` (the lanes of a 32-bit register may hold anything above its low
// word); sets *step to the step under keep. The trace stores such register writes as base
// and step (RegWrite::Encoding::affine), and the loads read such addresses without gathers.
inline bool lanes_step_evenly(const uint64_t* lanes, uint64_t keep, uint64_t* step) {
  const uint64_t d = lanes[1] - lanes[0];
  uint64_t expect = lanes[0], off = 0;
  for (uint32_t l = 0; l < 32; ++l, expect += d) off |= lanes[l] - expect;
  *step = d & keep;
  return (off & keep) == 0;
}
#if defined(__x86_64__) && defined(__GNUC__)
// The same, 4 lanes per step.
__attribute__((target("avx2"))) inline bool lanes_step_evenly_avx2(const uint64_t* lanes, uint64_t keep,
                                                                   uint64_t* step) {
  const uint64_t base = lanes[0], d = lanes[1] - lanes[0];
  __m256i expect = _mm256_set_epi64x(int64_t(base + 3 * d), int64_t(base + 2 * d), int64_t(base + d), int64_t(base));
  const __m256i by4 = _mm256_set1_epi64x(int64_t(4 * d));
  __m256i off = _mm256_setzero_si256();
#pragma GCC unroll 8
  for (uint32_t l = 0; l < 32; l += 4) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes + l));
    off = _mm256_or_si256(off, _mm256_sub_epi64(v, expect));
    expect = _mm256_add_epi64(expect, by4);
  }
  *step = d & keep;
  return _mm256_testz_si256(off, _mm256_set1_epi64x(int64_t(keep))) != 0;
}
#else
inline bool lanes_step_evenly_avx2(const uint64_t* lanes, uint64_t keep, uint64_t* step) {
  return lanes_step_evenly(lanes, keep, step);
}
#endif

}  // namespace gs::model
