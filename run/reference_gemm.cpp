// The reference C = A·B in double (run/gemm_data.hpp). Every C[i][j] is the sum over
// k = 0..K-1, in that order, of A[i][k]·B[k][j]: a product of two floats has at most 48
// significant bits, so it is exact in double and each add rounds once; a fused multiply-add
// rounds the same way, and any blocking that keeps k's order for each element (C is read,
// added to and written back between K blocks) gives the same bits. So the builds agree to the
// bit (tests/run/test_gemm_data.cpp checks it); they differ in speed only:
//   plain  — i-k-j over panels of B, the inner loop over a row of C (what the compiler makes
//            of it for the baseline x86-64: two doubles at a time, C through memory);
//   AVX2   — register tiles of 6 rows × 8 columns (12 accumulators), A and B packed;
//   AVX-512 — register tiles of 8 rows × 16 columns (16 accumulators).
// With integer inputs every sum is an exact integer in float too (below): the AVX2 and AVX-512
// builds then sum in float, twice the lanes, and the AVX-512 VNNI build in 32-bit integers, a
// pair of k a lane (vpdpwssd: 32 products an instruction, where float's fused multiply-add
// takes 16).
// The sim job checks every whole-grid run against it: at 4096³ that is 68.7 G multiply-adds,
// which the plain build took about 10 s for on one core (issue #32's 10-second target).
#include <algorithm>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "engine/model/decode.hpp"
#include "run/gemm_data.hpp"

namespace gs::run {

namespace {

// A panel of B (kKc rows of K by kNc columns) stays in the core's cache while every row block
// of A passes over it.
constexpr size_t kKc = 256, kNc = 512;

// C[i][j] += A[i][k]·B[k][j] for rows [i0, i1), columns [n0, n0 + nb), k in [k0, k0 + kb),
// k in order for each element: the plain build, and the edges of the others.
template <class T>
void add_block_plain(const GemmData& d, T* c, size_t i0, size_t i1, size_t n0, size_t nb, size_t k0, size_t kb) {
  const size_t N = d.shape.n, K = d.shape.k;
  for (size_t i = i0; i < i1; ++i) {
    T* __restrict crow = c + i * N + n0;
    const float* arow = d.a_values.data() + i * K + k0;
    for (size_t kk = 0; kk < kb; ++kk) {
      const T a = arow[kk];
      const float* brow = d.b_values.data() + (k0 + kk) * N + n0;
      for (size_t j = 0; j < nb; ++j) crow[j] += a * T(brow[j]);
    }
  }
}

void reference_plain(const GemmData& d, double* c) {
  const size_t M = d.shape.m, N = d.shape.n, K = d.shape.k;
  for (size_t n0 = 0; n0 < N; n0 += kNc)
    for (size_t k0 = 0; k0 < K; k0 += kKc)
      add_block_plain<double>(d, c, 0, M, n0, std::min(kNc, N - n0), k0, std::min(kKc, K - k0));
}

// The blocked builds: kMr rows by kNr columns a register tile. B's panel is packed strip by
// strip (kNr columns, k-major: bp[strip][kk][j]) and A's kMr rows k-major (ap[kk][r]), both in
// T (double, or float for integer inputs: below); full tiles go through `tile`, the edges
// through add_block_plain.
template <class T, size_t kMr, size_t kNr, class Tile>
void reference_blocked(const GemmData& d, T* c, Tile tile) {
  const size_t M = d.shape.m, N = d.shape.n, K = d.shape.k;
  std::vector<T> bp(kKc * kNc + 16), ap(kKc * kMr + 16);
  for (size_t n0 = 0; n0 < N; n0 += kNc) {
    const size_t nb = std::min(kNc, N - n0), strips = nb / kNr, full_cols = strips * kNr;
    for (size_t k0 = 0; k0 < K; k0 += kKc) {
      const size_t kb = std::min(kKc, K - k0);
      for (size_t s = 0; s < strips; ++s)
        for (size_t kk = 0; kk < kb; ++kk) {
          const float* brow = d.b_values.data() + (k0 + kk) * N + n0 + s * kNr;
          T* out = bp.data() + (s * kKc + kk) * kNr;
          for (size_t j = 0; j < kNr; ++j) out[j] = brow[j];
        }
      size_t i0 = 0;
      for (; i0 + kMr <= M; i0 += kMr) {
        for (size_t kk = 0; kk < kb; ++kk)
          for (size_t r = 0; r < kMr; ++r) ap[kk * kMr + r] = d.a_values[(i0 + r) * K + k0 + kk];
        for (size_t s = 0; s < strips; ++s) tile(ap.data(), bp.data() + s * kKc * kNr, kb, c + i0 * N + n0 + s * kNr, N);
        if (full_cols < nb) add_block_plain(d, c, i0, i0 + kMr, n0 + full_cols, nb - full_cols, k0, kb);
      }
      if (i0 < M) add_block_plain(d, c, i0, M, n0, nb, k0, kb);
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// Integer inputs with AVX-512 VNNI: every input is a small integer (in [-4, 4]: an int16), so a
// register tile of 8 rows by 32 columns keeps 32-bit integer sums, and vpdpwssd adds the products
// of two k at once, a[k]·b[k][j] + a[k+1]·b[k+1][j], into each: every sum is exact, as in float.
// ap: a pair of k of each row as one 32-bit word (a[k] in the low half), ap[p * 8 + r]; bp: the
// strip's columns with their pair of k side by side, bp[(p * 32 + j) * 2 + 0/1].
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void tile_avx512_vnni(const int32_t* ap, const int16_t* bp,
                                                                            size_t pairs, int32_t* ct, size_t ldc) {
  __m512i acc[8][2];
#pragma GCC unroll 8
  for (size_t r = 0; r < 8; ++r) {
    acc[r][0] = _mm512_loadu_si512(ct + r * ldc);
    acc[r][1] = _mm512_loadu_si512(ct + r * ldc + 16);
  }
  for (size_t p = 0; p < pairs; ++p) {
    const __m512i b0 = _mm512_loadu_si512(bp + p * 64), b1 = _mm512_loadu_si512(bp + p * 64 + 32);
#pragma GCC unroll 8
    for (size_t r = 0; r < 8; ++r) {
      const __m512i a = _mm512_set1_epi32(ap[p * 8 + r]);
      acc[r][0] = _mm512_dpwssd_epi32(acc[r][0], a, b0);
      acc[r][1] = _mm512_dpwssd_epi32(acc[r][1], a, b1);
    }
  }
#pragma GCC unroll 8
  for (size_t r = 0; r < 8; ++r) {
    _mm512_storeu_si512(ct + r * ldc, acc[r][0]);
    _mm512_storeu_si512(ct + r * ldc + 16, acc[r][1]);
  }
}

// reference_blocked's walk for the VNNI tiles: B's panel and A's 8 rows packed as int16 pairs of
// k (a K block of odd length pairs its last k with a zero), the edges through add_block_plain in
// 32-bit integers.
void reference_blocked_vnni(const GemmData& d, int32_t* c) {
  constexpr size_t kMr = 8, kNr = 32;
  const size_t M = d.shape.m, N = d.shape.n, K = d.shape.k;
  const auto small = [](float v) { return int16_t(v); };  // an integer input in [-4, 4]
  std::vector<int16_t> bp(kKc * kNc + 64);
  std::vector<int32_t> ap(kKc / 2 * kMr + 16);
  for (size_t n0 = 0; n0 < N; n0 += kNc) {
    const size_t nb = std::min(kNc, N - n0), strips = nb / kNr, full_cols = strips * kNr;
    for (size_t k0 = 0; k0 < K; k0 += kKc) {
      const size_t kb = std::min(kKc, K - k0), pairs = (kb + 1) / 2;
      for (size_t s = 0; s < strips; ++s)
        for (size_t p = 0; p < pairs; ++p)
          for (size_t h = 0; h < 2; ++h) {
            const size_t kk = 2 * p + h;
            const float* brow = d.b_values.data() + (k0 + kk) * N + n0 + s * kNr;
            int16_t* out = bp.data() + (s * (kKc / 2) + p) * kNr * 2 + h;
            for (size_t j = 0; j < kNr; ++j) out[2 * j] = kk < kb ? small(brow[j]) : int16_t(0);
          }
      size_t i0 = 0;
      for (; i0 + kMr <= M; i0 += kMr) {
        for (size_t p = 0; p < pairs; ++p)
          for (size_t r = 0; r < kMr; ++r) {
            const float* arow = d.a_values.data() + (i0 + r) * K + k0;
            const uint16_t lo = uint16_t(small(arow[2 * p])), hi = 2 * p + 1 < kb ? uint16_t(small(arow[2 * p + 1])) : 0;
            ap[p * kMr + r] = int32_t(uint32_t(lo) | uint32_t(hi) << 16);
          }
        for (size_t s = 0; s < strips; ++s)
          tile_avx512_vnni(ap.data(), bp.data() + s * (kKc / 2) * kNr * 2, pairs, c + i0 * N + n0 + s * kNr, N);
        if (full_cols < nb) add_block_plain(d, c, i0, i0 + kMr, n0 + full_cols, nb - full_cols, k0, kb);
      }
      if (i0 < M) add_block_plain(d, c, i0, M, n0, nb, k0, kb);
    }
  }
}

bool cpu_has_avx512_vnni() {
  static const bool vnni = model::cpu_has_avx512() && __builtin_cpu_supports("avx512bw") != 0 &&
                           __builtin_cpu_supports("avx512vnni") != 0;
  return vnni;
}

// Integer inputs (InputMode::integer): every input lies in [-4, 4], so every product and every
// partial sum is an integer of magnitude at most 16 · K <= 2^24 (run/gemm_data.hpp,
// kMaxExactK): exact in float as in double, in any order. These tiles sum in float, 16 lanes a
// register, and the result, converted to double, has the double builds' bits.
__attribute__((target("avx512f,avx2,fma"))) void tile_avx512_f32(const float* ap, const float* bp, size_t kb,
                                                                 float* ct, size_t ldc) {
  __m512 acc[8][2];
#pragma GCC unroll 8
  for (size_t r = 0; r < 8; ++r) {
    acc[r][0] = _mm512_loadu_ps(ct + r * ldc);
    acc[r][1] = _mm512_loadu_ps(ct + r * ldc + 16);
  }
  for (size_t kk = 0; kk < kb; ++kk) {
    const __m512 b0 = _mm512_loadu_ps(bp + kk * 32), b1 = _mm512_loadu_ps(bp + kk * 32 + 16);
#pragma GCC unroll 8
    for (size_t r = 0; r < 8; ++r) {
      const __m512 a = _mm512_set1_ps(ap[kk * 8 + r]);
      acc[r][0] = _mm512_fmadd_ps(a, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(a, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 8
  for (size_t r = 0; r < 8; ++r) {
    _mm512_storeu_ps(ct + r * ldc, acc[r][0]);
    _mm512_storeu_ps(ct + r * ldc + 16, acc[r][1]);
  }
}

__attribute__((target("avx2,fma"))) void tile_avx2_f32(const float* ap, const float* bp, size_t kb, float* ct,
                                                       size_t ldc) {
  __m256 acc[6][2];
#pragma GCC unroll 6
  for (size_t r = 0; r < 6; ++r) {
    acc[r][0] = _mm256_loadu_ps(ct + r * ldc);
    acc[r][1] = _mm256_loadu_ps(ct + r * ldc + 8);
  }
  for (size_t kk = 0; kk < kb; ++kk) {
    const __m256 b0 = _mm256_loadu_ps(bp + kk * 16), b1 = _mm256_loadu_ps(bp + kk * 16 + 8);
#pragma GCC unroll 6
    for (size_t r = 0; r < 6; ++r) {
      const __m256 a = _mm256_broadcast_ss(ap + kk * 6 + r);
      acc[r][0] = _mm256_fmadd_ps(a, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(a, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 6
  for (size_t r = 0; r < 6; ++r) {
    _mm256_storeu_ps(ct + r * ldc, acc[r][0]);
    _mm256_storeu_ps(ct + r * ldc + 8, acc[r][1]);
  }
}

// One register tile: C's kMr × kNr block at ct (row stride ldc) plus kb steps of k.
__attribute__((target("avx512f,avx2,fma"))) void tile_avx512(const double* ap, const double* bp, size_t kb, double* ct,
                                                             size_t ldc) {
    __m512d acc[8][2];
#pragma GCC unroll 8
    for (size_t r = 0; r < 8; ++r) {
      acc[r][0] = _mm512_loadu_pd(ct + r * ldc);
      acc[r][1] = _mm512_loadu_pd(ct + r * ldc + 8);
    }
    for (size_t kk = 0; kk < kb; ++kk) {
      const __m512d b0 = _mm512_loadu_pd(bp + kk * 16), b1 = _mm512_loadu_pd(bp + kk * 16 + 8);
#pragma GCC unroll 8
      for (size_t r = 0; r < 8; ++r) {
        const __m512d a = _mm512_set1_pd(ap[kk * 8 + r]);
        acc[r][0] = _mm512_fmadd_pd(a, b0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_pd(a, b1, acc[r][1]);
      }
    }
#pragma GCC unroll 8
    for (size_t r = 0; r < 8; ++r) {
      _mm512_storeu_pd(ct + r * ldc, acc[r][0]);
      _mm512_storeu_pd(ct + r * ldc + 8, acc[r][1]);
    }
}

__attribute__((target("avx2,fma"))) void tile_avx2(const double* ap, const double* bp, size_t kb, double* ct,
                                                   size_t ldc) {
    __m256d acc[6][2];
#pragma GCC unroll 6
    for (size_t r = 0; r < 6; ++r) {
      acc[r][0] = _mm256_loadu_pd(ct + r * ldc);
      acc[r][1] = _mm256_loadu_pd(ct + r * ldc + 4);
    }
    for (size_t kk = 0; kk < kb; ++kk) {
      const __m256d b0 = _mm256_loadu_pd(bp + kk * 8), b1 = _mm256_loadu_pd(bp + kk * 8 + 4);
#pragma GCC unroll 6
      for (size_t r = 0; r < 6; ++r) {
        const __m256d a = _mm256_broadcast_sd(ap + kk * 6 + r);
        acc[r][0] = _mm256_fmadd_pd(a, b0, acc[r][0]);
        acc[r][1] = _mm256_fmadd_pd(a, b1, acc[r][1]);
      }
    }
#pragma GCC unroll 6
    for (size_t r = 0; r < 6; ++r) {
      _mm256_storeu_pd(ct + r * ldc, acc[r][0]);
      _mm256_storeu_pd(ct + r * ldc + 4, acc[r][1]);
    }
}
#endif

}  // namespace

std::vector<ReferenceBuild> reference_builds() {
  std::vector<ReferenceBuild> builds{ReferenceBuild::plain};
#if defined(__x86_64__) && defined(__GNUC__)
  if (model::cpu_has_avx2_fma()) builds.push_back(ReferenceBuild::avx2);
  if (model::cpu_has_avx512()) builds.push_back(ReferenceBuild::avx512);
  if (cpu_has_avx512_vnni()) builds.push_back(ReferenceBuild::avx512_vnni);
#endif
  return builds;
}

std::vector<double> reference_gemm(const GemmData& d, ReferenceBuild build) {
  std::vector<double> c(size_t(d.shape.m) * d.shape.n, 0.0);
#if defined(__x86_64__) && defined(__GNUC__)
  const bool exact_in_float = d.inputs == InputMode::integer && d.shape.k <= kMaxExactK;
  if (exact_in_float && build == ReferenceBuild::avx512_vnni) {
    std::vector<int32_t> ci(c.size(), 0);
    reference_blocked_vnni(d, ci.data());
    std::copy(ci.begin(), ci.end(), c.begin());
    return c;
  }
  if (exact_in_float && build != ReferenceBuild::plain) {
    std::vector<float> cf(c.size(), 0.0f);
    if (build == ReferenceBuild::avx512) reference_blocked<float, 8, 32>(d, cf.data(), tile_avx512_f32);
    else reference_blocked<float, 6, 16>(d, cf.data(), tile_avx2_f32);
    std::copy(cf.begin(), cf.end(), c.begin());
    return c;
  }
  if (build == ReferenceBuild::avx512 || build == ReferenceBuild::avx512_vnni) {  // VNNI: integers only
    reference_blocked<double, 8, 16>(d, c.data(), tile_avx512);
    return c;
  }
  if (build == ReferenceBuild::avx2) {
    reference_blocked<double, 6, 8>(d, c.data(), tile_avx2);
    return c;
  }
#endif
  reference_plain(d, c.data());
  return c;
}

std::vector<double> reference_gemm(const GemmData& d) {
  static const ReferenceBuild fastest = reference_builds().back();
  return reference_gemm(d, fastest);
}

}  // namespace gs::run
