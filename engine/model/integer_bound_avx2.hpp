// The integer_bound of tensor_core.hpp kept up over values met 8 at a time in AVX2 registers:
// whether every lane so far held an integer (an infinity counts: its bound then is not finite)
// and the largest magnitude. The bound of values in memory (tensor_sums_integers.cpp) and
// mma.sync's gather, which takes it from the registers it converts (exec_mma.cpp), share it.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include <algorithm>
#include <limits>

namespace gs::model {

struct IntegerBoundAvx2 {
  __m256 whole, magnitude;  // lanes all integers so far (all ones), their largest |v|
  __attribute__((target("avx2"), always_inline)) IntegerBoundAvx2()
      : whole(_mm256_castsi256_ps(_mm256_set1_epi32(-1))), magnitude(_mm256_setzero_ps()) {}
  // Truncated and compared (a NaN compares unequal), the magnitudes' maximum kept.
  __attribute__((target("avx2"), always_inline)) void add(__m256 v) {
    whole = _mm256_and_ps(whole, _mm256_cmp_ps(_mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), v, _CMP_EQ_OQ));
    magnitude = _mm256_max_ps(magnitude, _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF))));
  }
  // The largest |v|, or NaN where a lane was not an integer.
  __attribute__((target("avx2"), always_inline)) float bound() const {
    if (_mm256_movemask_ps(whole) != 0xFF) return std::numeric_limits<float>::quiet_NaN();
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(magnitude), _mm256_extractf128_ps(magnitude, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return std::max(_mm_cvtss_f32(m), _mm_cvtss_f32(_mm_shuffle_ps(m, m, 1)));
  }
};

}  // namespace gs::model
#endif
