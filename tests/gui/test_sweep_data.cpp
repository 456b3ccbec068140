// The Sweep view's data (gui/core/sweep_data.hpp): the choice follows the open kernel's declared
// parameters, a sweep's points become a grid (two parameters) or a line (one), a combination
// the kernel cannot build keeps its reason, the fastest is marked, Cancel keeps the finished
// points, and a cell opens its variant through the ladder's request. Step 05 at 256³: bm=32 with
// bn=32 is 16 threads and with bn=64 a row of B that 32 threads cannot copy at once, which the
// kernel refuses; bm=64 and 128 build with bn=32 and 64, each at another predicted speed.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <thread>

#include "gui/core/app_state.hpp"
#include "gui/core/sweep_data.hpp"

using namespace gs::gui;
using gs::kernels::ParamValues;

namespace {

constexpr gs::kernels::GemmShape kShape{256, 256, 256};

// An app whose edited request is step 05 (nothing opened: the choice follows the request), with
// the sweep bm {32, 64, 128} x bn {32, 64} at 256³.
void choose_bm_bn(AppState& app) {
  app.request.kernel_id = "simt_blocktile_2d";
  SweepChoice& c = sweep_choice(app);
  c.axes = {"bm", "bn"};
  c.values = {{"bm", {32, 64, 128}}, {"bn", {32, 64}}};
  c.shape = kShape;
}

const SweepCell& cell_at(const SweepData& d, size_t row, size_t col) {
  REQUIRE(row < d.rows);
  REQUIRE(col < d.cols);
  return d.cells[row * d.cols + col];
}

// Polls the app's jobs (as the frame loop does) until `done` or 60 s.
template <class Done>
bool poll_until(AppState& app, Done done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < until) {
    app.poll_jobs();
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

}  // namespace

TEST_CASE("sweep: the choice starts from the open kernel's parameters and refuses a third", "[gui][sweep]") {
  AppState app;
  app.request.kernel_id = "simt_warptile";
  SweepChoice& c = sweep_choice(app);
  CHECK(c.kernel_id == "simt_warptile");
  REQUIRE(c.axes == std::vector<std::string>{"bm", "bn"});  // the first two it declares
  CHECK(c.values["bm"] == std::vector<uint32_t>{64, 128, 256});
  const gs::kernels::KernelInfo& info = gs::kernels::kernel_or_throw("simt_warptile");
  CHECK_FALSE(set_sweep_axis(c, info, "tm", true));  // a heat map has two axes
  CHECK(set_sweep_axis(c, info, "bn", false));
  CHECK(set_sweep_axis(c, info, "tm", true));
  CHECK(c.axes == std::vector<std::string>{"bm", "tm"});
  CHECK(sweep_choice_problem(app, c).empty());
  // A value the kernel does not take is named with the valid ones; no values at all is refused.
  set_sweep_value(c, "tm", 5, true);
  const std::string why = sweep_choice_problem(app, c);
  CHECK_THAT(why, Catch::Contains("5"));
  CHECK_FALSE(start_sweep(app));
  CHECK(!app.running_job(JobKind::sweep));
  set_sweep_value(c, "tm", 5, false);
  for (uint32_t v : std::vector<uint32_t>(c.values["tm"])) set_sweep_value(c, "tm", v, false);
  CHECK(c.values["tm"].empty());
  CHECK_THAT(sweep_choice_problem(app, c), Catch::Contains("no values"));
  // Another kernel open: its own parameters; one without any says so.
  // A Hopper ring step: its tile N against the ring's depth, the pair a tuner turns together.
  app.request.kernel_id = "hopper_two_consumers";
  CHECK(sweep_choice(app).axes == std::vector<std::string>{"bn", "stages"});
  CHECK(sweep_choice(app).values["bn"] == std::vector<uint32_t>{64, 128, 192, 256});
  // Step 10: its CTA tile.
  app.request.kernel_id = "ampere_ldmatrix";
  CHECK(sweep_choice(app).axes == std::vector<std::string>{"bm", "bn"});
  app.request.kernel_id = "simt_naive";
  CHECK(sweep_choice(app).axes.empty());
  CHECK_THAT(sweep_data(app).note, Catch::Contains("no build parameters"));
}

TEST_CASE("sweep: two parameters make a grid with the invalid cells' reasons and the fastest marked", "[gui][sweep]") {
  AppState app;
  choose_bm_bn(app);
  REQUIRE(run_sweep_now(app));
  const SweepData d = sweep_data(app);
  REQUIRE(d.available);
  CHECK(d.rows == 3);
  CHECK(d.cols == 2);
  CHECK(d.done == 6);
  CHECK(d.total == 6);
  CHECK_FALSE(d.running);
  CHECK_FALSE(d.stopped);
  CHECK(d.shape.m == 256);
  // Rows are bm's values, columns bn's; bm=32's row cannot be built, each for the kernel's reason.
  const SweepCell& bad = cell_at(d, 0, 0);
  CHECK(bad.swept == ParamValues{{"bm", 32}, {"bn", 32}});
  CHECK(bad.state == SweepCellState::invalid);
  CHECK_THAT(bad.reason, Catch::Contains("16 threads"));
  CHECK(bad.predicted_shade < 0);
  CHECK(cell_at(d, 0, 1).state == SweepCellState::invalid);
  CHECK_THAT(cell_at(d, 0, 1).reason, Catch::Contains("bn = 64"));
  CHECK(d.invalid == 2);
  CHECK(cell_at(d, 2, 0).swept == ParamValues{{"bm", 128}, {"bn", 32}});
  // The fastest of the four that ran, found here from their figures.
  size_t fastest = 2;
  double lo = 1e300, hi = 0;
  for (size_t i = 2; i < 6; ++i) {
    const SweepCell& c = d.cells[i];
    REQUIRE(c.state == SweepCellState::done);
    CHECK(c.predicted > 0);
    CHECK(!c.bound.empty());
    CHECK(c.params.at("bk") == 8);  // the others at their defaults
    if (c.predicted > d.cells[fastest].predicted) fastest = i;
    lo = std::min(lo, c.predicted);
    hi = std::max(hi, c.predicted);
  }
  REQUIRE(hi > lo);  // they differ, so the colours and the mark mean something
  REQUIRE(d.best);
  CHECK(*d.best == fastest);
  CHECK(d.best_predicted == d.best);
  CHECK_FALSE(d.best_measured);  // nothing measured
  for (size_t i = 0; i < 6; ++i) CHECK(d.cells[i].best == (i == fastest));
  CHECK(d.cells[fastest].predicted_shade == Approx(1.0));
  CHECK(d.predicted_lo == Approx(lo));
  CHECK(d.predicted_hi == Approx(hi));
  CHECK_THAT(d.summary, Catch::Contains("6 of 6 points at 256x256x256"));
  CHECK_THAT(d.summary, Catch::Contains("2 cannot be built"));
  // The state JSON holds the same cells.
  const nlohmann::json j = describe_sweep(app);
  REQUIRE(j["run"]["cells"].size() == 6);
  CHECK(j["run"]["best"] == fastest);
  CHECK(j["run"]["cells"][0]["state"] == "invalid");
  CHECK(j["run"]["cells"][fastest]["predicted_tflops"].get<double>() == Approx(hi));
}

TEST_CASE("sweep: one parameter makes a line in the order of its values", "[gui][sweep]") {
  AppState app;
  app.request.kernel_id = "simt_blocktile_2d";
  SweepChoice& c = sweep_choice(app);
  c.axes = {"bk"};
  c.values = {{"bk", {8, 16}}};
  c.shape = kShape;
  REQUIRE(run_sweep_now(app));
  const SweepData d = sweep_data(app);
  CHECK(d.rows == 1);
  REQUIRE(d.cols == 2);
  CHECK(d.cells[0].swept == ParamValues{{"bk", 8}});
  CHECK(d.cells[1].swept == ParamValues{{"bk", 16}});
  CHECK(d.cells[1].col == 1);
  for (const SweepCell& cell : d.cells) CHECK(cell.state == SweepCellState::done);
  REQUIRE(d.best);
  CHECK(d.cells[*d.best].predicted == Approx(std::max(d.cells[0].predicted, d.cells[1].predicted)));
}

TEST_CASE("sweep: Cancel keeps the finished points", "[gui][sweep]") {
  AppState app;
  choose_bm_bn(app);
  // Stopped after three points, as Cancel stops it: the two invalid ones and bm=64 bn=32 stay.
  REQUIRE(run_sweep_now(app, 3));
  SweepData d = sweep_data(app);
  CHECK(d.stopped);
  CHECK(d.done == 3);
  CHECK(cell_at(d, 0, 0).state == SweepCellState::invalid);
  CHECK(cell_at(d, 0, 1).state == SweepCellState::invalid);
  CHECK(cell_at(d, 1, 0).state == SweepCellState::done);
  CHECK(cell_at(d, 1, 1).state == SweepCellState::pending);
  CHECK(cell_at(d, 2, 1).state == SweepCellState::pending);
  CHECK(d.best == std::optional<size_t>(2));
  CHECK_THAT(d.summary, Catch::Contains("cancelled"));

  // The job: its points arrive through the app's completions; Cancel ends it and keeps them.
  REQUIRE(start_sweep(app));
  CHECK(app.sweep.run->running);
  CHECK(app.sweep.run->points.empty());  // the new run starts empty
  REQUIRE(app.running_job(JobKind::sweep));
  REQUIRE(poll_until(app, [&] { return !app.sweep.run->points.empty(); }));
  const size_t seen = app.sweep.run->points.size();
  cancel_sweep(app);
  REQUIRE(poll_until(app, [&] { return !app.running_job(JobKind::sweep) && !app.sweep.run->running; }));
  app.poll_jobs();
  const SweepRun& run = *app.sweep.run;
  CHECK(run.points.size() >= seen);
  if (run.points.size() < run.total) CHECK(run.stopped);
  d = sweep_data(app);
  CHECK_FALSE(d.running);
  CHECK(d.done == run.points.size());
}

TEST_CASE("sweep: clicking a cell opens that variant through the ladder's request", "[gui][sweep]") {
  AppState app;
  choose_bm_bn(app);
  REQUIRE(run_sweep_now(app));
  const SweepData d = sweep_data(app);
  // A cell that cannot be built opens nothing.
  CHECK_FALSE(open_sweep_cell(app, d, cell_at(d, 0, 0)));
  CHECK(!app.running_job(JobKind::open));
  const SweepCell& cell = cell_at(d, 2, 0);  // bm=128 (the default) bn=32
  REQUIRE(open_sweep_cell(app, d, cell));
  CHECK(app.request.kernel_id == "simt_blocktile_2d");
  CHECK(app.request.params == ParamValues{{"bn", 32}});  // only what differs from the kernel as it ships
  CHECK(app.request.shape.m == 256);
  CHECK(app.request.shape.k == 256);
  CHECK(app.request.only_traced_cta);
  REQUIRE(app.running_job(JobKind::open));
  REQUIRE(poll_until(app, [&] { return !app.running_job(JobKind::open) && app.kernel != nullptr; }));
  REQUIRE(app.kernel);
  CHECK(app.kernel->request.kernel_id == "simt_blocktile_2d");
  CHECK(app.kernel->report.params == cell.params);
  // The sweep stays on screen with the variant open.
  CHECK(sweep_data(app).done == 6);
}

namespace {

// A point of a measured sweep as run_sweep returns it: the model's figure, and the GPU's run
// timed at `gpu_ms` a launch (0: the run failed) with cuBLAS at 1 ms in the same rounds.
gs::run::SweepPoint measured_point(uint32_t bm, uint32_t bn, double predicted, double gpu_ms) {
  gs::run::SweepPoint p;
  p.shape = kShape;
  p.swept = {{"bm", bm}, {"bn", bn}};
  p.params = gs::kernels::resolve_params(gs::kernels::kernel_or_throw("simt_blocktile_2d"), p.swept);
  p.predicted_tflops = predicted;
  p.bound = "latency";
  p.ctas_per_sm = 2;
  gs::run::BenchResult b;
  b.shape = kShape;
  if (gpu_ms > 0) {
    b.status = gs::run::GpuStatus::ok;
    b.checked = true;
    b.cmp.correct = true;
    b.kernel.median_ms = gpu_ms;
    b.kernel.reps = 5;
    b.cublas = gs::run::TimingSummary{.median_ms = 1.0, .reps = 5};
    b.paired_ratio = gs::run::Spread{1.0 / gpu_ms, 0.9 / gpu_ms, 1.1 / gpu_ms};
  } else {
    b.status = gs::run::GpuStatus::failed;
    b.error = "the launch timed out";
  }
  p.gpu = b;
  return p;
}

}  // namespace

TEST_CASE("sweep: measured on the GPU, the measured figures rank the cells beside the predicted", "[gui][sweep]") {
  SweepRun run;
  run.kernel_id = "simt_blocktile_2d";
  run.axes = {{"bm", {64, 128}}, {"bn", {32, 128}}};
  run.shape = kShape;
  run.predicted_on = "H100";
  run.gpu = true;
  run.total = 4;
  // The model ranks bm=128 bn=128 first; the GPU ranks bm=64 bn=128 first; one GPU run failed.
  run.points.push_back(measured_point(64, 128, 1.0, 0.5));
  run.points.push_back(measured_point(128, 32, 2.0, 0.0));
  run.points.push_back(measured_point(128, 128, 3.0, 2.0));
  const SweepData d = sweep_data(run);
  REQUIRE(d.measured);
  CHECK(d.done == 3);
  CHECK(d.best_predicted == std::optional<size_t>(3));
  CHECK(d.best_measured == std::optional<size_t>(1));
  CHECK(d.best == d.best_measured);  // ranked as `gemmscope sweep --gpu` ranks: measured
  CHECK(d.cells[1].best);
  CHECK_FALSE(d.cells[3].best);
  CHECK(d.cells[3].best_predicted);
  const double tflops = gs::run::tflops_of(kShape, 0.5);
  REQUIRE(d.cells[1].measured);
  CHECK(*d.cells[1].measured == Approx(tflops));
  REQUIRE(d.cells[1].vs_cublas);
  CHECK(d.cells[1].vs_cublas->median == Approx(2.0));
  CHECK(d.cells[1].measured_shade == Approx(1.0));
  CHECK(d.cells[3].measured_shade == Approx(0.0));
  // The failed GPU run: predicted, not measured, and the tooltip says why.
  CHECK(d.cells[2].state == SweepCellState::done);
  CHECK_FALSE(d.cells[2].measured);
  CHECK(d.cells[2].measured_shade < 0);
  CHECK_THAT(sweep_cell_text(d, d.cells[2]), Catch::Contains("not measured"));
  CHECK_THAT(sweep_cell_text(d, d.cells[1]), Catch::Contains("2.00x cuBLAS"));
  CHECK(d.cells[0].state == SweepCellState::pending);
  CHECK_THAT(d.summary, Catch::Contains("measured on this GPU"));
  CHECK_THAT(d.summary, Catch::Contains("fastest bm=64 bn=128"));
}

TEST_CASE("sweep: a sweep measured elsewhere shows measured beside predicted, at the size asked where the file has it",
          "[gui][sweep]") {
  const std::string path = std::string(GEMMSCOPE_SOURCE_DIR) + "/docs/results/2026-12-02-sweep/call1/sweep-step16.json";
  AppState app;
  app.request.kernel_id = "hopper_fewer_arrivals";
  sweep_choice(app).shape = {8192, 8192, 8192};
  REQUIRE(import_sweep_json(app, path) == 9);
  const SweepData d = sweep_data(app);
  REQUIRE(d.available);
  CHECK(d.kernel_id == "hopper_fewer_arrivals");
  CHECK(d.shape.m == 8192);
  CHECK(d.measured);
  CHECK(d.measured_on == "NVIDIA H200");
  CHECK(d.imported_from == path);
  CHECK(d.rows == 3);  // stages 2, 3, 4
  CHECK(d.cols == 3);  // order row, grouped, hilbert
  CHECK(d.done == 9);
  // Each cell's measured figure is the file's point of that size, and the fastest is the file's fastest.
  const gs::run::SweepResult file = gs::run::sweep_from_json(nlohmann::json::parse(std::ifstream(path)));
  double fastest = 0;
  for (const gs::run::SweepPoint& p : file.points) {
    if (p.shape.m != 8192) continue;
    const size_t r = p.swept.at("stages") - 2, c = p.swept.at("order");
    REQUIRE(cell_at(d, r, c).measured);
    CHECK(*cell_at(d, r, c).measured == Approx(*p.gpu_tflops()));
    CHECK(cell_at(d, r, c).predicted == Approx(p.predicted_tflops));
    fastest = std::max(fastest, *p.gpu_tflops());
  }
  REQUIRE(d.best);
  CHECK(*d.cells[*d.best].measured == Approx(fastest));
  CHECK_THAT(d.summary, Catch::Contains("measured on NVIDIA H200") && Catch::Contains("imported from"));
  CHECK(sweep_choice(app).axes == std::vector<std::string>{"stages", "order"});
  CHECK_FALSE(sweep_choice(app).gpu);
  // A size the file does not have: its first.
  sweep_choice(app).shape = {1024, 1024, 1024};
  REQUIRE(import_sweep_json(app, path) == 9);
  CHECK(sweep_data(app).shape.m == 4096);
}

TEST_CASE("sweep: a file that cannot be shown leaves the sweep as it was and says why", "[gui][sweep]") {
  AppState app;
  choose_bm_bn(app);
  REQUIRE(run_sweep_now(app));
  const size_t points = app.sweep.run->points.size();
  const size_t problems = app.problems.size();
  CHECK(import_sweep_json(app, "/nonexistent/sweep.json") == 0);
  CHECK(import_sweep_json(app, std::string(GEMMSCOPE_SOURCE_DIR) + "/docs/results/2026-12-02-sweep/call1/sweep-step07.json") == 0);
  REQUIRE(app.problems.size() == problems + 2);
  CHECK_THAT(app.problems.back().detail, Catch::Contains("3 parameters"));
  CHECK_THAT(app.problems[problems].detail, Catch::Contains("/nonexistent/sweep.json"));
  REQUIRE(app.sweep.run);
  CHECK(app.sweep.run->kernel_id == "simt_blocktile_2d");
  CHECK(app.sweep.run->points.size() == points);
  CHECK(app.sweep.run->imported_from.empty());
}
