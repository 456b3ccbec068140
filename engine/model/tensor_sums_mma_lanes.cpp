// mma.sync m16n8k16's sums straight from the fragment registers where every A and B value is a
// small integer (mma_accumulate_integer_lanes, mma_run_integer_lanes): by bf16 pairs with
// AVX512_BF16's vdpbf16ps, or on AMX tiles, giving the bits of tensor_sums.cpp's double order
// (tensor_sums_integers.cpp's header says why). Split from tensor_sums_integers.cpp, which keeps
// wgmma's and tcgen05's sums.
#include <array>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "engine/model/bf16_pairs.hpp"
#include "engine/model/machine.hpp"
#include "engine/model/tensor_core.hpp"

namespace gs::model {

// A namespace of their own, as tensor_sums_integers.cpp's (unity builds).
namespace lane_sums {
namespace {

#if defined(__x86_64__) && defined(__GNUC__)
using bf16_pairs::fold_bf16_integers;
using bf16_pairs::integers;
using bf16_pairs::load_tile_config;

// mma.sync m16n8k16 straight from the fragment registers, by bf16 pairs (AVX512_BF16): the
// PTX ISA's maps (exec_mma.cpp's MmaMaps::regular) put a bf16 pair of neighbouring k (k = 2p
// low, 2p + 1 high) in each 32-bit word: A's register j, lane 4g + q holds row g + 8(j % 2),
// pair q + 4(j / 2); B's register j, lane 4g + q pair q + 4j of column g. That is vdpbf16ps's
// operand, so nothing is widened to float: 16 rows of one column a register, each pair of A's
// 16 rows against one word of B broadcast, 64 instructions for the 2048 products.

// A register's 32 low words in pair-major order: lo holds pair q = 0, 1 (8 words each, by g),
// hi q = 2, 3. The same indices pick lanes 0..15 from the first two loads and 16..31 from the
// last two (only an index's low five bits count), and a blend keeps g 4..7 from the second.
__attribute__((target("avx512f,avx512bw,avx2"), always_inline)) inline void pair_major(const uint64_t* lanes,
                                                                                      __m512i& lo, __m512i& hi) {
  const __m512i z0 = _mm512_loadu_si512(lanes), z1 = _mm512_loadu_si512(lanes + 8);
  const __m512i z2 = _mm512_loadu_si512(lanes + 16), z3 = _mm512_loadu_si512(lanes + 24);
  // Position 8q' + g (q' = q % 2): the low word of lane 4g + q, dword 2(4g + q), mod 32.
  const __m512i idx_lo = _mm512_setr_epi32(0, 8, 16, 24, 0, 8, 16, 24, 2, 10, 18, 26, 2, 10, 18, 26);
  const __m512i idx_hi = _mm512_add_epi32(idx_lo, _mm512_set1_epi32(4));
  lo = _mm512_mask_blend_epi32(0xF0F0, _mm512_permutex2var_epi32(z0, idx_lo, z1), _mm512_permutex2var_epi32(z2, idx_lo, z3));
  hi = _mm512_mask_blend_epi32(0xF0F0, _mm512_permutex2var_epi32(z0, idx_hi, z1), _mm512_permutex2var_epi32(z2, idx_hi, z3));
}

// A's pairs (pair-major, as pair_major gives them) and their test: from the warp's kept ones
// where the caller vouches for them (the mma.sync before, same A registers), else from A's
// registers (and kept, where asked). False where a value is not an integer of at most 256.
__attribute__((target("avx512f,avx512bw,avx2"), always_inline)) inline bool a_pairs(const uint64_t* const* a,
                                                                                    __m512i (&ya)[4][2],
                                                                                    MmaAPairs* kept, bool reuse,
                                                                                    bool* kept_valid) {
  if (reuse) {
    for (uint32_t j = 0; j < 4; ++j)
      for (uint32_t h = 0; h < 2; ++h) ya[j][h] = _mm512_load_si512(kept->words.data() + 16 * (2 * j + h));
    if (kept_valid) *kept_valid = true;
    return kept->integers;
  }
  for (uint32_t j = 0; j < 4; ++j) pair_major(a[j], ya[j][0], ya[j][1]);
  __m512i fraction = _mm512_setzero_si512(), top = _mm512_setzero_si512();
  for (uint32_t j = 0; j < 4; ++j) {
    fold_bf16_integers(ya[j][0], fraction, top);
    fold_bf16_integers(ya[j][1], fraction, top);
  }
  const bool ok = integers(fraction, top);
  if (kept) {
    for (uint32_t j = 0; j < 4; ++j)
      for (uint32_t h = 0; h < 2; ++h) _mm512_store_si512(kept->words.data() + 16 * (2 * j + h), ya[j][h]);
    kept->integers = ok;
    if (kept_valid) *kept_valid = true;
  }
  return ok;
}

// B's test: the low words of its two registers' 32 lanes, which pair_products reads, folded into
// fraction and top. Two 8-lane loads make a vector (the first one's low words in the even
// 32-bit places, the second one's copied into the odd ones by a merging in-lane shuffle): the
// test is of no order, so B's words need neither pair_major's cross-lane permutes nor a copy in
// pair order (8 permutes, 4 blends and 4 stores an mma.sync, where the shuffle ports bind the
// pair sums; now 4 in-lane shuffles).
__attribute__((target("avx512f,avx512bw,avx2"), always_inline)) inline void b_test(const uint64_t* const* b,
                                                                                   __m512i& fraction,
                                                                                   __m512i& top) {
  for (uint32_t j = 0; j < 2; ++j)
    for (uint32_t k = 0; k < 4; k += 2) {
      const __m512i first = _mm512_loadu_si512(b[j] + 8 * k), second = _mm512_loadu_si512(b[j] + 8 * k + 8);
      fold_bf16_integers(_mm512_mask_shuffle_epi32(first, 0xAAAA, second, _MM_PERM_CCAA), fraction, top);
    }
}

// B's word of pair p, column n: the low word of register p / 4, lane 4n + p % 4 (the map above).
inline int b_word(const uint64_t* const* b, uint32_t p, uint32_t n) {
  uint32_t word;
  std::memcpy(&word, b[p / 4] + 4 * n + p % 4, sizeof word);
  return int(word);
}

// The pair sums of A's pairs and B's words: S[n] lanes r = sum over pairs of A's row r times B's
// column n (every product and partial sum an integer of at most 2^20: exact in any grouping).
// Each word is broadcast from its register's lane in memory (b_word: a load, or vdpbf16ps's own
// {1to16} operand), not taken out of a vector (vpextrd into a general register, vpbroadcastd
// back: four or five shuffle and transfer uops a word, where the shuffle ports were what held
// the pair sums back). B's registers are not written before the last product: an mma.sync
// writes D after its sums, and no D of a run is another one's B (DecodedInst::mma_run).
__attribute__((target("avx512f,avx512bw,avx512bf16,avx2"), always_inline)) inline void pair_products(
    const __m512i (&ya)[4][2], const uint64_t* const* b, __m512 (&S)[8]) {
  for (uint32_t n = 0; n < 8; ++n) S[n] = _mm512_setzero_ps();
#pragma GCC unroll 8
  for (uint32_t p = 0; p < 8; ++p) {
    // Rows 0..7 from register 2(p / 4), rows 8..15 from the next: the 256-bit half q % 2 of
    // each one's pair-major half q / 2 (q = p % 4).
    const uint32_t J = 2 * (p / 4), h = (p % 4) / 2;
    const __m512i pair = (p % 2) == 0 ? _mm512_maskz_shuffle_i64x2(0xFF, ya[J][h], ya[J + 1][h], 0x44)
                                      : _mm512_maskz_shuffle_i64x2(0xFF, ya[J][h], ya[J + 1][h], 0xEE);
#pragma GCC unroll 8
    for (uint32_t n = 0; n < 8; ++n)
      S[n] = _mm512_dpbf16_ps(S[n], (__m512bh)pair, (__m512bh)_mm512_set1_epi32(b_word(b, p, n)));
  }
}

// The pair sums of one mma.sync (pair_products). False where a value is not an integer of at
// most 256, with S untouched.
__attribute__((target("avx512f,avx512bw,avx512bf16,avx2"))) bool mma_pair_sums(const uint64_t* const* a,
                                                                              const uint64_t* const* b,
                                                                              __m512 (&S)[8], MmaAPairs* kept,
                                                                              bool reuse, bool* kept_valid) {
  __m512i ya[4][2];
  if (!a_pairs(a, ya, kept, reuse, kept_valid)) return false;
  __m512i fraction = _mm512_setzero_si512(), top = _mm512_setzero_si512();
  b_test(b, fraction, top);
  if (!integers(fraction, top)) return false;
  pair_products(ya, b, S);
  return true;
}

// D = C + S (C's lanes, all read before D is written: a D register may be another's C), in D's
// map: register v = 2(r / 8) + n % 2, lane 4(r % 8) + n / 2; the lanes' high words zero. Each
// 8-lane piece of a register is one permute of two gathered column pairs into the even (low)
// words, the odd ones zero, and one zero-masked add of C's lanes as they are (their high words
// masked off), as RegisterStore512 does.
__attribute__((target("avx512f,avx512bw,avx2"))) void mma_pair_store(const __m512 (&S)[8],
                                                                     const uint64_t* const* c, uint64_t* const* d) {
  __m512 old[4][4];
  for (uint32_t v = 0; v < 4; ++v)
    for (uint32_t k = 0; k < 4; ++k) old[v][k] = _mm512_loadu_ps(c[v] + 8 * k);
  // Rows 0..7 (8..15) of columns n and n + 2 side by side: [S[n][r], S[n + 2][r]] for each r.
  const __m512i rows_lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i rows_hi = _mm512_add_epi32(rows_lo, _mm512_set1_epi32(8));
  // Word 2j of piece k (lane 8k + j, row 2k + j / 4 of the eight, t = j % 4): element 2(2k + j/4)
  // + t % 2 of the first pair (t < 2) or of the second (t >= 2, 16 on); odd words zero.
  const __m512i piece0 = _mm512_setr_epi32(0, 0, 1, 0, 16, 0, 17, 0, 2, 0, 3, 0, 18, 0, 19, 0);
  const __m512i four = _mm512_set1_epi32(4);
  for (uint32_t parity = 0; parity < 2; ++parity) {
    const __m512 p[2] = {_mm512_permutex2var_ps(S[parity], rows_lo, S[2 + parity]),
                         _mm512_permutex2var_ps(S[parity], rows_hi, S[2 + parity])};
    const __m512 q[2] = {_mm512_permutex2var_ps(S[4 + parity], rows_lo, S[6 + parity]),
                         _mm512_permutex2var_ps(S[4 + parity], rows_hi, S[6 + parity])};
    for (uint32_t rows = 0; rows < 2; ++rows) {
      const uint32_t v = 2 * rows + parity;
      uint64_t* const out = d[v];
      __m512i idx = piece0;
      for (uint32_t k = 0; k < 4; ++k, idx = _mm512_add_epi32(idx, four))
        _mm512_storeu_ps(out + 8 * k, _mm512_maskz_add_ps(0x5555, old[v][k],
                                                          _mm512_maskz_permutex2var_ps(0x5555, p[rows], idx, q[rows])));
    }
  }
}

// mma.sync m16n8k16 on the tile registers (SumsBuild::amx_bf16), from the same fragment words
// as mma_pair_sums: A's tile row r is its 8 pairs, pairs 0..3 the low words of register r / 8,
// lanes 4(r % 8) .. +3, pairs 4..7 those of register 2 + r / 8; one permute of the two registers'
// 8 lanes gives rows r and r + 1 (r even) side by side. B's tile row p is pair p of the 8
// columns: the low words of register p / 4, lanes p % 4, 4 + p % 4, .. 28 + p % 4. The sums tile
// (16 rows of 8 floats) goes to D as mma_pair_store's pieces: piece k of register v holds rows
// 8(v / 2) + 2k and the next, columns v % 2, v % 2 + 2, .., one permute of their 16 sums. A's
// rows (and their integer test) are what `kept` keeps for this build.

// A's tile rows: kept's where `reuse`, else made from A's registers (into kept's words where
// kept is given, else into `local`); nullptr where some value is no integer of at most 256.
__attribute__((target("avx512f,avx512bw,avx2"))) const uint32_t (*amx_a_rows(const uint64_t* const* a, MmaAPairs* kept,
                                                                           bool reuse, bool* kept_valid,
                                                                           uint32_t (&local)[16][8]))[8] {
  static_assert(sizeof(MmaAPairs::words) == 16 * 8 * sizeof(uint32_t));
  uint32_t(*a_rows)[8] = kept ? reinterpret_cast<uint32_t(*)[8]>(kept->words.data()) : local;
  if (reuse) {
    if (kept_valid) *kept_valid = true;
    return kept->integers ? a_rows : nullptr;
  }
  const __m512i rows_of = _mm512_setr_epi32(0, 2, 4, 6, 16, 18, 20, 22, 8, 10, 12, 14, 24, 26, 28, 30);
  __m512i fraction = _mm512_setzero_si512(), top = _mm512_setzero_si512();
  for (uint32_t r = 0; r < 16; r += 2) {
    const uint32_t h = r / 8, lane0 = 4 * (r % 8);
    const __m512i two =
        _mm512_permutex2var_epi32(_mm512_loadu_si512(a[h] + lane0), rows_of, _mm512_loadu_si512(a[2 + h] + lane0));
    fold_bf16_integers(two, fraction, top);
    _mm512_store_si512(a_rows[r], two);
  }
  const bool ok = integers(fraction, top);
  if (kept) {
    kept->integers = ok;
    if (kept_valid) *kept_valid = true;
  }
  return ok ? a_rows : nullptr;
}

// B's 8 tile rows of 8 columns from its two registers, as four registers: rows[h] holds rows 2h
// and 2h + 1 side by side. Of each register's 32 lanes, the low words by pair q then column g
// (four columns from each two loads of 8 lanes), then pairs q and q + 1 side by side; the integer
// test folded into fraction and top.
__attribute__((target("avx512f,avx512bw,avx2"), always_inline)) inline void amx_b_pairs(const uint64_t* const* b,
                                                                                        __m512i (&rows)[4],
                                                                                        __m512i& fraction,
                                                                                        __m512i& top) {
  const __m512i by_pair = _mm512_setr_epi32(0, 8, 16, 24, 2, 10, 18, 26, 4, 12, 20, 28, 6, 14, 22, 30);
  const __m512i pairs01 = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i pairs23 = _mm512_add_epi32(pairs01, _mm512_set1_epi32(8));
  for (uint32_t j = 0; j < 2; ++j) {
    const __m512i g03 = _mm512_permutex2var_epi32(_mm512_loadu_si512(b[j]), by_pair, _mm512_loadu_si512(b[j] + 8));
    const __m512i g47 =
        _mm512_permutex2var_epi32(_mm512_loadu_si512(b[j] + 16), by_pair, _mm512_loadu_si512(b[j] + 24));
    rows[2 * j] = _mm512_permutex2var_epi32(g03, pairs01, g47);
    rows[2 * j + 1] = _mm512_permutex2var_epi32(g03, pairs23, g47);
    fold_bf16_integers(rows[2 * j], fraction, top);
    fold_bf16_integers(rows[2 * j + 1], fraction, top);
  }
}

// D = C + S for one m16n8k16 whose 8 columns of sums are rows 0..15 at sums + r * stride (floats;
// 16 readable from each row start), C read whole before D is written.
__attribute__((target("avx512f,avx2"), always_inline)) inline void amx_d_store(const float* sums, size_t stride,
                                                                               const uint64_t* const* c,
                                                                               uint64_t* const* d) {
  __m512 old[4][4];
  for (uint32_t v = 0; v < 4; ++v)
    for (uint32_t k = 0; k < 4; ++k) old[v][k] = _mm512_loadu_ps(c[v] + 8 * k);
  // Word 2j: column 2(j % 4) + v % 2 of the first row (j < 4) or of the second (16 on); odd words zero.
  const __m512i even = _mm512_setr_epi32(0, 0, 2, 0, 4, 0, 6, 0, 16, 0, 18, 0, 20, 0, 22, 0);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  for (uint32_t v = 0; v < 4; ++v) {
    uint64_t* const out = d[v];
    for (uint32_t k = 0; k < 4; ++k) {
      const float* row = sums + (8 * (v / 2) + 2 * k) * stride;
      _mm512_storeu_ps(out + 8 * k, _mm512_maskz_add_ps(0x5555, old[v][k],
                                                        _mm512_maskz_permutex2var_ps(0x5555, _mm512_loadu_ps(row),
                                                                                     v % 2 ? odd : even,
                                                                                     _mm512_loadu_ps(row + stride))));
    }
  }
}

__attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx2"))) bool mma_lanes_amx(
    const uint64_t* const* a, const uint64_t* const* b, const uint64_t* const* c, uint64_t* const* d,
    MmaAPairs* kept, bool reuse, bool* kept_valid) {
  alignas(64) uint32_t local_rows[16][8];
  const uint32_t(*a_rows)[8] = amx_a_rows(a, kept, reuse, kept_valid, local_rows);
  if (!a_rows) return false;
  alignas(64) uint32_t b_rows[8][8];
  __m512i fraction = _mm512_setzero_si512(), top = _mm512_setzero_si512(), rows[4];
  amx_b_pairs(b, rows, fraction, top);
  if (!integers(fraction, top)) return false;
  for (uint32_t h = 0; h < 4; ++h) _mm512_store_si512(b_rows[2 * h], rows[h]);
  load_tile_config();
  // 16 floats readable from each row's start (amx_d_store): a row of slack after the last.
  alignas(64) float sums[17][8];
  _tile_zero(5);
  _tile_loadd(6, a_rows, sizeof local_rows[0]);
  _tile_loadd(7, b_rows, sizeof b_rows[0]);
  _tile_dpbf16ps(5, 6, 7);
  _tile_stored(5, sums, sizeof sums[0]);
  amx_d_store(&sums[0][0], 8, c, d);
  return true;
}

// A run of mma.syncs that share A (DecodedInst::mma_run) on tiles: A's tile rows once, two
// mma.syncs' B as the 16 columns of one B tile (a last odd one's 8 beside zero columns, whose
// sums nothing reads), one dot product a tile, each stored straight into the run's rows of sums,
// then each one's D from its 8 columns. Each B tile's 8 rows of 64 bytes are one 512-byte block:
// with the blocks in 1024-byte rows (wgmma's B), the tile loads waited on the stores far longer
// (two thirds of this function's samples, perf annotate).
__attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx2,fma"))) bool mma_run_amx(
    const uint64_t* const* a, const MmaLanes* mmas, uint32_t count, MmaAPairs* kept, bool reuse, bool* kept_valid) {
  alignas(64) uint32_t local_rows[16][8];
  const uint32_t(*a_rows)[8] = amx_a_rows(a, kept, reuse, kept_valid, local_rows);
  if (!a_rows) return false;
  // Each block's rows whole: row p of the first one's 8 columns then the second's, one 64-byte
  // store a row (halves stored apart made the tile loads wait longer).
  alignas(64) uint32_t b_blocks[kMmaRunMax / 2][8][16];
  __m512i fraction = _mm512_setzero_si512(), top = _mm512_setzero_si512();
  for (uint32_t m = 0; m < count; m += 2) {
    __m512i first[4], second[4];
    amx_b_pairs(mmas[m].b, first, fraction, top);
    if (m + 1 < count) amx_b_pairs(mmas[m + 1].b, second, fraction, top);
    else
      for (__m512i& z : second) z = _mm512_setzero_si512();
    for (uint32_t h = 0; h < 4; ++h) {  // rows 2h (low halves) and 2h + 1 (high halves)
      _mm512_store_si512(b_blocks[m / 2][2 * h], _mm512_maskz_shuffle_i64x2(0xFF, first[h], second[h], 0x44));
      _mm512_store_si512(b_blocks[m / 2][2 * h + 1], _mm512_maskz_shuffle_i64x2(0xFF, first[h], second[h], 0xEE));
    }
  }
  if (!integers(fraction, top)) return false;
  alignas(64) float sums[17][kMmaRunColumns];
  load_tile_config();
  _tile_loadd(1, a_rows, sizeof local_rows[0]);
  const uint32_t blocks = (count + 1) / 2;
  for (uint32_t blk = 0; blk < blocks; blk += 2) {
    _tile_zero(0);
    _tile_loadd(2, b_blocks[blk], sizeof b_blocks[0][0]);
    _tile_dpbf16ps(0, 1, 2);
    if (blk + 1 < blocks) {
      _tile_zero(3);
      _tile_loadd(4, b_blocks[blk + 1], sizeof b_blocks[0][0]);
      _tile_dpbf16ps(3, 1, 4);
    }
    _tile_stored(0, &sums[0][16 * blk], sizeof sums[0]);
    if (blk + 1 < blocks) _tile_stored(3, &sums[0][16 * (blk + 1)], sizeof sums[0]);
  }
  for (uint32_t m = 0; m < count; ++m) amx_d_store(&sums[0][8 * m], kMmaRunColumns, mmas[m].c, mmas[m].d);
  return true;
}

__attribute__((target("avx512f,avx512bw,avx512bf16,avx2"))) bool mma_lanes_bf16(const uint64_t* const* a,
                                                                               const uint64_t* const* b,
                                                                               const uint64_t* const* c,
                                                                               uint64_t* const* d, MmaAPairs* kept,
                                                                               bool reuse, bool* kept_valid) {
  __m512 S[8];
  if (!mma_pair_sums(a, b, S, kept, reuse, kept_valid)) return false;
  mma_pair_store(S, c, d);
  return true;
}

// A run of mma.syncs that share A (DecodedInst::mma_run) by bf16 pairs: A's pairs once, every
// B's words and test before any D is written, then each one's sums and D as mma_lanes_bf16
// makes them, in the run's order (no D of the run is another one's source: the caller's).
__attribute__((target("avx512f,avx512bw,avx512bf16,avx2"))) bool mma_run_bf16(const uint64_t* const* a,
                                                                             const MmaLanes* mmas, uint32_t count,
                                                                             MmaAPairs* kept, bool reuse,
                                                                             bool* kept_valid) {
  __m512i ya[4][2];
  if (!a_pairs(a, ya, kept, reuse, kept_valid)) return false;
  __m512i fraction = _mm512_setzero_si512(), top = _mm512_setzero_si512();
  for (uint32_t m = 0; m < count; ++m) b_test(mmas[m].b, fraction, top);
  if (!integers(fraction, top)) return false;
  for (uint32_t m = 0; m < count; ++m) {
    __m512 S[8];
    pair_products(ya, mmas[m].b, S);
    mma_pair_store(S, mmas[m].c, mmas[m].d);
  }
  return true;
}
#endif

}  // namespace
}  // namespace lane_sums

bool mma_run_integer_lanes(const uint64_t* const* a, const MmaLanes* mmas, uint32_t count, SumsBuild build,
                           MmaAPairs* kept, bool reuse, bool* kept_valid) {
  if (kept_valid) *kept_valid = false;
#if defined(__x86_64__) && defined(__GNUC__)
  if (build == SumsBuild::amx_bf16 && count >= 1 && count <= kMmaRunMax)
    return lane_sums::mma_run_amx(a, mmas, count, kept, reuse && kept != nullptr, kept_valid);
  // AVX512_BW for the 16-bit integer tests, as mma_accumulate_integer_lanes asks.
  static const bool bw = __builtin_cpu_supports("avx512bw") != 0;
  if (build == SumsBuild::avx512_bf16 && bw && count >= 1 && count <= kMmaRunMax)
    return lane_sums::mma_run_bf16(a, mmas, count, kept, reuse && kept != nullptr, kept_valid);
#endif
  (void)a, (void)mmas, (void)count, (void)build, (void)kept, (void)reuse;
  return false;
}

bool mma_accumulate_integer_lanes(const uint64_t* const* a, const uint64_t* const* b, const uint64_t* const* c,
                                  uint64_t* const* d, SumsBuild build, MmaAPairs* kept, bool reuse,
                                  bool* kept_valid) {
  if (kept_valid) *kept_valid = false;
#if defined(__x86_64__) && defined(__GNUC__)
  // AVX512_BW for the 16-bit integer tests: every CPU with AVX512_BF16 has it, asked all the same.
  static const bool bw = __builtin_cpu_supports("avx512bw") != 0;
  if (build == SumsBuild::amx_bf16 && bw)
    return lane_sums::mma_lanes_amx(a, b, c, d, kept, reuse && kept != nullptr, kept_valid);
  if (build == SumsBuild::avx512_bf16 && bw)
    return lane_sums::mma_lanes_bf16(a, b, c, d, kept, reuse && kept != nullptr, kept_valid);
#endif
  (void)a, (void)b, (void)c, (void)d, (void)build, (void)kept, (void)reuse;
  return false;
}

}  // namespace gs::model
