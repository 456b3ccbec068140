// What the throughput view plots: TFLOP/s per kernel variant over time (GPU benchmarks as they
// finish, model predictions, imported `gemmscope bench --json` files), cuBLAS in the same runs,
// and the device's ceilings for a roofline. Filled from the UI thread only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model/timing.hpp"
#include "kernels/registry.hpp"

namespace gs::gui {

enum class MeasurementSource : uint8_t { gpu, model, imported };
const char* measurement_source_name(MeasurementSource s);

// What the model's run said besides its TFLOP/s: the prediction with its parts as the model
// made it (SimStats::prediction, timing.hpp: cycles per wave of each limit, the bound, the
// clock and the occupancy), recorded with the model's point so the views never recompute it.
struct ModelPrediction {
  model::timing::Prediction prediction;
  std::string machine;    // "H100", "B200" (timing::Machine::name)
  uint32_t sms = 0;       // the machine's SMs the waves fill
  std::string registers;  // "168 per thread (ptxas -v)", or why the count is not known
};

// A run timed after `sustained_ms` of load (bench --sustain; none where the file does not say):
// a second and more puts the card under its power limit, the state the model's clocks describe.
inline bool timed_under_power_limit(const std::optional<double>& sustained_ms) {
  return sustained_ms && *sustained_ms >= 1000.0;
}

// How a GPU figure was measured (bench's "method", "ratio_iqr", "conditions"; absent in files of
// before 2026-12-02): in paired rounds with cuBLAS, the rounds' ratio and its quartiles; the
// card's median power and highest temperature while it ran; why it held its clock down.
struct MeasurementNotes {
  std::optional<double> ratio_paired, ratio_q1, ratio_q3;
  std::optional<double> power_w;
  std::optional<uint32_t> temp_c;
  std::vector<std::string> clock_limits;
  // The SM clock the card held, as its SMs counted it (bench's sm_clock_counted_mhz: %clock64
  // over %globaltimer in one launch of the timeline-instrumented build right after the timed
  // rounds; absent in files of before 2026-12-03 and where that build could not run). Never
  // NVML's reported clock, which is the driver's setting and not what the SMs ran at.
  std::optional<double> counted_clock_mhz;
  // cuBLAS's side of the paired rounds (files since 2026-12-02): its median power over a second
  // of it alone (bench's cublas_conditions) and the SM clock its load left, counted by a spin
  // launched right behind it (cublas_clock_set_mhz).
  std::optional<double> cublas_power_w, cublas_clock_set_mhz;
  // How long ours and cuBLAS ran before the timed rounds (bench --sustain, sustained_ms; files
  // since 2026-12-05, 0 where it was not asked): a second and more puts the card under its power
  // limit, the state the H200's machine description predicts; less leaves it at a higher clock.
  std::optional<double> sustained_ms;
  std::string method;
  bool paired() const { return ratio_paired && ratio_q1 && ratio_q3; }
  bool under_power_limit() const { return timed_under_power_limit(sustained_ms); }
};

struct ThroughputPoint {
  double t = 0.0;        // seconds since the app started (imported: the order in the file)
  double tflops = 0.0;
  std::optional<double> cublas_tflops;  // cuBLAS in the same run
  std::optional<ModelPrediction> model;  // a model point's prediction
  MeasurementNotes notes;                 // a GPU point's: how it was measured
};

// One line on the plot: a kernel at a shape from one source.
struct Variant {
  std::string kernel_id;
  kernels::GemmShape shape;
  MeasurementSource source = MeasurementSource::model;
  std::string device;  // "NVIDIA H100 80GB HBM3", "model (H100)"
  std::vector<ThroughputPoint> points;
  // The build when it is not the kernel as it ships: parameters that differ from the defaults
  // and the mistakes switched on ("stages=3", "mistake swap-row-col"; variant_build), or "".
  std::string params;
  std::string label() const;  // "<kernel id> [stages=3] 4096³ (gpu)"
  double latest_tflops() const { return points.empty() ? 0.0 : points.back().tflops; }
  std::optional<double> latest_cublas() const;
  // Arithmetic intensity of the GEMM at this shape: 2·M·N·K / (bytes of A + B + C).
  double intensity(kernels::DType ab, kernels::DType c) const;
};

// Roofline ceilings. Defaults: H100 SXM5 from ../shared/reference/anchors.md (989 TFLOP/s dense
// bf16 at the rated boost clock, 3.35 TB/s HBM3 peak).
struct DeviceCeilings {
  std::string name = "H100 SXM5 (reference)";
  double tensor_tflops = 989.0;  // dense bf16 tensor cores
  double fp32_tflops = 67.0;     // fp32 FMA
  double memory_tbps = 3.35;
  std::string basis = "NVIDIA's rated figures: 132 SMs at the 1.83 GHz boost clock";
  // The SM clocks the compute ceilings are at: each is SMs x FLOP per cycle x its clock.
  double tensor_clock_mhz = 1830.0, fp32_clock_mhz = 1980.0;
  // The tensor (or fp32) ceiling at another SM clock: the same SMs and FLOP per cycle.
  double compute_tflops_at(bool fp32, double mhz) const {
    const double rated = fp32 ? fp32_tflops : tensor_tflops, at = fp32 ? fp32_clock_mhz : tensor_clock_mhz;
    return at > 0.0 ? rated * mhz / at : 0.0;
  }
  // Where the memory roof meets the tensor ceiling (FLOP/byte).
  double ridge_intensity() const { return memory_tbps > 0.0 ? tensor_tflops / memory_tbps : 0.0; }
};

// Ceilings from a device description as `gemmscope bench --json` writes it ({name, cc_major,
// cc_minor, sms, sm_clock_mhz, mem_clock_mhz, mem_bus_width}): per-SM rates of the
// architecture × SMs × the clock the driver reports. nullopt for an architecture without known
// rates (sm_80 and sm_90 are known) or missing fields.
std::optional<DeviceCeilings> ceilings_from_device(const nlohmann::json& device);

// A variant's build in words: the parameters that differ from the kernel's defaults, then each
// mistake ("stages=3, mistake swap-row-col"); "" for the kernel as it ships. The same text for a
// GPU run, an imported result and the model's run of one build, so their rows pair up.
std::string variant_build(const std::string& kernel_id, const kernels::ParamValues& params,
                          const std::vector<std::string>& mistakes);

// Arithmetic intensity of C = A·B at this shape: 2·M·N·K / (bytes of A + B + C), each matrix
// moved once (the ideal a tiled kernel approaches; the roofline's x).
double gemm_intensity(kernels::GemmShape shape, kernels::DType ab, kernels::DType c);

struct Measurements {
  std::vector<Variant> variants;
  DeviceCeilings ceilings;

  Variant& variant(const std::string& kernel_id, kernels::GemmShape shape, MeasurementSource source,
                   const std::string& device, const std::string& params = {});
  // A `gemmscope bench --json` object (or an array of them, or a report {device, results: [...]},
  // whose device sets the ceilings). Results whose status is not "ok" and that have no
  // TFLOP/s are skipped. Returns how many results were added; throws std::invalid_argument
  // naming the field that is missing or malformed.
  int add_bench_json(const nlohmann::json& j, MeasurementSource source, double t);
  // The model's prediction for `machine` ("H100", "B200": model::timing::Machine::name), of
  // the build `params` (variant_build), with its parts when the run made them.
  void add_model_prediction(const std::string& kernel_id, kernels::GemmShape shape, double tflops,
                            std::string_view machine, double t, std::optional<ModelPrediction> parts = std::nullopt,
                            const std::string& params = {});
  // Reads a bench JSON file; throws std::runtime_error naming the path and what is wrong (a
  // missing file, a directory, invalid JSON, a missing field).
  int import_file(const std::string& path, double t);
  // Intensity of a variant with its kernel's data types (bf16/f32 for unknown kernels).
  double intensity_of(const Variant& v) const;
};

}  // namespace gs::gui
