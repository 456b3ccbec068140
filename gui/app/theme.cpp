#include "gui/app/theme.hpp"

#include <cmath>

#include "gui/app/assets.hpp"

namespace gs::gui {

namespace {

ImFont* add_font(const char* file, float px, std::string& warning) {
  ImGuiIO& io = ImGui::GetIO();
  const std::string path = find_font(file);
  if (path.empty()) {
    warning += std::string("font ") + file + " not found (install fonts-dejavu-core); using ImGui's built-in font. ";
    ImFontConfig cfg;
    cfg.SizePixels = px;
    return io.Fonts->AddFontDefault(&cfg);
  }
  // Latin, Greek (for α/β in explanations), arrows and math symbols used in labels (→ × ³ ≤).
  static const ImWchar ranges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x2000, 0x206F, 0x2190, 0x21FF,
                                   0x2200, 0x22FF, 0x2500, 0x257F, 0x25A0, 0x25FF, 0};
  ImFontConfig cfg;
  // One atlas texel per screen pixel, glyphs on whole pixels: the renderer samples the atlas
  // GL_NEAREST (cheaper under a software rasterizer, gui/app/renderer.hpp), and nearest
  // sampling at exactly aligned texels shows the glyph exactly as rasterized by stb_truetype.
  cfg.OversampleH = 1;
  cfg.PixelSnapH = true;
  return io.Fonts->AddFontFromFileTTF(path.c_str(), px, &cfg, ranges);
}

}  // namespace

Fonts load_fonts(float scale) {
  Fonts f;
  const float px = 15.0f * scale;
  f.regular = add_font("DejaVuSans.ttf", px, f.warning);
  f.mono = add_font("DejaVuSansMono.ttf", px, f.warning);
  f.bold = add_font("DejaVuSans-Bold.ttf", px, f.warning);
  f.mono_small = add_font("DejaVuSansMono.ttf", std::round(13.0f * scale), f.warning);
  return f;
}

void apply_theme(Theme theme, float scale) {
  ImGuiStyle style;
  if (theme == Theme::dark) {
    ImGui::StyleColorsDark(&style);
    ImVec4* c = style.Colors;
    c[ImGuiCol_WindowBg] = ImVec4(0.105f, 0.11f, 0.125f, 1.0f);
    c[ImGuiCol_ChildBg] = ImVec4(0.0f, 0.0f, 0.0f, 0.0f);  // children show the window: no overdraw
    c[ImGuiCol_TitleBg] = ImVec4(0.13f, 0.14f, 0.16f, 1.0f);
    c[ImGuiCol_TitleBgActive] = ImVec4(0.16f, 0.22f, 0.32f, 1.0f);
    c[ImGuiCol_Header] = ImVec4(0.20f, 0.30f, 0.45f, 0.55f);
    c[ImGuiCol_HeaderHovered] = ImVec4(0.25f, 0.38f, 0.58f, 0.80f);
    c[ImGuiCol_Button] = ImVec4(0.20f, 0.30f, 0.45f, 0.65f);
    c[ImGuiCol_FrameBg] = ImVec4(0.16f, 0.17f, 0.20f, 1.0f);
  } else {
    ImGui::StyleColorsLight(&style);
    ImVec4* c = style.Colors;
    c[ImGuiCol_WindowBg] = ImVec4(0.97f, 0.97f, 0.965f, 1.0f);
    c[ImGuiCol_ChildBg] = ImVec4(0.0f, 0.0f, 0.0f, 0.0f);
    c[ImGuiCol_TitleBgActive] = ImVec4(0.74f, 0.82f, 0.93f, 1.0f);
  }
  // Square corners everywhere: a rounded rectangle is ~50 triangles (arcs and their
  // anti-aliased fringe) against 2 for a square one, and under Xvfb every one of them is
  // rasterized on the CPU in partly covered blocks (gui/app/renderer.hpp).
  style.WindowRounding = 0.0f;
  style.ChildRounding = 0.0f;
  style.FrameRounding = 0.0f;
  style.PopupRounding = 0.0f;
  style.GrabRounding = 0.0f;
  style.ScrollbarRounding = 0.0f;
  style.TabRounding = 0.0f;
  style.WindowPadding = ImVec2(8, 6);
  style.FramePadding = ImVec2(6, 3);
  style.ItemSpacing = ImVec2(7, 4);
  style.WindowBorderSize = 1.0f;
  // Lines without ImGui's anti-aliasing: the UI's lines are horizontal or vertical, where an
  // aliased line is a crisp rectangle of whole pixels and llvmpipe draws it in its rectangle
  // path; an anti-aliased one is a quad with mitred corners, which is not a rectangle and
  // sends its 64x64 tiles to the slow path (renderer.hpp). Plots turn anti-aliasing back on
  // for their slanted lines (widgets/plot_draw.cpp).
  style.AntiAliasedLines = false;
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
}

}  // namespace gs::gui
