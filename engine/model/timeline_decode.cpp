#include "engine/model/timeline_decode.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace gs::model {

namespace {

template <class T>
T read_at(std::span<const uint8_t> b, uint64_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

bool is_tcgen05_commit(ir::Op op) {
  return op == ir::Op::tcgen05_commit || op == ir::Op::tcgen05_commit_multicast ||
         op == ir::Op::tcgen05_commit_cta_pair || op == ir::Op::tcgen05_commit_cta_pair_multicast;
}

}  // namespace

double MeasuredWarp::clock_ghz() const {
  if (globaltimer_end <= globaltimer_start || clock_end <= clock_start) return 0.0;
  return double(clock_end - clock_start) / double(globaltimer_end - globaltimer_start);
}

EventKind measured_event_kind(ir::RecordKind r, ir::Op op) {
  using R = ir::RecordKind;
  switch (r) {
    case R::role_enter: return EventKind::role_enter;
    case R::mbar_wait_begin: return EventKind::mbar_wait_blocked;
    case R::mbar_wait_end: return EventKind::mbar_wait_released;
    case R::tma_issue:
    case R::tma_store: return EventKind::tma_issue;
    case R::mma_commit: return is_tcgen05_commit(op) ? EventKind::tmem_op : EventKind::wgmma_commit;
    case R::mma_wait_begin: return EventKind::wgmma_wait_blocked;
    case R::mma_wait_end: return EventKind::wgmma_wait_released;
    case R::bar_begin: return EventKind::bar_blocked;
    case R::bar_end: return EventKind::bar_released;
    case R::global_store: return EventKind::global_access;
    case R::cp_async_commit: return EventKind::cp_async_commit;
    case R::cp_async_wait_end: return EventKind::cp_async_wait;
    case R::k_pass:
    case R::cp_async_wait_begin:
    case R::count_: break;
  }
  return EventKind::warp_inst;
}

MeasuredTimeline decode_timeline(const ir::Kernel& k, const ir::TimelineLayout& layout, std::span<const uint8_t> buffer) {
  if (buffer.size() != layout.buffer_bytes())
    throw std::invalid_argument(fmt::format("the timeline buffer holds {} bytes, but {} CTA(s) x {} warps x {} records "
                                            "need {}",
                                            buffer.size(), layout.ctas, layout.warps_per_cta, layout.capacity,
                                            layout.buffer_bytes()));
  MeasuredTimeline t;
  t.layout = layout;
  std::vector<uint64_t> cta_clock0(layout.ctas, std::numeric_limits<uint64_t>::max());
  std::vector<std::vector<std::pair<uint32_t, uint64_t>>> raw;  // per warp: (tag, full clock)
  uint32_t unfinished = 0, lossy_warps = 0;
  constexpr uint32_t kLossyWarpsNamed = 8;  // a whole grid's warps would each name their loss: the rest are counted
  for (uint32_t slot = 0; slot < layout.ctas; ++slot)
    for (uint32_t w = 0; w < layout.warps_per_cta; ++w) {
      const uint64_t at = (uint64_t(slot) * layout.warps_per_cta + w) * layout.area_bytes();
      MeasuredWarp mw;
      mw.cta = layout.first_cta + slot;
      mw.warp = w;
      mw.finished = read_at<uint32_t>(buffer, at + 44) == ir::kTimelineMagic;
      mw.globaltimer_start = read_at<uint64_t>(buffer, at + 0);
      mw.globaltimer_end = read_at<uint64_t>(buffer, at + 8);
      mw.clock_start = read_at<uint64_t>(buffer, at + 16);
      mw.clock_end = read_at<uint64_t>(buffer, at + 24);
      mw.smid = read_at<uint32_t>(buffer, at + 32);
      if (!mw.finished) {
        ++unfinished;
        t.warps.push_back(mw);
        raw.emplace_back();
        continue;
      }
      mw.attempted = read_at<uint32_t>(buffer, at + 40);
      mw.kept = std::min(mw.attempted, layout.capacity);
      // Capacity 0 asks for each warp's start and end only: its events were not wanted, not lost.
      if (layout.capacity > 0 && mw.attempted > layout.capacity) {
        t.lost += mw.attempted - layout.capacity;
        if (++lossy_warps <= kLossyWarpsNamed)
          t.warnings.push_back(fmt::format("CTA {} warp {}: {} records, but the buffer holds {} per warp: the last {} "
                                           "are lost (raise the capacity: timeline --capacity, bench "
                                           "--timeline-capacity)",
                                           mw.cta, w, mw.attempted, layout.capacity, mw.attempted - layout.capacity));
      }
      // Records hold %clock's 32 bits; each is later than the one before, so the deltas unwrap them.
      std::vector<std::pair<uint32_t, uint64_t>> recs;
      uint64_t clock = mw.clock_start;
      for (uint32_t r = 0; r < mw.kept; ++r) {
        const uint64_t ra = at + ir::kTimelineHeaderBytes + uint64_t(r) * ir::kTimelineRecordBytes;
        const uint32_t tag = read_at<uint32_t>(buffer, ra), lo = read_at<uint32_t>(buffer, ra + 4);
        clock += uint32_t(lo - uint32_t(clock));
        recs.emplace_back(tag, clock);
      }
      cta_clock0[slot] = std::min(cta_clock0[slot], mw.clock_start);
      t.warps.push_back(mw);
      raw.push_back(std::move(recs));
    }
  if (lossy_warps > kLossyWarpsNamed)
    t.warnings.push_back(fmt::format("{} more warps lost records ({} lost in all)", lossy_warps - kLossyWarpsNamed,
                                     t.lost));
  if (unfinished)
    t.warnings.push_back(fmt::format("{} of {} warps recorded no end: their CTA did not run to its end (a hang or a "
                                     "trap) or the buffer was not written",
                                     unfinished, t.warps.size()));
  // The warps of a CTA share their SM's clock, which orders their events to the cycle, while
  // %globaltimer is coarse (integer ns on the model, updated far less often on a GPU) and is
  // read a few cycles apart from %clock64 in each warp's header. So an event's time is its
  // cycles since the CTA's first warp started, at the CTA's clock rate (from its longest-running
  // warp), plus that first warp's %globaltimer: one straight line per CTA, and %globaltimer
  // only places the CTAs against each other.
  std::vector<uint64_t> cta_ns0(layout.ctas, 0), cta_span(layout.ctas, 0);
  std::vector<double> cta_ghz(layout.ctas, 0.0);
  for (const MeasuredWarp& mw : t.warps) {
    const uint32_t slot = mw.cta - layout.first_cta;
    if (mw.finished && mw.clock_start == cta_clock0[slot]) cta_ns0[slot] = mw.globaltimer_start;
    if (mw.finished && mw.clock_ghz() > 0 && mw.clock_end - mw.clock_start > cta_span[slot]) {  // ghz > 0: end > start
      cta_span[slot] = mw.clock_end - mw.clock_start;
      cta_ghz[slot] = mw.clock_ghz();
    }
  }
  uint64_t first_ns = std::numeric_limits<uint64_t>::max();
  for (uint32_t slot = 0; slot < layout.ctas; ++slot)
    if (cta_span[slot] > 0) first_ns = std::min(first_ns, cta_ns0[slot]);
  if (first_ns != std::numeric_limits<uint64_t>::max()) t.first_ns = first_ns;
  for (size_t i = 0; i < t.warps.size(); ++i) {
    const MeasuredWarp& mw = t.warps[i];
    const uint32_t slot = mw.cta - layout.first_cta;
    const double ghz = cta_ghz[slot];
    ir::WarpRole role = ir::WarpRole::none;  // as the model keeps it: the role last entered
    for (const auto& [tag, clock] : raw[i]) {
      const uint32_t kind = tag >> 24, inst = tag & 0xFFFFFF;
      if (kind >= uint32_t(ir::RecordKind::count_) || inst >= k.insts.size())
        throw std::invalid_argument(fmt::format("CTA {} warp {}: record 0x{:08X} names {} {} that kernel '{}' does "
                                                "not have: is this buffer from another kernel?",
                                                mw.cta, mw.warp, tag, kind >= uint32_t(ir::RecordKind::count_)
                                                    ? "event kind" : "instruction",
                                                kind >= uint32_t(ir::RecordKind::count_) ? kind : inst, k.name));
      if (ir::RecordKind(kind) == ir::RecordKind::role_enter) {
        if (k.role_at(inst) == role) continue;  // the role the warp is in already
        role = k.role_at(inst);
      }
      MeasuredEvent e;
      e.record = ir::RecordKind(kind);
      e.inst = inst;
      e.kind = measured_event_kind(e.record, k.insts[inst].op);
      e.cta = mw.cta;
      e.warp = mw.warp;
      e.cycle = clock - cta_clock0[slot];
      const double since_start = ghz > 0 ? double(e.cycle) / ghz : 0.0;
      e.ns = double(cta_ns0[slot] - first_ns) + since_start;
      e.src = k.insts[inst].src;
      t.events.push_back(e);
    }
  }
  return t;
}

}  // namespace gs::model
