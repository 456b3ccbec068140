#include "gui/app/layout.hpp"

namespace gs::gui {

namespace {
// Fractions of the work area: x, y, w, h.
struct Frac {
  float x, y, w, h;
};
// Column 1: what to run (ladder) and who runs it (warps). Column 2: the program (transport, PTX)
// and what went wrong. Column 3: memory (shared memory, TMA). Column 4: results (fragments,
// throughput).
constexpr Frac kLayout[] = {
    /* ladder     */ {0.00f, 0.00f, 0.21f, 0.52f},
    /* ptx        */ {0.21f, 0.17f, 0.30f, 0.58f},
    /* transport  */ {0.21f, 0.00f, 0.30f, 0.17f},
    /* warps      */ {0.00f, 0.52f, 0.21f, 0.48f},
    /* smem       */ {0.51f, 0.00f, 0.25f, 0.58f},
    /* tma        */ {0.51f, 0.58f, 0.25f, 0.42f},
    /* fragments  */ {0.76f, 0.00f, 0.24f, 0.52f},
    /* throughput */ {0.76f, 0.52f, 0.24f, 0.48f},
    /* problems   */ {0.21f, 0.75f, 0.30f, 0.25f},
};
static_assert(std::size(kLayout) == size_t(ViewId::count_));
}  // namespace

Rect default_view_rect(ViewId view, ImVec2 pos, ImVec2 size, bool alone) {
  if (alone) return {pos, size};
  const Frac f = kLayout[size_t(view)];
  // Whole pixels, so neighbouring windows share edges exactly.
  const float x0 = float(int(pos.x + f.x * size.x)), y0 = float(int(pos.y + f.y * size.y));
  const float x1 = float(int(pos.x + (f.x + f.w) * size.x)), y1 = float(int(pos.y + (f.y + f.h) * size.y));
  return {ImVec2(x0, y0), ImVec2(x1 - x0, y1 - y0)};
}

}  // namespace gs::gui
