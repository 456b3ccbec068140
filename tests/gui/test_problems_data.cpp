// The problems view's data: a deliberate mistake's hazard jumps to its instruction; filters,
// counts and clearing.
#include <catch2/catch.hpp>

#include <set>

#include "gui/core/problems_data.hpp"
#include "gui/core/view_data.hpp"
#include "tests/gui/gui_fixture.hpp"

using namespace gs;
using namespace gs::gui;

TEST_CASE("problems: wrong-expect-tx deadlocks and the problem jumps to its instruction", "[gui]") {
  AppState app;
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .mistakes = {"wrong-expect-tx"}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const auto it = std::find_if(app.problems.begin(), app.problems.end(), [](const Problem& p) { return p.kind == "deadlock"; });
  REQUIRE(it != app.problems.end());
  const uint32_t index = uint32_t(it - app.problems.begin());
  const Problem p = *it;
  CHECK(p.source == "model");
  REQUIRE(p.inst != kNone);
  // The barrier never completes its phase: the warps are stuck on the wait.
  CHECK(app.kernel->kernel().insts[p.inst].op == ir::Op::mbarrier_try_wait_parity);
  app.seek(0);
  app.select_problem(index);
  CHECK(app.selection.problem == index);
  CHECK(app.selection.inst == p.inst);
  const model::Event& e = app.kernel->trace().events[app.playback.position];
  CHECK(e.inst == p.inst);
  if (p.warp != kNoWarp) CHECK(app.selection.warp == p.warp);
  const nlohmann::json j = describe_problems(app);
  CHECK(j["count"] == app.problems.size());
  CHECK(j["items"][index]["line"] == app.kernel->line_of(p.inst));
  CHECK(app.kernel->ptx_lines[problem_line(app, p) - 1].find("mbarrier.try_wait") != std::string::npos);
}

TEST_CASE("problems: a parity not flipped is one entry that names the stale wait, not eight races", "[gui]") {
  // Step 13 with phase-not-flipped and a 2-stage ring: after the ring wraps the consumers wait
  // for parity 0 on a full barrier whose phase 1 is still in progress (they are back at stage 0
  // sooner than its boxes; with 4 stages the boxes land first and the wait never returns: a
  // deadlock, as on the H100); phase 0 (done long ago) lets the wait return, and every wgmma
  // after it reads the stage before the new boxes land.
  AppState app;
  app.open_now({.kernel_id = "hopper_producer_consumer",
                .mistakes = {"phase-not-flipped"},
                .params = {{"stages", 2}},
                .only_traced_cta = true});
  REQUIRE(app.kernel);
  const nlohmann::json j = describe_views(app)["problems"];
  // The wgmmas that read a stage too soon: one entry. The early releases can also let the producer
  // refill a stage whose load is still in flight (with the H100's TMA at the share of L2 a GEMM's
  // copies get, 2026-12-06): a race of its own, its own entry, naming the copy.
  std::vector<nlohmann::json> races;
  for (const auto& p : j["items"]) {
    if (p["kind"] != "tma-race") continue;
    const std::string t = p["title"];
    if (t.find("wgmma.mma_async") != std::string::npos) races.push_back(p);
    else CHECK_THAT(t, Catch::Matchers::Contains("cp.async.bulk.tensor"));
  }
  REQUIRE(races.size() == 1);  // grouped
  const nlohmann::json& r = races[0];
  const std::string title = r["title"], detail = r["detail"];
  INFO(title << "\n" << detail);
  CHECK_THAT(title, Catch::Matchers::StartsWith("tma-race ×"));  // several instructions, one entry
  CHECK_THAT(detail, Catch::Matchers::Contains("instructions show this"));
  CHECK_THAT(title, Catch::Matchers::Contains("wgmma.mma_async"));
  CHECK_THAT(title, !Catch::Matchers::Contains("%") && !Catch::Matchers::Contains("{"));  // the op, not its operands
  // What happened: the wait on the stage's full barrier asked for parity 0 during phase 1.
  CHECK_THAT(detail, Catch::Matchers::Contains("wrong parity"));
  CHECK_THAT(detail, Catch::Matchers::Contains("on full[0] asked for parity 0 while full[0] was in phase 1"));
  CHECK_THAT(detail, !Catch::Matchers::Contains("wait on the stage's mbarrier first"));
  // Where: the wait's line and where the parity register is written (never flipped).
  CHECK_THAT(detail, Catch::Matchers::Contains("hopper_parts.cpp:"));
  CHECK_THAT(detail, Catch::Matchers::Contains("nothing flips it"));
  // The mistake's own symptom text next to the hazards it caused.
  CHECK_THAT(detail, Catch::Matchers::Contains("Mistake phase-not-flipped is switched on"));
  CHECK_THAT(detail, Catch::Matchers::Contains("read the stage before the new boxes land"));
}

TEST_CASE("problems: filters, counts and clearing", "[gui]") {
  AppState app = test::hopper_app();
  REQUIRE(app.problems.empty());  // the correct kernel has no hazards
  app.add_problem({Severity::error, "gpu", "bench", "GPU bench failed", "ptxas log\nline 2"});
  app.add_problem({Severity::warning, "gpu", "bench", "no GPU", ""});
  app.add_problem({Severity::info, "app", "config", "settings created", ""});
  app.add_problem({Severity::error, "model", "deadlock", "deadlock", "", 3});
  const ProblemCounts c = count_problems(app.problems);
  CHECK(c.errors == 2);
  CHECK(c.warnings == 1);
  CHECK(c.infos == 1);
  CHECK(c.total() == 4);
  ProblemFilter f;
  CHECK(filtered_problems(app.problems, f).size() == 4);
  f.errors = false;
  CHECK(filtered_problems(app.problems, f) == std::vector<uint32_t>{1, 2});
  f = ProblemFilter{};
  f.source = "gpu";
  CHECK(filtered_problems(app.problems, f) == std::vector<uint32_t>{0, 1});
  CHECK(problem_sources(app.problems) == std::vector<std::string>{"app", "gpu", "model"});
  app.selection.problem = 1;
  CHECK(clear_non_model_problems(app) == 3);
  REQUIRE(app.problems.size() == 1);
  CHECK(app.problems[0].source == "model");
  CHECK(app.selection.problem == kNone);
  CHECK(problem_line(app, app.problems[0]) == app.kernel->line_of(3));
  CHECK(describe_problems(app)["errors"] == 1);
}

TEST_CASE("problems: a bad shape becomes an app problem, not a crash", "[gui]") {
  AppState app;
  app.open_now({.kernel_id = "simt_naive", .shape = {0, 0, 0}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .shape = {100, 64, 64}, .only_traced_cta = true});
  CHECK(app.kernel->request.kernel_id == "simt_naive");  // the old kernel stays on screen
  REQUIRE(app.problems.size() >= 1);
  CHECK(app.problems.back().source == "app");
  CHECK(app.problems.back().detail.find("M=100") != std::string::npos);
}

TEST_CASE("problems: an empty list after only opening says the run was not judged", "[gui]") {
  // wrong-swizzle computes a wrong C without a hazard: the traced CTA alone shows nothing.
  AppState app;
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .mistakes = {"wrong-swizzle"}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  REQUIRE(app.problems.empty());
  EmptyProblemsNote note = empty_problems_note(app);
  CHECK(note.headline.find("not judged") != std::string::npos);
  CHECK(note.headline.find("No problems") == std::string::npos);
  CHECK_FALSE(note.all_clear);
  CHECK(note.offer_model_run);
  CHECK(note.hint.find("wrong-swizzle") != std::string::npos);
  CHECK(note.hint.find("Run on model") != std::string::npos);
  CHECK(describe_problems(app)["empty_note"]["offer_model_run"] == true);

  // Switched off in the Ladder but not run yet: the note says so.
  app.request.mistakes.clear();
  note = empty_problems_note(app);
  CHECK(note.offer_model_run);
  CHECK(note.hint.find("switched off") != std::string::npos);

  // The whole grid of the correct kernel, judged: now "no problems" is true.
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = false});
  REQUIRE(app.kernel);
  REQUIRE(app.problems.empty());
  note = empty_problems_note(app);
  CHECK(note.all_clear);
  CHECK(note.headline.find("No problems") != std::string::npos);
  CHECK_FALSE(note.offer_model_run);

  // The same mistake judged is a problem, so no note at all.
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .mistakes = {"wrong-swizzle"}, .only_traced_cta = false});
  CHECK_FALSE(app.problems.empty());
  CHECK(describe_problems(app)["empty_note"].is_null());
}

TEST_CASE("problems: a performance mistake gets advice pointing at its instruction", "[gui]") {
  // swap-row-col computes the right C with no hazard, but each warp load touches 32 sectors
  // where 4 would do: advice, the third kind next to errors and warnings.
  const auto advice_of = [](std::set<std::string> mistakes) {
    AppState app;
    app.open_now({.kernel_id = "simt_coalesced", .shape = {64, 64, 64}, .mistakes = mistakes, .only_traced_cta = true});
    REQUIRE(app.kernel);
    std::vector<Problem> out;
    for (const Problem& p : app.problems)
      if (p.kind == "advice: uncoalesced global access") out.push_back(p);
    CHECK(count_problems(app.problems).errors == 0);
    return std::make_pair(out, app.kernel);
  };
  const auto [broken, k] = advice_of({"swap-row-col"});
  REQUIRE_FALSE(broken.empty());
  bool load = false;  // the swapped mapping strides B's loads (and C's stores) across rows
  for (const Problem& p : broken) {
    INFO(p.title << "\n" << p.detail);
    CHECK(p.severity == Severity::info);
    REQUIRE(p.inst != kNone);
    const std::string& inst = k->inst_text[p.inst];
    CHECK((inst.find("ld.global") != std::string::npos || inst.find("st.global") != std::string::npos));
    load = load || inst.find("ld.global") != std::string::npos;
    CHECK_THAT(p.detail, Catch::Matchers::Contains("32-byte sectors where"));
  }
  CHECK(load);
  // The coalesced kernel itself: no such advice.
  CHECK(advice_of({}).first.empty());
}
