#include "gui/core/svg_picture.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gs::gui {

std::string xml_escape(std::string_view text) {
  std::string s;
  s.reserve(text.size());
  for (char c : text) switch (c) {
      case '&': s += "&amp;"; break;
      case '<': s += "&lt;"; break;
      case '>': s += "&gt;"; break;
      case '"': s += "&quot;"; break;
      case '\'': s += "&apos;"; break;
      default: s += c;
    }
  return s;
}

std::string svg_color(const Rgb& c) { return fmt::format("#{:02x}{:02x}{:02x}", c[0], c[1], c[2]); }

namespace {

// The colours of the light theme's text (gui/app/theme.cpp's light text and muted text).
constexpr const char* kInk = "#141418";
constexpr const char* kMuted = "#6e6e78";
constexpr const char* kPaper = "#ffffff";
constexpr const char* kFont = "font-family=\"DejaVu Sans Mono, monospace\"";

// Dark text on a light fill, light text on a dark one: the views' text_on() rule.
const char* text_on(const Rgb& fill) {
  return 0.299f * fill[0] + 0.587f * fill[1] + 0.114f * fill[2] > 0.55f * 255.0f ? kInk : "#f5f5fa";
}

// An SVG document written top to bottom: the size is known once the picture is laid out, so
// the body is collected first and wrapped by finish().
class Svg {
 public:
  void rect(double x, double y, double w, double h, const std::string& fill, std::string_view extra = {}) {
    body_ += fmt::format("<rect x=\"{:g}\" y=\"{:g}\" width=\"{:g}\" height=\"{:g}\" fill=\"{}\"{}{}/>\n", x, y, w, h,
                         fill, extra.empty() ? "" : " ", extra);
  }
  void line(double x0, double y0, double x1, double y1, const char* stroke, double width) {
    body_ += fmt::format("<line x1=\"{:g}\" y1=\"{:g}\" x2=\"{:g}\" y2=\"{:g}\" stroke=\"{}\" stroke-width=\"{:g}\"/>\n",
                         x0, y0, x1, y1, stroke, width);
  }
  // Text with its baseline at y; anchor "start" or "middle".
  void text(double x, double y, std::string_view s, const char* fill, double size, const char* anchor = "start") {
    body_ += fmt::format("<text x=\"{:g}\" y=\"{:g}\" fill=\"{}\" font-size=\"{:g}\" text-anchor=\"{}\">{}</text>\n", x, y,
                         fill, size, anchor, xml_escape(s));
  }
  // A box's label, centred in it.
  void centred(double x, double y, double w, double h, std::string_view s, const char* fill, double size) {
    text(x + w / 2, y + h / 2 + size * 0.35, s, fill, size, "middle");
  }
  std::string finish(double width, double height, std::string_view title) const {
    return fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:g}\" height=\"{1:g}\" viewBox=\"0 0 {0:g} {1:g}\" {2}>\n"
        "<title>{3}</title>\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"{4}\"/>\n"
        "{5}</svg>\n",
        width, height, kFont, xml_escape(title), kPaper, body_);
  }

 private:
  std::string body_;
};

constexpr double kMargin = 12, kCaption = 16, kSmall = 10;

}  // namespace

std::string fragment_svg(const FragmentGrid& g, bool color_by_thread) {
  Svg svg;
  // Two lines of label per cell ("t127" over "v63") as the view draws them when there is room.
  const double cw = 34, ch = 26, label = 30;
  const double top = kMargin + 3 * kCaption + 4;
  const double ox = kMargin + label, oy = top + kCaption;
  const std::string size = fmt::format("{}x{} ({} x {}), {} threads x {} values; colour: {}", g.rows, g.cols, g.row_label,
                                       g.col_label, g.threads, g.values_per_thread,
                                       color_by_thread ? "thread (lighter = higher lane)" : "warp");
  const std::string source = "source: " + g.source;
  svg.text(kMargin, kMargin + 12, g.name, kInk, 13);
  svg.text(kMargin, kMargin + kCaption + 12, size, kMuted, kSmall);
  svg.text(kMargin, kMargin + 2 * kCaption + 12, source, kMuted, kSmall);
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
        svg.rect(x, y, cw, ch, kMuted, fmt::format("class=\"cell\" data-row=\"{}\" data-col=\"{}\"", r, c));
        continue;
      }
      // A gap (the paper) only where the owner changes, so one thread's elements read as a block.
      const bool right = c + 1 < g.cols && g.at(r, c + 1).thread != cell.thread;
      const bool below = r + 1 < g.rows && g.at(r + 1, c).thread != cell.thread;
      const Rgb fill = fill_of(cell);
      svg.rect(x, y, cw - (right ? 1 : 0), ch - (below ? 1 : 0), svg_color(fill),
               fmt::format("class=\"cell\" data-row=\"{}\" data-col=\"{}\" data-thread=\"{}\" data-value=\"{}\"", r, c,
                           cell.thread, cell.value));
      const std::string who = g.threads > 32 ? fmt::format("t{}", cell.thread) : fmt::format("l{}", cell.lane);
      svg.text(x + 2, y + 11, who, text_on(fill), kSmall);
      svg.text(x + 2, y + 23, fmt::format("v{}", cell.value), text_on(fill), kSmall);
    }
  // Heavier lines every 8 rows and columns: the tile's natural blocks (core matrices, n8 blocks).
  for (int c = 0; c <= g.cols; c += 8) svg.line(ox + c * cw, oy, ox + c * cw, oy + g.rows * ch, kPaper, 2);
  for (int r = 0; r <= g.rows; r += 8) svg.line(ox, oy + r * ch, ox + g.cols * cw, oy + r * ch, kPaper, 2);
  for (int c = 0; c < g.cols; c += 8) svg.text(ox + c * cw + 1, oy - 4, std::to_string(c), kMuted, kSmall);
  for (int r = 0; r < g.rows; r += 8) svg.text(kMargin, oy + r * ch + 11, std::to_string(r), kMuted, kSmall);
  const double width = std::max(ox + g.cols * cw, caption_w + kMargin) + kMargin;
  return svg.finish(width, oy + g.rows * ch + kMargin, g.name);
}

std::string swizzle_svg(const SwizzleGrid& g) {
  Svg svg;
  const double cw = 60, rh = 24, label = 44;
  const std::string mode(layout::swizzle_name(g.mode));
  const std::string title = fmt::format("swizzle {}: {} rows of {} B from 0x{:04X}", mode, g.rows, g.row_bytes, g.base);
  svg.text(kMargin, kMargin + 12, title, kInk, 13);
  const double ox = kMargin + label, head = kMargin + kCaption + 4, oy = head + kCaption;
  // Column headers: the four banks each physical 16-byte chunk lies in.
  for (uint32_t c = 0; c < g.chunks; ++c)
    svg.centred(ox + c * cw, head, cw, kCaption, fmt::format("b{}-{}", (4 * c) % 32, (4 * c) % 32 + 3), kMuted, kSmall);
  for (const SwizzleCell& cell : g.cells) {
    const double y = oy + (cell.row - g.first_row) * rh;
    if (cell.logical_chunk == 0) svg.text(kMargin, y + rh / 2 + 3.5, fmt::format("r{}", cell.row), kMuted, kSmall);
    const double x = ox + cell.physical_chunk * cw;
    // Colour by logical chunk, as on screen: the XOR shows as the diagonal pattern of colours.
    const Rgb fill = warp_rgb(cell.logical_chunk);
    svg.rect(x, y, cw - 2, rh - 2, svg_color(fill),
             fmt::format("fill-opacity=\"0.85\" class=\"cell\" data-row=\"{}\" data-chunk=\"{}\" data-physical-chunk=\"{}\"",
                         cell.row, cell.logical_chunk, cell.physical_chunk));
    svg.centred(x, y, cw - 2, rh - 2, fmt::format("c{}", cell.logical_chunk), text_on(fill), kSmall);
  }
  const double bottom = oy + g.rows * rh + 4;
  svg.text(kMargin, bottom + 10,
           "column: physical 16-byte chunk (4 banks); colour and label: logical chunk", kMuted, kSmall);
  return svg.finish(std::max(ox + g.chunks * cw + kMargin, 480.0), bottom + 10 + kMargin, title);
}

std::string bank_svg(const BankAccess& a) {
  Svg svg;
  const double cw = 28, rh = 22, label = 34;
  const uint32_t rows = std::max<uint32_t>(1, a.wavefronts);
  svg.text(kMargin, kMargin + 12, a.title, kInk, 13);
  if (!a.note.empty()) svg.text(kMargin, kMargin + kCaption + 12, a.note, kMuted, kSmall);
  const double ox = kMargin + label, head = kMargin + 2 * kCaption + 4, oy = head + rh;
  for (uint32_t bank = 0; bank < 32; ++bank) svg.centred(ox + bank * cw, head, cw, rh, std::to_string(bank), kMuted, kSmall);
  const std::vector<std::vector<uint32_t>> cell = bank_grid_cells(a);
  const uint16_t warp = a.warp == kNoWarp ? 0 : a.warp;
  for (uint32_t r = 0; r < rows; ++r) {
    const double y = oy + r * rh;
    svg.text(kMargin, y + rh / 2 + 3.5, fmt::format("wf{}", r), kMuted, kSmall);
    for (uint32_t bank = 0; bank < 32;) {
      const auto& here = cell[size_t(r) * 32 + bank];
      uint32_t end = bank + 1;  // runs of the same lanes are one box, as on screen
      while (end < 32 && !here.empty() && cell[size_t(r) * 32 + end] == here) ++end;
      const double x = ox + bank * cw, w = (end - bank) * cw;
      svg.rect(x, y, w, rh, "none", "stroke=\"#c8c8d0\"");
      if (!here.empty()) {
        const SmemLane& l = a.lanes[here.front()];
        const Rgb fill = lane_rgb(warp, l.lane);
        svg.rect(x + 1, y + 1, w - 2, rh - 2, svg_color(fill),
                 fmt::format("fill-opacity=\"0.9\" class=\"cell\" data-wavefront=\"{}\" data-bank=\"{}\" data-lane=\"{}\"", r,
                             bank, l.lane));
        std::string s = std::to_string(l.lane);
        if (here.size() > 1) s += fmt::format("+{}", here.size() - 1);
        svg.centred(x, y, w, rh, s, text_on(fill), kSmall);
        if (l.row >= 0 && !l.reads_meant_data) svg.rect(x, y, w, rh, "none", "stroke=\"#d03030\" stroke-width=\"2\"");
      }
      bank = end;
    }
  }
  const double bottom = oy + rows * rh + 4;
  svg.text(kMargin, bottom + 12, bank_verdict(a.wavefronts, a.ideal_wavefronts, a.conflict_degree), kInk, 12);
  return svg.finish(ox + 32 * cw + kMargin, bottom + 12 + kMargin, a.title);
}

}  // namespace gs::gui
