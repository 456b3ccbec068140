#include "engine/model/trace.hpp"

#include <algorithm>
#include <bit>


namespace gs::model {

namespace {
struct HazardText {
  std::string_view name, meaning;
};
constexpr HazardText kHazardText[] = {
#define HAZARD(id, name, meaning) {name, meaning},
#include "engine/model/hazards.def"
#undef HAZARD
};
}  // namespace

std::string_view hazard_kind_name(HazardKind k) { return kHazardText[size_t(k)].name; }
std::string_view hazard_kind_meaning(HazardKind k) { return kHazardText[size_t(k)].meaning; }
std::optional<HazardKind> find_hazard_kind(std::string_view name) {
  for (size_t i = 0; i < size_t(HazardKind::count_); ++i)
    if (kHazardText[i].name == name) return HazardKind(i);
  return std::nullopt;
}

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
    case EventKind::wgmma_issue: return "wgmma_issue";
    case EventKind::wgmma_complete: return "wgmma_complete";
    case EventKind::reg_write: return "reg_write";
    case EventKind::hazard: return "hazard";
    case EventKind::role_enter: return "role_enter";
    case EventKind::wgmma_commit: return "wgmma_commit";
    case EventKind::wgmma_wait_blocked: return "wgmma_wait_blocked";
    case EventKind::wgmma_issue_wait: return "wgmma_issue_wait";
    case EventKind::wgmma_wait_released: return "wgmma_wait_released";
    case EventKind::reg_limit: return "reg_limit";
    case EventKind::cp_async_commit: return "cp_async_commit";
    case EventKind::cp_async_wait: return "cp_async_wait";
    case EventKind::tmem_op: return "tmem_op";
    case EventKind::fast_forward: return "fast_forward";
    case EventKind::count_: break;
  }
  return "?";
}

const char* tmem_op_kind_name(TmemOpKind k) {
  switch (k) {
    case TmemOpKind::alloc: return "alloc";
    case TmemOpKind::dealloc: return "dealloc";
    case TmemOpKind::relinquish: return "relinquish";
    case TmemOpKind::mma: return "mma";
    case TmemOpKind::commit: return "commit";
    case TmemOpKind::load: return "load";
    case TmemOpKind::store: return "store";
    case TmemOpKind::release: return "release";
  }
  return "?";
}

uint64_t Trace::reg_value(const RegWrite& w, uint32_t lane) const {
  if (lane >= 32 || !(w.mask >> lane & 1)) return 0;
  const auto word_value = [&](size_t at) {
    uint64_t v = values[at];
    if (w.words == 2) v |= uint64_t(values[at + 1]) << 32;
    return v;
  };
  if (w.encoding == RegWrite::Encoding::affine) {
    const uint64_t v = word_value(w.value_offset) + word_value(w.value_offset + w.words) * lane;
    return w.words == 2 ? v : uint32_t(v);
  }
  // Packed: the lane's index among the written lanes.
  const uint32_t index = uint32_t(std::popcount(w.mask & ((1u << lane) - 1)));
  return word_value(w.value_offset + size_t(index) * w.words);
}

void Trace::finalize() {
  // Completions are recorded when they are processed, which can be after later-issued
  // events: order by cycle, keeping the recording order of equal cycles. Most traces are
  // already in order (only asynchronous completions are stamped ahead), so the index lists
  // are built in the same pass that checks the order, and built again only after a sort.
  // The pass reads the events through a plain pointer and appends to Tables, which neither
  // zero-fill nor copy as they grow: a fully traced SIMT CTA has about two events per
  // warp-instruction, and this took a sixth of a traced run as two passes (count, then fill
  // lists sized exactly and zeroed first).
  for (int attempt = 0; attempt < 2; ++attempt) {
    for (Table<uint32_t>& list : by_kind_) list.clear();
    for (Table<uint32_t>& list : by_inst_) list.clear();
    bool sorted = true;
    const Event* const ev = events.data();
    const uint32_t n = uint32_t(events.size());
    uint64_t previous = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const Event& e = ev[i];
      sorted &= previous <= e.cycle;
      previous = e.cycle;
      by_kind_[size_t(e.kind)].push_back(i);
      if (e.kind == EventKind::warp_inst) {
        if (e.inst >= by_inst_.size()) [[unlikely]] by_inst_.resize(size_t(e.inst) + 1);
        by_inst_[e.inst].push_back(i);
      }
    }
    if (sorted) break;
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.cycle < b.cycle; });
  }
  if (!events.empty()) end_cycle = std::max(end_cycle, events.back().cycle);
}

const Table<uint32_t>& Trace::executions_of(uint32_t inst) const {
  return inst < by_inst_.size() ? by_inst_[inst] : empty_;
}

namespace {
// First index in a sorted list greater than pos / last index smaller than pos.
bool next_in(const Table<uint32_t>& list, uint32_t pos, uint32_t* out) {
  auto it = std::upper_bound(list.begin(), list.end(), pos);
  if (it == list.end()) return false;
  *out = *it;
  return true;
}
bool prev_in(const Table<uint32_t>& list, uint32_t pos, uint32_t* out) {
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
