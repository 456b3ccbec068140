// The parts of one plot::draw (plot_draw.cpp), each with one job: the legend's entries and
// boxes, the axes (ranges, margins, grid, ticks, titles), the reference lines, the series
// (bars, lines, markers), the hover (crosshair, highlighted point, tooltip) and the legend's
// drawing and clicks (plot_legend.cpp). Internal to gui/widgets.
#pragma once

#include <string>
#include <vector>

#include "gui/widgets/plot.hpp"

namespace gs::gui::plot::parts {

// What every part of one draw reads: the spec, where the plot is, the pointer and the colours.
struct Frame {
  const PlotSpec& spec;
  ImDrawList* dl;
  ImGuiStorage* storage;
  ImVec2 origin, size, mouse;
  bool item_hovered, clicked;
  ImU32 text_col, muted_col, grid_major, grid_minor;
  float line_h, swatch;
};

ImU32 with_alpha(ImU32 c, float a);

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

void polyline(ImDrawList* dl, const std::vector<ImVec2>& pts, ImU32 col, float thickness, bool dashed);
void draw_marker(ImDrawList* dl, ImVec2 p, Marker m, ImU32 col, float r);

// One entry per distinct series name, and which are hidden (clicked off).
struct LegendEntry {
  std::string name;
  int first_series = -1;
  ImGuiID key = 0;
  bool hidden = false;
};

struct Legend {
  std::vector<LegendEntry> entries;
  std::vector<int> entry_of;       // per series: its entry
  std::vector<int> shown_entries;  // the entries in the legend, in order
  std::vector<Rect> boxes;         // their boxes (or the one folded box)
  bool folded = false;             // too many rows: one "N series ▾" box with a popup
  std::string folded_text;
  float header_h = 0.0f;           // the y title's and the legend's height above the area
  bool visible(size_t series) const { return !entries[size_t(entry_of[series])].hidden; }
};
Legend layout_legend(const Frame& f);
// Draws the legend; a click on an entry shows or hides its series, a click elsewhere on a
// hovered point sets hover.clicked.
void draw_legend(const Frame& f, const Legend& legend, PlotHover& hover);

// The plot area and its axes.
struct Axes {
  Rect area;
  AxisMap mx, my;
  bool x_cat = false, y_cat = false;
  std::vector<Tick> xticks, yticks;
};

// The drawn points (for hover) and the bar under the pointer.
struct Hits {
  struct Point {
    int series, index;
  };
  std::vector<ImVec2> px;
  std::vector<Point> ref;
  int bar_series = -1, bar_index = -1;
};

// The hovered point (the bar under the pointer, else the nearest point), the crosshair inside
// the clip, then (after it) the highlight ring and the tooltip.
PlotHover find_hover(const Frame& f, const Axes& axes, const Hits& hits);
void draw_hover(const Frame& f, const Axes& axes, const Hits& hits, const PlotHover& hover);

}  // namespace gs::gui::plot::parts
