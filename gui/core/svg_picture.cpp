#include "gui/core/svg_picture.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

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
  // Who holds each accumulator the MMAs started (the view's bars: tmem_data, TmemAccumulatorState).
  double y = bottom + 34;
  for (uint32_t i = 0; i < h.accumulators.size() && i < st.accumulators.size(); ++i) {
    const TmemAccumulator& a = h.accumulators[i];
    const TmemAccumulatorState& as = st.accumulators[i];
    const double x0 = ox + grid_w * a.column / kTmemColumns, w = grid_w * a.columns / kTmemColumns;
    pic.fill(x0 + 1, bottom + 20, w - 2, 16, tmem_owner_rgb(as.owner, false),
             fmt::format("class=\"accumulator\" data-index=\"{}\" data-owner=\"{}\"", i, tmem_owner_name(as.owner)));
    pic.text(x0 + 4, bottom + 32, fmt::format("acc {}: {}", i, tmem_owner_name(as.owner)), kInk, kSmall);
  }
  if (!h.accumulators.empty()) {
    y += 22;
    for (const TmemAccumulatorState& as : st.accumulators) {
      pic.text(kMargin, y, as.text, kMuted, kSmall);
      y += kCaption;
    }
  }
  // Who read each quarter: the op traits' rule gives warp w the quarter w % 4 (facts §9.3).
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

namespace gs::gui {

namespace {

// The GPU view's fills (gui/views/gpu.cpp): L2, HBM, shared memory / L1.
constexpr Rgb kL2{90, 140, 200}, kHbm{160, 110, 190}, kSmem{80, 160, 120};
constexpr double kGlyph = 0.62;  // a monospace glyph's width over its em size

// `text` in lines of at most `chars` characters, broken at spaces (a longer word has a line of its own).
std::vector<std::string> wrapped(std::string_view text, size_t chars) {
  std::vector<std::string> lines(1);
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = std::min(text.find(' ', at), text.size());
    const std::string_view word = text.substr(at, end - at);
    if (!lines.back().empty() && lines.back().size() + 1 + word.size() > chars) lines.emplace_back();
    if (!lines.back().empty()) lines.back() += ' ';
    lines.back() += word;
    at = end + 1;
  }
  return lines;
}

// Writes `text` wrapped to `width` units from baseline y; returns the baseline after its last line.
double paragraph(Drawing& pic, double x, double y, double width, std::string_view text, const Rgb& c, double size) {
  for (const std::string& line : wrapped(text, size_t(std::max(8.0, width / (kGlyph * size))))) {
    pic.text(x, y, line, c, size);
    y += size * 1.4;
  }
  return y;
}

// A rectangle filled and outlined, carrying `attrs`.
void box(Drawing& pic, double x, double y, double w, double h, std::optional<Rgb> fill, std::optional<Rgb> stroke,
         std::string attrs, double stroke_width = 1.0) {
  Drawing::Rect r{x, y, w, h};
  r.fill = fill;
  r.stroke = stroke;
  r.stroke_width = stroke_width;
  r.attrs = std::move(attrs);
  pic.shapes.emplace_back(std::move(r));
}

}  // namespace

Drawing gpu_drawing(const GpuData& d, std::string_view what) {
  Drawing pic;
  const std::string title = fmt::format("{}: {} SMs in {} GPCs{}", d.machine, d.sms, d.gpcs,
                                        d.confirmed ? "" : " (NVIDIA's figures, unconfirmed)");
  pic.text(kMargin, kMargin + 12, title, kInk, 13);
  pic.text(kMargin, kMargin + kCaption + 12, std::string(what), kMuted, kSmall);
  // The chip: GPCs in two rows, each a box of its SMs in rows of six (a GPC's TPCs), as on screen.
  const uint32_t per_row = (uint32_t(d.gpc.size()) + 1) / 2, sm_cols = 6;
  uint32_t most = 0;
  for (const GpuGpc& g : d.gpc) most = std::max(most, g.sms);
  const uint32_t sm_rows = (most + sm_cols - 1) / sm_cols;
  const double cell = 22, gw = sm_cols * cell + 14, gh = kCaption + sm_rows * cell + 10;
  const double width = std::max(860.0, per_row * gw);  // room for four sub-partitions' lines
  double y = paragraph(pic, kMargin, kMargin + 2 * kCaption + 12, width, d.note, kMuted, kSmall) - 4;
  const double chip_y = y;
  for (size_t g = 0; g < d.gpc.size(); ++g) {
    const double gx = kMargin + gw * double(g % std::max(1u, per_row)), gy = chip_y + gh * double(g / std::max(1u, per_row));
    box(pic, gx + 2, gy + 2, gw - 4, gh - 4, std::nullopt, kMuted,
        fmt::format("class=\"gpc\" data-gpc=\"{}\" data-first-sm=\"{}\" data-sms=\"{}\"", g, d.gpc[g].first_sm,
                    d.gpc[g].sms));
    pic.text(gx + 6, gy + 14, fmt::format("GPC {}: {} SMs", g, d.gpc[g].sms), kInk, kSmall);
    for (uint32_t i = 0; i < d.gpc[g].sms; ++i) {
      const uint32_t sm = d.gpc[g].first_sm + i;
      const double x = gx + 7 + cell * double(i % sm_cols), sy = gy + kCaption + 4 + cell * double(i / sm_cols);
      const uint32_t ctas = sm < d.sm_ctas.size() ? d.sm_ctas[sm] : 0;
      const bool traced = sm == d.traced_sm;
      const std::string attrs = fmt::format("class=\"sm\" data-sm=\"{}\" data-ctas=\"{}\"{}", sm, ctas,
                                            traced ? " data-traced=\"1\"" : "");
      if (ctas) {
        const Rgb fill = cta_rgb(d.sm_cluster[sm]);
        box(pic, x, sy, cell - 3, cell - 3, fill, traced ? std::optional<Rgb>(kInk) : std::nullopt, attrs, 2.5);
        if (ctas > 1) pic.centred(x, sy, cell - 3, cell - 3, std::to_string(ctas), text_on(fill), kSmall);
      } else {
        box(pic, x, sy, cell - 3, cell - 3, std::nullopt, traced ? kInk : kGridLine, attrs, traced ? 2.5 : 1.0);
      }
    }
  }
  y = chip_y + gh * double((d.gpc.size() + std::max(1u, per_row) - 1) / std::max(1u, per_row)) + 4;
  // L2 and HBM under the GPCs: the chip's memory.
  const double bar_w = std::max(width, per_row * gw) - 4;
  const auto memory = [&](const char* level, double bytes, double gbs, const Rgb& fill, const std::string& label) {
    box(pic, kMargin + 2, y, bar_w, 20, fill, std::nullopt,
        fmt::format("class=\"memory\" data-level=\"{}\" data-bytes=\"{:.0f}\" data-gbs=\"{:g}\"", level, bytes, gbs));
    pic.text(kMargin + 8, y + 14, label, Rgb{0xff, 0xff, 0xff}, 11);
    y += 24;
  };
  memory("L2", double(d.l2_bytes), d.l2_gbs, kL2,
         fmt::format("L2 {}  ·  {:.1f} TB/s read", capacity_text(double(d.l2_bytes)), d.l2_gbs / 1000));
  memory("HBM", d.hbm_gb * 1e9, d.hbm_gbs, kHbm,
         fmt::format("HBM {:.0f} GB  ·  {:.1f} TB/s read", d.hbm_gb, d.hbm_gbs / 1000));
  // One SM: its sub-partitions side by side over its shared memory / L1.
  y += 10;
  pic.text(kMargin, y + 12,
           fmt::format("{}: its sub-partitions, the traced CTA's warps on the scheduler each issues on ({} tensor cores)",
                       d.traced_sm == kNone ? std::string("one SM") : fmt::format("SM {}", d.traced_sm), d.tensor_op),
           kInk, 11);
  y += kCaption + 6;
  const size_t n = std::max<size_t>(1, d.sub.size());
  const double pw = bar_w / double(n);
  // The warps' chips wrap within a sub-partition: every frame is as tall as the tallest.
  const auto chip_w = [](uint16_t w) { return kGlyph * kSmall * double(fmt::format("w{}", w).size()) + 6; };
  double sub_h = 0;
  for (const GpuSubPartition& p : d.sub) {
    double wx = 6, lines = p.warps.empty() ? 0 : 1;
    for (uint16_t w : p.warps) {
      if (wx + chip_w(w) > pw - 6) wx = 6, ++lines;
      wx += chip_w(w);
    }
    sub_h = std::max(sub_h, 6 * 14 + 8 + 16 * lines);
  }
  for (size_t i = 0; i < d.sub.size(); ++i) {
    const GpuSubPartition& p = d.sub[i];
    const double x = kMargin + 2 + pw * double(i);
    std::string warps;
    for (uint16_t w : p.warps) warps += (warps.empty() ? "" : " ") + std::to_string(w);
    box(pic, x, y, pw - 6, sub_h, std::nullopt, kMuted,
        fmt::format("class=\"sub\" data-sub=\"{}\" data-registers=\"{}\" data-fma-lanes=\"{:g}\" "
                    "data-tensor-flops=\"{:g}\" data-warps=\"{}\"",
                    i, p.registers, p.fma_lanes, p.tensor_flops, warps));
    double ty = y + 14;
    const auto row = [&](const std::string& t, const Rgb& c) {
      pic.text(x + 6, ty, t, c, kSmall);
      ty += 14;
    };
    row(fmt::format("sub-partition {}", i), kInk);
    row(fmt::format("scheduler: {:.0f} inst/cycle", p.issue), kMuted);
    row(fmt::format("registers: {} KiB", p.registers * 4 / 1024), kMuted);
    row(fmt::format("FMA: {:.0f} lanes", p.fma_lanes), kMuted);
    row(fmt::format("tensor core: {:.0f} FLOP/cycle", p.tensor_flops), kMuted);
    row("load/store", kMuted);
    // The traced CTA's warps on this scheduler, each in its colour.
    double wx = x + 6;
    ty -= 8;
    for (uint16_t w : p.warps) {
      if (wx + chip_w(w) > x + pw - 6) wx = x + 6, ty += 16;
      const Rgb fill = warp_rgb(w);
      pic.fill(wx, ty, chip_w(w) - 2, 14, fill, fmt::format("class=\"warp\" data-warp=\"{}\" data-sub=\"{}\"", w, i));
      pic.text(wx + 2, ty + 10.5, fmt::format("w{}", w), text_on(fill), kSmall);
      wx += chip_w(w);
    }
  }
  y += sub_h + 4;
  box(pic, kMargin + 2, y, bar_w, 20, kSmem, std::nullopt,
      fmt::format("class=\"memory\" data-level=\"shared memory / L1\" data-bytes=\"{}\" data-gbs=\"0\"", d.l1_bytes));
  pic.text(kMargin + 8, y + 14,
           fmt::format("shared memory / L1: {} KiB ({} KiB shared)  ·  {:.0f} B/cycle  ·  TMA {:.0f} B/cycle",
                       d.l1_bytes / 1024, d.smem_bytes / 1024, d.smem_bytes_per_cycle, d.tma_bytes_per_cycle),
           Rgb{0xff, 0xff, 0xff}, 11);
  y += 20;
  pic.width = kMargin + 2 + bar_w + kMargin;
  pic.height = y + kMargin;
  pic.title = fmt::format("GPU: {}", title);
  return pic;
}

Drawing memory_drawing(const MemoryData& d) {
  Drawing pic;
  const double col_w = 440, gap = 24;
  std::vector<const MemoryColumn*> columns;
  if (d.before) columns.push_back(&*d.before);
  columns.push_back(&d.open);
  const std::string title = fmt::format("memory hierarchy of the {}: step {:02d} {}", d.open.card, d.open.step,
                                        d.open.kernel_id);
  pic.text(kMargin, kMargin + 12, title, kInk, 13);
  double bottom = 0;
  for (size_t ci = 0; ci < columns.size(); ++ci) {
    const MemoryColumn& c = *columns[ci];
    const double x = kMargin + (col_w + gap) * double(ci);
    double y = kMargin + kCaption + 16;
    pic.text(x, y, fmt::format("step {:02d} {}", c.step, c.kernel_id), kInk, 12);
    y = paragraph(pic, x, y + 14, col_w,
                  fmt::format("{:.3g} TFLOP/s on {}, bound by {}; {:.0f} cycles a wave", c.tflops, c.card, c.bound,
                              c.cycles_per_wave),
                  kMuted, kSmall);
    for (const MemoryLevel& l : c.levels) {
      // The band grows with the level's capacity (log scale, registers the narrowest), as on screen.
      const double lg = l.capacity_bytes > 0 ? std::log10(l.capacity_bytes) : 5.0;
      const double frac = std::clamp((lg - 4.5) / (11.5 - 4.5), 0.25, 1.0);
      pic.fill(x, y, col_w * frac, 18, kMuted,
               fmt::format("class=\"level\" data-name=\"{}\" data-capacity=\"{:.0f}\" data-latency=\"{:g}\"",
                           xml_escape(l.name), l.capacity_bytes, l.latency_cycles),
               0.35);
      pic.text(x + 4, y + 13,
               fmt::format("{}  {} {}{}", l.name, capacity_text(l.capacity_bytes), l.scope,
                           l.latency_cycles > 0 ? fmt::format("  ·  {:.0f} cycles", l.latency_cycles) : ""),
               kInk, 11);
      y = paragraph(pic, x, y + 32, col_w, l.bandwidth, kMuted, kSmall) - 8;
      for (const MemoryTraffic& t : l.traffic) {
        const Rgb bar = t.bound ? error_rgb(false) : t.share > 0.5 ? warn_rgb(false) : ok_rgb(false);
        pic.outline(x, y, col_w, 16, kGridLine);
        pic.fill(x, y, col_w * std::clamp(t.share, 0.0, 1.0), 16, bar,
                 fmt::format("class=\"traffic\" data-part=\"{}\" data-amount=\"{:g}\" data-unit=\"{}\" "
                             "data-share=\"{:g}\" data-bound=\"{}\"",
                             xml_escape(t.part), t.amount, xml_escape(t.unit), t.share, t.bound ? 1 : 0));
        pic.centred(x, y, col_w, 16,
                    fmt::format("{:.0f}% of its bandwidth{}", 100 * t.share, t.bound ? ": the bound" : ""), kInk,
                    kSmall);
        pic.text(x + 10, y + 29, fmt::format("{}: {}", t.part, amount_text(t)), kMuted, kSmall);
        y += 38;
      }
      y += 8;
    }
    bottom = std::max(bottom, y);
  }
  const double width = (col_w + gap) * double(columns.size()) - gap;
  bottom = paragraph(pic, kMargin, bottom + 8, width, d.before_note, kMuted, kSmall);
  pic.width = kMargin + std::max(width, kGlyph * 13 * double(title.size())) + kMargin;
  pic.height = bottom + kMargin;
  pic.title = title;
  return pic;
}

}  // namespace gs::gui
