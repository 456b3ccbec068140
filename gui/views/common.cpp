// Colours and small drawing helpers every view shares (views.hpp).
#include <cstdarg>
#include <cstdint>
#include <cstdio>

#include "gui/views/views.hpp"

#include "gui/core/colors.hpp"

namespace gs::gui {

ImU32 warp_color(uint32_t warp, float alpha) {
  const Rgb c = warp_rgb(warp);
  return IM_COL32(c[0], c[1], c[2], int(alpha * 255.0f));
}

ImU32 lane_color(uint32_t warp, uint32_t lane, float alpha) {
  const Rgb c = lane_rgb(warp, lane);
  return IM_COL32(c[0], c[1], c[2], int(alpha * 255.0f));
}

// A warp state's colour, the same in the warps view and the timeline.
ImU32 activity_color(WarpActivity a, const ViewEnv& env) {
  switch (a) {
    case WarpActivity::ready: return ok_color(env);
    case WarpActivity::waiting_mbarrier:
    case WarpActivity::waiting_bar:
    case WarpActivity::waiting_wgmma: return warn_color(env);
    case WarpActivity::not_started:
    case WarpActivity::exited: return muted_color(env);
    case WarpActivity::deadlocked: return error_color(env);  // blocked for good: the run's failure
  }
  return muted_color(env);
}


ImU32 ok_color(const ViewEnv& env) { return env.dark ? IM_COL32(110, 200, 120, 255) : IM_COL32(30, 130, 50, 255); }
ImU32 warn_color(const ViewEnv& env) { return env.dark ? IM_COL32(235, 190, 90, 255) : IM_COL32(170, 110, 0, 255); }
ImU32 error_color(const ViewEnv& env) { return env.dark ? IM_COL32(240, 110, 100, 255) : IM_COL32(190, 30, 30, 255); }
ImU32 muted_color(const ViewEnv& env) { return env.dark ? IM_COL32(140, 140, 150, 255) : IM_COL32(110, 110, 120, 255); }

ImU32 scale_alpha(ImU32 c, float a) {
  const uint32_t alpha = uint32_t(float((c >> IM_COL32_A_SHIFT) & 0xFF) * a);
  return (c & ~IM_COL32_A_MASK) | (alpha << IM_COL32_A_SHIFT);
}

void mono_text(const ViewEnv& env, const char* fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  if (env.mono) ImGui::PushFont(env.mono);
  ImGui::TextUnformatted(buf);
  if (env.mono) ImGui::PopFont();
}

void note_fit(AppState& app, const char* name, float needed, float available) {
  const auto it = app.fits.find(name);
  if (it == app.fits.end() || available - needed < it->second[1] - it->second[0]) app.fits[name] = {needed, available};
}

bool slider_value_beside(AppState& app, const char* fit_name, const char* id, ImGuiDataType type, void* value,
                         const void* lo, const void* hi, const char* format, float width, const char* tooltip,
                         ImGuiSliderFlags flags) {
  ImGui::SetNextItemWidth(width);
  // An empty format draws no text in the frame (and rounds nothing: ImGui rounds to the
  // format's precision only when it has one).
  const bool changed = ImGui::SliderScalar(id, type, value, lo, hi, "", flags);
  const bool hovered = ImGui::IsItemHovered();
  char text[64];
  switch (type) {
    case ImGuiDataType_S32: std::snprintf(text, sizeof text, format, *static_cast<const int*>(value)); break;
    case ImGuiDataType_U64:
      std::snprintf(text, sizeof text, format, (unsigned long long)*static_cast<const uint64_t*>(value));
      break;
    case ImGuiDataType_Float: std::snprintf(text, sizeof text, format, double(*static_cast<const float*>(value))); break;
    default: std::snprintf(text, sizeof text, "?"); break;
  }
  text_beside_slider(app, fit_name, text, hovered, tooltip);
  return changed;
}

void text_beside_slider(AppState& app, const char* fit_name, const std::string& text, bool slider_hovered,
                        const char* tooltip) {
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  const float x = ImGui::GetCursorPosX();
  ImGui::TextUnformatted(text.c_str());
  note_fit(app, fit_name, ImGui::CalcTextSize(text.c_str()).x, ImGui::GetWindowContentRegionMax().x - x);
  if (tooltip && (slider_hovered || ImGui::IsItemHovered())) ImGui::SetTooltip("%s", tooltip);
}

void same_line_if_fits(float width) {
  const float right = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width;
  if (right <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) ImGui::SameLine();
}

}  // namespace gs::gui
