// Guided stops: the moments of the traced run that show what a step teaches — its first TMA
// load, the first wrap of its ring (empty[0] completing a phase), its first bank conflict, its
// first wgmma — found from the model's trace events, never by instruction index, so they
// follow the kernel, its shape and a mistake switched on. Which ones a step gets follows the
// views it declares its lesson in (KernelInfo::focus_views): a step whose lesson is the TMA
// pipeline stops at its TMA and ring events, one whose lesson is shared memory at its first
// conflict. The Lesson view lists them and steps from stop to stop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gui/core/session.hpp"

namespace gs::gui {

struct GuidedStop {
  std::string name;    // "the ring wraps: empty[0] completes its first phase"
  uint32_t event = 0;  // index into the trace's events
};

// The stops of the loaded kernel for these focus views, in event order, one per name.
std::vector<GuidedStop> guided_stops(const LoadedKernel& k, const std::vector<std::string>& focus_views);
// guided_stops of the kernel for its own step's focus views, made once per loaded kernel (its
// derived slots; UI thread only).
const std::vector<GuidedStop>& step_stops(const LoadedKernel& k);
// The event of the first stop after `position` (forward) or the last before it; nullopt: none.
std::optional<uint32_t> next_stop(const std::vector<GuidedStop>& stops, uint32_t position, bool forward);

nlohmann::json stops_json(const std::vector<GuidedStop>& stops);

}  // namespace gs::gui
