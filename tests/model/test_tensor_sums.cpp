// The tensor cores' sums (engine/model/tensor_sums.cpp) against the documented order written out
// plainly here: S[r][c] = sum over k = 0..15 of A[r][k] · B[k][c], each product exact and the
// sum rounded in double once per k, then D = f32(double(old) + S). The build the CPU runs
// and every other build it can run (plain C++, AVX2+FMA, AVX-512F: row pairs sharing B's loads;
// AVX-512F with AVX512_BF16, whose double sums are AVX-512F's)
// must give the same bits for every element, register and lane, including infinities, signed
// zeros and sums that round, and a NaN where the plain order gives one.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "engine/model/tensor_core.hpp"

using namespace gs;

namespace {

// A bf16 value times ±1, as the operand reads give it: mostly random bf16s of a wide range
// (products that round when summed), now and then a special value.
float operand_value(std::mt19937& rng) {
  const uint32_t pick = rng() % 64;
  if (pick == 0) return std::numeric_limits<float>::quiet_NaN();
  if (pick == 1) return std::numeric_limits<float>::infinity();
  if (pick == 2) return -0.0f;
  if (pick == 3) return 0.0f;
  const uint32_t bits = (rng() & 0x80000000u) | ((100u + rng() % 56u) << 23) | (rng() & 0x007F0000u);
  return std::bit_cast<float>(bits);
}

double plain_sum(const double (&A)[16][16], const double (&B)[16][256], uint32_t r, uint32_t c) {
  double sum = 0.0;
  for (uint32_t k = 0; k < 16; ++k) sum += A[r][k] * B[k][c];
  return sum;
}

struct Inputs {
  alignas(64) double A[16][16];
  alignas(64) double B[16][256];
  std::vector<float> old;  // [r][c], the accumulator before
};

void fill(Inputs& in, std::mt19937& rng, uint32_t n) {
  for (auto& row : in.A)
    for (double& a : row) a = operand_value(rng);
  for (auto& row : in.B)
    for (double& b : row) b = operand_value(rng);
  in.old.resize(16 * n);
  for (float& o : in.old) o = rng() % 8 == 0 ? operand_value(rng) : std::ldexp(float(int(rng() % 2001) - 1000), -7);
}

// The same bits as the plain order, or a NaN where it gives one (which NaN an add of two NaNs
// keeps depends on the order of its operands, which the compiler may swap).
bool as_expected(uint64_t got, const Inputs& in, uint32_t r, uint32_t c, uint32_t n, bool accumulate) {
  const float old = accumulate ? in.old[r * n + c] : 0.0f;
  const float want = float(double(old) + plain_sum(in.A, in.B, r, c));
  if (got >> 32 != 0) return false;
  if (std::isnan(want)) return std::isnan(std::bit_cast<float>(uint32_t(got)));
  return uint32_t(got) == std::bit_cast<uint32_t>(want);
}

}  // namespace

TEST_CASE("wgmma's sums land in the accumulator registers the map names, bit for bit", "[model][tensor_sums]") {
  std::mt19937 rng(7);
  for (const model::SumsBuild build : model::sums_builds())
  for (const uint32_t n : {8u, 16u, 24u, 40u, 64u, 120u, 256u})
    for (const bool scale_d : {false, true}) {
      Inputs in;
      fill(in, rng, n);
      // d[v][lane]: row r, column c in register 4(c/8) + 2(r/8) + c%2, lane 4(r%8) + (c%8)/2;
      // the high word of each lane is garbage the sums must overwrite with zero.
      std::vector<std::vector<uint64_t>> regs(n / 2, std::vector<uint64_t>(32));
      for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t c = 0; c < n; ++c)
          regs[4 * (c / 8) + 2 * (r / 8) + c % 2][4 * (r % 8) + (c % 8) / 2] =
              0xDEAD000000000000ull | std::bit_cast<uint32_t>(in.old[r * n + c]);
      std::vector<uint64_t*> d;
      for (auto& v : regs) d.push_back(v.data());
      model::wgmma_accumulate(in.A, in.B, n, d.data(), scale_d, build);
      uint32_t wrong = 0;
      for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t c = 0; c < n; ++c) {
          const uint64_t got = regs[4 * (c / 8) + 2 * (r / 8) + c % 2][4 * (r % 8) + (c % 8) / 2];
          if (!as_expected(got, in, r, c, n, scale_d)) ++wrong;
        }
      INFO("build " << int(build) << ", N = " << n << ", scale-d = " << scale_d);
      CHECK(wrong == 0);
    }
}

TEST_CASE("tcgen05's sums land in tensor-memory rows, bit for bit, and touch no other cell", "[model][tensor_sums]") {
  std::mt19937 rng(11);
  constexpr size_t kStride = 300;  // a row stride wider than N: cells past N must stay as they were
  for (const model::SumsBuild build : model::sums_builds())
  for (const uint32_t n : {8u, 24u, 40u, 128u, 256u})
    for (const bool accumulate : {false, true}) {
      Inputs in;
      fill(in, rng, n);
      std::vector<uint32_t> cells(16 * kStride + 8, 0x7F800001u);  // a signalling NaN marks the untouched
      for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t c = 0; c < n; ++c) cells[4 + r * kStride + c] = std::bit_cast<uint32_t>(in.old[r * n + c]);
      model::tmem_accumulate(in.A, in.B, n, cells.data() + 4, kStride, accumulate, build);
      uint32_t wrong = 0, touched = 0;
      for (size_t i = 0; i < cells.size(); ++i) {
        const bool inside = i >= 4 && (i - 4) / kStride < 16 && (i - 4) % kStride < n;
        if (!inside) {
          touched += cells[i] != 0x7F800001u;
          continue;
        }
        const uint32_t r = uint32_t((i - 4) / kStride), c = uint32_t((i - 4) % kStride);
        wrong += !as_expected(cells[i], in, r, c, n, accumulate);
      }
      INFO("build " << int(build) << ", N = " << n << ", accumulate = " << accumulate);
      CHECK(wrong == 0);
      CHECK(touched == 0);
    }
}

TEST_CASE("mma.sync's sums accumulate into the C/D registers the map names, bit for bit", "[model][tensor_sums]") {
  std::mt19937 rng(13);
  for (const model::SumsBuild build : model::sums_builds())
    for (int round = 0; round < 8; ++round) {
      Inputs in;
      fill(in, rng, 8);
      alignas(64) double B8[16][8];
      for (uint32_t k = 0; k < 16; ++k)
        for (uint32_t c = 0; c < 8; ++c) B8[k][c] = in.B[k][c];
      // Row r, column c in register 2(r/8) + c%2, lane 4(r%8) + c/2 (facts §2); the high word
      // of each lane is garbage the sums must overwrite with zero.
      uint64_t regs[4][32];
      for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t c = 0; c < 8; ++c)
          regs[2 * (r / 8) + c % 2][4 * (r % 8) + c / 2] = 0xBEEF000000000000ull | std::bit_cast<uint32_t>(in.old[r * 8 + c]);
      uint64_t* d[4] = {regs[0], regs[1], regs[2], regs[3]};
      model::mma_accumulate(in.A, B8, d, build);
      uint32_t wrong = 0;
      for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t c = 0; c < 8; ++c) wrong += !as_expected(regs[2 * (r / 8) + c % 2][4 * (r % 8) + c / 2], in, r, c, 8, true);
      INFO("build " << int(build) << ", round " << round);
      CHECK(wrong == 0);
    }
}
