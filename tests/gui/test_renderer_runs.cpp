// Tests for how the renderer splits an ImGui draw command into runs drawn with cheaper
// programs (gui/app/renderer.hpp): opaque one-colour fills without texture or blending,
// other fills without texture, everything else with ImGui's textured program. The property
// that keeps the pixels equal to ImGui's own back end: every triangle is drawn exactly once,
// in order, by a program at least as general as its own kind. No OpenGL needed.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "gui/app/renderer.hpp"

using gs::gui::DrawKind;
using gs::gui::DrawRun;
using gs::gui::split_draw_runs;
using gs::gui::triangle_draw_kind;

namespace {

const ImVec2 kWhite(0.01f, 0.02f);  // the atlas's white pixel, as ImGui's TexUvWhitePixel
constexpr ImU32 kBlue = IM_COL32(40, 80, 160, 255);
constexpr ImU32 kRed = IM_COL32(200, 40, 40, 255);

struct Mesh {
  std::vector<ImDrawVert> vtx;
  std::vector<ImDrawIdx> idx;
  // Two triangles; uv at the white pixel unless `glyph`; per-corner colours.
  void quad(float x0, float y0, float x1, float y1, ImU32 c0, ImU32 c1, ImU32 c2, ImU32 c3, bool glyph = false) {
    const ImDrawIdx b = ImDrawIdx(vtx.size());
    const ImVec2 uv0 = glyph ? ImVec2(0.25f, 0.5f) : kWhite, uv1 = glyph ? ImVec2(0.26f, 0.53f) : kWhite;
    vtx.push_back({ImVec2(x0, y0), uv0, c0});
    vtx.push_back({ImVec2(x1, y0), ImVec2(uv1.x, uv0.y), c1});
    vtx.push_back({ImVec2(x1, y1), uv1, c2});
    vtx.push_back({ImVec2(x0, y1), ImVec2(uv0.x, uv1.y), c3});
    for (int i : {0, 1, 2, 0, 2, 3}) idx.push_back(ImDrawIdx(b + i));
  }
  void rect(float x0, float y0, float x1, float y1, ImU32 c) { quad(x0, y0, x1, y1, c, c, c, c); }
  void glyph(float x, float y, ImU32 c) { quad(x, y, x + 8, y + 15, c, c, c, c, true); }
  unsigned triangles() const { return unsigned(idx.size() / 3); }
  std::vector<DrawRun> runs() const {
    std::vector<DrawRun> out;
    split_draw_runs(vtx.data(), idx.data(), triangles(), kWhite, out);
    return out;
  }
  DrawKind kind_of(unsigned t) const {
    return triangle_draw_kind(vtx[idx[3 * t]], vtx[idx[3 * t + 1]], vtx[idx[3 * t + 2]], kWhite);
  }
};

// Runs cover every triangle once, in order, each with a program that can draw it.
void check_cover(const Mesh& m, const std::vector<DrawRun>& runs) {
  unsigned next = 0;
  for (const DrawRun& r : runs) {
    REQUIRE(r.first == next);
    REQUIRE(r.count > 0);
    for (unsigned t = r.first; t < r.first + r.count; ++t) {
      INFO("triangle " << t);
      CHECK(int(m.kind_of(t)) <= int(r.kind));
    }
    next = r.first + r.count;
  }
  CHECK(next == m.triangles());
}

}  // namespace

TEST_CASE("renderer: triangles are sorted into opaque fills, blended fills and textured", "[gui]") {
  Mesh m;
  m.rect(0, 0, 400, 300, kBlue);                                                       // opaque, one colour
  m.quad(0, 0, 400, 300, kBlue, kBlue, kBlue & 0x00FFFFFFu, kBlue & 0x00FFFFFFu);      // an AA fringe: alpha fades
  m.quad(0, 0, 400, 300, kBlue, kRed, kRed, kBlue);                                    // opaque but a gradient
  m.rect(0, 0, 400, 300, IM_COL32(40, 80, 160, 128));                                  // translucent
  m.glyph(10, 10, kBlue);
  CHECK(m.kind_of(0) == DrawKind::opaque);
  CHECK(m.kind_of(1) == DrawKind::opaque);
  CHECK(m.kind_of(2) == DrawKind::solid);
  CHECK(m.kind_of(4) == DrawKind::solid);
  CHECK(m.kind_of(6) == DrawKind::solid);
  CHECK(m.kind_of(8) == DrawKind::texture);
  CHECK(m.kind_of(9) == DrawKind::texture);
}

TEST_CASE("renderer: a window background, its text and a large fill after it are three runs", "[gui]") {
  Mesh m;
  m.rect(0, 0, 400, 300, kBlue);
  for (int i = 0; i < 10; ++i) m.glyph(10.0f + 9.0f * float(i), 10, kRed);
  m.rect(0, 100, 400, 300, kRed);
  const std::vector<DrawRun> runs = m.runs();
  check_cover(m, runs);
  REQUIRE(runs.size() == 3);
  CHECK(runs[0].kind == DrawKind::opaque);
  CHECK(runs[0].count == 2);
  CHECK(runs[0].area == Approx(400.0 * 300.0));
  CHECK(runs[1].kind == DrawKind::texture);
  CHECK(runs[1].count == 20);
  CHECK(runs[2].kind == DrawKind::opaque);
}

TEST_CASE("renderer: small fills between glyphs are drawn with the glyphs' program, not a call of their own", "[gui]") {
  Mesh m;
  for (int row = 0; row < 20; ++row) {
    m.rect(0, 20.0f * float(row), 12, 20.0f * float(row) + 12, kBlue);  // a 12x12 swatch, then its label
    for (int i = 0; i < 5; ++i) m.glyph(16.0f + 9.0f * float(i), 20.0f * float(row), kRed);
  }
  const std::vector<DrawRun> runs = m.runs();
  check_cover(m, runs);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].kind == DrawKind::texture);
}

TEST_CASE("renderer: any mix of triangles is covered once, in order, by programs that can draw it", "[gui]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    Mesh m;
    const int quads = 1 + int(rng() % 60);
    for (int q = 0; q < quads; ++q) {
      const float size = rng() % 3 == 0 ? 300.0f : 10.0f;  // some large enough for runs of their own
      switch (rng() % 4) {
        case 0: m.rect(0, 0, size, size, kBlue); break;
        case 1: m.quad(0, 0, size, size, kBlue, kRed, kRed, kBlue); break;
        case 2: m.rect(0, 0, size, size, IM_COL32(1, 2, 3, 100)); break;
        default: m.glyph(0, 0, kRed); break;
      }
    }
    INFO("trial " << trial);
    check_cover(m, m.runs());
  }
}

// align_rect_pairs: llvmpipe draws two triangles as one rectangle only at an even place of a
// draw call with an even number of triangles (renderer.hpp). The pads it adds are zero-area
// triangles (one vertex three times); everything else must be the input, in order.
namespace {

using gs::gui::align_rect_pairs;

struct Aligned {
  std::vector<ImDrawIdx> out;
  unsigned triangles = 0;
  std::vector<unsigned> kept;  // output place of each input triangle
};

Aligned align(const Mesh& m) {
  Aligned a;
  a.triangles = align_rect_pairs(m.vtx.data(), m.idx.data(), m.triangles(), a.out);
  REQUIRE(a.out.size() == 3 * size_t(a.triangles));
  for (unsigned t = 0; t < a.triangles; ++t) {
    const ImDrawIdx* p = &a.out[3 * t];
    if (p[0] == p[1] && p[1] == p[2]) continue;  // a pad
    a.kept.push_back(t);
  }
  return a;
}

// Input triangles come out unchanged and in order, the pads add nothing else, and the count
// is even.
void check_same_triangles(const Mesh& m, const Aligned& a) {
  REQUIRE(a.kept.size() == m.triangles());
  for (unsigned t = 0; t < m.triangles(); ++t)
    for (int k = 0; k < 3; ++k) CHECK(a.out[3 * a.kept[t] + k] == m.idx[3 * t + k]);
  CHECK(a.triangles % 2 == 0);
  CHECK(a.triangles <= 2 * m.triangles() + 1);
}

// One triangle of a fan (not half of a rectangle).
void fan_triangle(Mesh& m, float x, float y) {
  const ImDrawIdx b = ImDrawIdx(m.vtx.size());
  m.vtx.push_back({ImVec2(x, y), kWhite, kRed});
  m.vtx.push_back({ImVec2(x + 6, y + 2), kWhite, kRed});
  m.vtx.push_back({ImVec2(x + 1, y + 7), kWhite, kRed});
  for (int i : {0, 1, 2}) m.idx.push_back(ImDrawIdx(b + i));
}

}  // namespace

TEST_CASE("renderer: rectangles after an odd triangle move to even places", "[gui]") {
  Mesh m;
  fan_triangle(m, 0, 0);          // triangle 0
  m.rect(10, 10, 50, 30, kBlue);  // triangles 1, 2: at an odd place
  m.glyph(60, 10, kRed);          // 3, 4
  fan_triangle(m, 5, 5);          // 5
  fan_triangle(m, 7, 7);          // 6
  m.rect(0, 40, 20, 60, kRed);    // 7, 8
  const Aligned a = align(m);
  check_same_triangles(m, a);
  // Each rectangle's first triangle sits at an even place, its second right after.
  for (unsigned first : {1u, 3u, 7u}) {
    INFO("rectangle of input triangles " << first << ", " << first + 1);
    CHECK(a.kept[first] % 2 == 0);
    CHECK(a.kept[first + 1] == a.kept[first] + 1);
  }
  // Pads before the first and the last rectangle: 0 pad | 1 2 | 3 4 | 5 6 | 7 8 would need
  // none after 5, 6; the call ends even.
  CHECK(a.triangles == 10);
}

TEST_CASE("renderer: aligned rectangles are left alone and lone triangles padded", "[gui]") {
  Mesh quads;
  for (int i = 0; i < 5; ++i) quads.rect(float(10 * i), 0, float(10 * i + 8), 8, kBlue);
  const Aligned a = align(quads);
  check_same_triangles(quads, a);
  CHECK(a.out == quads.idx);  // nothing to move

  Mesh one;
  fan_triangle(one, 0, 0);
  const Aligned b = align(one);
  check_same_triangles(one, b);
  CHECK(b.triangles == 2);

  Mesh none;
  std::vector<ImDrawIdx> out;
  CHECK(align_rect_pairs(none.vtx.data(), none.idx.data(), 0, out) == 0);
  CHECK(out.empty());
}

TEST_CASE("renderer: only two halves of one axis-aligned rectangle count as a rectangle", "[gui]") {
  // A rotated square, the same half twice, and two zero-area triangles that touch all four
  // corners between them: none is a rectangle, so none may be moved to pair up.
  Mesh m;
  fan_triangle(m, 0, 0);  // makes every later pair start at an odd place
  const ImDrawIdx b = ImDrawIdx(m.vtx.size());
  m.vtx.push_back({ImVec2(10, 0), kWhite, kBlue});
  m.vtx.push_back({ImVec2(20, 10), kWhite, kBlue});
  m.vtx.push_back({ImVec2(10, 20), kWhite, kBlue});
  m.vtx.push_back({ImVec2(0, 10), kWhite, kBlue});
  for (int i : {0, 1, 2, 0, 2, 3}) m.idx.push_back(ImDrawIdx(b + i));  // rotated 45 degrees
  m.rect(30, 0, 40, 10, kBlue);
  const ImDrawIdx r = ImDrawIdx(m.vtx.size() - 4);
  for (int i : {0, 1, 2, 0, 1, 2}) m.idx.push_back(ImDrawIdx(r + i));  // one half twice
  fan_triangle(m, 3, 3);                                                 // (to an odd place again)
  for (int i : {0, 2, 2, 1, 3, 1}) m.idx.push_back(ImDrawIdx(r + i));  // all corners, no area
  const Aligned a = align(m);
  check_same_triangles(m, a);
  // Only the real rectangle (input triangles 3, 4) was moved; the rotated square and the
  // repeated half stay where they fall.
  CHECK(a.kept[3] % 2 == 0);
  CHECK(a.kept[4] == a.kept[3] + 1);
  CHECK(a.kept[1] == 1);
  CHECK(a.kept[2] == 2);
  CHECK(a.kept[8] == 9);
  CHECK(a.triangles == 12);  // 0 | 1 2 | pad | 3 4 | 5 6 | 7 | 8 9 | pad
}

TEST_CASE("renderer: random mixes keep every triangle and put every rectangle on an even place", "[gui]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    Mesh m;
    std::vector<unsigned> rect_starts;
    const int items = int(rng() % 40);
    for (int i = 0; i < items; ++i) {
      const float x = float(rng() % 500), y = float(rng() % 500);
      if (rng() % 3 == 0) {
        fan_triangle(m, x, y);
      } else {
        rect_starts.push_back(m.triangles());
        if (rng() % 2) m.rect(x, y, x + 1 + float(rng() % 50), y + 1 + float(rng() % 20), kBlue);
        else m.glyph(x, y, kRed);
      }
    }
    INFO("trial " << trial);
    const Aligned a = align(m);
    check_same_triangles(m, a);
    for (unsigned first : rect_starts) {
      CHECK(a.kept[first] % 2 == 0);
      CHECK(a.kept[first + 1] == a.kept[first] + 1);
    }
  }
}
