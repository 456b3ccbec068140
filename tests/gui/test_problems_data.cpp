// The problems view's data: a deliberate mistake's hazard jumps to its instruction; filters,
// counts and clearing.
#include <catch2/catch.hpp>

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
