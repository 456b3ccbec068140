#include "gui/core/view_use.hpp"

#include <algorithm>
#include <initializer_list>

namespace gs::gui {

namespace {

bool uses_any(const ir::Kernel& k, std::initializer_list<ir::Family> families) {
  return std::any_of(k.insts.begin(), k.insts.end(), [&](const ir::Inst& i) {
    const ir::Family f = ir::op_info(i.op).family;
    return std::find(families.begin(), families.end(), f) != families.end();
  });
}

}  // namespace

std::string view_not_used(ViewId v, const ir::Kernel& k) {
  switch (v) {
    case ViewId::tmem: return uses_any(k, {ir::Family::tcgen05}) ? "" : "no tcgen05 op: no tensor memory";
    case ViewId::tma_pipeline:
      return uses_any(k, {ir::Family::tma, ir::Family::mbarrier, ir::Family::cp_async}) ? ""
                                                                                           : "no TMA, mbarrier or cp.async";
    default: return "";
  }
}

}  // namespace gs::gui
