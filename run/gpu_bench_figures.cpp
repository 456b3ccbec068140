// The figures of a bench result made from what its child measured (gpu_bench.hpp): the time
// summaries and spreads of the timed launches, and the held SM clock (BenchRequest::counted_clock):
// one clock-counting launch's records read as its warps' clock, and the timed rounds' clock from
// several such launches' cycles (CountedClock, HeldClock). The launches run in gpu_bench.cpp's
// child.
#include <algorithm>

#include <fmt/format.h>

#include "engine/model/timeline_decode.hpp"
#include "run/gpu_bench.hpp"

namespace gs::run {

double quantile_of_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return 0.0;
  const double at = q * double(v.size() - 1);
  const size_t lo = size_t(at);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - double(lo)) * (v[hi] - v[lo]);
}

Spread spread_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return {quantile_of_sorted(values, 0.5), quantile_of_sorted(values, 0.25), quantile_of_sorted(values, 0.75)};
}

TimingSummary summarize_times(std::vector<double> ms) {
  TimingSummary s;
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  s.reps = int(n);
  s.min_ms = ms.front();
  s.max_ms = ms.back();
  s.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  s.q1_ms = quantile_of_sorted(ms, 0.25);
  s.q3_ms = quantile_of_sorted(ms, 0.75);
  return s;
}

double tflops_of(kernels::GemmShape s, double ms) {
  if (!(ms > 0.0)) return 0.0;
  return 2.0 * double(s.m) * double(s.n) * double(s.k) / (ms * 1e-3) / 1e12;
}

HeldClock held_clock_of(const std::vector<CountedLaunch>& launches, double median_ms) {
  HeldClock h;
  std::vector<double> cycles, cost;
  for (const CountedLaunch& l : launches) {
    if (!l.mhz || !(l.ms > 0.0)) continue;
    h.launch_mhz.push_back(*l.mhz);
    cycles.push_back(l.ms * 1e-3 * *l.mhz * 1e6);
    if (l.plain_ms > 0.0) cost.push_back(l.ms / l.plain_ms);
  }
  if (cycles.empty()) {
    h.note = "not counted: no counting launch finished with a clock";
    return h;
  }
  h.overhead = cost.empty() ? 1.0 : spread_of(cost).median;
  h.cycles = spread_of(cycles).median / h.overhead;
  const Spread counted = spread_of(h.launch_mhz);
  if (!(median_ms > 0.0)) {
    // Nothing timed to hold the cycles against: the launches' own clock.
    h.mhz = counted.median;
    h.note = fmt::format("counted by the SMs in {} launches of the timeline-instrumented build: {:.0f} MHz (the median; "
                         "{:.0f}-{:.0f})",
                         h.launch_mhz.size(), counted.median, counted.q1, counted.q3);
    return h;
  }
  h.mhz = h.cycles / (median_ms * 1e-3) / 1e6;
  h.note = fmt::format(
      "the clock of the median timed launch: our kernel's {:.3f} M cycles over its {:.3f} ms. The cycles were counted "
      "right after the timed rounds by the SMs in {} launches of the timeline-instrumented build, each just after a "
      "plain launch (the warps' %clock64 over their %globaltimer: {:.0f} MHz, quartiles {:.0f}-{:.0f}), each "
      "launch's time x its clock, the median, over the instrumentation's cost ({:+.1f}%: its time over the plain "
      "launch's beside it). The clock moves between launches under a power cap, so one launch's count is not the "
      "rounds' clock; the cycles a launch takes hardly move with it",
      h.cycles / 1e6, median_ms, h.launch_mhz.size(), counted.median, counted.q1, counted.q3,
      100.0 * (h.overhead - 1.0));
  return h;
}

CountedClock counted_clock_of(const ir::Kernel& plain, const ir::TimelineLayout& layout,
                              const std::vector<uint8_t>& records, double launch_ms) {
  CountedClock c;
  try {
    const TimelineDoc doc = timeline_doc(plain, model::decode_timeline(plain, layout, records), "gpu");
    size_t warps = 0;
    for (const TimelineWarp& w : doc.warps) warps += w.finished && w.ns > 0 && w.cycles > 0;
    if (!(doc.clock_ghz > 0)) {
      c.note = "not counted: no recording warp finished with a clock";
      return c;
    }
    c.mhz = doc.clock_ghz * 1000.0;
    c.note = fmt::format(
        "counted by the SMs: the median over {} warps of CTAs {}-{} of each one's %clock64 over its %globaltimer, in "
        "one launch of the timeline-instrumented build ({:.3f} ms)",
        warps, layout.first_cta, layout.first_cta + layout.ctas - 1, launch_ms);
  } catch (const std::exception& e) {  // records that do not decode
    c.note = std::string("not counted: the records did not decode: ") + e.what();
  }
  return c;
}

}  // namespace gs::run
