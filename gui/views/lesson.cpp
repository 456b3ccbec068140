// The Lesson view: the selected step's own header comment, read at the top of the screen —
// what it teaches, what changed, why, its mistakes — with the names it quotes as links into
// the Source view, the run's guided stops (guided_stops.hpp) to step through, and the
// article's pictures of the step (article_pictures.hpp). The text is the step file's
// (lesson_data.hpp); nothing here adds prose about a kernel.
//
// It is read without scrolling: the text is laid out in two columns (one when narrow) and
// measured before it is drawn; the shell sizes the window from that measure (app.drawn's
// "lesson.full"), and where even the tallest lesson window cannot hold it all, the longest
// sections other than what it teaches, what changed and the mistakes ("Phases, as the code
// runs them", a "Why ...?") are folded to a button that shows them in a popup.
#include <algorithm>
#include <cfloat>
#include <variant>

#include <fmt/format.h>

#include "gui/core/article_pictures.hpp"
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

// What the issue asks every lesson to show: what it teaches, what changed, the mistakes (and
// the opening paragraph some steps start with). The others may be folded.
bool lesson_core_section(const LessonSection& s) {
  return s.heading.empty() || s.heading == "What it teaches" || s.heading.starts_with("What changed") ||
         s.heading == "Mistakes";
}

std::string lesson_section_key(const LessonSection& s) { return s.heading.empty() ? "opening" : s.heading; }

// One line of the lesson's columns, with the height it takes there.
struct LessonLine {
  enum class Kind : uint8_t { heading, paragraph, gap, folded } kind = Kind::paragraph;
  size_t section = 0, paragraph = 0;
  float height = 0;
};

// The columns' plan: the lines, where the second column starts (lines.size(): one column) and
// the height of the taller column.
struct LessonPlan {
  std::vector<LessonLine> lines;
  size_t second = 0;
  float height = 0;
};

float lesson_heading_height(const ViewEnv& env) {
  if (env.bold) ImGui::PushFont(env.bold);
  const float h = ImGui::GetTextLineHeight() + ImGui::GetStyle().ItemSpacing.y;
  if (env.bold) ImGui::PopFont();
  return h;
}

// The lines of the lesson at this column width, each measured as ImGui lays it out (a wrapped
// text is its CalcTextSize plus the item spacing), and the column split: the second column
// starts before the line whose middle passes half the height, never between a heading and its
// first paragraph.
LessonPlan lesson_plan(const Lesson& l, const std::vector<bool>& folded, float width, bool two, const ViewEnv& env) {
  LessonPlan plan;
  const float spacing = ImGui::GetStyle().ItemSpacing.y;
  const float heading = lesson_heading_height(env);
  for (size_t i = 0; i < l.sections.size(); ++i) {
    const LessonSection& s = l.sections[i];
    if (folded[i]) {
      plan.lines.push_back({LessonLine::Kind::folded, i, 0, ImGui::GetFontSize() + spacing});
      continue;
    }
    if (!s.heading.empty()) plan.lines.push_back({LessonLine::Kind::heading, i, 0, heading});
    for (size_t p = 0; p < s.paragraphs.size(); ++p)
      plan.lines.push_back({LessonLine::Kind::paragraph, i, p,
                            ImGui::CalcTextSize(s.paragraphs[p].c_str(), nullptr, false, width).y + spacing});
    plan.lines.push_back({LessonLine::Kind::gap, i, 0, spacing});
  }
  float total = 0;
  for (const LessonLine& line : plan.lines) total += line.height;
  plan.second = plan.lines.size();
  plan.height = total;
  if (!two) return plan;
  float so_far = 0;
  for (size_t i = 0; i < plan.lines.size(); ++i) {
    const LessonLine& line = plan.lines[i];
    const bool after_heading = i > 0 && plan.lines[i - 1].kind == LessonLine::Kind::heading;
    const float unit = line.height + (line.kind == LessonLine::Kind::heading && i + 1 < plan.lines.size()
                                          ? plan.lines[i + 1].height
                                          : 0.0f);
    if (so_far > 0 && !after_heading && line.kind != LessonLine::Kind::gap && 2 * (so_far + unit / 2) >= total) {
      plan.second = i;
      plan.height = std::max(so_far, total - so_far);
      return plan;
    }
    so_far += line.height;
  }
  return plan;
}

// A folded section: a button that shows its text in a popup.
void lesson_folded(AppState& app, const LessonSection& s, size_t index, const ViewEnv& env) {
  ImGui::PushID(int(index));
  const std::string label = fmt::format("{} ...", s.heading);
  if (ImGui::SmallButton(label.c_str())) ImGui::OpenPopup("##folded");
  const ImVec2 at = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
  app.drawn["lesson.folded." + lesson_section_key(s)] = {at.x, at.y, size.x, size.y};
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("folded to keep the lesson on one screen: click to read it");
  if (ImGui::BeginPopup("##folded")) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40.0f);
    if (env.bold) ImGui::PushFont(env.bold);
    ImGui::TextUnformatted(s.heading.c_str());
    if (env.bold) ImGui::PopFont();
    for (const std::string& p : s.paragraphs) ImGui::TextWrapped("%s", p.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndPopup();
  }
  ImGui::PopID();
}

// Draws the plan's lines in their columns from the cursor; leaves the cursor under the taller.
void lesson_columns(AppState& app, const Lesson& l, const LessonPlan& plan, float width, float gap,
                    const ViewEnv& env) {
  const ImVec2 origin = ImGui::GetCursorPos();
  for (size_t column = 0; column < 2; ++column) {
    const size_t from = column == 0 ? 0 : plan.second, to = column == 0 ? plan.second : plan.lines.size();
    if (from >= to) continue;
    const float x = origin.x + float(column) * (width + gap);
    ImGui::SetCursorPos(ImVec2(x, origin.y));
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(x + width);
    for (size_t i = from; i < to; ++i) {
      const LessonLine& line = plan.lines[i];
      const LessonSection& s = l.sections[line.section];
      switch (line.kind) {
        case LessonLine::Kind::heading:
          if (env.bold) ImGui::PushFont(env.bold);
          ImGui::TextUnformatted(s.heading.c_str());
          if (env.bold) ImGui::PopFont();
          break;
        case LessonLine::Kind::paragraph: ImGui::TextWrapped("%s", s.paragraphs[line.paragraph].c_str()); break;
        case LessonLine::Kind::gap: ImGui::Spacing(); break;
        case LessonLine::Kind::folded: lesson_folded(app, s, line.section, env); break;
      }
      // Where each shown section starts: the tests find what it teaches and what changed here.
      if (line.kind != LessonLine::Kind::folded && line.kind != LessonLine::Kind::gap &&
          (line.kind == LessonLine::Kind::heading || (line.paragraph == 0 && s.heading.empty()))) {
        const ImVec2 at = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
        app.drawn["lesson.section." + lesson_section_key(s)] = {at.x, at.y, size.x, size.y};
      }
    }
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
  }
  ImGui::SetCursorPos(ImVec2(origin.x, origin.y + plan.height));
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
// highlighted, the two that step from stop to stop, and the sentence of the stop at the cursor.
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
      ImGui::SetTooltip(forward ? "the next stop after the cursor (Shift+PageDown)"
                                : "the stop before the cursor (Shift+PageUp)");
  };
  step_button("< stop", false);
  ImGui::SameLine();
  step_button("stop >", true);
  const GuidedStop* at = stop_at(all, pos);
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string label = fmt::format("{} {}", i + 1, all[i].label);
    same_line_if_fits(ImGui::CalcTextSize(label.c_str()).x + 2 * ImGui::GetStyle().FramePadding.x);
    ImGui::PushID(int(i));
    const bool here = at == &all[i];
    if (here) ImGui::PushStyleColor(ImGuiCol_Button, scale_alpha(ok_color(env), 0.45f));
    if (ImGui::SmallButton(label.c_str())) {
      app.pause();
      app.seek(all[i].event);
    }
    if (here) ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
      ImGui::TextUnformatted(all[i].sentence.c_str());
      if (!all[i].mistake.empty()) ImGui::TextDisabled("shown by the mistake %s", all[i].mistake.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
    ImGui::PopID();
  }
  // What the stop at the cursor shows, in its sentence.
  if (at) {
    ImGui::PushStyleColor(ImGuiCol_Text, at->event == pos ? ok_color(env) : ImGui::GetColorU32(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s%s", at->event == pos ? "" : "after: ", at->sentence.c_str());
    ImGui::PopStyleColor();
  }
}

// The article's pictures of the step (KernelInfo::pictures): a button each, which opens the
// picture window (a layout) or brings the view that draws it forward.
void lesson_pictures(AppState& app, const Lesson& l, const ViewEnv& env) {
  if (l.pictures.empty()) return;
  ImGui::TextDisabled("Pictures:");
  for (size_t i = 0; i < l.pictures.size(); ++i) {
    ArticlePicture p;
    try {
      p = parse_article_picture(l.pictures[i]);
    } catch (const std::exception&) {
      continue;  // tests/gui/test_article_pictures.cpp reads every step's: none is bad
    }
    const std::string label = p.view ? fmt::format("{} view", view_title(*p.view)) : p.text;
    same_line_if_fits(ImGui::CalcTextSize(label.c_str()).x + 2 * ImGui::GetStyle().FramePadding.x);
    ImGui::PushID(int(i));
    const bool open = app.lesson_view.picture == p.text;
    if (open) ImGui::PushStyleColor(ImGuiCol_Button, scale_alpha(ok_color(env), 0.45f));
    if (ImGui::SmallButton(label.c_str())) show_article_picture(app, p);
    if (open) ImGui::PopStyleColor();
    const ImVec2 at = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
    app.drawn["lesson.picture_button." + p.text] = {at.x, at.y, size.x, size.y};
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(p.view ? "%s" : "%s (gemmscope draw %s)", p.title.c_str(), p.text.c_str());
    ImGui::PopID();
  }
}

ImU32 lesson_rgb(const Rgb& c, double opacity = 1.0) {
  return IM_COL32(c[0], c[1], c[2], int(std::clamp(opacity, 0.0, 1.0) * 255.0));
}

// A Drawing (drawing.hpp) on the window's draw list, `scale` pixels per picture unit from
// `origin`: the same shapes the SVG and PNG are made of, text in the monospace font.
void lesson_draw_drawing(ImDrawList* dl, const Drawing& d, ImVec2 origin, float scale, const ViewEnv& env) {
  ImFont* font = env.mono ? env.mono : ImGui::GetFont();
  dl->AddRectFilled(origin, ImVec2(origin.x + float(d.width) * scale, origin.y + float(d.height) * scale),
                    lesson_rgb(d.paper));
  const auto at = [&](double x, double y) { return ImVec2(origin.x + float(x) * scale, origin.y + float(y) * scale); };
  for (const Drawing::Shape& shape : d.shapes) {
    if (const auto* r = std::get_if<Drawing::Rect>(&shape)) {
      if (r->fill)
        dl->AddRectFilled(at(r->x, r->y), at(r->x + r->w, r->y + r->h), lesson_rgb(*r->fill, r->fill_opacity));
      if (r->stroke)
        dl->AddRect(at(r->x, r->y), at(r->x + r->w, r->y + r->h), lesson_rgb(*r->stroke), 0.0f, 0,
                    std::max(1.0f, float(r->stroke_width) * scale));
    } else if (const auto* line = std::get_if<Drawing::Line>(&shape)) {
      dl->AddLine(at(line->x0, line->y0), at(line->x1, line->y1), lesson_rgb(line->stroke),
                  std::max(1.0f, float(line->width) * scale));
    } else if (const auto* t = std::get_if<Drawing::Text>(&shape)) {
      const float size = float(t->size) * scale;
      if (size < 4.0f) continue;  // too small to read at this scale: the cells' colours say it
      ImVec2 p = at(t->x, t->y);
      p.y -= font->Ascent * size / font->FontSize;  // the Drawing's y is the baseline
      if (t->anchor == Drawing::Anchor::middle) p.x -= font->CalcTextSizeA(size, FLT_MAX, 0.0f, t->text.c_str()).x / 2;
      dl->AddText(font, size, p, lesson_rgb(t->fill), t->text.c_str());
    }
  }
}

// The picture window: the layout the lesson's button chose, scaled to the window. A popup, so
// it is drawn over every view rather than inside the lesson's window; closing it (a click
// outside, Escape) clears the choice.
void lesson_picture_window(AppState& app, const ViewEnv& env) {
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImGuiID shown_id = ImGui::GetID("##picture_shown");
  const ImGuiID shown = ImGuiID(storage->GetInt(shown_id, 0));
  const ImGuiID wanted = app.lesson_view.picture.empty() ? 0 : ImGui::GetID(app.lesson_view.picture.c_str());
  ArticlePicture p;
  Drawing d;
  try {
    if (wanted) p = parse_article_picture(app.lesson_view.picture);
    if (wanted && !p.view) d = layout_drawing(p.layout, p.options);
  } catch (const std::exception& e) {
    app.status = e.what();
    app.lesson_view.picture.clear();
    return;
  }
  // Not in the app's first frame: the windows appearing after the lesson's take the focus then,
  // which closes a popup opened before them (a picture asked for on the command line).
  if (wanted && wanted != shown && !p.view && ImGui::GetFrameCount() > 1) {
    ImGui::OpenPopup("##lesson_picture");
    storage->SetInt(shown_id, int(wanted));
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
                            ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x * 0.7f, vp->WorkSize.y * 0.75f), ImGuiCond_Always);
  }
  if (!ImGui::BeginPopup("##lesson_picture")) {
    // Closed by the user since it was shown: the choice goes with it.
    if (shown && shown == wanted) app.lesson_view.picture.clear();
    if (shown) storage->SetInt(shown_id, 0);
    return;
  }
  if (env.bold) ImGui::PushFont(env.bold);
  ImGui::TextUnformatted(p.title.c_str());
  if (env.bold) ImGui::PopFont();
  ImGui::TextDisabled("the article's picture: gemmscope draw %s -o FILE writes it as SVG or PNG", p.text.c_str());
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float scale = std::max(0.05f, std::min(avail.x / float(d.width), avail.y / float(d.height)));
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  lesson_draw_drawing(ImGui::GetWindowDrawList(), d, origin, scale, env);
  ImGui::Dummy(ImVec2(float(d.width) * scale, float(d.height) * scale));
  app.drawn["lesson.picture"] = {origin.x, origin.y, float(d.width) * scale, float(d.height) * scale};
  ImGui::EndPopup();
}

void mistakes(AppState& app, const Lesson& l, const ViewEnv& env) {
  if (l.mistakes.empty()) return;
  ImGui::TextDisabled("Mistakes to switch on in the Ladder:");
  const ImVec2 at = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
  app.drawn["lesson.mistakes"] = {at.x, at.y, size.x, size.y};
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
  // Where sections were drawn or folded: this frame's only.
  for (auto it = app.drawn.begin(); it != app.drawn.end();)
    it = it->first.starts_with("lesson.section.") || it->first.starts_with("lesson.folded.") ? app.drawn.erase(it)
                                                                                              : std::next(it);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float top = ImGui::GetCursorPosY();
  // The width text wraps at, the same with or without a scrollbar, so a measure holds.
  const float inner = ImGui::GetWindowWidth() - 2 * style.WindowPadding.x - style.ScrollbarSize;
  const float available = ImGui::GetWindowHeight() - top - style.WindowPadding.y;
  const std::string title = fmt::format("Step {:02d}  {}", l.step, l.title);
  if (env.bold) ImGui::PushFont(env.bold);
  const float title_h = ImGui::CalcTextSize(title.c_str(), nullptr, false, inner).y + style.ItemSpacing.y;
  if (env.bold) ImGui::PopFont();
  // The stops, pictures, mistakes and links under the text, as tall as in the last frame.
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImGuiID tail_id = ImGui::GetID("##tail_height");
  const float tail_h = storage->GetFloat(tail_id, 4 * ImGui::GetFrameHeightWithSpacing());

  const bool two = inner > 720.0f * env.scale;
  const float gap = 2 * style.ItemSpacing.x;
  const float width = two ? (inner - gap) / 2 : inner;
  std::vector<bool> folded(l.sections.size(), false);
  LessonPlan plan = lesson_plan(l, folded, width, two, env);
  // Where the lesson does not fit in `room`, the longest foldable sections fold, one at a time.
  const auto fold_into = [&](float room) {
    while (title_h + plan.height + tail_h > room) {
      size_t longest = l.sections.size();
      float longest_h = 0;
      for (size_t i = 0; i < l.sections.size(); ++i) {
        if (folded[i] || lesson_core_section(l.sections[i])) continue;
        float h = 0;
        for (const LessonLine& line : plan.lines)
          if (line.section == i) h += line.height;
        if (h > longest_h) {
          longest = i;
          longest_h = h;
        }
      }
      if (longest == l.sections.size()) break;
      folded[longest] = true;
      plan = lesson_plan(l, folded, width, two, env);
    }
  };
  // First into the most room the shell can give the window (its "lesson.room"; the window's own
  // outside the focus layout): what is left is what the window asks for, so the shell sizes it
  // from the text (its "lesson.full") and no larger than the folded text needs.
  const auto room = app.drawn.find("lesson.room");
  fold_into(room != app.drawn.end() ? std::max(available, room->second[3] - top - style.WindowPadding.y)
                                    : available);
  const ImVec2 win = ImGui::GetWindowPos();
  app.drawn["lesson.full"] = {win.x, win.y, ImGui::GetWindowWidth(),
                              top + title_h + plan.height + tail_h + style.WindowPadding.y};
  // Then into the window as it is this frame (smaller until the shell has sized it).
  fold_into(available);

  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + inner);
  if (env.bold) ImGui::PushFont(env.bold);
  ImGui::TextWrapped("%s", title.c_str());
  if (env.bold) ImGui::PopFont();
  ImGui::PopTextWrapPos();
  lesson_columns(app, l, plan, width, gap, env);
  const float tail_top = ImGui::GetCursorPosY();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + inner);
  stops(app, l, env);
  lesson_pictures(app, l, env);
  mistakes(app, l, env);
  references(app, l, env);
  ImGui::PopTextWrapPos();
  storage->SetFloat(tail_id, ImGui::GetCursorPosY() - tail_top);
  // How tall the lesson is against its window, and whether ImGui had to scroll it: the headless
  // tests check both at the sizes people use.
  note_fit(app, "lesson.height", ImGui::GetCursorPosY() - style.ItemSpacing.y - top, available);
  note_fit(app, "lesson.scroll", ImGui::GetScrollMaxY(), 0.0f);
  lesson_picture_window(app, env);
}

}  // namespace gs::gui
