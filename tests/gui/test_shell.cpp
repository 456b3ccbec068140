// The shell's own state, without a window: the View menu's choice of views and the jobs it
// finds by kind; and, headless, that a picture shows no hover.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "gui/app/shell.hpp"
#include "tests/gui/headless.hpp"

using namespace gs::gui;

TEST_CASE("after --view ladder --view source the View menu ticks those two and a click adds one",
          "[gui][shell]") {
  AppState app;
  app.settings = Settings::defaults();
  Shell shell(app, Fonts{}, 1.0f);
  shell.set_views({ViewId::ladder, ViewId::source}, false);
  // The menu ticks what is on screen (Shell::shown), not the saved show flags.
  CHECK(shell.shown_view_names() == std::vector<std::string>{"ladder", "source"});
  // One click on PTX shows PTX next to them, not every view the settings have on.
  shell.toggle_view(ViewId::ptx, true);
  CHECK(shell.shown_view_names() == std::vector<std::string>{"ladder", "ptx", "source"});
  shell.toggle_view(ViewId::ladder, false);
  CHECK(shell.shown_view_names() == std::vector<std::string>{"ptx", "source"});
}

TEST_CASE("the focus layout shows the step's lesson, ladder and focus views; a View click leaves it",
          "[gui][shell][focus]") {
  AppState app;
  app.settings = Settings::defaults();
  REQUIRE(app.settings.focus_layout);
  app.open_now({.kernel_id = "simt_coalesced", .only_traced_cta = true});
  REQUIRE(app.kernel);
  Shell shell(app, Fonts{}, 1.0f);
  shell.set_views({}, false);
  // Step 02 names coalescing, diff and throughput (views.def's order here).
  CHECK(shell.shown_view_names() == std::vector<std::string>{"lesson", "ladder", "coalescing", "throughput", "diff"});
  const nlohmann::json layout = shell.describe_layout();
  CHECK(layout["focus"] == true);
  CHECK(layout["focus_views"] == nlohmann::json({"coalescing", "diff", "throughput"}));
  // The Diff view is closed at first in the settings, but a step that names it shows it.
  const auto& tabs = layout["tabs"];
  CHECK(std::find(tabs.begin(), tabs.end(), "ptx") != tabs.end());
  CHECK(std::find(tabs.begin(), tabs.end(), "coalescing") == tabs.end());
  CHECK(layout["not_used"].contains("tma"));
  CHECK(layout["not_used"].contains("tmem"));
  // A click in the View menu makes the windows on screen the hand-picked set, plus the one clicked.
  shell.toggle_view(ViewId::ptx, true);
  CHECK_FALSE(app.settings.focus_layout);
  CHECK(shell.shown_view_names() ==
        std::vector<std::string>{"lesson", "ladder", "ptx", "coalescing", "throughput", "diff"});
  CHECK(shell.describe_layout()["tabs"].empty());
}

TEST_CASE("jobs are found and cancelled by kind, not by name", "[gui][jobs]") {
  AppState app;
  app.request_open({.kernel_id = "simt_naive", .only_traced_cta = true});
  REQUIRE(app.jobs.size() == 1);
  CHECK(app.jobs[0]->kind() == JobKind::open);
  CHECK(app.running_job(JobKind::model_run) == nullptr);
  CHECK(app.running_job(JobKind::gpu_bench) == nullptr);
  // Cancelling another kind leaves the open alone; a whole-grid run supersedes it.
  app.cancel_jobs(JobKind::gpu_bench);
  CHECK_FALSE(app.jobs[0]->cancel_requested());
  app.request_model_run();
  REQUIRE(app.jobs.size() == 2);
  CHECK(app.jobs[0]->cancel_requested());
  CHECK(app.jobs[1]->kind() == JobKind::model_run);
  CHECK_FALSE(app.jobs[1]->cancel_requested());
  for (int i = 0; i < 3000 && app.busy(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    app.poll_jobs();
  }
  app.poll_jobs();
  REQUIRE(app.kernel);
  CHECK(app.kernel->whole_grid());
}

TEST_CASE("a headless picture shows no hover, wherever the X server's pointer is", "[gui][xvfb]") {
  if (!gs::gui::test::xvfb_or_skip()) return;
  // Xvfb starts its pointer in the middle of the screen: (960, 600), inside this window.
  const auto h = gs::gui::test::run_headless("no-hover", "--kernel simt_naive --size 1600x1000 --view throughput",
                                             "1920x1200");
  INFO(h.output);
  REQUIRE(h.code == 0);
  CHECK(h.state["window"]["pointer"].is_null());
}
