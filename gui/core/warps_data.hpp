// The warps view's prepared data: one row per warp of the traced CTA at the playback position
// (role, state in words, current and next instruction, instructions issued), each warp's
// history of states for the timeline bar, and the kernel's register budget.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gui/core/occupancy.hpp"
#include "gui/core/playback.hpp"

namespace gs::gui {

struct AppState;

struct WarpRow {
  uint16_t warp = 0;         // trace warp (numbered across a traced cluster's CTAs)
  uint32_t cta_rank = 0;     // its CTA's rank in the cluster, and its warp in that CTA
  uint32_t cta_warp = 0;
  std::string label;         // "3", or "1.3" (CTA rank 1, warp 3) when a cluster is traced
  uint32_t reg_limit = 0;    // registers per thread after setmaxnreg (0: the launch's)
  std::string role;
  WarpActivity activity = WarpActivity::not_started;
  std::string state;       // "waiting on empty[0] parity 1", "bar.sync 0", "ready", ...
  uint32_t inst = kNone;
  std::string inst_text;
  uint32_t next_inst = kNone;
  std::string next_text;
  uint64_t issued = 0;
  uint64_t since_cycle = 0;  // when the current state began
  uint32_t mma_in_flight = 0;
};

// The state in words, with the barrier numbered as in the other views.
std::string warp_state_text(const ir::Kernel& kernel, const WarpSnapshot& w, const Snapshot& s);
std::vector<WarpRow> warp_rows(const LoadedKernel& k, const Snapshot& s);
// How views name a trace warp: "3", or "1.3" (CTA rank 1, its warp 3) when a cluster is traced.
std::string warp_label(const model::Trace& t, uint32_t warp);

// A warp's state from `begin` until the next segment's begin.
struct ActivitySegment {
  uint64_t begin = 0;
  WarpActivity activity = WarpActivity::not_started;
};
// [warp] -> the warp's states over the whole trace, in cycle order, adjacent segments distinct.
using WarpTimelines = std::vector<std::vector<ActivitySegment>>;
WarpTimelines warp_timelines(const LoadedKernel& k);
// warp_timelines of the kernel on screen, rebuilt only when the kernel changes.
const WarpTimelines& warp_timelines_cached(const std::shared_ptr<const LoadedKernel>& k);
// Cycles a warp spent ready and waiting (any wait) in [from, to).
struct ReadyWaiting {
  uint64_t ready = 0, waiting = 0;
};
ReadyWaiting ready_waiting(const std::vector<ActivitySegment>& timeline, uint64_t from, uint64_t to);
bool is_waiting(WarpActivity a);

// The kernel's registers: virtual registers by type as the builder declared them, and what the
// hardware allows per thread at this block size.
struct RegisterBudget {
  struct TypeCount {
    std::string type;   // "u32", "b64", "pred", ...
    uint32_t count = 0;
  };
  std::vector<TypeCount> by_type;
  uint32_t words32 = 0;        // 32-bit register words the virtual registers need (64-bit: 2)
  uint32_t predicates = 0;
  uint32_t threads = 0;        // per CTA
  uint32_t max_regs = 0;       // .maxnreg, 0 when unset
  uint32_t per_thread_limit = 0;  // min(255, register file / threads per SM slice)
  std::string summary;         // "65536 regs/SM / 128 threads = 512 (cap 255)"
  uint32_t virtual_regs = 0;   // the builder's named values (Kernel::regs), before allocation
  std::vector<uint32_t> setmaxnreg;  // the per-thread counts setmaxnreg instructions set, ascending
  uint32_t allocated = 0;      // physical registers per thread (ptxas -v when known), 0: not known
  std::string allocated_source;  // "ptxas -v for sm_90a", ".maxnreg", ...
  // One line in the Warps view: the allocated figure first when known, setmaxnreg's, then
  // the virtual count labelled as what it is (names before allocation, not a demand).
  std::string text;
};
// Hopper and Blackwell SMs: at most 255 registers per thread (CUDA C++ Programming Guide,
// table of compute-capability limits); the register file is occupancy.hpp's kRegistersPerSm.
inline constexpr uint32_t kMaxRegistersPerThread = 255;
// `allocated` (0: not known) and its source come from the occupancy (ptxas -v when installed).
RegisterBudget register_budget(const ir::Kernel& kernel, uint32_t allocated = 0, std::string allocated_source = {});

}  // namespace gs::gui
