// The timeline instrumentation pass: any kernel, rewritten to record its own timeline.
//
//   ir::InstrumentedKernel t = ir::instrument_timeline(kernel, {.first_cta = 0, .ctas = 1});
//   // t.kernel has one more parameter (ParamRole::timeline): a buffer of t.layout.buffer_bytes()
//
// At the events the model traces, the instrumented kernel reads the SM's clock and writes an
// 8-byte record into its warp's area of the buffer: a warp entering a declared role, each
// mbarrier wait's start and end, each TMA issue (loads and stores), wgmma/tcgen05 commits,
// wgmma and cp.async waits (start and end), bar.sync (start and end), stores to global memory,
// and every pass of a declared K loop. A warp also writes a header with %globaltimer,
// %clock64 and %smid at its start and end. Only lane 0 of each warp of the chosen CTAs (a
// range of linear CTA ids) writes, the other lanes' writes predicated off; every other CTA
// branches once, after the prologue, to a copy of the original instructions and runs exactly
// those. So the kernel computes exactly what it computed before, and the CTAs that record
// nothing run at the plain kernel's speed.
//
// Buffer (little-endian):
//   area of (slot s, warp w) at (s * warps_per_cta + w) * area_bytes(), slot = linear CTA id - first_cta
//     +0  u64 %globaltimer at the warp's start     +8  u64 %globaltimer at its end
//     +16 u64 %clock64 at its start                +24 u64 %clock64 at its end
//     +32 u32 %smid  +36 u32 linear CTA id  +40 u32 records attempted  +44 u32 kTimelineMagic (written last)
//     +64 records: u32 tag = kind << 24 | instruction index (of the original kernel), u32 %clock
// A warp keeps counting past `capacity` but writes no record there: the decoder reports the
// records lost instead of reading past the area.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/ir/kernel.hpp"

namespace gs::ir {

enum class RecordKind : uint8_t {
  role_enter,         // where the declared role changes in the listing (the decoder keeps changes only)
  mbar_wait_begin,    // before an mbarrier wait (its retry loop)
  mbar_wait_end,      // after it
  tma_issue,          // before a TMA load (plain or multicast)
  tma_store,          // before a TMA store
  mma_commit,         // after wgmma.commit_group; before tcgen05.commit
  mma_wait_begin,     // before wgmma.wait_group
  mma_wait_end,       // after it
  bar_begin,          // before bar.sync / barrier.cluster.wait
  bar_end,            // after it
  global_store,       // before st.global (the stores to C)
  k_pass,             // each pass of a declared K loop (at its head)
  cp_async_commit,    // after cp.async.commit_group
  cp_async_wait_begin,  // before cp.async.wait_group / wait_all
  cp_async_wait_end,    // after it
  count_,
};
std::string_view record_kind_name(RecordKind k);  // "mbar_wait_begin"

inline constexpr uint32_t kTimelineMagic = 0x4C544753;  // "GSTL"
inline constexpr uint32_t kTimelineHeaderBytes = 64;
inline constexpr uint32_t kTimelineRecordBytes = 8;
inline constexpr uint32_t kTimelineMaxCapacity = 1u << 24;  // records per warp

struct TimelineOptions {
  uint32_t first_cta = 0;     // linear id of the first CTA that records
  uint32_t ctas = 1;          // consecutive CTAs that record (a cluster, the first wave, ...)
  uint32_t capacity = 8192;   // records per warp; 0: each warp's start and end only (no events)
};

struct TimelineLayout {
  uint32_t first_cta = 0, ctas = 1, capacity = 0, warps_per_cta = 0;
  uint64_t area_bytes() const { return kTimelineHeaderBytes + uint64_t(capacity) * kTimelineRecordBytes; }
  uint64_t buffer_bytes() const { return area_bytes() * warps_per_cta * ctas; }
};

struct InstrumentedKernel {
  Kernel kernel;          // the original plus the recording code and the timeline parameter
  TimelineLayout layout;
  uint32_t sites = 0;     // instructions that record an event
  // Each site's read of %clock, as an index into kernel.insts: a model run of the kernel issues
  // these exactly when the records are written (the tests compare the two).
  std::vector<uint32_t> clock_reads;
  std::vector<RecordKind> clock_read_kinds;  // the kind each of them records
  // The plain copy that the CTAs recording nothing run, [plain_begin, plain_end), right after
  // the prologue: kernel.insts[plain_begin + i] is the original kernel's instruction i. The
  // recording copy follows it.
  uint32_t plain_begin = 0;
  uint32_t plain_end = 0;
  bool in_plain_copy(uint32_t inst) const { return inst >= plain_begin && inst < plain_end; }
};

// Throws std::invalid_argument (naming the value and what is valid) for a capacity above
// kTimelineMaxCapacity, no CTAs, a CTA range outside the grid, or a kernel that
// already has a timeline parameter.
InstrumentedKernel instrument_timeline(const Kernel& kernel, const TimelineOptions& options);

}  // namespace gs::ir
