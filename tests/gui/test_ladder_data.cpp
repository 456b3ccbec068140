// The ladder's data: shape checks come from the kernel's own rules, the grid from its build,
// and the run summary from the model's report.
#include <catch2/catch.hpp>

#include "gui/core/ladder_data.hpp"
#include "gui/core/view_data.hpp"
#include "tests/gui/gui_fixture.hpp"

using namespace gs;
using namespace gs::gui;

TEST_CASE("ladder: shape errors are the kernel's own messages", "[gui]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_tma_wgmma_64");
  CHECK(shape_error(info, info.example_shape).empty());
  CHECK(shape_error(info, {}).empty());  // 0s take the example shape
  const std::string bad_k = shape_error(info, {128, 128, 100});
  CHECK(bad_k.find("K=100") != std::string::npos);
  CHECK(bad_k.find("64") != std::string::npos);
  CHECK_FALSE(shape_error(info, {96, 128, 256}).empty());  // 96 is not a multiple of 64
  CHECK_FALSE(shape_error(info, {128, 128 * 1024, 256}).empty());  // past 65536
}

TEST_CASE("ladder: the grid and the CTA check follow the kernel's launch", "[gui]") {
  run::SimRequest r{.kernel_id = "hopper_tma_wgmma_64", .shape = {256, 128, 256}, .only_traced_cta = true};
  RequestCheck c = check_request(r);
  REQUIRE(c.ok());
  // 64x64 tiles: N/64 CTAs along x, M/64 along y (the step-05 build's convention).
  CHECK(c.grid[0] == 128 / 64);
  CHECK(c.grid[1] == 256 / 64);
  CHECK(c.grid[2] == 1);
  CHECK(c.threads == 128);
  r.cta = {1, 3, 0};
  CHECK(check_request(r).ok());
  r.cta = {2, 0, 0};
  CHECK(check_request(r).cta_error.find("outside the grid") != std::string::npos);
  r.cta = {0, 0, 0};
  r.mistakes = {"no-such-mistake"};
  CHECK_FALSE(check_request(r).mistake_error.empty());
  r.mistakes = {"wrong-expect-tx"};
  CHECK(check_request(r).ok());
  r.shape = {100, 128, 256};
  const RequestCheck bad = check_request(r);
  CHECK_FALSE(bad.ok());
  CHECK(bad.shape_error.find("M=100") != std::string::npos);

  // simt_naive: whatever its axis convention, the grid covers the output with its tiles.
  const kernels::KernelInfo& naive = kernels::kernel_or_throw("simt_naive");
  const RequestCheck n = check_request({.kernel_id = "simt_naive"});
  REQUIRE(n.ok());
  const uint32_t tiles = ((naive.example_shape.m + naive.tile.m - 1) / naive.tile.m) *
                         ((naive.example_shape.n + naive.tile.n - 1) / naive.tile.n);
  CHECK(n.grid[0] * n.grid[1] * n.grid[2] == tiles);
}

TEST_CASE("ladder: picking a kernel resets the edited request", "[gui]") {
  AppState app;
  app.request = {.kernel_id = "hopper_tma_wgmma_64", .shape = {64, 64, 4096}, .mistakes = {"wrong-swizzle"}, .cta = {0, 0, 0}};
  select_ladder_kernel(app, "simt_naive");
  const kernels::KernelInfo& naive = kernels::kernel_or_throw("simt_naive");
  CHECK(app.request.kernel_id == "simt_naive");
  CHECK(app.request.shape.k == naive.example_shape.k);
  CHECK(app.request.mistakes.empty());
  select_ladder_kernel(app, "not-a-kernel");  // ignored
  CHECK(app.request.kernel_id == "simt_naive");
  select_ladder_kernel(app, "hopper_tma_wgmma_64");
  set_mistake(app, "wrong-expect-tx", true);
  set_mistake(app, "skip-mbarrier-wait", true);
  set_mistake(app, "skip-mbarrier-wait", false);
  CHECK(app.request.mistakes == std::set<std::string>{"wrong-expect-tx"});
  CHECK(trace_request(app).only_traced_cta);
}

TEST_CASE("ladder: run summary of a traced-CTA open is not judged", "[gui]") {
  const auto& k = test::hopper_kernel();
  const RunSummary s = run_summary(*k);
  CHECK(s.verdict == Verdict::not_judged);
  CHECK_FALSE(s.whole_grid);
  // Only the traced CTA ran, so the run's warp-instructions are the trace's.
  CHECK(s.warp_instructions == k->trace().of_kind(model::EventKind::warp_inst).size());
  CHECK(s.traced_cycles > 0);
  CHECK(s.open_seconds > 0.0);

  AppState app = test::hopper_app();
  const nlohmann::json j = describe_ladder(app);
  CHECK(j["verdict"] == "not judged");
  CHECK(j["selected"] == "hopper_tma_wgmma_64");
  CHECK(j["kernels"].size() == kernels::all_kernels().size());
  CHECK(j["shape"]["k"] == 256);
}

TEST_CASE("ladder: a whole-grid model run of simt_naive is judged correct", "[gui]") {
  auto k = open_kernel({.kernel_id = "simt_naive", .only_traced_cta = false});
  const RunSummary s = run_summary(*k);
  CHECK(s.whole_grid);
  CHECK(s.verdict == Verdict::correct);
  CHECK(s.elements == uint64_t(k->request.shape.m) * k->request.shape.n);
  // The grid ran every CTA: more warp-instructions than the traced one alone.
  CHECK(s.warp_instructions > k->trace().of_kind(model::EventKind::warp_inst).size());
}

TEST_CASE("ladder: build parameters are edited, checked and reset with the kernel", "[gui][params]") {
  AppState app;
  select_ladder_kernel(app, "hopper_two_consumers");
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_two_consumers");
  const kernels::BuildParam& stages = kernels::require_param(info, "stages");
  set_param(app, stages, 2);
  CHECK(app.request.params == kernels::ParamValues{{"stages", 2}});
  CHECK(check_request(app.request).ok());
  set_param(app, stages, stages.default_value);  // the default is not written down
  CHECK(app.request.params.empty());
  app.request.params = {{"stages", 10}};
  const RequestCheck bad = check_request(app.request);
  CHECK_FALSE(bad.ok());
  CHECK_THAT(bad.param_error, Catch::Contains("stages=10") && Catch::Contains("choose one of 2, 3, 4, 5, 6, 7, 8, 9"));
  CHECK(describe_ladder(app)["param_error"] == bad.param_error);
  // A value of its own that the other parameters' values do not take: the kernel's reason.
  app.request.params = {{"stages", 5}};
  CHECK_THAT(check_request(app.request).param_error,
             Catch::Contains("5 stages × (16 KiB of A + 32 KiB of B) = 240 KiB of shared memory"));
  select_ladder_kernel(app, "simt_naive");
  CHECK(app.request.params.empty());
  // The checker's cache tells requests apart by their parameters too.
  RequestChecker checker;
  run::SimRequest r{.kernel_id = "hopper_two_consumers"};
  CHECK(checker.get(r).ok());
  r.params = {{"stages", 7}};
  CHECK_FALSE(checker.get(r).ok());
}
