// The Source and Diff views for real, under Xvfb: the C++ line of the cursor's instruction
// next to its PTX line, and the diff against the step before. Screenshots are left in the
// test's temporary folder (headless_dir()) for a look.
#include <catch2/catch.hpp>

#include "gui/core/session.hpp"
#include "tests/gui/headless.hpp"

using namespace gs::gui::test;

TEST_CASE("the Source view shows the C++ line of the cursor's instruction beside the PTX", "[gui][xvfb][source]") {
  if (!xvfb_or_skip()) return;
  const Headless h =
      run_headless("source", "--kernel hopper_tma_wgmma_64 --view ptx --view source --steps 300 --size 1400x900");
  INFO(h.output);
  REQUIRE(h.code == 0);
  CHECK(distinct_colours(h) > 100);
  auto k = gs::gui::open_kernel({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  const auto& insts = k->trace().of_kind(gs::model::EventKind::warp_inst);
  REQUIRE(insts.size() > 300);
  const gs::ir::SourceLoc loc = k->kernel().insts[k->trace().events[insts[300]].inst].src;
  const auto& s = h.state["views"]["source"];
  CHECK(s["current"]["file"] == std::string(k->kernel().source_file(loc)));
  CHECK(s["current"]["line"] == loc.line);
  CHECK(s["shown_file"] == s["current"]["file"]);
  CHECK(s["files"].size() == k->kernel().source_files.size());
}

TEST_CASE("the Diff view compares the kernel with the step before it", "[gui][xvfb][diff]") {
  if (!xvfb_or_skip()) return;
  const Headless h = run_headless("diff", "--kernel hopper_tma_wgmma_64 --view diff --size 1200x800");
  INFO(h.output);
  REQUIRE(h.code == 0);
  CHECK(distinct_colours(h) > 50);
  const auto& d = h.state["views"]["diff"];
  CHECK(d["error"] == "");
  CHECK(d["left"] == "ampere_ldmatrix");
  CHECK(d["right"] == "hopper_tma_wgmma_64");
  CHECK(d["source"]["added"].get<int>() > 0);
}
