#include "gui/core/measurements.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "run/gemm_data.hpp"

namespace gs::gui {

const char* measurement_source_name(MeasurementSource s) {
  switch (s) {
    case MeasurementSource::gpu: return "gpu";
    case MeasurementSource::model: return "model";
    case MeasurementSource::imported: return "imported";
  }
  return "?";
}

std::string Variant::label() const {
  const std::string shape_text = shape.m == shape.n && shape.n == shape.k
                                     ? fmt::format("{}³", shape.m)
                                     : fmt::format("{}x{}x{}", shape.m, shape.n, shape.k);
  return fmt::format("{} {} ({})", kernel_id, shape_text, measurement_source_name(source));
}

std::optional<double> Variant::latest_cublas() const {
  for (auto it = points.rbegin(); it != points.rend(); ++it)
    if (it->cublas_tflops) return it->cublas_tflops;
  return std::nullopt;
}

double gemm_intensity(kernels::GemmShape shape, kernels::DType ab, kernels::DType c) {
  const double m = shape.m, n = shape.n, k = shape.k;
  const double bytes = (m * k + k * n) * double(run::dtype_bytes(ab)) + m * n * double(run::dtype_bytes(c));
  return bytes > 0.0 ? 2.0 * m * n * k / bytes : 0.0;
}

double Variant::intensity(kernels::DType ab, kernels::DType c) const { return gemm_intensity(shape, ab, c); }

double Measurements::intensity_of(const Variant& v) const {
  const kernels::KernelInfo* info = kernels::find_kernel(v.kernel_id);
  return info ? v.intensity(info->ab_dtype, info->c_dtype) : v.intensity(kernels::DType::bf16, kernels::DType::f32);
}

std::optional<DeviceCeilings> ceilings_from_device(const nlohmann::json& d) {
  if (!d.is_object()) return std::nullopt;
  auto number = [&](const char* key) {
    auto it = d.find(key);
    return it != d.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  const double sms = number("sms"), clock_hz = number("sm_clock_mhz") * 1e6;
  const double mem_hz = number("mem_clock_mhz") * 1e6, bus_bits = number("mem_bus_width");
  const int cc_major = int(number("cc_major")), cc_minor = int(number("cc_minor"));
  // Dense FLOP per clock per SM (an FMA is 2): sm_90 4096 bf16 on the tensor cores
  // (132 × 4096 × 1.83 GHz = NVIDIA's 989.4, hopper-blackwell-facts.md) and 128 fp32 lanes;
  // sm_80 2048 bf16 (108 × 2048 × 1.41 GHz = the A100's 312) and 64 fp32 lanes.
  double tensor_per_clock = 0.0, simt_per_clock = 0.0;
  if (cc_major == 9 && cc_minor == 0) tensor_per_clock = 4096.0, simt_per_clock = 256.0;
  if (cc_major == 8 && cc_minor == 0) tensor_per_clock = 2048.0, simt_per_clock = 128.0;
  if (tensor_per_clock == 0.0 || sms <= 0.0 || clock_hz <= 0.0) return std::nullopt;
  DeviceCeilings c;
  c.name = d.contains("name") && d["name"].is_string() ? d["name"].get<std::string>() : "GPU";
  c.tensor_tflops = sms * tensor_per_clock * clock_hz / 1e12;
  c.simt_tflops = sms * simt_per_clock * clock_hz / 1e12;
  // Double data rate: two transfers per memory clock over the whole bus.
  if (mem_hz > 0.0 && bus_bits > 0.0) c.memory_tbps = mem_hz * 2.0 * bus_bits / 8.0 / 1e12;
  c.basis = fmt::format("{} SMs at the {} MHz clock the driver reports, {}-bit memory at {} MHz", int(sms),
                        int(number("sm_clock_mhz")), int(bus_bits), int(number("mem_clock_mhz")));
  return c;
}

Variant& Measurements::variant(const std::string& kernel_id, kernels::GemmShape shape, MeasurementSource source,
                               const std::string& device) {
  for (Variant& v : variants)
    if (v.kernel_id == kernel_id && v.shape.m == shape.m && v.shape.n == shape.n && v.shape.k == shape.k &&
        v.source == source && v.device == device)
      return v;
  variants.push_back({kernel_id, shape, source, device, {}});
  return variants.back();
}

namespace {

template <typename T>
T field(const nlohmann::json& j, const char* key, const char* what) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) throw std::invalid_argument(fmt::format("bench JSON: '{}' is missing ({})", key, what));
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(fmt::format("bench JSON: '{}' should be {}", key, what));
  }
}

}  // namespace

int Measurements::add_bench_json(const nlohmann::json& j, MeasurementSource source, double t) {
  if (j.is_array()) {
    int n = 0;
    for (const auto& item : j) n += add_bench_json(item, source, t + 1e-3 * n);
    return n;
  }
  if (j.is_object() && j.contains("results")) {
    if (!j["results"].is_array()) throw std::invalid_argument("bench JSON: 'results' should be an array of results");
    const int n = add_bench_json(j["results"], source, t);
    if (auto c = ceilings_from_device(j.value("device", nlohmann::json()))) ceilings = *c;
    return n;
  }
  if (!j.is_object()) throw std::invalid_argument("bench JSON: expected an object or an array of objects");
  // A failed run (status "failed", "timed out", ...) has no timing: nothing to plot.
  if (j.contains("status") && j["status"].is_string() && j["status"] != "ok" &&
      (!j.contains("tflops") || j["tflops"].is_null()))
    return 0;
  const std::string kernel = field<std::string>(j, "kernel", "a kernel id");
  const nlohmann::json shape = field<nlohmann::json>(j, "shape", "{m, n, k}");
  kernels::GemmShape s{field<uint32_t>(shape, "m", "a positive integer"), field<uint32_t>(shape, "n", "a positive integer"),
                       field<uint32_t>(shape, "k", "a positive integer")};
  const nlohmann::json tflops = field<nlohmann::json>(j, "tflops", "{median, min, max}");
  const double median = field<double>(tflops, "median", "a number");
  const std::string device = j.contains("device") && j["device"].is_string() ? j["device"].get<std::string>() : "GPU";
  // A result that describes its GPU (live runs, and files of `gemmscope bench --json` since
  // device_info was added) sets the roofline's ceilings, as a file's top-level device does.
  if (auto c = ceilings_from_device(j.value("device_info", nlohmann::json()))) ceilings = *c;
  ThroughputPoint p{t, median, std::nullopt};
  if (j.contains("cublas_tflops") && j["cublas_tflops"].is_number()) p.cublas_tflops = j["cublas_tflops"].get<double>();
  variant(kernel, s, source, device).points.push_back(p);
  return 1;
}

void Measurements::add_model_prediction(const std::string& kernel_id, kernels::GemmShape shape, double tflops, double t) {
  variant(kernel_id, shape, MeasurementSource::model, "model (H100)").points.push_back({t, tflops, std::nullopt});
}

int Measurements::import_file(const std::string& path, double t) {
  std::error_code ec;
  if (path.empty()) throw std::runtime_error("no file named: give the path of a `gemmscope bench --json` file");
  if (!std::filesystem::exists(path, ec)) throw std::runtime_error(fmt::format("cannot read '{}': no such file", path));
  if (std::filesystem::is_directory(path, ec))
    throw std::runtime_error(fmt::format("cannot read '{}': it is a directory, not a bench JSON file", path));
  std::ifstream f(path);
  if (!f) throw std::runtime_error(fmt::format("cannot read '{}': not readable", path));
  std::stringstream text;
  text << f.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded()) throw std::runtime_error(fmt::format("'{}' is not valid JSON (expected `gemmscope bench --json` output)", path));
  try {
    return add_bench_json(j, MeasurementSource::imported, t);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(fmt::format("'{}': {}", path, e.what()));
  }
}

}  // namespace gs::gui
