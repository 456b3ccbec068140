// The SIMT rungs (steps 02-07) on the model: exact at an edge shape of each, the coalescing
// lesson of step 02 in sectors, the race of step 03's mistake, and each rung's shared-memory
// bank conflicts worked out by hand from its address pattern (the figures ncu is compared with).
#include <catch2/catch.hpp>

#include "tests/model/model_fixture.hpp"

using namespace gs;

namespace {

// The largest and the total sector count of the traced CTA's global loads and stores.
struct Sectors {
  uint32_t max_load = 0, max_store = 0;
  uint64_t total = 0;
};
Sectors sectors_of(const model::SimResult& r) {
  Sectors s;
  for (const model::GlobalAccess& g : r.trace.global) {
    (g.store ? s.max_store : s.max_load) = std::max(g.store ? s.max_store : s.max_load, g.sectors);
    s.total += g.sectors;
  }
  return s;
}

}  // namespace

TEST_CASE("simt rungs: exact on integer inputs at a shape other than the example", "[model][simt]") {
  // Step 02 guards its edges (any shape); the others take multiples of their tile.
  const std::vector<std::pair<std::string, kernels::GemmShape>> cases{
      {"simt_coalesced", {33, 65, 17}},    {"simt_smem_tiling", {96, 32, 64}},  {"simt_blocktile_1d", {64, 192, 16}},
      {"simt_blocktile_2d", {256, 128, 16}}, {"simt_vectorized", {128, 256, 16}}, {"simt_warptile", {256, 128, 48}},
  };
  for (const auto& [id, shape] : cases) {
    DYNAMIC_SECTION(id << " " << shape.m << "x" << shape.n << "x" << shape.k) {
      test::ModelRun r = test::run_model(id, shape, true, 5);
      INFO(test::hazard_list(r.result));
      CHECK(r.result.completed);
      CHECK(r.result.hazards.empty());
      CHECK(r.mismatches == 0);
    }
  }
}

TEST_CASE("simt_coalesced: swapping row and column costs 32 sectors per access", "[model][simt]") {
  const kernels::GemmShape shape{64, 64, 8};
  const Sectors good = sectors_of(test::run_model("simt_coalesced", shape, true, 1).result);
  const Sectors bad = sectors_of(test::run_model("simt_coalesced", shape, true, 1, {"swap-row-col"}).result);
  // Coalesced: B 128 bytes = 4 sectors, A one broadcast sector, C 4 sectors.
  CHECK(good.max_load == 4);
  CHECK(good.max_store == 4);
  // Swapped: A's 32 lanes read 32 rows, C's write 32 rows; B becomes the broadcast.
  CHECK(bad.max_load == 32);
  CHECK(bad.max_store == 32);
  CHECK(bad.total > 5 * good.total);
}

TEST_CASE("simt_coalesced: the trace records each lane's global address", "[model][simt]") {
  // The coalescing view draws these: B's load of consecutive columns is lane l at 4 l; with
  // row and column swapped A's load is lane l one row of K floats further on.
  const kernels::GemmShape shape{64, 64, 8};
  const auto widest_load = [](const model::SimResult& r) {
    const model::GlobalAccess* w = nullptr;
    for (const model::GlobalAccess& g : r.trace.global)
      if (!g.store && (!w || g.sectors > w->sectors)) w = &g;
    return w;
  };
  const model::SimResult good = test::run_model("simt_coalesced", shape, true, 1).result;
  const model::SimResult bad = test::run_model("simt_coalesced", shape, true, 1, {"swap-row-col"}).result;
  const model::GlobalAccess* g = widest_load(good);
  const model::GlobalAccess* w = widest_load(bad);
  REQUIRE(g);
  REQUIRE(w);
  for (uint32_t l = 0; l < 32; ++l) {
    CHECK(g->offset[l] == 4 * l);
    CHECK(w->offset[l] == 4 * shape.k * l);
  }
}

TEST_CASE("simt_smem_tiling: without the first bar.sync a warp reads Bs words other warps wrote in the same interval", "[model][simt]") {
  test::ModelRun r = test::run_model("simt_smem_tiling", {32, 32, 64}, true, 3, {"no-sync-after-load"});
  REQUIRE_FALSE(r.result.hazards.empty());
  const model::Hazard& h = r.result.hazards.front();
  INFO(test::hazard_list(r.result));
  // The model issues the warps' stores before anyone reaches the reads, so C happens to come out
  // right; the race is what it names: a read of another warp's word with no barrier between.
  CHECK(h.kind == model::HazardKind::shared_race);
  CHECK(r.kernel.insts[h.inst].op == ir::Op::ld_shared);
  CHECK_THAT(h.detail, Catch::Contains("with no barrier in between"));
}

TEST_CASE("simt rungs: whole-grid bank conflicts at the example shapes, from the address patterns", "[model][simt]") {
  // Per CTA and K chunk, from each rung's header comment:
  //  03, 04: none (broadcasts and full rows).
  //  05: As reads 2-way (1 extra) and Bs reads 4-way (3 extra), 8 d x 8 loads x 8 warps each:
  //      512 + 1536 = 2048; example 256x256x16: 4 CTAs x 2 chunks.
  //  06: transposed As stores 2-way: 4 x 8 warps x 1 = 32; regN v4 loads 4 wavefronts per
  //      half-warp where 2 would do: 8 d x 2 x 8 warps x 4 = 512; 544 x 4 CTAs x 2 chunks.
  //  07: transposed As stores 4-way: 4 rounds x 4 x 4 warps x 3 = 192; regM, regN, Bs stores
  //      conflict-free; example 256x256x32: 4 CTAs x 2 chunks.
  const std::vector<std::pair<std::string, uint64_t>> cases{
      {"simt_coalesced", 0},          {"simt_smem_tiling", 0},       {"simt_blocktile_1d", 0},
      {"simt_blocktile_2d", 2048 * 8}, {"simt_vectorized", 544 * 8}, {"simt_warptile", 192 * 8},
  };
  for (const auto& [id, conflicts] : cases) {
    DYNAMIC_SECTION(id) {
      const kernels::KernelInfo& info = kernels::kernel_or_throw(id);
      test::ModelRun r = test::run_model(id, info.example_shape, true, 2);
      CHECK(r.result.stats.smem_bank_conflicts == conflicts);
    }
  }
}

TEST_CASE("simt_warptile: the transposed scalar stores into As take 4 wavefronts", "[model][simt]") {
  test::ModelRun r = test::run_model("simt_warptile", {128, 128, 16}, true, 4);
  uint32_t stores = 0, v4_loads = 0;
  for (const model::SmemAccess& a : r.result.trace.smem) {
    if (a.store && a.bytes == 4) {
      ++stores;
      CHECK(a.wavefronts == 4);
      CHECK(a.conflict_degree == 4);
    }
    if (!a.store && a.bytes == 16) {
      ++v4_loads;
      // regM: 4 vectors per half-warp, 32 B apart; regN: 4 contiguous vectors per half-warp.
      // Either way 16 distinct words in a half: one wavefront each, conflict-free.
      CHECK(a.wavefronts == 2);
      CHECK(a.ideal_wavefronts == 2);
    }
  }
  CHECK(stores == 4 * 4 * 4);         // 4 rounds x 4 floats x 4 warps
  CHECK(v4_loads == 16 * 6 * 4);      // 16 k x (2 regM + 4 regN) x 4 warps
  test::ModelRun nt = test::run_model("simt_warptile", {128, 128, 16}, true, 4, {"no-transpose"});
  uint32_t worst = 0;
  for (const model::SmemAccess& a : nt.result.trace.smem)
    if (!a.store) worst = std::max<uint32_t>(worst, a.conflict_degree);
  CHECK(worst == 8);  // regM's 8 thread rows, 16 words apart x 8 rows = one bank
  CHECK(nt.mismatches == 0);
}
