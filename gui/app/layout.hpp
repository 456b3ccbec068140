// Where each view's window goes by default: a four-column layout that fits all nine views in
// 1600×1000 (each gets roughly 400×450 px), or one view filling the window.
#pragma once

#include <imgui.h>

#include "gui/core/settings.hpp"

namespace gs::gui {

struct Rect {
  ImVec2 pos, size;
};

// The default rectangle of a view inside the work area (below the menu bar, above the status
// bar). `alone`: the only view shown, so it takes the whole area.
Rect default_view_rect(ViewId view, ImVec2 work_pos, ImVec2 work_size, bool alone);

}  // namespace gs::gui
