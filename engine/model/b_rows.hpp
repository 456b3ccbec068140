// B's K x N rows for the tensor cores' sums, as exec_wgmma.cpp keeps one a warpgroup
// (Cta::WgmmaB) and exec_tcgen05_mma.cpp makes one an MMA: in float where its integer_bound is
// finite, so the float sums of small integers (tensor_core.hpp) may take it, and widened to double
// the first time a block's sums need double; straight into double where the bound is not finite.
#pragma once

#include <cstdint>

namespace gs::model {

struct BRows {
  uint32_t n = 0;
  float bound = 0.0f;    // integer_bound of the N columns (float_rows() makes it where fill_pairs did not)
  bool widened = false;  // b holds the rows in double
  alignas(64) float rows[16][256];  // set where `bound` is finite
  alignas(64) double b[16][256];
  // From columns[c][k], c < n (16-byte aligned), whose integer_bound is `bound` (exec_wgmma.cpp).
  void fill(const float (*columns)[16], uint32_t n, float bound);
  // From the columns' bf16 pairs as read_operand_pairs gives them (word p of column c: k = 2p
  // low, 2p + 1 high, each sign flipped where `scale` is -1), every value an integer of at most
  // 256 and n a multiple of 16: pair_words straight from them; the float rows and their bound
  // are made only if something asks for them (float_rows, row_bound, in_double).
  void fill_pairs(const uint32_t (*columns)[8], uint32_t n, float scale);
  // The float rows and their bound, made from the pairs the first time after fill_pairs.
  const float (&float_rows())[16][256];
  float row_bound();
  // The rows in double, widened from the float rows the first time.
  const double (&in_double())[16][256];
  // The rows as bf16 pairs (bf16_pairs_of_rows), made from the float rows the first time, where
  // every value is an integer of at most 256 (`bound`) and n is a multiple of 16: what
  // wgmma_accumulate_pairs takes. nullptr elsewhere.
  const uint32_t (*pairs())[256];
  alignas(64) uint32_t pair_words[8][256];
  bool paired = false;     // pairs() has looked (fill clears it)
  bool has_pairs = false;  // and made pair_words
  bool rows_made = true;   // rows (where the bound is finite) and bound hold (fill_pairs clears it)
  float pairs_scale = 1.0f;  // fill_pairs' scale, to make the rows
};

}  // namespace gs::model
