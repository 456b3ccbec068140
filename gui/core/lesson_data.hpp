// The Lesson view's prepared data: the open step's own header comment (kernels/NN_<name>.cpp,
// built into the binary: kernels/sources.hpp), split into its sections ("What it teaches",
// "What changed from step 12", "Why ...?", the mistakes) so the view can set each heading
// apart. One source of prose: the text is the step file's, never a copy; the mistakes' names
// and symptoms come from the step's registry entry, and each name of code the text gives
// (backticked, or a snake_case identifier) is looked up in the step's code so the view can
// jump the Source view there.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/registry.hpp"

namespace gs::gui {

struct AppState;

// A name the text gives (in backticks, or a snake_case identifier) and the first line of the
// step's code after the header, not a comment, that holds it: "`swap-row-col`" -> line 47.
struct LessonReference {
  std::string text;   // without the backticks
  uint32_t line = 0;  // 1-based line of the step file
};

struct LessonSection {
  std::string heading;                  // "" for the opening paragraph
  std::vector<std::string> paragraphs;  // lines of indented lists keep their breaks ('\n')
};

struct Lesson {
  std::string kernel_id;
  int step = 0;
  std::string title;  // the header's first paragraph without "Step NN — "
  std::string file;   // "kernels/13_hopper_producer_consumer.cpp"
  std::vector<LessonSection> sections;
  std::vector<LessonReference> references;
  std::vector<kernels::Mistake> mistakes;  // the step's registry entry
  std::vector<std::string> focus_views;    // KernelInfo::focus_views
  std::vector<std::string> pictures;       // KernelInfo::pictures, as declared
  bool found() const { return !sections.empty(); }
};

// The header comment of a step file's text: its leading lines of "//" comments, split into
// sections at the headings the steps use ("What it teaches:", "What changed from step N:",
// "Why ...?", paragraphs about the mistakes).
std::vector<LessonSection> parse_step_header(std::string_view file_text);
// Each distinct name of `sections` found in the code of `file_text` after its header.
std::vector<LessonReference> find_references(const std::vector<LessonSection>& sections, std::string_view file_text);

// The lesson of step `kernel_id` (not found: no sections).
Lesson lesson_of(std::string_view kernel_id);

nlohmann::json describe_lesson(AppState& app);

}  // namespace gs::gui
