// The Compare view: any two variants (two steps, one step with two parameter sets, a step with
// and without a mistake) side by side. A picker per side (kernel, each declared parameter,
// mistake); what it bought (the model's comparison of the two predictions) over a table of both
// sides' figures (predicted and measured TFLOP/s, the breakdown, the traced CTA's cycles,
// stalls, shared memory, occupancy and waves) with B / A beside them; both timelines on one time
// axis, A's warps over B's; and what changed, the source or PTX diff. The model runs are a job:
// until it lands the view says so. Data: gui/core/compare_data.hpp.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gui/core/compare_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

// The picker of one side: kernel, each parameter's value, the mistake (none or one).
bool variant_picker(const char* side, run::KernelVariant& v, const ViewEnv& env) {
  bool changed = false;
  ImGui::PushID(side);
  if (env.bold) ImGui::PushFont(env.bold);
  ImGui::TextUnformatted(side);
  if (env.bold) ImGui::PopFont();
  ImGui::SameLine();
  const float em = ImGui::GetFontSize();
  float kernel_w = 0;  // the longest "NN id" fits
  for (const kernels::KernelInfo& k : kernels::all_kernels())
    kernel_w = std::max(kernel_w, ImGui::CalcTextSize(fmt::format("{:02} {}", k.step, k.id).c_str()).x);
  ImGui::SetNextItemWidth(kernel_w + ImGui::GetFrameHeight() * 1.5f);
  const kernels::KernelInfo* info = kernels::find_kernel(v.id);
  if (ImGui::BeginCombo("##kernel", info ? fmt::format("{:02} {}", info->step, info->id).c_str() : "pick a kernel")) {
    for (const kernels::KernelInfo& k : kernels::all_kernels())
      if (ImGui::Selectable(fmt::format("{:02} {}", k.step, k.id).c_str(), v.id == k.id) && v.id != k.id) {
        v = {k.id, {}, {}};  // another kernel: as it ships
        changed = true;
      }
    ImGui::EndCombo();
  }
  info = kernels::find_kernel(v.id);
  if (!info) {
    ImGui::PopID();
    return changed;
  }
  for (const kernels::BuildParam& p : info->params) {
    const auto set = v.params.find(p.name);
    const uint32_t now = set != v.params.end() ? set->second : p.default_value;
    const std::string label = fmt::format("{}={}", p.name, now);
    same_line_if_fits(ImGui::CalcTextSize(label.c_str()).x + ImGui::GetFrameHeight() * 2);
    ImGui::SetNextItemWidth(ImGui::CalcTextSize(label.c_str()).x + ImGui::GetFrameHeight() * 1.5f);
    if (ImGui::BeginCombo(("##" + p.name).c_str(), label.c_str())) {
      for (uint32_t c : p.choices) {
        const std::string item = fmt::format("{}={}{}", p.name, c, c == p.default_value ? " (default)" : "");
        if (ImGui::Selectable(item.c_str(), c == now) && c != now) {
          if (c == p.default_value) v.params.erase(p.name);
          else v.params[p.name] = c;
          changed = true;
        }
      }
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.description.c_str());
  }
  if (!info->mistakes.empty()) {
    const std::string now = v.mistakes.empty() ? "no mistake" : *v.mistakes.begin();
    same_line_if_fits(ImGui::CalcTextSize(now.c_str()).x + ImGui::GetFrameHeight() * 2);
    ImGui::SetNextItemWidth(std::max(em * 8, ImGui::CalcTextSize(now.c_str()).x + ImGui::GetFrameHeight() * 1.5f));
    if (ImGui::BeginCombo("##mistake", now.c_str())) {
      if (ImGui::Selectable("no mistake", v.mistakes.empty()) && !v.mistakes.empty()) {
        v.mistakes.clear();
        changed = true;
      }
      for (const kernels::Mistake& m : info->mistakes) {
        if (ImGui::Selectable(m.name.c_str(), v.mistakes.count(m.name) > 0) && !v.mistakes.count(m.name)) {
          v.mistakes = {m.name};
          changed = true;
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", m.description.c_str(), m.symptom.c_str());
      }
      ImGui::EndCombo();
    }
  }
  ImGui::PopID();
  return changed;
}

void pickers(AppState& app, const ViewEnv& env) {
  CompareViewOptions& o = app.compare_view;
  run::KernelVariant b = o.b ? *o.b : default_variant_b(app);
  run::KernelVariant a = o.a ? *o.a : default_variant_a(b);
  if (variant_picker("A", a, env)) o.a = a;
  if (!o.a) {
    ImGui::SameLine();
    ImGui::TextDisabled("(default: what B came from)");
  }
  if (variant_picker("B", b, env)) o.b = b;
  if (!o.b) {
    ImGui::SameLine();
    ImGui::TextDisabled("(the kernel on screen)");
  }
  same_line_if_fits(ImGui::CalcTextSize("swap A and B").x + ImGui::GetFrameHeight());
  if (ImGui::Button("swap A and B")) {
    o.a = b;
    o.b = a;
  }
}

std::string tflops_text(double v) { return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v); }

std::string ratio_text(double a, double b) {
  if (!(a > 0.0) || !(b > 0.0)) return "";
  return fmt::format("{:.2f}x", b / a);
}

std::string count_text(uint64_t v) {
  if (v >= 10'000'000) return fmt::format("{:.1f} M", double(v) / 1e6);
  if (v >= 10'000) return fmt::format("{:.1f} k", double(v) / 1e3);
  return std::to_string(v);
}

// One row of the figures table: a name, A's and B's text, and B / A.
void figure_row(const char* name, const std::string& a, const std::string& b, const std::string& ratio,
                const char* tip = nullptr) {
  // Each cell wraps to its column: a narrow window gets taller rows, never clipped figures.
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::TextWrapped("%s", name);
  if (tip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
  ImGui::TableSetColumnIndex(1);
  ImGui::TextWrapped("%s", a.c_str());
  ImGui::TableSetColumnIndex(2);
  ImGui::TextWrapped("%s", b.c_str());
  ImGui::TableSetColumnIndex(3);
  ImGui::TextUnformatted(ratio.c_str());
}

void number_row(const char* name, uint64_t a, uint64_t b, const CompareData& d, const char* tip = nullptr) {
  figure_row(name, d.a.ok() ? count_text(a) : "-", d.b.ok() ? count_text(b) : "-",
             d.a.ok() && d.b.ok() ? ratio_text(double(a), double(b)) : "", tip);
}

std::string measured_text(const CompareSide& s) {
  return s.measured ? fmt::format("{} ({})", tflops_text(s.measured->tflops), s.measured->source) : s.not_measured;
}

std::string stalls_text(const CompareSide& s) {
  std::string out;
  for (const CompareStall& c : s.stalls) out += fmt::format("{}{} {:.0f}%", out.empty() ? "" : "\n", c.name, 100 * c.share);
  return out;
}

void figures(const CompareData& d, const ViewEnv& env) {
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_BordersOuter |
                                ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##figures", 4, flags)) return;
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.1f);
  ImGui::TableSetupColumn(("A: " + d.a.name).c_str(), ImGuiTableColumnFlags_WidthStretch, 1.5f);
  ImGui::TableSetupColumn(("B: " + d.b.name).c_str(), ImGuiTableColumnFlags_WidthStretch, 1.5f);
  ImGui::TableSetupColumn("B / A", ImGuiTableColumnFlags_WidthStretch, 0.45f);
  ImGui::TableHeadersRow();
  const auto predicted = [](const CompareSide& s) {
    return s.predicted ? fmt::format("{} on {}", tflops_text(s.predicted_tflops), s.machine)
                       : (s.prediction_error.empty() ? s.error : s.prediction_error);
  };
  figure_row("predicted TFLOP/s", predicted(d.a), predicted(d.b),
             d.a.predicted && d.b.predicted ? ratio_text(d.a.predicted_tflops, d.b.predicted_tflops) : "",
             "the model's whole-GEMM prediction at the shape above (timing.hpp), as the Ladder and Throughput views "
             "show it; under it its breakdown, cycles per wave of each limit, the bound marked");
  figure_row("measured TFLOP/s", measured_text(d.a), measured_text(d.b),
             d.measured_ratio ? fmt::format("{:.2f}x", *d.measured_ratio) : "");
  figure_row("bound by", d.a.predicted ? d.a.prediction.parts.bound : "", d.b.predicted ? d.b.prediction.parts.bound : "",
             "");
  // The breakdown, part by part (cycles per wave; the bound marked).
  const size_t parts = std::max(d.a.parts.size(), d.b.parts.size());
  for (size_t i = 0; i < parts; ++i) {
    const PredictionPart* pa = i < d.a.parts.size() ? &d.a.parts[i] : nullptr;
    const PredictionPart* pb = i < d.b.parts.size() ? &d.b.parts[i] : nullptr;
    const PredictionPart& any = pa ? *pa : *pb;
    const auto text = [](const PredictionPart* p) {
      return p ? fmt::format("{}{} ({:.0f}%)", p->bound ? "■ " : "", count_text(uint64_t(p->cycles)), 100 * p->share) : "";
    };
    const std::string name = "  " + any.name;
    figure_row(name.c_str(), text(pa), text(pb), pa && pb ? ratio_text(pa->cycles, pb->cycles) : "", any.meaning.c_str());
  }
  number_row("traced CTA cycles", d.a.cycles, d.b.cycles, d,
             "the model's traced CTA alone on its SM: the timelines below");
  figure_row("tensor cores busy", d.a.ok() ? fmt::format("{:.0f}%", 100 * d.a.tensor_busy_share) : "-",
             d.b.ok() ? fmt::format("{:.0f}%", 100 * d.b.tensor_busy_share) : "-", "");
  number_row("warp instructions", d.a.traced.traced_cost.warp_instructions, d.b.traced.traced_cost.warp_instructions, d);
  figure_row("stalls (all warps)", stalls_text(d.a), stalls_text(d.b), "",
             "the warps' cycles by cause, summed over the traced CTA (the Timeline view's table)");
  number_row("shared bytes", d.a.traced.traced_cost.smem_bytes, d.b.traced.traced_cost.smem_bytes, d);
  number_row("shared wavefronts", d.a.traced.smem_wavefronts, d.b.traced.smem_wavefronts, d,
             "ld/st.shared, ldmatrix, cp.async wavefronts of the traced CTA (the Shared memory view)");
  number_row("  ideal", d.a.traced.smem_ideal_wavefronts, d.b.traced.smem_ideal_wavefronts, d);
  number_row("  bank conflicts", d.a.traced.smem_bank_conflicts, d.b.traced.smem_bank_conflicts, d,
             "wavefronts beyond the ideal");
  number_row("tensor-core reads' conflicts", d.a.traced.tensor_smem_bank_conflicts, d.b.traced.tensor_smem_bank_conflicts, d);
  number_row("TMA bytes", d.a.traced.traced_cost.tma_bytes, d.b.traced.traced_cost.tma_bytes, d);
  number_row("global load bytes", d.a.traced.traced_cost.global_load_bytes, d.b.traced.traced_cost.global_load_bytes, d);
  const auto occupancy = [](const CompareSide& s) {
    return s.ok() ? fmt::format("{} CTA{}/SM ({})", s.ctas_per_sm, s.ctas_per_sm == 1 ? "" : "s", s.occupancy_bound) : "-";
  };
  figure_row("occupancy", occupancy(d.a), occupancy(d.b), "", "the Schedule view's occupancy at the traced shape");
  const auto grid = [](const CompareSide& s) {
    return s.schedule_headline.empty() ? s.waves_text : s.schedule_headline + "\n" + s.waves_text;
  };
  figure_row("waves", grid(d.a), grid(d.b), "", "the Schedule view's waves at the traced shape");
  number_row("hazards", d.a.hazards, d.b.hazards, d, "the model's hazard findings in the traced CTA (the Problems view)");
  ImGui::EndTable();
  (void)env;
}

std::string shape_words(kernels::GemmShape s) {
  return s.m == s.n && s.n == s.k ? fmt::format("{}³", s.m) : fmt::format("{}x{}x{}", s.m, s.n, s.k);
}

// The section's title says where the figures are from ("###" keeps its id when they change).
std::string figures_title(const CompareData& d) {
  return fmt::format("Figures: predicted at {}, traced CTA at {}###figures", shape_words(d.prediction_shape),
                     shape_words(d.shape));
}

void timelines(AppState& app, const CompareData& d, const ViewEnv& env) {
  if (d.lanes.empty()) {
    ImGui::TextDisabled("no timeline: %s", !d.a.ok() ? d.a.error.c_str() : d.b.error.c_str());
    return;
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("%s", fmt::format("traced CTA of each at {}, one time axis; A: {:.0f} MHz, B: {:.0f} MHz{}{}",
                                        shape_words(d.shape), d.a.clock_hz / 1e6, d.b.clock_hz / 1e6,
                                        d.lanes_note.empty() ? "" : "; ", d.lanes_note)
                                .c_str());
  if (!d.shape_note.empty()) ImGui::TextDisabled("%s", d.shape_note.c_str());
  ImGui::PopTextWrapPos();
  draw_timeline_legend(env);
  float label_w = ImGui::CalcTextSize("B w00").x;
  for (const CompareLane& l : d.lanes) label_w = std::max(label_w, ImGui::CalcTextSize(l.label.c_str()).x);
  const LanePlot p = draw_time_lanes(d.lanes, d.end_ps, label_w, "##compare_lanes", env);
  const bool hovered = ImGui::IsItemHovered();
  // Where B's lanes start: a line between the two.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float yb = p.y0 + p.row_h * float(d.lanes_a + 1);
  dl->AddLine(ImVec2(p.x0 - label_w - 4 * env.scale, yb), ImVec2(p.x0 + p.w, yb), muted_color(env), env.scale);
  // For the headless pixel test: the first lane's x, y, width and row height; B's first lane.
  app.drawn["compare.lanes"] = {p.x0, p.y0 + p.row_h, p.w, p.row_h};
  app.drawn["compare.lanes_b"] = {p.x0, yb, p.w, p.row_h};
  if (hovered && d.end_ps > 0) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const long lane = long((m.y - p.y0) / p.row_h) - 1;
    if (m.x >= p.x0 && lane >= 0 && size_t(lane) < d.lanes.size()) {
      const uint64_t ps = uint64_t(double(std::clamp((m.x - p.x0) / p.w, 0.0f, 1.0f)) * double(d.end_ps));
      const CompareLane& l = d.lanes[size_t(lane)];
      std::string what = l.label;
      if (const SkippedSpan* k = skipped_at(l.skipped, ps)) what += ": " + skipped_text(*k);
      else
        for (const TimelineSegment& g : l.segments)
          if (g.begin <= ps && ps < g.end) what += std::string(": ") + warp_activity_name(g.activity);
      ImGui::SetTooltip("%.3f µs, %s", double(ps) / 1e6, what.c_str());
    }
  }
}

void diff_part(AppState& app, const CompareData& d, const ViewEnv& env) {
  if (!d.diff_error.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", d.diff_error.c_str());
    ImGui::PopTextWrapPos();
    return;
  }
  CompareViewOptions& o = app.compare_view;
  if (ImGui::RadioButton("source", !o.show_ptx)) o.show_ptx = false;
  ImGui::SameLine();
  if (ImGui::RadioButton("PTX", o.show_ptx)) o.show_ptx = true;
  ImGui::SameLine();
  ImGui::Checkbox("changes only", &o.changes_only);
  const run::TextDiff& t = o.show_ptx ? d.diff.ptx : d.diff.source;
  const run::DiffCount c = run::count_changes(t.rows);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(d.diff.summary.c_str());
  ImGui::TextDisabled("%s", fmt::format("{} line{} removed, {} added{}", c.removed, c.removed == 1 ? "" : "s", c.added,
                                        o.show_ptx ? "; register and label numbers renamed in order of appearance" : "")
                                .c_str());
  ImGui::PopTextWrapPos();
  const float h = std::max(ImGui::GetTextLineHeightWithSpacing() * 12, ImGui::GetContentRegionAvail().y);
  draw_side_by_side(t, o.changes_only ? 3 : -1, h, env);
}

}  // namespace

void draw_compare(AppState& app, const ViewEnv& env) {
  if (!app.kernel) {
    ImGui::TextDisabled("no kernel loaded");
    return;
  }
  pickers(app, env);
  const CompareData* d = request_compare(app);
  if (!compare_current(app)) {
    std::string status = "running the model for A and B...";
    for (const auto& j : app.jobs)
      if (j->kind() == JobKind::compare && !j->finished()) status = j->status() + "...";
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(warn_color(env)), "%s", status.c_str());
    if (!d) return;
    ImGui::SameLine();
    ImGui::TextDisabled("(below: the comparison before)");
  }
  ImGui::BeginChild("##compare_body", ImVec2(0, 0), false);
  ImGui::PushTextWrapPos(0.0f);
  if (!d->bought.empty()) {
    if (env.bold) ImGui::PushFont(env.bold);
    ImGui::TextUnformatted(d->bought.c_str());
    if (env.bold) ImGui::PopFont();
    if (d->measured_ratio) ImGui::Text("measured: B is %.2fx A", *d->measured_ratio);
    for (size_t i = 1; i < d->why.lines.size(); ++i) ImGui::BulletText("%s", d->why.lines[i].c_str());
  } else {
    for (const CompareSide* s : {&d->a, &d->b})
      if (!s->ok() || !s->prediction_error.empty())
        ImGui::TextDisabled("%s", fmt::format("{}: {}", s->name, s->ok() ? s->prediction_error : s->error).c_str());
  }
  ImGui::PopTextWrapPos();
  // Wide: the figures and the timelines side by side; narrow: one under the other.
  const bool wide = ImGui::GetContentRegionAvail().x >= 900.0f * env.scale;
  if (wide && ImGui::BeginTable("##compare_columns", 2, ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable)) {
    ImGui::TableSetupColumn("figures", ImGuiTableColumnFlags_WidthStretch, 0.45f);
    ImGui::TableSetupColumn("timelines", ImGuiTableColumnFlags_WidthStretch, 0.55f);
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    if (ImGui::CollapsingHeader(figures_title(*d).c_str(), ImGuiTreeNodeFlags_DefaultOpen)) figures(*d, env);
    ImGui::TableSetColumnIndex(1);
    if (ImGui::CollapsingHeader("Timelines", ImGuiTreeNodeFlags_DefaultOpen)) timelines(app, *d, env);
    ImGui::EndTable();
  } else {
    if (ImGui::CollapsingHeader("Timelines", ImGuiTreeNodeFlags_DefaultOpen)) timelines(app, *d, env);
    if (ImGui::CollapsingHeader(figures_title(*d).c_str(), ImGuiTreeNodeFlags_DefaultOpen)) figures(*d, env);
  }
  if (ImGui::CollapsingHeader("What changed", ImGuiTreeNodeFlags_DefaultOpen)) diff_part(app, *d, env);
  ImGui::EndChild();
}

}  // namespace gs::gui
