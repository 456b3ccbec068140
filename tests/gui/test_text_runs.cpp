// Tests for drawing text as runs (gui/app/text_runs.hpp): consecutive glyph quads of one line
// become one quad that samples a composed coverage image. The property that keeps the pixels
// the same: drawing the rewritten geometry gives every pixel exactly the blends the original
// gave. Checked here with a small CPU rasterizer of ImGui's quads (one texel per pixel,
// nearest, "over" blending in float, as OpenGL does it), which needs no display.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "gui/app/text_runs.hpp"

using gs::gui::CoverageAtlas;
using gs::gui::TextRunCache;

namespace {

constexpr int kAtlasW = 128, kAtlasH = 64;
constexpr int kCacheW = 256, kCacheH = 64;
constexpr int kScreenW = 320, kScreenH = 80;
constexpr ImU32 kText = IM_COL32(230, 230, 220, 255);
constexpr ImU32 kDim = IM_COL32(120, 200, 120, 200);

// An atlas of 8 glyphs, each an 8x15 cell at (16 g, 0): ink in a random blob inside the cell,
// zero around it, like a font's glyph box. Glyph 7 is inked up to its left and right edges, so
// two of them side by side one pixel apart overlap in ink when shifted.
struct Atlas {
  std::vector<uint8_t> px = std::vector<uint8_t>(size_t(kAtlasW) * kAtlasH, 0);
  Atlas() {
    std::mt19937 rng(7);
    for (int g = 0; g < 8; ++g)
      for (int y = 2; y < 13; ++y)
        for (int x = (g == 7 ? 0 : 1); x < (g == 7 ? 8 : 7); ++x)
          px[size_t(y) * kAtlasW + size_t(16 * g + x)] = uint8_t(rng() % 3 == 0 ? 0 : 1 + rng() % 255);
    px[size_t(kAtlasH - 1) * kAtlasW + size_t(kAtlasW - 1)] = 255;  // the white pixel
  }
  CoverageAtlas view() const { return CoverageAtlas{px.data(), kAtlasW, kAtlasH}; }
};

struct Mesh {
  std::vector<ImDrawVert> vtx;
  std::vector<ImDrawIdx> idx;
  void quad(float x0, float y0, float x1, float y1, ImVec2 uv0, ImVec2 uv1, ImU32 c) {
    const ImDrawIdx b = ImDrawIdx(vtx.size());
    vtx.push_back({ImVec2(x0, y0), uv0, c});
    vtx.push_back({ImVec2(x1, y0), ImVec2(uv1.x, uv0.y), c});
    vtx.push_back({ImVec2(x1, y1), uv1, c});
    vtx.push_back({ImVec2(x0, y1), ImVec2(uv0.x, uv1.y), c});
    for (int i : {0, 1, 2, 0, 2, 3}) idx.push_back(ImDrawIdx(b + i));
  }
  // Glyph g at (x, y), as ImFont::RenderText writes it.
  void glyph(int g, float x, float y, ImU32 c) {
    quad(x, y, x + 8, y + 15, ImVec2(16.0f * g / kAtlasW, 0.0f), ImVec2((16.0f * g + 8) / kAtlasW, 15.0f / kAtlasH), c);
  }
  // A fill: uv at the white pixel.
  void fill(float x0, float y0, float x1, float y1, ImU32 c) {
    const ImVec2 white((kAtlasW - 0.5f) / kAtlasW, (kAtlasH - 0.5f) / kAtlasH);
    quad(x0, y0, x1, y1, white, white, c);
  }
  unsigned triangles() const { return unsigned(idx.size() / 3); }
};

// The font texture as the renderer builds it: the atlas, and the cache's rows below it.
uint8_t texel(const Atlas& atlas, const TextRunCache& cache, int x, int y) {
  if (y < kAtlasH) return x < kAtlasW ? atlas.px[size_t(y) * kAtlasW + size_t(x)] : 0;
  return cache.image()[size_t(y - kAtlasH) * size_t(cache.width()) + size_t(x)];
}

// Draws quads (indices in groups of six, each a quad as Mesh writes it) onto an RGB float
// screen: for each pixel centre inside the quad, the texel under it (uv taken at the quad's
// corner plus one texel per pixel, nearest), blended over. Only one-to-one quads are drawn
// this way; the fills here are, too, since their uv stays on the white pixel.
using Screen = std::vector<std::array<float, 3>>;
Screen draw(const Atlas& atlas, const TextRunCache& cache, const std::vector<ImDrawVert>& vtx,
            const std::vector<ImDrawIdx>& idx) {
  Screen s(size_t(kScreenW) * kScreenH, {0.1f, 0.12f, 0.15f});
  REQUIRE(idx.size() % 6 == 0);
  for (size_t q = 0; q < idx.size(); q += 6) {
    const ImDrawVert& a = vtx[idx[q]];
    const ImDrawVert& c = vtx[idx[q + 2]];
    REQUIRE(idx[q + 3] == idx[q]);
    const bool fill = a.uv.x == c.uv.x;
    const float tx0 = a.uv.x * kAtlasW, ty0 = a.uv.y * kAtlasH;
    const ImVec4 col = ImGui::ColorConvertU32ToFloat4(a.col);
    for (int y = int(a.pos.y); y < int(c.pos.y); ++y)
      for (int x = int(a.pos.x); x < int(c.pos.x); ++x) {
        if (x < 0 || y < 0 || x >= kScreenW || y >= kScreenH) continue;
        const int tx = fill ? int(tx0) : int(std::floor(tx0 + float(x - a.pos.x) + 0.5f));
        const int ty = fill ? int(ty0) : int(std::floor(ty0 + float(y - a.pos.y) + 0.5f));
        const float alpha = col.w * float(texel(atlas, cache, tx, ty)) / 255.0f;
        auto& p = s[size_t(y) * kScreenW + size_t(x)];
        p[0] = col.x * alpha + p[0] * (1.0f - alpha);
        p[1] = col.y * alpha + p[1] * (1.0f - alpha);
        p[2] = col.z * alpha + p[2] * (1.0f - alpha);
      }
  }
  return s;
}

struct Rewritten {
  std::vector<ImDrawVert> vtx;
  std::vector<ImDrawIdx> idx;
};

Rewritten rewrite(TextRunCache& cache, const Mesh& m) {
  Rewritten r{m.vtx, {}};
  const size_t n = cache.rewrite(r.vtx.data(), m.idx.data(), m.triangles(), r.idx);
  REQUIRE(n == r.idx.size());
  return r;
}

// The screen drawn from the original and from the rewritten geometry, exactly equal.
void require_same_pixels(const Atlas& atlas, const TextRunCache& cache, const Mesh& m, const Rewritten& r) {
  const Screen before = draw(atlas, cache, m.vtx, m.idx);
  const Screen after = draw(atlas, cache, r.vtx, r.idx);
  size_t differing = 0;
  for (size_t i = 0; i < before.size(); ++i) differing += before[i] != after[i];
  REQUIRE(differing == 0);
}

}  // namespace

TEST_CASE("text runs: a line of glyphs becomes one quad with the same pixels", "[gui][text]") {
  Atlas atlas;
  TextRunCache cache;
  cache.reset(atlas.view(), kCacheW, kCacheH);
  Mesh m;
  m.fill(0, 0, 200, 20, IM_COL32(40, 40, 50, 255));  // a background drawn first
  for (int i = 0; i < 12; ++i) m.glyph(i % 7, float(4 + 8 * i), 3.0f, kText);
  m.fill(0, 30, 200, 50, IM_COL32(60, 40, 50, 255));  // something in between ends the run
  for (int i = 0; i < 5; ++i) m.glyph(i, float(10 + 8 * i), 32.0f, kDim);

  cache.begin_frame();
  const Rewritten r = rewrite(cache, m);
  CHECK(cache.stats().glyphs == 17);
  CHECK(cache.stats().merged_glyphs == 17);
  CHECK(cache.stats().runs == 2);
  CHECK(cache.stats().composed == 2);
  CHECK(r.idx.size() == 6 * (2 + 2));  // two fills and two runs
  require_same_pixels(atlas, cache, m, r);

  // The next frame finds both runs in the cache, also at another position and in another
  // colour (the cache holds coverage only).
  Mesh moved;
  for (int i = 0; i < 12; ++i) moved.glyph(i % 7, float(40 + 8 * i), 50.0f, kDim);
  cache.begin_frame();
  const Rewritten r2 = rewrite(cache, moved);
  CHECK(cache.stats().runs == 1);
  CHECK(cache.stats().composed == 0);
  require_same_pixels(atlas, cache, moved, r2);
}

TEST_CASE("text runs: what breaks a run", "[gui][text]") {
  Atlas atlas;
  TextRunCache cache;
  cache.reset(atlas.view(), kCacheW, kCacheH);
  Mesh m;
  // Two glyphs, then a colour change, then two more: two runs.
  m.glyph(0, 0, 0, kText);
  m.glyph(1, 8, 0, kText);
  m.glyph(2, 16, 0, kDim);
  m.glyph(3, 24, 0, kDim);
  // A gap wider than kMaxGap: two single glyphs, drawn as they were.
  m.glyph(4, 0, 20, kText);
  m.glyph(5, float(8 + TextRunCache::kMaxGap + 1), 20, kText);
  // Another line (no vertical overlap): separate.
  m.glyph(1, 100, 40, kText);
  m.glyph(2, 108, 60, kText);
  // Glyphs whose ink would meet (glyph 7 is inked edge to edge; 7 px apart they share a
  // column): not merged into one run, so no pixel is the blend of two glyphs.
  m.glyph(7, 200, 0, kText);
  m.glyph(7, 207, 0, kText);
  // Not one texel per pixel (scaled): never merged.
  m.quad(200, 40, 216, 70, ImVec2(0, 0), ImVec2(8.0f / kAtlasW, 15.0f / kAtlasH), kText);
  m.quad(216, 40, 232, 70, ImVec2(16.0f / kAtlasW, 0), ImVec2(24.0f / kAtlasW, 15.0f / kAtlasH), kText);
  // Off whole pixels: never merged.
  m.glyph(1, 250.5f, 40, kText);
  m.glyph(2, 258.5f, 40, kText);

  cache.begin_frame();
  const Rewritten r = rewrite(cache, m);
  CHECK(cache.stats().glyphs == 10);  // the scaled and the off-pixel quads are not glyphs
  CHECK(cache.stats().runs == 2);
  CHECK(cache.stats().merged_glyphs == 4);
  CHECK(r.idx.size() == 6 * (2 + 6 + 4));
  require_same_pixels(atlas, cache, m, r);
}

TEST_CASE("text runs: random lines, with fills between, keep every pixel", "[gui][text]") {
  Atlas atlas;
  TextRunCache cache;
  cache.reset(atlas.view(), kCacheW, kCacheH);
  std::mt19937 rng(11);
  for (int frame = 0; frame < 40; ++frame) {
    Mesh m;
    for (int item = 0; item < 20; ++item) {
      if (rng() % 4 == 0) {
        const float x = float(rng() % 300), y = float(rng() % 70);
        m.fill(x, y, x + float(1 + rng() % 40), y + float(1 + rng() % 10), IM_COL32(rng() % 256, 90, 90, 255));
        continue;
      }
      float x = float(rng() % 250);
      const float y = float(rng() % 65);
      const ImU32 col = rng() % 2 ? kText : kDim;
      const int n = 1 + int(rng() % 12);
      for (int i = 0; i < n; ++i) {
        m.glyph(int(rng() % 8), x, y + float(rng() % 3 == 0 ? 1 : 0), col);
        x += float(rng() % 5 == 0 ? 6 + rng() % 30 : 7 + rng() % 3);  // overlaps, neighbours, gaps
      }
    }
    cache.begin_frame();
    const Rewritten r = rewrite(cache, m);
    require_same_pixels(atlas, cache, m, r);
  }
  // Forty frames of fresh random runs overflow a cache this small: it was emptied (at the
  // start of a frame) rather than drawn from stale rows, and every frame above was exact.
  CHECK(cache.stats().clears > 0);
}

TEST_CASE("text runs: the cache hands out its changed parts once", "[gui][text]") {
  Atlas atlas;
  TextRunCache cache;
  cache.reset(atlas.view(), kCacheW, kCacheH);
  Mesh m;
  for (int i = 0; i < 4; ++i) m.glyph(i, float(8 * i), 0, kText);
  cache.begin_frame();
  rewrite(cache, m);
  std::vector<TextRunCache::Rect> dirty;
  REQUIRE(cache.take_dirty(dirty));
  REQUIRE(dirty.size() == 1);
  CHECK(dirty[0].x == 0);
  CHECK(dirty[0].y == 0);
  CHECK(dirty[0].w >= 24);  // four glyphs 8 apart
  CHECK(dirty[0].w < kCacheW);
  CHECK(dirty[0].h >= 11);  // the glyphs' ink spans rows 2..12 of a 15-row box
  const int first_width = dirty[0].w;
  CHECK_FALSE(cache.take_dirty(dirty));
  CHECK(dirty.empty());
  cache.begin_frame();
  rewrite(cache, m);  // cached: nothing to upload
  CHECK_FALSE(cache.take_dirty(dirty));

  // Two new runs of the same height share the first one's shelf: one rectangle after it.
  Mesh other, third;
  for (int i = 0; i < 3; ++i) other.glyph(i, float(9 * i), 0, kText);
  for (int i = 0; i < 2; ++i) third.glyph(3 - i, float(8 * i), 0, kText);
  cache.begin_frame();
  rewrite(cache, other);
  rewrite(cache, third);
  REQUIRE(cache.take_dirty(dirty));
  REQUIRE(dirty.size() == 1);
  CHECK(dirty[0].x == first_width);
  CHECK(dirty[0].y == 0);
  CHECK(dirty[0].w >= 18 + 8);
  CHECK(dirty[0].x + dirty[0].w <= kCacheW);
}
