#include "gui/widgets/plot.hpp"

#include <algorithm>
#include <cstdio>

namespace gs::gui::plot {

// ---------------------------------------------------------------- geometry

double nice_step(double span, int target_count) {
  if (!(span > 0.0) || !std::isfinite(span)) return 1.0;
  const double raw = span / double(std::max(1, target_count));
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  // The thresholds sit at the geometric means of 1-2-5-10, so the step is the nearest nice one.
  const double nice = f < 1.42 ? 1.0 : f < 3.17 ? 2.0 : f < 7.08 ? 5.0 : 10.0;
  return nice * mag;
}

namespace {

// A log axis needs lo > 0: keep hi when it is positive and show a decade below it.
Range positive_range(Range r) {
  if (!(r.hi > 0.0) || !std::isfinite(r.hi)) return {1.0, 10.0};
  if (!(r.lo > 0.0) || !std::isfinite(r.lo)) r.lo = r.hi / 10.0;
  if (r.lo == r.hi) return {r.lo / 10.0, r.hi * 10.0};
  return r;
}

std::vector<Tick> linear_ticks(Range r, int target) {
  std::vector<Tick> out;
  const double lo = std::min(r.lo, r.hi), hi = std::max(r.lo, r.hi);
  if (!std::isfinite(lo) || !std::isfinite(hi)) return out;
  const double step = nice_step(hi - lo, target);
  const double eps = step * 1e-9;
  for (double i = std::ceil((lo - eps) / step); i * step <= hi + eps && out.size() < 200; i += 1.0) {
    double v = i * step;
    if (std::fabs(v) < eps) v = 0.0;  // no "-0"
    out.push_back({v, format_tick(v, step), true});
  }
  return out;
}

}  // namespace

std::vector<Tick> nice_ticks(Range r, Scale scale, int target_count) {
  if (scale == Scale::linear) return linear_ticks(r, target_count);
  r = positive_range(r);
  const double lo = std::min(r.lo, r.hi), hi = std::max(r.lo, r.hi);
  const double decades = std::log10(hi / lo);
  const double eps = 1e-9;
  std::vector<Tick> out;
  const int d0 = int(std::floor(std::log10(lo) + eps)), d1 = int(std::ceil(std::log10(hi) - eps));
  if (decades >= 2.0) {
    // Label every decade, or every k-th when there are many; minor 2..9 while they stay apart.
    const int labelled_every = std::max(1, int(std::ceil((d1 - d0) / double(std::max(2, target_count)))));
    const bool minors = (d1 - d0) <= 6;
    for (int d = d0; d <= d1; ++d) {
      const double base = std::pow(10.0, d);
      if (base >= lo * (1 - eps) && base <= hi * (1 + eps))
        out.push_back({base, d % labelled_every == 0 ? format_tick(base, base) : "", d % labelled_every == 0});
      if (minors)
        for (int m = 2; m <= 9; ++m) {
          const double v = m * base;
          if (v > lo && v < hi) out.push_back({v, "", false});
        }
    }
  } else {
    // Under two decades: 1, 2 and 5 of each decade labelled, the rest minor.
    for (int d = d0; d <= d1; ++d) {
      const double base = std::pow(10.0, d);
      for (int m = 1; m <= 9; ++m) {
        const double v = m * base;
        if (v < lo * (1 - eps) || v > hi * (1 + eps)) continue;
        const bool major = m == 1 || m == 2 || m == 5;
        out.push_back({v, major ? format_tick(v, base) : "", major});
      }
    }
    // A range inside one 1-2-5 gap (say 300..480): linear labels read better.
    const auto majors = std::count_if(out.begin(), out.end(), [](const Tick& t) { return t.major; });
    if (majors < 2) return linear_ticks({lo, hi}, target_count);
  }
  std::sort(out.begin(), out.end(), [](const Tick& a, const Tick& b) { return a.value < b.value; });
  return out;
}

Range auto_range(const std::vector<double>& values, Scale scale, bool include_zero) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : values) {
    if (!std::isfinite(v) || (scale == Scale::log10 && v <= 0.0)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (scale == Scale::log10) {
    if (!(lo <= hi)) return {1.0, 10.0};
    // Whole decades, with a little room so a point on a decade is not drawn on the frame.
    const double e0 = std::floor(std::log10(lo) - 0.02), e1 = std::ceil(std::log10(hi) + 0.02);
    return {std::pow(10.0, e0), std::pow(10.0, std::max(e1, e0 + 1))};
  }
  if (!(lo <= hi)) return {0.0, 1.0};
  if (include_zero) lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
  if (lo == hi) {
    const double d = lo == 0.0 ? 1.0 : std::fabs(lo) * 0.5;
    if (!(include_zero && lo == 0.0)) lo -= d;
    hi += d;
  }
  const double span = hi - lo;
  if (lo != 0.0) lo -= 0.05 * span;
  if (hi != 0.0) hi += 0.05 * span;
  const double step = nice_step(hi - lo, 6);
  return {std::floor(lo / step) * step, std::ceil(hi / step) * step};
}

std::string format_tick(double value, double step) {
  char buf[32];
  const double a = std::fabs(value);
  if (a != 0.0 && (a >= 1e5 || a < 1e-3)) {
    std::snprintf(buf, sizeof buf, "%.0e", value);
    return buf;
  }
  step = std::fabs(step);
  const int decimals = step > 0.0 && step < 1.0 ? std::min(6, int(std::ceil(-std::log10(step) - 1e-9))) : 0;
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string format_value(double value) {
  char buf[32];
  const double a = std::fabs(value);
  if (a != 0.0 && (a >= 1e6 || a < 1e-3))
    std::snprintf(buf, sizeof buf, "%.3e", value);
  else if (a >= 100.0)
    std::snprintf(buf, sizeof buf, "%.1f", value);
  else
    std::snprintf(buf, sizeof buf, "%.4g", value);
  return buf;
}

namespace {

double axis_f(double v, Scale s) { return s == Scale::log10 ? std::log10(v) : v; }

}  // namespace

std::optional<float> AxisMap::to_pixel(double v) const {
  if (!valid(v)) return std::nullopt;
  const Range r = scale == Scale::log10 ? positive_range(range) : range;
  const double f0 = axis_f(r.lo, scale), f1 = axis_f(r.hi, scale);
  const double t = f1 == f0 ? 0.5 : (axis_f(v, scale) - f0) / (f1 - f0);
  return float(double(p_lo) + (double(p_hi) - double(p_lo)) * t);
}

double AxisMap::from_pixel(float p) const {
  const Range r = scale == Scale::log10 ? positive_range(range) : range;
  const double f0 = axis_f(r.lo, scale), f1 = axis_f(r.hi, scale);
  const double t = p_hi == p_lo ? 0.0 : (double(p) - p_lo) / (double(p_hi) - p_lo);
  const double f = f0 + t * (f1 - f0);
  return scale == Scale::log10 ? std::pow(10.0, f) : f;
}

std::vector<Rect> legend_layout(const std::vector<float>& text_widths, Rect area, float line_height, float swatch) {
  std::vector<Rect> out;
  const float gap = 12.0f, pad = 4.0f;
  float x = area.x0, y = area.y0;
  for (float w : text_widths) {
    const float box_w = swatch + pad + w;
    if (x > area.x0 && x + box_w > area.x1) x = area.x0, y += line_height;  // wrap
    out.push_back({x, y, x + box_w, y + line_height});
    x += box_w + gap;
  }
  return out;
}

int legend_hit(const std::vector<Rect>& boxes, float x, float y) {
  for (size_t i = 0; i < boxes.size(); ++i)
    if (boxes[i].contains(x, y)) return int(i);
  return -1;
}

int nearest_index(const std::vector<ImVec2>& pixels, float px, float py, float max_dist) {
  int best = -1;
  float best_d2 = max_dist * max_dist;
  for (size_t i = 0; i < pixels.size(); ++i) {
    const float dx = pixels[i].x - px, dy = pixels[i].y - py;
    const float d2 = dx * dx + dy * dy;
    if (d2 <= best_d2) best_d2 = d2, best = int(i);
  }
  return best;
}

void bar_pixels(float lo, float hi, int rank, int count, float label_h, float max_thick, bool horizontal, float& a,
                float& b) {
  const float band = hi - lo;
  float use_lo = horizontal ? lo + label_h + 3.0f : lo + 0.1f * band;
  const float use_hi = horizontal ? hi - 3.0f : hi - 0.1f * band;
  if (use_hi - use_lo < 4.0f * float(count)) use_lo = lo + 0.1f * band;  // no room for the label
  const float gap = 2.0f;
  const float thick = std::max(1.0f, std::min((use_hi - use_lo - gap * float(count - 1)) / float(count), max_thick));
  const float group = thick * float(count) + gap * float(count - 1);
  const float start = horizontal ? use_lo : (lo + hi - group) / 2;
  a = start + float(rank) * (thick + gap);
  b = a + thick;
}

float min_labelled_bars_height(const PlotSpec& spec, float line_h) {
  if (spec.y.categories.empty()) return 0.0f;
  int bars = 0;
  bool labelled = false;
  for (const Series& s : spec.series)
    if (s.kind == SeriesKind::bars) {
      ++bars;
      labelled |= s.draw_point_labels && !s.point_labels.empty();
    }
  if (!labelled) return 0.0f;
  // bar_pixels' band: the name's line and 3 px, the bars a line each with 2 px between, 3 px.
  const float band = line_h + 3.0f + float(bars) * line_h + 2.0f * float(bars - 1) + 3.0f;
  // The header (y title and legend, two lines at most) and the bottom (ticks and x title).
  const float margins = 2.0f * line_h + 6.0f + 2.0f * line_h + 6.0f;
  return float(spec.y.categories.size()) * band + margins;
}

}  // namespace gs::gui::plot
