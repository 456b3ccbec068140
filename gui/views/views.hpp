// One function per view (gui/views/<name>.cpp), each drawing inside the window the app shell
// has already begun (the shell owns window placement, titles and show flags). Views read the
// AppState and change it only through its select_* / seek / request_* members. Heavy
// preparation lives in gui/core (no ImGui, unit-tested); drawing here stays thin.
#pragma once

#include <imgui.h>

#include <cfloat>
#include <string_view>
#include <vector>

#include "gui/core/app_state.hpp"
#include "gui/widgets/raster_image.hpp"

namespace gs::gui {

// Fonts and colours shared by the views, owned by the app shell.
struct ViewEnv {
  ImFont* mono = nullptr;      // PTX, addresses, numbers
  ImFont* bold = nullptr;
  ImFont* mono_small = nullptr;  // small print, at its own size (theme.hpp)
  bool dark = true;
  float scale = 1.0f;          // HiDPI factor: multiply fixed pixel sizes by it
  RasterImage* fragment_cells = nullptr;  // the fragments view's cells (owned by the shell)
};

// gui/core/colors.hpp's colours as ImGui's.
ImU32 rgb_color(const Rgb& c, float alpha = 1.0f);
// A distinct colour per warp (and per thread within a warp, lighter/darker), stable across
// views so a warp is the same colour everywhere.
ImU32 warp_color(uint32_t warp, float alpha = 1.0f);
ImU32 lane_color(uint32_t warp, uint32_t lane, float alpha = 1.0f);
// Colours of states, by theme.
ImU32 ok_color(const ViewEnv& env);
ImU32 warn_color(const ViewEnv& env);
ImU32 error_color(const ViewEnv& env);
ImU32 muted_color(const ViewEnv& env);
// The colour with its alpha multiplied by a (dimmed text, faint marks).
ImU32 scale_alpha(ImU32 c, float a);
ImU32 activity_color(WarpActivity a, const ViewEnv& env);
// Text in the mono font, with an optional tooltip.
void mono_text(const ViewEnv& env, const char* fmt, ...);

// Records that something `needed` pixels wide had `available` pixels in this frame (the
// tightest per name is kept; AppState::fits), for the headless readability checks.
void note_fit(AppState& app, const char* name, float needed, float available);

// A slider whose value is written beside it instead of over it, where the grab would cover
// its digits: the slider is `width` wide, the text `format` of the value (an int, uint64_t or
// float as `type` says) follows, recorded as the fit `fit_name`; `tooltip` shows over either.
// Returns true when the value changed.
bool slider_value_beside(AppState& app, const char* fit_name, const char* id, ImGuiDataType type, void* value,
                         const void* lo, const void* hi, const char* format, float width, const char* tooltip,
                         ImGuiSliderFlags flags = 0);

// The text beside a slider drawn without one (format ""), as slider_value_beside writes it.
void text_beside_slider(AppState& app, const char* fit_name, const std::string& text, bool slider_hovered,
                        const char* tooltip);

// The rows of a code listing (the PTX and Source views): line numbers, an execution-count
// gutter, then the text. Made inside the listing's child window, with its font pushed.
struct CodeListing {
  ImFont* font = nullptr;
  float font_size = 0, line_h = 0, char_w = 0, num_w = 0, count_w = 0, text_x0 = 0, content_w = 0;
};
CodeListing code_listing(size_t lines, uint32_t max_line_chars);
struct CodeRow {
  bool hovered = false, clicked = false;  // only for a clickable row
  ImVec2 text;                            // where the row's text starts (top-left)
};
// One row, 1-based `line`: its button, the cursor's (amber) or the selection's (blue) bar, the
// hover shade, the number and, when `count` is set, the count ("x12", "-" for none).
CodeRow code_row(const CodeListing& l, const ViewEnv& env, uint32_t line, bool current, bool selected, bool clickable,
                 const uint32_t* count);
// Scrolls a listing so a 1-based line is in view (0: nothing).
void reveal_code_line(const CodeListing& l, uint32_t line);
// A row's coloured tokens ({begin, length, kind} covering `text`) from `at`, colour by kind.
template <class Token, class ColorOf>
void draw_code_tokens(const CodeListing& l, ImVec2 at, std::string_view text, const std::vector<Token>& tokens,
                      float alpha, ColorOf color_of) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (const Token& t : tokens) {
    const char* b = text.data() + t.begin;
    const char* e = b + t.length;
    dl->AddText(l.font, l.font_size, at, scale_alpha(color_of(t.kind), alpha), b, e);
    at.x += l.font->CalcTextSizeA(l.font_size, FLT_MAX, 0.0f, b, e).x;
  }
}
// A listing's options: the "follow" checkbox and a "(?)" whose tooltip draws the legend.
void follow_and_legend(bool& follow, const char* follow_tip, const ViewEnv& env,
                       void (*legend)(const ViewEnv& env));
// SameLine when an item `width` wide still fits on this line, else the next line.
void same_line_if_fits(float width);
// A row of three unsigned fields ("M", "N", "K"), each wide enough for a shape's five digits,
// leaving `reserve` pixels for what follows and wrapping under `indent`; their fit is noted
// under `fit_name`. True when a value changed.
bool u32_fields(AppState& app, const char* fit_name, const char* const labels[3], uint32_t* values[3], float reserve,
                float indent, const ViewEnv& env);

// Lanes of warps on one time axis in ps (CompareLane: states, TMA and store ticks, K passes,
// fast-forwarded stretches), under an axis row in µs, each lane's label in a column `label_w`
// wide on the left; as the Timeline view draws a GPU's lanes beside the model's, and the Compare
// view two variants'. The block is one item `id` (hover it with IsItemHovered).
struct LanePlot {
  float x0, y0, w, row_h;  // the plot's left edge, the axis row's top, its width, a lane's height
  uint64_t end;            // ps at the right edge
  uint32_t columns;
  float x_of(uint64_t ps) const { return x0 + w * float(double(ps) / double(end > 0 ? end : 1)); }
};
LanePlot draw_time_lanes(const std::vector<CompareLane>& lanes, uint64_t end_ps, float label_w, const char* id,
                         const ViewEnv& env);
// The Timeline view's legend of a warp lane's states and ticks.
void draw_timeline_legend(const ViewEnv& env);
// A diff's two sides in a table (the Diff view's), removed lines on the left and added on the
// right, `context` unchanged lines kept around each change (-1: all), `height` 0 for the rest of
// the window.
void draw_side_by_side(const run::TextDiff& t, int context, float height, const ViewEnv& env);

// Keyboard shortcuts of the transport (play, step, ...), handled every frame by the shell
// whichever window has focus (but not while a text field is active), and the help overlay
// that lists them (toggled by F1 or '?'; `show` is owned by the shell).
void handle_shortcuts(AppState& app, const ViewEnv& env, bool& show_help);
void draw_help_overlay(AppState& app, const ViewEnv& env, bool& show_help);

// One per row of views.def, each defined in gui/views/<id>.cpp.
#define VIEW(id, cli_name, title, ...) void draw_##id(AppState& app, const ViewEnv& env);
#include "gui/core/views.def"
#undef VIEW

}  // namespace gs::gui
