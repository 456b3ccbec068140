// The model's stalls by cause: for each traced warp, every cycle of the traced CTA's run
// [0, end_cycle) given to one cause, read from the trace's events alone. A warp issues one
// instruction a cycle at most; the cycles between two of its issues are explained by the
// instruction before them:
//   * a try_wait that found its phase incomplete (an mbar_wait_blocked event of that issue):
//     the mbarrier it slept on, by its declared name ("full[2]");
//   * bar.sync / barrier.cluster.wait: the barrier (blocked, or its release latency);
//   * wgmma.wait_group: the warpgroup's MMAs still in flight;
//   * a wgmma held at issue (a wgmma_issue_wait event of that issue): the SM's wgmma issue, still
//     taking the wgmmas before it;
//   * cp.async.wait_group / wait_all: copies not yet landed;
//   * anything else: the issue model's own reasons, a register not yet written (scoreboard), a
//     busy pipe, the store path or another warp on the same scheduler ("dependency or pipe").
// Stretches fast-forward skipped (Trace::fast_forwards) are the warp's clock moved on without a
// trace: their cause is not known and they stay apart. Before its first issue a warp had not
// started; after exit it is idle. So each warp's causes sum to end_cycle exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir/kernel.hpp"
#include "engine/model/trace.hpp"

namespace gs::gui {

enum class StallKind : uint8_t {
  issuing,         // the cycle of each issue
  dependency,      // between issues, no wait instruction before: scoreboard, pipe, scheduler
  mbarrier,        // asleep in mbarrier.try_wait (per barrier)
  bar_sync,        // bar.sync / barrier.cluster.wait
  wgmma_wait,      // wgmma.wait_group
  wgmma_issue,     // a wgmma held at issue until the SM's wgmma issue takes it (the wgmmas before it)
  cp_async_wait,   // cp.async.wait_group / wait_all
  fast_forwarded,  // passes fast-forward skipped: the clock moved on, nothing traced
  not_started,     // before the warp's first issue
  finished,        // after the warp's exit
  count_,
};
const char* stall_kind_name(StallKind k);     // "mbarrier wait", "dependency or pipe (issue model)", ...
const char* stall_kind_meaning(StallKind k);  // a learner's sentence
const char* stall_kind_id(StallKind k);       // "mbarrier", "dependency", ... (JSON)

struct StallCause {
  StallKind kind = StallKind::dependency;
  std::string barrier;  // mbarrier: its declared name (gui/core/barrier_label.hpp); else ""
  uint64_t cycles = 0;
  std::string name() const;  // "mbarrier wait full[2]", or stall_kind_name
};

struct WarpStalls {
  uint16_t warp = 0;    // trace warp
  std::string label;    // warp_label: "3", "1.3" in a cluster
  uint64_t issues = 0;
  // Kinds in StallKind order, the mbarriers by name within theirs; causes with no cycles left out.
  std::vector<StallCause> causes;
  uint64_t cycles_of(StallKind k) const;  // summed over the kind's barriers
  uint64_t total() const;                 // = StallData::end_cycle
};

struct StallData {
  uint64_t end_cycle = 0;
  std::vector<WarpStalls> warps;
  std::vector<StallCause> total;  // summed over the traced warps, in the same order
  uint64_t total_of(StallKind k) const;
};

StallData stall_causes(const ir::Kernel& kernel, const model::Trace& t);
nlohmann::json stall_causes_json(const StallData& d);

}  // namespace gs::gui
