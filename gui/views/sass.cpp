// The SASS view: the machine code ptxas makes of the kernel's PTX, each instruction with its
// address and the PTX line it came from. The SASS of the cursor's PTX line and of the
// selected one are highlighted as in the PTX view; click an instruction to select its PTX
// line (one selection for both views). ptxas's report (registers, shared memory, stack,
// spills) heads it; local-memory instructions (spills) are marked in the error colour.
// ptxas runs off the UI thread once per loaded kernel (gui/core/sass_data); without the CUDA
// toolkit the view says what to install.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gui/core/sass_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// Colours of the opcode families a learner looks for, the PTX view's where they match.
ImU32 opcode_color(const ptx::SassInstruction& inst, const ViewEnv& env) {
  const bool d = env.dark;
  const std::string& op = inst.opcode;
  if (inst.local_memory) return error_color(env);
  if (starts_with(op, "HGMMA") || starts_with(op, "HMMA") || starts_with(op, "UTC"))
    return d ? IM_COL32(255, 120, 200, 255) : IM_COL32(190, 20, 120, 255);
  if (starts_with(op, "UTMA") || starts_with(op, "UBLKCP")) return d ? IM_COL32(78, 214, 190, 255) : IM_COL32(0, 130, 110, 255);
  if (starts_with(op, "SYNCS")) return d ? IM_COL32(255, 196, 80, 255) : IM_COL32(170, 100, 0, 255);
  if (starts_with(op, "LD") || starts_with(op, "ST") || starts_with(op, "LDGSTS"))
    return d ? IM_COL32(86, 182, 255, 255) : IM_COL32(0, 90, 190, 255);
  if (starts_with(op, "BRA") || starts_with(op, "EXIT") || starts_with(op, "BSYNC") || starts_with(op, "BSSY"))
    return d ? IM_COL32(255, 110, 110, 255) : IM_COL32(190, 30, 30, 255);
  if (starts_with(op, "BAR") || starts_with(op, "WARPGROUP") || starts_with(op, "MEMBAR"))
    return d ? IM_COL32(180, 150, 255, 255) : IM_COL32(100, 60, 200, 255);
  return ImGui::GetColorU32(ImGuiCol_Text);
}

void draw_report(const ptx::SassListing& s, const ViewEnv& env) {
  const ptx::PtxasReport& r = s.report;
  if (!r.found) return;
  ImGui::Text("%s: %u registers, %llu B static shared, %llu B stack", s.arch.c_str(), r.registers,
              (unsigned long long)r.smem_bytes, (unsigned long long)r.stack_bytes);
  ImGui::SameLine();
  if (r.spills() || s.local_memory_count() > 0) {
    ImGui::PushStyleColor(ImGuiCol_Text, error_color(env));
    ImGui::Text("| spills: %llu B stored, %llu B loaded, %zu LDL/STL", (unsigned long long)r.spill_store_bytes,
                (unsigned long long)r.spill_load_bytes, s.local_memory_count());
    ImGui::PopStyleColor();
  } else {
    ImGui::TextDisabled("| no spills");
  }
}

}  // namespace

void draw_sass(AppState& app, const ViewEnv& env) {
  if (!app.kernel) {
    ImGui::TextDisabled("no kernel loaded");
    return;
  }
  request_sass(app);
  const std::shared_ptr<const ptx::SassListing> listing = sass_listing(app);
  if (!listing) {
    ImGui::TextDisabled("ptxas is compiling the PTX...");
    return;
  }
  const ptx::SassListing& s = *listing;
  draw_report(s, env);
  if (s.status == ptx::SassStatus::no_disassembler) {
    // The listing is still useful (addresses and PTX lines): one line, the rest on hover.
    ImGui::PushStyleColor(ImGuiCol_Text, warn_color(env));
    ImGui::TextUnformatted("no nvdisasm: addresses and PTX lines only (?)");
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.message.c_str());
  } else if (!s.ok()) {
    ImGui::PushStyleColor(ImGuiCol_Text, error_color(env));
    ImGui::TextWrapped("%s", s.message.c_str());
    ImGui::PopStyleColor();
    if (!s.ptxas_log.empty() && s.status == ptx::SassStatus::ptxas_failed && ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", s.ptxas_log.c_str());
  }
  if (s.instructions.empty()) return;

  const SassFocus focus = sass_focus(app);
  SassRevealState& st = app.view_caches.sass_reveal;
  if (st.kernel.lock() != app.kernel) st = SassRevealState{app.kernel, 0};

  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
  ImGui::BeginChild("##sass_text", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  if (env.mono) ImGui::PushFont(env.mono);
  ImFont* font = ImGui::GetFont();
  const float font_size = ImGui::GetFontSize();
  const float line_h = std::floor(ImGui::GetTextLineHeightWithSpacing());
  const float char_w = ImGui::CalcTextSize("0").x;
  const float addr_w = char_w * 6.0f, line_w = char_w * 6.0f, mark_w = char_w * 2.0f;
  const float text_x0 = addr_w + line_w + mark_w;
  size_t max_chars = 0;
  for (const ptx::SassInstruction& i : s.instructions) max_chars = std::max(max_chars, i.text.size());
  const float content_w = text_x0 + char_w * float(max_chars + 2);

  // Bring the SASS of the cursor's (else the selected) PTX line into view when it changes.
  const uint32_t reveal_line = !focus.current.empty() ? focus.current_line : focus.selected_line;
  const std::vector<size_t>& reveal = !focus.current.empty() ? focus.current : focus.selected;
  if (reveal_line != st.shown_line && !reveal.empty()) {
    const float top = ImGui::GetScrollY(), view_h = ImGui::GetWindowHeight();
    // A row of margin above and below (the horizontal scroll bar covers the last one).
    const size_t visible = size_t(std::max(1.0f, std::floor(view_h / line_h) - 2.0f));
    const SassSpan span = sass_reveal_span(s, reveal, visible);
    const float y0 = float(span.first) * line_h, y1 = float(span.last + 1) * line_h;
    if (y0 < top + line_h || y1 > top + view_h - line_h)
      ImGui::SetScrollY(std::max(0.0f, (y0 + y1) / 2 - view_h * 0.45f));
  }
  st.shown_line = reveal_line;

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 current_bg = env.dark ? IM_COL32(120, 90, 20, 150) : IM_COL32(255, 210, 120, 170);
  const ImU32 selected_bg = env.dark ? IM_COL32(40, 80, 140, 140) : IM_COL32(170, 200, 250, 170);
  const ImU32 hover_bg = ImGui::GetColorU32(ImGuiCol_HeaderHovered, 0.35f);
  const ImU32 muted = muted_color(env);
  auto contains = [](const std::vector<size_t>& v, size_t i) { return std::binary_search(v.begin(), v.end(), i); };
  int clicked = -1, hovered = -1;

  ImGuiListClipper clipper;
  clipper.Begin(int(s.instructions.size()), line_h);
  while (clipper.Step()) {
    for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
      const ptx::SassInstruction& inst = s.instructions[size_t(row)];
      const ImVec2 pos = ImGui::GetCursorScreenPos();
      ImGui::PushID(row);
      ImGui::InvisibleButton("##sass", ImVec2(std::max(content_w, ImGui::GetContentRegionAvail().x), line_h));
      ImGui::PopID();
      if (ImGui::IsItemHovered()) hovered = row;
      if (ImGui::IsItemClicked()) clicked = row;
      const ImVec2 end(pos.x + std::max(content_w, ImGui::GetWindowWidth() + ImGui::GetScrollX()), pos.y + line_h);
      if (contains(focus.selected, size_t(row))) dl->AddRectFilled(pos, end, selected_bg);
      if (contains(focus.current, size_t(row))) {
        dl->AddRectFilled(pos, end, current_bg);
        dl->AddRectFilled(pos, ImVec2(pos.x + 3 * env.scale, end.y), warn_color(env));
      }
      if (hovered == row) dl->AddRectFilled(pos, end, hover_bg);
      const float ty = pos.y + (line_h - font_size) * 0.5f;
      const std::string addr = fmt::format("{:04x}", inst.address);
      dl->AddText(font, font_size, ImVec2(pos.x + char_w * 0.5f, ty), muted, addr.c_str());
      const std::string line = inst.ptx_line ? fmt::format("{:>4}", inst.ptx_line) : std::string("   ?");
      dl->AddText(font, font_size, ImVec2(pos.x + addr_w, ty), inst.link == ptx::LineLink::opcode_match ? warn_color(env) : muted,
                  line.c_str());
      if (inst.local_memory) dl->AddText(font, font_size, ImVec2(pos.x + addr_w + line_w, ty), error_color(env), "!");
      const std::string& text = inst.text.empty() ? std::string("(no disassembler)") : inst.text;
      dl->AddText(font, font_size, ImVec2(pos.x + text_x0, ty), inst.text.empty() ? muted : opcode_color(inst, env),
                  text.c_str());
    }
  }
  clipper.End();
  if (env.mono) ImGui::PopFont();
  if (hovered >= 0) {
    const ptx::SassInstruction& inst = s.instructions[size_t(hovered)];
    ImGui::BeginTooltip();
    ImGui::Text("0x%04x: from PTX line %u (%s)", inst.address, inst.ptx_line,
                std::string(ptx::line_link_name(inst.link)).c_str());
    if (inst.ptx_line && inst.ptx_line <= app.kernel->ptx_lines.size()) {
      if (env.mono) ImGui::PushFont(env.mono);
      ImGui::TextUnformatted(app.kernel->ptx_lines[inst.ptx_line - 1].c_str());
      if (env.mono) ImGui::PopFont();
    }
    if (inst.link == ptx::LineLink::opcode_match)
      ImGui::TextDisabled("ptxas's line table gives this instruction a neighbour's line;\nits opcode names this PTX operation");
    if (inst.local_memory) ImGui::TextUnformatted("local memory: registers spilled (or a local array)");
    ImGui::EndTooltip();
  }
  ImGui::EndChild();
  ImGui::PopStyleColor();
  if (clicked >= 0) {
    app.pause();
    select_sass_instruction(app, size_t(clicked));
  }
}

}  // namespace gs::gui
