#include "gui/app/layout.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace gs::gui {

namespace {

// A view in a column and its share of the column's height.
struct Cell {
  ViewId view;
  float weight;
};
// A column of the layout and its share of the width.
struct Column {
  float weight;
  std::initializer_list<Cell> cells;
};

// Column 1: what to run (ladder) and who runs it (warps). Column 2: the program (transport,
// PTX) and what went wrong. Column 3: memory (shared memory, TMA). Column 4: results
// (fragments, throughput).
// At 1600x1000 the ladder's column is 376 px: its editor fits without wrapping its rows, and
// the transport's 200 px show the event under the cursor in full.
const Column kFourColumns[] = {
    {0.235f, {{ViewId::ladder, 0.58f}, {ViewId::warps, 0.42f}}},
    {0.285f, {{ViewId::transport, 0.21f}, {ViewId::ptx, 0.54f}, {ViewId::problems, 0.25f}}},
    {0.25f, {{ViewId::shared_memory, 0.58f}, {ViewId::tma_pipeline, 0.42f}}},
    {0.23f, {{ViewId::fragments, 0.50f}, {ViewId::throughput, 0.50f}}},
};

// Below 1500 unscaled pixels of width four columns cut the ladder's titles and squeeze the
// tables: three wider columns, three views each. Throughput joins what to run (it shows what
// Run on GPU measured), the fragments join memory (both show where the tile's bytes are).
const Column kThreeColumns[] = {
    {0.30f, {{ViewId::ladder, 0.49f}, {ViewId::warps, 0.25f}, {ViewId::throughput, 0.26f}}},
    {0.38f, {{ViewId::transport, 0.24f}, {ViewId::ptx, 0.50f}, {ViewId::problems, 0.26f}}},
    {0.32f, {{ViewId::shared_memory, 0.38f}, {ViewId::tma_pipeline, 0.30f}, {ViewId::fragments, 0.32f}}},
};

// Edges of `n` slices of [lo, lo + length) with these weights, on whole pixels (the last edge
// is exactly lo + length), so neighbouring windows share their edges.
std::vector<float> edges(const std::vector<float>& weights, float lo, float length) {
  float total = 0.0f;
  for (float w : weights) total += w;
  std::vector<float> e{lo};
  float acc = 0.0f;
  for (size_t i = 0; i < weights.size(); ++i) {
    acc += weights[i];
    e.push_back(i + 1 == weights.size() ? lo + length : std::floor(lo + length * acc / total));
  }
  return e;
}

}  // namespace

const char* layout_kind_name(LayoutKind k) {
  return k == LayoutKind::four_columns ? "four-columns" : "three-columns";
}

LayoutKind choose_layout(ImVec2 work_size, float scale) {
  const float width = work_size.x / std::max(scale, 0.1f);
  return width >= 1500.0f ? LayoutKind::four_columns : LayoutKind::three_columns;
}

ViewRects tile_views(const ShownViews& shown, Rect work, LayoutKind kind) {
  ViewRects out{};
  const Column* begin = kind == LayoutKind::four_columns ? std::begin(kFourColumns) : std::begin(kThreeColumns);
  const Column* end = kind == LayoutKind::four_columns ? std::end(kFourColumns) : std::end(kThreeColumns);
  // The columns with a shown view, and in each the shown views.
  std::vector<const Column*> columns;
  std::vector<float> widths;
  for (const Column* c = begin; c != end; ++c) {
    if (std::none_of(c->cells.begin(), c->cells.end(), [&](const Cell& cell) { return shown[size_t(cell.view)]; }))
      continue;
    columns.push_back(c);
    widths.push_back(c->weight);
  }
  const std::vector<float> xs = edges(widths, work.pos.x, work.size.x);
  for (size_t i = 0; i < columns.size(); ++i) {
    std::vector<ViewId> views;
    std::vector<float> heights;
    for (const Cell& cell : columns[i]->cells)
      if (shown[size_t(cell.view)]) {
        views.push_back(cell.view);
        heights.push_back(cell.weight);
      }
    const std::vector<float> ys = edges(heights, work.pos.y, work.size.y);
    for (size_t j = 0; j < views.size(); ++j)
      out[size_t(views[j])] = {ImVec2(xs[i], ys[j]), ImVec2(xs[i + 1] - xs[i], ys[j + 1] - ys[j])};
  }
  return out;
}

Rect clamp_into(Rect r, Rect area) {
  r.size.x = std::clamp(r.size.x, 0.0f, area.size.x);
  r.size.y = std::clamp(r.size.y, 0.0f, area.size.y);
  r.pos.x = std::clamp(r.pos.x, area.pos.x, area.right() - r.size.x);
  r.pos.y = std::clamp(r.pos.y, area.pos.y, area.bottom() - r.size.y);
  return r;
}

float choose_ui_scale(int window_width, int window_height, float content_scale) {
  const float cs = std::clamp(std::isfinite(content_scale) ? content_scale : 1.0f, 1.0f, 4.0f);
  // The window in unscaled pixels against the 1600x1000 that 15 px text was laid out for.
  const float fit = std::min(float(window_width) / cs / 1600.0f, float(window_height) / cs / 1000.0f);
  // Growing: 60% of the extra room goes to larger text, the rest to more content.
  const float size = fit >= 1.0f ? 1.0f + (fit - 1.0f) * 0.6f : fit;
  const float px = std::clamp(std::round(15.0f * size * cs), 13.0f, 15.0f * 3.0f * cs);
  return px / 15.0f;
}

}  // namespace gs::gui
