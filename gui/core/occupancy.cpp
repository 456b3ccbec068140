#include "gui/core/occupancy.hpp"

#include <algorithm>
#include <regex>
#include <typeindex>

#include <fmt/format.h>

#include "engine/model/timing.hpp"
#include "engine/ptx/ptxas.hpp"
#include "engine/ptx/registers.hpp"
#include "engine/ptx/sass.hpp"
#include "gui/core/app_state.hpp"
#include "gui/core/resource_advice.hpp"
#include "gui/core/sass_data.hpp"
#include "gui/core/schedule_data.hpp"

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

// What ptxas -v said about a kernel, kept in its derived slots (UI thread only). `done` false
// while the job runs; registers 0 when ptxas is missing or gave no count (then report.found is
// false too).
struct RegisterSlot {
  bool done = false;
  uint32_t registers = 0;
  std::string source;
  ptx::PtxasReport report;  // the whole -v report: registers, spills, stack
};

RegisterSlot* register_slot(const LoadedKernel& k) {
  auto it = k.derived.find(std::type_index(typeid(RegisterSlot)));
  // Only this file makes the slot, always as a mutable RegisterSlot.
  return it == k.derived.end() ? nullptr : static_cast<RegisterSlot*>(const_cast<void*>(it->second.get()));
}

// ptxas -v on the kernel's PTX: off the UI thread in the job, or now.
RegisterSlot count_registers(const std::string& ptx_text, ir::Arch arch) {
  RegisterSlot s{true, 0, ""};
  if (!ptx::find_ptxas()) return s;
  const ptx::PtxasResult r = ptx::run_ptxas(ptx_text, arch);
  if (r.ok)
    if (const auto regs = registers_from_ptxas_log(r.log))
      s = {true, *regs, fmt::format("ptxas -v for {}", ir::arch_name(arch)), ptx::parse_ptxas_report(r.log)};
  return s;
}

// Keeps the count with the kernel; the schedule's data, built with the count pending, is built
// again on its next use.
void store_count(const LoadedKernel& k, RegisterSlot s) {
  k.derived[std::type_index(typeid(RegisterSlot))] = std::make_shared<RegisterSlot>(std::move(s));
  k.derived.erase(std::type_index(typeid(ScheduleData)));
}

// The same, and the advice that waited for the count (spills, occupancy) joins the Problems
// list when `k` is the kernel on screen.
void store_count(AppState& app, const LoadedKernel& k, RegisterSlot s) {
  store_count(k, std::move(s));
  if (app.kernel.get() == &k) update_resource_advice(app);
}

}  // namespace

Occupancy kernel_occupancy(const LoadedKernel& k) {
  const ir::Kernel& kernel = k.kernel();
  const RegisterSlot* slot = register_slot(k);
  if (slot && slot->done && slot->registers > 0) return occupancy_of(kernel, slot->registers, slot->source);
  const auto [regs, source] = declared_registers(kernel);
  if (slot && slot->done) return occupancy_of(kernel, regs, source);
  Occupancy o = occupancy_of(kernel, regs, regs ? source + "; ptxas -v pending" : "pending: ptxas -v has not reported yet");
  o.registers_pending = true;
  return o;
}

void request_register_count(AppState& app) {
  if (!app.kernel || register_slot(*app.kernel)) return;  // there, or its job is running
  const ir::Arch arch = ptx::occupancy_arch(app.kernel->kernel());
  // The SASS listing of the same target has ptxas's report already: no second run.
  if (const auto listing = sass_listing(app); listing && listing->report.found && listing->arch == ir::arch_name(arch)) {
    store_count(app, *app.kernel,
                {true, listing->report.registers, fmt::format("ptxas -v for {}", ir::arch_name(arch)), listing->report});
    return;
  }
  app.kernel->derived[std::type_index(typeid(RegisterSlot))] = std::make_shared<RegisterSlot>();
  // The job holds the kernel only weakly: a kernel closed meanwhile is not kept alive for it.
  std::weak_ptr<const LoadedKernel> weak = app.kernel;
  app.jobs.push_back(std::make_unique<Job>(
      JobKind::registers, fmt::format("ptxas -v of {}", app.kernel->request.kernel_id),
      [weak, text = app.kernel->ptx.text, arch](JobContext& ctx) {
        RegisterSlot s = count_registers(text, arch);
        ctx.complete([weak, s](AppState& app) {
          if (auto k = weak.lock()) store_count(app, *k, s);
        });
      },
      [weak](AppState& app, const std::string& msg) {
        if (auto k = weak.lock()) store_count(app, *k, {true, 0, "", {}});  // the declared budget, as without ptxas
        app.add_problem({Severity::warning, "app", "ptxas", "cannot count the kernel's registers", msg});
      }));
}

void count_registers_now(const LoadedKernel& k) {
  const RegisterSlot* slot = register_slot(k);
  if (slot && slot->done) return;
  store_count(k, count_registers(k.ptx.text, ptx::occupancy_arch(k.kernel())));
}

std::optional<ptx::PtxasReport> kernel_ptxas_report(const LoadedKernel& k) {
  const RegisterSlot* slot = register_slot(k);
  if (!slot || !slot->done || !slot->report.found) return std::nullopt;
  return slot->report;
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

std::string one_more_cta(const Occupancy& o) {
  const uint32_t ctas = o.ctas_per_sm + 1;
  const uint32_t warps = std::max(1u, (o.threads + 31) / 32);
  if (o.binding == "threads") {
    const uint32_t threads = timing::kMaxThreadsPerSm / ctas / 32 * 32;
    return threads ? fmt::format("at most {} threads per CTA (now {})", threads, o.threads) : std::string();
  }
  if (o.binding == "shared memory") {
    const uint32_t per_cta = timing::kSmemPerSm / ctas;
    if (per_cta <= timing::kReservedSmemPerCta) return {};
    return fmt::format("at most {} B of shared memory per CTA (now {} B; the driver reserves {} B more)",
                       per_cta - timing::kReservedSmemPerCta, o.smem_bytes, timing::kReservedSmemPerCta);
  }
  if (o.binding == "registers") {
    // Each warp's share of the file, in whole allocation units, spread over its 32 threads.
    const uint32_t per_warp = kRegistersPerSm / (ctas * warps) / kRegisterAllocationUnit * kRegisterAllocationUnit;
    return per_warp >= 32 ? fmt::format("at most {} registers per thread (now {})", per_warp / 32, o.registers)
                          : std::string();
  }
  return {};
}

nlohmann::json occupancy_json(const Occupancy& o) {
  nlohmann::json limits = nlohmann::json::array();
  for (const OccupancyLimit& l : o.limits) limits.push_back({{"resource", l.resource}, {"ctas", l.ctas}, {"basis", l.basis}});
  return {{"registers_pending", o.registers_pending},
          {"threads", o.threads},
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
