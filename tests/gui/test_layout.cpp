// The app's layout without a display: the tiling of any subset of views, keeping windows on
// screen, the UI scale for a window size, and the bounded reading of the layout file.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gui/app/layout.hpp"
#include "gui/app/saved_layout.hpp"

using namespace gs::gui;

namespace {

constexpr size_t kViews = size_t(ViewId::count_);

// A window at least a pixel each way, wholly inside `work`.
void check_inside(const Rect& r, const Rect& work) {
  CHECK(r.size.x >= 1.0f);
  CHECK(r.size.y >= 1.0f);
  CHECK(r.pos.x >= work.pos.x);
  CHECK(r.pos.y >= work.pos.y);
  CHECK(r.right() <= work.right());
  CHECK(r.bottom() <= work.bottom());
}

// Every shown view has a rectangle inside `work`, none overlap, and together they cover it
// (their areas add up to the work area's); views not shown have none.
void check_tiling(const ShownViews& shown, const ViewRects& rects, const Rect& work) {
  double area = 0.0;
  for (size_t i = 0; i < kViews; ++i) {
    INFO("view " << view_name(ViewId(i)));
    const Rect& r = rects[i];
    if (!shown[i]) {
      CHECK(r.size.x == 0.0f);
      continue;
    }
    check_inside(r, work);
    area += double(r.size.x) * double(r.size.y);
    for (size_t j = i + 1; j < kViews; ++j) {
      if (!shown[j]) continue;
      const Rect& o = rects[j];
      const float w = std::min(r.right(), o.right()) - std::max(r.pos.x, o.pos.x);
      const float h = std::min(r.bottom(), o.bottom()) - std::max(r.pos.y, o.pos.y);
      INFO("overlaps " << view_name(ViewId(j)));
      CHECK((w <= 0.0f || h <= 0.0f));
    }
  }
  CHECK(area == Approx(double(work.size.x) * double(work.size.y)));
}

}  // namespace

TEST_CASE("layout: every subset of views tiles the work area with no gap and no overlap", "[gui][layout]") {
  const Rect work{ImVec2(0, 21), ImVec2(1600, 950)};
  for (const LayoutKind kind : {LayoutKind::four_columns, LayoutKind::three_columns}) {
    // Every non-empty subset of the views while there are at most 16 of them; past that (2^19
    // subsets of 19 views take minutes of CHECKs) 65536 of them spread over all by a full-period
    // LCG (odd increment, multiplier = 1 mod 4), always with the whole set and each view alone.
    std::vector<unsigned> masks;
    const unsigned all = (1u << kViews) - 1;
    if (kViews <= 16) {
      for (unsigned mask = 1; mask <= all; ++mask) masks.push_back(mask);
    } else {
      masks.push_back(all);
      for (size_t i = 0; i < kViews; ++i) masks.push_back(1u << i);
      unsigned x = 1;
      for (int i = 0; i < 65536; ++i) {
        x = (x * 1664525u + 1013904223u) & all;
        if (x) masks.push_back(x);
      }
    }
    for (const unsigned mask : masks) {
      ShownViews shown{};
      for (size_t i = 0; i < kViews; ++i) shown[i] = (mask >> i) & 1u;
      INFO(layout_kind_name(kind) << ", views mask " << mask);
      check_tiling(shown, tile_views(shown, work, kind), work);
    }
  }
}

TEST_CASE("layout: two views share the window instead of keeping their all-views places", "[gui][layout]") {
  const Rect work{ImVec2(0, 20), ImVec2(1600, 940)};
  ShownViews shown{};
  shown[size_t(ViewId::ptx)] = shown[size_t(ViewId::warps)] = true;
  const ViewRects r = tile_views(shown, work, LayoutKind::four_columns);
  const Rect& ptx = r[size_t(ViewId::ptx)];
  const Rect& warps = r[size_t(ViewId::warps)];
  // Side by side, each the full height, the PTX (the wider column) on the right.
  CHECK(warps.pos.x == 0.0f);
  CHECK(ptx.pos.x == warps.right());
  CHECK(ptx.right() == 1600.0f);
  CHECK(ptx.size.y == 940.0f);
  CHECK(warps.size.y == 940.0f);
  CHECK(ptx.size.x > warps.size.x);
}

TEST_CASE("layout: three columns below 1600x1000 of unscaled room, four above", "[gui][layout]") {
  CHECK(choose_layout(ImVec2(1600, 940), 1.0f) == LayoutKind::four_columns);
  CHECK(choose_layout(ImVec2(1280, 740), 13.0f / 15.0f) == LayoutKind::three_columns);
  CHECK(choose_layout(ImVec2(2560, 1380), 19.0f / 15.0f) == LayoutKind::four_columns);
  // A HiDPI monitor at twice the pixels is the same room.
  CHECK(choose_layout(ImVec2(2560, 1480), 2.0f) == LayoutKind::three_columns);
}

TEST_CASE("layout: a window is moved and shrunk into the work area", "[gui][layout]") {
  const Rect work{ImVec2(0, 20), ImVec2(1280, 740)};
  const struct {
    const char* what;
    Rect in, out;
  } cases[] = {
      {"far off screen (a damaged imgui.ini)", {{30000, -30000}, {400, 300}}, {{880, 20}, {400, 300}}},
      {"under the menu bar", {{100, 0}, {400, 300}}, {{100, 20}, {400, 300}}},
      {"larger than the screen", {{-5, 10}, {5000, 4000}}, {{0, 20}, {1280, 740}}},
      {"inside already", {{10, 30}, {100, 100}}, {{10, 30}, {100, 100}}},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    const Rect r = clamp_into(c.in, work);
    CHECK(r.pos.x == c.out.pos.x);
    CHECK(r.pos.y == c.out.pos.y);
    CHECK(r.size.x == c.out.size.x);
    CHECK(r.size.y == c.out.size.y);
  }
}

TEST_CASE("layout: the UI scale grows with the window and the monitor's content scale", "[gui][layout]") {
  const auto px = [](int w, int h, float cs) { return choose_ui_scale(w, h, cs) * 15.0f; };
  CHECK(px(1600, 1000, 1.0f) == Approx(15.0f));
  CHECK(px(1280, 800, 1.0f) == Approx(13.0f));
  CHECK(px(800, 600, 1.0f) == Approx(13.0f));  // never smaller
  const float large = px(2560, 1440, 1.0f);
  CHECK(large >= 18.0f);
  CHECK(large <= 20.0f);
  // The same room on a monitor at twice the density: twice the pixels per character.
  CHECK(px(3200, 2000, 2.0f) == Approx(30.0f));
  // Whole pixels, and larger windows never get smaller text.
  float last = 0.0f;
  for (int w = 800; w <= 4000; w += 40) {
    const float p = px(w, w * 10 / 16, 1.0f);
    CHECK(p == std::round(p));
    CHECK(p >= last);
    last = p;
  }
  // Nonsense from the window system falls back to scale 1.
  CHECK(px(1600, 1000, std::nanf("")) == Approx(15.0f));
  CHECK(px(1600, 1000, 0.0f) == Approx(15.0f));
}

namespace {

std::filesystem::path temp_file(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("gemmscope-layout-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

}  // namespace

TEST_CASE("layout file: read when sane, ignored with a notice when too large or not text", "[gui][layout]") {
  // Missing: a first start, nothing to say.
  const LayoutFile missing = read_layout_file(temp_file("missing.ini").string());
  CHECK(missing.text.empty());
  CHECK(missing.notice.empty());

  const auto ok = temp_file("ok.ini");
  std::ofstream(ok) << "[Window][PTX###ptx]\nPos=10,20\nSize=300,400\n";
  const LayoutFile read = read_layout_file(ok.string());
  CHECK(read.notice.empty());
  CHECK(read.text.find("Pos=10,20") != std::string::npos);

  // 10 MB of window entries: refused from its size alone, at once.
  const auto big = temp_file("big.ini");
  {
    std::ofstream f(big);
    const std::string entry = "[Window][w]\nPos=1,1\n";
    for (size_t n = 0; n < 10'000'000 / entry.size(); ++n) f << entry;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const LayoutFile large = read_layout_file(big.string());
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(100));
  CHECK(large.text.empty());
  CHECK(large.notice.find(big.string()) != std::string::npos);
  CHECK(large.notice.find("more than the 64.0 KiB") != std::string::npos);

  const auto binary = temp_file("binary.ini");
  std::ofstream(binary, std::ios::binary) << std::string("[Window]\0\x01\x02", 11);
  const LayoutFile bin = read_layout_file(binary.string());
  CHECK(bin.text.empty());
  CHECK(bin.notice.find("not a window layout") != std::string::npos);
  CHECK_FALSE(bin.replaceable);
  // A layout section followed by a NUL byte is a damaged layout: ignored, and replaced later.
  std::ofstream(binary, std::ios::binary) << std::string("[Window][x]\nPos=1,1\n\0\x01", 22);
  const LayoutFile damaged = read_layout_file(binary.string());
  CHECK(damaged.notice.find("not a text file") != std::string::npos);
  CHECK(damaged.replaceable);

  // Not a layout at all: a picture, some text. Ignored, and never to be written over.
  const auto png = temp_file("precious.png");
  std::ofstream(png, std::ios::binary) << std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  const LayoutFile picture = read_layout_file(png.string());
  CHECK(picture.text.empty());
  CHECK_FALSE(picture.replaceable);
  CHECK(picture.notice.find("is not a window layout") != std::string::npos);
  const auto notes = temp_file("notes.txt");
  std::ofstream(notes) << "my notes\n[Window][x]\n";
  CHECK_FALSE(read_layout_file(notes.string()).replaceable);
  CHECK(read_layout_file(ok.string()).replaceable);

  const LayoutFile dir = read_layout_file(std::filesystem::temp_directory_path().string());
  CHECK(dir.text.empty());
  CHECK(dir.notice.find("directory") != std::string::npos);
  std::filesystem::remove_all(ok.parent_path());
}

TEST_CASE("layout: the focus layout tiles ladder, lesson, focus views and tabs with no gap", "[gui][layout][focus]") {
  const Rect work{ImVec2(0, 17), ImVec2(1280, 757)};
  for (const LayoutKind kind : {LayoutKind::four_columns, LayoutKind::three_columns})
    for (size_t n = 0; n <= 4; ++n)
      for (const bool more : {false, true}) {
        INFO(layout_kind_name(kind) << ", " << n << " focus views, tabs " << more);
        const FocusRects f = tile_focus(n, more, work, kind);
        std::vector<Rect> all{f.ladder, f.lesson};
        if (more) all.push_back(f.more);
        else CHECK(f.more.size.x == 0.0f);
        REQUIRE(f.focus.size() == n);
        all.insert(all.end(), f.focus.begin(), f.focus.end());
        double area = 0.0;
        for (size_t i = 0; i < all.size(); ++i) {
          const Rect& r = all[i];
          check_inside(r, work);
          area += double(r.size.x) * double(r.size.y);
          for (size_t j = i + 1; j < all.size(); ++j) {
            const Rect& o = all[j];
            const float w = std::min(r.right(), o.right()) - std::max(r.pos.x, o.pos.x);
            const float h = std::min(r.bottom(), o.bottom()) - std::max(r.pos.y, o.pos.y);
            CHECK((w <= 0.0f || h <= 0.0f));
          }
        }
        CHECK(area == Approx(double(work.size.x) * double(work.size.y)));
        // The lesson spans the right part; the first focus view is the widest of them.
        CHECK(f.lesson.size.x > f.ladder.size.x);
        for (size_t i = 1; i < n; ++i) CHECK(f.focus[0].size.x > f.focus[i].size.x);
      }
}
