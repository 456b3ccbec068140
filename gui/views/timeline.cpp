// The timeline view: every traced warp over modeled time as a bar of its states (green ready,
// amber waiting: full for an mbarrier, lighter for bar.sync, lightest for wgmma.wait; red
// deadlocked), with a tick where it issued a TMA (top) and where it stored to C (bottom); then
// the TMA engine's lane (each transfer from issue to landing) and the tensor cores' lane (busy
// while an MMA is in flight). Stretches fast-forward skipped are hatched. The playback cursor is
// the vertical line; clicking moves it. Right of each lane, the warp's cycles by cause (stalls:
// issuing, the issue model's own stalls, each wait, idle), and under the lanes their sum over the
// CTA (gui/core/stall_causes.hpp).
// With a timeline recorded on a GPU (imported, or recorded here with the button), a second
// choice sets it beside the model's (the second half of this file).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gui/core/timeline_compare_data.hpp"
#include "gui/core/timeline_data.hpp"
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

// A fast-forwarded stretch (SkippedSpan): the window's background over the state drawn under
// it, crossed by diagonal lines in the muted colour; the legends' swatch is the same.
void draw_skipped(ImDrawList* dl, ImVec2 a, ImVec2 b, const ViewEnv& env) {
  b.x = std::max(b.x, a.x + 1);
  dl->AddRectFilled(a, b, ImGui::GetColorU32(ImGuiCol_WindowBg));
  const float step = 5 * env.scale, h = b.y - a.y;
  dl->PushClipRect(a, b, true);
  for (float x = a.x - h; x < b.x; x += step) dl->AddLine(ImVec2(x, b.y), ImVec2(x + h, a.y), muted_color(env), env.scale);
  dl->PopClipRect();
}

// Legend items left to right, wrapping to the view's width: each a swatch, which
// `swatch(item, top_left, size)` draws, and the item's name.
template <class Items, class Swatch>
void flow_legend(const ViewEnv& env, const Items& items, Swatch swatch) {
  const float s = env.scale, sw = ImGui::GetTextLineHeight();
  bool first = true;
  for (const auto& item : items) {
    const float w = sw + 3 * s + ImGui::CalcTextSize(item.name.c_str()).x;
    if (!first) {
      ImGui::SameLine(0, 10 * s);
      if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
    }
    first = false;
    swatch(item, ImGui::GetCursorScreenPos(), sw);
    ImGui::Dummy(ImVec2(sw + 3 * s, sw));
    ImGui::SameLine(0, 0);
    ImGui::TextUnformatted(item.name.c_str());
  }
}

// What the colours and ticks mean.
void draw_legend(const ViewEnv& env) {
  const float s = env.scale;
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  flow_legend(env, timeline_legend(), [&](const TimelineLegendItem& item, ImVec2 p, float sw) {
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
      case TimelineMark::skipped: draw_skipped(dl, ImVec2(p.x, p.y + 2 * s), ImVec2(p.x + sw, p.y + sw - 2 * s), env); break;
    }
  });
}

// Stalls by cause (stall_causes.hpp) in the lanes' colours: issuing and the issue model's own
// stalls green (solid, light), the waits amber (mbarrier solid, bar.sync lighter, wgmma.wait
// lightest, as the lanes draw those states), a wgmma held at issue magenta, cp.async waits blue,
// the idle ends grey; the fast-forwarded cycles hatched.
ImU32 stall_color(StallKind k, const ViewEnv& env) {
  switch (k) {
    case StallKind::issuing: return ok_color(env);
    case StallKind::dependency: return with_alpha(ok_color(env), 0.4f);
    case StallKind::mbarrier: return segment_color(WarpActivity::waiting_mbarrier, env);
    case StallKind::bar_sync: return segment_color(WarpActivity::waiting_bar, env);
    case StallKind::wgmma_wait: return segment_color(WarpActivity::waiting_wgmma, env);
    case StallKind::wgmma_issue: return rgb_color(series_rgb(3, env.dark));
    case StallKind::cp_async_wait: return rgb_color(series_rgb(0, env.dark));
    case StallKind::not_started: return with_alpha(muted_color(env), 0.3f);
    case StallKind::finished:
    case StallKind::fast_forwarded:
    case StallKind::count_: break;
  }
  return muted_color(env);
}

// One stacked bar of causes over [x, x + w): each cause's share of `span` cycles, in order;
// barriers of one kind parted by a thin line in the window's colour.
void draw_stall_bar(ImDrawList* dl, const std::vector<StallCause>& causes, uint64_t span, ImVec2 a, float w, float h,
                    const ViewEnv& env) {
  if (span == 0) return;
  double at = 0;
  for (size_t i = 0; i < causes.size(); ++i) {
    const StallCause& c = causes[i];
    const float x0 = a.x + w * float(at / double(span));
    at += double(c.cycles);
    const float x1 = a.x + w * float(at / double(span));
    if (c.kind == StallKind::fast_forwarded)
      draw_skipped(dl, ImVec2(x0, a.y), ImVec2(x1, a.y + h), env);
    else
      dl->AddRectFilled(ImVec2(x0, a.y), ImVec2(std::max(x1, x0 + 1), a.y + h), stall_color(c.kind, env));
    if (i > 0 && causes[i - 1].kind == c.kind && x1 - x0 > 2)
      dl->AddLine(ImVec2(x0, a.y), ImVec2(x0, a.y + h), ImGui::GetColorU32(ImGuiCol_WindowBg), env.scale);
  }
}

// Hover text of a cause list: each cause's cycles, share and meaning.
std::string stall_text(const std::string& whose, const std::vector<StallCause>& causes, uint64_t span) {
  std::string out = whose + ", cycles by cause:";
  for (const StallCause& c : causes)
    out += fmt::format("\n  {:<34} {:>10} cycles {:>5.1f}%", c.name(), c.cycles,
                       span ? 100.0 * double(c.cycles) / double(span) : 0.0);
  return out;
}

// The causes' key, as the bars draw them.
void draw_stall_legend(const StallData& st, const ViewEnv& env) {
  struct Item {
    std::string name;
    StallKind kind;
  };
  std::vector<Item> items;
  for (size_t k = 0; k < size_t(StallKind::count_); ++k)
    if (st.total_of(StallKind(k)) > 0) items.push_back({stall_kind_name(StallKind(k)), StallKind(k)});
  ImGui::TextDisabled("stalls by cause (bars at the right: each warp's cycles):");
  ImGui::SameLine();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float s = env.scale;
  flow_legend(env, items, [&](const Item& item, ImVec2 p, float sw) {
    const ImVec2 a(p.x, p.y + 3 * s), b(p.x + sw, p.y + sw - 2 * s);
    if (item.kind == StallKind::fast_forwarded) draw_skipped(dl, a, b, env);
    else dl->AddRectFilled(a, b, stall_color(item.kind, env));
  });
}

// The CTA's sum: a row per cause (each barrier its own), with its cycles, share and a bar.
void draw_stall_table(const StallData& st, const ViewEnv& env) {
  uint64_t all = 0;
  for (const StallCause& c : st.total) all += c.cycles;
  if (all == 0) return;
  ImGui::TextUnformatted("Stalls by cause, summed over the traced CTA's warps (warp-cycles)");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("##stalls", 4, flags)) return;
  for (const char* h : {"cause", "cycles", "share"}) ImGui::TableSetupColumn(h);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  for (const StallCause& c : st.total) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(c.name().c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", stall_kind_meaning(c.kind));
    ImGui::TableNextColumn();
    mono_text(env, "%llu", (unsigned long long)c.cycles);
    ImGui::TableNextColumn();
    mono_text(env, "%5.1f%%", 100.0 * double(c.cycles) / double(all));
    ImGui::TableNextColumn();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = std::min(ImGui::GetContentRegionAvail().x, 240.0f * env.scale), h = ImGui::GetTextLineHeight();
    ImGui::Dummy(ImVec2(w, h));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float x1 = p.x + w * float(double(c.cycles) / double(all));
    if (c.kind == StallKind::fast_forwarded) draw_skipped(dl, ImVec2(p.x, p.y + 2 * env.scale), ImVec2(x1, p.y + h - 2 * env.scale), env);
    else dl->AddRectFilled(ImVec2(p.x, p.y + 2 * env.scale), ImVec2(std::max(x1, p.x + 1), p.y + h - 2 * env.scale),
                           stall_color(c.kind, env));
  }
  ImGui::EndTable();
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
  draw_stall_legend(d.stalls, env);
  const float row_h = std::max(6.0f * s, ImGui::GetTextLineHeight() * 0.9f);
  const float label_w = ImGui::CalcTextSize("0.00 consumer").x;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Each warp's stalls by cause in a column right of its lane, where the view is wide enough.
  const float stall_w = avail.x >= 560.0f * s ? std::min(220.0f * s, avail.x * 0.16f) : 0.0f;
  const float stall_gap = stall_w > 0 ? 10.0f * s : 0.0f;
  const float plot_w = std::max(40.0f * s, avail.x - label_w - 8 * s - stall_w - stall_gap);
  const size_t lanes = d.rows.size() + 2;
  const uint32_t columns = uint32_t(std::max(1.0f, plot_w));
  ImGui::BeginChild("##timeline_rows", ImVec2(0, 0), false);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float x0 = o.x + label_w + 4 * s;
  ImGui::InvisibleButton("##timeline", ImVec2(label_w + 4 * s + plot_w + stall_gap + stall_w, row_h * float(lanes)));
  const bool hovered = ImGui::IsItemHovered();
  const float stall_x = x0 + plot_w + stall_gap;
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
    for (const SkippedSpan& k : r.skipped)
      draw_skipped(dl, ImVec2(x_of(k.begin), y + 2 * s), ImVec2(x_of(k.end), y + row_h - 2 * s), env);
    for (uint64_t c : ticks_at_pixels(r.tma_issues, d.end_cycle, columns))
      dl->AddLine(ImVec2(x_of(c), y), ImVec2(x_of(c), y + row_h * 0.4f), text, 1.5f * s);
    for (uint64_t c : ticks_at_pixels(r.stores, d.end_cycle, columns))
      dl->AddLine(ImVec2(x_of(c), y + row_h * 0.6f), ImVec2(x_of(c), y + row_h), error_color(env), 1.0f * s);
    if (stall_w > 0 && i < d.stalls.warps.size())
      draw_stall_bar(dl, d.stalls.warps[i].causes, d.stalls.warps[i].total(), ImVec2(stall_x, y + 2 * s), stall_w,
                     row_h - 4 * s, env);
  }
  if (stall_w > 0) app.drawn["timeline.stalls"] = {stall_x, o.y, stall_w, row_h};  // for the headless pixel test
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
    const size_t row = size_t(std::clamp((m.y - o.y) / row_h, 0.0f, float(lanes - 1)));
    if (stall_w > 0 && m.x >= stall_x) {
      if (row < d.stalls.warps.size()) {
        const WarpStalls& w = d.stalls.warps[row];
        ImGui::SetTooltip("%s", stall_text("warp " + w.label, w.causes, w.total()).c_str());
      }
    } else if (m.x >= x0) {
      const uint64_t cycle = uint64_t(std::clamp((m.x - x0) / plot_w, 0.0f, 1.0f) * float(d.end_cycle));
      const size_t lane = size_t(std::clamp((m.y - o.y) / row_h, 0.0f, float(lanes - 1)));
      std::string what = lane == tma_lane ? "TMA engine" : lane == tensor_lane ? "tensor cores" : "warp " + d.rows[lane].label;
      if (lane < d.rows.size()) {
        if (const SkippedSpan* k = skipped_at(d.rows[lane].skipped, cycle))
          what += ": " + skipped_text(*k);
        else
          for (const TimelineSegment& g : d.rows[lane].segments)
            if (g.begin <= cycle && cycle < g.end) what += std::string(": ") + warp_activity_name(g.activity);
      }
      ImGui::SetTooltip("cycle %llu, %s\nclick to move the cursor here", (unsigned long long)cycle, what.c_str());
      if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
        app.seek(timeline_position_at(k, cycle));
        if (lane < d.rows.size()) app.select_warp(d.rows[lane].warp);
      }
    }
  }
  ImGui::Spacing();
  draw_stall_table(d.stalls, env);
  ImGui::EndChild();
}

}  // namespace

// The "GPU vs model" part (timeline_compare_data.hpp): a timeline recorded on a GPU and the
// model's of the same warps, one lane under the other on one time axis (µs), with the playback
// cursor; the figures of both with their difference per kind; the waits per wait instruction;
// and SM by SM the tiles each recorded CTA worked on.

namespace {

ImU32 state_color(WarpActivity a, bool model, const ViewEnv& env) {
  float alpha = a == WarpActivity::waiting_bar ? 0.7f : a == WarpActivity::waiting_wgmma ? 0.45f : 1.0f;
  if (model) alpha *= 0.55f;  // the model's lane is the lighter one under the GPU's
  return scale_alpha(activity_color(a, env), alpha);
}

ImU32 kpass_color(const ViewEnv& env) { return warp_color(4); }

void draw_compare_legend(const ViewEnv& env) {
  const float s = env.scale;
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  flow_legend(env, compare_legend(), [&](const CompareLegendItem& item, ImVec2 p, float sw) {
    const float mid = p.x + sw / 2;
    switch (item.mark) {  // as the lanes draw them
      case CompareMark::state:
      case CompareMark::model_lane:
        dl->AddRectFilled(ImVec2(p.x, p.y + 3 * s), ImVec2(p.x + sw, p.y + sw - 2 * s),
                          state_color(item.activity, item.mark == CompareMark::model_lane, env));
        break;
      case CompareMark::tma_issue: dl->AddLine(ImVec2(mid, p.y + s), ImVec2(mid, p.y + sw * 0.45f), text, 1.5f * s); break;
      case CompareMark::store:
        dl->AddLine(ImVec2(mid, p.y + sw * 0.55f), ImVec2(mid, p.y + sw), error_color(env), 1.5f * s);
        break;
      case CompareMark::k_pass: dl->AddLine(ImVec2(mid, p.y + s), ImVec2(mid, p.y + sw), kpass_color(env), 1.0f * s); break;
      case CompareMark::skipped: draw_skipped(dl, ImVec2(p.x, p.y + 3 * s), ImVec2(p.x + sw, p.y + sw - 2 * s), env); break;
    }
  });
}

// A step of 1, 2 or 5 × 10^n µs giving about `want` labels across `end_us`.
double axis_step(double end_us, int want) {
  const double raw = end_us / std::max(1, want);
  const double p = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-6))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10.0 * p;
}

void draw_axis(const LanePlot& p, ImDrawList* dl, const ViewEnv& env) {
  const double end_us = double(p.end) / 1e6;
  const float label_w = ImGui::CalcTextSize("0000.0 µs").x;
  const double step = axis_step(end_us, std::max(2, int(p.w / (label_w * 1.6f))));
  const ImU32 muted = muted_color(env);
  for (double t = 0; t <= end_us + 1e-9; t += step) {
    const float x = p.x0 + p.w * float(t / end_us);
    dl->AddLine(ImVec2(x, p.y0 + p.row_h * 0.7f), ImVec2(x, p.y0 + p.row_h), muted, 1.0f);
    const std::string label = step < 1 ? fmt::format("{:.1f} µs", t) : fmt::format("{:.0f} µs", t);
    const float tw = ImGui::CalcTextSize(label.c_str()).x;
    if (x + tw / 2 > p.x0 + p.w + label_w / 2) break;
    dl->AddText(ImVec2(std::max(p.x0, x - tw / 2), p.y0), muted, label.c_str());
  }
}

void draw_lane(const CompareLane& l, const LanePlot& p, float y, ImDrawList* dl, const ViewEnv& env) {
  const float s = env.scale, h = p.row_h;
  const float pad = l.model ? 3 * s : 2 * s;
  for (const TimelineSegment& g : segments_at_pixels(l.segments, p.end, p.columns))
    dl->AddRectFilled(ImVec2(p.x_of(g.begin), y + pad), ImVec2(std::max(p.x_of(g.end), p.x_of(g.begin) + 1), y + h - pad),
                      state_color(g.activity, l.model, env));
  for (const SkippedSpan& k : l.skipped) draw_skipped(dl, ImVec2(p.x_of(k.begin), y + pad), ImVec2(p.x_of(k.end), y + h - pad), env);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  for (uint64_t c : ticks_at_pixels(l.k_passes, p.end, p.columns))
    dl->AddLine(ImVec2(p.x_of(c), y + h * 0.2f), ImVec2(p.x_of(c), y + h * 0.8f), kpass_color(env), 1.0f * s);
  for (uint64_t c : ticks_at_pixels(l.tma_issues, p.end, p.columns))
    dl->AddLine(ImVec2(p.x_of(c), y), ImVec2(p.x_of(c), y + h * 0.4f), text, 1.5f * s);
  for (uint64_t c : ticks_at_pixels(l.stores, p.end, p.columns))
    dl->AddLine(ImVec2(p.x_of(c), y + h * 0.6f), ImVec2(p.x_of(c), y + h), error_color(env), 1.0f * s);
}

}  // namespace

LanePlot draw_time_lanes(const std::vector<CompareLane>& lanes, uint64_t end_ps, float label_w, const char* id,
                         const ViewEnv& env) {
  const float s = env.scale;
  const float row_h = std::max(6.0f * s, ImGui::GetTextLineHeight() * 0.9f);
  const float plot_w = std::max(40.0f * s, ImGui::GetContentRegionAvail().x - label_w - 8 * s);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, ImVec2(label_w + 4 * s + plot_w, row_h * float(lanes.size() + 1)));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const LanePlot p{o.x + label_w + 4 * s, o.y, plot_w, row_h, end_ps, uint32_t(std::max(1.0f, plot_w))};
  draw_axis(p, dl, env);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), muted = muted_color(env);
  for (size_t i = 0; i < lanes.size(); ++i) {
    const CompareLane& l = lanes[i];
    const float y = o.y + row_h * float(i + 1);
    dl->AddText(ImVec2(o.x, y), l.model ? muted : text, l.label.c_str());
    draw_lane(l, p, y, dl, env);
  }
  return p;
}

void draw_timeline_legend(const ViewEnv& env) { draw_legend(env); }

namespace {

void draw_lanes(AppState& app, const TimelineCompareData& d, const ViewEnv& env) {
  const float s = env.scale;
  const float row_h = std::max(6.0f * s, ImGui::GetTextLineHeight() * 0.9f);
  float label_w = ImGui::CalcTextSize("model CTA 000").x;
  for (const CompareLane& l : d.lanes) label_w = std::max(label_w, ImGui::CalcTextSize(l.label.c_str()).x);
  for (const SmRow& r : d.sms) label_w = std::max(label_w, ImGui::CalcTextSize(r.label.c_str()).x);
  const float avail = ImGui::GetContentRegionAvail().x;
  const float plot_w = std::max(40.0f * s, avail - label_w - 8 * s);
  note_fit(app, "timeline.recorded.labels", label_w + 40.0f * s, avail);
  const size_t rows = d.lanes.size() + 1;  // the axis, then the lanes
  const LanePlot p = draw_time_lanes(d.lanes, d.end_ps, label_w, "##recorded_lanes", env);
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 o(p.x0 - label_w - 4 * s, p.y0);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // For the headless pixel test: the first lane's x, y, width and the row height.
  app.drawn["timeline.recorded"] = {p.x0, o.y + row_h, plot_w, row_h};
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const Snapshot* snap = app.snapshot();
  if (snap)
    if (const std::optional<uint64_t> c = compare_cursor_ps(d, snap->cycle)) {
      const float cx = p.x_of(std::min(*c, d.end_ps));
      dl->AddLine(ImVec2(cx, o.y + row_h), ImVec2(cx, o.y + row_h * float(rows)), text, 1.5f * s);
    }
  if (hovered && d.end_ps > 0) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    if (m.x >= p.x0) {
      const uint64_t ps = uint64_t(double(std::clamp((m.x - p.x0) / plot_w, 0.0f, 1.0f)) * double(d.end_ps));
      const long lane = long((m.y - o.y) / row_h) - 1;
      std::string what = "the time axis";
      if (lane >= 0 && size_t(lane) < d.lanes.size()) {
        const CompareLane& l = d.lanes[size_t(lane)];
        what = fmt::format("{} warp {} of CTA {}", l.model ? "the model's" : "the GPU's", l.warp, l.cta);
        if (const SkippedSpan* k = skipped_at(l.skipped, ps))
          what += ": " + skipped_text(*k);
        else
          for (const TimelineSegment& g : l.segments)
            if (g.begin <= ps && ps < g.end)
              what += g.activity == WarpActivity::ready ? ": running" : std::string(": ") + warp_activity_name(g.activity);
      }
      ImGui::SetTooltip("%.3f µs, %s%s", double(ps) / 1e6, what.c_str(),
                        d.cursor_follows ? "\nclick to move the playback cursor here" : "");
      if (d.cursor_follows && app.kernel && ImGui::IsMouseClicked(ImGuiMouseButton_Left))
        app.seek(timeline_position_at(*app.kernel, compare_cycle_at(d, ps)));
    }
  }
}

void draw_sm_rows(AppState& app, const TimelineCompareData& d, const ViewEnv& env) {
  if (d.sms.empty()) return;
  ImGui::TextUnformatted("Tiles SM by SM (the measured schedule; the Schedule view has the model's)");
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", d.schedule_note.c_str());
  ImGui::PopStyleColor();
  const float s = env.scale;
  const float row_h = ImGui::GetTextLineHeight() + 4 * s;
  float label_w = ImGui::CalcTextSize("model CTA 000").x;
  for (const CompareLane& l : d.lanes) label_w = std::max(label_w, ImGui::CalcTextSize(l.label.c_str()).x);
  for (const SmRow& r : d.sms) label_w = std::max(label_w, ImGui::CalcTextSize(r.label.c_str()).x);
  const float plot_w = std::max(40.0f * s, ImGui::GetContentRegionAvail().x - label_w - 8 * s);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(label_w + 4 * s + plot_w, row_h * float(d.sms.size())));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const LanePlot p{o.x + label_w + 4 * s, o.y, plot_w, row_h, d.end_ps, uint32_t(std::max(1.0f, plot_w))};
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), muted = muted_color(env);
  for (size_t i = 0; i < d.sms.size(); ++i) {
    const SmRow& r = d.sms[i];
    const float y = o.y + row_h * float(i);
    dl->AddText(ImVec2(o.x, y + 2 * s), r.model ? muted : text, r.label.c_str());
    for (const TileSpan& t : r.tiles) {
      const float x0 = p.x_of(t.begin), x1 = std::max(p.x_of(t.end), x0 + 1);
      dl->AddRectFilled(ImVec2(x0, y + s), ImVec2(x1 - 1, y + row_h - s), warp_color(t.order % 12, r.model ? 0.35f : 0.7f));
      const ImVec2 tw = ImGui::CalcTextSize(t.tile.c_str());
      if (tw.x + 4 * s < x1 - x0) dl->AddText(ImVec2(x0 + 2 * s, y + 2 * s), text, t.tile.c_str());
    }
  }
  app.drawn["timeline.recorded.sms"] = {p.x0, o.y, plot_w, row_h};
}

void draw_differences(const TimelineCompareData& d) {
  ImGui::TextUnformatted("Measured vs modelled (medians, SM cycles; as `gemmscope timeline --import F --compare-model`)");
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("##kinds", 5, flags)) {
    for (const char* h : {"figure", "GPU", "model", "GPU / model", "GPU - model"}) ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (const KindDifference& k : d.kinds) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k.name.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(cycles_text(k.measured).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(cycles_text(k.model).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k.known() ? fmt::format("{:.2f}", k.ratio()).c_str() : "-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k.known() ? fmt::format("{:+.0f} ({:+.0f} ns)", k.difference_cycles(),
                                                     k.measured.ns - k.model.ns).c_str()
                                       : "-");
    }
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted("consumer K-loop time waiting");
    ImGui::TableNextColumn();
    ImGui::Text("%.1f%%", 100.0 * d.measured_wait_fraction);
    ImGui::TableNextColumn();
    ImGui::Text("%.1f%%", 100.0 * d.model_wait_fraction);
    ImGui::EndTable();
  }
  if (d.waits.empty()) return;
  ImGui::TextUnformatted("Waits per wait instruction (mean cycles per wait, every recorded warp)");
  if (ImGui::BeginTable("##waits", 4, flags)) {
    for (const char* h : {"wait", "GPU", "model", "GPU / model"}) ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (const WaitDifference& w : d.waits) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(w.what.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.0f ×%zu", w.measured_mean, w.measured_count);
      ImGui::TableNextColumn();
      if (w.model_count) ImGui::Text("%.0f ×%zu", w.model_mean, w.model_count);
      else ImGui::TextUnformatted("-");
      ImGui::TableNextColumn();
      if (w.model_count && w.model_mean > 0) ImGui::Text("%.2f", w.measured_mean / w.model_mean);
      else ImGui::TextUnformatted("-");
    }
    ImGui::EndTable();
  }
}

// A launch-only recording (LaunchMap): a row an SM, each CTA a bar in its wave's colour, on the
// launch's time axis; rows as thin as the view's height needs, every few labelled; hovering
// names the SM, the CTA, its wave and its run.
void draw_launch_map(AppState& app, const LaunchMap& L, uint64_t end_ps, const ViewEnv& env) {
  ImGui::TextWrapped("%s", L.summary.c_str());
  ImGui::TextWrapped("%s", L.spread.c_str());
  ImGui::TextWrapped("%s", L.pace.c_str());
  if (!L.partners.empty()) ImGui::TextWrapped("%s", L.partners.c_str());
  if (L.rows.empty()) return;
  const float s = env.scale, line = ImGui::GetTextLineHeight();
  const float label_w = ImGui::CalcTextSize("SM 000").x;
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float plot_w = std::max(40.0f * s, avail_w - label_w - 8 * s);
  note_fit(app, "timeline.launch.labels", label_w + 40.0f * s, avail_w);
  const float rows = float(L.rows.size());
  const float row_h = std::clamp((ImGui::GetContentRegionAvail().y - 2 * line) / rows, 2.0f * s, line);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##launch", ImVec2(label_w + 4 * s + plot_w, line + row_h * rows));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const LanePlot p{o.x + label_w + 4 * s, o.y, plot_w, line, end_ps, uint32_t(std::max(1.0f, plot_w))};
  draw_axis(p, dl, env);
  const ImU32 muted = muted_color(env);
  const float y0 = o.y + line, gap = row_h >= 4 * s ? s : 0.0f;
  const size_t label_every = size_t(std::ceil(line / row_h));
  for (size_t i = 0; i < L.rows.size(); ++i) {
    const LaunchRow& r = L.rows[i];
    // Whole pixels, so that every row keeps the same gap under it however thin the rows are.
    const float y = std::floor(y0 + row_h * float(i)), next = std::floor(y0 + row_h * float(i + 1));
    if (i % label_every == 0) dl->AddText(ImVec2(o.x, y), muted, fmt::format("SM {}", r.smid).c_str());
    for (const LaunchBar& b : r.bars) {
      const float x0 = p.x_of(b.begin), x1 = std::max(p.x_of(b.end) - 1, x0 + 1);
      dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, std::max(next - gap, y + 1)), warp_color(b.wave % 12, 0.85f));
    }
  }
  // For the headless pixel test: the plot's x, its first row's y, its width and a row's height.
  app.drawn["timeline.launch"] = {p.x0, y0, plot_w, row_h};
  if (!hovered || end_ps == 0) return;
  const ImVec2 m = ImGui::GetIO().MousePos;
  const long row = long(std::floor((m.y - y0) / row_h));
  if (m.x < p.x0 || row < 0 || size_t(row) >= L.rows.size()) return;
  const LaunchRow& r = L.rows[size_t(row)];
  const uint64_t ps = uint64_t(double(std::clamp((m.x - p.x0) / plot_w, 0.0f, 1.0f)) * double(end_ps));
  std::string what = fmt::format("SM {}, {:.1f} µs: idle", r.smid, double(ps) / 1e6);
  for (const LaunchBar& b : r.bars)
    if (b.begin <= ps && ps < b.end)
      what = fmt::format("SM {}, {:.1f} µs: CTA {} of wave {} ran {:.1f}-{:.1f} µs ({:.2f} µs)", r.smid,
                         double(ps) / 1e6, b.cta, b.wave + 1, double(b.begin) / 1e6, double(b.end) / 1e6,
                         double(b.end - b.begin) / 1e6);
  ImGui::SetTooltip("%s", what.c_str());
}

void draw_timeline_compare(AppState& app, const ViewEnv& env) {
  if (!app.recorded_timeline) return;
  const TimelineCompareData& d = timeline_compare_cached(app);
  ImGui::TextWrapped("%s", d.headline.c_str());
  // How time was made and what the model could not match: open where there is room, one line
  // in a small tile (the lanes come first there).
  const bool room = ImGui::GetContentRegionAvail().y > 40 * ImGui::GetTextLineHeightWithSpacing();
  ImGui::SetNextItemOpen(room, ImGuiCond_Appearing);
  if (ImGui::TreeNode("##recorded_notes", "clocks and notes (%zu)", d.notes.size() + 1 + !d.cursor_note.empty())) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", d.clocks.c_str());
    for (const std::string& n : d.notes) ImGui::TextWrapped("%s", n.c_str());
    if (!d.cursor_note.empty()) ImGui::TextWrapped("%s", d.cursor_note.c_str());
    ImGui::PopStyleColor();
    ImGui::TreePop();
  }
  if (!d.model_status.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, warn_color(env));
    ImGui::TextWrapped("model: %s", d.model_status.c_str());
    ImGui::PopStyleColor();
  }
  if (!d.cursor_follows && ImGui::SmallButton("Open the recorded kernel at its shape"))
    app.request_open(recorded_request(*app.recorded_timeline));
  if (!d.cursor_follows) ImGui::SameLine();
  const bool close = ImGui::SmallButton("Close the recording");
  const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
  app.drawn["timeline.close"] = {lo.x, lo.y, hi.x - lo.x, hi.y - lo.y};
  if (close) {
    app.recorded_timeline.reset();
    app.timeline_view.show_recorded = false;
    return;
  }
  if (d.launch) {
    draw_launch_map(app, *d.launch, d.end_ps, env);
    return;
  }
  draw_compare_legend(env);
  ImGui::BeginChild("##recorded_scroll", ImVec2(0, 0), false);
  draw_lanes(app, d, env);
  ImGui::Spacing();
  draw_differences(d);
  ImGui::Spacing();
  draw_sm_rows(app, d, env);
  ImGui::EndChild();
}

// The record button: the open kernel at its shape and build on this machine's GPU (a job).
// Greyed out, saying why, where this machine has no GPU (gpu_presence.hpp).
void draw_record_button(AppState& app) {
  request_gpu_presence(app);
  const RecordButton b = record_button(app);
  ImGui::BeginDisabled(!b.enabled);
  if (ImGui::SmallButton(b.label.c_str()) && b.enabled)
    request_gpu_timeline(app, app.kernel->request.kernel_id, app.kernel->report.shape, app.kernel->request.params);
  ImGui::EndDisabled();
  const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
  app.drawn["timeline.record"] = {lo.x, lo.y, hi.x - lo.x, hi.y - lo.y};  // for the headless pixel test
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    ImGui::BeginTooltip();  // the runtime's reason can be long: wrapped
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36.0f);
    ImGui::TextUnformatted(b.tooltip.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

}  // namespace

void draw_timeline(AppState& app, const ViewEnv& env) {
  draw_record_button(app);
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
