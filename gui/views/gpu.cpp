// The GPU view: the card the run is predicted on, drawn from its machine description. Top: the
// chip, its GPCs with their SMs, each SM the wave's CTAs hold filled in its cluster's colour
// (the traced CTA's SM outlined), the L2 and HBM below with their sizes and bandwidths. Bottom:
// one SM, its four sub-partitions (scheduler, register file, FMA lanes, tensor core, load/store)
// with the traced CTA's warps on the scheduler each issues on, and its shared memory / L1.
#include <algorithm>

#include <fmt/format.h>

#include "gui/core/colors.hpp"
#include "gui/core/gpu_data.hpp"
#include "gui/core/memory_data.hpp"  // capacity_text
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

// Text clipped to a box's width: a narrow window shows what fits.
void box_text(ImDrawList* dl, ImVec2 at, float width, ImU32 col, const std::string& t) {
  dl->PushClipRect(at, ImVec2(at.x + width, at.y + ImGui::GetTextLineHeight() * 1.2f), true);
  dl->AddText(at, col, t.c_str());
  dl->PopClipRect();
}

// The chip: GPCs in two rows, each a box of its SMs in rows of up to 6 (a GPC's 9 TPCs).
// Returns the height it took.
float draw_chip(AppState& app, const ViewEnv& env, const GpuData& d, ImVec2 o, float w, float h) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float s = env.scale, line = ImGui::GetTextLineHeight();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), frame = muted_color(env);
  const uint32_t per_row = (uint32_t(d.gpc.size()) + 1) / 2, sm_cols = 6;
  uint32_t most = 0;
  for (const GpuGpc& g : d.gpc) most = std::max(most, g.sms);
  const uint32_t sm_rows = (most + sm_cols - 1) / sm_cols;
  const float memory_h = 2.6f * line;  // L2 and HBM bars
  const float gw = w / float(std::max(1u, per_row));
  float gh = (h - memory_h) / 2.0f;
  const float cell = std::max(3.0f * s, std::min((gw - 8 * s) / float(sm_cols), (gh - line - 6 * s) / float(sm_rows)));
  gh = std::min(gh, line + 8 * s + cell * float(sm_rows));  // no empty room under the SMs
  for (size_t g = 0; g < d.gpc.size(); ++g) {
    const ImVec2 a(o.x + gw * float(g % per_row), o.y + gh * float(g / per_row));
    dl->AddRect(ImVec2(a.x + 2 * s, a.y + 2 * s), ImVec2(a.x + gw - 2 * s, a.y + gh - 2 * s), frame, 3 * s);
    box_text(dl, ImVec2(a.x + 5 * s, a.y + 3 * s), gw - 8 * s, text, fmt::format("GPC {}: {} SMs", g, d.gpc[g].sms));
    for (uint32_t i = 0; i < d.gpc[g].sms; ++i) {
      const uint32_t sm = d.gpc[g].first_sm + i;
      const ImVec2 c0(a.x + 5 * s + cell * float(i % sm_cols), a.y + line + 4 * s + cell * float(i / sm_cols));
      const ImVec2 c1(c0.x + cell - 1.5f * s, c0.y + cell - 1.5f * s);
      if (sm == 0) app.drawn["gpu.sm0"] = {c0.x, c0.y, cell, cell};
      if (sm < d.sm_ctas.size() && d.sm_ctas[sm]) {
        dl->AddRectFilled(c0, c1, rgb_color(cta_rgb(d.sm_cluster[sm])));
        if (d.sm_ctas[sm] > 1 && cell > line)
          dl->AddText(ImVec2(c0.x + 2 * s, c0.y), IM_COL32(20, 20, 20, 255), std::to_string(d.sm_ctas[sm]).c_str());
      } else {
        dl->AddRect(c0, c1, scale_alpha(frame, 0.8f));
      }
      if (sm == d.traced_sm) {
        dl->AddRect(ImVec2(c0.x - 1.5f * s, c0.y - 1.5f * s), ImVec2(c1.x + 1.5f * s, c1.y + 1.5f * s), text, 0, 0,
                    2 * s);
        app.drawn["gpu.traced_sm"] = {c0.x, c0.y, cell, cell};
      }
    }
  }
  // L2 and HBM under the GPCs: the chip's memory.
  const float y = o.y + 2 * gh + 2 * s;
  const ImU32 l2 = IM_COL32(90, 140, 200, 200), hbm = IM_COL32(160, 110, 190, 200);
  dl->AddRectFilled(ImVec2(o.x + 2 * s, y), ImVec2(o.x + w - 2 * s, y + line * 1.2f), l2, 3 * s);
  box_text(dl, ImVec2(o.x + 6 * s, y + 0.1f * line), w - 8 * s, IM_COL32(255, 255, 255, 255),
           fmt::format("L2 {}  ·  {:.1f} TB/s read", capacity_text(double(d.l2_bytes)), d.l2_gbs / 1000));
  const float y2 = y + line * 1.3f;
  dl->AddRectFilled(ImVec2(o.x + 2 * s, y2), ImVec2(o.x + w - 2 * s, y2 + line * 1.2f), hbm, 3 * s);
  box_text(dl, ImVec2(o.x + 6 * s, y2 + 0.1f * line), w - 8 * s, IM_COL32(255, 255, 255, 255),
           fmt::format("HBM {:.0f} GB  ·  {:.1f} TB/s read", d.hbm_gb, d.hbm_gbs / 1000));
  return y2 + line * 1.2f - o.y;
}

// One SM: four sub-partitions side by side, shared memory / L1 under them.
// `selected`: the selected warp (in the CTA), outlined; kNoWarp for none.
void draw_sm(AppState& app, const ViewEnv& env, const GpuData& d, uint16_t selected, ImVec2 o, float w, float h) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float s = env.scale, line = ImGui::GetTextLineHeight();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), frame = muted_color(env);
  const float smem_h = line * 1.3f;
  // Four across where their lines fit, else two by two.
  const size_t n = std::max<size_t>(1, d.sub.size());
  const size_t across =
      w / float(n) >= ImGui::CalcTextSize("tensor core: 1024 FLOP/cycle").x + 12 * s ? n : (n + 1) / 2;
  const size_t down = (n + across - 1) / across;
  const float pw = w / float(across);
  const float ph = std::min(line * 8.5f, (h - smem_h - 2 * s) / float(down) - (down > 1 ? 2 * s : 0));
  for (size_t i = 0; i < d.sub.size(); ++i) {
    const GpuSubPartition& p = d.sub[i];
    const ImVec2 a(o.x + pw * float(i % across) + 2 * s, o.y + (ph + 2 * s) * float(i / across));
    dl->AddRect(a, ImVec2(a.x + pw - 4 * s, a.y + ph), frame, 3 * s);
    if (i == 0) app.drawn["gpu.sub0"] = {a.x, a.y, pw - 4 * s, ph};
    const float tw = pw - 10 * s;
    float y = a.y + 3 * s;
    const auto row = [&](ImU32 col, const std::string& t) {
      if (y + line > a.y + ph) return;
      box_text(dl, ImVec2(a.x + 4 * s, y), tw, col, t);
      y += line;
    };
    row(text, fmt::format("sub-partition {}", i));
    row(frame, fmt::format("scheduler: {:.0f} inst/cycle", p.issue));
    row(frame, fmt::format("registers: {} KiB", p.registers * 4 / 1024));
    row(frame, fmt::format("FMA: {:.0f} lanes", p.fma_lanes));
    row(frame, fmt::format("tensor core: {:.0f} FLOP/cycle", p.tensor_flops));
    row(frame, "load/store");
    // The traced CTA's warps on this scheduler, each in its colour.
    float x = a.x + 4 * s;
    for (uint16_t warp : p.warps) {
      const std::string t = fmt::format("w{}", warp);
      const float tx = ImGui::CalcTextSize(t.c_str()).x + 4 * s;
      if (x + tx > a.x + pw - 4 * s) {
        x = a.x + 4 * s;
        y += line;
      }
      if (y + line > a.y + ph) break;
      dl->AddRectFilled(ImVec2(x, y), ImVec2(x + tx - 2 * s, y + line), warp_color(warp, 0.85f), 2 * s);
      if (warp == selected)
        dl->AddRect(ImVec2(x - 1 * s, y - 1 * s), ImVec2(x + tx - 1 * s, y + line + 1 * s), text, 2 * s, 0, 2 * s);
      dl->AddText(ImVec2(x + 1 * s, y), IM_COL32(20, 20, 20, 255), t.c_str());
      x += tx;
    }
  }
  const float y = o.y + (ph + 2 * s) * float(down);
  dl->AddRectFilled(ImVec2(o.x + 2 * s, y), ImVec2(o.x + w - 2 * s, y + smem_h), IM_COL32(80, 160, 120, 200), 3 * s);
  box_text(dl, ImVec2(o.x + 6 * s, y + 0.15f * line), w - 8 * s, IM_COL32(255, 255, 255, 255),
           fmt::format("shared memory / L1: {} KiB ({} KiB shared)  ·  {:.0f} B/cycle  ·  TMA {:.0f} B/cycle",
                       d.l1_bytes / 1024, d.smem_bytes / 1024, d.smem_bytes_per_cycle, d.tma_bytes_per_cycle));
}

}  // namespace

void draw_gpu(AppState& app, const ViewEnv& env) {
  if (!app.kernel) {
    ImGui::TextDisabled("no kernel open");
    return;
  }
  const GpuData& d = gpu_data(app.kernel);
  ImGui::Text("%s: %u SMs in %u GPCs", d.machine.c_str(), d.sms, d.gpcs);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("SMs: %s\nGPCs: %s", d.sms_source.c_str(), d.gpcs_source.c_str());
  if (!d.confirmed) {
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(warn_color(env)), "NVIDIA's figures, unconfirmed");
  }
  ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
  ImGui::TextWrapped("%s", d.note.c_str());
  ImGui::PopStyleColor();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (avail.x < 40 || avail.y < 60) return;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##gpu", avail);
  const float chip_h = draw_chip(app, env, d, o, avail.x, avail.y * 0.58f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight();
  const float sm_y = o.y + chip_h + 0.3f * line;
  box_text(dl, ImVec2(o.x + 2 * env.scale, sm_y), avail.x, ImGui::GetColorU32(ImGuiCol_Text),
           fmt::format("{}: its sub-partitions, the traced CTA's warps on the scheduler each issues on ({} tensor "
                       "cores)",
                       d.traced_sm == kNone ? std::string("one SM") : fmt::format("SM {}", d.traced_sm), d.tensor_op));
  // The selection names a trace warp; the sub-partitions list the traced CTA's warps from 0.
  const uint16_t selected = app.selection.warp != kNoWarp && app.selection.warp >= d.first_warp
                                ? uint16_t(app.selection.warp - d.first_warp)
                                : kNoWarp;
  draw_sm(app, env, d, selected, ImVec2(o.x, sm_y + line * 1.2f), avail.x,
          o.y + avail.y - sm_y - line * 1.2f);
}

}  // namespace gs::gui
