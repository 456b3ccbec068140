#include "run/ptx_annotate.hpp"

#include "kernels/sources.hpp"

namespace gs::run {

std::string annotate_ptx(const ir::Kernel& k, const ptx::PtxModule& module) {
  const std::vector<std::string_view> ptx_lines = kernels::source_lines(module.text);
  std::string out;
  out.reserve(module.text.size() * 2);
  ir::SourceLoc last;
  for (size_t i = 0; i < ptx_lines.size(); ++i) {
    const int32_t inst = i < module.line_to_inst.size() ? module.line_to_inst[i] : -1;
    if (inst >= 0 && size_t(inst) < k.insts.size()) {
      const ir::SourceLoc& loc = k.insts[size_t(inst)].src;
      if (loc.known() && !(loc == last)) {
        last = loc;
        out += "//> " + kernels::describe_source(k, loc) + "\n";
      }
    }
    out += ptx_lines[i];
    out += '\n';
  }
  return out;
}

}  // namespace gs::run
