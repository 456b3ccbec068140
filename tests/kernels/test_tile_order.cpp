// The persistent steps' tile orders (kernels/tile_order.hpp): each a walk over every tile once,
// the Hilbert curve's steps between neighbours for any grid, and the kernel walking exactly the
// host's order on the model, with C exact.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>


#include "kernels/registry.hpp"
#include "kernels/tile_order.hpp"
#include "run/sim_job.hpp"
#include "tests/model/model_fixture.hpp"

using namespace gs;
using kernels::tile_order::Order;

TEST_CASE("tile order: every order visits each tile once; the Hilbert walk steps between neighbours",
          "[kernels][tile_order]") {
  for (uint32_t tm = 1; tm <= 40; ++tm) {
    for (uint32_t tn = 1; tn <= 40; tn += (tn < 12 ? 1 : 7)) {
      for (Order o : {Order::row, Order::grouped, Order::hilbert}) {
        INFO(tm << "x" << tn << " " << kernels::tile_order::order_name(o));
        std::set<std::pair<uint32_t, uint32_t>> seen;
        uint32_t diagonal = 0, far = 0;
        kernels::tile_order::Cell prev{};
        for (uint64_t t = 0; t < uint64_t(tm) * tn; ++t) {
          const kernels::tile_order::Cell c = kernels::tile_order::tile_cell(o, t, tm, tn, 16);
          REQUIRE(c.row < tm);
          REQUIRE(c.col < tn);
          seen.insert({c.row, c.col});
          if (t > 0 && o == Order::hilbert) {
            const uint32_t dr = c.row > prev.row ? c.row - prev.row : prev.row - c.row;
            const uint32_t dc = c.col > prev.col ? c.col - prev.col : prev.col - c.col;
            diagonal += dr == 1 && dc == 1;
            far += dr > 1 || dc > 1 || dr + dc == 0;
          }
          prev = c;
        }
        CHECK(seen.size() == size_t(tm) * tn);
        CHECK(far == 0);
        CHECK(diagonal <= 1);
      }
    }
  }
  // The orders themselves, on a 4 x 3 grid of tiles.
  CHECK(kernels::tile_order::tile_cell(Order::row, 4, 4, 3, 2).row == 1);
  CHECK(kernels::tile_order::tile_cell(Order::row, 4, 4, 3, 2).col == 1);
  CHECK(kernels::tile_order::tile_cell(Order::grouped, 1, 4, 3, 2).row == 1);  // down the group's first column
  CHECK(kernels::tile_order::tile_cell(Order::grouped, 1, 4, 3, 2).col == 0);
}

TEST_CASE("tile order: the kernel's persistent CTAs walk the host's Hilbert order, and C is exact",
          "[kernels][tile_order][model]") {
  // Step 16 with 4 CTAs on a 5 x 3 grid of 128x256 tiles (edges clipped), and step 17's clusters
  // of 2 on its grid of cluster tiles (3 x 3 of 256x256, the last rank outside C).
  struct Case {
    const char* id;
    kernels::GemmShape shape;
    kernels::ParamValues params;
    uint32_t rows_per_tile;  // C rows per step of the order (a cluster tile spans its ranks)
  };
  for (const Case& c : {Case{"hopper_fewer_arrivals", {600, 704, 128}, {{"order", 2}, {"ctas", 64}}, 128},
                        Case{"hopper_cluster_multicast", {600, 704, 128}, {{"order", 2}, {"ctas", 64}}, 256}}) {
    INFO(c.id);
    const test::ModelRun r = test::run_model(c.id, c.shape, true, 7, {}, {}, c.params);
    REQUIRE(r.result.completed);
    CHECK(r.result.hazards.empty());
    CHECK(r.mismatches == 0);
    const model::CSchedule& s = r.result.schedule;
    REQUIRE(s.tiles_m > 0);
    const uint32_t order_rows = (c.shape.m + c.rows_per_tile - 1) / c.rows_per_tile, order_cols = s.tiles_n;
    const uint32_t cluster = c.rows_per_tile / 128;
    const uint32_t walkers = uint32_t(r.kernel.launch.ctas()) / cluster;
    REQUIRE(!s.visits.empty());
    for (const model::TileVisit& v : s.visits) {
      const uint32_t walker = v.cta / cluster, rank = v.cta % cluster;
      const kernels::tile_order::Cell want =
          kernels::tile_order::tile_cell(Order::hilbert, walker + uint64_t(v.order) * walkers, order_rows, order_cols, 16);
      INFO("CTA " << v.cta << " tile #" << v.order);
      CHECK(v.tile / s.tiles_n == want.row * cluster + rank);
      CHECK(v.tile % s.tiles_n == want.col);
    }
  }
}

TEST_CASE("tile order: the walk a persistent kernel declares is the one the whole grid runs on the model",
          "[kernels][tile_order][model]") {
  struct Case {
    const char* id;
    kernels::ParamValues params;
  };
  for (const Case& c : {Case{"hopper_fewer_arrivals", {{"order", 0}, {"ctas", 64}}},
                        Case{"hopper_fewer_arrivals", {{"order", 2}, {"ctas", 64}}},
                        Case{"hopper_cluster_multicast", {{"order", 1}, {"ctas", 64}}},
                        Case{"hopper_cluster_multicast", {{"order", 2}, {"ctas", 64}}},
                        // Step 19's pairs side by side (share=a) at its 256x128 tile: 3 x 6 tiles, 3 x 3 pairs.
                        Case{"hopper_stmatrix_epilogue", {{"order", 1}, {"ctas", 64}, {"bm", 256}, {"bn", 128}, {"share", 1}}},
                        Case{"hopper_stmatrix_epilogue", {{"order", 2}, {"ctas", 64}, {"bm", 256}, {"bn", 128}, {"share", 1}}},
                        Case{"hopper_stmatrix_epilogue",
                             {{"order", 0}, {"ctas", 64}, {"bm", 256}, {"bn", 128}, {"share", 1}, {"cluster", 4}}}}) {
    INFO(c.id << " " << kernels::params_text(c.params));
    const test::ModelRun r = test::run_model(c.id, {600, 704, 128}, true, 3, {}, {}, c.params);
    REQUIRE(r.result.completed);
    std::vector<model::TileVisit> visits = r.result.schedule.visits;
    std::stable_sort(visits.begin(), visits.end(), [](const model::TileVisit& a, const model::TileVisit& b) {
      return a.order != b.order ? a.order < b.order : a.cta < b.cta;
    });
    std::vector<uint32_t> ran;
    for (const model::TileVisit& v : visits) ran.push_back(v.tile);
    CHECK(ran == r.kernel.output.walk);
  }
}

TEST_CASE("tile order: a traced-CTA prediction reads the declared walk: row by row costs more HBM bytes than grouped",
          "[kernels][tile_order][model][timing]") {
  double hbm[2] = {0, 0};
  for (uint32_t order : {0u, 1u}) {
    run::SimRequest req{.kernel_id = "hopper_fewer_arrivals", .shape = {8192, 8192, 4096}, .only_traced_cta = true};
    req.params = {{"order", order}};
    req.trace = false;
    const run::SimReport rep = run::run_sim(req);
    REQUIRE(rep.result.completed);
    REQUIRE_FALSE(rep.kernel.output.walk.empty());
    hbm[order] = rep.result.stats.prediction.parts.hbm_bytes_per_wave;
  }
  CHECK(hbm[0] > 1.2 * hbm[1]);
}
