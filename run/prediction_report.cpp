#include "run/prediction_report.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gs::run {

std::string comparison_table(const model::timing::PredictionComparison& c, const std::string& name_a,
                             const std::string& name_b, kernels::GemmShape shape, const model::timing::Machine& card) {
  std::string out = fmt::format("why, in the model's terms ({}x{}x{} on {}):\n", shape.m, shape.n, shape.k,
                                model::timing::machine_words(card));
  for (const std::string& line : c.lines) out += "  " + line + "\n";
  if (c.parts.empty()) return out;
  const size_t wa = std::max<size_t>(name_a.size(), 12), wb = std::max<size_t>(name_b.size(), 12);
  out += fmt::format("  {:<14} {:>{}} {:>{}}   (each limit's time for the whole GEMM: waves x cycles per wave / "
                     "clock)\n",
                     "limit", name_a, wa, name_b, wb);
  const auto cell = [](double seconds, bool bound) {
    return fmt::format("{:.1f} us{}", seconds * 1e6, bound ? " *" : "  ");
  };
  for (const model::timing::PartTimes& p : c.parts)
    out += fmt::format("  {:<14} {:>{}} {:>{}}\n", p.name, cell(p.a, std::string_view(p.name) == c.bound_a), wa + 2,
                       cell(p.b, std::string_view(p.name) == c.bound_b), wb + 2);
  out += fmt::format("  {:<14} {:>{}} {:>{}}\n", "launch", cell(c.launch_a, false), wa + 2, cell(c.launch_b, false),
                     wb + 2);
  out += "  (* the bound: the wave takes the longest of its limits)\n";
  return out;
}

}  // namespace gs::run
