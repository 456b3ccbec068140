// Guided stops: the moments of the traced run that show what a step teaches — its first TMA
// load, the first wrap of its ring (empty[0] completing a phase), its first bank conflict, its
// first wgmma, the tail where the pipeline drains. Each step declares the kinds it stops at
// (KernelInfo::stops, kernels/stops.def); each kind is found here from the model's trace
// events, never by instruction index, so it follows the kernel's shape and parameters. A stop
// declared with a mistake is looked for only when that mistake is switched on. The transport
// steps from stop to stop (StepUnit::stop) and the Lesson view lists them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gui/core/session.hpp"
#include "kernels/stops.hpp"

namespace gs::gui {

struct GuidedStop {
  kernels::StopKind kind = kernels::StopKind::first_global_load;
  std::string name;      // the kind's name, "ring-wraps"
  std::string label;     // "ring wraps"
  std::string sentence;  // what the learner reads there
  std::string mistake;   // the mistake it shows, "" for the step as it ships
  uint32_t event = 0;    // index into the trace's events
};

// The first event of the kernel's trace that is a stop of this kind (the last, for a kind
// about the end such as pipeline-drains); nullopt when the run has none.
std::optional<uint32_t> find_stop(const LoadedKernel& k, kernels::StopKind kind);

// The stops `declared` that this run has, in event order: those of the step as it ships, and
// those of the mistakes switched on in its request. A declared stop the run lacks is left out
// (step_stops_missing says which).
std::vector<GuidedStop> guided_stops(const LoadedKernel& k, std::span<const kernels::StepStop> declared);
// guided_stops of the kernel for its own step's declarations, made once per loaded kernel (its
// derived slots; UI thread only).
const std::vector<GuidedStop>& step_stops(const LoadedKernel& k);
// The names of the stops the step declares for this run (its mistakes included) that were not
// found in its trace: empty for every step at every valid shape (the tests check it).
std::vector<std::string> step_stops_missing(const LoadedKernel& k);
// The event of the first stop after `position` (forward) or the last before it; nullopt: none.
std::optional<uint32_t> next_stop(const std::vector<GuidedStop>& stops, uint32_t position, bool forward);
// The stop the cursor is at or last passed, or null before the first.
const GuidedStop* stop_at(const std::vector<GuidedStop>& stops, uint32_t position);

nlohmann::json stops_json(const std::vector<GuidedStop>& stops);

}  // namespace gs::gui
