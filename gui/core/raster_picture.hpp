// A Drawing (drawing.hpp) in pixels, on the CPU: no window, no OpenGL, no display, so
// `gemmscope draw --png` works on a headless machine and gives the same picture as --svg.
//
// Shapes are anti-aliased by exact area coverage (rectangles and axis-aligned lines, which is
// every line the pictures draw) or 4x4 supersampling (any other line); text is the app's
// monospace font (DejaVu Sans Mono) rasterized by stb_truetype at the picture's scale, with
// sub-pixel placement, blended in the text's colour.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gui/core/drawing.hpp"

namespace gs::gui {

// (Not gui::RasterImage, the widget's texture: two classes of that one name in gs::gui broke
// the one-definition rule, and a test built at -O0 called the widget's destructor on this.)
struct RgbaImage {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;  // row-major from the top, 4 bytes a pixel, opaque
  Rgb at(int x, int y) const {
    const size_t i = (size_t(y) * size_t(width) + size_t(x)) * 4;
    return {rgba[i], rgba[i + 1], rgba[i + 2]};
  }
};

// A TrueType font read from a file. Throws std::runtime_error naming the file when it cannot
// be read or is not a font.
class RasterFont {
 public:
  explicit RasterFont(const std::string& path);
  ~RasterFont();
  RasterFont(const RasterFont&) = delete;
  RasterFont& operator=(const RasterFont&) = delete;

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// The largest side a picture may have in pixels (a 16384-pixel square is 1 GiB of RGBA).
inline constexpr int kMaxPictureSide = 16384;

// The picture's size in pixels at `scale` (picture units to pixels), rounded up.
int pixels_of(double units, double scale);
// The largest scale, in hundredths, at which `d`'s longest side stays within `max_side` pixels.
double largest_scale(const Drawing& d, double max_side);

// `d` at `scale`. Throws std::invalid_argument when the scale is not positive or a side would
// exceed kMaxPictureSide.
RgbaImage rasterize(const Drawing& d, double scale, const RasterFont& font);

// The image as a PNG file's bytes. Throws std::runtime_error when it cannot be encoded.
std::string png_bytes(const RgbaImage& image);

}  // namespace gs::gui
