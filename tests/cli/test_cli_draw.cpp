// `gemmscope draw`: pictures of the layout views from the command line, their errors and exit
// codes, and that a bad request never touches the file named by -o. What the pictures show is
// checked in tests/gui/test_svg_picture.cpp.
#include <cmath>
#include <filesystem>
#include <string>
#include <utility>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "tests/support/cli_run.hpp"
#include "tests/support/scratch.hpp"
#include "tests/support/xml_check.hpp"

namespace {

using gs::test::run_cli;
using Catch::Matchers::Contains;

}  // namespace

#ifdef GEMMSCOPE_HAVE_GUI

TEST_CASE("cli: draw writes each layout as well-formed SVG", "[cli][draw]") {
  const gs::test::ScratchDir dir;
  const std::vector<std::vector<std::string>> requests = {
      {"wgmma-acc", "--n", "8"}, {"wgmma-a"}, {"mma-a"}, {"mma-b"}, {"mma-c", "--by-warp"},
      {"ldmatrix", "--num", "2", "--trans"}, {"tcgen05-32x32b", "--x", "1"}, {"swizzle", "--mode", "64B"},
      {"banks", "--pattern", "row-swizzled"}};
  for (std::vector<std::string> args : requests) {
    const std::string file = dir.path(args[0] + ".svg");
    args.insert(args.begin(), "draw");
    args.insert(args.end(), {"-o", file, "--svg"});
    const auto r = run_cli(args);
    INFO(args[1] << ": " << r.err);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Contains("wrote " + file));
    const auto doc = gs::test::parse_xml(gs::test::read_file(file));
    CHECK(doc.front().name == "svg");
  }
  // The option reaches the picture: N=8 has 64x8 cells, N=16 twice as many.
  run_cli({"draw", "wgmma-acc", "--n", "16", "-o", dir.path("n16.svg")});
  const std::string n16 = gs::test::read_file(dir.path("n16.svg"));
  CHECK_THAT(n16, Contains("m64n16k16"));
  CHECK_THAT(n16, Contains("data-row=\"63\" data-col=\"15\""));
  CHECK_THAT(gs::test::read_file(dir.path("swizzle.svg")), Contains("swizzle 64B"));
}

namespace {

// The width and height in a PNG's IHDR chunk (bytes 16-23, big-endian).
std::pair<uint32_t, uint32_t> png_size(const std::string& png) {
  auto be32 = [&](size_t at) {
    return uint32_t(uint8_t(png[at])) << 24 | uint32_t(uint8_t(png[at + 1])) << 16 | uint32_t(uint8_t(png[at + 2])) << 8 |
           uint32_t(uint8_t(png[at + 3]));
  };
  return png.size() < 24 ? std::pair<uint32_t, uint32_t>{0, 0} : std::pair{be32(16), be32(20)};
}

bool is_png(const std::string& bytes) { return bytes.rfind("\x89PNG\r\n\x1a\n", 0) == 0; }

}  // namespace

TEST_CASE("cli: draw writes PNG for --png or a .png name, at the scale asked for", "[cli][draw][png]") {
  const gs::test::ScratchDir dir;
  // The format from the name; SVG units become 2 pixels each by default.
  auto r = run_cli({"draw", "mma-c", "-o", dir.path("c.png")});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string png = gs::test::read_file(dir.path("c.png"));
  CHECK(is_png(png));
  REQUIRE(run_cli({"draw", "mma-c", "-o", dir.path("c.svg")}).code == 0);
  const auto doc = gs::test::parse_xml(gs::test::read_file(dir.path("c.svg")));
  const double w = std::stod(doc.front().attr("width")), h = std::stod(doc.front().attr("height"));
  CHECK(png_size(png) == std::pair{uint32_t(std::ceil(2 * w)), uint32_t(std::ceil(2 * h))});
  CHECK_THAT(r.out, Contains(fmt::format("{}x{} pixels at scale 2", std::ceil(2 * w), std::ceil(2 * h))));
  // --scale, and --png whatever the name; --svg wins over a .png name.
  r = run_cli({"draw", "mma-c", "--png", "--scale", "0.5", "-o", dir.path("c_small.img")});
  CHECK(r.code == 0);
  CHECK(png_size(gs::test::read_file(dir.path("c_small.img"))) ==
        std::pair{uint32_t(std::ceil(0.5 * w)), uint32_t(std::ceil(0.5 * h))});
  r = run_cli({"draw", "mma-c", "--svg", "-o", dir.path("really_svg.png")});
  CHECK(r.code == 0);
  CHECK(gs::test::parse_xml(gs::test::read_file(dir.path("really_svg.png"))).front().name == "svg");
  // The largest map gets a smaller default scale: its longest side stays within 8192 pixels.
  r = run_cli({"draw", "wgmma-acc", "--n", "256", "-o", dir.path("big.PNG")});
  CHECK(r.code == 0);
  const auto big = png_size(gs::test::read_file(dir.path("big.PNG")));
  CHECK(big.first <= 8192);
  CHECK(big.first >= 8000);
  CHECK_THAT(r.out, Contains("at scale 0.93"));
}

TEST_CASE("cli: draw rejects bad layouts and options with exit 2 and writes nothing", "[cli][draw][errors]") {
  const gs::test::ScratchDir dir;
  const std::string kept = dir.write("kept.svg", "my slide\n");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"draw", "wgmma-accumulator"}, "wgmma-acc, wgmma-a, mma-a"},
      {{"draw", "wgmma-acc", "--n", "12"}, "multiple of 8"},
      {{"draw", "wgmma-acc", "--n", "264"}, "264"},
      {{"draw", "swizzle", "--mode", "100B"}, "none, 32B, 64B, 128B"},
      {{"draw", "ldmatrix", "--num", "3"}, "1, 2, 4"},
      {{"draw", "tcgen05-32x32b", "--x", "3"}, "128"},
      {{"draw", "banks", "--pattern", "diagonal"}, "column, row, column-swizzled, row-swizzled"},
      {{"draw", "swizzle", "--n", "64"}, "--n does not apply to swizzle: swizzle takes --mode, --rows"},
      {{"draw", "mma-a", "--trans"}, "mma-a takes no layout options"},
      {{"draw", "mma-a", "--png", "--svg"}, "excludes"},
      {{"draw", "mma-a", "--png", "--scale", "0"}, "'0' is not a picture scale: give a number from 0.25 to 8"},
      {{"draw", "mma-a", "--png", "--scale", "x"}, "'x' is not a picture scale"},
      {{"draw", "mma-a", "--scale", "2"}, "--scale 2 applies to PNG pictures only"},
      {{"draw", "wgmma-acc", "--n", "256", "--png", "--scale", "8"}, "give --scale 1.87 or less"},
  };
  for (Case c : cases) {
    c.args.insert(c.args.end(), {"-o", kept});
    const auto r = run_cli(c.args);
    INFO(c.args[1] << " " << (c.args.size() > 4 ? c.args[2] + " " + c.args[3] : ""));
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Contains(c.says));
    CHECK(gs::test::read_file(kept) == "my slide\n");
  }
  // No -o at all, or an empty one.
  CHECK(run_cli({"draw", "mma-a"}).code == 2);
  CHECK(run_cli({"draw", "mma-a", "-o", ""}).code == 2);
}

TEST_CASE("cli: draw to a path that cannot be written exits 2 naming it", "[cli][draw][errors]") {
  const gs::test::ScratchDir dir;
  const std::string missing = dir.path("no_such_folder/acc.svg");
  auto r = run_cli({"draw", "mma-c", "-o", missing});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains(missing));
  CHECK_FALSE(std::filesystem::exists(missing));
  r = run_cli({"draw", "mma-c", "-o", dir.dir.string()});  // a folder
  CHECK(r.code == 2);
  CHECK(std::filesystem::is_directory(dir.dir));
  // A failed write (a full device) is a failed result, not a crash.
  if (std::filesystem::exists("/dev/full")) {
    r = run_cli({"draw", "mma-c", "-o", "/dev/full"});
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Contains("/dev/full"));
  }
}

TEST_CASE("cli: draw's help states the exit code an unwritable -o gets, and it gets it", "[cli][draw][errors]") {
  const auto help = run_cli({"draw", "--help"});
  CHECK_THAT(help.out, Contains("2 bad usage or an -o path that cannot be written"));
  const auto r = run_cli({"draw", "mma-c", "-o", "/nonexistent/x.png"});
  CHECK(r.code == 2);
}

TEST_CASE("cli: gui --help shows --save-picture", "[cli][draw]") {
  const auto r = run_cli({"gui", "--help"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Contains("--save-picture"));
}

TEST_CASE("cli: draw --help lists the layouts and their options", "[cli][draw]") {
  const auto r = run_cli({"draw", "--help"});
  CHECK(r.code == 0);
  for (const char* s : {"wgmma-acc", "wgmma-a", "mma-b", "ldmatrix", "tcgen05-32x32b", "swizzle", "banks", "--mode",
                        "--pattern", "--num", "--trans", "--png"})
    CHECK_THAT(r.out, Contains(s));
}

#else

TEST_CASE("cli: draw in a build without the app says it needs the app's build", "[cli][draw]") {
  const auto r = run_cli({"draw", "mma-a", "-o", "/dev/null"});
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Contains("needs the app's build"));
}

#endif
