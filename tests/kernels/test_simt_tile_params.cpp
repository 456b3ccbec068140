// The SIMT steps 04-07's tiles as build parameters (bm, bn, bk, tm, tn; wm, wn, wniter for step
// 07): the builds as they ship are the kernels they were, byte for byte; every declared value
// builds in some combination and each such build computes C exactly on the model and assembles;
// a combination that cannot work is refused before a build with the reason, naming the values;
// what reads a kernel's tile (the shape rule, the CTA's tile, the output tiling) follows the build.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/ptx/emit.hpp"
#include "kernels/registry.hpp"
#include "run/sim_job.hpp"
#include "tests/support/model_build_check.hpp"
#include "tests/support/param_combos.hpp"
#include "tests/support/ptx_fingerprint.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;
using Catch::Matchers::Contains;

namespace {

constexpr std::string_view kSimtTiled[] = {"simt_blocktile_1d", "simt_blocktile_2d", "simt_vectorized", "simt_warptile"};

// Runs the build on the model over its whole grid with integer inputs: C must equal the
// reference bit for bit, with no hazards; and its PTX must assemble.
void check_build(const kernels::KernelInfo& info, const kernels::ParamValues& params) {
  const kernels::GemmShape t = kernels::tile_of(info, params);
  // Two CTA tiles each way (a CTA that computed its neighbour's tile would show) and two K chunks.
  const kernels::GemmShape shape{2 * t.m, 2 * t.n, 2 * t.k};
  INFO(info.id << " " << kernels::params_text(params) << " at " << shape.m << "x" << shape.n << "x" << shape.k);
  const run::SimReport r = test::check_build_on_model(info, params, shape);
  // The build's tile is the one the launch and the declared output tiling use.
  CHECK(r.kernel.launch.grid[0] == 2);
  CHECK(r.kernel.launch.grid[1] == 2);
  // Past the 48 KiB a kernel may declare statically, the tiles are dynamic shared memory.
  CHECK(r.kernel.dynamic_smem == ((t.m + t.n) * t.k * 4 > 48 * 1024));
  test::check_assembles(ptx::emit(r.kernel).text, info.arch, info.id + " " + kernels::params_text(params));
}

void check_step(std::string_view id) {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(id);
  const std::vector<kernels::ParamValues> builds = test::covering_builds(info);
  REQUIRE(builds.size() >= 4);
  for (const kernels::ParamValues& p : builds) check_build(info, p);
}

}  // namespace

TEST_CASE("SIMT tiles: the builds as they ship are the kernels they were, byte for byte", "[kernels][params][simt]") {
  // The PTX of steps 04-07 as it was before their tiles became build parameters (commit 6a2cc6b,
  // `gemmscope ptx ID` and `ptx ID --m 512 --n 256 --k 64`), fingerprinted without the version
  // line. A change here changes the kernel a learner reads and every measurement of it.
  const test::GoldenPtx golden[] = {
      {"simt_blocktile_1d", {0, 0, 0}, 0x63363d5527f71f7dull}, {"simt_blocktile_1d", {512, 256, 64}, 0x17e00ba87ca32828ull},
      {"simt_blocktile_2d", {0, 0, 0}, 0x53fec4a3406cddc5ull}, {"simt_blocktile_2d", {512, 256, 64}, 0x8a1f32e02a6e591cull},
      {"simt_vectorized", {0, 0, 0}, 0xcca7d0c67c2d676aull},   {"simt_vectorized", {512, 256, 64}, 0xf81f2fbba5a240e1ull},
      {"simt_warptile", {0, 0, 0}, 0x90dbf2b7b4165de4ull},     {"simt_warptile", {512, 256, 64}, 0xbdb915d85f1eee34ull},
  };
  for (const test::GoldenPtx& g : golden) {
    const std::string as_shipped = test::check_golden_ptx(g);
    const kernels::KernelInfo& info = kernels::kernel_or_throw(g.id);
    const kernels::GemmShape shape = info.resolve(g.shape);
    // Naming every default is the same build.
    kernels::ParamValues defaults;
    for (const kernels::BuildParam& p : info.params) defaults[p.name] = p.default_value;
    CHECK(ptx::emit(kernels::build_kernel(info, {shape, {}, defaults})).text == as_shipped);
  }
}

TEST_CASE("SIMT tiles: each step declares its tile, and every value builds in some combination", "[kernels][params][simt]") {
  const std::map<std::string_view, std::set<std::string>> expected = {
      {"simt_blocktile_1d", {"bm", "bn", "bk", "tm"}},
      {"simt_blocktile_2d", {"bm", "bn", "bk", "tm", "tn"}},
      {"simt_vectorized", {"bm", "bn", "bk", "tm", "tn"}},
      {"simt_warptile", {"bm", "bn", "bk", "wm", "wn", "wniter", "tm", "tn"}},
  };
  for (std::string_view id : kSimtTiled) {
    const kernels::KernelInfo& info = kernels::kernel_or_throw(id);
    INFO(id);
    std::set<std::string> names;
    for (const kernels::BuildParam& p : info.params) names.insert(p.name);
    CHECK(names == expected.at(id));
    REQUIRE(info.build_tile);
    REQUIRE(info.check_params);
    // The defaults are the tile the step ships with.
    const kernels::GemmShape t = kernels::tile_of(info, {});
    CHECK((t.m == info.tile.m && t.n == info.tile.n && t.k == info.tile.k));
    const std::vector<kernels::ParamValues> valid = test::valid_combinations(info);
    CHECK(valid.size() >= 20);
    for (const kernels::BuildParam& p : info.params)
      for (uint32_t v : p.choices) {
        INFO(p.name << "=" << v);
        CHECK(test::build_with(info, p.name, v).has_value());
      }
  }
}

TEST_CASE("SIMT tiles: step 04's covering builds compute C exactly and assemble", "[kernels][params][simt][model]") {
  check_step("simt_blocktile_1d");
}
TEST_CASE("SIMT tiles: step 05's covering builds compute C exactly and assemble", "[kernels][params][simt][model]") {
  check_step("simt_blocktile_2d");
}
TEST_CASE("SIMT tiles: step 06's covering builds compute C exactly and assemble", "[kernels][params][simt][model]") {
  check_step("simt_vectorized");
}
TEST_CASE("SIMT tiles: step 07's covering builds compute C exactly and assemble", "[kernels][params][simt][model]") {
  check_step("simt_warptile");
}

TEST_CASE("SIMT tiles: step 07 with two sub-tiles along M, shared memory past 48 KiB, and its mistakes",
          "[kernels][params][simt][model]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("simt_warptile");
  // wn=32 in 2 sub-tiles of 16 columns: 4 lanes of 4 along N, 8 of 8 rows along M: 64-row
  // sub-tiles, so a 128-row warp tile takes two (WMITER = 2).
  check_build(info, kernels::resolve_params(info, {{"bm", 128}, {"bn", 64}, {"wm", 128}, {"wn", 32}, {"wniter", 2}}));
  // 128x128 tiles in 64-wide K chunks: 64 KiB of shared memory.
  check_build(info, kernels::resolve_params(info, {{"bk", 64}}));
  // The mistakes on another tile: still correct (their lesson is the bank record).
  for (const char* mistake : {"no-transpose", "scalar-loads"}) {
    INFO(mistake);
    run::SimRequest req;
    req.kernel_id = info.id;
    req.shape = {256, 128, 64};
    req.mistakes = {mistake};
    req.params = {{"bm", 128}, {"bn", 64}, {"wm", 128}, {"wn", 32}, {"wniter", 2}, {"bk", 32}};
    req.trace = false;
    const run::SimReport r = run::run_sim(req);
    CHECK(r.result.hazards.empty());
    CHECK(r.cmp.correct);
    CHECK(r.cmp.mismatches == 0);
  }
}

TEST_CASE("SIMT tiles: combinations that cannot work are refused before a build, with the reason",
          "[kernels][params][simt][errors]") {
  const kernels::KernelInfo& one_d = kernels::kernel_or_throw("simt_blocktile_1d");
  const kernels::KernelInfo& two_d = kernels::kernel_or_throw("simt_blocktile_2d");
  const kernels::KernelInfo& vec = kernels::kernel_or_throw("simt_vectorized");
  const kernels::KernelInfo& warp = kernels::kernel_or_throw("simt_warptile");
  // Too many threads, naming the formula, the values and the limit.
  CHECK_THROWS_WITH(kernels::resolve_params(one_d, {{"bm", 256}, {"bn", 256}, {"tm", 4}}),
                    Contains("simt_blocktile_1d cannot be built with bk=8 bm=256 bn=256 tm=4") &&
                        Contains("bm·bn/tm = 256·256/4 = 16384 threads, more than the 1024 a CTA can have"));
  // Not whole warps.
  CHECK_THROWS_WITH(kernels::resolve_params(two_d, {{"bm", 32}, {"bn", 32}, {"tm", 16}, {"tn", 16}}),
                    Contains("= 4 threads, not a whole number of 32-thread warps"));
  // The copy: a round of A's copy (512 threads, 4 floats a row) covers more rows than the chunk has.
  CHECK_THROWS_WITH(kernels::resolve_params(one_d, {{"bk", 4}}),
                    Contains("the 512 threads copy 128 rows of A's chunk a round, but it has bm=64: bm must be a "
                             "multiple of 128"));
  // ... and of B's: 8 rows of 64 floats a round, where bm/tm = 8 threads share a column.
  CHECK_THROWS_WITH(kernels::resolve_params(one_d, {{"bm", 128}, {"bn", 32}, {"bk", 4}, {"tm", 8}}),
                    Contains("the 512 threads copy 16 rows of B's chunk a round, but it has bk=4"));
  // Shared memory: (256 + 256)·128·4 B = 256 KiB.
  CHECK_THROWS_WITH(kernels::resolve_params(vec, {{"bm", 256}, {"bn", 256}, {"bk", 128}, {"tm", 16}, {"tn", 16}}),
                    Contains("256 KiB of shared memory, more than the 227 KiB a CTA can have"));
  // Registers: a 128x128 warp tile is 512 results a lane.
  CHECK_THROWS_WITH(kernels::resolve_params(warp, {{"bm", 256}, {"bn", 256}, {"wm", 128}, {"wn", 128}}),
                    Contains("= 560 registers a thread keeps through the K loop, more than the 255 each of 128 threads "
                             "can have"));
  // The warp tile larger than the CTA's.
  CHECK_THROWS_WITH(kernels::resolve_params(warp, {{"bm", 64}, {"wm", 128}}),
                    Contains("the wm × wn = 128 × 64 warp tile does not fit the bm × bn = 64 × 128 CTA tile"));
  // A value no combination takes is refused as before, naming the choices.
  CHECK_THROWS_WITH(kernels::resolve_params(one_d, {{"bm", 48}}),
                    "bm=48 is not a value simt_blocktile_1d takes: choose one of 32, 64, 128, 256 (default 64)");
  // Every path to a kernel refuses them: a build, a run on the model.
  CHECK_THROWS_AS(kernels::build_kernel(one_d, {{256, 256, 64}, {}, {{"bm", 256}, {"bn", 256}, {"tm", 4}}}),
                  kernels::ConfigError);
  run::SimRequest req;
  req.kernel_id = two_d.id;
  req.params = {{"bm", 32}, {"bn", 32}, {"tm", 16}, {"tn", 16}};
  CHECK_THROWS_AS(run::run_sim(req), kernels::ConfigError);
}

TEST_CASE("SIMT tiles: the shape rule and the CTA's tile follow the build's tile", "[kernels][params][simt]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("simt_blocktile_2d");
  const kernels::ParamValues wide = {{"bm", 64}, {"bn", 256}, {"bk", 16}};
  const kernels::GemmShape t = kernels::tile_of(info, wide);
  CHECK((t.m == 64 && t.n == 256 && t.k == 16));
  // 64x256x16 tiles: M=192 fits, which the 128-row tile as shipped does not take; K=8 does not.
  CHECK_NOTHROW(kernels::check_build_shape(info, {192, 256, 32}, wide));
  CHECK_THROWS_WITH(kernels::check_build_shape(info, {192, 256, 32}), Contains("M=192") && Contains("128"));
  CHECK_THROWS_WITH(kernels::check_build_shape(info, {192, 256, 8}, wide), Contains("K=8") && Contains("16"));
  CHECK_THROWS_WITH(kernels::check_build_shape(info, {192, 128, 32}, wide), Contains("N=128") && Contains("256"));
  // CTA (x=1, y=2) of that build: rows 128..191, columns 256..511.
  const std::optional<kernels::CtaTile> tile = kernels::cta_tile_of(info, wide, {192, 512, 32}, {1, 2, 0});
  REQUIRE(tile);
  CHECK((tile->m0 == 128 && tile->m1 == 192 && tile->n0 == 256 && tile->n1 == 512));
  // A persistent kernel has no single tile per CTA.
  CHECK_FALSE(kernels::cta_tile_of(kernels::kernel_or_throw("hopper_persistent"), {}, {512, 512, 512}, {0, 0, 0}));
  // A model run of one CTA at a shape only this build takes generates and checks that CTA's tile.
  run::SimRequest req;
  req.kernel_id = info.id;
  req.shape = {192, 512, 32};
  req.params = wide;
  req.cta = {1, 2, 0};
  req.only_traced_cta = true;
  const run::SimReport r = run::run_sim(req);
  CHECK(r.result.hazards.empty());
  CHECK(r.result.completed);
}
