// Our OpenGL 3.3 renderer for Dear ImGui's draw data, in place of ImGui's OpenGL3 back end.
//
// Why our own: under Xvfb the rasterizer is llvmpipe, which runs every fragment shader on the
// CPU, and ImGui's back end draws every triangle with one program that samples the font
// texture and blends. Measured on the dev machine at 1600x1000 (docs/results/2026-11-22-dev),
// a full-screen quad costs llvmpipe about 10 ms with that program, 4 ms without the texture
// fetch and 2.5 ms without blending either. Nearly all of the app's area is plain fills
// (window, frame and cell backgrounds), so the renderer sorts each draw command's triangles,
// in order, into three kinds and draws each run with the cheapest program that gives the same
// pixels:
//   opaque   one colour, alpha 255, uv at the atlas's white pixel: no texture, no blending;
//   solid    other untextured fills (anti-aliased fringes, gradients, translucent): blended;
//   texture  everything else (glyphs, textured lines, images): ImGui's program.
// Sampling the white pixel gives exactly 1.0 and blending with alpha 1.0 gives exactly the
// source, so the pixels equal those of ImGui's back end. A run too small to pay for a draw
// call of its own (a few tens of microseconds in llvmpipe) is folded into a neighbouring run
// of a more general kind. Text is drawn a line at a time from a cache of composed runs kept in
// the font texture below ImGui's atlas (text_runs.hpp), again sampling the same coverage per
// pixel.
//
// llvmpipe's rectangle path. llvmpipe (Mesa 22.3, Debian 12) bins the screen in 64x64 tiles.
// A tile that only holds axis-aligned rectangles, with no depth or stencil buffer bound, is
// shaded by 8-bit span code ("linear" rasterizer) instead of the general path, which shades
// 4x4 blocks in 32-bit floats; a tile with any other triangle takes the general path. Mesa
// recognises a rectangle only as two consecutive triangles of a draw call at an even place
// (triangles 2i and 2i+1) in a call with an even number of triangles, with no flat ("flat
// in") input and, for texturing, an RGBA texture without a swizzle. ImGui's quads are such
// pairs, but one odd triangle (a circle, an arrow) shifts every later pair in its call. So
// the app has no depth buffer (app.cpp), the font texture is RGBA, opaque fills interpolate
// their colour, each draw call's rectangles are moved to even places with zero-area triangles
// between (align_rect_pairs) and lines are not anti-aliased except in plots (theme.cpp).
// Together these took a frame of the benchmark from 141 to 76 million instructions
// (callgrind) and its mean frame time down by about 30% (docs/results/2026-11-22-dev, "Fifth
// session"). The span code samples scaled text
// (not 1:1, so not drawn as runs) a texel apart from the general path at some texel edges:
// both are correct nearest sampling, and the tests compare like with like.
//
// The kept frame. Frames are drawn into a framebuffer of our own that lives from frame to
// frame, and only its tiles that changed are drawn again (damage.hpp); then the whole of it is
// copied to the window as one opaque rectangle of a B8G8R8A8 texture sampled 1:1 with a shader
// that only fetches, which llvmpipe copies row by row (lp_linear_fastpath.c, "blit") instead of
// shading: 5 million instructions for 1600x1000, where glBlitFramebuffer shaded a quad for 25
// million. Row for row needs the kept frame upside down in OpenGL's terms (its first row is
// the window's top), so the projection and scissors flip for it. A static frame of the
// issue's benchmark now costs 17 million instructions in draw_opengl instead of 76; a frame
// that steps one instruction, 34 (docs/results/2026-11-22-dev, "Sixth session"). Only the
// text atlas stays RGBA: llvmpipe's span code for modulated B8G8R8A8 textures dropped glyphs
// past the first tile of a rectangle when tried.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <imgui.h>

#include "gui/app/damage.hpp"
#include "gui/app/text_runs.hpp"

namespace gs::gui {

enum class DrawKind : int { opaque = 0, solid = 1, texture = 2 };  // ordered: later draws all earlier

// A run of consecutive triangles of one draw command, drawn with one program.
struct DrawRun {
  DrawKind kind;
  unsigned first;  // first triangle, counted from the command's first index
  unsigned count;  // triangles
  float area;      // pixels covered (the triangles' areas summed, before clipping)
};

// The cheapest program that draws this triangle exactly. `white_uv` is the font atlas's
// TexUvWhitePixel (fills point every vertex there).
DrawKind triangle_draw_kind(const ImDrawVert& a, const ImDrawVert& b, const ImDrawVert& c, ImVec2 white_uv);

// Splits a command's triangles (indices `idx`, vertices `vtx` as in ImDrawCmd, textured by the
// font atlas) into runs, in drawing order, with small runs folded into a more general
// neighbour. Every triangle lands in exactly one run whose kind is at least its own.
void split_draw_runs(const ImDrawVert* vtx, const ImDrawIdx* idx, unsigned triangles, ImVec2 white_uv,
                     std::vector<DrawRun>& out);

// Appends the `triangles` triangles of `idx` (indexing `vtx`) to `out` in the same order, with a
// zero-area triangle (culled, never drawn) inserted before any two that form an axis-aligned
// rectangle and would otherwise start at an odd place, and one at the end if the count is odd.
// Returns the number of triangles appended. (llvmpipe only recognises rectangles at even
// places of a draw call with an even number of triangles; see above.)
unsigned align_rect_pairs(const ImDrawVert* vtx, const ImDrawIdx* idx, unsigned triangles,
                          std::vector<ImDrawIdx>& out);

// Counts of the last frame, for --frame-stats.
struct RenderStats {
  size_t commands = 0;      // ImGui draw commands
  size_t draws = 0;         // OpenGL draw calls issued
  size_t opaque_draws = 0;  // of which opaque fills without blending
  size_t solid_draws = 0;   // of which without texture, blended
  TextRunStats text;        // glyphs drawn as runs (gui/app/text_runs.hpp)
  // Damage tracking (damage.hpp): tiles of the framebuffer, those that changed and were drawn,
  // and the pixels drawn (the changed tiles' rectangles); all of them without damage tracking.
  int tiles = 0, dirty_tiles = 0;
  long long drawn_pixels = 0;
};

class Renderer {
 public:
  // Compiles the programs and uploads ImGui's font atlas; needs the current OpenGL 3.3 context
  // and a built ImGui context. Returns false (with a message in error()) when OpenGL fails.
  bool init();
  void shutdown();
  // ImGui's font atlas was rebuilt (a new UI scale): uploads it again, empties the text-run
  // cache (its runs were composed from the old glyphs) and draws the next frame in full.
  bool reload_fonts();
  // Draws the frame on a background of `clear` into the window's framebuffer (bound as 0).
  void render(const ImDrawData* data, ImVec4 clear);
  const RenderStats& stats() const { return stats_; }
  const std::string& error() const { return error_; }
  // Draw each glyph as ImGui made it instead of as runs (the pixels are the same; for
  // comparing the two and measuring).
  void set_text_runs(bool on) { text_runs_on_ = on; }
  // Draw only the tiles that changed since the last frame (damage.hpp), keeping the frame in a
  // framebuffer of our own between frames; off, every frame is drawn in full straight into
  // the window (the pixels are the same; for comparing the two and measuring).
  void set_damage_tracking(bool on) { damage_on_ = on; }
  // The content of an image texture the UI draws changed `version` times (RasterImage::
  // uploads()). Tiles showing an image whose version is not known are drawn every frame.
  void set_image_version(ImTextureID texture, uint64_t version);

 private:
  // One draw call: a run of one command's triangles, or a command's callback (count 0).
  struct Draw {
    int cmd;
    DrawKind kind;
    size_t first, count;  // indices in ListCopy::draw_idx
    PixelRect scissor;    // the command's clip rectangle in framebuffer pixels (y up)
  };

  // One draw list as drawn: a copy of its vertices (runs rewrite some), its indices with the
  // runs' glyphs dropped, and each command's range in them; then its draw calls, each a run of
  // one kind (split_draw_runs) with its rectangles at even places (align_rect_pairs), and
  // their indices.
  struct ListCopy {
    std::vector<ImDrawVert> vtx;
    std::vector<ImDrawIdx> idx;
    std::vector<size_t> first, count;  // by command: indices
    std::vector<ImDrawIdx> draw_idx;
    std::vector<Draw> draws;
  };

  // `top_down`: for the kept frame, drawn upside down (copy_frame).
  void prepare_draws(const ImDrawList* list, ListCopy& copy, int fb_height, bool top_down, ImVec2 clip_off,
                     ImVec2 clip_scale);
  // The tiles each draw reaches, hashed into damage_ (damage.hpp); false if a draw's effect is
  // unknown (a callback) and the whole frame must be drawn.
  bool hash_draws(const ImDrawData* data);
  // The framebuffer kept between frames, made or resized for w x h; false if OpenGL cannot.
  bool keep_framebuffer(int w, int h);
  // ImGui's atlas, with the text-run cache below it, into font_texture_ (replacing it).
  bool upload_font_atlas();
  // The kept frame to the window's framebuffer (w x h), as one opaque textured rectangle.
  void copy_frame(int w, int h);
  // Every list's draws, clipped to each of `rects` (disjoint) in turn.
  void draw_lists(const ImDrawData* data, const std::vector<PixelRect>& rects, bool top_down);

  // width x height coverage texels (rows `stride` apart) widened to RGBA (255, 255, 255,
  // coverage), packed in rgba_.
  const unsigned char* white_with_alpha(const unsigned char* coverage, int width, int height, size_t stride);

  unsigned program_[3] = {0, 0, 0};  // fills (opaque and solid), textured, the kept frame's copy
  int projection_loc_[3] = {-1, -1, -1};
  int uv_scale_loc_ = -1;
  // Counts atlas uploads: part of the damage tracker's seed, so that a frame after a new atlas
  // is drawn in full even where a glyph's vertices and uvs came out as before.
  uint64_t atlas_generation_ = 0;
  unsigned font_texture_ = 0;
  ImVec2 font_uv_scale_{1.0f, 1.0f};  // the atlas's normalized uv to the taller font texture's
  TextRunCache text_runs_;
  bool text_runs_on_ = true;
  std::vector<ListCopy> lists_;  // reused between frames
  unsigned vao_ = 0, vbo_ = 0, ebo_ = 0;
  std::vector<DrawRun> runs_;  // reused between frames, as is the one below
  std::vector<unsigned char> rgba_;
  std::vector<TextRunCache::Rect> cache_dirty_;
  bool damage_on_ = true;
  DamageTracker damage_;
  std::vector<std::pair<ImTextureID, uint64_t>> image_versions_;
  uint64_t frame_ = 0;
  size_t cache_clears_ = 0;  // text_runs_' count when the kept frame was last drawn
  unsigned frame_fbo_ = 0, frame_texture_ = 0;  // the kept frame (damage tracking)
  int frame_width_ = 0, frame_height_ = 0;
  std::vector<PixelRect> full_;  // the whole framebuffer as the one rectangle to draw
  RenderStats stats_;
  std::string error_;
};

}  // namespace gs::gui
