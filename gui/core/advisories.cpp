#include "gui/core/advisories.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/coalescing_data.hpp"
#include "gui/core/model_problems.hpp"
#include "gui/core/schedule_data.hpp"

namespace gs::gui {

namespace {

// Per instruction: what its warp accesses cost and what they would at best.
struct Cost {
  uint64_t actual = 0, ideal = 0;
  uint32_t accesses = 0;
  uint32_t first_event = kNone;
  uint16_t warp = kNoWarp;
};

// Costs more than twice the ideal (and more than one unit per access) are worth a word.
bool wasteful(const Cost& c) { return c.actual > 2 * c.ideal && c.actual > c.accesses; }

std::string where(const LoadedKernel& k, uint32_t inst) {
  const uint32_t line = k.line_of(inst);
  return line ? fmt::format(" (PTX line {})", line) : std::string();
}

std::string op(const LoadedKernel& k, uint32_t inst) {
  return inst < k.inst_text.size() ? op_of_ptx_line(k.inst_text[inst]) : std::string("?");
}

Problem advice(const LoadedKernel& k, std::string kind, uint32_t inst, const Cost& c, std::string detail) {
  Problem p;
  p.severity = Severity::info;
  p.source = "model";
  p.kind = "advice: " + kind;
  p.title = fmt::format("{}: {}", p.kind, op(k, inst));
  p.detail = std::move(detail) + where(k, inst);
  p.inst = inst;
  p.warp = c.warp;
  if (c.first_event < k.trace().events.size()) p.cycle = k.trace().events[c.first_event].cycle;
  return p;
}

std::vector<std::pair<uint32_t, Cost>> worst_first(const std::map<uint32_t, Cost>& costs) {
  std::vector<std::pair<uint32_t, Cost>> out;
  for (const auto& [inst, c] : costs)
    if (wasteful(c)) out.emplace_back(inst, c);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second.actual * b.second.ideal > b.second.actual * a.second.ideal;
  });
  return out;
}

// Per instruction, the cost of its events of `kind` (records: the size of the table their
// payloads index), `measure(payload)` giving (actual, ideal).
template <class Measure>
std::map<uint32_t, Cost> costs_of(const model::Trace& t, model::EventKind kind, size_t records, Measure measure) {
  std::map<uint32_t, Cost> costs;
  for (uint32_t e : t.of_kind(kind)) {
    const model::Event& ev = t.events[e];
    if (ev.payload >= records) continue;
    const auto [actual, ideal] = measure(ev.payload);
    Cost& c = costs[ev.inst];
    c.actual += actual;
    c.ideal += ideal;
    if (c.accesses++ == 0) c.first_event = e, c.warp = ev.warp;
  }
  return costs;
}

// One advice per wasteful instruction, worst first; `message` takes the accesses, the actual
// and ideal costs and their ratio as {0}..{3}.
void add_rule(std::vector<Problem>& out, const LoadedKernel& k, const std::map<uint32_t, Cost>& costs,
              const char* kind, const char* message) {
  for (const auto& [inst, c] : worst_first(costs))
    out.push_back(advice(k, kind, inst, c,
                         fmt::format(fmt::runtime(message), c.accesses, c.actual, c.ideal,
                                     double(c.actual) / double(std::max<uint64_t>(1, c.ideal)))));
}

}  // namespace

std::vector<Problem> advisories(const std::shared_ptr<const LoadedKernel>& kernel) {
  std::vector<Problem> out;
  if (!kernel) return out;
  const LoadedKernel& k = *kernel;
  const model::Trace& t = k.trace();
  const auto global = costs_of(t, model::EventKind::global_access, t.global.size(), [&](uint32_t i) {
    const CoalescingAccess a = coalescing_of(t.global[i]);
    return std::pair<uint64_t, uint64_t>(a.sectors, a.ideal_sectors);
  });
  add_rule(out, k, global, "uncoalesced global access",
           "The warps' {0} accesses of this instruction touched {1} 32-byte sectors where the bytes their lanes need "
           "fit in {2}: {3:.1f}x the memory traffic. Neighbouring lanes should read neighbouring addresses (the "
           "Coalescing view shows each access).");
  const auto shared = costs_of(t, model::EventKind::smem_access, t.smem.size(), [&](uint32_t i) {
    return std::pair<uint64_t, uint64_t>(t.smem[i].wavefronts, t.smem[i].ideal_wavefronts);
  });
  add_rule(out, k, shared, "shared-memory bank conflicts",
           "The warps' {0} accesses of this instruction took {1} wavefronts where {2} would serve them without bank "
           "conflicts: {3:.1f}x the shared-memory time. Lanes of one phase should hit different banks (a swizzle or "
           "padding; the Shared memory view shows the banks).");
  // A grid no larger than the SMs is one wave at any occupancy: no need for the occupancy
  // (which runs ptxas) to say so.
  const uint64_t ctas = k.kernel().launch.ctas();
  if (ctas <= k.report.result.stats.predicted_on->sms) return out;
  const ScheduleData s = schedule_waves(k);
  if (s.available && s.waves >= 2) {
    const uint64_t per_wave = uint64_t(s.sms) * s.ctas_per_sm;
    const uint64_t last = s.ctas - (s.waves - 1) * per_wave;
    if (last * 2 < per_wave) {
      Problem p;
      p.severity = Severity::info;
      p.source = "model";
      p.kind = "advice: a wave with idle SMs";
      p.title = fmt::format("{}: the last of {} waves is {:.0f}% full", p.kind, s.waves, 100.0 * double(last) / double(per_wave));
      p.detail = fmt::format("{} CTAs run {} at a time ({} SMs x {}): the last wave has {}, so {:.0f}% of the machine "
                             "idles while it runs. A tile size that divides the grid into full waves, or a persistent "
                             "grid of one wave, keeps every SM busy (the Schedule view shows the waves).",
                             s.ctas, per_wave, s.sms, s.ctas_per_sm, last, 100.0 - 100.0 * double(last) / double(per_wave));
      out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace gs::gui
