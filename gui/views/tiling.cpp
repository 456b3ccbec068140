// The Tiling view: the GEMM as the running kernel cuts it. Left: B (K x N) on top, A (M x K) on
// the left, C (M x N) between them in its CTA tiles; the traced CTA's tile filled, its A row
// panel and B column panel shaded, their K chunks marked and the chunk at the cursor lit. Right:
// that CTA tile, each element coloured by the warp that stored it (the model's record), each
// warp's box outlined, the selected thread's elements marked.
#include <algorithm>

#include <fmt/format.h>

#include "gui/core/colors.hpp"
#include "gui/core/tiling_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

constexpr ImU32 kA = IM_COL32(220, 120, 60, 255), kB = IM_COL32(70, 140, 220, 255);

// A, B and C to one scale, C's tile grid, the panels and the chunk.
void draw_operands(AppState& app, const ViewEnv& env, const TilingData& d, const TilingCursor& c, ImVec2 o, float w,
                   float h) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float s = env.scale, line = ImGui::GetTextLineHeight();
  const ImU32 frame = muted_color(env), text = ImGui::GetColorU32(ImGuiCol_Text);
  // K shown at most as long as C's longer side, so a deep K leaves C room.
  const float kk = float(std::min<uint32_t>(d.k, std::max(d.m, d.n)));
  const float scale = std::min((w - line) / (kk + float(d.n)), (h - 3 * line) / (kk + float(d.m)));
  const float kw = kk * scale, cw = float(d.n) * scale, ch = float(d.m) * scale;
  const ImVec2 c0(o.x + line + kw, o.y + line + kw);  // C's top-left
  const auto k_at = [&](uint32_t k) { return float(k) / float(std::max(1u, d.k)) * kw; };
  // B above C, A left of C.
  dl->AddRect(ImVec2(c0.x, c0.y - kw), ImVec2(c0.x + cw, c0.y), frame);
  dl->AddRect(ImVec2(c0.x - kw, c0.y), ImVec2(c0.x, c0.y + ch), frame);
  dl->AddRect(c0, ImVec2(c0.x + cw, c0.y + ch), frame);
  dl->AddText(ImVec2(c0.x + 2 * s, c0.y - kw - line), kB, fmt::format("B  {}x{}", d.k, d.n).c_str());
  // A's name under it, C's on the line below: A's may be wider than A.
  dl->AddText(ImVec2(o.x, c0.y + ch + 2 * s), kA, fmt::format("A  {}x{}", d.m, d.k).c_str());
  dl->AddText(ImVec2(c0.x + 2 * s, c0.y + ch + 2 * s + line), text, fmt::format("C  {}x{}", d.m, d.n).c_str());
  // C's tile grid, when its lines are apart.
  if (float(d.tile_cols) * scale >= 4 * s)
    for (uint32_t j = 1; j < d.tiles_n; ++j)
      dl->AddLine(ImVec2(c0.x + float(j * d.tile_cols) * scale, c0.y),
                  ImVec2(c0.x + float(j * d.tile_cols) * scale, c0.y + ch), scale_alpha(frame, 0.5f));
  if (float(d.tile_rows) * scale >= 4 * s)
    for (uint32_t i = 1; i < d.tiles_m; ++i)
      dl->AddLine(ImVec2(c0.x, c0.y + float(i * d.tile_rows) * scale),
                  ImVec2(c0.x + cw, c0.y + float(i * d.tile_rows) * scale), scale_alpha(frame, 0.5f));
  if (d.tile == kNone) return;
  const float ty = c0.y + float(d.tile_row0) * scale, tx = c0.x + float(d.tile_col0) * scale;
  const float th = float(std::min(d.tile_rows, d.m - d.tile_row0)) * scale;
  const float tw = float(std::min(d.tile_cols, d.n - d.tile_col0)) * scale;
  dl->AddRectFilled(ImVec2(tx, ty), ImVec2(tx + std::max(tw, 2 * s), ty + std::max(th, 2 * s)),
                    IM_COL32(240, 200, 60, 230));
  app.drawn["tiling.cta_tile"] = {tx, ty, tw, th};
  // The panels the CTA walks, its K chunks, and the chunk at the cursor.
  dl->AddRectFilled(ImVec2(c0.x - kw, ty), ImVec2(c0.x, ty + std::max(th, 2 * s)), scale_alpha(kA, 0.3f));
  dl->AddRectFilled(ImVec2(tx, c0.y - kw), ImVec2(tx + std::max(tw, 2 * s), c0.y), scale_alpha(kB, 0.3f));
  if (d.chunks > 1 && kw / float(d.chunks) >= 3 * s)
    for (uint32_t i = 1; i < d.chunks; ++i) {
      const float x = c0.x - kw + k_at(i * d.k_step), y = c0.y - kw + k_at(i * d.k_step);
      dl->AddLine(ImVec2(x, ty), ImVec2(x, ty + th), scale_alpha(kA, 0.7f));
      dl->AddLine(ImVec2(tx, y), ImVec2(tx + tw, y), scale_alpha(kB, 0.7f));
    }
  if (c.chunk == kNone) return;
  const float k0 = k_at(c.chunk * d.k_step), k1 = std::max(k0 + 2 * s, k_at(std::min(d.k, (c.chunk + 1) * d.k_step)));
  dl->AddRectFilled(ImVec2(c0.x - kw + k0, ty), ImVec2(c0.x - kw + k1, ty + std::max(th, 2 * s)), kA);
  dl->AddRectFilled(ImVec2(tx, c0.y - kw + k0), ImVec2(tx + std::max(tw, 2 * s), c0.y - kw + k1), kB);
  app.drawn["tiling.a_chunk"] = {c0.x - kw + k0, ty, k1 - k0, th};
}

// The CTA tile, element by element, in runs of one warp along each row.
void draw_cta_tile(AppState& app, const ViewEnv& env, const TilingData& d, const TilingCursor& c, ImVec2 o, float w,
                   float h) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float s = env.scale, line = ImGui::GetTextLineHeight();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  dl->AddText(o, text,
              fmt::format("CTA tile {}x{} at ({}, {})", d.tile_rows, d.tile_cols, d.tile_row0, d.tile_col0).c_str());
  const float cell = std::min(w / float(d.tile_cols), (h - line * 1.2f) / float(d.tile_rows));
  const ImVec2 t0(o.x, o.y + line * 1.2f);
  app.drawn["tiling.tile"] = {t0.x, t0.y, cell, cell};
  if (d.owner_warp.empty()) return;
  for (uint32_t r = 0; r < d.tile_rows; ++r)
    for (uint32_t col = 0; col < d.tile_cols;) {
      const int16_t o_w = d.owner_warp[size_t(r) * d.tile_cols + col];
      uint32_t end = col + 1;
      while (end < d.tile_cols && d.owner_warp[size_t(r) * d.tile_cols + end] == o_w) ++end;
      if (o_w >= 0)
        dl->AddRectFilled(ImVec2(t0.x + cell * float(col), t0.y + cell * float(r)),
                          ImVec2(t0.x + cell * float(end), t0.y + cell * float(r + 1)),
                          warp_color(uint32_t(o_w), 0.85f));
      col = end;
    }
  for (const TilingWarp& wt : d.warps) {
    const ImVec2 a(t0.x + cell * float(wt.col0), t0.y + cell * float(wt.row0));
    const ImVec2 b(a.x + cell * float(wt.cols), a.y + cell * float(wt.rows));
    if (wt.solid()) dl->AddRect(a, b, IM_COL32(20, 20, 20, 200), 0, 0, 1.5f * s);
    const std::string label = fmt::format("w{}", wt.warp);
    if (wt.solid() && b.x - a.x > ImGui::CalcTextSize(label.c_str()).x + 4 * s && b.y - a.y > line)
      dl->AddText(ImVec2(a.x + 2 * s, a.y + 1 * s), IM_COL32(20, 20, 20, 255), label.c_str());
  }
  const float m = std::max(1.0f, cell * 0.2f);
  for (const auto& [r, col] : c.thread_cells)
    dl->AddRectFilled(ImVec2(t0.x + cell * float(col) + m, t0.y + cell * float(r) + m),
                      ImVec2(t0.x + cell * float(col + 1) - m, t0.y + cell * float(r + 1) - m),
                      IM_COL32(255, 255, 255, 255));
}

}  // namespace

void draw_tiling(AppState& app, const ViewEnv& env) {
  if (!app.kernel) {
    ImGui::TextDisabled("no kernel open");
    return;
  }
  const TilingData& d = tiling_data(app.kernel);
  if (!d.available) {
    ImGui::TextWrapped("%s", d.note.c_str());
    return;
  }
  const TilingCursor c = tiling_cursor(app, d);
  ImGui::Text("%ux%ux%u in %ux%u tiles of %ux%u, K in chunks of %u", d.m, d.n, d.k, d.tiles_m, d.tiles_n, d.tile_rows,
              d.tile_cols, d.k_step);
  ImGui::TextUnformatted(c.k_text.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
  ImGui::TextWrapped("%s; white: warp %u lane %u's %zu element%s", d.owners_note.c_str(), c.warp, c.lane,
                     c.thread_cells.size(), c.thread_cells.size() == 1 ? "" : "s");
  ImGui::PopStyleColor();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (avail.x < 40 || avail.y < 40) return;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##tiling", avail);
  // Side by side in a wide window, one above the other in a tall one.
  const bool wide = avail.x > avail.y;
  const float gap = 8 * env.scale;
  const ImVec2 size = wide ? ImVec2((avail.x - gap) / 2, avail.y) : ImVec2(avail.x, (avail.y - gap) / 2);
  draw_operands(app, env, d, c, o, size.x, size.y);
  const ImVec2 o2 = wide ? ImVec2(o.x + size.x + gap, o.y) : ImVec2(o.x, o.y + size.y + gap);
  draw_cta_tile(app, env, d, c, o2, size.x, size.y);
}

}  // namespace gs::gui
