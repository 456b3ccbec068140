#include "engine/ptx/registers.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/ptx/cubin_lines.hpp"
#include "engine/ptx/emit.hpp"
#include "engine/ptx/ptxas.hpp"
#include "engine/ptx/sass.hpp"

namespace gs::ptx {
namespace {

constexpr uint32_t kSassInstructionBytes = 16;  // every SASS instruction since Volta

CompiledKernel compile(const PtxModule& module, ir::Arch arch, size_t insts) {
  CompiledKernel c;
  if (!find_ptxas()) {
    c.registers.source = c.sass_source = "not known: no ptxas (the CUDA toolkit's, or GEMMSCOPE_PTXAS)";
    return c;
  }
  PtxasOptions options;
  options.line_info = true;  // adds the line table; the code is the same (tests/model/test_shared_folds.cpp)
  options.keep_cubin = true;
  const PtxasResult r = run_ptxas(module.text, arch, options);
  if (!r.ok) {
    c.registers.source = c.sass_source = fmt::format("not known: {}", r.failure);
    return c;
  }
  const PtxasReport report = parse_ptxas_report(r.log);
  if (!report.found) c.registers.source = "not known: ptxas -v printed no register count";
  else c.registers = {report.registers, fmt::format("ptxas -v for {}", ir::arch_name(arch))};
  try {
    const CubinLines lines = read_cubin_lines(r.cubin);
    if (lines.rows.empty()) {
      c.sass_source = "not known: ptxas wrote no line table";
      return c;
    }
    const std::vector<uint16_t> per_line = sass_per_line(lines.rows, lines.text_size, module.line_to_inst.size());
    std::vector<uint32_t> first_of_line(module.line_to_inst.size(), CompiledKernel::kNoSass);
    for (size_t r = 0; r < lines.rows.size(); ++r) {
      const SassLineRow& row = lines.rows[r];
      const uint64_t end = r + 1 < lines.rows.size() ? lines.rows[r + 1].address : lines.text_size;
      if (end <= row.address || row.line == 0 || row.line > first_of_line.size()) continue;
      uint32_t& first = first_of_line[row.line - 1];
      first = std::min(first, uint32_t(row.address / kSassInstructionBytes));
    }
    c.sass_per_inst.assign(insts, 0);
    c.sass_first.assign(insts, CompiledKernel::kNoSass);
    for (size_t i = 0; i < insts && i < module.inst_to_line.size(); ++i) {
      const uint32_t line = module.inst_to_line[i];
      if (line >= 1 && line <= per_line.size()) {
        c.sass_per_inst[i] = per_line[line - 1];
        c.sass_first[i] = first_of_line[line - 1];
      }
    }
    c.sass_source = fmt::format("ptxas -lineinfo for {}", ir::arch_name(arch));
  } catch (const std::runtime_error& e) {
    c.sass_source = fmt::format("not known: the cubin's line table cannot be read ({})", e.what());
  }
  return c;
}

}  // namespace

ir::Arch occupancy_arch(const ir::Kernel& k) { return k.target == ir::Arch::sm_80 ? ir::Arch::sm_90 : k.target; }

std::vector<uint16_t> sass_per_line(const std::vector<SassLineRow>& rows, uint64_t text_size, size_t line_count) {
  std::vector<uint16_t> per_line(line_count, 0);
  for (size_t i = 0; i < rows.size(); ++i) {
    const uint64_t end = i + 1 < rows.size() ? rows[i + 1].address : text_size;
    if (end <= rows[i].address || rows[i].line == 0 || rows[i].line > line_count) continue;
    uint16_t& n = per_line[rows[i].line - 1];
    n = uint16_t(std::min<uint64_t>(0xFFFF, n + (end - rows[i].address) / kSassInstructionBytes));
  }
  return per_line;
}

CompiledKernel compiled_kernel(const ir::Kernel& k) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, ir::Arch>, CompiledKernel> compiled;
  const ir::Arch arch = occupancy_arch(k);
  PtxModule module = emit(k);
  std::pair<std::string, ir::Arch> key{module.text, arch};
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = compiled.find(key); it != compiled.end()) return it->second;
  }
  CompiledKernel c = compile(module, arch, k.insts.size());
  const std::lock_guard<std::mutex> lock(mutex);
  if (compiled.size() >= 256) compiled.clear();  // a long session's kernels: bounded memory
  compiled.emplace(std::move(key), c);
  return c;
}

RegisterCount kernel_registers(const ir::Kernel& k) { return compiled_kernel(k).registers; }

}  // namespace gs::ptx
