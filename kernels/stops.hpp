// The kinds of guided stop a step declares (kernels/stops.def): named moments of its own traced
// run — the first wgmma, the ring's first wrap, the first bank conflict, the tail where the
// pipeline drains — each with the sentence the learner reads there. The kernel declares which
// it stops at (KernelInfo::stops); the app finds each from the model's trace events
// (gui/core/guided_stops.hpp), so nothing here knows instruction indices.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gs::kernels {

enum class StopKind : uint8_t {
#define STOP(id, name, label, sentence) id,
#include "kernels/stops.def"
#undef STOP
  count_,
};

struct StopKindInfo {
  StopKind kind;
  std::string_view name;      // "ring-wraps"
  std::string_view label;     // "ring wraps"
  std::string_view sentence;  // what the learner reads at the stop
};
const StopKindInfo& stop_kind_info(StopKind k);
std::span<const StopKindInfo> stop_kinds();
std::optional<StopKind> find_stop_kind(std::string_view name);

// A stop a step declares: a kind, and the mistake that makes it happen when it shows only with
// one ("" for a stop of the step as it ships), e.g. the bank conflict of unswizzled-ldmatrix.
struct StepStop {
  StopKind kind = StopKind::first_global_load;
  std::string mistake;
};

}  // namespace gs::kernels
