#include "engine/model/trace.hpp"

#include <algorithm>
#include <bit>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace gs::model {

// Asks for transparent huge pages over the 2 MiB-aligned part of a new, still unwritten trace
// table of at least 4 MiB (machine.hpp, make_room). A hint: without THP nothing changes.
void advise_huge_pages(void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  if (bytes < 2 * kHuge) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
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
  // a stable sort of a sorted list changes nothing: skip it then. One pass checks the order
  // and counts the events of each kind and instruction (a sort permutes them and changes no
  // count); a second fills the index lists, sized exactly.
  // Both passes read the events through a plain pointer and keep what they carry from one
  // event to the next (the previous cycle, the index tables' ends) in locals: a fully traced
  // SIMT CTA has about two events per warp-instruction, and the passes cost about 46
  // instructions per event when written over events[i] and inst_count.size().
  bool sorted = true;
  std::array<uint32_t, size_t(EventKind::count_)> kind_count{};
  std::vector<uint32_t> inst_count;
  {
    const Event* const ev = events.data();
    const size_t n = events.size();
    uint64_t previous = 0;
    for (size_t i = 0; i < n; ++i) {
      const Event& e = ev[i];
      sorted &= previous <= e.cycle;
      previous = e.cycle;
      ++kind_count[size_t(e.kind)];
      if (e.kind == EventKind::warp_inst) {
        if (e.inst >= inst_count.size()) [[unlikely]] inst_count.resize(size_t(e.inst) + 1, 0);
        ++inst_count[e.inst];
      }
    }
  }
  if (!sorted) {
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.cycle < b.cycle; });
  }
  std::array<uint32_t*, size_t(EventKind::count_)> kind_at{};
  for (size_t k = 0; k < by_kind_.size(); ++k) {
    by_kind_[k].assign(kind_count[k], 0);
    kind_at[k] = by_kind_[k].data();
  }
  by_inst_.assign(inst_count.size(), {});
  std::vector<uint32_t*> inst_at(inst_count.size());
  for (size_t i = 0; i < inst_count.size(); ++i) {
    by_inst_[i].assign(inst_count[i], 0);
    inst_at[i] = by_inst_[i].data();
  }
  {
    const Event* const ev = events.data();
    const uint32_t n = uint32_t(events.size());
    uint32_t** const inst_next = inst_at.data();
    for (uint32_t i = 0; i < n; ++i) {
      const Event& e = ev[i];
      *kind_at[size_t(e.kind)]++ = i;
      if (e.kind == EventKind::warp_inst) *inst_next[e.inst]++ = i;
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
