// A picture for notes and slides as a list of shapes (rectangles, lines, text) in picture units
// (one unit is one CSS pixel of the SVG), written out two ways so the two never disagree:
//   * to_svg: vector, readable at any size (svg_picture.hpp lays the layout views out as
//     Drawings and writes them with this);
//   * rasterize (raster_picture.hpp): pixels at any scale, for PNG.
// No ImGui: `gemmscope draw` and the app's File > Save picture both use it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gui/core/colors.hpp"

namespace gs::gui {

struct Drawing {
  // A rectangle, filled, outlined or both. The outline is centred on the edge, `stroke_width`
  // wide, as SVG strokes are. `attrs` goes into the SVG element as it is (class="cell" and the
  // data-* attributes a reader or a test checks a cell by).
  struct Rect {
    double x = 0, y = 0, w = 0, h = 0;
    std::optional<Rgb> fill;
    double fill_opacity = 1.0;
    std::optional<Rgb> stroke;
    double stroke_width = 1.0;
    std::string attrs;
  };
  // A straight line with flat ends.
  struct Line {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    Rgb stroke{};
    double width = 1.0;
  };
  enum class Anchor : uint8_t { start, middle };
  // Text in the monospace font (DejaVu Sans Mono), baseline at y, `size` the em size.
  struct Text {
    double x = 0, y = 0;
    std::string text;  // UTF-8
    Rgb fill{};
    double size = 10.0;
    Anchor anchor = Anchor::start;
  };
  using Shape = std::variant<Rect, Line, Text>;

  double width = 0, height = 0;
  std::string title;
  Rgb paper{255, 255, 255};  // the background: slides and printed notes are light
  std::vector<Shape> shapes;  // drawn in order, later over earlier

  void fill(double x, double y, double w, double h, const Rgb& c, std::string attrs = {}, double opacity = 1.0);
  void outline(double x, double y, double w, double h, const Rgb& c, double stroke_width = 1.0);
  void line(double x0, double y0, double x1, double y1, const Rgb& c, double width);
  void text(double x, double y, std::string_view s, const Rgb& c, double size, Anchor anchor = Anchor::start);
  // A box's label, centred in it.
  void centred(double x, double y, double w, double h, std::string_view s, const Rgb& c, double size);
};

// The SVG document of `d`: its title, a background of d.paper, then every shape in order.
std::string to_svg(const Drawing& d);

// "&", "<", ">", '"' and "'" as XML entities: names and titles go into text and attributes.
std::string xml_escape(std::string_view text);
// "#rrggbb".
std::string svg_color(const Rgb& c);

}  // namespace gs::gui
