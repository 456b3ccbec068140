// Whether a view has anything to show for a kernel: the Tensor memory view needs tcgen05 ops,
// the TMA pipeline view a TMA transfer, an mbarrier or a cp.async. The focus layout puts a view
// a kernel does not use last among its tabs, marked so; the view itself says why in one line.
#pragma once

#include <string>

#include "engine/ir/kernel.hpp"
#include "gui/core/settings.hpp"

namespace gs::gui {

// "" when `v` shows something of `k`, else why not, in a few words ("no tcgen05 op").
std::string view_not_used(ViewId v, const ir::Kernel& k);

}  // namespace gs::gui
