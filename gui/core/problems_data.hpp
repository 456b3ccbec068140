// The problems view's prepared data: the app's problems filtered by severity and source,
// counted for the header, and the "clear" action (GPU/JIT/app problems go; the loaded
// kernel's model problems stay, since they describe the trace on screen).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gs::gui {

// Declared in app_state.hpp, which holds ProblemsViewOptions (so no include here).
struct AppState;
struct Problem;

struct ProblemFilter {
  bool errors = true, warnings = true, infos = true;
  std::string source;  // "" = every source
  bool accepts(const Problem& p) const;
};

// The problems view's own choices, kept in AppState so describe_problems() reports them.
struct ProblemsViewOptions {
  ProblemFilter filter;
};

// The selected problem's text wrapped to the detail box (a JIT log is long: wrapping it every
// frame would be wasted work). Keyed on the text itself and the width; the view fills it,
// since wrapping needs the font.
struct WrappedTextCache {
  std::string source;   // the unwrapped text
  float width = 0.0f;   // pixels
  std::string wrapped;
  bool valid = false;
  bool matches(const std::string& text, float w) const { return valid && width == w && source == text; }
};

struct ProblemCounts {
  uint32_t errors = 0, warnings = 0, infos = 0;
  uint32_t total() const { return errors + warnings + infos; }
};
ProblemCounts count_problems(const std::vector<Problem>& problems);

// Indices into problems that pass the filter, in order.
std::vector<uint32_t> filtered_problems(const std::vector<Problem>& problems, const ProblemFilter& f);
// The distinct sources present, sorted ("app", "gpu", "model", ...).
std::vector<std::string> problem_sources(const std::vector<Problem>& problems);

// Removes every problem whose source is not "model"; the selection is dropped (indices shift).
// Returns how many went.
uint32_t clear_non_model_problems(AppState& app);

// What the view says when there are no problems. "No problems" is only true of a judged run:
// a kernel that was only opened (one CTA traced) may still compute a wrong C, so then the note
// says the run was not judged and offers Run on model.
struct EmptyProblemsNote {
  std::string headline;           // the first line
  std::string hint;               // what to do next
  bool offer_model_run = false;   // show a Run on model button
  bool all_clear = false;         // the headline is good news (shown in the ok colour)
};
EmptyProblemsNote empty_problems_note(const AppState& app);

// The PTX line of a problem's instruction in the loaded kernel (0: none).
uint32_t problem_line(const AppState& app, const Problem& p);

}  // namespace gs::gui
