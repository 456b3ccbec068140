// Text colours read on their theme's window: every colour a view writes text in (the state
// colours, the Throughput view's series, a warp's hue as text) reaches WCAG 2's 4.5:1 against
// the window on both themes.
#include <catch2/catch.hpp>

#include "gui/core/colors.hpp"

using namespace gs::gui;

TEST_CASE("contrast_ratio is WCAG 2's", "[gui][colors]") {
  CHECK(contrast_ratio({0, 0, 0}, {255, 255, 255}) == Approx(21.0));
  CHECK(contrast_ratio({255, 255, 255}, {0, 0, 0}) == Approx(21.0));
  CHECK(contrast_ratio({119, 119, 119}, {255, 255, 255}) == Approx(4.48).epsilon(0.01));
}

TEST_CASE("every text colour reads on its theme's window, the light theme's yellows included", "[gui][colors]") {
  for (const bool dark : {false, true}) {
    INFO((dark ? "dark" : "light"));
    const Rgb window = window_rgb(dark);
    CHECK(contrast_ratio(ok_rgb(dark), window) >= kMinTextContrast);
    CHECK(contrast_ratio(warn_rgb(dark), window) >= kMinTextContrast);
    CHECK(contrast_ratio(error_rgb(dark), window) >= kMinTextContrast);
    CHECK(contrast_ratio(muted_rgb(dark), window) >= kMinTextContrast);
    for (uint32_t slot = 0; slot < 8; ++slot) {
      INFO("series " << slot);
      CHECK(contrast_ratio(series_rgb(slot, dark), window) >= kMinTextContrast);
    }
    for (uint32_t warp = 0; warp < 12; ++warp) {
      INFO("warp " << warp);
      CHECK(contrast_ratio(warp_text_rgb(warp, dark), window) >= kMinTextContrast);
    }
  }
  // The dark theme keeps its bright series; the light one darkens the yellow, not the blue's hue.
  CHECK(series_rgb(4, true) == Rgb{240, 200, 60});
  const Rgb yellow = series_rgb(4, false);
  CHECK(yellow[0] > yellow[2]);
  CHECK(yellow[1] > yellow[2]);
}
