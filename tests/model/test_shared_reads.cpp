// The quiet shared reads' shortcuts (engine/model/exec_mem_forms.hpp): a read that notes nothing
// (read_notes) and a line found plain once (Cta::smem_plain_lines) must still see every store
// that comes after, in the same barrier interval, and report the race it makes; the reads a
// kernel with cp.async notes (Cta::smem_read_bits, a bit a word and warp) must name the word
// and the warp that read it when another warp's copy lands on it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"
#include "engine/model/timing.hpp"

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
  builder::Reg c_at = (b.global_ptr(pc, "c") + b.mul_wide(tid, 4u, "c_off")).named("c_at");
  b.st_global(Type::f32, builder::Addr::at(c_at, 0), {sum});
  b.ret();
  return b.finish();
}

// Two warps (one CTA of 64 threads), A and C, and a shared tile of `bytes` aligned to `align`:
// the thread's index, its lane and the tile's address.
struct TwoWarps {
  builder::Param pa, pc;
  builder::Reg tid, lane, base;
};
TwoWarps two_warps(builder::Builder& b, uint32_t bytes, uint32_t align) {
  b.set_launch({.grid = {1, 1, 1}, .block = {64, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto tile = b.shared("tile", bytes, align, ir::SmemUse::tile);
  builder::Reg tid = b.special(ir::Special::tid_x, "tid");
  builder::Reg lane = (tid & 31).named("lane");
  return {pa, pc, tid, lane, b.smem_address(tile, 0, "tile_addr")};
}

// The kernel on the model with `a_bytes` of A and `c_bytes` of C, zeroed.
model::SimResult run(const ir::Kernel& k, bool trace, size_t c_bytes, size_t a_bytes = 0) {
  model::GemmBuffers bufs;
  bufs.a.assign(a_bytes, 0);
  bufs.c.assign(c_bytes, 0);
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
        const model::SimResult r = run(k, trace, 64 * 4);
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
        CHECK(run(overwrite_kernel(true, true, consecutive), trace, 64 * 4).hazards.empty());
        CHECK(run(overwrite_kernel(false, false, consecutive), trace, 64 * 4).hazards.empty());
      }
    }
}

namespace {

// Two warps, a 512-byte tile every thread writes a word of, bar.sync. Then warp 0 reads word
// `read` (every lane at it: `spread` lanes at words read, read + 1, ... instead) and warp 1
// (`same_warp`: warp 0) copies 16 bytes of A over words copy .. copy + 3 with cp.async, with no
// barrier between; the copy's address waits for a global load, so the read comes first.
ir::Kernel read_then_copy_kernel(uint32_t read, uint32_t copy, bool spread, bool same_warp) {
  using builder::Addr;
  using builder::Reg;
  builder::Builder b(fmt::format("read_then_copy_{}_{}_{}_{}", read, copy, spread, same_warp), ir::Arch::sm_80);
  const TwoWarps t = two_warps(b, 512, 16);
  const Reg &tid = t.tid, &lane = t.lane, &base = t.base;
  const builder::Param &pa = t.pa, &pc = t.pc;
  b.st_shared(ir::Type::b32, Addr::at((base + (tid << 2)).named("mine")), {tid});
  b.st_shared(ir::Type::b32, Addr::at((base + (tid << 2)).named("mine2"), 256), {tid});
  b.bar_sync(0);
  Reg A = b.global_ptr(pa, "A_ptr");
  b.if_((tid < 32u).named("warp0"), [&] {
    Reg at = spread ? (base + (lane << 2)).named("at") : base;
    Reg v = b.ld_shared(ir::Type::b32, Addr::at(at, int64_t(4 * read)), "v");
    Reg c_at = (b.global_ptr(pc, "C_ptr") + b.mul_wide(lane, 4u, "c_off")).named("c_at");
    b.st_global(ir::Type::b32, Addr::at(c_at), {v});
  });
  b.if_((same_warp ? tid < 32u : tid >= 32u).named("copier"), [&] {
    Reg late = b.ld_global(ir::Type::u32, Addr::at(A), "late");
    Reg dst = (base + (late & 0u)).named("dst");
    b.cp_async_cg(Addr::at(dst, int64_t(4 * copy)), Addr::at(A));
  });
  b.cp_async_wait_all();
  b.bar_sync(0);
  b.ret();
  return b.finish();
}

}  // namespace

TEST_CASE("shared reads in a kernel with cp.async: a copy onto a word another warp read names that word and warp",
          "[model][smem][cp_async][hazards]") {
  struct Case {
    uint32_t read, copy;
    bool spread, same_warp;
    uint32_t raced;  // the word reported, or ~0u: no race
  };
  const Case cases[] = {
      {5, 4, false, false, 5},     {3, 4, false, false, ~0u},   {69, 68, false, false, 69},
      {69, 64, false, false, ~0u}, {5, 4, false, true, ~0u},    {40, 60, true, false, 60},
      {40, 68, true, false, 68},   {40, 72, true, false, ~0u},  {40, 60, true, true, ~0u},
  };
  for (const Case& t : cases)
    for (const bool trace : {false, true}) {
      INFO("read word " << t.read << (t.spread ? " .. +31" : "") << ", copy onto words " << t.copy << " .. +3"
                        << (t.same_warp ? " by the same warp" : "") << (trace ? ", traced" : ", fast"));
      const ir::Kernel k = read_then_copy_kernel(t.read, t.copy, t.spread, t.same_warp);
      const model::SimResult r = run(k, trace, 32 * 4, 64);
      REQUIRE(r.completed);
      if (t.raced == ~0u) {
        CHECK(r.hazards.empty());
        continue;
      }
      REQUIRE(r.hazards.size() == 1);
      const model::Hazard& h = r.hazards.front();
      CHECK(h.kind == model::HazardKind::cp_async_race);
      CHECK(h.warp == 1);
      CHECK_THAT(h.detail, Catch::Contains(fmt::format("overwrites shared address 0x{:X} that warp 0 read",
                                                       model::timing::kSmemBaseAddress + k.smem[0].offset +
                                                           4 * t.raced)));
    }
}

namespace {

// What comes after a cp.async landing into whole lines (Cta::smem_plain_lines: the landing sets
// their entries for the next barrier interval). Two warps; first warp 0 writes five lines and,
// after a bar.sync, both read the fifth and warp 1 the other four (plain reads: their entries
// now say so for this interval). Then warp 1 copies 512 bytes of A (onto those four
// whole lines, 16 bytes a lane) and waits for them, bar.sync (`sync`). Then `after`: nothing,
// warp 1 stores a word of the lines, or warp 1 copies 16 bytes of A over words 0 .. 3 again (not
// waited for); then warp 0, late (its address waits for a global load, so warp 1's work comes
// first), reads lane l's word l, with no barrier between.
enum class AfterLanding { nothing, store, copy };
ir::Kernel landing_kernel(AfterLanding after, bool sync = true) {
  using builder::Addr;
  using builder::Reg;
  builder::Builder b(fmt::format("landing_{}_{}", int(after), sync), ir::Arch::sm_80);
  const TwoWarps t = two_warps(b, 640, 128);
  const Reg &tid = t.tid, &lane = t.lane, &base = t.base;
  const builder::Param &pa = t.pa, &pc = t.pc;
  Reg A = b.global_ptr(pa, "A_ptr");
  Reg word = (base + (lane << 2)).named("word");
  b.if_((tid < 32u).named("first_writer"), [&] {
    for (int64_t line = 0; line < 5; ++line) b.st_shared(ir::Type::b32, Addr::at(word, 128 * line), {tid});
  });
  b.bar_sync(0);
  Reg first = b.ld_shared(ir::Type::b32, Addr::at(word, 512), "first");
  b.if_((tid >= 32u).named("copier"), [&] {
    for (int64_t line = 0; line < 4; ++line) b.ld_shared(ir::Type::b32, Addr::at(word, 128 * line), "before");
    b.cp_async_cg(Addr::at((base + (lane << 4)).named("dst")),
                  Addr::at((A + b.mul_wide(lane, 16u, "src_off")).named("src")));
  });
  b.cp_async_wait_all();
  if (sync) b.bar_sync(0);
  b.if_((tid >= 32u).named("writer"), [&] {
    if (after == AfterLanding::store) b.st_shared(ir::Type::b32, Addr::at(word), {tid});
    if (after == AfterLanding::copy) b.cp_async_cg(Addr::at(base), Addr::at(A));
  });
  b.if_((tid < 32u).named("reader"), [&] {
    Reg late = b.ld_global(ir::Type::u32, Addr::at(A), "late");
    Reg at = (base + (lane << 2) + (late & 0u)).named("at");
    Reg v = b.ld_shared(ir::Type::b32, Addr::at(at), "v");
    Reg c_at = (b.global_ptr(pc, "C_ptr") + b.mul_wide(lane, 4u, "c_off")).named("c_at");
    b.st_global(ir::Type::b32, Addr::at(c_at), {(v + first).named("sum")});
  });
  b.cp_async_wait_all();
  b.ret();
  return b.finish();
}

}  // namespace

TEST_CASE("shared reads after a cp.async landing: its lines are plain after the barrier, until the next write",
          "[model][smem][cp_async][hazards]") {
  for (const bool trace : {false, true}) {
    INFO((trace ? "traced" : "fast"));
    const model::SimResult quiet = run(landing_kernel(AfterLanding::nothing), trace, 32 * 4, 512);
    REQUIRE(quiet.completed);
    CHECK(quiet.hazards.empty());
    // No barrier after the landing: warp 0 reads words warp 1's copy wrote in the same interval.
    const model::SimResult unsynced = run(landing_kernel(AfterLanding::nothing, false), trace, 32 * 4, 512);
    REQUIRE(unsynced.completed);
    REQUIRE(!unsynced.hazards.empty());
    CHECK(unsynced.hazards.front().kind == model::HazardKind::shared_race);
    CHECK(unsynced.hazards.front().warp == 0);
    // A store into the landed lines after the barrier: warp 0's read of lane 0's word races it.
    const model::SimResult stored = run(landing_kernel(AfterLanding::store), trace, 32 * 4, 512);
    REQUIRE(stored.completed);
    REQUIRE(!stored.hazards.empty());
    CHECK(stored.hazards.front().kind == model::HazardKind::shared_race);
    CHECK(stored.hazards.front().warp == 0);
    // Another copy into them, not waited for: warp 0 reads words it is still writing.
    const model::SimResult copied = run(landing_kernel(AfterLanding::copy), trace, 32 * 4, 512);
    REQUIRE(copied.completed);
    REQUIRE(!copied.hazards.empty());
    CHECK(copied.hazards.front().warp == 0);
  }
}
