// Drawing and interaction of the plot widget (gui/widgets/plot.hpp); the geometry it uses is
// in plot.cpp, free of ImGui state so it can be tested without a window. draw() lays the plot
// out and calls its parts (plot_parts.hpp): axes, reference lines, series and bars here; the
// legend and the hover in plot_legend.cpp.
#include <algorithm>
#include <optional>

#include "gui/widgets/plot_parts.hpp"

namespace gs::gui::plot {

namespace parts {

ImU32 with_alpha(ImU32 c, float a) {
  const ImU32 alpha = ImU32(std::clamp(a, 0.0f, 1.0f) * float((c >> IM_COL32_A_SHIFT) & 0xFF));
  return (c & ~IM_COL32_A_MASK) | (alpha << IM_COL32_A_SHIFT);
}

namespace {

// A polyline in dashes (dash, gap in pixels), continuing the pattern across vertices.
void dashed_polyline(ImDrawList* dl, const std::vector<ImVec2>& pts, ImU32 col, float thickness, float dash = 6.0f,
                     float gap = 4.0f) {
  float phase = 0.0f;  // distance into the current dash+gap period
  for (size_t i = 1; i < pts.size(); ++i) {
    const ImVec2 a = pts[i - 1], b = pts[i];
    const float len = std::hypot(b.x - a.x, b.y - a.y);
    if (len <= 0.0f) continue;
    float s = 0.0f;
    while (s < len) {
      const bool on = phase < dash;
      const float run = std::min(len - s, on ? dash - phase : dash + gap - phase);
      if (on) {
        const float t0 = s / len, t1 = (s + run) / len;
        dl->AddLine({a.x + (b.x - a.x) * t0, a.y + (b.y - a.y) * t0}, {a.x + (b.x - a.x) * t1, a.y + (b.y - a.y) * t1},
                    col, thickness);
      }
      s += run;
      phase += run;
      if (phase >= dash + gap) phase = 0.0f;
    }
  }
}

// The text of a category axis label, elided with "…" to fit max_w.
std::string fit_text(const std::string& s, float max_w) {
  if (ImGui::CalcTextSize(s.c_str()).x <= max_w) return s;
  std::string t = s;
  while (!t.empty() && ImGui::CalcTextSize((t + "…").c_str()).x > max_w) {
    t.pop_back();
    while (!t.empty() && (uint8_t(t.back()) & 0xC0) == 0x80) t.pop_back();  // whole UTF-8 characters
  }
  return t.empty() ? "" : t + "…";
}

// The ranges (from the visible data, and the ceilings so they stay on screen), the margins the
// tick labels need and the area left; nullopt when it is too small to say anything.
std::optional<Axes> layout_axes(const Frame& f, const Legend& legend) {
  const PlotSpec& spec = f.spec;
  Axes a;
  a.x_cat = !spec.x.categories.empty(), a.y_cat = !spec.y.categories.empty();
  std::vector<double> xv, yv;
  bool has_bars = false;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    if (!legend.visible(i)) continue;
    const Series& s = spec.series[i];
    const bool horizontal = s.kind == SeriesKind::bars && a.y_cat;
    (horizontal ? yv : xv).insert((horizontal ? yv : xv).end(), s.xs.begin(), s.xs.end());
    (horizontal ? xv : yv).insert((horizontal ? xv : yv).end(), s.ys.begin(), s.ys.end());
    has_bars |= s.kind == SeriesKind::bars;
  }
  if (spec.include_refs_in_range)
    for (const RefLine& r : spec.refs) {
      if (r.kind == RefKind::horizontal) yv.push_back(r.value);
      if (r.kind == RefKind::vertical) xv.push_back(r.value);
    }
  auto resolve = [](const Axis& axis, const std::vector<double>& v, bool zero) {
    if (!axis.categories.empty()) return Range{-0.5, double(axis.categories.size()) - 0.5};
    Range r = auto_range(v, axis.scale, zero);
    if (std::isfinite(axis.min)) r.lo = axis.min;
    if (std::isfinite(axis.max)) r.hi = axis.max;
    return r;
  };
  const Range xr = resolve(spec.x, xv, spec.x.include_zero || (has_bars && a.y_cat));
  Range yr = resolve(spec.y, yv, spec.y.include_zero || (has_bars && !a.y_cat));
  if (a.y_cat) std::swap(yr.lo, yr.hi);  // category 0 at the top

  // Tick labels decide the margins. A label a line high wants about two lines of room: a short
  // plot (the Throughput view's clock and power strips) gets fewer, so they never overlap.
  const float bottom_h = f.line_h + 4.0f + (spec.x.title.empty() ? 0.0f : f.line_h + 2.0f);
  const float area_h = f.size.y - legend.header_h - bottom_h;
  const int y_target = std::clamp(int(area_h / (2.0f * f.line_h)), 2, 5);
  a.yticks = a.y_cat ? std::vector<Tick>{} : nice_ticks(yr, spec.y.scale, y_target);
  float ylab_w = 0.0f;
  for (const Tick& t : a.yticks) ylab_w = std::max(ylab_w, ImGui::CalcTextSize(t.label.c_str()).x);
  a.area = {f.origin.x + ylab_w + 8.0f, f.origin.y + legend.header_h, f.origin.x + f.size.x - 10.0f,
            f.origin.y + f.size.y - bottom_h};
  if (a.area.x1 - a.area.x0 < 20.0f || a.area.y1 - a.area.y0 < 20.0f) return std::nullopt;
  a.mx = {xr, spec.x.scale, a.area.x0, a.area.x1};
  a.my = {yr, spec.y.scale, a.area.y1, a.area.y0};
  a.xticks = a.x_cat ? std::vector<Tick>{} : nice_ticks(xr, spec.x.scale, int((a.area.x1 - a.area.x0) / 70.0f));
  return a;
}

// Frame, grid, tick and category labels, the axis titles.
void draw_axes(const Frame& f, const Axes& a) {
  const PlotSpec& spec = f.spec;
  ImDrawList* dl = f.dl;
  const Rect& area = a.area;
  // No filled background: under software OpenGL (Xvfb, llvmpipe) a plot-sized fill costs
  // ~8 ms a frame per plot; the frame and the grid mark the area well enough.
  for (const Tick& t : a.yticks)
    if (auto p = a.my.to_pixel(t.value)) {
      dl->AddLine({area.x0, *p}, {area.x1, *p}, t.major ? f.grid_major : f.grid_minor);
      if (!t.label.empty()) {
        const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
        dl->AddText({area.x0 - 5.0f - ts.x, *p - ts.y / 2}, f.muted_col, t.label.c_str());
      }
    }
  for (const Tick& t : a.xticks)
    if (auto p = a.mx.to_pixel(t.value)) {
      dl->AddLine({*p, area.y0}, {*p, area.y1}, t.major ? f.grid_major : f.grid_minor);
      if (!t.label.empty()) {
        const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
        const float x = std::clamp(*p - ts.x / 2, f.origin.x, f.origin.x + f.size.x - ts.x);
        dl->AddText({x, area.y1 + 3.0f}, f.muted_col, t.label.c_str());
      }
    }
  if (a.x_cat)
    for (size_t i = 0; i < spec.x.categories.size(); ++i) {
      const float band = (area.x1 - area.x0) / float(spec.x.categories.size());
      const std::string s = fit_text(spec.x.categories[i], band - 4.0f);
      const float c = *a.mx.to_pixel(double(i));
      dl->AddText({c - ImGui::CalcTextSize(s.c_str()).x / 2, area.y1 + 3.0f}, f.muted_col, s.c_str());
    }
  if (a.y_cat)  // horizontal bars: each category's name on top of its band, inside the frame
    for (size_t i = 0; i < spec.y.categories.size(); ++i) {
      const float top = *a.my.to_pixel(double(i) - 0.5);
      if (i > 0) dl->AddLine({area.x0, top}, {area.x1, top}, f.grid_minor);
      const std::string s = fit_text(spec.y.categories[i], area.x1 - area.x0 - 8.0f);
      dl->AddText({area.x0 + 4.0f, top + 1.0f}, f.text_col, s.c_str());
    }
  dl->AddRect({area.x0, area.y0}, {area.x1, area.y1}, f.grid_major);
  if (!spec.x.title.empty()) {
    const ImVec2 ts = ImGui::CalcTextSize(spec.x.title.c_str());
    dl->AddText({(area.x0 + area.x1 - ts.x) / 2, area.y1 + f.line_h + 5.0f}, f.text_col, spec.x.title.c_str());
  }
  if (!spec.y.title.empty()) dl->AddText({f.origin.x, f.origin.y}, f.text_col, spec.y.title.c_str());
}

// Where a sloped reference line's label goes: beside the rising part, a third of the way up
// (under the roof, where low-intensity kernels are rare), in the first spot that overlaps no
// other label or horizontal line.
ImVec2 sloped_label_spot(const Rect& area, const std::vector<ImVec2>& pts, ImVec2 ts, const std::vector<Rect>& placed,
                         const std::vector<float>& hlines) {
  std::vector<ImVec2> rising;
  for (size_t q = 1; q < pts.size(); ++q)
    if (pts[q].y < pts[q - 1].y - 0.01f) rising.push_back(pts[q]);
  if (rising.empty()) rising.push_back(pts.front());
  auto free_spot = [&](ImVec2 t) {
    const Rect box{t.x - 1, t.y - 1, t.x + ts.x + 1, t.y + ts.y + 1};
    if (box.x0 < area.x0 || box.x1 > area.x1 || box.y0 < area.y0 || box.y1 > area.y1) return false;
    for (const Rect& o : placed)
      if (box.x0 < o.x1 && o.x0 < box.x1 && box.y0 < o.y1 && o.y0 < box.y1) return false;
    for (float y : hlines)
      if (y >= box.y0 && y <= box.y1) return false;
    return true;
  };
  const int n = int(rising.size()), start = n / 3;
  for (int step = 0; step < 2 * n; ++step) {
    const int q = start + (step % 2 == 0 ? step / 2 : -(step / 2 + 1));  // start, start-1, start+1, ...
    if (q < 0 || q >= n) continue;
    for (ImVec2 t : {ImVec2{rising[q].x + 6.0f, rising[q].y + 2.0f}, ImVec2{rising[q].x - ts.x - 4.0f, rising[q].y - ts.y - 2.0f}})
      if (free_spot(t)) return t;
  }
  return {rising[start].x + 6.0f, rising[start].y + 2.0f};
}

// Reference lines (ceilings) under the data; their labels avoid each other and the lines.
void draw_refs(const Frame& f, const Axes& a) {
  const Rect& area = a.area;
  std::vector<Rect> placed;
  std::vector<float> hlines;
  for (const RefLine& r : f.spec.refs)
    if (r.kind == RefKind::horizontal)
      if (auto y = a.my.to_pixel(r.value)) hlines.push_back(*y);
  for (const RefLine& r : f.spec.refs) {
    std::vector<ImVec2> pts;
    if (r.kind == RefKind::horizontal) {
      if (auto y = a.my.to_pixel(r.value)) pts = {{area.x0, *y}, {area.x1, *y}};
    } else if (r.kind == RefKind::vertical) {
      if (auto x = a.mx.to_pixel(r.value)) pts = {{*x, area.y0}, {*x, area.y1}};
    } else {
      for (int k = 0; k <= 64; ++k) {
        const float px = area.x0 + (area.x1 - area.x0) * float(k) / 64.0f;
        const double y = std::min(r.value * a.mx.from_pixel(px), r.cap);
        if (auto py = a.my.to_pixel(y)) pts.push_back({px, *py});
      }
    }
    polyline(f.dl, pts, r.color, 1.5f, r.dashed);
    if (pts.size() < 2 || r.label.empty()) continue;
    const ImVec2 ts = ImGui::CalcTextSize(r.label.c_str());
    ImVec2 at;
    if (r.kind == RefKind::horizontal) {
      at = {area.x1 - ts.x - 4.0f, pts[0].y - ts.y - 1.0f};
      if (at.y < area.y0) at.y = pts[0].y + 1.0f;
      // Two ceilings close together (a rated one and the same at a held clock): the later label
      // goes under its line, else left of the labels it would cover.
      const auto overlaps = [&](ImVec2 p) {
        return std::any_of(placed.begin(), placed.end(), [&](const Rect& q) {
          return p.x < q.x1 && p.x + ts.x > q.x0 && p.y < q.y1 && p.y + ts.y > q.y0;
        });
      };
      if (overlaps(at) && !overlaps({at.x, pts[0].y + 1.0f})) at.y = pts[0].y + 1.0f;
      for (const Rect& q : placed)
        if (overlaps(at) && q.x0 - ts.x - 8.0f > area.x0) at.x = std::min(at.x, q.x0 - ts.x - 8.0f);
    } else if (r.kind == RefKind::vertical) {
      at = {pts[0].x + 3.0f, area.y0 + 2.0f};
    } else {
      at = sloped_label_spot(area, pts, ts, placed, hlines);
    }
    placed.push_back({at.x, at.y, at.x + ts.x, at.y + ts.y});
    f.dl->AddText(at, r.color, r.label.c_str());
  }
}

// Series i's bars: rank `rank` of `count` bars side by side in each category band.
void draw_bars(const Frame& f, const Axes& a, size_t i, int rank, int count, Hits& hits) {
  const Series& s = f.spec.series[i];
  const size_t n = std::min(s.xs.size(), s.ys.size());
  const bool horizontal = a.y_cat;
  const AxisMap& pos_axis = horizontal ? a.my : a.mx;
  const AxisMap& val_axis = horizontal ? a.mx : a.my;
  const double base = val_axis.scale == Scale::log10 ? std::min(val_axis.range.lo, val_axis.range.hi) : 0.0;
  for (size_t k = 0; k < n; ++k) {
    auto e0 = pos_axis.to_pixel(s.xs[k] - 0.5), e1 = pos_axis.to_pixel(s.xs[k] + 0.5);
    if (!e0 || !e1) continue;
    float pa, pb;
    bar_pixels(std::min(*e0, *e1), std::max(*e0, *e1), rank, count, f.line_h, 2.2f * f.line_h, horizontal, pa, pb);
    auto v0 = val_axis.to_pixel(base), v1 = val_axis.to_pixel(s.ys[k]);
    if (!v0 || !v1) continue;
    ImVec2 r0 = horizontal ? ImVec2{*v0, std::min(pa, pb)} : ImVec2{std::min(pa, pb), std::min(*v0, *v1)};
    ImVec2 r1 = horizontal ? ImVec2{*v1, std::max(pa, pb)} : ImVec2{std::max(pa, pb), std::max(*v0, *v1)};
    if (r1.x - r0.x < 1.0f) r1.x = r0.x + 1.0f;
    f.dl->AddRectFilled(r0, r1, k < s.point_colors.size() ? s.point_colors[k] : s.color, 2.0f);
    if (f.item_hovered && f.mouse.x >= r0.x && f.mouse.x <= r1.x && f.mouse.y >= r0.y && f.mouse.y <= r1.y)
      hits.bar_series = int(i), hits.bar_index = int(k);
    if (s.draw_point_labels && k < s.point_labels.size() && !s.point_labels[k].empty()) {
      const char* t = s.point_labels[k].c_str();
      const ImVec2 ts = ImGui::CalcTextSize(t);
      ImVec2 at = horizontal ? ImVec2{r1.x + 4.0f, (r0.y + r1.y - ts.y) / 2} : ImVec2{(r0.x + r1.x - ts.x) / 2, r0.y - ts.y - 1.0f};
      if (horizontal && at.x + ts.x > a.area.x1 - 2.0f) at.x = r1.x - ts.x - 4.0f;  // inside the bar
      f.dl->AddText(at, f.text_col, t);
    }
    hits.px.push_back(horizontal ? ImVec2{r1.x, (r0.y + r1.y) / 2} : ImVec2{(r0.x + r1.x) / 2, r0.y});
    hits.ref.push_back({int(i), int(k)});
  }
}

// Series i as a line or points; a line breaks where a point cannot be shown (<= 0 on log).
void draw_line_series(const Frame& f, const Axes& a, size_t i, Hits& hits) {
  const Series& s = f.spec.series[i];
  const size_t n = std::min(s.xs.size(), s.ys.size());
  std::vector<ImVec2> run;
  for (size_t k = 0; k < n; ++k) {
    auto px = a.mx.to_pixel(s.xs[k]), py = a.my.to_pixel(s.ys[k]);
    if (!px || !py) {
      if (s.kind == SeriesKind::line) polyline(f.dl, run, s.color, s.thickness, s.dashed);
      run.clear();
      continue;
    }
    run.push_back({*px, *py});
    hits.px.push_back({*px, *py});
    hits.ref.push_back({int(i), int(k)});
  }
  if (s.kind == SeriesKind::line) polyline(f.dl, run, s.color, s.thickness, s.dashed);
}

// The visible series, then markers on top of every line with their labels beside them;
// returns every drawn point for the hover.
Hits draw_series(const Frame& f, const Axes& a, const Legend& legend) {
  const PlotSpec& spec = f.spec;
  Hits hits;
  int bar_count = 0;
  std::vector<int> bar_rank(spec.series.size(), -1);
  for (size_t i = 0; i < spec.series.size(); ++i)
    if (legend.visible(i) && spec.series[i].kind == SeriesKind::bars) bar_rank[i] = bar_count++;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    if (!legend.visible(i)) continue;
    if (spec.series[i].kind == SeriesKind::bars) draw_bars(f, a, i, bar_rank[i], bar_count, hits);
    else draw_line_series(f, a, i, hits);
  }
  for (size_t h = 0; h < hits.px.size(); ++h) {
    const Series& s = spec.series[size_t(hits.ref[h].series)];
    if (s.kind == SeriesKind::bars) continue;
    const size_t k = size_t(hits.ref[h].index);
    draw_marker(f.dl, hits.px[h], s.marker, k < s.point_colors.size() ? s.point_colors[k] : s.color, 3.5f);
    if (s.draw_point_labels && k < s.point_labels.size() && !s.point_labels[k].empty())
      f.dl->AddText({hits.px[h].x + 6.0f, hits.px[h].y - f.line_h - 1.0f}, s.color, s.point_labels[k].c_str());
  }
  if (hits.px.empty() && spec.refs.empty()) {
    const ImVec2 ts = ImGui::CalcTextSize(spec.empty_text.c_str());
    f.dl->AddText({(a.area.x0 + a.area.x1 - ts.x) / 2, (a.area.y0 + a.area.y1 - ts.y) / 2}, f.muted_col,
                  spec.empty_text.c_str());
  }
  return hits;
}

}  // namespace

void polyline(ImDrawList* dl, const std::vector<ImVec2>& pts, ImU32 col, float thickness, bool dashed) {
  if (pts.size() < 2) return;
  const SmoothLines smooth(dl);
  if (dashed)
    dashed_polyline(dl, pts, col, thickness);
  else
    dl->AddPolyline(pts.data(), int(pts.size()), col, ImDrawFlags_None, thickness);
}

void draw_marker(ImDrawList* dl, ImVec2 p, Marker m, ImU32 col, float r) {
  const SmoothLines smooth(dl);  // the ring's outline
  switch (m) {
    case Marker::none: break;
    case Marker::circle: dl->AddCircleFilled(p, r, col, 12); break;
    case Marker::ring: dl->AddCircle(p, r, col, 12, 1.8f); break;
    case Marker::square: dl->AddRectFilled({p.x - r, p.y - r}, {p.x + r, p.y + r}, col); break;
    case Marker::diamond:
      dl->AddQuadFilled({p.x, p.y - r * 1.3f}, {p.x + r * 1.3f, p.y}, {p.x, p.y + r * 1.3f}, {p.x - r * 1.3f, p.y}, col);
      break;
  }
}

}  // namespace parts

PlotHover draw(const char* id, ImVec2 size, const PlotSpec& spec) {
  using namespace parts;
  ImGui::PushID(id);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Filling what is left, but never so small that the axis labels and the reference lines'
  // captions pile up: then the window scrolls.
  if (size.x <= 0.0f) size.x = std::max(avail.x, 12.0f * ImGui::GetFontSize());
  if (size.y <= 0.0f) size.y = std::max(avail.y, 10.0f * ImGui::GetTextLineHeightWithSpacing());
  // Horizontal bars with value labels: every band holds its name and text-high bars, so a
  // value never covers a name.
  size.y = std::max(size.y, min_labelled_bars_height(spec, ImGui::GetTextLineHeight()));
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##plot", size);
  const bool item_hovered = ImGui::IsItemHovered();
  const bool clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
  const ImU32 border = ImGui::GetColorU32(ImGuiCol_Border);
  const float line_h = ImGui::GetTextLineHeight();
  const Frame f{spec,
                ImGui::GetWindowDrawList(),
                ImGui::GetStateStorage(),
                origin,
                size,
                ImGui::GetIO().MousePos,
                item_hovered,
                clicked,
                ImGui::GetColorU32(ImGuiCol_Text),
                ImGui::GetColorU32(ImGuiCol_TextDisabled),
                with_alpha(border, 0.9f),
                with_alpha(border, 0.35f),
                line_h,
                line_h * 1.4f};

  const Legend legend = layout_legend(f);
  const std::optional<Axes> axes = layout_axes(f, legend);
  if (!axes) {
    ImGui::PopID();
    return {};  // too small to say anything
  }
  draw_axes(f, *axes);
  f.dl->PushClipRect({axes->area.x0, axes->area.y0}, {axes->area.x1, axes->area.y1}, true);
  draw_refs(f, *axes);
  const Hits hits = draw_series(f, *axes, legend);
  PlotHover hover = find_hover(f, *axes, hits);
  f.dl->PopClipRect();
  draw_hover(f, *axes, hits, hover);
  draw_legend(f, legend, hover);
  ImGui::PopID();
  return hover;
}

}  // namespace gs::gui::plot
