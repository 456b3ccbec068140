// Step 19 in the model: the stmatrix epilogue through a 128B-swizzled staging tile computes C
// exactly for both C types (edges clipped by the store, an odd number of tiles, idle ranks), its
// stmatrix writes take the ideal wavefronts where the packed tile of the mistake takes 8 times as
// many (f32's st.shared.v2: 2 and 4 times the ideal), a swizzle the store's map does not know
// permutes C's 16-byte pieces within each 8 rows, step 18's rules (fence, wait_group.read)
// still hold for stmatrix, and the L2 hint on C's stores (c_store_hint) stores the same bytes;
// cuBLAS's 256x128 tile (bm=256) in clusters sharing A or B (share) computes C exactly too.
#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "engine/ir/signature.hpp"
#include "engine/ptx/emit.hpp"
#include "tests/model/model_fixture.hpp"

using namespace gs;

namespace {

constexpr const char* kId = "hopper_stmatrix_epilogue";

test::ModelRun run(kernels::GemmShape shape, uint32_t cluster, uint32_t c_dtype, std::set<std::string> mistakes = {}) {
  return test::run_model(kId, shape, true, 19, std::move(mistakes), {}, {{"cluster", cluster}, {"c_dtype", c_dtype}});
}

const model::Hazard* find_hazard(const model::SimResult& r, model::HazardKind kind) {
  for (const model::Hazard& h : r.hazards)
    if (h.kind == kind) return &h;
  return nullptr;
}

constexpr model::HazardKind kRace = model::HazardKind::bulk_store_race;
constexpr model::HazardKind kFence = model::HazardKind::missing_proxy_fence;

// Step 19 built with `params` and `mistake` at `shape`: the model reports a hazard of `kind` at an
// instruction of op `at`; the run is returned for what a caller checks further.
test::ModelRun check_hazard(const kernels::GemmShape& shape, const char* mistake, const kernels::ParamValues& params,
                            model::HazardKind kind, ir::Op at) {
  test::ModelRun r = test::run_model(kId, shape, true, 19, {mistake}, {}, params);
  const model::Hazard* h = find_hazard(r.result, kind);
  REQUIRE(h);
  CHECK(r.kernel.insts[h->inst].op == at);
  return r;
}

// The traced CTA's staging writes (the op the C type uses): their wavefronts and the ideal.
struct Writes {
  size_t count = 0;
  uint64_t wavefronts = 0, ideal = 0;
};
Writes staging_writes(const test::ModelRun& r, ir::Op op) {
  Writes w;
  const model::Trace& t = r.result.trace;
  for (uint32_t e : t.of_kind(model::EventKind::smem_access)) {
    if (r.kernel.insts[t.events[e].inst].op != op) continue;
    const model::SmemAccess& a = t.smem[t.events[e].payload];
    ++w.count;
    w.wavefronts += a.wavefronts;
    w.ideal += a.ideal_wavefronts;
  }
  return w;
}

// Step 19 built with `varied` against the build with `plain` at `shape`: the same C bit for bit,
// no hazard; `also` checks the variant's run further.
void check_same_c(const kernels::GemmShape& shape, const kernels::ParamValues& plain,
                  const kernels::ParamValues& varied, const std::function<void(const test::ModelRun&)>& also) {
  const test::ModelRun a = test::run_model(kId, shape, true, 19, {}, {}, plain);
  const test::ModelRun b = test::run_model(kId, shape, true, 19, {}, {}, varied);
  INFO(test::hazard_list(b.result) << b.result.error);
  REQUIRE(a.result.completed);
  REQUIRE(b.result.completed);
  CHECK(b.result.hazards.empty());
  CHECK(b.mismatches == 0);
  CHECK(a.bufs.c == b.bufs.c);
  also(b);
}

// Step 19 with build parameter `param` at `value` against the same build without it, at three
// shapes (clipped edges, an odd number of tiles in pairs, four CTAs a cluster with idle ranks) and
// both C types (check_same_c).
void check_same_c_with(const char* param, uint32_t value, const std::function<void(const test::ModelRun&)>& also) {
  struct Case {
    uint32_t cluster, c_dtype;
    kernels::GemmShape shape;
  };
  for (const Case& c : {Case{2, 16, {200, 264, 136}}, Case{2, 16, {384, 768, 192}}, Case{4, 16, {640, 264, 136}},
                        Case{1, 32, {384, 768, 192}}}) {
    DYNAMIC_SECTION(param << "=" << value << " c_dtype=" << c.c_dtype << " cluster=" << c.cluster << " " << c.shape.m
                          << "x" << c.shape.n << "x" << c.shape.k) {
      const kernels::ParamValues plain{{"cluster", c.cluster}, {"c_dtype", c.c_dtype}};
      kernels::ParamValues varied = plain;
      varied[param] = value;
      check_same_c(c.shape, plain, varied, also);
    }
  }
}

}  // namespace

TEST_CASE("step 19 is exact for bf16 and f32 C, its stores clipped at C's edges", "[model][stmatrix]") {
  // 200x264x136: a partial tile-row and a last tile-column 8 wide, K's last block mostly zero-
  // filled, sums up to 2176 that bf16 must round; 384x768x192: 3x3 tiles (an odd count) in pairs,
  // the second pair's rank 1 below C; 640x264x136 in fours: ranks outside C; 8x8x8: one box of
  // which 8x8 elements land.
  struct Case {
    uint32_t cluster, c_dtype;
    kernels::GemmShape shape;
  };
  for (const Case& c : {Case{2, 16, {200, 264, 136}}, Case{1, 16, {200, 264, 136}}, Case{2, 16, {384, 768, 192}},
                        Case{4, 16, {640, 264, 136}}, Case{2, 16, {8, 8, 8}}, Case{2, 32, {200, 264, 136}},
                        Case{1, 32, {384, 768, 192}}}) {
    DYNAMIC_SECTION("c_dtype=" << c.c_dtype << " cluster=" << c.cluster << " " << c.shape.m << "x" << c.shape.n << "x"
                               << c.shape.k) {
      const test::ModelRun r = run(c.shape, c.cluster, c.c_dtype);
      INFO(test::hazard_list(r.result) << r.result.error);
      CHECK(r.result.completed);
      CHECK(r.result.hazards.empty());
      CHECK(r.mismatches == 0);
      CHECK(r.kernel.output.elem_bytes == c.c_dtype / 8);
    }
  }
}

TEST_CASE("step 19 with c_store_hint=evict_first stores the same C, bit for bit", "[model][stmatrix][params]") {
  // The hint says how long C's lines stay in L2; what lands in C must not change.
  check_same_c_with("c_store_hint", 1, [](const test::ModelRun& b) {
    // The hinted build really ran the hinted stores.
    size_t hinted_stores = 0;
    for (const ir::Inst& i : b.kernel.insts)
      hinted_stores += i.op == ir::Op::cp_async_bulk_tensor_store && ir::tensor_store_operands_of(i).policy;
    CHECK(hinted_stores > 0);
  });
}

TEST_CASE("step 19's stmatrix writes are conflict-free; the packed tile's are not", "[model][stmatrix][banks]") {
  // stmatrix.x4: 4 matrices of 128 B, one wavefront each when swizzled, 8 when packed. f32's
  // st.shared.v2 (256 B, two half-warp phases of 4 rows): the swizzle's XOR by r % 8 swaps the two
  // 16-byte pieces of a row pair (rows 0 and 1 write pieces {0,1} and {1,0}), so 2-way; packed 8-way.
  struct Case {
    uint32_t c_dtype;
    ir::Op op;
    uint32_t ideal_per_write, swizzled_factor, packed_factor;
  };
  for (const Case& c : {Case{16, ir::Op::stmatrix, 4, 1, 8}, Case{32, ir::Op::st_shared, 2, 2, 4}}) {
    DYNAMIC_SECTION("c_dtype=" << c.c_dtype) {
      // No cluster: the trace holds the one CTA asked for (a cluster's peers would join it).
      const test::ModelRun swizzled = run({256, 512, 128}, 1, c.c_dtype);
      const test::ModelRun packed = run({256, 512, 128}, 1, c.c_dtype, {"unswizzled-staging"});
      REQUIRE(swizzled.result.completed);
      REQUIRE(packed.result.completed);
      CHECK(packed.mismatches == 0);  // the packed tile is slow, not wrong
      CHECK(packed.result.hazards.empty());
      const Writes good = staging_writes(swizzled, c.op), bad = staging_writes(packed, c.op);
      // The traced CTA's two consumer warpgroups: 8 warps x 16 writes a tile, its one tile.
      CHECK(good.count == 8 * 16 * (c.c_dtype == 16 ? 1 : 4));
      CHECK(bad.count == good.count);
      CHECK(good.ideal == good.count * c.ideal_per_write);
      CHECK(good.wavefronts == c.swizzled_factor * good.ideal);
      CHECK(bad.wavefronts == c.packed_factor * good.ideal);
      // The whole grid's counters say the same (what ncu's bank-conflict counters measure): the
      // staging writes are the kernel's only shared accesses outside the tensor cores' reads.
      const model::SimStats& sw = swizzled.result.stats;
      const model::SimStats& pk = packed.result.stats;
      CHECK(sw.smem_wavefronts == c.swizzled_factor * sw.smem_ideal_wavefronts);
      CHECK(pk.smem_wavefronts == c.packed_factor * pk.smem_ideal_wavefronts);
      CHECK(pk.smem_bank_conflicts > sw.smem_bank_conflicts);
      if (c.c_dtype == 16) CHECK(sw.smem_bank_conflicts == 0);
    }
  }
}

TEST_CASE("step 19 with the swizzle missing from C's map: 16-byte pieces permuted within 8 rows", "[model][stmatrix]") {
  for (uint32_t c_dtype : {16u, 32u}) {
    DYNAMIC_SECTION("c_dtype=" << c_dtype) {
      const kernels::GemmShape s{256, 512, 128};
      const test::ModelRun a = run(s, 2, c_dtype, {"swizzle-not-in-store-map"});
      const test::ModelRun b = run(s, 2, c_dtype, {"swizzle-not-in-store-map"});
      REQUIRE(a.result.completed);
      CHECK(a.result.hazards.empty());
      CHECK(a.mismatches > 0);
      CHECK(a.bufs.c == b.bufs.c);  // deterministic: the GPU must match it bit for bit
      // Row r's piece p came from piece p ^ (r % 8): rows with r % 8 == 0 are right, no other is.
      const test::ModelRun good = run(s, 2, c_dtype);
      const size_t row_bytes = size_t(s.n) * (c_dtype / 8);
      for (uint32_t r = 0; r < s.m; ++r) {
        const bool same =
            std::equal(a.bufs.c.begin() + r * row_bytes, a.bufs.c.begin() + (r + 1) * row_bytes,
                       good.bufs.c.begin() + r * row_bytes);
        INFO("row " << r);
        CHECK(same == (r % 8 == 0));
      }
    }
  }
}

TEST_CASE("step 19's stmatrix writes obey step 18's rules", "[model][stmatrix][mistakes]") {
  SECTION("no fence.proxy.async: the TMA store reads what stmatrix wrote through the generic proxy") {
    check_hazard({256, 512, 512}, "missing-proxy-fence", {{"cluster", 2}, {"c_dtype", 16}}, kFence,
                 ir::Op::cp_async_bulk_tensor_store);
  }
  SECTION("a buffer rewritten before wait_group.read: the stmatrix lands on bytes a store may still read") {
    const test::ModelRun r = check_hazard({256, 512, 512}, "reuse-staging-before-wait",
                                          {{"cluster", 2}, {"c_dtype", 16}}, kRace, ir::Op::stmatrix);
    CHECK_FALSE(find_hazard(r.result, model::HazardKind::exit_with_pending_tma));
  }
}

TEST_CASE("step 19 with store_barrier=warpgroup: each consumer meets its own barrier, C the same bit for bit",
          "[model][stmatrix][params]") {
  // Each consumer warpgroup writes its own staging buffers and has its own issuer, so a barrier of
  // its 128 threads is enough; C must not change, and the buffer-reuse race must still be caught.
  check_same_c_with("store_barrier", 1, [](const test::ModelRun& b) {
    // The variant really meets at its warpgroup's own barriers.
    const std::string ptx = ptx::emit(b.kernel).text;
    CHECK_THAT(ptx, Catch::Contains("bar.sync 1, 128;") && Catch::Contains("bar.sync 2, 128;"));
  });
  SECTION("a buffer rewritten before wait_group.read is still a race") {
    check_hazard({256, 512, 512}, "reuse-staging-before-wait", {{"cluster", 2}, {"c_dtype", 16}, {"store_barrier", 1}},
                 kRace, ir::Op::stmatrix);
  }
}

TEST_CASE("step 19 with staging=slab: each chunk its own buffer, C the same bit for bit, its races still caught",
          "[model][stmatrix][params]") {
  struct Case {
    uint32_t cluster, bn;
    kernels::GemmShape shape;
  };
  for (const Case& c : {Case{2, 256, {200, 264, 136}}, Case{2, 256, {384, 768, 192}}, Case{4, 256, {640, 264, 136}},
                        Case{1, 256, {384, 768, 192}}, Case{2, 128, {384, 768, 192}}}) {
    DYNAMIC_SECTION("cluster=" << c.cluster << " bn=" << c.bn << " " << c.shape.m << "x" << c.shape.n << "x"
                               << c.shape.k) {
      const kernels::ParamValues plain{{"cluster", c.cluster}, {"c_dtype", 16}, {"bn", c.bn}};
      kernels::ParamValues slab = plain;
      slab["staging"] = 1;
      slab["stages"] = 3;
      check_same_c(c.shape, plain, slab, [](const test::ModelRun& b) {
        // Still conflict-free: every stmatrix one wavefront a matrix.
        const Writes w = staging_writes(b, ir::Op::stmatrix);
        CHECK(w.count > 0);
        CHECK(w.wavefronts == w.ideal);
      });
    }
  }
  // 72 tiles on 64 CTAs: eight CTAs write a second tile's slab into the buffers of their first.
  const kernels::GemmShape two_tiles{1152, 2048, 64};
  const kernels::ParamValues slab{{"cluster", 1}, {"ctas", 64}, {"c_dtype", 16}, {"staging", 1}, {"stages", 3}};
  SECTION("the next tile's slab written before wait_group.read: the stmatrix lands on bytes a store may still read") {
    check_hazard(two_tiles, "reuse-staging-before-wait", slab, kRace, ir::Op::stmatrix);
    // As written, the same grid has no race.
    const test::ModelRun good = test::run_model(kId, two_tiles, true, 19, {}, {}, slab);
    REQUIRE(good.result.completed);
    CHECK(good.result.hazards.empty());
    CHECK(good.mismatches == 0);
  }
  SECTION("no fence.proxy.async: the TMA stores read what stmatrix wrote through the generic proxy") {
    check_hazard({256, 512, 512}, "missing-proxy-fence",
                 {{"cluster", 2}, {"c_dtype", 16}, {"staging", 1}, {"stages", 3}}, kFence,
                 ir::Op::cp_async_bulk_tensor_store);
  }
}

TEST_CASE("step 19 at bn=192: a CTA's next tile goes through the buffers its first used, C exact",
          "[model][stmatrix][params]") {
  // 1152x1536x64 on 64 CTAs: 9 x 8 tiles of 128x192, so 8 CTAs (alone, or in pairs sharing B or A)
  // write a second tile's three chunks of bf16 through the two buffers whose last store, the first
  // tile's third chunk, went through buffer 0 (read as it may be until the first chunk's
  // wait_group.read 0); f32's six chunks alternate as at bn=256; 392x584x200: C's edges clipped
  // (4 x 4 tiles, the last tile-column 8 wide).
  struct Case {
    kernels::ParamValues params;
    kernels::GemmShape shape;
  };
  for (const Case& c : {Case{{{"cluster", 1}, {"ctas", 64}}, {1152, 1536, 64}},
                        Case{{{"cluster", 2}, {"ctas", 64}}, {1152, 1536, 64}},
                        Case{{{"cluster", 2}, {"share", 1}, {"ctas", 64}}, {1152, 1536, 64}},
                        Case{{{"cluster", 1}, {"ctas", 64}, {"c_dtype", 32}}, {1152, 1536, 64}},
                        Case{{{"cluster", 1}, {"ctas", 64}, {"staging", 1}}, {1152, 1536, 64}},
                        Case{{{"cluster", 2}}, {392, 584, 200}},
                        Case{{{"cluster", 4}, {"c_dtype", 32}}, {392, 584, 200}}}) {
    kernels::ParamValues p = c.params;
    p["bn"] = 192;
    if (!p.count("c_dtype")) p["c_dtype"] = 16;
    DYNAMIC_SECTION(kernels::params_text(p) << " " << c.shape.m << "x" << c.shape.n << "x" << c.shape.k) {
      const test::ModelRun r = test::run_model(kId, c.shape, true, 19, {}, {}, p);
      INFO(test::hazard_list(r.result) << r.result.error);
      REQUIRE(r.result.completed);
      CHECK(r.result.hazards.empty());
      CHECK(r.mismatches == 0);
    }
  }
  SECTION("without its wait_group.read the second tile's first chunk races the first tile's last store") {
    check_hazard({1152, 1536, 64}, "reuse-staging-before-wait",
                 {{"cluster", 1}, {"ctas", 64}, {"bn", 192}, {"c_dtype", 16}}, kRace, ir::Op::stmatrix);
  }
}

TEST_CASE("step 19 with wgmma_in_flight=1: a block's wgmmas left running, C the same bit for bit",
          "[model][stmatrix][params]") {
  // The stage is released a block later, once the wgmmas reading it are done: the same C, no hazard.
  check_same_c_with("wgmma_in_flight", 1, [](const test::ModelRun& b) {
    CHECK_THAT(ptx::emit(b.kernel).text, Catch::Contains("wgmma.wait_group.sync.aligned 1;"));
  });
}

TEST_CASE("step 19 at bm=256 (cuBLAS's 256x128 tile) is exact, sharing A or B, at C's edges", "[model][stmatrix][params]") {
  // 264x392x72: 2 x 4 tiles of 256x128, the last tile-row 8 tall and the last tile-column 8 wide, K's
  // second block mostly zero-filled; in side-by-side pairs (share=a) 2 x 2 cluster tiles, in pairs
  // one above the other (share=b) 1 x 4. 520x136x72: 3 x 2 tiles, so share=b's last pair has its
  // second CTA below C, share=a's pairs are whole. 264x264x72: 2 x 3 tiles, so share=a's last pair has
  // its second CTA right of C. 512x128x1024: 4096x1024x8192's aspect in miniature (16 K blocks, the
  // ring wraps 4 times; share=a's pair has its second CTA right of C). 8x8x8: one box, 8x8 of it lands.
  struct Case {
    uint32_t share, cluster, c_dtype;
    kernels::GemmShape shape;
  };
  for (const Case& c :
       {Case{1, 2, 16, {264, 392, 72}}, Case{1, 2, 32, {264, 392, 72}}, Case{0, 2, 16, {264, 392, 72}},
        Case{0, 1, 16, {264, 392, 72}}, Case{0, 1, 32, {520, 136, 72}}, Case{0, 2, 32, {520, 136, 72}},
        Case{1, 2, 16, {520, 136, 72}}, Case{1, 2, 16, {264, 264, 72}}, Case{1, 2, 32, {264, 264, 72}},
        Case{1, 4, 16, {264, 264, 72}}, Case{1, 2, 16, {512, 128, 1024}}, Case{0, 2, 16, {512, 128, 1024}},
        Case{1, 2, 16, {8, 8, 8}}, Case{0, 1, 32, {8, 8, 8}}}) {
    DYNAMIC_SECTION("share=" << (c.share ? "a" : "b") << " cluster=" << c.cluster << " c_dtype=" << c.c_dtype << " "
                             << c.shape.m << "x" << c.shape.n << "x" << c.shape.k) {
      const test::ModelRun r = test::run_model(
          kId, c.shape, true, 19, {}, {},
          {{"bm", 256}, {"bn", 128}, {"share", c.share}, {"cluster", c.cluster}, {"c_dtype", c.c_dtype}});
      INFO(test::hazard_list(r.result) << r.result.error);
      CHECK(r.result.completed);
      CHECK(r.result.hazards.empty());
      CHECK(r.mismatches == 0);
      CHECK(r.kernel.output.tile_rows == 256);
      // Every tile of C was written once, by the CTA the declared walk gives it.
      CHECK(r.result.schedule.visits.size() == r.kernel.output.walk.size());
    }
  }
}

TEST_CASE("step 19 at bm=256 with the other parameters: persistent CTAs, staging=slab, in flight; C exact",
          "[model][stmatrix][params]") {
  // 2304x1024x64 on 64 CTAs: 9 x 8 tiles, 36 pairs side by side for 32 clusters, so four pairs take a
  // second tile (through the buffers and the ring their first one used).
  struct Case {
    kernels::ParamValues params;
    kernels::GemmShape shape;
  };
  const kernels::ParamValues wide{{"bm", 256}, {"bn", 128}, {"share", 1}, {"cluster", 2}};
  const auto with = [&](kernels::ParamValues more) {
    more.insert(wide.begin(), wide.end());
    return more;
  };
  for (const Case& c : {Case{with({{"ctas", 64}}), {2304, 1024, 64}},
                        Case{with({{"ctas", 64}, {"staging", 1}, {"stages", 3}}), {2304, 1024, 64}},
                        Case{with({{"store_barrier", 1}, {"order", 2}}), {264, 392, 72}},
                        Case{with({{"wgmma_in_flight", 1}, {"c_store_hint", 1}}), {264, 392, 136}},
                        Case{{{"share", 1}, {"cluster", 2}}, {200, 600, 136}}}) {  // 128x256 sharing A
    DYNAMIC_SECTION(kernels::params_text(c.params) << " " << c.shape.m << "x" << c.shape.n << "x" << c.shape.k) {
      const test::ModelRun r = test::run_model(kId, c.shape, true, 19, {}, {}, c.params);
      INFO(test::hazard_list(r.result) << r.result.error);
      CHECK(r.result.completed);
      CHECK(r.result.hazards.empty());
      CHECK(r.mismatches == 0);
    }
  }
}

TEST_CASE("step 19 at bm=256: its stmatrix writes are conflict-free, its races and fences still caught",
          "[model][stmatrix][params][mistakes]") {
  const kernels::ParamValues wide{{"bm", 256}, {"bn", 128}, {"share", 1}, {"cluster", 2}, {"c_dtype", 16}};
  const test::ModelRun good = test::run_model(kId, {256, 256, 128}, true, 19, {}, {}, wide);
  REQUIRE(good.result.completed);
  const Writes w = staging_writes(good, ir::Op::stmatrix);
  CHECK(w.count == 8 * 16 * 2);  // the traced CTA and its peer: 8 warps x 16 writes a tile, one tile each
  CHECK(w.wavefronts == w.ideal);
  SECTION("no fence.proxy.async") {
    check_hazard({256, 256, 128}, "missing-proxy-fence", wide, kFence, ir::Op::cp_async_bulk_tensor_store);
  }
  SECTION("a buffer rewritten before wait_group.read") {
    check_hazard({256, 256, 128}, "reuse-staging-before-wait", wide, kRace, ir::Op::stmatrix);
  }
}
