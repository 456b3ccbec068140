#include "gui/core/guided_stops.hpp"

#include <algorithm>
#include <bit>
#include <functional>
#include <map>
#include <memory>
#include <typeindex>

#include <fmt/format.h>

#include "engine/model/timing.hpp"
#include "gui/core/coalescing_data.hpp"

namespace gs::gui {

namespace {

using kernels::StopKind;
using model::Event;
using model::EventKind;

bool op_is(const ir::Kernel& k, const Event& e, std::initializer_list<ir::Op> ops) {
  return e.kind == EventKind::warp_inst && e.inst < k.insts.size() &&
         std::find(ops.begin(), ops.end(), k.insts[e.inst].op) != ops.end();
}

bool tma_load(const model::Trace& t, const Event& e, EventKind kind) {
  return e.kind == kind && e.payload < t.tma.size() && !t.tma[e.payload].store;
}

bool tma_store(const model::Trace& t, const Event& e) {
  return e.kind == EventKind::tma_issue && e.payload < t.tma.size() && t.tma[e.payload].store;
}

bool global_access(const model::Trace& t, const Event& e, bool store) {
  return e.kind == EventKind::global_access && e.payload < t.global.size() && t.global[e.payload].store == store;
}

// The first barrier of an array declared to signal "stage released" (Builder::mbarriers with
// BarrierRole::empty): its phase completing is the ring's first wrap.
bool first_empty_barrier(const ir::Kernel& k, uint32_t addr) {
  for (const ir::SharedAlloc& a : k.smem)
    if (a.use == ir::SmemUse::mbarrier && a.barrier_role == ir::BarrierRole::empty &&
        addr == model::timing::kSmemBaseAddress + a.offset)
      return true;
  return false;
}

bool tmem_op(const model::Trace& t, const Event& e, model::TmemOpKind kind) {
  return e.kind == EventKind::tmem_op && e.payload < t.tmem.size() && t.tmem[e.payload].kind == kind;
}

std::optional<uint32_t> first_where(const model::Trace& t, uint32_t from, const std::function<bool(const Event&)>& f) {
  for (uint32_t i = from; i < t.events.size(); ++i)
    if (f(t.events[i])) return i;
  return std::nullopt;
}

std::optional<uint32_t> last_where(const model::Trace& t, const std::function<bool(const Event&)>& f) {
  for (uint32_t i = uint32_t(t.events.size()); i-- > 0;)
    if (f(t.events[i])) return i;
  return std::nullopt;
}

}  // namespace

std::optional<uint32_t> find_stop(const LoadedKernel& lk, StopKind kind) {
  const model::Trace& t = lk.trace();
  const ir::Kernel& k = lk.kernel();
  switch (kind) {
    case StopKind::first_global_load:
      return first_where(t, 0, [&](const Event& e) { return global_access(t, e, false); });
    case StopKind::uncoalesced:
      return first_where(t, 0, [&](const Event& e) {
        if (e.kind != EventKind::global_access || e.payload >= t.global.size()) return false;
        const CoalescingAccess c = coalescing_of(t.global[e.payload]);
        return c.sectors > c.ideal_sectors;
      });
    case StopKind::first_shared_load:
      return first_where(t, 0, [&](const Event& e) {
        return e.kind == EventKind::smem_access && e.payload < t.smem.size() && !t.smem[e.payload].store;
      });
    case StopKind::bank_conflict:
      return first_where(t, 0, [&](const Event& e) {
        if (e.kind != EventKind::smem_access || e.payload >= t.smem.size()) return false;
        const model::SmemAccess& a = t.smem[e.payload];
        return a.wavefronts > a.ideal_wavefronts;
      });
    case StopKind::first_barrier:
      return first_where(t, 0, [](const Event& e) {
        return e.kind == EventKind::bar_blocked && e.payload != model::kClusterBarrierId;
      });
    case StopKind::first_cp_async_wait:
      return first_where(t, 0, [](const Event& e) { return e.kind == EventKind::cp_async_wait; });
    case StopKind::first_mma_sync:
      return first_where(t, 0, [&](const Event& e) { return op_is(k, e, {ir::Op::mma_sync}); });
    case StopKind::first_ldmatrix:
      return first_where(t, 0, [&](const Event& e) { return op_is(k, e, {ir::Op::ldmatrix, ir::Op::ldmatrix_trans}); });
    case StopKind::first_tma_load:
      return first_where(t, 0, [&](const Event& e) { return tma_load(t, e, EventKind::tma_issue); });
    case StopKind::tma_lands:
      return first_where(t, 0, [&](const Event& e) { return tma_load(t, e, EventKind::tma_complete); });
    case StopKind::first_mbarrier_wait:
      return first_where(t, 0, [](const Event& e) { return e.kind == EventKind::mbar_wait_blocked; });
    case StopKind::ring_wraps:
      // The consumers release stage 0 for the first time, so the producer may refill it.
      return first_where(t, 0, [&](const Event& e) {
        return e.kind == EventKind::mbar_phase_flip && e.payload < t.mbar.size() &&
               first_empty_barrier(k, t.mbar[e.payload].addr);
      });
    case StopKind::multicast:
      return first_where(t, 0, [&](const Event& e) {
        return tma_load(t, e, EventKind::tma_issue) && std::popcount(unsigned(t.tma[e.payload].cta_mask)) > 1;
      });
    case StopKind::cluster_barrier:
      return first_where(t, 0, [](const Event& e) {
        return e.kind == EventKind::bar_blocked && e.payload == model::kClusterBarrierId;
      });
    case StopKind::first_wgmma:
      return first_where(t, 0, [](const Event& e) { return e.kind == EventKind::wgmma_issue; });
    case StopKind::wgmma_wait:
      return first_where(t, 0, [](const Event& e) { return e.kind == EventKind::wgmma_wait_blocked; });
    case StopKind::more_registers: {
      // The setmaxnreg that gives the most registers: the consumers' increase, not the
      // producer's decrease.
      uint32_t most = 0;
      for (const Event& e : t.events)
        if (e.kind == EventKind::reg_limit) most = std::max(most, e.a);
      return first_where(t, 0, [&](const Event& e) { return e.kind == EventKind::reg_limit && e.a == most; });
    }
    case StopKind::first_c_store:
      return first_where(t, 0, [&](const Event& e) { return global_access(t, e, true) || tma_store(t, e); });
    case StopKind::stmatrix:
      return first_where(t, 0, [&](const Event& e) { return op_is(k, e, {ir::Op::stmatrix, ir::Op::stmatrix_trans}); });
    case StopKind::tma_store:
      return first_where(t, 0, [&](const Event& e) { return tma_store(t, e); });
    case StopKind::next_tile: {
      // A tile's loads walk K: of a box's coordinates only the innermost (K, for A and B) moves.
      // The first load of a tensor map, by a CTA, whose outer coordinates differ from that CTA's
      // first load of the same map is its next tile's first (a producer may run ahead of the
      // consumers' stores, so "after the first store of C" would not say it).
      std::map<std::pair<uint32_t, uint8_t>, const model::TmaTransfer*> first;
      return first_where(t, 0, [&](const Event& e) {
        if (!tma_load(t, e, EventKind::tma_issue)) return false;
        const model::TmaTransfer& x = t.tma[e.payload];
        const model::TmaTransfer*& f = first[{x.param, x.cta}];
        if (!f) f = &x;
        return !std::equal(x.coords.begin() + 1, x.coords.begin() + std::min<uint32_t>(x.rank, 5),
                           f->coords.begin() + 1);
      });
    }
    case StopKind::tcgen05_mma:
      return first_where(t, 0, [&](const Event& e) { return tmem_op(t, e, model::TmemOpKind::mma); });
    case StopKind::tcgen05_commit:
      return first_where(t, 0, [&](const Event& e) { return tmem_op(t, e, model::TmemOpKind::commit); });
    case StopKind::tmem_read:
      return first_where(t, 0, [&](const Event& e) { return tmem_op(t, e, model::TmemOpKind::load); });
    case StopKind::pipeline_drains: {
      // The last load of A and B lands: by TMA, else the last cp.async group retired.
      if (auto tma = last_where(t, [&](const Event& e) { return tma_load(t, e, EventKind::tma_complete); })) return tma;
      return last_where(t, [](const Event& e) { return e.kind == EventKind::cp_async_wait; });
    }
    case StopKind::count_: break;
  }
  return std::nullopt;
}

std::vector<GuidedStop> guided_stops(const LoadedKernel& lk, std::span<const kernels::StepStop> declared) {
  std::vector<GuidedStop> stops;
  for (const kernels::StepStop& d : declared) {
    if (!d.mistake.empty() && !lk.request.mistakes.count(d.mistake)) continue;
    if (std::any_of(stops.begin(), stops.end(), [&](const GuidedStop& s) { return s.kind == d.kind; })) continue;
    const std::optional<uint32_t> at = find_stop(lk, d.kind);
    if (!at) continue;
    const kernels::StopKindInfo& info = kernels::stop_kind_info(d.kind);
    stops.push_back(
        {d.kind, std::string(info.name), std::string(info.label), std::string(info.sentence), d.mistake, *at});
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
    if (info) slot->stops = guided_stops(lk, info->stops);
    it = lk.derived.emplace(key, std::move(slot)).first;
  }
  return static_cast<const StopsSlot*>(it->second.get())->stops;
}

std::vector<std::string> step_stops_missing(const LoadedKernel& lk) {
  std::vector<std::string> missing;
  const kernels::KernelInfo* info = kernels::find_kernel(lk.request.kernel_id);
  if (!info) return missing;
  const std::vector<GuidedStop>& found = step_stops(lk);
  for (const kernels::StepStop& d : info->stops) {
    if (!d.mistake.empty() && !lk.request.mistakes.count(d.mistake)) continue;
    if (std::none_of(found.begin(), found.end(), [&](const GuidedStop& s) { return s.kind == d.kind; }))
      missing.push_back(std::string(kernels::stop_kind_info(d.kind).name));
  }
  return missing;
}

std::optional<uint32_t> next_stop(const std::vector<GuidedStop>& stops, uint32_t position, bool forward) {
  std::optional<uint32_t> best;
  for (const GuidedStop& s : stops) {
    if (forward && s.event > position && (!best || s.event < *best)) best = s.event;
    if (!forward && s.event < position && (!best || s.event > *best)) best = s.event;
  }
  return best;
}

const GuidedStop* stop_at(const std::vector<GuidedStop>& stops, uint32_t position) {
  const GuidedStop* at = nullptr;
  for (const GuidedStop& s : stops)
    if (s.event <= position) at = &s;  // in event order: the last at or before the cursor
  return at;
}

nlohmann::json stops_json(const std::vector<GuidedStop>& stops) {
  nlohmann::json j = nlohmann::json::array();
  for (const GuidedStop& s : stops)
    j.push_back({{"name", s.name},
                 {"label", s.label},
                 {"sentence", s.sentence},
                 {"mistake", s.mistake},
                 {"event", s.event}});
  return j;
}

}  // namespace gs::gui
