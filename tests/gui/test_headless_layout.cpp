// The app's layout for real, under Xvfb: where the view windows are (--state-json's "layout"),
// from a fresh config, with a subset of views, from a damaged imgui.ini, and at the window sizes
// people use, where every view must stay readable.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include "gui/core/settings.hpp"
#include "tests/gui/headless.hpp"

using namespace gs::gui::test;

namespace {

struct WindowRect {
  double x, y, w, h;
};

// The view windows of a run, by view name.
std::map<std::string, WindowRect> view_rects(const Headless& h) {
  std::map<std::string, WindowRect> out;
  for (const auto& [name, r] : h.state["layout"]["views"].items()) out[name] = {r[0], r[1], r[2], r[3]};
  return out;
}

// The work area: below the menu bar, above the status bar.
WindowRect work_area(const Headless& h) {
  const double menu = h.state["layout"]["menu_bar_height"], status = h.state["layout"]["status_bar_height"];
  return {0.0, menu, double(h.w), double(h.h) - menu - status};
}

// Every view window lies inside the work area: none covers the menu bar or the status bar or
// reaches off screen. Returns the windows' total area.
double check_inside_work_area(const Headless& h) {
  REQUIRE(h.state["layout"].is_object());
  const WindowRect work = work_area(h);
  CHECK(work.y >= 15.0);  // there is a menu bar
  double area = 0.0;
  for (const auto& [name, r] : view_rects(h)) {
    INFO(name << " at " << r.x << "," << r.y << " size " << r.w << "x" << r.h << "; work area from y " << work.y
              << " height " << work.h);
    CHECK(r.x >= work.x - 0.5);
    CHECK(r.y >= work.y - 0.5);
    CHECK(r.x + r.w <= work.x + work.w + 0.5);
    CHECK(r.y + r.h <= work.y + work.h + 0.5);
    area += r.w * r.h;
  }
  return area;
}

// The view windows tile the work area: inside it, no two overlapping, covering all of it.
void check_tiled(const Headless& h) {
  const WindowRect work = work_area(h);
  CHECK(check_inside_work_area(h) == Approx(work.w * work.h).epsilon(0.001));
  const auto rects = view_rects(h);
  for (auto a = rects.begin(); a != rects.end(); ++a)
    for (auto b = std::next(a); b != rects.end(); ++b) {
      const double w = std::min(a->second.x + a->second.w, b->second.x + b->second.w) - std::max(a->second.x, b->second.x);
      const double ht = std::min(a->second.y + a->second.h, b->second.y + b->second.h) - std::max(a->second.y, b->second.y);
      INFO(a->first << " overlaps " << b->first);
      CHECK((w <= 0.5 || ht <= 0.5));
    }
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

namespace {
// The views a fresh config shows: all but those closed at first (Settings::defaults).
size_t views_shown_by_default() {
  const auto& show = gs::gui::Settings::defaults().show;
  return size_t(std::count(show.begin(), show.end(), true));
}
}  // namespace

TEST_CASE("layout: on a fresh config no view covers the menu bar, also in the saved layout", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  const auto ini = headless_dir() / "fresh.ini";
  std::filesystem::remove(ini);
  const Headless h = run_headless("fresh-layout", "--kernel hopper_tma_wgmma_64 --view all --layout-file '" + ini.string() + "'");
  INFO(h.output);
  REQUIRE(h.code == 0);
  REQUIRE(view_rects(h).size() == views_shown_by_default());
  const WindowRect work = work_area(h);
  check_tiled(h);
  // The layout saved at exit has them below the menu bar too (it used to keep y = 0).
  const std::string saved = read_text(ini);
  INFO(saved);
  size_t windows = 0;
  for (size_t at = saved.find("[Window]["); at != std::string::npos; at = saved.find("[Window][", at + 1)) {
    const size_t pos = saved.find("Pos=", at);
    REQUIRE(pos != std::string::npos);
    int x = -1, y = -1;
    REQUIRE(std::sscanf(saved.c_str() + pos, "Pos=%d,%d", &x, &y) == 2);
    if (saved.compare(at, 23, "[Window][Debug##Default") == 0) continue;  // ImGui's own, never shown
    ++windows;
    CHECK(y >= int(work.y));
  }
  CHECK(windows == views_shown_by_default());
}

TEST_CASE("layout: a subset of views fills the window", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  for (const char* views : {"--view ptx --view warps", "--view ladder --view smem --view throughput"}) {
    INFO(views);
    const Headless h = run_headless("subset", std::string("--kernel hopper_tma_wgmma_64 ") + views);
    INFO(h.output);
    REQUIRE(h.code == 0);
    REQUIRE(view_rects(h).size() >= 2);
    check_tiled(h);
  }
}

TEST_CASE("layout: a damaged imgui.ini cannot hide windows or stall the start", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  // Windows far off screen, larger than the screen, under the menu bar.
  // Each try writes the file again: the app saves its layout over it at the end of a run.
  const auto ini = headless_dir() / "damaged.ini";
  Headless h = run_headless("damaged-layout", "--kernel hopper_tma_wgmma_64 --view all --layout-file '" + ini.string() + "'",
                            "1920x1200", [&] {
                              std::ofstream(ini) << "[Window][PTX###ptx]\nPos=30000,-30000\nSize=400,500\nCollapsed=0\n\n"
                                                    "[Window][Warps###warps]\nPos=-9000,9000\nSize=99999,99999\n"
                                                    "Collapsed=0\n\n"
                                                    "[Window][Ladder###ladder]\nPos=0,0\nSize=300,300\nCollapsed=0\n\n";
                            });
  INFO(h.output);
  REQUIRE(h.code == 0);
  REQUIRE(view_rects(h).size() == views_shown_by_default());
  check_inside_work_area(h);
  // The saved positions are kept where they fit (the ladder's x, the PTX view's size).
  CHECK(view_rects(h)["ladder"].x == 0.0);
  CHECK(view_rects(h)["ptx"].w == 400.0);

  // 10 MB of windows: ImGui would read it all and look each one up in a list of all the others.
  const auto big = headless_dir() / "big.ini";
  const auto write_big = [&] {
    std::ofstream f(big);
    for (int i = 0; i < 400000; ++i) f << "[Window][w" << i << "]\nPos=" << i << ",0\nSize=9,9\n";
  };
  write_big();
  REQUIRE(std::filesystem::file_size(big) > 10'000'000);
  // The time of the last try (a try after the leak checker's crash writes the file again first).
  auto t0 = std::chrono::steady_clock::now();
  h = run_headless("big-layout", "--kernel hopper_tma_wgmma_64 --view ptx --layout-file '" + big.string() + "'",
                   "1920x1200", [&] {
                     write_big();
                     t0 = std::chrono::steady_clock::now();
                   });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(h.output);
  REQUIRE(h.code == 0);
  CHECK(seconds < 30.0);
  bool noticed = false;
  for (const auto& p : h.state["views"]["problems"]["items"])
    noticed |= p["kind"] == "layout" && p["severity"] == "warning";
  CHECK(noticed);
  // Replaced by the layout on screen.
  CHECK(std::filesystem::file_size(big) < 4096);
}

TEST_CASE("layout: every view stays readable from 1280x800 to 2560x1440", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  // Text that used to be cut, wrapped a word a line, run together or covered (views.hpp:
  // note_fit); every one must be laid out at every size.
  const char* const kFits[] = {"ladder.speed",    "ladder.what_changed", "ladder.shape_field",
                               "ladder.rounds",   "transport.cycle",     "transport.speed",
                               "ptx.header",      "smem.bank_numbers",   "tma.axis_labels",
                               "tma.lane_labels"};
  const struct {
    const char* size;
    double text_px;  // 15 px x the UI scale
    const char* layout;
  } kSizes[] = {{"1280x800", 13.0, "three-columns"}, {"1600x1000", 15.0, "four-columns"}, {"2560x1440", 19.0, "four-columns"}};
  for (const auto& sz : kSizes) {
    INFO(sz.size);
    // A big K (five-digit shape values, cycle counts in the hundred thousands), 300 steps in.
    const Headless h = run_headless(std::string("readable-") + sz.size,
                                    std::string("--kernel hopper_tma_wgmma_64 --view all --k 16384 --steps 300 --size ") + sz.size,
                                    "2600x1500");
    INFO(h.output);
    REQUIRE(h.code == 0);
    const double scale = h.state["window"]["scale"];
    CHECK(15.0 * scale == Approx(sz.text_px));
    CHECK(h.state["layout"]["kind"] == sz.layout);
    check_tiled(h);
    // The transport shows its controls, scrubber and the event under the cursor.
    CHECK(view_rects(h)["transport"].h / scale >= 180.0);
    const auto& fits = h.state["fits"];
    for (const char* name : kFits) {
      INFO(name);
      REQUIRE(fits.contains(name));
      CHECK(fits[name]["needed"].get<double>() <= fits[name]["available"].get<double>());
    }
  }
}

TEST_CASE("layout: a resized window gets text at its new scale, drawn as without caches", "[gui][xvfb]") {
  if (!xvfb_or_skip()) return;
  // From 1600x1000 (15 px) to 2560x1440 (19 px) halfway through: the font atlas is rebuilt, so
  // the cached text runs and the kept frame's tiles must be thrown away. Not the ladder, which
  // shows the measured open time.
  const std::string args =
      "--kernel hopper_tma_wgmma_64 --steps 300 --frames 8 --size 1600x1000 --resize-to 2560x1440 --view ptx "
      "--view transport --view warps --view smem --view tma --view fragments --view problems";
  const Headless cached = run_headless("resized", args, "2600x1500");
  const Headless plain = run_headless("resized-plain", args + " --no-text-runs --no-damage", "2600x1500");
  INFO(cached.output);
  REQUIRE(cached.code == 0);
  CHECK(cached.w == 2560);
  CHECK(15.0 * cached.state["window"]["scale"].get<double>() == Approx(19.0));
  CHECK(differing_above_status_bar(cached, plain) == 0);
}
