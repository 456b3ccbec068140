// The roofline's verdicts, read off the picture it draws. The figure is for one machine: the
// card the kernel on screen is predicted on (SimStats::predicted_on: an H200 found here or asked
// for, a B200 for the sm_100a steps, else the H100), with that machine's
// ceilings (timing::ceilings_of, or an imported device's own when it is that machine), and it
// plots only rows of that machine. x is the GEMM's intensity over its unique DRAM bytes (A and
// B read once, C written once): the fewest bytes any kernel moves, so the most FLOP per byte
// it can reach, and the memory roof there a bound no run passes. The roof over x is the
// memory roof left of the ridge, else the kernel's own ceiling (fp32 SIMT for an fp32 kernel,
// the bf16 tensor cores otherwise). The bytes the traced CTA fetches through L2
// (AchievedIntensity) are reported next to it, never placed against the DRAM roof.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "gui/core/measurements.hpp"
#include "gui/core/throughput_data.hpp"

namespace gs::gui {

struct AppState;

struct RoofVerdict {
  double intensity = 0.0;       // x, FLOP per unique DRAM byte
  bool fp32 = false;            // judged against the fp32 ceiling
  double ceiling_tflops = 0.0;  // the kernel's own compute ceiling
  double ridge = 0.0;           // where the memory roof meets that ceiling
  double roof_tflops = 0.0;     // min(ceiling, memory bandwidth × x)
  bool memory_bound = false;    // x < ridge: the memory roof is the lower one over the point
  const char* roof_name() const { return memory_bound ? "memory" : fp32 ? "fp32" : "tensor"; }
};
RoofVerdict roof_verdict(double intensity, bool fp32, const DeviceCeilings& c);
nlohmann::json verdict_json(const RoofVerdict& v);

// The ceilings of the machine the figure is for (see above).
DeviceCeilings figure_ceilings(const AppState& app);
// "H100", "B200" (timing::Machine::name) for ceilings of one of the model's machines, else
// their device name.
std::string machine_of(const DeviceCeilings& c);

// A row of the throughput data on the figure.
struct RooflineRow {
  bool fp32 = false;
  std::string machine;     // the machine it ran or was predicted on
  bool on_figure = false;  // that machine is the figure's: plotted
  RoofVerdict verdict;     // against the figure's ceilings
};
RooflineRow roofline_row(const ThroughputRow& r, const DeviceCeilings& figure);

// The ceiling at the clock a measurement of `kernel_id` held (HeldCeiling): among `rows` on the
// figure's machine with a counted clock, that kernel's at `shape` first, a GPU run before an
// imported one, then the latest; nullopt when none counted its clock.
std::optional<HeldCeiling> held_ceiling(const std::vector<ThroughputRow>& rows, const DeviceCeilings& figure,
                                        const std::string& kernel_id, kernels::GemmShape shape);
nlohmann::json held_json(const std::optional<HeldCeiling>& h);

// The kernel on screen at its traced shape; nullopt without one.
std::optional<RoofVerdict> kernel_verdict(const AppState& app, const DeviceCeilings& figure);
// The caption: where the point is, which roof is over it and why, and the bytes the traced
// CTA fetches through L2 (when `d.achieved`).
std::string roofline_caption(const ThroughputData& d, const RoofVerdict& v);

}  // namespace gs::gui
