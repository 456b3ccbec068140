#include "gui/core/raster_picture.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <stb_image_write.h>
#include <stb_truetype.h>  // the implementation is Debian's libstb, as for ImGui's font atlas

namespace gs::gui {

struct RasterFont::Impl {
  std::vector<unsigned char> data;
  stbtt_fontinfo info{};
};

RasterFont::RasterFont(const std::string& path) : impl_(std::make_unique<Impl>()) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read the font {}", path));
  impl_->data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  const int offset = impl_->data.size() < 12 ? -1 : stbtt_GetFontOffsetForIndex(impl_->data.data(), 0);
  if (offset < 0 || !stbtt_InitFont(&impl_->info, impl_->data.data(), offset))
    throw std::runtime_error(fmt::format("{} is not a TrueType font", path));
}

RasterFont::~RasterFont() = default;

int pixels_of(double units, double scale) { return std::max(1, int(std::ceil(units * scale - 1e-9))); }

double largest_scale(const Drawing& d, double max_side) {
  return std::floor(100.0 * max_side / std::max({d.width, d.height, 1e-9})) / 100.0;
}

namespace {

// The canvas: blends colours in at a coverage in [0, 1].
class Canvas {
 public:
  Canvas(RgbaImage& image) : im_(image) {}

  void blend(int x, int y, const Rgb& c, double a) {
    if (x < 0 || y < 0 || x >= im_.width || y >= im_.height || a <= 0) return;
    a = std::min(a, 1.0);
    uint8_t* p = &im_.rgba[(size_t(y) * size_t(im_.width) + size_t(x)) * 4];
    for (int i = 0; i < 3; ++i) p[i] = uint8_t(std::lround(p[i] * (1.0 - a) + c[size_t(i)] * a));
  }

  // The box [x0, x1) x [y0, y1) in pixels, each pixel covered by its share of the box's area.
  void box(double x0, double y0, double x1, double y1, const Rgb& c, double alpha) {
    if (x1 <= x0 || y1 <= y0) return;
    const int px0 = std::max(0, int(std::floor(x0))), px1 = std::min(im_.width, int(std::ceil(x1)));
    const int py0 = std::max(0, int(std::floor(y0))), py1 = std::min(im_.height, int(std::ceil(y1)));
    for (int y = py0; y < py1; ++y) {
      const double cy = std::min(y1, y + 1.0) - std::max(y0, double(y));
      for (int x = px0; x < px1; ++x) {
        const double cx = std::min(x1, x + 1.0) - std::max(x0, double(x));
        blend(x, y, c, cx * cy * alpha);
      }
    }
  }

  // A line of any direction, `w` wide with flat ends: 4x4 samples a pixel.
  void slanted_line(double x0, double y0, double x1, double y1, double w, const Rgb& c) {
    const double dx = x1 - x0, dy = y1 - y0, len = std::hypot(dx, dy);
    if (len == 0) return;
    const double ux = dx / len, uy = dy / len, half = w / 2;
    const int bx0 = int(std::floor(std::min(x0, x1) - half)), bx1 = int(std::ceil(std::max(x0, x1) + half));
    const int by0 = int(std::floor(std::min(y0, y1) - half)), by1 = int(std::ceil(std::max(y0, y1) + half));
    for (int y = std::max(0, by0); y < std::min(im_.height, by1); ++y)
      for (int x = std::max(0, bx0); x < std::min(im_.width, bx1); ++x) {
        int inside = 0;
        for (int sy = 0; sy < 4; ++sy)
          for (int sx = 0; sx < 4; ++sx) {
            const double px = x + (sx + 0.5) / 4 - x0, py = y + (sy + 0.5) / 4 - y0;
            const double along = px * ux + py * uy, across = -px * uy + py * ux;
            inside += along >= 0 && along <= len && std::abs(across) <= half;
          }
        blend(x, y, c, inside / 16.0);
      }
  }

 private:
  RgbaImage& im_;
};

// The code points of UTF-8 text; a broken sequence reads as U+FFFD.
std::vector<uint32_t> code_points(std::string_view s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    const auto b = uint8_t(s[i]);
    const int n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + size_t(n) > s.size()) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    uint32_t cp = n == 1 ? b : b & (0x7F >> n);
    bool ok = true;
    for (int k = 1; k < n; ++k) {
      const auto c = uint8_t(s[i + size_t(k)]);
      ok = ok && (c >> 6) == 2;
      cp = (cp << 6) | (c & 0x3F);
    }
    out.push_back(ok ? cp : 0xFFFD);
    i += ok ? size_t(n) : 1;
  }
  return out;
}

// Glyph bitmaps at a size and a quarter-pixel offset, rasterized once per picture.
class Glyphs {
 public:
  explicit Glyphs(const stbtt_fontinfo& f) : f_(f) {}

  struct Glyph {
    int x0 = 0, y0 = 0, w = 0, h = 0;  // the bitmap's place relative to the pen's whole pixel
    std::vector<unsigned char> alpha;
  };

  const Glyph& get(uint32_t cp, float scale, int quarter_x, int quarter_y) {
    const auto key = std::make_tuple(cp, scale, quarter_x, quarter_y);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    Glyph g;
    const float sx = float(quarter_x) / 4, sy = float(quarter_y) / 4;
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    stbtt_GetCodepointBitmapBoxSubpixel(&f_, int(cp), scale, scale, sx, sy, &x0, &y0, &x1, &y1);
    g.x0 = x0;
    g.y0 = y0;
    g.w = std::max(0, x1 - x0);
    g.h = std::max(0, y1 - y0);
    g.alpha.assign(size_t(g.w) * size_t(g.h), 0);
    if (g.w > 0 && g.h > 0)
      stbtt_MakeCodepointBitmapSubpixel(&f_, g.alpha.data(), g.w, g.h, g.w, scale, scale, sx, sy, int(cp));
    return cache_.emplace(key, std::move(g)).first->second;
  }

  // The pen's advance after `cp` (followed by `next`, 0 for none), in pixels.
  double advance(uint32_t cp, uint32_t next, float scale) const {
    int adv = 0, lsb = 0;
    stbtt_GetCodepointHMetrics(&f_, int(cp), &adv, &lsb);
    const int kern = next ? stbtt_GetCodepointKernAdvance(&f_, int(cp), int(next)) : 0;
    return double(adv + kern) * scale;
  }

 private:
  const stbtt_fontinfo& f_;
  std::map<std::tuple<uint32_t, float, int, int>, Glyph> cache_;
};

void draw_text(Canvas& canvas, Glyphs& glyphs, const Drawing::Text& t, double scale, const stbtt_fontinfo& f) {
  const std::vector<uint32_t> cps = code_points(t.text);
  const auto px = float(stbtt_ScaleForMappingEmToPixels(&f, float(t.size * scale)));
  std::vector<double> advances(cps.size());
  double width = 0;
  for (size_t i = 0; i < cps.size(); ++i) width += advances[i] = glyphs.advance(cps[i], i + 1 < cps.size() ? cps[i + 1] : 0, px);
  double pen = t.x * scale - (t.anchor == Drawing::Anchor::middle ? width / 2 : 0);
  const double base = t.y * scale;
  // The baseline's whole pixel and quarter-pixel offset (a quarter of 4 is the next pixel).
  auto split = [](double v, int& whole, int& quarter) {
    whole = int(std::floor(v));
    quarter = int(std::lround((v - whole) * 4));
    if (quarter == 4) {
      ++whole;
      quarter = 0;
    }
  };
  int by = 0, qy = 0;
  split(base, by, qy);
  for (size_t i = 0; i < cps.size(); ++i) {
    int bx = 0, qx = 0;
    split(pen, bx, qx);
    const Glyphs::Glyph& g = glyphs.get(cps[i], px, qx, qy);
    for (int y = 0; y < g.h; ++y)
      for (int x = 0; x < g.w; ++x) {
        const unsigned char a = g.alpha[size_t(y) * size_t(g.w) + size_t(x)];
        if (a) canvas.blend(bx + g.x0 + x, by + g.y0 + y, t.fill, a / 255.0);
      }
    pen += advances[i];
  }
}

struct RasterShape {
  Canvas& canvas;
  Glyphs& glyphs;
  const stbtt_fontinfo& font;
  double s;

  void operator()(const Drawing::Rect& r) const {
    const double x0 = r.x * s, y0 = r.y * s, x1 = (r.x + r.w) * s, y1 = (r.y + r.h) * s;
    if (r.fill) canvas.box(x0, y0, x1, y1, *r.fill, r.fill_opacity);
    if (!r.stroke) return;
    // Centred on the edge: half outside, half inside; the sides between the top and bottom
    // bands so no pixel is blended twice.
    const double h = r.stroke_width * s / 2;
    if (x1 - x0 <= 2 * h || y1 - y0 <= 2 * h) {
      canvas.box(x0 - h, y0 - h, x1 + h, y1 + h, *r.stroke, 1.0);
      return;
    }
    canvas.box(x0 - h, y0 - h, x1 + h, y0 + h, *r.stroke, 1.0);
    canvas.box(x0 - h, y1 - h, x1 + h, y1 + h, *r.stroke, 1.0);
    canvas.box(x0 - h, y0 + h, x0 + h, y1 - h, *r.stroke, 1.0);
    canvas.box(x1 - h, y0 + h, x1 + h, y1 - h, *r.stroke, 1.0);
  }
  void operator()(const Drawing::Line& l) const {
    const double x0 = l.x0 * s, y0 = l.y0 * s, x1 = l.x1 * s, y1 = l.y1 * s, h = l.width * s / 2;
    if (y0 == y1)
      canvas.box(std::min(x0, x1), y0 - h, std::max(x0, x1), y0 + h, l.stroke, 1.0);
    else if (x0 == x1)
      canvas.box(x0 - h, std::min(y0, y1), x0 + h, std::max(y0, y1), l.stroke, 1.0);
    else
      canvas.slanted_line(x0, y0, x1, y1, 2 * h, l.stroke);
  }
  void operator()(const Drawing::Text& t) const { draw_text(canvas, glyphs, t, s, font); }
};

}  // namespace

RgbaImage rasterize(const Drawing& d, double scale, const RasterFont& font) {
  if (!(scale > 0) || !std::isfinite(scale))
    throw std::invalid_argument(fmt::format("scale {} is not a picture scale: give a positive number", scale));
  const int w = pixels_of(d.width, scale), h = pixels_of(d.height, scale);
  if (w > kMaxPictureSide || h > kMaxPictureSide)
    throw std::invalid_argument(fmt::format(
        "at scale {:g} the picture is {}x{} pixels, more than {} on a side: give a scale of at most {:.2f}", scale, w, h,
        kMaxPictureSide, largest_scale(d, kMaxPictureSide)));
  RgbaImage im;
  im.width = w;
  im.height = h;
  im.rgba.resize(size_t(w) * size_t(h) * 4);
  for (size_t i = 0; i < im.rgba.size(); i += 4) {
    std::copy(d.paper.begin(), d.paper.end(), im.rgba.begin() + ptrdiff_t(i));
    im.rgba[i + 3] = 255;
  }
  Canvas canvas(im);
  Glyphs glyphs(font.impl().info);
  for (const Drawing::Shape& shape : d.shapes) std::visit(RasterShape{canvas, glyphs, font.impl().info, scale}, shape);
  return im;
}

std::string png_bytes(const RgbaImage& image) {
  std::string png;
  auto append = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), size_t(size));
  };
  stbi_flip_vertically_on_write(0);  // a process-wide flag: the app's back-buffer readback sets it
  if (image.width <= 0 || image.height <= 0 ||
      !stbi_write_png_to_func(append, &png, image.width, image.height, 4, image.rgba.data(), image.width * 4))
    throw std::runtime_error(fmt::format("cannot encode the {}x{} picture as PNG", image.width, image.height));
  return png;
}

}  // namespace gs::gui
