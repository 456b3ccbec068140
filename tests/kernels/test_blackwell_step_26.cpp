// The Blackwell step 26 (a persistent CTA pair): its structure (a 2-CTA cluster walking pair
// tiles, cta_group::2 on every tcgen05 op, step 22's relay and multicast commits, step 25's
// sub-tiled TMA-store epilogue, and the leader's tmem_empty counting both CTAs' epilogue threads,
// arrived on remotely), what each mistake changes, its shape rules, and ptxas for sm_100a at the
// example shape and at 8192^3. Whether it computes C is tests/model/test_pair_persistent.cpp's job.
#include <map>

#include <catch2/catch.hpp>

#include "engine/ptx/emit.hpp"
#include "kernels/registry.hpp"
#include "tests/support/kernel_ops.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;
using gs::test::count;
using gs::test::op_counts;
using gs::test::where;

namespace {

constexpr const char* kStep = "blackwell_pair_persistent";

// The arrival counts the kernel gives its tmem_empty barriers (mbarrier.init's immediate count).
std::vector<int64_t> tmem_empty_counts(const ir::Kernel& k) {
  std::vector<int64_t> counts;
  for (const ir::Inst& i : k.insts)
    if (i.op == ir::Op::mbarrier_init && i.operands.size() >= 2 && i.operands[1].kind == ir::OperandKind::imm)
      counts.push_back(i.operands[1].imm);
  return counts;
}

}  // namespace

TEST_CASE("blackwell: step 26 assembles for sm_100a at its example shape and at 8192^3", "[kernels][ptxas]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kStep);
  CHECK(info.arch == ir::Arch::sm_100a);
  CHECK(info.family == kernels::Family::blackwell);
  for (const kernels::GemmShape shape : {info.example_shape, kernels::GemmShape{8192, 8192, 8192}}) {
    DYNAMIC_SECTION(kStep << " " << shape.m << "x" << shape.n << "x" << shape.k) {
      const std::string ptx = ptx::emit(kernels::build_kernel(info, {shape, {}})).text;
      CHECK(ptx.find(".target sm_100a") != std::string::npos);
      CHECK(ptx.find(".reqnctapercluster 2, 1, 1") != std::string::npos);
      CHECK(ptx.find("tcgen05.mma.cta_group::2") != std::string::npos);
      CHECK(ptx.find("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster") !=
            std::string::npos);
      CHECK(ptx.find("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group") != std::string::npos);
      CHECK(ptx.find("mapa.shared::cluster") != std::string::npos);
      test::check_assembles(ptx, ir::Arch::sm_100a, kStep);
    }
  }
  SECTION("edge shape") {
    test::check_assembles(ptx::emit(kernels::build_kernel(info, {{1000, 1032, 200}, {}})).text, ir::Arch::sm_100a,
                          std::string(kStep) + " 1000x1032x200");
  }
  SECTION("bf16 C at 8192^3") {
    const std::string ptx = ptx::emit(kernels::build_kernel(info, {{8192, 8192, 8192}, {}, {{"c_dtype", 16}}})).text;
    CHECK(ptx.find("cvt.rn.bf16x2.f32") != std::string::npos);
    test::check_assembles(ptx, ir::Arch::sm_100a, std::string(kStep) + " c_dtype=16");
  }
  test::check_mistakes_assemble(info);
}

TEST_CASE("blackwell: step 26 walks pair tiles by cluster with cta_group::2 and step 25's epilogue", "[kernels]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kStep);
  const ir::Kernel k = kernels::build_kernel(info, {info.example_shape, {}});
  CHECK(k.launch.grid == std::array<uint32_t, 3>{148, 1, 1});  // 74 clusters of 2
  CHECK(k.launch.cluster == std::array<uint32_t, 3>{2, 1, 1});
  CHECK(k.launch.block == std::array<uint32_t, 3>{192, 1, 1});
  // 16 CTAs are 8 clusters: never more clusters than pair tiles (2 x 2 here).
  CHECK(kernels::build_kernel(info, {{512, 512, 128}, {}, {{"ctas", 16}}}).launch.grid ==
        std::array<uint32_t, 3>{8, 1, 1});
  const auto c = op_counts(k);
  // ptxas rejects a kernel that mixes cta_group::1 and ::2 tcgen05 ops.
  for (ir::Op one : {ir::Op::tcgen05_alloc, ir::Op::tcgen05_dealloc, ir::Op::tcgen05_relinquish_alloc_permit,
                     ir::Op::tcgen05_mma, ir::Op::tcgen05_commit, ir::Op::tcgen05_commit_multicast})
    CHECK(count(c, one) == 0);
  CHECK(count(c, ir::Op::tcgen05_alloc_cta_pair) == 1);
  CHECK(count(c, ir::Op::tcgen05_mma_cta_pair) == 4);                     // one K-block's four k16 steps
  CHECK(count(c, ir::Op::tcgen05_commit_cta_pair_multicast) == 2);        // empty[s] and tmem_full[acc]
  CHECK(count(c, ir::Op::mbarrier_arrive_remote_cluster_scope) == 1);     // rank 1's relay of full[s]
  CHECK(count(c, ir::Op::mbarrier_arrive_remote) == 1);                   // every epilogue thread's release
  CHECK(count(c, ir::Op::mbarrier_arrive) == 0);
  CHECK(count(c, ir::Op::barrier_cluster_arrive) == 2);
  // Step 25's epilogue: 8 sub-tiles of 32 f32 columns, each a TMA store; no st.global.
  CHECK(count(c, ir::Op::tcgen05_ld_32x32b) == 8);
  CHECK(count(c, ir::Op::cp_async_bulk_tensor_store) == 8);
  CHECK(count(c, ir::Op::fence_proxy_async) == 8);
  CHECK(count(c, ir::Op::st_global) == 0);
  // The leader's tmem_empty counts both CTAs' 128 epilogue threads; released after the last wait::ld.
  const std::vector<int64_t> counts = tmem_empty_counts(k);
  CHECK(std::count(counts.begin(), counts.end(), 256) == 2);
  const std::vector<size_t> release = where(k, ir::Op::mbarrier_arrive_remote);
  REQUIRE(release.size() == 1);
  CHECK(release[0] > where(k, ir::Op::tcgen05_wait_ld).back());
  CHECK(release[0] < where(k, ir::Op::cp_async_bulk_tensor_store).back());
  // Each CTA's A box is its 128 rows and its B box half of the pair's 256 columns; 6 stages.
  const ir::Param* ta = k.find_param(ir::ParamRole::tmap_a);
  const ir::Param* tb = k.find_param(ir::ParamRole::tmap_b);
  REQUIRE(ta);
  REQUIRE(tb);
  CHECK(ta->tensor_map.box_dim[1] == 128);
  CHECK(tb->tensor_map.box_dim[1] == 128);
  for (const ir::SharedAlloc& a : k.smem)
    if (a.use == ir::SmemUse::tile && a.name != "sC") CHECK(a.stages == 6);
  // The walk: both ranks of a cluster take the same pair tile, rank 1 the 128 rows below rank 0's.
  const ir::Kernel small = kernels::build_kernel(info, {{1024, 512, 128}, {}, {{"ctas", 8}}});
  REQUIRE(small.output.walk.size() == 4 * 2 * 2);  // 4 pair-rows x 2 columns, two CTA tiles each
  for (size_t i = 0; i < small.output.walk.size(); i += 2) CHECK(small.output.walk[i + 1] == small.output.walk[i] + 2);

  // The mistakes change what they say they change.
  const ir::Kernel own = kernels::build_kernel(info, {info.example_shape, {"release-tmem-to-own-cta"}});
  const auto o = op_counts(own);
  CHECK(count(o, ir::Op::mbarrier_arrive_remote) == 0);
  CHECK(count(o, ir::Op::mbarrier_arrive) == 1);
  const std::vector<int64_t> own_counts = tmem_empty_counts(own);
  CHECK(std::count(own_counts.begin(), own_counts.end(), 128) == 2);
  const auto one = op_counts(kernels::build_kernel(info, {info.example_shape, {"commit-to-one-cta"}}));
  CHECK(count(one, ir::Op::tcgen05_commit_cta_pair) == 2);
  CHECK(count(one, ir::Op::tcgen05_commit_cta_pair_multicast) == 0);
}

TEST_CASE("blackwell: step 26 takes shapes that are not whole pair tiles, and refuses others naming the value",
          "[kernels][errors]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kStep);
  CHECK_NOTHROW(kernels::check_build_shape(info, {1000, 1032, 200}));
  CHECK_NOTHROW(kernels::check_build_shape(info, {120, 264, 72}));
  CHECK_THROWS_WITH(kernels::check_build_shape(info, {1000, 1030, 200}), Catch::Contains("N=1030") && Catch::Contains("8"));
  CHECK_THROWS_WITH(kernels::check_build_shape(info, {1004, 1032, 200}), Catch::Contains("M=1004"));
  CHECK_THROWS_WITH(kernels::check_build_shape(info, {1000, 1032, 100}), Catch::Contains("K=100"));
}
