// The tensor cores' float sums for blocks of small integers (engine/model/tensor_sums_integers.cpp)
// against the documented double order written out plainly here, for every build the CPU runs:
// the same bits where every A and B is an integer and max|A| · max|B| ≤ 2^20 (up to the bound
// itself, signed zeros, old values whose add rounds, NaN and infinite old values), and a refusal,
// nothing written, anywhere else (a fraction, a NaN, an infinity, a bound just past 2^20). One
// case shows the guard is needed: past the bound the float sums would give other bits.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "engine/model/b_rows.hpp"
#include "engine/model/tensor_core.hpp"

using namespace gs;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

struct Block {
  alignas(64) float A[16][16];
  alignas(64) float B[16][256];
  std::vector<float> old;  // [r][c], the accumulator before
};

// S in the documented order: each product exact, the sum rounded in double once per k.
double plain_sum(const Block& in, uint32_t r, uint32_t c) {
  double sum = 0.0;
  for (uint32_t k = 0; k < 16; ++k) sum += double(in.A[r][k]) * double(in.B[k][c]);
  return sum;
}

uint32_t want_bits(const Block& in, uint32_t r, uint32_t c, uint32_t n, bool accumulate) {
  const float old = accumulate ? in.old[r * n + c] : 0.0f;
  return std::bit_cast<uint32_t>(float(double(old) + plain_sum(in, r, c)));
}

// Integers of magnitude at most `a_max` in A and `b_max` in B, each reached somewhere, zeros of
// both signs among them; old values that are small integers, fractions, values whose add
// rounds (2^30 + 1 is no float: 2^30 + 64 is, and + 1 lands between), NaN, infinity, -0.
void fill(Block& in, std::mt19937& rng, uint32_t n, int a_max, int b_max) {
  const auto value = [&](int max) {
    const uint32_t pick = rng() % 16;
    if (pick == 0) return -0.0f;
    if (pick == 1) return 0.0f;
    return float(int(rng() % uint32_t(2 * max + 1)) - max);
  };
  for (auto& row : in.A)
    for (float& a : row) a = value(a_max);
  for (auto& row : in.B)
    for (float& b : row) b = value(b_max);
  in.A[rng() % 16][rng() % 16] = rng() % 2 ? float(a_max) : -float(a_max);
  in.B[rng() % 16][rng() % n] = rng() % 2 ? float(b_max) : -float(b_max);
  in.old.resize(16 * n);
  for (float& o : in.old) {
    switch (rng() % 10) {
      case 0: o = 0x1p30f + 64.0f * float(rng() % 5); break;
      case 1: o = std::ldexp(float(int(rng() % 2001) - 1000), -7); break;
      case 2: o = -0.0f; break;
      case 3: o = rng() % 2 ? kNaN : -kInf; break;
      case 4: o = 0.1f * float(int(rng() % 21) - 10); break;
      case 5: o = std::numeric_limits<float>::denorm_min() * float(rng() % 100); break;
      case 6: o = std::numeric_limits<float>::max(); break;
      default: o = float(int(rng() % 65) - 32);
    }
  }
}

// d[v][lane] as the map says (row r, column c in register 4(c/8) + 2(r/8) + c%2, lane
// 4(r%8) + (c%8)/2), each lane's high word garbage the sums must overwrite with zero.
struct Registers {
  std::vector<std::vector<uint64_t>> regs;
  std::vector<uint64_t*> d;
  uint32_t n;
  Registers(const Block& in, uint32_t n_) : regs(n_ / 2, std::vector<uint64_t>(32)), n(n_) {
    for (uint32_t r = 0; r < 16; ++r)
      for (uint32_t c = 0; c < n; ++c) at(r, c) = 0xDEAD000000000000ull | std::bit_cast<uint32_t>(in.old[r * n + c]);
    for (auto& v : regs) d.push_back(v.data());
  }
  uint64_t& at(uint32_t r, uint32_t c) { return regs[4 * (c / 8) + 2 * (r / 8) + c % 2][4 * (r % 8) + (c % 8) / 2]; }
};

// The float sums into registers: whether they ran, and how many elements differ from the plain
// double order (or, where they did not run, from the registers as they were).
struct Outcome {
  bool ran;
  uint32_t wrong;
};

// B's bound over its n columns, as the callers take it (from the columns: the same values).
float b_bound_of(const Block& in, uint32_t n, model::SumsBuild build) {
  std::vector<float> cols;
  for (uint32_t k = 0; k < 16; ++k) cols.insert(cols.end(), in.B[k], in.B[k] + n);
  return model::integer_bound(cols.data(), cols.size(), build);
}

Outcome wgmma_outcome(const Block& in, uint32_t n, bool scale_d, model::SumsBuild build) {
  Registers regs(in, n);
  Outcome o{model::wgmma_accumulate_integers(in.A, in.B, b_bound_of(in, n, build), n, regs.d.data(), scale_d, build),
            0};
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t c = 0; c < n; ++c) {
      const uint64_t got = regs.at(r, c);
      const uint64_t want = o.ran ? want_bits(in, r, c, n, scale_d)
                                  : 0xDEAD000000000000ull | std::bit_cast<uint32_t>(in.old[r * n + c]);
      o.wrong += got != want;
    }
  return o;
}

Outcome tmem_outcome(const Block& in, uint32_t n, bool accumulate, model::SumsBuild build) {
  constexpr size_t kStride = 300;  // cells past N must stay as they were
  std::vector<uint32_t> cells(16 * kStride + 8, 0x7F800001u);
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t c = 0; c < n; ++c) cells[4 + r * kStride + c] = std::bit_cast<uint32_t>(in.old[r * n + c]);
  const std::vector<uint32_t> before = cells;
  Outcome o{model::tmem_accumulate_integers(in.A, in.B, b_bound_of(in, n, build), n, cells.data() + 4, kStride,
                                            accumulate, build),
            0};
  for (size_t i = 0; i < cells.size(); ++i) {
    const bool inside = i >= 4 && (i - 4) / kStride < 16 && (i - 4) % kStride < n;
    if (!inside || !o.ran) {
      o.wrong += cells[i] != before[i];
      continue;
    }
    o.wrong += cells[i] != want_bits(in, uint32_t((i - 4) / kStride), uint32_t((i - 4) % kStride), n, accumulate);
  }
  return o;
}

// Every N the double sums' tests take (test_tensor_sums.cpp), and each shape of the rest after
// the 64-column blocks: 1, 2 or 3 blocks of 16 columns, with and without 8 columns after them,
// alone and after 64-column blocks.
constexpr uint32_t kWidths[] = {8u, 16u, 24u, 32u, 40u, 48u, 64u, 80u, 104u, 120u, 128u, 200u, 256u};

}  // namespace

TEST_CASE("integer_bound: the largest magnitude of integers, NaN for anything else, in every build",
          "[model][tensor_sums]") {
  for (const model::SumsBuild build : model::sums_builds()) {
    INFO("build " << int(build));
    alignas(64) float v[256];
    for (uint32_t i = 0; i < 256; ++i) v[i] = float(int(i % 9) - 4);
    v[200] = -0.0f;
    CHECK(model::integer_bound(v, 256, build) == 4.0f);
    v[17] = -1024.0f;
    CHECK(model::integer_bound(v, 256, build) == 1024.0f);
    v[255] = 0x1p24f;
    CHECK(model::integer_bound(v, 256, build) == 0x1p24f);
    for (const float bad : {0.5f, -2.25f, 1e-30f, std::numeric_limits<float>::denorm_min(), kNaN}) {
      for (const uint32_t at : {0u, 9u, 255u}) {
        const float keep = v[at];
        v[at] = bad;
        CHECK(std::isnan(model::integer_bound(v, 256, build)));
        v[at] = keep;
      }
    }
    v[3] = -kInf;
    CHECK(model::integer_bound(v, 256, build) == kInf);
    CHECK(model::integer_bound(v, 8, build) == kInf);  // a count the vector loops do not divide
  }
  CHECK(model::sums_fit_float(1024.0f, 1024.0f));
  CHECK(model::sums_fit_float(0x1p20f, 1.0f));
  CHECK(model::sums_fit_float(0.0f, 0x1p100f));
  CHECK_FALSE(model::sums_fit_float(1025.0f, 1024.0f));
  CHECK_FALSE(model::sums_fit_float(0x1p20f + 1.0f, 1.0f));
  CHECK_FALSE(model::sums_fit_float(kNaN, 1.0f));
  CHECK_FALSE(model::sums_fit_float(1.0f, kNaN));
  CHECK_FALSE(model::sums_fit_float(kInf, 1.0f));
  CHECK_FALSE(model::sums_fit_float(kInf, 0.0f));  // infinity times 0: NaN
}

TEST_CASE("wgmma's float sums of small integers give the double order's bits in every build", "[model][tensor_sums]") {
  std::mt19937 rng(17);
  // {max|A|, max|B|}: the default inputs' 4, then products and sums at the bound 2^20 (16 of
  // them: 2^24, the largest integer run of float), reached from either side.
  // 256 x 256: the largest that AVX512_BF16's pairs take (exact in bf16); 257 is not a bf16 and
  // must go the float fused multiply-adds' way.
  const int bounds[][2] = {{4, 4},         {256, 256},  {257, 256},  {1024, 1024}, {4096, 256},
                           {1, 1 << 20},   {1 << 20, 1}, {0, 1 << 20}};
  for (const model::SumsBuild build : model::sums_builds())
    for (const uint32_t n : kWidths)
      for (const auto& bound : bounds)
        for (const bool scale_d : {false, true}) {
          Block in;
          fill(in, rng, n, bound[0], bound[1]);
          INFO("build " << int(build) << ", N = " << n << ", bounds " << bound[0] << " x " << bound[1]
                        << ", scale-d = " << scale_d);
          const Outcome o = wgmma_outcome(in, n, scale_d, build);
          CHECK(o.ran);
          CHECK(o.wrong == 0);
        }
}

TEST_CASE("the sums at the bound: all of A and B at 2^10, every sum 2^24", "[model][tensor_sums]") {
  for (const model::SumsBuild build : model::sums_builds())
    for (const float sign : {1.0f, -1.0f}) {
      Block in;
      for (auto& row : in.A)
        for (float& a : row) a = 1024.0f;
      for (auto& row : in.B)
        for (float& b : row) b = sign * 1024.0f;
      // 2^24 + 1 is no float (the final add rounds to even, 2^24); -2^24 + 1 is one.
      in.old.assign(16 * 256, 1.0f);
      INFO("build " << int(build) << ", sign " << sign);
      const Outcome o = wgmma_outcome(in, 256, true, build);
      CHECK(o.ran);
      CHECK(o.wrong == 0);
      Registers regs(in, 256);
      REQUIRE(model::wgmma_accumulate_integers(in.A, in.B, b_bound_of(in, 256, build), 256, regs.d.data(), true, build));
      CHECK(regs.at(5, 77) == std::bit_cast<uint32_t>(sign > 0 ? 0x1p24f : -0x1p24f + 1.0f));
    }
}

TEST_CASE("tcgen05's float sums of small integers give the double order's bits and touch no other cell",
          "[model][tensor_sums]") {
  std::mt19937 rng(19);
  const int bounds[][2] = {{4, 4}, {256, 256}, {256, 257}, {1024, 1024}, {1 << 20, 1}};
  for (const model::SumsBuild build : model::sums_builds())
    for (const uint32_t n : kWidths)
      for (const auto& bound : bounds)
        for (const bool accumulate : {false, true}) {
          Block in;
          fill(in, rng, n, bound[0], bound[1]);
          INFO("build " << int(build) << ", N = " << n << ", bounds " << bound[0] << " x " << bound[1]
                        << ", accumulate = " << accumulate);
          const Outcome o = tmem_outcome(in, n, accumulate, build);
          CHECK(o.ran);
          CHECK(o.wrong == 0);
        }
}

TEST_CASE("blocks that are not small integers are refused, nothing written", "[model][tensor_sums]") {
  std::mt19937 rng(23);
  // What spoils the block, at an element of A or B.
  struct Spoiler {
    const char* what;
    char operand;
    float value;
  };
  const Spoiler spoilers[] = {
      {"a fraction in A", 'A', 0.5f},   {"a fraction in B", 'B', -1.5f}, {"NaN in A", 'A', kNaN},
      {"NaN in B", 'B', kNaN},          {"infinity in A", 'A', kInf},   {"infinity in B", 'B', -kInf},
      {"A past the bound", 'A', 1025.0f},  // max|A| · max|B| = 1025 · 1024 > 2^20
      {"B past the bound", 'B', -1025.0f},
  };
  for (const model::SumsBuild build : model::sums_builds())
    for (const Spoiler& s : spoilers)
      for (const uint32_t n : {8u, 40u, 256u}) {
        Block in;
        fill(in, rng, n, 1024, 1024);
        if (s.operand == 'A') in.A[rng() % 16][rng() % 16] = s.value;
        else in.B[rng() % 16][rng() % n] = s.value;
        INFO("build " << int(build) << ", " << s.what << ", N = " << n);
        const Outcome w = wgmma_outcome(in, n, true, build);
        CHECK_FALSE(w.ran);
        CHECK(w.wrong == 0);
        const Outcome t = tmem_outcome(in, n, true, build);
        CHECK_FALSE(t.ran);
        CHECK(t.wrong == 0);
      }
}

TEST_CASE("past the bound the float sums would differ: the guard is what keeps the bits", "[model][tensor_sums]") {
  // 4097 · 4097 = 2^24 + 8193, odd and past 2^24: float rounds it to 2^24 + 8192 (to even), so
  // less 4097 · 4096 = 2^24 + 4096 (a float) the float sum is 4096 where the double one is 4097.
  Block in;
  for (auto& row : in.A)
    for (float& a : row) a = 0.0f;
  for (auto& row : in.B)
    for (float& b : row) b = 0.0f;
  for (uint32_t r = 0; r < 16; ++r) {
    in.A[r][0] = 4097.0f;
    in.A[r][1] = -4097.0f;
  }
  for (uint32_t c = 0; c < 8; ++c) {
    in.B[0][c] = 4097.0f;
    in.B[1][c] = 4096.0f;
  }
  in.old.assign(16 * 8, 0.0f);
  CHECK(plain_sum(in, 3, 5) == 4097.0);
  float as_float = 0.0f;
  for (uint32_t k = 0; k < 16; ++k) as_float = std::fma(in.A[3][k], in.B[k][5], as_float);
  CHECK(as_float == 4096.0f);  // what summing in float would give
  for (const model::SumsBuild build : model::sums_builds()) {
    INFO("build " << int(build));
    const Outcome o = wgmma_outcome(in, 8, false, build);
    CHECK_FALSE(o.ran);  // refused (4097 · 4097 > 2^20): the double sums keep 4097
    CHECK(o.wrong == 0);
  }
}

TEST_CASE("mma.sync's float sums of small integers give the double order's bits, and refuse the rest",
          "[model][tensor_sums]") {
  std::mt19937 rng(29);
  const int bounds[][2] = {{4, 4}, {1024, 1024}, {1 << 20, 1}, {1025, 1024}, {4097, 4097}};
  for (const model::SumsBuild build : model::sums_builds())
    for (const auto& bound : bounds)
      for (int round = 0; round < 6; ++round) {
        Block in;
        fill(in, rng, 8, bound[0], bound[1]);
        if (round == 4) in.A[rng() % 16][rng() % 16] = 0.5f;
        if (round == 5) in.B[rng() % 16][rng() % 8] = kNaN;
        alignas(64) float B8[16][8];
        for (uint32_t k = 0; k < 16; ++k)
          for (uint32_t c = 0; c < 8; ++c) B8[k][c] = in.B[k][c];
        // Row r, column c in register 2(r/8) + c%2, lane 4(r%8) + c/2 (facts §2): the wgmma
        // map at N = 8.
        Registers regs(in, 8);
        const bool fits = round < 4 && double(bound[0]) * bound[1] <= 0x1p20;
        const bool ran = model::mma_accumulate_integers(in.A, B8, model::integer_bound(&in.A[0][0], 16 * 16, build),
                                                        model::integer_bound(&B8[0][0], 16 * 8, build), regs.d.data(),
                                                        build);
        INFO("build " << int(build) << ", bounds " << bound[0] << " x " << bound[1] << ", round " << round);
        CHECK(ran == fits);
        uint32_t wrong = 0;
        for (uint32_t r = 0; r < 16; ++r)
          for (uint32_t c = 0; c < 8; ++c)
            wrong += regs.at(r, c) != (ran ? want_bits(in, r, c, 8, true)
                                           : 0xDEAD000000000000ull | std::bit_cast<uint32_t>(in.old[r * 8 + c]));
        CHECK(wrong == 0);
      }
}

namespace {

// A value as bf16 bits (exact for the values these tests use: integers of at most 256, halves,
// NaN, infinity, signed zeros, the smallest subnormal).
uint16_t bf16_bits(float v) { return uint16_t(std::bit_cast<uint32_t>(v) >> 16); }

// A and B of a block in the fragment registers mma.sync reads (facts §2): A's register j, lane
// 4g + t holds row g + 8(j % 2), k 2t + 8(j / 2) (low half) and the next k (high half); B's
// register j, lane 4g + t holds k 2t + 8j and the next of column g. Each lane's high word is
// garbage the sums must not read.
struct Fragments {
  uint64_t a[4][32], b[2][32];
  explicit Fragments(const Block& in) {
    for (uint32_t j = 0; j < 4; ++j)
      for (uint32_t l = 0; l < 32; ++l) {
        const uint32_t row = l / 4 + 8 * (j % 2), k = 2 * (l % 4) + 8 * (j / 2);
        a[j][l] = 0xABCD000000000000ull | bf16_bits(in.A[row][k]) | uint32_t(bf16_bits(in.A[row][k + 1])) << 16;
      }
    for (uint32_t j = 0; j < 2; ++j)
      for (uint32_t l = 0; l < 32; ++l) {
        const uint32_t col = l / 4, k = 2 * (l % 4) + 8 * j;
        b[j][l] = 0x1234000000000000ull | bf16_bits(in.B[k][col]) | uint32_t(bf16_bits(in.B[k + 1][col])) << 16;
      }
  }
};

}  // namespace

TEST_CASE("mma.sync's bf16 pair sums from the fragment registers give the double order's bits, and refuse the rest",
          "[model][tensor_sums]") {
  std::mt19937 rng(31);
  // Where the build is not avx512_bf16 or amx_bf16 (or the CPU lacks them) nothing runs: checked too.
  for (const model::SumsBuild build : model::sums_builds())
    for (int round = 0; round < 40; ++round) {
      Block in;
      fill(in, rng, 8, round % 4 == 0 ? 4 : 256, round % 4 == 1 ? 3 : 256);
      // Values the pair sums must refuse: a fraction, a subnormal, an integer just past 256, NaN,
      // infinity, in A or in B.
      const float refused[] = {0.5f, std::numeric_limits<float>::denorm_min() * float(1 << 16), 258.0f, kNaN, kInf,
                               -1.5f, 0.0078125f};
      const int bad = round >= 26 ? round - 26 : -1;  // rounds 26..39: one refused value each
      if (bad >= 0) {
        const float v = refused[bad % 7];
        if (bad < 7) in.A[rng() % 16][rng() % 16] = v;
        else in.B[rng() % 16][rng() % 8] = v;
      }
      Fragments f(in);
      Registers regs(in, 8);  // C in the registers D is written to (the steps' form)
      const uint64_t* a[4] = {f.a[0], f.a[1], f.a[2], f.a[3]};
      const uint64_t* b[2] = {f.b[0], f.b[1]};
      const uint64_t* c[4] = {regs.d[0], regs.d[1], regs.d[2], regs.d[3]};
      const bool ran = model::mma_accumulate_integer_lanes(a, b, c, regs.d.data(), build);
      INFO("build " << int(build) << ", round " << round);
      CHECK(ran == (model::uses_bf16(build) && bad < 0));
      uint32_t wrong = 0;
      for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t col = 0; col < 8; ++col)
          wrong += regs.at(r, col) != (ran ? want_bits(in, r, col, 8, true)
                                           : 0xDEAD000000000000ull | std::bit_cast<uint32_t>(in.old[r * 8 + col]));
      CHECK(wrong == 0);
    }
}

TEST_CASE("mma.sync's bf16 pair sums read all of C before writing D, where D is another register of C",
          "[model][tensor_sums]") {
  if (!model::uses_bf16(model::fastest_sums_build())) return;  // the path runs only there
  std::mt19937 rng(37);
  Block in;
  fill(in, rng, 8, 256, 256);
  Fragments f(in);
  Registers regs(in, 8);
  // D's registers are C's turned by one: D0 = C1, D1 = C2, D2 = C3, D3 = a fresh register.
  std::vector<uint64_t> fresh(32, 0xDEAD000000000000ull);
  const uint64_t* a[4] = {f.a[0], f.a[1], f.a[2], f.a[3]};
  const uint64_t* b[2] = {f.b[0], f.b[1]};
  const uint64_t* c[4] = {regs.d[0], regs.d[1], regs.d[2], regs.d[3]};
  uint64_t* d[4] = {regs.d[1], regs.d[2], regs.d[3], fresh.data()};
  REQUIRE(model::mma_accumulate_integer_lanes(a, b, c, d, model::fastest_sums_build()));
  uint32_t wrong = 0;
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t col = 0; col < 8; ++col) {
      const uint32_t v = 2 * (r / 8) + col % 2, lane = 4 * (r % 8) + col / 2;
      wrong += d[v][lane] != want_bits(in, r, col, 8, true);
    }
  CHECK(wrong == 0);
}

namespace {

uint32_t high_half(float v) { return std::bit_cast<uint32_t>(v) >> 16; }

}  // namespace

TEST_CASE("wgmma's sums from bf16 pairs give the double order's bits, and refuse what is not a small integer",
          "[model][tensor_sums]") {
  std::mt19937 rng(43);
  uint32_t ran_somewhere = 0;
  for (const model::SumsBuild build : model::sums_builds())
    for (const uint32_t n : {16u, 48u, 64u, 80u, 128u, 256u})
      for (int round = 0; round < 12; ++round) {
        Block in;
        fill(in, rng, n, round % 3 == 0 ? 4 : 256, 256);
        // Rounds 8..11: one A value the pairs must refuse (a fraction, past 256, NaN, infinity).
        const float refused[] = {0.5f, 258.0f, kNaN, -kInf};
        if (round >= 8) in.A[rng() % 16][rng() % 16] = refused[round - 8];
        alignas(64) uint32_t a[16][8];
        for (uint32_t r = 0; r < 16; ++r)
          for (uint32_t p = 0; p < 8; ++p) a[r][p] = high_half(in.A[r][2 * p]) | high_half(in.A[r][2 * p + 1]) << 16;
        alignas(64) uint32_t b[8][256];
        model::bf16_pairs_of_rows(in.B, n, b);
        bool b_right = true;
        for (uint32_t p = 0; p < 8; ++p)
          for (uint32_t c = 0; c < n; ++c)
            b_right = b_right && b[p][c] == (high_half(in.B[2 * p][c]) | high_half(in.B[2 * p + 1][c]) << 16);
        CHECK(b_right);
        for (const bool scale_d : {false, true}) {
          Registers regs(in, n);
          const bool ran = model::wgmma_accumulate_pairs(a, b, n, regs.d.data(), scale_d, build);
          INFO("build " << int(build) << ", N = " << n << ", round " << round << ", scale-d = " << scale_d);
          CHECK(ran == (model::uses_bf16(build) && round < 8));
          ran_somewhere += ran;
          uint32_t wrong = 0;
          for (uint32_t r = 0; r < 16; ++r)
            for (uint32_t c = 0; c < n; ++c)
              wrong += regs.at(r, c) != (ran ? want_bits(in, r, c, n, scale_d)
                                             : 0xDEAD000000000000ull | std::bit_cast<uint32_t>(in.old[r * n + c]));
          CHECK(wrong == 0);
        }
      }
  // N not a multiple of 16, or no B pairs: refused whatever the build.
  Block in;
  fill(in, rng, 24, 4, 4);
  alignas(64) uint32_t a[16][8] = {};
  alignas(64) uint32_t b[8][256] = {};
  Registers regs(in, 24);
  CHECK_FALSE(model::wgmma_accumulate_pairs(a, b, 24, regs.d.data(), true, model::fastest_sums_build()));
  CHECK_FALSE(model::wgmma_accumulate_pairs(a, nullptr, 16, regs.d.data(), true, model::fastest_sums_build()));
  if (model::uses_bf16(model::fastest_sums_build())) CHECK(ran_somewhere > 0);
}

TEST_CASE("B's kept rows give bf16 pairs only where they are small integers and N is a multiple of 16",
          "[model][tensor_sums]") {
  std::mt19937 rng(47);
  for (const uint32_t n : {16u, 24u, 64u}) {
    alignas(64) float columns[256][16];
    for (uint32_t c = 0; c < n; ++c)
      for (uint32_t k = 0; k < 16; ++k) columns[c][k] = float(int(rng() % 513) - 256);
    for (const float extra : {0.0f, 257.0f, 0.5f}) {
      columns[n - 1][3] = extra;
      const std::vector<float> flat(&columns[0][0], &columns[0][0] + 16 * size_t(n));
      auto b = std::make_unique<model::BRows>();
      b->fill(columns, n, model::integer_bound(flat.data(), flat.size(), model::fastest_sums_build()));
      const uint32_t(*pairs)[256] = b->pairs();
      INFO("N = " << n << ", extra " << extra);
      CHECK((pairs != nullptr) == (n % 16 == 0 && extra == 0.0f));
      if (!pairs) continue;
      bool right = true;
      for (uint32_t p = 0; p < 8; ++p)
        for (uint32_t c = 0; c < n; ++c)
          right = right && pairs[p][c] == (high_half(columns[c][2 * p]) | high_half(columns[c][2 * p + 1]) << 16);
      CHECK(right);
    }
  }
}

TEST_CASE("B kept from its bf16 pairs gives the rows, bound, pairs and doubles that B kept from floats gives",
          "[model][tensor_sums]") {
  std::mt19937 rng(53);
  for (const uint32_t n : {16u, 48u, 256u})
    for (const float scale : {1.0f, -1.0f}) {
      // The columns' bf16 pairs as read_operand_pairs gives them, and the floats read_operand_rows
      // gives for the same bytes.
      alignas(64) uint32_t raw[256][8];
      alignas(64) float columns[256][16];
      for (uint32_t c = 0; c < n; ++c)
        for (uint32_t p = 0; p < 8; ++p) {
          const float lo = float(int(rng() % 513) - 256), hi = rng() % 7 == 0 ? -0.0f : float(int(rng() % 9) - 4);
          raw[c][p] = high_half(lo) | high_half(hi) << 16;
          if (scale < 0) raw[c][p] ^= 0x80008000u;
        }
      model::pairs_to_rows(raw, n, scale, columns);
      CHECK(model::pairs_integers(&raw[0][0], 8 * size_t(n)));
      const std::vector<float> flat(&columns[0][0], &columns[0][0] + 16 * size_t(n));
      auto from_floats = std::make_unique<model::BRows>(), from_pairs = std::make_unique<model::BRows>();
      from_floats->fill(columns, n, model::integer_bound(flat.data(), flat.size(), model::fastest_sums_build()));
      from_pairs->fill_pairs(raw, n, scale);
      INFO("N = " << n << ", scale " << scale);
      const uint32_t(*want)[256] = from_floats->pairs();
      const uint32_t(*got)[256] = from_pairs->pairs();
      REQUIRE(want != nullptr);
      REQUIRE(got != nullptr);
      bool same_pairs = true;
      for (uint32_t p = 0; p < 8; ++p)
        for (uint32_t c = 0; c < n; ++c) same_pairs = same_pairs && want[p][c] == got[p][c];
      CHECK(same_pairs);
      CHECK(from_pairs->row_bound() == from_floats->bound);
      const auto& rows = from_pairs->float_rows();
      bool same_rows = true;
      for (uint32_t k = 0; k < 16; ++k)
        for (uint32_t c = 0; c < n; ++c)
          same_rows = same_rows && std::bit_cast<uint32_t>(rows[k][c]) == std::bit_cast<uint32_t>(from_floats->rows[k][c]);
      CHECK(same_rows);
      const auto& dw = from_floats->in_double();
      const auto& dg = from_pairs->in_double();
      bool same_doubles = true;
      for (uint32_t k = 0; k < 16; ++k)
        for (uint32_t c = 0; c < n; ++c) same_doubles = same_doubles && std::bit_cast<uint64_t>(dw[k][c]) == std::bit_cast<uint64_t>(dg[k][c]);
      CHECK(same_doubles);
    }
  // Pairs with a value that is no integer of at most 256 are refused.
  alignas(64) uint32_t words[16] = {};
  CHECK(model::pairs_integers(words, 16));
  for (const float bad : {0.5f, 257.0f * 2.0f, kInf, kNaN}) {
    words[5] = high_half(bad) << 16;
    CHECK_FALSE(model::pairs_integers(words, 16));
  }
}

TEST_CASE("a run of mma.syncs sharing A gives each one's bits, and refuses the run where any value is not a small "
          "integer", "[model][tensor_sums]") {
  std::mt19937 rng(59);
  for (const model::SumsBuild build : model::sums_builds())
    for (uint32_t count = 1; count <= model::kMmaRunMax; ++count)
      for (int round = 0; round < 6; ++round) {
        // One A (the run's first block's), each mma.sync its own B and C; round 4 puts a value the
        // pairs refuse into one B, round 5 into A.
        std::vector<Block> in(count);
        for (Block& b : in) fill(b, rng, 8, 256, round % 2 == 0 ? 4 : 256);
        for (uint32_t m = 1; m < count; ++m) std::memcpy(in[m].A, in[0].A, sizeof in[0].A);
        if (round == 4) in[rng() % count].B[rng() % 16][rng() % 8] = 0.5f;
        if (round == 5)
          for (Block& b : in) b.A[3][7] = 258.0f;  // exact in bf16, past 256
        std::vector<std::unique_ptr<Fragments>> f;
        std::vector<std::unique_ptr<Registers>> regs;
        std::vector<model::MmaLanes> lanes(count);
        for (uint32_t m = 0; m < count; ++m) {
          f.push_back(std::make_unique<Fragments>(in[m]));
          regs.push_back(std::make_unique<Registers>(in[m], 8));
          lanes[m] = {{f[m]->b[0], f[m]->b[1]},
                      {regs[m]->d[0], regs[m]->d[1], regs[m]->d[2], regs[m]->d[3]},
                      {regs[m]->d[0], regs[m]->d[1], regs[m]->d[2], regs[m]->d[3]}};
        }
        const uint64_t* a[4] = {f[0]->a[0], f[0]->a[1], f[0]->a[2], f[0]->a[3]};
        // Kept A as the straight path keeps it; a second run with reuse takes A from it.
        model::MmaAPairs kept;
        bool kept_valid = false;
        const bool ran = model::mma_run_integer_lanes(a, lanes.data(), count, build, &kept, false, &kept_valid);
        INFO("build " << int(build) << ", count " << count << ", round " << round);
        CHECK(ran == (model::uses_bf16(build) && round < 4));  // on tiles, or by AVX512_BF16's pairs
        uint32_t wrong = 0;
        for (uint32_t m = 0; m < count; ++m)
          for (uint32_t r = 0; r < 16; ++r)
            for (uint32_t col = 0; col < 8; ++col)
              wrong += regs[m]->at(r, col) != (ran ? want_bits(in[m], r, col, 8, true)
                                                   : 0xDEAD000000000000ull | std::bit_cast<uint32_t>(in[m].old[r * 8 + col]));
        CHECK(wrong == 0);
        if (!ran || !kept_valid) continue;
        // Again from the kept A: each D is C + 2 · A·B now, as a second mma.sync of the run would give.
        std::vector<Block> again = in;
        for (uint32_t m = 0; m < count; ++m)
          for (uint32_t r = 0; r < 16; ++r)
            for (uint32_t col = 0; col < 8; ++col) again[m].old[r * 8 + col] = std::bit_cast<float>(uint32_t(regs[m]->at(r, col)));
        CHECK(model::mma_run_integer_lanes(a, lanes.data(), count, build, &kept, true, &kept_valid));
        wrong = 0;
        for (uint32_t m = 0; m < count; ++m)
          for (uint32_t r = 0; r < 16; ++r)
            for (uint32_t col = 0; col < 8; ++col) wrong += regs[m]->at(r, col) != want_bits(again[m], r, col, 8, true);
        CHECK(wrong == 0);
      }
}
