// The probes of a GEMM wave's copies (kernels/timing_probes_l2.cpp, build_tma_gemm_probe): each
// CTA reads the boxes a GEMM of 64x64 tiles reads (A's row panel of its tile row, B's of its tile
// column, one K box a step) and its wgmmas multiply them, on the model as on the card; ptxas takes
// both forms; bad arguments are refused with the values named.
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
