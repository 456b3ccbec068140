// The parts the tensor cores' bf16 pair sums share (tensor_sums_integers.cpp: wgmma and tcgen05;
// tensor_sums_mma_lanes.cpp: mma.sync from its fragment registers): the integer test on bf16 bits
// and the AMX tile shapes.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <cstdint>

namespace gs::model::bf16_pairs {

// The largest integer magnitude the pair sums take: integers of at most 256 have at most 8
// significant bits, so they are exact in bf16, the high half of their float bits.
constexpr float kBf16Integers = 256.0f;

#if defined(__x86_64__) && defined(__GNUC__)
// Whether each of 32 bf16 is an integer of magnitude at most 256 (kBf16Integers), folded into
// `fraction` (nonzero: some value has bits below its binary point, or lies in (0, 1)) and `top`
// (the largest magnitude's bits). A magnitude a with exponent e = (a >> 7) - 127 in 0..7 has
// 7 - e fraction bits: a << (9 + e) keeps just them in 16 bits (e >= 7: a shift of 16 or more,
// none). Below 1 (a < 0x3F80) only zero is an integer: (a - 1) < 0x3F7F marks the others.
__attribute__((target("avx512f,avx512bw,avx2"), always_inline)) inline void fold_bf16_integers(__m512i words,
                                                                                              __m512i& fraction,
                                                                                              __m512i& top) {
  const __m512i a = _mm512_and_si512(words, _mm512_set1_epi16(0x7FFF));
  const __m512i shift = _mm512_sub_epi16(_mm512_srli_epi16(a, 7), _mm512_set1_epi16(118));
  const __mmask32 tiny =
      _mm512_cmplt_epu16_mask(_mm512_sub_epi16(a, _mm512_set1_epi16(1)), _mm512_set1_epi16(0x3F7F));
  fraction = _mm512_or_si512(fraction, _mm512_mask_mov_epi16(_mm512_sllv_epi16(a, shift), tiny, a));
  top = _mm512_max_epu16(top, a);
}

// Whether the values folded into `fraction` and `top` (fold_bf16_integers) are all integers of at
// most 256 (0x4380 in bf16; NaNs and infinities lie above it).
__attribute__((target("avx512f,avx512bw,avx2"), always_inline)) inline bool integers(__m512i fraction, __m512i top) {
  return _mm512_test_epi16_mask(fraction, fraction) == 0 && _mm512_cmpgt_epu16_mask(top, _mm512_set1_epi16(0x4380)) == 0;
}

// AMX-BF16: the tile shapes (palette 1: Intel SDM vol. 1, "Intel AMX"), loaded once a thread: tiles 0 and
// 3 the sums of 16 columns (16 rows of 64 bytes), tile 1 A (16 rows of 32 bytes), tiles 2 and 4
// B (8 rows of 64 bytes); for mma.sync's m16n8k16 (mma_lanes_amx) tile 5 the sums of 8 columns
// (16 rows of 32 bytes), tile 6 A (16 rows of 32 bytes), tile 7 B (8 rows of 32 bytes).
struct alignas(64) TileConfig {
  uint8_t palette = 1, start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t bytes_per_row[16] = {64, 32, 64, 64, 64, 32, 32, 32};
  uint8_t rows[16] = {16, 16, 8, 16, 8, 16, 16, 8};
};

__attribute__((target("amx-tile"))) inline void load_tile_config() {
  static thread_local bool loaded = false;
  if (loaded) return;
  static const TileConfig config;
  _tile_loadconfig(&config);
  loaded = true;
}
#endif

}  // namespace gs::model::bf16_pairs
