// An untraced whole warp's ld.shared.u32 with lanes at scattered words (mma.sync's fragments,
// step 09) finds its lanes' offsets among those kept for its instruction
// (engine/model/exec_smem_forms.cpp: shared_lane_pattern, and repeated_lane_pattern_avx2 where
// the CPU has AVX2, which compares the offsets with the kept ones). The traced CTA runs
// exec_memory's lane loop: both must read the same words and count the same wavefronts, when
// one instruction's offsets come back, change, or differ from the kept ones in one lane only.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"

using namespace gs;

namespace {

// The five passes' word of lane l: the fragment rows (lane 4g + q at word 8g + q: a 16-byte
// group of four lanes, 32 bytes apart) in passes 0, 1 and 4; lane l at word 9l % 32 in pass 2;
// the fragment rows with lane 31 one group on (word 63) in pass 3.
uint32_t word_of(uint32_t lane, uint32_t pass) {
  const uint32_t rows = 8 * (lane / 4) + lane % 4;
  if (pass == 2) return (lane * 9) % 32;
  if (pass == 3 && lane == 31) return rows + 4;
  return rows;
}

// One warp fills 64 words of shared memory with their index, then one ld.shared.u32 in a loop of
// five passes reads lane l's word_of(l, pass); each lane folds what it read into acc = 64 acc + x
// and stores acc to C.
ir::Kernel pattern_kernel() {
  using ir::Type;
  builder::Builder b("shared_patterns", ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto words = b.shared("words", 256, 128, ir::SmemUse::other);
  builder::Reg lane = b.special(ir::Special::tid_x, "lane");
  builder::Reg base = b.smem_address(words, 0, "base");
  builder::Reg fill = (base + (lane << 2)).named("fill");
  b.st_shared(Type::u32, builder::Addr::at(fill, 0), {lane});
  b.st_shared(Type::u32, builder::Addr::at(fill, 128), {(lane + 32u).named("upper")});
  b.bar_sync(0);
  builder::Reg rows = (((lane >> 2) << 3) + (lane & 3)).named("rows");
  builder::Reg scattered = ((lane * 9u) & 31u).named("scattered");
  builder::Reg last_moved = (rows + b.selp(4u, 0u, lane == 31u, "lane31")).named("last_moved");
  builder::Reg acc = b.mov(Type::u32, 0u, "acc");
  b.k_loop("pass", 5u, [&](const builder::Reg& pass) {
    builder::Reg word = b.selp(scattered, rows, pass == 2u, "word");
    word = b.selp(last_moved, word, pass == 3u, "word_3");
    builder::Reg at = (base + (word << 2)).named("at");
    builder::Reg x = b.ld_shared(Type::u32, builder::Addr::at(at, 0), "x");
    b.alu_into(ir::Op::mul_lo, acc, {acc, 64u});
    b.alu_into(ir::Op::add, acc, {acc, x});
  });
  builder::Reg c_at = (b.global_ptr(pc, "c") + b.mul_wide(lane, 4u, "c_off")).named("c_at");
  b.st_global(Type::u32, builder::Addr::at(c_at, 0), {acc});
  b.ret();
  return b.finish();
}

struct Ran {
  model::SimResult r;
  std::vector<uint8_t> c;
};

Ran run(const ir::Kernel& k, bool trace) {
  model::GemmBuffers bufs;
  bufs.c.assign(32 * 4, 0);
  model::SimOptions opt;
  opt.trace = trace;
  model::SimResult r = model::simulate(k, bufs, opt);
  return {std::move(r), bufs.c};
}

}  // namespace

TEST_CASE("shared patterns: a load whose lanes' offsets come back, change or differ in one lane reads its own words",
          "[model][smem]") {
  const ir::Kernel k = pattern_kernel();
  const Ran traced = run(k, true), fast = run(k, false);
  REQUIRE(traced.r.completed);
  REQUIRE(fast.r.completed);
  CHECK(traced.r.hazards.empty());
  CHECK(fast.r.hazards.empty());
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t want = 0;
    for (uint32_t pass = 0; pass < 5; ++pass) want = want * 64 + word_of(l, pass);
    uint32_t got_fast, got_traced;
    std::memcpy(&got_fast, fast.c.data() + 4 * l, 4);
    std::memcpy(&got_traced, traced.c.data() + 4 * l, 4);
    INFO("lane " << l);
    CHECK(got_fast == want);
    CHECK(got_traced == want);
  }
  CHECK(fast.r.stats.smem_accesses == traced.r.stats.smem_accesses);
  CHECK(fast.r.stats.smem_wavefronts == traced.r.stats.smem_wavefronts);
  CHECK(fast.r.stats.smem_bank_conflicts == traced.r.stats.smem_bank_conflicts);
  CHECK(fast.r.stats.max_cta_cycles == traced.r.stats.max_cta_cycles);
}
