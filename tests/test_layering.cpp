// The house's layers, checked on the sources: every #include points down (or sideways inside
// one layer), never up.
//
//   0  engine/ir, engine/layout,         the kernel as data, pure layout functions,
//      engine/sys                        running other programs
//   1  engine/builder, engine/ptx,       what reads or writes the IR
//      engine/model, engine/cuda
//   2  kernels                           the ladder
//   3  run                               jobs shared by the command line and the GUI
//   4  gui, cli                          the front ends (cli may open the app)
//   5  bench                             benchmark programs
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>


namespace {

namespace fs = std::filesystem;

struct Layer {
  const char* prefix;
  int level;
};

// Longest prefixes first, so engine/model is not taken for engine.
constexpr Layer kLayers[] = {
    {"engine/ir/", 0},      {"engine/layout/", 0}, {"engine/sys/", 0},     {"engine/builder/", 1}, {"engine/ptx/", 1},
    {"engine/model/", 1},   {"engine/cuda/", 1},   {"kernels/", 2},        {"run/", 3},
    {"gui/", 4},            {"cli/", 4},           {"bench/", 5},
};

int layer_of(const std::string& path) {
  for (const Layer& l : kLayers)
    if (path.rfind(l.prefix, 0) == 0) return l.level;
  return -1;
}

}  // namespace

TEST_CASE("no include runs from a lower layer to a higher one", "[layering]") {
  const fs::path root = GEMMSCOPE_SOURCE_DIR;
  REQUIRE(fs::exists(root / "engine"));
  const std::regex include_re(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<std::string> upward;
  size_t files = 0;
  for (const char* top : {"engine", "kernels", "run", "gui", "cli", "bench"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".def")) continue;
      const std::string rel = fs::relative(entry.path(), root).generic_string();
      const int from = layer_of(rel);
      REQUIRE(from >= 0);
      ++files;
      std::ifstream in(entry.path());
      std::string line;
      std::smatch m;
      while (std::getline(in, line)) {
        if (!std::regex_search(line, m, include_re)) continue;
        const int to = layer_of(m[1].str());
        // cli opens the app (gui) when it was built: the one sideways arrow at layer 4.
        if (to > from) upward.push_back(rel + " includes " + m[1].str());
      }
    }
  }
  CHECK(files > 50);
  INFO("includes that point up a layer:\n" << [&] {
    std::string s;
    for (const std::string& u : upward) s += "  " + u + "\n";
    return s;
  }());
  CHECK(upward.empty());
}

TEST_CASE("no two headers define a type of one name in one namespace", "[layering]") {
  // Two definitions of gs::gui::RasterImage (a widget's texture and a rasterized picture) broke
  // the one-definition rule: the linker kept one destructor for both, and a test built at -O0
  // called the widget's on the picture (2026-11-28). In this code base's style a type at
  // namespace scope starts in column 0 and its namespace is opened in column 0.
  const fs::path root = GEMMSCOPE_SOURCE_DIR;
  const std::regex ns_re(R"re(^namespace ([A-Za-z_:]+) \{)re");
  const std::regex type_re(R"re(^(?:struct|class|enum class|enum|union) ([A-Za-z_][A-Za-z_0-9]*)\b[^;]*$)re");
  std::map<std::string, std::set<std::string>> where;  // "ns::Name" -> headers defining it
  size_t types = 0;
  for (const char* top : {"engine", "kernels", "run", "gui", "cli", "bench"})
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".hpp") continue;
      std::ifstream in(entry.path());
      std::string line, ns;
      std::smatch m;
      while (std::getline(in, line)) {
        if (std::regex_search(line, m, ns_re)) ns = m[1];
        else if (line.rfind("}  // namespace", 0) == 0) ns.clear();
        else if (std::regex_search(line, m, type_re)) {
          where[ns + "::" + std::string(m[1])].insert(fs::relative(entry.path(), root).generic_string());
          ++types;
        }
      }
    }
  CHECK(types > 100);  // the scan found the house's types
  for (const auto& [name, headers] : where) {
    INFO(name);
    for (const std::string& h : headers) INFO(h);
    CHECK(headers.size() == 1);
  }
}
