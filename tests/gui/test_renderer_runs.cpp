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
