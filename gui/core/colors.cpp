#include "gui/core/colors.hpp"

#include <algorithm>
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

Rgb series_rgb(uint32_t slot, bool dark) {
  static constexpr Rgb kSeries[] = {{76, 156, 255}, {255, 140, 50}, {80, 200, 120},  {220, 90, 200},
                                    {240, 200, 60}, {90, 210, 220}, {235, 85, 85},   {160, 130, 255}};
  const Rgb c = kSeries[slot % std::size(kSeries)];
  return dark ? c : readable_on(c, window_rgb(false));
}

Rgb limit_rgb(uint32_t part, bool dark) {
  // latency grey-blue, issue teal, the L1 data path violet, its tag stage amber, tensor cores
  // green, L2 sky blue, HBM red, stores pink: the memory levels blue to red, compute green.
  static constexpr Rgb kLimits[] = {{140, 150, 175}, {60, 190, 170}, {170, 120, 240}, {225, 170, 60},
                                    {90, 200, 90},   {80, 160, 250}, {235, 80, 80},   {240, 130, 190}};
  const Rgb c = kLimits[part % std::size(kLimits)];
  return dark ? c : readable_on(c, window_rgb(false));
}

Rgb warp_text_rgb(uint32_t warp, bool dark) { return readable_on(warp_rgb(warp), window_rgb(dark)); }

// theme.cpp's WindowBg, 0.105/0.11/0.125 and 0.97/0.97/0.965, in bytes.
Rgb window_rgb(bool dark) { return dark ? Rgb{27, 28, 32} : Rgb{247, 247, 246}; }

double contrast_ratio(const Rgb& a, const Rgb& b) {
  // Relative luminance of sRGB bytes (WCAG 2.x).
  auto luminance = [](const Rgb& c) {
    auto lin = [](uint8_t v) {
      const double s = v / 255.0;
      return s <= 0.03928 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  };
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

Rgb readable_on(const Rgb& c, const Rgb& background) {
  const bool light_background = contrast_ratio(background, {0, 0, 0}) > contrast_ratio(background, {255, 255, 255});
  Rgb out = c;
  // Toward black on a light background, toward white on a dark one, in small steps.
  for (int step = 1; step <= 20 && contrast_ratio(out, background) < kMinTextContrast; ++step) {
    const float t = float(step) / 20.0f;
    for (int i = 0; i < 3; ++i) {
      const float target = light_background ? 0.0f : 255.0f;
      out[size_t(i)] = uint8_t(std::lround(float(c[size_t(i)]) + (target - float(c[size_t(i)])) * t));
    }
  }
  return out;
}

Rgb ok_rgb(bool dark) { return dark ? Rgb{110, 200, 120} : Rgb{30, 130, 50}; }
Rgb warn_rgb(bool dark) { return dark ? Rgb{235, 190, 90} : Rgb{150, 90, 0}; }  // amber that reads on white
Rgb error_rgb(bool dark) { return dark ? Rgb{240, 110, 100} : Rgb{190, 30, 30}; }
Rgb muted_rgb(bool dark) { return dark ? Rgb{140, 140, 150} : Rgb{110, 110, 120}; }

Rgb heat_rgb(double t) {
  // Five stops of a viridis-like ramp: lightness rises with t, so the order reads in grey too.
  static constexpr Rgb kStops[] = {{48, 18, 110}, {40, 90, 160}, {30, 150, 140}, {110, 195, 80}, {245, 225, 40}};
  const double x = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * double(std::size(kStops) - 1);
  const size_t i = std::min(size_t(x), std::size(kStops) - 2);
  const double f = x - double(i);
  Rgb out{};
  for (size_t c = 0; c < 3; ++c)
    out[c] = uint8_t(std::lround(double(kStops[i][c]) + (double(kStops[i + 1][c]) - double(kStops[i][c])) * f));
  return out;
}

Rgb best_rgb(bool dark) { return dark ? Rgb{255, 90, 200} : Rgb{200, 0, 140}; }

}  // namespace gs::gui
