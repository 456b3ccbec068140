// The FFMAs whose register reads hold their warp (DecodedInst::read_cycles, set_operand_reads in
// engine/model/decode.cpp; figure ffma_operand_read_cycles): which ones, and the probes they were
// measured by on the H200 (docs/results/2026-12-03-source, call 2).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/model/decode.hpp"
#include "engine/model/model.hpp"
#include "engine/model/timing.hpp"
#include "kernels/timing_probes.hpp"

using namespace gs;

namespace {

// Warp-FFMA a cycle of the SM over the warps' timed span, as gemmscope_timing_probes reads it
// from each thread's record in C (its cycles, its start): first start to last end.
double ffma_rate(const ir::Kernel& k, uint32_t warps, uint32_t ffma_per_warp) {
  model::GemmBuffers bufs;
  bufs.c.assign(size_t(warps) * 32 * kernels::kTimingOutBytes, 0);
  model::SimOptions opt;
  opt.trace = false;
  opt.machine = &model::timing::kH200;
  const model::SimResult r = model::simulate(k, bufs, opt);
  REQUIRE(r.completed);
  const auto field = [&](uint32_t thread, uint32_t f) {
    uint64_t v = 0;
    std::memcpy(&v, bufs.c.data() + size_t(thread) * kernels::kTimingOutBytes + 8 * f, 8);
    return v;
  };
  uint64_t first = ~uint64_t(0), last = 0;
  for (uint32_t t = 0; t < warps * 32; t += 32) {
    first = std::min(first, field(t, 1));
    last = std::max(last, field(t, 1) + field(t, 0));
  }
  REQUIRE(last > first);
  return double(warps) * ffma_per_warp / double(last - first);
}

}  // namespace

TEST_CASE("issue model: an FFMA reading two new registers holds its warp a part of a cycle", "[model][timing]") {
  const float cycles = float(model::timing::kSm.ffma_operand_read_cycles.value);
  REQUIRE(cycles > 0.0f);
  // Which: every FFMA of an outer product (a new b and accumulator beside the a before it; a row's
  // first: all three new), none of a chain's (c = c * x + y: one new register).
  const ir::Kernel outer = kernels::build_outer_product_probe(4, 8, 8, 16);
  const model::Program po = model::decode_program(outer);
  uint32_t ffma = 0, held = 0;
  for (uint32_t pc = 0; pc < outer.insts.size(); ++pc)
    if (outer.insts[pc].op == ir::Op::fma) {
      ++ffma;
      held += po.insts[pc].read_cycles == cycles;
    }
  CHECK(ffma >= 64);
  CHECK(held >= 64);  // the loop's 64 (the prologue's a and b are FFMAs of immediates: not held)
  const ir::Kernel chain = kernels::build_chain_probe(kernels::ChainOp::ffma, 1, 1, 8, 64, 4);
  const model::Program pc = model::decode_program(chain);
  uint32_t chain_ffma = 0, chain_held = 0;
  for (uint32_t i = 0; i < chain.insts.size(); ++i)
    if (chain.insts[i].op == ir::Op::fma) {
      ++chain_ffma;
      chain_held += pc.insts[i].read_cycles > 0.0f;
    }
  CHECK(chain_ffma >= 64);
  CHECK(chain_held <= 1);  // the first after the loop's branch: nothing before it to reuse
  // The probe: one warp a scheduler reaches 2.86 warp-FFMA a cycle of the SM on the card, two
  // warps a scheduler 3.42 (the other warp issues in the held cycles).
  const uint32_t reps = 256;
  const double one = ffma_rate(kernels::build_outer_product_probe(4, 8, 8, reps), 4, 64 * reps);
  const double two = ffma_rate(kernels::build_outer_product_probe(8, 8, 8, reps), 8, 64 * reps);
  CHECK(one == Approx(2.86).epsilon(0.05));
  CHECK(two == Approx(3.42).epsilon(0.05));
  CHECK(two > one + 0.3);
}
