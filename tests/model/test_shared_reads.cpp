// The quiet shared reads' shortcuts (engine/model/exec_mem_forms.hpp): a read that notes nothing
// (read_notes) and a line found plain once (Cta::smem_plain_lines) must still see every store
// that comes after, in the same barrier interval, and report the race it makes.
#include <catch2/catch.hpp>

#include <cstdint>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"

using namespace gs;

namespace {

// Two warps. Each stores its own 128-byte line (warp w: line w), bar.sync, and both read line 0,
// lane l word l: the line is then a plain read (written in the interval before). Then warp 0
// overwrites line 0 (`overwrite`) and, after a bar.sync when `sync_again`, both read line 0
// again: warp 1's second read is of a word warp 0 wrote in the same interval, a shared-race,
// unless the barrier orders it.
ir::Kernel overwrite_kernel(bool overwrite, bool sync_again, bool consecutive) {
  using ir::Type;
  builder::Builder b(fmt::format("plain_lines_{}_{}_{}", overwrite, sync_again, consecutive), ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {64, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto lines = b.shared("lines", 256, 128, ir::SmemUse::other);
  builder::Reg tid = b.special(ir::Special::tid_x, "tid");
  builder::Reg warp = (tid >> 5).named("warp");
  builder::Reg lane = (tid & 31).named("lane");
  builder::Reg base = b.smem_address(lines, 0, "base");
  // Consecutive words (the straight path, decoded form) or lane l at word (l * 9) % 32 (any
  // other pattern: the form that keeps each instruction's lane offsets).
  builder::Reg word = consecutive ? lane : ((lane * 9) & 31).named("word");
  builder::Reg at = (base + (word << 2)).named("at");
  builder::Reg y = b.mov(Type::f32, 1.0f, "y");
  b.st_shared(Type::f32, builder::Addr::at((at + (warp << 7)).named("own"), 0), {y});
  b.bar_sync(0);
  builder::Reg x0 = b.ld_shared(Type::f32, builder::Addr::at(at, 0), "x0");
  if (overwrite) b.if_(warp == 0u, [&] { b.st_shared(Type::f32, builder::Addr::at(at, 0), {y}); });
  if (sync_again) b.bar_sync(0);
  builder::Reg x1 = b.ld_shared(Type::f32, builder::Addr::at(at, 0), "x1");
  builder::Reg sum = (x0 + x1).named("sum");
  b.st_global(Type::f32, builder::Addr::at((b.global_ptr(pc, "c") + b.mul_wide(tid, 4u, "c_off")).named("c_at"), 0), {sum});
  b.ret();
  return b.finish();
}

model::SimResult run(const ir::Kernel& k, bool trace) {
  model::GemmBuffers bufs;
  bufs.c.assign(64 * 4, 0);
  model::SimOptions opt;
  opt.trace = trace;
  return model::simulate(k, bufs, opt);
}

}  // namespace

TEST_CASE("shared reads: a store after a line was read plain is seen by the next read of another warp",
          "[model][smem][hazards]") {
  for (const bool consecutive : {true, false})
    for (const bool trace : {false, true}) {
      DYNAMIC_SECTION((consecutive ? "consecutive" : "scattered") << (trace ? ", traced" : ", fast")) {
        const ir::Kernel k = overwrite_kernel(true, false, consecutive);
        const model::SimResult r = run(k, trace);
        REQUIRE(r.completed);
        REQUIRE(r.hazards.size() == 1);
        const model::Hazard& h = r.hazards.front();
        CHECK(h.kind == model::HazardKind::shared_race);
        CHECK(h.warp == 1);
        CHECK(k.insts[h.inst].op == ir::Op::ld_shared);
        // The second read, not the first: the first read's line was written before the barrier.
        uint32_t reads = 0;
        for (uint32_t pc = 0; pc <= h.inst; ++pc) reads += k.insts[pc].op == ir::Op::ld_shared;
        CHECK(reads == 2);
        // Which word: lane 0's is word 0 in both patterns.
        CHECK(h.lane == 0);
        // Ordered by a barrier, or never overwritten, the same reads are quiet.
        CHECK(run(overwrite_kernel(true, true, consecutive), trace).hazards.empty());
        CHECK(run(overwrite_kernel(false, false, consecutive), trace).hazards.empty());
      }
    }
}
