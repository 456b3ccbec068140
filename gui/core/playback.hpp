// The state of the traced CTA at a playback position, derived from the trace by replaying its
// events: what each warp is doing, each mbarrier's phase and counts, the TMA transfers in
// flight, the latest shared-memory access and MMA. Views draw from a Snapshot; they never
// replay events themselves.
//
// Replaying from the start at every step would be O(trace) per frame, so a PlaybackIndex keeps
// a snapshot every kCheckpointEvery events and replays at most that many events per seek.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gui/core/session.hpp"

namespace gs::gui {

enum class WarpActivity : uint8_t {
  not_started,     // no instruction issued yet
  ready,           // issued its latest instruction and is not blocked
  waiting_mbarrier,  // try_wait found the phase incomplete (mbar, parity)
  waiting_bar,     // bar.sync, waiting for the other warps (bar_id)
  waiting_wgmma,   // wgmma.wait_group with groups still in flight
  exited,          // issued exit/ret (or the CTA ended with the warp not blocked)
  deadlocked,      // the CTA ended while the warp was still blocked: what it waited for never came
};
const char* warp_activity_name(WarpActivity a);

// One warp at the cursor, as playback reconstructs it from the trace (the model's own
// model::WarpState is the live scheduler state; this is what the views show).
struct WarpSnapshot {
  uint16_t warp = 0;
  WarpActivity activity = WarpActivity::not_started;
  uint32_t inst = kNone;       // the latest instruction it issued
  uint32_t next_inst = kNone;  // the next instruction it will issue (kNone: none)
  uint32_t mask = 0;           // active lanes of the latest instruction
  uint32_t mbar = kNone;       // waiting_mbarrier: shared address of the barrier
  uint32_t parity = 0;         //                   the parity it waits for
  uint32_t bar_id = 0;         // waiting_bar: the named barrier
  uint64_t since_cycle = 0;    // when it entered this activity
  WarpActivity blocked_on = WarpActivity::not_started;  // deadlocked: the wait it never left
  uint64_t issued = 0;         // warp-instructions issued so far
  uint32_t k_passes = 0;       // passes of the kernel's K loops started so far (LoadedKernel::k_loops)
  uint32_t mma_in_flight = 0;  // wgmma groups committed and not yet complete
  uint32_t mma_uncommitted = 0;  // wgmmas issued since the last commit_group
  uint32_t mma_wait_keep = 0;  // waiting_wgmma: the N of wait_group N (groups it may leave in flight)
  // The role its kernel declares for the code it runs now (model role_enter events;
  // WarpRole::none before it enters a declared region).
  ir::WarpRole role = ir::WarpRole::none;
  // Registers per thread after the warp's last setmaxnreg (model reg_limit events); 0 before
  // any: what the launch gave it.
  uint32_t reg_limit = 0;
};

// A barrier at the cursor: the model's phase state (model::MbarrierPhase) as of the last event
// on it, and what playback adds.
struct MbarrierState : model::MbarrierPhase {
  uint32_t addr = 0;           // shared byte address
  uint8_t cta = 0;             // the rank of the traced CTA whose barrier it is (Event::cta)
  uint32_t index = 0;          // #i in the views: order of first appearance
  bool initialized = false;
  uint32_t flips = 0;          // phase flips seen so far
  std::vector<uint16_t> waiting_warps;
};

struct Snapshot {
  uint32_t position = 0;       // event index the snapshot is *after* (events [0, position])
  uint64_t cycle = 0;
  uint64_t warp_instructions = 0;
  std::vector<WarpSnapshot> warps;
  std::vector<MbarrierState> mbarriers;    // sorted by (cta, addr): each CTA of a cluster has its own
  std::vector<uint32_t> tma_in_flight;     // indices into trace.tma: issued, not complete
  uint32_t tma_completed = 0;
  uint32_t last_smem = kNone;              // event index of the latest smem_access
  uint32_t last_tma = kNone;               // event index of the latest tma_issue/complete
  uint32_t last_mma = kNone;               // event index of the latest wgmma_issue
  uint32_t last_hazard = kNone;            // event index of the latest hazard

  // The barrier at `addr` of the traced cluster's CTA of rank `cta` (0 without clusters).
  const MbarrierState* mbarrier_at(uint32_t addr, uint32_t cta = 0) const;
};

// Snapshots of one loaded kernel. Cheap to query repeatedly at the same position.
class PlaybackIndex {
 public:
  static constexpr uint32_t kCheckpointEvery = 4096;
  explicit PlaybackIndex(std::shared_ptr<const LoadedKernel> kernel);
  const LoadedKernel& kernel() const { return *kernel_; }
  // The state after event `position` (clamped to the trace).
  const Snapshot& at(uint32_t position);

 private:
  std::shared_ptr<const LoadedKernel> kernel_;
  std::vector<Snapshot> checkpoints_;
  std::vector<std::vector<uint32_t>> per_warp_;  // warp_inst event indices of each warp
  Snapshot current_;
  bool has_current_ = false;
};

// Replays events (from, to] onto a snapshot. Exposed for tests.
void replay(const LoadedKernel& k, Snapshot& s, uint32_t from_exclusive, uint32_t to_inclusive);
Snapshot initial_snapshot(const LoadedKernel& k);

// How the transport steps. Each returns the new position, or nullopt when there is nothing
// further in that direction.
enum class StepUnit : uint8_t {
  event,             // any event
  instruction,       // the next warp-instruction of any warp
  warp_instruction,  // the next warp-instruction of the selected warp
  k_iteration,       // the next pass of a K loop by the selected warp (LoadedKernel::k_warp)
  barrier_phase,     // the next mbarrier phase flip
  stop,              // the next of the step's guided stops (guided_stops.hpp: KernelInfo::stops)
};
const char* step_unit_name(StepUnit u);
std::optional<uint32_t> step(const LoadedKernel& k, uint32_t position, StepUnit unit, bool forward,
                             uint16_t warp = kNoWarp);

}  // namespace gs::gui
