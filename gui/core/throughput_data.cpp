#include "gui/core/throughput_data.hpp"

#include "gui/core/speed_ladder.hpp"

#include "engine/model/prediction_compare.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/model/machine_ceilings.hpp"
#include "gui/core/app_state.hpp"
#include "gui/core/roofline.hpp"
#include "gui/core/view_data.hpp"

namespace gs::gui {

const char* gpu_availability_name(GpuAvailability g) {
  switch (g) {
    case GpuAvailability::unknown: return "unknown";
    case GpuAvailability::benchmarking: return "benchmarking";
    case GpuAvailability::found: return "found";
    case GpuAvailability::not_found: return "not found";
    case GpuAvailability::failing: return "failing";
  }
  return "?";
}

namespace {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

bool same_shape(kernels::GemmShape a, kernels::GemmShape b) { return a.m == b.m && a.n == b.n && a.k == b.k; }

}  // namespace

GpuNote gpu_note(const AppState& app) {
  if (const Job* j = app.running_job(JobKind::gpu_bench)) {
    const std::string st = j->status();
    return {GpuAvailability::benchmarking, "Benchmarking on the GPU" + (st.empty() ? std::string("…") : ": " + st)};
  }
  // The newest word from the GPU runner decides: a warning means no driver or no device.
  const Problem* last_gpu_problem = nullptr;
  for (const Problem& p : app.problems)
    if (p.source == "gpu") last_gpu_problem = &p;
  if (last_gpu_problem && last_gpu_problem->severity == Severity::warning)
    return {GpuAvailability::not_found,
            fmt::format("No GPU found ({}): showing the model's predictions and imported results.",
                        first_line(last_gpu_problem->detail.empty() ? last_gpu_problem->title
                                                                    : last_gpu_problem->detail))};
  const Variant* gpu = nullptr;
  for (const Variant& v : app.measurements.variants)
    if (v.source == MeasurementSource::gpu) gpu = &v;
  if (gpu) return {GpuAvailability::found, fmt::format("GPU found: {}.", gpu->device)};
  if (last_gpu_problem)
    return {GpuAvailability::failing, fmt::format("The GPU bench failed: {} (see Problems).", last_gpu_problem->title)};
  return {GpuAvailability::unknown,
          "No GPU benchmark run yet: the model's prediction and imported results are shown."};
}

std::optional<AchievedIntensity> achieved_intensity(const LoadedKernel& k) {
  const model::Trace& t = k.trace();
  AchievedIntensity a;
  a.kernel_id = k.request.kernel_id;
  a.shape = k.report.shape;
  a.mistakes = !k.request.mistakes.empty();
  a.fp32 = k.report.ab_dtype == kernels::DType::f32;
  for (const model::GlobalAccess& g : t.global) a.sector_bytes += uint64_t(g.sectors) * 32;
  for (const model::TmaTransfer& x : t.tma) a.tma_bytes += x.bytes;
  // Distinct elements of C the traced CTA wrote (a store may write an element twice).
  std::vector<uint64_t> elements;
  for (const model::CWrite& w : t.c_writes) elements.push_back(w.byte_offset);
  std::sort(elements.begin(), elements.end());
  elements.erase(std::unique(elements.begin(), elements.end()), elements.end());
  a.flops = 2.0 * double(k.report.shape.k) * double(elements.size());
  if (!t.fast_forwards.empty()) {
    // Fast-forward skipped passes the trace does not hold: the bytes are the CTA's counted work,
    // which the model extrapolated over the skips (timing::CtaCost), and the tiles an outer
    // loop skipped (a persistent CTA's) add their share of C to the FLOPs. A skip of K
    // iterations leaves the elements' count whole: each is still 2K FLOP.
    const model::timing::CtaCost& c = k.report.result.stats.traced_cost;
    a.extrapolated = true;
    a.sector_bytes = c.global_load_bytes + c.global_store_bytes;
    a.tma_bytes = c.tma_bytes;
    // Each role of a persistent CTA (producer, consumers) walks the same tiles in a loop of its
    // own: the largest share skipped is the tiles' (not the product over the roles' loops).
    double tiles = 1.0;
    for (const model::FastForward& f : t.fast_forwards)
      if (!f.k_loop && f.passes > f.count) tiles = std::max(tiles, double(f.passes) / double(f.passes - f.count));
    a.flops *= tiles;
  }
  if (a.flops <= 0.0 || a.sector_bytes + a.tma_bytes == 0) return std::nullopt;
  return a;
}

double achieved_ridge(const AchievedIntensity& a, const DeviceCeilings& c) {
  const double peak = a.fp32 ? c.fp32_tflops : c.tensor_tflops;
  return c.memory_tbps > 0.0 ? peak / c.memory_tbps : 0.0;
}

std::vector<PredictionPart> prediction_parts(const model::timing::Prediction& pr) {
  std::vector<PredictionPart> parts;
  if (pr.cycles_per_wave <= 0.0) return parts;
  const std::string bound = pr.parts.bound;
  uint32_t i = 0;
  for (const model::timing::PartRow& row : model::timing::breakdown_rows(pr.parts)) {
    parts.push_back({row.name, row.meaning, row.cycles, row.cycles / pr.cycles_per_wave, bound == row.name, i});
    ++i;
  }
  return parts;
}

std::string error_text(double error) { return fmt::format("{:+.1f}%", 100.0 * error); }

namespace {

constexpr double kNotKnown = std::numeric_limits<double>::quiet_NaN();

// The SM clock under one point: what the SMs counted in a measured run, the clock the model's
// prediction is at for a model point; NaN when neither is known.
double point_clock_mhz(const ThroughputPoint& p) {
  if (p.notes.counted_clock_mhz) return *p.notes.counted_clock_mhz;
  if (p.model && p.model->prediction.clock_hz > 0.0) return p.model->prediction.clock_hz / 1e6;
  return kNotKnown;
}

std::string group_digits(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return s;
}

std::string shape_words(kernels::GemmShape s) {
  return s.m == s.n && s.n == s.k ? fmt::format("{}³", s.m) : fmt::format("{}x{}x{}", s.m, s.n, s.k);
}

// The prediction's parts as the model recorded them with its point, in the words `sim` prints.
void fill_parts(PredictionRow& p, const ModelPrediction& mp) {
  const model::timing::Prediction& pr = mp.prediction;
  if (pr.waves == 0 || pr.cycles_per_wave <= 0.0) return;
  p.has_parts = true;
  p.bound = pr.parts.bound;
  p.cycles_per_wave = pr.cycles_per_wave;
  p.waves = pr.waves;
  p.parts = prediction_parts(pr);
  p.wave_line = fmt::format("{} wave{} of {} SMs x {} CTA{}, {} cycles per wave at {:.0f} MHz", pr.waves,
                            pr.waves == 1 ? "" : "s", mp.sms, pr.resident, pr.resident == 1 ? "" : "s",
                            group_digits(uint64_t(pr.cycles_per_wave)), pr.clock_hz / 1e6);
  p.clock_line = pr.clock_basis.empty() ? "" : "clock: " + pr.clock_basis;
  if (pr.launch_seconds > 0.0)
    p.launch_line = fmt::format("launch: {:.1f} us ({:.0f}% of the time): {}", pr.launch_seconds * 1e6,
                                pr.seconds > 0.0 ? 100.0 * pr.launch_seconds / pr.seconds : 0.0, pr.launch_basis);
  p.coupling_line = pr.coupling_basis.empty() ? "" : "clusters: " + pr.coupling_basis;
  p.drift_line = pr.drift_basis.empty() ? "" : "drift: " + pr.drift_basis;
  p.occupancy_line = fmt::format("occupancy: up to {} CTA{} per SM, bound by {}; registers: {}", pr.ctas_per_sm,
                                 pr.ctas_per_sm == 1 ? "" : "s", pr.occupancy_bound, mp.registers);
}

// The model's rows beside their measurements.
std::vector<PredictionRow> prediction_rows(const Measurements& m, const std::vector<ThroughputRow>& rows) {
  std::vector<PredictionRow> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const ThroughputRow& r = rows[i];
    if (r.source != MeasurementSource::model) continue;
    const Variant& v = m.variants[r.variant];
    PredictionRow p;
    p.kernel_id = r.kernel_id;
    p.shape = r.shape;
    p.params = v.params;
    p.label = fmt::format("{}{} {}", r.kernel_id, v.params.empty() ? "" : " " + v.params, shape_words(r.shape));
    p.color_slot = r.color_slot;
    p.model_row = i;
    p.predicted_tflops = r.latest_tflops;
    const model::timing::Machine* predicted_on = model::timing::machine_named_in(r.device);
    p.machine = predicted_on ? predicted_on->name : r.device;
    if (const std::optional<ModelPrediction>& mp = v.points.back().model) fill_parts(p, *mp);
    // The latest GPU run of the same build wins; else the latest imported result.
    for (size_t j = 0; j < rows.size(); ++j) {
      const ThroughputRow& q = rows[j];
      if (q.source == MeasurementSource::model || q.kernel_id != r.kernel_id || !same_shape(q.shape, r.shape) ||
          m.variants[q.variant].params != v.params)
        continue;
      const bool better = !p.measured_row || (q.source == MeasurementSource::gpu &&
                                              rows[*p.measured_row].source != MeasurementSource::gpu) ||
                          (q.source == rows[*p.measured_row].source && q.ts.back() >= rows[*p.measured_row].ts.back());
      if (better) p.measured_row = j;
    }
    if (p.measured_row) {
      const ThroughputRow& q = rows[*p.measured_row];
      p.measured_tflops = q.latest_tflops;
      p.measured_source = measurement_source_name(q.source);
      p.measured_device = q.device;
      if (q.latest_tflops > 0.0) p.error = p.predicted_tflops / q.latest_tflops - 1.0;
      p.same_machine = model::timing::machine_named_in(q.device) == predicted_on;
    }
    out.push_back(std::move(p));
  }
  // Ladder order (the registry's), then the shape.
  const auto step_of = [](const std::string& id) {
    const kernels::KernelInfo* info = kernels::find_kernel(id);
    return info ? info->step : 1000;
  };
  std::stable_sort(out.begin(), out.end(), [&](const PredictionRow& a, const PredictionRow& b) {
    const auto ka = std::make_tuple(step_of(a.kernel_id), a.kernel_id, a.shape.m, a.shape.n, a.shape.k);
    const auto kb = std::make_tuple(step_of(b.kernel_id), b.kernel_id, b.shape.m, b.shape.n, b.shape.k);
    return ka < kb;
  });
  return out;
}

// Each step beside the step before it in the Predicted table: both as they ship, at one shape,
// predicted on one card, each with its recorded prediction.
std::vector<StepComparison> step_comparisons(const Measurements& m, const std::vector<ThroughputRow>& rows,
                                             const std::vector<PredictionRow>& predictions) {
  std::vector<StepComparison> out;
  const auto prediction_of = [&](const PredictionRow& p) -> const ModelPrediction* {
    const std::optional<ModelPrediction>& mp = m.variants[rows[p.model_row].variant].points.back().model;
    return mp && mp->prediction.waves > 0 ? &*mp : nullptr;
  };
  const PredictionRow* prev = nullptr;
  for (const PredictionRow& p : predictions) {
    if (!p.params.empty() || !prediction_of(p)) continue;
    if (prev && same_shape(prev->shape, p.shape) && prev->machine == p.machine && prev->kernel_id != p.kernel_id) {
      const model::timing::PredictionComparison c =
          model::timing::compare_predictions(prediction_of(*prev)->prediction, prev->kernel_id,
                                             prediction_of(p)->prediction, p.kernel_id);
      StepComparison s;
      s.from = prev->kernel_id;
      s.to = p.kernel_id;
      s.shape = p.shape;
      s.machine = p.machine;
      s.predicted_speedup = c.speedup;
      s.bound_from = c.bound_a;
      s.bound_to = c.bound_b;
      s.lines = c.lines;
      if (prev->measured_tflops && p.measured_tflops && *prev->measured_tflops > 0.0 &&
          prev->measured_device == p.measured_device)
        s.measured_speedup = *p.measured_tflops / *prev->measured_tflops;
      out.push_back(std::move(s));
    }
    prev = &p;
  }
  return out;
}

}  // namespace

ThroughputData prepare_throughput(const AppState& app) {
  ThroughputData d;
  if (app.kernel) d.achieved = achieved_intensity(*app.kernel);
  const Measurements& m = app.measurements;
  d.ceilings = figure_ceilings(app);  // the machine the figure is for (roofline.hpp)
  d.gpu = gpu_note(app);
  std::vector<std::pair<std::string, kernels::GemmShape>> slots;  // (kernel, shape) -> colour
  for (size_t i = 0; i < m.variants.size(); ++i) {
    const Variant& v = m.variants[i];
    if (v.points.empty()) continue;
    ThroughputRow r;
    r.variant = i;
    r.label = v.label();
    r.kernel_id = v.kernel_id;
    r.shape = v.shape;
    r.source = v.source;
    r.device = v.device;
    auto slot = std::find_if(slots.begin(), slots.end(), [&](const auto& s) {
      return s.first == v.kernel_id && same_shape(s.second, v.shape);
    });
    if (slot == slots.end()) slot = slots.insert(slots.end(), {v.kernel_id, v.shape});
    r.color_slot = int(slot - slots.begin());
    for (const ThroughputPoint& p : v.points) {
      r.ts.push_back(p.t);
      r.tflops.push_back(p.tflops);
      r.clock_mhz.push_back(point_clock_mhz(p));
      r.power_w.push_back(p.notes.power_w.value_or(kNotKnown));
      r.cublas_clock_set_mhz.push_back(p.notes.cublas_clock_set_mhz.value_or(kNotKnown));
      r.cublas_power_w.push_back(p.notes.cublas_power_w.value_or(kNotKnown));
    }
    r.latest_tflops = v.latest_tflops();
    // cuBLAS measured with the latest point when it was; else the latest cuBLAS figure.
    r.cublas_tflops = v.points.back().cublas_tflops ? v.points.back().cublas_tflops : v.latest_cublas();
    if (r.cublas_tflops && *r.cublas_tflops > 0.0) r.ratio = r.latest_tflops / *r.cublas_tflops;
    r.notes = v.points.back().notes;
    if (r.notes.paired()) r.ratio = r.notes.ratio_paired;
    r.intensity = m.intensity_of(v);
    if (d.achieved && d.achieved->kernel_id == v.kernel_id &&
        (!d.achieved->mistakes || (v.source == MeasurementSource::model && same_shape(v.shape, d.achieved->shape))))
      r.achieved_intensity = d.achieved->intensity();
    d.rows.push_back(std::move(r));
  }
  d.predictions = prediction_rows(m, d.rows);
  d.comparisons = step_comparisons(m, d.rows, d.predictions);
  if (app.kernel) d.held = held_ceiling(d.rows, d.ceilings, app.kernel->request.kernel_id, app.kernel->report.shape);
  for (const SpeedRow& r : speed_rows(app)) {
    const kernels::KernelInfo* info = kernels::find_kernel(r.kernel_id);
    if (info && info->family == kernels::Family::blackwell)
      d.published.push_back({r.step, r.kernel_id, r.title, r.predicted, r.published});
  }
  return d;
}

std::string default_bench_json_path() {
  const std::string p = "docs/results/2026-11-21-h100/bench.json";
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) ? p : std::string();
}

ThroughputControls default_throughput_controls() {
  ThroughputControls c;
  for (const kernels::KernelInfo& k : kernels::all_kernels()) c.kernel_ids.push_back(k.id);
  c.import_path = default_bench_json_path();
  return c;
}

kernels::GemmShape bench_shape(const ThroughputControls& c) {
  constexpr size_t n = std::size(kBenchSizes);
  if (c.shape_choice >= 0 && size_t(c.shape_choice) < n) {
    const uint32_t s = kBenchSizes[c.shape_choice];
    return {s, s, s};
  }
  return c.custom;
}

int import_bench_json(AppState& app, const std::string& path) {
  try {
    const int n = app.measurements.import_file(path, app.seconds_since_start());
    app.status = fmt::format("imported {} result(s) from {}", n, path);
    if (n == 0)
      app.add_problem({Severity::warning, "app", "import", "nothing to plot in " + path,
                       "The file holds no successful benchmark result (every result failed or the list is empty)."});
    return n;
  } catch (const std::exception& e) {
    app.add_problem({Severity::error, "app", "import", "cannot import " + path, e.what()});
    app.status = e.what();
    return 0;
  }
}

// How a measured row was measured (bench's "method"), broken into lines for a tooltip.
std::string method_tooltip(const ThroughputRow& r) {
  std::string out = "How it was measured: ", line;
  for (char c : r.notes.method) {
    line += c;
    if (c == ';') {
      out += line + "\n";
      line.clear();
    }
  }
  return out + line;
}

// The card while the row's latest point ran: power, temperature and NVML's reasons for a
// held-down clock (not the held clock: NVML reports the driver's, cuda/nvml.hpp).
std::string power_tooltip(const ThroughputRow& r) {
  const MeasurementNotes& n = r.notes;
  std::string out = n.power_w ? fmt::format("median power {:.0f} W", *n.power_w) : "power not sampled";
  if (n.temp_c) out += fmt::format(", highest temperature {} C", *n.temp_c);
  if (n.counted_clock_mhz) out += fmt::format("\nthe SMs counted {:.0f} MHz", *n.counted_clock_mhz);
  out += n.under_power_limit()
             ? fmt::format("\ntimed after {:.1f} s of load: the card under its power limit", *n.sustained_ms / 1000.0)
             : std::string("\ntimed a few launches after a start: above the clock the power limit leaves "
                           "(bench --sustain 2000 times it under the limit)");
  if (n.cublas_power_w || n.cublas_clock_set_mhz)
    out += fmt::format("\ncuBLAS alone: {}{}", n.cublas_power_w ? fmt::format("{:.0f} W", *n.cublas_power_w) : "power not sampled",
                       n.cublas_clock_set_mhz ? fmt::format("; the clock set right after it {:.0f} MHz (a spin's count)", *n.cublas_clock_set_mhz) : "");
  out += n.clock_limits.empty() ? "\nthe driver gave no reason to hold the clock down"
                                : "\nclock held down by: " + fmt::format("{}", fmt::join(n.clock_limits, ", "));
  return out;
}

bool start_gpu_bench(AppState& app, const ThroughputControls& c) {
  const kernels::GemmShape shape = bench_shape(c);
  std::vector<std::string> ids;
  for (const std::string& id : c.kernel_ids) {
    try {
      const kernels::KernelInfo& info = kernels::kernel_or_throw(id);
      kernels::check_build_shape(info, shape);  // as the kernels ship: this button benches their defaults
      ids.push_back(id);
    } catch (const std::exception& e) {
      app.add_problem({Severity::error, "app", "config", fmt::format("cannot benchmark {} at {}x{}x{}", id, shape.m,
                                                                      shape.n, shape.k),
                       e.what()});
    }
  }
  if (ids.empty()) {
    if (c.kernel_ids.empty())
      app.add_problem({Severity::warning, "app", "config", "no kernel selected to benchmark",
                       "Tick at least one kernel in the throughput view's \"Benchmark on GPU\" list."});
    return false;
  }
  app.request_gpu_bench(ids, shape, std::clamp(c.repeats, 1, 100), {},
                        c.sustained ? ThroughputControls::kSustainMs : 0.0);
  return true;
}

nlohmann::json describe_throughput(AppState& app) {
  const ThroughputData d = prepare_throughput(app);
  const ThroughputControls& c = app.throughput_view;
  const kernels::GemmShape shape = bench_shape(c);
  nlohmann::json variants = nlohmann::json::array();
  for (const ThroughputRow& r : d.rows) {
    const RooflineRow on = roofline_row(r, d.ceilings);
    nlohmann::json points = nlohmann::json::array();
    const auto known = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    for (size_t i = 0; i < r.ts.size(); ++i)
      points.push_back({{"t", r.ts[i]},
                        {"tflops", r.tflops[i]},
                        {"clock_mhz", known(r.clock_mhz[i])},
                        {"power_w", known(r.power_w[i])},
                        {"cublas_clock_set_mhz", known(r.cublas_clock_set_mhz[i])},
                        {"cublas_power_w", known(r.cublas_power_w[i])}});
    variants.push_back({{"label", r.label},
                        {"kernel", r.kernel_id},
                        {"shape", {{"m", r.shape.m}, {"n", r.shape.n}, {"k", r.shape.k}}},
                        {"source", measurement_source_name(r.source)},
                        {"device", r.device},
                        {"points", points},
                        {"latest_tflops", r.latest_tflops},
                        {"cublas_tflops", r.cublas_tflops ? nlohmann::json(*r.cublas_tflops) : nlohmann::json(nullptr)},
                        {"ratio", r.ratio ? nlohmann::json(*r.ratio) : nlohmann::json(nullptr)},
                        {"ratio_iqr", r.notes.paired()
                                          ? nlohmann::json::array({*r.notes.ratio_q1, *r.notes.ratio_q3})
                                          : nlohmann::json(nullptr)},
                        {"power_w", r.notes.power_w ? nlohmann::json(*r.notes.power_w) : nlohmann::json(nullptr)},
                        {"temperature_c", r.notes.temp_c ? nlohmann::json(*r.notes.temp_c) : nlohmann::json(nullptr)},
                        {"clock_limits", r.notes.clock_limits},
                        {"sm_clock_counted_mhz", r.notes.counted_clock_mhz ? nlohmann::json(*r.notes.counted_clock_mhz)
                                                                           : nlohmann::json(nullptr)},
                        {"cublas_power_w", r.notes.cublas_power_w ? nlohmann::json(*r.notes.cublas_power_w)
                                                                  : nlohmann::json(nullptr)},
                        {"cublas_clock_set_mhz", r.notes.cublas_clock_set_mhz ? nlohmann::json(*r.notes.cublas_clock_set_mhz)
                                                                         : nlohmann::json(nullptr)},
                        {"sustained_ms", r.notes.sustained_ms ? nlohmann::json(*r.notes.sustained_ms)
                                                              : nlohmann::json(nullptr)},
                        {"method", r.notes.method},
                        {"intensity", r.intensity},
                        {"l2_intensity", r.achieved_intensity ? nlohmann::json(*r.achieved_intensity)
                                                              : nlohmann::json(nullptr)},
                        {"fp32", on.fp32},
                        {"machine", on.machine},
                        {"on_roofline", on.on_figure},
                        {"roof", verdict_json(on.verdict)},
                        {"color_slot", r.color_slot}});
  }
  nlohmann::json predictions = nlohmann::json::array();
  for (const PredictionRow& p : d.predictions) {
    nlohmann::json parts = nlohmann::json::array();
    for (const PredictionPart& part : p.parts)
      parts.push_back({{"name", part.name}, {"cycles", part.cycles}, {"share", part.share}, {"bound", part.bound}});
    const auto or_null = [](const std::optional<double>& x) { return x ? nlohmann::json(*x) : nlohmann::json(nullptr); };
    predictions.push_back({{"label", p.label},
                           {"kernel", p.kernel_id},
                           {"shape", {{"m", p.shape.m}, {"n", p.shape.n}, {"k", p.shape.k}}},
                           {"params", p.params},
                           {"machine", p.machine},
                           {"predicted_tflops", p.predicted_tflops},
                           {"measured_tflops", or_null(p.measured_tflops)},
                           {"measured_source", p.measured_row ? nlohmann::json(p.measured_source) : nlohmann::json(nullptr)},
                           {"measured_device", p.measured_row ? nlohmann::json(p.measured_device) : nlohmann::json(nullptr)},
                           {"error", or_null(p.error)},
                           {"error_text", p.error ? nlohmann::json(error_text(*p.error)) : nlohmann::json(nullptr)},
                           {"same_machine", p.same_machine},
                           {"bound", p.has_parts ? nlohmann::json(p.bound) : nlohmann::json(nullptr)},
                           {"cycles_per_wave", p.cycles_per_wave},
                           {"waves", p.waves},
                           {"parts", parts},
                           {"wave_line", p.wave_line},
                           {"clock_line", p.clock_line},
                           {"launch_line", p.launch_line},
                           {"coupling_line", p.coupling_line},
                           {"drift_line", p.drift_line},
                           {"occupancy_line", p.occupancy_line},
                           {"color_slot", p.color_slot}});
  }
  nlohmann::json comparisons = nlohmann::json::array();
  for (const StepComparison& s : d.comparisons)
    comparisons.push_back({{"from", s.from},
                           {"to", s.to},
                           {"shape", {{"m", s.shape.m}, {"n", s.shape.n}, {"k", s.shape.k}}},
                           {"machine", s.machine},
                           {"predicted_speedup", s.predicted_speedup},
                           {"measured_speedup", s.measured_speedup ? nlohmann::json(*s.measured_speedup)
                                                                   : nlohmann::json(nullptr)},
                           {"bound_from", s.bound_from},
                           {"bound_to", s.bound_to},
                           {"lines", s.lines}});
  nlohmann::json achieved = nullptr;
  if (d.achieved)
    achieved = {{"kernel", d.achieved->kernel_id},
                {"shape", {{"m", d.achieved->shape.m}, {"n", d.achieved->shape.n}, {"k", d.achieved->shape.k}}},
                {"mistakes", d.achieved->mistakes},
                {"flops", d.achieved->flops},
                {"sector_bytes", d.achieved->sector_bytes},
                {"tma_bytes", d.achieved->tma_bytes},
                {"l2_intensity", d.achieved->intensity()},
                {"fp32", d.achieved->fp32},
                {"extrapolated", d.achieved->extrapolated}};
  const std::optional<RoofVerdict> verdict = kernel_verdict(app, d.ceilings);
  nlohmann::json published = nlohmann::json::array();
  for (const PublishedRow& r : d.published) {
    nlohmann::json figures = nlohmann::json::array();
    for (const run::PublishedFigure* f : r.published) figures.push_back(published_json(*f));
    nlohmann::json predicted = nullptr;
    if (r.predicted && !r.predicted->done) predicted = "pending";
    else if (r.predicted && !r.predicted->error.empty()) predicted = {{"error", r.predicted->error}};
    else if (r.predicted)
      predicted = {{"tflops", r.predicted->tflops},
                   {"machine", r.predicted->machine},
                   {"confirmed", r.predicted->confirmed},
                   {"standing", prediction_standing(*r.predicted)}};
    published.push_back({{"step", r.step},
                         {"kernel", r.kernel_id},
                         {"shape", {{"m", kSpeedShape.m}, {"n", kSpeedShape.n}, {"k", kSpeedShape.k}}},
                         {"predicted", predicted},
                         {"published", figures}});
  }
  return {{"variants", variants},
          {"predictions", predictions},
          {"published", published},
          {"comparisons", comparisons},
          {"achieved", achieved},
          {"verdict", verdict ? verdict_json(*verdict) : nlohmann::json(nullptr)},
          {"caption", verdict ? roofline_caption(d, *verdict) : std::string()},
          {"ceilings",
           {{"name", d.ceilings.name},
            {"machine", machine_of(d.ceilings)},
            {"tensor_tflops", d.ceilings.tensor_tflops},
            {"fp32_tflops", d.ceilings.fp32_tflops},
            {"memory_tbps", d.ceilings.memory_tbps},
            {"ridge_intensity", d.ceilings.ridge_intensity()},
            {"tensor_clock_mhz", d.ceilings.tensor_clock_mhz},
            {"fp32_clock_mhz", d.ceilings.fp32_clock_mhz},
            {"basis", d.ceilings.basis}}},
          {"held_ceiling", held_json(d.held)},
          {"controls",
           {{"kernels", c.kernel_ids},
            {"shape_choice", c.shape_choice},
            {"shape", {{"m", shape.m}, {"n", shape.n}, {"k", shape.k}}},
            {"repeats", c.repeats},
            {"sustained", c.sustained},
            {"import_path", c.import_path}}},
          {"gpu_status", gpu_availability_name(d.gpu.state)},
          {"gpu_note", d.gpu.text},
          {"gpu_fill", gpu_fill_sentence(app)}};
}

}  // namespace gs::gui
