// What the throughput view plots: TFLOP/s per kernel variant over time (GPU benchmarks as they
// finish, model predictions, imported `gemmscope bench --json` files), cuBLAS in the same runs,
// and the device's ceilings for a roofline. Filled from the UI thread only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/registry.hpp"

namespace gs::gui {

enum class MeasurementSource : uint8_t { gpu, model, imported };
const char* measurement_source_name(MeasurementSource s);

struct ThroughputPoint {
  double t = 0.0;        // seconds since the app started (imported: the order in the file)
  double tflops = 0.0;
  std::optional<double> cublas_tflops;  // cuBLAS in the same run
};

// One line on the plot: a kernel at a shape from one source.
struct Variant {
  std::string kernel_id;
  kernels::GemmShape shape;
  MeasurementSource source = MeasurementSource::model;
  std::string device;  // "NVIDIA H100 80GB HBM3", "model (H100)"
  std::vector<ThroughputPoint> points;
  std::string params;  // build parameters that differ from the kernel's defaults ("stages=3"), or ""
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
  // Where the memory roof meets the tensor ceiling (FLOP/byte).
  double ridge_intensity() const { return memory_tbps > 0.0 ? tensor_tflops / memory_tbps : 0.0; }
};

// Ceilings from a device description as `gemmscope bench --json` writes it ({name, cc_major,
// cc_minor, sms, sm_clock_mhz, mem_clock_mhz, mem_bus_width}): per-SM rates of the
// architecture × SMs × the clock the driver reports. nullopt for an architecture without known
// rates (sm_80 and sm_90 are known) or missing fields.
std::optional<DeviceCeilings> ceilings_from_device(const nlohmann::json& device);

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
  // The model's prediction for `machine` ("H100", "B200": model::timing::Machine::name).
  void add_model_prediction(const std::string& kernel_id, kernels::GemmShape shape, double tflops,
                            std::string_view machine, double t);
  // Reads a bench JSON file; throws std::runtime_error naming the path and what is wrong (a
  // missing file, a directory, invalid JSON, a missing field).
  int import_file(const std::string& path, double t);
  // Intensity of a variant with its kernel's data types (bf16/f32 for unknown kernels).
  double intensity_of(const Variant& v) const;
};

}  // namespace gs::gui
