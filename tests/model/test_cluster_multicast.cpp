// Step 17 in the model: clusters of 1, 2 and 4 CTAs sharing B through TMA multicast compute C
// exactly at shapes with odd tile counts, edges and long K; the CTAs of a cluster walk
// neighbouring tiles and an idle rank stores nothing; each deliberate mistake is caught the
// same way every run.
#include <algorithm>
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "tests/model/model_fixture.hpp"

using namespace gs;

namespace {

constexpr const char* kId = "hopper_cluster_multicast";

test::ModelRun run(kernels::GemmShape shape, uint32_t cluster, std::set<std::string> mistakes = {}, uint64_t seed = 5) {
  return test::run_model(kId, shape, true, seed, std::move(mistakes), {}, {{"cluster", cluster}});
}

const model::Hazard* find_hazard(const model::SimResult& r, model::HazardKind kind) {
  for (const model::Hazard& h : r.hazards)
    if (h.kind == kind) return &h;
  return nullptr;
}

}  // namespace

TEST_CASE("step 17 is exact with clusters of 1, 2 and 4 at odd tile counts, edges and long K", "[model][cluster]") {
  // 256x512x128: 2x2 tiles. 384x768x192: 3 tile-rows, so a pair's second rank of the last row
  // (and with 4, three ranks) lies below C. 128x128x1024: one tile, 16 K-blocks around the
  // 3-stage ring. 1000x1000x200 (pairs only, to keep the suite short): edge tiles in M, N and
  // K (K ends in a block of 8).
  std::vector<std::pair<uint32_t, kernels::GemmShape>> runs;
  for (uint32_t cluster : {1u, 2u, 4u})
    for (const kernels::GemmShape s : {kernels::GemmShape{256, 512, 128}, kernels::GemmShape{384, 768, 192},
                                       kernels::GemmShape{128, 128, 1024}})
      runs.push_back({cluster, s});
  runs.push_back({2, {1000, 1000, 200}});
  for (const auto& [cluster, s] : runs) {
    DYNAMIC_SECTION("cluster=" << cluster << " " << s.m << "x" << s.n << "x" << s.k) {
      const test::ModelRun r = run(s, cluster);
      INFO(test::hazard_list(r.result) << r.result.error);
      CHECK(r.result.completed);
      CHECK(r.result.hazards.empty());
      CHECK(r.mismatches == 0);
      CHECK(r.kernel.launch.cluster[0] == cluster);
    }
  }
}

TEST_CASE("step 17: a cluster's CTAs walk the tiles of one tile-column together, each tile once", "[model][cluster]") {
  // 5632 x 768: 44 x 3 tiles = 66 pair tiles over 64 pairs, so pairs 0 and 1 walk two each.
  const test::ModelRun r = test::run_model(kId, {5632, 768, 16}, true, 3);
  REQUIRE(r.result.completed);
  CHECK(r.mismatches == 0);
  const model::CSchedule& s = r.result.schedule;
  REQUIRE(s.tiles_m == 44);
  REQUIRE(s.tiles_n == 3);
  // Each CTA's tiles in the order it first stored into them (its two consumer warpgroups may
  // alternate between a tile's last stores and the next tile's first: more visits than tiles).
  std::map<uint32_t, std::vector<uint32_t>> tiles_of;
  std::map<uint32_t, std::set<uint32_t>> writers;
  for (const model::TileVisit& v : s.visits) {
    std::vector<uint32_t>& t = tiles_of[v.cta];
    if (std::find(t.begin(), t.end(), v.tile) == t.end()) t.push_back(v.tile);
    writers[v.tile].insert(v.cta);
  }
  CHECK(writers.size() == 44 * 3);
  for (const auto& [tile, ctas] : writers) CHECK(ctas.size() == 1);
  CHECK(tiles_of[0].size() == 2);  // pair 0 walked a second tile
  CHECK(tiles_of[127].size() == 1);
  for (const auto& [cta, tiles] : tiles_of) {
    if (cta % 2 != 0) continue;
    const std::vector<uint32_t>& peer = tiles_of[cta + 1];
    REQUIRE(peer.size() == tiles.size());
    for (size_t i = 0; i < tiles.size(); ++i) {
      CHECK(peer[i] % 3 == tiles[i] % 3);      // the same tile-column: one B panel
      CHECK(peer[i] / 3 == tiles[i] / 3 + 1);  // rank 1 the tile-row below rank 0's
    }
  }
}

TEST_CASE("step 17: a rank whose tile lies below C loads its slice of B for the others and stores nothing",
          "[model][cluster]") {
  // 384 x 768 in pairs: tile-rows 0-1 and 2-3; tile-row 3 is outside C (3 tile-rows). The pairs
  // of the second pair row (clusters 3, 4, 5: CTAs 6..11) have an idle rank 1.
  const test::ModelRun r = run({384, 768, 192}, 2);
  REQUIRE(r.result.completed);
  CHECK(r.mismatches == 0);
  std::map<uint32_t, int> visits;
  for (const model::TileVisit& v : r.result.schedule.visits) visits[v.cta]++;
  int idle = 0;
  for (uint32_t cta = 0; cta < 12; ++cta) idle += visits.count(cta) == 0;
  CHECK(idle == 3);
  // Each CTA still moved its A box and its slice of B, three K-blocks each: 12 x 3 x 2 transfers.
  CHECK(r.result.stats.tma_transfers == 12 * 3 * 2);
}

TEST_CASE("step 17: the pair reads half of B from L2 per CTA", "[model][cluster]") {
  // Per K-block a CTA issues its 16 KiB A box and a 32/cluster KiB slice of B.
  for (uint32_t cluster : {1u, 2u, 4u}) {
    const test::ModelRun r = run({512, 256, 128}, cluster);
    REQUIRE(r.result.completed);
    const uint64_t ctas = r.kernel.launch.ctas(), k_blocks = 2;
    CHECK(ctas == 4);
    CHECK(r.result.stats.tma_bytes == ctas * k_blocks * (16384 + 32768 / cluster));
  }
}

TEST_CASE("step 17's mistakes are caught, naming the barrier, the ranks and the cause", "[model][cluster][mistakes]") {
  const kernels::GemmShape shape{256, 512, 512};
  SECTION("a multicast mask without the peers: every CTA waits on full[0] for bytes that never come") {
    const test::ModelRun r = run(shape, 2, {"multicast-without-peers"});
    CHECK_FALSE(r.result.completed);
    const model::Hazard* dl = find_hazard(r.result, model::HazardKind::deadlock);
    REQUIRE(dl);
    CHECK_THAT(dl->detail, Catch::Contains("mbarrier 'full[0]'") && Catch::Contains("16384 transaction bytes still expected"));
  }
  SECTION("releasing the own CTA's stage only: a peer's multicast overwrites what the peer read, unreleased") {
    // The model runs the pair in step, so the peer has read the stage before the copy lands: the
    // outcome is right, the order is not guaranteed. Also where the ring wraps only once.
    for (const kernels::GemmShape s : {shape, kernels::GemmShape{128, 128, 1024}, kernels::GemmShape{256, 256, 256}}) {
      const test::ModelRun r = run(s, 2, {"release-own-cta-only"});
      const model::Hazard* race = find_hazard(r.result, model::HazardKind::cluster_race);
      REQUIRE(race);
      CHECK(r.kernel.insts[race->inst].op == ir::Op::cp_async_bulk_tensor_load_multicast);
      CHECK_THAT(race->detail, Catch::Contains("multicast writes") && Catch::Contains("in CTA rank") &&
                                   Catch::Contains("empty barrier of every CTA"));
    }
  }
  SECTION("expecting the own slice only: the phase completes with the peer's slice in flight") {
    // At the example shape each CTA's slice and its peer's land within a cluster quantum of each
    // other (main's timing model: TMA at the SM's share of L2), so the consumers, woken by the
    // early phase, read the stage after both landed and C comes out right: the hazard is what
    // names the mistake there. Where the ring wraps many times (128x128x1024: 16 K-blocks over 3
    // stages) the late bytes that count towards later phases add up until the barrier's count
    // goes wrong, the CTAs deadlock, and C is never written.
    const test::ModelRun r = run(shape, 2, {"expect-own-slice-only"});
    const test::ModelRun wraps = run({128, 128, 1024}, 2, {"expect-own-slice-only"});
    CHECK(wraps.mismatches > 0);
    CHECK(find_hazard(wraps.result, model::HazardKind::early_phase_completion));
    const model::Hazard* early = find_hazard(r.result, model::HazardKind::early_phase_completion);
    REQUIRE(early);
    CHECK_THAT(early->detail, Catch::Contains("mbarrier 'full[") && Catch::Contains("bytes of TMA loads") &&
                                  Catch::Contains("CTA rank"));
    CHECK(r.kernel.insts[early->inst].op == ir::Op::cp_async_bulk_tensor_load_multicast);
  }
  SECTION("with clusters of 4 too") {
    CHECK(find_hazard(run(shape, 4, {"multicast-without-peers"}).result, model::HazardKind::deadlock));
    CHECK(find_hazard(run(shape, 4, {"release-own-cta-only"}).result, model::HazardKind::cluster_race));
    CHECK(find_hazard(run(shape, 4, {"expect-own-slice-only"}).result, model::HazardKind::early_phase_completion));
  }
}

TEST_CASE("step 17's mistakes are deterministic: the same C and hazards every run", "[model][cluster][mistakes]") {
  for (const char* m : {"multicast-without-peers", "release-own-cta-only", "expect-own-slice-only"}) {
    DYNAMIC_SECTION(m) {
      // One pair, 8 K-blocks: the ring wraps.
      const test::ModelRun a = run({256, 256, 512}, 2, {m}), b = run({256, 256, 512}, 2, {m});
      CHECK(a.bufs.c == b.bufs.c);
      CHECK(test::hazard_list(a.result) == test::hazard_list(b.result));
      CHECK_FALSE(a.result.hazards.empty());
    }
  }
}

TEST_CASE("step 17: the pair's CTAs meet at their own times, so a pair runs faster than a lone CTA", "[model][cluster]") {
  // The CTAs of a cluster go through modeled time together (run_cluster's quantum): each waits
  // for the other's slice of B and release at about the cycle it comes. A CTA of a pair loads
  // 32 KiB per stage instead of 48, so its copy engine keeps up with its tensor cores and the
  // pair's traced CTA takes fewer cycles than cluster=1's. (When a CTA ran on until it blocked
  // and saw its peer's releases only at its own later clock, the pair took 15% more.)
  model::SimOptions opt;
  opt.only_traced_cta = true;
  const auto cycles = [&](uint32_t cluster) {
    const test::ModelRun r = test::run_model(kId, {256, 256, 2048}, true, 9, {}, opt, {{"cluster", cluster}});
    REQUIRE(r.result.completed);
    return r.result.stats.traced_cta_cycles;
  };
  const uint64_t alone = cycles(1), pair = cycles(2);
  INFO("cluster=1: " << alone << " cycles, cluster=2: " << pair);
  CHECK(pair < alone);
}
