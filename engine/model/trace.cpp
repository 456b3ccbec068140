#include "engine/model/trace.hpp"

#include <algorithm>
#include <bit>

namespace gs::model {

const char* event_kind_name(EventKind k) {
  switch (k) {
    case EventKind::cta_start: return "cta_start";
    case EventKind::cta_end: return "cta_end";
    case EventKind::warp_inst: return "warp_inst";
    case EventKind::smem_access: return "smem_access";
    case EventKind::global_access: return "global_access";
    case EventKind::tma_issue: return "tma_issue";
    case EventKind::tma_complete: return "tma_complete";
    case EventKind::mbar_init: return "mbar_init";
    case EventKind::mbar_arrive: return "mbar_arrive";
    case EventKind::mbar_expect_tx: return "mbar_expect_tx";
    case EventKind::mbar_complete_tx: return "mbar_complete_tx";
    case EventKind::mbar_phase_flip: return "mbar_phase_flip";
    case EventKind::mbar_wait_blocked: return "mbar_wait_blocked";
    case EventKind::mbar_wait_released: return "mbar_wait_released";
    case EventKind::bar_blocked: return "bar_blocked";
    case EventKind::bar_released: return "bar_released";
    case EventKind::mma_issue: return "mma_issue";
    case EventKind::mma_complete: return "mma_complete";
    case EventKind::reg_write: return "reg_write";
    case EventKind::hazard: return "hazard";
    case EventKind::count_: break;
  }
  return "?";
}

uint64_t Trace::reg_value(const RegWrite& w, uint32_t lane) const {
  if (lane >= 32 || !(w.mask >> lane & 1)) return 0;
  // Values are packed: the lane's index among the written lanes.
  const uint32_t index = uint32_t(std::popcount(w.mask & ((1u << lane) - 1)));
  const size_t at = w.value_offset + size_t(index) * w.words;
  uint64_t v = values[at];
  if (w.words == 2) v |= uint64_t(values[at + 1]) << 32;
  return v;
}

void Trace::finalize() {
  // Completions are recorded when they are processed, which can be after later-issued
  // events: order by cycle, keeping the recording order of equal cycles.
  // Most traces are already in order (only asynchronous completions are stamped ahead), and
  // a stable sort of a sorted list changes nothing: skip it then.
  const auto by_cycle = [](const Event& a, const Event& b) { return a.cycle < b.cycle; };
  if (!std::is_sorted(events.begin(), events.end(), by_cycle)) std::stable_sort(events.begin(), events.end(), by_cycle);
  for (auto& v : by_kind_) v.clear();
  by_inst_.clear();
  for (uint32_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    by_kind_[size_t(e.kind)].push_back(i);
    if (e.kind == EventKind::warp_inst) {
      if (e.inst >= by_inst_.size()) by_inst_.resize(e.inst + 1);
      by_inst_[e.inst].push_back(i);
    }
  }
  if (!events.empty()) end_cycle = std::max(end_cycle, events.back().cycle);
}

const std::vector<uint32_t>& Trace::executions_of(uint32_t inst) const {
  return inst < by_inst_.size() ? by_inst_[inst] : empty_;
}

namespace {
// First index in a sorted list greater than pos / last index smaller than pos.
bool next_in(const std::vector<uint32_t>& list, uint32_t pos, uint32_t* out) {
  auto it = std::upper_bound(list.begin(), list.end(), pos);
  if (it == list.end()) return false;
  *out = *it;
  return true;
}
bool prev_in(const std::vector<uint32_t>& list, uint32_t pos, uint32_t* out) {
  auto it = std::lower_bound(list.begin(), list.end(), pos);
  if (it == list.begin()) return false;
  *out = *(it - 1);
  return true;
}
}  // namespace

void Cursor::seek(uint32_t event_index) {
  pos_ = t_->events.empty() ? 0 : std::min<uint32_t>(event_index, uint32_t(t_->events.size() - 1));
}

bool Cursor::step_forward(std::optional<uint16_t> warp) {
  const auto& list = t_->of_kind(EventKind::warp_inst);
  uint32_t p = pos_, found = 0;
  while (next_in(list, p, &found)) {
    if (!warp || t_->events[found].warp == *warp) {
      pos_ = found;
      return true;
    }
    p = found;
  }
  return false;
}

bool Cursor::step_backward(std::optional<uint16_t> warp) {
  const auto& list = t_->of_kind(EventKind::warp_inst);
  uint32_t p = pos_, found = 0;
  while (prev_in(list, p, &found)) {
    if (!warp || t_->events[found].warp == *warp) {
      pos_ = found;
      return true;
    }
    p = found;
  }
  return false;
}

bool Cursor::next_of_kind(EventKind k) {
  uint32_t found = 0;
  if (!next_in(t_->of_kind(k), pos_, &found)) return false;
  pos_ = found;
  return true;
}

bool Cursor::prev_of_kind(EventKind k) {
  uint32_t found = 0;
  if (!prev_in(t_->of_kind(k), pos_, &found)) return false;
  pos_ = found;
  return true;
}

bool Cursor::next_execution(uint32_t inst) {
  uint32_t found = 0;
  if (!next_in(t_->executions_of(inst), pos_, &found)) return false;
  pos_ = found;
  return true;
}

bool Cursor::prev_execution(uint32_t inst) {
  uint32_t found = 0;
  if (!prev_in(t_->executions_of(inst), pos_, &found)) return false;
  pos_ = found;
  return true;
}

void Cursor::jump_to_cycle(uint64_t cycle) {
  auto it = std::lower_bound(t_->events.begin(), t_->events.end(), cycle,
                             [](const Event& e, uint64_t c) { return e.cycle < c; });
  seek(uint32_t(it - t_->events.begin()));
}

}  // namespace gs::model
