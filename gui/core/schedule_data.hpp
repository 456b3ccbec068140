// The schedule view's data: the output tiles of C, each coloured by the CTA that wrote it and
// numbered in the order that CTA wrote its tiles, with the wave and tile quantization of the
// shape. It comes from the model's record of every store into C (model::CSchedule, tiled as the
// kernel declares: ir::OutputTiling), so it is exact for any kernel: a persistent CTA's walk
// over several tiles, a tile nobody wrote, a tile two CTAs wrote.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model/timing.hpp"
#include "gui/core/occupancy.hpp"
#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;

struct ScheduleCell {
  uint32_t row = 0, col = 0;        // tile coordinates (row block, column block)
  uint32_t cta = kNone;             // the first CTA (linear id) that wrote it; kNone: nobody
  uint32_t order = 0;               // which of that CTA's tiles it was (0: its first)
  uint32_t writers = 0;             // writes of this tile, all CTAs (1 is right; 0 or 2+ is a bug); the
                                    // CTAs of one cluster writing it side by side are one write
  uint32_t cluster_ctas = 0;        // CTAs of the writing cluster that stored into it (2 for a CTA pair)
  uint32_t wave = 0;                // the wave its CTA ran in (see ScheduleData::waves)
  uint64_t cycle = 0;               // its CTA's modeled cycle at its first store into it: when
  uint32_t answer = kNone;          // launch control: the answer (ScheduleData::answers) that gave
                                    // the tile to its CTA; kNone: the CTA's own tile
};

// One clusterlaunchcontrol.try_cancel answer of a launch-controlled grid, as the model recorded it
// (model::LaunchCancel), with the tile it handed the asker: the cancelled CTA's own tile by the
// launch order the kernel declares (ir::OutputTiling::walk: CTA i's first tile is walk[i]), and
// the asker's first store into that tile (from the model's tile visits).
struct ClcAnswer {
  uint32_t asker = 0;               // linear CTA id
  uint64_t issued = 0;              // the asker's cycle at the try_cancel
  uint64_t landed = 0;              // the asker's cycle when the 16-byte answer landed
  uint32_t cancelled = kNone;       // the cancelled CTA; kNone: "queue empty" (none left to cancel)
  uint32_t tile = kNone;            // the cancelled CTA's tile (kNone: queue empty, or no declared order)
  bool stored = false;              // the asker stored into that tile ...
  uint64_t stored_at = 0;           // ... first at this cycle
};

// One tile order a persistent kernel takes (its build parameter "order": kernels/tile_order.hpp)
// at the open kernel's shape: the kernel built with that order declares its walk, and the timing
// model counts the walk's bytes (timing::walk_traffic over timing::declared_gemm_facts) for
// waves as large as the open kernel's prediction's. The view only presents them.
struct OrderTraffic {
  uint32_t value = 0;   // the parameter's value
  std::string name;     // "row", "grouped", "hilbert"
  bool open = false;    // the open kernel's order
  model::timing::WalkTraffic traffic;
};

struct ScheduleData {
  bool available = false;           // false: nothing to draw, `note` says why
  bool whole_grid = false;          // the whole grid ran (else only the traced CTA's tiles are known)
  std::string note;                 // what the view says above the grid
  uint32_t tiles_m = 0, tiles_n = 0, tile_rows = 0, tile_cols = 0;
  uint32_t m = 0, n = 0;            // C's shape
  std::vector<ScheduleCell> cells;  // tiles_m × tiles_n, row-major
  // The CTAs that wrote more than one tile, each with its tiles in order (a persistent
  // kernel's walk): indices into cells.
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> paths;
  // The order a persistent kernel declares for its walk (ir::OutputTiling::walk): C's tiles in
  // the order its CTAs take them, round by round; the view draws it as one line through their
  // centres (the order's curve). Empty: the kernel declares none.
  std::vector<uint32_t> walk;
  // The tile orders the kernel takes, side by side (empty: it takes none); orders_note says at
  // which wave size, on which card, and why they tie where they do.
  std::vector<OrderTraffic> orders;
  uint64_t orders_concurrent = 0;   // tiles in flight at once (timing::concurrent_tiles)
  std::string orders_note;          // what the figures count, and at which shape and wave size
  std::string orders_line;          // the verdict in one line: which order reads least, or why they tie
  uint32_t ctas = 0;                // CTAs in the grid
  Occupancy occupancy;              // CTAs per SM by threads, shared memory, registers, CTA slots
  uint32_t ctas_per_sm = 0;         // co-resident CTAs per SM: occupancy.ctas_per_sm
  uint32_t sms = 0;
  uint32_t waves = 0;               // ceil(ctas / (sms × ctas_per_sm)), CTAs starting in linear order
  double wave_efficiency = 0.0;     // ctas / (waves × sms × ctas_per_sm): the last wave's idle SMs
  double tile_efficiency = 0.0;     // M·N / (tiles × tile area): work wasted on partial edge tiles
  uint64_t wasted_elements = 0;     // tiles × tile area - M·N: outputs computed outside C (idle threads)
  uint32_t unwritten = 0;           // tiles nobody wrote (whole grid only)
  std::string headline;             // "2×2 tiles of 64×64, 4 CTAs" ("1 CTA")
  std::string waves_text;           // "1 wave (132 SMs × 1), last 3% full"
  uint32_t written_twice = 0;       // tiles with two or more writes
  uint32_t overlapping_elements = 0;  // elements two CTAs of the traced cluster both wrote
  // A grid that hands out its tiles with clusterlaunchcontrol (step 24; model::CSchedule::cancels):
  // the tiles' CTAs and cycles are who took each tile when, and the view draws when.
  bool launch_control = false;
  uint32_t cancelled = 0;           // answers that cancelled a CTA (its tile went to the asker)
  uint32_t none_left = 0;           // answers "none left"
  uint64_t last_cycle = 0;          // the latest first-store cycle of any tile
  // The queue's answers in the order it gave them, and the CTAs that asked (ascending): the
  // view's lanes, each CTA's try_cancels, answers and first stores on one time axis to queue_end.
  std::vector<ClcAnswer> answers;
  std::vector<uint32_t> queue_ctas;
  uint64_t queue_end = 0;           // the latest cycle of any answer landing or first store
};

// The tile orders `info` takes (its "order" parameter; empty when it declares none) for the build
// `open` (its shape, mistakes and parameters; its own order marked), each built with that order
// and its declared walk counted by timing::walk_traffic for `concurrent` tiles at once on `card`.
// Throws kernels::ConfigError when a build is refused.
std::vector<OrderTraffic> tile_order_traffic(const kernels::KernelInfo& info, const kernels::GemmConfig& open,
                                             uint64_t concurrent, const model::timing::Machine& card);

// Built once per kernel (kernel_cache.hpp); an empty ScheduleData without a kernel.
const ScheduleData& schedule_data(const std::shared_ptr<const LoadedKernel>& kernel);
// The same without the cells, paths and verdicts: the occupancy and the waves only, cheap at any
// grid (the Problems view's wave advice needs no cell per tile: 4 M of them at 65536² in 32² tiles).
ScheduleData schedule_waves(const LoadedKernel& k);
nlohmann::json describe_schedule(AppState& app);

}  // namespace gs::gui
