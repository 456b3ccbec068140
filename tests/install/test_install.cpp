// `cmake --install` of this build into a temporary prefix: the files land where
// cmake/install.cmake says (and nothing else does), and the installed tree works on its own after
// it is moved somewhere else: --version, list, and (under Xvfb) a headless screenshot that must
// take its assets from the moved tree, found relative to the binary.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "run/build_info.hpp"
#include "tests/support/shell.hpp"
#ifdef GEMMSCOPE_HAVE_GUI
#include "gui/app/assets.hpp"
#endif

namespace {

namespace fs = std::filesystem;
using gs::test::run_shell;
using gs::test::shell_quote;

// Every regular file under `root`, as paths relative to it.
std::set<std::string> files_under(const fs::path& root) {
  std::set<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root))
    if (entry.is_regular_file()) files.insert(fs::relative(entry.path(), root).generic_string());
  return files;
}

// What cmake/install.cmake installs, relative to the prefix.
std::set<std::string> expected_files() {
  std::set<std::string> files = {"bin/gemmscope", "bin/gemmscope_model_bench", "share/doc/gemmscope/README.md",
                                 "share/doc/gemmscope/LICENSE"};
#ifdef GEMMSCOPE_HAVE_GUI
  for (int size : gs::gui::kIconSizes) {
    files.insert("share/gemmscope/icons/gemmscope-" + std::to_string(size) + ".png");
    files.insert("share/icons/hicolor/" + std::to_string(size) + "x" + std::to_string(size) + "/apps/gemmscope.png");
  }
  files.insert("share/icons/hicolor/scalable/apps/gemmscope.svg");
  files.insert("share/applications/gemmscope.desktop");
  for (const auto& entry : fs::directory_iterator(fs::path(GEMMSCOPE_SOURCE_DIR) / "assets" / "reference"))
    if (entry.path().extension() == ".json")
      files.insert("share/gemmscope/reference/" + entry.path().filename().string());
#endif
  return files;
}

std::string read_text(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// A PNG's width and height from its IHDR chunk (bytes 16..23, big-endian).
std::pair<int, int> png_size(const fs::path& path) {
  const std::string s = read_text(path);
  if (s.size() < 24 || s.compare(1, 3, "PNG") != 0) return {0, 0};
  auto be32 = [&](size_t at) {
    return int((uint32_t(uint8_t(s[at])) << 24) | (uint32_t(uint8_t(s[at + 1])) << 16) |
               (uint32_t(uint8_t(s[at + 2])) << 8) | uint32_t(uint8_t(s[at + 3])));
  };
  return {be32(16), be32(20)};
}

}  // namespace

TEST_CASE("the build installs into any prefix and runs from there after being moved", "[install]") {
  const fs::path build = GEMMSCOPE_BUILD_DIR;
  if (!fs::exists(build / "cmake_install.cmake")) {
    // The test binary was carried away from its build tree (to a GPU machine): nothing to install.
    WARN("no build tree at " << build << ": skipping the install test");
    return;
  }
  const fs::path tmp = fs::temp_directory_path() / ("gemmscope-install-test-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  const fs::path prefix = tmp / "prefix";
  const gs::test::ShellRun install = run_shell(shell_quote(GEMMSCOPE_CMAKE_COMMAND) + " --install " +
                                               shell_quote(build.string()) + " --prefix " + shell_quote(prefix.string()));
  {
    INFO(install.output);
    REQUIRE(install.code == 0);
  }

  CHECK(files_under(prefix) == expected_files());
  for (const char* exe : {"bin/gemmscope", "bin/gemmscope_model_bench"})
    CHECK((fs::status(prefix / exe).permissions() & fs::perms::owner_exec) != fs::perms::none);
#ifdef GEMMSCOPE_HAVE_GUI
  for (int size : gs::gui::kIconSizes) {
    INFO("icon size " << size);
    const std::string n = std::to_string(size);
    CHECK(png_size(prefix / ("share/icons/hicolor/" + n + "x" + n + "/apps/gemmscope.png")) == std::pair{size, size});
  }
  const std::string desktop = read_text(prefix / "share/applications/gemmscope.desktop");
  CHECK(desktop.rfind("[Desktop Entry]\n", 0) == 0);
  CHECK(desktop.find("\nExec=gemmscope gui\n") != std::string::npos);
  CHECK(desktop.find("\nIcon=gemmscope\n") != std::string::npos);
#endif

  // Move the whole tree: the install prefix no longer exists, so only a lookup relative to the
  // binary can find its files.
  const fs::path moved = tmp / "moved" / "elsewhere";
  fs::create_directories(moved.parent_path());
  fs::rename(prefix, moved);
  const std::string exe = shell_quote((moved / "bin/gemmscope").string());

  const gs::test::ShellRun version = run_shell(exe + " --version");
  CHECK(version.code == 0);
  CHECK(version.output == "gemmscope " + gs::version_string() + "\n");
  const gs::test::ShellRun list = run_shell(exe + " list");
  CHECK(list.code == 0);
  CHECK(list.output.find("simt_naive") != std::string::npos);
  const gs::test::ShellRun bench_help = run_shell(shell_quote((moved / "bin/gemmscope_model_bench").string()) + " --help");
  CHECK(bench_help.code == 0);

#ifdef GEMMSCOPE_HAVE_GUI
  if (gs::test::xvfb_or_skip()) {
    const fs::path png = tmp / "s.png", json = tmp / "s.json";
    // Leak checking off as in tests/gui/test_headless.cpp: the process also runs Mesa and X11.
    const gs::test::ShellRun shot =
        run_shell("ASAN_OPTIONS=detect_leaks=0 xvfb-run -a " + exe +
                  " gui --no-settings --kernel simt_naive --frames 2 --size 800x600 --screenshot " +
                  shell_quote(png.string()) + " --state-json " + shell_quote(json.string()));
    INFO(shot.output);
    CHECK(shot.code == 0);
    CHECK(png_size(png) == std::pair{800, 600});
    std::ifstream jf(json);
    const nlohmann::json state = nlohmann::json::parse(jf, nullptr, false);
    REQUIRE(!state.is_discarded());
    CHECK(state["assets"]["dir"] == fs::canonical(moved / "share/gemmscope").string());
    CHECK(state["assets"]["window_icon"] == true);
    // The speed ladder's shipped runs come from the installed tree too.
    CHECK(state["views"]["ladder"]["speed"]["references"].size() == 3);
    for (const auto& problem : state["views"]["problems"]["items"]) {
      INFO(problem.dump());
      CHECK(problem["source"] != "app");  // a missing font or icon is an app warning
    }
  }
#endif
  fs::remove_all(tmp);
}
