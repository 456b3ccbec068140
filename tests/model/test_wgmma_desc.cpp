// The model's wgmma reading through descriptors: every field placed as layout says (the probe
// cases of `gemmscope probe wgmma-desc`, run here on the model alone), and descriptors it
// cannot place reported once at the MMA with NaN products, never silent zeros.
#include <bit>
#include <cmath>
#include <cstring>

#include <catch2/catch.hpp>

#include "engine/model/model.hpp"
#include "run/probe_cases.hpp"
#include "run/probe_desc.hpp"

using namespace gs;
using Catch::Contains;

namespace {

struct DescRun {
  run::ProbeCase probe;
  model::SimResult result;
  std::vector<uint8_t> c;
};

DescRun run_desc(const kernels::WgmmaDescProbe& desc) {
  DescRun r{run::make_wgmma_desc_probe_case(desc, kernels::build_wgmma_descriptor_probe(desc)), {}, {}};
  model::GemmBuffers buffers = r.probe.buffers;
  r.result = model::simulate(r.probe.kernel, buffers, {.trace = false});
  r.c = std::move(buffers.c);
  return r;
}

// The index of the kernel's wgmma.mma_async instruction.
uint32_t wgmma_inst(const ir::Kernel& k) {
  for (uint32_t i = 0; i < k.insts.size(); ++i)
    if (k.insts[i].op == ir::Op::wgmma_mma_async) return i;
  FAIL("no wgmma in the probe kernel");
  return 0;
}

// D[m][col] of an A probe (N = 16), from the facts §1.5 map.
float d_at(const DescRun& r, uint32_t m, uint32_t col) {
  for (uint32_t t = 0; t < 128; ++t)
    for (uint32_t v = 0; v < r.probe.n / 2; ++v) {
      uint32_t row = 0, c = 0;
      run::wgmma_accumulator_position(t, v, row, c);
      if (row == m && c == col) {
        float f;
        std::memcpy(&f, r.c.data() + (size_t(t) * r.probe.n / 2 + v) * 4, 4);
        return f;
      }
    }
  return 0.0f;
}

}  // namespace

TEST_CASE("wgmma descriptors: every field value of the probe cases is placed, with no hazard", "[model][wgmma_desc]") {
  for (const kernels::WgmmaDescProbe& desc : run::wgmma_desc_probes()) {
    DYNAMIC_SECTION(desc.name) {
      const DescRun r = run_desc(desc);
      REQUIRE(r.result.completed);
      CHECK(r.result.hazards.empty());
      const run::ProbeCheck check = run::check_probe_output(r.probe, r.c, "model");
      INFO(check.first_mismatch);
      CHECK(check.pass);
      CHECK(check.checked == 128 * desc.n / 2);
    }
  }
}

TEST_CASE("wgmma descriptors: reads past shared memory are one hazard at the MMA naming the fields, and NaN",
          "[model][wgmma_desc][errors]") {
  // SBO = 0x3FFF0 puts rows 8..63 256 KB apart: past any CTA's shared memory.
  const kernels::WgmmaDescProbe desc{"SBO past smem", 'A', 16, true, 0, {0, 16, 0x3FFF0, 0, layout::Swizzle::b128}};
  const DescRun r = run_desc(desc);
  REQUIRE(r.result.completed);
  REQUIRE(r.result.hazards.size() == 1);
  const model::Hazard& h = r.result.hazards[0];
  CHECK(h.kind == model::HazardKind::bad_descriptor);
  CHECK(h.inst == wgmma_inst(r.probe.kernel));
  CHECK_THAT(h.detail, Contains("the A descriptor") && Contains("SBO=262128") && Contains("outside the CTA's") &&
                           Contains("NaN"));
  // Rows 0-7 (group 0) are placed; rows 8-63 read outside and are NaN, not zero.
  for (uint32_t m = 0; m < 64; ++m)
    for (uint32_t col = 0; col < 16; ++col) {
      INFO("D row " << m << " col " << col);
      const float d = d_at(r, m, col);
      if (m < 8) CHECK(run::wgmma_desc_decode(d) == run::wgmma_desc_formula_offset(desc, m, col));
      else CHECK(std::isnan(d));
    }
}

TEST_CASE("wgmma descriptors: reserved bits make a descriptor the model cannot place", "[model][wgmma_desc][errors]") {
  kernels::WgmmaDescProbe desc{"reserved", 'B', 32, true, 0, {0, 16, 1024, 0, layout::Swizzle::b128}};
  desc.reserved_bits = uint64_t{1} << 46;  // the sm_100 version field: a tcgen05 descriptor given to wgmma
  const DescRun r = run_desc(desc);
  REQUIRE(r.result.completed);
  REQUIRE(r.result.hazards.size() == 1);
  CHECK(r.result.hazards[0].kind == model::HazardKind::bad_descriptor);
  CHECK(r.result.hazards[0].inst == wgmma_inst(r.probe.kernel));
  CHECK_THAT(r.result.hazards[0].detail,
             Contains("the B descriptor") && Contains("reserved bits 0x0000400000000000") && Contains("sm_100"));
  // Every product read B: all of D is NaN (rows 16-63 too: 0 x NaN), nothing is a silent 0.
  for (size_t at = 0; at < r.c.size(); at += 4) {
    float f;
    std::memcpy(&f, r.c.data() + at, 4);
    REQUIRE(std::isnan(f));
  }
}
