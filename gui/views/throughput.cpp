// The throughput view: TFLOP/s of each kernel variant over time (GPU runs as they finish, the
// model's prediction, imported bench JSON) with the card's SM clock and power under it, each
// against cuBLAS measured in the same run, a roofline with the device's ceilings, and the
// model's predictions beside what was measured of the same build (the error, and the
// prediction's breakdown as a bar: one column per limit, its height the limit's share of the
// wave's time, the bound full and outlined). Data: gui/core/throughput_data.hpp; plots:
// gui/widgets/plot.hpp. Small windows get tabs; a large one shows everything at once.
#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "gui/core/roofline.hpp"
#include "gui/core/throughput_data.hpp"
#include "gui/core/speed_ladder.hpp"
#include "gui/views/views.hpp"
#include "gui/widgets/plot.hpp"

namespace gs::gui {

namespace {

// One hue per (kernel, shape), readable as text on both themes (colors.hpp).
ImU32 slot_color(int slot, const ViewEnv& env) { return rgb_color(series_rgb(uint32_t(slot), env.dark)); }
ImU32 cublas_color(const ViewEnv& env) { return env.dark ? IM_COL32(170, 170, 178, 255) : IM_COL32(110, 110, 120, 255); }
ImU32 tensor_color(const ViewEnv& env) { return env.dark ? IM_COL32(255, 120, 120, 220) : IM_COL32(200, 40, 40, 220); }
ImU32 fp32_color(const ViewEnv& env) { return env.dark ? IM_COL32(255, 190, 90, 220) : IM_COL32(190, 120, 0, 220); }
ImU32 memory_color(const ViewEnv& env) { return env.dark ? IM_COL32(120, 200, 255, 220) : IM_COL32(20, 110, 190, 220); }

// The source shows in the marker: gpu ● , imported ■ , model ◆ (and a dashed line).
plot::Marker source_marker(MeasurementSource s) {
  switch (s) {
    case MeasurementSource::gpu: return plot::Marker::circle;
    case MeasurementSource::imported: return plot::Marker::square;
    case MeasurementSource::model: return plot::Marker::diamond;
  }
  return plot::Marker::circle;
}

std::string shape_text(kernels::GemmShape s) {
  return s.m == s.n && s.n == s.k ? fmt::format("{}³", s.m) : fmt::format("{}×{}×{}", s.m, s.n, s.k);
}

plot::PlotSpec timeline_spec(const ThroughputData& d, const ViewEnv& env) {
  plot::PlotSpec s;
  s.x = {.title = "seconds since start", .include_zero = false, .unit = "s"};
  s.y = {.title = "TFLOP/s", .unit = "TFLOP/s"};
  s.empty_text = "no measurements yet";
  // From the app's start, at least a minute wide, so points taken at once do not spread out.
  double t_max = 60.0;
  for (const ThroughputRow& r : d.rows)
    for (double t : r.ts) t_max = std::max(t_max, t * 1.05);
  s.x.min = 0.0;
  s.x.max = plot::auto_range({0.0, t_max}, plot::Scale::linear, true).hi;
  // Kernels 20× apart (a SIMT step next to a tensor-core one) would flatten the slow ones on
  // a linear axis: switch to log10 then.
  double lo = 0.0, hi = 0.0;
  for (const ThroughputRow& r : d.rows)
    for (double v : r.tflops)
      if (v > 0.0) lo = lo == 0.0 ? v : std::min(lo, v), hi = std::max(hi, v);
  if (lo > 0.0 && hi / lo > 20.0) {
    s.y.scale = plot::Scale::log10;
    s.y.title = "TFLOP/s (log)";
  }
  for (const ThroughputRow& r : d.rows) {
    if (r.source == MeasurementSource::gpu) {
      s.series.push_back({.name = r.label,
                          .kind = plot::SeriesKind::line,
                          .xs = r.ts,
                          .ys = r.tflops,
                          .color = slot_color(r.color_slot, env),
                          .marker = source_marker(r.source)});
      continue;
    }
    // A prediction or an imported figure has no time of its own: a dashed level across the
    // plot, for the live GPU points to be read against.
    const double v = r.latest_tflops;
    s.series.push_back({.name = r.label,
                        .kind = plot::SeriesKind::line,
                        .xs = {0.0, s.x.max / 2, s.x.max},
                        .ys = {v, v, v},
                        .color = slot_color(r.color_slot, env),
                        .marker = plot::Marker::none,
                        .dashed = true,
                        .thickness = 1.5f});
  }
  return s;
}

// The spec with its legend folded past `rows` rows (small windows keep room for the data).
plot::PlotSpec with_legend_rows(plot::PlotSpec s, int rows) {
  s.legend_max_rows = rows;
  return s;
}

enum class CardFigure : uint8_t { clock, power };

// The card under the TFLOP/s, on the timeline's time axis `x`: each GPU run's SM clock (as its
// SMs counted it) or median power at its points; a model row's clock and an imported run's
// figure, which have no time of their own, as a dashed level in the row's colour.
plot::PlotSpec card_spec(const ThroughputData& d, const ViewEnv& env, CardFigure f, const plot::Axis& x) {
  const bool clock = f == CardFigure::clock;
  plot::PlotSpec s;
  s.x = x;
  s.y = {.title = clock ? "SM clock (MHz)" : "power (W)", .include_zero = false, .unit = clock ? "MHz" : "W"};
  s.legend = false;  // the rows' colours and markers are the TFLOP/s plot's, whose legend is above
  s.empty_text = clock ? "no clock known: a GPU run counts the one its SMs held, the model states its own"
                       : "no power sampled: a GPU run samples it where NVML is present";
  for (const ThroughputRow& r : d.rows) {
    const std::vector<double>& v = clock ? r.clock_mhz : r.power_w;
    if (r.source == MeasurementSource::gpu) {
      // Ours as a line, cuBLAS's side of the same rounds as a grey ring, at each point that has it.
      const auto known = [&](plot::Series series, const std::vector<double>& values) {
        for (size_t i = 0; i < values.size() && i < r.ts.size(); ++i)
          if (std::isfinite(values[i])) series.xs.push_back(r.ts[i]), series.ys.push_back(values[i]);
        if (!series.xs.empty()) s.series.push_back(std::move(series));
      };
      known({.name = r.label, .kind = plot::SeriesKind::line, .color = slot_color(r.color_slot, env),
             .marker = source_marker(r.source)},
            v);
      known({.name = "cuBLAS, same run", .kind = plot::SeriesKind::scatter, .color = cublas_color(env),
             .marker = plot::Marker::ring},
            clock ? r.cublas_clock_set_mhz : r.cublas_power_w);
      continue;
    }
    const auto level = [&](const std::vector<double>& values, const std::string& name, ImU32 color) {
      const auto latest = std::find_if(values.rbegin(), values.rend(), [](double y) { return std::isfinite(y); });
      if (latest == values.rend()) return;
      s.series.push_back({.name = name,
                          .kind = plot::SeriesKind::line,
                          .xs = {s.x.min, (s.x.min + s.x.max) / 2, s.x.max},
                          .ys = {*latest, *latest, *latest},
                          .color = color,
                          .marker = plot::Marker::none,
                          .dashed = true,
                          .thickness = 1.5f});
    };
    level(v, r.label, slot_color(r.color_slot, env));
    level(clock ? r.cublas_clock_set_mhz : r.cublas_power_w, "cuBLAS next to " + r.label, cublas_color(env));
  }
  // The clock NVIDIA's tensor figure is rated at, which a power-capped GEMM does not hold.
  if (clock && !s.series.empty())
    s.refs.push_back({.kind = plot::RefKind::horizontal, .value = d.ceilings.tensor_clock_mhz,
                      .label = fmt::format("rated {:.2f} GHz", d.ceilings.tensor_clock_mhz / 1000.0),
                      .color = tensor_color(env)});
  return s;
}

// TFLOP/s over time with the card's clock and power under it, on one time axis: `size` in
// pixels (the strips keep room for their ticks; the TFLOP/s plot takes the rest). The strips'
// rectangles go to app.drawn ("throughput.clock", "throughput.power") for the pixel tests.
void draw_over_time(AppState& app, const ThroughputData& d, const ViewEnv& env, ImVec2 size, int legend_rows) {
  const float line = ImGui::GetTextLineHeightWithSpacing(), gap = ImGui::GetStyle().ItemSpacing.y;
  const float strip = std::max(5.0f * line, 0.2f * size.y);
  const float top = std::max(6.0f * line, size.y - 2.0f * (strip + gap));
  plot::PlotSpec t = with_legend_rows(timeline_spec(d, env), legend_rows);
  const plot::Axis x = t.x;
  t.x.title.clear();  // said once, under the lowest strip
  plot::draw("timeline", {size.x, top}, t);
  for (const CardFigure f : {CardFigure::clock, CardFigure::power}) {
    const bool clock = f == CardFigure::clock;
    plot::PlotSpec c = card_spec(d, env, f, x);
    if (clock) c.x.title.clear();
    const ImVec2 at = ImGui::GetCursorScreenPos();
    plot::draw(clock ? "card_clock" : "card_power", {size.x, strip}, c);
    app.drawn[clock ? "throughput.clock" : "throughput.power"] = {at.x, at.y, size.x, strip};
  }
}

plot::PlotSpec cublas_spec(const ThroughputData& d, const ViewEnv& env) {
  plot::PlotSpec s;
  s.x = {.title = "TFLOP/s (latest)", .unit = "TFLOP/s"};
  s.y = {.title = "vs cuBLAS"};
  s.empty_text = "no measurements yet";
  // Kernel bars take their variant's colour (as in the other plots), so only cuBLAS needs a key.
  plot::Series kernel{.name = "kernel", .kind = plot::SeriesKind::bars, .color = slot_color(0, env), .in_legend = false};
  plot::Series cublas{.name = "cuBLAS, same run", .kind = plot::SeriesKind::bars, .color = cublas_color(env)};
  for (size_t i = 0; i < d.rows.size(); ++i) {
    const ThroughputRow& r = d.rows[i];
    s.y.categories.push_back(r.label);
    kernel.xs.push_back(double(i));
    kernel.ys.push_back(r.latest_tflops);
    kernel.point_colors.push_back(slot_color(r.color_slot, env));
    kernel.point_labels.push_back(r.ratio ? fmt::format("{:.1f} ({:.0f}% of cuBLAS)", r.latest_tflops, 100.0 * *r.ratio)
                                          : fmt::format("{:.1f}", r.latest_tflops));
    if (r.cublas_tflops) {
      cublas.xs.push_back(double(i));
      cublas.ys.push_back(*r.cublas_tflops);
      cublas.point_labels.push_back(fmt::format("{:.1f}", *r.cublas_tflops));
    }
  }
  s.series.push_back(std::move(kernel));
  if (!cublas.xs.empty()) s.series.push_back(std::move(cublas));
  return s;
}

plot::PlotSpec roofline_spec(const ThroughputData& d, const ViewEnv& env) {
  const DeviceCeilings& c = d.ceilings;
  plot::PlotSpec s;
  s.x = {.title = "arithmetic intensity (FLOP/byte)", .scale = plot::Scale::log10, .unit = "FLOP/byte"};
  s.y = {.title = "TFLOP/s", .scale = plot::Scale::log10, .unit = "TFLOP/s"};
  // Always show the ridge and a decade of the memory roof below it, whatever the points are.
  double x_lo = c.ridge_intensity() / 30.0, x_hi = c.ridge_intensity() * 3.0;
  plot::Series cublas{.name = "cuBLAS", .kind = plot::SeriesKind::scatter, .color = cublas_color(env),
                      .marker = plot::Marker::ring};
  for (const ThroughputRow& r : d.rows) {
    // Only rows of the machine the ceilings are for; each at its DRAM intensity, under its roof.
    const RooflineRow on = roofline_row(r, c);
    if (!on.on_figure || r.intensity <= 0.0 || r.latest_tflops <= 0.0) continue;
    const double x = r.intensity;
    x_lo = std::min(x_lo, x / 2.0);
    x_hi = std::max(x_hi, x * 2.0);
    s.series.push_back({.name = r.label,
                        .kind = plot::SeriesKind::scatter,
                        .xs = {x},
                        .ys = {r.latest_tflops},
                        .color = slot_color(r.color_slot, env),
                        .marker = source_marker(r.source),
                        .point_labels = {fmt::format("{:.0f}% of the {} roof ({:.0f} TFLOP/s here) at intensity {:.3g}",
                                                     100.0 * r.latest_tflops / on.verdict.roof_tflops,
                                                     on.verdict.roof_name(), on.verdict.roof_tflops, x)},
                        .draw_point_labels = false});
    if (r.cublas_tflops) {
      cublas.xs.push_back(r.intensity);
      cublas.ys.push_back(*r.cublas_tflops);
      cublas.point_labels.push_back("cuBLAS next to " + r.label);
    }
  }
  cublas.draw_point_labels = false;
  if (!cublas.xs.empty()) s.series.push_back(std::move(cublas));
  s.x.min = std::pow(10.0, std::floor(std::log10(x_lo)));
  s.x.max = std::pow(10.0, std::ceil(std::log10(x_hi)));
  s.refs.push_back({.kind = plot::RefKind::horizontal, .value = c.tensor_tflops,
                    .label = fmt::format("bf16 tensor {:.0f} TFLOP/s at {:.2f} GHz", c.tensor_tflops, c.tensor_clock_mhz / 1000.0), .color = tensor_color(env)});
  // The kernel's own ceiling at the clock a run of it held, under the rated one (HeldCeiling).
  if (d.held)
    s.refs.push_back({.kind = plot::RefKind::horizontal, .value = d.held->tflops,
                      .label = fmt::format("held {:.2f} GHz: {:.0f}", d.held->clock_mhz / 1000.0, d.held->tflops),
                      .color = scale_alpha(d.held->fp32 ? fp32_color(env) : tensor_color(env), 0.6f), .dashed = false});
  s.refs.push_back({.kind = plot::RefKind::horizontal, .value = c.fp32_tflops,
                    .label = fmt::format("fp32 SIMT {:.0f} TFLOP/s", c.fp32_tflops), .color = fp32_color(env)});
  s.refs.push_back({.kind = plot::RefKind::proportional, .value = c.memory_tbps, .cap = c.tensor_tflops,
                    .label = fmt::format("memory {:.2f} TB/s", c.memory_tbps), .color = memory_color(env)});
  return s;
}

void draw_gpu_note(const ThroughputData& d, const ViewEnv& env) {
  ImU32 col = muted_color(env);
  if (d.gpu.state == GpuAvailability::found) col = ok_color(env);
  if (d.gpu.state == GpuAvailability::not_found) col = warn_color(env);
  if (d.gpu.state == GpuAvailability::failing) col = error_color(env);
  ImGui::PushStyleColor(ImGuiCol_Text, col);
  ImGui::TextWrapped("%s", d.gpu.text.c_str());
  ImGui::PopStyleColor();
}

// Where the kernel on screen stands on the roofline, read off the roofs drawn.
void draw_intensity_note(const AppState& app, const ThroughputData& d, const ViewEnv& env) {
  const std::optional<RoofVerdict> v = kernel_verdict(app, d.ceilings);
  if (!v) return;
  ImGui::PushStyleColor(ImGuiCol_Text, v->memory_bound ? warn_color(env) : muted_color(env));
  ImGui::TextWrapped("%s", roofline_caption(d, *v).c_str());
  ImGui::PopStyleColor();
}

// The bench and import controls (a side panel in a large window, a popup in a small one).
void draw_controls(AppState& app, ThroughputControls& c, const ViewEnv& env) {
  ImGui::TextUnformatted("Kernels");
  for (const kernels::KernelInfo& k : kernels::all_kernels()) {
    bool on = std::find(c.kernel_ids.begin(), c.kernel_ids.end(), k.id) != c.kernel_ids.end();
    if (ImGui::Checkbox(k.id.c_str(), &on)) {
      if (on)
        c.kernel_ids.push_back(k.id);
      else
        c.kernel_ids.erase(std::remove(c.kernel_ids.begin(), c.kernel_ids.end(), k.id), c.kernel_ids.end());
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("step %02d: %s", k.step, k.title.c_str());
  }
  const float field_w = std::min(ImGui::GetContentRegionAvail().x, 180.0f * env.scale);
  static const char* const shape_names[] = {"1024³", "2048³", "4096³", "8192³", "custom"};
  ImGui::SetNextItemWidth(field_w);
  ImGui::Combo("shape", &c.shape_choice, shape_names, int(std::size(shape_names)));
  if (c.shape_choice == int(std::size(kBenchSizes))) {
    int mnk[3] = {int(c.custom.m), int(c.custom.n), int(c.custom.k)};
    ImGui::SetNextItemWidth(field_w);
    if (ImGui::InputInt3("M N K", mnk))
      c.custom = {uint32_t(std::clamp(mnk[0], 1, 65536)), uint32_t(std::clamp(mnk[1], 1, 65536)),
                  uint32_t(std::clamp(mnk[2], 1, 65536))};
  }
  const int one = 1, twenty = 20;
  slider_value_beside(app, "throughput.repeats", "##repeats", ImGuiDataType_S32, &c.repeats, &one, &twenty, "%d repeats",
                      field_w, "How many times each kernel is benchmarked: one point per run");
  ImGui::Checkbox("under the power limit", &c.sustained);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Run each kernel and cuBLAS for %.0f s before timing them (bench --sustain), so that the "
                      "card is at the clock its power limit leaves: the run the model predicts where the card's "
                      "clocks were probed so (the H200). Off: timed a few launches after a start, at a higher clock",
                      ThroughputControls::kSustainMs / 1000.0);
  const bool running = gpu_note(app).state == GpuAvailability::benchmarking;
  if (running) {
    if (ImGui::Button("Cancel benchmark")) app.cancel_jobs(JobKind::gpu_bench);
  } else if (ImGui::Button("Benchmark on GPU")) {
    start_gpu_bench(app, c);
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Times each ticked kernel at %s against cuBLAS, %d time(s), off the UI thread",
                      shape_text(bench_shape(c)).c_str(), c.repeats);
  ImGui::Separator();
  ImGui::TextUnformatted("Import bench JSON");
  char buf[1024];
  const size_t n = std::min(c.import_path.size(), sizeof buf - 1);
  std::copy_n(c.import_path.data(), n, buf);
  buf[n] = '\0';
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
  if (ImGui::InputTextWithHint("##path", "path to `gemmscope bench --json` output", buf, sizeof buf)) c.import_path = buf;
  if (ImGui::Button("Import")) import_bench_json(app, c.import_path);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Adds every result of the file; errors go to Problems");
}

void draw_table(const ThroughputData& d, const AppState& app, const ViewEnv& env) {
  // Scrolling sideways in a narrow view rather than squeezing the numbers out of their columns.
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("##variants", 7, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("variant", ImGuiTableColumnFlags_WidthStretch);
  for (const char* h : {"source", "device", "TFLOP/s", "cuBLAS", "ratio", "power", "FLOP/B"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  const std::string open_id = app.kernel ? app.kernel->request.kernel_id : "";
  for (const ThroughputRow& r : d.rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushStyleColor(ImGuiCol_Text, slot_color(r.color_slot, env));
    ImGui::TextUnformatted(r.kernel_id == open_id ? "▶" : "■");
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::Text("%s %s", r.kernel_id.c_str(), shape_text(r.shape).c_str());
    if (ImGui::IsItemHovered() && r.kernel_id == open_id) ImGui::SetTooltip("the kernel open in the other views");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(measurement_source_name(r.source));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.device.c_str());
    ImGui::TableNextColumn();
    mono_text(env, "%.1f", r.latest_tflops);
    ImGui::TableNextColumn();
    if (r.cublas_tflops) mono_text(env, "%.1f", *r.cublas_tflops);
    ImGui::TableNextColumn();
    if (r.ratio && r.notes.paired())
      mono_text(env, "%.1f%% (%.1f-%.1f)", 100.0 * *r.ratio, 100.0 * *r.notes.ratio_q1, 100.0 * *r.notes.ratio_q3);
    else if (r.ratio)
      mono_text(env, "%.0f%%", 100.0 * *r.ratio);
    if (ImGui::IsItemHovered() && !r.notes.method.empty())
      ImGui::SetTooltip("%s", method_tooltip(r).c_str());
    ImGui::TableNextColumn();
    if (r.notes.power_w)
      mono_text(env, "%.0f W %s", *r.notes.power_w, r.notes.temp_c ? fmt::format("{} C", *r.notes.temp_c).c_str() : "");
    if (r.notes.cublas_power_w) {
      ImGui::SameLine();
      mono_text(env, "(cuBLAS %.0f W)", *r.notes.cublas_power_w);
    }
    if (ImGui::IsItemHovered() && (r.notes.power_w || r.notes.cublas_power_w || !r.notes.clock_limits.empty()))
      ImGui::SetTooltip("%s", power_tooltip(r).c_str());
    ImGui::TableNextColumn();
    mono_text(env, "%.0f", r.intensity);
  }
  ImGui::EndTable();
}

ImU32 limit_color(uint32_t part, const ViewEnv& env, float alpha = 1.0f) {
  return rgb_color(limit_rgb(part, env.dark), alpha);
}

// The breakdown's key: a swatch per limit, in breakdown order, wrapping to the width.
void draw_limit_legend(const PredictionRow& any, const ViewEnv& env) {
  const float s = env.scale, sw = ImGui::GetTextLineHeight() * 0.7f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  bool first = true;
  for (const PredictionPart& part : any.parts) {
    const float w = sw + 3 * s + ImGui::CalcTextSize(part.name.c_str()).x;
    if (!first) {
      ImGui::SameLine(0, 10 * s);
      if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
    }
    first = false;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float y = p.y + (ImGui::GetTextLineHeight() - sw) / 2;
    dl->AddRectFilled(ImVec2(p.x, y), ImVec2(p.x + sw, y + sw), limit_color(part.index, env));
    ImGui::Dummy(ImVec2(sw + 3 * s, ImGui::GetTextLineHeight()));
    ImGui::SameLine(0, 0);
    ImGui::TextUnformatted(part.name.c_str());
  }
}

// The tooltip of a breakdown bar: every limit with its cycles, share and meaning, then the
// waves, the clock and the occupancy, in the words `gemmscope sim` prints.
void breakdown_tooltip(const PredictionRow& p, const ViewEnv& env) {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 44.0f);
  ImGui::Text("%s: predicted on %s, bound by %s", p.label.c_str(), p.machine.c_str(), p.bound.c_str());
  ImGui::TextDisabled("each limit: the cycles a wave would take were it the only one, as a share of the wave's time");
  if (ImGui::BeginTable("##parts", 4, ImGuiTableFlags_SizingFixedFit)) {
    for (const PredictionPart& part : p.parts) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, limit_color(part.index, env));
      ImGui::TextUnformatted(part.bound ? "■ bound" : "■");
      ImGui::PopStyleColor();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(part.name.c_str());
      ImGui::TableNextColumn();
      mono_text(env, "%12.0f cycles %4.0f%%", part.cycles, 100.0 * part.share);
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", part.meaning.c_str());
    }
    ImGui::EndTable();
  }
  ImGui::TextUnformatted(p.wave_line.c_str());
  if (!p.clock_line.empty()) ImGui::TextUnformatted(p.clock_line.c_str());
  if (!p.launch_line.empty()) ImGui::TextUnformatted(p.launch_line.c_str());
  if (!p.coupling_line.empty()) ImGui::TextUnformatted(p.coupling_line.c_str());
  if (!p.drift_line.empty()) ImGui::TextUnformatted(p.drift_line.c_str());
  ImGui::TextUnformatted(p.occupancy_line.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

// The breakdown as a bar: one column per limit, its height the limit's share of the wave's time,
// the bound at full height, opaque and outlined. Returns the rectangle drawn (x, y, w, h).
std::array<float, 4> draw_breakdown_bar(const PredictionRow& p, const ViewEnv& env, float width) {
  // A little taller than a line, so the columns' heights read apart.
  const float s = env.scale, h = std::round(ImGui::GetTextLineHeight() * 1.4f);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##bar", ImVec2(width, h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float slot = width / float(std::max<size_t>(1, p.parts.size()));
  dl->AddRectFilled(o, ImVec2(o.x + width, o.y + h), scale_alpha(muted_color(env), 0.18f));
  for (size_t i = 0; i < p.parts.size(); ++i) {
    const PredictionPart& part = p.parts[i];
    const float x0 = o.x + slot * float(i) + s, x1 = o.x + slot * float(i + 1) - s;
    const float top = o.y + h * (1.0f - float(std::clamp(part.share, 0.0, 1.0)));
    if (part.share > 0.0)
      dl->AddRectFilled(ImVec2(x0, std::min(top, o.y + h - s)), ImVec2(x1, o.y + h),
                        limit_color(part.index, env, part.bound ? 1.0f : 0.6f));
    if (part.bound) dl->AddRect(ImVec2(x0 - s, o.y), ImVec2(x1 + s, o.y + h), ImGui::GetColorU32(ImGuiCol_Text), 0, 0, s);
  }
  if (ImGui::IsItemHovered()) breakdown_tooltip(p, env);
  return {o.x, o.y, width, h};
}

// The model's predictions beside the measurements of the same build: measured, predicted, the
// error, the bound and the breakdown. A prediction with nothing measured shows its bar alone.
void draw_predictions(const ThroughputData& d, AppState& app, const ViewEnv& env) {
  if (d.predictions.empty()) {
    ImGui::TextDisabled("No model prediction yet: open a kernel (the Ladder) to have the model predict it.");
    return;
  }
  for (const PredictionRow& p : d.predictions)
    if (p.has_parts) {
      draw_limit_legend(p, env);
      break;
    }
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("##predictions", 7, flags)) return;
  const float bar_w = 8 * 14.0f * env.scale;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("variant", ImGuiTableColumnFlags_WidthStretch);
  for (const char* h : {"measured", "predicted", "error", "bound"}) ImGui::TableSetupColumn(h);
  ImGui::TableSetupColumn("breakdown", ImGuiTableColumnFlags_WidthFixed, bar_w);
  ImGui::TableSetupColumn("measured on");
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < d.predictions.size(); ++i) {
    const PredictionRow& p = d.predictions[i];
    ImGui::PushID(int(i));
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::AlignTextToFramePadding();
    ImGui::PushStyleColor(ImGuiCol_Text, slot_color(p.color_slot, env));
    ImGui::TextUnformatted("■");
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::TextUnformatted(p.label.c_str());
    ImGui::TableNextColumn();
    if (p.measured_tflops) mono_text(env, "%.1f", *p.measured_tflops);
    else ImGui::TextDisabled("-");
    ImGui::TableNextColumn();
    mono_text(env, "%.1f", p.predicted_tflops);
    ImGui::TableNextColumn();
    if (p.error) {
      // Within 15% (the target at the large shapes) reads as fine; past it as a warning.
      ImGui::PushStyleColor(ImGuiCol_Text, std::abs(*p.error) <= 0.15 ? ok_color(env) : warn_color(env));
      mono_text(env, "%s%s", error_text(*p.error).c_str(), p.same_machine ? "" : " *");
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("predicted / measured - 1%s", p.same_machine ? ""
                                                         : "\n* measured on another card than the one predicted for");
    } else {
      ImGui::TextDisabled("-");
    }
    ImGui::TableNextColumn();
    if (p.has_parts) ImGui::TextUnformatted(p.bound.c_str());
    ImGui::TableNextColumn();
    if (p.has_parts) {
      const std::array<float, 4> r = draw_breakdown_bar(p, env, std::max(bar_w, ImGui::GetContentRegionAvail().x));
      app.drawn[fmt::format("throughput.breakdown.{}", i)] = r;  // for the headless pixel test
    }
    ImGui::TableNextColumn();
    if (p.measured_row) ImGui::Text("%s (%s)", p.measured_device.c_str(), p.measured_source.c_str());
    ImGui::PopID();
  }
  ImGui::EndTable();
}

// Why each step is faster than the one before it, in the model's terms, with the measured ratio
// beside the predicted one (StepComparison); the sentences are the model's (compare_predictions).
void draw_comparisons(const ThroughputData& d, AppState& app, const ViewEnv& env) {
  if (d.comparisons.empty()) {
    ImGui::TextDisabled("Open two neighbouring steps of the ladder at one shape: the model then says here why one is "
                        "faster.");
    return;
  }
  ImGui::BeginChild("##comparisons", {0, 0}, false);
  for (size_t i = 0; i < d.comparisons.size(); ++i) {
    const StepComparison& c = d.comparisons[i];
    ImGui::PushID(int(i));
    const std::string head = fmt::format("{} -> {}  {}x{}x{} on {}: predicted {:.2f}x{}", c.from, c.to, c.shape.m,
                                         c.shape.n, c.shape.k, c.machine, c.predicted_speedup,
                                         c.measured_speedup ? fmt::format(", measured {:.2f}x", *c.measured_speedup)
                                                            : std::string(", not measured"));
    // A prediction whose direction the measurement contradicts (the measured ratio 5% or more
    // away from 1 on the other side) reads as a warning.
    const bool wrong_way = c.measured_speedup && std::abs(*c.measured_speedup - 1.0) >= 0.05 &&
                           (*c.measured_speedup > 1.0) != (c.predicted_speedup > 1.0);
    if (c.measured_speedup) ImGui::PushStyleColor(ImGuiCol_Text, wrong_way ? warn_color(env) : ok_color(env));
    const bool last = i + 1 == d.comparisons.size();  // the newest pair opens unfolded
    const bool open = ImGui::TreeNodeEx(head.c_str(), last ? ImGuiTreeNodeFlags_DefaultOpen : 0);
    if (c.measured_speedup) ImGui::PopStyleColor();
    const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    app.drawn[fmt::format("throughput.why.{}", i)] = {lo.x, lo.y, hi.x - lo.x, hi.y - lo.y};  // for the headless test
    if (open) {
      for (const std::string& line : c.lines) {
        ImGui::Bullet();
        ImGui::TextWrapped("%s", line.c_str());
      }
      ImGui::TreePop();
    }
    ImGui::PopID();
  }
  ImGui::EndChild();
}

// The published figure's tooltip: where it comes from and how far it is from our step.
void published_tooltip(const run::PublishedFigure& f) {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40.0f);
  ImGui::Text("%.2f TFLOP/s: %.*s", f.tflops, int(f.stage.size()), f.stage.data());
  ImGui::Text("%.*s, %.*s", int(f.source.size()), f.source.data(), int(f.date.size()), f.date.data());
  ImGui::Text("%.*s", int(f.url.size()), f.url.data());
  ImGui::Text("on %.*s at %s%s", int(f.card.size()), f.card.data(), shape_text(f.shape).c_str(),
              f.cublas_tflops > 0.0 ? fmt::format("; cuBLAS {:.2f} in the same table ({:.3f}x)", f.cublas_tflops,
                                                  f.tflops / f.cublas_tflops).c_str()
                                    : "");
  if (!f.differs.empty()) ImGui::Text("differs from our step: %.*s", int(f.differs.size()), f.differs.data());
  ImGui::TextDisabled("%.*s: another kernel on another B200, at its own clock and power", int(run::kPublishedNotMeasured.size()),
                      run::kPublishedNotMeasured.data());
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

// Each Blackwell step's prediction on the B200 at 4096³ beside what others published for the
// technique it stops at (PublishedRow): the two never mix, and each says what it is.
void draw_published(const ThroughputData& d, AppState& app, const ViewEnv& env) {
  ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
  ImGui::TextWrapped("The Blackwell steps at 4096³: the model's prediction (predicted on a B200 from NVIDIA's figures, "
                     "unconfirmed: no Blackwell GPU was run here) beside the public ladders' figures for the same "
                     "technique (%s: other kernels on other B200s). Hover a source for its address.",
                     run::kPublishedNotMeasured.data());
  ImGui::PopStyleColor();
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit;
  // The footnote keeps its line under the table, which scrolls in the rest.
  const float footnote_h = ImGui::GetTextLineHeightWithSpacing() * 2.0f;
  const float table_h = std::max(ImGui::GetContentRegionAvail().y - footnote_h, 4.0f * ImGui::GetFrameHeightWithSpacing());
  if (!ImGui::BeginTable("##published", 5, flags, ImVec2(0, table_h))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("step");
  ImGui::TableSetupColumn("kernel");
  ImGui::TableSetupColumn("predicted, B200*");
  ImGui::TableSetupColumn("published†");
  ImGui::TableSetupColumn("source (published, not measured here)", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < d.published.size(); ++i) {
    const PublishedRow& r = d.published[i];
    ImGui::PushID(int(i));
    const size_t lines = std::max<size_t>(1, r.published.size());
    for (size_t j = 0; j < lines; ++j) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (j == 0) ImGui::Text("%02d", r.step);
      ImGui::TableNextColumn();
      if (j == 0) ImGui::TextUnformatted(r.kernel_id.c_str());
      if (j == 0 && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.title.c_str());
      ImGui::TableNextColumn();
      if (j == 0) {
        if (!r.predicted) ImGui::TextDisabled("-");
        else if (!r.predicted->done) ImGui::TextDisabled("…");
        else if (!r.predicted->error.empty()) ImGui::TextDisabled("?");
        else mono_text(env, "%.0f", r.predicted->tflops);
        if (r.predicted && ImGui::IsItemHovered())
          ImGui::SetTooltip("%s", r.predicted->error.empty() ? (prediction_standing(*r.predicted) + ", at 4096³: the "
                                                                "speed ladder's figure, as `gemmscope sim` predicts it")
                                                                   .c_str()
                                                             : r.predicted->error.c_str());
      }
      ImGui::TableNextColumn();
      if (r.published.empty()) {
        ImGui::TextDisabled("-");
        ImGui::TableNextColumn();
        ImGui::TextDisabled("no public ladder we found stops at this step");
        continue;
      }
      const run::PublishedFigure& f = *r.published[j];
      ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
      mono_text(env, "%.0f", f.tflops);
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered()) published_tooltip(f);
      ImGui::TableNextColumn();
      ImGui::Text("%.*s: %.*s, %.*s", int(f.source.size()), f.source.data(), int(f.stage.size()), f.stage.data(),
                  int(f.date.size()), f.date.data());
      if (ImGui::IsItemHovered()) published_tooltip(f);
      if (i == 0 && j == 0) {
        const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
        app.drawn["throughput.published"] = {lo.x, lo.y, hi.x - lo.x, hi.y - lo.y};  // for the headless test
      }
    }
    ImGui::PopID();
  }
  ImGui::EndTable();
  ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
  ImGui::TextWrapped("* predicted on a B200 from NVIDIA's figures, unconfirmed.  † %s.", run::kPublishedNotMeasured.data());
  ImGui::PopStyleColor();
}

}  // namespace

void draw_throughput(AppState& app, const ViewEnv& env) {
  // The controls live in AppState (describe_throughput reports them); the view has no other state.
  ThroughputControls& controls = app.throughput_view;
  request_speed_predictions(app);  // the Blackwell steps' predictions beside the published figures
  const ThroughputData d = prepare_throughput(app);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const bool wide = avail.x >= 1000.0f * env.scale && avail.y >= 560.0f * env.scale;
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  // The traced shape's model point is a few CTAs' speed when they leave most SMs idle: said first.
  if (const std::string fill = gpu_fill_sentence(app); !fill.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, warn_color(env));
    ImGui::TextWrapped("%s (Ladder view)", fill.c_str());
    ImGui::PopStyleColor();
  }

  if (wide) {
    // Controls and the table on the left, the three plots on the right.
    const float left_w = 320.0f * env.scale;
    ImGui::BeginChild("##controls", {left_w, 0}, false);
    draw_gpu_note(d, env);
    ImGui::Separator();
    draw_controls(app, controls, env);
    ImGui::Separator();
    ImGui::TextDisabled("%s", d.ceilings.name.c_str());
    ImGui::TextWrapped("Ceilings: %s.", d.ceilings.basis.c_str());
    draw_intensity_note(app, d, env);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginGroup();
    const ImVec2 right = ImGui::GetContentRegionAvail();
    // The tables below the plots: the model's predictions beside the measurements, and every
    // variant; as many rows as fit a third of the height.
    size_t published_lines = 3;  // the tab's caption and footnote
    for (const PublishedRow& r : d.published) published_lines += std::max<size_t>(1, r.published.size());
    const size_t table_rows = std::max({d.rows.size(), d.predictions.size() + 1, published_lines}) + 2;
    const float table_h = std::min(right.y * 0.34f, ImGui::GetFrameHeightWithSpacing() * float(table_rows + 1) + 8.0f);
    // The TFLOP/s over time with the clock and power strips under it takes a little more than
    // the roofline's row.
    const float plots_h = right.y - table_h - 2 * ImGui::GetStyle().ItemSpacing.y;
    const float over_time_h = plots_h * 0.56f, plot_h = plots_h - over_time_h;
    draw_over_time(app, d, env, {right.x, over_time_h}, 3);
    // A bar per variant needs its lines of labels: with many variants the plot grows past its
    // share and scrolls in its own box, so the tables below stay in view.
    ImGui::BeginChild("##cublas_box", {(right.x - gap) * 0.45f, plot_h}, false);
    plot::draw("cublas", {ImGui::GetContentRegionAvail().x, plot_h}, cublas_spec(d, env));
    ImGui::EndChild();
    ImGui::SameLine();
    plot::draw("roofline", {(right.x - gap) * 0.55f, plot_h}, with_legend_rows(roofline_spec(d, env), 3));
    ImGui::BeginChild("##table", {right.x, 0}, false);
    if (ImGui::BeginTabBar("##tables")) {
      // gui --throughput-tab brings one tab to the front once.
      const auto tab_flags = [&](const char* tab) {
        return controls.select_tab == tab ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None;
      };
      if (ImGui::BeginTabItem(fmt::format("Predicted vs measured ({})###predicted", d.predictions.size()).c_str(),
                              nullptr, tab_flags("predicted"))) {
        draw_predictions(d, app, env);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem(fmt::format("Why faster ({})###why", d.comparisons.size()).c_str(), nullptr,
                              tab_flags("why"))) {
        draw_comparisons(d, app, env);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem(fmt::format("Variants ({})###variants", d.rows.size()).c_str(), nullptr,
                              tab_flags("variants"))) {
        draw_table(d, app, env);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Blackwell: predicted and published###published", nullptr, tab_flags("published"))) {
        draw_published(d, app, env);
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
      controls.select_tab.clear();
    }
    ImGui::EndChild();
    ImGui::EndGroup();
    return;
  }

  // Small: a line of buttons opening the controls, the note, then one plot per tab.
  if (ImGui::Button("Benchmark / import…")) ImGui::OpenPopup("##throughput_controls");
  if (ImGui::BeginPopup("##throughput_controls")) {
    draw_controls(app, controls, env);
    ImGui::EndPopup();
  }
  ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
  ImGui::TextUnformatted(fmt::format("{} variant(s)", d.rows.size()).c_str());
  ImGui::PopStyleColor();
  draw_gpu_note(d, env);
  if (!ImGui::BeginTabBar("##throughput_tabs")) return;
  if (ImGui::BeginTabItem("Roofline")) {
    draw_intensity_note(app, d, env);
    plot::draw("roofline", {0, 0}, with_legend_rows(roofline_spec(d, env), 2));
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("vs cuBLAS")) {
    plot::draw("cublas", {0, 0}, cublas_spec(d, env));
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Over time")) {
    draw_over_time(app, d, env, ImGui::GetContentRegionAvail(), 2);
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Predicted")) {
    draw_predictions(d, app, env);
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Why faster")) {
    draw_comparisons(d, app, env);
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Table")) {
    draw_table(d, app, env);
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Blackwell", nullptr,
                          controls.select_tab == "published" ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None)) {
    draw_published(d, app, env);
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

}  // namespace gs::gui
