#include "run/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "run/sim_job.hpp"

namespace gs::run {

namespace {

nlohmann::json number_or_null(std::optional<double> v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json shape_json(const kernels::GemmShape& s) { return {{"m", s.m}, {"n", s.n}, {"k", s.k}}; }

std::string shape_text(const kernels::GemmShape& s) { return fmt::format("{}x{}x{}", s.m, s.n, s.k); }

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string csv_number(std::optional<double> v) {
  return v && std::isfinite(*v) ? fmt::format("{:.6g}", *v) : std::string();
}

// The model's run of one point: its traced CTA at the shape, as `sim --traced-cta-only` runs it
// (prediction_request: traced, so that the L1 and the store path count).
void predict(const SweepRequest& req, SweepPoint& p) {
  SimRequest sim = prediction_request(req.kernel_id, p.shape, p.params, {}, req.machine);
  sim.cancel = req.stop;
  const SimReport r = run_sim(sim);
  if (r.result.cancelled) return;
  const model::timing::Prediction& pr = r.result.stats.prediction;
  if (!r.ok()) {
    p.model_error = !r.result.completed ? "the model's run did not complete"
                                        : fmt::format("the model found {} hazard{}, the first: {}", r.result.hazards.size(),
                                                      r.result.hazards.size() == 1 ? "" : "s",
                                                      r.result.hazards.front().detail);
    return;
  }
  p.predicted_tflops = r.result.stats.predicted_tflops;
  p.predicted_seconds = pr.seconds;
  p.bound = pr.parts.bound;
  p.ctas_per_sm = pr.resident;
}

}  // namespace

std::string swept_text(const std::vector<SweepAxis>& axes, const kernels::ParamValues& swept) {
  std::string out;
  for (const SweepAxis& a : axes)
    if (auto it = swept.find(a.name); it != swept.end()) out += fmt::format("{}{}={}", out.empty() ? "" : " ", a.name, it->second);
  return out;
}

std::optional<double> SweepPoint::gpu_tflops() const {
  if (!gpu || !gpu->ok() || gpu->kernel.reps == 0) return std::nullopt;
  return tflops_of(gpu->shape, gpu->kernel.median_ms);
}

std::optional<double> SweepPoint::cublas_tflops() const {
  if (!gpu || !gpu->cublas || gpu->cublas->reps == 0) return std::nullopt;
  return tflops_of(gpu->shape, gpu->cublas->median_ms);
}

std::optional<Spread> SweepPoint::vs_cublas() const {
  if (!gpu || !gpu->paired_ratio) return std::nullopt;
  return gpu->paired_ratio;
}

void check_sweep(const SweepRequest& req) {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(req.kernel_id);
  if (req.axes.empty()) {
    std::string names;
    for (const kernels::BuildParam& p : info.params) names += (names.empty() ? "" : ", ") + p.name;
    throw kernels::ConfigError(
        info.params.empty()
            ? fmt::format("{} has no build parameters to sweep: choose a kernel that has some (`gemmscope list`)", info.id)
            : fmt::format("a sweep needs at least one --param NAME=V1,V2,...: {} takes {}", info.id, names));
  }
  std::set<std::string> seen;
  for (const SweepAxis& a : req.axes) {
    kernels::require_param(info, a.name);
    if (!seen.insert(a.name).second)
      throw kernels::ConfigError(fmt::format("--param {} is given twice: give each parameter once, with all its values "
                                             "(e.g. {}=V1,V2)",
                                             a.name, a.name));
    if (a.values.empty())
      throw kernels::ConfigError(fmt::format("--param {} has no values: give {}=V1,V2,...", a.name, a.name));
    std::set<uint32_t> values;
    for (uint32_t v : a.values) {
      kernels::require_param_value(info, a.name, v);
      if (!values.insert(v).second)
        throw kernels::ConfigError(fmt::format("--param {}: the value {} is given twice", a.name, v));
    }
  }
  if (req.shapes.empty()) throw kernels::ConfigError("a sweep needs at least one size");
}

std::vector<kernels::ParamValues> sweep_combinations(const std::vector<SweepAxis>& axes) {
  std::vector<kernels::ParamValues> out{{}};
  for (const SweepAxis& a : axes) {
    std::vector<kernels::ParamValues> next;
    for (const kernels::ParamValues& base : out)
      for (uint32_t v : a.values) {
        kernels::ParamValues p = base;
        p[a.name] = v;
        next.push_back(std::move(p));
      }
    out = std::move(next);
  }
  return out;
}

SweepResult run_sweep(const SweepRequest& req,
                      const std::function<void(const SweepPoint&, size_t done, size_t total)>& on_point) {
  check_sweep(req);
  const kernels::KernelInfo& info = kernels::kernel_or_throw(req.kernel_id);
  SweepResult result;
  result.kernel_id = info.id;
  result.axes = req.axes;
  result.gpu = req.gpu.has_value();
  result.predicted_on = (req.machine ? req.machine : &model::timing::machine_for(info.arch))->name;
  for (const kernels::GemmShape& s : req.shapes) result.shapes.push_back(info.resolve(s));
  const std::vector<kernels::ParamValues> combos = sweep_combinations(req.axes);
  result.total = combos.size() * result.shapes.size();
  const auto stopped = [&] { return req.stop && req.stop->load(); };

  size_t done = 0;
  for (const kernels::GemmShape& shape : result.shapes) {
    for (const kernels::ParamValues& combo : combos) {
      if (stopped()) {
        result.stopped = true;
        return result;
      }
      SweepPoint p;
      p.shape = shape;
      p.swept = combo;
      try {
        p.params = kernels::resolve_params(info, combo);
        kernels::check_build_shape(info, shape, p.params);
      } catch (const kernels::ConfigError& e) {
        p.params.clear();
        p.invalid = e.what();
      }
      if (p.invalid.empty()) {
        try {
          predict(req, p);
        } catch (const std::exception& e) {  // ModelError, a CTA the model cannot launch
          p.model_error = e.what();
        }
        if (stopped()) {  // the model run was cut short: the point did not finish
          result.stopped = true;
          return result;
        }
        if (req.gpu) {
          BenchRequest b = *req.gpu;
          b.kernel_id = info.id;
          b.shape = shape;
          b.params = p.params;
          b.timeline.reset();
          p.gpu = run_bench(b);
        }
      }
      ++done;
      if (on_point) on_point(p, done, result.total);
      (p.invalid.empty() ? result.points : result.invalid).push_back(std::move(p));
    }
  }
  return result;
}

double sweep_speed(const SweepPoint& p, bool gpu) {
  if (gpu) return p.gpu_tflops().value_or(-1.0);
  return p.model_error.empty() ? p.predicted_tflops : -1.0;
}

void sort_by_speed(SweepResult& r) {
  const auto shape_rank = [&](const kernels::GemmShape& s) {
    for (size_t i = 0; i < r.shapes.size(); ++i)
      if (r.shapes[i].m == s.m && r.shapes[i].n == s.n && r.shapes[i].k == s.k) return i;
    return r.shapes.size();
  };
  std::stable_sort(r.points.begin(), r.points.end(), [&](const SweepPoint& a, const SweepPoint& b) {
    const size_t sa = shape_rank(a.shape), sb = shape_rank(b.shape);
    if (sa != sb) return sa < sb;
    return sweep_speed(a, r.gpu) > sweep_speed(b, r.gpu);
  });
}

nlohmann::json sweep_json(const SweepResult& r) {
  nlohmann::json axes = nlohmann::json::array(), shapes = nlohmann::json::array(), points = nlohmann::json::array(),
                 invalid = nlohmann::json::array();
  for (const SweepAxis& a : r.axes) axes.push_back({{"name", a.name}, {"values", a.values}});
  for (const kernels::GemmShape& s : r.shapes) shapes.push_back(shape_json(s));
  for (const SweepPoint& p : r.points) {
    const std::optional<Spread> vs = p.vs_cublas();
    const bool predicted = p.model_error.empty();
    points.push_back({{"shape", shape_json(p.shape)},
                      {"swept", p.swept},
                      {"params", p.params},
                      {"predicted_tflops", number_or_null(predicted ? std::optional(p.predicted_tflops) : std::nullopt)},
                      {"predicted_seconds", number_or_null(predicted ? std::optional(p.predicted_seconds) : std::nullopt)},
                      {"bound", predicted ? nlohmann::json(p.bound) : nlohmann::json(nullptr)},
                      {"ctas_per_sm", predicted ? nlohmann::json(p.ctas_per_sm) : nlohmann::json(nullptr)},
                      {"model_error", p.model_error.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.model_error)},
                      {"gpu_tflops", number_or_null(p.gpu_tflops())},
                      {"cublas_tflops", number_or_null(p.cublas_tflops())},
                      {"vs_cublas", vs ? nlohmann::json{{"median", vs->median}, {"q1", vs->q1}, {"q3", vs->q3}}
                                       : nlohmann::json(nullptr)},
                      {"gpu", p.gpu ? bench_result_json(*p.gpu) : nlohmann::json(nullptr)}});
  }
  for (const SweepPoint& p : r.invalid)
    invalid.push_back({{"shape", shape_json(p.shape)}, {"swept", p.swept}, {"reason", p.invalid}});
  return {{"kernel", r.kernel_id}, {"predicted_on", r.predicted_on}, {"gpu", r.gpu},   {"stopped", r.stopped},
          {"total", r.total},      {"axes", axes},                   {"shapes", shapes}, {"points", points},
          {"invalid", invalid}};
}

std::string sweep_csv(const SweepResult& r) {
  std::string out = "kernel,m,n,k";
  for (const SweepAxis& a : r.axes) out += "," + csv_field(a.name);
  out += ",valid,predicted_tflops,bound,ctas_per_sm,gpu_tflops,cublas_tflops,vs_cublas,vs_cublas_q1,vs_cublas_q3,note\n";
  const auto row = [&](const SweepPoint& p) {
    out += fmt::format("{},{},{},{}", csv_field(r.kernel_id), p.shape.m, p.shape.n, p.shape.k);
    for (const SweepAxis& a : r.axes) out += "," + std::to_string(p.swept.at(a.name));
    const bool ran = p.invalid.empty(), predicted = ran && p.model_error.empty();
    const std::optional<Spread> vs = p.vs_cublas();
    out += fmt::format(",{},{},{},{},{},{},{},{},{},{}\n", ran ? "yes" : "no",
                       csv_number(predicted ? std::optional(p.predicted_tflops) : std::nullopt),
                       predicted ? csv_field(p.bound) : "", predicted ? std::to_string(p.ctas_per_sm) : "",
                       csv_number(p.gpu_tflops()), csv_number(p.cublas_tflops()),
                       csv_number(vs ? std::optional(vs->median) : std::nullopt),
                       csv_number(vs ? std::optional(vs->q1) : std::nullopt),
                       csv_number(vs ? std::optional(vs->q3) : std::nullopt),
                       csv_field(ran ? p.model_error : p.invalid));
  };
  for (const SweepPoint& p : r.points) row(p);
  for (const SweepPoint& p : r.invalid) row(p);
  return out;
}

std::string sweep_table(const SweepResult& r) {
  std::string out;
  size_t values_w = 6;
  for (const SweepPoint& p : r.points) values_w = std::max(values_w, swept_text(r.axes, p.swept).size());
  for (const kernels::GemmShape& shape : r.shapes) {
    std::vector<const SweepPoint*> rows;
    for (const SweepPoint& p : r.points)
      if (p.shape.m == shape.m && p.shape.n == shape.n && p.shape.k == shape.k) rows.push_back(&p);
    if (rows.empty()) continue;
    out += fmt::format("{} at {}, predicted on {}{}:\n", r.kernel_id, shape_text(shape), r.predicted_on,
                       r.gpu ? ", measured on the GPU (sorted by measured TFLOP/s)" : " (sorted by predicted TFLOP/s)");
    out += fmt::format("  {:>4}  {:<{}}  {:>9}  {:<14}", "rank", "values", values_w, "predicted", "bound");
    if (r.gpu) out += fmt::format("  {:>8}  {:>8}  {:>18}", "measured", "cuBLAS", "vs cuBLAS (IQR)");
    out += "\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const SweepPoint& p = *rows[i];
      const std::string predicted = p.model_error.empty() ? fmt::format("{:.2f}", p.predicted_tflops) : "-";
      out += fmt::format("  {:>4}  {:<{}}  {:>9}  {:<14}", i + 1, swept_text(r.axes, p.swept), values_w, predicted,
                         p.model_error.empty() ? p.bound : "model failed");
      if (r.gpu) {
        const auto tf = [](std::optional<double> v) { return v ? fmt::format("{:.2f}", *v) : std::string("-"); };
        const std::optional<Spread> vs = p.vs_cublas();
        out += fmt::format("  {:>8}  {:>8}  {:>18}", tf(p.gpu_tflops()), tf(p.cublas_tflops()),
                           vs ? fmt::format("{:.3f} ({:.3f}-{:.3f})", vs->median, vs->q1, vs->q3) : std::string("-"));
        if (p.gpu && !p.gpu->ok()) out += "  " + bench_summary_line(*p.gpu);
      }
      if (!p.model_error.empty()) out += "  " + p.model_error;
      out += "\n";
    }
  }
  out += "  TFLOP/s; bound: the limit of the model's breakdown that takes longest (`gemmscope sim` explains each)\n";
  if (!r.invalid.empty()) {
    out += fmt::format("{} combination{} the kernel cannot build:\n", r.invalid.size(), r.invalid.size() == 1 ? "" : "s");
    for (const SweepPoint& p : r.invalid)
      out += fmt::format("  {} at {}: {}\n", swept_text(r.axes, p.swept), shape_text(p.shape), p.invalid);
  }
  if (r.stopped)
    out += fmt::format("stopped after {} of {} points (the finished ones are above)\n", r.points.size() + r.invalid.size(),
                       r.total);
  return out;
}


namespace {

kernels::GemmShape shape_from_json(const nlohmann::json& j) {
  return {j.at("m").get<uint32_t>(), j.at("n").get<uint32_t>(), j.at("k").get<uint32_t>()};
}

bool same_shape(const kernels::GemmShape& a, const kernels::GemmShape& b) { return a.m == b.m && a.n == b.n && a.k == b.k; }

// A figure of the file: a finite number at or above 0, or null (nullopt).
std::optional<double> figure_from_json(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  const double v = j[key].get<double>();
  if (!std::isfinite(v) || v < 0.0)
    throw kernels::ConfigError(fmt::format("'{}' = {}: give a number at or above 0, or null", key, v));
  return v;
}

}  // namespace

SweepResult sweep_from_json(const nlohmann::json& j) {
  std::string where = "the file";
  try {
    if (!j.is_object() || !j.contains("points") || !j.contains("axes"))
      throw kernels::ConfigError("expected an object with 'kernel', 'axes', 'shapes' and 'points'");
    SweepResult r;
    r.kernel_id = kernels::kernel_or_throw(j.at("kernel").get<std::string>()).id;
    r.predicted_on = j.value("predicted_on", std::string());
    r.gpu = j.value("gpu", false);
    r.stopped = j.value("stopped", false);
    for (const nlohmann::json& a : j.at("axes")) {
      SweepAxis axis{a.at("name").get<std::string>(), a.at("values").get<std::vector<uint32_t>>()};
      if (axis.name.empty() || axis.values.empty() || axis.values.size() > kMaxSweepFilePoints)
        throw kernels::ConfigError(fmt::format("axis '{}' should name a parameter and give 1 to {} values", axis.name,
                                               kMaxSweepFilePoints));
      r.axes.push_back(std::move(axis));
    }
    for (const nlohmann::json& s : j.at("shapes")) r.shapes.push_back(shape_from_json(s));
    if (r.axes.empty() || r.shapes.empty()) throw kernels::ConfigError("a sweep has at least one axis and one shape");
    const size_t points = j.at("points").size() + j.value("invalid", nlohmann::json::array()).size();
    if (points > kMaxSweepFilePoints)
      throw kernels::ConfigError(fmt::format("{} points: a sweep file holds at most {}", points, kMaxSweepFilePoints));
    r.total = j.value("total", points);
    const auto read_point = [&](const nlohmann::json& p) {
      SweepPoint out;
      out.shape = shape_from_json(p.at("shape"));
      if (std::none_of(r.shapes.begin(), r.shapes.end(), [&](const auto& s) { return same_shape(s, out.shape); }))
        throw kernels::ConfigError(fmt::format("its shape {}x{}x{} is not one of the file's 'shapes'", out.shape.m,
                                               out.shape.n, out.shape.k));
      out.swept = p.at("swept").get<kernels::ParamValues>();
      for (const SweepAxis& a : r.axes) {
        const auto v = out.swept.find(a.name);
        if (v == out.swept.end() || std::find(a.values.begin(), a.values.end(), v->second) == a.values.end())
          throw kernels::ConfigError(fmt::format("its swept values ({}) are not a combination of the axes' values",
                                                 p.at("swept").dump()));
      }
      return out;
    };
    for (size_t i = 0; i < j.at("points").size(); ++i) {
      where = fmt::format("points[{}]", i);
      const nlohmann::json& p = j["points"][i];
      SweepPoint out = read_point(p);
      out.params = p.value("params", kernels::ParamValues{});
      out.model_error = p.value("model_error", nlohmann::json()).is_null() ? "" : p["model_error"].get<std::string>();
      const std::optional<double> predicted = figure_from_json(p, "predicted_tflops");
      if (!predicted && out.model_error.empty()) out.model_error = "no prediction in the file";
      out.predicted_tflops = predicted.value_or(0.0);
      out.predicted_seconds = figure_from_json(p, "predicted_seconds").value_or(0.0);
      out.bound = p.value("bound", nlohmann::json()).is_null() ? "" : p["bound"].get<std::string>();
      out.ctas_per_sm = p.value("ctas_per_sm", nlohmann::json()).is_null() ? 0 : p["ctas_per_sm"].get<uint32_t>();
      if (p.contains("gpu") && !p["gpu"].is_null()) out.gpu = bench_result_from_json(p["gpu"]);
      r.points.push_back(std::move(out));
    }
    const nlohmann::json invalid = j.value("invalid", nlohmann::json::array());
    for (size_t i = 0; i < invalid.size(); ++i) {
      where = fmt::format("invalid[{}]", i);
      SweepPoint out = read_point(invalid[i]);
      out.invalid = invalid[i].at("reason").get<std::string>();
      if (out.invalid.empty()) out.invalid = "(no reason given)";
      r.invalid.push_back(std::move(out));
    }
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw kernels::ConfigError(fmt::format("{}: not what `gemmscope sweep --json` writes: {}", where, e.what()));
  } catch (const kernels::ConfigError& e) {
    throw kernels::ConfigError(fmt::format("{}: {}", where, e.what()));
  }
}

}  // namespace gs::run
