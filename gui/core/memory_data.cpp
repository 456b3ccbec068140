#include "gui/core/memory_data.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"

namespace gs::gui {

namespace {

namespace timing = model::timing;

std::string tbs(double gbs) {
  return gbs >= 1000 ? fmt::format("{:.1f} TB/s", gbs / 1000) : fmt::format("{:.0f} GB/s", gbs);
}

// The breakdown part `name` as traffic: its cycles and share of the wave, and bytes a second.
MemoryTraffic traffic(const timing::Prediction& p, const char* name, std::string what, double amount, std::string unit,
                      bool bytes) {
  MemoryTraffic t{name, std::move(what), amount, std::move(unit)};
  for (const timing::PartRow& r : timing::breakdown_rows(p.parts))
    if (std::string_view(r.name) == name) t.cycles = r.cycles;
  t.share = p.cycles_per_wave > 0 ? t.cycles / p.cycles_per_wave : 0;
  t.bound = std::string_view(p.parts.bound) == name;
  const double wave_seconds = p.clock_hz > 0 ? p.cycles_per_wave / p.clock_hz : 0;
  t.gbs = bytes && wave_seconds > 0 ? amount / wave_seconds / 1e9 : 0;
  return t;
}

}  // namespace

std::string capacity_text(double b) {
  if (b <= 0) return "";
  if (b >= 1e9) return fmt::format("{:.0f} GB", b / 1e9);
  if (b >= 1 << 20) return fmt::format("{:.0f} MiB", b / double(1 << 20));
  return fmt::format("{:.0f} KiB", b / 1024.0);
}

std::string amount_text(const MemoryTraffic& t) {
  if (t.unit != "B") return fmt::format("{:.3g} {}", t.amount, t.unit);
  const std::string b = t.amount >= 1e9   ? fmt::format("{:.2f} GB", t.amount / 1e9)
                        : t.amount >= 1e6 ? fmt::format("{:.2f} MB", t.amount / 1e6)
                                          : fmt::format("{:.1f} KB", t.amount / 1e3);
  return t.gbs > 0 ? fmt::format("{} ({:.2f} TB/s)", b, t.gbs / 1000) : b;
}

MemoryColumn memory_column(const timing::Prediction& p, const timing::Machine& card) {
  const timing::MachineDesc& m = *card.desc;
  MemoryColumn c;
  c.card = card.name;
  c.tflops = p.tflops;
  c.cycles_per_wave = p.cycles_per_wave;
  c.clock_hz = p.clock_hz;
  c.waves = p.waves;
  c.bound = p.parts.bound;
  const double sms = m.sms.value, hz = p.clock_hz > 0 ? p.clock_hz : card.clock_hz;
  c.levels.push_back({"registers",
                      m.registers_per_sm.value * 4,
                      "per SM",
                      0,
                      "operands of every instruction, read in the same cycle: no bandwidth figure",
                      {}});
  MemoryLevel l1{"shared memory / L1",
                 m.l1_bytes.value,
                 "per SM",
                 m.shared_latency.value,
                 fmt::format("{:.0f} B/cycle per SM ({} chip), one data path for shared memory and L1 lines",
                             m.smem_bytes_per_cycle.value, tbs(m.smem_bytes_per_cycle.value * sms * hz / 1e9)),
                 {}};
  l1.traffic.push_back(traffic(p, "L1 data path", "shared-memory wavefronts and L1 lines a wave", p.parts.l1_data(),
                               "cycles per SM", false));
  if (p.parts.l1_tag > 0)
    l1.traffic.push_back(traffic(p, "L1 tag stage", "cp.async copies' line look-ups a wave", p.parts.l1_tag,
                                 "cycles per SM", false));
  c.levels.push_back(std::move(l1));
  c.levels.push_back({"DSMEM",
                      0,
                      "per cluster",
                      0,
                      "a cluster's shared memory read by its peers: not in the machine description (no probe yet)",
                      {}});
  MemoryLevel l2{"L2",
                 m.l2_bytes.value,
                 "per chip",
                 m.l2_latency.value,
                 fmt::format("{} own lines, {} lines every SM reads", tbs(m.l2_bandwidth_gbs.value),
                             tbs(m.l2_shared_read_bandwidth_gbs.value)),
                 {}};
  l2.traffic.push_back(traffic(p, "L2", "bytes through L2 a wave", p.parts.l2_bytes_per_wave, "B", true));
  c.levels.push_back(std::move(l2));
  MemoryLevel hbm{"HBM",
                  m.hbm_gb.value * 1e9,
                  "per chip",
                  m.hbm_latency.value,
                  fmt::format("{} read, {} written (peak {})", tbs(m.hbm_bandwidth_gbs.value),
                              tbs(m.hbm_write_bandwidth_gbs.value), tbs(m.hbm_peak_gbs.value)),
                  {}};
  hbm.traffic.push_back(traffic(p, "HBM", "A and B bytes from HBM a wave", p.parts.hbm_bytes_per_wave, "B", true));
  hbm.traffic.push_back(traffic(p, "stores", "C bytes stored a wave", p.parts.store_bytes_per_wave, "B", true));
  c.levels.push_back(std::move(hbm));
  return c;
}

MemoryData memory_data(const AppState& app) {
  MemoryData d;
  if (!app.kernel) {
    d.note = "no kernel open";
    return d;
  }
  const LoadedKernel& k = *app.kernel;
  const model::SimStats& st = k.report.result.stats;
  if (st.predicted_tflops <= 0 || !st.predicted_on) {
    d.note = "the model made no prediction for this run (it did not complete)";
    return d;
  }
  d.available = true;
  d.open = memory_column(st.prediction, *st.predicted_on);
  d.open.kernel_id = k.request.kernel_id;
  d.open.step = k.info ? k.info->step : 0;
  // The ladder's step before, as the model predicted it at this shape on this card.
  const kernels::KernelInfo* before = nullptr;
  for (const kernels::KernelInfo& i : kernels::all_kernels())
    if (k.info && i.step == k.info->step - 1) before = &i;
  if (!before) {
    d.before_note = "the first step of the ladder: nothing before it";
    return d;
  }
  const kernels::GemmShape shape = k.report.shape;
  for (const Variant& v : app.measurements.variants) {
    const kernels::GemmShape vs = before->resolve(v.shape);  // a 0 is that step's example shape
    if (v.kernel_id != before->id || v.source != MeasurementSource::model || !v.params.empty() || vs.m != shape.m ||
        vs.n != shape.n || vs.k != shape.k || v.points.empty() || !v.points.back().model)
      continue;
    const ModelPrediction& mp = *v.points.back().model;
    for (const timing::Machine* card : timing::kMachines)
      if (mp.machine == card->name && card == st.predicted_on) {
        d.before = memory_column(mp.prediction, *card);
        d.before->kernel_id = before->id;
        d.before->step = before->step;
      }
  }
  d.before_note =
      d.before ? fmt::format("step {:02d} {} as the model predicted it when it was opened at this shape", before->step,
                             before->id)
               : fmt::format("open step {:02d} {} at this shape to see it beside this one", before->step, before->id);
  return d;
}

namespace {

nlohmann::json column_json(const MemoryColumn& c) {
  nlohmann::json levels = nlohmann::json::array();
  for (const MemoryLevel& l : c.levels) {
    nlohmann::json traffic = nlohmann::json::array();
    for (const MemoryTraffic& t : l.traffic)
      traffic.push_back({{"part", t.part},
                         {"what", t.what},
                         {"amount", t.amount},
                         {"unit", t.unit},
                         {"gbs", t.gbs},
                         {"cycles", t.cycles},
                         {"share", t.share},
                         {"bound", t.bound}});
    levels.push_back({{"name", l.name},
                      {"capacity_bytes", l.capacity_bytes},
                      {"scope", l.scope},
                      {"latency_cycles", l.latency_cycles},
                      {"bandwidth", l.bandwidth},
                      {"traffic", traffic}});
  }
  return {{"kernel", c.kernel_id}, {"step", c.step},   {"card", c.card},
          {"tflops", c.tflops},    {"bound", c.bound}, {"cycles_per_wave", c.cycles_per_wave},
          {"waves", c.waves},      {"levels", levels}};
}

}  // namespace

nlohmann::json describe_memory(AppState& app) {
  const MemoryData d = memory_data(app);
  nlohmann::json j{{"available", d.available}, {"note", d.note}, {"before_note", d.before_note}};
  if (d.available) j["open"] = column_json(d.open);
  j["before"] = d.before ? column_json(*d.before) : nlohmann::json(nullptr);
  return j;
}

}  // namespace gs::gui
