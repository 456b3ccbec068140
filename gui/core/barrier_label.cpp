#include "gui/core/barrier_label.hpp"

#include <fmt/format.h>

#include "engine/ir/mbarrier_name.hpp"
#include "engine/model/timing.hpp"

namespace gs::gui {

std::string mbarrier_label(const ir::Kernel& kernel, const Snapshot* s, uint32_t addr) {
  if (addr >= model::timing::kSmemBaseAddress) {
    std::string name = ir::mbarrier_name_at(kernel, addr - model::timing::kSmemBaseAddress);
    if (!name.empty()) return name;
  }
  if (s)
    if (const MbarrierState* m = s->mbarrier_at(addr)) return fmt::format("mbarrier #{}", m->index);
  return fmt::format("the mbarrier at 0x{:X}", addr);
}

}  // namespace gs::gui
