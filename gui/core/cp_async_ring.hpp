// The cp.async ring of the pipeline view (Ampere steps): every warp's cp.async groups over the
// traced CTA's run, each with the stages its copies fill and the wait that retires it, and
// which are in flight at the playback cursor. All from the model's records: the shared side of
// each cp.async (an smem_access event: the bytes each lane writes), the warp's commit_group
// and wait events (EventKind::cp_async_commit / cp_async_wait, with the groups they leave),
// and the kernel's declared operand stages (Builder::operand_stages: allocation + stage of an
// address). No ImGui.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gui/core/session.hpp"

namespace gs::gui {

// The bytes a group writes into one stage of one declared allocation.
struct StageFill {
  uint32_t alloc = kNone;   // index into kernel.smem (kNone: no allocation holds the address)
  uint32_t stage = 0;       // the allocation's stage (0 for an unstaged one)
  uint32_t bytes = 0;
};

struct CpAsyncGroup {
  uint16_t warp = 0;               // trace warp
  uint32_t number = 0;             // the warp's n-th committed group (0-based)
  std::vector<uint32_t> copy_events;  // the smem_access event of each of its cp.async
  uint32_t commit = kNone;         // the cp_async_commit event that closed it
  uint32_t retire = kNone;         // the cp_async_wait event that retired it (kNone: never waited for)
  uint32_t wait_inst = kNone;      // that wait's instruction
  uint32_t bytes = 0;
  std::vector<StageFill> fills;    // in the order the copies wrote them
  std::string stages_text;         // "sA[1] sB[1]"
};

struct CpAsyncRing {
  std::vector<CpAsyncGroup> groups;  // in commit order
  uint32_t stages = 0;               // the most stages of any allocation the copies write
};

// Built once per kernel (kernel_cache.hpp); empty for a kernel without cp.async.
const CpAsyncRing& cp_async_ring(const std::shared_ptr<const LoadedKernel>& k);
CpAsyncRing build_cp_async_ring(const LoadedKernel& k);

// One warp at the cursor: its groups in flight (committed, not yet retired), oldest first,
// and the copies it issued since its last commit.
struct CpAsyncWarpAt {
  uint16_t warp = 0;
  std::vector<uint32_t> in_flight;  // indices into CpAsyncRing::groups
  uint32_t uncommitted = 0;         // cp.async instructions not yet in a group
  uint32_t retired = 0;             // groups retired so far
};
std::vector<CpAsyncWarpAt> cp_async_ring_at(const CpAsyncRing& ring, uint32_t position);

nlohmann::json cp_async_ring_json(const LoadedKernel& k, const CpAsyncRing& ring, uint32_t position);

}  // namespace gs::gui
