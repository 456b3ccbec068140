// Tests for gui/core/shared_memory_data: the bank panel's constructed patterns, the tensor core's read
// pattern of the Hopper kernel (and of its wrong-swizzle mistake), the swizzle grid and the
// allocation map. Expected numbers come from the bank rule of facts §8 and the swizzle rule of
// facts §3 computed by hand here, not from the code under test.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "engine/layout/banks.hpp"
#include "engine/layout/swizzle.hpp"
#include "engine/layout/wgmma_descriptor.hpp"
#include "gui/core/app_state.hpp"
#include "tests/gui/gui_fixture.hpp"
#include "gui/core/playback.hpp"
#include "gui/core/shared_memory_data.hpp"
#include "gui/core/view_data.hpp"

using namespace gs;
using namespace gs::gui;

namespace {

std::shared_ptr<const LoadedKernel> open_hopper(std::set<std::string> mistakes = {}) {
  if (mistakes.empty()) return test::hopper_kernel();
  run::SimRequest r{.only_traced_cta = true};
  r.kernel_id = "hopper_tma_wgmma_64";
  r.mistakes = std::move(mistakes);
  return open_kernel(r);
}

// Wavefronts of a 16-byte access by the facts §8 rule, computed independently: each group of
// 8 lanes is one phase; a phase costs the largest number of distinct 4-byte words any bank
// must supply.
uint32_t hand_wavefronts(const std::vector<uint32_t>& addrs) {
  uint32_t total = 0;
  for (size_t p = 0; p < addrs.size(); p += 8) {
    std::map<uint32_t, std::set<uint32_t>> words_of_bank;
    for (size_t l = p; l < std::min(addrs.size(), p + 8); ++l)
      for (uint32_t w = 0; w < 4; ++w) {
        const uint32_t word = addrs[l] / 4 + w;
        words_of_bank[word % 32].insert(word);
      }
    size_t worst = 0;
    for (const auto& [bank, words] : words_of_bank) worst = std::max(worst, words.size());
    total += uint32_t(worst);
  }
  return total;
}

std::vector<uint32_t> addrs_of(const BankAccess& a) {
  std::vector<uint32_t> v;
  for (const SmemLane& l : a.lanes) v.push_back(l.addr);
  return v;
}

}  // namespace

TEST_CASE("constructed bank patterns: column 8-way, row and swizzled conflict-free", "[gui]") {
  const uint32_t base = 2048;
  const BankAccess col = constructed_access(BankPattern::column_unswizzled, base);
  REQUIRE(col.valid);
  REQUIRE(col.lanes.size() == 32);
  // Lane l at row l, chunk 0: address base + 128 l, all in banks 0..3.
  for (const SmemLane& l : col.lanes) {
    CHECK(l.addr == base + 128 * l.lane);
    CHECK(l.bank == ((base + 128 * l.lane) / 4) % 32);
  }
  CHECK(col.conflict_degree == 8);
  CHECK(col.ideal_wavefronts == 4);
  CHECK(col.wavefronts == 32);
  CHECK(col.wavefronts == hand_wavefronts(addrs_of(col)));
  CHECK(bank_verdict(col.wavefronts, col.ideal_wavefronts, col.conflict_degree) ==
        "32 wavefronts, ideal 4: 8-way conflict");

  const BankAccess row = constructed_access(BankPattern::row_unswizzled, base);
  CHECK(row.conflict_degree == 1);
  CHECK(row.wavefronts == 4);
  CHECK(row.wavefronts == hand_wavefronts(addrs_of(row)));

  for (BankPattern p : {BankPattern::column_swizzled, BankPattern::row_swizzled}) {
    const BankAccess s = constructed_access(p, base);
    CHECK(s.conflict_degree == 1);
    CHECK(s.wavefronts == s.ideal_wavefronts);
    CHECK(s.wavefronts == hand_wavefronts(addrs_of(s)));
  }
  // The swizzled column: row r's chunk 0 lands at chunk r % 8 (facts §3 example).
  const BankAccess sc = constructed_access(BankPattern::column_swizzled, base);
  for (const SmemLane& l : sc.lanes) CHECK(l.addr == base + 128 * l.lane + 16 * (l.lane % 8));
}

TEST_CASE("swizzle grid is a per-row permutation equal to swizzle_address", "[gui]") {
  for (layout::Swizzle mode : {layout::Swizzle::none, layout::Swizzle::b32, layout::Swizzle::b64, layout::Swizzle::b128}) {
    const uint32_t base = 1024 * 3;
    const SwizzleGrid g = swizzle_grid(mode, base, 16);
    REQUIRE(g.cells.size() == size_t(g.rows) * g.chunks);
    const uint32_t span = mode == layout::Swizzle::none ? 128 : 32u << (uint32_t(mode) - 1);
    CHECK(g.row_bytes == span);
    for (uint32_t r = 0; r < g.rows; ++r) {
      std::set<uint32_t> seen;
      for (uint32_t c = 0; c < g.chunks; ++c) {
        const SwizzleCell& cell = g.at(r, c);
        CHECK(cell.physical_addr == layout::swizzle_address(mode, base + r * span + 16 * c));
        CHECK(cell.physical_chunk < g.chunks);
        seen.insert(cell.physical_chunk);
      }
      CHECK(seen.size() == g.chunks);
    }
  }
  // Facts §3 by hand: 128B, row r's chunk c lands at chunk c ^ (r % 8); 64B with 64-byte rows:
  // chunk c ^ ((r / 2) % 4); 32B with 32-byte rows: chunk flips for rows 4..7 of every 8.
  const SwizzleGrid g128 = swizzle_grid(layout::Swizzle::b128, 1024);
  CHECK(g128.at(3, 1).physical_chunk == 2);
  CHECK(g128.at(5, 6).physical_chunk == 3);
  CHECK(swizzle_cell_text(g128, g128.at(3, 1)) == "row 3, chunk 1 -> chunk 2: bits [4:6] ^= bits [7:9] = 011");
  const SwizzleGrid g64 = swizzle_grid(layout::Swizzle::b64, 1024);
  CHECK(g64.at(5, 1).physical_chunk == (1u ^ 2u));
  const SwizzleGrid g32 = swizzle_grid(layout::Swizzle::b32, 1024);
  CHECK(g32.at(3, 0).physical_chunk == 0);
  CHECK(g32.at(4, 0).physical_chunk == 1);
  CHECK(swizzle_cell_text(g32, g32.at(4, 0)) == "row 4, chunk 0 -> chunk 1: bit [4] ^= bit [7] = 1");
}

TEST_CASE("wgmma read of the Hopper kernel's first mma is conflict-free under 128B swizzle", "[gui]") {
  auto k = open_hopper();
  const auto& mmas = k->trace().of_kind(model::EventKind::wgmma_issue);
  REQUIRE(!mmas.empty());
  const model::Event& e = k->trace().events[mmas.front()];
  const BankAccess a = tensor_read_access(*k, mmas.front(), WgmmaOperand::a);
  REQUIRE(a.valid);
  CHECK(a.source == "wgmma descriptor read");
  CHECK(a.descriptor_swizzle == layout::Swizzle::b128);
  REQUIRE(a.lanes.size() == 32);
  // Hand-computed addresses: sA's start (from the descriptor), row r at r*128, chunk c at
  // c ^ (r % 8) (rows are 128 B, the tile is 1024-aligned).
  const uint32_t start = uint32_t(k->trace().mma[e.payload].a_desc & 0x3FFF) << 4;
  CHECK(start % 1024 == 0);
  const uint32_t row0 = 16 * (e.warp % 4);
  for (const SmemLane& l : a.lanes) {
    const uint32_t r = row0 + 8 * ((l.lane / 8) % 2) + l.lane % 8, c = l.lane / 16;
    CHECK(uint32_t(l.row) == r);
    CHECK(uint32_t(l.chunk) == c);
    CHECK(l.addr == start + 128 * r + 16 * (c ^ (r % 8)));
    CHECK(l.reads_meant_data);
  }
  CHECK(a.conflict_degree == 1);
  CHECK(a.wavefronts == 4);
  CHECK(a.wavefronts == hand_wavefronts(addrs_of(a)));
  CHECK(a.mismatched_lanes == 0);
  CHECK(a.data_conflict_degree == 1);

  const BankAccess b = tensor_read_access(*k, mmas.front(), WgmmaOperand::b);
  REQUIRE(b.valid);
  CHECK(b.conflict_degree == 1);
  CHECK(b.lanes.front().row == 0);
}

TEST_CASE("wgmma read under the wrong-swizzle mistake reads the wrong chunks", "[gui]") {
  auto k = open_hopper({"wrong-swizzle"});
  const auto& mmas = k->trace().of_kind(model::EventKind::wgmma_issue);
  REQUIRE(!mmas.empty());
  const BankAccess a = tensor_read_access(*k, mmas.front(), WgmmaOperand::a);
  REQUIRE(a.valid);
  // The descriptor still says 128B; the TMA wrote the tile unswizzled.
  CHECK(a.descriptor_swizzle == layout::Swizzle::b128);
  CHECK(a.data_swizzle == layout::Swizzle::none);
  // A lane reads its meant bytes only where the XOR is 0: rows with r % 8 == 0 (2 rows x 2
  // chunks = 4 of the 32 lanes).
  uint32_t expect_mismatch = 0;
  for (const SmemLane& l : a.lanes) {
    const bool same = l.row % 8 == 0;
    CHECK(l.reads_meant_data == same);
    if (!same) ++expect_mismatch;
  }
  CHECK(expect_mismatch == 28);
  CHECK(a.mismatched_lanes == expect_mismatch);
  // Reading the data where the TMA really put it (unswizzled 128-byte rows, one chunk per row
  // per phase) would be the 8-way column conflict.
  CHECK(a.data_conflict_degree == 8);
}

TEST_CASE("describe_shared_memory reports allocations, the access and the swizzle", "[gui]") {
  AppState app;
  app.set_kernel(open_hopper());
  // Step past the first wgmma so the access is the one at the cursor.
  const auto& mmas = app.kernel->trace().of_kind(model::EventKind::wgmma_issue);
  REQUIRE(!mmas.empty());
  app.seek(mmas.front());
  nlohmann::json j = describe_shared_memory(app);
  REQUIRE(j["allocations"].size() == app.kernel->kernel().smem.size());
  std::set<std::string> uses;
  for (const auto& a : j["allocations"]) uses.insert(a["use"].get<std::string>());
  CHECK(uses.count("tile") == 1);
  CHECK(uses.count("mbarrier") == 1);
  CHECK(j["access"]["source"] == "wgmma descriptor read");
  CHECK(j["access"]["event"] == mmas.front());
  CHECK(j["access"]["conflict_degree"] == 1);
  CHECK(j["swizzle"]["mode"] == "128B");
  // The tile under the access is marked as accessed; the barrier is not.
  for (const auto& a : j["allocations"])
    if (a["name"] == "sA") CHECK(a["accessed"] == true);
    else if (a["use"] == "mbarrier") CHECK(a["accessed"] == false);
  // The swizzle grid shows the repeat (8 rows) of the tile the access reads: sA, starting at
  // the issuing warp's first A row.
  const uint32_t warp = app.kernel->trace().events[mmas.front()].warp;
  CHECK(j["swizzle"]["tile"] == "sA");
  CHECK(j["swizzle"]["first_row"] == 16 * (warp % 4));
  CHECK(j["swizzle"]["base"] == j["access"]["lanes"][0]["addr"].get<uint32_t>() / 1024 * 1024);
  // Selecting a physical address selects its cell and bank.
  const uint32_t base = j["swizzle"]["base"];
  app.selection.smem_addr = layout::swizzle_address(layout::Swizzle::b128, base + 3 * 128 + 16);
  j = describe_shared_memory(app);
  CHECK(j["swizzle"]["selected_cell"]["row"] == 16 * (warp % 4) + 3);
  CHECK(j["swizzle"]["selected_cell"]["logical_chunk"] == 1);
  CHECK(j["swizzle"]["selected_cell"]["physical_chunk"] == 2);
  CHECK(j["selected_bank"] == ((base + 3 * 128 + 32) / 4) % 32);
  // The pattern selector replaces the access.
  app.smem_view.pattern = BankPattern::column_unswizzled;
  j = describe_shared_memory(app);
  CHECK(j["access"]["source"] == "pattern");
  CHECK(j["access"]["conflict_degree"] == 8);
}

TEST_CASE("shared-memory view of a kernel without shared memory", "[gui]") {
  AppState app;
  run::SimRequest r{.only_traced_cta = true};
  r.kernel_id = "simt_naive";
  app.set_kernel(open_kernel(r));
  nlohmann::json j = describe_shared_memory(app);
  CHECK(j["allocations"].empty());
  CHECK(j["access"]["valid"] == false);
  CHECK(!j["access"]["note"].get<std::string>().empty());
}

TEST_CASE("the shared-memory view shows the tensor core's reads of the tcgen05 steps", "[gui]") {
  for (const char* id : {"blackwell_tcgen05_basic", "blackwell_ws_ring", "blackwell_2sm"}) {
    INFO(id);
    run::SimRequest r{.only_traced_cta = true};
    r.kernel_id = id;
    AppState app;
    app.set_kernel(open_kernel(r));
    REQUIRE(app.kernel);
    app.seek(app.event_count() - 1);
    const Snapshot* s = app.snapshot();
    REQUIRE(s);
    const uint32_t e = tensor_read_event_for(*app.kernel, *s);
    REQUIRE(e != kNone);
    CHECK(app.kernel->trace().events[e].kind == model::EventKind::tmem_op);
    for (const WgmmaOperand op : {WgmmaOperand::a, WgmmaOperand::b}) {
      const BankAccess a = tensor_read_access(*app.kernel, e, op);
      REQUIRE(a.valid);
      CHECK(a.tensor_read);
      CHECK(a.source == "tcgen05.mma descriptor read");
      CHECK(a.descriptor_swizzle == layout::Swizzle::b128);
      REQUIRE(a.lanes.size() == 32);
      // The rows and chunks as the model recorded them: lane 8g + r, row 8(g%2) + r, chunk g/2.
      CHECK(a.lanes[9].row == 9);
      CHECK(a.lanes[17].row == 1);
      CHECK(a.lanes[17].chunk == 1);
      CHECK(a.conflict_degree == 1);
    }
  }
}

TEST_CASE("shared-memory view: a load ptxas merged says which load carries it, and that load its width",
          "[gui][folds][ptxas]") {
  // Step 04's scalar loads of one row of As: ptxas makes one LDS.128 of [as_rows+0/4/8/12].
  run::SimRequest r{.kernel_id = "simt_blocktile_1d"};
  const std::shared_ptr<const LoadedKernel> k = open_kernel(r);
  if (k->report.shared_loads_folded == 0) {
    if (std::getenv("GEMMSCOPE_REQUIRE_PTXAS") && std::string(std::getenv("GEMMSCOPE_REQUIRE_PTXAS")) == "1")
      FAIL("GEMMSCOPE_REQUIRE_PTXAS=1 but no SASS counts: " << k->report.sass_source);
    WARN("skipped: " << k->report.sass_source);
    return;
  }
  AppState app;
  app.set_kernel(k);
  const model::Trace& t = k->trace();
  uint32_t rider = kNone, leader = kNone;
  for (uint32_t e : t.of_kind(model::EventKind::smem_access)) {
    const model::SmemAccess& a = t.smem.at(t.events[e].payload);
    if (a.folded_into != kNone && rider == kNone) rider = e;
    if (a.folded_loads > 0 && leader == kNone) leader = e;
  }
  REQUIRE(rider != kNone);
  REQUIRE(leader != kNone);
  app.seek(rider);
  nlohmann::json j = describe_shared_memory(app);
  const uint32_t into = t.smem.at(t.events[rider].payload).folded_into;
  CHECK(j["access"]["merged_into_inst"] == into);
  CHECK(j["access"]["wavefronts"] == 0);
  CHECK_THAT(j["access"]["note"].get<std::string>(),
             Catch::Contains(fmt::format("merged by ptxas into the load of PTX line {}", k->ptx.inst_to_line.at(into))));
  app.seek(leader);
  j = describe_shared_memory(app);
  CHECK(j["access"]["merged_loads"].get<uint32_t>() > 0);
  CHECK(j["access"]["access_bytes"].get<uint32_t>() > 4);
  CHECK_THAT(j["access"]["title"].get<std::string>(), Catch::Contains("ptxas merged"));
}
