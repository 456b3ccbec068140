#include "gui/core/measurements.hpp"

#include <cctype>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "run/gemm_data.hpp"
#include "run/input_file.hpp"

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
  return fmt::format("{}{} {} ({})", kernel_id, params.empty() ? "" : " " + params, shape_text,
                     measurement_source_name(source));
}

std::optional<double> Variant::latest_cublas() const {
  for (auto it = points.rbegin(); it != points.rend(); ++it)
    if (it->cublas_tflops) return it->cublas_tflops;
  return std::nullopt;
}

std::string variant_build(const std::string& kernel_id, const kernels::ParamValues& params,
                          const std::vector<std::string>& mistakes) {
  const kernels::KernelInfo* info = kernels::find_kernel(kernel_id);
  std::string s = info ? kernels::non_default_params_text(*info, params) : kernels::params_text(params);
  for (const std::string& m : mistakes) s += fmt::format("{}mistake {}", s.empty() ? "" : ", ", m);
  return s;
}

double gemm_intensity(kernels::GemmShape shape, kernels::DType ab, kernels::DType c) {
  const double m = shape.m, n = shape.n, k = shape.k;
  const double bytes = (m * k + k * n) * double(run::dtype_bytes(ab)) + m * n * double(run::dtype_bytes(c));
  return bytes > 0.0 ? 2.0 * m * n * k / bytes : 0.0;
}

double Variant::intensity(kernels::DType ab, kernels::DType c) const { return gemm_intensity(shape, ab, c); }

double Measurements::intensity_of(const Variant& v) const {
  const kernels::KernelInfo* info = kernels::find_kernel(v.kernel_id);
  // A build with another C than its kernel's default says so in its parameters (variant_build:
  // "c_dtype=16", or "c_dtype=32" for step 19, whose default is bf16).
  const kernels::DType c = v.params.find("c_dtype=16") != std::string::npos   ? kernels::DType::bf16
                           : v.params.find("c_dtype=32") != std::string::npos ? kernels::DType::f32
                           : info                                              ? info->c_dtype
                                                                               : kernels::DType::f32;
  return v.intensity(info ? info->ab_dtype : kernels::DType::bf16, c);
}

std::optional<DeviceCeilings> ceilings_from_device(const nlohmann::json& d) {
  if (!d.is_object()) return std::nullopt;
  // A missing, non-finite or absurd number counts as missing (never cast to int unchecked).
  auto number = [&](const char* key) {
    auto it = d.find(key);
    const double v = it != d.end() && it->is_number() ? it->get<double>() : 0.0;
    return std::isfinite(v) && v >= 0.0 && v <= 1e6 ? v : 0.0;
  };
  const double sms = number("sms"), clock_hz = number("sm_clock_mhz") * 1e6;
  const double mem_hz = number("mem_clock_mhz") * 1e6, bus_bits = number("mem_bus_width");
  const int cc_major = int(number("cc_major")), cc_minor = int(number("cc_minor"));
  // Dense FLOP per clock per SM (an FMA is 2): sm_90 4096 bf16 on the tensor cores
  // (132 × 4096 × 1.83 GHz = NVIDIA's 989.4, hopper-blackwell-facts.md) and 128 fp32 lanes;
  // sm_80 2048 bf16 (108 × 2048 × 1.41 GHz = the A100's 312) and 64 fp32 lanes.
  double tensor_per_clock = 0.0, fp32_per_clock = 0.0;
  if (cc_major == 9 && cc_minor == 0) tensor_per_clock = 4096.0, fp32_per_clock = 256.0;
  if (cc_major == 8 && cc_minor == 0) tensor_per_clock = 2048.0, fp32_per_clock = 128.0;
  if (tensor_per_clock == 0.0 || sms <= 0.0 || clock_hz <= 0.0) return std::nullopt;
  DeviceCeilings c;
  c.name = d.contains("name") && d["name"].is_string() ? d["name"].get<std::string>().substr(0, 200) : "GPU";
  c.tensor_tflops = sms * tensor_per_clock * clock_hz / 1e12;
  c.fp32_tflops = sms * fp32_per_clock * clock_hz / 1e12;
  // Double data rate: two transfers per memory clock over the whole bus.
  if (mem_hz > 0.0 && bus_bits > 0.0) c.memory_tbps = mem_hz * 2.0 * bus_bits / 8.0 / 1e12;
  c.tensor_clock_mhz = c.fp32_clock_mhz = clock_hz / 1e6;
  c.basis = fmt::format("{} SMs at the {} MHz clock the driver reports, {}-bit memory at {} MHz", int(sms),
                        int(number("sm_clock_mhz")), int(bus_bits), int(number("mem_clock_mhz")));
  return c;
}

Variant& Measurements::variant(const std::string& kernel_id, kernels::GemmShape shape, MeasurementSource source,
                               const std::string& device, const std::string& params) {
  for (Variant& v : variants)
    if (v.kernel_id == kernel_id && v.shape.m == shape.m && v.shape.n == shape.n && v.shape.k == shape.k &&
        v.source == source && v.device == device && v.params == params)
      return v;
  variants.push_back({kernel_id, shape, source, device, {}, params});
  return variants.back();
}

namespace {

// Plausible ranges of what a bench file holds: anything outside is a damaged or hand-made file
// that would break the table and the plots (a 1e308 TFLOP/s bar squashes every other one).
constexpr int64_t kMaxDimension = int64_t(1) << 20;
constexpr double kMaxTflops = 10000.0;  // 10 PFLOP/s: no GPU comes near it on a dense GEMM
constexpr size_t kMaxTextLength = 200;
constexpr size_t kMaxBenchFileBytes = size_t(16) << 20;
constexpr int kMaxBenchDepth = 16;  // the format nests 4 deep

[[noreturn]] void bad_field(const std::string& where, const std::string& message) {
  throw std::invalid_argument(fmt::format("bench JSON: {}{}", where.empty() ? "" : where + ": ", message));
}

// A value as it appears in the file, cut short: a message must not quote a megabyte (nor
// dump a nested container, which nlohmann does recursively).
std::string shown(const nlohmann::json& v) {
  if (v.is_array()) return fmt::format("an array of {}", v.size());
  if (v.is_object()) return "an object";
  const std::string text = v.dump();
  return text.size() <= 40 ? text : text.substr(0, 37) + "...";
}

const nlohmann::json& required(const nlohmann::json& object, const char* key, const std::string& where,
                               const char* expected) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) bad_field(where, fmt::format("'{}' is missing ({})", key, expected));
  return *it;
}

uint32_t dimension(const nlohmann::json& shape, const char* key, const std::string& where) {
  const nlohmann::json& v = required(shape, key, where, "a positive integer");
  if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > kMaxDimension)
    bad_field(where, fmt::format("'{}' = {} is not a valid {}: give an integer from 1 to {}", key, shown(v),
                                 char(std::toupper(key[0])), kMaxDimension));
  return uint32_t(v.get<int64_t>());
}

double tflops_value(const nlohmann::json& v, const char* key, const std::string& where) {
  if (!v.is_number()) bad_field(where, fmt::format("'{}' should be a number of TFLOP/s, got {}", key, shown(v)));
  const double x = v.get<double>();
  if (!std::isfinite(x) || x <= 0.0 || x > kMaxTflops)
    bad_field(where, fmt::format("'{}' = {} TFLOP/s is not plausible: give a number above 0 and at most {}", key,
                                 shown(v), kMaxTflops));
  return x;
}

std::string text_value(const nlohmann::json& v, const char* key, const std::string& where, const char* expected) {
  if (!v.is_string() || v.get_ref<const std::string&>().empty() || v.get_ref<const std::string&>().size() > kMaxTextLength)
    bad_field(where, fmt::format("'{}' should be {} (1 to {} characters), got {}", key, expected, kMaxTextLength,
                                 shown(v)));
  return v.get<std::string>();
}

// A device description's numbers, where present, within what any GPU has.
void check_device(const nlohmann::json& d, const std::string& where) {
  if (!d.is_object()) return;  // older files name the device with a string
  struct Range {
    const char* key;
    double lo, hi;
  };
  for (const Range& r : {Range{"sms", 1, 1024}, Range{"sm_clock_mhz", 1, 10000}, Range{"mem_clock_mhz", 1, 100000},
                         Range{"mem_bus_width", 1, 65536}, Range{"cc_major", 1, 99}, Range{"cc_minor", 0, 99}}) {
    auto it = d.find(r.key);
    if (it == d.end() || it->is_null()) continue;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < r.lo || it->get<double>() > r.hi)
      bad_field(where, fmt::format("'{}' = {} is not plausible: give a number from {} to {}", r.key, shown(*it), r.lo,
                                   r.hi));
  }
  if (auto it = d.find("name"); it != d.end() && !it->is_null()) text_value(*it, "name", where, "a device name");
}

// One result, checked field by field. nullopt: a failed run without timing (nothing to plot).
struct BenchPoint {
  std::string kernel;
  kernels::GemmShape shape;
  std::string device;
  std::string params;  // non-default build parameters, "" for the kernel as it ships
  ThroughputPoint point;
  std::optional<DeviceCeilings> ceilings;
};

// A result's "params" ({"stages": 3}, from bench files since build parameters were added).
kernels::ParamValues params_value(const nlohmann::json& j, const std::string& where) {
  const std::string at = where.empty() ? "params" : where + ".params";
  if (!j.is_object()) bad_field(where, fmt::format("'params' should be {{name: whole number}}, got {}", shown(j)));
  kernels::ParamValues values;
  for (const auto& [name, value] : j.items()) {
    if (!value.is_number_integer() || value.get<int64_t>() < 0 || value.get<int64_t>() > int64_t(UINT32_MAX))
      bad_field(at, fmt::format("'{}' should be a whole number, got {}", name, shown(value)));
    values[name] = value.get<uint32_t>();
  }
  return values;
}

// A result's "mistakes" (["swap-row-col"]): a mistake's run is a variant of its own, never a
// point of the kernel as it ships.
std::vector<std::string> mistakes_value(const nlohmann::json& j, const std::string& where) {
  const std::string at = where.empty() ? "mistakes" : where + ".mistakes";
  if (!j.is_array() || j.size() > 64) bad_field(where, fmt::format("'mistakes' should be an array of names, got {}", shown(j)));
  std::vector<std::string> out;
  for (const nlohmann::json& m : j) out.push_back(text_value(m, "mistakes", at, "a mistake's name"));
  return out;
}

// What bench says of how it measured (optional, and read leniently: a figure that is not a
// number of a sensible size is left out, never trusted): the paired rounds' ratio and quartiles,
// the card's power and temperature, the reasons for a held-down clock, the method in words.
void read_measurement_method(const nlohmann::json& j, MeasurementNotes& p) {
  const auto number = [](const nlohmann::json& v, double lo, double hi) -> std::optional<double> {
    if (!v.is_number()) return std::nullopt;
    const double x = v.get<double>();
    return std::isfinite(x) && x >= lo && x <= hi ? std::optional<double>(x) : std::nullopt;
  };
  if (auto it = j.find("method"); it != j.end() && it->is_string() && it->get_ref<const std::string&>().size() < 1000)
    p.method = it->get<std::string>();
  if (auto it = j.find("ratio_iqr"); it != j.end() && it->is_array() && it->size() == 2) {
    p.ratio_q1 = number((*it)[0], 0.0, 1000.0);
    p.ratio_q3 = number((*it)[1], 0.0, 1000.0);
    if (auto r = j.find("ratio_vs_cublas"); r != j.end()) p.ratio_paired = number(*r, 0.0, 1000.0);
  }
  // The clock the SMs counted (files since 2026-12-02); NVML's reported clock is never read as it.
  if (auto it = j.find("sm_clock_counted_mhz"); it != j.end()) p.counted_clock_mhz = number(*it, 100.0, 10000.0);
  if (auto it = j.find("cublas_clock_set_mhz"); it != j.end()) p.cublas_clock_set_mhz = number(*it, 100.0, 10000.0);
  if (auto it = j.find("sustained_ms"); it != j.end()) p.sustained_ms = number(*it, 0.0, 1e7);
  if (auto it = j.find("cublas_conditions"); it != j.end() && it->is_object())
    if (auto pw = it->find("power_w"); pw != it->end() && pw->is_object() && pw->contains("median"))
      p.cublas_power_w = number((*pw)["median"], 0.0, 100000.0);
  if (auto it = j.find("conditions"); it != j.end() && it->is_object()) {
    if (auto pw = it->find("power_w"); pw != it->end() && pw->is_object() && pw->contains("median"))
      p.power_w = number((*pw)["median"], 0.0, 100000.0);
    if (auto t = it->find("temperature_c_max"); t != it->end())
      if (const std::optional<double> c = number(*t, 0.0, 1000.0)) p.temp_c = uint32_t(*c);
    if (auto l = it->find("clock_limits"); l != it->end() && l->is_array() && l->size() <= 16)
      for (const nlohmann::json& name : *l)
        if (name.is_string() && name.get_ref<const std::string&>().size() < 64) p.clock_limits.push_back(name);
  }
}

std::optional<BenchPoint> read_result(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) bad_field(where, fmt::format("a result should be an object, got {}", shown(j)));
  if (j.contains("status") && j["status"].is_string() && j["status"] != "ok" &&
      (!j.contains("tflops") || j["tflops"].is_null()))
    return std::nullopt;
  BenchPoint p;
  p.kernel = text_value(required(j, "kernel", where, "a kernel id"), "kernel", where, "a kernel id");
  const nlohmann::json& shape = required(j, "shape", where, "{m, n, k}");
  if (!shape.is_object()) bad_field(where, fmt::format("'shape' should be {{m, n, k}}, got {}", shown(shape)));
  const std::string shape_where = where.empty() ? "shape" : where + ".shape";
  p.shape = {dimension(shape, "m", shape_where), dimension(shape, "n", shape_where), dimension(shape, "k", shape_where)};
  const nlohmann::json& tflops = required(j, "tflops", where, "{median, min, max}");
  if (!tflops.is_object()) bad_field(where, fmt::format("'tflops' should be {{median, min, max}}, got {}", shown(tflops)));
  const std::string tflops_where = where.empty() ? "tflops" : where + ".tflops";
  p.point.tflops = tflops_value(required(tflops, "median", tflops_where, "a number"), "median", tflops_where);
  if (auto it = j.find("cublas_tflops"); it != j.end() && !it->is_null())
    p.point.cublas_tflops = tflops_value(*it, "cublas_tflops", where);
  read_measurement_method(j, p.point.notes);
  kernels::ParamValues params;
  std::vector<std::string> mistakes;
  if (auto it = j.find("params"); it != j.end() && !it->is_null()) params = params_value(*it, where);
  if (auto it = j.find("mistakes"); it != j.end() && !it->is_null()) mistakes = mistakes_value(*it, where);
  p.params = variant_build(p.kernel, params, mistakes);
  p.device = "GPU";
  if (auto it = j.find("device"); it != j.end() && it->is_string()) p.device = text_value(*it, "device", where, "a device name");
  // A result that describes its GPU (live runs, and files of `gemmscope bench --json` since
  // device_info was added) sets the roofline's ceilings, as a file's top-level device does.
  if (auto it = j.find("device_info"); it != j.end()) {
    check_device(*it, where.empty() ? "device_info" : where + ".device_info");
    p.ceilings = ceilings_from_device(*it);
  }
  return p;
}

std::string indexed(const std::string& where, size_t i) { return fmt::format("{}[{}]", where, i); }

// The results of a report object {device, results: [...]}.
void read_report(const nlohmann::json& j, const std::string& where, std::vector<BenchPoint>& points,
                 std::optional<DeviceCeilings>& ceilings) {
  const nlohmann::json& results = j["results"];
  const std::string results_where = where.empty() ? "results" : where + ".results";
  if (!results.is_array()) bad_field(where, "'results' should be an array of results");
  for (size_t i = 0; i < results.size(); ++i)
    if (auto p = read_result(results[i], indexed(results_where, i))) points.push_back(std::move(*p));
  if (auto it = j.find("device"); it != j.end()) {
    check_device(*it, where.empty() ? "device" : where + ".device");
    if (auto c = ceilings_from_device(*it)) ceilings = c;
  }
}

}  // namespace

int Measurements::add_bench_json(const nlohmann::json& j, MeasurementSource source, double t) {
  // The forms `gemmscope bench --json` and the app produce: a report, one result, or an array
  // of either. No deeper: the walk is two loops, never a recursion a file could drive.
  // Everything is checked before anything is added, so a bad file adds nothing.
  std::vector<BenchPoint> points;
  std::optional<DeviceCeilings> file_ceilings;
  const auto read_one = [&](const nlohmann::json& item, const std::string& where) {
    if (item.is_object() && item.contains("results")) read_report(item, where, points, file_ceilings);
    else if (auto p = read_result(item, where)) points.push_back(std::move(*p));
  };
  if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      if (!j[i].is_object()) bad_field(indexed("", i), fmt::format("expected an object (a result or a report), got {}", shown(j[i])));
      read_one(j[i], indexed("", i));
    }
  } else if (j.is_object()) {
    read_one(j, "");
  } else {
    bad_field("", fmt::format("expected an object or an array of objects, got {}", shown(j)));
  }
  int n = 0;
  for (BenchPoint& p : points) {
    if (p.ceilings) ceilings = *p.ceilings;
    p.point.t = t + 1e-3 * n++;
    variant(p.kernel, p.shape, source, p.device, p.params).points.push_back(p.point);
  }
  if (file_ceilings) ceilings = *file_ceilings;
  return n;
}

void Measurements::add_model_prediction(const std::string& kernel_id, kernels::GemmShape shape, double tflops,
                                        std::string_view machine, double t, std::optional<ModelPrediction> parts,
                                        const std::string& params) {
  variant(kernel_id, shape, MeasurementSource::model, fmt::format("model ({})", machine), params)
      .points.push_back({t, tflops, std::nullopt, std::move(parts)});
}

int Measurements::import_file(const std::string& path, double t) {
  if (path.empty()) throw std::runtime_error("no file named: give the path of a `gemmscope bench --json` file");
  nlohmann::json j;
  try {
    j = run::parse_json_bounded(run::read_input_file(path, kMaxBenchFileBytes), kMaxBenchDepth);
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    // read_input_file names the path itself; the parser's messages need it.
    if (what.find(path) != std::string::npos) throw;
    throw std::runtime_error(fmt::format("'{}' is {} (expected `gemmscope bench --json` output)", path, what));
  }
  try {
    return add_bench_json(j, MeasurementSource::imported, t);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(fmt::format("'{}': {}", path, e.what()));
  }
}

}  // namespace gs::gui
