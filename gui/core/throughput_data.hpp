// The data behind the throughput view, prepared from AppState::measurements without ImGui:
// one row per variant (a kernel at a shape from one source: GPU run, model prediction or an
// imported bench JSON) with its TFLOP/s over time, cuBLAS from the same run and the ratio, the
// arithmetic intensity for the roofline, the device's ceilings, and whether a GPU was found.
// The view draws these rows; describe_throughput writes the same numbers as JSON.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gui/core/measurements.hpp"
#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;

struct ThroughputRow {
  size_t variant = 0;  // index into Measurements::variants
  std::string label;   // "<kernel id> 4096³ (gpu)"
  std::string kernel_id;
  kernels::GemmShape shape;
  MeasurementSource source = MeasurementSource::model;
  std::string device;
  // Rows of the same kernel at the same shape share a colour (gpu, model and imported figures
  // of one thing side by side); the source shows in the marker and the line style.
  int color_slot = 0;
  std::vector<double> ts, tflops;  // the points over time
  double latest_tflops = 0.0;
  std::optional<double> cublas_tflops;  // measured next to the latest point
  std::optional<double> ratio;          // latest / cuBLAS
  double intensity = 0.0;               // FLOP/byte: A, B and C each moved once (the roofline's x)
  // FLOP per byte the traced CTA fetches through L2 in the model (AchievedIntensity), reported
  // beside the roofline (roofline.hpp says why it is never placed against the DRAM roof).
  std::optional<double> achieved_intensity;
};

// The intensity a kernel achieves through L2 in the model: the FLOPs of the traced CTA (2·K
// per element of C it wrote) over the bytes its global accesses cost (each warp access's
// distinct 32-byte sectors × 32, i.e. the L2 traffic before any L1 reuse, plus the bytes of
// its TMA transfers). Every CTA fetches its own tiles, so this counts far more bytes than DRAM
// serves: the roofline reports it beside the point, at the DRAM intensity (roofline.hpp).
struct AchievedIntensity {
  std::string kernel_id;
  kernels::GemmShape shape;      // the traced run it comes from
  bool mistakes = false;         // with mistakes switched on: applies to that run only
  bool fp32 = false;             // an fp32 (SIMT) kernel: its roof is the fp32 ceiling
  double flops = 0.0;
  uint64_t sector_bytes = 0;     // ld/st.global and cp.async: sectors × 32
  uint64_t tma_bytes = 0;
  // The traced CTA was fast-forwarded: bytes and FLOPs include the skipped passes' share,
  // extrapolated by the model (the trace holds only the passes that ran).
  bool extrapolated = false;
  double intensity() const {
    const double b = double(sector_bytes + tma_bytes);
    return b > 0.0 ? flops / b : 0.0;
  }
};
// nullopt when the traced CTA wrote no C or moved no global bytes.
std::optional<AchievedIntensity> achieved_intensity(const LoadedKernel& k);
// The intensity where the memory roof meets the kernel's own ceiling (fp32 or tensor): left
// of it the kernel is memory-bound.
double achieved_ridge(const AchievedIntensity& a, const DeviceCeilings& c);

enum class GpuAvailability : uint8_t { unknown, benchmarking, found, not_found, failing };
const char* gpu_availability_name(GpuAvailability g);  // "unknown", "benchmarking", ...

struct GpuNote {
  GpuAvailability state = GpuAvailability::unknown;
  std::string text;  // the note line under the controls
};

struct ThroughputData {
  std::vector<ThroughputRow> rows;
  std::optional<AchievedIntensity> achieved;  // of the kernel on screen
  DeviceCeilings ceilings;
  GpuNote gpu;
};

ThroughputData prepare_throughput(const AppState& app);
GpuNote gpu_note(const AppState& app);

// The throughput view's controls, kept in AppState (throughput_view) so describe_throughput()
// reports them.
struct ThroughputControls {
  std::vector<std::string> kernel_ids;  // kernels ticked for "Benchmark on GPU"
  int shape_choice = 2;                 // index into kBenchShapes; kBenchShapes.size() = custom
  kernels::GemmShape custom{4096, 4096, 4096};
  int repeats = 3;
  std::string import_path;
};
inline constexpr uint32_t kBenchSizes[] = {1024, 2048, 4096, 8192};  // square shapes offered

// All kernels ticked, 4096³, and the H100 run's bench.json as the import path when it exists
// under the current directory.
ThroughputControls default_throughput_controls();
kernels::GemmShape bench_shape(const ThroughputControls& c);
// "docs/results/2026-11-21-h100/bench.json" when that file exists relative to the current
// directory, else "".
std::string default_bench_json_path();

// Actions of the view's buttons. Errors become problems (source "app"); nothing throws.
// Returns the number of results imported (0 on error).
int import_bench_json(AppState& app, const std::string& path);
// Checks the kernels and the shape (ConfigError messages go to the problems) and starts the
// GPU bench job. Returns false when nothing was started.
bool start_gpu_bench(AppState& app, const ThroughputControls& c);

}  // namespace gs::gui
