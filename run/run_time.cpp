#include "run/run_time.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gs::run {

std::string duration_text(double seconds) {
  const uint64_t s = uint64_t(std::max(0.0, seconds) + 0.5);
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{}m {:02}s", s / 60, s % 60);
  return fmt::format("{}h {:02}m", s / 3600, s / 60 % 60);
}

double seconds_left(uint64_t done, uint64_t total, double elapsed) {
  if (done == 0) return -1.0;
  return elapsed * double(total - std::min(done, total)) / double(done);
}

double expected_total_seconds(uint64_t done, uint64_t total, double elapsed, uint32_t threads) {
  threads = std::max(1u, threads);
  return done > 0 ? elapsed * double(total) / double(done) : elapsed * double((total + threads - 1) / threads);
}

std::string RunEstimate::text() const {
  const std::string each =
      cta_seconds >= 0.1 ? fmt::format("{:.1f} s", cta_seconds) : fmt::format("{:.0f} ms", cta_seconds * 1e3);
  return fmt::format("about {} ({} CTA{} at about {} each, on {} thread{})", duration_text(seconds), ctas,
                     ctas == 1 ? "" : "s", each, threads, threads == 1 ? "" : "s");
}

RunEstimate estimate_whole_grid(const SimReport& traced_only, double cta_model_seconds, uint32_t threads) {
  RunEstimate e;
  e.threads = std::max(1u, threads);
  e.ctas = traced_only.kernel.launch.ctas();
  const model::Trace& t = traced_only.result.trace;
  const uint64_t cycles = traced_only.result.stats.traced_cta_cycles;
  // A warp's fast-forwards move its clock over disjoint stretches; the warp that skipped most
  // says how much of the CTA's time was not run.
  std::vector<uint64_t> skipped(std::max<size_t>(t.warps, 1), 0);
  for (const model::FastForward& f : t.fast_forwards)
    if (f.warp < skipped.size()) skipped[f.warp] += f.cycles;
  const uint64_t most = *std::max_element(skipped.begin(), skipped.end());
  if (cycles > 0 && most < cycles) e.run_fraction = double(cycles - most) / double(cycles);
  const double traced_ctas = double(std::max<size_t>(t.ctas.size(), 1));
  e.cta_seconds = cta_model_seconds / traced_ctas / e.run_fraction;
  const uint64_t waves = (e.ctas + e.threads - 1) / e.threads;
  e.seconds = e.cta_seconds * double(waves);
  return e;
}

RunEstimate time_whole_grid(const SimRequest& whole, uint32_t threads, const SimReport* traced_only) {
  SimRequest one = whole;
  one.only_traced_cta = true;
  one.progress = {};
  SimReport traced;
  if (!traced_only) {
    traced = run_sim(one);
    traced_only = &traced;
  }
  one.trace = false;
  const SimReport fast = run_sim(one);
  return estimate_whole_grid(*traced_only, fast.seconds, threads);
}

}  // namespace gs::run
