// The TMA pipeline view: the ring of stages, each with its full (and empty) mbarrier —
// phase, parity, arrivals, transaction bytes still expected, the warps waiting on it — and
// the transfers in flight into it; under it a timeline of every TMA transfer (issue ->
// complete) with the playback cycle marked. Data: gui/core/tma_pipeline_data.
//
// Kernels with a cp.async ring (Ampere) get it above: each warp's groups in flight, the stages
// they fill and the wait that retires each (gui/core/cp_async_ring).
//
// Cross-links: clicking a barrier sets selection.mbar (the shared-memory view outlines it);
// clicking a transfer sets selection.tma, double-clicking seeks to its issue; clicking a
// waiting warp selects that warp.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "gui/core/colors.hpp"
#include "gui/core/cp_async_ring.hpp"
#include "gui/core/tma_pipeline_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

ImVec4 v4(ImU32 c) { return ImGui::ColorConvertU32ToFloat4(c); }

std::string kib(uint32_t bytes) {
  return bytes % 1024 == 0 ? fmt::format("{} KiB", bytes / 1024) : fmt::format("{} B", bytes);
}

std::string coords_text(const std::vector<int32_t>& c) {
  std::string s = "(";
  for (size_t i = 0; i < c.size(); ++i) s += (i ? ", " : "") + std::to_string(c[i]);
  return s + ")";
}

void seek_to_issue(AppState& app, uint32_t transfer) {
  const model::Trace& t = app.kernel->trace();
  for (uint32_t e : t.of_kind(model::EventKind::tma_issue))
    if (t.events[e].payload == transfer) {
      app.seek(e);
      return;
    }
}

// One barrier: a selectable header line and its counts.
void draw_barrier(AppState& app, const ViewEnv& env, const BarrierView& b, const char* role) {
  ImGui::PushID(int(b.addr));
  const bool selected = app.selection.mbar == b.addr;
  const std::string head = fmt::format("{} \"{}\" @0x{:04X}", role, b.name, b.addr);
  if (ImGui::Selectable(head.c_str(), selected)) app.select_mbarrier(b.addr);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("phase %u completed (%u flips seen)\nwaiters for parity %u pass once phase %u completes\n"
                      "click: select this barrier",
                      b.phase, b.flips, b.parity, b.phase);
  if (!b.initialized) {
    ImGui::TextDisabled("  not initialised yet");
    ImGui::PopID();
    return;
  }
  const bool busy = b.tx_count != 0 || b.pending_arrivals != 0;
  ImGui::Indent();
  if (env.mono) ImGui::PushFont(env.mono);
  ImGui::TextColored(v4(busy ? warn_color(env) : ok_color(env)), "phase %u  parity %u", b.phase, b.parity);
  ImGui::SameLine();
  ImGui::Text(" arrivals %u/%u", b.expected - std::min(b.expected, b.pending_arrivals), b.expected);
  ImGui::TextColored(v4(b.tx_count > 0 ? warn_color(env) : b.tx_count < 0 ? error_color(env) : muted_color(env)),
                     "tx pending %lld B", (long long)b.tx_count);
  if (env.mono) ImGui::PopFont();
  if (!b.waiters.empty()) {
    same_line_if_fits(ImGui::CalcTextSize(" waiting:").x);
    ImGui::TextDisabled(" waiting:");
  }
  // The waiters' chips continue on the next line when the box is narrow.
  for (const BarrierWaiter& w : b.waiters) {
    const std::string text = fmt::format("w{} p{}", w.label, w.parity);
    same_line_if_fits(ImGui::CalcTextSize(text.c_str()).x + 2 * ImGui::GetStyle().FramePadding.x);
    const std::string chip = fmt::format("{}##wait{}", text, w.warp);
    ImGui::PushStyleColor(ImGuiCol_Button, warp_color(w.warp, 0.75f));
    if (ImGui::SmallButton(chip.c_str())) app.select_warp(w.warp);
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("warp %u waits for parity %u since cycle %llu", w.warp, w.parity, (unsigned long long)w.since_cycle);
  }
  ImGui::Unindent();
  ImGui::PopID();
}

void draw_transfer_line(AppState& app, const ViewEnv& env, const TransferView& v) {
  ImGui::PushID(int(v.index));
  const std::string s = fmt::format("#{} {} {} -> {}  {}  {}{}{}", v.index, v.map, coords_text(v.coords), v.dst_name,
                                    kib(v.bytes), v.swizzle, v.ctas_text.empty() ? "" : "  ", v.ctas_text);
  if (env.mono) ImGui::PushFont(env.mono);
  if (ImGui::Selectable(s.c_str(), app.selection.tma == v.index, ImGuiSelectableFlags_AllowDoubleClick)) {
    app.select_tma(v.index);
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) seek_to_issue(app, v.index);
  }
  if (env.mono) ImGui::PopFont();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s box %s, %u bytes, %s swizzle\ninto 0x%04X (%s), completes on mbarrier 0x%04X\n"
                      "issued at cycle %llu, lands at %llu\ndouble-click: go to its issue",
                      v.map.c_str(), coords_text(v.coords).c_str(), v.bytes, v.swizzle.c_str(), v.smem_dst,
                      v.dst_name.c_str(), v.mbar, (unsigned long long)v.issue_cycle, (unsigned long long)v.complete_cycle);
  ImGui::PopID();
}

// Every transfer in numbers when the window has room for it.
void draw_transfer_table(AppState& app, const ViewEnv& env, const TmaPipeline& p) {
  const float h = ImGui::GetContentRegionAvail().y;
  if (h < 6.0f * ImGui::GetTextLineHeightWithSpacing() || p.transfers.empty()) return;
  // Columns as wide as their contents, scrolling sideways rather than cutting the numbers.
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  // Narrow windows get the columns that change from transfer to transfer; the rest is in the
  // tooltip of the timeline and the stage box.
  const bool wide = ImGui::GetContentRegionAvail().x >= 640.0f * env.scale;
  if (!ImGui::BeginTable("##transfers", wide ? 8 : 4, flags, ImVec2(0, h - 4))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const char* c : {"#", "map", "coords", "into", "bytes", "swizzle", "cycles", "state"}) {
    const std::string_view name = c;
    if (wide || name == "#" || name == "coords" || name == "cycles" || name == "state") ImGui::TableSetupColumn(c);
  }
  ImGui::TableHeadersRow();
  ImGuiListClipper clip;
  clip.Begin(int(p.transfers.size()));
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const TransferView& v = p.transfers[size_t(i)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      char id[16];
      std::snprintf(id, sizeof id, "%u", v.index);
      if (ImGui::Selectable(id, app.selection.tma == v.index,
                            ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
        app.select_tma(v.index);
        if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) seek_to_issue(app, v.index);
      }
      if (wide) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(v.map.c_str());
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted((wide ? coords_text(v.coords) : v.map + " " + coords_text(v.coords)).c_str());
      if (wide) {
        ImGui::TableNextColumn();
        ImGui::Text("%s 0x%04X%s%s", v.dst_name.c_str(), v.smem_dst, v.ctas_text.empty() ? "" : "  ",
                    v.ctas_text.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(kib(v.bytes).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(v.swizzle.c_str());
      }
      ImGui::TableNextColumn();
      ImGui::Text("%llu-%llu", (unsigned long long)v.issue_cycle, (unsigned long long)v.complete_cycle);
      ImGui::TableNextColumn();
      const ImU32 col = v.state == TransferState::in_flight ? warn_color(env)
                        : v.state == TransferState::done    ? ok_color(env)
                                                            : muted_color(env);
      ImGui::TextColored(v4(col), "%s", transfer_state_name(v.state));
    }
  ImGui::EndTable();
}

void draw_stage(AppState& app, const ViewEnv& env, const TmaPipeline& p, const StageView& st, float width) {
  ImGui::PushID(int(st.cta * 1024 + st.index));
  const bool filling = !st.in_flight.empty() || (st.full && st.full->tx_count > 0);
  ImGui::PushStyleColor(ImGuiCol_Border, filling ? warn_color(env) : ImGui::GetColorU32(ImGuiCol_Border));
  const float h = ImGui::GetTextLineHeightWithSpacing() * (st.empty ? 8.5f : 5.5f) +
                  ImGui::GetTextLineHeightWithSpacing() * float(st.in_flight.size());
  ImGui::BeginChild("stage", ImVec2(width, h), true, ImGuiWindowFlags_NoScrollbar);
  if (env.bold) ImGui::PushFont(env.bold);
  if (p.ctas > 1) ImGui::Text("rank %u stage %u", st.cta, st.index);  // each CTA of the cluster has its ring
  else ImGui::Text("stage %u", st.index);
  if (env.bold) ImGui::PopFont();
  ImGui::SameLine();
  std::string tiles;
  for (const std::string& t : st.tiles) tiles += (tiles.empty() ? "" : " + ") + t;
  ImGui::TextDisabled("%s  %u landed%s", tiles.empty() ? "(no transfer yet)" : tiles.c_str(), st.completed,
                      filling ? ", filling" : "");
  if (st.full) draw_barrier(app, env, *st.full, "full");
  if (st.empty) draw_barrier(app, env, *st.empty, "empty");
  if (st.in_flight.empty()) ImGui::TextDisabled("no transfer in flight");
  for (uint32_t i : st.in_flight) draw_transfer_line(app, env, p.transfers[i]);
  ImGui::EndChild();
  ImGui::PopStyleColor();
  ImGui::PopID();
}

// Issue -> complete bars, one lane per tensor map, with the cursor's cycle as a vertical line.
void draw_timeline(AppState& app, const ViewEnv& env, const TmaPipeline& p, bool& zoom) {
  ImGui::Checkbox("around the cursor", &zoom);
  ImGui::SameLine();
  ImGui::TextDisabled("cycle %llu of %llu", (unsigned long long)p.cycle, (unsigned long long)p.end_cycle);
  if (p.transfers.empty()) {
    ImGui::TextDisabled("this kernel issues no TMA transfer");
    return;
  }
  const std::vector<std::string>& lanes = p.lanes;
  double lo = 0.0, hi = double(std::max<uint64_t>(p.end_cycle, 1));
  if (zoom) {
    // About four transfers' worth of time on each side of the cursor.
    uint64_t span = 0;
    for (const TransferView& v : p.transfers) span = std::max(span, v.complete_cycle - v.issue_cycle);
    const double half = std::max(50.0, 4.0 * double(span));
    lo = std::max(0.0, double(p.cycle) - half);
    hi = lo + 2.0 * half;
  }
  // Each lane as wide as its name and as tall as its rows (transfers of one map in flight at
  // once get rows of their own, assign_transfer_rows), a row a text line and its margins.
  float widest = 0.0f;
  for (const std::string& l : lanes) widest = std::max(widest, ImGui::CalcTextSize(l.c_str()).x);
  const float label_w = std::max(70.0f * env.scale, widest + 8.0f * env.scale);
  const float row_h = std::max(18.0f * env.scale, ImGui::GetTextLineHeight() + 6.0f);
  std::vector<float> lane_y(lanes.size() + 1, 0.0f);  // each lane's top, from the timeline's
  for (size_t i = 0; i < lanes.size(); ++i) lane_y[i + 1] = lane_y[i] + row_h * float(p.lane_rows[i]);
  note_fit(app, "tma.lane_labels", widest, label_w - 4.0f * env.scale);
  const float w = std::max(50.0f, ImGui::GetContentRegionAvail().x - label_w);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  auto x_of = [&](double c) { return o.x + label_w + float((c - lo) / (hi - lo)) * w; };
  const float h = lane_y.back();
  dl->AddRectFilled(ImVec2(o.x + label_w, o.y), ImVec2(o.x + label_w + w, o.y + h), ImGui::GetColorU32(ImGuiCol_FrameBg));
  // Cycle ticks at a round (1-2-5) step, at least the widest label and a gap apart, so that
  // the labels of large cycle counts do not run together.
  const float gap = 1.5f * ImGui::GetFontSize();
  const float label_px = ImGui::CalcTextSize(fmt::format("{:.0f}", hi).c_str()).x + gap;
  const double raw = (hi - lo) / std::max(1.0, double(w) / double(std::max(label_px, 90.0f * env.scale)));
  double tick = 1.0;
  while (tick * 10.0 <= raw) tick *= 10.0;
  if (tick * 5.0 < raw) tick *= 10.0;
  else if (tick * 2.0 < raw) tick *= 5.0;
  else if (tick < raw) tick *= 2.0;
  note_fit(app, "tma.axis_labels", label_px, float(tick / (hi - lo)) * w);
  for (double c = std::ceil(lo / tick) * tick; c <= hi; c += tick) {
    const float x = x_of(c);
    dl->AddLine(ImVec2(x, o.y + h), ImVec2(x, o.y + h + 4), muted_color(env));
    const std::string t = fmt::format("{:.0f}", c);
    const float tw = ImGui::CalcTextSize(t.c_str()).x;
    if (x - tw * 0.5f >= o.x + label_w - 2 && x + tw * 0.5f <= o.x + label_w + w + 2)
      dl->AddText(ImVec2(x - tw * 0.5f, o.y + h + 4), muted_color(env), t.c_str());
  }
  for (size_t i = 0; i < lanes.size(); ++i) {
    dl->AddText(ImVec2(o.x, o.y + lane_y[i] + 3), muted_color(env), lanes[i].c_str());
    if (i > 0) dl->AddLine(ImVec2(o.x, o.y + lane_y[i]), ImVec2(o.x + label_w + w, o.y + lane_y[i]), muted_color(env));
  }
  dl->PushClipRect(ImVec2(o.x + label_w, o.y), ImVec2(o.x + label_w + w, o.y + h), true);
  const TransferView* hovered = nullptr;
  for (const TransferView& v : p.transfers) {
    if (double(v.complete_cycle) < lo || double(v.issue_cycle) > hi) continue;
    const ImVec2 a(x_of(double(v.issue_cycle)), o.y + lane_y[v.lane] + row_h * float(v.row) + 3);
    const ImVec2 b(std::max(a.x + 2.0f, x_of(double(v.complete_cycle))), a.y + row_h - 6);
    const ImU32 col = v.state == TransferState::in_flight ? warn_color(env)
                      : v.state == TransferState::done    ? ok_color(env)
                                                          : muted_color(env);
    dl->AddRectFilled(a, b, (col & 0x00FFFFFFu) | (v.state == TransferState::future ? 0x60000000u : 0xD0000000u));
    const std::string c = coords_text(v.coords);
    if (ImGui::CalcTextSize(c.c_str()).x + 6 < b.x - a.x)
      dl->AddText(ImVec2(a.x + 3, a.y + (b.y - a.y - ImGui::GetTextLineHeight()) * 0.5f), IM_COL32(20, 20, 24, 255), c.c_str());
    if (app.selection.tma == v.index) dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), ImGui::GetColorU32(ImGuiCol_Text), 0.0f, 0, 2.0f);
    if (ImGui::IsMouseHoveringRect(a, b)) hovered = &v;
  }
  const float cx = x_of(double(p.cycle));
  dl->AddLine(ImVec2(cx, o.y - 2), ImVec2(cx, o.y + h + 2), error_color(env), 2.0f);
  dl->PopClipRect();
  ImGui::InvisibleButton("##timeline", ImVec2(label_w + w, h + 6 + ImGui::GetTextLineHeight()));
  if (hovered) {
    ImGui::SetTooltip("#%u %s %s -> %s, %u B\ncycles %llu -> %llu (%s)\nclick: select, double-click: go to its issue",
                      hovered->index, hovered->map.c_str(), coords_text(hovered->coords).c_str(), hovered->dst_name.c_str(),
                      hovered->bytes, (unsigned long long)hovered->issue_cycle, (unsigned long long)hovered->complete_cycle,
                      transfer_state_name(hovered->state));
    if (ImGui::IsItemClicked()) {
      app.select_tma(hovered->index);
    }
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) seek_to_issue(app, hovered->index);
  }
}

// The cp.async ring: a row per warp with its groups in flight, oldest first, each box in the
// colour of the stage it fills and named by the stages; hovering names the wait that retires
// it, clicking seeks to that wait (or to the commit when none comes).
void draw_cp_async_ring(AppState& app, const ViewEnv& env, const CpAsyncRing& ring, uint32_t position) {
  if (env.bold) ImGui::PushFont(env.bold);
  ImGui::Text("cp.async ring: %u stage%s, %zu groups", ring.stages, ring.stages == 1 ? "" : "s", ring.groups.size());
  if (env.bold) ImGui::PopFont();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Each warp's cp.async groups in flight at the cursor (committed, not yet retired by a\n"
                      "cp.async.wait_group), coloured by the stage of the operand tiles their copies write.");
  const std::vector<CpAsyncWarpAt> warps = cp_async_ring_at(ring, position);
  if (warps.empty()) ImGui::TextDisabled("no cp.async issued yet");
  const LoadedKernel& k = *app.kernel;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float h = ImGui::GetTextLineHeight() + 4.0f * env.scale;
  bool first_box = true;
  for (const CpAsyncWarpAt& w : warps) {
    ImGui::TextColored(v4(rgb_color(warp_text_rgb(w.warp, env.dark))), "warp %u", w.warp);
    ImGui::SameLine(70.0f * env.scale);
    if (w.in_flight.empty()) ImGui::TextDisabled("nothing in flight");
    for (uint32_t gi : w.in_flight) {
      const CpAsyncGroup& g = ring.groups[gi];
      // "g3 sA[1] sB[1] -> wait_group 1": the wait that retires it, as the PTX spells it.
      std::string wait = "never waited for";
      if (g.wait_inst < k.inst_text.size()) {
        wait = k.inst_text[g.wait_inst];
        if (wait.rfind("cp.async.", 0) == 0) wait.erase(0, 9);
        if (!wait.empty() && wait.back() == ';') wait.pop_back();
      }
      const std::string label = fmt::format("g{} {} -> {}", g.number, g.stages_text, wait);
      const float bw = ImGui::CalcTextSize(label.c_str()).x + 8.0f * env.scale;
      if (gi != w.in_flight.front()) same_line_if_fits(bw);  // the first follows the warp's label
      const ImVec2 p0 = ImGui::GetCursorScreenPos();
      ImGui::PushID(int(gi));
      if (ImGui::InvisibleButton("##group", ImVec2(bw, h))) app.seek(g.retire != kNone ? g.retire : g.commit);
      ImGui::PopID();
      const uint32_t stage = g.fills.empty() ? 0 : g.fills.front().stage;
      const Rgb c = cta_rgb(stage);
      dl->AddRectFilled(p0, ImVec2(p0.x + bw, p0.y + h), IM_COL32(c[0], c[1], c[2], 255), 3.0f * env.scale);
      dl->AddText(ImVec2(p0.x + 4.0f * env.scale, p0.y + 2.0f * env.scale), IM_COL32(20, 20, 24, 255), label.c_str());
      if (first_box) app.drawn["tma.cp_async_group"] = {p0.x, p0.y, bw, h};
      first_box = false;
      if (ImGui::IsItemHovered()) {
        const std::string retired = g.retire != kNone ? fmt::format("retired by {} at event {}", wait, g.retire)
                                                      : std::string("never waited for");
        ImGui::SetTooltip("group %u of warp %u: %zu cp.async, %u B into %s\ncommitted at event %u; %s\nclick: go there",
                          g.number, g.warp, g.copy_events.size(), g.bytes, g.stages_text.c_str(), g.commit,
                          retired.c_str());
      }
    }
    if (w.uncommitted) {
      same_line_if_fits(120.0f * env.scale);
      ImGui::TextDisabled("+%u cp.async not committed", w.uncommitted);
    }
  }
}

}  // namespace

void draw_tma_pipeline(AppState& app, const ViewEnv& env) {
  const Snapshot* s = app.snapshot();
  if (!app.kernel || !s) {
    ImGui::TextDisabled("no kernel loaded");
    return;
  }
  const TmaPipeline p = tma_pipeline(*app.kernel, *s);
  const CpAsyncRing& ring = cp_async_ring(app.kernel);
  if (!ring.groups.empty()) {
    draw_cp_async_ring(app, env, ring, s->position);
    ImGui::Spacing();
  }
  if (p.stages.empty() && p.transfers.empty()) {
    if (ring.groups.empty())
      ImGui::TextDisabled("%s uses no TMA, no mbarrier and no cp.async", app.kernel->kernel().name.c_str());
    return;
  }
  if (p.ctas > 1) ImGui::Text("%u CTAs x %zu stages", p.ctas, p.stages.size() / p.ctas);
  else ImGui::Text("%zu stage%s", p.stages.size(), p.stages.size() == 1 ? "" : "s");
  ImGui::SameLine();
  ImGui::TextColored(v4(p.in_flight ? warn_color(env) : muted_color(env)), "%u in flight", p.in_flight);
  ImGui::SameLine();
  ImGui::TextDisabled("%u of %zu transfers landed", p.completed, p.transfers.size());
  // The ring as a row of boxes that wraps: stage i+1 follows stage i, the last feeds the first.
  const float avail = ImGui::GetContentRegionAvail().x;
  const float min_w = 300.0f * env.scale;
  const int per_row = std::max(1, std::min(int(p.stages.size()), int(avail / min_w)));
  const float box_w = (avail - float(per_row - 1) * ImGui::GetStyle().ItemSpacing.x) / float(per_row);
  // A traced cluster: each CTA's ring starts a row of its own.
  for (size_t i = 0, in_row = 0; i < p.stages.size(); ++i, ++in_row) {
    if (i > 0 && p.stages[i].cta != p.stages[i - 1].cta) in_row = 0;
    if (in_row % size_t(per_row) != 0) ImGui::SameLine();
    draw_stage(app, env, p, p.stages[i], box_w);
  }
  for (const BarrierView& b : p.other_barriers) draw_barrier(app, env, b, "mbarrier");
  ImGui::Spacing();
  if (env.bold) ImGui::PushFont(env.bold);
  ImGui::TextUnformatted("Transfers");
  if (env.bold) ImGui::PopFont();
  // A display choice of this window only: kept in ImGui's per-window storage.
  bool* zoom = ImGui::GetStateStorage()->GetBoolRef(ImGui::GetID("timeline_zoom"), false);
  draw_timeline(app, env, p, *zoom);
  if (app.selection.tma < p.transfers.size()) {
    const TransferView& v = p.transfers[app.selection.tma];
    mono_text(env, "#%u %s %s  %s  %s -> 0x%04X (%s)%s%s", v.index, v.map.c_str(), coords_text(v.coords).c_str(),
              kib(v.bytes).c_str(), v.swizzle.c_str(), v.smem_dst, v.dst_name.c_str(), v.ctas_text.empty() ? "" : "  ",
              v.ctas_text.c_str());
    mono_text(env, "   issued @%llu  lands @%llu  %s  mbar 0x%04X", (unsigned long long)v.issue_cycle,
              (unsigned long long)v.complete_cycle, transfer_state_name(v.state), v.mbar);
  }
  ImGui::Spacing();
  draw_transfer_table(app, env, p);
}

}  // namespace gs::gui
