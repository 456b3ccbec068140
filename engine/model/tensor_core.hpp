// What Hopper's wgmma (exec_wgmma.cpp) and Blackwell's tcgen05.mma (exec_tcgen05.cpp) share:
// reading an operand row through a shared-memory descriptor, the hazards of those reads, and
// the 16-row block of bf16 products. The two differ in where D lives (registers or tensor
// memory) and in how the descriptor is encoded, not in the bytes the tensor core reads.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/layout/wgmma_descriptor.hpp"
#include "engine/model/exec_context.hpp"

namespace gs::model {

// What the reads of one MMA found wrong, kept as the first address of each kind and reported
// once after the reads: formatting a message per element would make a bad descriptor cost
// thousands of strings per MMA (and report() keeps only the first of each kind anyway).
struct ReadFaults {
  uint32_t outside = kNone, tma_pending = kNone, unfenced = kNone, unwritten = kNone;
  // The reading warp, for reads of a peer CTA's shared memory (cta_group::2): its bytes a TMA
  // load wrote must have been released to it (SmemWord::landed_release, Warp::acquired).
  const Warp* reader = nullptr;
  const Cta* reader_cta = nullptr;
  uint32_t unacquired = kNone, unacquired_rank = 0;
  char outside_operand = 'A';
  layout::WgmmaDescriptor outside_desc;
};

// Whether another CTA may consult this CTA's tensor-core read notes and landing releases
// (SmemTensorWord, Cta::smem_chunk_read): only a peer in a cluster of several CTAs does (a
// multicast's check_peer_release, a cta_group::2 read). The grid gives every CTA a
// Launch::cluster, a cluster of one CTA too, whose notes nobody reads: they are not kept.
inline bool notes_for_peers(const Cta& c) { return c.launch.cluster && c.launch.cluster->ctas.size() > 1; }

// One row's k16 slice (16 bf16 values) of an operand under its descriptor, each times
// `scale`; a byte outside the CTA's shared memory reads as NaN. The words read are marked read
// (SmemWord::read_release).
void read_operand_row(Cta& c, const layout::WgmmaDescriptor& d, char operand, uint32_t row, bool k_major,
                      float scale, float* out, ReadFaults& f);
// Rows row0 .. row0 + rows - 1 in turn, row i into out[i]: the same as read_operand_row row by
// row, with the rows that need nothing noted taken in a few instructions (exec_wgmma.cpp).
void read_operand_rows(Cta& c, const layout::WgmmaDescriptor& d, char operand, uint32_t row0, uint32_t rows,
                       bool k_major, float scale, float (*out)[16], ReadFaults& f);
// Rows row0 .. row0 + rows - 1 (at most 256) of a K-major operand as bf16 pairs, its bytes as
// they are (word p of row r: k = 2p low, 2p + 1 high), each bf16's sign flipped where `scale` is
// -1: where every row's chunks need nothing noted (read_operand_rows' quick rows), which it then
// notes as that does; false, with nothing read or noted, where any does not (exec_wgmma.cpp).
bool read_operand_pairs(Cta& c, const layout::WgmmaDescriptor& d, uint32_t row0, uint32_t rows, float scale,
                        uint32_t (*out)[8]);
// read_operand_pairs' rows as read_operand_rows gives them (scale · bf16, the sign flip undone).
void pairs_to_rows(const uint32_t (*pairs)[8], uint32_t rows, float scale, float (*out)[16]);
// Whether the `count` words (a multiple of 16) hold bf16 pairs of integers of at most 256 (false
// where the CPU lacks AVX512_BW: only the builds that take bf16 pairs ask).
bool pairs_integers(const uint32_t* words, size_t count);
// Columns' pairs (columns[c][p], c < n, n a multiple of 16) into pair rows (pairs[p][c]).
void columns_into_pairs(const uint32_t (*columns)[8], uint32_t n, uint32_t (&pairs)[8][256]);
// Columns 0 .. n - 1 of B (columns[c][k], k = 0..15, 16-byte aligned) into its K x N rows.
void columns_into_b(const float (*columns)[16], uint32_t n, double (&b)[16][256]);
// The same rows in float (the float sums' B, below), and those rows widened to double.
void columns_into_rows(const float (*columns)[16], uint32_t n, float (&b)[16][256]);
void widen_rows(const float (&rows)[16][256], uint32_t n, double (&b)[16][256]);
// The hazards the reads found, one of each kind; `mma` names the instruction ("wgmma").
void report_read_faults(ExecContext& x, const ReadFaults& f, std::string_view mma);
// The builds of the tensor cores' sums (tensor_sums.cpp), all giving the same bits: plain C++,
// AVX2+FMA, AVX-512F, AVX-512F with AVX512_BF16 (the double sums as AVX-512F's; the float
// sums of integers of at most 256 by bf16 dot products), and the same with AMX-BF16 (those
// sums of wgmma and tcgen05 blocks by the tile registers, 16 x 16 a tile dot product; the rest
// as avx512_bf16). sums_builds() lists those this CPU runs, fastest last.
enum class SumsBuild { plain, avx2, avx512, avx512_bf16, amx_bf16 };
inline bool uses_bf16(SumsBuild b) { return b == SumsBuild::avx512_bf16 || b == SumsBuild::amx_bf16; }
inline bool uses_avx512(SumsBuild b) { return b == SumsBuild::avx512 || uses_bf16(b); }
std::vector<SumsBuild> sums_builds();
SumsBuild fastest_sums_build();

// The 16 x n products of one block of rows: S[r][c] = sum over k = 0..15, in that order, of
// A[r][k] · B[k][c], the product exact and the sum rounded in double once per k;
// D = f32(double(old) + S[r][c]), old = 0 unless accumulating. B is 64-byte aligned.
// wgmma: D in the warp's accumulator registers d[v][lane] (facts §1.5: row r, column c in
// register 4(c/8) + 2(r/8) + c%2, lane 4(r%8) + (c%8)/2).
void wgmma_accumulate(const double (&A)[16][16], const double (&B)[16][256], uint32_t n, uint64_t* const* d,
                      bool scale_d, SumsBuild build);
// mma.sync m16n8k16 (exec_mma.cpp): the same sums over 8 columns, B 64-byte aligned, D
// accumulated in place in d[v][lane] by the same map at n = 8 (facts §2: row r, column c in
// register 2(r/8) + c%2, lane 4(r%8) + c/2), D = f32(double(D) + S).
void mma_accumulate(const double (&A)[16][16], const double (&B)[16][8], uint64_t* const* d, SumsBuild build);
// tcgen05.mma: D in tensor-memory cells (f32 bits), row r at cells + r * row_stride.
void tmem_accumulate(const double (&A)[16][16], const double (&B)[16][256], uint32_t n, uint32_t* cells,
                     size_t row_stride, bool accumulate, SumsBuild build);

// The same sums in float, for blocks of small integers (tensor_sums_integers.cpp; tensor_sums.cpp's
// header says why they give the double order's bits). integer_bound: the largest |v| of the
// `count` values where each is an integer or an infinity, else NaN. sums_fit_float: every A
// and B of the block an integer and max|A| · max|B| ≤ 2^20, so that each product and each
// partial sum of 16 is an integer of at most 2^24, exact in float. A NaN bound compares false,
// and so does an infinite one (infinity times a bound, 0 included, is never ≤ 2^20).
float integer_bound(const float* values, size_t count, SumsBuild build);
inline bool sums_fit_float(float a_bound, float b_bound) { return double(a_bound) * double(b_bound) <= 0x1p20; }
// The bits of wgmma_accumulate and tmem_accumulate, where sums_fit_float(integer_bound(A),
// b_bound) (b_bound: integer_bound of B's n columns, which the caller keeps with B); false,
// with nothing written, where not: the caller then takes the double sums. A and B are 64-byte
// aligned.
bool wgmma_accumulate_integers(const float (&A)[16][16], const float (&B)[16][256], float b_bound, uint32_t n,
                               uint64_t* const* d, bool scale_d, SumsBuild build);
// wgmma_accumulate_integers from A's and B's bf16 pairs as the operands hold them (word p of A's
// row r: A[r][2p] in the low half, A[r][2p + 1] in the high one; word p of B's column c the
// same of B[2p][c], B[2p + 1][c]), for a build that takes bf16 pairs (uses_bf16) and N a
// multiple of 16: the same bits where every A is an integer of at most 256 (tested here) and
// every B too (the caller's: BRows::pairs gives B's pairs only then). False, with nothing
// written, anywhere else.
bool wgmma_accumulate_pairs(const uint32_t (&a)[16][8], const uint32_t (*b)[256], uint32_t n, uint64_t* const* d,
                            bool scale_d, SumsBuild build);
// B's rows (n of each, a multiple of 16 for the AVX-512 path) as bf16 pairs: the high halves of
// B[2p][c] and B[2p + 1][c] in word p of column c (exact where the values are bf16's).
void bf16_pairs_of_rows(const float (&B)[16][256], uint32_t n, uint32_t (&pairs)[8][256]);
bool tmem_accumulate_integers(const float (&A)[16][16], const float (&B)[16][256], float b_bound, uint32_t n,
                              uint32_t* cells, size_t row_stride, bool accumulate, SumsBuild build);
// The bits of mma_accumulate where sums_fit_float(a_bound, b_bound) (the integer_bound of A and
// of B, which the caller takes as it gathers them); false, with nothing written, where not.
bool mma_accumulate_integers(const float (&A)[16][16], const float (&B)[16][8], float a_bound, float b_bound,
                             uint64_t* const* d, SumsBuild build);
// mma.sync's D = C + A·B straight from the fragment registers (A's 4, B's 2, C's and D's 4:
// 32 lanes each, the low word of a lane holding a bf16 pair or an f32, the PTX ISA's maps)
// where every A and B value is an integer of at most 256 and the build is avx512_bf16 or
// amx_bf16 (whose mma.sync sums are avx512_bf16's): the bits of mma_accumulate, D's lanes' high words zero; C is read whole before D is written. False,
// with nothing written, anywhere else: the caller then gathers the fragments.
// `kept` (may be null): what A's registers gave the pair sums (MmaAPairs), filled by a call
// that computes them; with `reuse`, taken from it instead of from `a` (the caller vouches that
// A's registers hold what they held then). Returns, in *kept_valid, whether *kept now holds A's.
bool mma_accumulate_integer_lanes(const uint64_t* const* a, const uint64_t* const* b, const uint64_t* const* c,
                                  uint64_t* const* d, SumsBuild build, MmaAPairs* kept = nullptr,
                                  bool reuse = false, bool* kept_valid = nullptr);
// A run of mma.syncs with the same A (its registers `a`) and each its own B, C and D: the bits of
// mma_accumulate_integer_lanes for each, in order, where the build is amx_bf16 or avx512_bf16
// (with AVX512_BW, as there), every A and B value an integer of at most 256, and no D of the run
// is a register another one of the run reads or writes (the caller's: DecodedInst::mma_run);
// false, with nothing written (but `kept` as mma_accumulate_integer_lanes leaves it), anywhere
// else. count: 1 .. kMmaRunMax.
constexpr uint32_t kMmaRunMax = 8, kMmaRunColumns = 8 * kMmaRunMax + 8;
struct MmaLanes {
  const uint64_t* b[2];
  const uint64_t* c[4];
  uint64_t* d[4];
};
bool mma_run_integer_lanes(const uint64_t* const* a, const MmaLanes* mmas, uint32_t count, SumsBuild build,
                           MmaAPairs* kept = nullptr, bool reuse = false, bool* kept_valid = nullptr);

}  // namespace gs::model
