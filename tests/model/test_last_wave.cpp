// The last, partial wave of a grid on the timing model (engine/model/timing.cpp, predict_gemm and
// busiest_sm_counts): how many CTAs its busiest SM runs and what that wave costs.
#include <catch2/catch.hpp>

#include <vector>

#include "engine/model/timing.hpp"

using namespace gs;

TEST_CASE("prediction: a last wave whose SMs hold fewer CTAs ends sooner when a unit of the SM bounds it",
          "[model][timing]") {
  // Four CTAs an SM (their shared memory lets no more in), a grid of a wave and a quarter: the
  // last wave's 132 CTAs take 132 of the 528 slots as they free, so its busiest SM runs more
  // than the even one (busiest_sm_counts), and the wave ends with it.
  model::timing::CtaCost cta;
  cta.threads = 128;
  cta.smem_bytes = 50000;
  cta.cycles = 1000;
  cta.smem_wavefronts = 1000;  // the L1's data path bounds it: a CTA alone is all data path
  const model::timing::Prediction p = model::timing::predict_gemm(cta, 5 * 132, 1e12);
  REQUIRE(p.resident == 4);
  REQUIRE(p.waves == 2);
  CHECK(p.last_wave_ctas == 132);
  const std::vector<double> most = model::timing::busiest_sm_counts(132, 4, 132);
  REQUIRE(most.size() == 5);
  double expected_most = 0;
  for (size_t k = 0; k < most.size(); ++k) expected_most += double(k) * most[k];
  CHECK(p.last_wave_busiest_ctas == Approx(expected_most));
  CHECK(p.cycles_per_wave == Approx(4000));                        // four CTAs' turns at the path
  CHECK(p.last_wave_cycles == Approx(1000 * expected_most));       // the busiest SM's CTAs' turns
  CHECK(p.last_wave_cycles > 1000 * 2);                            // more than the even spread's one CTA
  CHECK(p.seconds - p.launch_seconds == Approx((4000 + 1000 * expected_most) / p.clock_hz));
  // A CTA bound by its own latency takes about as long beside others as alone: the last wave is
  // its latency plus the other CTAs' turns at the path (in step), about as long as a full one.
  cta.cycles = 100000;
  const model::timing::Prediction q = model::timing::predict_gemm(cta, 5 * 132, 1e12);
  CHECK(q.cycles_per_wave == Approx(103000));
  CHECK(q.last_wave_cycles == Approx(100000 + 1000 * (expected_most - 1)));
  CHECK(q.parts.wave_quantization > 0.3);  // three quarters of the slots idle in the last wave
  // After two full waves the SMs' CTAs have drifted apart: the third wave's 132 keep the even
  // share, one an SM (Nsight Compute: step 09's 3.45 waves at 4096^3 end evenly).
  cta.cycles = 1000;
  const model::timing::Prediction t = model::timing::predict_gemm(cta, 9 * 132, 1e12);
  REQUIRE(t.waves == 3);
  CHECK(t.last_wave_busiest_ctas == Approx(1.0));
  CHECK(t.last_wave_cycles == Approx(1000));
}

TEST_CASE("prediction: the last wave's CTAs fill the slots that free first, not an even share of the SMs",
          "[model][timing]") {
  using model::timing::busiest_sm_counts;
  const auto mean = [](const std::vector<double>& most) {
    double sum = 0, m = 0;
    for (size_t k = 0; k < most.size(); ++k) sum += most[k], m += double(k) * most[k];
    CHECK(sum == Approx(1.0));
    return m;
  };
  // Step 08 at 4096x1024x8192 on an H200: 2048 CTAs, 12 an SM, 464 in the last wave. Nsight
  // Compute counted 0 to 7 of them an SM (sm__ctas_launched 12..19); an even spread gives 4.
  const double step08 = mean(busiest_sm_counts(132, 12, 464));
  CHECK(step08 > 7.0);
  CHECK(step08 < 8.5);
  // A full last wave fills every slot; one CTA runs alone; one SM takes all it can hold.
  CHECK(busiest_sm_counts(132, 12, 1584)[12] == Approx(1.0));
  CHECK(busiest_sm_counts(132, 12, 1)[1] == Approx(1.0));
  CHECK(busiest_sm_counts(1, 8, 5)[5] == Approx(1.0));
  // Never below the even spread, never above the slots an SM has.
  for (const uint64_t last : {1ull, 50ull, 132ull, 300ull, 1000ull, 1583ull}) {
    const double m = mean(busiest_sm_counts(132, 12, last));
    CHECK(m >= double((last + 131) / 132) - 1e-9);
    CHECK(m <= 12.0 + 1e-9);
  }
}
