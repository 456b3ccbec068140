// The occupancy the kernel gets on an H100 SM, with the numbers behind it: how many CTAs fit by
// threads, by shared memory, by registers and by the CTA limit, and which of them binds. The
// schedule view shows it next to the wave and tile quantization it decides.
//
// Registers per thread come from ptxas's resource report (-v) on the kernel's PTX when ptxas
// is installed, else from what the kernel declares (.maxnreg, or .minnctapersm with the block
// size), else they are not known and the register limit is left out (said so). ptxas runs off
// the UI thread, as a job (or not at all when the SASS listing for the same target already has
// its report); until it is done the occupancy says its register count is pending.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir/kernel.hpp"
#include "engine/model/timing.hpp"
#include "engine/ptx/sass.hpp"
#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;

// The SM's register file and its allocation unit (per warp): the machine description's
// (engine/model/machines.hpp, each with its source).
inline constexpr uint32_t kRegistersPerSm = uint32_t(model::timing::kSm.registers_per_sm.value);  // warps_data.hpp includes this file
inline constexpr uint32_t kRegisterAllocationUnit = uint32_t(model::timing::kSm.register_allocation_unit.value);
inline constexpr uint32_t kMaxWarpsPerSm = 64;

struct OccupancyLimit {
  std::string resource;  // "threads", "shared memory", "registers", "CTA slots"
  uint32_t ctas = 0;     // CTAs per SM it allows
  std::string basis;     // the numbers: "2048 threads per SM / 256 per CTA"
};

struct Occupancy {
  bool registers_pending = false;  // ptxas -v has not reported yet (the register limit may change)
  uint32_t threads = 0;            // per CTA
  uint32_t smem_bytes = 0;         // per CTA (its shared window)
  uint32_t registers = 0;          // per thread; 0: not known
  std::string registers_source;    // "ptxas -v", ".maxnreg", "not known: ..."
  std::vector<OccupancyLimit> limits;
  uint32_t ctas_per_sm = 0;        // the smallest limit
  std::string binding;             // its resource (the first of equals)
  uint32_t warps_per_sm = 0;       // resident warps
  double occupancy = 0.0;          // warps_per_sm / 64
};

// The occupancy of a kernel with `registers` per thread (0: leave the register limit out).
Occupancy occupancy_of(const ir::Kernel& kernel, uint32_t registers, std::string registers_source);

// Registers per thread from a ptxas -v log ("Used 168 registers"); nullopt when it has none.
std::optional<uint32_t> registers_from_ptxas_log(const std::string& log);

// The loaded kernel's occupancy with the register count found so far (the schedule view's
// data, built once per kernel and again when the count arrives, calls it). Never runs ptxas.
Occupancy kernel_occupancy(const LoadedKernel& k);

// Starts ptxas -v on the kernel on screen as a job (JobKind::registers), unless its count is
// there or under way; when it finishes, the schedule's data is built again with it. Called by
// the schedule view every frame.
void request_register_count(AppState& app);
// Counts the kernel's registers now (headless runs, --state-json and the tests).
void count_registers_now(const LoadedKernel& k);
// ptxas -v's whole report (registers, spill stores and loads) for the occupancy's target, once
// the count above is done; nullopt while it is pending, or when ptxas is missing or said nothing.
std::optional<ptx::PtxasReport> kernel_ptxas_report(const LoadedKernel& k);

// What the binding resource would have to come down to for one more CTA per SM: "at most 80
// registers per thread (now 168)", "at most 74 KiB ... per CTA"; empty when no figure of that
// resource alone would do it (the CTA slots).
std::string one_more_cta(const Occupancy& o);

nlohmann::json occupancy_json(const Occupancy& o);

}  // namespace gs::gui
