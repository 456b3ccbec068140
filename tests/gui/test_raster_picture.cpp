// Tests for gui/core/raster_picture: a Drawing in pixels on the CPU (the PNG of `gemmscope draw`
// and of the layout pictures). The shapes' pixels are predicted from their coordinates (exact
// coverage at the edges); the fragment map's pixels from the PTX ISA's ownership formula (facts
// §2), not read back from the code under test; the PNG is decoded again with stb_image.
#include <catch2/catch.hpp>

#include <cmath>
#include <stb_image.h>

#include "gui/app/assets.hpp"
#include "gui/core/colors.hpp"
#include "gui/core/fragments_data.hpp"
#include "gui/core/raster_picture.hpp"
#include "gui/core/shared_memory_data.hpp"
#include "gui/core/svg_picture.hpp"

using namespace gs::gui;

namespace {

const RasterFont& mono() {
  static const std::string path = find_font("DejaVuSansMono.ttf");
  REQUIRE_FALSE(path.empty());  // fonts-dejavu-core: scripts/setup.sh installs it with the app's packages
  static const RasterFont font(path);
  return font;
}

Drawing blank(double w, double h) {
  Drawing d;
  d.width = w;
  d.height = h;
  d.paper = {250, 250, 250};
  return d;
}

bool is(const Rgb& a, const Rgb& b, int tolerance = 0) {
  for (size_t i = 0; i < 3; ++i)
    if (std::abs(int(a[i]) - int(b[i])) > tolerance) return false;
  return true;
}

// The bounding box of every pixel that is not the paper.
struct Ink {
  int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
  bool any() const { return x1 >= 0; }
};
Ink ink_of(const RgbaImage& im, const Rgb& paper) {
  Ink k;
  for (int y = 0; y < im.height; ++y)
    for (int x = 0; x < im.width; ++x)
      if (im.at(x, y) != paper) {
        k.x0 = std::min(k.x0, x);
        k.y0 = std::min(k.y0, y);
        k.x1 = std::max(k.x1, x);
        k.y1 = std::max(k.y1, y);
      }
  return k;
}

}  // namespace

TEST_CASE("raster: a picture is its size times the scale, on its paper", "[raster]") {
  const Drawing d = blank(10.5, 4);
  const RgbaImage im = rasterize(d, 2, mono());
  CHECK(im.width == 21);
  CHECK(im.height == 8);
  CHECK(im.rgba.size() == 21u * 8u * 4u);
  CHECK(im.at(0, 0) == d.paper);
  CHECK(im.at(20, 7) == d.paper);
  CHECK(im.rgba[3] == 255);
  CHECK(pixels_of(10.01, 1) == 11);
  CHECK(pixels_of(10, 3) == 30);
}

TEST_CASE("raster: rectangles cover whole pixels exactly and edge pixels by their share", "[raster]") {
  Drawing d = blank(20, 10);
  d.fill(2, 1, 4, 3, {200, 0, 100});         // whole pixels at scale 1
  d.fill(10.5, 0, 2, 2, {0, 0, 0});          // half pixels on the left and right
  d.fill(0, 6, 4, 2, {0, 0, 255}, {}, 0.5);  // half transparent
  const RgbaImage im = rasterize(d, 1, mono());
  CHECK(im.at(2, 1) == Rgb{200, 0, 100});
  CHECK(im.at(5, 3) == Rgb{200, 0, 100});
  CHECK(im.at(6, 3) == d.paper);
  CHECK(im.at(2, 4) == d.paper);
  CHECK(im.at(1, 1) == d.paper);
  CHECK(im.at(11, 0) == Rgb{0, 0, 0});
  CHECK(is(im.at(10, 0), {125, 125, 125}, 1));  // half of black over 250
  CHECK(is(im.at(12, 1), {125, 125, 125}, 1));
  CHECK(im.at(13, 0) == d.paper);
  CHECK(is(im.at(1, 7), {125, 125, 253}, 1));
  // At scale 3 the same rectangle covers three times the pixels.
  const RgbaImage big = rasterize(d, 3, mono());
  CHECK(big.at(6, 3) == Rgb{200, 0, 100});
  CHECK(big.at(17, 11) == Rgb{200, 0, 100});
  CHECK(big.at(18, 11) == d.paper);
}

TEST_CASE("raster: outlines straddle the edge and lines have flat ends", "[raster]") {
  Drawing d = blank(30, 30);
  d.outline(5, 5, 10, 10, {0, 0, 0}, 2);   // covers 4..6 around each edge
  d.line(20, 2, 20, 12, {255, 0, 0}, 2);   // vertical: 19..21 by 2..12
  d.line(2, 25, 12, 25, {0, 128, 0}, 1);   // horizontal: 2..12 by 24.5..25.5
  d.line(18, 18, 28, 28, {0, 0, 255}, 2);  // diagonal
  const RgbaImage im = rasterize(d, 1, mono());
  CHECK(im.at(4, 4) == Rgb{0, 0, 0});
  CHECK(im.at(5, 10) == Rgb{0, 0, 0});
  CHECK(im.at(14, 10) == Rgb{0, 0, 0});
  CHECK(im.at(10, 15) == Rgb{0, 0, 0});
  CHECK(im.at(10, 10) == d.paper);  // not filled
  CHECK(im.at(3, 3) == d.paper);
  CHECK(im.at(19, 2) == Rgb{255, 0, 0});
  CHECK(im.at(20, 11) == Rgb{255, 0, 0});
  CHECK(im.at(20, 12) == d.paper);  // flat end
  CHECK(im.at(18, 5) == d.paper);
  CHECK(is(im.at(5, 24), {125, 189, 125}, 1));  // half of each pixel row
  CHECK(is(im.at(5, 25), {125, 189, 125}, 1));
  CHECK(im.at(23, 23) == Rgb{0, 0, 255});  // on the diagonal
  CHECK(im.at(27, 19) == d.paper);          // far from it
}

TEST_CASE("raster: text is the font's glyphs in the text's colour, at its anchor", "[raster]") {
  Drawing d = blank(200, 40);
  d.text(10, 20, "t127 v63", {20, 20, 24}, 13);
  const RgbaImage im = rasterize(d, 2, mono());
  const Ink k = ink_of(im, d.paper);
  REQUIRE(k.any());
  // A monospace glyph advances 0.602 em in DejaVu Sans Mono: 8 glyphs of 26 px are 125 px.
  CHECK(k.x0 >= 20);
  CHECK(k.x0 <= 24);
  CHECK(k.x1 >= 20 + 115);
  CHECK(k.x1 <= 20 + 126);
  // Digits stand on the baseline (y 40) and are about 0.73 em tall.
  CHECK(k.y1 <= 40);
  CHECK(k.y1 >= 38);
  CHECK(k.y0 <= 40 - 17);
  CHECK(k.y0 >= 40 - 22);
  // The darkest pixel is the text's colour: the stems are fully covered.
  int darkest = 255;
  for (int y = k.y0; y <= k.y1; ++y)
    for (int x = k.x0; x <= k.x1; ++x) darkest = std::min(darkest, int(im.at(x, y)[0]));
  CHECK(darkest <= 24);

  SECTION("centred text is centred") {
    Drawing c = blank(200, 40);
    c.centred(0, 0, 200, 40, "c7", {0, 0, 0}, 12);
    const Ink m = ink_of(rasterize(c, 1, mono()), c.paper);
    REQUIRE(m.any());
    CHECK(std::abs((m.x0 + m.x1) / 2.0 - 100.0) <= 1.5);
    CHECK(std::abs((m.y0 + m.y1) / 2.0 - 20.0) <= 1.5);
  }
  SECTION("UTF-8 beyond ASCII draws, and broken UTF-8 does not break the picture") {
    Drawing u = blank(60, 20);
    u.text(2, 15, "\xC3\x97\xC2\xB3", {0, 0, 0}, 12);  // "×³"
    CHECK(ink_of(rasterize(u, 1, mono()), u.paper).any());
    Drawing b = blank(60, 20);
    b.text(2, 15, std::string("a\xFF\xC3", 3), {0, 0, 0}, 12);
    CHECK(ink_of(rasterize(b, 1, mono()), b.paper).any());
  }
}

TEST_CASE("raster: the mma.sync C map in pixels has every element in its lane's colour", "[raster]") {
  FragmentViewOptions o;
  o.map = "mma_c";
  const FragmentGrid g = fragment_grid(nullptr, o);
  const Drawing d = fragment_drawing(g);
  const double scale = 2;
  const RgbaImage im = rasterize(d, scale, mono());
  CHECK(im.width == pixels_of(d.width, scale));
  CHECK(im.height == pixels_of(d.height, scale));
  // Where each cell is: the drawing's cells in row-major order (the SVG's class="cell").
  std::vector<const Drawing::Rect*> cells;
  for (const Drawing::Shape& s : d.shapes)
    if (const auto* r = std::get_if<Drawing::Rect>(&s); r && r->attrs.find("class=\"cell\"") != std::string::npos)
      cells.push_back(r);
  REQUIRE(cells.size() == 16 * 8);
  for (int row = 0; row < 16; ++row)
    for (int col = 0; col < 8; ++col) {
      // C/D of m16n8k16 (PTX ISA, facts §2): lane = 4 * (row % 8) + col / 2.
      const uint32_t lane = uint32_t(4 * (row % 8) + col / 2);
      const Drawing::Rect& r = *cells[size_t(row * 8 + col)];
      // The cell's bottom-right corner, below and right of its two labels.
      const int x = int((r.x + r.w - 4) * scale), y = int((r.y + r.h - 1.5) * scale);
      INFO("row " << row << " col " << col);
      CHECK(im.at(x, y) == lane_rgb(0, lane));
    }
}

TEST_CASE("raster: the PNG decodes to the same pixels", "[raster]") {
  const Drawing d = swizzle_drawing(swizzle_grid(gs::layout::Swizzle::b128, 0, 8));
  const RgbaImage im = rasterize(d, 1.5, mono());
  const std::string png = png_bytes(im);
  REQUIRE(png.size() > 8);
  CHECK(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()), int(png.size()), &w, &h, &n, 4);
  REQUIRE(px != nullptr);
  CHECK(w == im.width);
  CHECK(h == im.height);
  CHECK(std::equal(im.rgba.begin(), im.rgba.end(), px));
  stbi_image_free(px);
}

TEST_CASE("raster: a bad scale, a picture too large or a bad font is an error naming it", "[raster][errors]") {
  const Drawing d = blank(100, 50);
  CHECK_THROWS_AS(rasterize(d, 0, mono()), std::invalid_argument);
  CHECK_THROWS_AS(rasterize(d, -1, mono()), std::invalid_argument);
  CHECK_THROWS_AS(rasterize(d, std::nan(""), mono()), std::invalid_argument);
  CHECK_THROWS_WITH(rasterize(d, 200, mono()), Catch::Matchers::Contains("20000x10000") &&
                                                   Catch::Matchers::Contains("163.84"));
  CHECK_THROWS_WITH(RasterFont("/no/such/font.ttf"), Catch::Matchers::Contains("/no/such/font.ttf"));
  CHECK_THROWS_WITH(RasterFont("/dev/null"), Catch::Matchers::Contains("not a TrueType font"));
  RgbaImage empty;
  CHECK_THROWS(png_bytes(empty));
}
