// The schedule view's data: C's tiles coloured by the CTA that wrote each, from the model's
// whole-grid record (model::CSchedule), and the wave / tile quantization of the shape.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include <cstdlib>
#include <algorithm>
#include <map>
#include <set>

#include "gui/core/app_state.hpp"
#include "gui/core/colors.hpp"
#include "gui/core/schedule_data.hpp"
#include "kernels/registry.hpp"
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
    const kernels::CtaTile t = *kernels::cta_tile_of(
        *k->info, k->request.params, k->request.shape, {c.cta % k->kernel().launch.grid[0], c.cta / k->kernel().launch.grid[0], 0});
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

namespace {

// What the engine counts for `info` built with order `value` at `shape`: the walk it declares,
// through the same timing functions the prediction calls.
model::timing::WalkTraffic engine_bytes(const kernels::KernelInfo& info, kernels::GemmShape shape, uint32_t value,
                                        uint64_t concurrent, const model::timing::Machine& card) {
  kernels::ParamValues params = kernels::resolve_params(info, {});
  params["order"] = value;
  const ir::Kernel k = kernels::build_kernel(info, {shape, {}, params});
  const model::timing::GemmFacts g = model::timing::declared_gemm_facts(k.output, shape.k);
  return {model::timing::hbm_read_bytes(g, concurrent, card.desc->l2_kept_bytes.value), 0.0,
          model::timing::distinct_panel_bytes(g, concurrent)};
}

}  // namespace

TEST_CASE("schedule: the tile orders' HBM and L2 bytes are the timing model's for each order's walk",
          "[gui][schedule][tile_order]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_fewer_arrivals");  // step 16
  for (const model::timing::Machine* card : {&model::timing::kH100, &model::timing::kH200}) {
    INFO(card->name);
    for (const kernels::GemmShape shape : {kernels::GemmShape{4096, 4096, 4096}, kernels::GemmShape{8192, 8192, 8192}}) {
      INFO(shape.m << "^3");
      const uint64_t concurrent = 128;  // step 16's 128 persistent CTAs, one an SM: one wave
      const std::vector<OrderTraffic> orders =
          tile_order_traffic(info, {shape, {}, {}}, concurrent, *card);
      REQUIRE(orders.size() == 3);
      CHECK(orders[0].name == "row");
      CHECK(orders[1].name == "grouped");
      CHECK(orders[2].name == "hilbert");
      CHECK(orders[1].open);  // step 16 ships with the grouped order
      CHECK_FALSE(orders[0].open);
      CHECK_FALSE(orders[2].open);
      const double tiles = double(shape.m / 128) * double(shape.n / 256);
      for (const OrderTraffic& o : orders) {
        const model::timing::WalkTraffic e = engine_bytes(info, shape, o.value, concurrent, *card);
        CHECK(o.traffic.hbm_bytes == e.hbm_bytes);
        CHECK(o.traffic.l2_distinct_bytes == e.l2_distinct_bytes);
        // Every tile reads its A row panel and B column panel through L2, whatever the order.
        CHECK(o.traffic.l2_bytes == Approx(tiles * (128 + 256) * double(shape.k) * 2));
        CHECK(o.traffic.hbm_bytes >= double(shape.m + shape.n) * shape.k * 2);  // each byte at least once
        CHECK(o.traffic.l2_reuse() == Approx(o.traffic.l2_bytes / o.traffic.hbm_bytes));
      }
      // 8192^3, 16 waves of 128 tiles: a row-order wave needs 4 A panels and all 32 B panels, 136
      // MiB, which L2 cannot keep for the next; a grouped wave 16 A and 8 B panels. So grouped reads
      // less from HBM, and L2 serves each of its bytes more often; the Hilbert walk is compact too.
      // 4096^3, 4 waves: a row-order wave's 8 A and 16 B panels (40 MiB) do not stay either (L2
      // keeps about half its size of what every SM reads: l2_kept_bytes), a grouped wave's 32 MiB
      // barely. The H200 measured the same order (Nsight Compute's DRAM bytes of step 16, row /
      // grouped / Hilbert: 168 / 133 / 168 MB at 4096^3, 2280 / 1070 / 1210 MB at 8192^3;
      // docs/results/2026-12-02-l2).
      CHECK(orders[1].traffic.hbm_bytes < orders[0].traffic.hbm_bytes);
      CHECK(orders[1].traffic.l2_reuse() > orders[0].traffic.l2_reuse());
      if (shape.m == 8192) CHECK(orders[2].traffic.hbm_bytes < orders[0].traffic.hbm_bytes);
    }
  }
  // A kernel without a tile order has none to compare.
  CHECK(tile_order_traffic(kernels::kernel_or_throw("simt_naive"), {{256, 256, 64}, {}, {}}, 4, model::timing::kH100)
            .empty());
}

TEST_CASE("schedule: the open persistent kernel's tile orders, its own marked and equal to its prediction's bytes",
          "[gui][schedule][tile_order]") {
  // 16 waves of 128 tiles (64x32 tiles of 128x256) with K large enough that a row-order wave's
  // panels (4 of A, all 32 of B) do not stay in L2 for the next, built with the row order.
  AppState app;
  app.open_now({.kernel_id = "hopper_fewer_arrivals", .shape = {8192, 8192, 4096}, .params = {{"order", 0}},
                .only_traced_cta = true});
  REQUIRE(app.kernel);
  // A copy: describe_schedule below counts the kernel's registers (ptxas -v), after which the
  // view's cached data is built again and a reference to the first would dangle.
  const ScheduleData d = schedule_data(app.kernel);
  REQUIRE(d.orders.size() == 3);
  CHECK(d.orders[0].open);  // built with the row order
  CHECK_FALSE(d.orders[1].open);
  const model::timing::Prediction& p = app.kernel->report.result.stats.prediction;
  CHECK(d.orders_concurrent == std::min<uint64_t>(p.wave_ctas, app.kernel->kernel().launch.ctas()));
  // The open order's bytes are the ones its prediction counted (only the traced CTA ran: the
  // declared walk), wave by wave.
  CHECK(d.orders[0].traffic.hbm_bytes / double(p.waves) == Approx(p.parts.hbm_bytes_per_wave));
  const nlohmann::json j = describe_schedule(app)["tile_orders"];
  REQUIRE(j.size() == 3);
  CHECK(j[0]["name"] == "row");
  CHECK(j[0]["open"] == true);
  CHECK(j[1]["hbm_bytes"].get<double>() == d.orders[1].traffic.hbm_bytes);
  CHECK(j[2]["l2_reuse"].get<double>() == Approx(d.orders[2].traffic.l2_reuse()));
  CHECK_THAT(describe_schedule(app)["tile_orders_note"].get<std::string>(), Catch::Matchers::Contains("in flight at once"));
  // Row order reads most from HBM (grouped and Hilbert about half of it here), and the verdict
  // line names the order that reads least against it.
  CHECK(d.orders[1].traffic.hbm_bytes < d.orders[0].traffic.hbm_bytes * 0.6);
  CHECK(d.orders[2].traffic.hbm_bytes < d.orders[0].traffic.hbm_bytes * 0.6);
  const OrderTraffic& least = d.orders[1].traffic.hbm_bytes < d.orders[2].traffic.hbm_bytes ? d.orders[1] : d.orders[2];
  CHECK_THAT(d.orders_line, Catch::Matchers::StartsWith("The " + least.name + " order reads least from HBM") &&
                                Catch::Matchers::Contains("against the row order's"));
  CHECK(describe_schedule(app)["tile_orders_line"] == d.orders_line);

  // At the step's example shape all its tiles are in flight at once: the orders tie, and the note says so.
  AppState small;
  small.open_now({.kernel_id = "hopper_fewer_arrivals", .only_traced_cta = true});
  REQUIRE(small.kernel);
  const ScheduleData& s = schedule_data(small.kernel);
  REQUIRE(s.orders.size() == 3);
  CHECK(s.orders[0].traffic.hbm_bytes == s.orders[1].traffic.hbm_bytes);
  CHECK(s.orders[1].traffic.hbm_bytes == s.orders[2].traffic.hbm_bytes);
  CHECK_THAT(s.orders_note, Catch::Matchers::Contains("Every tile is in flight at once"));
  CHECK_THAT(s.orders_line, Catch::Matchers::Contains("All 4 tiles run at once here"));
  // A kernel without the parameter shows none.
  AppState plain;
  plain.open_now({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  REQUIRE(plain.kernel);
  CHECK(schedule_data(plain.kernel).orders.empty());
}

// Step 24 hands out tiles while the grid runs (clusterlaunchcontrol): at 13 x 12 = 156 tiles of
// one K-block each, a B200's 148 SMs run CTAs 0..147 and those take the last 8 tiles from the
// CTAs they cancel. Who took which tile, and when, is the model's record.
constexpr gs::kernels::GemmShape kQueuedShape{1664, 3072, 64};

TEST_CASE("schedule: with launch control, the tiles of cancelled CTAs go to the first wave, later", "[gui][schedule]") {
  auto k = open_kernel({.kernel_id = "blackwell_clc", .shape = kQueuedShape, .only_traced_cta = false});
  const ScheduleData& d = schedule_data(k);
  REQUIRE(d.available);
  REQUIRE(d.whole_grid);
  CHECK(d.launch_control);
  CHECK(d.ctas == 156);
  CHECK(d.unwritten == 0);
  CHECK(d.written_twice == 0);
  CHECK(d.cancelled == 8);
  CHECK(d.none_left == 148);
  CHECK_THAT(d.note, Catch::Matchers::Contains("148 CTAs ran and took the tiles of 8 CTAs they cancelled"));
  std::map<uint32_t, uint64_t> first_tile_cycle;  // CTA -> the cycle of its own tile
  for (const ScheduleCell& c : d.cells)
    if (c.order == 0) first_tile_cycle[c.cta] = c.cycle;
  uint32_t second = 0;
  for (const ScheduleCell& c : d.cells) {
    CHECK(c.cta < 148);  // no cancelled CTA ever ran
    CHECK(c.cycle <= d.last_cycle);
    if (c.order == 0) continue;
    ++second;
    CHECK(c.cycle > first_tile_cycle.at(c.cta));  // a CTA's second tile comes after its first
  }
  CHECK(second == 8);
  // One wave, not two: the 8 CTAs past the first 148 never run; their tiles are a last round.
  CHECK(d.waves == 1);
  CHECK_THAT(d.waves_text, Catch::Matchers::StartsWith("1 wave (148 SMs × 1) that takes the other 8 CTAs' tiles by "
                                                       "cluster launch control: 1.05 tiles a CTA, the last round 8 "
                                                       "tiles: 5% of the SMs"));
}

TEST_CASE("schedule: with launch control, a strip under each tile shows when its CTA took it", "[gui][xvfb][schedule]") {
  using namespace gs::gui::test;
  if (!xvfb_or_skip()) return;
  const Headless h = run_headless("schedule-clc", "--kernel blackwell_clc --m 1664 --n 3072 --k 64 --whole-grid "
                                                  "--view schedule --size 1280x800");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& drawn = h.state["drawn"];
  const auto& view = h.state["views"]["schedule"];
  REQUIRE(view["launch_control"]["cancelled"] == 8);
  REQUIRE(drawn.contains("schedule.when_last"));
  const auto g = drawn["schedule.grid"].get<std::array<float, 4>>();
  const auto last = drawn["schedule.when_last"].get<std::array<float, 4>>();
  // The latest tile's strip runs the whole cell: dark at its right end.
  const auto end = h.pixel(int(last[0] + last[2] - 2), int(last[1] + last[3] * 0.5f));
  CHECK(int(end[0]) + int(end[1]) + int(end[2]) < 3 * 60);
  // A first-wave tile stored early: its strip is short, so the foot's right end shows its CTA's colour.
  for (const auto& c : view["cells"]) {
    if (c["order"] != 0 || c["cycle"].get<uint64_t>() * 2 > view["launch_control"]["last_cycle"].get<uint64_t>()) continue;
    const int row = c["row"], col = c["col"];
    const auto p = h.pixel(int(g[0] + (col + 0.9f) * g[2]), int(g[1] + (row + 1) * g[3] - 0.5f * last[3] - 1));
    const Rgb want = cta_rgb(c["cta"].get<uint32_t>());
    INFO("tile (" << row << "," << col << ")");
    for (int i = 0; i < 3; ++i) CHECK(std::abs(int(p[i]) - int(want[i])) <= 3);
    break;
  }
}

TEST_CASE("schedule: the launch queue's answers, each cancelled CTA's tile stored by the asker after its answer landed",
          "[gui][schedule]") {
  auto k = open_kernel({.kernel_id = "blackwell_clc", .shape = kQueuedShape, .only_traced_cta = false});
  // A copy: describe_schedule below may replace the kernel's cached ScheduleData.
  const ScheduleData d = schedule_data(k);
  REQUIRE(d.launch_control);
  // 8 answers cancelled CTAs 148..155, and each of the 148 CTAs that ran heard "queue empty" once.
  REQUIRE(d.answers.size() == 8 + 148);
  CHECK(d.queue_ctas.size() == 148);
  CHECK(d.queue_ctas.front() == 0);
  CHECK(d.queue_ctas.back() == 147);
  const std::vector<uint32_t>& launch_order = k->kernel().output.walk;  // CTA i's own tile: launch_order[i]
  REQUIRE(launch_order.size() == 156);
  std::set<uint32_t> cancelled, taken_tiles;
  for (size_t i = 0; i < d.answers.size(); ++i) {
    const ClcAnswer& a = d.answers[i];
    INFO("answer " << i << " to CTA " << a.asker);
    CHECK(a.landed > a.issued);
    CHECK(a.landed <= d.queue_end);
    if (a.cancelled == kNone) {
      CHECK(a.tile == kNone);
      continue;
    }
    CHECK(a.cancelled >= 148);  // a CTA that had not started
    CHECK(cancelled.insert(a.cancelled).second);
    REQUIRE(a.tile == launch_order[a.cancelled]);
    // The asker computed that tile: its first store into it came after the answer landed.
    REQUIRE(a.stored);
    CHECK(a.stored_at > a.landed);
    CHECK(d.cells[a.tile].cta == a.asker);
    CHECK(d.cells[a.tile].answer == i);
    taken_tiles.insert(a.tile);
  }
  CHECK(cancelled.size() == 8);
  // Every other tile is its CTA's own, in the launch order the kernel declares.
  for (uint32_t t = 0; t < d.cells.size(); ++t) {
    const ScheduleCell& c = d.cells[t];
    INFO("tile " << t);
    if (taken_tiles.count(t)) {
      CHECK(c.order == 1);
      continue;
    }
    CHECK(c.answer == kNone);
    CHECK(c.order == 0);
    CHECK(launch_order[c.cta] == t);
  }
  // The state JSON says the same.
  AppState app;
  app.set_kernel(k);
  const nlohmann::json j = describe_schedule(app)["launch_control"];
  REQUIRE(j["answers"].size() == d.answers.size());
  CHECK(j["queue_end"] == d.queue_end);
  const auto first = std::find_if(d.answers.begin(), d.answers.end(), [](const ClcAnswer& a) { return a.cancelled != kNone; });
  const nlohmann::json& jf = j["answers"][size_t(first - d.answers.begin())];
  CHECK(jf["cancelled"] == first->cancelled);
  CHECK(jf["landed"] == first->landed);
  CHECK(jf["stored_at"] == first->stored_at);
}

TEST_CASE("schedule: the launch queue's lanes mark each answer where it landed, a cancel filled, 'queue empty' a ring",
          "[gui][xvfb][schedule]") {
  using namespace gs::gui::test;
  if (!xvfb_or_skip()) return;
  const Headless h = run_headless("schedule-queue", "--kernel blackwell_clc --m 1664 --n 3072 --k 64 --whole-grid "
                                                    "--view schedule --size 1280x800");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& drawn = h.state["drawn"];
  const auto& q = h.state["views"]["schedule"]["launch_control"];
  REQUIRE(drawn.contains("schedule.queue"));
  REQUIRE(drawn.contains("schedule.queue.cancel"));
  REQUIRE(drawn.contains("schedule.queue.empty"));
  const auto axis = drawn["schedule.queue"].get<std::array<float, 4>>();  // x0, first lane's top, width, lane height
  const double end = q["queue_end"].get<double>();
  // The first lane drawn with a cancel: its CTA's first successful answer lands where the axis says.
  const auto cancel = drawn["schedule.queue.cancel"].get<std::array<float, 4>>();  // x, y, radius, lane
  const uint32_t cta = q["queue_ctas"][size_t(cancel[3])];
  const nlohmann::json* answer = nullptr;
  for (const auto& a : q["answers"])
    if (a["asker"] == cta && !a["cancelled"].is_null()) {
      answer = &a;
      break;
    }
  REQUIRE(answer);
  CHECK(std::abs(cancel[0] - (axis[0] + axis[2] * float((*answer)["landed"].get<double>() / end))) < 1.0f);
  CHECK(std::abs(cancel[1] - (axis[1] + axis[3] * (cancel[3] + 0.5f))) < 1.0f);
  // Filled in the ok colour at its centre.
  const Rgb ok = ok_rgb(true);
  const auto p = h.pixel(int(cancel[0]), int(cancel[1]));
  for (int i = 0; i < 3; ++i) CHECK(std::abs(p[i] - int(ok[i])) <= 40);
  // "Queue empty" is a ring: its centre is not the ok colour, its edge is drawn over the lane.
  const auto empty = drawn["schedule.queue.empty"].get<std::array<float, 4>>();
  const auto centre = h.pixel(int(empty[0]), int(empty[1]) - 1);
  CHECK(std::abs(centre[0] - int(ok[0])) + std::abs(centre[1] - int(ok[1])) + std::abs(centre[2] - int(ok[2])) > 60);
  // The edge: a pixel of the column through its centre, a radius above it (give or take a pixel:
  // where a circle this small puts its top row depends on the centre's fraction of a pixel).
  const auto inside = h.pixel(int(empty[0]) + 1, int(empty[1]) - int(empty[2] * 0.5f));
  int edge_contrast = 0;
  for (int dy = int(empty[2]) - 1; dy <= int(empty[2]) + 1; ++dy) {
    const auto edge = h.pixel(int(empty[0]), int(empty[1]) - dy);
    edge_contrast = std::max(edge_contrast, std::abs(edge[0] - inside[0]) + std::abs(edge[1] - inside[1]) +
                                                std::abs(edge[2] - inside[2]));
  }
  CHECK(edge_contrast > 30);
}

TEST_CASE("schedule: a persistent CTA pair writes each pair tile's two halves once, as its walk declares",
          "[gui][schedule]") {
  // Step 26: 4 clusters walk 2 x 6 pair tiles of 256x256, three each; the view's tiles are the
  // CTAs' 128x256 halves, rank 1's under rank 0's, and the declared walk is the one that ran.
  AppState app;
  app.open_now({.kernel_id = "blackwell_pair_persistent", .shape = {512, 1536, 128}, .params = {{"ctas", 8}},
                .only_traced_cta = false});
  REQUIRE(app.kernel);
  const ScheduleData& d = schedule_data(app.kernel);
  REQUIRE(d.available);
  CHECK(d.whole_grid);
  CHECK(d.tiles_m == 4);
  CHECK(d.tiles_n == 6);
  CHECK(d.unwritten == 0);
  CHECK(d.written_twice == 0);
  REQUIRE(d.walk.size() == 24);
  for (size_t i = 0; i < d.walk.size(); i += 2) CHECK(d.walk[i + 1] == d.walk[i] + 6);  // rank 1: the row below
  // The two halves of a pair tile are written by the two CTAs of one cluster.
  for (const ScheduleCell& c : d.cells) {
    if (c.row % 2 == 1) continue;
    const ScheduleCell& below = d.cells[(c.row + 1) * d.tiles_n + c.col];
    CHECK(below.cta / 2 == c.cta / 2);
    CHECK(below.cta == c.cta + 1);
  }
}
