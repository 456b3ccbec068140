#include "gui/core/colors.hpp"

#include <cmath>
#include <algorithm>
#include <iterator>

namespace gs::gui {

namespace {

// Twelve hues far enough apart to tell warps apart at a glance on both themes.
constexpr float kWarpHues[] = {0.58f, 0.08f, 0.33f, 0.83f, 0.14f, 0.50f, 0.95f, 0.25f, 0.70f, 0.02f, 0.42f, 0.90f};

// HSV (all in [0, 1]) to 8-bit RGB, the usual six-sector formula.
Rgb hsv_to_rgb(float h, float s, float v) {
  const float hh = std::fmod(h, 1.0f) * 6.0f;
  const int sector = int(hh) % 6;
  const float f = hh - std::floor(hh);
  const float p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  float r = v, g = t, b = p;
  switch (sector) {
    case 0: r = v, g = t, b = p; break;
    case 1: r = q, g = v, b = p; break;
    case 2: r = p, g = v, b = t; break;
    case 3: r = p, g = q, b = v; break;
    case 4: r = t, g = p, b = v; break;
    default: r = v, g = p, b = q; break;
  }
  auto byte = [](float x) { return uint8_t(std::lround(std::fmin(1.0f, std::fmax(0.0f, x)) * 255.0f)); };
  return {byte(r), byte(g), byte(b)};
}

}  // namespace

Rgb warp_rgb(uint32_t warp) { return hsv_to_rgb(kWarpHues[warp % std::size(kWarpHues)], 0.62f, 0.88f); }

Rgb lane_rgb(uint32_t warp, uint32_t lane) {
  const float t = float(std::min<uint32_t>(lane, 31)) / 31.0f;  // lighter for higher lanes
  return hsv_to_rgb(kWarpHues[warp % std::size(kWarpHues)], 0.75f - 0.35f * t, 0.45f + 0.5f * t);
}


Rgb cta_rgb(uint32_t cta) {
  // Golden-ratio steps of hue keep neighbouring CTAs far apart at any count; three levels of
  // saturation and value tell apart the CTAs whose hues come close again.
  const float hue = std::fmod(0.11f + 0.6180339f * float(cta), 1.0f);
  const uint32_t level = cta / 7 % 3;
  return hsv_to_rgb(hue, 0.45f + 0.15f * float(level), 0.92f - 0.12f * float(level));
}

Rgb ok_rgb(bool dark) { return dark ? Rgb{110, 200, 120} : Rgb{30, 130, 50}; }
Rgb warn_rgb(bool dark) { return dark ? Rgb{235, 190, 90} : Rgb{170, 110, 0}; }
Rgb error_rgb(bool dark) { return dark ? Rgb{240, 110, 100} : Rgb{190, 30, 30}; }
Rgb muted_rgb(bool dark) { return dark ? Rgb{140, 140, 150} : Rgb{110, 110, 120}; }

}  // namespace gs::gui
