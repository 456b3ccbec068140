// Shared fixture of the GUI data tests: the Hopper step-05 kernel opened once (IR, PTX, one
// CTA traced at its example shape), so every test file reads the same immutable LoadedKernel
// instead of re-running the model.
#pragma once

#include <memory>

#include "gui/core/app_state.hpp"
#include "gui/core/session.hpp"

namespace gs::gui::test {

// hopper_tma_wgmma_64 at its example shape (128x128x256), CTA (0,0), integer inputs.
inline const std::shared_ptr<const LoadedKernel>& hopper_kernel() {
  static const std::shared_ptr<const LoadedKernel> k = open_kernel({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  return k;
}

// A fresh AppState showing the cached Hopper kernel (playback on its first instruction).
inline AppState hopper_app() {
  AppState app;
  app.set_kernel(hopper_kernel());
  return app;
}

}  // namespace gs::gui::test
