#include "gui/core/lesson_data.hpp"

#include <algorithm>
#include <optional>
#include <regex>

#include "gui/core/app_state.hpp"
#include "gui/core/guided_stops.hpp"
#include "kernels/sources.hpp"

namespace gs::gui {

namespace {

// The comment text of a header line ("// What it teaches: ..." -> "What it teaches: ..."),
// indentation past the one space kept (a list item or a formula).
std::string_view comment_text(std::string_view line) {
  line.remove_prefix(2);
  if (!line.empty() && line[0] == ' ') line.remove_prefix(1);
  return line;
}

// Where a section starts: its heading and the rest of the line, or nothing for a plain line.
struct Heading {
  std::string heading, rest;
};
std::optional<Heading> heading_of(const std::string& line) {
  // "What it teaches:", "What changed from step 12:", "What changed from the SIMT steps:",
  // "What changed from step 10 (Ampere):"
  static const std::regex what(
      R"(^(What [a-z ]{1,30}?(?: from (?:step \d+|the [A-Za-z]+(?: [A-Za-z]+)?))?(?: \([A-Za-z ]+\))?):\s*(.*)$)");
  static const std::regex why(R"(^(Why [^?]{1,100}\?)\s*(.*)$)");
  // "Phases, as the code runs them:", a walk through the code in its order.
  static const std::regex phases(R"(^(Phases, as the code runs them):\s*(.*)$)");
  static const std::regex mistake(R"(^(?:The m|M)istakes?\b)");
  std::smatch m;
  if (std::regex_match(line, m, what)) return Heading{m[1].str(), m[2].str()};
  if (std::regex_match(line, m, why)) return Heading{m[1].str(), m[2].str()};
  if (std::regex_match(line, m, phases)) return Heading{m[1].str(), m[2].str()};
  if (std::regex_search(line, mistake)) return Heading{"Mistakes", line};
  return std::nullopt;
}

}  // namespace

std::vector<LessonSection> parse_step_header(std::string_view text) {
  std::vector<LessonSection> sections;
  std::string paragraph;
  bool break_before_next = false;
  size_t item_indent = 0;  // the indentation of the list item being read
  const auto flush = [&] {
    if (paragraph.empty()) return;
    if (sections.empty()) sections.push_back({});
    sections.back().paragraphs.push_back(paragraph);
    paragraph.clear();
  };
  for (std::string_view raw : kernels::source_lines(text)) {
    if (!raw.starts_with("//")) break;  // the header ends at the first line of code
    const std::string_view line = comment_text(raw);
    if (line.find_first_not_of(' ') == std::string_view::npos) {
      flush();
      continue;
    }
    const bool indented = line.starts_with("  ");
    // A heading starts a line that starts a paragraph or follows a finished sentence.
    const bool may_head = !indented && (paragraph.empty() || paragraph.ends_with('.') || paragraph.ends_with('?'));
    if (may_head)
      if (auto h = heading_of(std::string(line))) {
        flush();
        // Paragraphs about mistakes in a row stay one section.
        if (sections.empty() || sections.back().heading != h->heading || h->heading != "Mistakes")
          sections.push_back({h->heading, {}});
        paragraph = h->rest;
        break_before_next = false;
        continue;
      }
    const size_t indent = line.find_first_not_of(' ');
    const std::string text(line.substr(indent));
    // A list item keeps its own line, and so does the line after the list; a line indented
    // deeper than its item continues it.
    const bool continues_item = indented && break_before_next && indent > item_indent;
    if (paragraph.empty()) paragraph = text;
    else if (continues_item) paragraph += " " + text;
    else if (indented || break_before_next) paragraph += "\n" + text;
    else paragraph += " " + text;
    if (indented && !continues_item) item_indent = indent;
    break_before_next = indented;
  }
  flush();
  // The first paragraph is the title line ("Step 13 — ...").
  if (!sections.empty() && sections[0].heading.empty() && !sections[0].paragraphs.empty() &&
      sections[0].paragraphs[0].starts_with("Step "))
    sections[0].heading = "title";
  return sections;
}

std::vector<LessonReference> find_references(const std::vector<LessonSection>& sections, std::string_view text) {
  const std::vector<std::string_view> lines = kernels::source_lines(text);
  size_t code = 0;
  while (code < lines.size() && lines[code].starts_with("//")) ++code;
  // The names the text gives: quoted in backticks (`swap-row-col`), or written as a snake_case
  // identifier (ring_descriptors, expect_tx), in the order they come.
  static const std::regex name(R"(`([^`]{1,60})`|\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b)");
  std::vector<LessonReference> refs;
  for (const LessonSection& s : sections)
    for (const std::string& p : s.paragraphs)
      for (auto it = std::sregex_iterator(p.begin(), p.end(), name); it != std::sregex_iterator(); ++it) {
        const std::string n = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
        if (std::any_of(refs.begin(), refs.end(), [&](const LessonReference& r) { return r.text == n; })) continue;
        // The first line of code (not a comment, not an include) that holds the name.
        for (size_t i = code; i < lines.size(); ++i) {
          std::string_view l = lines[i];
          l.remove_prefix(std::min(l.find_first_not_of(' '), l.size()));
          if (l.starts_with("//") || l.starts_with("#include") || l.find(n) == std::string_view::npos) continue;
          refs.push_back({n, uint32_t(i + 1)});
          break;
        }
      }
  return refs;
}

Lesson lesson_of(std::string_view kernel_id) {
  Lesson l;
  const kernels::KernelInfo* info = kernels::find_kernel(kernel_id);
  const kernels::SourceFile* file = kernels::step_source(kernel_id);
  if (!info || !file) return l;
  l.kernel_id = info->id;
  l.step = info->step;
  l.file = std::string(file->path);
  l.mistakes = info->mistakes;
  l.focus_views = info->focus_views;
  l.pictures = info->pictures;
  l.sections = parse_step_header(file->text);
  if (!l.sections.empty() && l.sections[0].heading == "title") {
    std::string t = l.sections[0].paragraphs[0];
    // "Step 13 — Hopper: ..." -> "Hopper: ..."
    if (const size_t dash = t.find("— "); dash != std::string::npos && dash < 12) t = t.substr(dash + 4);
    l.title = t;
    l.sections.erase(l.sections.begin());
  }
  l.references = find_references(l.sections, file->text);
  return l;
}

nlohmann::json describe_lesson(AppState& app) {
  const Lesson l = lesson_of(app.request.kernel_id);
  nlohmann::json sections = nlohmann::json::array();
  for (const LessonSection& s : l.sections) sections.push_back({{"heading", s.heading}, {"paragraphs", s.paragraphs}});
  nlohmann::json refs = nlohmann::json::array();
  for (const LessonReference& r : l.references) refs.push_back({{"text", r.text}, {"line", r.line}});
  nlohmann::json mistakes = nlohmann::json::array();
  for (const kernels::Mistake& m : l.mistakes) mistakes.push_back({{"name", m.name}, {"symptom", m.symptom}});
  // The guided stops of the run on screen, when it is this step's.
  const bool loaded = app.kernel && app.kernel->request.kernel_id == l.kernel_id;
  return {{"kernel", l.kernel_id}, {"step", l.step},         {"title", l.title},
          {"file", l.file},        {"sections", sections},   {"references", refs},
          {"mistakes", mistakes},  {"focus_views", l.focus_views},
          {"stops", loaded ? stops_json(step_stops(*app.kernel)) : nlohmann::json::array()},
          {"stops_missing", loaded ? nlohmann::json(step_stops_missing(*app.kernel)) : nlohmann::json::array()},
          {"pictures", l.pictures},
          {"picture", app.lesson_view.picture}};
}

}  // namespace gs::gui
