// The Source view: the kernel's own C++ with syntax colours, line numbers and, per line, how
// often the instructions it recorded ran; the current instruction's line and the selected
// one highlighted and scrolled into view; lines that recorded nothing dimmed. A file selector
// when the kernel spans several files. Click a line to select its next instruction to run
// (the PTX view follows: one selection). Data: gui/core/source_data.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gui/core/source_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

ImU32 token_color(CppTokenKind k, const ViewEnv& env) {
  const bool d = env.dark;
  switch (k) {
    case CppTokenKind::plain: return ImGui::GetColorU32(ImGuiCol_Text);
    case CppTokenKind::keyword: return d ? IM_COL32(197, 134, 192, 255) : IM_COL32(140, 40, 140, 255);
    case CppTokenKind::type: return d ? IM_COL32(78, 201, 176, 255) : IM_COL32(0, 120, 110, 255);
    case CppTokenKind::string: return d ? IM_COL32(206, 145, 120, 255) : IM_COL32(160, 60, 20, 255);
    case CppTokenKind::comment: return d ? IM_COL32(106, 153, 85, 255) : IM_COL32(90, 120, 80, 255);
    case CppTokenKind::number: return d ? IM_COL32(181, 206, 168, 255) : IM_COL32(30, 120, 60, 255);
    case CppTokenKind::preprocessor: return d ? IM_COL32(155, 155, 220, 255) : IM_COL32(70, 70, 170, 255);
    case CppTokenKind::call: return d ? IM_COL32(220, 220, 170, 255) : IM_COL32(120, 100, 0, 255);
    case CppTokenKind::count_: break;
  }
  return ImGui::GetColorU32(ImGuiCol_Text);
}

void legend(const ViewEnv& env) {
  for (uint8_t i = 0; i < uint8_t(CppTokenKind::count_); ++i) {
    ImGui::PushStyleColor(ImGuiCol_Text, token_color(CppTokenKind(i), env));
    ImGui::BulletText("%s", cpp_token_kind_name(CppTokenKind(i)));
    ImGui::PopStyleColor();
  }
  ImGui::Separator();
  ImGui::TextUnformatted("amber bar: the line that recorded the cursor's instruction\n"
                         "blue bar: the selected instruction's line");
  ImGui::TextUnformatted("dimmed: records no instruction, or none of its instructions ran\n"
                         "gutter: executions of the line's instructions (warp-instructions)");
}

// The file selector, when the kernel spans several files: "follow" shows the current one.
void file_selector(AppState& app, const SourcePrepared& p, const SourceFocus& focus) {
  if (p.files.size() < 2) {
    ImGui::TextUnformatted(p.files.empty() ? "no source" : p.files.front().path.c_str());
    return;
  }
  const std::string shown = focus.shown_file < p.files.size() ? p.files[focus.shown_file].path : std::string("?");
  const std::string label =
      app.source_view.pinned_file < p.files.size() ? shown : fmt::format("{} (follows the cursor)", shown);
  ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x * 0.7f, ImGui::CalcTextSize(label.c_str()).x + 40));
  if (ImGui::BeginCombo("##file", label.c_str())) {
    if (ImGui::Selectable("follow the cursor's file", app.source_view.pinned_file == kNone))
      app.source_view.pinned_file = kNone;
    for (uint32_t f = 0; f < p.files.size(); ++f)
      if (ImGui::Selectable(p.files[f].path.c_str(), app.source_view.pinned_file == f)) app.source_view.pinned_file = f;
    ImGui::EndCombo();
  }
}

}  // namespace

void draw_source(AppState& app, const ViewEnv& env) {
  if (!app.kernel) {
    ImGui::TextDisabled("no kernel loaded");
    return;
  }
  const LoadedKernel& k = *app.kernel;
  const SourcePrepared& p = source_prepared(app.kernel);
  const SourceFocus focus = source_focus(app);
  SourceRevealState& st = app.view_caches.source_reveal;
  if (st.kernel.lock() != app.kernel) st = SourceRevealState{app.kernel, {}, {}, kNone};

  file_selector(app, p, focus);
  if (focus.shown_file >= p.files.size()) return;
  const uint32_t file = focus.shown_file;
  const SourceFileData& f = p.files[file];
  ImGui::SameLine();
  if (focus.current.file == file && focus.current.line)
    ImGui::Text("line %u", focus.current.line);
  else
    ImGui::TextDisabled("%s", focus.current.line ? "cursor in another file" : "no instruction at the cursor");
  ImGui::SameLine();
  ImGui::TextDisabled("| %u of %u lines ran", f.executed_lines, f.recording_lines);
  same_line_if_fits(ImGui::CalcTextSize("follow (?)").x + ImGui::GetFrameHeight() + 16);
  follow_and_legend(app.source_view.follow, "scroll to the cursor's line when it moves", env, legend);
  if (f.text.empty()) {
    ImGui::TextDisabled("%s is not built into this binary", f.path.c_str());
    return;
  }

  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
  ImGui::BeginChild("##source_text", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  if (env.mono) ImGui::PushFont(env.mono);
  const CodeListing listing = code_listing(f.text.size(), f.max_line_chars);
  const SourcePlace current = focus.current.file == file ? focus.current : SourcePlace{};
  const SourcePlace selected = focus.selected.file == file ? focus.selected : SourcePlace{};
  auto reveal = [&](uint32_t line) { reveal_code_line(listing, line); };
  const bool file_changed = st.shown_file != file;
  if (app.source_view.follow && (current != st.shown_current || file_changed)) reveal(current.line);
  else if ((selected != st.shown_selected || file_changed) && selected != current) reveal(selected.line);
  st.shown_current = current;
  st.shown_selected = selected;
  st.shown_file = file;

  uint32_t clicked = 0, hovered = 0;

  ImGuiListClipper clipper;
  clipper.Begin(int(f.text.size()), listing.line_h);
  while (clipper.Step()) {
    for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
      const uint32_t line = uint32_t(row + 1);
      const SourceLineInfo& info = f.lines[size_t(row)];
      const std::string_view text = f.text[size_t(row)];
      const bool records = !info.insts.empty();
      const CodeRow r = code_row(listing, env, line, line == current.line, line == selected.line, records,
                                 records ? &info.executions : nullptr);
      if (r.hovered) hovered = line;
      if (r.clicked) clicked = line;
      // Lines that record nothing (comments, declarations) and lines that never ran are dimmed.
      const float alpha = records && info.executions > 0 ? 1.0f : 0.55f;
      draw_code_tokens(listing, r.text, text, info.tokens, alpha, [&](CppTokenKind kind) { return token_color(kind, env); });
    }
  }
  clipper.End();
  if (env.mono) ImGui::PopFont();
  if (hovered) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36.0f);
    ImGui::TextUnformatted(source_line_tooltip(k, f, hovered).c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
  ImGui::EndChild();
  ImGui::PopStyleColor();
  if (clicked) {
    app.pause();
    select_source_line(app, file, clicked);
  }
}

}  // namespace gs::gui
