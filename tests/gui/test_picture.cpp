// Tests for gui/core/picture: File > Save picture's default paths, the SVG a view offers, and
// that a picture that cannot be written is an error in the Problems view that leaves the file
// there as it was. (The PNG read-back itself needs OpenGL: gui/app/app.cpp.)
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/picture.hpp"
#include "gui/core/playback.hpp"
#include "gui/core/session.hpp"
#include "gui/core/tmem_data.hpp"
#include "tests/support/scoped_env.hpp"
#include "tests/support/scratch.hpp"
#include "tests/support/xml_check.hpp"

using namespace gs::gui;

TEST_CASE("picture: default paths name the view and the format, in the last folder or home", "[picture]") {
  const gs::test::ScopedEnv home("HOME", "/home/learner");
  CHECK(default_picture_path("", "fragments", PictureFormat::png) == "/home/learner/gemmscope-fragments.png");
  CHECK(default_picture_path("/tmp/slides", "smem-banks", PictureFormat::svg) == "/tmp/slides/gemmscope-smem-banks.svg");
  CHECK(expand_home("~/a.png") == "/home/learner/a.png");
  CHECK(expand_home("~") == "/home/learner");
  CHECK(expand_home("/x/~/a.png") == "/x/~/a.png");
  CHECK(expand_home("~other/a.png") == "~other/a.png");
}

TEST_CASE("picture: the layout views offer SVG, the others PNG only", "[picture]") {
  CHECK(svg_pictures_of(ViewId::fragments).size() == 1);
  CHECK(svg_pictures_of(ViewId::shared_memory).size() == 2);
  CHECK(svg_pictures_of(ViewId::tmem).size() == 1);
  CHECK(svg_pictures_of(ViewId::ptx).empty());
  AppState app;
  app.fragment_view.map = "mma_c";
  const auto doc = gs::test::parse_xml(view_svg(app, ViewId::fragments, 0));
  CHECK(doc[1].text == "mma.m16n8k16 C/D (f32)");
  // The view's options reach the picture.
  app.fragment_view.map = "wgmma_acc";
  app.fragment_view.param = 16;
  CHECK_THAT(view_svg(app, ViewId::fragments, 0), Catch::Matchers::Contains("m64n16k16"));
  // Nothing to draw: a clear error, not a crash.
  CHECK_THROWS_WITH(view_svg(app, ViewId::shared_memory, 0), Catch::Matchers::Contains("no kernel"));
  CHECK_THROWS(view_svg(app, ViewId::ptx, 0));
  app.fragment_view.param = 12;
  CHECK_THROWS(view_svg(app, ViewId::fragments, 0));
}

TEST_CASE("picture: the tensor-memory view's picture is the running kernel's TMEM at the cursor", "[picture][tmem]") {
  AppState app;
  app.set_kernel(open_kernel({.kernel_id = "blackwell_tcgen05_basic", .only_traced_cta = true}));
  const Snapshot* first = app.snapshot();
  REQUIRE(first != nullptr);
  // At the start nothing is allocated; at the end the accumulator's columns were read and freed,
  // and somewhere between, the MMAs' columns are allocated.
  auto cell_states = [&] {
    std::map<std::string, int> n;
    for (const gs::test::XmlElement& e : gs::test::parse_xml(view_svg(app, ViewId::tmem, 0)))
      if (e.name == "rect" && e.attr("class") == "cell") ++n[e.attr("data-state")];
    return n;
  };
  CHECK(cell_states()["free"] == 4 * 64);
  const TmemHistory* h = tmem_history_shown(app.kernel, app.tmem_view);
  REQUIRE(h != nullptr);
  REQUIRE_FALSE(h->mmas.empty());
  app.seek(h->mmas.front().event);
  const auto during = cell_states();
  CHECK(during.count("free") == 1);
  CHECK(during.at("free") < 4 * 64);
  CHECK_THAT(view_svg(app, ViewId::tmem, 0),
             Catch::Matchers::Contains(fmt::format("blackwell_tcgen05_basic at event {}", h->mmas.front().event)));
}

TEST_CASE("picture: saving replaces the file whole, a failure is a problem and touches nothing", "[picture]") {
  const gs::test::ScratchDir dir;
  AppState app;
  const std::string kept = dir.write("slide.svg", "my slide\n");
  CHECK(save_picture(app, kept, "<svg/>"));
  CHECK(gs::test::read_file(kept) == "<svg/>");
  CHECK(app.problems.empty());
  // A folder that does not exist, and a folder as the file.
  const std::string missing = dir.path("no_such_folder/p.png");
  CHECK_FALSE(save_picture(app, missing, "png bytes"));
  CHECK_FALSE(std::filesystem::exists(missing));
  CHECK_FALSE(save_picture(app, dir.dir.string(), "png bytes"));
  REQUIRE(app.problems.size() == 2);
  CHECK(app.problems[0].severity == Severity::error);
  CHECK(app.problems[0].source == "app");
  CHECK_THAT(app.problems[0].detail, Catch::Matchers::Contains(missing));
  CHECK(gs::test::read_file(kept) == "<svg/>");
  // A full device: the write itself fails.
  if (std::filesystem::exists("/dev/full")) {
    CHECK_FALSE(save_picture(app, "/dev/full", "png bytes"));
    CHECK(app.problems.size() == 3);
  }
}
