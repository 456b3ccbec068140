// The Sweep view: pick one or two of the open kernel's build parameters and their values, Run,
// and watch the points land: two parameters as a heat map (rows the first, columns the second,
// colour the TFLOP/s from the slowest to the fastest), one as a line. Measured on the GPU, the
// measured map stands beside the predicted one. The fastest cell is outlined; a combination
// that cannot be built is hatched and says why; clicking a cell opens that variant in every
// view. The data and the run are gui/core/sweep_data.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gui/core/colors.hpp"
#include "gui/core/sweep_data.hpp"
#include "gui/widgets/plot.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

// Black or white, whichever reads better on `fill`.
ImU32 text_on(const Rgb& fill) {
  return contrast_ratio(fill, {0, 0, 0}) >= contrast_ratio(fill, {255, 255, 255}) ? IM_COL32(0, 0, 0, 255)
                                                                                   : IM_COL32(255, 255, 255, 255);
}

std::string value_text(const kernels::BuildParam& p, uint32_t v) {
  return fmt::format("{}{}", v, v == p.default_value ? "*" : "");
}

// The parameter pickers: a checkbox per declared parameter, and for a chosen one a checkbox per
// value it takes (the default starred).
void draw_pickers(SweepChoice& c, const kernels::KernelInfo& info, bool running) {
  float label_w = 0;
  for (const kernels::BuildParam& p : info.params) label_w = std::max(label_w, ImGui::CalcTextSize(p.name.c_str()).x);
  label_w += ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::GetStyle().ItemSpacing.x * 3;
  ImGui::BeginDisabled(running);
  for (const kernels::BuildParam& p : info.params) {
    ImGui::PushID(p.name.c_str());
    bool on = std::find(c.axes.begin(), c.axes.end(), p.name) != c.axes.end();
    const bool full = !on && c.axes.size() >= kMaxSweepAxes;
    ImGui::BeginDisabled(full);
    if (ImGui::Checkbox(p.name.c_str(), &on)) set_sweep_axis(c, info, p.name, on);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s%s", p.description.c_str(),
                        full ? "\nAt most two parameters at once (a heat map): untick one first." : "");
    const auto chosen = c.values.find(p.name);
    const std::vector<uint32_t> none;
    const std::vector<uint32_t>& ticked = chosen != c.values.end() ? chosen->second : none;
    for (size_t i = 0; i < p.choices.size(); ++i) {
      const uint32_t v = p.choices[i];
      const std::string label = value_text(p, v);
      const float w = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label.c_str()).x;
      if (i == 0)
        ImGui::SameLine(label_w);
      else
        same_line_if_fits(w);
      if (ImGui::GetCursorPosX() < label_w) ImGui::SetCursorPosX(label_w);
      if (!on) {
        ImGui::AlignTextToFramePadding();
        ImGui::TextDisabled("%s", label.c_str());
        continue;
      }
      bool tick = std::find(ticked.begin(), ticked.end(), v) != ticked.end();
      ImGui::PushID(int(i));
      if (ImGui::Checkbox(label.c_str(), &tick)) set_sweep_value(c, p.name, v, tick);
      ImGui::PopID();
    }
    ImGui::PopID();
  }
  ImGui::EndDisabled();
  ImGui::TextDisabled("* the default, as the kernel ships");
}

// A sweep run elsewhere (`gemmscope sweep --json`, e.g. with --gpu on a machine without a
// display): its path and the button that shows it here.
void draw_import(AppState& app, const SweepData& d) {
  ImGui::BeginDisabled(d.running);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("or show a sweep run elsewhere");
  ImGui::SameLine();
  char buf[1024] = {};
  std::string& path = app.sweep.import_path;
  std::copy_n(path.data(), std::min(path.size(), sizeof buf - 1), buf);
  ImGui::SetNextItemWidth(std::max(120.0f, ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("Import").x -
                                               3 * ImGui::GetStyle().ItemSpacing.x - 2 * ImGui::GetStyle().FramePadding.x));
  if (ImGui::InputTextWithHint("##sweep_import", "path to `gemmscope sweep --json` output", buf, sizeof buf)) path = buf;
  ImGui::SameLine();
  if (ImGui::Button("Import")) import_sweep_json(app, path);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("the file's kernel, parameters and points, measured beside predicted where it ran with --gpu");
}

// Size, GPU, Run or Cancel, and the progress of the run under way.
void draw_run_controls(AppState& app, const ViewEnv& env, SweepChoice& c, const SweepData& d) {
  const float s = env.scale;
  ImGui::BeginDisabled(d.running);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("size");
  ImGui::SameLine();
  const char* labels[3] = {"M", "N", "K"};
  uint32_t* values[3] = {&c.shape.m, &c.shape.n, &c.shape.k};
  u32_fields(app, "sweep.shape_field", labels, values, 0.0f, ImGui::GetCursorPosX(), env);
  same_line_if_fits(ImGui::CalcTextSize("on the GPU too").x + ImGui::GetFrameHeight() + 8 * s);
  const std::string gpu_refusal = sweep_gpu_refusal(app);
  if (!gpu_refusal.empty()) c.gpu = false;
  ImGui::BeginDisabled(!gpu_refusal.empty());
  ImGui::Checkbox("on the GPU too", &c.gpu);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", gpu_refusal.empty() ? "also time every point on this GPU next to cuBLAS (as `gemmscope sweep "
                                                  "--gpu`): measured beside predicted"
                                                : gpu_refusal.c_str());
  ImGui::EndDisabled();

  const std::string problem = sweep_choice_problem(app, c);
  if (d.running) {
    if (ImGui::Button("Cancel")) cancel_sweep(app);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("stop after the point under way; the finished points stay");
  } else {
    ImGui::BeginDisabled(!problem.empty());
    if (ImGui::Button("Run")) start_sweep(app);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s", problem.empty() ? "run every combination on the model (the traced CTA at this size, as "
                                                "`gemmscope sweep` does), off the UI thread"
                                              : problem.c_str());
  }
  ImGui::SameLine();
  const float frac = d.total > 0 ? float(d.done) / float(d.total) : 0.0f;
  const std::string progress = d.total > 0 ? fmt::format("{} / {} points{}", d.done, d.total,
                                                         d.running ? "" : d.stopped ? ", cancelled" : ", done")
                                           : std::string("no sweep yet");
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::ProgressBar(frac, ImVec2(-FLT_MIN, 0), progress.c_str());
  app.drawn["sweep.progress"] = {p.x, p.y, ImGui::GetItemRectSize().x, ImGui::GetItemRectSize().y};
  if (!problem.empty() && !d.running) {
    ImGui::PushStyleColor(ImGuiCol_Text, error_color(env));
    ImGui::TextWrapped("%s", problem.c_str());
    ImGui::PopStyleColor();
  }
  draw_import(app, d);
}

struct MapHit {
  int cell = -1;
  bool clicked = false;
};

// A string cut to `width` pixels with "..." (the font's own measure).
std::string fit(const std::string& text, float width) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
  std::string t = text;
  while (!t.empty() && ImGui::CalcTextSize((t + "...").c_str()).x > width) t.pop_back();
  return t.empty() ? std::string() : t + "...";
}

// One heat map, `width` wide: the predicted TFLOP/s (or, `measured`, the GPU's) of every cell.
MapHit draw_heat_map(AppState& app, const ViewEnv& env, const SweepData& d, bool measured, float width) {
  const float s = env.scale, line = ImGui::GetTextLineHeight();
  const std::string key = measured ? "measured" : "predicted";
  const std::string card = d.imported_from.empty() ? "this GPU" : d.measured_on.empty() ? "a GPU" : d.measured_on;
  ImGui::TextUnformatted(measured ? fmt::format("measured on {}, TFLOP/s (x cuBLAS)", card).c_str()
                                  : fmt::format("predicted on {}, TFLOP/s (bound)", d.predicted_on).c_str());
  const run::SweepAxis& rows = d.axes[0];
  const run::SweepAxis& cols = d.axes[1];
  float label_w = 0;
  for (uint32_t v : rows.values)
    label_w = std::max(label_w, ImGui::CalcTextSize(fmt::format("{}={}", rows.name, v).c_str()).x);
  label_w += 8 * s;
  const float cw = std::clamp((width - label_w) / float(d.cols), 44 * s, 220 * s);
  const float ch = 2 * line + 10 * s;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float x0 = o.x + label_w, y0 = o.y + line + 4 * s;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), muted = muted_color(env);
  for (size_t c = 0; c < d.cols; ++c) {
    const std::string h = fit(fmt::format("{}={}", cols.name, cols.values[c]), cw - 4 * s);
    const float tw = ImGui::CalcTextSize(h.c_str()).x;
    dl->AddText(ImVec2(x0 + (float(c) + 0.5f) * cw - tw / 2, o.y), text, h.c_str());
  }
  ImGui::InvisibleButton(("##map" + key).c_str(), ImVec2(label_w + cw * float(d.cols), line + 4 * s + ch * float(d.rows)));
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  MapHit hit;
  const float inset = 1 * s;
  for (size_t r = 0; r < d.rows; ++r) {
    const std::string label = fmt::format("{}={}", rows.name, rows.values[r]);
    dl->AddText(ImVec2(o.x, y0 + (float(r) + 0.5f) * ch - line / 2), text, label.c_str());
    for (size_t c = 0; c < d.cols; ++c) {
      const SweepCell& cell = d.cells[r * d.cols + c];
      const ImVec2 a(x0 + float(c) * cw + inset, y0 + float(r) * ch + inset);
      const ImVec2 b(x0 + float(c + 1) * cw - inset, y0 + float(r + 1) * ch - inset);
      const double shade = measured ? cell.measured_shade : cell.predicted_shade;
      std::string top, bottom;
      ImU32 ink = text;
      if (shade >= 0) {
        const Rgb fill = heat_rgb(shade);
        dl->AddRectFilled(a, b, rgb_color(fill));
        ink = text_on(fill);
        if (measured) {
          top = fmt::format("{:.3g}", *cell.measured);
          if (cell.vs_cublas) bottom = fmt::format("{:.2f}x", cell.vs_cublas->median);
        } else {
          top = fmt::format("{:.3g}", cell.predicted);
          bottom = cell.bound;
        }
      } else if (cell.state == SweepCellState::invalid) {
        dl->AddRectFilled(a, b, scale_alpha(muted, 0.12f));
        for (float t = 0; t < (b.x - a.x) + (b.y - a.y); t += 9 * s) {  // hatching: cannot be built
          const ImVec2 p0(a.x + std::min(t, b.x - a.x), a.y + std::max(0.0f, t - (b.x - a.x)));
          const ImVec2 p1(a.x + std::max(0.0f, t - (b.y - a.y)), a.y + std::min(t, b.y - a.y));
          dl->AddLine(p0, p1, scale_alpha(muted, 0.35f));
        }
        top = "x";
        bottom = "can't build";
        ink = muted;
      } else if (cell.state == SweepCellState::failed) {
        dl->AddRectFilled(a, b, scale_alpha(error_color(env), 0.25f));
        top = "failed";
        ink = error_color(env);
      } else {
        dl->AddRectFilled(a, b, scale_alpha(muted, 0.08f));
        top = cell.state == SweepCellState::pending ? (d.running ? "..." : "-") : "not measured";
        ink = muted;
      }
      const float room = b.x - a.x - 8 * s;
      top = fit(top, room);
      const float tw = ImGui::CalcTextSize(top.c_str()).x;
      dl->AddText(ImVec2((a.x + b.x - tw) / 2, a.y + 4 * s), ink, top.c_str());
      if (!bottom.empty()) {
        ImFont* small = env.mono_small ? env.mono_small : ImGui::GetFont();
        const float fs = small->FontSize;
        std::string shown = bottom;
        while (!shown.empty() && small->CalcTextSizeA(fs, FLT_MAX, 0, shown.c_str()).x > room) shown.pop_back();
        const float bw = small->CalcTextSizeA(fs, FLT_MAX, 0, shown.c_str()).x;
        dl->AddText(small, fs, ImVec2((a.x + b.x - bw) / 2, a.y + 4 * s + line + 1 * s), ink, shown.c_str());
      }
      const bool best = measured ? cell.best_measured : cell.best_predicted;
      if (best) {
        const float t = 3 * s;
        dl->AddRect(ImVec2(a.x + t / 2, a.y + t / 2), ImVec2(b.x - t / 2, b.y - t / 2), rgb_color(best_rgb(env.dark)), 0,
                    0, t);
        app.drawn["sweep." + key + ".best"] = {a.x - inset, a.y - inset, cw, ch};
      }
      if (hovered && mouse.x >= a.x - inset && mouse.x < b.x + inset && mouse.y >= a.y - inset && mouse.y < b.y + inset)
        hit.cell = int(r * d.cols + c);
    }
  }
  app.drawn["sweep." + key + ".grid"] = {x0, y0, cw, ch};
  // The cells are never narrower than a figure needs (44 px): a map wider than its room scrolls.
  note_fit(app, "sweep.map_width", label_w + cw * float(d.cols), width);
  hit.clicked = hit.cell >= 0 && ImGui::IsItemClicked(ImGuiMouseButton_Left);
  // The colour scale: slowest to fastest.
  const double lo = measured ? d.measured_lo : d.predicted_lo, hi = measured ? d.measured_hi : d.predicted_hi;
  if (hi > 0) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const std::string lo_text = fmt::format("{:.3g}", lo), hi_text = fmt::format("{:.3g} TFLOP/s", hi);
    const float bar_x = p.x + ImGui::CalcTextSize(lo_text.c_str()).x + 6 * s;
    const float bar_w = std::max(40 * s, std::min(160 * s, cw * float(d.cols) - ImGui::CalcTextSize(hi_text.c_str()).x));
    dl->AddText(p, text, lo_text.c_str());
    for (int i = 0; i < 32; ++i)
      dl->AddRectFilled(ImVec2(bar_x + bar_w * float(i) / 32, p.y + 3 * s),
                        ImVec2(bar_x + bar_w * float(i + 1) / 32 + 0.5f, p.y + line - 2 * s),
                        rgb_color(heat_rgb(double(i) / 31.0)));
    dl->AddText(ImVec2(bar_x + bar_w + 6 * s, p.y), text, hi_text.c_str());
    ImGui::Dummy(ImVec2(bar_x + bar_w + 6 * s + ImGui::CalcTextSize(hi_text.c_str()).x - p.x, line));
  }
  return hit;
}

// One parameter: the predicted (and measured) TFLOP/s along its values, the fastest ringed.
MapHit draw_line(AppState& app, const ViewEnv& env, const SweepData& d) {
  plot::PlotSpec spec;
  for (uint32_t v : d.axes[0].values) spec.x.categories.push_back(fmt::format("{}={}", d.axes[0].name, v));
  spec.x.title = d.axes[0].name;
  spec.y.title = "TFLOP/s";
  spec.y.unit = "TFLOP/s";
  spec.crosshair = false;
  spec.empty_text = d.running ? "waiting for the first point" : "no point ran";
  plot::Series pred{.name = "predicted on " + d.predicted_on, .color = rgb_color(series_rgb(0, env.dark))};
  plot::Series meas{.name = "measured", .color = rgb_color(series_rgb(1, env.dark)), .marker = plot::Marker::square};
  plot::Series best{.name = "fastest",
                    .kind = plot::SeriesKind::scatter,
                    .color = rgb_color(best_rgb(env.dark)),
                    .marker = plot::Marker::ring};
  std::vector<size_t> pred_cell, meas_cell, best_cell;
  for (size_t i = 0; i < d.cells.size(); ++i) {
    const SweepCell& c = d.cells[i];
    const std::string tip = sweep_cell_text(d, c);
    if (c.state == SweepCellState::done) {
      pred.xs.push_back(double(c.col));
      pred.ys.push_back(c.predicted);
      pred.point_labels.push_back(tip);
      pred_cell.push_back(i);
    }
    if (c.measured) {
      meas.xs.push_back(double(c.col));
      meas.ys.push_back(*c.measured);
      meas.point_labels.push_back(tip);
      meas_cell.push_back(i);
    }
    if (c.best) {
      best.xs.push_back(double(c.col));
      best.ys.push_back(d.measured ? c.measured.value_or(0.0) : c.predicted);
      best.point_labels.push_back(tip);
      best_cell.push_back(i);
    }
  }
  for (plot::Series* s : {&pred, &meas, &best}) s->draw_point_labels = false;
  spec.series.push_back(pred);
  if (d.measured) spec.series.push_back(meas);
  spec.series.push_back(best);
  const float h = std::clamp(ImGui::GetContentRegionAvail().y - 3 * ImGui::GetTextLineHeightWithSpacing(),
                             10 * ImGui::GetTextLineHeightWithSpacing(), 22 * ImGui::GetTextLineHeightWithSpacing());
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const plot::PlotHover hover = plot::draw("##sweep_line", ImVec2(0, h), spec);
  app.drawn["sweep.plot"] = {p.x, p.y, ImGui::GetItemRectSize().x, ImGui::GetItemRectSize().y};
  MapHit hit;
  if (hover.series >= 0 && hover.index >= 0) {
    const std::string& name = spec.series[size_t(hover.series)].name;
    const std::vector<size_t>& cells = name == "fastest" ? best_cell : name == "measured" ? meas_cell : pred_cell;
    if (size_t(hover.index) < cells.size()) hit.cell = int(cells[size_t(hover.index)]);
    hit.clicked = hover.clicked;
  }
  return hit;
}

}  // namespace

void draw_sweep(AppState& app, const ViewEnv& env) {
  if (app.gpu.state == GpuPresenceState::unknown) request_gpu_presence(app);  // may the GPU checkbox be ticked
  SweepChoice& c = sweep_choice(app);
  const SweepData d = sweep_data(app);
  const kernels::KernelInfo* info = kernels::find_kernel(c.kernel_id);
  if (info && !info->params.empty()) {
    ImGui::Text("Sweep %s over", info->id.c_str());
    draw_pickers(c, *info, d.running);
    draw_run_controls(app, env, c, d);
    ImGui::Separator();
  } else {
    draw_import(app, d);
    ImGui::Separator();
  }
  if (!d.available) {
    ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
    ImGui::TextWrapped("%s", d.note.c_str());
    ImGui::PopStyleColor();
    return;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
  ImGui::TextWrapped("%s %s", d.kernel_id.c_str(), d.summary.c_str());
  ImGui::PopStyleColor();
  if (!d.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, error_color(env));
    ImGui::TextWrapped("%s", d.error.c_str());
    ImGui::PopStyleColor();
  }
  MapHit hit;
  if (d.axes.size() == 2) {
    const float avail = ImGui::GetContentRegionAvail().x;
    if (d.measured && avail > 2 * (120 + 60 * float(d.cols)) * env.scale) {
      // Predicted and measured side by side, one column each.
      if (ImGui::BeginTable("##maps", 2)) {
        ImGui::TableNextColumn();
        const MapHit a = draw_heat_map(app, env, d, false, ImGui::GetContentRegionAvail().x);
        ImGui::TableNextColumn();
        const MapHit b = draw_heat_map(app, env, d, true, ImGui::GetContentRegionAvail().x);
        hit = a.cell >= 0 ? a : b;
        ImGui::EndTable();
      }
    } else {
      hit = draw_heat_map(app, env, d, false, avail);
      if (d.measured) {
        const MapHit b = draw_heat_map(app, env, d, true, avail);
        if (b.cell >= 0) hit = b;
      }
    }
    if (hit.cell >= 0) ImGui::SetTooltip("%s", sweep_cell_text(d, d.cells[size_t(hit.cell)]).c_str());
  } else {
    hit = draw_line(app, env, d);
  }
  if (hit.clicked && hit.cell >= 0) open_sweep_cell(app, d, d.cells[size_t(hit.cell)]);
  ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
  const bool map = d.axes.size() == 2;
  ImGui::TextWrapped("%s the fastest (%s). Hover a %s for its figures; click one to open that variant in every view.",
                     map ? "Outlined:" : "Ringed:", d.measured ? "measured" : "predicted", map ? "cell" : "point");
  // The combinations the kernel cannot build, with the kernel's own reasons.
  for (const SweepCell& cell : d.cells)
    if (cell.state == SweepCellState::invalid || cell.state == SweepCellState::failed)
      ImGui::TextWrapped("%s: %s%s", run::swept_text(d.axes, cell.swept).c_str(),
                         cell.state == SweepCellState::failed ? "the model's run failed: " : "", cell.reason.c_str());
  ImGui::PopStyleColor();
}

}  // namespace gs::gui
