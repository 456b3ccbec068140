#include "engine/model/prediction_compare.hpp"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace gs::model::timing {

double part_seconds(const Prediction& p, double part_cycles) {
  // Over the waves, the last counted by its share of a full wave's cycles (Prediction::last_wave_cycles).
  const double last = p.cycles_per_wave > 0.0 && p.last_wave_cycles > 0.0 ? p.last_wave_cycles / p.cycles_per_wave : 1.0;
  const double waves = p.waves > 0 ? double(p.waves - 1) + last : 0.0;
  return p.clock_hz > 0.0 ? waves * part_cycles / p.clock_hz : 0.0;
}

namespace {

std::string us(double seconds) {
  const double v = seconds * 1e6;
  return v >= 100.0 ? fmt::format("{:.0f} us", v) : fmt::format("{:.1f} us", v);
}

// "2.1x less", "1.3x more", "the same" for a part that takes `from` and then `to`.
std::string change_words(double from, double to) {
  if (from <= 0.0 && to <= 0.0) return "nothing in either";
  if (to <= 0.0) return "nothing";
  if (from <= 0.0) return "time it did not take before";
  const double r = from / to;
  if (std::abs(r - 1.0) < 0.01) return "about the same";
  return r > 1.0 ? fmt::format("{:.2f}x less", r) : fmt::format("{:.2f}x more", 1.0 / r);
}

const PartTimes* part_named(const std::vector<PartTimes>& parts, const char* name) {
  for (const PartTimes& p : parts)
    if (std::strcmp(p.name, name) == 0) return &p;
  return nullptr;
}

std::string waves_words(const Prediction& p) {
  return fmt::format("{} wave{} of {} CTAs ({} per SM)", p.waves, p.waves == 1 ? "" : "s", p.wave_ctas, p.resident);
}

}  // namespace

PredictionComparison compare_predictions(const Prediction& a, const std::string& name_a, const Prediction& b,
                                         const std::string& name_b) {
  PredictionComparison c;
  if (a.waves == 0 || b.waves == 0 || a.seconds <= 0.0 || b.seconds <= 0.0) {
    c.lines.push_back(fmt::format("no comparison: {} has no prediction", a.waves == 0 ? name_a : name_b));
    return c;
  }
  c.speedup = a.seconds / b.seconds;
  c.bound_a = a.parts.bound;
  c.bound_b = b.parts.bound;
  c.launch_a = a.launch_seconds;
  c.launch_b = b.launch_seconds;
  const std::vector<PartRow> rows_a = breakdown_rows(a.parts), rows_b = breakdown_rows(b.parts);
  for (size_t i = 0; i < rows_a.size() && i < rows_b.size(); ++i)
    c.parts.push_back(
        {rows_a[i].name, part_seconds(a, rows_a[i].cycles), part_seconds(b, rows_b[i].cycles), rows_a[i].sm_unit});

  // The verdict.
  if (std::abs(c.speedup - 1.0) < 0.01)
    c.lines.push_back(fmt::format("{} is predicted as fast as {} ({} and {})", name_b, name_a, us(a.seconds),
                                  us(b.seconds)));
  else
    c.lines.push_back(fmt::format("{} is predicted {:.2f}x {} than {} ({} instead of {})", name_b,
                                  c.speedup > 1.0 ? c.speedup : 1.0 / c.speedup, c.speedup > 1.0 ? "faster" : "slower",
                                  name_a, us(b.seconds), us(a.seconds)));
  // a's bound, and the same part in b.
  const PartTimes* bound_a = part_named(c.parts, c.bound_a);
  const PartTimes* bound_b = part_named(c.parts, c.bound_b);
  if (bound_a)
    c.lines.push_back(fmt::format("{} is bound by {}: {} of its {}; in {} that part takes {} ({})", name_a, c.bound_a,
                                  us(bound_a->a), us(a.seconds), name_b, us(bound_a->b),
                                  change_words(bound_a->a, bound_a->b)));
  if (bound_b && bound_b != bound_a)
    c.lines.push_back(fmt::format("{} is bound by {} instead: {} (in {}: {})", name_b, c.bound_b, us(bound_b->b),
                                  name_a, us(bound_b->a)));
  else if (bound_b)
    c.lines.push_back(fmt::format("{} is bound by {} too", name_b, c.bound_b));
  // A latency bound is the CTA's own time: say how much of it its busiest unit inside the SM
  // fills in each, the rest being latency its warps do not hide (waits for data, barriers, the
  // epilogue).
  if (std::strcmp(c.bound_a, "latency") == 0 || std::strcmp(c.bound_b, "latency") == 0) {
    const auto busiest = [](const std::vector<PartTimes>& parts, bool of_a) {
      const PartTimes* best = nullptr;
      for (const PartTimes& p : parts)
        if (p.sm_unit && (!best || (of_a ? p.a > best->a : p.b > best->b))) best = &p;
      return best;
    };
    const PartTimes* lat = part_named(c.parts, "latency");
    const PartTimes* ua = busiest(c.parts, true);
    const PartTimes* ub = busiest(c.parts, false);
    if (lat && ua && ub && lat->a > 0.0 && lat->b > 0.0)
      c.lines.push_back(fmt::format("inside the SM the busiest unit is busy for {:.0f}% of {}'s latency part ({}) and "
                                    "{:.0f}% of {}'s ({}); the rest is latency the warps do not hide",
                                    100.0 * ua->a / lat->a, name_a, ua->name, 100.0 * ub->b / lat->b, name_b,
                                    ub->name));
  }
  // What would bind b next: its second largest part, when it is close.
  const PartTimes* next = nullptr;
  for (const PartTimes& p : c.parts)
    if (&p != bound_b && (!next || p.b > next->b)) next = &p;
  if (bound_b && next && next->b >= 0.8 * bound_b->b)
    c.lines.push_back(fmt::format("{}'s next limit: {} at {} ({:.0f}% of its bound)", name_b, next->name, us(next->b),
                                  100.0 * next->b / bound_b->b));
  // What else moved.
  if (a.waves != b.waves || a.resident != b.resident || a.wave_ctas != b.wave_ctas)
    c.lines.push_back(fmt::format("{} runs {}, {} {}", name_a, waves_words(a), name_b, waves_words(b)));
  if (std::abs(a.clock_hz - b.clock_hz) > 0.005 * a.clock_hz)
    c.lines.push_back(fmt::format("the clock: {:.0f} MHz in {}, {:.0f} MHz in {} (under the power limit the clock "
                                  "falls as a kernel keeps its tensor cores busier and moves more bytes through L2 "
                                  "and HBM)",
                                  a.clock_hz / 1e6, name_a, b.clock_hz / 1e6, name_b));
  // The waves' drift behind a TMA ring (wave_drift): the HBM bytes it adds, where they move.
  const auto drifted = [](const Prediction& p) { return p.drift.extra_bytes > 0.01 * p.drift.count_bytes; };
  if (drifted(a) || drifted(b)) {
    const auto drift_words = [](const Prediction& p, const std::string& name) {
      if (p.drift.k_period <= 0) return fmt::format("{}'s waves start together (no ring to drift behind)", name);
      return fmt::format("{} asks for a stage {:.0f} cycles ahead, {:.0f}% of its tiles without a late K block to "
                         "hold it back: {:.2f} GB from HBM more than its waves' {:.2f}",
                         name, p.drift.lead, 100.0 * p.drift.free_share, p.drift.extra_bytes / 1e9,
                         p.drift.count_bytes / 1e9);
    };
    c.lines.push_back(fmt::format("the waves drift apart: {}; {}", drift_words(a, name_a), drift_words(b, name_b)));
  }
  const double launch_share = std::max(a.launch_seconds / a.seconds, b.launch_seconds / b.seconds);
  if (launch_share >= 0.05)
    c.lines.push_back(fmt::format("the launch: {} of {}'s time, {} of {}'s", us(a.launch_seconds), name_a,
                                  us(b.launch_seconds), name_b));
  return c;
}

}  // namespace gs::model::timing
