#include "gui/core/tma_pipeline_data.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "engine/layout/swizzle.hpp"
#include "gui/core/app_state.hpp"
#include "gui/core/barrier_label.hpp"
#include "gui/core/warps_data.hpp"
#include "gui/core/cp_async_ring.hpp"
#include "gui/core/playback.hpp"
#include "gui/core/shared_memory_data.hpp"
#include "gui/core/view_data.hpp"

namespace gs::gui {

using model::EventKind;

const char* transfer_state_name(TransferState s) {
  switch (s) {
    case TransferState::future: return "not issued";
    case TransferState::in_flight: return "in flight";
    case TransferState::done: return "done";
  }
  return "?";
}

namespace {

struct BarrierSlot {
  uint32_t addr = 0;
  std::string name;
  ir::BarrierRole role = ir::BarrierRole::none;  // as the kernel declared it (Builder::mbarriers)
  uint32_t stage = 0;                            // barrier i of an array belongs to stage i
};

// Every barrier the allocations declare, in address order.
std::vector<BarrierSlot> barrier_slots(const ir::Kernel& kernel) {
  std::vector<BarrierSlot> out;
  for (const ir::SharedAlloc& a : kernel.smem) {
    if (a.use != ir::SmemUse::mbarrier) continue;
    const uint32_t count = std::max<uint32_t>(1, a.bytes / 8);
    for (uint32_t i = 0; i < count; ++i)
      out.push_back({smem_window_base() + a.offset + 8 * i, count == 1 ? a.name : fmt::format("{}[{}]", a.name, i),
                     a.barrier_role, i});
  }
  std::sort(out.begin(), out.end(), [](const BarrierSlot& x, const BarrierSlot& y) { return x.addr < y.addr; });
  return out;
}

// The rank of the traced CTA a trace warp belongs to (rank r's warp w is r * warps + w).
uint32_t cta_of_warp(const model::Trace& t, uint32_t warp) { return t.ctas.size() > 1 ? warp / std::max(1u, t.warps_per_cta) : 0; }

// CTA `cta`'s barrier at `addr`: a warp waits only on its own CTA's barriers.
BarrierView barrier_view(const LoadedKernel& k, const Snapshot& s, uint32_t addr, std::string name, uint32_t cta) {
  BarrierView b;
  b.addr = addr;
  b.name = std::move(name);
  if (const MbarrierState* m = s.mbarrier_at(addr, cta)) {
    b.initialized = m->initialized || m->expected > 0;
    static_cast<model::MbarrierPhase&>(b) = *m;
    b.parity = m->phase & 1;
    b.flips = m->flips;
  }
  // WarpSnapshot says which parity each waiter waits for; MbarrierState only lists the warps.
  for (const WarpSnapshot& w : s.warps)
    if (w.activity == WarpActivity::waiting_mbarrier && w.mbar == addr && cta_of_warp(k.trace(), w.warp) == cta)
      b.waiters.push_back({w.warp, w.parity, w.since_cycle, warp_label(k.trace(), w.warp)});
  return b;
}

std::string param_name(const ir::Kernel& kernel, uint32_t param) {
  return param < kernel.params.size() ? kernel.params[param].name : fmt::format("param {}", param);
}

}  // namespace

TmaPipeline tma_pipeline(const LoadedKernel& k, const Snapshot& s) {
  TmaPipeline p;
  const ir::Kernel& kernel = k.kernel();
  const model::Trace& t = k.trace();
  p.cycle = s.cycle;
  p.end_cycle = t.end_cycle;

  // A stage is a full barrier (its data has landed) with the empty barrier of the same stage
  // (its consumers released it), as the kernel declared them; each traced CTA has its ring.
  p.ctas = uint32_t(std::max<size_t>(1, t.ctas.size()));
  const std::vector<BarrierSlot> slots = barrier_slots(kernel);
  for (uint32_t cta = 0; cta < p.ctas; ++cta)
    for (const BarrierSlot& b : slots) {
      if (b.role != ir::BarrierRole::full) continue;
      StageView st;
      st.index = b.stage;
      st.cta = cta;
      st.full = barrier_view(k, s, b.addr, b.name, cta);
      for (const BarrierSlot& e : slots)
        if (e.role == ir::BarrierRole::empty && e.stage == b.stage) st.empty = barrier_view(k, s, e.addr, e.name, cta);
      p.stages.push_back(std::move(st));
    }
  std::sort(p.stages.begin(), p.stages.end(),
            [](const StageView& x, const StageView& y) { return x.cta != y.cta ? x.cta < y.cta : x.index < y.index; });
  for (uint32_t cta = 0; cta < p.ctas; ++cta)
    for (const BarrierSlot& b : slots) {
      const bool paired = b.role == ir::BarrierRole::empty && std::any_of(p.stages.begin(), p.stages.end(), [&](const StageView& st) {
                            return st.index == b.stage;
                          });
      if (b.role != ir::BarrierRole::full && !paired) p.other_barriers.push_back(barrier_view(k, s, b.addr, b.name, cta));
    }
  // Barriers the trace touched that no allocation declares (a kernel computing addresses).
  for (const MbarrierState& m : s.mbarriers)
    if (std::none_of(slots.begin(), slots.end(), [&](const BarrierSlot& b) { return b.addr == m.addr; }))
      p.other_barriers.push_back(barrier_view(k, s, m.addr, mbarrier_label(k.kernel(), &s, m.addr), m.cta));
  // The stage of CTA `cta` whose full barrier is at `mbar`, or kNone.
  const auto stage_of = [&](uint32_t cta, uint32_t mbar) {
    for (uint32_t st = 0; st < p.stages.size(); ++st)
      if (p.stages[st].cta == cta && p.stages[st].full->addr == mbar) return st;
    return kNone;
  };

  // Transfer state from the events up to the cursor: issued ones are in flight until their
  // complete event; Snapshot::tma_in_flight is the authority for "in flight".
  std::vector<uint8_t> issued(t.tma.size(), 0);
  const uint32_t pos = s.position;
  for (uint32_t e : t.of_kind(EventKind::tma_issue)) {
    if (e > pos) break;
    if (t.events[e].payload < issued.size()) issued[t.events[e].payload] = 1;
  }
  for (uint32_t i = 0; i < t.tma.size(); ++i) {
    const model::TmaTransfer& x = t.tma[i];
    TransferView v;
    v.index = i;
    v.map = param_name(kernel, x.param);
    v.coords.assign(x.coords.begin(), x.coords.begin() + std::min<uint32_t>(x.rank, 5));
    v.smem_dst = x.smem_dst;
    const uint32_t a = allocation_at(kernel, x.smem_dst);
    if (a == kNone) {
      v.dst_name = fmt::format("0x{:X}", x.smem_dst);
    } else {  // a staged operand tile is named by its declared stage: sA[2]
      const ir::SharedAlloc& alloc = kernel.smem[a];
      const uint32_t stage = (x.smem_dst - smem_window_base() - alloc.offset) / std::max(1u, alloc.stage_bytes());
      v.dst_name = alloc.stages > 1 ? fmt::format("{}[{}]", alloc.name, stage) : alloc.name;
    }
    v.bytes = x.bytes;
    v.swizzle = std::string(layout::swizzle_name(layout::Swizzle(std::min<uint8_t>(x.swizzle, 3))));
    v.store = x.store;
    v.mbar = x.mbar;
    v.issue_cycle = x.issue_cycle;
    v.complete_cycle = x.complete_cycle;
    const bool flying = std::find(s.tma_in_flight.begin(), s.tma_in_flight.end(), i) != s.tma_in_flight.end();
    v.state = flying ? TransferState::in_flight : issued[i] ? TransferState::done : TransferState::future;
    v.cta = x.cta;
    v.cta_mask = x.cta_mask;
    if (p.ctas > 1) {
      std::string to;
      for (uint32_t r = 0; r < 16; ++r)
        if (x.cta_mask >> r & 1) to += fmt::format("{}{}", to.empty() ? "" : ", ", r);
      v.ctas_text = fmt::format("rank {} -> rank{} {}", x.cta, std::popcount(x.cta_mask) > 1 ? "s" : "", to);
    }
    if (!x.store) v.stage = stage_of(x.cta, x.mbar);
    if (v.state == TransferState::in_flight) ++p.in_flight;
    if (v.state == TransferState::done) ++p.completed;
    // Every CTA it writes: a multicast fills the same stage in each (its bytes land on each's
    // full barrier at the same offset).
    for (uint32_t cta = 0; cta < p.ctas && !x.store; ++cta) {
      if (!(x.cta_mask >> cta & 1)) continue;
      const uint32_t at = stage_of(cta, x.mbar);
      if (at == kNone) continue;
      StageView& st = p.stages[at];
      if (std::find(st.tiles.begin(), st.tiles.end(), v.dst_name) == st.tiles.end()) st.tiles.push_back(v.dst_name);
      if (v.state == TransferState::in_flight) st.in_flight.push_back(uint32_t(p.transfers.size()));
      if (v.state == TransferState::done) ++st.completed;
    }
    p.transfers.push_back(std::move(v));
  }
  assign_transfer_rows(p);
  return p;
}

void assign_transfer_rows(TmaPipeline& p) {
  p.lanes.clear();
  p.lane_rows.clear();
  std::vector<std::vector<uint64_t>> row_free;  // per lane, per row: the cycle its last transfer ends
  for (TransferView& v : p.transfers) {
    auto lane = std::find(p.lanes.begin(), p.lanes.end(), v.map);
    if (lane == p.lanes.end()) {
      p.lanes.push_back(v.map);
      row_free.emplace_back();
      lane = p.lanes.end() - 1;
    }
    v.lane = uint32_t(lane - p.lanes.begin());
    std::vector<uint64_t>& rows = row_free[v.lane];
    const uint64_t end = std::max(v.complete_cycle, v.issue_cycle + 1);
    const auto free = std::find_if(rows.begin(), rows.end(), [&](uint64_t f) { return f <= v.issue_cycle; });
    v.row = uint32_t(free - rows.begin());
    if (free == rows.end()) rows.push_back(end);
    else *free = end;
  }
  for (const auto& rows : row_free) p.lane_rows.push_back(uint32_t(std::max<size_t>(1, rows.size())));
}

namespace {

nlohmann::json barrier_json(const BarrierView& b) {
  nlohmann::json w = nlohmann::json::array();
  for (const BarrierWaiter& x : b.waiters) w.push_back({{"warp", x.warp}, {"label", x.label}, {"parity", x.parity}, {"since_cycle", x.since_cycle}});
  return {{"addr", b.addr},
          {"name", b.name},
          {"initialized", b.initialized},
          {"phase", b.phase},
          {"parity", b.parity},
          {"pending_arrivals", b.pending_arrivals},
          {"expected", b.expected},
          {"tx_count", b.tx_count},
          {"flips", b.flips},
          {"waiters", std::move(w)}};
}

nlohmann::json transfer_json(const TransferView& v) {
  return {{"index", v.index},       {"map", v.map},
          {"coords", v.coords},     {"smem_dst", v.smem_dst},
          {"dst", v.dst_name},      {"bytes", v.bytes},
          {"swizzle", v.swizzle},   {"store", v.store},
          {"mbar", v.mbar},         {"issue_cycle", v.issue_cycle},
          {"complete_cycle", v.complete_cycle}, {"state", transfer_state_name(v.state)},
          {"lane", v.lane},         {"row", v.row},
          {"cta", v.cta},           {"cta_mask", v.cta_mask}};
}

}  // namespace

nlohmann::json tma_pipeline_json(const TmaPipeline& p) {
  nlohmann::json stages = nlohmann::json::array();
  for (const StageView& st : p.stages) {
    nlohmann::json flying = nlohmann::json::array();
    for (uint32_t i : st.in_flight) flying.push_back(transfer_json(p.transfers[i]));
    stages.push_back({{"index", st.index},
                      {"cta", st.cta},
                      {"full_barrier", st.full ? barrier_json(*st.full) : nlohmann::json(nullptr)},
                      {"empty_barrier", st.empty ? barrier_json(*st.empty) : nlohmann::json(nullptr)},
                      {"tiles", st.tiles},
                      {"in_flight", std::move(flying)},
                      {"completed", st.completed}});
  }
  nlohmann::json others = nlohmann::json::array();
  for (const BarrierView& b : p.other_barriers) others.push_back(barrier_json(b));
  return {{"ctas", p.ctas}, {"stages", std::move(stages)},   {"transfers_in_flight", p.in_flight}, {"completed", p.completed},
          {"transfers", p.transfers.size()}, {"cycle", p.cycle},               {"end_cycle", p.end_cycle},
          {"other_barriers", std::move(others)}, {"lanes", p.lanes}, {"lane_rows", p.lane_rows}};
}

nlohmann::json describe_tma_pipeline(AppState& app) {
  const Snapshot* s = app.snapshot();
  if (!app.kernel || !s) return {{"kernel", nullptr}};
  nlohmann::json j = tma_pipeline_json(tma_pipeline(*app.kernel, *s));
  if (const CpAsyncRing& ring = cp_async_ring(app.kernel); !ring.groups.empty())
    j["cp_async"] = cp_async_ring_json(*app.kernel, ring, s->position);
  const model::Trace& t = app.kernel->trace();
  j["selected_mbar"] = app.selection.mbar == kNone ? nlohmann::json(nullptr) : nlohmann::json(app.selection.mbar);
  j["selected_tma"] = nullptr;
  if (app.selection.tma < t.tma.size()) {
    const TmaPipeline p = tma_pipeline(*app.kernel, *s);
    j["selected_tma"] = transfer_json(p.transfers[app.selection.tma]);
  }
  return j;
}

}  // namespace gs::gui
