// The fragments view: a tile drawn as a grid coloured by the warp and thread that hold each
// element — the kernel's own output tile (with the accumulator registers' values at the
// playback position) or any of the fragment maps of engine/layout. Hovering a cell outlines
// every element its thread holds; clicking selects the cell, its warp and its lane, which the
// other views pick up (and a warp/lane selected elsewhere is outlined here).
//
// Large maps (64x256) keep at least a few pixels per cell and scroll; only visible cells are
// drawn, so the view stays cheap at any size.
#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gui/core/fragments_data.hpp"
#include "gui/core/mma_sync_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

ImU32 text_on(ImU32 fill) {
  const ImVec4 c = ImGui::ColorConvertU32ToFloat4(fill);
  return 0.299f * c.x + 0.587f * c.y + 0.114f * c.z > 0.55f ? IM_COL32(20, 20, 24, 255) : IM_COL32(245, 245, 250, 255);
}

void draw_controls(AppState& app, const ViewEnv& env) {
  FragmentViewOptions& o = app.fragment_view;
  ImGui::SetNextItemWidth(210.0f * env.scale);
  // The kernel's output tile, then every map of the op traits' table (op_traits.def); the maps
  // of the open kernel's instructions say so and open at the parameter the kernel uses.
  if (ImGui::BeginCombo("##map", fragment_map_title(o).c_str())) {
    if (ImGui::Selectable(kKernelTileTitle, o.map.empty())) o = {.color_by_thread = o.color_by_thread};
    const std::vector<KernelFragmentMap> used =
        app.kernel ? kernel_fragment_maps(app.kernel->kernel()) : std::vector<KernelFragmentMap>{};
    for (const layout::OperandMap& m : layout::fragment_maps()) {
      const auto u = std::find_if(used.begin(), used.end(), [&](const KernelFragmentMap& x) { return x.map == &m; });
      const std::string label = u == used.end() ? std::string(m.title) : fmt::format("{} (this kernel)", m.title);
      if (ImGui::Selectable(label.c_str(), o.map == m.id)) {
        o.map = std::string(m.id);
        o.param = u == used.end() ? m.param.default_value : u->param;
      }
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  const layout::OperandMap* m = layout::find_fragment_map(o.map);
  if (m && m->param.takes_param()) {
    // One slider over the parameter's valid values, whatever the map.
    const std::vector<int> values = m->param.values();
    const int current = m->param.nearest(chosen_fragment_param(*m, o));
    int index = int(std::find(values.begin(), values.end(), current) - values.begin());
    ImGui::SetNextItemWidth(80.0f * env.scale);
    if (ImGui::SliderInt("##param", &index, 0, int(values.size()) - 1, ""))
      o.param = values[size_t(std::clamp(index, 0, int(values.size()) - 1))];
    text_beside_slider(app, "fragments.param", fmt::format("{} = {}", m->param.name, chosen_fragment_param(*m, o)),
                       ImGui::IsItemHovered(), std::string(m->param.hint).c_str());
    ImGui::SameLine();
  }
  ImGui::Checkbox("by thread", &o.color_by_thread);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("colour each thread (lighter = higher lane); off: colour by warp only");
}

// The selected thread: warp + lane from the shared selection (lane only for 32-thread maps).
int selected_thread(const AppState& app, const FragmentGrid& g) {
  if (app.selection.lane < 0) return -1;
  if (g.threads <= 32) return app.selection.lane;
  if (app.selection.warp == kNoWarp) return -1;
  const int t = int(app.selection.warp) * 32 + app.selection.lane;
  return t < g.threads ? t : -1;
}

void outline_thread(ImDrawList* dl, const FragmentGrid& g, int thread, ImVec2 o, ImVec2 cs, ImU32 col, float thick) {
  if (thread < 0 || thread >= g.threads) return;
  for (int v = 0; v < g.values_per_thread; ++v) {
    const layout::Coord c = g.map.table[size_t(thread) * size_t(g.values_per_thread) + size_t(v)];
    if (c == layout::kUnmapped) continue;  // an observed map: this thread stored fewer values
    const ImVec2 a(o.x + c.col * cs.x, o.y + c.row * cs.y);
    dl->AddRect(a, ImVec2(a.x + cs.x, a.y + cs.y), col, 0.0f, 0, thick);
  }
}

// The running kernel's mma.sync at the cursor when the map is one of m16n8k16's (else null).
const RunningMmaSync* running_mma(AppState& app) {
  if (!app.kernel || !mma_operand_of_map(app.fragment_view)) return nullptr;
  const RunningMmaSync& m =
      cached_running_mma_sync(app.view_caches.mma_sync, app.kernel, app.playback.position, app.selection.warp);
  return m.valid ? &m : nullptr;
}

// The value the kernel's register holds for a cell at the cursor, as text ("" if none).
std::string cell_value(AppState& app, const FragmentGrid& g, const FragmentCell& c) {
  if (const RunningMmaSync* m = running_mma(app); m && c.thread >= 0)
    return mma_sync_value_text(*app.kernel, *m, *mma_operand_of_map(app.fragment_view), uint32_t(c.lane),
                               uint32_t(c.value));
  if (!g.from_kernel || !app.kernel || c.value < 0 || size_t(c.value) >= g.value_regs.size()) return "";
  const uint32_t reg = g.value_regs[size_t(c.value)];
  const std::string name = reg < app.kernel->ptx.reg_names.size() ? app.kernel->ptx.reg_names[reg] : "";
  const auto v = register_value_at(*app.kernel, app.playback.position, uint16_t(c.warp), reg, uint32_t(c.lane));
  if (!v) return name + " (not written yet)";
  float f;
  std::memcpy(&f, &*v, 4);
  return fmt::format("{} = {:g}", name, f);
}

void draw_grid(AppState& app, const ViewEnv& env, const FragmentGrid& g, float footer_h) {
  const float label = 30.0f * env.scale;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Cells fill the space, at most 2:1 either way, at least 4 px so hovering keeps working
  // (a 64x256 map then scrolls sideways instead of shrinking to nothing).
  const float min_cell = 4.0f * env.scale;
  float cw = std::floor((avail.x - label - 14.0f) / float(g.cols));
  float ch = std::floor((avail.y - footer_h - label - 14.0f) / float(g.rows));
  cw = std::max(cw, min_cell);
  ch = std::max(ch, min_cell);
  cw = std::min(cw, 2.0f * ch);
  ch = std::min(ch, 2.0f * cw);
  cw = std::floor(cw);  // whole pixels: the cells are drawn as one picture
  ch = std::floor(ch);
  const ImVec2 cs(cw, ch);
  ImGui::BeginChild("##fraggrid", ImVec2(0, std::max(80.0f, avail.y - footer_h)), false, ImGuiWindowFlags_HorizontalScrollbar);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 base = ImGui::GetCursorScreenPos();
  // Whole pixels, so the cell picture lands exactly on the screen's pixels.
  const ImVec2 o(std::floor(base.x + label), std::floor(base.y + label * 0.7f));
  ImGui::Dummy(ImVec2(label + g.cols * cw + 4, label * 0.7f + g.rows * ch + 4));
  app.drawn["fragments.grid"] = {o.x, o.y, cw, ch};  // for the headless pixel test
  // Only the visible cells.
  const ImVec2 clip0 = ImGui::GetWindowPos(), clip1(clip0.x + ImGui::GetWindowWidth(), clip0.y + ImGui::GetWindowHeight());
  const int c0 = std::max(0, int((clip0.x - o.x) / cw)), c1 = std::min(g.cols, int((clip1.x - o.x) / cw) + 1);
  const int r0 = std::max(0, int((clip0.y - o.y) / ch)), r1 = std::min(g.rows, int((clip1.y - o.y) / ch) + 1);
  const float line_h = ImGui::GetTextLineHeight();
  const bool two_lines = ch >= 2.0f * line_h && cw >= 30.0f * env.scale, one_line = ch >= line_h && cw >= 18.0f * env.scale;
  auto fill_of = [&](const FragmentCell& cell) {
    if (cell.thread < 0) return muted_color(env);
    return app.fragment_view.color_by_thread ? lane_color(uint32_t(cell.warp), uint32_t(cell.lane))
                                             : warp_color(uint32_t(cell.warp));
  };
  // The visible cells are one picture (see RasterImage: thousands of small rectangles are
  // what a software rasterizer draws slowest), filled again only when a colour, an owner or
  // the cell size changes. A 1-px gap (the window background) only where the owner changes,
  // so a thread's neighbouring elements merge into one block.
  if (c1 > c0 && r1 > r0 && env.fragment_cells) {
    const int icw = int(cw), ich = int(ch);
    RasterImage& img = *env.fragment_cells;
    uint64_t key = kHashSeed;
    for (uint64_t v : {uint64_t(c0), uint64_t(c1), uint64_t(r0), uint64_t(r1), uint64_t(icw), uint64_t(ich)}) key = hash_mix(key, v);
    // One cell past the visible ones too: their owners decide the gaps at the right and bottom edge.
    for (int r = r0; r < std::min(r1 + 1, g.rows); ++r)
      for (int c = c0; c < std::min(c1 + 1, g.cols); ++c)
        key = hash_mix(key, (uint64_t(fill_of(g.at(r, c))) << 32) ^ uint64_t(uint32_t(g.at(r, c).thread)));
    if (img.begin((c1 - c0) * icw, (r1 - r0) * ich, key))
      for (int r = r0; r < r1; ++r)
        for (int c = c0; c < c1; ++c) {
          const FragmentCell& cell = g.at(r, c);
          const int x = (c - c0) * icw, y = (r - r0) * ich;
          const bool right = cell.thread >= 0 && c + 1 < g.cols && g.at(r, c + 1).thread != cell.thread;
          const bool below = cell.thread >= 0 && r + 1 < g.rows && g.at(r + 1, c).thread != cell.thread;
          img.fill_rect(x, y, x + icw - (right ? 1 : 0), y + ich - (below ? 1 : 0), fill_of(cell));
        }
    const ImVec2 p0(o.x + float(c0) * cw, o.y + float(r0) * ch);
    dl->AddImage(img.texture(), p0, ImVec2(p0.x + float(img.width()), p0.y + float(img.height())));
  }
  if (env.mono) ImGui::PushFont(env.mono);
  const RunningMmaSync* mma = running_mma(app);
  if (two_lines || one_line)
    for (int r = r0; r < r1; ++r)
      for (int c = c0; c < c1; ++c) {
        const FragmentCell& cell = g.at(r, c);
        if (cell.thread < 0) continue;
        const ImVec2 a(o.x + c * cw, o.y + r * ch);
        const ImU32 fill = fill_of(cell);
        const std::string who = g.threads > 32 ? fmt::format("t{}", cell.thread) : fmt::format("l{}", cell.lane);
        // The running mma.sync's value where there is one, else the value's index.
        std::optional<float> x;
        if (mma) x = mma_sync_value(*mma, *mma_operand_of_map(app.fragment_view), uint32_t(cell.lane), uint32_t(cell.value));
        const std::string what = x ? fmt::format("{:.3g}", *x) : fmt::format("v{}", cell.value);
        if (two_lines) {
          dl->AddText(ImVec2(a.x + 2, a.y + 1), text_on(fill), who.c_str());
          dl->AddText(ImVec2(a.x + 2, a.y + 1 + line_h), text_on(fill), what.c_str());
        } else {
          dl->AddText(ImVec2(a.x + 2, a.y + (ch - line_h) * 0.5f), text_on(fill), (cw >= 60.0f ? who + " " + what : what).c_str());
        }
      }
  // Heavier lines every 8 rows/columns: the tile's natural blocks (core matrices, n8 blocks).
  const ImU32 line = ImGui::GetColorU32(ImGuiCol_WindowBg);
  for (int c = 0; c <= g.cols; c += 8) dl->AddLine(ImVec2(o.x + c * cw - 0.5f, o.y), ImVec2(o.x + c * cw - 0.5f, o.y + g.rows * ch), line, 2.0f);
  for (int r = 0; r <= g.rows; r += 8) dl->AddLine(ImVec2(o.x, o.y + r * ch - 0.5f), ImVec2(o.x + g.cols * cw, o.y + r * ch - 0.5f), line, 2.0f);
  const int cstep = cw * 8 >= 28.0f ? 8 : cw * 16 >= 28.0f ? 16 : 32;
  const int rstep = ch * 8 >= line_h + 2 ? 8 : ch * 16 >= line_h + 2 ? 16 : 32;
  for (int c = 0; c < g.cols; c += cstep) dl->AddText(ImVec2(o.x + c * cw + 1, base.y), muted_color(env), std::to_string(c).c_str());
  for (int r = 0; r < g.rows; r += rstep) dl->AddText(ImVec2(base.x, o.y + r * ch), muted_color(env), std::to_string(r).c_str());
  if (env.mono) ImGui::PopFont();
  const int sel_t = selected_thread(app, g);
  outline_thread(dl, g, sel_t, o, cs, ImGui::GetColorU32(ImGuiCol_Text), 2.0f);
  if (app.selection.row >= 0 && app.selection.row < g.rows && app.selection.col >= 0 && app.selection.col < g.cols) {
    const ImVec2 a(o.x + app.selection.col * cw, o.y + app.selection.row * ch);
    dl->AddRect(ImVec2(a.x - 2, a.y - 2), ImVec2(a.x + cw + 2, a.y + ch + 2), error_color(env), 0.0f, 0, 2.5f);
  }
  // Hover and click.
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (ImGui::IsWindowHovered() && m.x >= o.x && m.y >= o.y && m.x < o.x + g.cols * cw && m.y < o.y + g.rows * ch) {
    const int r = int((m.y - o.y) / ch), c = int((m.x - o.x) / cw);
    const FragmentCell& cell = g.at(r, c);
    outline_thread(dl, g, cell.thread, o, cs, IM_COL32(255, 255, 255, 230), 1.5f);
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(fragment_cell_text(g, r, c).c_str());
    const std::string v = cell_value(app, g, cell);
    if (!v.empty()) mono_text(env, "%s", v.c_str());
    ImGui::TextDisabled("outlined: everything this thread holds; click to select");
    ImGui::EndTooltip();
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && cell.thread >= 0) {
      if (g.threads > 32 || g.from_kernel) app.select_warp(uint16_t(cell.warp));
      app.select_cell(r, c, cell.lane);
    }
  }
  ImGui::EndChild();
}

}  // namespace

void draw_fragments(AppState& app, const ViewEnv& env) {
  draw_controls(app, env);
  std::string error;
  const FragmentGrid* g = cached_fragment_grid(app.view_caches.fragment_grid, app.kernel, app.fragment_view, error);
  if (!g) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(error_color(env)), "%s", error.c_str());
    return;
  }
  // The map's name wraps in a narrow view; its size follows on the same line when it fits.
  ImGui::TextWrapped("%s", g->name.c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("source: %s", g->source.c_str());
  const std::string size = fmt::format("{}x{}, {} thr x {}", g->rows, g->cols, g->threads, g->values_per_thread);
  same_line_if_fits(ImGui::CalcTextSize(size.c_str()).x);
  ImGui::TextDisabled("%s", size.c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%d rows x %d cols; %d threads hold %d values each\nsource: %s", g->rows, g->cols, g->threads,
                      g->values_per_thread, g->source.c_str());
  // The kernel's own mma.sync at the cursor, where the map is one of its operands.
  if (mma_operand_of_map(app.fragment_view) && app.kernel) {
    const RunningMmaSync* m = running_mma(app);
    ImGui::PushStyleColor(ImGuiCol_Text, m ? ImGui::GetColorU32(ImGuiCol_Text) : muted_color(env));
    ImGui::TextWrapped("%s", m ? mma_sync_place_text(*m).c_str()
                               : cached_running_mma_sync(app.view_caches.mma_sync, app.kernel, app.playback.position,
                                                         app.selection.warp).note.c_str());
    ImGui::PopStyleColor();
  }
  const float footer = ImGui::GetTextLineHeightWithSpacing() * 2.2f;
  draw_grid(app, env, *g, footer);
  // What is selected, in words, with the register's value at the cursor.
  if (app.selection.row >= 0 && app.selection.row < g->rows && app.selection.col >= 0 && app.selection.col < g->cols) {
    const FragmentCell& c = g->at(app.selection.row, app.selection.col);
    mono_text(env, "%s", fragment_cell_text(*g, app.selection.row, app.selection.col).c_str());
    const std::string v = cell_value(app, *g, c);
    if (!v.empty()) mono_text(env, "%s at event %u", v.c_str(), app.playback.position);
  } else {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("hover: (thread, register) <-> (row, col); click: select");
    ImGui::PopStyleColor();
  }
}

}  // namespace gs::gui
