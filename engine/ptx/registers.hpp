// The registers per thread ptxas gives a kernel: what the occupancy (the GUI's Schedule view,
// the timing model's co-resident CTAs) counts against the SM's register file.
#pragma once

#include <cstdint>
#include <string>

#include "engine/ir/kernel.hpp"

namespace gs::ptx {

// The target ptxas counts a kernel's registers for: the H100 JIT-compiles sm_80 PTX for sm_90;
// a later target (Blackwell) is its own.
ir::Arch occupancy_arch(const ir::Kernel& k);

struct RegisterCount {
  uint32_t registers = 0;  // per thread; 0: not known (why says so)
  std::string source;      // "ptxas -v for sm_90a", or why there is no count
};

// ptxas -v on the kernel's PTX for occupancy_arch(k). Kept per PTX text for the life of the
// process (thread-safe), so a kernel asked about again costs no second run. No ptxas, or a
// ptxas that fails, gives 0 with the reason; it never throws.
RegisterCount kernel_registers(const ir::Kernel& k);

}  // namespace gs::ptx
