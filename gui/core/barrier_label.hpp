// A barrier's name in every view: the kernel's declared name ("full[2]", ir::mbarrier_name_at),
// so the Warps, Transport and TMA views and the model's hazards all say the same thing.
#pragma once

#include <cstdint>
#include <string>

#include "engine/ir/kernel.hpp"
#include "gui/core/playback.hpp"

namespace gs::gui {

// The declared name, else "mbarrier #i" in order of first appearance (`s` may be null), else
// "the mbarrier at 0x..." (a kernel computing barrier addresses no allocation declares).
std::string mbarrier_label(const ir::Kernel& kernel, const Snapshot* s, uint32_t addr);

}  // namespace gs::gui
