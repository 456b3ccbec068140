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
#include "gui/core/speed_ladder.hpp"

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
  // The card under each point, NaN where it is not known: the SM clock (a measured run's
  // counted clock, MeasurementNotes::counted_clock_mhz; a model point's, the sustained clock
  // its prediction is at) and the median power (measured runs only). The Throughput view plots
  // them under the TFLOP/s, on the same time axis.
  std::vector<double> clock_mhz, power_w;
  std::vector<double> cublas_clock_set_mhz, cublas_power_w;  // cuBLAS's side of each point (MeasurementNotes)
  double latest_tflops = 0.0;
  std::optional<double> cublas_tflops;  // measured next to the latest point
  std::optional<double> ratio;          // latest / cuBLAS (paired rounds: the rounds' median)
  MeasurementNotes notes;               // how the latest point was measured
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

// One part of a prediction's breakdown (timing::breakdown_rows): the cycles per wave it would
// take were it the only limit, as a share of the wave's time (the largest part, the bound, is 1).
struct PredictionPart {
  std::string name;     // "tensor cores"
  std::string meaning;  // the model's sentence for it
  double cycles = 0.0;
  double share = 0.0;   // cycles / cycles per wave
  bool bound = false;
  uint32_t index = 0;   // its place in breakdown_rows: its colour (limit_rgb)
};

// A prediction's parts (timing::breakdown_rows) with their shares; empty without a wave.
std::vector<PredictionPart> prediction_parts(const model::timing::Prediction& p);

// The model's prediction of one build at one shape beside what was measured of it: the
// prediction never replaces the measurement, it sits next to it with the error.
struct PredictionRow {
  std::string kernel_id;
  kernels::GemmShape shape;
  std::string params;   // the build (variant_build), "" as it ships
  std::string label;    // "<kernel id> [build] 4096³"
  int color_slot = 0;   // the variant rows' colour of this kernel and shape
  size_t model_row = 0; // index into ThroughputData::rows
  double predicted_tflops = 0.0;
  std::string machine;  // what the prediction is for ("H100")
  // The measurement: the latest GPU run of this build, else the latest imported result.
  std::optional<size_t> measured_row;
  std::optional<double> measured_tflops;
  std::string measured_source, measured_device;
  std::optional<double> error;  // predicted / measured - 1
  bool same_machine = true;     // the measured card is the machine predicted for
  // The prediction's parts, as the model's run recorded them (ModelPrediction).
  bool has_parts = false;
  std::string bound;
  std::vector<PredictionPart> parts;  // breakdown_rows order
  double cycles_per_wave = 0.0;
  uint64_t waves = 0;
  std::string wave_line;       // "2 waves of 132 SMs x 1 CTA, 123,456 cycles per wave at 1738 MHz"
  std::string clock_line;      // the clock and why (timing::Prediction::clock_basis)
  std::string launch_line;     // "launch: 7.1 us (3% of the time): ..." (timing::Prediction::launch_basis)
  std::string coupling_line;   // "clusters: ..." where a cluster waits for its slowest CTA (coupling_basis)
  std::string drift_line;      // "drift: ..." where the waves drift apart behind a TMA ring (drift_basis)
  std::string occupancy_line;  // "up to 1 CTA per SM, bound by shared memory; registers: ..."
};
// "+12.3%" for an error of 0.123.
std::string error_text(double error);

// Why one step is faster than the one before it, in the model's terms: two predictions of the
// Predicted table at one shape on one card, both as they ship, next to each other in ladder
// order (timing::compare_predictions on the predictions the model recorded with its points),
// with the measured ratio beside the predicted one when both were measured.
struct StepComparison {
  std::string from, to;                  // kernel ids, from the slower step of the ladder's order to the next
  kernels::GemmShape shape;
  std::string machine;                   // the card both are predicted on
  double predicted_speedup = 0.0;        // from's predicted seconds over to's
  std::optional<double> measured_speedup;  // to's measured TFLOP/s over from's (same card for both)
  std::string bound_from, bound_to;
  std::vector<std::string> lines;        // the model's sentences (PredictionComparison::lines)
};

// The compute ceiling at the SM clock a measured run actually held (its counted clock:
// MeasurementNotes::counted_clock_mhz), beside the rated one: the card caps its power, so under
// a GEMM its SMs run below the boost clock the rated figure assumes, and no run passes the
// ceiling at the clock it held. The run is a measurement of the kernel on screen on the figure's
// machine (its shape first, a GPU run before an imported one, the latest).
struct HeldCeiling {
  size_t row = 0;               // index into ThroughputData::rows: the run whose clock it is
  std::string label;            // that row's label
  bool fp32 = false;            // the run's kernel's own ceiling: fp32 SIMT, else the bf16 tensor cores
  double rated_tflops = 0.0, rated_clock_mhz = 0.0;
  double clock_mhz = 0.0;       // the clock the run held
  double tflops = 0.0;          // the ceiling at that clock
  std::string text;             // "bf16 tensor 989 TFLOP/s at 1.83 GHz; this run held 1.68 GHz: 908"
};

// A Blackwell step's prediction on the B200 at the speed ladder's 4096³ (the ladder's figure, the
// same run as `sim --traced-cta-only`) beside what others published for the technique the step
// stops at (run/published_figures.def): other kernels on other B200s, never measured here.
struct PublishedRow {
  int step = 0;
  std::string kernel_id, title;
  std::optional<SpeedPrediction> predicted;  // nullopt: not asked for yet
  std::vector<const run::PublishedFigure*> published;
};

struct ThroughputData {
  std::vector<ThroughputRow> rows;
  // Every model variant, with its measurement where there is one: in ladder order, then shape.
  std::vector<PredictionRow> predictions;
  std::vector<StepComparison> comparisons;  // consecutive default builds of `predictions`, one shape
  std::optional<AchievedIntensity> achieved;  // of the kernel on screen
  DeviceCeilings ceilings;
  std::optional<HeldCeiling> held;  // the ceiling at a run's counted clock, when one counted it
  GpuNote gpu;
  std::vector<PublishedRow> published;  // every Blackwell step, in ladder order
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
  // Time each kernel under the card's power limit: it and cuBLAS run kSustainMs first (bench
  // --sustain), the state the H200's machine description predicts; off: a few launches after a
  // start, at a higher clock.
  bool sustained = false;
  static constexpr double kSustainMs = 2000.0;
  std::string import_path;
  // A table tab to bring to the front at the next frame ("predicted", "why", "variants", "published"; gui
  // --throughput-tab), then "": the tab bar keeps whichever the user picks.
  std::string select_tab;
};
inline constexpr uint32_t kBenchSizes[] = {1024, 2048, 4096, 8192};  // square shapes offered

// All kernels ticked, 4096³, and the H100 run's bench.json as the import path when it exists
// under the current directory.
ThroughputControls default_throughput_controls();
kernels::GemmShape bench_shape(const ThroughputControls& c);
// "docs/results/2026-11-21-h100/bench.json" when that file exists relative to the current
// directory, else "".
std::string default_bench_json_path();

// A measured row's tooltips: how it was measured (bench's "method", a line per clause), and the
// card meanwhile (power, temperature, the clock the SMs counted, whether it ran under the power
// limit, cuBLAS's side, NVML's reasons for a held-down clock; not NVML's clock, cuda/nvml.hpp).
std::string method_tooltip(const ThroughputRow& r);
std::string power_tooltip(const ThroughputRow& r);

// Actions of the view's buttons. Errors become problems (source "app"); nothing throws.
// Returns the number of results imported (0 on error).
int import_bench_json(AppState& app, const std::string& path);
// Checks the kernels and the shape (ConfigError messages go to the problems) and starts the
// GPU bench job. Returns false when nothing was started.
bool start_gpu_bench(AppState& app, const ThroughputControls& c);

}  // namespace gs::gui
