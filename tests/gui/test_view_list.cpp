// A view is one row of gui/core/views.def plus its two files, names matching: check every
// row against the tree, and that the names the app uses come from the rows.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "gui/core/settings.hpp"

using namespace gs::gui;

TEST_CASE("every view of views.def has gui/views/<id>.cpp and gui/core/<id>_data.cpp", "[gui][views]") {
  const std::filesystem::path root = GEMMSCOPE_SOURCE_DIR;
  REQUIRE(std::filesystem::exists(root / "gui" / "core" / "views.def"));
  std::set<std::string> ids;
#define VIEW(id, cli_name, title, ...) ids.insert(#id);
#include "gui/core/views.def"
#undef VIEW
  CHECK(ids.size() == size_t(ViewId::count_));
  for (const std::string& id : ids) {
    INFO(id);
    CHECK(std::filesystem::exists(root / "gui" / "views" / (id + ".cpp")));
    CHECK(std::filesystem::exists(root / "gui" / "core" / (id + "_data.cpp")));
    CHECK(std::filesystem::exists(root / "gui" / "core" / (id + "_data.hpp")));
  }
  // And no view file without a row (a view that the shell would never draw).
  for (const auto& entry : std::filesystem::directory_iterator(root / "gui" / "views")) {
    const std::string stem = entry.path().stem().string();
    if (entry.path().extension() != ".cpp" || stem == "common") continue;
    INFO(stem);
    CHECK(ids.count(stem) == 1);
  }
}

TEST_CASE("the --view names and titles come from the rows and parse back", "[gui][views]") {
  std::set<std::string> names;
  for (size_t i = 0; i < size_t(ViewId::count_); ++i) {
    const ViewId v = ViewId(i);
    ViewId back = ViewId::count_;
    REQUIRE(parse_view_name(view_name(v), back));
    CHECK(back == v);
    CHECK(names.insert(view_name(v)).second);
    CHECK(std::string(view_title(v)).size() > 1);
  }
  ViewId out;
  CHECK_FALSE(parse_view_name("nope", out));
}

TEST_CASE("views change the selection and the playback only through AppState's members", "[gui][views]") {
  // app_state.hpp: "Views read it and change it only through these members (select_*, seek,
  // request_*)": a view that assigns app.selection.x or app.playback.x itself skips what the
  // member does (and what every other view relies on).
  const std::filesystem::path root = GEMMSCOPE_SOURCE_DIR;
  const std::regex poke(R"(app\.(selection|playback)\.[A-Za-z_.]+\s*(=[^=]|\+\+|--|[-+*/]=))");
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root / "gui" / "views")) {
    if (entry.path().extension() != ".cpp") continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      INFO(entry.path().filename().string() << ":" << n << ": " << line);
      CHECK_FALSE(std::regex_search(line, poke));
    }
  }
  CHECK(files > 10);
}
