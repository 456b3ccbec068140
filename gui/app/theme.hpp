// Colours, fonts and HiDPI scaling of the shell.
#pragma once

#include <string>

#include <imgui.h>

#include "gui/core/settings.hpp"

namespace gs::gui {

struct Fonts {
  ImFont* regular = nullptr;
  ImFont* mono = nullptr;
  ImFont* bold = nullptr;
  ImFont* mono_small = nullptr;  // Sans Mono at 13 px x scale: the PTX view's execution counts
  std::string warning;  // set when a font file was missing and ImGui's built-in font is used
};

// Loads DejaVu Sans / Sans Mono / Sans Bold (the assets folder's fonts/ first, then
// fonts-dejavu-core's /usr/share/fonts/truetype/dejavu and the Fedora and Arch folders) at 15 px × scale, and Sans Mono at 13 px × scale for small
// print (its own size, not a scaled 15 px font: scaled glyphs would be sampled between texels).
// Must run before the first frame.
Fonts load_fonts(float scale);

// Dark or light colours on ImGui's style, with our rounding and spacing, scaled for HiDPI.
void apply_theme(Theme theme, float scale);

}  // namespace gs::gui
