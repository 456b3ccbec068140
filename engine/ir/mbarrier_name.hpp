// Barriers by the names the kernel declared (Builder::mbarriers): the model's hazard texts and
// every view name a barrier the same way.
#pragma once

#include <cstdint>
#include <string>

#include "engine/ir/kernel.hpp"

namespace gs::ir {

// The declared name of the mbarrier `offset` bytes into the shared window (gs_smem): "full[2]"
// for barrier 2 of the array "full", "bar" for an array of one; "" where no mbarrier
// allocation declares one.
std::string mbarrier_name_at(const Kernel& kernel, uint32_t offset);

}  // namespace gs::ir
