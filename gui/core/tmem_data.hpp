// The tensor-memory view's data: one CTA's TMEM (128 lanes × 512 columns of 32 bits, facts
// §9.1) at the playback cursor, from the model's tmem_op records alone (trace.hpp, TmemOp):
//   * the lanes × columns picture: which columns are allocated, where the MMAs accumulate, which
//     parts are complete (their commit landed) and which the epilogue has read;
//   * the lane quarters: warp w may touch only lanes 32·(w%4) .. +31 (facts §9.3), with every
//     tcgen05.ld/st that left its quarter flagged;
//   * the allocation state over time (columns allocated, as a step function);
//   * the MMA issue → commit → barrier timeline: each commit with the MMAs it tracks (the
//     issuing thread's MMAs since its previous commit) and the barrier it arrives on.
// A kernel without tcgen05 has no records: `used` is false and the view says so.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/layout/op_traits.hpp"
#include "gui/core/colors.hpp"
#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;
struct Snapshot;

inline constexpr uint32_t kTmemLanes = 128, kTmemColumns = 512;
inline constexpr uint32_t kTmemQuarterLanes = layout::TmemAccessRule::kQuarterLanes;
inline constexpr uint32_t kTmemColumnBlock = 8;  // the picture's column granularity (the smallest MMA N)
inline constexpr uint64_t kTmemNever = std::numeric_limits<uint64_t>::max();

// One tcgen05.alloc and its dealloc.
struct TmemAllocation {
  uint32_t column = 0, columns = 0;
  uint16_t warp = 0;                 // the allocating warp (trace warp)
  uint32_t alloc_event = 0;          // event indices, for the cursor
  uint32_t dealloc_event = kNone;    // kNone: never freed
  uint64_t alloc_cycle = 0, dealloc_cycle = kTmemNever;
  uint16_t dealloc_warp = kNoWarp;
  // Allocated after event `position` (the cursor): allocated by then and not yet freed.
  bool live_at(uint32_t position) const {
    return alloc_event <= position && (dealloc_event == kNone || dealloc_event > position);
  }
};

// One tcgen05.mma into this CTA's TMEM, and the commit that tracks it.
struct TmemMma {
  uint32_t op = 0;                   // into trace.tmem
  uint32_t event = 0;
  uint16_t warp = 0;
  uint32_t lane = 0, column = 0, lanes = 0, columns = 0;
  uint64_t issue_cycle = 0, complete_cycle = 0;
  uint32_t commit = kNone;           // into TmemData::commits; kNone: never committed
  bool overwrite = false;            // it started a sum (D = A·B)
};

struct TmemCommit {
  uint32_t op = 0;                   // into trace.tmem
  uint32_t event = 0;
  uint16_t warp = 0;
  uint32_t mbar = 0;
  std::string barrier;               // "empty[2]", "tmem_full"
  uint16_t cta_mask = 0;             // the ranks whose barrier it arrives on
  uint64_t issue_cycle = 0, arrive_cycle = 0;
  std::vector<uint32_t> mmas;        // into TmemData::mmas: what it waits for
};

// One tcgen05.ld or tcgen05.st of a warp.
struct TmemAccess {
  uint32_t op = 0, event = 0;
  uint16_t warp = 0;                 // trace warp
  uint32_t quarter = 0;              // the lane quarter the op traits allow its warp (as recorded)
  bool store = false;
  uint32_t lane = 0, column = 0, lanes = 0, columns = 0;
  uint64_t cycle = 0;
  bool outside_quarter = false;      // touched lanes outside that quarter (the model's verdict)
  bool before_complete = false;      // an MMA into these columns had not completed yet
};

// A warp's release of the columns it read (the model's release record: its first mbarrier
// arrive or bar.sync after the reads).
struct TmemRelease {
  uint32_t event = 0;
  uint16_t warp = 0;                 // trace warp
  uint32_t lane = 0, column = 0, lanes = 0, columns = 0;
  uint64_t cycle = 0;
};

// An accumulator: a column range into which an MMA started a sum (D = A·B: enable_input_d
// false), as the model recorded its MMAs. A kernel that keeps two (step 23's double buffer)
// has two; nothing here knows how many a kernel means to have.
struct TmemAccumulator {
  uint32_t lane = 0, column = 0, lanes = 0, columns = 0;
  std::vector<uint32_t> starts;      // into TmemHistory::mmas: the MMAs that started a sum in it
};

// Who holds an accumulator at the cursor, from the records of its latest sum: the MMA thread
// while the MMAs into it run (until the commit covering the last of them arrived), the readers
// once it arrived, while they read it, and nobody once every reader released it (the MMA thread
// may start the next sum).
enum class TmemOwner : uint8_t { unused, mma, ready, readers, released };
const char* tmem_owner_name(TmemOwner o);

struct TmemAccumulatorState {
  TmemOwner owner = TmemOwner::unused;
  uint32_t sums = 0;                 // sums started in it up to the cursor (the current one's number)
  uint16_t mma_warp = kNoWarp;       // the warp of the latest MMA into it
  std::vector<uint16_t> readers;     // trace warps that read the current sum, in order
  std::vector<uint16_t> released;    // of those, the ones that released it since
  std::string text;                  // "acc 1, columns 256-511: sum 2, read by w0 w1 (released by w0)"
};
// The owner's colour by theme: the cell state it corresponds to (tmem_cell_rgb).
Rgb tmem_owner_rgb(TmemOwner o, bool dark);

// Everything about the CTA's TMEM over the whole run; the cursor picks a moment of it.
struct TmemHistory {
  uint32_t rank = 0;                 // the CTA's rank in its cluster (0 without clusters)
  std::vector<TmemAllocation> allocations;
  std::vector<TmemMma> mmas;
  std::vector<TmemCommit> commits;
  std::vector<TmemAccess> accesses;
  std::vector<TmemRelease> releases;
  std::vector<TmemAccumulator> accumulators;  // by first column
  std::vector<std::pair<uint64_t, uint32_t>> allocated_over_time;  // (cycle, columns allocated from then on)
  uint32_t peak_columns = 0;
  uint64_t end_cycle = 0;
  bool relinquished = false;         // the permit was given up
  bool used() const { return !allocations.empty() || !mmas.empty() || !accesses.empty(); }
};

// What one lane quarter × 8-column block holds at the cursor, in increasing order of progress.
enum class TmemCellState : uint8_t { free, allocated, accumulating, complete, read };
const char* tmem_cell_state_name(TmemCellState s);
// The state's colour by theme (the view's cells and legend, and the picture's).
Rgb tmem_cell_rgb(TmemCellState s, bool dark);
// "w1 w5": a quarter's readers as the view's tooltip and the picture write them.
std::string tmem_warps_text(const std::vector<uint16_t>& warps);

struct TmemQuarter {
  uint32_t index = 0, lane0 = 0;
  std::vector<uint16_t> readers;     // trace warps whose ld/st touched it so far, in order
  std::vector<uint16_t> wrong_readers;  // of those, warps whose quarter it is not
};
// "lanes 32-63": a quarter's lanes.
std::string tmem_quarter_lanes_text(const TmemQuarter& q);

struct TmemState {
  uint64_t cycle = 0;
  uint32_t position = 0;
  uint32_t allocated_columns = 0;
  std::vector<TmemCellState> cells;  // 4 quarters × (512 / 8) blocks, quarter-major
  std::vector<TmemQuarter> quarters;
  uint32_t mmas_issued = 0, mmas_in_flight = 0, commits_arrived = 0;
  uint32_t latest_mma = kNone, latest_commit = kNone, latest_access = kNone;  // into the history's lists
  std::vector<TmemAccumulatorState> accumulators;  // as TmemHistory::accumulators
  TmemCellState cell(uint32_t quarter, uint32_t block) const { return cells[quarter * (kTmemColumns / kTmemColumnBlock) + block]; }
};

// What the view remembers: which CTA of a traced cluster it shows.
struct TmemViewOptions {
  int rank = -1;  // -1: the CTA the run was asked to trace
};

// The history of rank `rank`'s TMEM in the trace.
TmemHistory tmem_history(const LoadedKernel& k, uint32_t rank);
// One history per traced CTA (by rank), built once per kernel (kernel_cache.hpp).
struct TmemHistories {
  std::vector<TmemHistory> ranks;
};
const TmemHistories& tmem_histories_cached(const std::shared_ptr<const LoadedKernel>& k);
// The history the options pick (the traced CTA's when the rank is not in the trace); null
// without a kernel.
const TmemHistory* tmem_history_shown(const std::shared_ptr<const LoadedKernel>& k, const TmemViewOptions& o);
// The state after event `s.position`.
TmemState tmem_state(const TmemHistory& h, const Snapshot& s);

nlohmann::json tmem_json(const TmemHistory& h, const TmemState& s);
nlohmann::json describe_tmem(AppState& app);

}  // namespace gs::gui
