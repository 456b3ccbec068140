// Running `gemmscope gui` headless under Xvfb from a test, and reading what it left: the exit
// code, its output, the screenshot's pixels and --state-json. Shared by the headless tests.
#pragma once

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <stb_image.h>

#include "tests/support/shell.hpp"

namespace gs::gui::test {

using gs::test::xvfb_or_skip;  // tests/support/shell.hpp

struct Headless {
  int code = -1;
  std::string output;
  nlohmann::json state;
  std::vector<unsigned char> rgb;  // 3 bytes per pixel
  int w = 0, h = 0;

  std::array<int, 3> pixel(int x, int y) const {
    const size_t i = (size_t(y) * size_t(w) + size_t(x)) * 3;
    return {rgb[i], rgb[i + 1], rgb[i + 2]};
  }
};

// A folder of this test process for the runs' files.
inline std::filesystem::path headless_dir() {
  const auto dir = std::filesystem::temp_directory_path() / ("gemmscope-gui-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// Under ASan, llvmpipe draws on the calling thread only: with its rasterizer threads alive at
// exit, LeakSanitizer's stop-the-world tracer itself crashed ("Tracer caught signal 11") on
// the 1280x800 readability run, every time under ctest and never when the same command ran
// by hand (2026-11-24). LP_NUM_THREADS=0 removed it; the pixels are the same.
#if defined(GEMMSCOPE_ASAN_BUILD)
inline constexpr const char* kHeadlessEnv = "LP_NUM_THREADS=0 ";
#else
inline constexpr const char* kHeadlessEnv = "";
#endif

// Runs `gemmscope gui --no-settings ARGS --screenshot P --state-json J` under Xvfb with a screen
// of `screen` (WxH, at least the window) and loads both. `prepare` runs before each try: it
// writes again the inputs a run changes (a --layout-file the app saves its layout over), so that
// a try after LeakSanitizer's tracer crashed sees what the first one saw.
inline Headless run_headless(const std::string& name, const std::string& args, const std::string& screen = "1920x1200",
                             const std::function<void()>& prepare = {}) {
  const std::filesystem::path dir = headless_dir();
  const auto png = dir / (name + ".png"), json = dir / (name + ".json"), log = dir / (name + ".log");
  // Leaks are checked in the GUI too (sanitizer builds): a leak makes the run exit non-zero.
  // Mesa's driver, whose globals LeakSanitizer would lose sight of, stays loaded (app.cpp).
  const auto command = [&](bool leaks) {
    return std::string(kHeadlessEnv) + "ASAN_OPTIONS=detect_leaks=" + (leaks ? "1" : "0") + " xvfb-run -a -s '-screen 0 " +
           screen + "x24' '" + std::string(GEMMSCOPE_CLI_PATH) + "' gui --no-settings " + args + " --screenshot '" +
           png.string() + "' --state-json '" + json.string() + "' >'" + log.string() + "' 2>&1";
  };
  Headless h;
  // In a full ctest run LeakSanitizer's tracer crashed on every try of one run (2026-11-27 and
  // -28; 2026-12-06 on a run that must exit 2, whose exit status the crash replaced with 1). The
  // app had finished by then: LeakSanitizer runs after main returns. After kLeakCheckerRetries
  // such tries the last runs without the leak check, so that its exit status is the app's own,
  // with a warning that the leak check could not be made.
  for (int attempt = 0;; ++attempt) {
    if (prepare) prepare();
    std::error_code ignored;  // no picture or state of an earlier run (or try) is taken for this one's
    std::filesystem::remove(png, ignored);
    std::filesystem::remove(json, ignored);
    const bool leaks = attempt < gs::test::kLeakCheckerRetries;
    const int status = std::system(command(leaks).c_str());
    h.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream lf(log);
    h.output.assign(std::istreambuf_iterator<char>(lf), {});
    if (!leaks || h.code == 0 || !gs::test::leak_checker_crashed(h.output)) break;
    if (attempt + 1 < gs::test::kLeakCheckerRetries) WARN("LeakSanitizer's tracer crashed, not the app; running it again: " << args);
    else WARN("LeakSanitizer's tracer crashed on every try of " << args << ": running it once more without the leak check");
  }
  std::ifstream jf(json);
  if (jf) h.state = nlohmann::json::parse(jf, nullptr, false);
  int n = 0;
  if (unsigned char* data = stbi_load(png.string().c_str(), &h.w, &h.h, &n, 3)) {
    h.rgb.assign(data, data + size_t(h.w) * size_t(h.h) * 3);
    stbi_image_free(data);
  }
  return h;
}

// Distinct colours in a sample of the image: a blank or single-colour frame has very few.
inline size_t distinct_colours(const Headless& h) {
  std::set<int> colours;
  for (int y = 0; y < h.h; y += 3)
    for (int x = 0; x < h.w; x += 3) {
      const auto p = h.pixel(x, y);
      colours.insert((p[0] << 16) | (p[1] << 8) | p[2]);
    }
  return colours.size();
}

// Two runs of the same views that must give the same picture: both succeeded, at one size,
// and the pixels that differ above the status bar (which says how long opening the kernel
// took, different in every run).
inline size_t differing_above_status_bar(const Headless& a, const Headless& b) {
  REQUIRE(a.code == 0);
  REQUIRE(b.code == 0);
  REQUIRE(a.w == b.w);
  REQUIRE(a.h == b.h);
  REQUIRE(!a.rgb.empty());
  REQUIRE(a.state["window"].contains("status_bar_height"));
  const int status_bar = int(std::ceil(a.state["window"]["status_bar_height"].get<double>()));
  REQUIRE(status_bar > 0);
  REQUIRE(status_bar < a.h / 10);
  size_t differing = 0;
  for (size_t i = 0; i < size_t(a.w) * size_t(a.h - status_bar) * 3; i += 3)
    differing += a.rgb[i] != b.rgb[i] || a.rgb[i + 1] != b.rgb[i + 1] || a.rgb[i + 2] != b.rgb[i + 2];
  return differing;
}

}  // namespace gs::gui::test
