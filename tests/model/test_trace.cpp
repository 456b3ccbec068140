// The trace: deterministic, ordered by cycle, searchable, and walkable both ways.
#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "tests/model/model_fixture.hpp"

using namespace gs;

namespace {
bool same_events(const model::Trace& a, const model::Trace& b) {
  if (a.events.size() != b.events.size()) return false;
  for (size_t i = 0; i < a.events.size(); ++i) {
    const model::Event &x = a.events[i], &y = b.events[i];
    if (x.cycle != y.cycle || x.kind != y.kind || x.warp != y.warp || x.inst != y.inst || x.mask != y.mask ||
        x.payload != y.payload || x.a != y.a)
      return false;
  }
  return a.values == b.values;
}
}  // namespace

TEST_CASE("trace: the same run twice gives the same trace", "[model][trace]") {
  test::ModelRun a = test::run_model("hopper_tma_wgmma_64", {128, 128, 256}, false, 5);
  test::ModelRun b = test::run_model("hopper_tma_wgmma_64", {128, 128, 256}, false, 5);
  REQUIRE(!a.result.trace.events.empty());
  CHECK(same_events(a.result.trace, b.result.trace));
  CHECK(a.bufs.c == b.bufs.c);
  CHECK(a.result.stats.traced_cta_cycles == b.result.stats.traced_cta_cycles);
}

TEST_CASE("trace: events are ordered by cycle and carry the Hopper kernel's story", "[model][trace]") {
  model::SimOptions opt;
  opt.traced_cta = {1, 0, 0};
  test::ModelRun r = test::run_model("hopper_tma_wgmma_64", {128, 128, 256}, true, 5, {}, opt);
  const model::Trace& t = r.result.trace;
  CHECK(t.traced_cta == 1);
  CHECK(t.warps == 4);
  for (size_t i = 1; i < t.events.size(); ++i) REQUIRE(t.events[i - 1].cycle <= t.events[i].cycle);
  using K = model::EventKind;
  CHECK(t.of_kind(K::tma_issue).size() == 2 * 4);     // A and B per K-block, 4 K-blocks
  CHECK(t.of_kind(K::tma_complete).size() == 2 * 4);
  CHECK(t.of_kind(K::mbar_phase_flip).size() == 4);    // one phase per K-block
  CHECK(t.of_kind(K::wgmma_issue).size() == 4 * 4 * 4);  // 4 wgmmas × 4 warps × 4 K-blocks
  CHECK(t.of_kind(K::mbar_init).size() == 1);
  CHECK(!t.of_kind(K::mbar_wait_blocked).empty());
  CHECK(!t.of_kind(K::reg_write).empty());
  // Each TMA completes after it was issued, and the barrier flips no earlier.
  for (const model::TmaTransfer& x : t.tma) CHECK(x.complete_cycle > x.issue_cycle);
  CHECK(t.end_cycle == r.result.stats.traced_cta_cycles);
}

TEST_CASE("trace: the cursor steps, searches and jumps", "[model][trace]") {
  test::ModelRun r = test::run_model("hopper_tma_wgmma_64", {64, 64, 128}, true, 9);
  const model::Trace& t = r.result.trace;
  model::Cursor c(t);
  REQUIRE(c.step_forward());
  CHECK(c.current()->kind == model::EventKind::warp_inst);
  const uint32_t first = c.position();
  REQUIRE(c.step_forward(uint16_t(3)));
  CHECK(c.current()->warp == 3);
  CHECK(c.step_backward());
  CHECK(c.position() < t.events.size());
  c.seek(0);
  // The wgmma instruction's executions: 4 warps × 4 per K-block × 2 K-blocks... per instruction id:
  uint32_t wgmma_inst = 0;
  for (uint32_t i = 0; i < r.kernel.insts.size(); ++i)
    if (r.kernel.insts[i].op == ir::Op::wgmma_mma_async) {
      wgmma_inst = i;
      break;
    }
  CHECK(t.executions_of(wgmma_inst).size() == 4 * 2);  // 4 warps × 2 K-blocks
  int found = 0;
  while (c.next_execution(wgmma_inst)) {
    CHECK(c.current()->inst == wgmma_inst);
    ++found;
  }
  CHECK(found == 8);
  CHECK(c.prev_execution(wgmma_inst));
  CHECK(c.prev_of_kind(model::EventKind::tma_issue));
  CHECK(c.current()->kind == model::EventKind::tma_issue);
  const uint64_t cyc = t.events[t.events.size() / 2].cycle;
  c.jump_to_cycle(cyc);
  CHECK(c.cycle() >= cyc);
  if (c.position() > 0) CHECK(t.events[c.position() - 1].cycle < cyc);
  c.seek(first);
  CHECK(c.position() == first);
  c.seek(1u << 30);
  CHECK(c.position() == t.events.size() - 1);
}

TEST_CASE("hazards: races, bounds and uninitialised reads are reported with the instruction", "[model][hazards]") {
  using builder::Addr;
  using builder::Builder;
  using builder::Reg;
  Builder b("racy", ir::Arch::sm_90);
  b.set_launch({.grid = {1, 1, 1}, .block = {64, 1, 1}});
  auto tile = b.shared("tile", 256, 16, ir::SmemUse::other);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg base = b.smem_address(tile, 0, "base");
  Reg C = b.global_ptr(pc, "C_ptr");
  b.st_shared(ir::Type::u32, Addr::at(base + ((tid & 31) << 2)), {tid});  // both warps write words 0..31: race
  Reg v = b.ld_shared(ir::Type::u32, Addr::at(base, 200), "never_written");
  b.st_global(ir::Type::u32, Addr::at(C, 1 << 20), {v});  // far outside C
  Reg junk = b.reg(ir::Type::u32, "junk");
  b.st_shared(ir::Type::u32, Addr::at(base, 512), {tid});  // past the 256-byte allocation
  (void)junk;
  b.ret();
  const ir::Kernel k = b.finish();
  model::GemmBuffers bufs;
  bufs.c.assign(64, 0);
  const model::SimResult r = model::simulate(k, bufs);
  std::set<std::string> kinds;
  for (const model::Hazard& h : r.hazards) {
    kinds.insert(std::string(model::hazard_kind_name(h.kind)));
    CHECK(h.inst < k.insts.size());
    CHECK(!h.detail.empty());
  }
  CHECK(kinds.count("shared-race"));
  CHECK(kinds.count("uninitialized-shared"));
  CHECK(kinds.count("out-of-bounds-global"));
  CHECK(kinds.count("out-of-bounds-shared"));
  CHECK(bufs.c == std::vector<uint8_t>(64, 0));  // nothing written outside the buffer
}

TEST_CASE("prediction: one traced CTA predicts the whole GEMM's time", "[model][timing]") {
  model::SimOptions opt;
  opt.only_traced_cta = true;
  opt.trace = false;
  test::ModelRun big = test::run_model("hopper_tma_wgmma_64", {1024, 1024, 512}, true, 1, {}, opt);
  CHECK(big.result.stats.ctas == 1);
  CHECK(big.result.completed);
  CHECK(big.result.stats.predicted_tflops > 10);
  CHECK(big.result.stats.predicted_tflops < 989);  // under the H100's dense bf16 peak
  // The same CTA costs the same cycles whether or not the rest of the grid runs.
  model::SimOptions all;
  all.trace = false;
  test::ModelRun full = test::run_model("hopper_tma_wgmma_64", {1024, 1024, 512}, true, 1, {}, all);
  CHECK(full.result.stats.traced_cta_cycles == big.result.stats.traced_cta_cycles);
  CHECK(full.result.stats.predicted_tflops == Approx(big.result.stats.predicted_tflops));
}

TEST_CASE("trace: register writes keep the values of the lanes that wrote, packed", "[model][trace]") {
  using builder::Builder;
  using builder::Reg;
  // Lanes 0..9 write 3·tid to a 32-bit register and 2^40 + tid·2^20 to a 64-bit one; the
  // other lanes skip both writes.
  Builder b("partial_writes", ir::Arch::sm_90);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg few = (tid < 10u).named("few");
  Reg r32 = b.reg(ir::Type::u32, "r32");
  Reg r64 = b.reg(ir::Type::u64, "r64");
  b.if_(few, [&] {
    b.alu_into(ir::Op::mul_lo, r32, {tid, 3u});
    Reg wide = b.mul_wide(tid, 1u << 20, "wide");
    b.alu_into(ir::Op::add, r64, {wide, int64_t(1) << 40});
  });
  b.ret();
  const ir::Kernel k = b.finish();
  model::GemmBuffers bufs;
  const model::SimResult r = model::simulate(k, bufs);
  REQUIRE(r.completed);
  const model::Trace& t = r.trace;
  int checked = 0;
  for (uint32_t i : t.of_kind(model::EventKind::reg_write)) {
    const model::Event& e = t.events[i];
    const model::RegWrite& w = t.regs[e.payload];
    CHECK(w.mask == e.mask);
    if (w.reg != r32.id() && w.reg != r64.id()) continue;
    REQUIRE(w.mask == 0x3FFu);
    CHECK(w.words == (w.reg == r64.id() ? 2 : 1));
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const uint64_t want = lane >= 10 ? 0 : w.reg == r32.id() ? 3 * lane : (uint64_t(1) << 40) + (uint64_t(lane) << 20);
      CHECK(t.reg_value(w, lane) == want);
    }
    // Packed: the next write's values start right after this one's ten lanes.
    if (w.value_offset + 10u * w.words < t.values.size())
      for (size_t j = 0; j < t.regs.size(); ++j)
        if (t.regs[j].value_offset > w.value_offset) {
          CHECK(t.regs[j].value_offset == w.value_offset + 10u * w.words);
          break;
        }
    ++checked;
  }
  CHECK(checked == 2);
}

TEST_CASE("trace: whole-warp writes that step evenly are stored as base and step", "[model][trace]") {
  using builder::Builder;
  using builder::Reg;
  // Four whole-warp writes: one value for every lane; 3·tid - 16 in 32 bits, which wraps
  // past 2^32 between lanes 5 and 6; 2^40 + tid·2^20 in 64 bits; and tid², which does not
  // step evenly and stays packed.
  Builder b("even_steps", ir::Arch::sm_90);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg same = b.mov(ir::Type::u32, 7u, "same");
  Reg wraps = (tid * 3u + 0xFFFFFFF0u).named("wraps");
  Reg wide = (b.mul_wide(tid, 1u << 20) + (int64_t(1) << 40)).named("wide");
  Reg square = (tid * tid).named("square");
  b.ret();
  const ir::Kernel k = b.finish();
  model::GemmBuffers bufs;
  const model::SimResult r = model::simulate(k, bufs);
  REQUIRE(r.completed);
  const model::Trace& t = r.trace;
  using Encoding = model::RegWrite::Encoding;
  const auto want = [&](uint32_t reg, uint32_t lane) -> uint64_t {
    if (reg == same.id()) return 7;
    if (reg == wraps.id()) return uint32_t(3 * lane + 0xFFFFFFF0u);
    if (reg == wide.id()) return (uint64_t(1) << 40) + (uint64_t(lane) << 20);
    return lane * lane;
  };
  int checked = 0;
  for (uint32_t i : t.of_kind(model::EventKind::reg_write)) {
    const model::RegWrite& w = t.regs[t.events[i].payload];
    if (w.reg != same.id() && w.reg != wraps.id() && w.reg != wide.id() && w.reg != square.id()) continue;
    INFO("register " << k.regs[w.reg].name);
    REQUIRE(w.mask == 0xFFFFFFFFu);
    CHECK(w.encoding == (w.reg == square.id() ? Encoding::packed : Encoding::affine));
    for (uint32_t lane = 0; lane < 32; ++lane) CHECK(t.reg_value(w, lane) == want(w.reg, lane));
    ++checked;
  }
  CHECK(checked == 4);
  // Affine writes take two values each; the packed one 32.
  CHECK(t.values.size() >= 2 * 1 + 2 * 1 + 2 * 2 + 32);
}
