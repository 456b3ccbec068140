#include "engine/ir/mbarrier_name.hpp"

#include <algorithm>

namespace gs::ir {

std::string mbarrier_name_at(const Kernel& kernel, uint32_t offset) {
  for (const SharedAlloc& a : kernel.smem) {
    if (a.use != SmemUse::mbarrier || offset < a.offset || offset >= a.offset + a.bytes || (offset - a.offset) % 8)
      continue;
    const uint32_t count = std::max<uint32_t>(1, a.bytes / 8), i = (offset - a.offset) / 8;
    return count == 1 ? a.name : a.name + "[" + std::to_string(i) + "]";
  }
  return "";
}

}  // namespace gs::ir
