// The sums of the tensor cores' 16-row blocks: wgmma's (into a warp's accumulator registers)
// and tcgen05.mma's (into tensor memory). One order of operations for both, the model's
// documented semantics: S[r][c] = sum over k = 0..15, in that order, of A[r][k] · B[k][c], the
// product taken exactly and the sum rounded in double once per k; D = f32(double(old) + S)
// rounds once more (old = 0 without accumulate). A bf16 × bf16 product has at most 16
// significant bits, so it is exact in double (and in float, where it neither overflows nor falls
// below float's normal range: until 2026-11-28 the model took it in float first, which differed
// from this only there), and a fused multiply-add rounds as the add alone: the AVX2+FMA and
// AVX-512F builds give the same bits as the plain one. Each (r, c) keeps its own chain over
// k, so the order in which rows and columns are taken changes nothing.
//
// Blocks of small integers (the model's default inputs) take the same sums in float
// (tensor_sums_integers.cpp), which gives these bits. Where every A and B of the block is an
// integer and max|A| · max|B| ≤ 2^20, each product is an integer of at most 2^20 and each
// partial sum of at most 16 of them one of at most 2^24: exact in float as in double. The float
// chains take the same round-to-nearest operations from the same +0, each exact, so they end on
// the same S, the sign of a zero included (an exact sum that is zero is +0 from a +0 start, in
// either width). Then D: old and S are floats, and f32(double(old) + S) rounds the exact sum to
// double and that to float; double has 53 ≥ 2 · 24 + 2 significant bits, so the two roundings
// give the one rounding to float that the float add old + S makes (the innocuous double
// rounding of +, Figueroa 1995), infinities, overflow and a NaN old (kept quiet, its payload
// unchanged either way) included. A block with a NaN, an infinity, a fraction or a larger
// bound takes the double sums here. With AVX512_BF16, integers of at most 256 (exact in bf16)
// take two products a lane (vdpbf16ps): the grouping of the additions differs, but every sum
// of exact integer products under 2^24 is exact, so S is the same (and +0 where it is zero).
#include <cstdint>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "engine/model/decode.hpp"
#include "engine/model/tensor_core.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

namespace {

// Every (r, c) of the block, column blocks of 8 (a fixed inner length the compiler can
// vectorise), handed to store(r, c, sum).
template <class Store>
[[gnu::always_inline]] inline void sums_generic(const double (&A)[16][16], const double (&B)[16][256], uint32_t n,
                                                Store&& store) {
  for (uint32_t r = 0; r < 16; ++r) {
    for (uint32_t c0 = 0; c0 < n; c0 += 8) {
      double sum[8] = {};
      for (uint32_t k = 0; k < 16; ++k) {
        const double a = A[r][k];
#pragma GCC unroll 8
        for (uint32_t j = 0; j < 8; ++j) sum[j] += a * B[k][c0 + j];
      }
      for (uint32_t j = 0; j < 8; ++j) store(r, c0 + j, sum[j]);
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// Rows r and r + 1 over 4 · kVecs columns from c0: 2 · kVecs chains of fused multiply-adds that
// share each load of B (one chain per row was bound by the adds' latency and by the loads). The
// sums go to store(row, c, lo, hi): columns c..c+3 and c+4..c+7 of one row.
template <uint32_t kVecs, class Store>
__attribute__((target("avx2,fma"), always_inline)) inline void row_pair_avx2(const double (&A)[16][16],
                                                                            const double (&B)[16][256], uint32_t r,
                                                                            uint32_t c0, Store& store) {
  __m256d s[2][kVecs];
#pragma GCC unroll 4
  for (uint32_t v = 0; v < kVecs; ++v) s[0][v] = s[1][v] = _mm256_setzero_pd();
#pragma GCC unroll 16
  for (uint32_t k = 0; k < 16; ++k) {
    const __m256d a0 = _mm256_broadcast_sd(&A[r][k]), a1 = _mm256_broadcast_sd(&A[r + 1][k]);
#pragma GCC unroll 4
    for (uint32_t v = 0; v < kVecs; ++v) {
      const __m256d b = _mm256_load_pd(&B[k][c0 + 4 * v]);
      s[0][v] = _mm256_fmadd_pd(a0, b, s[0][v]);
      s[1][v] = _mm256_fmadd_pd(a1, b, s[1][v]);
    }
  }
#pragma GCC unroll 4
  for (uint32_t v = 0; v < kVecs; v += 2) {
    store(r, c0 + 4 * v, s[0][v], s[0][v + 1]);
    store(r + 1, c0 + 4 * v, s[1][v], s[1][v + 1]);
  }
}

// 16 columns at a time, 8 when fewer are left (N is a multiple of 8).
template <class Store>
__attribute__((target("avx2,fma"), always_inline)) inline void sums_avx2(const double (&A)[16][16],
                                                                        const double (&B)[16][256], uint32_t n,
                                                                        Store& store) {
  for (uint32_t r = 0; r < 16; r += 2) {
    uint32_t c0 = 0;
    for (; c0 + 16 <= n; c0 += 16) row_pair_avx2<4>(A, B, r, c0, store);
    if (c0 < n) row_pair_avx2<2>(A, B, r, c0, store);
  }
}

// The same with AVX-512: rows r and r + 1 over 8 · kVecs columns, each 512-bit sum handed on
// as its two halves (8 columns of one row; masked extracts: GCC 12 warns of the plain ones'
// undefined pass-through).
template <uint32_t kVecs, class Store>
__attribute__((target("avx512f,avx2,fma"), always_inline)) inline void row_pair_avx512(const double (&A)[16][16],
                                                                                      const double (&B)[16][256],
                                                                                      uint32_t r, uint32_t c0,
                                                                                      Store& store) {
  __m512d s[2][kVecs];
#pragma GCC unroll 4
  for (uint32_t v = 0; v < kVecs; ++v) s[0][v] = s[1][v] = _mm512_setzero_pd();
#pragma GCC unroll 16
  for (uint32_t k = 0; k < 16; ++k) {
    const __m512d a0 = _mm512_set1_pd(A[r][k]), a1 = _mm512_set1_pd(A[r + 1][k]);
#pragma GCC unroll 4
    for (uint32_t v = 0; v < kVecs; ++v) {
      const __m512d b = _mm512_load_pd(&B[k][c0 + 8 * v]);
      s[0][v] = _mm512_fmadd_pd(a0, b, s[0][v]);
      s[1][v] = _mm512_fmadd_pd(a1, b, s[1][v]);
    }
  }
#pragma GCC unroll 4
  for (uint32_t v = 0; v < kVecs; ++v) store.pair512(r, c0 + 8 * v, s[0][v], s[1][v]);
}

// Rows r .. r + 3 over 32 columns from c0: 16 chains, each load of B shared by four rows and
// each broadcast of A by four registers (a row pair over 32 columns spent 6 loads on 8 fused
// multiply-adds; this spends 8 on 16).
template <class Store>
__attribute__((target("avx512f,avx2,fma"), always_inline)) inline void row_quad_avx512(const double (&A)[16][16],
                                                                                      const double (&B)[16][256],
                                                                                      uint32_t r, uint32_t c0,
                                                                                      Store& store) {
  __m512d s[4][4];
#pragma GCC unroll 4
  for (uint32_t i = 0; i < 4; ++i)
#pragma GCC unroll 4
    for (uint32_t v = 0; v < 4; ++v) s[i][v] = _mm512_setzero_pd();
#pragma GCC unroll 16
  for (uint32_t k = 0; k < 16; ++k) {
    __m512d b[4];
#pragma GCC unroll 4
    for (uint32_t v = 0; v < 4; ++v) b[v] = _mm512_load_pd(&B[k][c0 + 8 * v]);
#pragma GCC unroll 4
    for (uint32_t i = 0; i < 4; ++i) {
      const __m512d a = _mm512_set1_pd(A[r + i][k]);
#pragma GCC unroll 4
      for (uint32_t v = 0; v < 4; ++v) s[i][v] = _mm512_fmadd_pd(a, b[v], s[i][v]);
    }
  }
#pragma GCC unroll 4
  for (uint32_t v = 0; v < 4; ++v) {
    store.pair512(r, c0 + 8 * v, s[0][v], s[1][v]);
    store.pair512(r + 2, c0 + 8 * v, s[2][v], s[3][v]);
  }
}

// 32 columns at a time (four rows together), then 16, then 8 (row pairs). The columns are the
// outer loop: a block of B's 32 columns (4 KB) is read from L1 by the four row quads after the
// first brought it there (B of N = 256 is all of L1's 32 KB: taken rows first, each quad read
// it from L2), and the quads' sums land in the same 16 registers while they are in L1.
template <class Store>
__attribute__((target("avx512f,avx2,fma"), always_inline)) inline void sums_avx512(const double (&A)[16][16],
                                                                                  const double (&B)[16][256],
                                                                                  uint32_t n, Store& store) {
  const uint32_t wide = n / 32 * 32;
  for (uint32_t c0 = 0; c0 < wide; c0 += 32)
    for (uint32_t r = 0; r < 16; r += 4) row_quad_avx512(A, B, r, c0, store);
  for (uint32_t r = 0; r < 16; r += 2) {
    uint32_t c0 = wide;
    if (c0 + 16 <= n) {
      row_pair_avx512<2>(A, B, r, c0, store);
      c0 += 16;
    }
    if (c0 < n) row_pair_avx512<1>(A, B, r, c0, store);
  }
}

// wgmma: four lanes of one register, D = f32(double(old) + sum).
__attribute__((target("avx2,fma"))) inline void accumulate_lanes_avx2(uint64_t* d, __m256d sum, bool scale_d) {
  const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d));
  // The low word of each lane (the f32 bits), gathered into the low 4 words.
  const __m128 old = scale_d ? _mm256_castps256_ps128(_mm256_castsi256_ps(
                                   _mm256_permutevar8x32_epi32(bits, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6))))
                             : _mm_setzero_ps();
  const __m128 out = _mm256_cvtpd_ps(_mm256_add_pd(_mm256_cvtps_pd(old), sum));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), _mm256_cvtepu32_epi64(_mm_castps_si128(out)));
}

// wgmma: columns c0..c0+7 of row r (lo: c0..c0+3, hi: c0+4..c0+7) into their two registers,
// the even columns into register 4(c0/8) + 2(r/8), the odd ones into the next, lanes
// 4(r%8) .. +3 (facts §1.5).
struct RegisterStore {
  uint64_t* const* d;
  bool scale_d;
  __attribute__((target("avx2,fma"), always_inline)) void operator()(uint32_t r, uint32_t c0, __m256d lo,
                                                                     __m256d hi) const {
    const uint32_t reg = 4 * (c0 / 8) + 2 * (r / 8), lane0 = 4 * (r % 8);
    const __m256d even = _mm256_permute4x64_pd(_mm256_unpacklo_pd(lo, hi), 0xD8);  // c0, c0+2, c0+4, c0+6
    const __m256d odd = _mm256_permute4x64_pd(_mm256_unpackhi_pd(lo, hi), 0xD8);   // c0+1, c0+3, ...
    accumulate_lanes_avx2(d[reg] + lane0, even, scale_d);
    accumulate_lanes_avx2(d[reg + 1] + lane0, odd, scale_d);
  }
};

// wgmma, AVX-512: columns c0..c0+7 of rows r and r + 1 (r even) at once. Their even columns
// sit in one register's lanes 4(r%8) .. +7 (row r's four, then row r+1's), the odd ones in
// the next register's: one 8-lane load, add and store each. (The conversions are the zero-masked
// forms with every lane set: the same results, and GCC 12 warns of the plain ones' undefined
// pass-through operand.)
__attribute__((target("avx512f,avx2,fma"))) inline void accumulate_lanes_avx512(uint64_t* d, __m512d sum,
                                                                                bool scale_d) {
  const __m512i bits = _mm512_loadu_si512(d);
  const __m256 old = scale_d ? _mm256_castsi256_ps(_mm512_maskz_cvtepi64_epi32(0xFF, bits)) : _mm256_setzero_ps();
  const __m256 out = _mm512_maskz_cvtpd_ps(0xFF, _mm512_add_pd(_mm512_maskz_cvtps_pd(0xFF, old), sum));
  _mm512_storeu_si512(d, _mm512_maskz_cvtepu32_epi64(0xFF, _mm256_castps_si256(out)));
}

struct RegisterStore512 : RegisterStore {
  __attribute__((target("avx512f,avx2,fma"), always_inline)) void pair512(uint32_t r, uint32_t c0, __m512d row0,
                                                                          __m512d row1) const {
    const uint32_t reg = 4 * (c0 / 8) + 2 * (r / 8), lane0 = 4 * (r % 8);
    const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
    accumulate_lanes_avx512(d[reg] + lane0, _mm512_permutex2var_pd(row0, even, row1), scale_d);
    accumulate_lanes_avx512(d[reg + 1] + lane0, _mm512_permutex2var_pd(row0, odd, row1), scale_d);
  }
};

// tcgen05: eight neighbouring cells of one tensor-memory row (f32 bits).
struct CellStore {
  uint32_t* cells;
  size_t row_stride;
  bool accumulate;
  __attribute__((target("avx2,fma"), always_inline)) void add4(float* p, __m256d sum) const {
    const __m128 old = accumulate ? _mm_loadu_ps(p) : _mm_setzero_ps();
    _mm_storeu_ps(p, _mm256_cvtpd_ps(_mm256_add_pd(_mm256_cvtps_pd(old), sum)));
  }
  __attribute__((target("avx2,fma"), always_inline)) void operator()(uint32_t r, uint32_t c0, __m256d lo,
                                                                     __m256d hi) const {
    float* p = reinterpret_cast<float*>(cells + r * row_stride + c0);
    add4(p, lo);
    add4(p + 4, hi);
  }
  // AVX-512: columns c0..c0+7 of rows r and r + 1.
  __attribute__((target("avx512f,avx2,fma"), always_inline)) void add8(float* p, __m512d sum) const {
    const __m256 old = accumulate ? _mm256_loadu_ps(p) : _mm256_setzero_ps();
    _mm256_storeu_ps(p, _mm512_maskz_cvtpd_ps(0xFF, _mm512_add_pd(_mm512_maskz_cvtps_pd(0xFF, old), sum)));
  }
  __attribute__((target("avx512f,avx2,fma"), always_inline)) void pair512(uint32_t r, uint32_t c0, __m512d row0,
                                                                          __m512d row1) const {
    add8(reinterpret_cast<float*>(cells + r * row_stride + c0), row0);
    add8(reinterpret_cast<float*>(cells + (r + 1) * row_stride + c0), row1);
  }
};

__attribute__((target("avx512f,avx2,fma"))) void wgmma_accumulate_avx512(const double (&A)[16][16],
                                                                         const double (&B)[16][256], uint32_t n,
                                                                         uint64_t* const* d, bool scale_d) {
  RegisterStore512 store{{d, scale_d}};
  sums_avx512(A, B, n, store);
}

__attribute__((target("avx512f,avx2,fma"))) void tmem_accumulate_avx512(const double (&A)[16][16],
                                                                        const double (&B)[16][256], uint32_t n,
                                                                        uint32_t* cells, size_t row_stride,
                                                                        bool accumulate) {
  CellStore store{cells, row_stride, accumulate};
  sums_avx512(A, B, n, store);
}

__attribute__((target("avx2,fma"))) void wgmma_accumulate_avx2(const double (&A)[16][16], const double (&B)[16][256],
                                                               uint32_t n, uint64_t* const* d, bool scale_d) {
  RegisterStore store{d, scale_d};
  sums_avx2(A, B, n, store);
}

__attribute__((target("avx2,fma"))) void tmem_accumulate_avx2(const double (&A)[16][16], const double (&B)[16][256],
                                                              uint32_t n, uint32_t* cells, size_t row_stride,
                                                              bool accumulate) {
  CellStore store{cells, row_stride, accumulate};
  sums_avx2(A, B, n, store);
}

// mma.sync m16n8k16: the 8 columns of every row fit one AVX-512 register, so eight rows at a
// time are eight independent chains sharing each load of B's row k (a row pair, as wgmma's
// sums take them, would leave two chains waiting on the adds' latency).
__attribute__((target("avx512f,avx2,fma"))) void mma_accumulate_avx512(const double (&A)[16][16],
                                                                       const double (&B)[16][8], uint64_t* const* d) {
  RegisterStore512 store{{d, true}};
  for (uint32_t r0 = 0; r0 < 16; r0 += 8) {
    __m512d s[8];
#pragma GCC unroll 8
    for (uint32_t i = 0; i < 8; ++i) s[i] = _mm512_setzero_pd();
#pragma GCC unroll 16
    for (uint32_t k = 0; k < 16; ++k) {
      const __m512d b = _mm512_load_pd(B[k]);
#pragma GCC unroll 8
      for (uint32_t i = 0; i < 8; ++i) s[i] = _mm512_fmadd_pd(_mm512_set1_pd(A[r0 + i][k]), b, s[i]);
    }
#pragma GCC unroll 4
    for (uint32_t i = 0; i < 8; i += 2) store.pair512(r0 + i, 0, s[i], s[i + 1]);
  }
}

// The same with AVX2: four rows at a time, each row's 8 columns in two registers (8 chains).
__attribute__((target("avx2,fma"))) void mma_accumulate_avx2(const double (&A)[16][16], const double (&B)[16][8],
                                                             uint64_t* const* d) {
  RegisterStore store{d, true};
  for (uint32_t r0 = 0; r0 < 16; r0 += 4) {
    __m256d lo[4], hi[4];
#pragma GCC unroll 4
    for (uint32_t i = 0; i < 4; ++i) lo[i] = hi[i] = _mm256_setzero_pd();
#pragma GCC unroll 16
    for (uint32_t k = 0; k < 16; ++k) {
      const __m256d b0 = _mm256_load_pd(B[k]), b1 = _mm256_load_pd(B[k] + 4);
#pragma GCC unroll 4
      for (uint32_t i = 0; i < 4; ++i) {
        const __m256d a = _mm256_broadcast_sd(&A[r0 + i][k]);
        lo[i] = _mm256_fmadd_pd(a, b0, lo[i]);
        hi[i] = _mm256_fmadd_pd(a, b1, hi[i]);
      }
    }
#pragma GCC unroll 4
    for (uint32_t i = 0; i < 4; ++i) store(r0 + i, 0, lo[i], hi[i]);
  }
}
#endif

}  // namespace

std::vector<SumsBuild> sums_builds() {
  std::vector<SumsBuild> builds{SumsBuild::plain};
#if defined(__x86_64__) && defined(__GNUC__)
  if (cpu_has_avx2_fma()) builds.push_back(SumsBuild::avx2);
  if (cpu_has_avx512()) builds.push_back(SumsBuild::avx512);
  if (cpu_has_avx512_bf16()) builds.push_back(SumsBuild::avx512_bf16);
  if (cpu_has_amx_bf16()) builds.push_back(SumsBuild::amx_bf16);
#endif
  return builds;
}

SumsBuild fastest_sums_build() {
  static const SumsBuild fastest = sums_builds().back();
  return fastest;
}

void wgmma_accumulate(const double (&A)[16][16], const double (&B)[16][256], uint32_t n, uint64_t* const* d,
                      bool scale_d, SumsBuild build) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (uses_avx512(build)) return wgmma_accumulate_avx512(A, B, n, d, scale_d);
  if (build == SumsBuild::avx2) return wgmma_accumulate_avx2(A, B, n, d, scale_d);
#endif
  // Row r, column c: register 4(c/8) + 2(r/8) + c%2, lane 4(r%8) + (c%8)/2.
  sums_generic(A, B, n, [&](uint32_t r, uint32_t c, double sum) {
    uint64_t& v = d[4 * (c / 8) + 2 * (r / 8) + c % 2][4 * (r % 8) + (c % 8) / 2];
    v = from_f32(float(double(scale_d ? as_f32(v) : 0.0f) + sum));
  });
}

void tmem_accumulate(const double (&A)[16][16], const double (&B)[16][256], uint32_t n, uint32_t* cells,
                     size_t row_stride, bool accumulate, SumsBuild build) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (uses_avx512(build)) return tmem_accumulate_avx512(A, B, n, cells, row_stride, accumulate);
  if (build == SumsBuild::avx2) return tmem_accumulate_avx2(A, B, n, cells, row_stride, accumulate);
#endif
  sums_generic(A, B, n, [&](uint32_t r, uint32_t c, double sum) {
    uint32_t& cell = cells[r * row_stride + c];
    cell = uint32_t(from_f32(float(double(accumulate ? as_f32(cell) : 0.0f) + sum)));
  });
}

void mma_accumulate(const double (&A)[16][16], const double (&B)[16][8], uint64_t* const* d, SumsBuild build) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (uses_avx512(build)) return mma_accumulate_avx512(A, B, d);
  if (build == SumsBuild::avx2) return mma_accumulate_avx2(A, B, d);
#endif
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t c = 0; c < 8; ++c) {
      double sum = 0.0;
      for (uint32_t k = 0; k < 16; ++k) sum += A[r][k] * B[k][c];
      uint64_t& v = d[2 * (r / 8) + c % 2][4 * (r % 8) + c / 2];
      v = from_f32(float(double(as_f32(v)) + sum));
    }
}

}  // namespace gs::model
