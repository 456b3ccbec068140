// Every registered kernel: builds, verifies, prints deterministic PTX that ptxas accepts for
// its target, at its example shape and at 4096x4096x8192; shape rules reject bad input.
#include <algorithm>
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "engine/ir/verify.hpp"
#include "engine/ptx/emit.hpp"
#include "kernels/registry.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;

namespace {
std::string emit_for(const kernels::KernelInfo& info, kernels::GemmShape shape) {
  kernels::GemmConfig cfg;
  cfg.shape = shape;
  return ptx::emit(kernels::build_kernel(info, cfg)).text;
}
}  // namespace

TEST_CASE("every kernel verifies and assembles at its example shape and at 4096x4096x8192", "[kernels][ptxas]") {
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    for (kernels::GemmShape shape : {info.example_shape, kernels::GemmShape{4096, 4096, 8192}}) {
      DYNAMIC_SECTION(info.id << " " << shape.m << "x" << shape.n << "x" << shape.k) {
        const std::string ptx = emit_for(info, shape);
        CHECK(ptx.size() < 200 * 1024);  // a real K loop keeps large K small
        CHECK(ptx.find(".target " + std::string(ir::arch_name(info.arch))) != std::string::npos);
        for (unsigned char ch : ptx) REQUIRE(ch < 128);  // ptxas rejects non-ASCII text
        test::check_assembles(ptx, info.arch, info.id);
      }
    }
  }
}

TEST_CASE("kernel emission is deterministic", "[kernels][ptx]") {
  for (const kernels::KernelInfo& info : kernels::all_kernels())
    CHECK(emit_for(info, info.example_shape) == emit_for(info, info.example_shape));
}

TEST_CASE("the registry describes every kernel completely", "[kernels]") {
  REQUIRE(kernels::all_kernels().size() >= 2);
  int last_step = 0;
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    CHECK(!info.id.empty());
    CHECK(!info.title.empty());
    CHECK(info.explanation.size() > 100);
    CHECK(!info.delta.empty());
    CHECK(info.step > last_step);  // ladder order
    last_step = info.step;
    CHECK(!info.constraints.empty());
    CHECK(kernels::find_kernel(info.id) == &info);
    CHECK(info.tile.m > 0);
    CHECK_NOTHROW(kernels::check_build_shape(info, info.example_shape));
  }
  CHECK(kernels::find_kernel("hopper_tma_wgmma_64")->arch == ir::Arch::sm_90a);
  CHECK(kernels::find_kernel("simt_naive")->arch == ir::Arch::sm_80);
}

TEST_CASE("the Hopper kernel has the seed's structure", "[kernels]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_tma_wgmma_64");
  kernels::GemmConfig cfg{{256, 128, 512}, {}};
  const ir::Kernel k = kernels::build_kernel(info, cfg);
  CHECK(k.launch.grid == std::array<uint32_t, 3>{2, 4, 1});  // N/64 x M/64
  CHECK(k.launch.block == std::array<uint32_t, 3>{128, 1, 1});
  int wgmma = 0, tma = 0, loops = 0;
  for (const ir::Inst& i : k.insts) {
    wgmma += i.op == ir::Op::wgmma_mma_async;
    tma += i.op == ir::Op::cp_async_bulk_tensor_load;
    if (i.op == ir::Op::wgmma_mma_async) CHECK(i.aux == 64);
  }
  for (const ir::LabelInfo& l : k.labels) loops += l.name == "L_kb";
  CHECK(wgmma == 4);  // four k16 steps per 64-wide K-block, inside a real loop
  CHECK(tma == 2);
  CHECK(loops == 1);
  // The tiles sit on the 128B swizzle's 1024-byte repeat (facts §3).
  for (const ir::SharedAlloc& a : k.smem)
    if (a.use == ir::SmemUse::tile) CHECK(a.offset % 1024 == 0);
  const ir::Param* ta = k.find_param(ir::ParamRole::tmap_a);
  REQUIRE(ta);
  CHECK(ta->tensor_map.global_dim[0] == 512);  // K innermost
  CHECK(ta->tensor_map.global_dim[1] == 256);  // M
  CHECK(ta->tensor_map.box_bytes() == 8192);
}

namespace {
struct OpCounts {
  std::map<ir::Op, int> ops;
  std::vector<int64_t> waits;  // the cp.async.wait_group counts, in program order
  int count(ir::Op op) const { return ops.count(op) ? ops.at(op) : 0; }
};
OpCounts count_ops(const ir::Kernel& k) {
  OpCounts c;
  for (const ir::Inst& i : k.insts) {
    c.ops[i.op]++;
    if (i.op == ir::Op::cp_async_wait_group) c.waits.push_back(i.operands[0].imm);
  }
  return c;
}
}  // namespace

TEST_CASE("the Ampere seed's kernel has the seed's structure, and its two pitfalls change what they say", "[kernels]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("ampere_cp_async");
  // K = 64: four steps, emitted as the steady-state loop body (steps 0-1) and the two tail steps.
  const ir::Kernel k = kernels::build_kernel(info, {{128, 192, 64}, {}});
  CHECK(k.launch.grid == std::array<uint32_t, 3>{3, 2, 1});  // N/64 x M/64
  CHECK(k.launch.block == std::array<uint32_t, 3>{128, 1, 1});
  const OpCounts c = count_ops(k);
  CHECK(c.count(ir::Op::cp_async_cg) == 2 + 2 + 2);  // stage 0 and 1 in the prologue, the loop's prefetch
  CHECK(c.count(ir::Op::cp_async_commit_group) == 3);
  CHECK(c.waits == std::vector<int64_t>{1, 1, 0});  // steady state, then the tail drains to 0
  CHECK(c.count(ir::Op::bar_sync) == 6);            // before reading and before overwriting, every step
  CHECK(c.count(ir::Op::ld_shared) == 3 * 20);      // per step: 4 words of A, 8 x 2 of B
  CHECK(c.count(ir::Op::mma_sync) == 3 * 8);
  CHECK(count_ops(kernels::build_kernel(info, {{128, 192, 64}, {"steady-state-wait-at-tail"}})).waits ==
        std::vector<int64_t>{1, 1, 1});
  CHECK(count_ops(kernels::build_kernel(info, {{128, 192, 64}, {"no-sync-before-prefetch"}})).count(ir::Op::bar_sync) ==
        5);  // the loop's second bar.sync is gone
  for (const ir::SharedAlloc& a : k.smem) CHECK(a.stages == 2);
}

TEST_CASE("the ldmatrix step reads fragments with ldmatrix.x4 from a swizzled 4-stage ring", "[kernels]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("ampere_ldmatrix");
  for (const bool unswizzled : {false, true}) {
    INFO("unswizzled-ldmatrix " << unswizzled);
    std::set<std::string> mistakes;
    if (unswizzled) mistakes.insert("unswizzled-ldmatrix");
    const ir::Kernel k = kernels::build_kernel(info, {{256, 128, 96}, mistakes});
    CHECK(k.launch.grid == std::array<uint32_t, 3>{1, 2, 1});
    const OpCounts c = count_ops(k);
    CHECK(c.count(ir::Op::ldmatrix) == 2 * (4 + 4));  // per k16 half: 4 A tiles, 4 pairs of B tiles
    for (const ir::Inst& i : k.insts)
      if (i.op == ir::Op::ldmatrix) CHECK(i.aux == 4);
    CHECK(c.count(ir::Op::mma_sync) == 2 * 32);
    CHECK(c.waits == std::vector<int64_t>{2});  // STAGES - 2 in flight while a stage is read
    CHECK(c.count(ir::Op::xor_) == (unswizzled ? 0 : 5));  // the copies' and the 4 fragment rows' XOR
    CHECK(k.dynamic_smem);
    for (const ir::SharedAlloc& a : k.smem) {
      CHECK(a.stages == 4);
      CHECK(a.swizzle == (unswizzled ? layout::Swizzle::none : layout::Swizzle::b64));
    }
  }
}

TEST_CASE("bad shapes are rejected with messages naming the value", "[kernels][errors]") {
  const kernels::KernelInfo& hop = kernels::kernel_or_throw("hopper_tma_wgmma_64");
  auto build = [&](const kernels::KernelInfo& info, kernels::GemmShape s) {
    kernels::GemmConfig cfg;
    cfg.shape = s;
    return kernels::build_kernel(info, cfg);
  };
  CHECK_THROWS_WITH(build(hop, {100, 64, 64}), Catch::Contains("M=100 is not a positive multiple of 64"));
  CHECK_THROWS_WITH(build(hop, {64, 96, 64}), Catch::Contains("N=96"));
  CHECK_THROWS_WITH(build(hop, {64, 64, 32}), Catch::Contains("K=32 is not a positive multiple of 64"));
  CHECK_THROWS_WITH(build(hop, {64, 64, 0}), Catch::Contains("K=0"));
  CHECK_THROWS_WITH(build(hop, {131072, 64, 64}), Catch::Contains("must be in 64..65536"));
  const kernels::KernelInfo& simt = kernels::kernel_or_throw("simt_naive");
  CHECK_NOTHROW(build(simt, {33, 17, 5}));  // guarded edges: any size
  CHECK_THROWS_WITH(build(simt, {0, 17, 5}), Catch::Contains("M=0 is out of range"));
  CHECK_THROWS_AS(build(simt, {0, 17, 5}), kernels::ConfigError);
  // The list names every step in ladder order (more steps join it between these two).
  CHECK_THROWS_WITH(kernels::kernel_or_throw("hopper"), Catch::Contains("valid ids are simt_naive, "));
  CHECK_THROWS_WITH(kernels::kernel_or_throw("hopper"), Catch::Contains("hopper_tma_wgmma_64, hopper_tile_128"));
  kernels::GemmConfig cfg{hop.example_shape, {"no-such-bug"}};
  CHECK_THROWS_WITH(kernels::build_kernel(hop, cfg), Catch::Contains("unknown mistake 'no-such-bug'"));
}

TEST_CASE("simt_naive guards the edges of C", "[kernels]") {
  kernels::GemmConfig cfg{{33, 40, 7}, {}};
  const ir::Kernel k = kernels::build_kernel(kernels::kernel_or_throw("simt_naive"), cfg);
  CHECK(k.launch.grid == std::array<uint32_t, 3>{2, 2, 1});
  CHECK(k.launch.threads() == 1024);
  const std::string ptx = ptx::emit(k).text;
  CHECK(ptx.find(", %row, 33;") != std::string::npos);
  CHECK(ptx.find(", %col, 40;") != std::string::npos);
  CHECK(ptx.find("and.pred %inside,") != std::string::npos);
}

TEST_CASE("no kernel takes a dimension past kMaxGemmDimension, and each maps its grid onto C", "[kernels]") {
  // The command line refuses anything larger before a kernel is built (cli/values.hpp): that
  // must never hide a shape some kernel takes.
  constexpr uint32_t kPast = kernels::kMaxGemmDimension + 64;
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    INFO(info.id);
    const kernels::GemmShape e = info.example_shape;
    CHECK_THROWS_AS(kernels::check_build_shape(info, {kPast, e.n, e.k}), kernels::ConfigError);
    CHECK_THROWS_AS(kernels::check_build_shape(info, {e.m, kPast, e.k}), kernels::ConfigError);
    CHECK_THROWS_AS(kernels::check_build_shape(info, {e.m, e.n, kPast}), kernels::ConfigError);
    // cta_tile: the grid's CTAs cover C exactly once, each with one tile. A persistent kernel
    // has none (a CTA writes several tiles). The CTAs of a cluster that compute one tile
    // together (step 22's pair) all name it: it counts once per cluster.
    if (!info.cta_tile) continue;
    const ir::Kernel k = kernels::build_kernel(info, {e, {}});
    const std::array<uint32_t, 3> cluster = k.launch.cluster;
    uint64_t covered = 0;
    std::set<std::array<uint32_t, 6>> counted;  // (cluster x, cluster y, tile)
    for (uint32_t y = 0; y < k.launch.grid[1]; ++y)
      for (uint32_t x = 0; x < k.launch.grid[0]; ++x) {
        const kernels::CtaTile t = info.cta_tile(e, info.tile, {x, y, 0});
        CHECK(t.m1 <= e.m);
        CHECK(t.n1 <= e.n);
        if (counted.insert({x / std::max(cluster[0], 1u), y / std::max(cluster[1], 1u), t.m0, t.m1, t.n0, t.n1}).second)
          covered += uint64_t(t.m1 - t.m0) * (t.n1 - t.n0);
      }
    CHECK(covered == uint64_t(e.m) * e.n);
  }
}
