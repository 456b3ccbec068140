// The schedule view's data: C's tiles coloured by the CTA that wrote each, from the model's
// whole-grid record (model::CSchedule), and the wave / tile quantization of the shape.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include <cstdlib>
#include <set>

#include "gui/core/app_state.hpp"
#include "gui/core/colors.hpp"
#include "gui/core/schedule_data.hpp"
#include "tests/gui/headless.hpp"

using namespace gs;
using namespace gs::gui;

TEST_CASE("schedule: the whole grid's tiles, each written once by the CTA the kernel maps to it", "[gui][schedule]") {
  auto k = open_kernel({.kernel_id = "hopper_tma_wgmma_64", .shape = {256, 192, 64}, .only_traced_cta = false});
  const ScheduleData& d = schedule_data(k);
  REQUIRE(d.available);
  CHECK(d.whole_grid);
  CHECK(d.tiles_m == 4);
  CHECK(d.tiles_n == 3);
  CHECK(d.unwritten == 0);
  CHECK(d.written_twice == 0);
  CHECK(d.ctas == 12);
  CHECK(d.waves == 1);
  CHECK(d.tile_efficiency == Approx(1.0));
  std::set<uint32_t> ctas;
  for (const ScheduleCell& c : d.cells) {
    REQUIRE(c.writers == 1);
    const kernels::CtaTile t = k->info->cta_tile(
        k->request.shape, {c.cta % k->kernel().launch.grid[0], c.cta / k->kernel().launch.grid[0], 0});
    CHECK(t.m0 == c.row * 64);
    CHECK(t.n0 == c.col * 64);
    ctas.insert(c.cta);
  }
  CHECK(ctas.size() == 12);
  CHECK(d.note.find("every tile written once") != std::string::npos);
}

TEST_CASE("schedule: a CTA pair writing the two halves of one tile writes it once", "[gui][schedule]") {
  // Step 22's clusters of two CTAs each store half of a 256-row tile: one write, not two.
  AppState app;
  app.open_now({.kernel_id = "blackwell_2sm", .only_traced_cta = false});
  REQUIRE(app.kernel);
  REQUIRE(app.kernel->kernel().launch.cluster[0] * app.kernel->kernel().launch.cluster[1] == 2);
  const nlohmann::json j = describe_schedule(app);
  CHECK(j["whole_grid"] == true);
  CHECK(j["written_twice"] == 0);
  CHECK(j["unwritten"] == 0);
  CHECK(j["overlapping_elements"] == 0);
  for (const auto& c : j["cells"]) {
    CHECK(c["writers"] == 1);
    CHECK(c["cluster_ctas"] == 2);
  }
  CHECK_THAT(j["note"].get<std::string>(), Catch::Matchers::Contains("every tile written once"));
}

TEST_CASE("schedule: a shape that is not a multiple of the tile wastes tile area", "[gui][schedule]") {
  auto k = open_kernel({.kernel_id = "simt_naive", .shape = {40, 72, 8}, .only_traced_cta = false});
  const ScheduleData& d = schedule_data(k);
  REQUIRE(d.available);
  CHECK(d.tiles_m == 2);
  CHECK(d.tiles_n == 3);
  CHECK(d.tile_efficiency == Approx(40.0 * 72.0 / (64.0 * 96.0)));
  CHECK(d.unwritten == 0);
}

TEST_CASE("schedule: only the traced CTA ran, so only its tile is known and the view says so", "[gui][schedule]") {
  AppState app;
  app.open_now({.kernel_id = "simt_naive", .shape = {64, 64, 8}, .cta = {1, 0, 0}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  const nlohmann::json j = describe_schedule(app);
  CHECK(j["whole_grid"] == false);
  CHECK(j["unwritten"] == 0);
  uint32_t written = 0;
  for (const auto& c : j["cells"]) written += c["writers"].get<uint32_t>();
  CHECK(written == 1);
  CHECK(j["note"].get<std::string>().find("Run on model") != std::string::npos);
}

TEST_CASE("schedule: one CTA is \"1 CTA\", several are CTAs", "[gui][schedule]") {
  AppState app;
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .shape = {64, 64, 64}, .only_traced_cta = true});
  REQUIRE(app.kernel);
  nlohmann::json j = describe_schedule(app);
  CHECK(j["ctas"] == 1);
  CHECK(j["headline"] == "1×1 tiles of 64×64, 1 CTA");
  CHECK_THAT(j["waves_text"].get<std::string>(), Catch::Matchers::StartsWith("1 wave ("));
  // One CTA of 132 × n slots is under 1%: said with a decimal, not "0% full".
  CHECK_THAT(j["waves_text"].get<std::string>(), Catch::Matchers::Contains("the last 1 CTA: 0."));
  CHECK_THAT(j["waves_text"].get<std::string>(), !Catch::Matchers::Contains(": 0% "));
  app.open_now({.kernel_id = "hopper_tma_wgmma_64", .shape = {128, 64, 64}, .only_traced_cta = true});
  j = describe_schedule(app);
  CHECK(j["headline"] == "2×1 tiles of 64×64, 2 CTAs");
}

TEST_CASE("schedule: the view draws each tile in its CTA's colour", "[gui][xvfb][schedule]") {
  using namespace gs::gui::test;
  if (!xvfb_or_skip()) return;
  const Headless h = run_headless("schedule", "--kernel simt_naive --m 128 --n 96 --k 8 --whole-grid --view schedule "
                                              "--size 900x700");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& drawn = h.state["drawn"];
  REQUIRE(drawn.contains("schedule.grid"));
  const auto g = drawn["schedule.grid"].get<std::array<float, 4>>();  // first cell: x, y, w, h
  const auto& view = h.state["views"]["schedule"];
  REQUIRE(view["available"] == true);
  REQUIRE(view["cells"].size() == 4 * 3);
  std::set<std::array<int, 3>> colours;
  for (const auto& c : view["cells"]) {
    const int row = c["row"], col = c["col"];
    // Off-centre, away from the order number drawn in the middle.
    const int x = int(g[0] + (col + 0.2f) * g[2]), y = int(g[1] + (row + 0.2f) * g[3]);
    REQUIRE(x < h.w);
    REQUIRE(y < h.h);
    const auto p = h.pixel(x, y);
    const Rgb want = cta_rgb(c["cta"].get<uint32_t>());
    INFO("tile (" << row << "," << col << ")");
    for (int i = 0; i < 3; ++i) CHECK(std::abs(int(p[i]) - int(want[i])) <= 3);
    colours.insert({p[0], p[1], p[2]});
  }
  CHECK(colours.size() == 12);  // twelve CTAs, twelve colours
}

TEST_CASE("schedule: a traced-CTA run outlines the tiles the traced CTA did not write", "[gui][xvfb][schedule]") {
  using namespace gs::gui::test;
  if (!xvfb_or_skip()) return;
  // 128×96 of 32×32 tiles: 4 × 3, of which the traced CTA (0,0) writes tile (0,0) only.
  const Headless h = run_headless("schedule-traced", "--kernel simt_naive --m 128 --n 96 --k 8 --view schedule "
                                                     "--size 900x700");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto g = h.state["drawn"]["schedule.grid"].get<std::array<float, 4>>();
  const auto& view = h.state["views"]["schedule"];
  REQUIRE(view["cells"].size() == 4 * 3);
  for (const auto& c : view["cells"]) {
    if (c["writers"] != 0) continue;
    const int row = c["row"], col = c["col"];
    INFO("tile (" << row << "," << col << ")");
    // The outline, 1 pixel in from the cell's left edge, against the empty middle of the cell.
    const auto edge = h.pixel(int(g[0] + col * g[2] + 1.5f), int(g[1] + (row + 0.5f) * g[3]));
    const auto middle = h.pixel(int(g[0] + (col + 0.5f) * g[2]), int(g[1] + (row + 0.5f) * g[3]));
    CHECK(std::abs(int(edge[0]) - int(middle[0])) + std::abs(int(edge[1]) - int(middle[1])) +
              std::abs(int(edge[2]) - int(middle[2])) > 30);
  }
}

TEST_CASE("occupancy: CTAs per SM by threads, shared memory, registers and CTA slots, and which binds",
          "[gui][schedule][occupancy]") {
  CHECK(registers_from_ptxas_log("ptxas info    : Used 168 registers, used 1 barriers, 400 bytes cmem[0]") == 168u);
  CHECK_FALSE(registers_from_ptxas_log("ptxas info    : Compiling entry function 'x' for 'sm_90'"));
  auto naive = open_kernel({.kernel_id = "simt_naive", .shape = {64, 64, 8}, .only_traced_cta = true});
  // 1024 threads: 2 per SM by threads. 30 registers -> 960 per warp, 1024 allocated, x 32 warps
  // = 32768: also 2 (threads, listed first, binds). 40 registers -> 1280 x 32 = 40960: 1.
  Occupancy o = occupancy_of(naive->kernel(), 30, "test");
  REQUIRE(o.limits.size() == 4);
  CHECK(o.limits[0].ctas == 2);
  CHECK(o.limits[2].resource == "registers");
  CHECK(o.limits[2].ctas == 2);
  CHECK(o.ctas_per_sm == 2);
  CHECK(o.binding == "threads");
  CHECK(o.warps_per_sm == 64);
  CHECK(o.occupancy == Approx(1.0));
  o = occupancy_of(naive->kernel(), 40, "test");
  CHECK(o.ctas_per_sm == 1);
  CHECK(o.binding == "registers");
  CHECK(o.occupancy == Approx(0.5));
  // Unknown registers: the limit is left out, not guessed.
  o = occupancy_of(naive->kernel(), 0, "not known");
  CHECK(o.limits.size() == 3);
  // Step 13's five 32 KiB stages (160 KiB + barriers): one CTA by shared memory.
  auto ring = open_kernel({.kernel_id = "hopper_producer_consumer", .shape = {128, 128, 64}, .only_traced_cta = true});
  o = occupancy_of(ring->kernel(), 90, "test");
  CHECK(o.ctas_per_sm == 1);
  CHECK(o.binding == "shared memory");
  // The schedule's waves use it, and say how many outputs the edge tiles waste.
  auto edges = open_kernel({.kernel_id = "simt_naive", .shape = {40, 72, 8}, .only_traced_cta = false});
  count_registers_now(*edges);
  const ScheduleData& d = schedule_data(edges);
  CHECK(d.ctas_per_sm == d.occupancy.ctas_per_sm);
  CHECK(d.wasted_elements == 64 * 96 - 40 * 72);
  if (std::getenv("GEMMSCOPE_REQUIRE_PTXAS")) {
    CHECK(d.occupancy.registers > 0);
    CHECK_THAT(d.occupancy.registers_source, Catch::Contains("ptxas"));
  }
}

TEST_CASE("occupancy: ptxas's register count comes from a job off the UI thread, pending until it is there",
          "[gui][schedule][occupancy]") {
  AppState app;
  app.set_kernel(open_kernel({.kernel_id = "simt_naive", .only_traced_cta = true}));
  REQUIRE(app.kernel);
  // Building the schedule's data runs no ptxas: the count is pending, and the data says so.
  const ScheduleData& before = schedule_data(app.kernel);
  CHECK(before.occupancy.registers_pending);
  CHECK_THAT(before.occupancy.registers_source, Catch::Contains("pending"));
  CHECK(app.jobs.empty());
  // The view asks for it once a frame: one job, never a second while it runs.
  request_register_count(app);
  request_register_count(app);
  CHECK(app.jobs.size() == 1);
  CHECK(app.jobs[0]->kind() == JobKind::registers);
  for (int i = 0; i < 3000 && app.busy(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    app.poll_jobs();
  }
  app.poll_jobs();
  REQUIRE_FALSE(app.busy());
  // The data is built again with the count.
  const ScheduleData& after = schedule_data(app.kernel);
  CHECK_FALSE(after.occupancy.registers_pending);
  CHECK_THAT(after.occupancy.registers_source, !Catch::Contains("pending"));
  if (std::getenv("GEMMSCOPE_REQUIRE_PTXAS")) {
    CHECK(after.occupancy.registers > 0);
    CHECK_THAT(after.occupancy.registers_source, Catch::Contains("ptxas -v"));
  }
  CHECK(describe_schedule(app)["occupancy"]["registers_pending"] == false);
}

TEST_CASE("schedule: a persistent kernel's declared order is the view's curve, the same as the walk that ran",
          "[gui][schedule][tile_order]") {
  for (uint32_t order : {0u, 2u}) {
    INFO("order " << order);
    auto k = open_kernel({.kernel_id = "hopper_fewer_arrivals",
                          .shape = {640, 1024, 64},
                          .params = {{"order", order}, {"ctas", 64}},
                          .only_traced_cta = false});
    const ScheduleData& d = schedule_data(k);
    REQUIRE(d.available);
    REQUIRE(d.whole_grid);
    REQUIRE(d.walk.size() == size_t(d.tiles_m) * d.tiles_n);  // 5 x 4 tiles, each once
    CHECK(std::set<uint32_t>(d.walk.begin(), d.walk.end()).size() == d.walk.size());
    // The cells say which tile each CTA took first, second, ...: round i of the walk is every
    // CTA's i-th tile, in CTA order.
    const uint32_t ctas = d.ctas;
    for (size_t i = 0; i < d.walk.size(); ++i) {
      const ScheduleCell& c = d.cells.at(d.walk[i]);
      CHECK(c.order == i / ctas);
      CHECK(c.cta == i % ctas);
    }
    // Row by row, the curve runs along the rows; the Hilbert curve steps between neighbours.
    for (size_t i = 1; i < d.walk.size(); ++i) {
      const int dr = int(d.walk[i] / d.tiles_n) - int(d.walk[i - 1] / d.tiles_n);
      const int dc = int(d.walk[i] % d.tiles_n) - int(d.walk[i - 1] % d.tiles_n);
      if (order == 2) CHECK(std::abs(dr) + std::abs(dc) <= 2);
      else CHECK(d.walk[i] == d.walk[i - 1] + 1);
    }
  }
}

TEST_CASE("schedule: a persistent CTA whose two consumer warpgroups store different tiles at once visits each once",
          "[gui][schedule][tile_order]") {
  // With K of one block, one consumer warpgroup can be a ring of tiles ahead of the other: their
  // stores interleave two tiles, which are still one visit each (the Hilbert hand-over made it
  // frequent: 257 tiles were reported written twice at 4096x4096x64).
  for (uint32_t order : {1u, 2u}) {
    INFO("order " << order);
    auto k = open_kernel({.kernel_id = "hopper_fewer_arrivals",
                          .shape = {4096, 4096, 64},
                          .params = {{"order", order}},
                          .only_traced_cta = false});
    const ScheduleData& d = schedule_data(k);
    REQUIRE(d.whole_grid);
    CHECK(d.written_twice == 0);
    CHECK(d.unwritten == 0);
    CHECK_THAT(d.note, Catch::Contains("every tile written once"));
  }
}
