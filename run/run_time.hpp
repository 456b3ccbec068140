// How long a model run takes: the whole grid's expected time before it starts (from a run of
// its traced CTA alone), the same figure from a run under way, the time left, and the limit
// past which the command line and the app ask before a whole-grid run.
//
//   run::RunEstimate e = run::time_whole_grid(whole_grid_request, model::grid_threads(0));
//   if (e.seconds > run::kLongRunSeconds) ...  // `sim` wants --allow-long; the app asks
//   run::duration_text(e.seconds);             // "3m 20s"
#pragma once

#include <cstdint>
#include <string>

#include "run/sim_job.hpp"

namespace gs::run {

// A whole-grid run expected to take longer than this is not started without asking
// (`sim --allow-long`, `gui --allow-long`, the app's question).
inline constexpr double kLongRunSeconds = 120.0;

// "45 s", "1m 05s", "2h 03m".
std::string duration_text(double seconds);

// The time left when `done` of `total` took `elapsed` seconds at a steady rate; negative when
// nothing is done yet.
double seconds_left(uint64_t done, uint64_t total, double elapsed);

// The whole run's time from a run under way: `done` of `total` units in `elapsed` seconds on
// `threads` threads. Before the first unit finishes each of the first `threads` has taken
// `elapsed` already, so the figure is then a lower bound.
double expected_total_seconds(uint64_t done, uint64_t total, double elapsed, uint32_t threads);

// The whole grid's model run, expected before it starts.
struct RunEstimate {
  double seconds = 0.0;      // the whole grid's model run
  double cta_seconds = 0.0;  // one CTA in full (its fast-forwarded passes counted)
  uint64_t ctas = 0;
  uint32_t threads = 1;
  double run_fraction = 1.0;  // of the traced CTA's modeled cycles, the part the model ran
  // "about 3m 20s (4096 CTAs at about 0.39 s each, on 2 threads)".
  std::string text() const;
};

// From a run of the traced CTA alone at the same request (SimRequest::only_traced_cta, with its
// trace) and `cta_model_seconds`, the model time of that run without recording (a whole grid
// records its traced CTA only; recording costs several times the time): that time per CTA of
// its cluster, scaled up by the passes fast-forward skipped (their modeled cycles against the
// CTA's), times the grid's CTAs over `threads`. The data and the reference C, made around the
// model run, are not in it.
RunEstimate estimate_whole_grid(const SimReport& traced_only, double cta_model_seconds, uint32_t threads);

// The same for the whole-grid request `whole`: runs its traced CTA alone without recording
// for the time, and with its trace too unless `traced_only` (that run) is given. Bounded, as
// opening a kernel is (fast-forward). Throws as run_sim does.
RunEstimate time_whole_grid(const SimRequest& whole, uint32_t threads, const SimReport* traced_only = nullptr);

}  // namespace gs::run
