// The probes of a GEMM wave's copies (kernels/timing_probes_l2.cpp, build_tma_gemm_probe): each
// CTA reads the boxes a GEMM of 64x64 tiles reads (A's row panel of its tile row, B's of its tile
// column, one K box a step) and its wgmmas multiply them, on the model as on the card; ptxas takes
// both forms; bad arguments are refused with the values named. The cp.async form
// (build_cp_gemm_probe) reads step 09's slices of the same panels into its two-stage ring.
#include <catch2/catch.hpp>

#include <bit>
#include <cstring>
#include <vector>

#include "engine/ir/bf16.hpp"
#include "engine/model/model.hpp"
#include "engine/ptx/emit.hpp"
#include "kernels/timing_probes.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;

namespace {

// Operand `rows` x `cols` of bf16, row r holding value(r) in every column.
template <class F>
std::vector<uint8_t> rows_of(uint32_t rows, uint32_t cols, F value) {
  std::vector<uint8_t> bytes(size_t(rows) * cols * 2);
  for (uint32_t r = 0; r < rows; ++r) {
    const uint16_t h = ir::f32_to_bf16_rne(value(r));
    for (uint32_t c = 0; c < cols; ++c) std::memcpy(bytes.data() + (size_t(r) * cols + c) * 2, &h, 2);
  }
  return bytes;
}

float record_value(const std::vector<uint8_t>& c, uint32_t thread) {
  uint64_t v = 0;
  std::memcpy(&v, c.data() + size_t(thread) * kernels::kTimingOutBytes + 16, 8);
  return std::bit_cast<float>(uint32_t(v));
}

}  // namespace

TEST_CASE("probes: a GEMM's copies read the panels of each CTA's tile, and its wgmmas multiply them", "[model][timing]") {
  // 2 x 3 tiles of 64 x 64, K = 128 (two K steps), two rounds of wgmma a step. A's row m holds
  // 1 + m/64 (its tile row + 1), B's row n holds 1 + n/64: every product element of tile (y, x)
  // is rounds · K · (y + 1)(x + 1), and a thread's 32 accumulators sum to 32 times that.
  constexpr uint32_t tiles_m = 2, tiles_n = 3, ksteps = 2, rounds = 2, K = 64 * ksteps;
  const ir::Kernel k = kernels::build_tma_gemm_probe(tiles_m, tiles_n, ksteps, rounds, false, 26 * 1024);
  model::GemmBuffers bufs;
  bufs.a = rows_of(64 * tiles_m, K, [](uint32_t r) { return float(1 + r / 64); });
  bufs.b = rows_of(64 * tiles_n, K, [](uint32_t r) { return float(1 + r / 64); });
  bufs.c.assign(size_t(tiles_m) * tiles_n * 128 * kernels::kTimingOutBytes, 0);
  model::SimOptions opt;
  opt.trace = false;
  const model::SimResult r = model::simulate(k, bufs, opt);
  REQUIRE(r.completed);
  for (uint32_t y = 0; y < tiles_m; ++y)
    for (uint32_t x = 0; x < tiles_n; ++x)
      for (uint32_t t : {0u, 77u, 127u}) {
        INFO("tile (" << y << ", " << x << "), thread " << t);
        CHECK(record_value(bufs.c, (y * tiles_n + x) * 128 + t) == float(32 * rounds * K * (y + 1) * (x + 1)));
      }
}

TEST_CASE("probes: the GEMM-copy probe assembles in both forms and refuses what it cannot build", "[model][timing][ptxas]") {
  for (const ir::Kernel& k : {kernels::build_tma_gemm_probe(4, 4, 2, 1, false, 26 * 1024),
                              kernels::build_tma_gemm_probe(4, 4, 2, 0, true, 26 * 1024)})
    test::check_assembles(ptx::emit(k).text, k.target, k.name);
  CHECK_THROWS_WITH(kernels::build_tma_gemm_probe(4, 4, 1, 1, false, 26 * 1024),
                    Catch::Contains("at least 2 K steps") && Catch::Contains("got 4x4, 1"));
  CHECK_THROWS_WITH(kernels::build_tma_gemm_probe(4, 4, 2, 17, false, 26 * 1024), Catch::Contains("0..16 wgmma"));
}

TEST_CASE("probes: the cp.async GEMM-copy probe reads each CTA's panels a step at a time, without a race",
          "[model][timing][ptxas]") {
  // 2 x 3 tiles, K = 48 (three steps of 16), 20 shared loads a step: each byte of A and B its own
  // value, so a thread's XOR of the words it read says which bytes landed where. Thread t reads,
  // in step k, the words at t*4 + (u*512 mod 4096) of the stage for u < 20; the stage holds A's
  // 2 KiB (copying thread j's 16 bytes at j*16: row j/2 of the tile, K bytes (j%2)*16 of the
  // step's 32) then B's.
  constexpr uint32_t tiles_m = 2, tiles_n = 3, ksteps = 3, lds = 20, K = 16 * ksteps;
  const ir::Kernel k = kernels::build_cp_gemm_probe(tiles_m, tiles_n, ksteps, lds, 24 * 1024);
  model::GemmBuffers bufs;
  const auto fill = [](uint32_t rows, uint8_t salt) {
    std::vector<uint8_t> v(size_t(rows) * K * 2);
    for (size_t i = 0; i < v.size(); ++i) v[i] = uint8_t(i * 37u + (i >> 8) * 11u + salt);
    return v;
  };
  bufs.a = fill(64 * tiles_m, 1);
  bufs.b = fill(64 * tiles_n, 101);
  bufs.c.assign(size_t(tiles_m) * tiles_n * 128 * kernels::kTimingOutBytes, 0);
  model::SimOptions opt;
  opt.trace = false;
  const model::SimResult r = model::simulate(k, bufs, opt);
  REQUIRE(r.completed);
  CHECK(r.hazards.empty());
  for (uint32_t y = 0; y < tiles_m; ++y)
    for (uint32_t x = 0; x < tiles_n; ++x)
      for (uint32_t t : {0u, 1u, 77u, 127u}) {
        uint32_t expect = 0;
        for (uint32_t step = 0; step < ksteps; ++step)
          for (uint32_t u = 0; u < lds; ++u) {
            const uint32_t o = t * 4 + (u * 512) % 4096, half = o % 2048, j = half / 16;
            const std::vector<uint8_t>& src = o < 2048 ? bufs.a : bufs.b;
            const uint32_t row = (o < 2048 ? y : x) * 64 + j / 2;
            const size_t at = size_t(row) * K * 2 + step * 32 + (j % 2) * 16 + half % 16;
            uint32_t w = 0;
            std::memcpy(&w, src.data() + at, 4);
            expect ^= w;
          }
        uint64_t got = 0;
        std::memcpy(&got, bufs.c.data() + size_t((y * tiles_n + x) * 128 + t) * kernels::kTimingOutBytes + 16, 8);
        INFO("tile (" << y << ", " << x << "), thread " << t);
        CHECK(got == expect);
      }
  test::check_assembles(ptx::emit(k).text, k.target, k.name);
  CHECK_THROWS_WITH(kernels::build_cp_gemm_probe(4, 4, 1, 0, 24 * 1024),
                    Catch::Contains("at least 2 K steps") && Catch::Contains("got 4x4, 1"));
  CHECK_THROWS_WITH(kernels::build_cp_gemm_probe(4, 4, 2, 0, 4096), Catch::Contains("8 KiB..200 KiB"));
}
