#include "gui/core/roofline.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "engine/model/machine_ceilings.hpp"
#include "gui/core/app_state.hpp"

namespace gs::gui {

RoofVerdict roof_verdict(double intensity, bool fp32, const DeviceCeilings& c) {
  RoofVerdict v;
  v.intensity = intensity;
  v.fp32 = fp32;
  v.ceiling_tflops = fp32 ? c.fp32_tflops : c.tensor_tflops;
  v.ridge = c.memory_tbps > 0.0 ? v.ceiling_tflops / c.memory_tbps : 0.0;
  v.roof_tflops = std::min(v.ceiling_tflops, c.memory_tbps * intensity);
  v.memory_bound = intensity < v.ridge;
  return v;
}

nlohmann::json verdict_json(const RoofVerdict& v) {
  return {{"intensity", v.intensity},           {"fp32", v.fp32},
          {"ceiling_tflops", v.ceiling_tflops}, {"ridge", v.ridge},
          {"roof_tflops", v.roof_tflops},       {"roof", v.roof_name()},
          {"memory_bound", v.memory_bound}};
}

std::string machine_of(const DeviceCeilings& c) {
  const model::timing::Machine* m = model::timing::machine_named_in(c.name);
  return m ? std::string(m->name) : c.name;
}

DeviceCeilings figure_ceilings(const AppState& app) {
  const DeviceCeilings& measured = app.measurements.ceilings;
  if (!app.kernel) return measured;
  // The card the kernel on screen is predicted on (an H200 found here or asked for: its ceilings).
  const model::timing::Machine* predicted_on = app.kernel->report.result.stats.predicted_on;
  const model::timing::Machine& m = predicted_on ? *predicted_on : model::timing::machine_for(app.kernel->kernel().target);
  if (machine_of(measured) == m.name) return measured;
  const model::timing::MachineCeilings& c = model::timing::ceilings_of(m);
  DeviceCeilings d;
  d.name = fmt::format("{} ({})", m.name, m.confirmed ? "reference" : "NVIDIA's figures, unconfirmed");
  d.tensor_tflops = c.tensor_tflops;
  d.fp32_tflops = c.fp32_tflops;
  d.memory_tbps = c.memory_tbps;
  d.basis = c.source;
  d.tensor_clock_mhz = model::timing::tensor_ceiling_mhz(m);
  d.fp32_clock_mhz = model::timing::fp32_ceiling_mhz(m);
  return d;
}

std::optional<HeldCeiling> held_ceiling(const std::vector<ThroughputRow>& rows, const DeviceCeilings& figure,
                                        const std::string& kernel_id, kernels::GemmShape shape) {
  std::optional<size_t> best;
  bool best_fp32 = false;
  const auto rank = [&](const ThroughputRow& r) {
    const bool same_shape = r.shape.m == shape.m && r.shape.n == shape.n && r.shape.k == shape.k;
    return std::make_tuple(same_shape, r.source == MeasurementSource::gpu, r.ts.empty() ? 0.0 : r.ts.back());
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    const ThroughputRow& r = rows[i];
    if (r.source == MeasurementSource::model || r.kernel_id != kernel_id || !r.notes.counted_clock_mhz) continue;
    const RooflineRow on = roofline_row(r, figure);
    if (!on.on_figure) continue;
    if (!best || rank(r) >= rank(rows[*best])) {
      best = i;
      best_fp32 = on.fp32;
    }
  }
  if (!best) return std::nullopt;
  const ThroughputRow& r = rows[*best];
  HeldCeiling h;
  h.row = *best;
  h.label = r.label;
  h.fp32 = best_fp32;
  h.rated_tflops = h.fp32 ? figure.fp32_tflops : figure.tensor_tflops;
  h.rated_clock_mhz = h.fp32 ? figure.fp32_clock_mhz : figure.tensor_clock_mhz;
  h.clock_mhz = *r.notes.counted_clock_mhz;
  h.tflops = figure.compute_tflops_at(h.fp32, h.clock_mhz);
  h.text = fmt::format("{} {:.0f} TFLOP/s at {:.2f} GHz; this run held {:.2f} GHz: {:.0f}",
                       h.fp32 ? "fp32 SIMT" : "bf16 tensor", h.rated_tflops, h.rated_clock_mhz / 1000.0,
                       h.clock_mhz / 1000.0, h.tflops);
  return h;
}

nlohmann::json held_json(const std::optional<HeldCeiling>& h) {
  if (!h) return nullptr;
  return {{"run", h->label},           {"fp32", h->fp32},
          {"rated_tflops", h->rated_tflops}, {"rated_clock_mhz", h->rated_clock_mhz},
          {"clock_mhz", h->clock_mhz}, {"tflops", h->tflops},
          {"text", h->text}};
}

RooflineRow roofline_row(const ThroughputRow& r, const DeviceCeilings& figure) {
  RooflineRow out;
  const kernels::KernelInfo* info = kernels::find_kernel(r.kernel_id);
  out.fp32 = info && info->ab_dtype == kernels::DType::f32;
  // A row ran on the card its device names ("model (H200)", "NVIDIA H200"); a model row that
  // names none on the machine its kernel's target runs on.
  const model::timing::Machine* m = model::timing::machine_named_in(r.device);
  if (!m && r.source == MeasurementSource::model && info) m = &model::timing::machine_for(info->arch);
  out.machine = m ? std::string(m->name) : r.device;
  out.on_figure = out.machine == machine_of(figure);
  out.verdict = roof_verdict(r.intensity, out.fp32, figure);
  return out;
}

std::optional<RoofVerdict> kernel_verdict(const AppState& app, const DeviceCeilings& figure) {
  if (!app.kernel) return std::nullopt;
  const run::SimReport& r = app.kernel->report;
  return roof_verdict(gemm_intensity(r.shape, r.ab_dtype, r.c_dtype), r.ab_dtype == kernels::DType::f32, figure);
}

std::string roofline_caption(const ThroughputData& d, const RoofVerdict& v) {
  const DeviceCeilings& c = d.ceilings;
  std::string text = fmt::format(
      "x = {:.3g} FLOP per byte of DRAM: A and B read once and C written once, the fewest bytes any kernel "
      "moves. The roof over it on {} is {}: {} (ridge {:.3g}).",
      v.intensity, c.name,
      v.memory_bound ? fmt::format("the memory roof, {:.2f} TB/s x {:.3g} = {:.0f} TFLOP/s", c.memory_tbps,
                                   v.intensity, v.roof_tflops)
                     : fmt::format("the {} ceiling, {:.0f} TFLOP/s", v.fp32 ? "fp32 SIMT" : "bf16 tensor",
                                   v.roof_tflops),
      v.memory_bound ? "memory-bound" : "compute-bound", v.ridge);
  if (d.held)
    text += fmt::format(" {} TFLOP/s ({}, the clock its SMs counted).", d.held->text, d.held->label);
  if (d.achieved)
    text += fmt::format(
        " Through L2 the traced CTA fetches {} bytes (32-byte sectors and TMA) for {:.3g} FLOP: {:.3g} FLOP per "
        "L2 byte{}.",
        d.achieved->sector_bytes + d.achieved->tma_bytes, d.achieved->flops, d.achieved->intensity(),
        d.achieved->extrapolated ? " (its fast-forwarded passes included, as the model extrapolated its counted work, where a global load's "
                                       "bytes are its L1 misses)" : "");
  return text;
}

}  // namespace gs::gui
