// The Compare view's data: variants named on the command line (and the errors that name what
// would be valid), the defaults beside the kernel on screen, and comparisons of two steps, one
// step with two parameter sets and a step with and without a mistake: each side's figures come
// from its own run, the diff has the right side, the verdict follows the two predictions, and
// both timelines share one axis. Small shapes: the predictions are made at 512³, not 4096³.
#include <chrono>
#include <thread>

#include <catch2/catch.hpp>

#include "run/sim_job.hpp"

#include "gui/core/compare_data.hpp"
#include "tests/gui/gui_fixture.hpp"

using namespace gs;
using namespace gs::gui;
using Catch::Matchers::Contains;

namespace {

constexpr kernels::GemmShape kSmallPrediction{512, 512, 512};

CompareData compare(const run::KernelVariant& a, const run::KernelVariant& b, kernels::GemmShape shape = {}) {
  CompareInputs in;
  in.a = a;
  in.b = b;
  in.shape = shape;
  in.prediction_shape = kSmallPrediction;
  return compute_compare(in);
}

std::vector<std::string> changed(const run::TextDiff& d, run::DiffKind kind) {
  std::vector<std::string> out;
  for (const run::DiffRow& r : d.rows)
    if (r.kind == kind) out.push_back(kind == run::DiffKind::removed ? d.left[size_t(r.left)] : d.right[size_t(r.right)]);
  return out;
}

// Both timelines on one axis: A's lanes first, then B's, every segment inside [0, end_ps], and
// the axis ends where the longer of the two ends.
void check_one_axis(const CompareData& d) {
  REQUIRE(d.a.ok());
  REQUIRE(d.b.ok());
  CHECK(d.lanes_a == std::min(d.a.warps, kCompareWarps));
  CHECK(d.lanes.size() == d.lanes_a + std::min(d.b.warps, kCompareWarps));
  uint64_t end_a = 0, end_b = 0;
  for (size_t i = 0; i < d.lanes.size(); ++i) {
    CHECK(d.lanes[i].label.starts_with(i < d.lanes_a ? "A " : "B "));
    for (const TimelineSegment& g : d.lanes[i].segments) {
      CHECK(g.begin <= g.end);
      (i < d.lanes_a ? end_a : end_b) = std::max(i < d.lanes_a ? end_a : end_b, g.end);
    }
  }
  CHECK(end_a > 0);
  CHECK(end_b > 0);
  CHECK(d.end_ps == std::max(end_a, end_b));
  // Each side's lanes end by its own traced cycles at its own clock: at its last warp's exit,
  // before whatever drains after it.
  const double a_ps = double(d.a.cycles) * 1e12 / d.a.clock_hz, b_ps = double(d.b.cycles) * 1e12 / d.b.clock_hz;
  CHECK(double(end_a) <= a_ps * 1.001);
  CHECK(double(end_a) >= a_ps * 0.8);
  CHECK(double(end_b) <= b_ps * 1.001);
  CHECK(double(end_b) >= b_ps * 0.8);
}

// The verdict is the two predictions' ratio, and the line says which is faster and what binds each.
void check_verdict(const CompareData& d) {
  REQUIRE(d.a.predicted);
  REQUIRE(d.b.predicted);
  CHECK(d.why.speedup == Approx(d.a.prediction.seconds / d.b.prediction.seconds));
  CHECK(d.b.predicted_tflops / d.a.predicted_tflops == Approx(d.why.speedup).epsilon(0.01));
  const double r = d.why.speedup;
  CHECK_THAT(d.bought, Contains(std::abs(r - 1.0) < 0.01 ? "as fast as" : r > 1.0 ? "faster" : "slower"));
  const std::string ba = d.a.prediction.parts.bound, bb = d.b.prediction.parts.bound;
  CHECK_THAT(d.bought, Contains(ba) && Contains(bb));
  if (ba != bb) CHECK_THAT(d.bought, Contains("A is bound by " + ba + ", B by " + bb));
  // The breakdown marks the part the prediction names.
  for (const CompareSide* s : {&d.a, &d.b}) {
    size_t bound = 0;
    for (const PredictionPart& p : s->parts) bound += p.bound && p.name == s->prediction.parts.bound;
    CHECK(bound == 1);
  }
}

}  // namespace

TEST_CASE("compare: a variant is ID[:NAME=V,...][+MISTAKE], and a bad one names what is valid", "[gui][compare]") {
  const run::KernelVariant v = parse_variant("hopper_producer_consumer:stages=2+skip-empty-wait");
  CHECK(v.id == "hopper_producer_consumer");
  CHECK(v.params == kernels::ParamValues{{"stages", 2}});
  CHECK(v.mistakes == std::set<std::string>{"skip-empty-wait"});
  CHECK(variant_text(v) == "hopper_producer_consumer:stages=2+skip-empty-wait");
  CHECK(parse_variant(variant_text(v)).params == v.params);
  CHECK(parse_variant("simt_vectorized").params.empty());

  CHECK_THROWS_WITH(parse_variant("nope"), Contains("nope") && Contains("simt_naive"));
  CHECK_THROWS_WITH(parse_variant("hopper_producer_consumer:stages=10"), Contains("stages=10") && Contains("2, 3, 4, 5, 6, 7, 8, 9"));
  // A value the step takes, but not with the default tile N: the kernel's reason.
  CHECK_THROWS_WITH(parse_variant("hopper_producer_consumer:stages=9"), Contains("at bn=128 take stages 2..7"));
  CHECK_THROWS_WITH(parse_variant("hopper_producer_consumer:stages=two"), Contains("two") && Contains("2, 3, 4, 5, 6"));
  CHECK_THROWS_WITH(parse_variant("hopper_producer_consumer:depth=2"), Contains("depth") && Contains("stages"));
  CHECK_THROWS_WITH(parse_variant("hopper_producer_consumer:stages"), Contains("NAME=VALUE"));
  CHECK_THROWS_WITH(parse_variant("hopper_producer_consumer+nope"), Contains("nope") && Contains("skip-empty-wait"));
  CHECK_THROWS_AS(parse_variant(":stages=2"), kernels::ConfigError);
}

TEST_CASE("compare: B is the kernel on screen, A what it came from (before -> after)", "[gui][compare]") {
  AppState app = test::hopper_app();
  const run::KernelVariant b = default_variant_b(app);
  CHECK(b.id == "hopper_tma_wgmma_64");
  const run::KernelVariant a = default_variant_a(b);
  CHECK(a.id == "ampere_ldmatrix");
  CHECK(a.params.empty());
  CHECK(a.mistakes.empty());
  // A mistake on screen: against the same build without it.
  const run::KernelVariant broken = default_variant_a({"hopper_producer_consumer", {{"stages", 2}}, {"skip-empty-wait"}});
  CHECK(broken.id == "hopper_producer_consumer");
  CHECK(broken.params == kernels::ParamValues{{"stages", 2}});
  CHECK(broken.mistakes.empty());
  // A build that sets parameters: against the step as it ships; one that sets only defaults is the step.
  const run::KernelVariant shipped = default_variant_a({"hopper_producer_consumer", {{"stages", 2}}, {}});
  CHECK(shipped.id == "hopper_producer_consumer");
  CHECK(shipped.params.empty());
  const uint32_t stages = kernels::require_param(*kernels::find_kernel("hopper_producer_consumer"), "stages").default_value;
  CHECK(default_variant_a({"hopper_producer_consumer", {{"stages", stages}}, {}}).id == "hopper_tile_128");
  // The first step has no step before it: itself built otherwise.
  const kernels::KernelInfo& first = kernels::all_kernels().front();
  const run::KernelVariant other = default_variant_a({first.id, {}, {}});
  CHECK((other.id != first.id || !other.params.empty()));
  CHECK_NOTHROW(check_variant(other));
}

TEST_CASE("compare: two steps side by side", "[gui][compare]") {
  const CompareData d = compare({"simt_blocktile_2d", {}, {}}, {"simt_vectorized", {}, {}});
  INFO(d.a.error << d.b.error << d.diff_error);
  check_one_axis(d);
  check_verdict(d);
  // Each side's figures are its own run's.
  auto k = open_kernel({.kernel_id = "simt_vectorized", .shape = d.shape, .only_traced_cta = true});
  CHECK(d.b.cycles == k->report.result.stats.traced_cta_cycles);
  CHECK(d.b.traced.traced_cost.warp_instructions == k->report.result.stats.traced_cost.warp_instructions);
  CHECK(d.b.traced.smem_wavefronts == k->report.result.stats.smem_wavefronts);
  // The prediction is `sim --traced-cta-only`'s at the prediction shape: the traced CTA alone, traced
  // (an untraced CTA is costed without its L1: another figure, which this view showed until 2026-12-03).
  const run::SimReport p = run::run_sim(
      {.kernel_id = "simt_vectorized", .shape = kSmallPrediction, .trace = true, .only_traced_cta = true});
  CHECK(d.b.predicted_tflops == Approx(p.result.stats.predicted_tflops).epsilon(1e-12));
  // What changed: the two step files, step 05 on the left.
  CHECK(d.diff_error.empty());
  CHECK(d.diff.source.left_title == "kernels/05_simt_blocktile_2d.cpp");
  CHECK(d.diff.source.right_title == "kernels/06_simt_vectorized.cpp");
  CHECK(run::count_changes(d.diff.source.rows).added > 0);
  CHECK_THAT(d.diff.summary, Contains(kernels::kernel_or_throw("simt_vectorized").delta));
}

TEST_CASE("compare: one step with two parameter sets", "[gui][compare]") {
  const CompareData d =
      compare({"hopper_producer_consumer", {{"stages", 2}}, {}}, {"hopper_producer_consumer", {{"stages", 4}}, {}});
  INFO(d.a.error << d.b.error << d.diff_error);
  check_one_axis(d);
  check_verdict(d);
  CHECK(d.a.name == "hopper_producer_consumer stages=2");
  // Two more stages of the ring: the shared-memory allocation grows by two stages, each as
  // large as either of A's two (the barriers are a few bytes beside them).
  const uint32_t smem_a = d.a.traced.traced_cost.smem_bytes, smem_b = d.b.traced.traced_cost.smem_bytes;
  REQUIRE(smem_b > smem_a);
  CHECK((smem_b - smem_a) / 2 == Approx(smem_a / 2).margin(1024));
  // The same kernel: its lanes are the same warps; twice the shared memory fits fewer CTAs on an SM.
  CHECK(d.a.warps == d.b.warps);
  CHECK(d.b.ctas_per_sm < d.a.ctas_per_sm);
  CHECK(d.b.occupancy_bound == "shared memory");
  CHECK(d.diff.summary == "stages 2 -> 4");
  CHECK(d.diff.source.left_title == "source lines run by hopper_producer_consumer stages=2");
  CHECK(run::count_changes(d.diff.ptx.rows).added > 0);
}

TEST_CASE("compare: a step with and without a mistake", "[gui][compare]") {
  const CompareData d = compare({"hopper_tma_wgmma_64", {}, {}}, {"hopper_tma_wgmma_64", {}, {"missing-init-fence"}});
  INFO(d.a.error << d.b.error << d.diff_error);
  check_one_axis(d);
  // The fence is in A's PTX and source lines and not in B's: removed on the left, nothing added.
  const std::vector<std::string> removed = changed(d.diff.ptx, run::DiffKind::removed);
  REQUIRE(removed.size() == 1);
  CHECK_THAT(removed[0], Contains("fence.mbarrier_init"));
  CHECK(changed(d.diff.ptx, run::DiffKind::added).empty());
  CHECK(d.diff.right_name == "hopper_tma_wgmma_64 + missing-init-fence");
  // The model finds the hazard in B only; the fence costs no time it could predict.
  CHECK(d.a.hazards == 0);
  CHECK(d.b.hazards > 0);
  REQUIRE(d.a.predicted);
  REQUIRE(d.b.predicted);
  CHECK(d.why.speedup == Approx(1.0).epsilon(0.01));
  CHECK_THAT(d.bought, Contains("as fast as"));
}

TEST_CASE("compare: two steps of other families, each bound by its own part", "[gui][compare]") {
  // A SIMT step and a Hopper one at a shape both take: the verdict names each one's bound.
  const CompareData d = compare({"simt_vectorized", {}, {}}, {"hopper_tma_wgmma_64", {}, {}});
  INFO(d.a.error << d.b.error << d.diff_error << d.shape_note);
  check_one_axis(d);
  check_verdict(d);
  CHECK(d.a.tensor_busy_share == 0.0);  // FFMA only
  CHECK(d.b.tensor_busy_share > 0.0);
  CHECK(d.b.traced.traced_cost.tma_bytes > 0);
  CHECK(d.a.traced.traced_cost.tma_bytes == 0);
}

TEST_CASE("compare: an unknown variant is an error of both sides, not a crash", "[gui][compare]") {
  const CompareData d = compare({"simt_vectorized", {}, {}}, {"hopper_producer_consumer", {{"stages", 99}}, {}});
  CHECK_FALSE(d.b.ok());
  CHECK_THAT(d.b.error, Contains("99"));
  CHECK(d.lanes.empty());
}

TEST_CASE("compare: the app's view runs as a job and describes what it shows", "[gui][compare]") {
  AppState app = test::hopper_app();
  app.compare_view.prediction_shape = kSmallPrediction;
  app.compare_view.b = run::KernelVariant{"hopper_tma_wgmma_64", {}, {"missing-init-fence"}};
  CHECK(request_compare(app) == nullptr);
  CHECK_FALSE(app.compare.pending.empty());
  CHECK(app.running_job(JobKind::compare) != nullptr);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!compare_current(app) && std::chrono::steady_clock::now() < until) {
    app.poll_jobs();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(compare_current(app));
  CHECK(app.compare.pending.empty());
  const nlohmann::json j = describe_compare(app);
  CHECK(j["current"] == true);
  CHECK(j["a"] == "hopper_tma_wgmma_64");
  CHECK(j["b"] == "hopper_tma_wgmma_64+missing-init-fence");
  CHECK(j["side_b"]["hazards"].get<int>() > 0);
  CHECK(j["diff"]["ptx"]["removed"] == 1);
  CHECK(j["lanes"].size() == app.compare.data->lanes.size());
  // Another choice: the data is no longer current until its job lands.
  app.compare_view.b = run::KernelVariant{"ampere_ldmatrix", {}, {}};
  CHECK_FALSE(compare_current(app));
  compare_now(app);
  CHECK(compare_current(app));
  CHECK(describe_compare(app)["side_b"]["name"] == "ampere_ldmatrix");
}
