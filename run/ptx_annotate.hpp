// `gemmscope ptx ID --annotate`: the PTX with the kernel's C++ interleaved, each run of
// instructions preceded by the source line that recorded them (ir::Inst::src).
#pragma once

#include <string>

#include "engine/ir/kernel.hpp"
#include "engine/ptx/emit.hpp"

namespace gs::run {

// The module's text with a comment line "//> kernels/NN_x.cpp:57  b.fence_mbarrier_init();"
// before each instruction whose source line differs from the previous instruction's.
std::string annotate_ptx(const ir::Kernel& k, const ptx::PtxModule& module);

}  // namespace gs::run
