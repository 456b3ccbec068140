// Why one prediction is faster than another (engine/model/prediction_compare.hpp): each limit as a
// time for the whole GEMM, the speed-up from the two totals, the bound of each and the same part
// in the other, on hand-made predictions and on two real ones of the ladder.
#include <catch2/catch.hpp>

#include <string>

#include "engine/model/prediction_compare.hpp"
#include "run/sim_job.hpp"

using namespace gs;
using namespace gs::model::timing;
using Catch::Matchers::Contains;

namespace {

// A prediction of `waves` waves at `mhz` whose parts are the given cycles per wave: the bound and
// the seconds as predict_gemm makes them.
Prediction made(uint64_t waves, double mhz, Breakdown parts, double launch_us = 4.0, uint32_t resident = 1) {
  Prediction p;
  p.waves = waves;
  p.resident = resident;
  p.wave_ctas = 132ull * resident;
  p.clock_hz = mhz * 1e6;
  p.parts = parts;
  for (const PartRow& row : breakdown_rows(p.parts))
    if (row.cycles > p.cycles_per_wave) {
      p.cycles_per_wave = row.cycles;
      p.parts.bound = row.name;
    }
  p.last_wave_cycles = p.cycles_per_wave;  // whole waves
  p.launch_seconds = launch_us * 1e-6;
  p.seconds = double(waves) * p.cycles_per_wave / p.clock_hz + p.launch_seconds;
  return p;
}

bool has_line(const PredictionComparison& c, const std::string& text) {
  for (const std::string& l : c.lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("prediction comparison: each limit's time for the GEMM, the speed-up and both bounds",
          "[model][timing][compare]") {
  Breakdown slow{}, fast{};
  slow.cta_alone = 200'000;  // latency-bound: its warps wait for data
  slow.tensor = 120'000;
  slow.l2 = 90'000;
  fast.cta_alone = 130'000;
  fast.tensor = 150'000;  // tensor-bound: the latency is hidden now
  fast.l2 = 80'000;
  const Prediction a = made(4, 1700, slow), b = made(4, 1700, fast);
  REQUIRE(std::string(a.parts.bound) == "latency");
  REQUIRE(std::string(b.parts.bound) == "tensor cores");
  const PredictionComparison c = compare_predictions(a, "step_a", b, "step_b");
  CHECK(c.speedup == Approx(a.seconds / b.seconds));
  CHECK(c.speedup > 1.0);
  CHECK(std::string(c.bound_a) == "latency");
  CHECK(std::string(c.bound_b) == "tensor cores");
  REQUIRE(c.parts.size() == breakdown_rows(a.parts).size());
  for (const PartTimes& p : c.parts) {
    INFO(p.name);
    const auto cycles_of = [&](const Breakdown& br) {
      for (const PartRow& r : breakdown_rows(br))
        if (std::string(r.name) == p.name) return r.cycles;
      return -1.0;
    };
    CHECK(p.a == Approx(4 * cycles_of(slow) / 1.7e9));
    CHECK(p.b == Approx(4 * cycles_of(fast) / 1.7e9));
  }
  CHECK(c.launch_a == Approx(4e-6));
  CHECK_THAT(c.lines.front(), Contains("step_b is predicted") && Contains("faster than step_a"));
  CHECK(has_line(c, "step_a is bound by latency"));
  CHECK(has_line(c, "1.54x less"));  // 200k -> 130k cycles of latency
  CHECK(has_line(c, "step_b is bound by tensor cores instead"));
  // Its latency part is 130k of 150k: the next limit, named.
  CHECK(has_line(c, "step_b's next limit: latency"));
  // The same waves and clock: nothing said about them.
  CHECK_FALSE(has_line(c, "waves of"));
  CHECK_FALSE(has_line(c, "the clock"));
}

TEST_CASE("prediction comparison: waves, the clock and a slower kernel are said; no prediction, no comparison",
          "[model][timing][compare]") {
  Breakdown p{};
  p.tensor = 100'000;
  const Prediction a = made(4, 1700, p), b = made(8, 1650, p, 4.0, 2);
  const PredictionComparison c = compare_predictions(a, "one", b, "two");
  CHECK(c.speedup < 1.0);
  CHECK_THAT(c.lines.front(), Contains("slower than one"));
  CHECK(has_line(c, "one runs 4 waves of 132 CTAs (1 per SM), two 8 waves of 264 CTAs (2 per SM)"));
  CHECK(has_line(c, "the clock: 1700 MHz in one, 1650 MHz in two"));
  CHECK(has_line(c, "two is bound by tensor cores too"));
  const PredictionComparison none = compare_predictions(Prediction{}, "x", b, "two");
  CHECK(none.parts.empty());
  REQUIRE(none.lines.size() == 1);
  CHECK_THAT(none.lines[0], Contains("x has no prediction"));
}

TEST_CASE("prediction comparison: two neighbouring steps of the ladder, as the model predicts them",
          "[model][timing][compare][ladder]") {
  const auto predict = [](const std::string& id) {
    run::SimRequest r;
    r.kernel_id = id;
    r.shape = {1024, 1024, 1024};
    r.only_traced_cta = true;
    return run::run_sim(r).result.stats.prediction;
  };
  const Prediction one = predict("hopper_producer_consumer"), two = predict("hopper_two_consumers");
  const PredictionComparison c = compare_predictions(one, "13", two, "14");
  REQUIRE_FALSE(c.parts.empty());
  CHECK(c.speedup == Approx(one.seconds / two.seconds));
  // The binding part of each is its largest time, and the first line says which way it goes.
  const auto largest = [](const std::vector<PartTimes>& parts, bool of_a) {
    const PartTimes* best = &parts[0];
    for (const PartTimes& p : parts)
      if ((of_a ? p.a : p.b) > (of_a ? best->a : best->b)) best = &p;
    return std::string(best->name);
  };
  CHECK(largest(c.parts, true) == c.bound_a);
  CHECK(largest(c.parts, false) == c.bound_b);
  CHECK_THAT(c.lines.front(), Contains(c.speedup > 1.0 ? "faster" : "slower"));
}
