// Data derived from the kernel on screen, computed once per kernel on the UI thread (PTX
// tokens, warp timelines) and kept in the kernel's own `derived` slots, so it goes with the
// kernel. One slot per derived type.
#pragma once

#include <memory>
#include <typeindex>

#include "gui/core/session.hpp"

namespace gs::gui {

template <typename T, typename Build>
const T& cached_for_kernel(const std::shared_ptr<const LoadedKernel>& k, Build build) {
  static const T empty{};  // immutable: what views show with no kernel open
  if (!k) return empty;
  std::shared_ptr<const void>& slot = k->derived[std::type_index(typeid(T))];
  if (!slot) slot = std::make_shared<const T>(build(*k));
  return *static_cast<const T*>(slot.get());
}

}  // namespace gs::gui
