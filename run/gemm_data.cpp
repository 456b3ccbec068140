#include "run/gemm_data.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <random>

#include <fmt/format.h>

#include "engine/ir/bf16.hpp"

namespace gs::run {

using ir::bf16_to_f32;
using ir::f32_to_bf16_rne;
using ir::round_to_bf16;

using kernels::BLayout;
using kernels::DType;
using kernels::GemmShape;

std::string_view input_mode_name(InputMode m) { return m == InputMode::random ? "random" : "int"; }

std::optional<InputMode> parse_input_mode(std::string_view text) {
  if (text == "random") return InputMode::random;
  if (text == "int" || text == "integer") return InputMode::integer;
  return std::nullopt;
}

size_t dtype_bytes(DType d) { return d == DType::f32 ? 4 : 2; }

namespace {

// Values from raw draws, so every platform gets the same numbers for a seed.
//   random:  the top 24 bits as a fraction u in [0, 1) (exact in float), then 2u − 1.
//   integer: multiply-shift of the top 32 bits onto 0..8 (no modulo), then − 4.
float value_from_draw(uint64_t draw, InputMode inputs) {
  if (inputs == InputMode::random) {
    const float u = float(draw >> 40) * 0x1p-24f;
    return 2.0f * u - 1.0f;
  }
  constexpr uint64_t kValues = 2 * kIntegerInputBound + 1;
  const int64_t v = int64_t(((draw >> 32) * kValues) >> 32);
  return float(v - kIntegerInputBound);
}

void store_element(uint8_t* bytes, DType dtype, size_t index, float value) {
  if (dtype == DType::f32) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    std::memcpy(bytes + index * 4, &bits, 4);  // little-endian host == device
  } else {
    const uint16_t bits = f32_to_bf16_rne(value);
    std::memcpy(bytes + index * 2, &bits, 2);
  }
}

// SplitMix64's output function (Steele, Lea and Flood 2014): a bijection of 64-bit words
// whose outputs over consecutive counters pass BigCrush.
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;  // SplitMix64's counter step

void require_exact_k(GemmShape shape, InputMode inputs) {
  if (inputs == InputMode::integer && shape.k > kMaxExactK)
    throw kernels::ConfigError(fmt::format(
        "K={} is too long for exact integer inputs: sums of up to 16·K must stay below 2^24, so K must be at most {} "
        "(use --inputs random)",
        shape.k, kMaxExactK));
}

}  // namespace

InputValues::InputValues(GemmShape shape, DType ab, InputMode inputs, uint64_t seed)
    : shape_(shape), ab_(ab), inputs_(inputs), key_a_(mix64(seed ^ 0xA5A5A5A5A5A5A5A5ull)),
      key_b_(mix64(seed ^ 0x5B5B5B5B5B5B5B5Bull)) {
  require_exact_k(shape, inputs);
  const uint64_t a_count = uint64_t(shape.m) * shape.k, b_count = uint64_t(shape.k) * shape.n;
  if (a_count + b_count > kTabledInputs) return;
  table_.resize(size_t(a_count + b_count));
  std::mt19937_64 rng(seed);
  for (float& v : table_) v = from_draw(rng());
}

float InputValues::from_draw(uint64_t draw) const {
  const float x = value_from_draw(draw, inputs_);
  return ab_ == DType::bf16 ? round_to_bf16(x) : x;
}

float InputValues::a(uint32_t m, uint32_t k) const {
  const uint64_t i = uint64_t(m) * shape_.k + k;
  return table_.empty() ? from_draw(mix64(key_a_ + (i + 1) * kGolden)) : table_[size_t(i)];
}

float InputValues::b(uint32_t k, uint32_t n) const {
  const uint64_t i = uint64_t(k) * shape_.n + n;
  return table_.empty() ? from_draw(mix64(key_b_ + (i + 1) * kGolden))
                        : table_[size_t(uint64_t(shape_.m) * shape_.k + i)];
}

GemmData make_gemm_data(const kernels::KernelInfo& info, DType c_dtype, GemmShape shape, InputMode inputs,
                        uint64_t seed) {
  return make_gemm_data(shape, info.ab_dtype, c_dtype, info.b_layout, inputs, seed);
}

GemmData make_gemm_data(GemmShape shape, DType ab, DType c, BLayout b_layout, InputMode inputs, uint64_t seed) {
  const size_t M = shape.m, N = shape.n, K = shape.k;
  GemmData d;
  d.shape = shape;
  d.ab = ab;
  d.c = c;
  d.b_layout = b_layout;
  d.inputs = inputs;
  const InputValues values(shape, ab, inputs, seed);
  d.a_values.resize(M * K);
  for (size_t m = 0; m < M; ++m)
    for (size_t k = 0; k < K; ++k) d.a_values[m * K + k] = values.a(uint32_t(m), uint32_t(k));
  d.b_values.resize(K * N);
  for (size_t k = 0; k < K; ++k)
    for (size_t n = 0; n < N; ++n) d.b_values[k * N + n] = values.b(uint32_t(k), uint32_t(n));

  const size_t es = dtype_bytes(ab);
  d.a_bytes.resize(M * K * es);
  for (size_t i = 0; i < M * K; ++i) store_element(d.a_bytes.data(), ab, i, d.a_values[i]);
  d.b_bytes.resize(K * N * es);
  // In 64 x 64 blocks: with B stored N x K, the element after (k, n) is K elements away, and a
  // store a row of K apart missed the cache each time (a third of this function at 4096^3).
  constexpr size_t kBlock = 64;
  for (size_t k0 = 0; k0 < K; k0 += kBlock)
    for (size_t n0 = 0; n0 < N; n0 += kBlock)
      for (size_t k = k0; k < std::min(K, k0 + kBlock); ++k)
        for (size_t n = n0; n < std::min(N, n0 + kBlock); ++n) {
          const size_t device_index = b_layout == BLayout::kn ? k * N + n : n * K + k;
          store_element(d.b_bytes.data(), ab, device_index, d.b_values[k * N + n]);
        }
  return d;
}

void fill_tile_inputs(const InputValues& values, GemmShape shape, DType ab, BLayout b_layout,
                      const kernels::CtaTile& tile, std::span<uint8_t> a, std::span<uint8_t> b, uint32_t k_begin,
                      uint32_t k_end) {
  const size_t N = shape.n, K = shape.k, es = dtype_bytes(ab);
  if (a.size() < size_t(shape.m) * K * es || b.size() < K * N * es)
    throw std::invalid_argument("fill_tile_inputs: the buffers are smaller than the shape");
  const uint32_t k1 = std::min(k_end, shape.k);
  for (uint32_t m = tile.m0; m < tile.m1; ++m)
    for (uint32_t k = k_begin; k < k1; ++k) store_element(a.data(), ab, size_t(m) * K + k, values.a(m, k));
  // In the order B is stored, so that each page of it is visited once.
  if (b_layout == BLayout::kn) {
    for (uint32_t k = k_begin; k < k1; ++k)
      for (uint32_t n = tile.n0; n < tile.n1; ++n) store_element(b.data(), ab, size_t(k) * N + n, values.b(k, n));
  } else {
    for (uint32_t n = tile.n0; n < tile.n1; ++n)
      for (uint32_t k = k_begin; k < k1; ++k) store_element(b.data(), ab, size_t(n) * K + k, values.b(k, n));
  }
}

void poison_tile(GemmShape shape, DType c_dtype, const kernels::CtaTile& tile, std::span<uint8_t> c) {
  const size_t es = dtype_bytes(c_dtype);
  if (c.size() < size_t(shape.m) * shape.n * es) throw std::invalid_argument("poison_tile: C is smaller than the shape");
  for (uint32_t m = tile.m0; m < tile.m1; ++m)
    std::memset(c.data() + (size_t(m) * shape.n + tile.n0) * es, 0xFF, size_t(tile.n1 - tile.n0) * es);
}

// Compiled also for FMA (with AVX), picked at run time where the CPU has it (four
// doubles an instruction where the baseline has two). The same bits: each product of two
// floats is exact in double, so a fused multiply-add rounds as the add alone.
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("fma", "default")))
#endif
std::vector<uint8_t> poisoned_output(GemmShape shape, DType c_dtype) {
  return std::vector<uint8_t>(size_t(shape.m) * shape.n * dtype_bytes(c_dtype), 0xFF);
}

double load_element(const std::vector<uint8_t>& bytes, DType dtype, size_t index) {
  if (dtype == DType::f32) {
    uint32_t bits;
    std::memcpy(&bits, bytes.data() + index * 4, 4);
    return std::bit_cast<float>(bits);
  }
  uint16_t bits;
  std::memcpy(&bits, bytes.data() + index * 2, 2);
  return bf16_to_f32(bits);
}

double random_input_tolerance(DType ab_dtype, uint32_t k) {
  if (ab_dtype == DType::bf16) return 1e-2;
  return std::max(1e-5, 4.0 * std::sqrt(double(k)) * 0x1p-24);
}

namespace {

bool is_poison(const std::vector<uint8_t>& bytes, size_t index, size_t es) {
  for (size_t b = 0; b < es; ++b)
    if (bytes[index * es + b] != 0xFF) return false;
  return true;
}

std::string describe_mismatch(size_t row, size_t col, double out, double ref, bool unwritten, double allowed) {
  if (unwritten)
    return fmt::format("C[{}][{}] was never written (still the 0xFF poison) but the reference is {:.9g}", row, col, ref);
  if (allowed > 0.0)
    return fmt::format("C[{}][{}] = {:.9g} but the reference is {:.9g} (|error| {:.3g} > allowed {:.3g})", row, col, out,
                       ref, std::abs(out - ref), allowed);
  return fmt::format("C[{}][{}] = {:.9g} but the reference is {:.9g}", row, col, out, ref);
}

}  // namespace

Comparison compare_output(const std::vector<uint8_t>& c_bytes, DType c_dtype, const std::vector<double>& ref,
                          GemmShape shape, InputMode inputs, DType ab_dtype) {
  const size_t M = shape.m, N = shape.n, es = dtype_bytes(c_dtype);
  const size_t count = M * N;
  if (ref.size() != count || c_bytes.size() != count * es)
    throw std::invalid_argument(fmt::format("compare_output: C has {} bytes and the reference {} elements, but {}x{} "
                                            "needs {} bytes and {} elements",
                                            c_bytes.size(), ref.size(), M, N, count * es, count));
  Comparison r;
  r.elements = count;
  const bool exact = inputs == InputMode::integer;
  r.tolerance = exact ? 0.0 : random_input_tolerance(ab_dtype, shape.k);

  double ref_sq = 0.0;
  for (double v : ref) ref_sq += v * v;
  const double ref_rms = count ? std::sqrt(ref_sq / double(count)) : 0.0;

  double diff_sq = 0.0;
  for (size_t i = 0; i < count; ++i) {
    const double out = load_element(c_bytes, c_dtype, i);
    const bool unwritten = is_poison(c_bytes, i, es);
    const bool finite = std::isfinite(out);
    r.unwritten += unwritten;
    r.non_finite += !finite;
    const double err = std::abs(out - ref[i]);
    double allowed = 0.0;
    bool bad;
    if (!finite) {
      bad = true;
    } else {
      r.max_abs_err = std::max(r.max_abs_err, err);
      diff_sq += err * err;
      allowed = r.tolerance * (std::abs(ref[i]) + ref_rms);
      // Integer inputs: every f32 sum is exact, and a bf16 C is that sum rounded to nearest even
      // once (cvt.rn.bf16x2.f32), so the reference is rounded the same way before the exact test.
      const double expected = c_dtype == DType::bf16 ? double(bf16_to_f32(f32_to_bf16_rne(float(ref[i])))) : ref[i];
      bad = exact ? out != expected : err > allowed;
    }
    if (bad) {
      if (r.mismatches == 0)
        r.first_mismatch = describe_mismatch(i / N, i % N, out, ref[i], unwritten, exact ? 0.0 : allowed);
      ++r.mismatches;
    }
  }
  if (r.non_finite > 0) {
    // NaN never passes: say so in the numbers too, not only in the verdict.
    r.max_abs_err = std::numeric_limits<double>::infinity();
    r.rel_err = std::numeric_limits<double>::infinity();
  } else {
    r.rel_err = ref_sq > 0.0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
  }
  r.correct = r.mismatches == 0 && r.non_finite == 0 && (exact || r.rel_err <= r.tolerance);
  if (!r.correct && r.first_mismatch.empty())
    r.first_mismatch = fmt::format("relative error {:.3g} exceeds the bound {:.3g}", r.rel_err, r.tolerance);
  return r;
}

}  // namespace gs::run
