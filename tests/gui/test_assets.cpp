// The app's asset lookup (gui/app/assets.hpp): relative to the binary first, then the source
// tree's assets/, and the icon files it loads. tests/install checks the installed tree for real.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <stb_image.h>

#include "gui/app/assets.hpp"

namespace {

namespace fs = std::filesystem;

struct TempTree {
  fs::path root = fs::temp_directory_path() / ("gemmscope-assets-test-" + std::to_string(::getpid()));
  TempTree() { fs::remove_all(root); }
  ~TempTree() { fs::remove_all(root); }
  // Makes `dir`/icons (what marks an assets folder) and returns `dir`.
  fs::path assets(const std::string& dir) const {
    fs::create_directories(root / dir / "icons");
    return fs::canonical(root / dir);
  }
};

}  // namespace

TEST_CASE("the assets are found next to the binary, else in the fallback folder", "[gui][assets]") {
  TempTree t;
  fs::create_directories(t.root / "prefix/bin");
  const fs::path exe = t.root / "prefix/bin/gemmscope";
  std::ofstream(exe) << "";
  const fs::path fallback = t.assets("source/assets");

  SECTION("an installed tree: <prefix>/share/gemmscope, whatever the fallback") {
    const fs::path installed = t.assets("prefix/share/gemmscope");
    CHECK(gs::gui::find_assets_dir(exe, "../share/gemmscope", fallback) == installed.string());
    CHECK(gs::gui::find_assets_dir(exe, "../share/gemmscope", "") == installed.string());
  }
  SECTION("a build tree: nothing next to the binary, so the source tree's assets") {
    CHECK(gs::gui::find_assets_dir(exe, "../share/gemmscope", fallback) == fallback.string());
  }
  SECTION("a folder without icons/ is not an assets folder") {
    fs::create_directories(t.root / "prefix/share/gemmscope");
    CHECK(gs::gui::find_assets_dir(exe, "../share/gemmscope", fallback) == fallback.string());
    CHECK(gs::gui::find_assets_dir(exe, "../share/gemmscope", t.root / "missing").empty());
  }
}

TEST_CASE("a binary in the build tree uses the source tree's assets", "[gui][assets]") {
  // The test binary sits in the build tree, where no share/gemmscope is next to it.
  CHECK(gs::gui::assets_dir() == fs::canonical(fs::path(GEMMSCOPE_SOURCE_DIR) / "assets").string());
}

TEST_CASE("every window icon size is shipped, rendered at the size its name says", "[gui][assets]") {
  for (int size : gs::gui::kIconSizes) {
    const fs::path png = fs::path(GEMMSCOPE_SOURCE_DIR) / "assets/icons" / ("gemmscope-" + std::to_string(size) + ".png");
    INFO(png);
    int w = 0, h = 0, channels = 0;
    REQUIRE(stbi_info(png.string().c_str(), &w, &h, &channels));
    CHECK(w == size);
    CHECK(h == size);
    CHECK(channels == 4);  // the rounded corners are transparent
  }
}
