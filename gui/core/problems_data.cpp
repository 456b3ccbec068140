#include "gui/core/problems_data.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/occupancy.hpp"
#include "gui/core/resource_advice.hpp"
#include "gui/core/view_data.hpp"

namespace gs::gui {

bool ProblemFilter::accepts(const Problem& p) const {
  const bool severity_ok = (p.severity == Severity::error && errors) || (p.severity == Severity::warning && warnings) ||
                           (p.severity == Severity::info && infos);
  return severity_ok && (source.empty() || p.source == source);
}

ProblemCounts count_problems(const std::vector<Problem>& problems) {
  ProblemCounts c;
  for (const Problem& p : problems) {
    if (p.severity == Severity::error) ++c.errors;
    if (p.severity == Severity::warning) ++c.warnings;
    if (p.severity == Severity::info) ++c.infos;
  }
  return c;
}

std::vector<uint32_t> filtered_problems(const std::vector<Problem>& problems, const ProblemFilter& f) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < problems.size(); ++i)
    if (f.accepts(problems[i])) out.push_back(i);
  return out;
}

std::vector<std::string> problem_sources(const std::vector<Problem>& problems) {
  std::vector<std::string> s;
  for (const Problem& p : problems)
    if (std::find(s.begin(), s.end(), p.source) == s.end()) s.push_back(p.source);
  std::sort(s.begin(), s.end());
  return s;
}

uint32_t clear_non_model_problems(AppState& app) {
  const size_t before = app.problems.size();
  app.problems.erase(std::remove_if(app.problems.begin(), app.problems.end(),
                                    [](const Problem& p) { return p.source != "model"; }),
                     app.problems.end());
  if (app.problems.size() != before) app.selection.problem = kNone;
  return uint32_t(before - app.problems.size());
}

namespace {

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

nlohmann::json note_json(const EmptyProblemsNote& n) {
  return {{"headline", n.headline}, {"hint", n.hint}, {"offer_model_run", n.offer_model_run}, {"all_clear", n.all_clear}};
}

}  // namespace

EmptyProblemsNote empty_problems_note(const AppState& app) {
  EmptyProblemsNote note;
  if (!app.kernel) {
    note.headline = "Nothing loaded yet.";
    note.hint = "Open a kernel in the Ladder.";
    return note;
  }
  const LoadedKernel& k = *app.kernel;
  const std::set<std::string>& loaded = k.request.mistakes;
  // Mistakes toggled in the Ladder since the kernel was opened are not on screen yet.
  const bool edited = app.request.kernel_id == k.request.kernel_id && app.request.mistakes != loaded;
  if (!k.report.judged) {
    note.headline = fmt::format(
        "No hazards in the traced CTA ({},{}), but this run was not judged: only that CTA ran, so C was not compared "
        "with the reference.",
        k.request.cta[0], k.request.cta[1]);
    note.hint = loaded.empty() ? "Run on model runs the whole grid and judges C."
                               : fmt::format("With {} switched on, Run on model runs the whole grid and says whether C "
                                             "is wrong.",
                                             joined(loaded));
    note.offer_model_run = true;
  } else {
    note.headline = "No problems: the whole grid ran without hazards and C matches the reference.";
    note.all_clear = true;
    note.hint = loaded.empty() ? "Switch on a mistake in the Ladder and Run on model to see one."
                               : fmt::format("{} is switched on but showed nothing at this shape.", joined(loaded));
  }
  if (edited) {
    note.hint = app.request.mistakes.empty()
                    ? "The mistakes were switched off in the Ladder: Run on model to judge the kernel without them."
                    : fmt::format("{} is switched on in the Ladder but not loaded yet: Run on model to judge it.",
                                  joined(app.request.mistakes));
    note.offer_model_run = true;
  }
  return note;
}

uint32_t problem_line(const AppState& app, const Problem& p) {
  if (!app.kernel || p.inst == kNone) return 0;
  return app.kernel->line_of(p.inst);
}

nlohmann::json describe_problems(AppState& app) {
  // The state says what the view will show once ptxas has counted the registers.
  if (app.kernel) {
    count_registers_now(*app.kernel);
    update_resource_advice(app);
  }
  const ProblemCounts c = count_problems(app.problems);
  const ProblemFilter& f = app.problems_view.filter;
  nlohmann::json items = nlohmann::json::array();
  for (const Problem& p : app.problems)
    items.push_back({{"severity", severity_name(p.severity)},
                     {"source", p.source},
                     {"kind", p.kind},
                     {"title", p.title},
                     {"detail", p.detail},
                     {"inst", p.inst == kNone ? nlohmann::json(nullptr) : nlohmann::json(p.inst)},
                     {"line", problem_line(app, p)},
                     {"warp", p.warp == kNoWarp ? nlohmann::json(nullptr) : nlohmann::json(p.warp)},
                     {"cycle", p.cycle}});
  return {{"count", app.problems.size()},
          {"errors", c.errors},
          {"warnings", c.warnings},
          {"infos", c.infos},
          {"selected", app.selection.problem == kNone ? nlohmann::json(nullptr) : nlohmann::json(app.selection.problem)},
          {"filter", {{"errors", f.errors}, {"warnings", f.warnings}, {"infos", f.infos}, {"source", f.source}}},
          {"shown", filtered_problems(app.problems, f).size()},
          {"items", items},
          {"empty_note", app.problems.empty() ? note_json(empty_problems_note(app)) : nlohmann::json(nullptr)}};
}

}  // namespace gs::gui
