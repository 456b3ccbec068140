// The app asks before a long whole-grid run (AppState::request_model_run, run/run_time.hpp), a
// headless one is refused without --allow-long, and the views count a fast-forwarded CTA's
// K iterations and work in full (LoadedKernel::k_skips, the throughput's achieved figures).
#include <chrono>
#include <sstream>
#include <thread>

#include <catch2/catch.hpp>

#include "gui/app/startup.hpp"
#include "gui/core/app_state.hpp"
#include "gui/core/ladder_data.hpp"
#include "gui/core/throughput_data.hpp"
#include "gui/core/transport_data.hpp"
#include "tests/gui/headless.hpp"

using namespace gs;
using namespace gs::gui;

namespace {

void wait_for_jobs(AppState& app) {
  for (int i = 0; i < 6000 && app.busy(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    app.poll_jobs();
  }
  app.poll_jobs();
}

// A grid of 16384 CTAs each 128 K iterations long, and a limit it is far past on any CPU (the
// app's own, run::kLongRunSeconds, is two minutes: as the model gets faster, this grid comes
// nearer to it on a machine with many cores, so the tests set their own).
constexpr kernels::GemmShape kBig{8192, 8192, 8192};
constexpr double kLimit = 10.0;

}  // namespace

TEST_CASE("the whole-grid estimate scales the traced CTA's time by its skipped passes and the grid", "[gui][long-run]") {
  const run::SimReport r = run::run_sim({.kernel_id = "hopper_tma_wgmma_64", .shape = kBig, .only_traced_cta = true});
  REQUIRE_FALSE(r.result.trace.fast_forwards.empty());
  const run::RunEstimate e = run::estimate_whole_grid(r, r.seconds, 4);
  CHECK(e.ctas == 16384);
  CHECK(e.threads == 4);
  // Most of the CTA's 128 K iterations were fast-forwarded: the CTA in full takes longer than
  // the part that ran.
  CHECK(e.run_fraction < 0.5);
  CHECK(e.cta_seconds == Approx(r.seconds / e.run_fraction));
  CHECK(e.seconds == Approx(e.cta_seconds * 4096));
  CHECK(e.seconds > kLimit);
  CHECK(e.text().find("16384 CTAs") != std::string::npos);
  // Timed without recording, as the grid runs: the same fraction run and the same grid, from the
  // untraced run's own seconds (which run is faster is a speed figure, for bench/, not a test: on a
  // loaded CI machine the two runs' times cross).
  const run::RunEstimate timed = run::time_whole_grid({.kernel_id = "hopper_tma_wgmma_64", .shape = kBig}, 4, &r);
  CHECK(timed.run_fraction == Approx(e.run_fraction));
  CHECK(timed.ctas == e.ctas);
  CHECK(timed.cta_seconds > 0.0);
  CHECK(timed.seconds == Approx(timed.cta_seconds * 4096));
  CHECK(timed.seconds > kLimit);
  CHECK(run::expected_total_seconds(0, 10, 2.0, 4) == Approx(6.0));
  CHECK(run::expected_total_seconds(5, 10, 2.0, 4) == Approx(4.0));
}

TEST_CASE("a long whole-grid run waits for an answer; a short one starts at once", "[gui][long-run]") {
  AppState app;
  app.long_run_limit = kLimit;
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .shape = kBig, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const auto shown = app.kernel;
  app.request_model_run();
  // A job times the traced CTA (the one on screen is the request's) and asks: nothing else ran.
  CHECK(app.running_job(JobKind::model_run));
  wait_for_jobs(app);
  REQUIRE(app.long_run_question);
  CHECK(app.jobs.empty());
  CHECK(app.long_run_question->estimate.seconds > kLimit);
  CHECK(app.long_run_question->request.only_traced_cta == false);
  CHECK(app.long_run_question->text().find("would take about") != std::string::npos);
  CHECK(app.describe()["long_run_question"]["expected_seconds"].get<double>() > kLimit);
  CHECK(app.status.find("waiting for Run or Cancel") != std::string::npos);
  app.answer_long_run(false);
  CHECK_FALSE(app.long_run_question);
  CHECK(app.jobs.empty());
  CHECK(app.kernel == shown);
  CHECK(app.status.find("did not run the whole grid") != std::string::npos);

  // Run: the job starts (and is cancelled here: it would take minutes).
  app.request_model_run();
  wait_for_jobs(app);
  REQUIRE(app.long_run_question);
  app.answer_long_run(true);
  REQUIRE(app.running_job(JobKind::model_run));
  app.cancel_jobs();
  wait_for_jobs(app);
  CHECK(app.kernel == shown);

  // With no limit (gui --allow-long) nothing asks: the run starts after the estimate (cancelled
  // here once it is under way).
  app.long_run_limit = 0.0;
  app.request_model_run();
  for (int i = 0; i < 6000 && app.busy() && app.jobs.back()->fraction() < 0.0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  app.cancel_jobs();
  wait_for_jobs(app);
  CHECK_FALSE(app.long_run_question);
  CHECK(app.status.find("cancelled model run") != std::string::npos);

  // A small grid starts at once and ends judged.
  app.long_run_limit = kLimit;
  app.open_now({.kernel_id = "simt_naive", .only_traced_cta = true});
  app.request_model_run();
  CHECK_FALSE(app.long_run_question);
  CHECK(app.running_job(JobKind::model_run));
  wait_for_jobs(app);
  REQUIRE(app.kernel);
  CHECK(app.kernel->whole_grid());
}

TEST_CASE("a whole-grid request other than the kernel on screen is timed in its job too", "[gui][long-run]") {
  AppState app;
  app.long_run_limit = kLimit;
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const auto shown = app.kernel;
  app.request.shape = kBig;
  app.request_model_run();
  REQUIRE(app.running_job(JobKind::model_run));
  CHECK_FALSE(app.long_run_question);
  wait_for_jobs(app);
  REQUIRE(app.long_run_question);
  CHECK(app.long_run_question->estimate.ctas == 16384);
  CHECK(app.kernel == shown);  // nothing ran but the traced CTA, which is not shown
}

TEST_CASE("headless, a long whole-grid run is refused unless allowed", "[gui][long-run]") {
  std::ostringstream err;
  const run::SimRequest big{.kernel_id = "hopper_tma_wgmma_64", .shape = kBig, .only_traced_cta = false};
  CHECK(refuse_long_run(big, kLimit, err) == 2);
  CHECK(err.str().find("would take about") != std::string::npos);
  CHECK(err.str().find("--allow-long") != std::string::npos);
  std::ostringstream none;
  CHECK(refuse_long_run(big, 0.0, none) == 0);
  run::SimRequest one = big;
  one.only_traced_cta = true;
  CHECK(refuse_long_run(one, kLimit, none) == 0);
  CHECK(refuse_long_run({.kernel_id = "simt_naive", .only_traced_cta = false}, kLimit, none) == 0);
  CHECK(none.str().empty());
}

TEST_CASE("headless gui --whole-grid at a huge shape exits 2 and says why", "[gui][xvfb][long-run]") {
  if (!gs::gui::test::xvfb_or_skip()) return;
  const gs::gui::test::Headless h =
      // The naive kernel: 65536 CTAs, each 8192 K iterations of a warp's loads, at SIMT speed (the
      // tensor-core steps' whole grids have become fast enough to fit the app's two minutes on
      // a machine of many cores).
      gs::gui::test::run_headless("long-run", "--kernel simt_naive --m 8192 --n 8192 --k 8192 --whole-grid");
  INFO(h.output);
  CHECK(h.code == 2);
  CHECK(h.output.find("--allow-long") != std::string::npos);
}

TEST_CASE("a fast-forwarded CTA's K iterations and work are counted in full", "[gui][long-run]") {
  // A persistent CTA: fast-forward skips whole tiles (an outer loop) and K iterations.
  const run::SimRequest req{.kernel_id = "hopper_persistent", .shape = {4096, 4096, 4096}, .only_traced_cta = true};
  run::SimRequest full_req = req;
  full_req.fast_forward = false;
  AppState ff, full;
  ff.open_now(req);
  full.open_now(full_req);
  REQUIRE(ff.kernel);
  REQUIRE(full.kernel);
  REQUIRE_FALSE(ff.kernel->trace().fast_forwards.empty());
  REQUIRE(full.kernel->trace().fast_forwards.empty());

  const TransportInfo a = transport_info(ff), b = transport_info(full);
  REQUIRE(b.k_iterations > 0);
  CHECK(a.k_iterations == b.k_iterations);
  CHECK(a.k_fast_forwarded > 0);
  CHECK(a.k_fast_forwarded + ff.kernel->k_passes(a.k_warp) == a.k_iterations);
  CHECK(a.k_text.find("fast-forwarded") != std::string::npos);
  CHECK(b.k_text.find("fast-forwarded") == std::string::npos);
  // At the end every iteration is done, the skipped ones included.
  ff.seek(ff.event_count() - 1);
  CHECK(transport_info(ff).k_iteration == a.k_iterations);

  // The achieved figures are the whole CTA's: its FLOPs and TMA bytes as if nothing was skipped.
  const auto x = achieved_intensity(*ff.kernel), y = achieved_intensity(*full.kernel);
  REQUIRE(x);
  REQUIRE(y);
  CHECK(x->extrapolated);
  CHECK_FALSE(y->extrapolated);
  CHECK(x->flops == Approx(y->flops));
  CHECK(double(x->tma_bytes) == Approx(double(y->tma_bytes)).epsilon(0.02));

  // The warp-instruction count is not extrapolated, and says so.
  CHECK(run_summary(*ff.kernel).warp_instructions_scope.find("passes that ran only") != std::string::npos);
  CHECK(run_summary(*full.kernel).warp_instructions_scope == "traced CTA");
}
