// The tensor-memory view: one CTA's TMEM at the playback cursor as 4 lane quarters × 64 blocks
// of 8 columns, coloured by what they hold (allocated, accumulating under MMAs in flight,
// complete, read by the epilogue), each quarter labelled with the warps allowed to touch it
// and the warps that did (wrongly, in red); below it the columns allocated over time and the
// MMA issue → commit → barrier arrive timeline, both with the cursor. Clicking a timeline
// moves the cursor there. Between them, one bar per accumulator (two for a double buffer) in
// the colour of who holds it: the MMA thread, ready for the readers, the readers, released.
#include <algorithm>

#include <fmt/format.h>

#include "gui/core/timeline_data.hpp"
#include "gui/core/tmem_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

constexpr uint32_t kBlocks = kTmemColumns / kTmemColumnBlock;

ImU32 cell_color(TmemCellState c, const ViewEnv& env) { return rgb_color(tmem_cell_rgb(c, env.dark)); }


void draw_rank_choice(AppState& app, const TmemHistories& all) {
  if (all.ranks.size() < 2) return;
  ImGui::SameLine();
  const int shown = app.tmem_view.rank < 0 ? -1 : app.tmem_view.rank;
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("traced CTA ").x + ImGui::GetFrameHeight() * 1.5f);
  const std::string preview = shown < 0 ? "traced CTA" : fmt::format("rank {}", shown);
  if (ImGui::BeginCombo("##tmem_rank", preview.c_str())) {
    if (ImGui::Selectable("traced CTA", shown < 0)) app.tmem_view.rank = -1;
    for (size_t r = 0; r < all.ranks.size(); ++r)
      if (ImGui::Selectable(fmt::format("rank {}", r).c_str(), shown == int(r))) app.tmem_view.rank = int(r);
    ImGui::EndCombo();
  }
}

// 4 quarters × 64 blocks with the quarter labels on the left.
void draw_cells(AppState& app, const ViewEnv& env, const TmemHistory& h, const TmemState& st) {
  const float s = env.scale;
  const float label_w = ImGui::CalcTextSize("lanes 96-127 ").x;
  const float w = std::max(64.0f * s, ImGui::GetContentRegionAvail().x - label_w);
  const float cell_w = w / float(kBlocks), cell_h = std::max(10.0f * s, ImGui::GetTextLineHeight() * 1.2f);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##tmem_cells", ImVec2(label_w + w, cell_h * 4 + ImGui::GetTextLineHeight()));
  app.drawn["tmem.cells"] = {o.x + label_w, o.y, w, cell_h};  // for the headless pixel test
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  for (uint32_t q = 0; q < 4; ++q) {
    const float y = o.y + cell_h * float(q);
    const bool wrong = !st.quarters[q].wrong_readers.empty();
    dl->AddText(ImVec2(o.x, y), wrong ? error_color(env) : text, tmem_quarter_lanes_text(st.quarters[q]).c_str());
    for (uint32_t b = 0; b < kBlocks; ++b) {
      const float x = o.x + label_w + cell_w * float(b);
      dl->AddRectFilled(ImVec2(x, y + 1), ImVec2(x + std::max(1.0f, cell_w - 1), y + cell_h - 1), cell_color(st.cell(q, b), env));
    }
  }
  // Column ticks every 64 columns, and each live allocation's outline.
  for (uint32_t c = 0; c <= kTmemColumns; c += 128) {
    const float x = o.x + label_w + w * float(c) / float(kTmemColumns);
    dl->AddLine(ImVec2(x, o.y), ImVec2(x, o.y + cell_h * 4 + 2 * s), muted_color(env), 1.0f);
    if (c < kTmemColumns) dl->AddText(ImVec2(x + 2 * s, o.y + cell_h * 4), muted_color(env), fmt::format("col {}", c).c_str());
  }
  for (const TmemAllocation& a : h.allocations)
    if (a.live_at(st.position)) {
      const float x0 = o.x + label_w + w * float(a.column) / float(kTmemColumns);
      const float x1 = o.x + label_w + w * float(a.column + a.columns) / float(kTmemColumns);
      dl->AddRect(ImVec2(x0, o.y), ImVec2(x1, o.y + cell_h * 4), text, 0.0f, 0, 1.5f * s);
    }
  if (ImGui::IsItemHovered()) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const int q = int((m.y - o.y) / cell_h), b = int((m.x - o.x - label_w) / cell_w);
    if (q >= 0 && q < 4 && b >= 0 && b < int(kBlocks)) {
      const TmemQuarter& tq = st.quarters[size_t(q)];
      ImGui::SetTooltip("%s, columns %d-%d: %s\nmay be read by warps w with w %% 4 = %d\nread so far by: %s%s",
                        tmem_quarter_lanes_text(tq).c_str(), b * 8, b * 8 + 7, tmem_cell_state_name(st.cell(uint32_t(q), uint32_t(b))), q,
                        tq.readers.empty() ? "nobody" : tmem_warps_text(tq.readers).c_str(),
                        tq.wrong_readers.empty() ? "" : fmt::format("\nNOT ITS QUARTER: {}", tmem_warps_text(tq.wrong_readers)).c_str());
    }
  }
}

// One bar per accumulator the model's MMAs started, under the columns it spans, in its owner's
// colour, with who holds it at the cursor (tmem_data: TmemAccumulatorState).
void draw_accumulators(AppState& app, const ViewEnv& env, const TmemHistory& h, const TmemState& st) {
  if (h.accumulators.empty()) return;
  const float s = env.scale;
  const float label_w = ImGui::CalcTextSize("lanes 96-127 ").x;
  const float w = std::max(64.0f * s, ImGui::GetContentRegionAvail().x - label_w);
  const float row_h = ImGui::GetTextLineHeight() * 1.3f;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##tmem_acc", ImVec2(label_w + w, row_h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddText(ImVec2(o.x, o.y), muted_color(env), "holder");
  for (uint32_t i = 0; i < h.accumulators.size() && i < st.accumulators.size(); ++i) {
    const TmemAccumulator& a = h.accumulators[i];
    const float x0 = o.x + label_w + w * float(a.column) / float(kTmemColumns);
    const float x1 = o.x + label_w + w * float(a.column + a.columns) / float(kTmemColumns);
    dl->AddRectFilled(ImVec2(x0 + 1, o.y + 1), ImVec2(x1 - 1, o.y + row_h - 1),
                      rgb_color(tmem_owner_rgb(st.accumulators[i].owner, env.dark)));
    const TmemAccumulatorState& as = st.accumulators[i];
    std::string label = fmt::format("acc {}: {}", i, tmem_owner_name(as.owner));
    if (as.owner == TmemOwner::mma && as.mma_warp != kNoWarp) label += fmt::format(" w{}", as.mma_warp);
    if (as.owner == TmemOwner::readers) label += " " + tmem_warps_text(as.readers);
    dl->PushClipRect(ImVec2(x0, o.y), ImVec2(x1, o.y + row_h), true);
    dl->AddText(ImVec2(x0 + 4 * s, o.y + row_h * 0.12f), ImGui::GetColorU32(ImGuiCol_Text), label.c_str());
    dl->PopClipRect();
    app.drawn[fmt::format("tmem.acc{}", i)] = {x0, o.y, x1 - x0, row_h};  // for the headless pixel test
  }
  if (ImGui::IsItemHovered()) {
    const float mx = ImGui::GetIO().MousePos.x - o.x - label_w;
    const uint32_t col = uint32_t(std::clamp(mx / w, 0.0f, 0.999f) * float(kTmemColumns));
    for (uint32_t i = 0; i < h.accumulators.size() && i < st.accumulators.size(); ++i)
      if (col >= h.accumulators[i].column && col < h.accumulators[i].column + h.accumulators[i].columns)
        ImGui::SetTooltip("%s", st.accumulators[i].text.c_str());
  }
  for (const TmemAccumulatorState& as : st.accumulators) mono_text(env, "%s", as.text.c_str());
}

// Columns allocated over time (a step line), and the MMA -> commit -> arrive lanes.
void draw_timelines(AppState& app, const ViewEnv& env, const TmemHistory& h, const TmemState& st) {
  if (h.end_cycle == 0) return;
  const float s = env.scale;
  const float label_w = ImGui::CalcTextSize("allocated ").x;
  const float w = std::max(64.0f * s, ImGui::GetContentRegionAvail().x - label_w);
  const float row_h = std::max(8.0f * s, ImGui::GetTextLineHeight());
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##tmem_time", ImVec2(label_w + w, row_h * 4));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float x0 = o.x + label_w;
  const auto x_of = [&](uint64_t c) { return x0 + w * float(double(std::min(c, h.end_cycle)) / double(h.end_cycle)); };
  const ImU32 muted = muted_color(env);
  const char* labels[] = {"allocated", "MMA", "commit", "arrive"};
  for (int i = 0; i < 4; ++i) dl->AddText(ImVec2(o.x, o.y + row_h * float(i)), muted, labels[i]);
  // Allocated columns as a filled step function over the first row, scaled to 512.
  for (size_t i = 0; i < h.allocated_over_time.size(); ++i) {
    const auto [c, cols] = h.allocated_over_time[i];
    const uint64_t end = i + 1 < h.allocated_over_time.size() ? h.allocated_over_time[i + 1].first : h.end_cycle;
    const float top = o.y + row_h * (1.0f - float(cols) / float(kTmemColumns));
    if (cols) dl->AddRectFilled(ImVec2(x_of(c), top), ImVec2(std::max(x_of(end), x_of(c) + 1), o.y + row_h - 1), cell_color(TmemCellState::allocated, env));
  }
  for (const TmemMma& m : h.mmas)
    dl->AddRectFilled(ImVec2(x_of(m.issue_cycle), o.y + row_h + 2 * s), ImVec2(std::max(x_of(m.complete_cycle), x_of(m.issue_cycle) + 1), o.y + 2 * row_h - 2 * s),
                      cell_color(TmemCellState::accumulating, env));
  for (const TmemCommit& c : h.commits) {
    const float y = o.y + 2 * row_h + row_h * 0.5f;
    dl->AddLine(ImVec2(x_of(c.issue_cycle), y), ImVec2(x_of(c.arrive_cycle), y), ok_color(env), 1.5f * s);
    dl->AddLine(ImVec2(x_of(c.arrive_cycle), o.y + 3 * row_h + 2 * s), ImVec2(x_of(c.arrive_cycle), o.y + 4 * row_h - 2 * s), ok_color(env), 2.0f * s);
  }
  const float cx = x_of(st.cycle);
  dl->AddLine(ImVec2(cx, o.y), ImVec2(cx, o.y + 4 * row_h), ImGui::GetColorU32(ImGuiCol_Text), 1.5f * s);
  if (ImGui::IsItemHovered()) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const uint64_t cycle = uint64_t(std::clamp((m.x - x0) / w, 0.0f, 1.0f) * float(h.end_cycle));
    std::string what;
    for (const TmemCommit& c : h.commits)
      if (c.issue_cycle <= cycle && cycle <= c.arrive_cycle) {
        what = fmt::format("\ncommit of {} MMA{} by w{}: arrives on {} at cycle {}", c.mmas.size(), c.mmas.size() == 1 ? "" : "s",
                           c.warp, c.barrier, c.arrive_cycle);
        break;
      }
    ImGui::SetTooltip("cycle %llu%s\nclick to move the cursor here", (unsigned long long)cycle, what.c_str());
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && app.kernel) app.seek(timeline_position_at(*app.kernel, cycle));
  }
}

}  // namespace

void draw_tmem(AppState& app, const ViewEnv& env) {
  const Snapshot* snap = app.snapshot();
  const TmemHistory* h = tmem_history_shown(app.kernel, app.tmem_view);
  if (!app.kernel || !snap || !h) {
    ImGui::TextDisabled("no kernel open");
    return;
  }
  const TmemHistories& all = tmem_histories_cached(app.kernel);
  if (!h->used() && all.ranks.size() < 2) {
    ImGui::TextWrapped("This kernel does not use tensor memory: only the Blackwell (sm_100a) tcgen05 steps keep "
                       "their accumulator there.");
    return;
  }
  const TmemState st = tmem_state(*h, *snap);
  ImGui::Text("rank %u: %u of 512 columns allocated (peak %u)", h->rank, st.allocated_columns, h->peak_columns);
  draw_rank_choice(app, all);
  ImGui::Text("MMAs issued %u, in flight %u; commits arrived %u of %zu", st.mmas_issued, st.mmas_in_flight,
              st.commits_arrived, h->commits.size());
  if (st.latest_commit != kNone) {
    const TmemCommit& c = h->commits[st.latest_commit];
    mono_text(env, "last commit: %zu MMA%s -> %s, %s", c.mmas.size(), c.mmas.size() == 1 ? "" : "s", c.barrier.c_str(),
              c.arrive_cycle <= st.cycle ? "arrived" : "pending");
  }
  draw_cells(app, env, *h, st);
  draw_accumulators(app, env, *h, st);
  draw_timelines(app, env, *h, st);
  // The legend, one coloured square per state.
  for (TmemCellState c : {TmemCellState::free, TmemCellState::allocated, TmemCellState::accumulating,
                          TmemCellState::complete, TmemCellState::read}) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float side = ImGui::GetTextLineHeight() * 0.8f;
    ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + side, p.y + side), cell_color(c, env));
    ImGui::Dummy(ImVec2(side, side));
    ImGui::SameLine();
    ImGui::TextUnformatted(tmem_cell_state_name(c));
    same_line_if_fits(ImGui::CalcTextSize("accumulating").x + side * 2);
  }
  ImGui::NewLine();
}

}  // namespace gs::gui
