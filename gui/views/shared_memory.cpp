// The shared-memory view: the allocation map of the kernel's shared window, the 32 banks of
// the current access (which lanes each wavefront serves), and the swizzle grid of the
// selected tile. Everything drawn comes from gui/core/shared_memory_data (engine/layout underneath).
//
// Cross-links: clicking an allocation picks the tile of the swizzle grid (and selects a
// barrier); clicking a swizzle cell or a lane sets selection.smem_addr, whose bank the bank
// grid marks; the lanes of the current access are marked in the swizzle grid.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "engine/layout/banks.hpp"
#include "gui/core/shared_memory_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

ImU32 use_color(ir::SmemUse u, float alpha = 1.0f) {
  switch (u) {
    case ir::SmemUse::tile: return ImGui::GetColorU32(ImVec4(0.30f, 0.52f, 0.85f, alpha));
    case ir::SmemUse::mbarrier: return ImGui::GetColorU32(ImVec4(0.90f, 0.55f, 0.20f, alpha));
    case ir::SmemUse::staging: return ImGui::GetColorU32(ImVec4(0.35f, 0.70f, 0.40f, alpha));
    case ir::SmemUse::other: break;
  }
  return ImGui::GetColorU32(ImVec4(0.55f, 0.55f, 0.60f, alpha));
}

// Black or white, whichever reads better on the fill.
ImU32 text_on(ImU32 fill) {
  const ImVec4 c = ImGui::ColorConvertU32ToFloat4(fill);
  return 0.299f * c.x + 0.587f * c.y + 0.114f * c.z > 0.55f ? IM_COL32(20, 20, 24, 255) : IM_COL32(245, 245, 250, 255);
}

// Text centred in a box when it fits.
void centred_text(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, const std::string& s) {
  const ImVec2 sz = ImGui::CalcTextSize(s.c_str());
  if (sz.x > b.x - a.x - 2.0f || sz.y > b.y - a.y + 2.0f) return;
  dl->AddText(ImVec2(a.x + (b.x - a.x - sz.x) * 0.5f, a.y + (b.y - a.y - sz.y) * 0.5f), col, s.c_str());
}

void legend_swatch(ImU32 col, const char* label, bool outline = false) {
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (outline) dl->AddRect(ImVec2(p.x, p.y + 2), ImVec2(p.x + h - 4, p.y + h - 2), col, 0.0f, 0, 2.0f);
  else dl->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + h - 4, p.y + h - 2), col);
  ImGui::Dummy(ImVec2(h - 2, h));
  ImGui::SameLine(0, 4);
  ImGui::TextUnformatted(label);
  ImGui::SameLine(0, 12);
}

// The allocation bar: widths proportional to bytes, but never thinner than a clickable sliver.
void draw_allocation_map(AppState& app, const ViewEnv& env, const std::vector<AllocationBar>& bars) {
  const ir::Kernel& kernel = app.kernel->kernel();
  const uint32_t total = kernel.smem_bytes();
  if (bars.empty()) {
    ImGui::TextDisabled("%s declares no shared memory", kernel.name.c_str());
    return;
  }
  ImGui::TextUnformatted("shared window");
  ImGui::SameLine();
  mono_text(env, "0x%04X..0x%04X  %u B", smem_window_base(), smem_window_base() + total, total);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the kernel's shared window (%zu allocations); the model puts it at 0x%04X, after the 1 KiB\n"
                      "the driver reserves, like the GPU does",
                      bars.size(), smem_window_base());
  const float width = ImGui::GetContentRegionAvail().x, h = 26.0f * env.scale, min_w = 34.0f * env.scale;
  // Proportional widths with a floor; the rest of the width is shared out by bytes.
  std::vector<float> w(bars.size());
  float fixed = 0.0f, scalable = 0.0f;
  for (size_t i = 0; i < bars.size(); ++i) {
    const float prop = width * float(bars[i].bytes) / float(std::max<uint32_t>(total, 1));
    if (prop < min_w) w[i] = min_w, fixed += min_w;
    else w[i] = -prop, scalable += prop;
  }
  const float k = scalable > 0.0f ? std::max(0.0f, width - fixed) / scalable : 0.0f;
  for (float& x : w)
    if (x < 0.0f) x = -x * k;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 start = ImGui::GetCursorScreenPos();
  ImVec2 p = start;
  for (size_t i = 0; i < bars.size(); ++i) {
    const AllocationBar& b = bars[i];
    const ImVec2 a(p.x, p.y), z(p.x + w[i] - 1.0f, p.y + h);
    const ImU32 fill = use_color(b.use, app.smem_view.tile == b.index ? 1.0f : 0.75f);
    dl->AddRectFilled(a, z, fill);
    centred_text(dl, a, z, text_on(fill), b.name);
    if (b.accessed) dl->AddRect(a, z, ok_color(env), 0.0f, 0, 2.5f);
    if (b.tma_destination) dl->AddRect(ImVec2(a.x + 3.5f, a.y + 3.5f), ImVec2(z.x - 3.5f, z.y - 3.5f), warn_color(env), 0.0f, 0, 3.0f);
    if (app.selection.mbar == b.addr || app.smem_view.tile == b.index)
      dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(z.x + 1, z.y + 1), ImGui::GetColorU32(ImGuiCol_Text), 0.0f, 0, 1.5f);
    ImGui::SetCursorScreenPos(a);
    ImGui::PushID(int(i));
    if (ImGui::InvisibleButton("alloc", ImVec2(std::max(1.0f, w[i] - 1.0f), h))) {
      app.smem_view.tile = b.index;
      app.select_smem(b.addr);
      if (b.use == ir::SmemUse::mbarrier) app.select_mbarrier(b.addr);
    }
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::Text("%s  (%s)", b.name.c_str(), smem_use_name(b.use));
      mono_text(env, "offset %u  address 0x%04X..0x%04X  %u B", b.offset, b.addr, b.addr + b.bytes, b.bytes);
      if (b.use == ir::SmemUse::tile) ImGui::Text("swizzle %s, %s", std::string(layout::swizzle_name(b.swizzle)).c_str(),
                                                   b.addr % 1024 == 0 ? "1024-aligned" : "not 1024-aligned");
      if (b.use == ir::SmemUse::mbarrier) ImGui::Text("%u barrier(s) of 8 B", b.bytes / 8);
      if (b.tma_destination) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(warn_color(env)), "the latest TMA transfer writes here");
      if (b.accessed) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(ok_color(env)), "the access in the bank panel reads here");
      ImGui::TextDisabled("click: show its swizzle below");
      ImGui::EndTooltip();
    }
    ImGui::PopID();
    p.x += w[i];
  }
  ImGui::SetCursorScreenPos(start);
  ImGui::Dummy(ImVec2(width, h + 2.0f));
  legend_swatch(use_color(ir::SmemUse::tile), "tile");
  legend_swatch(use_color(ir::SmemUse::mbarrier), "mbarrier");
  legend_swatch(warn_color(env), "TMA dst", true);
  legend_swatch(ok_color(env), "accessed", true);
  ImGui::NewLine();
}

// 32 columns (banks) x one row per wavefront; each lane is drawn in every bank its access
// touches, in the row of the wavefront that serves it.
void draw_bank_grid(AppState& app, const ViewEnv& env, const BankAccess& a) {
  const float label_w = 34.0f * env.scale;
  const float avail = ImGui::GetContentRegionAvail().x - label_w;
  const float cw = std::max(9.0f * env.scale, std::floor(avail / 32.0f));
  const float rh = 20.0f * env.scale;
  const uint32_t rows = std::max<uint32_t>(1, a.wavefronts);
  const uint32_t words = std::max<uint32_t>(1, a.access_bytes / 4);
  const uint32_t sel_bank = app.selection.smem_addr == kNone ? kNone : layout::smem_bank_of(app.selection.smem_addr);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float top = o.y + rh;  // header row with bank numbers
  const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border);
  if (env.mono) ImGui::PushFont(env.mono);
  // Every bank numbered when two digits fit a column with a gap, else every 4th (or 8th).
  const float number_w = ImGui::CalcTextSize("00").x + 4.0f * env.scale;
  const uint32_t every = number_w <= cw ? 1 : number_w <= 4 * cw ? 4 : 8;
  note_fit(app, "smem.bank_numbers", number_w, float(every) * cw);
  for (uint32_t bank = 0; bank < 32; ++bank) {
    const float x = o.x + label_w + bank * cw;
    if (bank == sel_bank)
      dl->AddRectFilled(ImVec2(x, o.y), ImVec2(x + cw, top + rows * rh), ImGui::GetColorU32(ImGuiCol_TextSelectedBg));
    if (bank % every == 0)
      centred_text(dl, ImVec2(x - 4, o.y), ImVec2(x + cw + 4, top), muted_color(env), std::to_string(bank));
  }
  // Cells: which lanes each (wavefront, bank) serves.
  const std::vector<std::vector<uint32_t>> cell = bank_grid_cells(a);
  const uint16_t warp = a.warp == kNoWarp ? 0 : a.warp;
  int hovered = -1;
  for (uint32_t r = 0; r < rows; ++r) {
    const float y = top + r * rh;
    char lbl[16];
    std::snprintf(lbl, sizeof lbl, "wf%u", r);
    dl->AddText(ImVec2(o.x, y + 2), muted_color(env), lbl);
    for (uint32_t bank = 0; bank < 32;) {
      const auto& here = cell[size_t(r) * 32 + bank];
      uint32_t end = bank + 1;  // merge runs of identical lane sets into one box
      while (end < 32 && !here.empty() && cell[size_t(r) * 32 + end] == here) ++end;
      const ImVec2 p0(o.x + label_w + bank * cw, y), p1(o.x + label_w + end * cw, y + rh);
      dl->AddRect(p0, p1, grid);
      if (!here.empty()) {
        const SmemLane& l = a.lanes[here.front()];
        const ImU32 fill = lane_color(warp, l.lane, 0.9f);
        dl->AddRectFilled(ImVec2(p0.x + 1, p0.y + 1), ImVec2(p1.x - 1, p1.y - 1), fill);
        std::string s = std::to_string(l.lane);
        if (here.size() > 1) s += fmt::format("+{}", here.size() - 1);
        centred_text(dl, p0, p1, text_on(fill), s);
        if (l.row >= 0 && !l.reads_meant_data) dl->AddRect(p0, p1, error_color(env), 0.0f, 0, 2.0f);
        if (app.selection.lane == int(l.lane) && (a.warp == kNoWarp || app.selection.warp == a.warp))
          dl->AddRect(p0, p1, ImGui::GetColorU32(ImGuiCol_Text), 0.0f, 0, 2.0f);
        if (ImGui::IsMouseHoveringRect(p0, p1)) hovered = int(here.front());
      }
      bank = end;
    }
  }
  if (env.mono) ImGui::PopFont();
  ImGui::Dummy(ImVec2(label_w + 32 * cw, rh * (rows + 1) + 2));
  if (hovered >= 0) {
    const SmemLane& l = a.lanes[size_t(hovered)];
    ImGui::BeginTooltip();
    mono_text(env, "lane %u  addr 0x%04X  bank %u%s  word %u", l.lane, l.addr, l.bank,
              words > 1 ? fmt::format("..{}", (l.bank + words - 1) % 32).c_str() : "", l.word);
    mono_text(env, "served by wavefront %u", l.wavefront);
    if (l.row >= 0) {
      mono_text(env, "operand row %d, k bytes %d..%d", l.row, 16 * l.chunk, 16 * l.chunk + 15);
      if (l.reads_meant_data) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(ok_color(env)), "reads the bytes it means");
      else ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(error_color(env)), "wrong chunk: the meant bytes are at 0x%04X", l.data_addr);
    }
    ImGui::TextDisabled("click: select this address");
    ImGui::EndTooltip();
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
      app.select_smem(l.addr, int(l.lane));
      if (a.warp != kNoWarp) app.select_warp(a.warp);
    }
  }
}

// Every lane in numbers, when there is room for the table (the grid says the same in colour).
void draw_lane_table(AppState& app, const ViewEnv& env, const BankAccess& a) {
  const float h = ImGui::GetContentRegionAvail().y;
  if (h < 8.0f * ImGui::GetTextLineHeightWithSpacing() || a.lanes.empty()) return;
  const bool rows = a.lanes.front().row >= 0;
  // Columns as wide as their contents, scrolling sideways in a narrow view rather than cutting
  // the numbers.
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("##lanes", rows ? 7 : 5, flags, ImVec2(0, h - 4))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const char* c : {"lane", "address", "bank", "word", "wavefront"}) ImGui::TableSetupColumn(c);
  if (rows) {
    ImGui::TableSetupColumn("row, k bytes");
    ImGui::TableSetupColumn("data");
  }
  ImGui::TableHeadersRow();
  if (env.mono) ImGui::PushFont(env.mono);
  for (const SmemLane& l : a.lanes) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const bool sel = app.selection.smem_addr == l.addr;
    char id[16];
    std::snprintf(id, sizeof id, "%u", l.lane);
    if (ImGui::Selectable(id, sel, ImGuiSelectableFlags_SpanAllColumns)) {
      app.select_smem(l.addr, int(l.lane));
    }
    ImGui::TableNextColumn();
    ImGui::Text("0x%04X", l.addr);
    ImGui::TableNextColumn();
    ImGui::Text("%u", l.bank);
    ImGui::TableNextColumn();
    ImGui::Text("%u", l.word);
    ImGui::TableNextColumn();
    ImGui::Text("%u", l.wavefront);
    if (rows) {
      ImGui::TableNextColumn();
      ImGui::Text("%d, %d..%d", l.row, 16 * l.chunk, 16 * l.chunk + 15);
      ImGui::TableNextColumn();
      if (l.reads_meant_data) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(ok_color(env)), "ok");
      else ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(error_color(env)), "at 0x%04X", l.data_addr);
    }
  }
  if (env.mono) ImGui::PopFont();
  ImGui::EndTable();
}

void draw_bank_panel(AppState& app, const ViewEnv& env, const BankAccess& a) {
  SmemViewOptions& o = app.smem_view;
  ImGui::SetNextItemWidth(190.0f * env.scale);
  if (ImGui::BeginCombo("##pattern", bank_pattern_name(o.pattern))) {
    for (int i = 0; i < int(BankPattern::count_); ++i)
      if (ImGui::Selectable(bank_pattern_name(BankPattern(i)), o.pattern == BankPattern(i))) o.pattern = BankPattern(i);
    ImGui::EndCombo();
  }
  if (a.tensor_read) {
    ImGui::SameLine();
    if (ImGui::RadioButton("A", o.operand == WgmmaOperand::a)) o.operand = WgmmaOperand::a;
    ImGui::SameLine();
    if (ImGui::RadioButton("B", o.operand == WgmmaOperand::b)) o.operand = WgmmaOperand::b;
  }
  if (!a.valid) {
    ImGui::TextWrapped("%s", a.note.c_str());
    return;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
  if (a.tensor_read) ImGui::TextWrapped("Tensor core's read pattern of core-matrix rows: %s", a.title.c_str());
  else ImGui::TextWrapped("%s%s", a.source == "ld/st.shared" ? "ld/st.shared: " : "Pattern: ", a.title.c_str());
  ImGui::PopStyleColor();
  const ImU32 vc = a.conflict_degree <= 1 ? ok_color(env) : a.conflict_degree <= 2 ? warn_color(env) : error_color(env);
  if (env.bold) ImGui::PushFont(env.bold);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(vc), "%s", bank_verdict(a.wavefronts, a.ideal_wavefronts, a.conflict_degree).c_str());
  if (env.bold) ImGui::PopFont();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", a.note.c_str());
  if (a.folded_into != kNone || a.folded_loads > 0) {  // ptxas merged loads: what the wavefronts mean
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", a.note.c_str());
    ImGui::PopStyleColor();
  }
  draw_bank_grid(app, env, a);
  if (a.tensor_read) {
    if (env.mono) ImGui::PushFont(env.mono);
    ImGui::TextWrapped("%s", a.descriptor.c_str());
    if (env.mono) ImGui::PopFont();
    if (a.mismatched_lanes == 0) {
      ImGui::PushStyleColor(ImGuiCol_Text, ok_color(env));
      ImGui::TextWrapped("descriptor %s = TMA %s: every row reads its own chunk",
                         std::string(layout::swizzle_name(a.descriptor_swizzle)).c_str(),
                         std::string(layout::swizzle_name(a.data_swizzle)).c_str());
      ImGui::PopStyleColor();
    } else {
      ImGui::PushStyleColor(ImGuiCol_Text, error_color(env));
      ImGui::TextWrapped("descriptor says %s, the TMA wrote %s: %u of %zu lanes read the wrong 16-byte chunk (red). "
                         "Reading the data where it really is would cost %u wavefronts (%u-way).",
                         std::string(layout::swizzle_name(a.descriptor_swizzle)).c_str(),
                         std::string(layout::swizzle_name(a.data_swizzle)).c_str(), a.mismatched_lanes, a.lanes.size(),
                         a.data_wavefronts, a.data_conflict_degree);
      ImGui::PopStyleColor();
    }
  }
  if (app.selection.smem_addr != kNone)
    mono_text(env, "selected 0x%04X -> bank %u", app.selection.smem_addr, layout::smem_bank_of(app.selection.smem_addr));
  draw_lane_table(app, env, a);
}

void draw_swizzle_panel(AppState& app, const ViewEnv& env, const Snapshot& s, const BankAccess& access) {
  const LoadedKernel& k = *app.kernel;
  SmemViewOptions& o = app.smem_view;
  const SwizzleGrid g = swizzle_grid_for(k, s, o, access);
  const uint32_t tile = g.tile;
  const layout::Swizzle mode = g.mode;
  static const char* kModes[] = {"none", "32B", "64B", "128B"};
  const std::string auto_label = fmt::format("tile's ({})", tile == kNone ? "128B" : kModes[int(mode)]);
  ImGui::SetNextItemWidth(130.0f * env.scale);
  if (ImGui::BeginCombo("##swz", o.swizzle < 0 ? auto_label.c_str() : kModes[o.swizzle])) {
    if (ImGui::Selectable(auto_label.c_str(), o.swizzle < 0)) o.swizzle = -1;
    for (int i = 0; i < 4; ++i)
      if (ImGui::Selectable(kModes[i], o.swizzle == i)) o.swizzle = i;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::TextDisabled("%s rows %u..%u", tile == kNone ? "(no tile)" : k.kernel().smem[tile].name.c_str(), g.first_row,
                      g.first_row + g.rows - 1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("one repeat of the pattern: %u rows of %u B at 0x%04X", g.rows, g.row_bytes, g.base);
  const float label_w = 44.0f * env.scale;
  const float cw = std::max(24.0f * env.scale, std::floor((ImGui::GetContentRegionAvail().x - label_w) / float(g.chunks)));
  const float rh = std::min(cw * 0.6f, 22.0f * env.scale);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o0 = ImGui::GetCursorScreenPos();
  const float top = o0.y + ImGui::GetTextLineHeight() + 4;
  if (env.mono) ImGui::PushFont(env.mono);
  for (uint32_t c = 0; c < g.chunks; ++c)
    centred_text(dl, ImVec2(o0.x + label_w + c * cw, o0.y), ImVec2(o0.x + label_w + (c + 1) * cw, top), muted_color(env),
                 cw >= 60 ? fmt::format("b{}-{}", (4 * c) % 32, (4 * c) % 32 + 3) : std::to_string(c));
  const SwizzleCell* hovered = nullptr;
  for (const SwizzleCell& cell : g.cells) {
    const float y = top + (cell.row - g.first_row) * rh;
    if (cell.logical_chunk == 0) dl->AddText(ImVec2(o0.x, y + (rh - ImGui::GetTextLineHeight()) * 0.5f), muted_color(env), fmt::format("r{}", cell.row).c_str());
    const ImVec2 p0(o0.x + label_w + cell.physical_chunk * cw, y), p1(p0.x + cw - 2, y + rh - 2);
    // Colour by logical chunk: the XOR shows as the diagonal pattern of colours.
    const ImU32 fill = warp_color(cell.logical_chunk, 0.85f);
    dl->AddRectFilled(p0, p1, fill);
    centred_text(dl, p0, p1, text_on(fill), fmt::format("c{}", cell.logical_chunk));
    const bool selected = app.selection.smem_addr != kNone && app.selection.smem_addr >= cell.physical_addr &&
                          app.selection.smem_addr < cell.physical_addr + 16;
    if (selected) dl->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p1.x + 1, p1.y + 1), ImGui::GetColorU32(ImGuiCol_Text), 0.0f, 0, 2.0f);
    // The current access's lanes that land in this chunk.
    if (access.source != "pattern")
      for (const SmemLane& l : access.lanes)
        if (l.addr >= cell.physical_addr && l.addr < cell.physical_addr + 16) {
          dl->AddCircleFilled(ImVec2(p1.x - 5, p0.y + 5), 3.0f * env.scale, ok_color(env));
          break;
        }
    if (ImGui::IsMouseHoveringRect(p0, p1)) hovered = &cell;
  }
  if (env.mono) ImGui::PopFont();
  ImGui::Dummy(ImVec2(label_w + g.chunks * cw, top - o0.y + g.rows * rh + 2));
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("column: physical 16-byte chunk (4 banks); colour and label: logical chunk; dot: read by the access");
  ImGui::PopStyleColor();
  if (hovered) {
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(swizzle_cell_text(g, *hovered).c_str());
    auto bits = [](uint32_t v) {
      std::string s;
      for (int b = 9; b >= 4; --b) s += (v >> b & 1) ? '1' : '0';
      return s;
    };
    mono_text(env, "logical  0x%04X  bits[9:4] %s", hovered->logical_addr, bits(hovered->logical_addr).c_str());
    mono_text(env, "physical 0x%04X  bits[9:4] %s", hovered->physical_addr, bits(hovered->physical_addr).c_str());
    mono_text(env, "banks %u..%u", layout::smem_bank_of(hovered->physical_addr), layout::smem_bank_of(hovered->physical_addr) + 3);
    ImGui::EndTooltip();
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) app.select_smem(hovered->physical_addr);
  }
}

}  // namespace

void draw_shared_memory(AppState& app, const ViewEnv& env) {
  const Snapshot* s = app.snapshot();
  if (!app.kernel || !s) {
    ImGui::TextDisabled("no kernel loaded");
    return;
  }
  const BankAccess access = current_access(*app.kernel, *s, app.smem_view);
  std::vector<uint32_t> addrs;
  if (access.source != "pattern")
    for (const SmemLane& l : access.lanes) addrs.push_back(l.addr);
  draw_allocation_map(app, env, allocation_map(*app.kernel, *s, addrs));
  ImGui::Separator();
  const bool wide = ImGui::GetContentRegionAvail().x >= 1000.0f * env.scale;
  if (wide) {
    // Side by side when there is room: banks on the left, swizzle on the right.
    if (ImGui::BeginTable("##smem", 2, ImGuiTableFlags_BordersInnerV)) {
      ImGui::TableSetupColumn("banks", ImGuiTableColumnFlags_WidthStretch, 0.62f);
      ImGui::TableSetupColumn("swizzle", ImGuiTableColumnFlags_WidthStretch, 0.38f);
      ImGui::TableNextColumn();
      draw_bank_panel(app, env, access);
      ImGui::TableNextColumn();
      draw_swizzle_panel(app, env, *s, access);
      ImGui::EndTable();
    }
    return;
  }
  if (ImGui::BeginTabBar("##smem_tabs")) {
    if (ImGui::BeginTabItem("Banks")) {
      draw_bank_panel(app, env, access);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Swizzle")) {
      draw_swizzle_panel(app, env, *s, access);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
}

}  // namespace gs::gui
