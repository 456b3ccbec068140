// Where each view's window goes, and how large the text is, for a given window size.
//
// The views are tiled into columns that fill the work area (below the menu bar, above the
// status bar): whatever subset is shown, the columns without a shown view drop out and the
// others take their width, and in each column the shown views share its height. Which columns
// there are depends on the room: four at 1600x1000 and up (each view roughly 400x450 px at
// scale 1), three below that, where four would cut titles and tables.
//
// The text scale follows the window: 15 px text fits the four-column layout at 1600x1000; a
// larger window gets larger text (at a damped rate: a big monitor is also used for more
// content), a smaller one down to 13 px, times the monitor's content scale (HiDPI).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include <imgui.h>

#include "gui/core/settings.hpp"

namespace gs::gui {

struct Rect {
  ImVec2 pos, size;
  float right() const { return pos.x + size.x; }
  float bottom() const { return pos.y + size.y; }
};

using ViewRects = std::array<Rect, size_t(ViewId::count_)>;
using ShownViews = std::array<bool, size_t(ViewId::count_)>;

enum class LayoutKind : uint8_t { three_columns, four_columns };
const char* layout_kind_name(LayoutKind k);

// The layout for a work area of this size in pixels at this UI scale (the area in unscaled
// pixels is what decides).
LayoutKind choose_layout(ImVec2 work_size, float scale);

// The shown views tiled into `work`: every shown view gets a rectangle of whole pixels, the
// rectangles do not overlap and together cover `work` exactly. Views not shown get a zero rect.
ViewRects tile_views(const ShownViews& shown, Rect work, LayoutKind kind);

// The focus layout (a step's lesson first): the ladder down the left, with the window of the
// other views' tabs under it when there is one (`more`); the lesson across the top of the rest,
// `lesson_share` of its height (the shell passes what the lesson's text needs, within
// kLessonShare), and under it the step's focus views side by side, the first a little wider.
// Whole pixels, no overlap, covering `work`.
struct FocusRects {
  Rect ladder, lesson, more;  // more: size 0 without one
  std::vector<Rect> focus;    // in the order given
};
// The lesson's share of the height over the focus views: at least the first, so they keep room to draw
// in, and at most the second.
inline constexpr float kLessonShare[2] = {0.30f, 0.60f};
inline constexpr float kDefaultLessonShare = 0.44f;
FocusRects tile_focus(size_t focus_views, bool more, Rect work, LayoutKind kind,
                      float lesson_share = kDefaultLessonShare);

// `r` moved (and shrunk where it is larger) so that it lies inside `area`.
Rect clamp_into(Rect r, Rect area);

// The UI scale for a window of this many pixels (its framebuffer) on a monitor with this
// content scale: text is 15 px x scale, rounded to whole pixels (the font atlas is rasterised
// at one texel per pixel; theme.cpp), so the result is a multiple of 1/15.
float choose_ui_scale(int window_width, int window_height, float content_scale);

}  // namespace gs::gui
