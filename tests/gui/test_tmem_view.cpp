// The tensor-memory view under Xvfb: step 21 opened and stepped to its epilogue's first
// tcgen05.ld, the view's cells show the 256 allocated columns apart from the free ones, and
// its state JSON matches the data layer's picture at that position.
#include "gui/core/tmem_data.hpp"
#include "tests/gui/headless.hpp"

using namespace gs::gui::test;

TEST_CASE("the tensor-memory view draws the accumulator's columns apart from the free ones", "[gui][xvfb][tmem]") {
  if (!xvfb_or_skip()) return;
  auto k = gs::gui::open_kernel({.kernel_id = "blackwell_ws_ring", .only_traced_cta = true});
  const gs::model::Trace& t = k->trace();
  // Steps (warp-instructions) up to the first tcgen05.ld of the epilogue.
  const auto& insts = t.of_kind(gs::model::EventKind::warp_inst);
  uint32_t steps = 0;
  while (steps < insts.size() && k->kernel().insts[t.events[insts[steps]].inst].op != gs::ir::Op::tcgen05_ld_32x32b) ++steps;
  REQUIRE(steps < insts.size());
  const Headless h = run_headless("tmem", "--kernel blackwell_ws_ring --view tmem --size 1000x700 --steps " +
                                              std::to_string(steps));
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& v = h.state["views"]["tmem"];
  CHECK(v["used"] == true);
  CHECK(v["allocated_columns"] == 256);
  CHECK(v["mmas_in_flight"] == 0);  // the epilogue waited for tmem_full
  const std::string q0 = v["cells"][0];
  CHECK(q0.substr(0, 32).find_first_of("fa") == std::string::npos);  // columns 0..255 hold the accumulator
  CHECK(q0.substr(32) == std::string(32, 'f'));                        // 256..511 are free
  // The pixels: a block inside the accumulator and one in the free half differ.
  REQUIRE(h.state["drawn"].contains("tmem.cells"));
  const auto c = h.state["drawn"]["tmem.cells"].get<std::array<float, 4>>();  // x, y, width, row height
  const int y = int(c[1] + c[3] * 0.5f);
  const auto inside = h.pixel(int(c[0] + c[2] * 0.1f), y), outside = h.pixel(int(c[0] + c[2] * 0.9f), y);
  CHECK(inside != outside);
  CHECK(distinct_colours(h) > 20);
}
