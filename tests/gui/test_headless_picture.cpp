// File > Save picture as PNG, headless (`gui --save-picture VIEW=FILE`, the same read-back and
// write as the dialog's): the picture is the view's window cut out of the frame, pixel for
// pixel, and a path that cannot be written fails cleanly. Needs xvfb-run (headless.hpp).
#include "tests/gui/headless.hpp"
#include "tests/support/xml_check.hpp"

#include "tests/support/scratch.hpp"

using namespace gs::gui::test;

TEST_CASE("save picture writes a view's window as PNG, cropped from the frame", "[gui][xvfb][picture]") {
  if (!xvfb_or_skip()) return;
  const gs::test::ScratchDir dir;
  const std::string picture = dir.path("fragments.png");
  const Headless h = run_headless("picture", "--kernel simt_naive --view fragments,ptx --size 1000x700 --save-picture fragments=" + picture);
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto r = h.state["layout"]["views"]["fragments"].get<std::array<float, 4>>();  // x, y, w, h
  int w = 0, hh = 0, n = 0;
  unsigned char* px = stbi_load(picture.c_str(), &w, &hh, &n, 3);
  REQUIRE(px);
  CHECK(w == int(std::lround(r[2])));
  CHECK(hh == int(std::lround(r[3])));
  // Its pixels are the screenshot's inside the view's window.
  const int x0 = int(std::lround(r[0])), y0 = int(std::lround(r[1]));
  int differ = 0;
  for (int y = 0; y < hh; y += 7)
    for (int x = 0; x < w; x += 7) {
      const auto s = h.pixel(x0 + x, y0 + y);
      const unsigned char* p = px + (size_t(y) * size_t(w) + size_t(x)) * 3;
      differ += s[0] != p[0] || s[1] != p[1] || s[2] != p[2];
    }
  stbi_image_free(px);
  CHECK(differ == 0);
}

// The cases below were SECTIONs of the one above, which Catch2 runs again from the top for each
// section: its headless run three more times (about 40 s of a core under the sanitizers).
TEST_CASE("save picture: the whole window", "[gui][xvfb][picture]") {
  if (!xvfb_or_skip()) return;
  const gs::test::ScratchDir dir;
  int n = 0;
  {
    const std::string all = dir.path("window.png");
    const Headless hw = run_headless("picture_window", "--kernel simt_naive --view ptx --size 800x600 --save-picture window=" + all);
    REQUIRE(hw.code == 0);
    int ww = 0, wh = 0;
    REQUIRE(stbi_info(all.c_str(), &ww, &wh, &n));
    CHECK(ww == hw.w);
    CHECK(wh == hw.h);
  }
}

TEST_CASE("save picture: a path that cannot be written, a view not shown, a bad request", "[gui][xvfb][picture]") {
  if (!xvfb_or_skip()) return;
  const gs::test::ScratchDir dir;
  {
    const std::string kept = dir.write("kept.png", "my picture\n");
    Headless bad = run_headless("picture_bad", "--kernel simt_naive --view ptx --save-picture ptx=" + dir.path("none/p.png"));
    CHECK(bad.code == 2);
    CHECK_THAT(bad.output, Catch::Matchers::Contains("none/p.png"));
    bad = run_headless("picture_hidden", "--kernel simt_naive --view ptx --save-picture fragments=" + kept);
    CHECK(bad.code == 1);
    CHECK_THAT(bad.output, Catch::Matchers::Contains("not shown"));
    bad = run_headless("picture_bad_view", "--kernel simt_naive --view ptx --save-picture nothing=" + kept);
    CHECK(bad.code == 2);
    CHECK(gs::test::read_file(kept) == "my picture\n");
  }
}

TEST_CASE("save picture: a .svg file gets the view's SVG picture at the cursor", "[gui][xvfb][picture]") {
  if (!xvfb_or_skip()) return;
  const gs::test::ScratchDir dir;
  {
    // TMEM of the warp-specialized Blackwell step, part way through its MMAs.
    const std::string tmem = dir.path("tmem.svg");
    Headless h = run_headless("picture_tmem", "--kernel blackwell_ws_ring --view tmem --steps 600 --save-picture tmem=" + tmem);
    REQUIRE(h.code == 0);
    size_t cells = 0, used = 0;
    for (const gs::test::XmlElement& e : gs::test::parse_xml(gs::test::read_file(tmem)))
      if (e.name == "rect" && e.attr("class") == "cell") {
        ++cells;
        used += e.attr("data-state") != "free";
      }
    CHECK(cells == 4 * 64);
    CHECK(used > 0);
    // The second picture of the shared-memory view, by name.
    const std::string swz = dir.path("swizzle.svg");
    h = run_headless("picture_swizzle", "--kernel hopper_tma_wgmma_64 --view ptx --steps 40 --save-picture smem:swizzle-grid=" + swz);
    REQUIRE(h.code == 0);
    CHECK_THAT(gs::test::read_file(swz), Catch::Matchers::Contains("swizzle 128B"));
    // A view without an SVG picture, an unknown part, a part into a PNG: usage errors.
    const std::string kept = dir.write("kept.svg", "my slide\n");
    for (const std::string& bad : {"ptx=" + kept, "smem:nope=" + kept, "fragments:fragment-map=" + dir.path("x.png")}) {
      const Headless b = run_headless("picture_bad_svg", "--kernel simt_naive --view ptx --save-picture " + bad);
      INFO(bad << ": " << b.output);
      CHECK(b.code == 2);
    }
    CHECK_THAT(run_headless("picture_bad_part", "--kernel simt_naive --save-picture smem:nope=" + kept).output,
               Catch::Matchers::Contains("banks, swizzle-grid"));
    CHECK(gs::test::read_file(kept) == "my slide\n");
  }
}
