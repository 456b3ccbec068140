// The warps view's data: states at known points of the trace, instruction counts against an
// independent count of the events, the timeline, and the register budget.
#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include <cstdlib>

#include "engine/ptx/ptxas.hpp"
#include "gui/core/occupancy.hpp"
#include "gui/core/view_data.hpp"
#include "gui/core/tma_pipeline_data.hpp"
#include "gui/core/warps_data.hpp"
#include "tests/gui/gui_fixture.hpp"

using namespace gs;
using namespace gs::gui;
using model::EventKind;

TEST_CASE("warps: a blocked try_wait shows as waiting on the mbarrier with its parity", "[gui]") {
  AppState app = test::hopper_app();
  const model::Trace& t = app.kernel->trace();
  REQUIRE_FALSE(t.of_kind(EventKind::mbar_wait_blocked).empty());
  const uint32_t e = t.of_kind(EventKind::mbar_wait_blocked).front();
  const model::Event& ev = t.events[e];
  const model::MbarEvent& m = t.mbar[ev.payload];
  app.seek(e);
  const Snapshot& s = *app.snapshot();
  const WarpSnapshot& w = s.warps.at(ev.warp);
  CHECK(w.activity == WarpActivity::waiting_mbarrier);
  CHECK(w.parity == m.value);
  CHECK(w.mbar == m.addr);
  const std::vector<WarpRow> rows = warp_rows(*app.kernel, s);
  // The barrier by its declared name, as the TMA view names it (step 11's one "full").
  CHECK(rows.at(ev.warp).state == "waiting on full parity " + std::to_string(m.value));
  const TmaPipeline p = tma_pipeline(*app.kernel, s);
  REQUIRE_FALSE(p.stages.empty());
  REQUIRE(p.stages[0].full);
  CHECK(p.stages[0].full->name == "full");
  // One warpgroup: 128 threads = 4 warps.
  CHECK(rows.size() == 128 / 32);
  // After the release the same warp is ready again.
  const auto& released = t.of_kind(EventKind::mbar_wait_released);
  auto it = std::find_if(released.begin(), released.end(), [&](uint32_t r) { return r > e && t.events[r].warp == ev.warp; });
  REQUIRE(it != released.end());
  app.seek(*it);
  CHECK(warp_rows(*app.kernel, *app.snapshot()).at(ev.warp).state.rfind("ready", 0) == 0);
}

TEST_CASE("warps: bar.sync, issued counts and the end of the CTA", "[gui]") {
  AppState app = test::hopper_app();
  const model::Trace& t = app.kernel->trace();
  REQUIRE_FALSE(t.of_kind(EventKind::bar_blocked).empty());
  const uint32_t b = t.of_kind(EventKind::bar_blocked).front();
  app.seek(b);
  const uint16_t warp = t.events[b].warp;
  std::vector<WarpRow> rows = warp_rows(*app.kernel, *app.snapshot());
  CHECK(rows.at(warp).state == "bar.sync " + std::to_string(t.events[b].payload));
  // Issued = warp_inst events of the warp up to the position, counted here independently.
  for (const WarpRow& r : rows) {
    uint64_t n = 0;
    for (uint32_t e : t.of_kind(EventKind::warp_inst)) n += e <= b && t.events[e].warp == r.warp;
    CHECK(r.issued == n);
    if (r.inst != kNone) CHECK(r.inst_text == app.kernel->inst_text[r.inst]);
  }
  app.seek(app.event_count() - 1);
  for (const WarpRow& r : warp_rows(*app.kernel, *app.snapshot())) {
    CHECK(r.state == "exited");
    CHECK(r.next_inst == kNone);
  }
  const nlohmann::json j = describe_warps(app);
  CHECK(j["warps"].size() == 4);
  // The roles the kernel declares (Builder::role), as the model saw each warp enter them: the
  // epilogue last; before that, the producer region holding the leader's TMA issue.
  for (const auto& w : j["warps"]) CHECK(w["role"] == "epilogue");
  const auto& tma = t.of_kind(EventKind::tma_issue);
  REQUIRE_FALSE(tma.empty());
  app.seek(tma.front());
  CHECK(describe_warps(app)["warps"][0]["role"] == "producer");
  app.seek(0);
  CHECK(describe_warps(app)["warps"][0]["role"] == "-");  // no declared region entered yet
}

TEST_CASE("warps: wgmma groups in flight and the wait on them", "[gui]") {
  AppState app = test::hopper_app();
  const LoadedKernel& k = *app.kernel;
  const model::Trace& t = k.trace();
  // Warp 0's first commit closes one group: the four k16 wgmmas of the first K block.
  uint32_t commit = kNone, wait = kNone;
  for (uint32_t e : t.of_kind(EventKind::warp_inst)) {
    if (t.events[e].warp != 0) continue;
    const ir::Op op = k.kernel().insts[t.events[e].inst].op;
    if (op == ir::Op::wgmma_commit_group && commit == kNone) commit = e;
    if (op == ir::Op::wgmma_wait_group && commit != kNone) {
      wait = e;
      break;
    }
  }
  REQUIRE(commit != kNone);
  REQUIRE(wait != kNone);
  uint32_t issued_before = 0;
  for (uint32_t e : t.of_kind(EventKind::wgmma_issue)) issued_before += e < commit && t.events[e].warp == 0;
  CHECK(issued_before == 64 / 16);  // K block 64 = four k16 steps
  app.seek(commit);
  CHECK(app.snapshot()->warps[0].mma_in_flight == 1);
  // The group completes at its modeled cycle; until then wait_group 0 holds the warp.
  const auto& completes = t.of_kind(EventKind::wgmma_complete);
  const auto done = std::find_if(completes.begin(), completes.end(), [&](uint32_t e) { return t.events[e].warp == 0; });
  REQUIRE(done != completes.end());
  app.seek(wait);
  const WarpRow at_wait = warp_rows(k, *app.snapshot())[0];
  if (*done > wait) {
    CHECK(at_wait.activity == WarpActivity::waiting_wgmma);
    CHECK(at_wait.state == "wgmma wait (1 group in flight)");
  }
  // The model releases the wait when the group has completed (wgmma_wait_released).
  const auto& releases = t.of_kind(EventKind::wgmma_wait_released);
  const auto release = std::find_if(releases.begin(), releases.end(), [&](uint32_t e) { return t.events[e].warp == 0; });
  REQUIRE(release != releases.end());
  CHECK(*release > *done);
  app.seek(*release);
  CHECK(app.snapshot()->warps[0].mma_in_flight == 0);
  CHECK(app.snapshot()->warps[0].activity == WarpActivity::ready);
}

TEST_CASE("warps: timelines agree with the snapshots", "[gui]") {
  AppState app = test::hopper_app();
  const LoadedKernel& k = *app.kernel;
  const WarpTimelines& tl = warp_timelines_cached(app.kernel);
  REQUIRE(tl.size() == k.trace().warps);
  for (const auto& segs : tl) {
    for (size_t i = 1; i < segs.size(); ++i) {
      CHECK(segs[i].begin >= segs[i - 1].begin);
      CHECK(segs[i].activity != segs[i - 1].activity);
    }
    const ReadyWaiting rw = ready_waiting(segs, 0, k.trace().end_cycle);
    CHECK(rw.ready + rw.waiting <= k.trace().end_cycle);
  }
  // At the cycle of the first blocked wait, that warp's timeline says waiting_mbarrier, and some
  // warp spent cycles waiting over the whole run (single stage: the TMA latency is exposed).
  const uint32_t e = k.trace().of_kind(EventKind::mbar_wait_blocked).front();
  const model::Event& ev = k.trace().events[e];
  const auto& segs = tl.at(ev.warp);
  auto at = std::upper_bound(segs.begin(), segs.end(), ev.cycle,
                             [](uint64_t c, const ActivitySegment& s) { return c < s.begin; });
  REQUIRE(at != segs.begin());
  CHECK((at - 1)->activity == WarpActivity::waiting_mbarrier);
  CHECK(ready_waiting(segs, 0, k.trace().end_cycle).waiting > 0);
}

TEST_CASE("warps: register budget", "[gui]") {
  const ir::Kernel& hk = test::hopper_kernel()->kernel();
  const RegisterBudget b = register_budget(hk);
  CHECK(b.threads == 128);
  // 65536 / 128 = 512 registers per thread, above the 255 a thread may hold.
  CHECK(b.per_thread_limit == 255);
  CHECK(b.summary.find("65536 regs/SM / 128 threads") != std::string::npos);
  uint32_t f32 = 0, total = 0;
  for (const auto& t : b.by_type) {
    total += t.count;
    if (t.type == "f32") f32 = t.count;
  }
  CHECK(total == hk.regs.size());
  CHECK(f32 >= 32);  // the m64n64 accumulator: 64 / 2 f32 per thread
  CHECK(b.words32 > b.by_type.size());

  AppState app;
  app.open_now({.kernel_id = "simt_naive", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const RegisterBudget n = register_budget(app.kernel->kernel());
  CHECK(n.threads == app.kernel->kernel().launch.threads());
  CHECK(n.per_thread_limit == std::min<uint32_t>(255, 65536 / n.threads));
  CHECK(describe_warps(app)["warps"].size() == app.kernel->trace().warps);
}

TEST_CASE("warps: wait_group N waits until at most N groups are in flight", "[gui]") {
  // A hand-made kernel and trace (no ladder kernel uses N > 0 yet), with the events the model
  // records (exec_wgmma.cpp): one warp commits two groups of one wgmma each, waits with N = 1
  // (one group retires), then with N = 0, and finally waits with N = 1 again with nothing to
  // retire (no blocked/released events then).
  LoadedKernel k;
  ir::Kernel& kernel = k.report.kernel;
  auto add = [&](ir::Op op, int64_t n = -1) {
    ir::Inst inst;
    inst.op = op;
    if (n >= 0) inst.operands.push_back(ir::Operand::integer(n));
    kernel.insts.push_back(inst);
    return uint32_t(kernel.insts.size() - 1);
  };
  const uint32_t mma = add(ir::Op::wgmma_mma_async), commit = add(ir::Op::wgmma_commit_group);
  const uint32_t wait1 = add(ir::Op::wgmma_wait_group, 1), wait0 = add(ir::Op::wgmma_wait_group, 0);
  model::Trace& t = k.report.result.trace;
  t.warps = 1;
  uint64_t cycle = 0;
  auto event = [&](EventKind kind, uint32_t inst, uint32_t a = 0) {
    t.events.push_back(model::Event{cycle++, kind, 0, inst, 0xFFFFFFFFu, 0xFFFFFFFFu, a});
    return uint32_t(t.events.size() - 1);
  };
  for (uint32_t g = 0; g < 2; ++g) {
    event(EventKind::warp_inst, mma);
    event(EventKind::wgmma_issue, mma);
    event(EventKind::warp_inst, commit);
    event(EventKind::wgmma_commit, commit, g + 1);
  }
  event(EventKind::warp_inst, wait1);
  const uint32_t at_wait1 = event(EventKind::wgmma_wait_blocked, wait1, 1);
  event(EventKind::wgmma_complete, wait1);
  const uint32_t first_done = event(EventKind::wgmma_wait_released, wait1, 1);
  event(EventKind::warp_inst, wait0);
  const uint32_t at_wait0 = event(EventKind::wgmma_wait_blocked, wait0, 0);
  event(EventKind::wgmma_complete, wait0);
  const uint32_t second_done = event(EventKind::wgmma_wait_released, wait0, 0);
  const uint32_t idle_wait = event(EventKind::warp_inst, wait1);

  auto at = [&](uint32_t position) {
    Snapshot s = initial_snapshot(k);
    replay(k, s, kNone, position);
    return s.warps.at(0);
  };
  CHECK(at(at_wait1 - 1).mma_in_flight == 2);
  CHECK(at(at_wait1).activity == WarpActivity::waiting_wgmma);  // 2 in flight > 1
  CHECK(at(first_done).activity == WarpActivity::ready);        // 1 left: released
  CHECK(at(first_done).mma_in_flight == 1);
  CHECK(at(at_wait0).activity == WarpActivity::waiting_wgmma);
  CHECK(at(second_done).activity == WarpActivity::ready);
  CHECK(at(second_done).mma_in_flight == 0);
  CHECK(at(idle_wait).activity == WarpActivity::ready);  // nothing in flight: no wait
}

TEST_CASE("warps: each warp's register budget after setmaxnreg", "[gui]") {
  // hopper_two_consumers: the producer warpgroup gives registers up (setmaxnreg.dec 24), the two
  // consumer warpgroups take them (setmaxnreg.inc 240).
  AppState app;
  app.open_now({.kernel_id = "hopper_two_consumers", .only_traced_cta = true});
  REQUIRE(app.kernel);
  app.seek(app.event_count() - 1);
  const nlohmann::json rows = describe_warps(app)["warps"];
  REQUIRE(rows.size() == 12);
  for (size_t w = 0; w < rows.size(); ++w) {
    INFO("warp " << w << ": " << rows[w].dump());
    CHECK(rows[w]["reg_limit"] == (w < 4 ? 24 : 240));
    CHECK(rows[w]["role"].get<std::string>().find(w < 4 ? ", 24 regs" : ", 240 regs") != std::string::npos);
  }
  // Before any setmaxnreg: the launch's budget, no figure.
  app.seek(0);
  CHECK(describe_warps(app)["warps"][0]["reg_limit"] == 0);
}

TEST_CASE("warps: the register line shows ptxas's count and setmaxnreg's, the virtual count as names", "[gui]") {
  // Step 14: 384 threads give a launch budget of 170; the builder names about 350 virtual
  // registers, which is not an overcommit: ptxas allocates far fewer, and setmaxnreg moves
  // the consumers to 240.
  AppState app;
  app.open_now({.kernel_id = "hopper_two_consumers", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const nlohmann::json r = describe_warps(app)["registers"];
  const std::string text = r["text"];
  INFO(text);
  CHECK(r["setmaxnreg"] == nlohmann::json::array({24, 240}));
  CHECK_THAT(text, Catch::Matchers::Contains("setmaxnreg sets 24 / 240"));
  CHECK_THAT(text, Catch::Matchers::Contains("virtual registers"));
  CHECK_THAT(text, Catch::Matchers::Contains("names before ptxas allocates them"));
  CHECK(r["virtual"].get<uint32_t>() > r["per_thread_limit"].get<uint32_t>());
  if (ptx::find_ptxas()) {
    // ptxas's figure first, and within the hardware's 255.
    const uint32_t allocated = r["allocated"];
    CHECK(allocated > 0);
    CHECK(allocated <= 255);
    CHECK_THAT(text, Catch::Matchers::StartsWith(std::to_string(allocated) + " per thread (ptxas -v"));
  } else {
    CHECK(std::getenv("GEMMSCOPE_REQUIRE_PTXAS") == nullptr);
    CHECK_THAT(text, Catch::Matchers::StartsWith("physical count not known"));
  }
}

// Both headers used to define kRegistersPerSm: a file including both (as a unity batch of the
// views does) did not compile. The occupancy's register limit and the budget read one constant.
TEST_CASE("warps and occupancy: one register-file size, includable together", "[gui][warps][occupancy]") {
  STATIC_REQUIRE(kRegistersPerSm == 65536);
  AppState app = test::hopper_app();
  const Occupancy o = occupancy_of(app.kernel->kernel(), 32, "test");
  const auto limit = std::find_if(o.limits.begin(), o.limits.end(),
                                  [](const OccupancyLimit& l) { return l.resource == "registers"; });
  REQUIRE(limit != o.limits.end());
  CHECK(limit->basis.rfind(std::to_string(kRegistersPerSm) + " per SM", 0) == 0);
}
