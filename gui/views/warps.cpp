// The warps view: one row per warp of the traced CTA — colour, state in words, the instruction
// it issued last and the one it issues next, instructions so far, and a timeline of ready vs
// waiting up to the cursor — and the kernel's register budget. Click a row to select the warp
// (the transport's warp-instruction steps and the other views follow it).
#include <algorithm>

#include <fmt/format.h>

#include "gui/core/schedule_data.hpp"
#include "gui/core/warps_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

// The warp's states from cycle 0 to `now`, squeezed into the cell; the current state (since
// its last change) is outlined.
void timeline_bar(const std::vector<ActivitySegment>& segs, uint64_t now, uint64_t since, float width,
                  const ViewEnv& env) {
  const float h = ImGui::GetTextLineHeight() * 0.7f;
  const ImVec2 a = ImGui::GetCursorScreenPos();
  const ImVec2 pos(a.x, a.y + (ImGui::GetTextLineHeight() - h) * 0.5f);
  ImGui::Dummy(ImVec2(width, ImGui::GetTextLineHeight()));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(pos, ImVec2(pos.x + width, pos.y + h), ImGui::GetColorU32(ImGuiCol_FrameBg));
  if (now == 0) return;
  auto x_of = [&](uint64_t c) { return pos.x + width * float(double(std::min(c, now)) / double(now)); };
  for (size_t i = 0; i < segs.size() && segs[i].begin < now; ++i) {
    const uint64_t end = i + 1 < segs.size() ? std::min(segs[i + 1].begin, now) : now;
    const float x0 = x_of(segs[i].begin), x1 = std::max(x_of(end), x0 + 1.0f);
    if (segs[i].activity == WarpActivity::not_started) continue;
    dl->AddRectFilled(ImVec2(x0, pos.y), ImVec2(x1, pos.y + h), activity_color(segs[i].activity, env));
  }
  dl->AddRect(ImVec2(x_of(since), pos.y - 1), ImVec2(pos.x + width, pos.y + h + 1), ImGui::GetColorU32(ImGuiCol_Text));
  if (ImGui::IsItemHovered()) {
    const ReadyWaiting rw = ready_waiting(segs, 0, now);
    const double total = double(std::max<uint64_t>(1, rw.ready + rw.waiting));
    ImGui::SetTooltip("cycles 0..%llu: ready %llu (%.0f%%), waiting %llu (%.0f%%)\ncurrent state since cycle %llu (%llu cycles)",
                      (unsigned long long)now, (unsigned long long)rw.ready, 100.0 * double(rw.ready) / total,
                      (unsigned long long)rw.waiting, 100.0 * double(rw.waiting) / total, (unsigned long long)since,
                      (unsigned long long)(now - std::min(now, since)));
  }
}

void register_footer(const std::shared_ptr<const LoadedKernel>& kernel, const ViewEnv& env) {
  const LoadedKernel& k = *kernel;
  const Occupancy& occ = schedule_data(kernel).occupancy;
  const RegisterBudget b = register_budget(k.kernel(), occ.registers, occ.registers_source);
  std::string types;
  for (const auto& t : b.by_type) types += fmt::format("{}{} {}", types.empty() ? "" : ", ", t.count, t.type);
  ImGui::TextDisabled("registers");
  ImGui::SameLine();
  ImGui::TextWrapped("%s", b.text.c_str());
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::Text("by type: %s", types.c_str());
    ImGui::Text("budget: %s", b.summary.c_str());
    ImGui::Text(".maxnreg: %s", b.max_regs ? std::to_string(b.max_regs).c_str() : "not set");
    ImGui::TextDisabled("ptxas maps the virtual registers onto at most %u physical ones per thread;\n"
                        "more live values than that spill to local memory.",
                        b.per_thread_limit);
    ImGui::EndTooltip();
  }
  ImGui::TextDisabled("budget");
  ImGui::SameLine();
  ImGui::TextWrapped("%s", b.summary.c_str());
  (void)env;
}

}  // namespace

void draw_warps(AppState& app, const ViewEnv& env) {
  const Snapshot* snap = app.snapshot();
  if (!app.kernel || !snap) {
    ImGui::TextDisabled("no kernel loaded");
    return;
  }
  const LoadedKernel& k = *app.kernel;
  const std::vector<WarpRow> rows = warp_rows(k, *snap);
  const WarpTimelines& timelines = warp_timelines_cached(app.kernel);
  const float s = env.scale;

  // The footer's two lines wrap to three or four in a narrow view.
  const float footer_lines = ImGui::GetContentRegionAvail().x < 520 * s ? 4.3f : 2.3f;
  const float footer = ImGui::GetTextLineHeightWithSpacing() * footer_lines;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable |
                                ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  uint16_t clicked = kNoWarp;
  if (ImGui::BeginTable("##warps", 7, flags, ImVec2(0, std::max(80.0f * s, ImGui::GetContentRegionAvail().y - footer)))) {
    ImGui::TableSetupScrollFreeze(1, 1);
    // Initial widths (the user may resize): the state fits its longest wording; the instruction
    // columns share what is left of a wide view.
    const float state_w = ImGui::CalcTextSize("waiting on mbarrier #0 parity 1").x + 8 * s;
    // The longest ir::warp_role_name with a register budget after setmaxnreg.
    const float role_w = ImGui::CalcTextSize("MMA issuer, 240 regs").x + 8 * s;
    const float fixed = 52 * s + state_w + 110 * s + 52 * s + role_w;
    const float spare = std::max(0.0f, ImGui::GetContentRegionAvail().x - fixed - 40 * s);
    const float inst_w = std::max(250 * s, spare * 0.55f), next_w = std::max(200 * s, spare * 0.45f);
    ImGui::TableSetupColumn("Warp", ImGuiTableColumnFlags_NoHide, 52 * s);
    ImGui::TableSetupColumn("State", 0, state_w);
    ImGui::TableSetupColumn("Role", 0, role_w);
    ImGui::TableSetupColumn("Instruction", 0, inst_w);
    ImGui::TableSetupColumn("Ready / waiting", 0, 110 * s);
    ImGui::TableSetupColumn("Issued", 0, 52 * s);
    ImGui::TableSetupColumn("Next", 0, next_w);
    ImGui::TableHeadersRow();
    for (const WarpRow& r : rows) {
      ImGui::TableNextRow();
      ImGui::PushID(r.warp);
      ImGui::TableNextColumn();
      const bool selected = app.selection.warp == r.warp;
      const ImVec2 cell = ImGui::GetCursorScreenPos();
      if (ImGui::Selectable("##row", selected, ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap))
        clicked = r.warp;
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("warp %u of CTA rank %u: threads %u..%u\nrole: %s\nclick to select", r.cta_warp, r.cta_rank,
                          r.cta_warp * 32u, r.cta_warp * 32u + 31u, r.role.c_str());
      const float sw = ImGui::GetTextLineHeight() * 0.8f;
      ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(cell.x, cell.y + 2 * s), ImVec2(cell.x + sw, cell.y + 2 * s + sw),
                                                warp_color(r.warp), 2.0f * s);
      ImGui::SameLine(sw + 6 * s);
      ImGui::TextUnformatted(r.label.c_str());

      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, activity_color(r.activity, env));
      ImGui::TextUnformatted(r.state.c_str());
      ImGui::PopStyleColor();

      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.role.c_str());

      ImGui::TableNextColumn();
      if (r.inst != kNone) mono_text(env, "%s", r.inst_text.c_str());
      else ImGui::TextDisabled("-");
      if (ImGui::IsItemHovered() && r.inst != kNone)
        ImGui::SetTooltip("instruction %u, PTX line %u", r.inst, k.line_of(r.inst));

      ImGui::TableNextColumn();
      if (r.warp < timelines.size())
        timeline_bar(timelines[r.warp], snap->cycle, r.since_cycle, ImGui::GetColumnWidth() - 4 * s, env);

      ImGui::TableNextColumn();
      ImGui::Text("%llu", (unsigned long long)r.issued);

      ImGui::TableNextColumn();
      if (r.next_inst != kNone) {
        ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
        mono_text(env, "%s", r.next_text.c_str());
        ImGui::PopStyleColor();
      } else {
        ImGui::TextDisabled("-");
      }
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  if (clicked != kNoWarp) app.select_warp(clicked);
  register_footer(app.kernel, env);
}

}  // namespace gs::gui
