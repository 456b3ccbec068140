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

TEST_CASE("the tensor-memory view draws step 23's two accumulators in the colours of who holds them",
          "[gui][xvfb][tmem]") {
  if (!xvfb_or_skip()) return;
  auto k = gs::gui::open_kernel({.kernel_id = "blackwell_persistent_tmem2", .only_traced_cta = true});
  const gs::model::Trace& t = k->trace();
  // The first tcgen05.ld of one buffer while an MMA into the other runs.
  uint32_t load = gs::ir::kNone, read = 0;
  for (uint32_t e : t.of_kind(gs::model::EventKind::tmem_op)) {
    const gs::model::TmemOp& ld = t.tmem[t.events[e].payload];
    if (ld.kind != gs::model::TmemOpKind::load) continue;
    for (const gs::model::TmemOp& m : t.tmem)
      if (m.kind == gs::model::TmemOpKind::mma && m.column / 256 != ld.column / 256 && m.issue_cycle <= t.events[e].cycle &&
          t.events[e].cycle < m.complete_cycle)
        load = e;
    if (load != gs::ir::kNone) {
      read = ld.column / 256;
      break;
    }
  }
  REQUIRE(load != gs::ir::kNone);
  // Steps (warp-instructions) past that load.
  const auto& insts = t.of_kind(gs::model::EventKind::warp_inst);
  uint32_t steps = 0;
  while (steps < insts.size() && insts[steps] <= load) ++steps;
  const Headless h = run_headless("tmem_acc", "--kernel blackwell_persistent_tmem2 --view tmem --size 1000x700 --steps " +
                                                  std::to_string(steps));
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& v = h.state["views"]["tmem"];
  CHECK(v["allocated_columns"] == 512);
  REQUIRE(v["accumulators"].size() == 2);
  const uint32_t filled = 1 - read;
  CHECK(v["accumulators"][read]["owner"] == "readers");
  CHECK(v["accumulators"][filled]["owner"] == "MMA thread");
  // The pixels: each bar in its holder's colour (light or dark theme), the two apart.
  REQUIRE(h.state["drawn"].contains("tmem.acc0"));
  REQUIRE(h.state["drawn"].contains("tmem.acc1"));
  const auto a0 = h.state["drawn"]["tmem.acc0"].get<std::array<float, 4>>();  // x, y, width, height
  const auto a1 = h.state["drawn"]["tmem.acc1"].get<std::array<float, 4>>();
  CHECK(a0[0] < a1[0]);
  const auto sample = [&](const std::array<float, 4>& r) { return h.pixel(int(r[0] + r[2] * 0.95f), int(r[1] + r[3] * 0.8f)); };
  const auto p0 = sample(read == 0 ? a0 : a1), p1 = sample(read == 0 ? a1 : a0);  // the read one, the filled one
  CHECK(p0 != p1);
  const auto is = [](const std::array<int, 3>& p, gs::gui::Rgb c) { return p[0] == c[0] && p[1] == c[1] && p[2] == c[2]; };
  using gs::gui::TmemOwner;
  CHECK((is(p0, gs::gui::tmem_owner_rgb(TmemOwner::readers, true)) || is(p0, gs::gui::tmem_owner_rgb(TmemOwner::readers, false))));
  CHECK((is(p1, gs::gui::tmem_owner_rgb(TmemOwner::mma, true)) || is(p1, gs::gui::tmem_owner_rgb(TmemOwner::mma, false))));
}
