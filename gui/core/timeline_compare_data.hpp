// The Timeline view's measured-vs-model part: a GPU's recorded timeline (recorded_timeline.hpp)
// and the model's timeline of the same kernel, shape and CTA, on one time axis. Each warp has
// two lanes, the measured one and the model's under it (matched by CTA and warp id), drawn as
// states (running, waiting on an mbarrier, at bar.sync, in wgmma.wait) with ticks for TMA
// issues, stores to C and K passes, and the model's fast-forwarded stretches. Below them, the figures of run/timeline_stats.hpp for both
// with the difference per kind, the waits per wait instruction, and SM by SM the tiles each
// recorded CTA worked on and when.
//
// Time is picoseconds since the first recorded warp started: the GPU's events by their
// %globaltimer nanoseconds, the model's cycles over the sustained clock of the machine the
// recording names (engine/model/machines.hpp), so the two are comparable in time; the figures
// themselves are compared in cycles, as `gemmscope timeline --import F --compare-model` prints.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gui/core/recorded_timeline.hpp"
#include "gui/core/timeline_data.hpp"
#include "run/timeline_stats.hpp"

namespace gs::gui {

struct AppState;
struct LoadedKernel;

struct CompareLane {
  bool model = false;                      // false: the GPU's
  uint32_t cta = 0, warp = 0, smid = 0;
  std::string label;                       // "CTA 0 w4 consumer" (measured), "model" (under it)
  std::vector<TimelineSegment> segments;   // ps; ready (running) or a wait, first event to last
  std::vector<uint64_t> tma_issues, stores, k_passes;  // ps
  std::vector<SkippedSpan> skipped;        // ps; a model lane's fast-forwarded stretches (drawn hatched)
};

// One kind of figure, measured and modelled (medians in SM cycles of each side's clock).
struct KindDifference {
  std::string name;                         // "K-iteration period", as the CLI's rows
  run::TimelineFigure measured, model;
  bool known() const { return measured.known() && model.known() && model.cycles > 0; }
  double ratio() const { return known() ? measured.cycles / model.cycles : 0.0; }
  double difference_cycles() const { return measured.cycles - model.cycles; }
};

// One wait instruction (an mbarrier wait loop, a wgmma wait, a bar.sync): the mean wait per
// execution over every recorded warp, measured and modelled.
struct WaitDifference {
  std::string what;                         // "mbarrier wait (consumer) 14_two_consumers.cpp:120"
  uint32_t inst = 0;
  size_t measured_count = 0, model_count = 0;
  double measured_mean = 0.0, model_mean = 0.0;  // cycles
};

// A tile a recorded CTA worked on: from its previous tile's last store (or its first event) to
// this tile's last store, by one of its warps that stores C.
struct TileSpan {
  uint64_t begin = 0, end = 0;             // ps
  uint32_t order = 0;                      // the CTA's k-th tile
  std::string tile;                        // "(3,7)" from the model's schedule of this CTA, else "#k"
};
struct SmRow {
  bool model = false;
  uint32_t cta = 0, smid = 0;
  std::string label;                       // "SM 124 CTA 0", "model CTA 0"
  std::vector<TileSpan> tiles;
};

// A whole launch recorded CTA by CTA (`timeline --ctas all --capacity 0`: each warp's start,
// end and SM, no events): SM by SM, each CTA a bar from its first warp's start to its last
// warp's end, coloured by its wave (run::launch_waves), so that waves keeping together show as
// straight bands and waves drifting apart as bands that smear into a stream.
struct LaunchBar {
  uint64_t begin = 0, end = 0;  // ps from the launch's first start
  uint32_t cta = 0, wave = 0;
};
struct LaunchRow {
  uint32_t smid = 0;
  std::vector<LaunchBar> bars;  // in start order
};
struct LaunchMap {
  std::vector<LaunchRow> rows;  // by SM id
  run::LaunchWaves waves;
  std::string summary;          // CTAs, SMs, waves, the launch's and a CTA's time
  std::string spread;           // how far apart each telling wave's CTAs started
  std::string pace;             // how much the SMs differ in pace for good
  std::string partners;         // how many CTAs reading one panel started together ("" where unknown)
};

struct TimelineCompareData {
  bool available = false;                  // a recording is loaded
  std::string headline;                    // kernel, shape, device, CTAs, origin
  std::string clocks;                      // how each side's cycles became time
  double measured_ghz = 0.0, model_ghz = 0.0;
  std::string model_machine;               // "H100 SXM"
  std::string model_status;                // "" when the model's side is there, else why not
  std::vector<std::string> notes;          // a CTA the model did not trace, skipped passes, parameters
  uint64_t end_ps = 0;
  std::vector<CompareLane> lanes;          // per warp: measured, then the model's (when there)
  std::vector<KindDifference> kinds;       // K period, TMA issue to land, wait per stage, epilogue, lead
  double measured_wait_fraction = 0.0, model_wait_fraction = 0.0;
  std::vector<WaitDifference> waits;
  std::vector<SmRow> sms;                  // each recorded CTA by SM, then the model's CTA
  std::string schedule_note;               // what the SM rows can and cannot say
  // A recording of each warp's start and end only: its launch SM by SM, in place of the lanes,
  // the figures and the tiles (it has no events for them, and the model traces one CTA).
  std::optional<LaunchMap> launch;
  // The playback cursor's place on this axis: the open kernel is the recorded kernel at the
  // recorded shape and CTA; otherwise `cursor_note` says which run the cursor is in.
  bool cursor_follows = false;
  std::string cursor_note;
};

// The model's cycles per ns for a recording: the sustained clock of the machine its device names
// (machine_named_in), else of the machine the kernel's target runs on (`fallback` says so).
double model_clock_ghz(const run::TimelineDoc& measured, std::string* machine, bool* fallback = nullptr);

TimelineCompareData timeline_compare_data(const RecordedTimeline& r, const LoadedKernel* open);
// Built once per recording, model and open kernel.
const TimelineCompareData& timeline_compare_cached(AppState& app);

// The cursor (a modeled cycle of the open kernel) on the comparison's axis, in ps; nullopt when
// the cursor is in another run.
std::optional<uint64_t> compare_cursor_ps(const TimelineCompareData& d, uint64_t cycle);
// The modeled cycle of a click at `ps` (for seeking the playback).
uint64_t compare_cycle_at(const TimelineCompareData& d, uint64_t ps);
// The request that opens the recorded kernel at its shape, build and CTA, so the cursor follows.
run::SimRequest recorded_request(const RecordedTimeline& r);
// Whether `open` is that run (kernel, shape, build parameters, mistakes, CTA).
bool is_recorded_run(const LoadedKernel* open, const RecordedTimeline& r);

// The legend: the lanes' states and ticks, and which lane is the model's.
enum class CompareMark { state, tma_issue, store, k_pass, model_lane, skipped };
struct CompareLegendItem {
  std::string name;
  CompareMark mark = CompareMark::state;
  WarpActivity activity = WarpActivity::ready;
};
const std::vector<CompareLegendItem>& compare_legend();

// "2107" or "-": a figure as the CLI prints it.
std::string cycles_text(const run::TimelineFigure& f);

nlohmann::json describe_timeline_compare(AppState& app);

struct TimelineCompareCache {
  uint64_t generation = 0;
  const void* model = nullptr;
  const void* kernel = nullptr;
  std::shared_ptr<const TimelineCompareData> data;
};

}  // namespace gs::gui
