// A picture filled pixel by pixel on the CPU and shown as one textured quad.
//
// Why: a view made of thousands of small rectangles (the fragments view's 64x64 cells and
// more) costs a software rasterizer (llvmpipe, under Xvfb) far more per pixel than one large
// quad, because every small primitive is shaded in partly covered 4x4 blocks. Measured on the
// dev machine (docs/results/2026-11-22-dev): 3000 glyph-sized quads take ~8 ms, the same area
// as one quad well under 1 ms. Filled here, the cells cost one texture upload when they change
// and two triangles a frame.
//
// Pixels are ImGui colours (IM_COL32: R in the low byte, so RGBA in memory); alpha 0 leaves the
// window behind visible. The texture is sampled GL_NEAREST and drawn at an integer position at
// its own size, so each pixel is exactly the colour filled here.
//
//   if (img.begin(w, h, key)) { img.fill_rect(x0, y0, x1, y1, col); ... }   // only on change
//   draw_list->AddImage(img.texture(), pos, ImVec2(pos.x + w, pos.y + h));
#pragma once

#include <cstdint>
#include <vector>

#include <imgui.h>

namespace gs::gui {

class RasterImage {
 public:
  RasterImage() = default;
  RasterImage(const RasterImage&) = delete;
  RasterImage& operator=(const RasterImage&) = delete;
  ~RasterImage();

  // Starts a picture of w x h pixels whose content is fully described by `key` (a hash of what
  // will be drawn). Returns true, with every pixel cleared to transparent, when the size or the
  // key differ from the last picture: the caller then fills it. Returns false when the last
  // picture can be shown as it is.
  bool begin(int width, int height, uint64_t key);
  // Fills [x0, x1) x [y0, y1), clipped to the picture.
  void fill_rect(int x0, int y0, int x1, int y1, ImU32 color);
  // The OpenGL texture holding the picture, uploaded if it changed. Needs the app's OpenGL
  // context current (the UI thread).
  ImTextureID texture();
  // Deletes the texture; call before the OpenGL context goes (the next texture() makes a new one).
  void release();

  // The texture's name (0 before the first texture()) and how many times its content was
  // uploaded: the renderer redraws what shows it when that count changes (damage.hpp).
  ImTextureID texture_id() const { return reinterpret_cast<ImTextureID>(intptr_t(texture_)); }
  uint64_t uploads() const { return uploads_; }

  int width() const { return width_; }
  int height() const { return height_; }

 private:
  std::vector<ImU32> pixels_;
  int width_ = 0, height_ = 0;
  uint64_t key_ = 0;
  bool valid_ = false;     // pixels_ holds the picture of key_
  bool uploaded_ = false;  // the texture holds pixels_
  unsigned texture_ = 0;
  uint64_t uploads_ = 0;
  int texture_width_ = 0, texture_height_ = 0;
};

// Generates and binds a 2D texture for pictures drawn one texel per pixel: nearest sampling
// (exact texels, and cheaper than linear under llvmpipe) and clamped edges. Returns its name.
// Needs the app's OpenGL context current.
unsigned new_pixel_texture();

// FNV-1a over a value's bytes, for building RasterImage keys.
inline uint64_t hash_mix(uint64_t h, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xFF;
    h *= 1099511628211ull;
  }
  return h;
}
constexpr uint64_t kHashSeed = 14695981039346656037ull;

}  // namespace gs::gui
