// Text drawn as runs: the glyph quads of one line become one quad.
//
// Why: under Xvfb the rasterizer is llvmpipe, whose cost is mostly per primitive for small
// ones (docs/results/2026-11-22-dev: 3000 glyph-sized quads ~8 ms, the same quads with zero
// area 0.7 ms). A frame of the app shows ~3000 glyphs, two triangles each, and that was about
// three quarters of the frame. Most text is the same from frame to frame (the PTX listing,
// labels, table headers), so each run of glyphs is composed once, on the CPU, into a cache of
// coverage images that lives in the font texture below ImGui's atlas, and then drawn as two
// triangles.
//
// Exactness: a glyph quad is merged only when it maps atlas texels one to one onto whole
// pixels (theme.cpp loads fonts so: OversampleH 1, PixelSnapH, no scaling), and the run's quad
// is drawn the same way, so every pixel samples the same coverage it would have sampled from
// its glyph, with the same vertex colour and blending. Pixels of the run's box outside every
// glyph have coverage 0, which blending leaves untouched. Glyph boxes may overlap (kerning,
// side bearings); a glyph whose inked texels would meet another's in the run starts a new run,
// so no pixel is ever the blend of two glyphs. Any quad that does not meet these rules is drawn
// as ImGui made it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include <imgui.h>

namespace gs::gui {

// ImGui's font atlas as one 8-bit coverage channel (ImFontAtlas::GetTexDataAsAlpha8).
struct CoverageAtlas {
  const uint8_t* pixels = nullptr;
  int width = 0, height = 0;
};

struct TextRunStats {
  size_t glyphs = 0;         // glyph quads seen this frame (one-to-one, on whole pixels)
  size_t merged_glyphs = 0;  // of which drawn as part of a run
  size_t runs = 0;           // run quads drawn this frame
  size_t composed = 0;       // runs composed into the cache this frame (the rest were cached)
  size_t clears = 0;         // times the cache was emptied because it filled up (since reset)
};

class TextRunCache {
 public:
  // Longest gap between two glyphs of a run, in pixels: the run's quad also shades the gap,
  // which costs about as much as a glyph's two triangles by this width at text height.
  static constexpr int kMaxGap = 32;
  static constexpr int kMaxHeight = 64;  // tallest run box

  // A cache of width x height texels, which the caller places in the font texture right below
  // the atlas (texel rows atlas.height .. atlas.height + height). Empties it.
  void reset(CoverageAtlas atlas, int width, int height);

  // Starts a frame: if the cache filled up during the last frame it is emptied now (and
  // re-filled as runs are seen again).
  void begin_frame();

  // Rewrites one draw command textured by the font atlas. `vtx` are the vertices the command
  // indexes (its VtxOffset applied; a copy the caller uploads, which this may change), `idx`
  // its 3 * triangles indices. Appends the indices to draw, in the original order, to `out`
  // and returns how many it appended. A merged run reuses its first glyph's four vertices,
  // rewritten to span the run and to point into the cache, in the atlas's normalized texture
  // units (v >= 1 is below the atlas; the renderer scales uv to the taller texture).
  size_t rewrite(ImDrawVert* vtx, const ImDrawIdx* idx, unsigned triangles, std::vector<ImDrawIdx>& out);

  // The parts of the cache that changed since the last call (appended to `out`, which is
  // cleared first), a rectangle per shelf that got new runs, or all of it after it was emptied;
  // false when none did. Uploading only these, not the whole rows between them, took a frame
  // that steps the playback from 34.2 to 32.6 million instructions (callgrind, draw_opengl).
  struct Rect {
    int x, y, w, h;
  };
  bool take_dirty(std::vector<Rect>& out);

  const uint8_t* image() const { return image_.data(); }  // width() x height(), row-major
  int width() const { return width_; }
  int height() const { return height_; }
  const TextRunStats& stats() const { return stats_; }

 private:
  struct Glyph {
    ImDrawIdx first;  // index of its top-left vertex (then top-right, bottom-right, bottom-left)
    int x0, y0, x1, y1;
    int tx, ty;  // top-left texel in the atlas
  };
  struct Entry {
    int x, y, w, h;            // where in the cache
    std::vector<int32_t> key;  // the run's glyphs relative to its box, to rule out hash collisions
  };
  struct Shelf {
    int y, h, used;
  };

  bool glyph_quad(const ImDrawVert* vtx, const ImDrawIdx* six, Glyph& g) const;
  bool joins(const Glyph& g, ImU32 col) const;
  void flush(ImDrawVert* vtx, std::vector<ImDrawIdx>& out, size_t& appended);
  const Entry* place();
  void clear_cache();

  CoverageAtlas atlas_;
  int width_ = 0, height_ = 0;
  std::vector<uint8_t> image_;
  std::vector<Shelf> shelves_;
  int next_shelf_y_ = 0;
  bool full_ = false;
  std::vector<Rect> dirty_;
  std::unordered_map<uint64_t, Entry> entries_;

  // The run being gathered.
  std::vector<Glyph> run_;
  ImU32 run_col_ = 0;
  int run_x0_ = 0, run_y0_ = 0, run_x1_ = 0, run_y1_ = 0;
  std::vector<int32_t> key_;  // scratch

  TextRunStats stats_;
};

}  // namespace gs::gui
