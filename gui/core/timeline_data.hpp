// The timeline view's data: a Gantt chart of the traced warps over modeled time, from the
// model's trace alone. Each warp's row is its states (ready, waiting on an mbarrier, at bar.sync,
// in wgmma.wait, exited) as playback replays them (warps_data.hpp, warp_timelines), with ticks
// where it issued a TMA and where it stored to C, and the stretches fast-forward skipped
// (Trace::fast_forwards); below the warps, a lane for the TMA engine
// (each transfer from issue to landing) and one for the SM's tensor cores (busy while any MMA
// is in flight), so the overlap of loads and math, and the bubbles, are visible; and each
// warp's cycles by the cause that explains them (stall_causes.hpp), summed over the CTA.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gui/core/playback.hpp"
#include "gui/core/stall_causes.hpp"
#include "gui/core/warps_data.hpp"

namespace gs::gui {

struct AppState;

struct TimelineSpan {
  uint64_t begin = 0, end = 0;
  uint32_t index = kNone;  // TMA lane: into trace.tma; tensor lane: the first MMA of the busy stretch
};

struct TimelineSegment {
  uint64_t begin = 0, end = 0;
  WarpActivity activity = WarpActivity::not_started;
};

// A stretch a warp did not run: fast-forward (engine/model/fast_forward.hpp) skipped passes
// first..first+count-1 of a loop's `passes` (a K loop's are K iterations) and moved the warp's
// clock on by their time. The views draw it hatched over whatever state the warp was in.
struct SkippedSpan {
  uint64_t begin = 0, end = 0;  // cycles in the model trace, ps in the comparison with a GPU
  uint32_t first = 0, count = 0, passes = 0;
  bool k_loop = false;
};
// "fast-forwarded: K iterations 5..516 of 528 skipped (512), run with their time but not traced"
std::string skipped_text(const SkippedSpan& s);
nlohmann::json skipped_json(const SkippedSpan& s);  // for --state-json
// The span of `spans` that holds `at`, or nullptr.
const SkippedSpan* skipped_at(const std::vector<SkippedSpan>& spans, uint64_t at);

struct TimelineRow {
  uint16_t warp = 0;                     // trace warp
  std::string label;                     // "w3", or "1.3" for rank 1's warp 3 in a traced cluster
  std::vector<TimelineSegment> segments; // adjacent, covering [0, end_cycle)
  std::vector<uint64_t> tma_issues;      // cycles it issued a TMA copy
  std::vector<uint64_t> stores;          // cycles it stored into C (distinct)
  std::vector<SkippedSpan> skipped;      // fast-forwarded stretches (Trace::fast_forwards), in order
  uint64_t waiting_cycles = 0;           // cycles in any wait
};

struct TimelineData {
  uint64_t end_cycle = 0;
  std::vector<TimelineRow> rows;
  std::vector<TimelineSpan> tma;         // each transfer, issue -> landed (stores: issue -> issue)
  std::vector<TimelineSpan> tensor;      // merged stretches with an MMA in flight
  uint64_t tensor_busy_cycles = 0;
  StallData stalls;                      // each warp's cycles by cause, and their sum (stall_causes.hpp)
  double tensor_busy_share() const { return end_cycle ? double(tensor_busy_cycles) / double(end_cycle) : 0.0; }
};

TimelineData timeline_data(const LoadedKernel& k);
// The same from the warps' states already replayed (warps_data.hpp).
TimelineData timeline_data(const LoadedKernel& k, const WarpTimelines& timelines);
// timeline_data of the kernel on screen, built once per kernel (kernel_cache.hpp).
const TimelineData& timeline_data_cached(const std::shared_ptr<const LoadedKernel>& k);
// Drawing at pixels: a timeline of a large run has far more states and ticks than the plot has
// pixel columns (step 16 at 8192³: 351k vertices a frame). Each pixel column shows one state:
// the one that took most of its cycles; neighbouring columns of one state are one run. At most
// `columns` runs, adjacent, covering what the segments cover; the segments themselves when the
// run has no more cycles than columns.
std::vector<TimelineSegment> segments_at_pixels(const std::vector<TimelineSegment>& segments, uint64_t end_cycle,
                                                uint32_t columns);
// One tick per pixel column it falls in (the first), in order.
std::vector<uint64_t> ticks_at_pixels(const std::vector<uint64_t>& cycles, uint64_t end_cycle, uint32_t columns);
// Spans that overlap or meet within a pixel column merged into one (keeping the first's index).
std::vector<TimelineSpan> spans_at_pixels(std::vector<TimelineSpan> spans, uint64_t end_cycle, uint32_t columns);

// What the view's colours and marks mean, in the order its legend shows them.
enum class TimelineMark { state, tma_issue, store, skipped };  // a state's colour, a row's tick, the hatch
struct TimelineLegendItem {
  std::string name;  // "ready", "waiting on an mbarrier", "TMA issue", ...
  TimelineMark mark = TimelineMark::state;
  WarpActivity activity = WarpActivity::not_started;  // the state drawn in its colour
};
const std::vector<TimelineLegendItem>& timeline_legend();

// A row's label at the snapshot: "3", and the role the kernel declares for the code the warp
// runs at the cursor ("3 producer"), as the Warps view says it; no role word where none is
// declared (or before the warp entered one).
std::string timeline_label(const TimelineRow& row, const Snapshot* s);
std::string timeline_role(const TimelineRow& row, const Snapshot* s);  // "producer", or ""

// The playback position to jump to for a click at `cycle`: the first event at or after it.
uint32_t timeline_position_at(const LoadedKernel& k, uint64_t cycle);
nlohmann::json describe_timeline(AppState& app);

}  // namespace gs::gui
