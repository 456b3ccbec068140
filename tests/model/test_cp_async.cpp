// cp.async in the model (exec_cp_async.cpp): the bytes land in shared memory when a wait
// retires their group, the zero-fill form fills past src-size, reading bytes whose group was
// not waited for is a cp-async-read-before-wait, and a copy that overwrites bytes another warp
// reads with no barrier in between is a cp-async-race.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"
#include "engine/ptx/emit.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;

namespace {

using builder::Addr;
using builder::Builder;
using builder::Reg;

constexpr uint32_t kThreads = 32, kBytes = 16;  // each lane copies 16 bytes of A

struct Options {
  uint32_t src_bytes = 16;     // < 16: the zero-fill form
  bool wait = true;            // cp.async.wait_group 0 (or wait_all) before reading
  bool wait_all = false;
  uint32_t extra_groups = 0;   // groups committed after the copy's group, then wait_group(extra)
  uint32_t dst_shift = 0;      // bytes added to every lane's shared destination
  uint32_t src_shift = 0;      // bytes added to every lane's global source
  uint32_t tile_extra = 0;     // bytes of shared memory past the copies' 512
};

// Lane l copies A[16l .. 16l+16) into shared memory, (waits), then every lane reads its 16
// bytes back as four words and stores them to C[16l ..].
ir::Kernel copy_kernel(const Options& o) {
  Builder b("cp_async_copy", ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {kThreads, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto tile = b.shared("tile", kThreads * kBytes + o.tile_extra, 16, ir::SmemUse::tile);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg A = b.global_ptr(pa, "A_ptr");
  Reg C = b.global_ptr(pc, "C_ptr");
  Reg off64 = b.mul_wide(tid, kBytes, "off64");
  Reg soff = (tid * kBytes).named("soff");
  Reg saddr = (b.smem_address(tile, 0, "tile_addr") + soff).named("saddr");
  Reg dst = o.dst_shift ? (saddr + o.dst_shift).named("dst") : saddr;
  Reg from = o.src_shift ? (A + off64 + uint64_t(o.src_shift)).named("from") : (A + off64).named("from");
  if (o.src_bytes == kBytes)
    b.cp_async_cg(Addr::at(dst), Addr::at(from));
  else
    b.cp_async_cg(Addr::at(dst), Addr::at(from), kBytes, o.src_bytes);
  b.cp_async_commit_group();
  for (uint32_t g = 0; g < o.extra_groups; ++g) b.cp_async_commit_group();  // empty groups
  if (o.wait) {
    if (o.wait_all)
      b.cp_async_wait_all();
    else
      b.cp_async_wait_group(o.extra_groups);
  }
  b.bar_sync(0);
  std::vector<Reg> words = b.ld_vec(ir::Op::ld_shared, ir::Type::b32, 4, Addr::at(saddr), "w");
  b.st(ir::Op::st_global, ir::Type::b32, Addr::at(C + off64), words);
  b.ret();
  return b.finish();
}

struct Run {
  std::vector<uint8_t> a, c;
  model::SimResult result;
};

Run run(const ir::Kernel& k) {
  Run r;
  model::GemmBuffers bufs;
  bufs.a.resize(kThreads * kBytes);
  for (size_t i = 0; i < bufs.a.size(); ++i) bufs.a[i] = uint8_t(3 * i + 1);
  bufs.b.resize(16);
  bufs.c.assign(kThreads * kBytes, 0xEE);
  r.result = model::simulate(k, bufs);
  r.a = bufs.a;
  r.c = bufs.c;
  return r;
}

bool has(const model::SimResult& r, model::HazardKind kind) {
  for (const model::Hazard& h : r.hazards)
    if (h.kind == kind) return true;
  return false;
}

}  // namespace

TEST_CASE("cp.async copies land when their group is waited for", "[model][cp_async]") {
  for (const bool all : {false, true}) {
    for (const uint32_t extra : {0u, 2u}) {
      if (all && extra) continue;
      INFO("wait_all " << all << ", empty groups after the copy " << extra);
      const Run r = run(copy_kernel({.wait_all = all, .extra_groups = extra}));
      CHECK(r.result.completed);
      CHECK(r.result.hazards.empty());
      CHECK(r.c == r.a);
    }
  }
}

TEST_CASE("cp.async's global record: each lane's source address and the distinct sectors", "[model][cp_async]") {
  // 32 lanes x 16 consecutive bytes: 512 bytes, 16 sectors (two lanes share each).
  const Run r = run(copy_kernel({}));
  REQUIRE(r.result.trace.global.size() == 2);  // the copy's source, then the store into C
  const model::GlobalAccess& g = r.result.trace.global[0];
  CHECK_FALSE(g.store);
  CHECK(g.bytes == kBytes);
  CHECK(g.mask == 0xFFFFFFFFu);
  CHECK(g.sectors == 16);
  for (uint32_t l = 0; l < kThreads; ++l) CHECK(g.offset[l] == l * kBytes);
  // A zero src-size reads nothing from global memory: no lanes, no sectors.
  const Run none = run(copy_kernel({.src_bytes = 0}));
  REQUIRE_FALSE(none.result.trace.global.empty());
  CHECK(none.result.trace.global[0].mask == 0);
  CHECK(none.result.trace.global[0].sectors == 0);
}

TEST_CASE("cp.async commits and waits are traced with the groups they leave in flight", "[model][cp_async]") {
  // One copy's group, two empty groups, then wait_group 2: the oldest group retires.
  const Run r = run(copy_kernel({.extra_groups = 2}));
  const model::Trace& t = r.result.trace;
  std::vector<uint32_t> commits;
  for (uint32_t e : t.of_kind(model::EventKind::cp_async_commit)) commits.push_back(t.events[e].a);
  CHECK(commits == std::vector<uint32_t>{1, 2, 3});
  REQUIRE(t.of_kind(model::EventKind::cp_async_wait).size() == 1);
  const model::Event& wait = t.events[t.of_kind(model::EventKind::cp_async_wait)[0]];
  CHECK(wait.a == 1);        // retired
  CHECK(wait.payload == 2);  // left in flight
}

TEST_CASE("cp.async with src-size zero-fills the rest of the copy", "[model][cp_async]") {
  const Run r = run(copy_kernel({.src_bytes = 6}));
  CHECK(r.result.hazards.empty());
  for (uint32_t l = 0; l < kThreads; ++l)
    for (uint32_t i = 0; i < kBytes; ++i) {
      INFO("lane " << l << " byte " << i);
      CHECK(r.c[l * kBytes + i] == (i < 6 ? r.a[l * kBytes + i] : 0));
    }
}

TEST_CASE("reading shared memory before the cp.async was waited for is a cp-async-read-before-wait", "[model][cp_async]") {
  const Run r = run(copy_kernel({.wait = false}));
  CHECK(has(r.result, model::HazardKind::cp_async_read_before_wait));
  CHECK_FALSE(has(r.result, model::HazardKind::cp_async_race));
  CHECK(r.c != r.a);  // the bytes never landed: the reads saw the stale (never written) tile
}

TEST_CASE("wait_group N leaves the newest N groups in flight", "[model][cp_async]") {
  // The copy's group, then two empty ones; wait_group(2) retires only the oldest: the copy.
  const Run ok = run(copy_kernel({.extra_groups = 2}));
  CHECK(ok.c == ok.a);
  // Built by hand: wait_group 3 with three groups after the copy would leave it in flight.
  Options late{.extra_groups = 2};
  ir::Kernel k = copy_kernel(late);
  for (ir::Inst& in : k.insts)
    if (in.op == ir::Op::cp_async_wait_group) in.operands[0].imm = 3;
  const Run r = run(k);
  CHECK(has(r.result, model::HazardKind::cp_async_read_before_wait));
}

TEST_CASE("a whole warp's cp.async outside its buffers or misaligned is reported, traced or not", "[model][cp_async]") {
  // The fast path of a whole warp's copy (quiet_copies) must decline each of these, so that the
  // lane-by-lane path reports them in an untraced run as in the traced CTA.
  const struct {
    Options o;
    model::HazardKind kind;
  } cases[] = {
      {{.dst_shift = 256}, model::HazardKind::out_of_bounds_shared},  // lanes 16..31 past the tile
      {{.dst_shift = 4, .tile_extra = 64}, model::HazardKind::misaligned},  // every lane inside
      {{.src_shift = 256}, model::HazardKind::out_of_bounds_global},  // lanes 16..31 past A's 576 bytes
      {{.src_shift = 8}, model::HazardKind::misaligned},              // every lane inside A
  };
  for (const auto& t : cases) {
    INFO("destination shifted " << t.o.dst_shift << " bytes, source " << t.o.src_shift);
    for (const bool trace : {true, false}) {
      INFO((trace ? "traced" : "untraced"));
      model::GemmBuffers bufs;
      bufs.a.assign(kThreads * kBytes + 64, 7);
      bufs.b.resize(16);
      bufs.c.assign(kThreads * kBytes, 0xEE);
      model::SimOptions opt;
      opt.trace = trace;
      CHECK(has(model::simulate(copy_kernel(t.o), bufs, opt), t.kind));
    }
  }
}

namespace {

// Two warps: everyone writes its word of a 256-byte tile, bar.sync; warp 0 reads word 0 and
// warp 1 copies 16 bytes of A over words 0..3 with cp.async, with (`barrier`) or without a
// bar.sync between them, in the order `copy_first` says (the copying warp waits at the
// barrier when there is one, so the read comes first either way there).
ir::Kernel war_kernel(bool barrier, bool copy_first) {
  Builder b("cp_async_war", ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {64, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto tile = b.shared("tile", 256, 16, ir::SmemUse::tile);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg base = b.smem_address(tile, 0, "tile_addr");
  b.st_shared(ir::Type::b32, Addr::at((base + (tid << 2)).named("mine")), {tid});
  b.bar_sync(0);
  Reg warp1 = (tid >= 32u).named("warp1");
  const auto copy = [&] { b.if_(warp1, [&] { b.cp_async_cg(Addr::at(base), Addr::at(b.global_ptr(pa, "A_ptr"))); }); };
  const auto read = [&] {
    b.if_((tid < 32u).named("warp0"), [&] {
      Reg v = b.ld_shared(ir::Type::b32, Addr::at(base), "v");
      b.st_global(ir::Type::b32, Addr::at(b.global_ptr(pc, "C_ptr")), {v});
    });
  };
  if (copy_first) copy();
  read();
  if (barrier) b.bar_sync(0);
  if (!copy_first) copy();
  b.cp_async_wait_all();
  b.bar_sync(0);
  b.ret();
  return b.finish();
}

}  // namespace

TEST_CASE("a cp.async over bytes another warp reads with no barrier in between is a cp-async-race", "[model][cp_async]") {
  for (const bool copy_first : {false, true}) {
    INFO("the copy is issued " << (copy_first ? "before" : "after") << " the read");
    const Run r = run(war_kernel(false, copy_first));
    CHECK(has(r.result, model::HazardKind::cp_async_race));
    CHECK_FALSE(has(r.result, model::HazardKind::cp_async_read_before_wait));
  }
  const Run ordered = run(war_kernel(true, false));
  CHECK(ordered.result.hazards.empty());
}

namespace {

// Two warps, each lane copying 16 bytes of A into the tile at 16·(lane + shift): warp 1's
// copies start `shift` lanes on from warp 0's, so with shift < 32 they land on words warp 0's
// copies still have in flight; with a bar.sync between the two (warp 0's group waited for
// first, or not: `wait`) they do not race. `ctas` CTAs do the same; with `elsewhere_first`, warp
// 1 first copies into words nothing else copies into (lanes 64 on).
ir::Kernel waw_kernel(uint32_t shift, bool barrier, bool wait = true, uint32_t ctas = 1, bool elsewhere_first = false) {
  Builder b("cp_async_waw", ir::Arch::sm_80);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {64, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto tile = b.shared("tile", 2048, 16, ir::SmemUse::tile);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg lane = (tid & 31u).named("lane");
  Reg base = b.smem_address(tile, 0, "tile_addr");
  Reg A = b.global_ptr(pa, "A_ptr");
  const auto copy = [&](uint32_t first) {
    Reg at = (base + ((lane + first) << 4)).named("dst");
    b.cp_async_cg(Addr::at(at), Addr::at(A + b.mul_wide(lane, kBytes, "src_off")));
  };
  b.if_((tid < 32u).named("warp0"), [&] { copy(0); });
  if (barrier) {
    if (wait) b.cp_async_wait_all();
    b.bar_sync(0);
  }
  b.if_((tid >= 32u).named("warp1"), [&] {
    if (elsewhere_first) copy(64);
    copy(shift);
  });
  if (!wait) b.bar_sync(0);  // warp 0's copies stay in flight until warp 1's are issued
  b.cp_async_wait_all();
  b.bar_sync(0);
  b.ret();
  return b.finish();
}

// The write-after-write kernels' buffers: A for every thread's copy, B and C unused.
model::GemmBuffers waw_buffers() {
  model::GemmBuffers bufs;
  bufs.a.assign(kThreads * kBytes, 7);
  bufs.b.resize(16);
  bufs.c.resize(16);
  return bufs;
}

}  // namespace

TEST_CASE("a cp.async onto words another warp's cp.async still has in flight is a cp-async-race", "[model][cp_async]") {
  // Overlapping by every word (shift 0), by a few lanes, and by none (shift 32: no race).
  for (const uint32_t shift : {0u, 5u, 31u, 32u}) {
    INFO("warp 1's copies start " << shift << " lanes on");
    for (const bool trace : {true, false}) {
      model::GemmBuffers bufs = waw_buffers();
      model::SimOptions opt;
      opt.trace = trace;
      const model::SimResult r = model::simulate(waw_kernel(shift, false), bufs, opt);
      CHECK(has(r, model::HazardKind::cp_async_race) == (shift < 32));
      bool in_flight = false;
      for (const model::Hazard& h : r.hazards)
        in_flight = in_flight || h.detail.find("still in flight") != std::string::npos;
      CHECK(in_flight == (shift < 32));
      const model::SimResult ordered = model::simulate(waw_kernel(shift, true), bufs, opt);
      CHECK(ordered.hazards.empty());
    }
  }
}

// A copy still in flight from an earlier barrier interval is no race to overwrite (the copy that
// lands last wins, as the hardware's would after the barrier): what a word's copy keeps is
// whether it was issued in this interval (Cta::cp_async_now_bits), not only which warp issued it;
// with another copy of warp 1 in this interval first, the bits of warp 0's interval must be gone.
// Two CTAs: the second starts its intervals again at 0 on the first's bits.
TEST_CASE("a cp.async onto words another warp's copy of an earlier interval has in flight is no race",
          "[model][cp_async]") {
  for (const uint32_t shift : {0u, 5u}) {
    INFO("warp 1's copies start " << shift << " lanes on");
    for (const bool trace : {true, false})
      for (const bool elsewhere_first : {false, true}) {
        INFO("traced " << trace << ", warp 1 copies elsewhere first " << elsewhere_first);
        model::GemmBuffers bufs = waw_buffers();
        model::SimOptions opt;
        opt.trace = trace;
        const model::SimResult r = model::simulate(waw_kernel(shift, true, false, 2, elsewhere_first), bufs, opt);
        CHECK(r.completed);
        CHECK(r.hazards.empty());
        const model::SimResult racing =
            model::simulate(waw_kernel(shift, false, false, 2, elsewhere_first), bufs, opt);
        CHECK(has(racing, model::HazardKind::cp_async_race));
      }
  }
}

TEST_CASE("cp.async kernels assemble with ptxas", "[model][cp_async][ptxas]") {
  for (const Options& o : {Options{}, Options{.src_bytes = 6}, Options{.wait_all = true}})
    test::check_assembles(ptx::emit(copy_kernel(o)).text, ir::Arch::sm_80, "cp_async_copy");
}
