#include "gui/core/playback.hpp"

#include <algorithm>

#include "gui/core/guided_stops.hpp"

namespace gs::gui {

using model::EventKind;

const char* warp_activity_name(WarpActivity a) {
  switch (a) {
    case WarpActivity::not_started: return "not started";
    case WarpActivity::ready: return "ready";
    case WarpActivity::waiting_mbarrier: return "waiting on mbarrier";
    case WarpActivity::waiting_bar: return "bar.sync";
    case WarpActivity::waiting_wgmma: return "wgmma wait";
    case WarpActivity::exited: return "exited";
    case WarpActivity::deadlocked: return "deadlocked";
  }
  return "?";
}

const char* step_unit_name(StepUnit u) {
  switch (u) {
    case StepUnit::event: return "event";
    case StepUnit::instruction: return "instruction";
    case StepUnit::warp_instruction: return "warp-instruction";
    case StepUnit::k_iteration: return "K iteration";
    case StepUnit::barrier_phase: return "barrier phase";
    case StepUnit::stop: return "stop";
  }
  return "?";
}

namespace {

// The order of Snapshot::mbarriers: by CTA rank, then address.
bool before(const MbarrierState& m, uint32_t cta, uint32_t addr) { return m.cta != cta ? m.cta < cta : m.addr < addr; }

}  // namespace

const MbarrierState* Snapshot::mbarrier_at(uint32_t addr, uint32_t cta) const {
  auto it = std::lower_bound(mbarriers.begin(), mbarriers.end(), addr,
                             [&](const MbarrierState& m, uint32_t a) { return before(m, cta, a); });
  return it != mbarriers.end() && it->addr == addr && it->cta == cta ? &*it : nullptr;
}

namespace {

MbarrierState& mbar_state(Snapshot& s, uint32_t addr, uint8_t cta) {
  auto it = std::lower_bound(s.mbarriers.begin(), s.mbarriers.end(), addr,
                             [&](const MbarrierState& m, uint32_t a) { return before(m, cta, a); });
  if (it == s.mbarriers.end() || it->addr != addr || it->cta != cta) {
    MbarrierState m;
    m.addr = addr;
    m.cta = cta;
    m.index = uint32_t(s.mbarriers.size());  // #i: order of first appearance
    it = s.mbarriers.insert(it, m);
  }
  return *it;
}

void remove_waiter(MbarrierState& m, uint16_t warp) {
  m.waiting_warps.erase(std::remove(m.waiting_warps.begin(), m.waiting_warps.end(), warp), m.waiting_warps.end());
}

WarpSnapshot* warp_state(Snapshot& s, uint16_t warp) { return warp < s.warps.size() ? &s.warps[warp] : nullptr; }

}  // namespace

Snapshot initial_snapshot(const LoadedKernel& k) {
  Snapshot s;
  const uint32_t warps = k.trace().warps;
  s.warps.resize(warps);
  for (uint16_t w = 0; w < warps; ++w) s.warps[w].warp = w;
  return s;
}

void replay(const LoadedKernel& k, Snapshot& s, uint32_t from_exclusive, uint32_t to_inclusive) {
  const model::Trace& t = k.trace();
  const ir::Kernel& kernel = k.kernel();
  if (t.events.empty()) return;
  to_inclusive = std::min<uint32_t>(to_inclusive, uint32_t(t.events.size() - 1));
  uint32_t begin = from_exclusive == kNone ? 0 : from_exclusive + 1;
  for (uint32_t i = begin; i <= to_inclusive; ++i) {
    const model::Event& e = t.events[i];
    s.position = i;
    s.cycle = e.cycle;
    WarpSnapshot* w = e.warp == kNoWarp ? nullptr : warp_state(s, e.warp);
    switch (e.kind) {
      case EventKind::warp_inst: {
        ++s.warp_instructions;
        if (!w) break;
        ++w->issued;
        w->inst = e.inst;
        w->mask = e.mask;
        w->activity = WarpActivity::ready;
        w->since_cycle = e.cycle;
        const ir::Inst& inst = kernel.insts[e.inst];
        if (inst.op == ir::Op::exit || inst.op == ir::Op::ret) w->activity = WarpActivity::exited;
        if (k.is_k_loop_head(e.inst)) ++w->k_passes;
        break;
      }
      case EventKind::role_enter:
        if (w) w->role = ir::WarpRole(e.a);
        break;
      case EventKind::reg_limit:
        if (w) w->reg_limit = e.a;
        break;
      // wgmma groups, as the model kept them (exec_wgmma.cpp): a commit closes the issued
      // wgmmas into a group; wait_group N blocks while more than N are in flight, and each
      // group it retires completes (wgmma_complete) before the release.
      case EventKind::wgmma_commit:
        if (w) {
          w->mma_in_flight = e.a;
          w->mma_uncommitted = 0;
        }
        break;
      case EventKind::wgmma_wait_blocked:
        if (w) {
          w->activity = WarpActivity::waiting_wgmma;
          w->mma_wait_keep = e.a;
          w->since_cycle = e.cycle;
        }
        break;
      case EventKind::wgmma_wait_released:
        if (w && w->activity == WarpActivity::waiting_wgmma) {
          w->activity = WarpActivity::ready;
          w->since_cycle = e.cycle;
        }
        break;
      case EventKind::wgmma_issue:
        s.last_mma = i;
        if (w) ++w->mma_uncommitted;
        break;
      case EventKind::wgmma_complete:
        if (w && w->mma_in_flight > 0) --w->mma_in_flight;
        break;
      case EventKind::smem_access: s.last_smem = i; break;
      case EventKind::tma_issue:
        s.last_tma = i;
        s.tma_in_flight.push_back(e.payload);
        break;
      case EventKind::tma_complete:
        s.last_tma = i;
        s.tma_in_flight.erase(std::remove(s.tma_in_flight.begin(), s.tma_in_flight.end(), e.payload),
                              s.tma_in_flight.end());
        ++s.tma_completed;
        break;
      case EventKind::mbar_init:
      case EventKind::mbar_arrive:
      case EventKind::mbar_expect_tx:
      case EventKind::mbar_complete_tx:
      case EventKind::mbar_phase_flip:
      case EventKind::mbar_wait_blocked:
      case EventKind::mbar_wait_released: {
        if (e.payload >= t.mbar.size()) break;
        const model::MbarEvent& m = t.mbar[e.payload];
        MbarrierState& b = mbar_state(s, m.addr, e.cta);  // the CTA whose barrier it is  // the CTA whose barrier it is
        static_cast<model::MbarrierPhase&>(b) = m;
        if (e.kind == EventKind::mbar_init) b.initialized = true;
        if (e.kind == EventKind::mbar_phase_flip) ++b.flips;
        if (e.kind == EventKind::mbar_wait_blocked && w) {
          w->activity = WarpActivity::waiting_mbarrier;
          w->mbar = m.addr;
          w->parity = m.value;
          w->since_cycle = e.cycle;
          if (std::find(b.waiting_warps.begin(), b.waiting_warps.end(), e.warp) == b.waiting_warps.end())
            b.waiting_warps.push_back(e.warp);
        }
        if (e.kind == EventKind::mbar_wait_released && w) {
          w->activity = WarpActivity::ready;
          w->since_cycle = e.cycle;
          remove_waiter(b, e.warp);
        }
        break;
      }
      case EventKind::bar_blocked:
        if (w) {
          w->activity = WarpActivity::waiting_bar;
          w->bar_id = e.payload;
          w->since_cycle = e.cycle;
        }
        break;
      case EventKind::bar_released:
        if (w && w->activity == WarpActivity::waiting_bar) {
          w->activity = WarpActivity::ready;
          w->since_cycle = e.cycle;
        }
        break;
      case EventKind::hazard: s.last_hazard = i; break;
      case EventKind::cta_end:
        // A warp still blocked when the CTA ends waits for something that never comes (the
        // model stopped the CTA on a deadlock): it keeps what it waits on, marked deadlocked.
        // In a cluster, only the warps of the CTA that ended.
        for (WarpSnapshot& ws : s.warps) {
          if (t.ctas.size() > 1 && ws.warp / std::max(1u, t.warps_per_cta) != e.cta) continue;
          const bool blocked = ws.activity == WarpActivity::waiting_mbarrier || ws.activity == WarpActivity::waiting_bar ||
                               ws.activity == WarpActivity::waiting_wgmma;
          if (blocked) {
            ws.blocked_on = ws.activity;
            ws.activity = WarpActivity::deadlocked;
          } else if (ws.activity != WarpActivity::deadlocked) {
            ws.activity = WarpActivity::exited;
          }
        }
        break;
      default: break;
    }
  }
}

PlaybackIndex::PlaybackIndex(std::shared_ptr<const LoadedKernel> kernel) : kernel_(std::move(kernel)) {
  const model::Trace& t = kernel_->trace();
  Snapshot s = initial_snapshot(*kernel_);
  per_warp_.assign(s.warps.size(), {});
  for (uint32_t e : t.of_kind(EventKind::warp_inst))
    if (t.events[e].warp < per_warp_.size()) per_warp_[t.events[e].warp].push_back(e);
  // Checkpoint c holds the state after event c·kCheckpointEvery.
  uint32_t last = kNone;
  for (uint32_t c = 0; t.events.size() > 0 && uint64_t(c) * kCheckpointEvery < t.events.size(); ++c) {
    const uint32_t upto = c * kCheckpointEvery;
    replay(*kernel_, s, last, upto);
    last = upto;
    checkpoints_.push_back(s);
  }
  if (checkpoints_.empty()) checkpoints_.push_back(s);
}

const Snapshot& PlaybackIndex::at(uint32_t position) {
  const model::Trace& t = kernel_->trace();
  if (!t.events.empty()) position = std::min<uint32_t>(position, uint32_t(t.events.size() - 1));
  else position = 0;
  if (has_current_ && current_.position == position) return current_;
  const uint32_t c = std::min<uint32_t>(position / kCheckpointEvery, uint32_t(checkpoints_.size() - 1));
  // Replaying forward from the current snapshot is cheaper when it lies between the checkpoint
  // and the target (playing forward one step at a time).
  if (!(has_current_ && current_.position <= position && current_.position >= c * kCheckpointEvery)) {
    current_ = checkpoints_[c];
  }
  if (!t.events.empty()) replay(*kernel_, current_, current_.position, position);
  // The next instruction of each warp, from the per-warp issue lists.
  for (WarpSnapshot& w : current_.warps) {
    const auto& list = per_warp_[w.warp];
    auto it = std::upper_bound(list.begin(), list.end(), position);
    w.next_inst = it == list.end() ? kNone : t.events[*it].inst;
  }
  has_current_ = true;
  return current_;
}

std::optional<uint32_t> step(const LoadedKernel& k, uint32_t position, StepUnit unit, bool forward, uint16_t warp) {
  const model::Trace& t = k.trace();
  if (t.events.empty()) return std::nullopt;
  model::Cursor c(t);
  c.seek(position);
  bool moved = false;
  switch (unit) {
    case StepUnit::event:
      if (forward && position + 1 < t.events.size()) { c.seek(position + 1); moved = true; }
      if (!forward && position > 0) { c.seek(position - 1); moved = true; }
      break;
    case StepUnit::instruction:
      moved = forward ? c.step_forward() : c.step_backward();
      break;
    case StepUnit::warp_instruction: {
      const std::optional<uint16_t> w = warp == kNoWarp ? std::optional<uint16_t>(0) : std::optional<uint16_t>(warp);
      moved = forward ? c.step_forward(w) : c.step_backward(w);
      break;
    }
    case StepUnit::k_iteration: {
      const uint16_t w = k.k_warp(warp);
      if (w == kNoWarp) {
        moved = forward ? c.step_forward() : c.step_backward();
        break;
      }
      // The nearest pass of any K loop by that warp, in the direction asked.
      const std::vector<uint32_t>& passes = k.k_pass_events[w];
      const auto it = forward ? std::upper_bound(passes.begin(), passes.end(), position)
                              : std::lower_bound(passes.begin(), passes.end(), position);
      if (forward ? it != passes.end() : it != passes.begin()) {
        c.seek(forward ? *it : *(it - 1));
        moved = true;
      }
      break;
    }
    case StepUnit::barrier_phase:
      moved = forward ? c.next_of_kind(EventKind::mbar_phase_flip) : c.prev_of_kind(EventKind::mbar_phase_flip);
      break;
    case StepUnit::stop:
      // The step's declared stops, found in this trace (guided_stops.hpp).
      if (const std::optional<uint32_t> to = next_stop(step_stops(k), position, forward)) {
        c.seek(*to);
        moved = true;
      }
      break;
  }
  if (!moved) return std::nullopt;
  return c.position();
}

}  // namespace gs::gui
