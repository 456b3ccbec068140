// Colours and small drawing helpers every view shares (views.hpp).
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "gui/views/views.hpp"

#include "gui/core/colors.hpp"

namespace gs::gui {

ImU32 warp_color(uint32_t warp, float alpha) { return rgb_color(warp_rgb(warp), alpha); }

ImU32 lane_color(uint32_t warp, uint32_t lane, float alpha) { return rgb_color(lane_rgb(warp, lane), alpha); }

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


ImU32 rgb_color(const Rgb& c, float alpha) { return IM_COL32(c[0], c[1], c[2], int(alpha * 255.0f)); }

ImU32 ok_color(const ViewEnv& env) { return rgb_color(ok_rgb(env.dark)); }
ImU32 warn_color(const ViewEnv& env) { return rgb_color(warn_rgb(env.dark)); }
ImU32 error_color(const ViewEnv& env) { return rgb_color(error_rgb(env.dark)); }
ImU32 muted_color(const ViewEnv& env) { return rgb_color(muted_rgb(env.dark)); }

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

CodeListing code_listing(size_t lines, uint32_t max_line_chars) {
  CodeListing l;
  l.font = ImGui::GetFont();
  l.font_size = ImGui::GetFontSize();
  l.line_h = std::floor(ImGui::GetTextLineHeightWithSpacing());
  l.char_w = ImGui::CalcTextSize("0").x;
  const int digits = int(std::to_string(std::max<size_t>(1, lines)).size());
  l.num_w = l.char_w * float(digits + 1);
  l.count_w = l.char_w * 7.0f;  // "x123456"
  l.text_x0 = l.num_w + l.count_w + l.char_w;
  l.content_w = l.text_x0 + l.char_w * float(max_line_chars + 4);
  return l;
}

CodeRow code_row(const CodeListing& l, const ViewEnv& env, uint32_t line, bool current, bool selected, bool clickable,
                 const uint32_t* count) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  CodeRow r;
  const ImVec2 pos = ImGui::GetCursorScreenPos();
  ImGui::PushID(int(line));
  ImGui::InvisibleButton("##line", ImVec2(std::max(l.content_w, ImGui::GetContentRegionAvail().x), l.line_h));
  ImGui::PopID();
  r.hovered = clickable && ImGui::IsItemHovered();
  r.clicked = clickable && ImGui::IsItemClicked();
  const ImVec2 end(pos.x + std::max(l.content_w, ImGui::GetWindowWidth() + ImGui::GetScrollX()), pos.y + l.line_h);
  const ImVec2 bar_end(pos.x + 3 * env.scale, end.y);
  if (selected && !current) {
    dl->AddRectFilled(pos, end, env.dark ? IM_COL32(40, 80, 140, 140) : IM_COL32(170, 200, 250, 170));
    dl->AddRectFilled(pos, bar_end, env.dark ? IM_COL32(90, 160, 255, 255) : IM_COL32(30, 90, 200, 255));
  }
  if (current) {
    dl->AddRectFilled(pos, end, env.dark ? IM_COL32(120, 90, 20, 150) : IM_COL32(255, 210, 120, 170));
    dl->AddRectFilled(pos, bar_end, warn_color(env));
  }
  if (r.hovered) dl->AddRectFilled(pos, end, ImGui::GetColorU32(ImGuiCol_HeaderHovered, 0.35f));
  const float ty = pos.y + (l.line_h - l.font_size) * 0.5f;
  const ImU32 muted = muted_color(env);
  const std::string num = std::to_string(line);
  dl->AddText(l.font, l.font_size, ImVec2(pos.x + l.num_w - l.char_w * float(num.size() + 1) + l.char_w * 0.5f, ty),
              muted, num.c_str());
  if (count) {
    const std::string text = *count ? fmt::format("x{}", *count) : std::string("-");
    const ImU32 c = *count ? scale_alpha(ok_color(env), 0.85f) : scale_alpha(muted, 0.6f);
    // In the small font at its own size, right-aligned in the gutter, on the text's baseline.
    ImFont* small = env.mono_small ? env.mono_small : l.font;
    const float small_size = env.mono_small ? small->FontSize : l.font_size;
    const float x = std::floor(pos.x + l.num_w + l.count_w - small->CalcTextSizeA(small_size, FLT_MAX, 0.0f, text.c_str()).x);
    const float y = std::floor(ty + (l.font->Ascent - small->Ascent * small_size / small->FontSize));
    dl->AddText(small, small_size, ImVec2(x, y), c, text.c_str());
  }
  r.text = ImVec2(pos.x + l.text_x0, ty);
  return r;
}

void reveal_code_line(const CodeListing& l, uint32_t line) {
  if (line == 0) return;
  const float y = float(line - 1) * l.line_h;
  const float top = ImGui::GetScrollY();
  const float view_h = ImGui::GetWindowHeight();
  if (y < top + l.line_h || y > top + view_h - 2 * l.line_h) ImGui::SetScrollY(std::max(0.0f, y - view_h * 0.4f));
}

void follow_and_legend(bool& follow, const char* follow_tip, const ViewEnv& env, void (*legend)(const ViewEnv& env)) {
  ImGui::Checkbox("follow", &follow);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", follow_tip);
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    legend(env);
    ImGui::EndTooltip();
  }
}

// Three fields sharing the width; each wide enough for five digits (the shapes go to 65536), the
// row wrapping under `indent` when they do not fit side by side.
bool u32_fields(AppState& app, const char* fit_name, const char* const labels[3], uint32_t* values[3], float reserve,
                float indent, const ViewEnv& env) {
  bool changed = false;
  const float pad = ImGui::GetStyle().FramePadding.x * 2.0f;
  const float digits = ImGui::CalcTextSize("65536").x;
  const float name_w = ImGui::CalcTextSize("M").x + 4 * env.scale + ImGui::GetStyle().ItemSpacing.x;
  const float avail = ImGui::GetContentRegionAvail().x - reserve;
  const float w = std::clamp(avail / 3.0f - name_w, digits + pad, std::max(digits + pad, 90.0f * env.scale));
  for (int i = 0; i < 3; ++i) {
    if (i) {
      same_line_if_fits(name_w + w);
      if (ImGui::GetCursorPosX() < indent) ImGui::SetCursorPosX(indent);
    }
    ImGui::TextUnformatted(labels[i]);
    ImGui::SameLine(0, 4 * env.scale);
    ImGui::SetNextItemWidth(w);
    ImGui::PushID(i);
    changed |= ImGui::InputScalar("##v", ImGuiDataType_U32, values[i]);
    ImGui::PopID();
    note_fit(app, fit_name, ImGui::CalcTextSize(std::to_string(std::max(*values[i], 65536u)).c_str()).x, w - pad);
  }
  return changed;
}

}  // namespace gs::gui
