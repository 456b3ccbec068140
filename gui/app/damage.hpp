// Damage tracking: which parts of the window a frame changes, so that only those are drawn.
//
// Why: under Xvfb every pixel is shaded on the CPU (llvmpipe), and ImGui rebuilds and redraws
// the whole window every frame although, stepping through a kernel, a frame changes a few
// lines of a few views (one instruction step: 8 of 400 tiles; ten: 65). Drawing only the
// changed tiles takes a frame from tens of millions of instructions to a copy of the window
// (docs/results/2026-11-22-dev, "Sixth session").
//
// How: the framebuffer is cut into kTile x kTile pixel tiles, counted from OpenGL's origin
// (the bottom-left corner), which is where llvmpipe's own 64x64 tiles start in a texture it
// renders to. Every triangle the renderer is about to draw adds a hash of itself and of its
// draw state to each tile its clipped bounding box touches, in drawing order. A tile whose
// hash equals last frame's receives exactly the same triangles in the same order, so drawing
// it again would give exactly the same pixels: it is skipped, and its pixels are kept in a
// framebuffer that lives from frame to frame (renderer.cpp). The other tiles are drawn
// through scissor rectangles made of whole tiles. Whole tiles matter: llvmpipe chooses its
// rasterizer path per tile from the triangles in it, and the paths round some texel edges
// differently (renderer.hpp), so a scissor that cut one of its tiles could change pixels in the
// part that is drawn.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gs::gui {

// [x0, x1) x [y0, y1) in framebuffer pixels, OpenGL's orientation (y up).
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  long long area() const { return (long long)(x1 - x0) * (y1 - y0); }
  bool intersects(const PixelRect& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// Order-dependent 64-bit mixing for tile and triangle hashes.
inline uint64_t damage_mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

class DamageTracker {
 public:
  static constexpr int kTile = 64;  // llvmpipe's tile (TILE_SIZE in lp_limits.h)
  // At most this many scissor rectangles a frame: each is a pass over the draw calls that
  // reach it. More pieces are merged, smallest waste first.
  static constexpr std::size_t kMaxRects = 6;

  // Starts a frame of width x height pixels; `seed` stands for what every tile starts from
  // (the clear colour). A new size redraws everything.
  void begin(int width, int height, uint64_t seed);
  // A primitive that touches no pixel outside [x0, x1] x [y0, y1] (framebuffer pixels, y up,
  // already clipped), drawn with hash h. Primitives must be added in drawing order.
  void add(float x0, float y0, float x1, float y1, uint64_t h);
  // This frame must be drawn in full (state the hashes do not capture, a lost framebuffer).
  void invalidate() { all_ = true; }
  // Ends the frame: the pairwise disjoint rectangles of whole tiles (clipped to the
  // framebuffer) to draw, empty when nothing changed. The frame's hashes become the reference
  // for the next one.
  const std::vector<PixelRect>& finish();

  int tiles() const { return cols_ * rows_; }
  int dirty_tiles() const { return dirty_tiles_; }  // of the last finish()
  long long drawn_pixels() const;                   // inside the last finish()'s rectangles

 private:
  void build_rects(const std::vector<uint8_t>& dirty);
  void limit_rects();

  int width_ = 0, height_ = 0, cols_ = 0, rows_ = 0;
  std::vector<uint64_t> now_, last_;
  bool all_ = true;
  int dirty_tiles_ = 0;
  std::vector<PixelRect> rects_;
};

}  // namespace gs::gui
