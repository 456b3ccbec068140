// Colours and small drawing helpers every view shares (views.hpp).
#include <cstdarg>
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

ImU32 ok_color(const ViewEnv& env) { return env.dark ? IM_COL32(110, 200, 120, 255) : IM_COL32(30, 130, 50, 255); }
ImU32 warn_color(const ViewEnv& env) { return env.dark ? IM_COL32(235, 190, 90, 255) : IM_COL32(170, 110, 0, 255); }
ImU32 error_color(const ViewEnv& env) { return env.dark ? IM_COL32(240, 110, 100, 255) : IM_COL32(190, 30, 30, 255); }
ImU32 muted_color(const ViewEnv& env) { return env.dark ? IM_COL32(140, 140, 150, 255) : IM_COL32(110, 110, 120, 255); }

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

}  // namespace gs::gui
