// The coalescing view: the global access at the cursor, one row per 128-byte line the warp
// touches, each row the line's 32 words in its 4 sectors. A word a lane asks for is filled in
// that lane's colour; a sector the warp touches is shaded, so the bytes moved and not used
// show as shaded cells left empty. Above: the sectors next to the ideal (the bytes needed
// / 32) and the lines. Hovering a word names its lane and address.
#include <algorithm>

#include <fmt/format.h>

#include "gui/core/coalescing_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

void draw_figures(const LoadedKernel& k, const CoalescingAccess& a, const ViewEnv& env) {
  if (env.mono) ImGui::PushFont(env.mono);
  const std::string inst = a.inst < k.inst_text.size() ? k.inst_text[a.inst] : std::string("?");
  ImGui::Text("warp %u  %s", a.warp, inst.c_str());
  if (env.mono) ImGui::PopFont();
  const bool coalesced = a.sectors <= a.ideal_sectors;
  // Wrapped, so a narrow window keeps the whole verdict.
  ImGui::PushStyleColor(ImGuiCol_Text, coalesced ? ok_color(env) : warn_color(env));
  ImGui::TextWrapped("%s", a.verdict.c_str());
  ImGui::PopStyleColor();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("A warp's access is served in 32-byte sectors. The ideal is the bytes its %u lanes need "
                      "(%u B each, a word several lanes share counted once) over 32: %u sector%s.",
                      a.active_lanes, a.lane_bytes, a.ideal_sectors, a.ideal_sectors == 1 ? "" : "s");
  ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
  ImGui::TextWrapped("%u line%s of 128 B (ideal %u), %.0f%% of the bytes moved are used, %s", a.lines,
                     a.lines == 1 ? "" : "s", a.ideal_lines, 100.0 * a.efficiency, a.store ? "store" : "load");
  ImGui::PopStyleColor();
}

}  // namespace

void draw_coalescing(AppState& app, const ViewEnv& env) {
  const Snapshot* s = app.snapshot();
  if (!app.kernel || !s) {
    ImGui::TextDisabled("no kernel open");
    return;
  }
  const LoadedKernel& k = *app.kernel;
  const CoalescingAccess a = coalescing_at(k, s->position, app.selection.warp);
  if (!a.valid || a.active_lanes == 0) {
    ImGui::TextWrapped("%s", a.note.c_str());
    return;
  }
  draw_figures(k, a, env);
  if (!a.note.empty()) ImGui::TextWrapped("%s", a.note.c_str());

  // The lines: an address label, then 32 word cells in 4 sector groups.
  const float sc = env.scale;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (env.mono_small) ImGui::PushFont(env.mono_small);
  const float label_w = ImGui::CalcTextSize("+0x0000000").x + 6 * sc;
  const float gap = 3 * sc;  // between sectors
  const float cell = std::max(3.0f, (avail.x - label_w - 3 * gap - 4 * sc) / 32.0f);
  const float row_h = std::max(cell, ImGui::GetTextLineHeight()) + 2 * sc;
  ImGui::BeginChild("##coalescing_lines", ImVec2(0, 0), false);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##lines", ImVec2(label_w + 32 * cell + 3 * gap, row_h * float(a.line_list.size())));
  const bool hovered = ImGui::IsItemHovered();
  app.drawn["coalescing.lines"] = {o.x + label_w, o.y, cell, row_h};  // word 0 of the first line
  app.drawn["coalescing.sector_gap"] = {gap, 0, 0, 0};
  const auto word_x = [&](uint32_t w) { return o.x + label_w + float(w) * cell + float(w / 8) * gap; };
  const uint64_t base = a.line_list.empty() ? 0 : a.line_list.front().addr;
  const ImU32 shade = env.dark ? IM_COL32(90, 90, 100, 255) : IM_COL32(205, 205, 215, 255);
  for (size_t r = 0; r < a.line_list.size(); ++r) {
    const CoalescingLine& line = a.line_list[r];
    const float y = o.y + row_h * float(r);
    const std::string label = fmt::format("+0x{:X}", line.addr - base);
    dl->AddText(ImVec2(o.x, y), muted_color(env), label.c_str());
    for (uint32_t sector = 0; sector < 4; ++sector) {
      const ImVec2 p0(word_x(8 * sector), y), p1(word_x(8 * sector + 7) + cell, y + cell);
      if (line.sector_mask >> sector & 1) dl->AddRectFilled(p0, p1, shade);
      dl->AddRect(p0, p1, muted_color(env));
    }
    for (uint32_t w = 0; w < 32; ++w) {
      if (line.words[w] == 0) continue;
      const ImVec2 p0(word_x(w) + 1, y + 1), p1(word_x(w) + cell - 1, y + cell - 1);
      dl->AddRectFilled(p0, p1, lane_color(a.warp, line.words[w] - 1u));
    }
  }
  if (hovered) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const size_t r = size_t(std::max(0.0f, (m.y - o.y) / row_h));
    for (uint32_t w = 0; w < 32 && r < a.line_list.size(); ++w) {
      if (m.x < word_x(w) || m.x >= word_x(w) + cell) continue;
      const CoalescingLine& line = a.line_list[r];
      const uint64_t at = line.addr + 4 * w;
      if (line.words[w])
        ImGui::SetTooltip("lane %u %s 0x%llX (%u B)\nsector %u of the line at 0x%llX", line.words[w] - 1u,
                          a.store ? "writes" : "reads",
                          static_cast<unsigned long long>(a.addr[line.words[w] - 1u]), a.lane_bytes, w / 8,
                          static_cast<unsigned long long>(line.addr));
      else
        ImGui::SetTooltip("0x%llX: %s", static_cast<unsigned long long>(at),
                          line.sector_mask >> (w / 8) & 1 ? "moved with its sector, used by no lane"
                                                          : "not moved");
    }
  }
  ImGui::EndChild();
  if (env.mono_small) ImGui::PopFont();
}

}  // namespace gs::gui
