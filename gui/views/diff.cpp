// The Diff view: what changed, side by side, with the registry's delta sentence (or the
// mistake's description) on top. Against the step before on the ladder, any kernel, or the
// kernel itself with one of its mistakes switched on; the source or the PTX (PTX lines are
// compared with register and label numbers renamed in order of appearance, which the view
// says). Data: gui/core/diff_data and run/kernel_diff.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gui/core/diff_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

void choices(AppState& app) {
  DiffViewOptions& o = app.diff_view;
  const kernels::KernelInfo* info = app.kernel ? app.kernel->info : nullptr;
  int against = int(o.against);
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("previous step").x + ImGui::GetFrameHeight() * 2);
  if (ImGui::Combo("##against", &against, "previous step\0other kernel\0mistake\0")) o.against = DiffAgainst(against);
  if (o.against == DiffAgainst::other_kernel) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
    if (ImGui::BeginCombo("##other", o.other.empty() ? "pick a kernel" : o.other.c_str())) {
      for (const kernels::KernelInfo& k : kernels::all_kernels())
        if (ImGui::Selectable(fmt::format("{:02} {}", k.step, k.id).c_str(), o.other == k.id)) o.other = k.id;
      ImGui::EndCombo();
    }
  } else if (o.against == DiffAgainst::mistake) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
    if (ImGui::BeginCombo("##mistake", o.mistake.empty() ? "pick a mistake" : o.mistake.c_str())) {
      if (info)
        for (const kernels::Mistake& m : info->mistakes) {
          if (ImGui::Selectable(m.name.c_str(), o.mistake == m.name)) o.mistake = m.name;
          if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", m.description.c_str());
        }
      ImGui::EndCombo();
    }
    if (info && !o.mistake.empty() &&
        std::none_of(info->mistakes.begin(), info->mistakes.end(), [&](const kernels::Mistake& m) { return m.name == o.mistake; }))
      o.mistake.clear();  // a mistake of the kernel opened before
  }
  same_line_if_fits(ImGui::CalcTextSize("source PTX changes only").x + ImGui::GetFrameHeight() * 3);
  if (ImGui::RadioButton("source", !o.show_ptx)) o.show_ptx = false;
  ImGui::SameLine();
  if (ImGui::RadioButton("PTX", o.show_ptx)) o.show_ptx = true;
  ImGui::SameLine();
  ImGui::Checkbox("changes only", &o.changes_only);
}

}  // namespace

void draw_diff(AppState& app, const ViewEnv& env) {
  if (!app.kernel) {
    ImGui::TextDisabled("no kernel loaded");
    return;
  }
  choices(app);
  const DiffPrepared& d = diff_prepared(app);
  if (!d.error.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", d.error.c_str());
    ImGui::PopTextWrapPos();
    return;
  }
  const run::TextDiff& t = app.diff_view.show_ptx ? d.diff.ptx : d.diff.source;
  const run::DiffCount c = run::count_changes(t.rows);
  ImGui::PushTextWrapPos(0.0f);
  if (env.bold) ImGui::PushFont(env.bold);
  ImGui::TextUnformatted(fmt::format("{} -> {}", d.diff.left_name, d.diff.right_name).c_str());
  if (env.bold) ImGui::PopFont();
  ImGui::TextUnformatted(d.diff.summary.c_str());
  ImGui::TextDisabled("%s", fmt::format("{} line{} removed, {} added{}", c.removed, c.removed == 1 ? "" : "s", c.added,
                                        app.diff_view.show_ptx ? "; register and label numbers are renamed in order "
                                                                 "of appearance before comparing"
                                                               : "")
                                .c_str());
  ImGui::PopTextWrapPos();

  draw_side_by_side(t, app.diff_view.changes_only ? 3 : -1, 0.0f, env);
}

void draw_side_by_side(const run::TextDiff& t, int context, float height, const ViewEnv& env) {
  const std::vector<SideBySideRow> rows = side_by_side(t, context);
  const ImU32 removed_bg = env.dark ? IM_COL32(130, 40, 40, 120) : IM_COL32(255, 200, 200, 200);
  const ImU32 added_bg = env.dark ? IM_COL32(40, 110, 50, 120) : IM_COL32(200, 245, 200, 200);
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingStretchSame;
  if (!ImGui::BeginTable("##diff", 2, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn(t.left_title.c_str());
  ImGui::TableSetupColumn(t.right_title.c_str());
  ImGui::TableHeadersRow();
  if (env.mono) ImGui::PushFont(env.mono);
  auto cell = [&](int32_t line, const std::vector<std::string>& text, ImU32 bg, char mark) {
    if (line < 0) return;
    if (bg) ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, bg);
    ImGui::TextUnformatted(fmt::format("{}{:>4} {}", mark, line + 1, text[size_t(line)]).c_str());
  };
  ImGuiListClipper clipper;
  clipper.Begin(int(rows.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const SideBySideRow& r = rows[size_t(i)];
      ImGui::TableNextRow();
      if (r.folded) {
        ImGui::TableSetColumnIndex(0);
        ImGui::TextDisabled("... %u unchanged lines", r.folded);
        continue;
      }
      const bool change = r.kind != run::DiffKind::same;
      ImGui::TableSetColumnIndex(0);
      cell(r.left, t.left, change ? removed_bg : 0, change ? '-' : ' ');
      ImGui::TableSetColumnIndex(1);
      cell(r.right, t.right, change ? added_bg : 0, change ? '+' : ' ');
    }
  }
  if (env.mono) ImGui::PopFont();
  ImGui::EndTable();
}

}  // namespace gs::gui
