// The tensor-core steps' tiles as build parameters: step 10's CTA tile (bm, bn) and warp tile
// (wm, wn), and the tile N (bn) of the Hopper steps 13-19. The builds as they ship are
// the kernels they were, byte for byte; every value of a tile parameter builds, computes C exactly
// on the model at two shapes and follows its tile everywhere a tile is read; a combination that
// cannot work is refused before a build with the reason, naming the values and what is valid.
// (Every valid combination's ptxas run is test_build_params.cpp's.)
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/ptx/emit.hpp"
#include "kernels/registry.hpp"
#include "tests/support/model_build_check.hpp"
#include "tests/support/param_combos.hpp"
#include "tests/support/ptx_fingerprint.hpp"

using namespace gs;
using Catch::Matchers::Contains;

namespace {

constexpr std::string_view kTileNSteps[] = {"hopper_producer_consumer", "hopper_two_consumers",
                                            "hopper_persistent",        "hopper_fewer_arrivals",
                                            "hopper_cluster_multicast", "hopper_tma_store",
                                            "hopper_stmatrix_epilogue"};

}  // namespace

TEST_CASE("tensor-core tiles: the builds as they ship are the kernels they were, byte for byte",
          "[kernels][params][tiles]") {
  // The PTX of steps 10-19 before their tiles became build parameters (commit 790f682, `gemmscope
  // ptx ID` and `ptx ID --m 512 --n 256 --k 64`), fingerprinted without the version line; steps
  // 13-19's regenerated on 2026-12-07 when their consumers' descriptors became low-word arithmetic
  // (hopper::RingDescriptors) and again when its unused 64-bit stage-0 descriptors went, the only
  // changes in their PTX since.
  const test::GoldenPtx golden[] = {
      {"ampere_ldmatrix", {512, 256, 64}, 0x35857ac81edf48c9ull},
      {"ampere_ldmatrix", {0, 0, 0}, 0xdd4f74272cdb1cd2ull},
      {"hopper_cluster_multicast", {512, 256, 64}, 0x48fd735358dab0f9ull},
      {"hopper_cluster_multicast", {0, 0, 0}, 0x7a7f5dc3b2fba5caull},
      {"hopper_fewer_arrivals", {512, 256, 64}, 0x20b23c6663c842e1ull},
      {"hopper_fewer_arrivals", {0, 0, 0}, 0xee880af5752b85d0ull},
      {"hopper_persistent", {512, 256, 64}, 0x970953d3a3c26bf5ull},
      {"hopper_persistent", {0, 0, 0}, 0xc7c37f955631a63aull},
      {"hopper_producer_consumer", {512, 256, 64}, 0xee377f3566465425ull},
      {"hopper_producer_consumer", {0, 0, 0}, 0xb71afe4f8c3ecebfull},
      {"hopper_stmatrix_epilogue", {512, 256, 64}, 0x76184da038c7fcd2ull},
      {"hopper_stmatrix_epilogue", {0, 0, 0}, 0xf4a0bef0572da1b0ull},
      {"hopper_tile_128", {512, 256, 64}, 0xe90f210c57d7624cull},
      {"hopper_tile_128", {0, 0, 0}, 0xfe45dcf9253b551full},
      {"hopper_tma_store", {512, 256, 64}, 0x4fda639d8db90ea6ull},
      {"hopper_tma_store", {0, 0, 0}, 0xa65c50af0c760616ull},
      {"hopper_tma_wgmma_64", {512, 256, 64}, 0xf939a04d3af10288ull},
      {"hopper_tma_wgmma_64", {0, 0, 0}, 0xe5c607fc8f458355ull},
      {"hopper_two_consumers", {512, 256, 64}, 0x6302eede55fabac5ull},
      {"hopper_two_consumers", {0, 0, 0}, 0x24cdc6e652066247ull},
  };
  for (const test::GoldenPtx& g : golden) test::check_golden_ptx(g);
}

TEST_CASE("tensor-core tiles: step 10 declares its CTA and warp tile; each value builds", "[kernels][params][tiles]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("ampere_ldmatrix");
  std::set<std::string> names;
  for (const kernels::BuildParam& p : info.params) names.insert(p.name);
  CHECK(names == std::set<std::string>{"bm", "bn", "wm", "wn", "stages"});
  REQUIRE(info.build_tile);
  REQUIRE(info.check_params);
  const kernels::GemmShape t = kernels::tile_of(info, {});
  CHECK((t.m == 128 && t.n == 128 && t.k == 32));
  CHECK((info.tile.m == 128 && info.tile.n == 128 && info.tile.k == 32));
  // Every tile value on the model at two shapes: two tiles each way, and three tile-rows of one
  // tile-column with a K of three stages (the step takes only multiples of its tile).
  for (const kernels::ParamValues& p : test::covering_builds(info)) {
    if (p.at("stages") != 4) continue;  // the stage depths: test_build_params.cpp
    const kernels::GemmShape tile = kernels::tile_of(info, p);
    test::check_build_on_model(info, p, {2 * tile.m, 2 * tile.n, 64});
    test::check_build_on_model(info, p, {3 * tile.m, tile.n, 96});
  }
  // A tile of unequal sides, its B stage twice (or half) A's: the stage offsets scale.
  test::check_build_on_model(info, {{"bm", 64}, {"bn", 128}, {"wm", 32}}, {128, 256, 160});
  test::check_build_on_model(info, {{"bm", 256}, {"bn", 64}, {"wn", 32}}, {256, 128, 160});
}

TEST_CASE("tensor-core tiles: the Hopper steps declare the tile N; each value computes C exactly",
          "[kernels][params][tiles]") {
  for (std::string_view id : kTileNSteps) {
    const kernels::KernelInfo& info = kernels::kernel_or_throw(id);
    INFO(id);
    const kernels::BuildParam& bn = kernels::require_param(info, "bn");
    // Step 13's one consumer keeps both slabs' accumulators: 256 would be 256 registers a thread.
    const bool one_consumer = id == "hopper_producer_consumer";
    CHECK(bn.default_value == (one_consumer ? 128u : 256u));
    // Step 18 stages C in an even number of 64-column chunks (its bn note says why); step 19 also in
    // three, its tile's first chunk waiting for every store before it.
    const bool staged = id == "hopper_tma_store";
    const bool staged_odd = id == "hopper_stmatrix_epilogue";
    CHECK(bn.choices == (one_consumer ? std::vector<uint32_t>{64, 128, 192}
                         : staged     ? std::vector<uint32_t>{128, 256}
                         : staged_odd ? std::vector<uint32_t>{128, 192, 256}
                                      : std::vector<uint32_t>{64, 128, 192, 256}));
    REQUIRE(info.build_tile);
    CHECK(kernels::tile_of(info, {}).n == info.tile.n);
    // The persistent steps' fewest CTAs keep the grid small; step 13 and 14 have none.
    const bool persistent = std::any_of(info.params.begin(), info.params.end(),
                                        [](const kernels::BuildParam& p) { return p.name == "ctas"; });
    for (uint32_t n : bn.choices) {
      if (n == bn.default_value) continue;
      kernels::ParamValues p{{"bn", n}};
      if (persistent) p["ctas"] = 64;
      CHECK(kernels::tile_of(info, p).n == n);
      // A whole tile grid, and a shape with edges in M, N and K (the steps clip).
      test::check_build_on_model(info, p, {256, 2 * n, 128});
      test::check_build_on_model(info, p, {136, n + 24, 72});
    }
  }
}

TEST_CASE("tensor-core tiles: what reads a tile follows the build", "[kernels][params][tiles]") {
  // Step 10: the launch grid, the shape rule and a CTA's tile.
  const kernels::KernelInfo& ldm = kernels::kernel_or_throw("ampere_ldmatrix");
  const kernels::ParamValues p10{{"bm", 64}, {"bn", 256}, {"wm", 32}};
  const ir::Kernel k10 = kernels::build_kernel(ldm, {{128, 512, 64}, {}, p10});
  CHECK(k10.launch.grid[0] == 2);
  CHECK(k10.launch.grid[1] == 2);
  CHECK(k10.launch.block[0] == 32 * (64 / 32) * (256 / 64));
  CHECK_THROWS_WITH(kernels::check_build_shape(ldm, {128, 384, 64}, p10),
                    Contains("N=384 is not a positive multiple of 256 (the 256-column tile of ampere_ldmatrix)"));
  const std::optional<kernels::CtaTile> c = kernels::cta_tile_of(ldm, p10, {128, 512, 64}, {1, 1, 0});
  REQUIRE(c);
  CHECK((c->m0 == 64 && c->m1 == 128 && c->n0 == 256 && c->n1 == 512));
  // Step 14: the grid's columns, B's box, the ring's B tiles.
  const kernels::KernelInfo& two = kernels::kernel_or_throw("hopper_two_consumers");
  const ir::Kernel k14 = kernels::build_kernel(two, {{256, 640, 128}, {}, {{"bn", 192}}});
  CHECK(k14.launch.grid[0] == 4);  // ceil(640 / 192)
  CHECK(k14.output.tile_cols == 192);
  bool b_box = false;
  for (const ir::Param& prm : k14.params)
    if (prm.kind == ir::ParamKind::tensor_map && prm.tensor_map.source == ir::ParamRole::b)
      b_box = prm.tensor_map.box_dim[1] == 192;
  CHECK(b_box);
  for (const ir::SharedAlloc& a : k14.smem)
    if (a.use == ir::SmemUse::tile && a.operand == ir::GemmOperand::b) CHECK(a.stage_bytes() == 192 * 128);
  // Step 16's persistent walk covers the build's tiles.
  const kernels::KernelInfo& fewer = kernels::kernel_or_throw("hopper_fewer_arrivals");
  const ir::Kernel k16 = kernels::build_kernel(fewer, {{256, 512, 128}, {}, {{"bn", 64}}});
  CHECK(k16.output.tile_cols == 64);
  CHECK(k16.output.walk.size() == 2 * 8);
}

TEST_CASE("tensor-core tiles: a combination that cannot work names the values and what would be valid",
          "[kernels][params][tiles][errors]") {
  const kernels::KernelInfo& ldm = kernels::kernel_or_throw("ampere_ldmatrix");
  CHECK_THROWS_WITH(kernels::resolve_params(ldm, {{"bm", 64}, {"wm", 128}}),
                    Contains("ampere_ldmatrix cannot be built with bm=64 bn=128 stages=4 wm=128 wn=64: the wm × wn = "
                             "128 × 64 warp tile does not fit the bm × bn = 64 × 128 CTA tile"));
  CHECK_THROWS_WITH(kernels::resolve_params(ldm, {{"bm", 256}, {"bn", 256}, {"wm", 32}, {"wn", 32}}),
                    Contains("(bm/wm)·(bn/wn) = (256/32)·(256/32) = 64 warps, 2048 threads, more than the 1024 a CTA "
                             "can have"));
  // 16 warps copy 128 rows a round; A's stage has 64.
  CHECK_THROWS_WITH(kernels::resolve_params(ldm, {{"bm", 64}, {"bn", 256}, {"wm", 32}, {"wn", 32}}),
                    Contains("the 512 threads copy 128 rows of 64 bytes a round (4 cp.async of 16 bytes a row), but "
                             "A's stage has bm=64: every thread must copy in every round, so bm must be a multiple of "
                             "128"));
  CHECK_THROWS_WITH(kernels::resolve_params(ldm, {{"wm", 128}, {"wn", 128}}),
                    Contains("wm·wn/32 accumulators + (wm + wn)/2 fragment registers = 128·128/32 + (128 + 128)/2 = "
                             "640 registers a lane keeps through the K loop, more than the 255 each of 32 threads gets"));
  // 16 warps of 64 × 64 and 4 stages of 32 KiB: one CTA per SM, 65536 / 512 = 128 registers each.
  CHECK_THROWS_WITH(kernels::resolve_params(ldm, {{"bm", 256}, {"bn", 256}}),
                    Contains("= 192 registers a lane keeps through the K loop, more than the 128 each of 512 threads "
                             "gets with 1 CTA(s) per SM (65536 / (1·512))"));
  // One value on its own is named with the choices.
  CHECK_THROWS_WITH(kernels::resolve_params(ldm, {{"wm", 16}}),
                    "wm=16 is not a value ampere_ldmatrix takes: choose one of 32, 64, 128 (default 64)");

  const kernels::KernelInfo& fewer = kernels::kernel_or_throw("hopper_fewer_arrivals");
  CHECK_THROWS_WITH(kernels::resolve_params(fewer, {{"stages", 5}}),
                    Contains("5 stages × (16 KiB of A + 32 KiB of B) = 240 KiB of shared memory, more than the 227 "
                             "KiB a CTA can have: at bn=256 take stages 2..4, or a smaller bn (192: up to 5; 128: up "
                             "to 7; 64: up to 9)"));
  CHECK_THROWS_WITH(kernels::resolve_params(fewer, {{"bn", 128}, {"stages", 8}}),
                    Contains("8 stages × (16 KiB of A + 16 KiB of B) = 256 KiB of shared memory, more than the 227 KiB "
                             "a CTA can have: at bn=128 take stages 2..7, or a smaller bn (64: up to 9)"));
  CHECK_THROWS_WITH(kernels::resolve_params(fewer, {{"bn", 100}}),
                    "bn=100 is not a value hopper_fewer_arrivals takes: choose one of 64, 128, 192, 256 (default 256)");
  const kernels::KernelInfo& stm = kernels::kernel_or_throw("hopper_stmatrix_epilogue");
  CHECK_THROWS_WITH(kernels::resolve_params(stm, {{"bn", 256}, {"stages", 5}}),
                    Contains("5 stages × (16 KiB of A + 32 KiB of B) + the 32 KiB of staging buffers = 272 KiB of "
                             "shared memory, more than the 227 KiB a CTA can have: at bn=256 take stages 2..4, or a "
                             "smaller bn (128: up to 6)"));
  // Step 18 takes an even number of 64-column chunks only (a tile's first chunk would reuse the
  // buffer the tile before's last store may still read: the model names that race at bn=64 and 192);
  // step 19 takes three (bn=192) too, its tile's first chunk waiting for every store; 64 it does not offer.
  CHECK_THROWS_WITH(kernels::resolve_params(kernels::kernel_or_throw("hopper_tma_store"), {{"bn", 192}}),
                    Contains("choose one of 128, 256"));
  CHECK(kernels::resolve_params(stm, {{"bn", 192}}).at("bn") == 192);
  CHECK_THROWS_WITH(kernels::resolve_params(stm, {{"bn", 64}}), Contains("choose one of 128, 192, 256"));
  // What fits builds: 7 stages of bn=128, 9 of bn=64.
  CHECK(kernels::resolve_params(fewer, {{"bn", 128}, {"stages", 7}}).at("stages") == 7);
  CHECK(kernels::resolve_params(fewer, {{"bn", 64}, {"stages", 9}}).at("stages") == 9);
}
