#include "gui/core/drawing.hpp"

#include <fmt/format.h>

namespace gs::gui {

void Drawing::fill(double x, double y, double w, double h, const Rgb& c, std::string attrs, double opacity) {
  Rect r{x, y, w, h};
  r.fill = c;
  r.fill_opacity = opacity;
  r.attrs = std::move(attrs);
  shapes.emplace_back(std::move(r));
}

void Drawing::outline(double x, double y, double w, double h, const Rgb& c, double stroke_width) {
  Rect r{x, y, w, h};
  r.stroke = c;
  r.stroke_width = stroke_width;
  shapes.emplace_back(std::move(r));
}

void Drawing::line(double x0, double y0, double x1, double y1, const Rgb& c, double width) {
  shapes.emplace_back(Line{x0, y0, x1, y1, c, width});
}

void Drawing::text(double x, double y, std::string_view s, const Rgb& c, double size, Anchor anchor) {
  shapes.emplace_back(Text{x, y, std::string(s), c, size, anchor});
}

void Drawing::centred(double x, double y, double w, double h, std::string_view s, const Rgb& c, double size) {
  // 0.35 em below the middle puts the middle of a digit's height on the box's middle.
  text(x + w / 2, y + h / 2 + size * 0.35, s, c, size, Anchor::middle);
}

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

struct SvgShape {
  std::string& out;
  void operator()(const Drawing::Rect& r) const {
    out += fmt::format("<rect x=\"{:g}\" y=\"{:g}\" width=\"{:g}\" height=\"{:g}\" fill=\"{}\"", r.x, r.y, r.w, r.h,
                       r.fill ? svg_color(*r.fill) : "none");
    if (r.fill && r.fill_opacity != 1.0) out += fmt::format(" fill-opacity=\"{:g}\"", r.fill_opacity);
    if (r.stroke) out += fmt::format(" stroke=\"{}\" stroke-width=\"{:g}\"", svg_color(*r.stroke), r.stroke_width);
    if (!r.attrs.empty()) out += " " + r.attrs;
    out += "/>\n";
  }
  void operator()(const Drawing::Line& l) const {
    out += fmt::format("<line x1=\"{:g}\" y1=\"{:g}\" x2=\"{:g}\" y2=\"{:g}\" stroke=\"{}\" stroke-width=\"{:g}\"/>\n", l.x0,
                       l.y0, l.x1, l.y1, svg_color(l.stroke), l.width);
  }
  void operator()(const Drawing::Text& t) const {
    out += fmt::format("<text x=\"{:g}\" y=\"{:g}\" fill=\"{}\" font-size=\"{:g}\" text-anchor=\"{}\">{}</text>\n", t.x, t.y,
                       svg_color(t.fill), t.size, t.anchor == Drawing::Anchor::middle ? "middle" : "start",
                       xml_escape(t.text));
  }
};

}  // namespace

std::string to_svg(const Drawing& d) {
  std::string body;
  for (const Drawing::Shape& s : d.shapes) std::visit(SvgShape{body}, s);
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:g}\" height=\"{1:g}\" viewBox=\"0 0 {0:g} {1:g}\" "
      "font-family=\"DejaVu Sans Mono, monospace\">\n"
      "<title>{2}</title>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"{3}\"/>\n"
      "{4}</svg>\n",
      d.width, d.height, xml_escape(d.title), svg_color(d.paper), body);
}

}  // namespace gs::gui
