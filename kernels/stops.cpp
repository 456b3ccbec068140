#include "kernels/stops.hpp"

#include <array>

namespace gs::kernels {

namespace {

constexpr std::array<StopKindInfo, size_t(StopKind::count_)> kKinds = {{
#define STOP(id, name, label, sentence) {StopKind::id, name, label, sentence},
#include "kernels/stops.def"
#undef STOP
}};

}  // namespace

const StopKindInfo& stop_kind_info(StopKind k) { return kKinds[size_t(k)]; }

std::span<const StopKindInfo> stop_kinds() { return kKinds; }

std::optional<StopKind> find_stop_kind(std::string_view name) {
  for (const StopKindInfo& k : kKinds)
    if (k.name == name) return k.kind;
  return std::nullopt;
}

}  // namespace gs::kernels
