// Drawing and interaction of the plot widget (gui/widgets/plot.hpp); the geometry it uses is
// in plot.cpp, free of ImGui state so it can be tested without a window.
#include <algorithm>
#include <cstdio>

#include "gui/widgets/plot.hpp"

namespace gs::gui::plot {

namespace {

ImU32 with_alpha(ImU32 c, float a) {
  const ImU32 alpha = ImU32(std::clamp(a, 0.0f, 1.0f) * float((c >> IM_COL32_A_SHIFT) & 0xFF));
  return (c & ~IM_COL32_A_MASK) | (alpha << IM_COL32_A_SHIFT);
}

// ImGui's anti-aliasing for the lines drawn while this lives: the app turns it off for the
// UI's straight lines (theme.cpp), and plots draw slanted ones, which would look jagged.
class SmoothLines {
 public:
  explicit SmoothLines(ImDrawList* dl) : dl_(dl), saved_(dl->Flags) { dl->Flags |= ImDrawListFlags_AntiAliasedLines; }
  ~SmoothLines() { dl_->Flags = saved_; }
  SmoothLines(const SmoothLines&) = delete;
  SmoothLines& operator=(const SmoothLines&) = delete;

 private:
  ImDrawList* dl_;
  ImDrawListFlags saved_;
};

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

struct LegendEntry {
  std::string name;
  int first_series = -1;
  ImGuiID key = 0;
  bool hidden = false;
};

std::string fmt_series_count(size_t n) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%zu series \xE2\x96\xBE", n);  // "▾": click for the list
  return buf;
}

// The pixel span [a, b) of bar `rank` of `count` in the category band [lo, hi) (pixels):
// bars side by side, at most max_thick each, under a label line of label_h when horizontal.
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

}  // namespace

PlotHover draw(const char* id, ImVec2 size, const PlotSpec& spec) {
  PlotHover hover;
  ImGui::PushID(id);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Filling what is left, but never so small that the axis labels and the reference lines'
  // captions pile up: then the window scrolls.
  if (size.x <= 0.0f) size.x = std::max(avail.x, 12.0f * ImGui::GetFontSize());
  if (size.y <= 0.0f) size.y = std::max(avail.y, 10.0f * ImGui::GetTextLineHeightWithSpacing());
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##plot", size);
  const bool item_hovered = ImGui::IsItemHovered();
  const bool clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImVec2 mouse = ImGui::GetIO().MousePos;

  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 muted_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 grid_major = with_alpha(ImGui::GetColorU32(ImGuiCol_Border), 0.9f);
  const ImU32 grid_minor = with_alpha(ImGui::GetColorU32(ImGuiCol_Border), 0.35f);
  const float line_h = ImGui::GetTextLineHeight();
  const float swatch = line_h * 1.4f;

  // Legend entries (one per distinct name) and which are hidden.
  std::vector<LegendEntry> legend;
  std::vector<int> entry_of(spec.series.size(), -1);
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const Series& s = spec.series[i];
    auto it = std::find_if(legend.begin(), legend.end(), [&](const LegendEntry& e) { return e.name == s.name; });
    if (it == legend.end()) {
      const ImGuiID key = ImGui::GetID(("legend:" + s.name).c_str());
      legend.push_back({s.name, int(i), key, storage->GetBool(key, false)});
      it = legend.end() - 1;
    }
    entry_of[i] = int(it - legend.begin());
  }
  auto visible = [&](size_t i) { return !legend[entry_of[i]].hidden; };

  // Header: the y title at the left, then the legend, wrapping.
  const float y_title_w = spec.y.title.empty() ? 0.0f : ImGui::CalcTextSize(spec.y.title.c_str()).x + 16.0f;
  std::vector<int> shown_entries;
  std::vector<float> widths;
  if (spec.legend)
    for (size_t e = 0; e < legend.size(); ++e)
      if (spec.series[legend[e].first_series].in_legend) {
        shown_entries.push_back(int(e));
        widths.push_back(ImGui::CalcTextSize(legend[e].name.c_str()).x);
      }
  Rect header{origin.x + y_title_w, origin.y, origin.x + size.x, origin.y + line_h};
  // An entry too wide to stand beside the y title: the legend goes under it, the plot's width.
  const float widest = widths.empty() ? 0.0f : *std::max_element(widths.begin(), widths.end());
  if (y_title_w > 0.0f && swatch + 4.0f + widest > header.x1 - header.x0)
    header = {origin.x, origin.y + line_h + 2.0f, origin.x + size.x, origin.y + 2.0f * line_h + 2.0f};
  std::vector<Rect> boxes = legend_layout(widths, header, line_h + 2.0f, swatch);
  const bool folded = spec.legend_max_rows > 0 && !boxes.empty() &&
                      boxes.back().y0 - header.y0 >= float(spec.legend_max_rows) * (line_h + 2.0f) - 0.5f;
  const std::string folded_text = fmt_series_count(shown_entries.size());
  if (folded) boxes = legend_layout({ImGui::CalcTextSize(folded_text.c_str()).x}, header, line_h + 2.0f, swatch);
  float header_h = (spec.y.title.empty() && boxes.empty()) ? 0.0f : line_h + 4.0f;
  for (const Rect& b : boxes) header_h = std::max(header_h, b.y1 - origin.y + 4.0f);

  // Ranges from the visible data (and the ceilings, so they stay on screen).
  const bool x_cat = !spec.x.categories.empty(), y_cat = !spec.y.categories.empty();
  std::vector<double> xv, yv;
  bool has_bars = false;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    if (!visible(i)) continue;
    const Series& s = spec.series[i];
    const bool horizontal = s.kind == SeriesKind::bars && y_cat;
    (horizontal ? yv : xv).insert((horizontal ? yv : xv).end(), s.xs.begin(), s.xs.end());
    (horizontal ? xv : yv).insert((horizontal ? xv : yv).end(), s.ys.begin(), s.ys.end());
    has_bars |= s.kind == SeriesKind::bars;
  }
  if (spec.include_refs_in_range)
    for (const RefLine& r : spec.refs) {
      if (r.kind == RefKind::horizontal) yv.push_back(r.value);
      if (r.kind == RefKind::vertical) xv.push_back(r.value);
    }
  auto resolve = [](const Axis& a, const std::vector<double>& v, bool zero) {
    if (!a.categories.empty()) return Range{-0.5, double(a.categories.size()) - 0.5};
    Range r = auto_range(v, a.scale, zero);
    if (std::isfinite(a.min)) r.lo = a.min;
    if (std::isfinite(a.max)) r.hi = a.max;
    return r;
  };
  const Range xr = resolve(spec.x, xv, spec.x.include_zero || (has_bars && y_cat));
  Range yr = resolve(spec.y, yv, spec.y.include_zero || (has_bars && !y_cat));
  if (y_cat) std::swap(yr.lo, yr.hi);  // category 0 at the top

  // Tick labels decide the margins.
  const std::vector<Tick> yticks = y_cat ? std::vector<Tick>{} : nice_ticks(yr, spec.y.scale, 5);
  float ylab_w = 0.0f;
  for (const Tick& t : yticks) ylab_w = std::max(ylab_w, ImGui::CalcTextSize(t.label.c_str()).x);
  const float bottom_h = line_h + 4.0f + (spec.x.title.empty() ? 0.0f : line_h + 2.0f);
  const Rect area{origin.x + ylab_w + 8.0f, origin.y + header_h, origin.x + size.x - 10.0f, origin.y + size.y - bottom_h};
  if (area.x1 - area.x0 < 20.0f || area.y1 - area.y0 < 20.0f) {
    ImGui::PopID();
    return hover;  // too small to say anything
  }
  const AxisMap mx{xr, spec.x.scale, area.x0, area.x1};
  const AxisMap my{yr, spec.y.scale, area.y1, area.y0};
  const std::vector<Tick> xticks = x_cat ? std::vector<Tick>{} : nice_ticks(xr, spec.x.scale, int((area.x1 - area.x0) / 70.0f));

  // Frame, grid and tick labels.
  // No filled background: under software OpenGL (Xvfb, llvmpipe) a plot-sized fill costs
  // ~8 ms a frame per plot; the frame and the grid mark the area well enough.
  for (const Tick& t : yticks)
    if (auto p = my.to_pixel(t.value)) {
      dl->AddLine({area.x0, *p}, {area.x1, *p}, t.major ? grid_major : grid_minor);
      if (!t.label.empty()) {
        const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
        dl->AddText({area.x0 - 5.0f - ts.x, *p - ts.y / 2}, muted_col, t.label.c_str());
      }
    }
  for (const Tick& t : xticks)
    if (auto p = mx.to_pixel(t.value)) {
      dl->AddLine({*p, area.y0}, {*p, area.y1}, t.major ? grid_major : grid_minor);
      if (!t.label.empty()) {
        const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
        const float x = std::clamp(*p - ts.x / 2, origin.x, origin.x + size.x - ts.x);
        dl->AddText({x, area.y1 + 3.0f}, muted_col, t.label.c_str());
      }
    }
  if (x_cat)
    for (size_t i = 0; i < spec.x.categories.size(); ++i) {
      const float band = (area.x1 - area.x0) / float(spec.x.categories.size());
      const std::string s = fit_text(spec.x.categories[i], band - 4.0f);
      const float c = *mx.to_pixel(double(i));
      dl->AddText({c - ImGui::CalcTextSize(s.c_str()).x / 2, area.y1 + 3.0f}, muted_col, s.c_str());
    }
  if (y_cat)  // horizontal bars: each category's name on top of its band, inside the frame
    for (size_t i = 0; i < spec.y.categories.size(); ++i) {
      const float top = *my.to_pixel(double(i) - 0.5);
      if (i > 0) dl->AddLine({area.x0, top}, {area.x1, top}, grid_minor);
      const std::string s = fit_text(spec.y.categories[i], area.x1 - area.x0 - 8.0f);
      dl->AddText({area.x0 + 4.0f, top + 1.0f}, text_col, s.c_str());
    }
  dl->AddRect({area.x0, area.y0}, {area.x1, area.y1}, grid_major);
  if (!spec.x.title.empty()) {
    const ImVec2 ts = ImGui::CalcTextSize(spec.x.title.c_str());
    dl->AddText({(area.x0 + area.x1 - ts.x) / 2, area.y1 + line_h + 5.0f}, text_col, spec.x.title.c_str());
  }
  if (!spec.y.title.empty()) dl->AddText({origin.x, origin.y}, text_col, spec.y.title.c_str());

  dl->PushClipRect({area.x0, area.y0}, {area.x1, area.y1}, true);

  // Reference lines (ceilings) under the data; their labels avoid each other and the lines.
  std::vector<Rect> placed;
  std::vector<float> hlines;
  for (const RefLine& r : spec.refs)
    if (r.kind == RefKind::horizontal)
      if (auto y = my.to_pixel(r.value)) hlines.push_back(*y);
  for (const RefLine& r : spec.refs) {
    std::vector<ImVec2> pts;
    if (r.kind == RefKind::horizontal) {
      if (auto y = my.to_pixel(r.value)) pts = {{area.x0, *y}, {area.x1, *y}};
    } else if (r.kind == RefKind::vertical) {
      if (auto x = mx.to_pixel(r.value)) pts = {{*x, area.y0}, {*x, area.y1}};
    } else {
      for (int k = 0; k <= 64; ++k) {
        const float px = area.x0 + (area.x1 - area.x0) * float(k) / 64.0f;
        const double y = std::min(r.value * mx.from_pixel(px), r.cap);
        if (auto py = my.to_pixel(y)) pts.push_back({px, *py});
      }
    }
    polyline(dl, pts, r.color, 1.5f, r.dashed);
    if (pts.size() < 2 || r.label.empty()) continue;
    const ImVec2 ts = ImGui::CalcTextSize(r.label.c_str());
    ImVec2 at;
    if (r.kind == RefKind::horizontal) {
      at = {area.x1 - ts.x - 4.0f, pts[0].y - ts.y - 1.0f};
      if (at.y < area.y0) at.y = pts[0].y + 1.0f;
    } else if (r.kind == RefKind::vertical) {
      at = {pts[0].x + 3.0f, area.y0 + 2.0f};
    } else {
      // Beside the rising part, a third of the way up (under the roof, where low-intensity
      // kernels are rare), in the first spot that overlaps no other label or horizontal line.
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
      at = {rising[start].x + 6.0f, rising[start].y + 2.0f};
      bool found = false;
      for (int step = 0; step < 2 * n && !found; ++step) {
        const int q = start + (step % 2 == 0 ? step / 2 : -(step / 2 + 1));  // start, start-1, start+1, ...
        if (q < 0 || q >= n) continue;
        for (ImVec2 t : {ImVec2{rising[q].x + 6.0f, rising[q].y + 2.0f}, ImVec2{rising[q].x - ts.x - 4.0f, rising[q].y - ts.y - 2.0f}})
          if (!found && free_spot(t)) at = t, found = true;
      }
    }
    placed.push_back({at.x, at.y, at.x + ts.x, at.y + ts.y});
    dl->AddText(at, r.color, r.label.c_str());
  }

  // The series; remember each drawn point for hover.
  struct HitPoint {
    int series, index;
  };
  std::vector<ImVec2> hit_px;
  std::vector<HitPoint> hit_ref;
  int bar_count = 0;
  std::vector<int> bar_rank(spec.series.size(), -1);
  for (size_t i = 0; i < spec.series.size(); ++i)
    if (visible(i) && spec.series[i].kind == SeriesKind::bars) bar_rank[i] = bar_count++;
  int bar_hit_series = -1, bar_hit_index = -1;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    if (!visible(i)) continue;
    const Series& s = spec.series[i];
    const size_t n = std::min(s.xs.size(), s.ys.size());
    if (s.kind == SeriesKind::bars) {
      const bool horizontal = y_cat;
      const AxisMap& pos_axis = horizontal ? my : mx;
      const AxisMap& val_axis = horizontal ? mx : my;
      const double base = val_axis.scale == Scale::log10 ? std::min(val_axis.range.lo, val_axis.range.hi) : 0.0;
      for (size_t k = 0; k < n; ++k) {
        auto e0 = pos_axis.to_pixel(s.xs[k] - 0.5), e1 = pos_axis.to_pixel(s.xs[k] + 0.5);
        if (!e0 || !e1) continue;
        float fa, fb;
        bar_pixels(std::min(*e0, *e1), std::max(*e0, *e1), bar_rank[i], bar_count, line_h, 2.2f * line_h, horizontal,
                   fa, fb);
        const std::optional<float> pa = fa, pb = fb;
        auto v0 = val_axis.to_pixel(base), v1 = val_axis.to_pixel(s.ys[k]);
        if (!pa || !pb || !v0 || !v1) continue;
        ImVec2 r0 = horizontal ? ImVec2{*v0, std::min(*pa, *pb)} : ImVec2{std::min(*pa, *pb), std::min(*v0, *v1)};
        ImVec2 r1 = horizontal ? ImVec2{*v1, std::max(*pa, *pb)} : ImVec2{std::max(*pa, *pb), std::max(*v0, *v1)};
        if (r1.x - r0.x < 1.0f) r1.x = r0.x + 1.0f;
        dl->AddRectFilled(r0, r1, k < s.point_colors.size() ? s.point_colors[k] : s.color, 2.0f);
        if (item_hovered && mouse.x >= r0.x && mouse.x <= r1.x && mouse.y >= r0.y && mouse.y <= r1.y)
          bar_hit_series = int(i), bar_hit_index = int(k);
        if (s.draw_point_labels && k < s.point_labels.size() && !s.point_labels[k].empty()) {
          const char* t = s.point_labels[k].c_str();
          const ImVec2 ts = ImGui::CalcTextSize(t);
          ImVec2 at = horizontal ? ImVec2{r1.x + 4.0f, (r0.y + r1.y - ts.y) / 2} : ImVec2{(r0.x + r1.x - ts.x) / 2, r0.y - ts.y - 1.0f};
          if (horizontal && at.x + ts.x > area.x1 - 2.0f) at.x = r1.x - ts.x - 4.0f;  // inside the bar
          dl->AddText(at, text_col, t);
        }
        hit_px.push_back(horizontal ? ImVec2{r1.x, (r0.y + r1.y) / 2} : ImVec2{(r0.x + r1.x) / 2, r0.y});
        hit_ref.push_back({int(i), int(k)});
      }
      continue;
    }
    std::vector<ImVec2> run;  // a line breaks where a point cannot be shown (<= 0 on log)
    for (size_t k = 0; k < n; ++k) {
      auto px = mx.to_pixel(s.xs[k]), py = my.to_pixel(s.ys[k]);
      if (!px || !py) {
        if (s.kind == SeriesKind::line) polyline(dl, run, s.color, s.thickness, s.dashed);
        run.clear();
        continue;
      }
      run.push_back({*px, *py});
      hit_px.push_back({*px, *py});
      hit_ref.push_back({int(i), int(k)});
    }
    if (s.kind == SeriesKind::line) polyline(dl, run, s.color, s.thickness, s.dashed);
  }
  // Markers on top of every line, labels beside them.
  for (size_t h = 0; h < hit_px.size(); ++h) {
    const Series& s = spec.series[hit_ref[h].series];
    if (s.kind == SeriesKind::bars) continue;
    const size_t k = size_t(hit_ref[h].index);
    draw_marker(dl, hit_px[h], s.marker, k < s.point_colors.size() ? s.point_colors[k] : s.color, 3.5f);
    if (s.draw_point_labels && k < s.point_labels.size() && !s.point_labels[k].empty())
      dl->AddText({hit_px[h].x + 6.0f, hit_px[h].y - line_h - 1.0f}, s.color, s.point_labels[k].c_str());
  }
  if (hit_px.empty() && spec.refs.empty()) {
    const ImVec2 ts = ImGui::CalcTextSize(spec.empty_text.c_str());
    dl->AddText({(area.x0 + area.x1 - ts.x) / 2, (area.y0 + area.y1 - ts.y) / 2}, muted_col, spec.empty_text.c_str());
  }

  // Hover: crosshair, the nearest point highlighted, its values in a tooltip.
  const bool in_area = item_hovered && Rect{area.x0, area.y0, area.x1, area.y1}.contains(mouse.x, mouse.y);
  if (in_area) {
    if (bar_hit_series >= 0) {
      hover.series = bar_hit_series, hover.index = bar_hit_index;
    } else if (int h = nearest_index(hit_px, mouse.x, mouse.y, 24.0f); h >= 0) {
      hover.series = hit_ref[h].series, hover.index = hit_ref[h].index;
    }
    if (spec.crosshair) {
      const ImU32 cross = with_alpha(text_col, 0.35f);
      dl->AddLine({mouse.x, area.y0}, {mouse.x, area.y1}, cross);
      dl->AddLine({area.x0, mouse.y}, {area.x1, mouse.y}, cross);
    }
  }
  dl->PopClipRect();
  if (hover.series >= 0) {
    const Series& s = spec.series[hover.series];
    for (size_t h = 0; h < hit_ref.size(); ++h)
      if (hit_ref[h].series == hover.series && hit_ref[h].index == hover.index && s.kind != SeriesKind::bars) {
        const SmoothLines smooth(dl);
        dl->AddCircle(hit_px[h], 7.0f, text_col, 16, 1.5f);
      }
    const size_t k = size_t(hover.index);
    const bool horizontal_bar = s.kind == SeriesKind::bars && y_cat;
    const Axis& pos_axis = horizontal_bar ? spec.y : spec.x;
    const Axis& val_axis = horizontal_bar ? spec.x : spec.y;
    const double pos = s.xs[k], val = s.ys[k];
    ImGui::BeginTooltip();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(k < s.point_colors.size() ? s.point_colors[k] : s.color), "%s",
                       s.name.c_str());
    if (!pos_axis.categories.empty() && pos >= 0 && size_t(pos) < pos_axis.categories.size())
      ImGui::TextUnformatted(pos_axis.categories[size_t(pos)].c_str());
    else
      ImGui::Text("%s: %s %s", pos_axis.title.c_str(), format_value(pos).c_str(), pos_axis.unit.c_str());
    ImGui::Text("%s: %s %s", val_axis.title.c_str(), format_value(val).c_str(), val_axis.unit.c_str());
    if (k < s.point_labels.size() && !s.point_labels[k].empty()) ImGui::TextUnformatted(s.point_labels[k].c_str());
    ImGui::EndTooltip();
  }

  // Legend: swatch (line + marker, or a block for bars), name; hidden entries greyed.
  auto draw_swatch = [&](const Series& s, ImVec2 p0, bool hidden) {
    const ImU32 c = hidden ? muted_col : s.color;
    const float cy = p0.y + line_h / 2 + 1.0f;
    if (s.kind == SeriesKind::bars) {
      dl->AddRectFilled({p0.x + 2, p0.y + 3}, {p0.x + swatch - 2, p0.y + line_h - 1}, c, 2.0f);
    } else {
      if (s.kind == SeriesKind::line) polyline(dl, {{p0.x, cy}, {p0.x + swatch, cy}}, c, 2.0f, s.dashed);
      draw_marker(dl, {p0.x + swatch / 2, cy}, s.marker, c, 3.5f);
    }
  };
  if (folded) {
    const Rect& r = boxes[0];
    dl->AddText({r.x0 + 2.0f, r.y0}, text_col, folded_text.c_str());
    if (item_hovered && r.contains(mouse.x, mouse.y)) {
      ImGui::BeginTooltip();
      for (int e : shown_entries) {
        const LegendEntry& le = legend[e];
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(le.hidden ? muted_col : spec.series[le.first_series].color),
                           "%s %s", le.hidden ? "\xE2\x96\xA1" : "\xE2\x96\xA0", le.name.c_str());
      }
      ImGui::TextDisabled("click to show or hide series");
      ImGui::EndTooltip();
      if (clicked) ImGui::OpenPopup("##legend");
    }
  } else {
    for (size_t b = 0; b < boxes.size(); ++b) {
      const LegendEntry& e = legend[shown_entries[b]];
      const Rect& r = boxes[b];
      draw_swatch(spec.series[e.first_series], {r.x0, r.y0}, e.hidden);
      dl->AddText({r.x0 + swatch + 4.0f, r.y0}, e.hidden ? muted_col : text_col, e.name.c_str());
      if (e.hidden) dl->AddLine({r.x0 + swatch + 4.0f, (r.y0 + r.y1) / 2}, {r.x1, (r.y0 + r.y1) / 2}, muted_col);
    }
    if (item_hovered) {
      const int hit = legend_hit(boxes, mouse.x, mouse.y);
      if (hit >= 0) {
        const LegendEntry& e = legend[shown_entries[hit]];
        ImGui::SetTooltip("click to %s '%s'", e.hidden ? "show" : "hide", e.name.c_str());
        if (clicked) storage->SetBool(e.key, !e.hidden);
      } else if (clicked && hover.series >= 0) {
        hover.clicked = true;
      }
    }
  }
  if (ImGui::BeginPopup("##legend")) {
    for (int e : shown_entries) {
      bool on = !storage->GetBool(legend[e].key, false);
      ImGui::PushStyleColor(ImGuiCol_Text, spec.series[legend[e].first_series].color);
      if (ImGui::Checkbox(legend[e].name.c_str(), &on)) storage->SetBool(legend[e].key, !on);
      ImGui::PopStyleColor();
    }
    ImGui::EndPopup();
  }
  ImGui::PopID();
  return hover;
}

}  // namespace gs::gui::plot
