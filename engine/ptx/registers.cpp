#include "engine/ptx/registers.hpp"

#include <map>
#include <mutex>

#include <fmt/format.h>

#include "engine/ptx/emit.hpp"
#include "engine/ptx/ptxas.hpp"
#include "engine/ptx/sass.hpp"

namespace gs::ptx {

ir::Arch occupancy_arch(const ir::Kernel& k) { return k.target == ir::Arch::sm_80 ? ir::Arch::sm_90 : k.target; }

RegisterCount kernel_registers(const ir::Kernel& k) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, ir::Arch>, RegisterCount> counted;
  const ir::Arch arch = occupancy_arch(k);
  std::pair<std::string, ir::Arch> key{emit(k).text, arch};
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = counted.find(key); it != counted.end()) return it->second;
  }
  RegisterCount c;
  if (!find_ptxas()) {
    c.source = "not known: no ptxas (the CUDA toolkit's, or GEMMSCOPE_PTXAS)";
  } else {
    const PtxasResult r = run_ptxas(key.first, arch);
    const PtxasReport report = r.ok ? parse_ptxas_report(r.log) : PtxasReport{};
    if (!r.ok) c.source = fmt::format("not known: {}", r.failure);
    else if (!report.found) c.source = "not known: ptxas -v printed no register count";
    else c = {report.registers, fmt::format("ptxas -v for {}", ir::arch_name(arch))};
  }
  const std::lock_guard<std::mutex> lock(mutex);
  if (counted.size() >= 256) counted.clear();  // a long session's kernels: bounded memory
  counted.emplace(std::move(key), c);
  return c;
}

}  // namespace gs::ptx
