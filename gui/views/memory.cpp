// The Memory view: registers -> shared memory / L1 -> DSMEM -> L2 -> HBM, each level a band as
// wide as it is large (log scale), with its capacity, latency and bandwidth from the machine
// description, and under it the traffic the prediction puts through it as a bar: the share of
// the level's bandwidth the step uses at its predicted speed, the bound in the error colour.
// The ladder's step before stands in a second column when the model has predicted it.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gui/core/memory_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

void draw_column(AppState& app, const ViewEnv& env, const MemoryColumn& c, const char* id) {
  const float s = env.scale, width = ImGui::GetContentRegionAvail().x;
  ImGui::Text("step %02d %s", c.step, c.kernel_id.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
  ImGui::TextWrapped("%s TFLOP/s on %s, bound by %s; %.0f cycles a wave", fmt::format("{:.3g}", c.tflops).c_str(),
                     c.card.c_str(), c.bound.c_str(), c.cycles_per_wave);
  ImGui::PopStyleColor();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (const MemoryLevel& l : c.levels) {
    // The band: its width grows with the level's capacity (log scale, registers the narrowest).
    const double lg = l.capacity_bytes > 0 ? std::log10(l.capacity_bytes) : 5.0;
    const float frac = float(std::clamp((lg - 4.5) / (11.5 - 4.5), 0.25, 1.0));
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float line = ImGui::GetTextLineHeight();
    dl->AddRectFilled(o, ImVec2(o.x + width * frac, o.y + line * 1.15f), scale_alpha(muted_color(env), 0.35f), 3 * s);
    ImGui::Text(" %s  %s %s%s", l.name.c_str(), capacity_text(l.capacity_bytes).c_str(), l.scope.c_str(),
                l.latency_cycles > 0 ? fmt::format("  ·  {:.0f} cycles", l.latency_cycles).c_str() : "");
    ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
    ImGui::TextWrapped("%s", l.bandwidth.c_str());
    ImGui::PopStyleColor();
    for (const MemoryTraffic& t : l.traffic) {
      const ImU32 bar = t.bound ? error_color(env) : t.share > 0.5 ? warn_color(env) : ok_color(env);
      ImGui::PushStyleColor(ImGuiCol_PlotHistogram, bar);
      const std::string label = fmt::format("{:.0f}% of its bandwidth{}", 100 * t.share, t.bound ? ": the bound" : "");
      const ImVec2 p = ImGui::GetCursorScreenPos();
      ImGui::ProgressBar(float(std::min(1.0, t.share)), ImVec2(width, 0), label.c_str());
      app.drawn[fmt::format("memory.{}.{}", id, t.part)] = {p.x, p.y, width, ImGui::GetItemRectSize().y};
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s: %s\n%s cycles a wave were it the only limit, of %.0f", t.what.c_str(),
                          amount_text(t).c_str(), fmt::format("{:.0f}", t.cycles).c_str(), c.cycles_per_wave);
      ImGui::TextDisabled("  %s: %s", t.part.c_str(), amount_text(t).c_str());
    }
    ImGui::Spacing();
  }
}

}  // namespace

void draw_memory(AppState& app, const ViewEnv& env) {
  const MemoryData d = memory_data(app);
  if (!d.available) {
    ImGui::TextDisabled("%s", d.note.c_str());
    return;
  }
  const int columns = d.before ? 2 : 1;
  if (ImGui::BeginTable("##memory", columns, ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableNextRow();
    if (d.before) {
      ImGui::TableNextColumn();
      draw_column(app, env, *d.before, "before");
    }
    ImGui::TableNextColumn();
    draw_column(app, env, d.open, "open");
    ImGui::EndTable();
  }
  ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
  ImGui::TextWrapped("%s", d.before_note.c_str());
  ImGui::PopStyleColor();
}

}  // namespace gs::gui
