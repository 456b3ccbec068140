// What a timeline says, in numbers: per warp (K passes and their period, time waiting per wait
// instruction, the epilogue) and for the kernel (the K-iteration period, TMA issue to land, the
// consumers' wait per stage, the epilogue, how far the producer runs ahead). The same numbers
// come from a GPU's timeline and from the model's (the instrumented kernel run on the model),
// so `gemmscope timeline` can set them side by side.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/timeline_doc.hpp"

namespace gs::run {

// A median and a count, in SM cycles and in ns (ns = cycles / the document's clock).
struct TimelineFigure {
  double cycles = 0.0;
  double ns = 0.0;
  size_t samples = 0;
  bool known() const { return samples > 0; }
};

struct WaitSummary {
  ir::RecordKind kind = ir::RecordKind::mbar_wait_begin;  // the begin kind
  uint32_t inst = 0, line = 0;
  std::string file;
  size_t count = 0;
  double total_cycles = 0.0;
};

struct WarpSummary {
  uint32_t cta = 0, warp = 0, smid = 0;
  std::string role;            // the roles it entered, "producer" or "none"
  size_t k_passes = 0;
  TimelineFigure k_period;     // median time between K passes
  std::vector<WaitSummary> waits;
  TimelineFigure epilogue;     // median time of its runs of stores to C (see kernel_stats)
  double cycles = 0.0;         // its whole life
};

struct TimelineStats {
  // Median over the warps that do the math (consumers, else MMA issuers, else every warp).
  TimelineFigure k_period;
  // A producer's first TMA issue in K pass i to a consumer's first mbarrier wait end in its K
  // pass i (same CTA): the data's landing as the consumer saw it, an upper bound.
  TimelineFigure tma_issue_to_land;
  TimelineFigure consumer_wait;  // a consumer's mbarrier wait in its K loop, per wait (stage)
  // A run of stores to C, from the event before its first store (the last wait on the
  // accumulators) to its last store.
  TimelineFigure epilogue;
  // How far the producer's K pass i runs ahead of a consumer's K pass i.
  TimelineFigure producer_lead;
  double consumer_wait_fraction = 0.0;  // of the consumers' K-loop time, spent in mbarrier waits
};

// Where and when one CTA ran: its SM, its first warp's start and its last warp's end, in the
// events' ns (TimelineWarp::start_ns), from its finished warps.
struct CtaRun {
  uint32_t cta = 0, smid = 0;
  double start_ns = 0.0, end_ns = 0.0;
};
std::vector<CtaRun> cta_runs(const TimelineDoc& doc);  // by CTA id; CTAs with no finished warp left out
// A recording of each warp's start and end only (`--capacity 0`): no events, its CTAs' runs.
inline bool is_launch_only(const TimelineDoc& d) {
  return d.events.empty() && d.layout.capacity == 0 && !d.warps.empty();
}

// A whole launch's CTAs (cta_runs of a `timeline --ctas all --capacity 0` recording) in waves.
// The block scheduler hands out CTA ids in order, so with every CTA taking the same time the
// launch runs in waves of the CTAs resident at once (those started before the first CTA ended),
// each wave's CTAs starting together; where the SMs differ in pace the later waves' starts
// spread until the launch is a stream of CTAs starting at any time (docs/results/2026-12-04-grid:
// step 13 at 8192^3 behind 5-6 ring stages).
struct LaunchWaves {
  size_t ctas = 0, sms = 0, resident = 0, waves = 0;
  double first_ns = 0.0, last_ns = 0.0;  // the first start, the last end
  double median_run_ns = 0.0;            // T: the median CTA's run
  std::vector<uint32_t> wave;            // per run (cta_runs' order): its wave, id order / resident
  // Per wave: (p90 - p10) of its CTAs' starts over T; 0 while the waves keep together, about 1
  // once they are a stream. 0 for a wave of one CTA.
  std::vector<double> start_spread;
  // How much the SMs differ in pace for good: p90/p10 over the SMs of each one's mean CTA run, its
  // first and last CTA left out (they start or end the launch); 0 when no SM ran three CTAs.
  double pace_spread = 0.0;
  // With one tile per CTA in launch order (tiles_n known): of the CTAs that read the same B panel
  // (one tile row apart, ids tiles_n apart) and the same A panel (side by side in a tile row), the
  // share of pairs whose starts lie within 5% of T, so that the second finds the panel's K blocks
  // still in L2; -1 where not known.
  double b_partners_together = -1.0, a_partners_together = -1.0;
};
// `tiles_n`: the C tiles along N when CTA id i computes tile i (row-major), else 0.
LaunchWaves launch_waves(const std::vector<CtaRun>& runs, uint32_t tiles_n = 0);
// The recorded kernel's tiles along N where each of its CTAs computes one tile, the tile of its
// id (its declared output tiling, no persistent walk, as many CTAs as tiles); 0 otherwise.
uint32_t one_tile_per_cta_tiles_n(const TimelineDoc& doc);
// The waves that say how a launch's starts spread: 1, 2, 4, 8, 16, 24 and the last, those it has.
std::vector<size_t> telling_waves(size_t waves);
// "wave 1 0.001, wave 2 0.027, ...": the telling waves' start spreads, `decimals` after the point.
std::string wave_spreads_text(const LaunchWaves& w, int decimals);

// Above this many recorded warps the summary text gives the CTAs' runs in percentiles instead of
// a line a warp (a whole grid's recording, --ctas all).
inline constexpr size_t kWarpLinesMax = 256;

std::vector<WarpSummary> warp_summaries(const TimelineDoc& doc);
TimelineStats kernel_stats(const TimelineDoc& doc);
nlohmann::json timeline_stats_json(const TimelineStats& s);

// The per-warp summary and the kernel's figures as text; with `model`, the model's figures in a
// column beside the measured ones, with the ratio.
std::string timeline_summary_text(const TimelineDoc& doc, const TimelineDoc* model = nullptr);

}  // namespace gs::run
