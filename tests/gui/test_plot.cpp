// Tests for the plot widget's geometry (gui/widgets/plot.hpp): nice 1-2-5 ticks, ranges,
// data <-> pixel mapping on linear and log axes, legend layout and hit-testing, nearest point.
// None of it needs an ImGui context.
#include <catch2/catch.hpp>

#include <cmath>

#include "gui/widgets/plot.hpp"

using namespace gs::gui::plot;

namespace {

std::vector<double> values_of(const std::vector<Tick>& ticks, bool major_only = true) {
  std::vector<double> out;
  for (const Tick& t : ticks)
    if (t.major || !major_only) out.push_back(t.value);
  return out;
}

bool is_1_2_5_step(double step) {
  const double mag = std::pow(10.0, std::floor(std::log10(step) + 1e-12));
  const double f = step / mag;
  return std::fabs(f - 1) < 1e-9 || std::fabs(f - 2) < 1e-9 || std::fabs(f - 5) < 1e-9;
}

}  // namespace

TEST_CASE("nice steps are 1, 2 or 5 times a power of ten", "[gui]") {
  for (double span : {0.003, 0.7, 1.0, 7.3, 42.0, 758.0, 1234.5, 9.9e6})
    for (int target : {3, 5, 6, 10}) {
      const double s = nice_step(span, target);
      INFO("span " << span << " target " << target << " step " << s);
      CHECK(is_1_2_5_step(s));
      // Within a factor of ~2.5 of the asked-for spacing either way.
      CHECK(s <= 2.5 * span / target);
      CHECK(s >= span / target / 2.5);
    }
  CHECK(nice_step(0.0, 5) == 1.0);  // degenerate spans do not divide by zero
  CHECK(nice_step(-3.0, 5) == 1.0);
}

TEST_CASE("linear ticks of 0..758 after auto-ranging end at 800", "[gui]") {
  const Range r = auto_range({0.0, 320.9, 758.0}, Scale::linear, true);
  CHECK(r.lo == 0.0);
  CHECK(r.hi == 800.0);
  const std::vector<Tick> t = nice_ticks(r, Scale::linear, 6);
  const std::vector<double> v = values_of(t);
  REQUIRE(v.size() >= 5);
  CHECK(v.front() == 0.0);
  CHECK(v.back() == Approx(800.0));
  const double step = v[1] - v[0];
  CHECK((step == Approx(100.0) || step == Approx(200.0)));
  for (size_t i = 1; i < v.size(); ++i) CHECK(v[i] - v[i - 1] == Approx(step));
  CHECK(t.front().label == "0");
  CHECK(t.back().label == "800");
  // Ticks stay inside the range asked for; decimals follow the step.
  const std::vector<Tick> small = nice_ticks({0.12, 0.5}, Scale::linear, 4);
  for (const Tick& k : small) CHECK((k.value >= 0.12 - 1e-12 && k.value <= 0.5 + 1e-12));
  CHECK(small.front().label == "0.2");
}

TEST_CASE("log ticks of 1..1000 are the decades", "[gui]") {
  const std::vector<Tick> t = nice_ticks({1.0, 1000.0}, Scale::log10, 6);
  const std::vector<double> v = values_of(t);
  REQUIRE(v.size() == 4);
  CHECK(v[0] == Approx(1.0));
  CHECK(v[1] == Approx(10.0));
  CHECK(v[2] == Approx(100.0));
  CHECK(v[3] == Approx(1000.0));
  // Minor ticks 2..9 in each decade, unlabelled.
  const std::vector<double> all = values_of(t, false);
  CHECK(all.size() == 4 + 3 * 8);
  for (const Tick& k : t)
    if (!k.major) CHECK(k.label.empty());
  // Under two decades: 1-2-5 labels.
  const std::vector<double> narrow = values_of(nice_ticks({100.0, 1000.0}, Scale::log10, 6));
  CHECK(narrow == std::vector<double>{100.0, 200.0, 500.0, 1000.0});
  // A range inside one 1-2-5 gap still gets labelled ticks.
  CHECK(values_of(nice_ticks({300.0, 480.0}, Scale::log10, 5)).size() >= 2);
}

TEST_CASE("log axes reject values <= 0 without failing", "[gui]") {
  const AxisMap m{{1.0, 1000.0}, Scale::log10, 0.0f, 300.0f};
  CHECK_FALSE(m.to_pixel(0.0));
  CHECK_FALSE(m.to_pixel(-5.0));
  CHECK_FALSE(m.to_pixel(std::nan("")));
  CHECK(m.to_pixel(10.0));
  // Auto range ignores them; all-invalid data gives a default decade.
  const Range r = auto_range({-1.0, 0.0, 5.0, 300.0}, Scale::log10, true);
  CHECK(r.lo == Approx(1.0));
  CHECK(r.hi == Approx(1000.0));
  const Range d = auto_range({-1.0, 0.0}, Scale::log10, true);
  CHECK(d.lo == 1.0);
  CHECK(d.hi == 10.0);
  // A log axis given a range with lo <= 0 still maps positive values, monotonically.
  const AxisMap bad{{0.0, 100.0}, Scale::log10, 0.0f, 100.0f};
  REQUIRE(bad.to_pixel(50.0));
  CHECK(*bad.to_pixel(50.0) < *bad.to_pixel(100.0));
  CHECK(nice_ticks({-10.0, 0.0}, Scale::log10, 5).size() >= 2);
}

TEST_CASE("data to pixel is exact at the ends and monotone, both scales, both directions", "[gui]") {
  for (Scale s : {Scale::linear, Scale::log10}) {
    // A y axis: bottom pixel 400 for the low end, top 50 for the high end.
    const AxisMap y{{0.5, 2000.0}, s, 400.0f, 50.0f};
    CHECK(*y.to_pixel(0.5) == 400.0f);
    CHECK(*y.to_pixel(2000.0) == 50.0f);
    float prev = 1e9f;
    for (double v = 0.5; v <= 2000.0; v *= 1.37) {
      const float p = *y.to_pixel(v);
      CHECK(p < prev);  // higher values are higher up
      prev = p;
      CHECK(y.from_pixel(p) == Approx(v).epsilon(1e-4).margin(1e-3));  // the inverse (float pixels)
    }
  }
  // Log: equal ratios are equal distances; 10 lies halfway between 1 and 100.
  const AxisMap lg{{1.0, 100.0}, Scale::log10, 0.0f, 200.0f};
  CHECK(*lg.to_pixel(10.0) == Approx(100.0f));
  // Linear: midpoint.
  const AxisMap ln{{-50.0, 150.0}, Scale::linear, 10.0f, 210.0f};
  CHECK(*ln.to_pixel(50.0) == Approx(110.0f));
  // A reversed range (categories top to bottom) maps lo to p_lo.
  const AxisMap rev{{3.5, -0.5}, Scale::linear, 400.0f, 0.0f};
  CHECK(*rev.to_pixel(3.5) == 400.0f);
  CHECK(*rev.to_pixel(-0.5) == 0.0f);
  CHECK(*rev.to_pixel(0.0) < *rev.to_pixel(1.0));
}

TEST_CASE("auto ranges pad single values and keep zero for linear axes", "[gui]") {
  const Range one = auto_range({5.0}, Scale::linear, false);
  CHECK(one.lo < 5.0);
  CHECK(one.hi > 5.0);
  const Range empty = auto_range({}, Scale::linear, true);
  CHECK(empty.lo == 0.0);
  CHECK(empty.hi == 1.0);
  const Range neg = auto_range({-30.0, -10.0}, Scale::linear, true);
  CHECK(neg.lo <= -30.0);
  CHECK(neg.hi == 0.0);
  // A value on a decade is not drawn on the frame of a log plot.
  const Range dec = auto_range({10.0, 1000.0}, Scale::log10, false);
  CHECK(dec.lo < 10.0);
  CHECK(dec.hi > 1000.0);
}

TEST_CASE("legend layout wraps and hit-testing finds the entry", "[gui]") {
  const Rect area{100.0f, 0.0f, 300.0f, 20.0f};
  const std::vector<Rect> boxes = legend_layout({50.0f, 60.0f, 80.0f}, area, 20.0f, 20.0f);
  REQUIRE(boxes.size() == 3);
  // First row: entries 0 (20+4+50 = 74 wide) and 1 (84); entry 2 (104) does not fit: next row.
  CHECK(boxes[0].x0 == 100.0f);
  CHECK(boxes[0].x1 == Approx(174.0f));
  CHECK(boxes[1].y0 == 0.0f);
  CHECK(boxes[1].x0 > boxes[0].x1);
  CHECK(boxes[2].x0 == 100.0f);
  CHECK(boxes[2].y0 == 20.0f);
  for (const Rect& b : boxes) CHECK(b.x1 <= area.x1);
  CHECK(legend_hit(boxes, 120.0f, 10.0f) == 0);
  CHECK(legend_hit(boxes, boxes[1].x0 + 1.0f, 5.0f) == 1);
  CHECK(legend_hit(boxes, 150.0f, 30.0f) == 2);
  CHECK(legend_hit(boxes, 290.0f, 30.0f) == -1);  // right of the last entry
  CHECK(legend_hit(boxes, 50.0f, 10.0f) == -1);   // left of the area
}

TEST_CASE("the nearest point within reach is found", "[gui]") {
  const std::vector<ImVec2> pts{{10, 10}, {50, 50}, {100, 10}};
  CHECK(nearest_index(pts, 48, 47, 24) == 1);
  CHECK(nearest_index(pts, 95, 12, 24) == 2);
  CHECK(nearest_index(pts, 200, 200, 24) == -1);
  CHECK(nearest_index({}, 0, 0, 24) == -1);
}

TEST_CASE("tick and value labels are short", "[gui]") {
  CHECK(format_tick(800.0, 100.0) == "800");
  CHECK(format_tick(0.25, 0.05) == "0.25");
  CHECK(format_tick(1e6, 1e6) == "1e+06");
  CHECK(format_tick(0.0, 0.1) == "0.0");
  CHECK(format_value(320.90311) == "320.9");
  CHECK(format_value(3.3524) == "3.352");
}

TEST_CASE("plot: horizontal bars with value labels get bands where no label covers a category's name",
          "[gui][plot]") {
  // The "vs cuBLAS" plot with sixteen imported variants: a kernel and a cuBLAS bar per variant.
  PlotSpec s;
  Series kernel{.name = "kernel", .kind = SeriesKind::bars};
  Series cublas{.name = "cuBLAS", .kind = SeriesKind::bars};
  for (int i = 0; i < 16; ++i) {
    s.y.categories.push_back("variant " + std::to_string(i));
    kernel.xs.push_back(i), kernel.ys.push_back(100.0 + i), kernel.point_labels.push_back("100.0 (90% of cuBLAS)");
    cublas.xs.push_back(i), cublas.ys.push_back(110.0), cublas.point_labels.push_back("110.0");
  }
  s.series = {kernel, cublas};
  const float line_h = 15.0f;
  const float h = min_labelled_bars_height(s, line_h);
  // The area left after the header (title, legend) and the bottom (ticks, x title), per band.
  const float band = (h - (2 * line_h + 6) - (2 * line_h + 6)) / 16.0f;
  for (int rank = 0; rank < 2; ++rank) {
    INFO("bar " << rank);
    float a = 0, b = 0;
    bar_pixels(0.0f, band, rank, 2, line_h, 2.2f * line_h, true, a, b);
    // The name's line is [0, line_h + 3): the bar (and its label, centred on it and a line
    // high) stays under it.
    CHECK(a >= line_h + 3.0f);
    CHECK(b - a >= line_h - 0.01f);
    CHECK(b <= band);
  }
  // Without labels drawn, or without categories, no minimum.
  for (auto& series : s.series) series.draw_point_labels = false;
  CHECK(min_labelled_bars_height(s, line_h) == 0.0f);
  s.series[0].draw_point_labels = true;
  s.y.categories.clear();
  CHECK(min_labelled_bars_height(s, line_h) == 0.0f);
}
