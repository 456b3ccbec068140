#include "gui/core/resource_advice.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/model_problems.hpp"
#include "gui/core/occupancy.hpp"
#include "gui/core/sass_data.hpp"
#include "gui/core/warps_data.hpp"

namespace gs::gui {

namespace {

namespace timing = model::timing;

Problem advice(const char* kind) {
  Problem p;
  p.severity = Severity::info;
  p.source = "model";
  p.kind = kind;
  return p;
}

// The first local-memory instruction of the listing that has a PTX line, if any.
const ptx::SassInstruction* first_local_access(const ptx::SassListing& listing) {
  for (const ptx::SassInstruction& i : listing.instructions)
    if (i.local_memory && i.ptx_line > 0) return &i;
  return nullptr;
}

// Where the spills are: the PTX line whose SASS has the first LDL/STL, or the kernel when the
// SASS listing is not there (or shows none), each said in words.
void locate_spills(const LoadedKernel& k, Problem& p) {
  const auto listing = sass_listing_of(k);
  if (!listing) {
    p.title += " (in the kernel; the SASS view shows which instructions)";
    p.detail += " Which instructions spill is not known until the SASS listing is compiled: open the SASS view, "
                "which marks every LDL/STL, and this entry then points at the first.";
    return;
  }
  if (!listing->ok()) {
    p.title += " (in the kernel)";
    p.detail += fmt::format(" The SASS listing has no instructions to point at: {}", listing->message);
    return;
  }
  const ptx::SassInstruction* first = first_local_access(*listing);
  if (!first) {
    p.title += " (in the kernel)";
    p.detail += fmt::format(" The SASS listing for {} has no LDL/STL linked to a PTX line.", listing->arch);
    return;
  }
  p.inst = k.inst_of_line(first->ptx_line);
  const std::string op = p.inst != kNone && p.inst < k.inst_text.size() ? op_of_ptx_line(k.inst_text[p.inst])
                                                                        : std::string("PTX line");
  p.title += fmt::format(": first at {}", op);
  p.detail += fmt::format(" The first local-memory access in the SASS for {} ({} at 0x{:04x}, of {} LDL/STL) comes "
                          "from PTX line {}.",
                          listing->arch, first->opcode, first->address, listing->local_memory_count(), first->ptx_line);
}

std::optional<Problem> spill_advice(const LoadedKernel& k, const ptx::PtxasReport& r, const Occupancy& o) {
  if (!r.spills()) return std::nullopt;
  const RegisterBudget budget = register_budget(k.kernel(), r.registers, o.registers_source);
  std::string limit = fmt::format("{} per thread at this launch ({})", budget.per_thread_limit, budget.summary);
  if (budget.max_regs > 0) limit += fmt::format(", .maxnreg {}", budget.max_regs);
  Problem p = advice(kSpillAdvice);
  p.title = fmt::format("{}: {} B stored, {} B loaded", p.kind, r.spill_store_bytes, r.spill_load_bytes);
  p.detail = fmt::format(
      "{} gives each thread {} registers, the limit being {}, and that is not enough for the values the thread "
      "keeps live: it spills {} bytes to local memory and loads {} bytes back. Each spilled value is a round trip "
      "through L1 (and L2 when it misses) in place of a register. Keep fewer values live at once per thread (a "
      "smaller register tile, fewer addresses and indices held across the K loop), or give the thread more "
      "registers: a higher or no .maxnreg, a smaller .minnctapersm or fewer threads per CTA, or setmaxnreg to move "
      "registers from the warps that need few to those that need many.",
      o.registers_source, r.registers, limit, r.spill_store_bytes, r.spill_load_bytes);
  locate_spills(k, p);
  return p;
}

// The machine's warps per SM below which its schedulers sit idle between dependent FMAs.
uint32_t latency_hiding_warps(const timing::Machine& m) {
  return uint32_t(m.desc->schedulers_per_sm.value * m.desc->fma_latency.value * m.desc->issue_per_scheduler.value);
}

std::optional<Problem> occupancy_advice(const LoadedKernel& k, const Occupancy& o) {
  const model::SimStats& st = k.report.result.stats;
  const timing::Machine& m = *st.predicted_on;
  const uint32_t enough = latency_hiding_warps(m);
  const uint64_t at_once = uint64_t(m.sms) * o.ctas_per_sm;
  // A grid that hands out its tiles with clusterlaunchcontrol (step 24; the model recorded the
  // answers) runs as its first wave: the CTAs it cancels never run, so there are no later waves.
  const bool launch_controlled = !k.report.result.schedule.cancels.empty();
  const uint64_t ctas = launch_controlled ? std::min<uint64_t>(k.kernel().launch.ctas(), at_once) : k.kernel().launch.ctas();
  const timing::Breakdown& parts = st.prediction.parts;
  if (o.ctas_per_sm == 0 || o.warps_per_sm >= enough || ctas <= at_once) return std::nullopt;
  if (!parts.bound || std::strcmp(parts.bound, "latency") != 0) return std::nullopt;
  // The pipe that would bind next, for the learner's sense of how much there is to gain.
  const std::vector<timing::PartRow> rows = timing::breakdown_rows(parts);
  const timing::PartRow* next = nullptr;
  for (const timing::PartRow& row : rows)
    if (std::strcmp(row.name, "latency") != 0 && (!next || row.cycles > next->cycles)) next = &row;
  const auto limit = std::find_if(o.limits.begin(), o.limits.end(),
                                  [&](const OccupancyLimit& l) { return l.resource == o.binding; });
  Problem p = advice(kOccupancyAdvice);
  p.title = fmt::format("{}: {} warps per SM, limited by {}", p.kind, o.warps_per_sm, o.binding);
  p.detail = fmt::format(
      "{} CTA{} of {} threads fit on an SM ({}: {}), so it holds {} warps: fewer than the {} that keep its {} "
      "schedulers issuing while each warp waits {} cycles for its last FMA. The grid's {} CTAs take {} waves of {} at "
      "a time, and the model's prediction is bound by latency: a wave takes {:.0f} cycles, the CTA's own time, where "
      "the busiest shared pipe ({}) needs {:.0f}.",
      o.ctas_per_sm, o.ctas_per_sm == 1 ? "" : "s", o.threads, o.binding,
      limit != o.limits.end() ? limit->basis : std::string("?"), o.warps_per_sm, enough,
      m.desc->schedulers_per_sm.value, m.desc->fma_latency.value, ctas, (ctas + at_once - 1) / at_once, at_once,
      parts.cta_alone, next ? next->name : "none", next ? next->cycles : 0.0);
  const std::string step_up = one_more_cta(o);
  p.detail += step_up.empty() ? " More CTAs per SM need larger CTAs (more warps each)."
                              : fmt::format(" One more CTA per SM needs {}.", step_up);
  p.detail += " Or hide the latency inside the CTA: more loads in flight per warp (a ring of stages), more "
              "independent work per thread.";
  return p;
}

// The index of the model's entry of `kind`, or kNone.
uint32_t find_entry(const std::vector<Problem>& problems, const std::string& kind) {
  for (uint32_t i = 0; i < problems.size(); ++i)
    if (problems[i].source == "model" && problems[i].kind == kind) return i;
  return kNone;
}

}  // namespace

std::vector<Problem> resource_advisories(const std::shared_ptr<const LoadedKernel>& kernel) {
  std::vector<Problem> out;
  if (!kernel) return out;
  const std::optional<ptx::PtxasReport> report = kernel_ptxas_report(*kernel);
  if (!report) return out;  // pending, or no ptxas: nothing to claim
  const Occupancy o = kernel_occupancy(*kernel);
  if (auto p = spill_advice(*kernel, *report, o)) out.push_back(std::move(*p));
  if (auto p = occupancy_advice(*kernel, o)) out.push_back(std::move(*p));
  return out;
}

void update_resource_advice(AppState& app) {
  const std::vector<Problem> fresh = resource_advisories(app.kernel);
  for (const char* kind : {kSpillAdvice, kOccupancyAdvice}) {
    const auto it = std::find_if(fresh.begin(), fresh.end(), [&](const Problem& p) { return p.kind == kind; });
    const uint32_t old = find_entry(app.problems, kind);
    if (it != fresh.end() && old != kNone) {
      app.problems[old] = *it;  // in place: a selected entry stays selected
    } else if (it != fresh.end()) {
      app.add_problem(*it);
    } else if (old != kNone) {
      app.problems.erase(app.problems.begin() + old);
      if (app.selection.problem == old) app.selection.problem = kNone;
      else if (app.selection.problem != kNone && app.selection.problem > old) --app.selection.problem;
    }
  }
}

}  // namespace gs::gui
