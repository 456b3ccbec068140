// The coalescing view's data: the global access at the cursor, its sectors and 128-byte lines
// from the lane addresses the model recorded, next to the ideal (the bytes needed / 32).
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <set>

#include "gui/core/app_state.hpp"
#include "gui/core/coalescing_data.hpp"
#include "gui/core/colors.hpp"
#include "tests/gui/headless.hpp"

using namespace gs;
using namespace gs::gui;

namespace {

// The access shown at each global_access event of the traced CTA, in order.
std::vector<CoalescingAccess> every_access(const LoadedKernel& k) {
  std::vector<CoalescingAccess> out;
  for (uint32_t e : k.trace().of_kind(model::EventKind::global_access)) out.push_back(coalescing_at(k, e));
  return out;
}

uint32_t sectors_from_lines(const CoalescingAccess& a) {
  uint32_t n = 0;
  for (const CoalescingLine& l : a.line_list) n += uint32_t(std::popcount(l.sector_mask));
  return n;
}

}  // namespace

TEST_CASE("coalescing: swap-row-col shows 32 sectors for the 128 bytes a warp needs", "[gui][coalescing]") {
  auto bad = open_kernel({.kernel_id = "simt_coalesced", .shape = {64, 64, 64}, .mistakes = {"swap-row-col"},
                          .only_traced_cta = true});
  const std::vector<CoalescingAccess> all = every_access(*bad);
  REQUIRE_FALSE(all.empty());
  const CoalescingAccess* worst = nullptr;
  for (const CoalescingAccess& a : all)
    if (!a.store && (!worst || a.sectors > worst->sectors)) worst = &a;
  REQUIRE(worst);
  // A's load: lane l reads row l, 64 floats = 256 bytes further on each lane.
  CHECK(worst->sectors == 32);
  CHECK(worst->lines == 32);
  CHECK(worst->bytes_needed == 128);
  CHECK(worst->ideal_sectors == 4);
  CHECK(worst->ideal_lines == 1);
  CHECK(worst->efficiency == Approx(0.125));
  CHECK(worst->line_list.size() == 32);
  for (uint32_t l = 1; l < 32; ++l) CHECK(worst->addr[l] - worst->addr[l - 1] == 256);
  CHECK_THAT(worst->verdict, Catch::Contains("32 sectors (1024 B moved) for 128 B needed: 8× the ideal 4"));
  // Its store into C is the same pattern: 32 rows.
  const CoalescingAccess& store = all.back();
  CHECK(store.store);
  CHECK(store.sectors == 32);
}

TEST_CASE("coalescing: the coalesced step needs no more sectors than the ideal", "[gui][coalescing]") {
  auto good = open_kernel({.kernel_id = "simt_coalesced", .shape = {64, 64, 64}, .only_traced_cta = true});
  const std::vector<CoalescingAccess> all = every_access(*good);
  REQUIRE(all.size() > 2);
  bool saw_broadcast = false, saw_row = false;
  for (const CoalescingAccess& a : all) {
    REQUIRE(a.valid);
    CHECK(a.sectors == a.ideal_sectors);
    CHECK(a.lines == 1);
    saw_broadcast |= a.bytes_needed == 4 && a.sectors == 1;  // A: every lane one float
    saw_row |= a.bytes_needed == 128 && a.sectors == 4;      // B and C: 32 consecutive floats
  }
  CHECK(saw_broadcast);
  CHECK(saw_row);
}

TEST_CASE("coalescing: cp.async sources, lines and sectors agree with the model's count", "[gui][coalescing]") {
  auto k = open_kernel({.kernel_id = "ampere_cp_async", .only_traced_cta = true});
  const std::vector<CoalescingAccess> all = every_access(*k);
  REQUIRE_FALSE(all.empty());
  uint32_t copies = 0;
  for (const CoalescingAccess& a : all) {
    CHECK(sectors_from_lines(a) == a.sectors);
    if (a.lane_bytes != 16) continue;
    ++copies;
    // Thread t copies 16 bytes of row t/2: two lanes fill one 32-byte sector of a row.
    CHECK(a.bytes_needed == 512);
    CHECK(a.sectors == 16);
    CHECK(a.ideal_sectors == 16);
  }
  CHECK(copies > 0);
}

TEST_CASE("coalescing: before the first global access the view says so; the JSON follows the cursor",
          "[gui][coalescing]") {
  AppState app;
  app.open_now({.kernel_id = "simt_coalesced", .shape = {64, 64, 64}, .mistakes = {"swap-row-col"},
                .only_traced_cta = true});
  REQUIRE(app.kernel);
  app.selection.warp = kNoWarp;  // any warp's access (opening selects warp 0)
  app.seek(0);
  nlohmann::json j = describe_coalescing(app);
  CHECK(j["valid"] == false);
  CHECK_THAT(j["note"].get<std::string>(), Catch::Contains("no global access yet"));
  const auto& events = app.kernel->trace().of_kind(model::EventKind::global_access);
  REQUIRE(events.size() > 0);
  app.seek(events[0]);
  j = describe_coalescing(app);
  CHECK(j["valid"] == true);
  CHECK(j["event"] == events[0]);
  CHECK(j["addresses"].size() == j["active_lanes"].get<size_t>());
  // A warp chosen in the warps view: its own latest access, or a note that it has none yet.
  app.select_warp(uint16_t(app.kernel->trace().warps - 1));
  j = describe_coalescing(app);
  if (j["valid"] == true)
    CHECK(j["warp"] == app.kernel->trace().warps - 1);
  else
    CHECK_THAT(j["note"].get<std::string>(), Catch::Contains("has made no global access yet"));
}

TEST_CASE("coalescing: the view fills each word a lane asks for in the lane's colour", "[gui][xvfb][coalescing]") {
  using namespace gs::gui::test;
  if (!xvfb_or_skip()) return;
  const Headless h = run_headless("coalescing", "--kernel simt_coalesced --m 64 --n 64 --k 64 --break swap-row-col "
                                                "--view coalescing --size 900x700 --step-unit warp-instruction "
                                                "--steps 60");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& view = h.state["views"]["coalescing"];
  REQUIRE(view["valid"] == true);
  const auto& drawn = h.state["drawn"];
  REQUIRE(drawn.contains("coalescing.lines"));
  const auto g = drawn["coalescing.lines"].get<std::array<float, 4>>();  // word 0 of line 0: x, y, cell, row
  REQUIRE(drawn.contains("coalescing.sector_gap"));
  const float gap = drawn["coalescing.sector_gap"][0].get<float>();
  const uint32_t warp = view["warp"];
  uint32_t filled = 0;
  const auto& lines = view["line_list"];
  REQUIRE(lines.size() > 0);
  // The first lines only: the rest scroll, and the headless pointer's tooltip may cover some.
  for (size_t r = 0; r < std::min<size_t>(lines.size(), 6); ++r) {
    const auto& words = lines[r]["words"];
    for (uint32_t w = 0; w < 32; ++w) {
      const uint32_t owner = words[w];
      if (owner == 0) continue;
      const int x = int(g[0] + (float(w) + 0.5f) * g[2] + float(w / 8) * gap);
      const int y = int(g[1] + float(r) * g[3] + 0.5f * g[2]);
      REQUIRE(x < h.w);
      REQUIRE(y < h.h);
      const auto p = h.pixel(x, y);
      const Rgb want = lane_rgb(warp, owner - 1);
      INFO("line " << r << " word " << w << " lane " << owner - 1);
      for (int i = 0; i < 3; ++i) CHECK(std::abs(int(p[i]) - int(want[i])) <= 3);
      ++filled;
    }
  }
  CHECK(filled >= 6);  // swap-row-col: one word in each of the first six lines
}

TEST_CASE("coalescing: in a TMA kernel's main loop the view points at the TMA copies", "[gui][coalescing]") {
  // Step 11 stores C with st.global in its epilogue, but its main loop loads only through TMA:
  // "no global access yet" there would hide megabytes moving.
  AppState app;
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const model::Trace& t = app.kernel->trace();
  REQUIRE_FALSE(t.of_kind(model::EventKind::global_access).empty());
  const uint32_t tma = t.of_kind(model::EventKind::tma_issue).front();
  REQUIRE(tma < t.of_kind(model::EventKind::global_access).front());
  app.seek(tma);
  const nlohmann::json j = describe_coalescing(app);
  CHECK(j["valid"] == false);
  CHECK(j["tma_loads"].get<uint32_t>() >= 1);
  CHECK(j["tma_bytes"].get<uint64_t>() >= 64 * 64 * 2);
  CHECK_THAT(j["note"].get<std::string>(), Catch::Contains("TMA pipeline view"));
  CHECK_THAT(j["note"].get<std::string>(), !Catch::Contains("no global access yet"));
}
