// The ladder view: every kernel of the registry as a speed ladder (step, title, the model's and
// the measured TFLOP/s at 4096³, speed-ups; speed_ladder.hpp), the request
// being edited for the selected one — shape checked by the kernel's own rules with the error
// inline, inputs, seed, the traced CTA, the kernel's mistakes as toggles — and the buttons that
// open it (one CTA traced), run the whole grid on the model (judged) or benchmark it on the
// GPU. Below, what the loaded kernel's run showed.
#include <algorithm>

#include <fmt/format.h>

#include "run/gemm_data.hpp"
#include "gui/core/ladder_data.hpp"
#include "gui/core/speed_ladder.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

float button_width(const char* label) {
  return ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2;
}

void error_line(const std::string& msg, const ViewEnv& env) {
  if (msg.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, error_color(env));
  ImGui::TextWrapped("%s", msg.c_str());
  ImGui::PopStyleColor();
}

std::string speed_text(double tflops) {
  return tflops >= 100.0 ? fmt::format("{:.0f}", tflops) : fmt::format("{:.1f}", tflops);
}

// The model's figure for a row: a number, "…" while its run is pending, "?" with the reason.
void predicted_cell(const SpeedRow& r, const ViewEnv& env) {
  if (!r.predicted) {
    ImGui::TextDisabled("-");
  } else if (!r.predicted->done) {
    ImGui::TextDisabled("…");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the model is running this step at 4096³");
  } else if (!r.predicted->error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, error_color(env));
    ImGui::TextUnformatted("?");
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("no prediction: %s", r.predicted->error.c_str());
  } else {
    ImGui::Text("%s%s", speed_text(r.predicted->tflops).c_str(), r.predicted->confirmed ? "" : "*");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("the model's prediction on %s at 4096³%s", r.predicted->machine.c_str(),
                        r.predicted->confirmed ? "" : " (NVIDIA's figures, unconfirmed: no such GPU was measured)");
  }
}

void measured_cell(const SpeedRow& r, const ViewEnv& env) {
  if (!r.measured && !r.published.empty()) {
    // Nothing measured here, but a public ladder published a figure for this technique: shown
    // dimmed with a dagger, never as our measurement.
    ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
    ImGui::Text("%s†", speed_text(r.published.front()->tflops).c_str());
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40.0f);
      ImGui::Text("† %s (%s):", run::kPublishedNotMeasured.data(), r.not_measured.c_str());
      for (const run::PublishedFigure* f : r.published) {
        ImGui::BulletText("%s", run::published_line(*f).c_str());
        if (!f->differs.empty()) ImGui::TextDisabled("  differs: %.*s", int(f->differs.size()), f->differs.data());
      }
      if (r.predicted && r.predicted->done && r.predicted->error.empty())
        ImGui::Text("beside the model's %s TFLOP/s, %s", speed_text(r.predicted->tflops).c_str(),
                    prediction_standing(*r.predicted).c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
    return;
  }
  if (!r.measured) {
    ImGui::TextDisabled("-");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.not_measured.c_str());
    return;
  }
  if (r.measured->yours) ImGui::PushStyleColor(ImGuiCol_Text, ok_color(env));
  ImGui::TextUnformatted(speed_text(r.measured->tflops).c_str());
  if (r.measured->yours) ImGui::PopStyleColor();
  if (ImGui::IsItemHovered()) {
    const auto& cublas_tflops = r.measured->cublas_tflops;
    const std::string cublas =
        cublas_tflops ? fmt::format("; cuBLAS {} in the same run", speed_text(*cublas_tflops)) : "";
    ImGui::SetTooltip("measured: %s (%s)%s", r.measured->source.c_str(), r.measured->device.c_str(), cublas.c_str());
  }
}

void ratio_cell(const std::optional<double>& ratio, const char* what) {
  if (!ratio) {
    ImGui::TextDisabled("-");
    return;
  }
  ImGui::Text(*ratio >= 10.0 ? "×%.0f" : "×%.2f", *ratio);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("measured TFLOP/s over %s", what);
}

// The sources the measured column uses, in one line above the table.
std::string sources_line(const std::vector<SpeedRow>& rows) {
  // Each source once, with how it was measured (measured_method) where its file says.
  std::vector<std::string> sources, labels;
  for (const SpeedRow& r : rows)
    if (r.measured && std::find(sources.begin(), sources.end(), r.measured->source) == sources.end()) {
      sources.push_back(r.measured->source);
      const std::string method = measured_method(*r.measured);
      labels.push_back(method.empty() ? r.measured->source : r.measured->source + " (" + method + ")");
    }
  std::string text;
  for (const std::string& s : labels) text += (text.empty() ? "" : "; ") + s;
  if (text.empty()) text = "nothing measured";
  const bool published = std::any_of(rows.begin(), rows.end(), [](const SpeedRow& r) { return !r.measured && !r.published.empty(); });
  return published ? text + "; † " + std::string(run::kPublishedNotMeasured) : text;
}

// The speed ladder: every step (the selected one highlighted, a click selects it) with the
// model's TFLOP/s at 4096³, the measured figure, and the speed-up over the step before and the
// share of cuBLAS. In a box of its own height, so the request and buttons below stay in sight.
void kernel_list(AppState& app, const ViewEnv& env) {
  request_speed_predictions(app);
  const std::vector<SpeedRow> rows = speed_rows(app);
  const std::string fill = gpu_fill_sentence(app);
  if (!fill.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, warn_color(env));
    ImGui::TextWrapped("%s", fill.c_str());
    ImGui::PopStyleColor();
    const ImVec2 at = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
    app.drawn["ladder.fill"] = {at.x, at.y, size.x, size.y};  // for the headless pixel test
  }
  ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
  ImGui::TextWrapped("TFLOP/s at 4096³; measured: %s", sources_line(rows).c_str());
  ImGui::PopStyleColor();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("model: the prediction for the whole grid at 4096³ (* on NVIDIA's unconfirmed B200 figures); "
                      "measured: your GPU's run of the step at 4096³ when there is one (green), else our own runs "
                      "shipped with the app; † a public ladder's figure for the same technique on its own B200, "
                      "published, not measured here (the Throughput view lists them with their sources)");
  const bool wide = ImGui::GetContentRegionAvail().x > 420 * env.scale;
  const float row_h = ImGui::GetTextLineHeightWithSpacing() + 2.0f * env.scale;
  // Where the figures change kind (the first Blackwell step: not measured, the model's on
  // unconfirmed figures), the list says why between the two rows, across its width.
  const float text_w = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize;
  const float spacing = ImGui::GetStyle().ItemSpacing.y;
  float gaps_h = 0.0f;
  for (const SpeedRow& r : rows)
    if (!r.gap_before.empty())
      gaps_h += ImGui::CalcTextSize(r.gap_before.c_str(), nullptr, false, text_w).y + 3 * spacing;
  const float box_h = std::min(row_h * float(rows.size() + 1) + gaps_h + 8.0f * env.scale,
                               std::max(8.0f * row_h, 0.42f * ImGui::GetContentRegionAvail().y));
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginChild("##speed_list", ImVec2(0, box_h), false)) {
    ImGui::EndChild();
    return;
  }
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImGuiID scrolled = ImGui::GetID("##scrolled-to");
  // One table per run of rows between gaps, with the same columns, the headers on the first.
  bool open = false;
  int table = 0;
  const auto begin_table = [&] {
    open = ImGui::BeginTable(fmt::format("##kernels{}", table++).c_str(), wide ? 6 : 5, flags);
    if (!open) return;
    ImGui::TableSetupColumn("Step", 0, ImGui::CalcTextSize("Step").x);
    ImGui::TableSetupColumn("Kernel", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("model", 0, ImGui::CalcTextSize("8888*").x);
    ImGui::TableSetupColumn("meas.", 0, std::max(ImGui::CalcTextSize("8888†").x, ImGui::CalcTextSize("meas.").x));
    ImGui::TableSetupColumn("×prev", 0, std::max(ImGui::CalcTextSize("×0.00").x, ImGui::CalcTextSize("×prev").x));
    if (wide) ImGui::TableSetupColumn("×cuBLAS", 0, ImGui::CalcTextSize("×cuBLAS").x);
    if (table == 1) ImGui::TableHeadersRow();
  };
  begin_table();
  for (const SpeedRow& r : rows) {
    const kernels::KernelInfo* info = kernels::find_kernel(r.kernel_id);
    if (!info) continue;
    if (!r.gap_before.empty()) {
      if (open) ImGui::EndTable();
      ImGui::Spacing();
      ImGui::PushStyleColor(ImGuiCol_Text, warn_color(env));
      ImGui::TextWrapped("%s", r.gap_before.c_str());
      ImGui::PopStyleColor();
      const ImVec2 at = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
      app.drawn["ladder.gap." + r.kernel_id] = {at.x, at.y, size.x, size.y};  // for the headless tests
      ImGui::Spacing();
      begin_table();
    }
    if (!open) continue;
    ImGui::TableNextRow();
    ImGui::PushID(r.kernel_id.c_str());
    ImGui::TableNextColumn();
    const bool loaded = app.kernel && app.kernel->request.kernel_id == r.kernel_id;
    const std::string step = fmt::format("{:02d}", r.step);
    if (ImGui::Selectable(step.c_str(), r.selected, ImGuiSelectableFlags_SpanAllColumns))
      select_ladder_kernel(app, r.kernel_id);
    // The selected step scrolled into the box once each time the selection changes (ImGui's
    // storage of the box remembers which step it last scrolled to).
    if (r.selected && storage->GetInt(scrolled, -1) != r.step) {
      ImGui::SetScrollHereY(0.5f);
      storage->SetInt(scrolled, r.step);
    }
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
      if (env.bold) ImGui::PushFont(env.bold);
      ImGui::TextUnformatted(info->title.c_str());
      if (env.bold) ImGui::PopFont();
      ImGui::TextDisabled("%s, what changed", std::string(ir::arch_name(info->arch)).c_str());
      ImGui::TextUnformatted(info->delta.c_str());
      if (r.measured && r.vs_cublas)
        ImGui::Text("measured %s TFLOP/s: %.0f%% of cuBLAS (%s)", speed_text(r.measured->tflops).c_str(),
                    100.0 * *r.vs_cublas, r.measured->source.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
    ImGui::TableNextColumn();
    // One line, cut at the column (the tooltip has it whole); the loaded kernel's in the "ok" colour.
    if (loaded) ImGui::PushStyleColor(ImGuiCol_Text, ok_color(env));
    ImGui::TextUnformatted(r.title.c_str());
    if (loaded) ImGui::PopStyleColor();
    ImGui::TableNextColumn();
    note_fit(app, "ladder.speed", ImGui::CalcTextSize("888*").x, ImGui::GetContentRegionAvail().x);
    predicted_cell(r, env);
    ImGui::TableNextColumn();
    measured_cell(r, env);
    ImGui::TableNextColumn();
    ratio_cell(r.vs_previous, "the step before's, same card");
    if (wide) {
      ImGui::TableNextColumn();
      ratio_cell(r.vs_cublas, "cuBLAS's in the same run");
    }
    ImGui::PopID();
  }
  if (open) ImGui::EndTable();
  ImGui::EndChild();
  app.drawn["ladder.speed"] = {ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y, ImGui::GetItemRectSize().x,
                               ImGui::GetItemRectSize().y};
}

// One combo per build parameter the kernel declares (the ring's stages), on the request's line
// under `label`; the default's entry is marked.
void build_params(AppState& app, const kernels::KernelInfo& info, float label_w, const ViewEnv& env) {
  for (const kernels::BuildParam& p : info.params) {
    const auto set = app.request.params.find(p.name);
    const uint32_t value = set != app.request.params.end() ? set->second : p.default_value;
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("%s", p.name.c_str());
    ImGui::SameLine(label_w);
    ImGui::SetNextItemWidth(110 * env.scale);
    ImGui::PushID(p.name.c_str());
    const auto entry = [&](uint32_t v) { return fmt::format("{}{}", v, v == p.default_value ? " (default)" : ""); };
    if (ImGui::BeginCombo("##param", entry(value).c_str())) {
      for (uint32_t v : p.choices)
        if (ImGui::Selectable(entry(v).c_str(), v == value)) set_param(app, p, v);
      ImGui::EndCombo();
    }
    ImGui::PopID();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s: a build parameter; re-open to see its effect", p.description.c_str());
    same_line_if_fits(ImGui::CalcTextSize(p.description.c_str()).x);
    ImGui::TextDisabled("%s", p.description.c_str());
  }
}

void request_editor(AppState& app, const kernels::KernelInfo& info, const RequestCheck& check, const ViewEnv& env) {
  const float s = env.scale;
  // From the window's left edge, as SameLine and SetCursorPosX count (the padding included).
  const float label_w = ImGui::GetCursorPosX() + ImGui::CalcTextSize("Traced CTA").x + 10 * s;
  run::SimRequest& r = app.request;

  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("Shape");
  ImGui::SameLine(label_w);
  const char* shape_labels[3] = {"M", "N", "K"};
  uint32_t* shape_values[3] = {&r.shape.m, &r.shape.n, &r.shape.k};
  u32_fields(app, "ladder.shape_field", shape_labels, shape_values, ImGui::CalcTextSize("example").x + 20 * s, label_w,
             env);
  same_line_if_fits(button_width("example"));
  if (ImGui::GetCursorPosX() < label_w) ImGui::SetCursorPosX(label_w);
  if (ImGui::SmallButton("example")) r.shape = info.example_shape;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%ux%ux%u, the small shape used for demos and tests", info.example_shape.m, info.example_shape.n,
                      info.example_shape.k);
  error_line(check.shape_error, env);

  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("Inputs");
  ImGui::SameLine(label_w);
  if (ImGui::RadioButton("integers", r.inputs == run::InputMode::integer)) r.inputs = run::InputMode::integer;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("small integers: every fp32 sum is exact, so C must match bit for bit");
  ImGui::SameLine();
  if (ImGui::RadioButton("random", r.inputs == run::InputMode::random)) r.inputs = run::InputMode::random;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("random values: C is judged within a relative tolerance");
  ImGui::SameLine();
  ImGui::TextDisabled("seed");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(std::clamp(ImGui::GetContentRegionAvail().x, 50.0f * s, 120.0f * s));
  ImGui::InputScalar("##seed", ImGuiDataType_U64, &r.seed);

  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("Traced CTA");
  ImGui::SameLine(label_w);
  for (int d = 0; d < 2; ++d) {
    if (d) ImGui::SameLine();
    ImGui::TextUnformatted(d == 0 ? "x" : "y");
    ImGui::SameLine(0, 4 * s);
    ImGui::SetNextItemWidth(55 * s);
    ImGui::PushID(d);
    ImGui::InputScalar("##cta", ImGuiDataType_U32, &r.cta[size_t(d)]);
    ImGui::PopID();
  }
  if (check.grid[0]) {
    const std::string grid = fmt::format("grid {} x {}, {} threads", check.grid[0], check.grid[1], check.threads);
    same_line_if_fits(ImGui::CalcTextSize(grid.c_str()).x);
    if (ImGui::GetCursorPosX() < label_w) ImGui::SetCursorPosX(label_w);
    ImGui::TextDisabled("%s", grid.c_str());
  }
  error_line(check.cta_error, env);
  build_params(app, info, label_w, env);
  error_line(check.param_error, env);
  error_line(check.mistake_error, env);

  // Mistakes fold away in a short view so the buttons below stay in sight.
  const std::string header = fmt::format("Mistakes ({} of {} on)###mistakes", r.mistakes.size(), info.mistakes.size());
  const bool tall = ImGui::GetWindowHeight() > 620 * s;
  if (!info.mistakes.empty() &&
      ImGui::TreeNodeEx(header.c_str(), tall ? ImGuiTreeNodeFlags_DefaultOpen : ImGuiTreeNodeFlags_None)) {
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("deliberate bugs: switch one on and open to see what it breaks");
    // Wide enough: the description beside each toggle; narrow: in its tooltip only.
    const bool wide = ImGui::GetContentRegionAvail().x > 560 * s;
    float name_w = 0;
    for (const kernels::Mistake& m : info.mistakes) name_w = std::max(name_w, ImGui::CalcTextSize(m.name.c_str()).x);
    for (const kernels::Mistake& m : info.mistakes) {
      bool on = r.mistakes.count(m.name) > 0;
      const float x0 = ImGui::GetCursorPosX();
      if (ImGui::Checkbox(m.name.c_str(), &on)) set_mistake(app, m.name, on);
      const bool hovered = ImGui::IsItemHovered();
      if (wide) {
        ImGui::SameLine(x0 + ImGui::GetFrameHeight() + name_w + 24 * s);
        ImGui::TextDisabled("%s", m.description.c_str());
      }
      if (hovered || (wide && ImGui::IsItemHovered())) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
        ImGui::TextUnformatted(m.description.c_str());
        ImGui::Spacing();
        ImGui::PushStyleColor(ImGuiCol_Text, warn_color(env));
        ImGui::TextUnformatted(("symptom: " + m.symptom).c_str());
        ImGui::PopStyleColor();
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
      }
    }
    ImGui::TreePop();
  }
}

void action_buttons(AppState& app, const kernels::KernelInfo& info, const RequestCheck& check, const ViewEnv& env) {
  int& repeats = app.ladder_view.gpu_repeats;
  const float s = env.scale;
  const bool busy = app.busy();
  ImGui::BeginDisabled(!check.ok());
  if (ImGui::Button("Open (trace one CTA)")) app.request_open(trace_request(app));
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("build, print PTX and run only the traced CTA on the model: fast at any shape, no verdict");
  same_line_if_fits(button_width("Run on model"));
  if (ImGui::Button("Run on model")) app.request_model_run();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("run the whole grid on the model and judge C against the reference (slow at big shapes)");
  same_line_if_fits(button_width("Run on GPU"));
  if (ImGui::Button("Run on GPU"))
    app.request_gpu_bench({info.id}, resolved_shape(info, app.request.shape), repeats, app.request.params);
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("check and time this kernel on the GPU next to cuBLAS (Throughput view); %d round%s", repeats,
                      repeats == 1 ? "" : "s");
  ImGui::EndDisabled();
  const float slider_w = 60 * s;
  same_line_if_fits(slider_w + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize("20 rounds").x);
  const int one = 1, twenty = 20;
  slider_value_beside(app, "ladder.rounds", "##reps", ImGuiDataType_S32, &repeats, &one, &twenty, "%d rounds", slider_w,
                      "benchmark rounds of Run on GPU");
  if (busy) {
    for (const auto& job : app.jobs) {
      if (job->finished()) continue;
      const double f = job->fraction();
      ImGui::ProgressBar(f < 0 ? 0.0f : float(f), ImVec2(-FLT_MIN, 0), job->name().c_str());
    }
  }
}

void loaded_summary(AppState& app, const ViewEnv& env) {
  if (!app.kernel) {
    ImGui::TextDisabled(app.busy() ? "opening..." : "nothing loaded yet");
    return;
  }
  const RunSummary r = run_summary(*app.kernel);
  ImGui::TextDisabled("Loaded");
  ImGui::SameLine();
  ImGui::Text("%s  %ux%ux%u", r.kernel_id.c_str(), r.shape.m, r.shape.n, r.shape.k);
  // The loaded report holds every parameter as built; show those that differ from the defaults.
  if (const kernels::KernelInfo* info = kernels::find_kernel(r.kernel_id)) {
    const std::string changed = kernels::non_default_params_text(*info, app.kernel->report.params);
    if (!changed.empty()) ImGui::TextWrapped("built with %s", changed.c_str());
  }
  const auto& mistakes = app.kernel->request.mistakes;
  if (!mistakes.empty()) {
    std::string list;
    for (const std::string& m : mistakes) list += (list.empty() ? "" : ", ") + m;
    ImGui::PushStyleColor(ImGuiCol_Text, warn_color(env));
    ImGui::TextWrapped("with %s", list.c_str());
    ImGui::PopStyleColor();
  }
  if (!ImGui::BeginTable("##summary", 2, ImGuiTableFlags_SizingFixedFit)) return;
  auto row = [](const char* name) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", name);
    ImGui::TableNextColumn();
  };
  row("verdict");
  const ImU32 vc = r.verdict == Verdict::correct ? ok_color(env) : r.verdict == Verdict::wrong ? error_color(env)
                                                                                                : muted_color(env);
  ImGui::PushStyleColor(ImGuiCol_Text, vc);
  if (r.verdict == Verdict::wrong)
    ImGui::Text("wrong (%llu of %llu elements)", (unsigned long long)r.mismatches, (unsigned long long)r.elements);
  else
    ImGui::TextUnformatted(verdict_name(r.verdict));
  ImGui::PopStyleColor();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(r.whole_grid ? "the whole grid ran; C compared with a double-precision reference"
                                   : "only the traced CTA ran: press Run on model for a verdict");
  if (!r.completed || r.hazards) {
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, error_color(env));
    ImGui::Text("%s%zu hazard%s", r.completed ? "" : "incomplete, ", r.hazards, r.hazards == 1 ? "" : "s");
    ImGui::PopStyleColor();
  }
  row("warp-instructions");
  ImGui::Text("%llu%s", (unsigned long long)r.warp_instructions,
              r.warp_instructions_scope.empty() ? "" : (" (" + r.warp_instructions_scope + ")").c_str());
  row("modeled cycles");
  ImGui::Text("%llu (traced CTA)", (unsigned long long)r.traced_cycles);
  row("predicted");
  if (r.predicted_tflops > 0)
    ImGui::Text("%.2f TFLOP/s on %s", r.predicted_tflops, r.predicted_on.c_str());
  else
    ImGui::TextDisabled("-");
  row("open time");
  ImGui::Text("%.3f s", r.open_seconds);
  ImGui::EndTable();
}

}  // namespace

void draw_ladder(AppState& app, const ViewEnv& env) {
  kernel_list(app, env);
  const kernels::KernelInfo* info = kernels::find_kernel(app.request.kernel_id);
  if (!info) {
    ImGui::TextDisabled("pick a kernel above");
    return;
  }
  ImGui::Spacing();
  if (env.bold) ImGui::PushFont(env.bold);
  ImGui::TextWrapped("%02d  %s", info->step, info->title.c_str());
  if (env.bold) ImGui::PopFont();
  ImGui::TextDisabled("what changed");
  // Beside its label while that leaves room for a few words a line, else below it.
  if (ImGui::GetContentRegionAvail().x - ImGui::GetItemRectSize().x > 16.0f * ImGui::GetFontSize()) ImGui::SameLine();
  note_fit(app, "ladder.what_changed", ImGui::CalcTextSize(info->delta.c_str()).x,
           4.0f * ImGui::GetContentRegionAvail().x);
  ImGui::TextWrapped("%s", info->delta.c_str());
  if (ImGui::TreeNode("Explanation")) {
    ImGui::TextWrapped("%s", info->explanation.c_str());
    for (const std::string& c : info->constraints) ImGui::BulletText("%s", c.c_str());
    ImGui::TreePop();
  }
  ImGui::Separator();
  const RequestCheck& check = app.view_caches.request_checker.get(app.request);
  request_editor(app, *info, check, env);
  ImGui::Spacing();
  action_buttons(app, *info, check, env);
  ImGui::Separator();
  loaded_summary(app, env);
}

}  // namespace gs::gui
