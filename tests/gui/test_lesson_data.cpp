// The Lesson view's data (gui/core/lesson_data.hpp): a step's own header comment split into
// its sections, the names it quotes found in the code, and every step's focus views named.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "gui/core/lesson_data.hpp"
#include "gui/core/settings.hpp"
#include "kernels/sources.hpp"

using namespace gs::gui;

namespace {

const LessonSection* section(const Lesson& l, const std::string& heading_start) {
  for (const LessonSection& s : l.sections)
    if (s.heading.starts_with(heading_start)) return &s;
  return nullptr;
}

// The text with its line breaks and comment markers gone, so a paragraph of the lesson can be
// looked for in the file it came from.
std::string flattened(std::string_view text) {
  std::string out;
  for (std::string_view line : gs::kernels::source_lines(text)) {
    if (!line.starts_with("//")) break;
    line.remove_prefix(2);
    line.remove_prefix(std::min(line.find_first_not_of(' '), line.size()));
    out += std::string(line) + " ";
  }
  return out;
}

}  // namespace

TEST_CASE("lesson: a header splits at its headings, lists keep their lines", "[gui][lesson]") {
  const std::string text =
      "// Step 42 — Example: a title that runs\n"
      "// onto a second line.\n"
      "//\n"
      "// What it teaches: the first point,\n"
      "// continued here. A ring of stages:\n"
      "//   full[s]  — landed\n"
      "//   empty[s] — released\n"
      "//\n"
      "// Why not fewer? Because of the ISA.\n"
      "// The mistake `skip-wait` leaves out the wait.\n"
      "//\n"
      "// What changed from step 41: one line.\n"
      "#include <x>\n"
      "// not header\n";
  const auto sections = parse_step_header(text);
  REQUIRE(sections.size() == 5);
  CHECK(sections[0].heading == "title");
  CHECK(sections[0].paragraphs[0] == "Step 42 — Example: a title that runs onto a second line.");
  CHECK(sections[1].heading == "What it teaches");
  CHECK(sections[1].paragraphs[0] ==
        "the first point, continued here. A ring of stages:\nfull[s]  — landed\nempty[s] — released");
  CHECK(sections[2].heading == "Why not fewer?");
  CHECK(sections[2].paragraphs[0] == "Because of the ISA.");
  CHECK(sections[3].heading == "Mistakes");
  CHECK(sections[4].heading == "What changed from step 41");
  CHECK(sections[4].paragraphs[0] == "one line.");
}

TEST_CASE("lesson: every step's lesson is its own header, with what it teaches and what changed", "[gui][lesson]") {
  for (const gs::kernels::KernelInfo& info : gs::kernels::all_kernels()) {
    INFO(info.id);
    const Lesson l = lesson_of(info.id);
    REQUIRE(l.found());
    CHECK(l.step == info.step);
    CHECK(!l.title.empty());
    CHECK(section(l, "What it teaches"));
    CHECK(section(l, "What changed"));
    // One source of prose: each paragraph is the file's own text.
    const std::string file = flattened(gs::kernels::step_source(info.id)->text);
    for (const LessonSection& s : l.sections)
      for (const std::string& p : s.paragraphs) {
        std::string joined = p;
        std::replace(joined.begin(), joined.end(), '\n', ' ');
        INFO(joined);
        CHECK(file.find(joined.substr(0, std::min<size_t>(60, joined.size()))) != std::string::npos);
      }
  }
  const Lesson l = lesson_of("hopper_producer_consumer");
  CHECK_THAT(l.title, Catch::StartsWith("Hopper: a producer warpgroup"));
  REQUIRE(section(l, "What it teaches"));
  CHECK_THAT(section(l, "What it teaches")->paragraphs[0], Catch::StartsWith("overlapping loads with math"));
  CHECK(section(l, "What changed from step 12"));
  CHECK(l.mistakes.size() == 3);
  CHECK_FALSE(lesson_of("no_such_step").found());
}

TEST_CASE("lesson: the names a lesson quotes point at lines of its code", "[gui][lesson]") {
  const Lesson l = lesson_of("simt_coalesced");
  const auto it = std::find_if(l.references.begin(), l.references.end(),
                               [](const LessonReference& r) { return r.text == "swap-row-col"; });
  REQUIRE(it != l.references.end());
  const auto lines = gs::kernels::source_lines(gs::kernels::step_source("simt_coalesced")->text);
  REQUIRE(it->line >= 1);
  REQUIRE(it->line <= lines.size());
  CHECK(lines[it->line - 1].find("swap-row-col") != std::string_view::npos);
  CHECK(lines[it->line - 1].find("//") == std::string_view::npos);
  // A snake_case name the text gives is code too: step 13 names ring_descriptors.
  const Lesson pc = lesson_of("hopper_producer_consumer");
  const auto rd = std::find_if(pc.references.begin(), pc.references.end(),
                               [](const LessonReference& r) { return r.text == "ring_descriptors"; });
  REQUIRE(rd != pc.references.end());
  const auto pc_lines = gs::kernels::source_lines(gs::kernels::step_source("hopper_producer_consumer")->text);
  CHECK(pc_lines[rd->line - 1].find("ring_descriptors") != std::string_view::npos);
  // Every reference of every step is a line of code holding its name.
  for (const gs::kernels::KernelInfo& info : gs::kernels::all_kernels()) {
    const Lesson l = lesson_of(info.id);
    const auto file = gs::kernels::source_lines(gs::kernels::step_source(info.id)->text);
    for (const LessonReference& r : l.references) {
      INFO(info.id << ": " << r.text);
      REQUIRE(r.line >= 1);
      REQUIRE(r.line <= file.size());
      CHECK(file[r.line - 1].find(r.text) != std::string_view::npos);
    }
  }
}

TEST_CASE("focus views: every step names views that exist", "[gui][lesson][focus]") {
  for (const gs::kernels::KernelInfo& info : gs::kernels::all_kernels()) {
    INFO(info.id);
    CHECK(!info.focus_views.empty());
    for (const std::string& name : info.focus_views) {
      INFO(name);
      ViewId v;
      CHECK(parse_view_name(name, v));
      CHECK(v != ViewId::ladder);
      CHECK(v != ViewId::lesson);
    }
  }
}
