// The Tiling view's data: the CTA tile the kernel declares, the warps' and a thread's parts of
// it as the model recorded the stores, and the K chunk at the playback cursor.
#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>

#include "gui/core/app_state.hpp"
#include "gui/core/picture.hpp"
#include "gui/core/tiling_data.hpp"
#include "gui/core/transport_data.hpp"

using namespace gs;
using namespace gs::gui;

TEST_CASE("tiling: the CTA tile is the one the kernel declares", "[gui][tiling]") {
  for (const char* id : {"simt_warptile", "hopper_tma_wgmma_64", "ampere_ldmatrix"}) {
    INFO(id);
    auto k = open_kernel({.kernel_id = id, .only_traced_cta = true});
    const TilingData& d = tiling_data(k);
    REQUIRE(d.available);
    CHECK(d.tile_rows == k->info->tile.m);
    CHECK(d.tile_cols == k->info->tile.n);
    CHECK(d.tile_rows == k->kernel().output.tile_rows);
    CHECK(d.k_step == k->info->tile.k);
    CHECK(d.chunks == k->report.shape.k / k->info->tile.k);
    CHECK(d.m == k->report.shape.m);
  }
}

TEST_CASE("tiling: a build with another tile shows that tile and its K chunk", "[gui][tiling][params]") {
  // Step 07 in 64x128 tiles, 32-wide K chunks, 32x64 warp tiles: the build's, not the step's 128x128x16.
  auto k = open_kernel({.kernel_id = "simt_warptile",
                        .shape = {256, 256, 128},
                        .params = {{"bm", 64}, {"bk", 32}, {"wm", 32}, {"wn", 64}, {"wniter", 2}},
                        .only_traced_cta = true});
  const TilingData& d = tiling_data(k);
  REQUIRE(d.available);
  CHECK(d.tile_rows == 64);
  CHECK(d.tile_cols == 128);
  CHECK(d.tiles_m == 4);
  CHECK(d.k_step == 32);
  CHECK(d.chunks == 4);
  CHECK(d.warps.size() == 4);  // (64/32)·(128/64) warps, each its 32x64 block
  for (const TilingWarp& w : d.warps) CHECK((w.rows == 32 && w.cols == 64 && w.solid()));
}

TEST_CASE("tiling: a warp tile of step 07 is a 64x64 block, each thread a 128th of the tile", "[gui][tiling]") {
  AppState app;
  app.open_now({.kernel_id = "simt_warptile", .cta = {1, 0, 0}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const TilingData& d = tiling_data(app.kernel);
  REQUIRE(d.from_registers);
  CHECK(d.tile_col0 == 128);  // ctaid.x 1: the second column of tiles
  CHECK(d.tile_row0 == 0);
  for (int16_t o : d.owner_warp) CHECK(o >= 0);  // every element stored by someone
  REQUIRE(d.warps.size() == 4);
  for (const TilingWarp& w : d.warps) {
    INFO("warp " << w.warp);
    CHECK(w.rows == 64);
    CHECK(w.cols == 64);
    CHECK(w.solid());
  }
  const TilingCursor c = tiling_cursor(app, d);
  CHECK(c.thread_cells.size() * 128 == size_t(d.tile_rows) * d.tile_cols);
  for (const auto& [r, col] : c.thread_cells) CHECK(d.owner_warp[size_t(r) * d.tile_cols + col] == int16_t(c.warp));
}

TEST_CASE("tiling: a wgmma warp holds 16 whole rows of the accumulator", "[gui][tiling]") {
  auto k = open_kernel({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  const TilingData& d = tiling_data(k);
  REQUIRE(d.warps.size() == 4);
  for (const TilingWarp& w : d.warps) {
    CHECK(w.row0 == 16u * w.warp);
    CHECK(w.rows == 16);
    CHECK(w.cols == 64);
    CHECK(w.solid());
  }
}

TEST_CASE("tiling: the K chunk follows the playback cursor", "[gui][tiling]") {
  AppState app;
  app.open_now({.kernel_id = "simt_warptile", .shape = {128, 128, 64}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const TilingData& d = tiling_data(app.kernel);
  REQUIRE(d.chunks == 4);
  std::vector<uint32_t> seen;
  for (int i = 0; i < 6 && app.step(StepUnit::k_iteration, true); ++i) {
    const TilingCursor c = tiling_cursor(app, d);
    const TransportInfo t = transport_info(app);
    REQUIRE(c.k_iteration == t.k_iteration);
    if (c.k_iteration == 0) continue;
    CHECK(c.chunk == (c.k_iteration - 1) % d.chunks);
    seen.push_back(c.chunk);
  }
  CHECK(seen.size() >= 3);
  CHECK(std::find(seen.begin(), seen.end(), 2u) != seen.end());
}

TEST_CASE("tiling: TMA stores are said to name the copying warp, not the computing thread", "[gui][tiling]") {
  auto k = open_kernel({.kernel_id = "hopper_tma_store", .only_traced_cta = true});
  const TilingData& d = tiling_data(k);
  REQUIRE(d.available);
  CHECK_FALSE(d.from_registers);
  CHECK_THAT(d.owners_note, Catch::Matchers::Contains("TMA"));
}

TEST_CASE("tiling: the SVG picture's cells are the warps' runs of the tile and the thread's elements",
          "[gui][tiling]") {
  AppState app;
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  REQUIRE(app.kernel);
  const TilingData& d = tiling_data(app.kernel);
  REQUIRE(svg_pictures_of(ViewId::tiling).size() == 1);
  const std::string svg = view_svg(app, ViewId::tiling, 0);
  const std::regex cell(R"re(data-row="(\d+)" data-col="(\d+)" data-cols="(\d+)" data-warp="(\d+)")re");
  uint64_t elements = 0, runs = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), cell); it != std::sregex_iterator(); ++it) {
    const uint32_t r = std::stoul((*it)[1]), c = std::stoul((*it)[2]), n = std::stoul((*it)[3]);
    const int w = std::stoi((*it)[4]);
    REQUIRE(r < d.tile_rows);
    REQUIRE(c + n <= d.tile_cols);
    for (uint32_t i = c; i < c + n; ++i) CHECK(d.owner_warp[size_t(r) * d.tile_cols + i] == w);
    elements += n;
    ++runs;
  }
  CHECK(elements == uint64_t(d.tile_rows) * d.tile_cols);  // step 11's warps store the whole 64x64 tile
  CHECK(runs == d.tile_rows);                              // a wgmma warp owns whole rows: one run each
  const TilingCursor c = tiling_cursor(app, d);
  size_t threads = 0;
  for (size_t at = svg.find("class=\"thread\""); at != std::string::npos; at = svg.find("class=\"thread\"", at + 1))
    ++threads;
  CHECK(threads == c.thread_cells.size());
  CHECK(threads > 0);
}
