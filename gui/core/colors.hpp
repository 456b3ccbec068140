// The colours that carry meaning across views (a warp is the same hue everywhere), as plain
// RGB so the headless tests can predict the pixels a view draws. views.hpp wraps them as ImU32.
#pragma once

#include <array>
#include <cstdint>

namespace gs::gui {

using Rgb = std::array<uint8_t, 3>;

// A distinct hue per warp (twelve, then they repeat).
Rgb warp_rgb(uint32_t warp);
// The warp's hue, lanes from dark to light, so one warp reads as one family of colours.
Rgb lane_rgb(uint32_t warp, uint32_t lane);
// A distinct colour per CTA (linear id), for the schedule view's tiles.
Rgb cta_rgb(uint32_t cta);

// The colours of states, by theme (views.hpp's ok_color .. muted_color; the light ones in the
// pictures): fine, waiting, wrong, quiet.
Rgb ok_rgb(bool dark);
Rgb warn_rgb(bool dark);
Rgb error_rgb(bool dark);
Rgb muted_rgb(bool dark);

}  // namespace gs::gui
