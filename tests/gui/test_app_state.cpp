// The shared state every view reads: the cursor's snapshot, jobs off the UI thread, settings.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "gui/core/app_state.hpp"

using namespace gs::gui;
using gs::model::EventKind;

TEST_CASE("on a warp-instruction the snapshot includes what that instruction did in its cycle", "[gui]") {
  AppState app;
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .mistakes = {"wrong-expect-tx"}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const auto& t = app.kernel->trace();
  // The first try_wait that blocks: the warp_inst just before its mbar_wait_blocked event.
  const auto& blocked = t.of_kind(EventKind::mbar_wait_blocked);
  REQUIRE(!blocked.empty());
  const uint32_t b = blocked.front();
  uint32_t issue = b;
  while (issue > 0 && !(t.events[issue].kind == EventKind::warp_inst && t.events[issue].warp == t.events[b].warp)) --issue;
  REQUIRE(t.events[issue].cycle == t.events[b].cycle);
  const uint16_t warp = t.events[b].warp;

  app.playback.unit = StepUnit::instruction;
  app.seek(issue);
  const Snapshot* s = app.snapshot();
  REQUIRE(s);
  CHECK(s->warps[warp].activity == WarpActivity::waiting_mbarrier);
  CHECK(s->warps[warp].parity == t.mbar[t.events[b].payload].value);

  // Stepping by event shows the issue alone: the wait has not been recorded yet.
  app.playback.unit = StepUnit::event;
  s = app.snapshot();
  CHECK(s->position == issue);
  CHECK(s->warps[warp].activity == WarpActivity::ready);
}

TEST_CASE("opening as a job never blocks, and its result replaces the kernel on the UI thread", "[gui]") {
  AppState app;
  app.request_open({.kernel_id = "simt_naive", .only_traced_cta = true});
  CHECK(app.kernel == nullptr);  // nothing changes until poll_jobs applies the completion
  for (int i = 0; i < 600 && (app.busy() || !app.kernel); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    app.poll_jobs();
  }
  REQUIRE(app.kernel);
  CHECK(app.kernel->request.kernel_id == "simt_naive");
  CHECK(app.jobs.empty());

  // A bad request becomes a problem and leaves the loaded kernel alone.
  app.request_open({.kernel_id = "hopper_tma_wgmma_64", .shape = {100, 64, 64}, .only_traced_cta = true});
  for (int i = 0; i < 600 && app.busy(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    app.poll_jobs();
  }
  app.poll_jobs();
  CHECK(app.kernel->request.kernel_id == "simt_naive");
  REQUIRE(!app.problems.empty());
  CHECK(app.problems.back().detail.find("100") != std::string::npos);
}

TEST_CASE("settings survive a save and a load, and a damaged file falls back with a warning", "[gui]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gemmscope-settings-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  Settings s = Settings::defaults();
  s.theme = Theme::light;
  s.show[size_t(ViewId::tma_pipeline)] = false;
  s.last_kernel = "simt_naive";
  s.last_k = 4096;
  REQUIRE(s.focus_layout);  // new users get the focus layout
  s.focus_layout = false;   // View > All views, remembered
  std::string error;
  REQUIRE(save_settings(s, dir.string(), &error));
  std::string warnings;
  const Settings back = load_settings(dir.string(), &warnings);
  CHECK(warnings.empty());
  CHECK(back.theme == Theme::light);
  CHECK_FALSE(back.show[size_t(ViewId::tma_pipeline)]);
  CHECK(back.show[size_t(ViewId::ptx)]);
  CHECK(back.last_kernel == "simt_naive");
  CHECK(back.last_k == 4096);
  CHECK_FALSE(back.focus_layout);

  std::ofstream(dir / "settings.json") << "{ not json";
  warnings.clear();
  const Settings damaged = load_settings(dir.string(), &warnings);
  CHECK(warnings.find("not valid JSON") != std::string::npos);
  CHECK(damaged.theme == Theme::dark);

  std::ofstream(dir / "settings.json") << R"({"theme": "purple", "bench_reps": 5, "focus_layout": "yes"})";
  warnings.clear();
  const Settings partly = load_settings(dir.string(), &warnings);
  CHECK(warnings.find("theme") != std::string::npos);
  CHECK(warnings.find("'focus_layout' should be true or false") != std::string::npos);
  CHECK(partly.focus_layout);
  CHECK(partly.bench_reps == 5);
  fs::remove_all(dir);
}

TEST_CASE("cancelling a model run says so in the status line and keeps the kernel on screen", "[gui]") {
  AppState app;
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const auto shown = app.kernel;
  REQUIRE(app.status.rfind("opened", 0) == 0);
  // A grid large enough that the run is still going when the cancel arrives.
  app.request.shape = {2048, 2048, 1024};
  app.request_model_run();
  app.cancel_jobs();
  for (int i = 0; i < 3000 && app.busy(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    app.poll_jobs();
  }
  app.poll_jobs();
  REQUIRE_FALSE(app.busy());
  INFO(app.status);
  CHECK(app.kernel == shown);
  CHECK(app.status.find("cancelled model run hopper_tma_wgmma_64 2048x2048x1024") != std::string::npos);
  CHECK(app.status.find("still showing hopper_tma_wgmma_64 128x128x256") != std::string::npos);
  CHECK(app.status.find("not judged") != std::string::npos);

  // An open superseded by a newer one leaves the status to the newer one.
  app.request_open({.kernel_id = "hopper_tma_wgmma_64", .shape = {2048, 2048, 1024}, .only_traced_cta = true});
  app.request_open({.kernel_id = "simt_naive", .only_traced_cta = true});
  for (int i = 0; i < 3000 && (app.busy() || app.kernel == shown); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    app.poll_jobs();
  }
  app.poll_jobs();
  CHECK(app.kernel->request.kernel_id == "simt_naive");
  CHECK(app.status.rfind("opened simt_naive", 0) == 0);
}
