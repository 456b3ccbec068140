// The problems view: the model's hazards and errors, GPU/JIT failures and app errors, filtered
// by severity and source. Clicking a problem selects it, its warp and its instruction and moves
// the cursor to where it happened; the full message (JIT logs included) is shown below in a
// read-only text box that can be selected and copied.
#include <algorithm>

#include <fmt/format.h>

#include "gui/core/occupancy.hpp"
#include "gui/core/problems_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

ImU32 severity_color(Severity s, const ViewEnv& env) {
  switch (s) {
    case Severity::error: return error_color(env);
    case Severity::warning: return warn_color(env);
    case Severity::info: return env.dark ? IM_COL32(120, 170, 255, 255) : IM_COL32(30, 90, 200, 255);
  }
  return muted_color(env);
}

// A filled disc with the severity's letter: readable without relying on colour alone.
void severity_icon(Severity s, const ViewEnv& env) {
  const float d = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(d, d));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 c(p.x + d * 0.5f, p.y + d * 0.5f);
  dl->AddCircleFilled(c, d * 0.42f, severity_color(s, env));
  const char* letter = s == Severity::error ? "!" : s == Severity::warning ? "?" : "i";
  const ImVec2 ts = ImGui::CalcTextSize(letter);
  dl->AddText(ImVec2(c.x - ts.x * 0.5f, c.y - ts.y * 0.5f), IM_COL32(20, 20, 20, 255), letter);
}

// Breaks lines at word boundaries so each fits `width` pixels in the current font.
std::string wrap_text(const std::string& text, float width) {
  ImFont* font = ImGui::GetFont();
  const float size = ImGui::GetFontSize();
  std::string out;
  out.reserve(text.size() + text.size() / 40);
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    const char* eol = std::find(p, end, '\n');
    while (p < eol) {
      const char* brk = font->CalcWordWrapPositionA(size / font->FontSize, p, eol, std::max(width, size * 4));
      if (brk == p) brk = p + 1;  // always progress
      out.append(p, brk);
      p = brk;
      if (p < eol) {
        out.push_back('\n');
        while (p < eol && *p == ' ') ++p;
      }
    }
    if (eol < end) out.push_back('\n');
    p = eol + 1;
  }
  return out;
}

void colored_count(uint32_t n, const char* what, ImU32 color, const ViewEnv& env) {
  ImGui::PushStyleColor(ImGuiCol_Text, n ? color : muted_color(env));
  ImGui::Text("%u %s%s", n, what, n == 1 ? "" : "s");
  ImGui::PopStyleColor();
}

}  // namespace

void draw_problems(AppState& app, const ViewEnv& env) {
  // The spill and occupancy advice waits for ptxas's register count: off the UI thread, and
  // the list gets them when it lands (resource_advice.hpp).
  request_register_count(app);
  ProblemFilter& filter = app.problems_view.filter;
  const float s = env.scale;
  const ProblemCounts counts = count_problems(app.problems);

  // Header: counts, then the filters and the clear button.
  colored_count(counts.errors, "error", error_color(env), env);
  ImGui::SameLine();
  colored_count(counts.warnings, "warning", warn_color(env), env);
  ImGui::SameLine();
  colored_count(counts.infos, "info", severity_color(Severity::info, env), env);

  ImGui::Checkbox("errors", &filter.errors);
  ImGui::SameLine();
  ImGui::Checkbox("warnings", &filter.warnings);
  ImGui::SameLine();
  ImGui::Checkbox("info", &filter.infos);
  ImGui::SameLine();
  const std::vector<std::string> sources = problem_sources(app.problems);
  if (!filter.source.empty() && std::find(sources.begin(), sources.end(), filter.source) == sources.end())
    filter.source.clear();
  ImGui::SetNextItemWidth(100 * s);
  if (ImGui::BeginCombo("##source", filter.source.empty() ? "all sources" : filter.source.c_str())) {
    if (ImGui::Selectable("all sources", filter.source.empty())) filter.source.clear();
    for (const std::string& src : sources)
      if (ImGui::Selectable(src.c_str(), filter.source == src)) filter.source = src;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  const bool any_clearable =
      std::any_of(app.problems.begin(), app.problems.end(), [](const Problem& p) { return p.source != "model"; });
  ImGui::BeginDisabled(!any_clearable);
  if (ImGui::Button("Clear GPU/app")) clear_non_model_problems(app);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("remove GPU, JIT and app problems; the model's stay while its kernel is loaded");

  if (app.problems.empty()) {
    const EmptyProblemsNote note = empty_problems_note(app);
    ImGui::Spacing();
    ImGui::PushStyleColor(ImGuiCol_Text, note.all_clear ? ok_color(env) : warn_color(env));
    ImGui::TextWrapped("%s", note.headline.c_str());
    ImGui::PopStyleColor();
    ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
    ImGui::TextWrapped("%s", note.hint.c_str());
    ImGui::PopStyleColor();
    if (note.offer_model_run) {
      ImGui::BeginDisabled(app.busy());
      if (ImGui::Button("Run on model")) app.request_model_run();
      ImGui::EndDisabled();
      if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("run the whole grid of the Ladder's request on the model and judge C against the reference");
    }
    return;
  }

  // The list takes the upper part, the selected problem's full text the rest.
  const std::vector<uint32_t> shown = filtered_problems(app.problems, filter);
  const float avail = ImGui::GetContentRegionAvail().y;
  const float list_h = std::max(ImGui::GetFrameHeightWithSpacing() * 3.0f, avail * 0.5f);
  uint32_t clicked = kNone;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("##problems", 4, flags, ImVec2(0, list_h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_NoResize, ImGui::GetTextLineHeight() + 2 * s);
    ImGui::TableSetupColumn("Source", 0, 48 * s);
    ImGui::TableSetupColumn("Kind", 0, 110 * s);
    ImGui::TableSetupColumn("Title", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(int(shown.size()));
    while (clipper.Step()) {
      for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
        const uint32_t i = shown[size_t(row)];
        const Problem& p = app.problems[i];
        ImGui::TableNextRow();
        ImGui::PushID(int(i));
        ImGui::TableNextColumn();
        severity_icon(p.severity, env);
        ImGui::SameLine(0, 0);
        if (ImGui::Selectable("##row", app.selection.problem == i,
                              ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap,
                              ImVec2(0, ImGui::GetTextLineHeight())))
          clicked = i;
        if (ImGui::IsItemHovered()) {
          const uint32_t line = problem_line(app, p);
          ImGui::BeginTooltip();
          ImGui::Text("%s from %s", severity_name(p.severity), p.source.c_str());
          if (line) ImGui::Text("instruction %u, PTX line %u: click to jump there", p.inst, line);
          if (p.warp != kNoWarp) ImGui::Text("warp %u, cycle %llu", p.warp, (unsigned long long)p.cycle);
          ImGui::EndTooltip();
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(p.source.c_str());
        ImGui::TableNextColumn();
        ImGui::PushStyleColor(ImGuiCol_Text, severity_color(p.severity, env));
        ImGui::TextUnformatted(p.kind.c_str());
        ImGui::PopStyleColor();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(p.title.c_str());
        ImGui::PopID();
      }
    }
    ImGui::EndTable();
  }
  if (shown.empty()) ImGui::TextDisabled("%zu problem(s) hidden by the filter", app.problems.size());
  if (clicked != kNone) {
    app.pause();
    app.select_problem(clicked);
  }

  // The selected problem in full: read-only, selectable, copyable (JIT logs are long).
  ImGui::Spacing();
  if (app.selection.problem >= app.problems.size()) {
    ImGui::TextDisabled("Click a problem to see its full message and jump to its instruction.");
    return;
  }
  const Problem& p = app.problems[app.selection.problem];
  ImGui::PushStyleColor(ImGuiCol_Text, severity_color(p.severity, env));
  ImGui::TextUnformatted(p.kind.c_str());
  ImGui::PopStyleColor();
  const uint32_t line = problem_line(app, p);
  if (line) {
    ImGui::SameLine();
    ImGui::TextDisabled("PTX line %u", line);
  }
  if (p.warp != kNoWarp) {
    ImGui::SameLine();
    ImGui::TextDisabled("warp %u, cycle %llu", p.warp, (unsigned long long)p.cycle);
  }
  ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize("Copy").x -
                                                       ImGui::GetStyle().FramePadding.x * 2));
  if (ImGui::SmallButton("Copy")) ImGui::SetClipboardText((p.title + "\n" + p.detail).c_str());
  const std::string& text = p.detail.empty() ? p.title : p.detail;
  if (env.mono) ImGui::PushFont(env.mono);
  // Wrapped to the box (ImGui 1.86's multiline field does not wrap) and read-only, so it can be
  // selected and copied; Copy above takes the unwrapped original.
  WrappedTextCache& wrap = app.view_caches.problem_detail;
  const float width = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().FramePadding.x * 2 -
                      ImGui::GetStyle().ScrollbarSize;
  if (!wrap.matches(text, width)) wrap = {text, width, wrap_text(text, width), true};
  ImGui::InputTextMultiline("##detail", wrap.wrapped.data(), wrap.wrapped.size() + 1, ImVec2(-FLT_MIN, -FLT_MIN),
                            ImGuiInputTextFlags_ReadOnly);
  if (env.mono) ImGui::PopFont();
}

}  // namespace gs::gui
