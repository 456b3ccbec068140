// The coalescing view's data: the global access at the playback cursor (ld/st.global or a
// cp.async's source) as the model recorded it, lane by lane, with the 32-byte sectors and
// 128-byte lines the warp's addresses touch next to the ideal: the bytes the lanes need,
// rounded up to whole sectors. A coalesced warp reading 32 consecutive floats needs 128 bytes
// and touches 4 sectors of one line; the same warp reading one float from each of 32 rows
// touches 32 sectors (1024 bytes moved for 128 used).
//
// Every number comes from the model's record (model::GlobalAccess: each lane's address and the
// sectors it counted); nothing here knows which kernel runs.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model/trace.hpp"
#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;

inline constexpr uint32_t kSectorBytes = 32, kLineBytes = 128;

// One 128-byte line the warp touches: which of its 4 sectors, and which of its 32 words each
// lane asked for (lane + 1 in words[w], 0: no lane; the lowest lane where several share it).
struct CoalescingLine {
  uint64_t addr = 0;                 // the line's first byte
  uint8_t sector_mask = 0;           // bit s: sector s (bytes 32 s .. 32 s + 31) touched
  std::array<uint8_t, 32> words{};   // per 4-byte word: the lane reading it + 1, or 0
  uint32_t lanes = 0;                // lanes whose access starts in this line
};

struct CoalescingAccess {
  bool valid = false;
  std::string note;                  // why there is nothing, or what the figures mean
  // With no access to show: the TMA loads issued by the cursor, which move the kernel's tiles
  // without lane addresses (the TMA pipeline view shows them).
  uint32_t tma_loads = 0;
  uint64_t tma_bytes = 0;
  uint32_t event = kNone;            // the trace event shown
  uint32_t inst = kNone;
  uint16_t warp = kNoWarp;
  bool store = false;
  uint32_t lane_bytes = 0;           // bytes per lane
  uint32_t mask = 0;                 // lanes that accessed global memory
  uint32_t active_lanes = 0;
  uint64_t first_addr = 0;
  std::array<uint64_t, 32> addr{};   // per lane (lanes in mask)
  bool far_lanes = false;            // a lane 4 GiB or more away (addresses not recorded)
  uint32_t sectors = 0;              // distinct sectors (the model's count)
  uint32_t lines = 0;                // distinct 128-byte lines
  uint32_t bytes_needed = 0;         // distinct bytes the lanes ask for (a broadcast counts once)
  uint32_t ideal_sectors = 0;        // ceil(bytes_needed / 32)
  uint32_t ideal_lines = 0;          // ceil(bytes_needed / 128)
  double efficiency = 0.0;           // bytes_needed / (sectors × 32)
  std::vector<CoalescingLine> line_list;  // in address order (the first 64)
  std::string verdict;               // "32 sectors for 128 bytes: 8× the ideal 4"
};

// The global access at or before `position`: the selected warp's when `warp` is not kNoWarp,
// else any warp's.
CoalescingAccess coalescing_at(const LoadedKernel& k, uint32_t position, uint16_t warp = kNoWarp);
// The figures of one recorded access (exposed for tests).
CoalescingAccess coalescing_of(const model::GlobalAccess& g);

nlohmann::json describe_coalescing(AppState& app);

}  // namespace gs::gui
