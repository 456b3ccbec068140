// Tests for damage tracking (gui/app/damage.hpp): which tiles of the framebuffer a frame
// changed, and the scissor rectangles that redraw them. What keeps the pixels right: a tile is
// skipped only if it got the same primitives in the same order, and the rectangles cover
// every changed tile exactly once (a pixel drawn twice would be blended twice). No OpenGL.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "gui/app/damage.hpp"

using gs::gui::DamageTracker;
using gs::gui::PixelRect;

namespace {

constexpr int kT = DamageTracker::kTile;

struct Prim {
  float x0, y0, x1, y1;
  uint64_t h;
};

const std::vector<PixelRect>& frame(DamageTracker& d, int w, int h, const std::vector<Prim>& prims, uint64_t seed = 1) {
  d.begin(w, h, seed);
  for (const Prim& p : prims) d.add(p.x0, p.y0, p.x1, p.y1, p.h);
  return d.finish();
}

// How many of the rectangles hold pixel (x, y).
int cover(const std::vector<PixelRect>& rects, int x, int y) {
  int n = 0;
  for (const PixelRect& r : rects) n += x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1;
  return n;
}

}  // namespace

TEST_CASE("damage: the first frame, a new size and invalidate() draw everything", "[gui]") {
  DamageTracker d;
  const std::vector<Prim> prims = {{10, 10, 50, 20, 7}, {100, 70, 130, 90, 8}};
  auto rects = frame(d, 200, 100, prims);
  REQUIRE(rects.size() == 1);
  CHECK(rects[0].x0 == 0);
  CHECK(rects[0].y0 == 0);
  CHECK(rects[0].x1 == 200);  // clipped to the framebuffer, not rounded up to whole tiles
  CHECK(rects[0].y1 == 100);
  CHECK(d.tiles() == 4 * 2);
  CHECK(d.dirty_tiles() == 8);

  CHECK(frame(d, 200, 100, prims).empty());  // nothing changed
  CHECK(d.dirty_tiles() == 0);
  CHECK(d.drawn_pixels() == 0);

  rects = frame(d, 201, 100, prims);  // resized
  REQUIRE(rects.size() == 1);
  CHECK(rects[0].area() == 201 * 100);

  d.begin(201, 100, 1);
  for (const Prim& p : prims) d.add(p.x0, p.y0, p.x1, p.y1, p.h);
  d.invalidate();
  CHECK(d.finish().size() == 1);
  CHECK(frame(d, 201, 100, prims).empty());
}

TEST_CASE("damage: a changed primitive redraws exactly the tiles it touches", "[gui]") {
  DamageTracker d;
  std::vector<Prim> prims = {{10, 10, 50, 20, 7}, {100, 70, 130, 90, 8}, {0, 0, 255, 127, 9}};
  frame(d, 256, 128, prims);
  prims[1].h = 80;  // same place, other content: tiles (1,1) and (2,1)
  const auto& rects = frame(d, 256, 128, prims);
  REQUIRE(rects.size() == 1);
  CHECK(rects[0].x0 == kT);
  CHECK(rects[0].x1 == 3 * kT);
  CHECK(rects[0].y0 == kT);
  CHECK(rects[0].y1 == 2 * kT);
  CHECK(d.dirty_tiles() == 2);

  // Moved: both where it was and where it is now change.
  prims[0].x0 += 64;
  prims[0].x1 += 64;
  frame(d, 256, 128, prims);
  CHECK(d.dirty_tiles() == 2);  // tiles (0,0) and (1,0)

  // The same primitives in another order change the tiles where two of them meet: the full
  // one now comes first, and meets the others in (1,0), (1,1) and (2,1).
  std::swap(prims[0], prims[2]);
  frame(d, 256, 128, prims);
  CHECK(d.dirty_tiles() == 3);

  // A different background (seed) changes every tile.
  frame(d, 256, 128, prims, 2);
  CHECK(d.dirty_tiles() == 8);
}

TEST_CASE("damage: primitives are clipped to the framebuffer and empty ones ignored", "[gui]") {
  DamageTracker d;
  frame(d, 128, 128, {});
  CHECK(frame(d, 128, 128, {{-50, -50, -1, -1, 5}, {200, 10, 300, 20, 6}, {30, 30, 20, 40, 7}}).empty());
  frame(d, 128, 128, {{-50, -50, 10, 300, 5}});  // reaches tiles (0,0) and (0,1) only
  CHECK(d.dirty_tiles() == 2);
  // A primitive on a tile edge reaches the tile of every pixel it may touch: pixel 63 and 64.
  frame(d, 128, 128, {{-50, -50, 10, 300, 5}, {63.5f, 0, 64.0f, 1, 9}});
  CHECK(d.dirty_tiles() == 2);  // (0,0) had a primitive added, (1,0) too
}

TEST_CASE("damage: rectangles are whole tiles, disjoint, few, and cover every changed tile", "[gui]") {
  std::mt19937 rng(1234);
  for (int round = 0; round < 300; ++round) {
    INFO("round " << round);
    const int w = 64 + int(rng() % 1700), h = 64 + int(rng() % 1100);
    DamageTracker d;
    std::vector<Prim> prims;
    const int n = 1 + int(rng() % 60);
    for (int i = 0; i < n; ++i) {
      const float x = float(rng() % unsigned(w)), y = float(rng() % unsigned(h));
      const float pw = float(1 + rng() % (rng() % 4 == 0 ? 600u : 40u)), ph = float(1 + rng() % 40u);
      prims.push_back({x, y, x + pw, y + ph, rng()});
    }
    frame(d, w, h, prims);
    // Change a random subset.
    std::vector<bool> changed(prims.size());
    for (size_t i = 0; i < prims.size(); ++i) {
      changed[i] = rng() % 3 == 0;
      if (changed[i]) prims[i].h ^= 1;
    }
    const std::vector<PixelRect> rects = frame(d, w, h, prims);
    CHECK(rects.size() <= DamageTracker::kMaxRects);
    for (size_t i = 0; i < rects.size(); ++i) {
      const PixelRect& r = rects[i];
      CHECK(r.x0 % kT == 0);
      CHECK(r.y0 % kT == 0);
      CHECK((r.x1 % kT == 0 || r.x1 == w));
      CHECK((r.y1 % kT == 0 || r.y1 == h));
      CHECK(r.x0 < r.x1);
      CHECK(r.y0 < r.y1);
      CHECK(r.x1 <= w);
      CHECK(r.y1 <= h);
      for (size_t j = i + 1; j < rects.size(); ++j) CHECK_FALSE(r.intersects(rects[j]));
    }
    // Every pixel of every changed primitive is drawn (once: the rectangles are disjoint).
    int dirty = 0;
    for (size_t i = 0; i < prims.size(); ++i) {
      if (!changed[i]) continue;
      const Prim& p = prims[i];
      for (int y = std::max(0, int(p.y0)); y <= std::min(h - 1, int(p.y1)); y += 7)
        for (int x = std::max(0, int(p.x0)); x <= std::min(w - 1, int(p.x1)); x += 7) {
          ++dirty;
          REQUIRE(cover(rects, x, y) == 1);
        }
    }
    if (std::find(changed.begin(), changed.end(), true) == changed.end()) CHECK(rects.empty());
    CHECK((dirty == 0 || !rects.empty()));
    long long area = 0;
    for (const PixelRect& r : rects) area += r.area();
    CHECK(area == d.drawn_pixels());
    CHECK(area <= (long long)w * h);
  }
}
