// The issue model's loads where ptxas schedules them (engine/model/decode.cpp, set_hoists;
// DecodedInst::hoist): a load-then-use loop against its loads-first form, a chain that cannot move,
// and which loads may move how far.
#include <catch2/catch.hpp>

#include <cstdint>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "engine/model/data_path.hpp"
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

TEST_CASE("issue model: a load moves no further up than ptxas's SASS order put it", "[model][timing]") {
  // The same kernel with a SASS order given (ptx::CompiledKernel::sass_first): the IR's order,
  // except that load 3 is placed after fma 2 only (ptxas kept it below, as step 07's 8th LDG),
  // and load 5 before everything of its run (a SASS that hoists it all the way).
  const ir::Kernel k = load_use_kernel(true, false, true);
  std::vector<uint32_t> order(k.insts.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = 10 * i;
  std::vector<uint32_t> loads;
  for (uint32_t i = 0; i < k.insts.size(); ++i)
    if (k.insts[i].op == ir::Op::ld_shared) loads.push_back(i);
  REQUIRE(loads.size() == 8);
  order[loads[3]] = order[loads[3] - 1] - 5;  // just above the instruction right before it
  order[loads[5]] = 0;                        // above everything
  const model::Program p = model::decode_program(k, {}, order);
  CHECK(p.insts[loads[3]].hoist == 1);   // not the 6 the list scheduler's reach allows
  CHECK(p.insts[loads[5]].hoist == 2);   // as far as the reach goes, no further
  CHECK(p.insts[loads[1]].hoist == 0);   // in the IR's place in the SASS: not moved
  // No order (an empty one, or one of another length): the reach alone.
  CHECK(model::decode_program(k, {}, {}).insts[loads[3]].hoist == 6);
  CHECK(model::decode_program(k, {}, std::vector<uint32_t>(3, 0)).insts[loads[3]].hoist == 6);
}

namespace {

// `warps` warps, each storing its 16-byte slots, then (after a bar.sync) 8 ld.shared.v4 of them,
// each right before the FMAs that use it: 4 wavefronts a load, 32 a warp, on the L1's one path.
ir::Kernel path_bound_kernel(uint32_t warps) {
  using ir::Type;
  builder::Builder b(fmt::format("path_bound_{}", warps), ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32 * warps, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto slots = b.shared("slots", 8 * 16 * 32 * warps, 128, ir::SmemUse::other);
  builder::Reg tid = b.special(ir::Special::tid_x, "tid");
  builder::Reg at = (b.smem_address(slots, 0, "base") + (tid << 4)).named("at");
  builder::Reg y = b.mov(Type::f32, 1.0f, "y");
  std::vector<builder::Reg> acc;
  for (uint32_t i = 0; i < 8; ++i) acc.push_back(b.mov(Type::f32, 0.0f, fmt::format("acc{}", i)));
  for (uint32_t i = 0; i < 8; ++i)
    b.st_shared(Type::f32, builder::Addr::at(at, int32_t(i * 16 * 32 * warps)), {y, y, y, y});
  b.bar_sync(0);
  for (uint32_t i = 0; i < 8; ++i) {
    std::vector<builder::Reg> x =
        b.ld_vec(ir::Op::ld_shared, Type::f32, 4, builder::Addr::at(at, int32_t(i * 16 * 32 * warps)), "x");
    for (uint32_t f = 0; f < 4; ++f) b.fma_into(acc[(i + f) % 8], x[f], y, acc[(i + f) % 8]);
  }
  builder::Reg sum = acc[0];
  for (uint32_t i = 1; i < 8; ++i) sum = (sum + acc[i]).named("sum");
  b.st_global(Type::f32, builder::Addr::at(b.global_ptr(pc, "c"), 0), {sum});
  b.ret();
  return b.finish();
}

}  // namespace

TEST_CASE("issue model: the data path's inline case takes what its general search takes", "[model][timing]") {
  // DataPath::take answers a request at or past the frontier that ends in its first word of
  // the calendar inline; take_any is the search every other request takes. The same requests
  // through both, mixed as the model makes them (at the frontier, behind it as a hoisted
  // ld.shared's, across words, past the calendar's window), must get the same cycles, and leave
  // calendars that answer every later request alike.
  model::DataPath inline_path, search_path;
  uint64_t seed = 12345, now = 0;
  const auto next = [&seed](uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % n;
  };
  for (int i = 0; i < 20000; ++i) {
    switch (next(8)) {
      case 0: now += next(200); break;                              // the CTA's clock moves on
      case 1: now += model::DataPath::kCycles + next(3000); break;  // past the window
      default: now += next(3); break;
    }
    const uint64_t back = next(4) == 0 ? next(600) : 0;  // a hoisted request
    const uint64_t request = now > back ? now - back : 0;
    const uint64_t cycles = next(6) == 0 ? next(130) : 1 + next(4);
    INFO("request " << i << " at " << request << " for " << cycles << " cycles");
    const model::DataPath::Taken a = inline_path.take(request, cycles);
    const model::DataPath::Taken b = search_path.take_any(request, cycles);
    REQUIRE(a.first == b.first);
    REQUIRE(a.end == b.end);
    REQUIRE(inline_path.frontier() == search_path.frontier());
  }
}

TEST_CASE("issue model: a request just behind a held stretch of the data path is taken at its frontier",
          "[model][timing]") {
  // DataPath::take moves a request behind the frontier whose cycles up to it are all
  // held to the frontier, inline; where one of those cycles is free, the search must take it.
  // Each case goes through take and take_any on calendars built alike, and both must answer the
  // same, across a word of the calendar and within one.
  struct Case {
    uint64_t hole;  // a cycle left free behind the frontier, or ~0 for none
    uint64_t request;
    uint64_t first;  // what the request gets
  };
  // The held stretch within a word, across one, and across several.
  for (const auto& [start, frontier] : {std::pair<uint64_t, uint64_t>{0, 40}, {40, 80}, {50, 300}}) {
    for (const Case k : {Case{~uint64_t(0), start + 10, frontier}, Case{~uint64_t(0), frontier - 1, frontier},
                         Case{start + 20, start + 10, start + 20}, Case{frontier - 2, start + 30, frontier - 2}}) {
      INFO("held from " << start << " to " << frontier << ", hole at " << k.hole << ", request at " << k.request);
      model::DataPath inline_path, search_path;
      for (model::DataPath* p : {&inline_path, &search_path}) {
        if (k.hole == ~uint64_t(0)) {
          p->take(start, frontier - start);
        } else {
          p->take(start, k.hole - start);
          p->take(k.hole + 1, frontier - k.hole - 1);
        }
        REQUIRE(p->frontier() == frontier);
      }
      const model::DataPath::Taken a = inline_path.take(k.request, 3);
      const model::DataPath::Taken b = search_path.take_any(k.request, 3);
      CHECK(a.first == k.first);
      CHECK(a.first == b.first);
      CHECK(a.end == b.end);
      CHECK(inline_path.frontier() == search_path.frontier());
      // The calendars answer the next request alike (the hole, if any, is now held).
      CHECK(inline_path.take(start, 1).first == search_path.take(start, 1).first);
    }
  }
  // No cycles asked: the request is answered where it was made, behind the frontier or not.
  model::DataPath path;
  path.take(0, 20);
  CHECK(path.take(10, 0).first == 10);
}

TEST_CASE("issue model: a load moved up still waits for the L1 data path from where it moved", "[model][timing]") {
  // The calendar itself: a request takes the first free cycles from its own cycle on, also
  // behind requests made later in the model's order but for later cycles.
  model::DataPath path;
  CHECK(path.take(10, 4).first == 10);
  CHECK(path.take(20, 2).end == 22);
  const model::DataPath::Taken back = path.take(5, 6);  // 5..9 free, then 14
  CHECK(back.first == 5);
  CHECK(back.end == 15);
  CHECK(path.take(5, 3).first == 15);  // the holes up to 14 are taken: 15, 16, 17
  CHECK(path.frontier() == 22);
  CHECK(path.take(40, 1).first == 40);
  CHECK(path.take(30, 12).end == 43);  // 30..39 and 41, 42
  // In a CTA: 8 warps' hoisted ld.shared.v4 (8 x 32 wavefronts) take the path in turn, so the
  // CTA needs at least 7 x 32 cycles more than one warp alone. Data ready before the path had
  // carried it (each load's wait counted from its place in the IR, its latency from the slot it
  // moved to) made the 8 warps' loads come back faster than the path can serve them.
  const uint64_t one = cycles_of(path_bound_kernel(1));
  const uint64_t eight = cycles_of(path_bound_kernel(8));
  INFO("one warp " << one << " cycles, eight warps " << eight);
  CHECK(eight >= one + 7 * 32 + 7 * 8);  // their stores (8 x 4 wavefronts a warp) before the bar.sync too
}
