// The prepared data of the TMA pipeline view: the ring of stages with their full (and empty)
// mbarriers, the transfers into each stage, which warps wait on which barrier, and the
// issue -> complete timeline of every TMA transfer. No ImGui. A kernel with a cp.async ring
// (Ampere) gets that ring in the same view: gui/core/cp_async_ring.hpp.
//
// Stages come from the kernel's declared mbarrier arrays (Builder::mbarriers): barrier i of
// the `full` array and barrier i of the `empty` array are stage i. A transfer belongs
// to the stage whose full barrier it completes (TmaTransfer::mbar), so the tiles of a stage are
// whatever its transfers write — nothing here assumes a naming scheme for tiles. A traced
// cluster has a ring per CTA (its barriers are its own: Snapshot::mbarrier_at by rank), and a
// multicast transfer fills the stage of every CTA it writes (TmaTransfer::cta_mask).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;
struct Snapshot;

struct BarrierWaiter {
  uint16_t warp = 0;
  uint32_t parity = 0;
  uint64_t since_cycle = 0;
  std::string label;  // the warp as every view names it (warp_label: "1.5" in a cluster)
};

struct BarrierView : model::MbarrierPhase {  // the phase state at the cursor
  uint32_t addr = 0;
  std::string name;           // "full", "full[2]", "empty[0]"
  bool initialized = false;   // mbarrier.init has run at the cursor
  uint32_t parity = 0;        // phase & 1: the parity a waiter for the current phase passes
  uint32_t flips = 0;
  std::vector<BarrierWaiter> waiters;
};

enum class TransferState : uint8_t { future, in_flight, done };
const char* transfer_state_name(TransferState s);

struct TransferView {
  uint32_t index = 0;         // into trace.tma
  std::string map;            // the tensor-map parameter's name
  std::vector<int32_t> coords;
  uint32_t smem_dst = 0;
  std::string dst_name;       // the allocation written
  uint32_t bytes = 0;
  std::string swizzle;
  bool store = false;
  uint32_t mbar = 0;
  uint64_t issue_cycle = 0, complete_cycle = 0;
  TransferState state = TransferState::future;
  uint32_t stage = kNone;     // the issuing CTA's stage (index into TmaPipeline::stages)
  uint32_t cta = 0;           // the issuing CTA's rank
  uint32_t cta_mask = 1;      // the ranks it writes (a multicast: several)
  std::string ctas_text;      // in a traced cluster: "rank 1 -> ranks 0, 1"; else empty
  // Where the view's timeline draws it: the lane of its tensor map (TmaPipeline::lanes) and a
  // row in it where no other transfer of the lane is in flight at the same time, so bars (and
  // the coordinates written in them) never cover each other.
  uint32_t lane = 0, row = 0;
};

struct StageView {
  uint32_t index = 0;
  uint32_t cta = 0;                      // the rank of the CTA whose ring it is (0 without clusters)
  std::optional<BarrierView> full, empty;
  std::vector<std::string> tiles;        // allocations its transfers write
  std::vector<uint32_t> in_flight;       // indices into TmaPipeline::transfers
  uint32_t completed = 0;                // transfers into it done so far
};

struct TmaPipeline {
  uint32_t ctas = 1;                     // traced CTAs: a ring each (the CTAs of the traced cluster)
  std::vector<StageView> stages;         // by CTA rank, then stage
  std::vector<TransferView> transfers;   // every transfer of the trace, in issue order
  std::vector<std::string> lanes;        // the tensor maps, in order of first use
  std::vector<uint32_t> lane_rows;       // rows each lane needs (its most transfers at once)
  uint64_t cycle = 0, end_cycle = 0;
  uint32_t in_flight = 0, completed = 0;
  std::vector<BarrierView> other_barriers;  // barriers not tied to a stage
};

// The pipeline at a snapshot. Cheap enough per frame for the ladder's traces (transfers are
// few: two per K-block), but the view caches it by (kernel, position) anyway.
TmaPipeline tma_pipeline(const LoadedKernel& k, const Snapshot& s);
// Fills the transfers' lanes and rows (tma_pipeline calls it): first-fit, in issue order, each
// transfer in the lowest row whose last transfer completed by its issue.
void assign_transfer_rows(TmaPipeline& p);

nlohmann::json tma_pipeline_json(const TmaPipeline& p);

}  // namespace gs::gui
