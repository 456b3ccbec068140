// Data derived from the kernel on screen, computed once per kernel on the UI thread (PTX
// tokens, warp timelines). The kernel changes rarely; the weak_ptr tells a new kernel apart
// from an old one that happened to reuse its address. One slot per derived type.
#pragma once

#include <memory>

#include "gui/core/session.hpp"

namespace gs::gui {

template <typename T, typename Build>
const T& cached_for_kernel(const std::shared_ptr<const LoadedKernel>& k, Build build) {
  struct Slot {
    std::weak_ptr<const LoadedKernel> owner;
    const LoadedKernel* raw = nullptr;
    T data;
  };
  static Slot slot;
  static const T empty{};
  if (!k) return empty;
  if (slot.raw != k.get() || slot.owner.expired()) {
    slot.data = build(*k);
    slot.owner = k;
    slot.raw = k.get();
  }
  return slot.data;
}

}  // namespace gs::gui
