// A small plot widget drawn on ImDrawList: line and bar series, linear and log10 axes, "nice"
// 1-2-5 ticks with labels, axis titles, a legend (click an entry to hide its series), a
// crosshair with the nearest point's values in a tooltip, and reference lines (horizontal,
// vertical, or y = k·x, the memory roof of a roofline).
//
// Retained, not immediate: a view fills a PlotSpec (cheap: a few vectors) and draws it with one
// call, because auto-ranging needs every series before the first pixel is placed.
//
//   plot::PlotSpec s;
//   s.x = {.title = "FLOP/byte", .scale = plot::Scale::log10};
//   s.y = {.title = "TFLOP/s", .scale = plot::Scale::log10};
//   s.series.push_back({.name = "<kernel id>", .xs = {1024}, .ys = {320.9}, .color = c});
//   s.refs.push_back({.kind = plot::RefKind::proportional, .value = 3.35, .label = "HBM 3.35 TB/s"});
//   plot::PlotHover h = plot::draw("roofline", {0, 300}, s);   // h.series / h.index: hovered point
//
// Hidden series live in ImGui's state storage under the plot's id, so callers keep no state.
// The geometry below (ticks, ranges, data <-> pixel, nearest point, legend hit-test) needs no
// ImGui context and is unit-tested (tests/gui/test_plot.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>

namespace gs::gui::plot {

enum class Scale : uint8_t { linear, log10 };

// ---------------------------------------------------------------- geometry (no ImGui context)

struct Range {
  double lo = 0.0, hi = 1.0;
};

struct Tick {
  double value = 0.0;
  std::string label;  // empty for minor ticks (log axes: 2..9 × 10^k)
  bool major = true;
};

// A 1, 2 or 5 × 10^k step close to span / target_count.
double nice_step(double span, int target_count);
// Ticks inside [lo, hi]. Linear: multiples of nice_step. Log10: every decade (labelled), with
// 2..9 minor ticks when few decades are shown; under two decades, 1-2-5 labels inside them.
// Log ranges with lo <= 0 are clamped to a positive range first.
std::vector<Tick> nice_ticks(Range r, Scale scale, int target_count = 6);
// Data range -> displayed range. Linear: padded and rounded outward to the tick step (0 kept
// when include_zero). Log10: rounded outward to whole decades, values <= 0 ignored. Empty or
// all-invalid input gives 0..1 (linear) or 1..10 (log10); a single value gets a span around it.
Range auto_range(const std::vector<double>& values, Scale scale, bool include_zero);
// "800", "0.25", "1e+06": short labels (step decides the decimals of linear ticks).
std::string format_tick(double value, double step);
// A value as shown in tooltips: 4 significant digits.
std::string format_value(double value);

// Maps data values of one axis to pixels. For a y axis pass p_lo = bottom, p_hi = top.
struct AxisMap {
  Range range;
  Scale scale = Scale::linear;
  float p_lo = 0.0f, p_hi = 1.0f;
  bool valid(double v) const { return std::isfinite(v) && (scale == Scale::linear || v > 0.0); }
  // nullopt for values the axis cannot show (<= 0 on a log axis, NaN, inf).
  std::optional<float> to_pixel(double v) const;
  double from_pixel(float p) const;
};

struct Rect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool contains(float x, float y) const { return x >= x0 && x < x1 && y >= y0 && y < y1; }
};

// Legend entries laid out in rows from the top-right corner of the plot area, right to left
// wrapping downwards: entry i gets a box of swatch + text_widths[i]. Pure, so hit-testing is
// testable.
std::vector<Rect> legend_layout(const std::vector<float>& text_widths, Rect area, float line_height, float swatch);
// The entry under (x, y), or -1.
int legend_hit(const std::vector<Rect>& boxes, float x, float y);

// The point nearest to (px, py) in pixels among points given in pixels; -1 when none is within
// max_dist.
int nearest_index(const std::vector<ImVec2>& pixels, float px, float py, float max_dist);

// The pixel span [a, b) of bar `rank` of `count` in the category band [lo, hi) (pixels):
// bars side by side, at most max_thick each, under a label line of label_h when horizontal.
void bar_pixels(float lo, float hi, int rank, int count, float label_h, float max_thick, bool horizontal, float& a,
                float& b);

// ---------------------------------------------------------------- what to draw

struct Axis {
  std::string title;
  Scale scale = Scale::linear;
  // Fixed bounds; NaN = from the data (auto_range).
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
  bool include_zero = true;         // linear auto range starts at 0
  std::vector<std::string> categories;  // non-empty: a category axis (bars), value i = categories[i]
  std::string unit;                 // appended to hover values ("TFLOP/s")
};

enum class SeriesKind : uint8_t { line, scatter, bars };
enum class Marker : uint8_t { none, circle, square, diamond, ring };

struct Series {
  std::string name;  // legend text; series with the same name share one legend entry
  SeriesKind kind = SeriesKind::line;
  std::vector<double> xs, ys;  // bars: xs are category indices (or positions), ys heights
  ImU32 color = IM_COL32(100, 160, 255, 255);
  Marker marker = Marker::circle;
  bool dashed = false;
  float thickness = 2.0f;
  std::vector<std::string> point_labels;  // optional text above each bar / next to each point
  bool draw_point_labels = true;          // false: the labels show only in the hover tooltip
  std::vector<ImU32> point_colors;        // optional colour per point (bars of different kernels)
  bool in_legend = true;
};

enum class RefKind : uint8_t { horizontal, vertical, proportional };

// A ceiling or guide: y = value, x = value, or y = value·x capped at cap (the memory roof).
struct RefLine {
  RefKind kind = RefKind::horizontal;
  double value = 0.0;
  double cap = std::numeric_limits<double>::infinity();
  std::string label;
  ImU32 color = IM_COL32(200, 200, 200, 200);
  bool dashed = true;
};

struct PlotSpec {
  Axis x, y;
  std::vector<Series> series;
  std::vector<RefLine> refs;
  bool legend = true;
  // More legend rows than this (0: no limit) fold the legend into one "N series" entry whose
  // tooltip lists them and whose popup shows and hides them.
  int legend_max_rows = 0;
  bool crosshair = true;
  bool include_refs_in_range = true;  // a horizontal ceiling widens the y range to show it
  std::string empty_text = "no data";
};

struct PlotHover {
  int series = -1;  // index into spec.series, -1 when nothing is hovered
  int index = -1;   // point index within that series
  bool clicked = false;
};

// The least height of a plot of horizontal bars whose value labels are drawn: each category's
// band holds its name's line (bar_pixels' label line) and every bar a text line thick, so a
// label, centred on its bar, never covers the name; 0 when the plot has no such bars.
float min_labelled_bars_height(const PlotSpec& spec, float line_h);

// Draws the plot as one item of `size` (0 or negative components fill the available space)
// and returns what the mouse is on.
PlotHover draw(const char* id, ImVec2 size, const PlotSpec& spec);

}  // namespace gs::gui::plot
