#include "gui/core/model_problems.hpp"

#include <map>
#include <regex>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"

namespace gs::gui {

std::string op_of_ptx_line(const std::string& line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos) return "";
  if (line[i] == '@') i = line.find_first_not_of(" \t", line.find_first_of(" \t", i));  // the guard
  if (i == std::string::npos) return "";
  const size_t end = line.find_first_of(" \t;", i);
  return line.substr(i, end == std::string::npos ? std::string::npos : end - i);
}

namespace {

// Hazards that are one finding: one kind on one op saying the same thing (the same cause) at
// other addresses.
std::string group_key(const model::Hazard& h, const std::string& op) {
  static const std::regex hex("0x[0-9A-Fa-f]+");
  return fmt::format("{}|{}|{}", int(h.kind), op, std::regex_replace(h.detail, hex, "0x_"));
}

}  // namespace

std::vector<Problem> model_problems(const LoadedKernel& k) {
  std::vector<Problem> out;
  std::vector<uint32_t> counts;  // hazards in each entry
  std::map<std::string, size_t> groups;
  std::string symptoms;  // what the mistakes switched on are expected to show
  if (k.info)
    for (const kernels::Mistake& m : k.info->mistakes)
      if (k.request.mistakes.count(m.name))
        symptoms += fmt::format("\nMistake {} is switched on ({}): {}.", m.name, m.description, m.symptom);
  for (const model::Hazard& h : k.report.result.hazards) {
    const std::string kind(model::hazard_kind_name(h.kind));
    const std::string op = h.inst < k.inst_text.size() ? op_of_ptx_line(k.inst_text[h.inst]) : "";
    const std::string key = group_key(h, op);
    if (auto it = groups.find(key); it != groups.end()) {
      const uint32_t n = ++counts[it->second];
      out[it->second].title = fmt::format("{} ×{}: {}", kind, n, op);
      continue;
    }
    groups[key] = out.size();
    counts.push_back(1);
    Problem p;
    p.severity = Severity::error;
    p.source = "model";
    p.kind = kind;
    p.title = kind + (op.empty() ? "" : ": " + op);
    // The detail names the instruction, warp and address; the kind's meaning says what it is.
    p.detail = h.detail + "\n(" + kind + ": " + std::string(model::hazard_kind_meaning(h.kind)) + ")" + symptoms;
    p.inst = h.inst;
    p.warp = h.warp == kNone ? kNoWarp : uint16_t(h.warp);
    p.cycle = h.cycle;
    out.push_back(std::move(p));
  }
  for (size_t i = 0; i < out.size(); ++i)
    if (counts[i] > 1) out[i].detail = fmt::format("{} instructions show this; the first:\n", counts[i]) + out[i].detail;
  if (!k.report.result.completed && !k.report.result.error.empty())
    out.push_back({Severity::error, "model", "incomplete", "the model run did not complete", k.report.result.error + symptoms});
  if (k.report.judged && !k.report.cmp.correct)
    out.push_back({Severity::error, "model", "wrong-result",
                   fmt::format("C differs from the reference ({} of {} elements)", k.report.cmp.mismatches,
                               k.report.cmp.elements),
                   k.report.cmp.first_mismatch + symptoms});
  return out;
}

}  // namespace gs::gui
