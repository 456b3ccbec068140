// The Lesson view: the selected step's own header comment, read at the top of the screen —
// what it teaches, what changed, why, its mistakes — with the names it quotes as links into
// the Source view, and the run's guided stops (guided_stops.hpp) to step through. The text is
// the step file's (lesson_data.hpp); nothing here adds prose about a kernel.
#include <algorithm>

#include <fmt/format.h>

#include "gui/core/guided_stops.hpp"
#include "gui/core/lesson_data.hpp"
#include "gui/core/source_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

// The step file's index among the loaded kernel's source files, or kNone when the loaded
// kernel is another step (a link then has nothing to show).
uint32_t step_file_index(AppState& app, const Lesson& l) {
  if (!app.kernel || app.kernel->request.kernel_id != l.kernel_id) return kNone;
  const SourcePrepared& p = source_prepared(app.kernel);
  for (uint32_t i = 0; i < p.files.size(); ++i)
    if (p.files[i].path == l.file) return i;
  return kNone;
}

// Jumps the Source (and PTX) view to the first line at or after `line` that recorded an
// instruction: names are quoted where they are declared, a few lines above the code using them.
void jump_to(AppState& app, uint32_t file, uint32_t line) {
  const SourcePrepared& p = source_prepared(app.kernel);
  const auto& lines = p.files[file].lines;
  for (uint32_t l = line; l <= lines.size() && l < line + 40; ++l)
    if (!lines[l - 1].insts.empty()) {
      app.source_view.pinned_file = file;
      select_source_line(app, file, l);
      return;
    }
  app.status = fmt::format("{}:{} records no instruction nearby", p.files[file].path, line);
}

void section_text(const LessonSection& s, const ViewEnv& env) {
  if (!s.heading.empty()) {
    if (env.bold) ImGui::PushFont(env.bold);
    ImGui::TextUnformatted(s.heading.c_str());
    if (env.bold) ImGui::PopFont();
  }
  for (const std::string& p : s.paragraphs) ImGui::TextWrapped("%s", p.c_str());
  ImGui::Spacing();
}

// The sections in one column, or two side by side when the window is wide: the first column
// takes paragraphs until it holds about half the text (a long section continues at the top of
// the second, its heading not repeated).
void sections(const Lesson& l, const ViewEnv& env) {
  const bool two = ImGui::GetContentRegionAvail().x > 720.0f * env.scale;
  if (!two) {
    for (const LessonSection& s : l.sections) section_text(s, env);
    return;
  }
  size_t total = 0;
  for (const LessonSection& s : l.sections)
    for (const std::string& p : s.paragraphs) total += p.size() + 80;  // a heading or a break: about a line
  if (!ImGui::BeginTable("##lesson", 2, ImGuiTableFlags_SizingStretchSame)) return;
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  size_t so_far = 0;
  bool second = false;
  // The second column starts before the paragraph whose middle passes half the text (before
  // its heading when it is a section's first).
  const auto switch_before = [&](const std::string& p) {
    if (second || so_far == 0 || 2 * (so_far + p.size() / 2) < total) return;
    ImGui::TableNextColumn();
    second = true;
  };
  for (const LessonSection& s : l.sections) {
    if (!s.paragraphs.empty()) switch_before(s.paragraphs.front());
    if (!s.heading.empty()) {
      if (env.bold) ImGui::PushFont(env.bold);
      ImGui::TextUnformatted(s.heading.c_str());
      if (env.bold) ImGui::PopFont();
    }
    for (const std::string& p : s.paragraphs) {
      switch_before(p);
      ImGui::TextWrapped("%s", p.c_str());
      so_far += p.size() + 80;
    }
    ImGui::Spacing();
  }
  ImGui::EndTable();
}

void references(AppState& app, const Lesson& l, const ViewEnv& env) {
  if (l.references.empty()) return;
  const uint32_t file = step_file_index(app, l);
  // On the mistakes' line when it has room: the lesson is read without scrolling.
  if (!l.mistakes.empty()) same_line_if_fits(ImGui::CalcTextSize("In the code:").x + 24 * env.scale);
  ImGui::TextDisabled("In the code:");
  for (const LessonReference& r : l.references) {
    const std::string label = fmt::format("{} :{}", r.text, r.line);
    same_line_if_fits(ImGui::CalcTextSize(label.c_str()).x + 2 * ImGui::GetStyle().FramePadding.x);
    ImGui::PushID(&r);
    ImGui::BeginDisabled(file == kNone);
    if (ImGui::SmallButton(label.c_str())) jump_to(app, file, r.line);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip(file == kNone ? "open this step to jump to %s:%u" : "show %s:%u in the Source view",
                        l.file.c_str(), r.line);
    ImGui::PopID();
  }
}

// The step's guided stops (guided_stops.hpp): a button each, the one the cursor is at or past
// highlighted, and the two that step from stop to stop.
void stops(AppState& app, const Lesson& l, const ViewEnv& env) {
  if (!app.kernel || app.kernel->request.kernel_id != l.kernel_id) return;
  const std::vector<GuidedStop>& all = step_stops(*app.kernel);
  if (all.empty()) return;
  const uint32_t pos = app.playback.position;
  ImGui::TextDisabled("Stops:");
  ImGui::SameLine();
  const auto step_button = [&](const char* label, bool forward) {
    const std::optional<uint32_t> to = next_stop(all, pos, forward);
    ImGui::BeginDisabled(!to);
    if (ImGui::SmallButton(label) && to) {
      app.pause();
      app.seek(*to);
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip(forward ? "the next stop after the cursor" : "the stop before the cursor");
  };
  step_button("< stop", false);
  ImGui::SameLine();
  step_button("stop >", true);
  size_t at = all.size();  // the last stop at or before the cursor
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].event <= pos) at = i;
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string label = fmt::format("{} {}", i + 1, all[i].name);
    same_line_if_fits(ImGui::CalcTextSize(label.c_str()).x + 2 * ImGui::GetStyle().FramePadding.x);
    ImGui::PushID(int(i));
    if (i == at) ImGui::PushStyleColor(ImGuiCol_Button, scale_alpha(ok_color(env), 0.45f));
    if (ImGui::SmallButton(label.c_str())) {
      app.pause();
      app.seek(all[i].event);
    }
    if (i == at) ImGui::PopStyleColor();
    ImGui::PopID();
  }
}

void mistakes(const Lesson& l, const ViewEnv& env) {
  if (l.mistakes.empty()) return;
  ImGui::TextDisabled("Mistakes to switch on in the Ladder:");
  for (const kernels::Mistake& m : l.mistakes) {
    same_line_if_fits(ImGui::CalcTextSize(m.name.c_str()).x + 12 * env.scale);
    ImGui::PushStyleColor(ImGuiCol_Text, warn_color(env));
    ImGui::TextUnformatted(m.name.c_str());
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
      ImGui::TextUnformatted(m.description.c_str());
      ImGui::TextUnformatted(("symptom: " + m.symptom).c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
  }
}

}  // namespace

void draw_lesson(AppState& app, const ViewEnv& env) {
  const Lesson l = lesson_of(app.request.kernel_id);
  if (!l.found()) {
    ImGui::TextDisabled("pick a step on the Ladder: its lesson shows here");
    return;
  }
  const float top = ImGui::GetCursorPosY();
  if (env.bold) ImGui::PushFont(env.bold);
  ImGui::TextWrapped("Step %02d  %s", l.step, l.title.c_str());
  if (env.bold) ImGui::PopFont();
  sections(l, env);
  stops(app, l, env);
  mistakes(l, env);
  references(app, l, env);
  // How tall the lesson is against its window: the headless tests check it is read without
  // scrolling at the sizes people use.
  note_fit(app, "lesson.height", ImGui::GetCursorPosY() - top, ImGui::GetWindowHeight() - top);
}

}  // namespace gs::gui
