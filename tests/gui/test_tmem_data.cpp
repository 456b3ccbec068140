// The tensor-memory view's data: allocations, MMAs with the commit that tracks them, ld/st
// with their quarter, and the lanes × columns picture at the cursor. The first cases feed a
// hand-written trace (every number is known), the last a real kernel without tcgen05.
#include <catch2/catch.hpp>

#include <map>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/picture.hpp"
#include "gui/core/svg_picture.hpp"
#include "gui/core/tmem_data.hpp"
#include "tests/gui/gui_fixture.hpp"
#include "tests/support/xml_check.hpp"

using namespace gs;
using namespace gs::gui;
using model::TmemOp;
using model::TmemOpKind;

namespace {

constexpr uint32_t kBar = 0x500;  // the barrier the commits arrive on

// A CTA of 6 warps running the step-21 pattern by hand: warp 5 allocates 256 columns and
// issues the MMAs of two K blocks with a commit after each, warps 0-3 read their quarters
// (warp 1 wrongly reads quarter 2, warp 0 reads once before the MMAs are done), warp 5 frees.
struct HandTrace {
  std::shared_ptr<LoadedKernel> k = std::make_shared<LoadedKernel>();
  std::vector<uint32_t> position_after;  // event index of each add(), in order
  void add(uint64_t cycle, uint16_t warp, const TmemOp& op) {
    model::Trace& t = k->report.result.trace;
    t.tmem.push_back(op);
    t.events.push_back({.cycle = cycle, .kind = model::EventKind::tmem_op, .warp = warp, .mask = ~0u,
                        .payload = uint32_t(t.tmem.size() - 1), .a = uint32_t(op.kind)});
    position_after.push_back(uint32_t(t.events.size() - 1));
  }
  HandTrace() {
    model::Trace& t = k->report.result.trace;
    t.warps = t.warps_per_cta = 6;
    t.ctas = {{.ctaid = {0, 0, 0}, .linear = 0, .rank = 0, .first_warp = 0}};
    t.end_cycle = 1000;
    add(10, 5, {.kind = TmemOpKind::alloc, .lanes = 128, .columns = 256, .issue_cycle = 10, .complete_cycle = 10});
    add(11, 5, {.kind = TmemOpKind::relinquish});
    for (uint32_t i = 0; i < 4; ++i)  // K block 0: four k16 MMAs into the whole 128x256 accumulator
      add(100 + i, 5, {.kind = TmemOpKind::mma, .lanes = 128, .columns = 256, .issue_cycle = 100 + i, .complete_cycle = 300});
    add(104, 5, {.kind = TmemOpKind::commit, .cta_mask = 1, .mbar = kBar, .issue_cycle = 104, .complete_cycle = 300});
    add(400, 5, {.kind = TmemOpKind::mma, .lanes = 128, .columns = 256, .issue_cycle = 400, .complete_cycle = 600});
    add(401, 5, {.kind = TmemOpKind::commit, .cta_mask = 1, .mbar = kBar, .issue_cycle = 401, .complete_cycle = 600});
    // Each load with the model's quarter verdict (op traits' TmemAccessRule), as it records it.
    add(500, 0, {.kind = TmemOpKind::load, .lane = 0, .column = 0, .lanes = 32, .columns = 32, .quarter = 0});  // too early
    add(700, 1, {.kind = TmemOpKind::load, .lane = 64, .column = 32, .lanes = 32, .columns = 32, .quarter = 1,
                 .outside_quarter = true});  // quarter 2
    add(701, 2, {.kind = TmemOpKind::load, .lane = 64, .column = 0, .lanes = 32, .columns = 32, .quarter = 2});
    add(900, 5, {.kind = TmemOpKind::dealloc, .lanes = 128, .columns = 256, .issue_cycle = 900, .complete_cycle = 900});
    t.finalize();
  }
  Snapshot at(size_t step) const {
    Snapshot s;
    s.position = position_after[step];
    s.cycle = k->report.result.trace.events[s.position].cycle;
    return s;
  }
};

}  // namespace

TEST_CASE("tmem: allocations, MMAs grouped by the commit that tracks them, and the accesses' checks", "[gui][tmem]") {
  const HandTrace ht;
  const TmemHistory h = tmem_history(*ht.k, 0);
  REQUIRE(h.used());
  REQUIRE(h.allocations.size() == 1);
  CHECK(h.allocations[0].columns == 256);
  CHECK(h.allocations[0].warp == 5);
  CHECK(h.allocations[0].dealloc_cycle == 900);
  CHECK(h.relinquished);
  REQUIRE(h.allocated_over_time.size() == 2);
  CHECK(h.allocated_over_time[0] == std::pair<uint64_t, uint32_t>{10, 256});
  CHECK(h.allocated_over_time[1] == std::pair<uint64_t, uint32_t>{900, 0});
  CHECK(h.peak_columns == 256);
  REQUIRE(h.mmas.size() == 5);
  REQUIRE(h.commits.size() == 2);
  CHECK(h.commits[0].mmas == std::vector<uint32_t>{0, 1, 2, 3});
  CHECK(h.commits[1].mmas == std::vector<uint32_t>{4});
  CHECK(h.commits[1].arrive_cycle == 600);
  CHECK(h.mmas[4].commit == 1);
  CHECK(h.commits[0].barrier == "0x500");  // no allocation declares it in this hand-made kernel
  REQUIRE(h.accesses.size() == 3);
  CHECK(h.accesses[0].before_complete);     // warp 0 at cycle 500: the second K block runs until 600
  CHECK_FALSE(h.accesses[0].outside_quarter);
  CHECK(h.accesses[1].outside_quarter);     // warp 1 in lanes 64..95
  CHECK_FALSE(h.accesses[1].before_complete);
  CHECK_FALSE(h.accesses[2].outside_quarter);  // warp 2 in its own quarter
  // Another rank of the trace has nothing.
  CHECK_FALSE(tmem_history(*ht.k, 1).used());
}

TEST_CASE("tmem: a commit with no MMA of its own still waits for the earlier MMAs that are running",
          "[gui][tmem]") {
  HandTrace ht;
  // A final commit right after the second K block's commit: MMA 4 still runs (until 600),
  // those of K block 0 are done (300).
  ht.add(402, 5, {.kind = TmemOpKind::commit, .cta_mask = 1, .mbar = kBar, .issue_cycle = 402, .complete_cycle = 600});
  ht.k->report.result.trace.finalize();
  const TmemHistory h = tmem_history(*ht.k, 0);
  REQUIRE(h.commits.size() == 3);
  CHECK(h.commits[1].mmas == std::vector<uint32_t>{4});
  CHECK(h.commits[2].mmas == std::vector<uint32_t>{4});
  CHECK(h.mmas[4].commit == 1);  // the first commit that covers it
}

TEST_CASE("tmem: the lanes x columns picture follows the cursor", "[gui][tmem]") {
  const HandTrace ht;
  const TmemHistory h = tmem_history(*ht.k, 0);
  // After the allocation: columns 0..255 allocated in every quarter, 256..511 free.
  TmemState s = tmem_state(h, ht.at(0));
  CHECK(s.allocated_columns == 256);
  for (uint32_t q = 0; q < 4; ++q) {
    CHECK(s.cell(q, 0) == TmemCellState::allocated);
    CHECK(s.cell(q, 31) == TmemCellState::allocated);
    CHECK(s.cell(q, 32) == TmemCellState::free);
  }
  // After the first commit's issue (cycle 104), its MMAs are still running.
  s = tmem_state(h, ht.at(6));
  CHECK(s.mmas_issued == 4);
  CHECK(s.mmas_in_flight == 4);
  CHECK(s.commits_arrived == 0);
  CHECK(s.cell(3, 31) == TmemCellState::accumulating);
  // At the early read (cycle 500) the first commit has arrived and the second K block runs.
  s = tmem_state(h, ht.at(9));
  CHECK(s.commits_arrived == 1);
  CHECK(s.mmas_in_flight == 1);
  CHECK(s.cell(0, 0) == TmemCellState::read);
  CHECK(s.cell(1, 0) == TmemCellState::accumulating);
  // After the last read: quarter 2 was read by warp 1 (wrongly) and warp 2, columns 0..63.
  s = tmem_state(h, ht.at(11));
  CHECK(s.cell(2, 0) == TmemCellState::read);
  CHECK(s.cell(2, 4) == TmemCellState::read);
  CHECK(s.cell(2, 8) == TmemCellState::complete);
  CHECK(s.cell(1, 0) == TmemCellState::complete);
  CHECK(s.quarters[2].readers == std::vector<uint16_t>{1, 2});
  CHECK(s.quarters[2].wrong_readers == std::vector<uint16_t>{1});
  CHECK(s.quarters[0].wrong_readers.empty());
  // After the dealloc nothing is allocated, and the JSON says what the view shows.
  s = tmem_state(h, ht.at(12));
  CHECK(s.allocated_columns == 0);
  CHECK(s.cell(0, 40) == TmemCellState::free);
  const nlohmann::json j = tmem_json(h, tmem_state(h, ht.at(11)));
  CHECK(j["used"] == true);
  CHECK(j["accesses_outside_quarter"] == 1);
  CHECK(j["reads_before_complete"] == 1);
  CHECK(j["commits"].size() == 2);
  CHECK(j["cells"][2].get<std::string>().substr(0, 9) == "rrrrrrrrc");
}

TEST_CASE("tmem: the picture (SVG) shows the cells' states in the view's colours and the wrong reader", "[gui][tmem][svg]") {
  const HandTrace ht;
  const TmemHistory h = tmem_history(*ht.k, 0);
  const TmemState s = tmem_state(h, ht.at(11));
  const auto doc = gs::test::parse_xml(to_svg(tmem_drawing(h, s, "by hand at event 11")));
  REQUIRE(doc.front().name == "svg");
  size_t cells = 0;
  std::map<std::string, size_t> by_state;
  for (const gs::test::XmlElement& e : doc) {
    if (e.name != "rect" || e.attr("class") != "cell") continue;
    ++cells;
    const uint32_t q = uint32_t(std::stoul(e.attr("data-quarter"))), b = uint32_t(std::stoul(e.attr("data-block")));
    INFO("quarter " << q << " block " << b);
    CHECK(e.attr("data-state") == tmem_cell_state_name(s.cell(q, b)));
    CHECK(e.attr("fill") == svg_color(tmem_cell_rgb(s.cell(q, b), false)));
    ++by_state[e.attr("data-state")];
  }
  CHECK(cells == 4 * 64);
  // Columns 0..255 allocated (32 blocks a quarter), quarter 0 read in 4 blocks, quarter 2 in 8.
  CHECK(by_state["free"] == 4 * 32);
  CHECK(by_state["read"] == 4 + 8);
  CHECK(by_state["complete"] == 4 * 32 - 12);
  // Quarter 2's label is red: warp 1 read it; the line under the grid names it.
  bool red_label = false, names_wrong = false;
  for (const gs::test::XmlElement& e : doc) {
    if (e.name != "text") continue;
    red_label |= e.text == "lanes 64-95" && e.attr("fill") == svg_color(error_rgb(false));
    names_wrong |= e.text.find("lanes 64-95") != std::string::npos && e.text.find("NOT ITS QUARTER: w1") != std::string::npos;
  }
  CHECK(red_label);
  CHECK(names_wrong);
  CHECK(doc[1].text == "tensor memory of rank 0: by hand at event 11");
}

TEST_CASE("tmem: a kernel without tcgen05 has no tensor memory to show", "[gui][tmem]") {
  AppState app = gs::gui::test::hopper_app();
  const TmemHistory* h = tmem_history_shown(app.kernel, app.tmem_view);
  REQUIRE(h != nullptr);
  CHECK_FALSE(h->used());
  const nlohmann::json j = describe_tmem(app);
  CHECK(j["used"] == false);
  CHECK(j["allocated_columns"] == 0);
  // Its picture: a clear error, not an empty grid.
  CHECK_THROWS_WITH(view_svg(app, ViewId::tmem, 0), Catch::Matchers::Contains("does not use tensor memory"));
}

namespace {

// Step 23's traced CTA at its example shape (3 tiles: buffer 0, 1, 0), and in its trace the first
// tcgen05.ld of one buffer that runs while an MMA into the other is on the tensor core (in the
// model's timing, the TMA-bound MMAs of tile 1 run under the drain of tile 0's stores, and tile
// 2's MMAs under the first loads of tile 1's buffer).
struct DoubleBuffer {
  std::shared_ptr<const LoadedKernel> k =
      open_kernel({.kernel_id = "blackwell_persistent_tmem2", .only_traced_cta = true});
  uint32_t overlapped_load = kNone;
  uint32_t read_buffer = 0;  // the buffer that load reads (its columns / 256)
  DoubleBuffer() {
    const model::Trace& t = k->trace();
    for (uint32_t e : t.of_kind(model::EventKind::tmem_op)) {
      const TmemOp& ld = t.tmem[t.events[e].payload];
      if (ld.kind != TmemOpKind::load) continue;
      for (const TmemOp& m : t.tmem)
        if (m.kind == TmemOpKind::mma && m.column / 256 != ld.column / 256 && m.issue_cycle <= t.events[e].cycle &&
            t.events[e].cycle < m.complete_cycle)
          overlapped_load = e;
      if (overlapped_load != kNone) {
        read_buffer = ld.column / 256;
        break;
      }
    }
  }
  Snapshot at(uint32_t event) const {
    Snapshot s;
    s.position = event;
    s.cycle = k->trace().events[event].cycle;
    return s;
  }
};

}  // namespace

TEST_CASE("tmem: two accumulators, each with who holds it, from the model's records", "[gui][tmem]") {
  const DoubleBuffer d;
  const TmemHistory h = tmem_history(*d.k, 0);
  // The MMAs that start a sum (D = A·B) name the accumulators: columns 0-255 (tiles 0 and 2)
  // and 256-511 (tile 1).
  REQUIRE(h.accumulators.size() == 2);
  CHECK(h.accumulators[0].column == 0);
  CHECK(h.accumulators[0].columns == 256);
  CHECK(h.accumulators[0].starts.size() == 2);
  CHECK(h.accumulators[1].column == 256);
  CHECK(h.accumulators[1].starts.size() == 1);
  CHECK(h.releases.size() >= 3 * 4);  // each epilogue warp releases each tile's buffer
  // At the first MMA: buffer 0 is the MMA thread's, buffer 1 not started.
  TmemState s = tmem_state(h, d.at(h.mmas[0].event));
  REQUIRE(s.accumulators.size() == 2);
  CHECK(s.accumulators[0].owner == TmemOwner::mma);
  CHECK(s.accumulators[0].mma_warp == 5);
  CHECK(s.accumulators[1].owner == TmemOwner::unused);
  // The overlap: the epilogue warps read one buffer while the MMA thread fills the other.
  REQUIRE(d.overlapped_load != kNone);
  const uint32_t read = d.read_buffer, filled = 1 - d.read_buffer;
  s = tmem_state(h, d.at(d.overlapped_load));
  CHECK(s.accumulators[read].owner == TmemOwner::readers);
  CHECK_FALSE(s.accumulators[read].readers.empty());
  CHECK(s.accumulators[filled].owner == TmemOwner::mma);
  CHECK(s.accumulators[filled].sums >= 1);
  CHECK_THAT(s.accumulators[filled].text,
             Catch::Matchers::Contains(fmt::format("acc {}, columns {}-{}: sum {}, MMA thread w5", filled, 256 * filled,
                                                   256 * filled + 255, s.accumulators[filled].sums)));
  // After the four warps' last release of buffer 0's first sum, before its second starts: released.
  const uint32_t second_start = h.mmas[h.accumulators[0].starts[1]].event;
  uint32_t last_release = kNone;
  for (const TmemRelease& r : h.releases)
    if (r.column < 256 && r.event < second_start) last_release = r.event;
  REQUIRE(last_release != kNone);
  s = tmem_state(h, d.at(last_release));
  CHECK(s.accumulators[0].owner == TmemOwner::released);
  CHECK(s.accumulators[0].released.size() == 4);
  // And the second sum into it is the MMA thread's again.
  s = tmem_state(h, d.at(second_start));
  CHECK(s.accumulators[0].owner == TmemOwner::mma);
  CHECK(s.accumulators[0].sums == 2);
  const nlohmann::json j = tmem_json(h, tmem_state(h, d.at(d.overlapped_load)));
  REQUIRE(j["accumulators"].size() == 2);
  CHECK(j["accumulators"][read]["owner"] == "readers");
  CHECK(j["accumulators"][filled]["owner"] == "MMA thread");
  // The picture draws the same two bars, each in its holder's colour.
  const TmemState at_overlap = tmem_state(h, d.at(d.overlapped_load));
  size_t bars = 0;
  for (const gs::test::XmlElement& e : gs::test::parse_xml(to_svg(tmem_drawing(h, at_overlap, "overlap")))) {
    if (e.name != "rect" || e.attr("class") != "accumulator") continue;
    const size_t i = std::stoul(e.attr("data-index"));
    REQUIRE(i < 2);
    CHECK(e.attr("data-owner") == tmem_owner_name(at_overlap.accumulators[i].owner));
    CHECK(e.attr("fill") == svg_color(tmem_owner_rgb(at_overlap.accumulators[i].owner, false)));
    ++bars;
  }
  CHECK(bars == 2);
  // A kernel with one accumulator (step 21) has one.
  const auto one = open_kernel({.kernel_id = "blackwell_ws_ring", .only_traced_cta = true});
  CHECK(tmem_history(*one, 0).accumulators.size() == 1);
}

TEST_CASE("tmem: step 25's epilogue holds a buffer through its sub-tiles and gives it back at tmem_empty",
          "[gui][tmem]") {
  // The traced CTA at the example shape: 3 tiles (buffers 0, 1, 0), each drained in 8 sub-tiles
  // with a bar.sync 1, 128 between them. Those barriers hand nothing back (only the warps' arrive
  // on tmem_empty does), so each epilogue warp releases each tile's buffer once.
  const auto k = open_kernel({.kernel_id = "blackwell_tma_store_epilogue", .only_traced_cta = true});
  const TmemHistory h = tmem_history(*k, 0);
  REQUIRE(h.accumulators.size() == 2);
  CHECK(h.accumulators[0].column == 0);
  CHECK(h.accumulators[1].column == 256);
  CHECK(h.releases.size() == 3 * 4);
  for (const TmemRelease& r : h.releases) CHECK(r.columns == 256);  // the whole buffer, sub-tiles 0-7
  // Mid-drain of the first tile (the fifth load of warp 0: sub-tile 4), buffer 0 is the readers'
  // though they have met at four barriers since their first load; buffer 1 is the next tile's
  // (the MMA thread's, or complete and waiting for the readers).
  const model::Trace& t = k->trace();
  uint32_t fifth = kNone, loads = 0;
  for (uint32_t e : t.of_kind(model::EventKind::tmem_op))
    if (t.tmem[t.events[e].payload].kind == TmemOpKind::load && t.events[e].warp == 0 && ++loads == 5) {
      fifth = e;
      break;
    }
  REQUIRE(fifth != kNone);
  Snapshot s;
  s.position = fifth;
  s.cycle = t.events[fifth].cycle;
  TmemState st = tmem_state(h, s);
  CHECK(st.accumulators[0].owner == TmemOwner::readers);
  CHECK(st.accumulators[0].released.empty());
  CHECK((st.accumulators[1].owner == TmemOwner::mma || st.accumulators[1].owner == TmemOwner::ready));
  // At the fourth warp's arrive on tmem_empty[0]: read and released by all four.
  s.position = h.releases[3].event;
  s.cycle = t.events[s.position].cycle;
  st = tmem_state(h, s);
  CHECK(st.accumulators[0].owner == TmemOwner::released);
  CHECK(st.accumulators[0].released.size() == 4);
}

TEST_CASE("tmem: step 26's pair MMAs fill both CTAs' two accumulators, and each CTA's epilogue gives them back",
          "[gui][tmem]") {
  // The traced CTA's cluster at 2 x 6 pair tiles on 4 clusters: three pair tiles (buffers 0, 1,
  // 0), each drained in 8 sub-tiles. Rank 1's history holds the leader's cta_group::2 MMAs (into
  // its TMEM) and its own epilogue's releases, which are remote arrives on the leader's tmem_empty.
  const auto k = open_kernel({.kernel_id = "blackwell_pair_persistent", .shape = {512, 1536, 128},
                              .params = {{"ctas", 8}}, .only_traced_cta = true});
  for (uint32_t rank : {0u, 1u}) {
    INFO("rank " << rank);
    const TmemHistory h = tmem_history(*k, rank);
    CHECK(h.rank == rank);
    REQUIRE(h.accumulators.size() == 2);
    CHECK(h.accumulators[0].column == 0);
    CHECK(h.accumulators[1].column == 256);
    CHECK(h.accumulators[0].starts.size() == 2);  // tiles 1 and 3
    CHECK(h.accumulators[1].starts.size() == 1);
    CHECK(h.mmas.size() == 3 * 2 * 4);
    CHECK(h.releases.size() == 3 * 4);
    for (const TmemRelease& r : h.releases) CHECK(r.columns == 256);
  }
}
