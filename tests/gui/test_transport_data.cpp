// The transport's data: stepping by K iteration lands on the loop head, cycle seeks follow
// model::Cursor::jump_to_cycle, the shortcut table is unambiguous, and events read as words.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <tuple>

#include "engine/builder/builder.hpp"
#include "gui/core/tma_pipeline_data.hpp"
#include "gui/core/transport_data.hpp"
#include "gui/core/warps_data.hpp"
#include "gui/core/view_data.hpp"
#include "tests/gui/gui_fixture.hpp"

using namespace gs;
using namespace gs::gui;
using model::EventKind;

TEST_CASE("transport: K iterations step through the real K loop", "[gui]") {
  AppState app = test::hopper_app();
  const LoadedKernel& k = *app.kernel;
  REQUIRE(k.k_loops.size() == 1);
  const uint32_t head = k.k_loops.front().head;
  // The K loop of the Hopper step runs K / 64 times; at the example shape K = 256: 4 iterations.
  const uint32_t expected = k.request.shape.k / k.info->tile.k;
  CHECK(expected == 4);
  CHECK(k.k_passes(0) == expected);
  // Every warp of the one warpgroup runs the K loop; the loop's last instruction branches back.
  CHECK(k.k_warp(3) == 3);
  CHECK(k.kernel().insts[k.k_loops.front().branch].op == ir::Op::bra);

  app.select_warp(0);
  uint32_t steps = 0;
  uint32_t last = app.playback.position;
  while (app.step(StepUnit::k_iteration, true)) {
    ++steps;
    const model::Event& e = k.trace().events[app.playback.position];
    CHECK(e.kind == EventKind::warp_inst);
    CHECK(e.inst == head);
    CHECK(e.warp == 0);
    CHECK(app.playback.position > last);
    last = app.playback.position;
    CHECK(transport_info(app).k_iteration == steps);
    REQUIRE(steps <= expected);
  }
  CHECK(steps == expected);
  // And back again.
  uint32_t back = 0;
  while (app.step(StepUnit::k_iteration, false)) ++back;
  CHECK(back == expected - 1);
}

TEST_CASE("transport: every step declares its K loops, and K iterations step and count in each", "[gui][ladder]") {
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    if (info.step == 0) continue;  // not a ladder step
    INFO(info.id);
    AppState app;
    app.open_now({.kernel_id = info.id, .only_traced_cta = true});
    REQUIRE(app.kernel);
    const LoadedKernel& k = *app.kernel;
    REQUIRE_FALSE(k.k_loops.empty());
    // The warp the transport counts for warp 0 runs a K loop (in a producer/consumer kernel warp
    // 0 may run none: then the lowest warp that does).
    const uint16_t w = k.k_warp(0);
    REQUIRE(w != kNoWarp);
    REQUIRE(k.k_passes(w) > 0);
    // The warp with the most passes (a consumer, or any warp of a one-role kernel) makes whole
    // rounds of K blocks: K / tile K per tile (step 09's unrolled tail declares its K steps).
    const uint32_t k_blocks = (k.request.shape.k + info.tile.k - 1) / info.tile.k;
    uint32_t most = 0;
    for (uint16_t v = 0; v < k.k_pass_events.size(); ++v) most = std::max(most, k.k_passes(v));
    CHECK(most % k_blocks == 0);
    CHECK(most >= 1);
    // Stepping by K iteration lands on each pass of that warp, in order, and counts it.
    app.select_warp(w);
    uint32_t steps = 0;
    while (app.step(StepUnit::k_iteration, true)) {
      ++steps;
      const model::Event& e = k.trace().events[app.playback.position];
      CHECK(e.warp == w);
      CHECK(k.is_k_loop_head(e.inst));
      CHECK(transport_info(app).k_iteration == steps);
      REQUIRE(steps <= k.k_passes(w));
    }
    CHECK(steps == k.k_passes(w));
    CHECK(transport_info(app).k_iterations == k.k_passes(w));
  }
}

TEST_CASE("transport: cycle seeks land on the first event at or after the cycle", "[gui]") {
  AppState app = test::hopper_app();
  const model::Trace& t = app.kernel->trace();
  REQUIRE(t.end_cycle > 0);
  for (uint64_t c : {uint64_t(0), t.end_cycle / 3, t.end_cycle / 2, t.end_cycle}) {
    seek_to_cycle(app, c);
    const uint32_t p = app.playback.position;
    CHECK(t.events[p].cycle >= c);
    if (p > 0) CHECK(t.events[p - 1].cycle < c);
  }
  const TransportInfo info = transport_info(app);
  CHECK(info.cycle == t.end_cycle);
  CHECK(info.events == t.events.size());
}

TEST_CASE("transport: the shortcut table has no duplicate keys and covers every unit", "[gui]") {
  std::set<std::tuple<ShortcutKey, bool, bool>> keys;
  std::set<std::string> shown;
  std::set<std::pair<StepUnit, bool>> steps;
  for (const Shortcut& s : transport_shortcuts()) {
    CHECK(keys.insert({s.key, s.ctrl, s.shift}).second);
    CHECK(shown.insert(s.keys).second);
    if (s.action == TransportAction::step_forward) steps.insert({s.unit, true});
    if (s.action == TransportAction::step_backward) steps.insert({s.unit, false});
  }
  for (StepUnit u : {StepUnit::event, StepUnit::instruction, StepUnit::warp_instruction, StepUnit::k_iteration,
                     StepUnit::barrier_phase, StepUnit::stop}) {
    CHECK(steps.count({u, true}) == 1);
    CHECK(steps.count({u, false}) == 1);
  }
  REQUIRE(find_shortcut(ShortcutKey::f1, false, false));
  CHECK(find_shortcut(ShortcutKey::f1, false, false)->action == TransportAction::toggle_help);
  CHECK(find_shortcut(ShortcutKey::question_mark, false, false)->action == TransportAction::toggle_help);
  CHECK(find_shortcut(ShortcutKey::right, true, false)->unit == StepUnit::k_iteration);
  CHECK(find_shortcut(ShortcutKey::space, true, true) == nullptr);
}

TEST_CASE("transport: shortcuts step, seek and toggle", "[gui]") {
  AppState app = test::hopper_app();
  bool help = false;
  const uint32_t start = app.playback.position;
  REQUIRE(apply_shortcut(app, *find_shortcut(ShortcutKey::right, false, false), help));
  CHECK(app.playback.position > start);
  REQUIRE(apply_shortcut(app, *find_shortcut(ShortcutKey::left, false, false), help));
  CHECK(app.playback.position == start);
  // PageDown lands on a phase flip.
  REQUIRE(apply_shortcut(app, *find_shortcut(ShortcutKey::page_down, false, false), help));
  CHECK(app.kernel->trace().events[app.playback.position].kind == EventKind::mbar_phase_flip);
  // Shift+PageDown lands on the step's next guided stop, with its sentence in the state.
  REQUIRE(apply_shortcut(app, *find_shortcut(ShortcutKey::page_down, false, true), help));
  const nlohmann::json stop = describe_transport(app)["stop"];
  REQUIRE(stop.is_object());
  CHECK(stop["at"] == true);
  CHECK(stop["event"] == app.playback.position);
  CHECK_FALSE(stop["sentence"].get<std::string>().empty());
  apply_shortcut(app, *find_shortcut(ShortcutKey::end, false, false), help);
  CHECK(app.playback.position == app.event_count() - 1);
  CHECK_FALSE(app.step(StepUnit::instruction, true));
  // Playing from the end starts over.
  apply_shortcut(app, *find_shortcut(ShortcutKey::space, false, false), help);
  CHECK(app.playback.playing);
  CHECK(app.playback.position == start);
  apply_shortcut(app, *find_shortcut(ShortcutKey::f1, false, false), help);
  CHECK(help);
  apply_shortcut(app, *find_shortcut(ShortcutKey::home, false, false), help);
  CHECK_FALSE(app.playback.playing);
  CHECK(app.playback.position == start);
}

TEST_CASE("transport: events in words", "[gui]") {
  AppState app = test::hopper_app();
  const LoadedKernel& k = *app.kernel;
  const model::Trace& t = k.trace();
  // The first TMA completion: a 64x64 bf16 box is 64 * 64 * 2 bytes, on the only barrier.
  REQUIRE_FALSE(t.of_kind(EventKind::tma_complete).empty());
  const uint32_t done = t.of_kind(EventKind::tma_complete).front();
  app.seek(done);
  const TransportInfo info = transport_info(app);
  CHECK(info.event_text.find(std::to_string(64 * 64 * 2) + " B") != std::string::npos);
  CHECK(info.event_text.find("completes on full") != std::string::npos);  // its declared name
  // The first blocked wait names the parity the warp waits for (0 on a fresh barrier).
  const uint32_t blocked = t.of_kind(EventKind::mbar_wait_blocked).front();
  app.seek(blocked);
  const std::string text = transport_info(app).event_text;
  CHECK(text.find("warp " + std::to_string(t.events[blocked].warp)) == 0);
  CHECK(text.find("parity 0") != std::string::npos);
  // A warp-instruction names its PTX.
  const uint32_t first = t.of_kind(EventKind::warp_inst).front();
  CHECK(describe_event(k, first).find(k.inst_text[t.events[first].inst]) != std::string::npos);
  const nlohmann::json j = describe_transport(app);
  CHECK(j["position"] == blocked);
  CHECK(j["current_event_kind"] == "mbar_wait_blocked");
  CHECK(j["k_iterations"] == 4);
}

TEST_CASE("transport: simt_naive has a loop and a position", "[gui]") {
  AppState app;
  app.open_now({.kernel_id = "simt_naive", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const TransportInfo info = transport_info(app);
  CHECK(info.events == app.kernel->trace().events.size());
  // simt_naive's K loop (b.loop over K) runs K times, one FMA per k.
  REQUIRE(info.has_k_loop);
  CHECK(info.k_iterations == app.kernel->request.shape.k);
}

TEST_CASE("transport: only the loops a kernel declares over K count as K iterations", "[gui]") {
  // A persistent shape: a plain loop over tiles around a K loop, and a K loop of its own after.
  builder::Builder b("loops", ir::Arch::sm_80);
  b.loop("tile", 3, [&](const builder::Reg&) { b.k_loop("kb", 4, [&](const builder::Reg&) { b.bar_sync(0); }); });
  b.k_loop("kb_again", 2, [&](const builder::Reg&) { b.bar_sync(0); });
  b.ret();
  const ir::Kernel k = b.finish();
  std::vector<std::string> declared;
  for (const ir::LabelInfo& l : k.labels)
    if (l.k_loop) declared.push_back(l.name);
  CHECK(declared == std::vector<std::string>{"L_kb", "L_kb_again"});
  const std::vector<LoopInfo> loops = find_k_loops(k);
  REQUIRE(loops.size() == 2);
  CHECK(loops[0].head < loops[0].branch);
  CHECK(loops[0].branch < loops[1].head);
  // The head is the body's first instruction (the bar.sync), the branch the loop's backward bra.
  CHECK(k.insts[loops[0].head].op == ir::Op::bar_sync);
  CHECK(k.insts[loops[1].branch].op == ir::Op::bra);
}

TEST_CASE("transport: a cluster's warps are named as the Warps view names them", "[gui]") {
  // Step 22 traces a CTA pair of 6 warps each: trace warp 6 is rank 1's warp 0, "1.0" in the
  // Warps view, so the transport says "warp 1.0", never "warp 6".
  AppState app;
  app.open_now({.kernel_id = "blackwell_2sm", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const model::Trace& t = app.kernel->trace();
  REQUIRE(t.ctas.size() == 2);
  const uint16_t w = uint16_t(t.warps_per_cta);  // rank 1, warp 0
  uint32_t event = kNone;
  for (uint32_t e = 0; e < t.events.size() && event == kNone; ++e)
    if (t.events[e].warp == w && t.events[e].kind == model::EventKind::warp_inst) event = e;
  REQUIRE(event != kNone);
  app.select_warp(w);
  app.seek(event);
  const nlohmann::json j = describe_transport(app);
  const std::string label = warp_label(t, w);
  CHECK(label == "1.0");
  CHECK_THAT(j["current_event_text"].get<std::string>(), Catch::Matchers::StartsWith("warp 1.0 issued"));
  if (app.kernel->k_warp(w) == w) CHECK_THAT(j["k_text"].get<std::string>(), Catch::Matchers::EndsWith("(warp 1.0)"));
  // The Warps view's rows carry the same label, and so do the TMA view's waiters.
  CHECK(describe_warps(app)["warps"][w]["label"] == label);
  const model::Trace& tr = app.kernel->trace();
  bool waiter = false;
  for (uint32_t e : tr.of_kind(model::EventKind::mbar_wait_blocked)) {
    if (tr.events[e].warp < tr.warps_per_cta) continue;
    app.seek(e);
    const TmaPipeline p = tma_pipeline(*app.kernel, *app.snapshot());
    std::vector<BarrierView> barriers = p.other_barriers;
    for (const StageView& st : p.stages)
      for (const auto& b : {st.full, st.empty})
        if (b) barriers.push_back(*b);
    for (const BarrierView& b : barriers)
      for (const BarrierWaiter& x : b.waiters) {
        CHECK(x.label == warp_label(tr, x.warp));
        waiter = waiter || x.warp >= tr.warps_per_cta;
      }
    if (waiter) break;
  }
  CHECK(waiter);
}
