// The tensor cores' sums in float, for blocks whose operands are small integers (the model's
// default inputs: integers in [-4, 4]). tensor_sums.cpp's header says why they give the bits of
// the double order; here the same sums take 16 columns per AVX-512 fused multiply-add instead of
// 8, and A and B are not widened to double. The shape is tensor_sums.cpp's: row quads share each
// load of B, and a store hands a row pair's 16 columns (or one row's 8) to the accumulator
// registers or the tensor-memory cells. Where the CPU has AVX512_BF16 and the integers are at
// most 256, two k a lane (vdpbf16ps): 32 products an instruction.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "engine/model/bf16_pairs.hpp"
#include "engine/model/integer_bound_avx2.hpp"
#include "engine/model/tensor_core.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

// A namespace of their own: a unity build compiles tensor_sums.cpp's stores in the same unit.
namespace integer_sums {
namespace {

using bf16_pairs::kBf16Integers;
#if defined(__x86_64__) && defined(__GNUC__)
using bf16_pairs::fold_bf16_integers;
using bf16_pairs::integers;
using bf16_pairs::load_tile_config;
#endif

// Every (r, c) of the block in the documented order, each chain from +0 as in double.
template <class Store>
[[gnu::always_inline]] inline void sums_generic(const float (&A)[16][16], const float (&B)[16][256], uint32_t n,
                                                Store&& store) {
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t c0 = 0; c0 < n; c0 += 8) {
      float sum[8] = {};
      for (uint32_t k = 0; k < 16; ++k)
        for (uint32_t j = 0; j < 8; ++j) sum[j] += A[r][k] * B[k][c0 + j];
      for (uint32_t j = 0; j < 8; ++j) store(r, c0 + j, sum[j]);
    }
}

float integer_bound_plain(const float* values, size_t count) {
  float bound = 0.0f;
  for (size_t i = 0; i < count; ++i) {
    if (!(values[i] == std::trunc(values[i]))) return std::numeric_limits<float>::quiet_NaN();
    bound = std::max(bound, std::fabs(values[i]));
  }
  return bound;
}

#if defined(__x86_64__) && defined(__GNUC__)
// 8 values a step (count a multiple of 8).
__attribute__((target("avx2"))) float integer_bound_avx2(const float* values, size_t count) {
  IntegerBoundAvx2 bound;
  for (size_t i = 0; i < count; i += 8) bound.add(_mm256_loadu_ps(values + i));
  return bound.bound();
}

// 16 values a step (count a multiple of 16). (The zero-masked forms with every lane set give the
// plain ones' results; GCC 12 warns of the plain ones' undefined pass-through operand.)
__attribute__((target("avx512f,avx2"))) float integer_bound_avx512(const float* values, size_t count) {
  __m512 bound = _mm512_setzero_ps();
  __mmask16 integers = 0xFFFF;
  for (size_t i = 0; i < count; i += 16) {
    const __m512 v = _mm512_loadu_ps(values + i);
    const __m512 whole = _mm512_maskz_roundscale_ps(0xFFFF, v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    integers &= _mm512_cmp_ps_mask(whole, v, _CMP_EQ_OQ);
    bound = _mm512_maskz_max_ps(0xFFFF, bound, _mm512_abs_ps(v));
  }
  if (integers != 0xFFFF) return std::numeric_limits<float>::quiet_NaN();
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, bound);
  return *std::max_element(lanes, lanes + 16);
}

// Rows r .. r + kRows - 1 over 8 · kVecs columns from c0, 8 columns a 256-bit register: each
// load of B shared by kRows rows. The sums go to store.row8(row, c, sum): 8 columns of one row.
template <uint32_t kRows, uint32_t kVecs, size_t kColumns, class Store>
__attribute__((target("avx2,fma"), always_inline)) inline void rows_avx2(const float (&A)[16][16],
                                                                        const float (&B)[16][kColumns], uint32_t r,
                                                                        uint32_t c0, Store& store) {
  __m256 s[kRows][kVecs];
#pragma GCC unroll 8
  for (uint32_t i = 0; i < kRows; ++i)
#pragma GCC unroll 4
    for (uint32_t v = 0; v < kVecs; ++v) s[i][v] = _mm256_setzero_ps();
#pragma GCC unroll 16
  for (uint32_t k = 0; k < 16; ++k) {
    __m256 b[kVecs];
#pragma GCC unroll 4
    for (uint32_t v = 0; v < kVecs; ++v) b[v] = _mm256_load_ps(&B[k][c0 + 8 * v]);
#pragma GCC unroll 8
    for (uint32_t i = 0; i < kRows; ++i) {
      const __m256 a = _mm256_broadcast_ss(&A[r + i][k]);
#pragma GCC unroll 4
      for (uint32_t v = 0; v < kVecs; ++v) s[i][v] = _mm256_fmadd_ps(a, b[v], s[i][v]);
    }
  }
#pragma GCC unroll 8
  for (uint32_t i = 0; i < kRows; ++i)
#pragma GCC unroll 4
    for (uint32_t v = 0; v < kVecs; ++v) store.row8(r + i, c0 + 8 * v, s[i][v]);
}

// Four rows over 16 columns at a time (16 ymm registers: 8 sums, 2 of B, 1 of A), 8 when fewer
// are left (N is a multiple of 8).
template <class Store>
__attribute__((target("avx2,fma"), always_inline)) inline void sums_avx2(const float (&A)[16][16],
                                                                        const float (&B)[16][256], uint32_t n,
                                                                        Store& store) {
  uint32_t c0 = 0;
  for (; c0 + 16 <= n; c0 += 16)
    for (uint32_t r = 0; r < 16; r += 4) rows_avx2<4, 2>(A, B, r, c0, store);
  if (c0 < n)
    for (uint32_t r = 0; r < 16; r += 4) rows_avx2<4, 1>(A, B, r, c0, store);
}

// Rows r .. r + 3 over 16 · kVecs columns from c0: 4 · kVecs chains, each load of B shared by
// four rows. The sums go to store.pair16(row, c, row0, row1): 16 columns of rows row, row + 1.
template <uint32_t kVecs, class Store>
__attribute__((target("avx512f,avx2,fma"), always_inline)) inline void row_quad_avx512(const float (&A)[16][16],
                                                                                      const float (&B)[16][256],
                                                                                      uint32_t r, uint32_t c0,
                                                                                      Store& store) {
  __m512 s[4][kVecs];
#pragma GCC unroll 4
  for (uint32_t i = 0; i < 4; ++i)
#pragma GCC unroll 4
    for (uint32_t v = 0; v < kVecs; ++v) s[i][v] = _mm512_setzero_ps();
#pragma GCC unroll 16
  for (uint32_t k = 0; k < 16; ++k) {
    __m512 b[kVecs];
#pragma GCC unroll 4
    for (uint32_t v = 0; v < kVecs; ++v) b[v] = _mm512_load_ps(&B[k][c0 + 16 * v]);
#pragma GCC unroll 4
    for (uint32_t i = 0; i < 4; ++i) {
      const __m512 a = _mm512_set1_ps(A[r + i][k]);
#pragma GCC unroll 4
      for (uint32_t v = 0; v < kVecs; ++v) s[i][v] = _mm512_fmadd_ps(a, b[v], s[i][v]);
    }
  }
#pragma GCC unroll 4
  for (uint32_t v = 0; v < kVecs; ++v) {
    store.pair16(r, c0 + 16 * v, s[0][v], s[1][v]);
    store.pair16(r + 2, c0 + 16 * v, s[2][v], s[3][v]);
  }
}

// 64 columns at a time (four rows together; columns outer, as tensor_sums.cpp says why), then
// the 16-column blocks left, then 8 columns in 256-bit registers, eight rows at a time.
template <class Store>
__attribute__((target("avx512f,avx2,fma"), always_inline)) inline void sums_avx512(const float (&A)[16][16],
                                                                                  const float (&B)[16][256],
                                                                                  uint32_t n, Store& store) {
  const uint32_t wide = n / 64 * 64;
  for (uint32_t c0 = 0; c0 < wide; c0 += 64)
    for (uint32_t r = 0; r < 16; r += 4) row_quad_avx512<4>(A, B, r, c0, store);
  const uint32_t vecs = (n - wide) / 16, c8 = wide + 16 * vecs;
  for (uint32_t r = 0; r < 16 && vecs != 0; r += 4) {
    if (vecs == 1) row_quad_avx512<1>(A, B, r, wide, store);
    else if (vecs == 2) row_quad_avx512<2>(A, B, r, wide, store);
    else row_quad_avx512<3>(A, B, r, wide, store);
  }
  if (c8 < n)
    for (uint32_t r = 0; r < 16; r += 8) rows_avx2<8, 1>(A, B, r, c8, store);
}

// AVX512_BF16 (SumsBuild::avx512_bf16): integers of at most 256 have at most 8 significant bits,
// so they are exact in bf16, the high half of their float bits. Two neighbouring k go to one
// 32-bit lane (k = 2p in the low half, 2p + 1 in the high one), and vdpbf16ps adds both
// products of a lane to the float sum: products and every partial sum, however grouped, are
// integers of at most 2^24 (max|A| · max|B| ≤ 2^16 here), so S is the same exact sum.

struct Bf16Pairs {
  alignas(64) uint32_t a[16][8];   // [r][p]: A[r][2p], A[r][2p + 1]
  alignas(64) uint32_t b[8][256];  // [p][c]: B[2p][c], B[2p + 1][c]
};

// A's and B's pairs as the sums read them: from a Bf16Pairs, or from the operands' bytes
// (wgmma_accumulate_pairs: A's rows as shared memory holds them, B's kept by the warpgroup).
struct PairsRef {
  const uint32_t (*a)[8];
  const uint32_t (*b)[256];
};

// B's first `whole` columns (a multiple of 16) as bf16 pairs: word p of column c the high halves
// of B[2p][c] (low) and B[2p + 1][c] (high).
__attribute__((target("avx512f,avx2"))) void b_rows_to_pairs(const float (&B)[16][256], uint32_t whole,
                                                             uint32_t (&b)[8][256]) {
  const __m512i high = _mm512_set1_epi32(int(0xFFFF0000u));
  for (uint32_t p = 0; p < 8; ++p)
    for (uint32_t c = 0; c < whole; c += 16) {
      const __m512i lo = _mm512_load_si512(&B[2 * p][c]), hi = _mm512_load_si512(&B[2 * p + 1][c]);
      _mm512_store_si512(&b[p][c], _mm512_or_si512(_mm512_and_si512(hi, high), _mm512_maskz_srli_epi32(0xFFFF, lo, 16)));
    }
}

// A's rows and B's first `whole` columns (a multiple of 16) as bf16 pairs.
__attribute__((target("avx512f,avx2"))) void to_bf16_pairs(const float (&A)[16][16], const float (&B)[16][256],
                                                           uint32_t whole, Bf16Pairs& o) {
  for (uint32_t r = 0; r < 16; ++r)  // a row's 16 bf16 in order are its 8 pairs
    _mm256_store_si256(reinterpret_cast<__m256i*>(o.a[r]),
                       _mm512_maskz_cvtepi32_epi16(0xFFFF, _mm512_maskz_srli_epi32(0xFFFF, _mm512_load_si512(A[r]), 16)));
  b_rows_to_pairs(B, whole, o.b);
}

// Rows r .. r + 3 over 16 · kVecs columns from c0: row_quad_avx512 with a k pair per step.
template <uint32_t kVecs, class Store>
__attribute__((target("avx512f,avx512bf16,avx2,fma"), always_inline)) inline void row_quad_bf16(const PairsRef& o,
                                                                                               uint32_t r, uint32_t c0,
                                                                                               Store& store) {
  __m512 s[4][kVecs];
#pragma GCC unroll 4
  for (uint32_t i = 0; i < 4; ++i)
#pragma GCC unroll 4
    for (uint32_t v = 0; v < kVecs; ++v) s[i][v] = _mm512_setzero_ps();
#pragma GCC unroll 8
  for (uint32_t p = 0; p < 8; ++p) {
    __m512i b[kVecs];
#pragma GCC unroll 4
    for (uint32_t v = 0; v < kVecs; ++v) b[v] = _mm512_load_si512(&o.b[p][c0 + 16 * v]);
#pragma GCC unroll 4
    for (uint32_t i = 0; i < 4; ++i) {
      const __m512i a = _mm512_set1_epi32(int(o.a[r + i][p]));
#pragma GCC unroll 4
      for (uint32_t v = 0; v < kVecs; ++v) s[i][v] = _mm512_dpbf16_ps(s[i][v], (__m512bh)a, (__m512bh)b[v]);
    }
  }
#pragma GCC unroll 4
  for (uint32_t v = 0; v < kVecs; ++v) {
    store.pair16(r, c0 + 16 * v, s[0][v], s[1][v]);
    store.pair16(r + 2, c0 + 16 * v, s[2][v], s[3][v]);
  }
}

// The blocks of 64 columns, then of 16, of the first `whole` (a multiple of 16), by bf16 pairs.
template <class Store>
__attribute__((target("avx512f,avx512bf16,avx2,fma"), always_inline)) inline void pair_sums_bf16(const PairsRef& o,
                                                                                                uint32_t whole,
                                                                                                Store& store) {
  const uint32_t wide = whole / 64 * 64, vecs = (whole - wide) / 16;
  for (uint32_t c0 = 0; c0 < wide; c0 += 64)
    for (uint32_t r = 0; r < 16; r += 4) row_quad_bf16<4>(o, r, c0, store);
  for (uint32_t r = 0; r < 16 && vecs != 0; r += 4) {
    if (vecs == 1) row_quad_bf16<1>(o, r, wide, store);
    else if (vecs == 2) row_quad_bf16<2>(o, r, wide, store);
    else row_quad_bf16<3>(o, r, wide, store);
  }
}

// The blocks of 16 columns by bf16 pairs; the last 8 columns (N an odd multiple of 8) by the float
// fused multiply-adds.
template <class Store>
__attribute__((target("avx512f,avx512bf16,avx2,fma"), always_inline)) inline void sums_bf16(const float (&A)[16][16],
                                                                                           const float (&B)[16][256],
                                                                                           uint32_t n, Store& store) {
  Bf16Pairs o;
  const uint32_t whole = n / 16 * 16;
  to_bf16_pairs(A, B, whole, o);
  pair_sums_bf16({o.a, o.b}, whole, store);
  if (whole < n)
    for (uint32_t r = 0; r < 16; r += 8) rows_avx2<8, 1>(A, B, r, whole, store);
}

// AMX-BF16 (SumsBuild::amx_bf16): the same pair sums by the tile registers. tdpbf16ps adds to
// each float of a 16 x 16 tile the products of a row of A's bf16 pairs and a column of B's, so
// with A's 16 rows of 8 pairs (Bf16Pairs::a, 32 bytes a row) and 8 rows of B's pairs (Bf16Pairs::b
// from column c0, 64 bytes of a 1024-byte row) on a zeroed tile, the tile is S of columns c0 ..
// c0 + 15: every product and partial sum an integer of at most 2^24, exact in any order (the
// tile's denormal and rounding rules never come into play), so S is the same exact sum.
// The dot product of the 16 columns from c0 into sums tile C (B's pairs through tile Bt), and
// the store of tile C's sums. GCC's tile intrinsics paste their tile numbers into the assembly
// text, so the numbers must be literals: one function for each pair of tiles.
#define GS_TILE_SUMS(C, Bt)                                                                              \
  __attribute__((target("amx-tile,amx-bf16"), always_inline)) inline void tile_sums_##C(const PairsRef& o,  \
                                                                                       uint32_t c0) {     \
    _tile_zero(C);                                                                                       \
    _tile_loadd(Bt, &o.b[0][c0], sizeof o.b[0]);                                                        \
    _tile_dpbf16ps(C, 1, Bt);                                                                            \
  }                                                                                                      \
  template <class Store>                                                                                 \
  __attribute__((target("amx-tile,amx-bf16,avx512f,avx2,fma"), always_inline)) inline void tile_store_##C( \
      uint32_t c0, Store& store) {                                                                       \
    alignas(64) float S[16][16];                                                                         \
    _tile_stored(C, S, sizeof S[0]);                                                                     \
    for (uint32_t r = 0; r < 16; r += 2) store.pair16(r, c0, _mm512_load_ps(S[r]), _mm512_load_ps(S[r + 1])); \
  }
GS_TILE_SUMS(0, 2)
GS_TILE_SUMS(3, 4)
#undef GS_TILE_SUMS

// The blocks of 16 columns of the first `whole` (a multiple of 16) by tiles, two in flight: the
// next block's dot product (sums tile 3 or 0, B tile 4 or 2) is issued before this one's sums are
// stored, so that its latency passes under the stores.
template <class Store>
__attribute__((target("amx-tile,amx-bf16,avx512f,avx2,fma"), always_inline)) inline void pair_sums_amx(
    const PairsRef& o, uint32_t whole, Store& store) {
  load_tile_config();
  _tile_loadd(1, o.a, sizeof o.a[0]);
  if (whole > 0) tile_sums_0(o, 0);
  for (uint32_t c0 = 0; c0 < whole; c0 += 32) {
    if (c0 + 16 < whole) tile_sums_3(o, c0 + 16);
    tile_store_0(c0, store);
    if (c0 + 16 >= whole) break;
    if (c0 + 32 < whole) tile_sums_0(o, c0 + 32);
    tile_store_3(c0 + 16, store);
  }
}

// The blocks of 16 columns by tiles, then the last 8 columns (N an odd multiple of 8) by the
// float fused multiply-adds.
template <class Store>
__attribute__((target("amx-tile,amx-bf16,avx512f,avx512bf16,avx2,fma"), always_inline)) inline void sums_amx(
    const float (&A)[16][16], const float (&B)[16][256], uint32_t n, Store& store) {
  Bf16Pairs o;
  const uint32_t whole = n / 16 * 16;
  to_bf16_pairs(A, B, whole, o);
  pair_sums_amx({o.a, o.b}, whole, store);
  if (whole < n)
    for (uint32_t r = 0; r < 16; r += 8) rows_avx2<8, 1>(A, B, r, whole, store);
}

// The low words (f32 bits) of four lanes.
__attribute__((target("avx2"), always_inline)) inline __m128 low_words(const uint64_t* lanes) {
  const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes));
  return _mm256_castps256_ps128(
      _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(bits, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6))));
}

// wgmma: columns c0..c0+7 of row r, the even ones into register 4(c0/8) + 2(r/8), the odd ones
// into the next, lanes 4(r%8) .. +3 (facts §1.5); D = old + S in float, rounded once (the
// bits of f32(double(old) + S): tensor_sums.cpp), the lanes' high words zero.
struct RegisterStore {
  uint64_t* const* d;
  bool scale_d;
  __attribute__((target("avx2,fma"), always_inline)) void row8(uint32_t r, uint32_t c0, __m256 sum) const {
    const uint32_t reg = 4 * (c0 / 8) + 2 * (r / 8), lane0 = 4 * (r % 8);
    uint64_t* const even = d[reg] + lane0;
    uint64_t* const odd = d[reg + 1] + lane0;
    const __m256 split = _mm256_permutevar8x32_ps(sum, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
    const __m256 old = scale_d ? _mm256_set_m128(low_words(odd), low_words(even)) : _mm256_setzero_ps();
    const __m256i out = _mm256_castps_si256(_mm256_add_ps(old, split));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(even), _mm256_cvtepu32_epi64(_mm256_castsi256_si128(out)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(odd), _mm256_cvtepu32_epi64(_mm256_extracti128_si256(out, 1)));
  }
};

// wgmma, AVX-512: columns c0..c0+15 of rows r and r + 1 (r even). Of columns c0..c0+7 the even
// ones sit in register 4(c0/8) + 2(r/8), lanes 4(r%8) .. +7 (row r's four, then row r+1's),
// the odd ones in the next register; columns c0+8..c0+15 the same four registers on. Each of
// those 8-lane pieces is one permute of the two rows' sums into the even words, the odd (high)
// words zero, and one masked add of the lanes' old bits in place: the even words get
// f32(old + S), the odd ones zero, the lanes as the map wants them. (The zero-masked forms with
// every lane set give the plain ones' results; GCC 12 warns of the plain ones' undefined
// pass-through operand.)
struct RegisterStore512 : RegisterStore {
  __attribute__((target("avx512f,avx2,fma"), always_inline)) void add8(uint64_t* lanes, __m512 sum) const {
    const __m512 old = scale_d ? _mm512_loadu_ps(lanes) : _mm512_setzero_ps();
    _mm512_storeu_ps(lanes, _mm512_maskz_add_ps(0x5555, old, sum));
  }
  __attribute__((target("avx512f,avx2,fma"), always_inline)) void pair16(uint32_t r, uint32_t c0, __m512 row0,
                                                                         __m512 row1) const {
    const uint32_t reg = 4 * (c0 / 8) + 2 * (r / 8), lane0 = 4 * (r % 8);
    // Word 2i of a piece: row0's column j is element j, row1's is 16 + j; the odd words zero.
    const __m512i even_lo = _mm512_setr_epi32(0, 0, 2, 0, 4, 0, 6, 0, 16, 0, 18, 0, 20, 0, 22, 0);
    const __m512i one = _mm512_set1_epi32(1), eight = _mm512_set1_epi32(8);
    const __m512i odd_lo = _mm512_add_epi32(even_lo, one);
    // The four registers' lanes taken before any store: a store may alias the pointer table, so
    // the compiler would read each pointer again after the store before it, and that read waited
    // on the store (a fifth of the tile sums' time, perf annotate).
    uint64_t* const p0 = d[reg] + lane0;
    uint64_t* const p1 = d[reg + 1] + lane0;
    uint64_t* const p4 = d[reg + 4] + lane0;
    uint64_t* const p5 = d[reg + 5] + lane0;
    add8(p0, _mm512_maskz_permutex2var_ps(0x5555, row0, even_lo, row1));
    add8(p1, _mm512_maskz_permutex2var_ps(0x5555, row0, odd_lo, row1));
    add8(p4, _mm512_maskz_permutex2var_ps(0x5555, row0, _mm512_add_epi32(even_lo, eight), row1));
    add8(p5, _mm512_maskz_permutex2var_ps(0x5555, row0, _mm512_add_epi32(odd_lo, eight), row1));
  }
};

// tcgen05: neighbouring cells of tensor-memory rows (f32 bits), D = old + S in float.
struct CellStore {
  uint32_t* cells;
  size_t row_stride;
  bool accumulate;
  __attribute__((target("avx2,fma"), always_inline)) void row8(uint32_t r, uint32_t c0, __m256 sum) const {
    float* p = reinterpret_cast<float*>(cells + r * row_stride + c0);
    _mm256_storeu_ps(p, _mm256_add_ps(accumulate ? _mm256_loadu_ps(p) : _mm256_setzero_ps(), sum));
  }
  __attribute__((target("avx512f,avx2,fma"), always_inline)) void add16(float* p, __m512 sum) const {
    _mm512_storeu_ps(p, _mm512_add_ps(accumulate ? _mm512_loadu_ps(p) : _mm512_setzero_ps(), sum));
  }
  __attribute__((target("avx512f,avx2,fma"), always_inline)) void pair16(uint32_t r, uint32_t c0, __m512 row0,
                                                                         __m512 row1) const {
    add16(reinterpret_cast<float*>(cells + r * row_stride + c0), row0);
    add16(reinterpret_cast<float*>(cells + (r + 1) * row_stride + c0), row1);
  }
};

__attribute__((target("avx512f,avx512bf16,avx2,fma"))) void wgmma_integers_bf16(const float (&A)[16][16],
                                                                                const float (&B)[16][256], uint32_t n,
                                                                                uint64_t* const* d, bool scale_d) {
  RegisterStore512 store{{d, scale_d}};
  sums_bf16(A, B, n, store);
}

__attribute__((target("avx512f,avx512bf16,avx2,fma"))) void tmem_integers_bf16(const float (&A)[16][16],
                                                                               const float (&B)[16][256], uint32_t n,
                                                                               uint32_t* cells, size_t row_stride,
                                                                               bool accumulate) {
  CellStore store{cells, row_stride, accumulate};
  sums_bf16(A, B, n, store);
}

__attribute__((target("amx-tile,amx-bf16,avx512f,avx512bf16,avx2,fma"))) void wgmma_integers_amx(
    const float (&A)[16][16], const float (&B)[16][256], uint32_t n, uint64_t* const* d, bool scale_d) {
  RegisterStore512 store{{d, scale_d}};
  sums_amx(A, B, n, store);
}

__attribute__((target("amx-tile,amx-bf16,avx512f,avx512bf16,avx2,fma"))) void wgmma_pairs_amx(
    const PairsRef& o, uint32_t whole, uint64_t* const* d, bool scale_d) {
  RegisterStore512 store{{d, scale_d}};
  pair_sums_amx(o, whole, store);
}

__attribute__((target("avx512f,avx512bf16,avx2,fma"))) void wgmma_pairs_bf16(const PairsRef& o, uint32_t whole,
                                                                            uint64_t* const* d, bool scale_d) {
  RegisterStore512 store{{d, scale_d}};
  pair_sums_bf16(o, whole, store);
}

__attribute__((target("amx-tile,amx-bf16,avx512f,avx512bf16,avx2,fma"))) void tmem_integers_amx(
    const float (&A)[16][16], const float (&B)[16][256], uint32_t n, uint32_t* cells, size_t row_stride,
    bool accumulate) {
  CellStore store{cells, row_stride, accumulate};
  sums_amx(A, B, n, store);
}

__attribute__((target("avx512f,avx2,fma"))) void wgmma_integers_avx512(const float (&A)[16][16],
                                                                       const float (&B)[16][256], uint32_t n,
                                                                       uint64_t* const* d, bool scale_d) {
  RegisterStore512 store{{d, scale_d}};
  sums_avx512(A, B, n, store);
}

__attribute__((target("avx512f,avx2,fma"))) void tmem_integers_avx512(const float (&A)[16][16],
                                                                      const float (&B)[16][256], uint32_t n,
                                                                      uint32_t* cells, size_t row_stride,
                                                                      bool accumulate) {
  CellStore store{cells, row_stride, accumulate};
  sums_avx512(A, B, n, store);
}

__attribute__((target("avx2,fma"))) void wgmma_integers_avx2(const float (&A)[16][16], const float (&B)[16][256],
                                                             uint32_t n, uint64_t* const* d, bool scale_d) {
  RegisterStore store{d, scale_d};
  sums_avx2(A, B, n, store);
}

// mma.sync m16n8k16: the 8 columns of all 16 rows, eight rows at a time (eight chains sharing
// each load of B's row k; 256-bit registers: 8 columns are one).
__attribute__((target("avx2,fma"))) void mma_integers_avx2(const float (&A)[16][16], const float (&B)[16][8],
                                                           uint64_t* const* d) {
  RegisterStore store{d, true};
  rows_avx2<8, 1>(A, B, 0, 0, store);
  rows_avx2<8, 1>(A, B, 8, 0, store);
}

// The same sums, stored a row pair at a time: rows r and r + 1 fill lanes 4(r%8) .. +7 of
// register 2(r/8) (even columns) and of the next (odd ones), each piece one permute of the two
// rows' sums and RegisterStore512::add8.
__attribute__((target("avx512f,avx2,fma"))) void mma_integers_avx512(const float (&A)[16][16],
                                                                     const float (&B)[16][8], uint64_t* const* d) {
  const RegisterStore512 store{{d, true}};
  // Word 2i: the first row's column 2i (i < 4), else the second's column 2(i - 4); odd words zero.
  const __m512i even = _mm512_setr_epi32(0, 0, 2, 0, 4, 0, 6, 0, 16, 0, 18, 0, 20, 0, 22, 0);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  for (uint32_t r0 = 0; r0 < 16; r0 += 8) {
    __m256 s[8];
#pragma GCC unroll 8
    for (uint32_t i = 0; i < 8; ++i) s[i] = _mm256_setzero_ps();
#pragma GCC unroll 16
    for (uint32_t k = 0; k < 16; ++k) {
      const __m256 b = _mm256_load_ps(B[k]);
#pragma GCC unroll 8
      for (uint32_t i = 0; i < 8; ++i) s[i] = _mm256_fmadd_ps(_mm256_broadcast_ss(&A[r0 + i][k]), b, s[i]);
    }
#pragma GCC unroll 4
    for (uint32_t i = 0; i < 8; i += 2) {
      const uint32_t r = r0 + i, reg = 2 * (r / 8), lane0 = 4 * (r % 8);
      // Each row's 8 sums in the low half (a masked broadcast: _mm512_zextps256_ps512 makes GCC 12
      // warn of its undefined pass-through operand); the permutes read only words 0..7 and 16..23.
      const __m512 row0 = _mm512_castpd_ps(_mm512_maskz_broadcast_f64x4(0xFF, _mm256_castps_pd(s[i])));
      const __m512 row1 = _mm512_castpd_ps(_mm512_maskz_broadcast_f64x4(0xFF, _mm256_castps_pd(s[i + 1])));
      uint64_t* const even_lanes = d[reg] + lane0;  // both before either store (RegisterStore512)
      uint64_t* const odd_lanes = d[reg + 1] + lane0;
      store.add8(even_lanes, _mm512_maskz_permutex2var_ps(0x5555, row0, even, row1));
      store.add8(odd_lanes, _mm512_maskz_permutex2var_ps(0x5555, row0, odd, row1));
    }
  }
}

__attribute__((target("avx2,fma"))) void tmem_integers_avx2(const float (&A)[16][16], const float (&B)[16][256],
                                                            uint32_t n, uint32_t* cells, size_t row_stride,
                                                            bool accumulate) {
  CellStore store{cells, row_stride, accumulate};
  sums_avx2(A, B, n, store);
}
// Whether the `count` words (a multiple of 16) hold bf16 pairs of integers of at most 256.
__attribute__((target("avx512f,avx512bw,avx2"))) bool pairs_integers_avx512(const uint32_t* words, size_t count) {
  __m512i fraction = _mm512_setzero_si512(), top = _mm512_setzero_si512();
  for (size_t i = 0; i < count; i += 16) fold_bf16_integers(_mm512_loadu_si512(words + i), fraction, top);
  return integers(fraction, top);
}

// Columns' pairs into pair rows, 16 columns at a time: the 8 registers of two columns each (word
// 8(c % 2) + p) become 8 of one pair each (word c) in three rounds of two-register permutes
// (register j: columns 2j, 2j + 1). Round 1: four columns' pairs 0..3 (word 4p + c % 4) and pairs
// 4..7; round 2: eight columns' pairs {2g, 2g + 1} (word 8(p % 2) + c % 8); round 3: sixteen
// columns' pair p (word c).
struct TransposeIndices {
  alignas(64) int32_t round1[2][16], round2[2][16], round3[2][16];
  TransposeIndices() {
    for (int i = 0; i < 16; ++i)
      for (int h = 0; h < 2; ++h) {
        const int p = 4 * h + i / 4, c = i % 4;  // round 1, half h: from columns 0..3 (registers a: 0, 1; b: 2, 3)
        round1[h][i] = c < 2 ? 8 * c + p : 16 + 8 * (c - 2) + p;
        const int e = i / 8, c8 = i % 8;  // round 2, pair 2g + e of the half's four (g = h): from 4h..4h+3
        const int p4 = 2 * h + e;         // its place among the four pairs of round 1's half
        round2[h][i] = c8 < 4 ? 4 * p4 + c8 : 16 + 4 * p4 + (c8 - 4);
        const int c16 = i;  // round 3, pair parity h: columns 0..7 from a, 8..15 from b
        round3[h][i] = c16 < 8 ? 8 * h + c16 : 16 + 8 * h + (c16 - 8);
      }
  }
};

__attribute__((target("avx512f,avx2"))) void columns_into_pairs_avx512(const uint32_t (*columns)[8], uint32_t n,
                                                                       uint32_t (&pairs)[8][256]) {
  static const TransposeIndices t;
  const __m512i r1[2] = {_mm512_load_si512(t.round1[0]), _mm512_load_si512(t.round1[1])};
  const __m512i r2[2] = {_mm512_load_si512(t.round2[0]), _mm512_load_si512(t.round2[1])};
  const __m512i r3[2] = {_mm512_load_si512(t.round3[0]), _mm512_load_si512(t.round3[1])};
  for (uint32_t c0 = 0; c0 < n; c0 += 16) {
    __m512i R[8], T[4][2], V[2][2][2];
    for (uint32_t j = 0; j < 8; ++j) R[j] = _mm512_loadu_si512(columns[c0 + 2 * j]);
    for (uint32_t k = 0; k < 4; ++k)  // columns 4k .. 4k + 3, pairs 4h .. 4h + 3
      for (uint32_t h = 0; h < 2; ++h) T[k][h] = _mm512_permutex2var_epi32(R[2 * k], r1[h], R[2 * k + 1]);
    for (uint32_t m = 0; m < 2; ++m)  // columns 8m .. 8m + 7, pairs 4h + 2g, 4h + 2g + 1
      for (uint32_t h = 0; h < 2; ++h)
        for (uint32_t g = 0; g < 2; ++g) V[m][h][g] = _mm512_permutex2var_epi32(T[2 * m][h], r2[g], T[2 * m + 1][h]);
    for (uint32_t p = 0; p < 8; ++p)
      _mm512_storeu_si512(&pairs[p][c0], _mm512_permutex2var_epi32(V[0][p / 4][(p % 4) / 2], r3[p % 2],
                                                                   V[1][p / 4][(p % 4) / 2]));
  }
}

#endif

}  // namespace
}  // namespace integer_sums

float integer_bound(const float* values, size_t count, SumsBuild build) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (uses_avx512(build) && count % 16 == 0) return integer_sums::integer_bound_avx512(values, count);
  if (build != SumsBuild::plain && count % 8 == 0) return integer_sums::integer_bound_avx2(values, count);
#endif
  return integer_sums::integer_bound_plain(values, count);
}

bool wgmma_accumulate_integers(const float (&A)[16][16], const float (&B)[16][256], float b_bound, uint32_t n,
                               uint64_t* const* d, bool scale_d, SumsBuild build) {
  const float a_bound = integer_bound(&A[0][0], 16 * 16, build);
  if (!sums_fit_float(a_bound, b_bound)) return false;
#if defined(__x86_64__) && defined(__GNUC__)
  if (uses_bf16(build) && a_bound <= bf16_pairs::kBf16Integers && b_bound <= bf16_pairs::kBf16Integers) {
    if (build == SumsBuild::amx_bf16) integer_sums::wgmma_integers_amx(A, B, n, d, scale_d);
    else integer_sums::wgmma_integers_bf16(A, B, n, d, scale_d);
    return true;
  }
  if (uses_avx512(build)) {
    integer_sums::wgmma_integers_avx512(A, B, n, d, scale_d);
    return true;
  }
  if (build == SumsBuild::avx2) {
    integer_sums::wgmma_integers_avx2(A, B, n, d, scale_d);
    return true;
  }
#endif
  // Row r, column c: register 4(c/8) + 2(r/8) + c%2, lane 4(r%8) + (c%8)/2.
  integer_sums::sums_generic(A, B, n, [&](uint32_t r, uint32_t c, float sum) {
    uint64_t& v = d[4 * (c / 8) + 2 * (r / 8) + c % 2][4 * (r % 8) + (c % 8) / 2];
    v = from_f32((scale_d ? as_f32(v) : 0.0f) + sum);
  });
  return true;
}

bool wgmma_accumulate_pairs(const uint32_t (&a)[16][8], const uint32_t (*b)[256], uint32_t n, uint64_t* const* d,
                            bool scale_d, SumsBuild build) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool bw = __builtin_cpu_supports("avx512bw") != 0;
  if (!uses_bf16(build) || !bw || b == nullptr || n % 16 != 0 || !integer_sums::pairs_integers_avx512(&a[0][0], 16 * 8))
    return false;
  const integer_sums::PairsRef o{a, b};
  if (build == SumsBuild::amx_bf16) integer_sums::wgmma_pairs_amx(o, n, d, scale_d);
  else integer_sums::wgmma_pairs_bf16(o, n, d, scale_d);
  return true;
#else
  (void)a, (void)b, (void)n, (void)d, (void)scale_d, (void)build;
  return false;
#endif
}

bool pairs_integers(const uint32_t* words, size_t count) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool bw = cpu_has_avx512() && __builtin_cpu_supports("avx512bw") != 0;
  if (bw && count % 16 == 0) return integer_sums::pairs_integers_avx512(words, count);
#endif
  for (size_t i = 0; i < 2 * count; ++i) {
    const float v = bf16_to_f32(uint16_t(words[i / 2] >> (16 * (i % 2))));
    if (!(v == std::trunc(v) && std::fabs(v) <= bf16_pairs::kBf16Integers)) return false;
  }
  return true;
}

void columns_into_pairs(const uint32_t (*columns)[8], uint32_t n, uint32_t (&pairs)[8][256]) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (n % 16 == 0 && cpu_has_avx512()) return integer_sums::columns_into_pairs_avx512(columns, n, pairs);
#endif
  for (uint32_t c = 0; c < n; ++c)
    for (uint32_t p = 0; p < 8; ++p) pairs[p][c] = columns[c][p];
}

void bf16_pairs_of_rows(const float (&B)[16][256], uint32_t n, uint32_t (&pairs)[8][256]) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (n % 16 == 0 && cpu_has_avx512()) return integer_sums::b_rows_to_pairs(B, n, pairs);
#endif
  for (uint32_t p = 0; p < 8; ++p)
    for (uint32_t c = 0; c < n; ++c)
      pairs[p][c] = std::bit_cast<uint32_t>(B[2 * p][c]) >> 16 | (std::bit_cast<uint32_t>(B[2 * p + 1][c]) & 0xFFFF0000u);
}

bool tmem_accumulate_integers(const float (&A)[16][16], const float (&B)[16][256], float b_bound, uint32_t n,
                              uint32_t* cells, size_t row_stride, bool accumulate, SumsBuild build) {
  const float a_bound = integer_bound(&A[0][0], 16 * 16, build);
  if (!sums_fit_float(a_bound, b_bound)) return false;
#if defined(__x86_64__) && defined(__GNUC__)
  if (uses_bf16(build) && a_bound <= bf16_pairs::kBf16Integers && b_bound <= bf16_pairs::kBf16Integers) {
    if (build == SumsBuild::amx_bf16) integer_sums::tmem_integers_amx(A, B, n, cells, row_stride, accumulate);
    else integer_sums::tmem_integers_bf16(A, B, n, cells, row_stride, accumulate);
    return true;
  }
  if (uses_avx512(build)) {
    integer_sums::tmem_integers_avx512(A, B, n, cells, row_stride, accumulate);
    return true;
  }
  if (build == SumsBuild::avx2) {
    integer_sums::tmem_integers_avx2(A, B, n, cells, row_stride, accumulate);
    return true;
  }
#endif
  integer_sums::sums_generic(A, B, n, [&](uint32_t r, uint32_t c, float sum) {
    uint32_t& cell = cells[r * row_stride + c];
    cell = uint32_t(from_f32((accumulate ? as_f32(cell) : 0.0f) + sum));
  });
  return true;
}

bool mma_accumulate_integers(const float (&A)[16][16], const float (&B)[16][8], float a_bound, float b_bound,
                             uint64_t* const* d, SumsBuild build) {
  if (!sums_fit_float(a_bound, b_bound)) return false;
#if defined(__x86_64__) && defined(__GNUC__)
  if (uses_avx512(build)) {
    integer_sums::mma_integers_avx512(A, B, d);
    return true;
  }
  if (build == SumsBuild::avx2) {
    integer_sums::mma_integers_avx2(A, B, d);
    return true;
  }
#endif
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t c = 0; c < 8; ++c) {
      float sum = 0.0f;
      for (uint32_t k = 0; k < 16; ++k) sum += A[r][k] * B[k][c];
      uint64_t& v = d[2 * (r / 8) + c % 2][4 * (r % 8) + c / 2];
      v = from_f32(as_f32(v) + sum);
    }
  return true;
}

}  // namespace gs::model
