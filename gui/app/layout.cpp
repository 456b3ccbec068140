#include "gui/app/layout.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace gs::gui {

namespace {

// A view's default place (views.def): its column in each layout and its share of the column's
// height.
struct Place {
  int column4;
  float height4;
  int column3;
  float height3;
};
constexpr Place kPlaces[] = {
#define VIEW(id, cli_name, title, column4, height4, column3, height3) {column4, height4, column3, height3},
#include "gui/core/views.def"
#undef VIEW
};

// The columns' shares of the width. Four columns: what to run (ladder) and who runs it
// (warps); the program (transport, PTX) and what went wrong; memory (shared memory, TMA);
// results (fragments, throughput). At 1600x1000 the ladder's column is 376 px: its editor fits
// without wrapping its rows, and the transport's 200 px show the event under the cursor in full.
constexpr float kFourColumns[] = {0.235f, 0.285f, 0.25f, 0.23f};
// Below 1500 unscaled pixels of width four columns cut the ladder's titles and squeeze the
// tables: three wider columns. Throughput joins what to run (it shows what Run on GPU
// measured), the fragments join memory (both show where the tile's bytes are).
constexpr float kThreeColumns[] = {0.30f, 0.38f, 0.32f};

constexpr bool places_fit() {
  for (const Place& p : kPlaces)
    if (p.column4 < 0 || size_t(p.column4) >= std::size(kFourColumns) || p.column3 < 0 ||
        size_t(p.column3) >= std::size(kThreeColumns) || !(p.height4 > 0.0f) || !(p.height3 > 0.0f))
      return false;
  return true;
}
static_assert(places_fit(), "views.def: a view's column is outside its layout, or its height share is not positive");

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
  const bool four = kind == LayoutKind::four_columns;
  const size_t ncolumns = four ? std::size(kFourColumns) : std::size(kThreeColumns);
  // The columns with a shown view, and in each the shown views in views.def's order.
  std::vector<std::vector<ViewId>> views(ncolumns);
  std::vector<std::vector<float>> heights(ncolumns);
  for (size_t v = 0; v < std::size(kPlaces); ++v) {
    if (!shown[v]) continue;
    const size_t column = size_t(four ? kPlaces[v].column4 : kPlaces[v].column3);
    views[column].push_back(ViewId(v));
    heights[column].push_back(four ? kPlaces[v].height4 : kPlaces[v].height3);
  }
  std::vector<size_t> columns;
  std::vector<float> widths;
  for (size_t c = 0; c < ncolumns; ++c)
    if (!views[c].empty()) {
      columns.push_back(c);
      widths.push_back(four ? kFourColumns[c] : kThreeColumns[c]);
    }
  const std::vector<float> xs = edges(widths, work.pos.x, work.size.x);
  for (size_t i = 0; i < columns.size(); ++i) {
    const size_t c = columns[i];
    const std::vector<float> ys = edges(heights[c], work.pos.y, work.size.y);
    for (size_t j = 0; j < views[c].size(); ++j)
      out[size_t(views[c][j])] = {ImVec2(xs[i], ys[j]), ImVec2(xs[i + 1] - xs[i], ys[j + 1] - ys[j])};
  }
  return out;
}

FocusRects tile_focus(size_t focus_views, bool more, Rect work, LayoutKind kind, float lesson_share) {
  FocusRects out;
  // The ladder's column as wide as in the three- and four-column layouts; the lesson gets the
  // share of the height the shell measured its text to need.
  const bool four = kind == LayoutKind::four_columns;
  const std::vector<float> xs = edges({four ? kFourColumns[0] : kThreeColumns[0], four ? 0.765f : 0.70f}, work.pos.x,
                                      work.size.x);
  const std::vector<float> left = edges(more ? std::vector<float>{0.64f, 0.36f} : std::vector<float>{1.0f}, work.pos.y,
                                        work.size.y);
  out.ladder = {ImVec2(xs[0], left[0]), ImVec2(xs[1] - xs[0], left[1] - left[0])};
  if (more) out.more = {ImVec2(xs[0], left[1]), ImVec2(xs[1] - xs[0], left[2] - left[1])};
  const float share = std::clamp(lesson_share, kLessonShare[0], kLessonShare[1]);
  const std::vector<float> right =
      edges(focus_views ? std::vector<float>{share, 1.0f - share} : std::vector<float>{1.0f}, work.pos.y, work.size.y);
  out.lesson = {ImVec2(xs[1], right[0]), ImVec2(xs[2] - xs[1], right[1] - right[0])};
  if (focus_views == 0) return out;
  std::vector<float> weights(focus_views, 1.0f);
  weights[0] = 1.3f;
  const std::vector<float> fx = edges(weights, xs[1], xs[2] - xs[1]);
  for (size_t i = 0; i < focus_views; ++i)
    out.focus.push_back({ImVec2(fx[i], right[1]), ImVec2(fx[i + 1] - fx[i], right[2] - right[1])});
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
