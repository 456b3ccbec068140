#include "gui/core/svg_picture.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gs::gui {

namespace {

// The colours of the light theme's text (gui/app/theme.cpp's light text and muted text).
constexpr Rgb kInk{0x14, 0x14, 0x18};
constexpr Rgb kMuted{0x6e, 0x6e, 0x78};
constexpr Rgb kPaper{0xff, 0xff, 0xff};
constexpr Rgb kGridLine{0xc8, 0xc8, 0xd0};
const Rgb kWrong = error_rgb(false);  // as the light theme's error_color

// Dark text on a light fill, light text on a dark one: the views' text_on() rule.
Rgb text_on(const Rgb& fill) {
  return 0.299f * fill[0] + 0.587f * fill[1] + 0.114f * fill[2] > 0.55f * 255.0f ? kInk : Rgb{0xf5, 0xf5, 0xfa};
}

constexpr double kMargin = 12, kCaption = 16, kSmall = 10;

}  // namespace

Drawing fragment_drawing(const FragmentGrid& g, bool color_by_thread) {
  Drawing pic;
  // Two lines of label per cell ("t127" over "v63") as the view draws them when there is room.
  const double cw = 34, ch = 26, label = 30;
  const double top = kMargin + 3 * kCaption + 4;
  const double ox = kMargin + label, oy = top + kCaption;
  const std::string size = fmt::format("{}x{} ({} x {}), {} threads x {} values; colour: {}", g.rows, g.cols, g.row_label,
                                       g.col_label, g.threads, g.values_per_thread,
                                       color_by_thread ? "thread (lighter = higher lane)" : "warp");
  const std::string source = "source: " + g.source;
  pic.text(kMargin, kMargin + 12, g.name, kInk, 13);
  pic.text(kMargin, kMargin + kCaption + 12, size, kMuted, kSmall);
  pic.text(kMargin, kMargin + 2 * kCaption + 12, source, kMuted, kSmall);
  // Wide enough for the captions too (a monospace glyph is about 0.6 of the font size).
  const double caption_w = 0.62 * std::max(13.0 * double(g.name.size()), kSmall * double(std::max(size.size(), source.size())));
  auto fill_of = [&](const FragmentCell& c) {
    return color_by_thread ? lane_rgb(uint32_t(c.warp), uint32_t(c.lane)) : warp_rgb(uint32_t(c.warp));
  };
  for (int r = 0; r < g.rows; ++r)
    for (int c = 0; c < g.cols; ++c) {
      const FragmentCell& cell = g.at(r, c);
      const double x = ox + c * cw, y = oy + r * ch;
      if (cell.thread < 0) {
        pic.fill(x, y, cw, ch, kMuted, fmt::format("class=\"cell\" data-row=\"{}\" data-col=\"{}\"", r, c));
        continue;
      }
      // A gap (the paper) only where the owner changes, so one thread's elements read as a block.
      const bool right = c + 1 < g.cols && g.at(r, c + 1).thread != cell.thread;
      const bool below = r + 1 < g.rows && g.at(r + 1, c).thread != cell.thread;
      const Rgb fill = fill_of(cell);
      pic.fill(x, y, cw - (right ? 1 : 0), ch - (below ? 1 : 0), fill,
               fmt::format("class=\"cell\" data-row=\"{}\" data-col=\"{}\" data-thread=\"{}\" data-value=\"{}\"", r, c,
                           cell.thread, cell.value));
      const std::string who = g.threads > 32 ? fmt::format("t{}", cell.thread) : fmt::format("l{}", cell.lane);
      pic.text(x + 2, y + 11, who, text_on(fill), kSmall);
      pic.text(x + 2, y + 23, fmt::format("v{}", cell.value), text_on(fill), kSmall);
    }
  // Heavier lines every 8 rows and columns: the tile's natural blocks (core matrices, n8 blocks).
  for (int c = 0; c <= g.cols; c += 8) pic.line(ox + c * cw, oy, ox + c * cw, oy + g.rows * ch, kPaper, 2);
  for (int r = 0; r <= g.rows; r += 8) pic.line(ox, oy + r * ch, ox + g.cols * cw, oy + r * ch, kPaper, 2);
  for (int c = 0; c < g.cols; c += 8) pic.text(ox + c * cw + 1, oy - 4, std::to_string(c), kMuted, kSmall);
  for (int r = 0; r < g.rows; r += 8) pic.text(kMargin, oy + r * ch + 11, std::to_string(r), kMuted, kSmall);
  const double width = std::max(ox + g.cols * cw, caption_w + kMargin) + kMargin;
  pic.width = width;
  pic.height = oy + g.rows * ch + kMargin;
  pic.title = g.name;
  return pic;
}

Drawing swizzle_drawing(const SwizzleGrid& g) {
  Drawing pic;
  const double cw = 60, rh = 24, label = 44;
  const std::string mode(layout::swizzle_name(g.mode));
  const std::string title = fmt::format("swizzle {}: {} rows of {} B from 0x{:04X}", mode, g.rows, g.row_bytes, g.base);
  pic.text(kMargin, kMargin + 12, title, kInk, 13);
  const double ox = kMargin + label, head = kMargin + kCaption + 4, oy = head + kCaption;
  // Column headers: the four banks each physical 16-byte chunk lies in.
  for (uint32_t c = 0; c < g.chunks; ++c)
    pic.centred(ox + c * cw, head, cw, kCaption, fmt::format("b{}-{}", (4 * c) % 32, (4 * c) % 32 + 3), kMuted, kSmall);
  for (const SwizzleCell& cell : g.cells) {
    const double y = oy + (cell.row - g.first_row) * rh;
    if (cell.logical_chunk == 0) pic.text(kMargin, y + rh / 2 + 3.5, fmt::format("r{}", cell.row), kMuted, kSmall);
    const double x = ox + cell.physical_chunk * cw;
    // Colour by logical chunk, as on screen: the XOR shows as the diagonal pattern of colours.
    const Rgb fill = warp_rgb(cell.logical_chunk);
    pic.fill(x, y, cw - 2, rh - 2, fill,
             fmt::format("class=\"cell\" data-row=\"{}\" data-chunk=\"{}\" data-physical-chunk=\"{}\"", cell.row,
                         cell.logical_chunk, cell.physical_chunk),
             0.85);
    pic.centred(x, y, cw - 2, rh - 2, fmt::format("c{}", cell.logical_chunk), text_on(fill), kSmall);
  }
  const double bottom = oy + g.rows * rh + 4;
  pic.text(kMargin, bottom + 10,
           "column: physical 16-byte chunk (4 banks); colour and label: logical chunk", kMuted, kSmall);
  pic.width = std::max(ox + g.chunks * cw + kMargin, 480.0);
  pic.height = bottom + 10 + kMargin;
  pic.title = title;
  return pic;
}

Drawing bank_drawing(const BankAccess& a) {
  Drawing pic;
  const double cw = 28, rh = 22, label = 34;
  const uint32_t rows = std::max<uint32_t>(1, a.wavefronts);
  pic.text(kMargin, kMargin + 12, a.title, kInk, 13);
  if (!a.note.empty()) pic.text(kMargin, kMargin + kCaption + 12, a.note, kMuted, kSmall);
  const double ox = kMargin + label, head = kMargin + 2 * kCaption + 4, oy = head + rh;
  for (uint32_t bank = 0; bank < 32; ++bank) pic.centred(ox + bank * cw, head, cw, rh, std::to_string(bank), kMuted, kSmall);
  const std::vector<std::vector<uint32_t>> cell = bank_grid_cells(a);
  const uint16_t warp = a.warp == kNoWarp ? 0 : a.warp;
  for (uint32_t r = 0; r < rows; ++r) {
    const double y = oy + r * rh;
    pic.text(kMargin, y + rh / 2 + 3.5, fmt::format("wf{}", r), kMuted, kSmall);
    for (uint32_t bank = 0; bank < 32;) {
      const auto& here = cell[size_t(r) * 32 + bank];
      uint32_t end = bank + 1;  // runs of the same lanes are one box, as on screen
      while (end < 32 && !here.empty() && cell[size_t(r) * 32 + end] == here) ++end;
      const double x = ox + bank * cw, w = (end - bank) * cw;
      pic.outline(x, y, w, rh, kGridLine);
      if (!here.empty()) {
        const SmemLane& l = a.lanes[here.front()];
        const Rgb fill = lane_rgb(warp, l.lane);
        pic.fill(x + 1, y + 1, w - 2, rh - 2, fill,
                 fmt::format("class=\"cell\" data-wavefront=\"{}\" data-bank=\"{}\" data-lane=\"{}\"", r, bank, l.lane),
                 0.9);
        std::string s = std::to_string(l.lane);
        if (here.size() > 1) s += fmt::format("+{}", here.size() - 1);
        pic.centred(x, y, w, rh, s, text_on(fill), kSmall);
        if (l.row >= 0 && !l.reads_meant_data) pic.outline(x, y, w, rh, kWrong, 2);
      }
      bank = end;
    }
  }
  const double bottom = oy + rows * rh + 4;
  pic.text(kMargin, bottom + 12, bank_verdict(a.wavefronts, a.ideal_wavefronts, a.conflict_degree), kInk, 12);
  pic.width = ox + 32 * cw + kMargin;
  pic.height = bottom + 12 + kMargin;
  pic.title = a.title;
  return pic;
}

Drawing tmem_drawing(const TmemHistory& h, const TmemState& st, std::string_view what) {
  Drawing pic;
  constexpr uint32_t blocks = kTmemColumns / kTmemColumnBlock;
  const double cw = 12, ch = 22, label = 96;
  const std::string title = fmt::format("tensor memory of rank {}: {}", h.rank, what);
  pic.text(kMargin, kMargin + 12, title, kInk, 13);
  pic.text(kMargin, kMargin + kCaption + 12,
           fmt::format("{} of 512 columns allocated (peak {}); MMAs issued {}, in flight {}; commits arrived {} of {}",
                       st.allocated_columns, h.peak_columns, st.mmas_issued, st.mmas_in_flight, st.commits_arrived,
                       h.commits.size()),
           kMuted, kSmall);
  const double ox = kMargin + label, oy = kMargin + 2 * kCaption + 8;
  for (uint32_t q = 0; q < 4; ++q) {
    const double y = oy + q * ch;
    const bool wrong = !st.quarters[q].wrong_readers.empty();
    pic.text(kMargin, y + ch / 2 + 3.5, tmem_quarter_lanes_text(st.quarters[q]), wrong ? kWrong : kInk, kSmall);
    for (uint32_t b = 0; b < blocks; ++b) {
      const TmemCellState state = st.cell(q, b);
      pic.fill(ox + b * cw, y + 1, cw - 1, ch - 2, tmem_cell_rgb(state, false),
               fmt::format("class=\"cell\" data-quarter=\"{}\" data-block=\"{}\" data-state=\"{}\"", q, b,
                           tmem_cell_state_name(state)));
    }
  }
  const double grid_w = blocks * cw, bottom = oy + 4 * ch;
  for (uint32_t c = 0; c <= kTmemColumns; c += 128) {
    const double x = ox + grid_w * c / kTmemColumns;
    pic.line(x, oy, x, bottom + 4, kMuted, 1);
    if (c < kTmemColumns) pic.text(x + 2, bottom + 14, fmt::format("col {}", c), kMuted, kSmall);
  }
  for (const TmemAllocation& a : h.allocations)
    if (a.live_at(st.position))
      pic.outline(ox + grid_w * a.column / kTmemColumns, oy, grid_w * a.columns / kTmemColumns, 4 * ch, kInk, 1.5);
  // Who read each quarter: the op traits' rule gives warp w the quarter w % 4 (facts §9.3).
  double y = bottom + 34;
  for (uint32_t q = 0; q < 4; ++q) {
    const TmemQuarter& tq = st.quarters[q];
    const bool wrong = !tq.wrong_readers.empty();
    pic.text(kMargin, y,
             fmt::format("{} (warps w with w % 4 = {}): read by {}{}", tmem_quarter_lanes_text(tq), q,
                         tq.readers.empty() ? "nobody" : tmem_warps_text(tq.readers),
                         wrong ? "; NOT ITS QUARTER: " + tmem_warps_text(tq.wrong_readers) : ""),
             wrong ? kWrong : kMuted, kSmall);
    y += kCaption;
  }
  // The legend: a square per state.
  double x = kMargin;
  y += 4;
  for (TmemCellState c : {TmemCellState::free, TmemCellState::allocated, TmemCellState::accumulating,
                          TmemCellState::complete, TmemCellState::read}) {
    pic.fill(x, y, 12, 12, tmem_cell_rgb(c, false));
    const std::string name = tmem_cell_state_name(c);
    pic.text(x + 16, y + 10, name, kInk, kSmall);
    x += 16 + 6.2 * double(name.size()) + 18;
  }
  pic.width = std::max(ox + grid_w, 0.62 * 13 * double(title.size()) + kMargin) + kMargin;
  pic.height = y + 12 + kMargin;
  pic.title = title;
  return pic;
}

std::string fragment_svg(const FragmentGrid& g, bool color_by_thread) { return to_svg(fragment_drawing(g, color_by_thread)); }
std::string swizzle_svg(const SwizzleGrid& g) { return to_svg(swizzle_drawing(g)); }
std::string bank_svg(const BankAccess& a) { return to_svg(bank_drawing(a)); }

Drawing tiling_drawing(const TilingData& d, const TilingCursor& c, std::string_view what) {
  Drawing pic;
  pic.text(kMargin, kMargin + 12, fmt::format("CTA tile {}x{} at ({}, {}): {}", d.tile_rows, d.tile_cols, d.tile_row0,
                                              d.tile_col0, what),
           kInk, 13);
  pic.text(kMargin, kMargin + kCaption + 12, fmt::format("{}; {}", c.k_text, d.owners_note), kMuted, kSmall);
  // The K chunks of the panels: one box each, the cursor's filled.
  const double top = kMargin + 2 * kCaption + 8, box = 16;
  const double chunk_w = d.chunks ? std::max(4.0, std::min(24.0, 512.0 / d.chunks)) : 0;
  pic.text(kMargin, top + 12, fmt::format("K chunks of {}:", d.k_step), kInk, kSmall);
  const double cx = kMargin + 110;
  for (uint32_t i = 0; i < d.chunks; ++i) {
    const Rgb panel{0xdc, 0x78, 0x3c};
    if (i == c.chunk) pic.fill(cx + chunk_w * i, top, chunk_w, box, panel, "class=\"chunk current\"");
    pic.outline(cx + chunk_w * i, top, chunk_w, box, kGridLine);
  }
  const double cell = d.tile_cols ? std::max(1.0, std::min(8.0, 768.0 / std::max(d.tile_cols, d.tile_rows))) : 1;
  const double ox = kMargin, oy = top + box + 12;
  for (uint32_t r = 0; r < d.tile_rows && !d.owner_warp.empty(); ++r)
    for (uint32_t col = 0; col < d.tile_cols;) {
      const int16_t w = d.owner_warp[size_t(r) * d.tile_cols + col];
      uint32_t end = col + 1;
      while (end < d.tile_cols && d.owner_warp[size_t(r) * d.tile_cols + end] == w) ++end;
      if (w >= 0)
        pic.fill(ox + cell * col, oy + cell * r, cell * (end - col), cell, warp_rgb(uint32_t(w)),
                 fmt::format("class=\"cell\" data-row=\"{}\" data-col=\"{}\" data-cols=\"{}\" data-warp=\"{}\"", r, col,
                             end - col, w));
      col = end;
    }
  for (const TilingWarp& w : d.warps)
    if (w.solid()) {
      pic.outline(ox + cell * w.col0, oy + cell * w.row0, cell * w.cols, cell * w.rows, kInk, 1.5);
      pic.text(ox + cell * w.col0 + 3, oy + cell * w.row0 + 11, fmt::format("w{}", w.warp), kInk, kSmall);
    }
  for (const auto& [r, col] : c.thread_cells)
    pic.fill(ox + cell * col + cell * 0.2, oy + cell * r + cell * 0.2, cell * 0.6, cell * 0.6, kPaper,
             fmt::format("class=\"thread\" data-row=\"{}\" data-col=\"{}\"", r, col));
  pic.width = std::max(ox + cell * d.tile_cols, cx + chunk_w * d.chunks) + kMargin;
  pic.height = oy + cell * d.tile_rows + kMargin;
  pic.title = "Tiling: " + std::string(what);
  return pic;
}

}  // namespace gs::gui
