// The issue model's loads where ptxas schedules them (engine/model/decode.cpp, set_hoists;
// DecodedInst::hoist): a load-then-use loop against its loads-first form, a chain that cannot move,
// and which loads may move how far.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "engine/model/decode.hpp"
#include "engine/model/model.hpp"
#include "engine/model/timing.hpp"

using namespace gs;

namespace {

// One warp: 8 ld.shared, each feeding its own FMA. `interleaved`: each load right before its FMA
// (the article's step 04 loop); otherwise all loads first (what ptxas schedules). `chained`: each
// load's address comes from the FMA before it, so nothing can move.
ir::Kernel load_use_kernel(bool interleaved, bool chained, bool barrier_between = false) {
  using ir::Type;
  builder::Builder b(fmt::format("hoist_{}_{}_{}", interleaved, chained, barrier_between), ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto slots = b.shared("slots", 2048, 128, ir::SmemUse::other);
  builder::Reg tid = b.special(ir::Special::tid_x, "tid");
  builder::Reg base = b.smem_address(slots, 0, "base");
  builder::Reg at = (base + (tid << 2)).named("at");
  builder::Reg y = b.mov(Type::f32, 1.0f, "y");
  std::vector<builder::Reg> acc;
  for (uint32_t i = 0; i < 8; ++i) acc.push_back(b.mov(Type::f32, 0.0f, fmt::format("acc{}", i)));
  for (uint32_t i = 0; i < 8; ++i) b.st_shared(Type::f32, builder::Addr::at(at, int32_t(i * 128)), {y});
  b.bar_sync(0);
  std::vector<builder::Reg> x;
  builder::Reg addr = at;
  for (uint32_t i = 0; i < 8; ++i) {
    if (chained && i > 0) addr = (at + (b.cvt(Type::u32, acc[i - 1], ir::Rounding::rzi, "k") << 2)).named("addr");
    if (barrier_between && i == 4) b.bar_sync(0);
    x.push_back(b.ld_shared(Type::f32, builder::Addr::at(addr, int32_t(i * 128)), fmt::format("x{}", i)));
    if (interleaved) b.fma_into(acc[i], x[i], y, acc[i]);
  }
  if (!interleaved)
    for (uint32_t i = 0; i < 8; ++i) b.fma_into(acc[i], x[i], y, acc[i]);
  builder::Reg sum = acc[0];
  for (uint32_t i = 1; i < 8; ++i) sum = (sum + acc[i]).named("sum");
  b.st_global(Type::f32, builder::Addr::at(b.global_ptr(pc, "c"), 0), {sum});
  b.ret();
  return b.finish();
}

uint64_t cycles_of(const ir::Kernel& k) {
  model::GemmBuffers bufs;
  bufs.c.assign(64, 0);
  model::SimOptions opt;
  opt.trace = false;
  const model::SimResult r = model::simulate(k, bufs, opt);
  REQUIRE(r.completed);
  return r.stats.traced_cta_cycles;
}

}  // namespace

TEST_CASE("issue model: a load ptxas would schedule early has its data as if it had issued there", "[model][timing]") {
  // ptxas moves each ld.shared above the FMAs before it (step 04's SASS: 7 of a k-block's 24 LDS
  // before its first FFMA); the model times the IR's order as that schedule.
  const uint64_t interleaved = cycles_of(load_use_kernel(true, false));
  const uint64_t loads_first = cycles_of(load_use_kernel(false, false));
  CHECK(interleaved <= loads_first + 8);
  // A load whose address the FMA before it computes cannot move: each waits a whole ld.shared.
  const uint64_t chained = cycles_of(load_use_kernel(true, true));
  CHECK(chained >= interleaved + 7 * (model::timing::kSm.shared_latency.value - 8));
  // What may be passed, read from the decoded program: the register ops and loads of the same
  // straight run, never a barrier; the first load passes nothing of its own run.
  const ir::Kernel k = load_use_kernel(true, false, true);
  const model::Program p = model::decode_program(k);
  std::vector<uint32_t> hoists;
  for (uint32_t i = 0; i < k.insts.size(); ++i)
    if (k.insts[i].op == ir::Op::ld_shared) hoists.push_back(p.insts[i].hoist);
  REQUIRE(hoists.size() == 8);
  CHECK(hoists[0] == 0);  // right after the bar.sync
  CHECK(hoists[1] == 2);  // above fma 0 and load 0
  CHECK(hoists[3] == 6);
  CHECK(hoists[4] == 0);  // the second bar.sync stops it
  CHECK(hoists[5] == 2);
}
