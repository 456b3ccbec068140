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

// The hue of each measured (kernel, shape) series of the Throughput view, eight then repeating,
// kept apart from each other and from cuBLAS's grey. On the light theme each is darkened until
// text in it reads on the window (readable_on): the bright yellow and cyan of the dark theme
// are unreadable on white.
Rgb series_rgb(uint32_t slot, bool dark);
// The hue of each limit of the model's prediction (timing::breakdown_rows order: latency, issue,
// the L1 data path, its tag stage, tensor cores, L2, HBM, stores), the same on the Throughput view's
// bars and their legend; darkened on the light theme as series_rgb is.
Rgb limit_rgb(uint32_t part, bool dark);
// Text in a warp's hue: warp_rgb, darkened on the light theme as series_rgb is.
Rgb warp_text_rgb(uint32_t warp, bool dark);

// The theme's window background (theme.cpp's ImGuiCol_WindowBg) and its text.
Rgb window_rgb(bool dark);
// WCAG 2's contrast ratio of two colours (1 to 21); 4.5 is its minimum for body text.
double contrast_ratio(const Rgb& a, const Rgb& b);
inline constexpr double kMinTextContrast = 4.5;
// `c` darkened (light background) or lightened (dark one) just enough to reach kMinTextContrast
// against `background`; `c` itself when it does already.
Rgb readable_on(const Rgb& c, const Rgb& background);

// The colours of states, by theme (views.hpp's ok_color .. muted_color; the light ones in the
// pictures): fine, waiting, wrong, quiet.
Rgb ok_rgb(bool dark);
Rgb warn_rgb(bool dark);
Rgb error_rgb(bool dark);
Rgb muted_rgb(bool dark);

// The Sweep view's heat map: t in [0, 1] from the slowest cell (dark blue) through teal and
// green to the fastest (yellow), the same on both themes (a cell carries its own background).
Rgb heat_rgb(double t);
// The outline that marks the fastest cell of a sweep: it stands out against every heat colour.
Rgb best_rgb(bool dark);

}  // namespace gs::gui
