// Decoding an instrumented kernel's timeline records (engine/ir/instrument.hpp) into events of
// the model's trace form: per warp, in order, each with its kind, the instruction and its
// source line, the SM's cycle and the GPU's nanoseconds.
//
//   model::MeasuredTimeline t = model::decode_timeline(kernel, instrumented.layout, buffer_bytes);
//   for (const std::string& w : t.warnings) std::cerr << w << "\n";   // records lost, warps unfinished
//
// The same bytes come from the GPU (run/gpu_timeline) or from the model running the
// instrumented kernel (its %clock64 is the modeled cycle, %globaltimer that cycle in ns).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/ir/instrument.hpp"
#include "engine/ir/kernel.hpp"
#include "engine/model/trace.hpp"

namespace gs::model {

struct MeasuredEvent {
  ir::RecordKind record = ir::RecordKind::role_enter;
  EventKind kind = EventKind::warp_inst;  // the model's event for it (measured_event_kind)
  uint32_t inst = kNone;   // instruction of the original kernel
  uint32_t cta = 0;        // linear CTA id
  uint32_t warp = 0;       // warp in its CTA
  uint64_t cycle = 0;      // SM cycles since the CTA's first recorded warp start (its own SM's clock)
  double ns = 0.0;         // ns since the earliest CTA start: its CTA's start (%globaltimer) + cycles at its clock
  ir::SourceLoc src;       // the kernel source line of `inst`
};

struct MeasuredWarp {
  uint32_t cta = 0, warp = 0, smid = 0;
  bool finished = false;       // the warp wrote its end (the magic); false: it never ran or never ended
  uint32_t attempted = 0;      // records the warp tried to write
  uint32_t kept = 0;           // records in the buffer (attempted, at most the capacity)
  uint64_t globaltimer_start = 0, globaltimer_end = 0;  // ns
  uint64_t clock_start = 0, clock_end = 0;              // SM cycles
  // Cycles per nanosecond over the warp's life (its SM clock as the globaltimer saw it); 0 unknown.
  double clock_ghz() const;
};

struct MeasuredTimeline {
  ir::TimelineLayout layout;
  std::vector<MeasuredWarp> warps;    // slot by slot, warp by warp
  std::vector<MeasuredEvent> events;  // warp by warp (in `warps` order), each warp's in time order
  std::vector<std::string> warnings;  // records lost to a full area, warps that never finished
  uint64_t lost = 0;                  // records lost over all warps
  // The %globaltimer the events' ns count from: the earliest recorded CTA's first warp's start.
  uint64_t first_ns = 0;
};

// The model's event kind a record stands for: role_enter, mbar_wait_blocked/released,
// tma_issue, mma_commit (tmem_op for a tcgen05 commit), mma_wait_blocked/released,
// bar_blocked/released, global_access, cp_async_commit, cp_async_wait; warp_inst (the
// instruction's issue) for a K-loop pass and the start of a cp.async wait.
EventKind measured_event_kind(ir::RecordKind r, ir::Op op);

// Throws std::invalid_argument when the buffer is not layout.buffer_bytes() long or a record
// names an instruction or kind the kernel does not have (a buffer of another kernel). A full
// area is not an error: its warp's events end early and `warnings` says how many were lost,
// the capacity and how to raise it.
MeasuredTimeline decode_timeline(const ir::Kernel& original, const ir::TimelineLayout& layout,
                                 std::span<const uint8_t> buffer);

}  // namespace gs::model
