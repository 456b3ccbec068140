#include "run/sass_job.hpp"

#include <fmt/format.h>

#include "engine/ir/instrument.hpp"

namespace gs::run {

namespace {

// PTX lines as they are printed above their SASS: trimmed, long operand lists cut.
std::string ptx_line_text(const ptx::PtxModule& module, uint32_t line) {
  size_t start = 0;
  for (uint32_t l = 1; l < line && start != std::string::npos; ++l) {
    start = module.text.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos || start >= module.text.size()) return "";
  std::string text = module.text.substr(start, module.text.find('\n', start) - start);
  text.erase(0, text.find_first_not_of(" \t"));
  constexpr size_t kMaxWidth = 110;
  if (text.size() > kMaxWidth) text = text.substr(0, kMaxWidth - 3) + "...";
  return text;
}

std::string report_line(const ptx::PtxasReport& r, size_t local_memory_instructions) {
  if (!r.found) return "ptxas: no resource report in its log";
  std::string line = fmt::format("ptxas: {} registers, {} barriers, {} bytes static shared memory, {} bytes stack frame, ",
                                 r.registers, r.barriers, r.smem_bytes, r.stack_bytes);
  if (r.spills())
    line += fmt::format("SPILLS: {} bytes stored to and {} bytes loaded from local memory", r.spill_store_bytes,
                        r.spill_load_bytes);
  else
    line += "no spills";
  if (local_memory_instructions > 0)
    line += fmt::format("; {} local-memory instructions (LDL/STL), marked !", local_memory_instructions);
  return line;
}

}  // namespace

SassReport run_sass(const SassRequest& req) {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(req.kernel_id);
  SassReport r;
  r.kernel_id = info.id;
  r.shape = info.resolve(req.shape);
  r.mistakes = req.mistakes;
  r.params = kernels::resolve_params(info, req.params);
  r.timeline = req.timeline;
  ir::Kernel kernel = kernels::build_kernel(info, {r.shape, r.mistakes, r.params});
  if (req.timeline) kernel = ir::instrument_timeline(kernel, {}).kernel;
  r.module = ptx::emit(kernel);
  r.listing = ptx::compile_sass(r.module.text, kernel.target);
  return r;
}

std::string sass_report_text(const SassReport& r) {
  const ptx::SassListing& s = r.listing;
  std::string out = fmt::format("{} (M={} N={} K={}) for {}", r.kernel_id, r.shape.m, r.shape.n, r.shape.k, s.arch);
  for (const std::string& m : r.mistakes) out += fmt::format(", mistake {}", m);
  if (const std::string p = kernels::params_text(r.params); !p.empty()) out += ", " + p;
  if (r.timeline) out += ", instrumented by the timeline pass (CTA 0 records)";
  out += "\n";
  if (s.status == ptx::SassStatus::no_ptxas || s.status == ptx::SassStatus::ptxas_failed) {
    out += s.message + "\n";
    if (!s.ptxas_log.empty()) out += s.ptxas_log;
    return out;
  }
  out += report_line(s.report, s.local_memory_count()) + "\n";
  if (!s.ok()) out += s.message + "\n";
  if (s.disassembler_command.empty() && s.instructions.empty()) return out;
  out += "\n";
  uint32_t current = UINT32_MAX;
  for (const ptx::SassInstruction& inst : s.instructions) {
    if (inst.ptx_line != current) {
      current = inst.ptx_line;
      out += current ? fmt::format("  PTX {:>4} | {}\n", current, ptx_line_text(r.module, current))
                     : std::string("  PTX    ? | (no line information)\n");
    }
    const char mark = inst.local_memory ? '!' : inst.link == ptx::LineLink::opcode_match ? '~' : ' ';
    out += fmt::format("      {:04x} {} {}\n", inst.address, mark, inst.text.empty() ? "(instruction)" : inst.text);
  }
  out += "\n! local memory (LDL/STL: spills)   ~ PTX line from the opcode (ptxas's line table gives a neighbour's)\n";
  return out;
}

}  // namespace gs::run
