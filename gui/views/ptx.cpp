// The PTX view: the emitted text with syntax colours by op family, line numbers and execution
// counts, the cursor's instruction and the selected one highlighted and scrolled into view,
// never-executed lines dimmed. Hover a line for the op's summary; click it to jump to its next
// execution. Tokens are prepared once per kernel (gui/core/ptx_data); only the visible lines
// are drawn (ImGuiListClipper), so long PTX stays cheap.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gui/core/ptx_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

ImU32 token_color(PtxTokenKind k, const ViewEnv& env) {
  const bool d = env.dark;
  switch (k) {
    case PtxTokenKind::plain: return ImGui::GetColorU32(ImGuiCol_Text);
    case PtxTokenKind::directive: return d ? IM_COL32(197, 134, 192, 255) : IM_COL32(140, 40, 140, 255);
    case PtxTokenKind::label: return d ? IM_COL32(220, 220, 170, 255) : IM_COL32(120, 100, 0, 255);
    case PtxTokenKind::predicate: return d ? IM_COL32(255, 150, 120, 255) : IM_COL32(190, 70, 30, 255);
    case PtxTokenKind::op_alu: return d ? IM_COL32(220, 220, 225, 255) : IM_COL32(40, 40, 50, 255);
    case PtxTokenKind::op_memory: return d ? IM_COL32(86, 182, 255, 255) : IM_COL32(0, 90, 190, 255);
    case PtxTokenKind::op_tma: return d ? IM_COL32(78, 214, 190, 255) : IM_COL32(0, 130, 110, 255);
    case PtxTokenKind::op_mbarrier: return d ? IM_COL32(255, 196, 80, 255) : IM_COL32(170, 100, 0, 255);
    case PtxTokenKind::op_mma: return d ? IM_COL32(255, 120, 200, 255) : IM_COL32(190, 20, 120, 255);
    case PtxTokenKind::op_control: return d ? IM_COL32(255, 110, 110, 255) : IM_COL32(190, 30, 30, 255);
    case PtxTokenKind::op_sync: return d ? IM_COL32(180, 150, 255, 255) : IM_COL32(100, 60, 200, 255);
    case PtxTokenKind::reg: return d ? IM_COL32(156, 220, 254, 255) : IM_COL32(20, 100, 140, 255);
    case PtxTokenKind::immediate: return d ? IM_COL32(181, 206, 168, 255) : IM_COL32(30, 120, 60, 255);
    case PtxTokenKind::comment: return d ? IM_COL32(106, 153, 85, 255) : IM_COL32(90, 120, 80, 255);
    case PtxTokenKind::count_: break;
  }
  return ImGui::GetColorU32(ImGuiCol_Text);
}

void legend(const ViewEnv& env) {
  const PtxTokenKind kinds[] = {PtxTokenKind::op_alu,   PtxTokenKind::op_memory, PtxTokenKind::op_tma,
                                PtxTokenKind::op_mbarrier, PtxTokenKind::op_mma, PtxTokenKind::op_sync,
                                PtxTokenKind::op_control, PtxTokenKind::directive, PtxTokenKind::reg,
                                PtxTokenKind::immediate, PtxTokenKind::predicate, PtxTokenKind::comment};
  for (PtxTokenKind k : kinds) {
    ImGui::PushStyleColor(ImGuiCol_Text, token_color(k, env));
    ImGui::BulletText("%s", ptx_token_kind_name(k));
    ImGui::PopStyleColor();
  }
  ImGui::Separator();
  ImGui::TextUnformatted("amber bar: the cursor's instruction\nblue bar: the selected instruction");
  ImGui::TextUnformatted("dimmed: never executed by the traced CTA\nright gutter: executions (warp-instructions)");
}

}  // namespace

void draw_ptx(AppState& app, const ViewEnv& env) {
  if (!app.kernel) {
    ImGui::TextDisabled("no kernel loaded");
    return;
  }
  const LoadedKernel& k = *app.kernel;
  const PtxPrepared& p = ptx_prepared(app.kernel);
  const PtxFocus focus = ptx_focus(app);
  PtxRevealState& st = app.view_caches.ptx_reveal;
  if (st.kernel.lock() != app.kernel) st = PtxRevealState{app.kernel, 0, 0};

  // Header: what is highlighted, coverage, options right-aligned. Shorter wordings when the
  // view is narrow, and the options on a line of their own when even those do not fit.
  const ImGuiStyle& style = ImGui::GetStyle();
  const std::string cursor =
      focus.current_line ? fmt::format("line {}", focus.current_line) : std::string("no instruction at the cursor");
  std::string selected = focus.selected_line && focus.selected_line != focus.current_line
                             ? fmt::format("| selected line {}", focus.selected_line)
                             : std::string();
  std::string coverage = fmt::format("| {} of {} instructions executed", p.executed_lines, p.instruction_lines);
  const float options_w = ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize("follow").x +
                          style.ItemSpacing.x + ImGui::CalcTextSize("(?)").x;
  const float right = ImGui::GetWindowContentRegionMax().x;
  auto header_w = [&] {
    float w = ImGui::CalcTextSize(cursor.c_str()).x;
    for (const std::string* t : {&selected, &coverage})
      if (!t->empty()) w += style.ItemSpacing.x + ImGui::CalcTextSize(t->c_str()).x;
    return w;
  };
  const float x0 = ImGui::GetCursorPosX();
  const auto fits = [&] { return x0 + header_w() + 2 * style.ItemSpacing.x + options_w <= right; };
  if (!fits()) coverage = fmt::format("| {}/{} executed", p.executed_lines, p.instruction_lines);
  if (!fits() && !selected.empty()) selected = fmt::format("| sel. {}", focus.selected_line);
  if (focus.current_line)
    ImGui::TextUnformatted(cursor.c_str());
  else
    ImGui::TextDisabled("%s", cursor.c_str());
  for (const std::string* t : {&selected, &coverage}) {
    if (t->empty()) continue;
    ImGui::SameLine();
    ImGui::TextDisabled("%s", t->c_str());
  }
  const float header_end = ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x;
  if (fits()) ImGui::SameLine(right - options_w);
  // The header ends before the options beside it, or before the window's edge above them.
  note_fit(app, "ptx.header", header_end + style.ItemSpacing.x, fits() ? right - options_w : right);
  ImGui::Checkbox("follow", &app.ptx_view.follow);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("scroll to the cursor's instruction when it moves");
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    legend(env);
    ImGui::EndTooltip();
  }

  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
  ImGui::BeginChild("##ptx_text", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  if (env.mono) ImGui::PushFont(env.mono);
  ImFont* font = ImGui::GetFont();
  const float font_size = ImGui::GetFontSize();
  const float line_h = std::floor(ImGui::GetTextLineHeightWithSpacing());
  const float char_w = ImGui::CalcTextSize("0").x;
  const int digits = int(std::to_string(std::max<size_t>(1, p.lines.size())).size());
  const float num_w = char_w * float(digits + 1);
  const float count_w = char_w * 6.0f;  // "×12345"
  const float text_x0 = num_w + count_w + char_w;
  const float content_w = text_x0 + char_w * float(p.max_line_chars + 4);
  const float view_h = ImGui::GetWindowHeight();

  // Bring the cursor's line (and a newly selected line) into view when they change.
  auto reveal = [&](uint32_t line) {
    if (line == 0) return;
    const float y = float(line - 1) * line_h;
    const float top = ImGui::GetScrollY();
    if (y < top + line_h || y > top + view_h - 2 * line_h) ImGui::SetScrollY(std::max(0.0f, y - view_h * 0.4f));
  };
  if (app.ptx_view.follow && focus.current_line != st.shown_current) reveal(focus.current_line);
  else if (focus.selected_line != st.shown_selected && focus.selected_line != focus.current_line) reveal(focus.selected_line);
  st.shown_current = focus.current_line;
  st.shown_selected = focus.selected_line;

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 current_bg = env.dark ? IM_COL32(120, 90, 20, 150) : IM_COL32(255, 210, 120, 170);
  const ImU32 current_bar = warn_color(env);
  const ImU32 selected_bg = env.dark ? IM_COL32(40, 80, 140, 140) : IM_COL32(170, 200, 250, 170);
  const ImU32 selected_bar = env.dark ? IM_COL32(90, 160, 255, 255) : IM_COL32(30, 90, 200, 255);
  const ImU32 hover_bg = ImGui::GetColorU32(ImGuiCol_HeaderHovered, 0.35f);
  const ImU32 muted = muted_color(env);
  uint32_t clicked = 0, hovered = 0;

  ImGuiListClipper clipper;
  clipper.Begin(int(p.lines.size()), line_h);
  while (clipper.Step()) {
    for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
      const uint32_t line = uint32_t(row + 1);
      const PtxLineInfo& info = p.lines[size_t(row)];
      const std::string& text = k.ptx_lines[size_t(row)];
      const ImVec2 pos = ImGui::GetCursorScreenPos();
      ImGui::PushID(row);
      ImGui::InvisibleButton("##line", ImVec2(std::max(content_w, ImGui::GetContentRegionAvail().x), line_h));
      ImGui::PopID();
      const bool is_inst = info.inst != kNone && k.kernel().insts[info.inst].op != ir::Op::label;
      if (ImGui::IsItemHovered() && is_inst) hovered = line;
      if (ImGui::IsItemClicked() && is_inst) clicked = line;
      const ImVec2 end(pos.x + std::max(content_w, ImGui::GetWindowWidth() + ImGui::GetScrollX()), pos.y + line_h);
      if (line == focus.selected_line && line != focus.current_line) {
        dl->AddRectFilled(pos, end, selected_bg);
        dl->AddRectFilled(pos, ImVec2(pos.x + 3 * env.scale, end.y), selected_bar);
      }
      if (line == focus.current_line) {
        dl->AddRectFilled(pos, end, current_bg);
        dl->AddRectFilled(pos, ImVec2(pos.x + 3 * env.scale, end.y), current_bar);
      }
      if (hovered == line) dl->AddRectFilled(pos, end, hover_bg);
      const float ty = pos.y + (line_h - font_size) * 0.5f;
      // Line number, then the execution count in the gutter.
      const std::string num = std::to_string(line);
      dl->AddText(font, font_size, ImVec2(pos.x + num_w - char_w * float(num.size() + 1) + char_w * 0.5f, ty), muted,
                  num.c_str());
      if (is_inst) {
        const std::string count = info.executions ? fmt::format("x{}", info.executions) : std::string("-");
        const ImU32 c = info.executions ? scale_alpha(ok_color(env), 0.85f) : scale_alpha(muted, 0.6f);
        // In the small font at its own size, right-aligned in the gutter, on the text's baseline.
        ImFont* small = env.mono_small ? env.mono_small : font;
        const float small_size = env.mono_small ? small->FontSize : font_size;
        const float count_x = std::floor(pos.x + num_w + count_w - small->CalcTextSizeA(small_size, FLT_MAX, 0.0f, count.c_str()).x);
        const float count_y = std::floor(ty + (font->Ascent - small->Ascent * small_size / small->FontSize));
        dl->AddText(small, small_size, ImVec2(count_x, count_y), c, count.c_str());
      }
      // The tokens; never-executed instructions are dimmed.
      const float alpha = is_inst && info.executions == 0 ? 0.45f : 1.0f;
      float x = pos.x + text_x0;
      for (const PtxToken& t : info.tokens) {
        const char* b = text.data() + t.begin;
        const char* e = b + t.length;
        const ImU32 c = scale_alpha(token_color(t.kind, env), alpha);
        dl->AddText(font, font_size, ImVec2(x, ty), c, b, e);
        x += font->CalcTextSizeA(font_size, FLT_MAX, 0.0f, b, e).x;
      }
    }
  }
  clipper.End();
  if (env.mono) ImGui::PopFont();

  if (hovered) {
    ImGui::BeginTooltip();
    const PtxLineInfo& info = p.lines[hovered - 1];
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    if (env.mono) ImGui::PushFont(env.mono);
    ImGui::TextUnformatted(k.inst_text[info.inst].c_str());
    if (env.mono) ImGui::PopFont();
    ImGui::Separator();
    ImGui::TextUnformatted(ptx_line_tooltip(k, p, hovered).c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
  ImGui::EndChild();
  ImGui::PopStyleColor();
  if (clicked) {
    app.playback.playing = false;
    app.select_ptx_line(clicked);
  }
}

}  // namespace gs::gui
