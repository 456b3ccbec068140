#include "gui/core/occupancy.hpp"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include "engine/model/timing.hpp"
#include "engine/ptx/ptxas.hpp"

namespace gs::gui {

namespace {

namespace timing = model::timing;

// Registers a warp is given: per-thread registers × 32, rounded up to the allocation unit.
uint32_t registers_per_warp(uint32_t per_thread) {
  const uint32_t raw = per_thread * 32;
  return (raw + kRegisterAllocationUnit - 1) / kRegisterAllocationUnit * kRegisterAllocationUnit;
}

// What the kernel declares about its register budget, when ptxas cannot say.
std::pair<uint32_t, std::string> declared_registers(const ir::Kernel& k) {
  if (k.max_regs > 0) return {k.max_regs, fmt::format(".maxnreg {} (declared)", k.max_regs)};
  const uint32_t threads = uint32_t(k.launch.threads());
  if (k.min_ctas_per_sm > 0 && threads > 0) {
    // The budget .minnctapersm leaves each thread, at most 255.
    const uint32_t per_thread = std::min<uint32_t>(255, kRegistersPerSm / (threads * k.min_ctas_per_sm) / 8 * 8);
    return {per_thread, fmt::format(".minnctapersm {} with {} threads (declared budget)", k.min_ctas_per_sm, threads)};
  }
  return {0, "not known: ptxas is not installed and the kernel declares no budget"};
}

}  // namespace

Occupancy kernel_occupancy(const LoadedKernel& k) {
  const ir::Kernel& kernel = k.kernel();
  // The H100 JIT-compiles sm_80 PTX for sm_90; a later target (Blackwell) is its own.
  const ir::Arch arch = kernel.target == ir::Arch::sm_80 ? ir::Arch::sm_90 : kernel.target;
  if (ptx::find_ptxas()) {
    const ptx::PtxasResult r = ptx::run_ptxas(k.ptx.text, arch);
    if (r.ok)
      if (const auto regs = registers_from_ptxas_log(r.log))
        return occupancy_of(kernel, *regs, fmt::format("ptxas -v for {}", ir::arch_name(arch)));
  }
  const auto [regs, source] = declared_registers(kernel);
  return occupancy_of(kernel, regs, source);
}

std::optional<uint32_t> registers_from_ptxas_log(const std::string& log) {
  static const std::regex used(R"(Used (\d+) registers)");
  std::smatch m;
  if (!std::regex_search(log, m, used)) return std::nullopt;
  return uint32_t(std::stoul(m[1].str()));
}

Occupancy occupancy_of(const ir::Kernel& kernel, uint32_t registers, std::string registers_source) {
  Occupancy o;
  o.threads = uint32_t(kernel.launch.threads());
  o.smem_bytes = kernel.smem_bytes();
  o.registers = registers;
  o.registers_source = std::move(registers_source);
  const uint32_t warps = std::max(1u, (o.threads + 31) / 32);
  o.limits.push_back({"threads", o.threads ? timing::kMaxThreadsPerSm / o.threads : timing::kMaxCtasPerSm,
                      fmt::format("{} threads per SM / {} per CTA", timing::kMaxThreadsPerSm, o.threads)});
  const uint32_t smem = o.smem_bytes + timing::kReservedSmemPerCta;
  o.limits.push_back({"shared memory", timing::kSmemPerSm / smem,
                      fmt::format("{} B per SM / ({} B + {} B the driver reserves) per CTA", timing::kSmemPerSm,
                                  o.smem_bytes, timing::kReservedSmemPerCta)});
  if (registers > 0) {
    const uint32_t per_cta = registers_per_warp(registers) * warps;
    o.limits.push_back({"registers", kRegistersPerSm / per_cta,
                        fmt::format("{} per SM / ({} per thread → {} per warp × {} warps = {}) per CTA",
                                    kRegistersPerSm, registers, registers_per_warp(registers), warps, per_cta)});
  }
  o.limits.push_back({"CTA slots", timing::kMaxCtasPerSm, fmt::format("at most {} CTAs per SM", timing::kMaxCtasPerSm)});
  const auto least = std::min_element(o.limits.begin(), o.limits.end(),
                                      [](const OccupancyLimit& a, const OccupancyLimit& b) { return a.ctas < b.ctas; });
  o.ctas_per_sm = least->ctas;
  o.binding = least->resource;
  o.warps_per_sm = std::min(kMaxWarpsPerSm, o.ctas_per_sm * warps);
  o.occupancy = double(o.warps_per_sm) / kMaxWarpsPerSm;
  return o;
}

nlohmann::json occupancy_json(const Occupancy& o) {
  nlohmann::json limits = nlohmann::json::array();
  for (const OccupancyLimit& l : o.limits) limits.push_back({{"resource", l.resource}, {"ctas", l.ctas}, {"basis", l.basis}});
  return {{"threads", o.threads},
          {"smem_bytes", o.smem_bytes},
          {"registers", o.registers},
          {"registers_source", o.registers_source},
          {"limits", limits},
          {"ctas_per_sm", o.ctas_per_sm},
          {"binding", o.binding},
          {"warps_per_sm", o.warps_per_sm},
          {"occupancy", o.occupancy}};
}

}  // namespace gs::gui
