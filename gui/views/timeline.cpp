// The timeline view: every traced warp over modeled time as a bar of its states (green ready,
// amber waiting: full for an mbarrier, lighter for bar.sync, lightest for wgmma.wait; red
// deadlocked), with a tick where it issued a TMA (top) and where it stored to C (bottom); then
// the TMA engine's lane (each transfer from issue to landing) and the tensor cores' lane (busy
// while an MMA is in flight). The playback cursor is the vertical line; clicking moves it.
// With a timeline recorded on a GPU (imported, or recorded here with the button), a second
// choice sets it beside the model's (timeline_compare.cpp).
#include <algorithm>

#include <fmt/format.h>

#include "gui/core/timeline_data.hpp"
#include "gui/views/timeline_compare.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

float wait_alpha(WarpActivity a) {
  switch (a) {
    case WarpActivity::waiting_bar: return 0.7f;
    case WarpActivity::waiting_wgmma: return 0.45f;
    default: return 1.0f;
  }
}

ImU32 with_alpha(ImU32 c, float a) { return (c & 0x00FFFFFFu) | (ImU32(std::clamp(a, 0.0f, 1.0f) * 255.0f) << 24); }

ImU32 segment_color(WarpActivity a, const ViewEnv& env) { return with_alpha(activity_color(a, env), wait_alpha(a)); }

// What the colours and ticks mean: a swatch and a name each, wrapping to the view's width.
void draw_legend(const ViewEnv& env) {
  const float s = env.scale, sw = ImGui::GetTextLineHeight();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  bool first = true;
  for (const TimelineLegendItem& item : timeline_legend()) {
    const float w = sw + 3 * s + ImGui::CalcTextSize(item.name.c_str()).x;
    if (!first) {
      ImGui::SameLine(0, 10 * s);
      if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
    }
    first = false;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    switch (item.mark) {  // as the rows draw them: TMA issues at the top, stores at the bottom
      case TimelineMark::state:
        dl->AddRectFilled(ImVec2(p.x, p.y + 3 * s), ImVec2(p.x + sw, p.y + sw - 2 * s), segment_color(item.activity, env));
        break;
      case TimelineMark::tma_issue:
        dl->AddLine(ImVec2(p.x + sw / 2, p.y + 1 * s), ImVec2(p.x + sw / 2, p.y + sw * 0.45f), text, 1.5f * s);
        break;
      case TimelineMark::store:
        dl->AddLine(ImVec2(p.x + sw / 2, p.y + sw * 0.55f), ImVec2(p.x + sw / 2, p.y + sw), error_color(env), 1.5f * s);
        break;
    }
    ImGui::Dummy(ImVec2(sw + 3 * s, sw));
    ImGui::SameLine(0, 0);
    ImGui::TextUnformatted(item.name.c_str());
  }
}

void draw_model_trace(AppState& app, const ViewEnv& env) {
  if (!app.kernel) {
    ImGui::TextDisabled("no kernel open");
    return;
  }
  const LoadedKernel& k = *app.kernel;
  const TimelineData& d = timeline_data_cached(app.kernel);
  const Snapshot* snap = app.snapshot();
  const float s = env.scale;
  ImGui::Text("%u cycles, tensor cores busy %.0f%%, %zu TMA transfers", unsigned(d.end_cycle),
              100.0 * d.tensor_busy_share(), d.tma.size());
  if (d.end_cycle == 0 || d.rows.empty()) {
    ImGui::TextDisabled("the trace is empty");
    return;
  }
  draw_legend(env);
  const float row_h = std::max(6.0f * s, ImGui::GetTextLineHeight() * 0.9f);
  const float label_w = ImGui::CalcTextSize("0.00 consumer").x;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float plot_w = std::max(40.0f * s, avail.x - label_w - 8 * s);
  const size_t lanes = d.rows.size() + 2;
  const uint32_t columns = uint32_t(std::max(1.0f, plot_w));
  ImGui::BeginChild("##timeline_rows", ImVec2(0, 0), false);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float x0 = o.x + label_w + 4 * s;
  ImGui::InvisibleButton("##timeline", ImVec2(label_w + 4 * s + plot_w, row_h * float(lanes)));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  app.drawn["timeline.plot"] = {x0, o.y, plot_w, row_h};  // for the headless pixel test: x, y, width, row height
  const auto x_of = [&](uint64_t c) { return x0 + plot_w * float(double(c) / double(d.end_cycle)); };
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const auto label = [&](size_t lane, const std::string& t, ImU32 color) {
    dl->AddText(ImVec2(o.x, o.y + row_h * float(lane)), color, t.c_str());
  };
  for (size_t i = 0; i < d.rows.size(); ++i) {
    const TimelineRow& r = d.rows[i];
    const float y = o.y + row_h * float(i);
    label(i, timeline_label(r, snap), app.selection.warp == r.warp ? warn_color(env) : text);
    // At most one state and one tick of each kind per pixel column (timeline_data.hpp).
    for (const TimelineSegment& g : segments_at_pixels(r.segments, d.end_cycle, columns)) {
      if (g.activity == WarpActivity::not_started) continue;
      dl->AddRectFilled(ImVec2(x_of(g.begin), y + 2 * s), ImVec2(std::max(x_of(g.end), x_of(g.begin) + 1), y + row_h - 2 * s),
                        segment_color(g.activity, env));
    }
    for (uint64_t c : ticks_at_pixels(r.tma_issues, d.end_cycle, columns))
      dl->AddLine(ImVec2(x_of(c), y), ImVec2(x_of(c), y + row_h * 0.4f), text, 1.5f * s);
    for (uint64_t c : ticks_at_pixels(r.stores, d.end_cycle, columns))
      dl->AddLine(ImVec2(x_of(c), y + row_h * 0.6f), ImVec2(x_of(c), y + row_h), error_color(env), 1.0f * s);
  }
  const size_t tma_lane = d.rows.size(), tensor_lane = d.rows.size() + 1;
  label(tma_lane, "TMA", muted_color(env));
  for (const TimelineSpan& t : spans_at_pixels(d.tma, d.end_cycle, columns)) {
    const float y = o.y + row_h * float(tma_lane);
    dl->AddRectFilled(ImVec2(x_of(t.begin), y + 3 * s), ImVec2(std::max(x_of(t.end), x_of(t.begin) + 1), y + row_h - 3 * s),
                      with_alpha(warp_color(t.index % 12), 0.6f));
  }
  label(tensor_lane, "tensor", muted_color(env));
  for (const TimelineSpan& t : spans_at_pixels(d.tensor, d.end_cycle, columns)) {
    const float y = o.y + row_h * float(tensor_lane);
    dl->AddRectFilled(ImVec2(x_of(t.begin), y + 2 * s), ImVec2(std::max(x_of(t.end), x_of(t.begin) + 1), y + row_h - 2 * s),
                      ok_color(env));
  }
  if (snap) {
    const float cx = x_of(std::min(snap->cycle, d.end_cycle));
    dl->AddLine(ImVec2(cx, o.y), ImVec2(cx, o.y + row_h * float(lanes)), text, 1.5f * s);
  }
  if (hovered) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    if (m.x >= x0) {
      const uint64_t cycle = uint64_t(std::clamp((m.x - x0) / plot_w, 0.0f, 1.0f) * float(d.end_cycle));
      const size_t lane = size_t(std::clamp((m.y - o.y) / row_h, 0.0f, float(lanes - 1)));
      std::string what = lane == tma_lane ? "TMA engine" : lane == tensor_lane ? "tensor cores" : "warp " + d.rows[lane].label;
      if (lane < d.rows.size())
        for (const TimelineSegment& g : d.rows[lane].segments)
          if (g.begin <= cycle && cycle < g.end) what += std::string(": ") + warp_activity_name(g.activity);
      ImGui::SetTooltip("cycle %llu, %s\nclick to move the cursor here", (unsigned long long)cycle, what.c_str());
      if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
        app.seek(timeline_position_at(k, cycle));
        if (lane < d.rows.size()) app.select_warp(d.rows[lane].warp);
      }
    }
  }
  ImGui::EndChild();
}

}  // namespace

void draw_timeline(AppState& app, const ViewEnv& env) {
  draw_record_button(app, env);
  if (app.recorded_timeline) {
    bool& recorded = app.timeline_view.show_recorded;
    ImGui::SameLine();
    if (ImGui::RadioButton("model trace", !recorded)) recorded = false;
    ImGui::SameLine();
    if (ImGui::RadioButton("GPU vs model", recorded)) recorded = true;
    if (recorded) {
      draw_timeline_compare(app, env);
      return;
    }
  }
  draw_model_trace(app, env);
}

}  // namespace gs::gui
