#include "gui/core/guided_stops.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <typeindex>

#include <fmt/format.h>

#include "gui/core/barrier_label.hpp"
#include "gui/core/coalescing_data.hpp"

namespace gs::gui {

namespace {

using model::Event;
using model::EventKind;

bool wants(const std::vector<std::string>& focus, std::initializer_list<const char*> views) {
  return std::any_of(views.begin(), views.end(),
                     [&](const char* v) { return std::find(focus.begin(), focus.end(), v) != focus.end(); });
}

}  // namespace

std::vector<GuidedStop> guided_stops(const LoadedKernel& lk, const std::vector<std::string>& focus) {
  const model::Trace& t = lk.trace();
  const ir::Kernel& k = lk.kernel();
  struct Finder {
    std::string name;
    std::function<bool(const Event&)> match;
  };
  std::vector<Finder> finders;
  const bool pipeline = wants(focus, {"tma", "timeline", "warps"});
  if (pipeline) {
    finders.push_back({"the first TMA load is issued", [](const Event& e) { return e.kind == EventKind::tma_issue; }});
    finders.push_back({"the first TMA load lands", [](const Event& e) { return e.kind == EventKind::tma_complete; }});
    // The ring's first wrap: the consumers release stage 0, so the producer may refill it.
    finders.push_back({"the ring wraps: empty[0] completes its first phase", [&](const Event& e) {
                         return e.kind == EventKind::mbar_phase_flip && e.payload < t.mbar.size() &&
                                mbarrier_label(k, nullptr, t.mbar[e.payload].addr) == "empty[0]";
                       }});
    finders.push_back({"a warp first waits on an mbarrier",
                       [](const Event& e) { return e.kind == EventKind::mbar_wait_blocked; }});
    finders.push_back({"the first cp.async.wait_group retires a stage",
                       [](const Event& e) { return e.kind == EventKind::cp_async_wait; }});
  }
  if (wants(focus, {"smem", "fragments"}))
    finders.push_back({"the first shared-memory bank conflict", [&](const Event& e) {
                         if (e.kind != EventKind::smem_access || e.payload >= t.smem.size()) return false;
                         const model::SmemAccess& a = t.smem[e.payload];
                         return a.wavefronts > a.ideal_wavefronts;
                       }});
  if (wants(focus, {"coalescing"}))
    finders.push_back({"the first global access that fetches more sectors than it needs", [&](const Event& e) {
                         if (e.kind != EventKind::global_access || e.payload >= t.global.size()) return false;
                         const CoalescingAccess c = coalescing_of(t.global[e.payload]);
                         return c.sectors > c.ideal_sectors;
                       }});
  if (wants(focus, {"fragments", "tma", "smem", "timeline"}))
    finders.push_back({"the first wgmma is issued", [](const Event& e) { return e.kind == EventKind::wgmma_issue; }});
  if (wants(focus, {"fragments", "ptx"}))
    finders.push_back({"the first mma.sync", [&](const Event& e) {
                         return e.kind == EventKind::warp_inst && e.inst < k.insts.size() &&
                                ir::op_info(k.insts[e.inst].op).family == ir::Family::mma;
                       }});
  if (wants(focus, {"tmem"})) {
    const auto tmem = [&](model::TmemOpKind kind) {
      return [&t, kind](const Event& e) {
        return e.kind == EventKind::tmem_op && e.payload < t.tmem.size() && t.tmem[e.payload].kind == kind;
      };
    };
    finders.push_back({"the first tcgen05.mma accumulates in tensor memory", tmem(model::TmemOpKind::mma)});
    finders.push_back({"the first tcgen05.commit", tmem(model::TmemOpKind::commit)});
    finders.push_back({"the epilogue first reads tensor memory", tmem(model::TmemOpKind::load)});
  }
  std::vector<GuidedStop> stops;
  for (const Finder& f : finders)
    for (uint32_t i = 0; i < t.events.size(); ++i)
      if (f.match(t.events[i])) {
        stops.push_back({f.name, i});
        break;
      }
  std::stable_sort(stops.begin(), stops.end(),
                   [](const GuidedStop& a, const GuidedStop& b) { return a.event < b.event; });
  return stops;
}

const std::vector<GuidedStop>& step_stops(const LoadedKernel& lk) {
  struct StopsSlot {
    std::vector<GuidedStop> stops;
  };
  const std::type_index key(typeid(StopsSlot));
  auto it = lk.derived.find(key);
  if (it == lk.derived.end()) {
    const kernels::KernelInfo* info = kernels::find_kernel(lk.request.kernel_id);
    auto slot = std::make_shared<StopsSlot>();
    if (info) slot->stops = guided_stops(lk, info->focus_views);
    it = lk.derived.emplace(key, std::move(slot)).first;
  }
  return static_cast<const StopsSlot*>(it->second.get())->stops;
}

std::optional<uint32_t> next_stop(const std::vector<GuidedStop>& stops, uint32_t position, bool forward) {
  std::optional<uint32_t> best;
  for (const GuidedStop& s : stops) {
    if (forward && s.event > position && (!best || s.event < *best)) best = s.event;
    if (!forward && s.event < position && (!best || s.event > *best)) best = s.event;
  }
  return best;
}

nlohmann::json stops_json(const std::vector<GuidedStop>& stops) {
  nlohmann::json j = nlohmann::json::array();
  for (const GuidedStop& s : stops) j.push_back({{"name", s.name}, {"event", s.event}});
  return j;
}

}  // namespace gs::gui
