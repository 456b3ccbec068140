// The Blackwell steps 21 (warp-specialized tcgen05 ring) and 22 (cta_group::2 over a CTA pair):
// their structure (who issues what, with which cta_group), their shape rules, and ptxas for
// sm_100a at the example shape and at 8192^3. Whether they compute C is tests/model's job.
#include <map>

#include <catch2/catch.hpp>

#include "engine/ptx/emit.hpp"
#include "kernels/registry.hpp"
#include "tests/support/kernel_ops.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;
using gs::test::count;
using gs::test::op_counts;

TEST_CASE("blackwell: steps 21 and 22 assemble for sm_100a at their example shape and at 8192^3", "[kernels][ptxas]") {
  for (const char* id : {"blackwell_ws_ring", "blackwell_2sm"}) {
    const kernels::KernelInfo& info = kernels::kernel_or_throw(id);
    CHECK(info.arch == ir::Arch::sm_100a);
    CHECK(info.family == kernels::Family::blackwell);
    for (const kernels::GemmShape shape : {info.example_shape, kernels::GemmShape{8192, 8192, 8192}}) {
      DYNAMIC_SECTION(id << " " << shape.m << "x" << shape.n << "x" << shape.k) {
        const std::string ptx = ptx::emit(kernels::build_kernel(info, {shape, {}})).text;
        CHECK(ptx.find(".target sm_100a") != std::string::npos);
        test::check_assembles(ptx, ir::Arch::sm_100a, id);
      }
    }
    // Every mistake still assembles: the model, not ptxas, is what catches them.
    test::check_mistakes_assemble(info);
  }
}

TEST_CASE("blackwell: step 21 is a TMA warp, one MMA thread and an epilogue warpgroup around a 4-stage ring",
          "[kernels]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("blackwell_ws_ring");
  const ir::Kernel k = kernels::build_kernel(info, {{256, 512, 512}, {}});
  CHECK(k.launch.grid == std::array<uint32_t, 3>{2, 2, 1});  // N/256 x M/128
  CHECK(k.launch.block == std::array<uint32_t, 3>{192, 1, 1});
  const auto c = op_counts(k);
  CHECK(count(c, ir::Op::tcgen05_alloc) == 1);
  CHECK(count(c, ir::Op::tcgen05_dealloc) == 1);
  CHECK(count(c, ir::Op::tcgen05_relinquish_alloc_permit) == 1);
  CHECK(count(c, ir::Op::tcgen05_mma) == 4);      // four k16 MMAs per K block, inside the loop
  CHECK(count(c, ir::Op::tcgen05_commit) == 2);   // the stage's release, and tmem_full after the loop
  CHECK(count(c, ir::Op::tcgen05_ld_32x32b) == 8);  // 256 columns, 32 per load
  CHECK(count(c, ir::Op::wgmma_mma_async) == 0);
  CHECK(count(c, ir::Op::tcgen05_mma_cta_pair) == 0);
  // 4 stages of A (16 KiB) and B (32 KiB) on the 128B swizzle's 1024-byte repeat.
  for (const ir::SharedAlloc& a : k.smem)
    if (a.use == ir::SmemUse::tile) {
      CHECK(a.stages == 4);
      CHECK(a.offset % 1024 == 0);
    }
  // The mistakes change what they say they change.
  CHECK(count(op_counts(kernels::build_kernel(info, {{256, 512, 512}, {"no-dealloc"}})), ir::Op::tcgen05_dealloc) == 0);
  const auto early = op_counts(kernels::build_kernel(info, {{256, 512, 512}, {"skip-tmem-full-wait"}}));
  CHECK(count(early, ir::Op::mbarrier_try_wait_parity) == count(c, ir::Op::mbarrier_try_wait_parity) - 1);
}

TEST_CASE("blackwell: step 22 issues cta_group::2 only, in a 2-CTA cluster, with multicast commits", "[kernels]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("blackwell_2sm");
  const ir::Kernel k = kernels::build_kernel(info, {{512, 512, 512}, {}});
  CHECK(k.launch.cluster == std::array<uint32_t, 3>{2, 1, 1});
  CHECK(k.launch.grid == std::array<uint32_t, 3>{4, 2, 1});  // a pair per 256 columns, M/256 pairs down
  const auto c = op_counts(k);
  // ptxas rejects a kernel that mixes cta_group::1 and ::2 tcgen05 ops.
  for (ir::Op one : {ir::Op::tcgen05_alloc, ir::Op::tcgen05_dealloc, ir::Op::tcgen05_relinquish_alloc_permit,
                     ir::Op::tcgen05_mma, ir::Op::tcgen05_commit, ir::Op::tcgen05_commit_multicast})
    CHECK(count(c, one) == 0);
  CHECK(count(c, ir::Op::tcgen05_alloc_cta_pair) == 1);
  CHECK(count(c, ir::Op::tcgen05_mma_cta_pair) == 4);
  CHECK(count(c, ir::Op::tcgen05_commit_cta_pair_multicast) == 2);
  CHECK(count(c, ir::Op::tcgen05_commit_cta_pair) == 0);
  CHECK(count(c, ir::Op::mbarrier_arrive_remote_cluster_scope) == 1);  // rank 1 relays its full[s] to rank 0
  // Each CTA's A box is 128 rows and its B box half of the pair's 256 columns.
  const ir::Param* ta = k.find_param(ir::ParamRole::tmap_a);
  const ir::Param* tb = k.find_param(ir::ParamRole::tmap_b);
  REQUIRE(ta);
  REQUIRE(tb);
  CHECK(ta->tensor_map.box_dim[1] == 128);
  CHECK(tb->tensor_map.box_dim[1] == 128);
  const auto one = op_counts(kernels::build_kernel(info, {{512, 512, 512}, {"commit-to-one-cta"}}));
  CHECK(count(one, ir::Op::tcgen05_commit_cta_pair) == 2);
  CHECK(count(one, ir::Op::tcgen05_commit_cta_pair_multicast) == 0);
  // The pair's tile: both CTAs of a pair read within the same 256x256 block.
  const kernels::CtaTile t0 = info.cta_tile({512, 512, 512}, info.tile, {2, 1, 0}),
                        t1 = info.cta_tile({512, 512, 512}, info.tile, {3, 1, 0});
  CHECK(t0.m0 == 256);
  CHECK(t0.n0 == 256);
  CHECK(t1.m0 == t0.m0);
  CHECK(t1.n0 == t0.n0);
}

TEST_CASE("blackwell: shapes that are not whole tiles are refused naming the value", "[kernels][errors]") {
  const kernels::KernelInfo& ring = kernels::kernel_or_throw("blackwell_ws_ring");
  CHECK_THROWS_WITH(kernels::check_build_shape(ring, {128, 200, 64}), Catch::Contains("N=200") && Catch::Contains("256"));
  const kernels::KernelInfo& pair = kernels::kernel_or_throw("blackwell_2sm");
  CHECK_THROWS_WITH(kernels::check_build_shape(pair, {128, 256, 64}), Catch::Contains("M=128") && Catch::Contains("256"));
  CHECK_NOTHROW(kernels::check_build_shape(pair, {256, 256, 64}));
}
