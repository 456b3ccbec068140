// The plot's legend and hover (plot_parts.hpp): which series are shown, the legend's boxes and
// clicks, the point under the pointer and its tooltip.
#include <algorithm>
#include <cstdio>

#include "gui/widgets/plot_parts.hpp"

namespace gs::gui::plot::parts {

namespace {

std::string fmt_series_count(size_t n) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%zu series \xE2\x96\xBE", n);  // "▾": click for the list
  return buf;
}

// A legend swatch: line + marker, or a block for bars; greyed when hidden.
void draw_swatch(const Frame& f, const Series& s, ImVec2 p0, bool hidden) {
  const ImU32 c = hidden ? f.muted_col : s.color;
  const float cy = p0.y + f.line_h / 2 + 1.0f;
  if (s.kind == SeriesKind::bars) {
    f.dl->AddRectFilled({p0.x + 2, p0.y + 3}, {p0.x + f.swatch - 2, p0.y + f.line_h - 1}, c, 2.0f);
  } else {
    if (s.kind == SeriesKind::line) polyline(f.dl, {{p0.x, cy}, {p0.x + f.swatch, cy}}, c, 2.0f, s.dashed);
    draw_marker(f.dl, {p0.x + f.swatch / 2, cy}, s.marker, c, 3.5f);
  }
}

}  // namespace

Legend layout_legend(const Frame& f) {
  const PlotSpec& spec = f.spec;
  Legend l;
  l.entry_of.assign(spec.series.size(), -1);
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const Series& s = spec.series[i];
    auto it = std::find_if(l.entries.begin(), l.entries.end(), [&](const LegendEntry& e) { return e.name == s.name; });
    if (it == l.entries.end()) {
      const ImGuiID key = ImGui::GetID(("legend:" + s.name).c_str());
      l.entries.push_back({s.name, int(i), key, f.storage->GetBool(key, false)});
      it = l.entries.end() - 1;
    }
    l.entry_of[i] = int(it - l.entries.begin());
  }

  // Header: the y title at the left, then the legend, wrapping.
  const float line_h = f.line_h;
  const float y_title_w = spec.y.title.empty() ? 0.0f : ImGui::CalcTextSize(spec.y.title.c_str()).x + 16.0f;
  std::vector<float> widths;
  if (spec.legend)
    for (size_t e = 0; e < l.entries.size(); ++e)
      if (spec.series[size_t(l.entries[e].first_series)].in_legend) {
        l.shown_entries.push_back(int(e));
        widths.push_back(ImGui::CalcTextSize(l.entries[e].name.c_str()).x);
      }
  Rect header{f.origin.x + y_title_w, f.origin.y, f.origin.x + f.size.x, f.origin.y + line_h};
  // An entry too wide to stand beside the y title: the legend goes under it, the plot's width.
  const float widest = widths.empty() ? 0.0f : *std::max_element(widths.begin(), widths.end());
  if (y_title_w > 0.0f && f.swatch + 4.0f + widest > header.x1 - header.x0)
    header = {f.origin.x, f.origin.y + line_h + 2.0f, f.origin.x + f.size.x, f.origin.y + 2.0f * line_h + 2.0f};
  l.boxes = legend_layout(widths, header, line_h + 2.0f, f.swatch);
  l.folded = spec.legend_max_rows > 0 && !l.boxes.empty() &&
             l.boxes.back().y0 - header.y0 >= float(spec.legend_max_rows) * (line_h + 2.0f) - 0.5f;
  l.folded_text = fmt_series_count(l.shown_entries.size());
  if (l.folded) l.boxes = legend_layout({ImGui::CalcTextSize(l.folded_text.c_str()).x}, header, line_h + 2.0f, f.swatch);
  l.header_h = (spec.y.title.empty() && l.boxes.empty()) ? 0.0f : line_h + 4.0f;
  for (const Rect& b : l.boxes) l.header_h = std::max(l.header_h, b.y1 - f.origin.y + 4.0f);
  return l;
}

void draw_legend(const Frame& f, const Legend& legend, PlotHover& hover) {
  const PlotSpec& spec = f.spec;
  ImDrawList* dl = f.dl;
  if (legend.folded) {
    const Rect& r = legend.boxes[0];
    dl->AddText({r.x0 + 2.0f, r.y0}, f.text_col, legend.folded_text.c_str());
    if (f.item_hovered && r.contains(f.mouse.x, f.mouse.y)) {
      ImGui::BeginTooltip();
      for (int e : legend.shown_entries) {
        const LegendEntry& le = legend.entries[size_t(e)];
        ImGui::TextColored(
            ImGui::ColorConvertU32ToFloat4(le.hidden ? f.muted_col : spec.series[size_t(le.first_series)].color),
            "%s %s", le.hidden ? "\xE2\x96\xA1" : "\xE2\x96\xA0", le.name.c_str());
      }
      ImGui::TextDisabled("click to show or hide series");
      ImGui::EndTooltip();
      if (f.clicked) ImGui::OpenPopup("##legend");
    }
  } else {
    for (size_t b = 0; b < legend.boxes.size(); ++b) {
      const LegendEntry& e = legend.entries[size_t(legend.shown_entries[b])];
      const Rect& r = legend.boxes[b];
      draw_swatch(f, spec.series[size_t(e.first_series)], {r.x0, r.y0}, e.hidden);
      dl->AddText({r.x0 + f.swatch + 4.0f, r.y0}, e.hidden ? f.muted_col : f.text_col, e.name.c_str());
      if (e.hidden) dl->AddLine({r.x0 + f.swatch + 4.0f, (r.y0 + r.y1) / 2}, {r.x1, (r.y0 + r.y1) / 2}, f.muted_col);
    }
    if (f.item_hovered) {
      const int hit = legend_hit(legend.boxes, f.mouse.x, f.mouse.y);
      if (hit >= 0) {
        const LegendEntry& e = legend.entries[size_t(legend.shown_entries[size_t(hit)])];
        ImGui::SetTooltip("click to %s '%s'", e.hidden ? "show" : "hide", e.name.c_str());
        if (f.clicked) f.storage->SetBool(e.key, !e.hidden);
      } else if (f.clicked && hover.series >= 0) {
        hover.clicked = true;
      }
    }
  }
  if (ImGui::BeginPopup("##legend")) {
    for (int e : legend.shown_entries) {
      const LegendEntry& le = legend.entries[size_t(e)];
      bool on = !f.storage->GetBool(le.key, false);
      ImGui::PushStyleColor(ImGuiCol_Text, spec.series[size_t(le.first_series)].color);
      if (ImGui::Checkbox(le.name.c_str(), &on)) f.storage->SetBool(le.key, !on);
      ImGui::PopStyleColor();
    }
    ImGui::EndPopup();
  }
}

PlotHover find_hover(const Frame& f, const Axes& axes, const Hits& hits) {
  PlotHover hover;
  const Rect& area = axes.area;
  if (!f.item_hovered || !area.contains(f.mouse.x, f.mouse.y)) return hover;
  if (hits.bar_series >= 0) {
    hover.series = hits.bar_series, hover.index = hits.bar_index;
  } else if (int h = nearest_index(hits.px, f.mouse.x, f.mouse.y, 24.0f); h >= 0) {
    hover.series = hits.ref[size_t(h)].series, hover.index = hits.ref[size_t(h)].index;
  }
  if (f.spec.crosshair) {
    const ImU32 cross = with_alpha(f.text_col, 0.35f);
    f.dl->AddLine({f.mouse.x, area.y0}, {f.mouse.x, area.y1}, cross);
    f.dl->AddLine({area.x0, f.mouse.y}, {area.x1, f.mouse.y}, cross);
  }
  return hover;
}

void draw_hover(const Frame& f, const Axes& axes, const Hits& hits, const PlotHover& hover) {
  if (hover.series < 0) return;
  const PlotSpec& spec = f.spec;
  const Series& s = spec.series[size_t(hover.series)];
  for (size_t h = 0; h < hits.ref.size(); ++h)
    if (hits.ref[h].series == hover.series && hits.ref[h].index == hover.index && s.kind != SeriesKind::bars) {
      const SmoothLines smooth(f.dl);
      f.dl->AddCircle(hits.px[h], 7.0f, f.text_col, 16, 1.5f);
    }
  const size_t k = size_t(hover.index);
  const bool horizontal_bar = s.kind == SeriesKind::bars && axes.y_cat;
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

}  // namespace gs::gui::plot::parts
