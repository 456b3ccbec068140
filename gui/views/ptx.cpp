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
    case PtxTokenKind::op_mbarrier: return d ? IM_COL32(255, 196, 80, 255) : IM_COL32(150, 90, 0, 255);
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
  ImGui::TextUnformatted("amber bar: the cursor's instruction\nblue bar: the selected instruction\n"
                         "blue mark: the lines of the selected instruction's source line");
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
  follow_and_legend(app.ptx_view.follow, "scroll to the cursor's instruction when it moves", env, legend);

  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
  ImGui::BeginChild("##ptx_text", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  if (env.mono) ImGui::PushFont(env.mono);
  const CodeListing listing = code_listing(p.lines.size(), p.max_line_chars);
  const float font_size = listing.font_size;

  // Bring the cursor's line (and a newly selected line) into view when they change.
  auto reveal = [&](uint32_t line) { reveal_code_line(listing, line); };
  if (app.ptx_view.follow && focus.current_line != st.shown_current) reveal(focus.current_line);
  else if (focus.selected_line != st.shown_selected && focus.selected_line != focus.current_line) reveal(focus.selected_line);
  st.shown_current = focus.current_line;
  st.shown_selected = focus.selected_line;

  ImDrawList* dl = ImGui::GetWindowDrawList();
  uint32_t clicked = 0, hovered = 0;
  const ir::SourceLoc selected_src =
      focus.selected_inst != kNone ? k.kernel().insts[focus.selected_inst].src : ir::SourceLoc{};
  const ImU32 selected_mark = env.dark ? IM_COL32(90, 160, 255, 255) : IM_COL32(30, 90, 200, 255);

  ImGuiListClipper clipper;
  clipper.Begin(int(p.lines.size()), listing.line_h);
  while (clipper.Step()) {
    for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
      const uint32_t line = uint32_t(row + 1);
      const PtxLineInfo& info = p.lines[size_t(row)];
      const std::string& text = k.ptx_lines[size_t(row)];
      const bool is_inst = info.inst != kNone && k.kernel().insts[info.inst].op != ir::Op::label;
      const CodeRow r = code_row(listing, env, line, line == focus.current_line, line == focus.selected_line, is_inst,
                                 is_inst ? &info.executions : nullptr);
      if (r.hovered) hovered = line;
      if (r.clicked) clicked = line;
      // Every PTX line of the selected instruction's source line (the Source view's line): a
      // thin mark before the text.
      if (is_inst && selected_src.known() && k.kernel().insts[info.inst].src == selected_src)
        dl->AddRectFilled(ImVec2(r.text.x - listing.char_w * 0.7f, r.text.y),
                          ImVec2(r.text.x - listing.char_w * 0.3f, r.text.y + font_size), selected_mark);
      // The tokens; never-executed instructions are dimmed.
      const float alpha = is_inst && info.executions == 0 ? 0.45f : 1.0f;
      draw_code_tokens(listing, r.text, text, info.tokens, alpha, [&](PtxTokenKind kind) { return token_color(kind, env); });
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
    app.pause();
    app.select_ptx_line(clicked);
  }
}

}  // namespace gs::gui
