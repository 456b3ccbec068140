// The inputs, the reference and the verdict of one GEMM: shared by the model job and the GPU
// runner, so both back ends are fed the same bytes and judged by the same rule.
//
// Conventions (kernels/registry.hpp): C[M×N] = A[M×K] · B[K×N], A row-major, C row-major,
// B stored "nk" (N×K row-major) or "kn" (K×N row-major). Device bytes are little-endian
// elements of the kernel's dtype (bf16 or f32), exactly what the GPU reads.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/registry.hpp"

namespace gs::run {

// random: uniform in [-1, 1) (then rounded to bf16 for bf16 kernels, which can turn a draw
//         just below 1 into 1.0); a relative-error verdict.
// integer: integers in [-4, 4]; every fp32 partial sum is exact, so the verdict is bit-exact.
enum class InputMode { random, integer };
std::string_view input_mode_name(InputMode m);  // "random" / "int"
// Accepts "random", "int" and "integer"; nullopt for anything else.
std::optional<InputMode> parse_input_mode(std::string_view text);

// Integer inputs lie in [-kIntegerInputBound, kIntegerInputBound]: every product is at most
// 16 in magnitude, so every partial sum of a K-long dot product is an integer of magnitude
// at most 16·K <= 2^24 for K <= 2^20, and fp32 (24-bit significand) holds it exactly, in any
// summation order. bf16 (8-bit significand) holds every input exactly.
inline constexpr int kIntegerInputBound = 4;
inline constexpr uint32_t kMaxExactK = 1u << 20;

struct GemmData {
  kernels::GemmShape shape;
  kernels::DType ab = kernels::DType::f32;  // element type of A and B
  kernels::DType c = kernels::DType::f32;   // element type of C
  kernels::BLayout b_layout = kernels::BLayout::nk;
  InputMode inputs = InputMode::integer;
  // Logical values as float (already rounded to bf16 when ab is bf16):
  //   a_values[m*K + k] = A[m][k],  b_values[k*N + n] = B[k][n] (whatever the layout).
  std::vector<float> a_values, b_values;
  // Device layout: A row-major M×K; B N×K row-major ("nk") or K×N row-major ("kn").
  std::vector<uint8_t> a_bytes, b_bytes;
};

// Every input element as a function of (seed, matrix, row, column), so that any part of A or B
// can be made without the rest: opening a kernel at 65536³ makes only the traced CTA's rows
// and columns. Deterministic for a seed on every platform, from raw 64-bit draws (never from
// std::uniform_*_distribution), and the same whatever B's layout:
//   * problems with M·K + K·N <= kTabledInputs: the draws of std::mt19937_64 (whose sequence
//     the standard fixes) in order, A row-major then B in logical [k][n] order — the values
//     gemmscope has always fed these shapes — kept in a table;
//   * larger ones: SplitMix64's output function of the element's index and a per-matrix key
//     from the seed, a counter-based generator that gives any element at once.
inline constexpr uint64_t kTabledInputs = uint64_t(1) << 22;

class InputValues {
 public:
  // Throws kernels::ConfigError for integer inputs with K > 2^20.
  InputValues(kernels::GemmShape shape, kernels::DType ab, InputMode inputs, uint64_t seed);
  float a(uint32_t m, uint32_t k) const;  // A[m][k], rounded to bf16 for bf16 kernels
  float b(uint32_t k, uint32_t n) const;  // B[k][n]

 private:
  float from_draw(uint64_t draw) const;
  kernels::GemmShape shape_;
  kernels::DType ab_;
  InputMode inputs_;
  uint64_t key_a_ = 0, key_b_ = 0;
  std::vector<float> table_;  // small problems: A (M·K) then B (K·N)
};

// The whole problem: InputValues for every element, as values and as device bytes.
// C's type is the build's (kernels::c_dtype_of: a kernel may take it as a build parameter).
GemmData make_gemm_data(const kernels::KernelInfo& info, kernels::DType c_dtype, kernels::GemmShape shape,
                        InputMode inputs, uint64_t seed);
GemmData make_gemm_data(kernels::GemmShape shape, kernels::DType ab, kernels::DType c, kernels::BLayout b_layout,
                        InputMode inputs, uint64_t seed);

// What one CTA reads, written into device-layout buffers of the full size (A M×K, B N×K or
// K×N) that are left untouched elsewhere: rows [m0, m1) of A and columns [n0, n1) of B, over
// K in [k_begin, k_end) (all of K by default). poison_tile sets the tile's elements of C to the poison of poisoned_output.
void fill_tile_inputs(const InputValues& values, kernels::GemmShape shape, kernels::DType ab, kernels::BLayout b_layout,
                      const kernels::CtaTile& tile, std::span<uint8_t> a, std::span<uint8_t> b,
                      uint32_t k_begin = 0, uint32_t k_end = UINT32_MAX);
void poison_tile(kernels::GemmShape shape, kernels::DType c_dtype, const kernels::CtaTile& tile, std::span<uint8_t> c);

// C = A·B in double, row-major M×N: every C[i][j] the sum over k = 0..K-1, in that order, of
// A[i][k]·B[k][j] (run/reference_gemm.cpp). Builds: plain C++, AVX2+FMA, AVX-512F, AVX-512 VNNI
// (integer inputs in 32-bit integers; other inputs as AVX-512F), all giving the same bits;
// reference_builds() lists those this CPU runs, fastest last, and the first form takes the
// fastest.
enum class ReferenceBuild { plain, avx2, avx512, avx512_vnni };
std::vector<ReferenceBuild> reference_builds();
std::vector<double> reference_gemm(const GemmData& data);
std::vector<double> reference_gemm(const GemmData& data, ReferenceBuild build);

// C before the launch: every byte 0xFF (a NaN for f32 and bf16), so an element the kernel
// never writes is caught and counted.
std::vector<uint8_t> poisoned_output(kernels::GemmShape shape, kernels::DType c_dtype);

size_t dtype_bytes(kernels::DType d);
// Element i of a device buffer as double.
double load_element(const std::vector<uint8_t>& bytes, kernels::DType dtype, size_t index);

struct Comparison {
  bool correct = false;
  double max_abs_err = 0.0;
  double rel_err = 0.0;         // ‖out − ref‖₂ / ‖ref‖₂ (‖out − ref‖₂ when ref is all zeros)
  uint64_t elements = 0;
  uint64_t mismatches = 0;      // elements outside the tolerance (NaN and unwritten included)
  uint64_t unwritten = 0;       // elements whose bytes are still all 0xFF (the poison)
  uint64_t non_finite = 0;      // NaN or infinity, unwritten included
  double tolerance = 0.0;       // the relative bound used (0 for exact)
  std::string first_mismatch;   // "C[3][17] = 5 but the reference is 7"; empty when correct
};

// The relative-error bound for random inputs of a K-long dot product: 1e-2 with bf16 inputs;
// with f32, 1e-5 or 4·sqrt(K)·2^-24, whichever is larger. fp32 accumulation's rounding error
// grows like sqrt(K)·u with random signs (Higham and Mary, "A new approach to probabilistic
// rounding error analysis", 2019), so a fixed bound judges a correct kernel wrong at long K:
// simt_naive at 32x32x65536 had elements off by 2.5 standard deviations of that error, past
// 1e-5. Below K = 1756 the bound is the fixed 1e-5.
double random_input_tolerance(kernels::DType ab_dtype, uint32_t k);

// Integer inputs: correct when every element equals the reference exactly.
// Random inputs: correct when nothing is NaN or unwritten, rel_err <= tol, and every element
// is within tol·(|ref| + rms(ref)) — the norm alone would let a single wrong element through.
// ab_dtype (the inputs' type, not C's) and K pick tol: a bf16-input kernel with an f32 C is judged
// by bf16's bound (see random_input_tolerance). Throws std::invalid_argument when the sizes
// of c_bytes or ref do not match the shape.
Comparison compare_output(const std::vector<uint8_t>& c_bytes, kernels::DType c_dtype, const std::vector<double>& ref,
                          kernels::GemmShape shape, InputMode inputs, kernels::DType ab_dtype);

}  // namespace gs::run
