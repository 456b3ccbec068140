// The timeline pass (engine/ir/instrument) and its decoder (engine/model/timeline_decode), on
// every kernel of the ladder: the instrumented kernel verifies and assembles, computes C bit
// for bit as the plain one does on the model, and its records decode to the model's events of
// the same warps in the same order.
#include <catch2/catch.hpp>

#include <cmath>

#include <map>

#include <fmt/format.h>

#include "engine/ir/instrument.hpp"
#include "engine/ir/verify.hpp"
#include "engine/model/timeline_decode.hpp"
#include "engine/ptx/emit.hpp"
#include "tests/model/model_fixture.hpp"
#include "tests/support/param_combos.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;

namespace {

struct Pair {
  test::ModelRun plain;
  ir::InstrumentedKernel inst;
  model::GemmBuffers bufs;  // the instrumented run's A, B and C
  std::vector<uint8_t> timeline;
  model::SimResult result;
};

Pair run_both(const kernels::KernelInfo& info, ir::TimelineOptions opt = {.capacity = 1 << 14}) {
  Pair p;
  // The example shape (step 23's with its fewest CTAs: test::small_whole_grid).
  const test::WholeGrid g = test::small_whole_grid(info);
  p.plain = test::run_model(info.id, g.shape, /*integer=*/true, 7, {}, {}, g.params);
  p.inst = ir::instrument_timeline(p.plain.kernel, opt);
  p.bufs = p.plain.bufs;
  p.bufs.c.assign(p.bufs.c.size(), 0xFF);
  p.timeline.assign(p.inst.layout.buffer_bytes(), 0);
  p.result = model::simulate(p.inst.kernel, p.bufs, p.timeline);
  return p;
}

// Per warp of CTA 0, the instructions of the model events that a record always stands for.
using Sequence = std::map<uint32_t, std::vector<std::pair<model::EventKind, uint32_t>>>;

bool always_recorded(const model::Trace& t, const model::Event& e) {
  using K = model::EventKind;
  if (!(e.mask & 1) && e.kind != K::role_enter) return false;  // lane 0 records
  switch (e.kind) {
    case K::role_enter:
    case K::tma_issue:
    case K::wgmma_commit:
    case K::cp_async_commit:
    case K::cp_async_wait: return true;
    case K::global_access: return t.global[e.payload].store;
    default: return false;
  }
}

Sequence model_sequence(const model::Trace& t) {
  Sequence s;
  for (const model::Event& e : t.events)
    if (e.cta == 0 && e.warp != model::kNoWarp && always_recorded(t, e)) s[e.warp].emplace_back(e.kind, e.inst);
  return s;
}

Sequence measured_sequence(const model::MeasuredTimeline& m) {
  using K = model::EventKind;
  Sequence s;
  for (const model::MeasuredEvent& e : m.events)
    if (e.cta == 0 && (e.kind == K::role_enter || e.kind == K::tma_issue || e.kind == K::wgmma_commit ||
                       e.kind == K::cp_async_commit || e.kind == K::cp_async_wait || e.kind == K::global_access))
      s[e.warp].emplace_back(e.kind, e.inst);
  return s;
}

}  // namespace

TEST_CASE("timeline: every kernel instrumented verifies and assembles for its target", "[timeline][ptxas]") {
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    const ir::Kernel k = kernels::build_kernel(info, {info.example_shape, {}});
    const ir::InstrumentedKernel t = ir::instrument_timeline(k, {});
    INFO(info.id);
    CHECK(t.sites > 0);
    CHECK(t.kernel.params.size() == k.params.size() + 1);
    CHECK(t.kernel.find_param(ir::ParamRole::timeline) != nullptr);
    CHECK_NOTHROW(ir::verify(t.kernel));
    const std::string ptx = ptx::emit(t.kernel).text;
    CHECK(ptx.find("%globaltimer") != std::string::npos);
    test::check_assembles(ptx, k.target, info.id + " with a timeline");
    // Every CTA, each warp's start and end only (timeline --ctas all --capacity 0).
    const ir::InstrumentedKernel ends =
        ir::instrument_timeline(k, {.first_cta = 0, .ctas = uint32_t(k.launch.ctas()), .capacity = 0});
    CHECK(ends.sites == 0);
    CHECK_NOTHROW(ir::verify(ends.kernel));
    test::check_assembles(ptx::emit(ends.kernel).text, k.target, info.id + " with every CTA's start and end");
  }
}

TEST_CASE("timeline: C is bit for bit the same, and the records decode to the model's events", "[timeline]") {
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    INFO(info.id);
    Pair p = run_both(info);
    REQUIRE(p.plain.result.completed);
    REQUIRE(p.result.completed);
    CHECK(p.plain.mismatches == 0);
    CHECK(p.bufs.c == p.plain.bufs.c);  // the recording changes nothing the kernel computes

    const model::MeasuredTimeline m = model::decode_timeline(p.plain.kernel, p.inst.layout, p.timeline);
    CHECK(m.warnings.empty());
    CHECK(m.lost == 0);
    REQUIRE(m.warps.size() == p.inst.layout.warps_per_cta);
    for (const model::MeasuredWarp& w : m.warps) CHECK(w.finished);
    CHECK(measured_sequence(m) == model_sequence(p.plain.result.trace));

    // Every record, in order, is the model issuing that site's %clock read, at that cycle.
    std::map<uint32_t, std::vector<uint64_t>> issued;
    // (A role record of the role the warp is in already is dropped by the decoder, as the
    // model reports none: role records are compared with the model's role_enter events above.)
    std::vector<bool> is_read(p.inst.kernel.insts.size(), false);
    for (size_t r = 0; r < p.inst.clock_reads.size(); ++r)
      is_read[p.inst.clock_reads[r]] = p.inst.clock_read_kinds[r] != ir::RecordKind::role_enter;
    const model::Trace& t = p.result.trace;
    for (const model::Event& e : t.events)
      if (e.kind == model::EventKind::warp_inst && e.cta == 0 && (e.mask & 1) && is_read[e.inst])
        issued[e.warp].push_back(e.cycle);
    uint64_t clock0 = UINT64_MAX;
    for (const model::MeasuredWarp& w : m.warps) clock0 = std::min(clock0, w.clock_start);
    std::map<uint32_t, std::vector<uint64_t>> recorded;
    for (const model::MeasuredEvent& e : m.events)
      if (e.record != ir::RecordKind::role_enter) recorded[e.warp].push_back(e.cycle + clock0);
    CHECK(recorded == issued);
    // The model's globaltimer is its cycle in ns: the SM clock comes out as the machine's. Each
    // pair of reads (globaltimer, then clock64) is two issues that the other warps of its
    // scheduler (up to 8) may hold apart for several of their turns: 40-50 cycles at
    // simt_coalesced's start, where every warp's prologue queues for the IMAD pipe. The spans agree
    // within 64 cycles.
    const double ghz = model::timing::machine_for(p.inst.kernel.target).clock_hz / 1e9;
    for (const model::MeasuredWarp& w : m.warps)
      if (w.clock_end - w.clock_start > 1000) {
        const double clock_span = double(w.clock_end - w.clock_start);
        const double timer_span = double(w.globaltimer_end - w.globaltimer_start) * ghz;
        INFO("clock span " << clock_span << " cycles, globaltimer span " << timer_span << " cycles");
        CHECK(std::abs(clock_span - timer_span) <= 64.0);
      }
  }
}

TEST_CASE("timeline: each event carries its instruction's source line in kernels/", "[timeline]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_producer_consumer");
  Pair p = run_both(info);
  const model::MeasuredTimeline m = model::decode_timeline(p.plain.kernel, p.inst.layout, p.timeline);
  REQUIRE(!m.events.empty());
  std::map<ir::RecordKind, int> kinds;
  for (const model::MeasuredEvent& e : m.events) {
    ++kinds[e.record];
    REQUIRE(e.src.known());
    CHECK(p.plain.kernel.source_file(e.src).starts_with("kernels/"));
  }
  for (ir::RecordKind k : {ir::RecordKind::role_enter, ir::RecordKind::mbar_wait_begin, ir::RecordKind::mbar_wait_end,
                           ir::RecordKind::tma_issue, ir::RecordKind::mma_commit, ir::RecordKind::k_pass})
    CHECK(kinds[k] > 0);
}

TEST_CASE("timeline: a full buffer loses the last records with a message, never a crash", "[timeline]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_producer_consumer");
  Pair p = run_both(info, {.capacity = 4});
  REQUIRE(p.result.completed);
  CHECK(p.bufs.c == p.plain.bufs.c);
  const model::MeasuredTimeline m = model::decode_timeline(p.plain.kernel, p.inst.layout, p.timeline);
  CHECK(m.lost > 0);
  REQUIRE(!m.warnings.empty());
  CHECK_THAT(m.warnings[0], Catch::Contains("holds 4 per warp") && Catch::Contains("lost"));
  for (const model::MeasuredWarp& w : m.warps) CHECK(w.kept <= 4);
}

TEST_CASE("timeline: capacity 0 keeps each warp's start, end and SM only, and loses nothing", "[timeline]") {
  // What `timeline --ctas all --capacity 0` records of a whole launch: where and when each CTA ran.
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_producer_consumer");
  test::ModelRun plain = test::run_model(info.id, info.example_shape, true, 3);
  const uint32_t ctas = uint32_t(plain.kernel.launch.ctas());
  REQUIRE(ctas >= 2);
  const ir::InstrumentedKernel t = ir::instrument_timeline(plain.kernel, {.first_cta = 0, .ctas = ctas, .capacity = 0});
  CHECK(t.layout.buffer_bytes() == uint64_t(ctas) * t.layout.warps_per_cta * ir::kTimelineHeaderBytes);
  model::GemmBuffers bufs = plain.bufs;
  std::vector<uint8_t> timeline(t.layout.buffer_bytes());
  REQUIRE(model::simulate(t.kernel, bufs, timeline).completed);
  CHECK(bufs.c == plain.bufs.c);
  const model::MeasuredTimeline m = model::decode_timeline(plain.kernel, t.layout, timeline);
  CHECK(m.events.empty());
  CHECK(m.lost == 0);
  CHECK(m.warnings.empty());
  REQUIRE(m.warps.size() == size_t(ctas) * t.layout.warps_per_cta);
  for (const model::MeasuredWarp& w : m.warps) {
    CHECK(w.finished);
    CHECK(w.attempted == 0);
    CHECK(w.globaltimer_end > w.globaltimer_start);
    CHECK(w.clock_end > w.clock_start);
  }
  // No record sites: between its start and end stamps a warp runs the kernel's own instructions
  // (so a whole grid's record runs at the plain kernel's pace), where capacity 1 adds a site at
  // every event.
  CHECK(t.sites == 0);
  CHECK(t.clock_reads.empty());
  const ir::InstrumentedKernel one = ir::instrument_timeline(plain.kernel, {.first_cta = 0, .ctas = ctas, .capacity = 1});
  CHECK(one.sites > 0);
  CHECK(t.kernel.insts.size() < one.kernel.insts.size());
  CHECK(t.kernel.insts.size() - t.plain_end < plain.kernel.insts.size() + 64);  // the copy, the start and end stamps
}

TEST_CASE("timeline: many warps losing records name eight and count the rest", "[timeline]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_producer_consumer");
  test::ModelRun plain = test::run_model(info.id, info.example_shape, true, 3);
  const uint32_t ctas = uint32_t(plain.kernel.launch.ctas());
  const ir::InstrumentedKernel t = ir::instrument_timeline(plain.kernel, {.first_cta = 0, .ctas = ctas, .capacity = 1});
  model::GemmBuffers bufs = plain.bufs;
  std::vector<uint8_t> timeline(t.layout.buffer_bytes());
  REQUIRE(model::simulate(t.kernel, bufs, timeline).completed);
  const model::MeasuredTimeline m = model::decode_timeline(plain.kernel, t.layout, timeline);
  size_t lossy = 0;
  for (const model::MeasuredWarp& w : m.warps) lossy += w.attempted > 1;
  REQUIRE(lossy > 8);
  REQUIRE(m.warnings.size() == 9);
  CHECK_THAT(m.warnings[7], Catch::Contains("holds 1 per warp"));
  CHECK_THAT(m.warnings[8], Catch::Contains(fmt::format("{} more warps lost records ({} lost in all)", lossy - 8, m.lost)));
}

TEST_CASE("timeline: bad options and foreign buffers are refused with the value and what is valid", "[timeline]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("simt_naive");
  const ir::Kernel k = kernels::build_kernel(info, {info.example_shape, {}});
  CHECK_THROWS_WITH(ir::instrument_timeline(k, {.capacity = ir::kTimelineMaxCapacity + 1}),
                    Catch::Contains(fmt::format("capacity {}", ir::kTimelineMaxCapacity + 1)) &&
                        Catch::Contains("0.."));
  CHECK_THROWS_WITH(ir::instrument_timeline(k, {.first_cta = uint32_t(k.launch.ctas()), .ctas = 1}),
                    Catch::Contains("not inside the grid"));
  const ir::InstrumentedKernel t = ir::instrument_timeline(k, {.capacity = 16});
  CHECK_THROWS_WITH(ir::instrument_timeline(t.kernel, {}), Catch::Contains("already records"));
  std::vector<uint8_t> wrong(t.layout.buffer_bytes() - 8);
  CHECK_THROWS_WITH(model::decode_timeline(k, t.layout, wrong), Catch::Contains("need"));
  // A record naming an instruction the kernel does not have: another kernel's buffer.
  std::vector<uint8_t> foreign(t.layout.buffer_bytes(), 0);
  const uint32_t magic = ir::kTimelineMagic, one = 1, tag = 0x00FFFFFF;
  std::memcpy(foreign.data() + 44, &magic, 4);
  std::memcpy(foreign.data() + 40, &one, 4);
  std::memcpy(foreign.data() + ir::kTimelineHeaderBytes, &tag, 4);
  CHECK_THROWS_WITH(model::decode_timeline(k, t.layout, foreign), Catch::Contains("another kernel"));
  // A buffer nothing wrote: every warp is reported unfinished, nothing throws.
  const model::MeasuredTimeline empty = model::decode_timeline(k, t.layout, std::vector<uint8_t>(t.layout.buffer_bytes()));
  REQUIRE(empty.warnings.size() == 1);
  CHECK_THAT(empty.warnings[0], Catch::Contains("recorded no end"));
}

TEST_CASE("timeline: a range of CTAs records one area each, the others none", "[timeline]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("simt_naive");
  test::ModelRun plain = test::run_model(info.id, info.example_shape, true, 3);
  REQUIRE(plain.kernel.launch.ctas() >= 3);
  const ir::InstrumentedKernel t = ir::instrument_timeline(plain.kernel, {.first_cta = 1, .ctas = 2, .capacity = 64});
  model::GemmBuffers bufs = plain.bufs;
  std::vector<uint8_t> timeline(t.layout.buffer_bytes());
  REQUIRE(model::simulate(t.kernel, bufs, timeline).completed);
  CHECK(bufs.c == plain.bufs.c);
  const model::MeasuredTimeline m = model::decode_timeline(plain.kernel, t.layout, timeline);
  REQUIRE(m.warps.size() == 2 * t.layout.warps_per_cta);
  for (const model::MeasuredWarp& w : m.warps) {
    CHECK(w.finished);
    CHECK((w.cta == 1 || w.cta == 2));
  }
}

TEST_CASE("timeline: a CTA that records nothing runs the plain kernel's instructions after the prologue", "[timeline]") {
  // It branches once to a copy of the original instructions, so the recording costs it nothing
  // inside the kernel (step 13 paid +7% when every record was branched over instead).
  for (const char* id : {"simt_naive", "hopper_producer_consumer"}) {
    INFO(id);
    const kernels::KernelInfo& info = kernels::kernel_or_throw(id);
    test::ModelRun plain = test::run_model(info.id, info.example_shape, true, 3);
    REQUIRE(plain.kernel.launch.ctas() >= 2);
    const ir::InstrumentedKernel t = ir::instrument_timeline(plain.kernel, {.first_cta = 1, .ctas = 1, .capacity = 1 << 14});
    const uint32_t plain_begin = t.plain_begin;
    REQUIRE(plain_begin > 0);
    // The prologue ends in the recording CTAs' branch over the copy, to the label after it.
    const ir::Inst& branch = t.kernel.insts.at(plain_begin - 1);
    REQUIRE(branch.op == ir::Op::bra);
    CHECK(branch.guard != ir::kNone);
    CHECK_FALSE(branch.guard_negated);
    CHECK(t.kernel.labels.at(branch.operands.at(0).id).name == "tl_record");
    REQUIRE(t.plain_end - plain_begin == plain.kernel.insts.size());
    const bool falls_off_end = plain.kernel.insts.back().op != ir::Op::ret && plain.kernel.insts.back().op != ir::Op::exit;
    const ir::Inst& label = t.kernel.insts.at(t.plain_end + (falls_off_end ? 1 : 0));
    REQUIRE(label.op == ir::Op::label);
    CHECK(label.operands.at(0).id == branch.operands.at(0).id);
    for (uint32_t i = 0; i < plain.kernel.insts.size(); ++i) {
      CHECK(t.kernel.insts[plain_begin + i].op == plain.kernel.insts[i].op);
      CHECK(t.kernel.role_at(plain_begin + i) == plain.kernel.role_at(i));
    }

    model::GemmBuffers bufs = plain.bufs;
    bufs.c.assign(bufs.c.size(), 0xFF);
    std::vector<uint8_t> timeline(t.layout.buffer_bytes());
    const model::SimResult r = model::simulate(t.kernel, bufs, timeline);  // traces CTA 0, which records nothing
    REQUIRE(r.completed);
    CHECK(bufs.c == plain.bufs.c);
    std::map<uint32_t, std::vector<uint32_t>> ran, expected;
    std::map<uint32_t, int> prologue;
    for (const model::Event& e : r.trace.events) {
      if (e.kind != model::EventKind::warp_inst || e.cta != 0) continue;
      if (t.in_plain_copy(e.inst)) {
        ran[e.warp].push_back(e.inst - plain_begin);
      } else {
        CHECK(t.kernel.insts[e.inst].comment.starts_with("timeline:"));
        ++prologue[e.warp];
      }
    }
    for (const model::Event& e : plain.result.trace.events)
      if (e.kind == model::EventKind::warp_inst && e.cta == 0) expected[e.warp].push_back(e.inst);
    REQUIRE(!expected.empty());
    CHECK(ran == expected);
    for (const auto& [warp, n] : prologue) CHECK(n < 48);
  }
}
