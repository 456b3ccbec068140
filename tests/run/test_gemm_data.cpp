// run/gemm_data + bf16: the inputs both back ends are fed, the reference GEMM and the
// verdict. None of these need the model.
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <catch2/catch.hpp>

#include "engine/ir/bf16.hpp"
#include "run/gemm_data.hpp"

using namespace gs;
using kernels::BLayout;
using kernels::DType;
using kernels::GemmShape;
using run::InputMode;

namespace {

void set_f32(std::vector<uint8_t>& bytes, size_t index, float v) { std::memcpy(bytes.data() + index * 4, &v, 4); }

// C as the kernel would write it: the reference rounded to f32.
std::vector<uint8_t> c_from_reference(const std::vector<double>& ref) {
  std::vector<uint8_t> c(ref.size() * 4);
  for (size_t i = 0; i < ref.size(); ++i) set_f32(c, i, float(ref[i]));
  return c;
}

}  // namespace

TEST_CASE("bf16: round to nearest, ties to even", "[run][bf16]") {
  // 1 + 2^-8 lies exactly between 1.0 (even) and 1.0078125 (odd): ties go to the even one.
  CHECK(ir::round_to_bf16(1.00390625f) == 1.0f);
  // 1 + 3·2^-8 lies between 1.0078125 (odd) and 1.015625 (even).
  CHECK(ir::round_to_bf16(1.01171875f) == 1.015625f);
  CHECK(ir::round_to_bf16(-1.00390625f) == -1.0f);
  CHECK(ir::round_to_bf16(-1.01171875f) == -1.015625f);
  // Just above a tie rounds up, just below rounds down.
  CHECK(ir::round_to_bf16(std::nextafter(1.00390625f, 2.0f)) == 1.0078125f);
  CHECK(ir::round_to_bf16(std::nextafter(1.01171875f, 0.0f)) == 1.0078125f);
  CHECK(ir::f32_to_bf16_rne(1.0f) == 0x3F80);
  CHECK(ir::f32_to_bf16_rne(-2.0f) == 0xC000);
  CHECK(ir::bf16_to_f32(0x3F80) == 1.0f);
  // Overflow rounds to infinity; infinities and NaNs survive (a NaN never becomes an inf).
  CHECK(ir::f32_to_bf16_rne(FLT_MAX) == 0x7F80);
  CHECK(ir::f32_to_bf16_rne(std::numeric_limits<float>::infinity()) == 0x7F80);
  CHECK(std::isnan(ir::round_to_bf16(std::numeric_limits<float>::quiet_NaN())));
  CHECK(std::isnan(ir::round_to_bf16(std::bit_cast<float>(0x7F800001u))));  // low-mantissa signalling NaN
  // Every finite bf16 value makes the round trip unchanged.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = ir::bf16_to_f32(uint16_t(h));
    if (std::isnan(f)) continue;
    REQUIRE(ir::f32_to_bf16_rne(f) == h);
  }
}

TEST_CASE("gemm data: integer inputs keep every fp32 sum exact", "[run][data]") {
  // The documented bound: |a·b| <= 16, so partial sums stay within 16·K <= 2^24.
  STATIC_REQUIRE(uint64_t(run::kIntegerInputBound) * run::kIntegerInputBound * run::kMaxExactK <= (1u << 24));
  const GemmShape shape{16, 16, 4096};
  const run::GemmData d = run::make_gemm_data(shape, DType::bf16, DType::f32, BLayout::nk, InputMode::integer, 7);
  std::array<int, 9> seen{};
  for (float v : d.a_values) {
    REQUIRE(v == std::floor(v));
    REQUIRE(std::abs(v) <= 4.0f);
    ++seen[size_t(int(v) + 4)];
  }
  for (int count : seen) CHECK(count > 0);  // all nine values occur
  // A float dot product in storage order equals the exact one.
  const std::vector<double> ref = run::reference_gemm(d);
  for (uint32_t m = 0; m < shape.m; ++m)
    for (uint32_t n = 0; n < shape.n; ++n) {
      float acc = 0.0f;
      for (uint32_t k = 0; k < shape.k; ++k) acc += d.a_values[m * shape.k + k] * d.b_values[k * shape.n + n];
      REQUIRE(double(acc) == ref[m * shape.n + n]);
    }
  // Past the bound the generator refuses, naming the limit.
  CHECK_THROWS_WITH(run::make_gemm_data({1, 1, run::kMaxExactK + 1}, DType::bf16, DType::f32, BLayout::nk,
                                        InputMode::integer, 1),
                    Catch::Contains("K=1048577") && Catch::Contains("--inputs random"));
}

TEST_CASE("gemm data: random inputs are in [-1, 1], bf16-exact for bf16 kernels", "[run][data]") {
  const run::GemmData d = run::make_gemm_data({32, 48, 64}, DType::bf16, DType::f32, BLayout::nk, InputMode::random, 3);
  double sum = 0.0;
  for (float v : d.a_values) {
    REQUIRE(v >= -1.0f);
    REQUIRE(v <= 1.0f);  // a draw just below 1 may round up to 1.0 in bf16
    REQUIRE(ir::round_to_bf16(v) == v);
    sum += v;
  }
  CHECK(std::abs(sum / double(d.a_values.size())) < 0.1);  // centred, not all one sign
  // The device bytes hold the same values.
  REQUIRE(d.a_bytes.size() == d.a_values.size() * 2);
  for (size_t i = 0; i < d.a_values.size(); ++i) REQUIRE(run::load_element(d.a_bytes, DType::bf16, i) == d.a_values[i]);
  // f32 kernels get plain floats: most are not bf16 values.
  const run::GemmData f = run::make_gemm_data({8, 8, 8}, DType::f32, DType::f32, BLayout::kn, InputMode::random, 3);
  int not_bf16 = 0;
  for (float v : f.a_values) {
    REQUIRE(v >= -1.0f);
    REQUIRE(v < 1.0f);  // plain floats stay in [-1, 1)
    not_bf16 += ir::round_to_bf16(v) != v;
  }
  CHECK(not_bf16 > 32);
  REQUIRE(f.a_bytes.size() == f.a_values.size() * 4);
}

TEST_CASE("gemm data: deterministic for a seed", "[run][data]") {
  // The standard fixes mt19937_64's sequence (the 10000th draw of the default seed).
  std::mt19937_64 rng;
  rng.discard(9999);
  REQUIRE(rng() == 9981545732273789042ull);
  for (const InputMode mode : {InputMode::integer, InputMode::random}) {
    const run::GemmData a = run::make_gemm_data({64, 64, 64}, DType::bf16, DType::f32, BLayout::nk, mode, 42);
    const run::GemmData b = run::make_gemm_data({64, 64, 64}, DType::bf16, DType::f32, BLayout::nk, mode, 42);
    const run::GemmData c = run::make_gemm_data({64, 64, 64}, DType::bf16, DType::f32, BLayout::nk, mode, 43);
    CHECK(a.a_bytes == b.a_bytes);
    CHECK(a.b_bytes == b.b_bytes);
    CHECK(a.a_bytes != c.a_bytes);
    CHECK(a.b_bytes != c.b_bytes);
  }
  // Pinned values: a change to how draws become numbers changes every recorded result.
  const run::GemmData p = run::make_gemm_data({1, 1, 4}, DType::f32, DType::f32, BLayout::kn, InputMode::integer, 1);
  std::mt19937_64 ref(1);
  for (float v : p.a_values) CHECK(v == float(int64_t(((ref() >> 32) * 9) >> 32) - 4));
}

TEST_CASE("gemm data: nk and kn hold the same logical B", "[run][data]") {
  const GemmShape s{8, 24, 40};
  for (const DType dt : {DType::f32, DType::bf16}) {
    const run::GemmData nk = run::make_gemm_data(s, dt, DType::f32, BLayout::nk, InputMode::random, 5);
    const run::GemmData kn = run::make_gemm_data(s, dt, DType::f32, BLayout::kn, InputMode::random, 5);
    REQUIRE(nk.b_values == kn.b_values);
    REQUIRE(nk.a_bytes == kn.a_bytes);
    CHECK(nk.b_bytes != kn.b_bytes);
    for (uint32_t k = 0; k < s.k; ++k)
      for (uint32_t n = 0; n < s.n; ++n) {
        const float v = nk.b_values[k * s.n + n];
        REQUIRE(run::load_element(nk.b_bytes, dt, size_t(n) * s.k + k) == v);  // N×K row-major
        REQUIRE(run::load_element(kn.b_bytes, dt, size_t(k) * s.n + n) == v);  // K×N row-major
      }
  }
}

TEST_CASE("reference gemm: matches a naive triple loop across block edges", "[run][reference]") {
  // 600 columns and 300 K cross the 512-column and 128-K blocks; odd sizes test the edges.
  for (const GemmShape s : {GemmShape{37, 53, 71}, GemmShape{7, 600, 300}, GemmShape{1, 1, 1}}) {
    const run::GemmData d = run::make_gemm_data(s, DType::f32, DType::f32, BLayout::kn, InputMode::random, 11);
    const std::vector<double> ref = run::reference_gemm(d);
    REQUIRE(ref.size() == size_t(s.m) * s.n);
    for (uint32_t m = 0; m < s.m; ++m)
      for (uint32_t n = 0; n < s.n; ++n) {
        double acc = 0.0;
        for (uint32_t k = 0; k < s.k; ++k) acc += double(d.a_values[m * s.k + k]) * d.b_values[k * s.n + n];
        REQUIRE(ref[m * s.n + n] == Approx(acc).epsilon(1e-12).margin(1e-12));
      }
  }
}

TEST_CASE("reference gemm: every build this CPU runs gives the plain build's bits", "[run][reference]") {
  // Shapes that cross the 512-column and 256-K panels and leave partial register tiles (6 and 8
  // rows, 8 to 32 columns) at every edge; random f32 and bf16 inputs whose sums round, and
  // integer ones (which the AVX2 and AVX-512 builds sum in float).
  INFO("builds: " << run::reference_builds().size());
  for (const GemmShape s : {GemmShape{37, 53, 71}, GemmShape{70, 1100, 530}, GemmShape{48, 32, 600}, GemmShape{1, 1, 1}})
    for (const DType ab : {DType::f32, DType::bf16})
    for (const InputMode inputs : {InputMode::random, InputMode::integer}) {
      const run::GemmData d = run::make_gemm_data(s, ab, DType::f32, BLayout::nk, inputs, 5);
      const std::vector<double> plain = run::reference_gemm(d, run::ReferenceBuild::plain);
      for (const run::ReferenceBuild build : run::reference_builds()) {
        const std::vector<double> got = run::reference_gemm(d, build);
        REQUIRE(got.size() == plain.size());
        size_t differ = 0;
        for (size_t i = 0; i < got.size(); ++i) differ += std::bit_cast<uint64_t>(got[i]) != std::bit_cast<uint64_t>(plain[i]);
        INFO("build " << int(build) << ", " << s.m << "x" << s.n << "x" << s.k << ", " << run::input_mode_name(inputs));
        CHECK(differ == 0);
      }
    }
}

TEST_CASE("compare output: exact for integers; one wrong element, NaN and unwritten are caught", "[run][compare]") {
  const GemmShape s{16, 32, 64};
  const run::GemmData d = run::make_gemm_data(s, DType::f32, DType::f32, BLayout::kn, InputMode::integer, 9);
  const std::vector<double> ref = run::reference_gemm(d);
  std::vector<uint8_t> c = c_from_reference(ref);

  run::Comparison r = run::compare_output(c, DType::f32, ref, s, InputMode::integer, DType::f32);
  CHECK(r.correct);
  CHECK(r.mismatches == 0);
  CHECK(r.max_abs_err == 0.0);
  CHECK(r.first_mismatch.empty());

  set_f32(c, 3 * s.n + 17, float(ref[3 * s.n + 17] + 1.0));
  r = run::compare_output(c, DType::f32, ref, s, InputMode::integer, DType::f32);
  CHECK_FALSE(r.correct);
  CHECK(r.mismatches == 1);
  CHECK(r.max_abs_err == 1.0);
  CHECK_THAT(r.first_mismatch, Catch::StartsWith("C[3][17] = ") && Catch::Contains("but the reference is"));

  // The poison: one element never written.
  c = c_from_reference(ref);
  std::memset(c.data() + 4 * 5, 0xFF, 4);
  r = run::compare_output(c, DType::f32, ref, s, InputMode::integer, DType::f32);
  CHECK_FALSE(r.correct);
  CHECK(r.unwritten == 1);
  CHECK(r.mismatches == 1);
  CHECK_THAT(r.first_mismatch, Catch::Contains("C[0][5] was never written"));

  // A fully poisoned C: everything unwritten.
  r = run::compare_output(run::poisoned_output(s, DType::f32), DType::f32, ref, s, InputMode::integer, DType::f32);
  CHECK(r.unwritten == uint64_t(s.m) * s.n);
  CHECK_FALSE(r.correct);
}

TEST_CASE("compare output: random inputs pass within the bound, NaN never passes", "[run][compare]") {
  const GemmShape s{32, 32, 128};
  const run::GemmData d = run::make_gemm_data(s, DType::bf16, DType::f32, BLayout::nk, InputMode::random, 4);
  const std::vector<double> ref = run::reference_gemm(d);
  std::vector<uint8_t> c = c_from_reference(ref);
  run::Comparison r = run::compare_output(c, DType::f32, ref, s, InputMode::random, DType::bf16);
  CHECK(r.correct);
  CHECK(r.tolerance == 1e-2);
  CHECK(r.rel_err < 1e-6);

  // Small noise everywhere (0.1% of each value) passes the 1e-2 bound.
  for (size_t i = 0; i < ref.size(); ++i) set_f32(c, i, float(ref[i] * 1.001));
  r = run::compare_output(c, DType::f32, ref, s, InputMode::random, DType::bf16);
  CHECK(r.correct);
  CHECK(r.rel_err == Approx(1e-3).epsilon(0.01));
  // ...but not the 1e-5 bound of f32 inputs.
  CHECK_FALSE(run::compare_output(c, DType::f32, ref, s, InputMode::random, DType::f32).correct);

  // One element off by a lot is caught even though the norm barely moves.
  c = c_from_reference(ref);
  set_f32(c, 100, float(ref[100] + 3.0));
  r = run::compare_output(c, DType::f32, ref, s, InputMode::random, DType::bf16);
  CHECK_FALSE(r.correct);
  CHECK(r.mismatches == 1);
  CHECK_THAT(r.first_mismatch, Catch::StartsWith("C[3][4] = "));

  // NaN fails, and the numbers say so.
  c = c_from_reference(ref);
  set_f32(c, 7, std::numeric_limits<float>::quiet_NaN());
  r = run::compare_output(c, DType::f32, ref, s, InputMode::random, DType::bf16);
  CHECK_FALSE(r.correct);
  CHECK(r.non_finite == 1);
  CHECK(r.unwritten == 0);  // a computed NaN is not the poison
  CHECK(std::isinf(r.rel_err));

  // A C of the wrong size is a programming error, not a verdict.
  CHECK_THROWS_AS(run::compare_output(std::vector<uint8_t>(8), DType::f32, ref, s, InputMode::random, DType::f32),
                  std::invalid_argument);
}

TEST_CASE("poisoned output: every byte 0xFF, a NaN in both dtypes", "[run][compare]") {
  const std::vector<uint8_t> f = run::poisoned_output({3, 5, 7}, DType::f32);
  REQUIRE(f.size() == 3 * 5 * 4);
  for (uint8_t b : f) REQUIRE(b == 0xFF);
  CHECK(std::isnan(run::load_element(f, DType::f32, 0)));
  const std::vector<uint8_t> h = run::poisoned_output({3, 5, 7}, DType::bf16);
  REQUIRE(h.size() == 3 * 5 * 2);
  CHECK(std::isnan(run::load_element(h, DType::bf16, 14)));
}

TEST_CASE("input modes: names and parsing", "[run][data]") {
  CHECK(run::parse_input_mode("random") == InputMode::random);
  CHECK(run::parse_input_mode("int") == InputMode::integer);
  CHECK(run::parse_input_mode("integer") == InputMode::integer);
  CHECK_FALSE(run::parse_input_mode("ints").has_value());
  CHECK(run::input_mode_name(InputMode::integer) == "int");
  CHECK(run::input_mode_name(InputMode::random) == "random");
}
