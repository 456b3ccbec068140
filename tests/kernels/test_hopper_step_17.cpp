// Step 17 (clusters + TMA multicast): its launch (cluster dims from the build parameter, a
// persistent grid of whole clusters), what each CTA loads and who it releases, its mistakes and
// its refusals, and ptxas for sm_90a with every cluster size and mistake. Whether it computes C
// is tests/model's job (test_cluster_multicast.cpp).
#include <map>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "engine/ptx/emit.hpp"
#include "kernels/registry.hpp"
#include "tests/support/kernel_ops.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;
using gs::test::count;
using gs::test::op_counts;

namespace {

constexpr const char* kId = "hopper_cluster_multicast";

ir::Kernel build(kernels::GemmShape shape, uint32_t cluster, std::set<std::string> mistakes = {}) {
  return kernels::build_kernel(kernels::kernel_or_throw(kId), {shape, std::move(mistakes), {{"cluster", cluster}}});
}

// The arrival counts mbarrier.init gives the barriers of the array `name`, in stage order.
std::vector<int64_t> init_counts(const ir::Kernel& k, const std::string& name) {
  uint32_t id = ir::kNone;
  for (uint32_t i = 0; i < k.smem.size(); ++i)
    if (k.smem[i].name == name) id = i;
  std::vector<int64_t> counts;
  for (const ir::Inst& in : k.insts)
    if (in.op == ir::Op::mbarrier_init && in.operands[0].kind == ir::OperandKind::mem_smem && in.operands[0].id == id)
      counts.push_back(in.operands[1].imm);
  return counts;
}

}  // namespace

TEST_CASE("step 17 assembles for sm_90a with clusters of 1, 2 and 4, and with each mistake", "[kernels][ptxas]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kId);
  for (uint32_t cluster : {1u, 2u, 4u})
    for (const kernels::GemmShape shape : {info.example_shape, kernels::GemmShape{8192, 8192, 8192}}) {
      DYNAMIC_SECTION("cluster=" << cluster << " " << shape.m << "x" << shape.n << "x" << shape.k) {
        const std::string ptx = ptx::emit(build(shape, cluster)).text;
        if (cluster > 1) CHECK(ptx.find(fmt::format(".reqnctapercluster {}, 1, 1", cluster)) != std::string::npos);
        else CHECK(ptx.find(".reqnctapercluster") == std::string::npos);
        test::check_assembles(ptx, ir::Arch::sm_90a, fmt::format("{} cluster={}", kId, cluster));
      }
    }
  for (const kernels::Mistake& m : info.mistakes) {
    DYNAMIC_SECTION("--break " << m.name) {
      test::check_assembles(ptx::emit(build(info.example_shape, 2, {m.name})).text, ir::Arch::sm_90a,
                            std::string(kId) + " " + m.name);
    }
  }
}

TEST_CASE("step 17 launches whole clusters of a persistent grid, from its build parameter", "[kernels]") {
  // 8192^2: 64 x 32 tiles of 128x256; 128 CTAs whatever the cluster size.
  for (uint32_t cluster : {1u, 2u, 4u}) {
    const ir::Kernel k = build({8192, 8192, 8192}, cluster);
    CHECK(k.launch.cluster == std::array<uint32_t, 3>{cluster, 1, 1});
    CHECK(k.launch.grid == std::array<uint32_t, 3>{128, 1, 1});
  }
  // 384 x 768: 3 x 3 tiles; pairs take 2 tile-rows at a time: 2 x 3 cluster tiles, 6 pairs.
  CHECK(build({384, 768, 192}, 2).launch.grid == std::array<uint32_t, 3>{12, 1, 1});
  // 128 x 128: one tile; with 4 CTAs a cluster, three of them lie below C but still launch.
  CHECK(build({128, 128, 4096}, 4).launch.grid == std::array<uint32_t, 3>{4, 1, 1});
  CHECK(build({128, 128, 4096}, 1).launch.grid == std::array<uint32_t, 3>{1, 1, 1});
}

TEST_CASE("step 17: each CTA loads its A and 1/cluster of B, multicast to all, and releases every CTA's stage",
          "[kernels]") {
  for (uint32_t cluster : {1u, 2u, 4u}) {
    DYNAMIC_SECTION("cluster=" << cluster) {
      const ir::Kernel k = build({256, 512, 512}, cluster);
      const auto c = op_counts(k);
      const ir::Param* ta = k.find_param(ir::ParamRole::tmap_a);
      const ir::Param* tb = k.find_param(ir::ParamRole::tmap_b);
      REQUIRE(ta);
      REQUIRE(tb);
      CHECK(ta->tensor_map.box_dim[1] == 128);
      CHECK(tb->tensor_map.box_dim[1] == 256 / cluster);  // this CTA's slice of B's 256 rows
      const bool pair = cluster > 1;
      CHECK(count(c, ir::Op::cp_async_bulk_tensor_load) == (pair ? 1 : 2));  // A (and B with cluster 1)
      CHECK(count(c, ir::Op::cp_async_bulk_tensor_load_multicast) == (pair ? 1 : 0));
      // Lane q of each consumer warp holds CTA q's empty[0] (one mapa) and arrives there: one
      // remote arrive instruction releases the stage in every CTA.
      CHECK(count(c, ir::Op::mapa) == (pair ? 1 : 0));
      CHECK(count(c, ir::Op::mbarrier_arrive_remote) == (pair ? 1 : 0));
      CHECK(count(c, ir::Op::mbarrier_arrive) == (pair ? 0 : 1));
      CHECK(count(c, ir::Op::barrier_cluster_arrive) == (pair ? 2 : 0));  // after the init, before the exit
      CHECK(count(c, ir::Op::barrier_cluster_wait) == (pair ? 2 : 0));
      // full[s]: the producer's one arrival; empty[s]: one lane of each of 8 consumer warps, per CTA.
      CHECK(init_counts(k, "full") == std::vector<int64_t>(3, 1));
      CHECK(init_counts(k, "empty") == std::vector<int64_t>(3, 8 * cluster));
      // Every CTA expects its A box and all of B: 16 + 32 KiB.
      for (const ir::Inst& in : k.insts)
        if (in.op == ir::Op::mbarrier_arrive_expect_tx) CHECK(in.operands[2].imm == 48 * 1024);
    }
  }
}

TEST_CASE("step 17: its mistakes change what they say", "[kernels]") {
  // The op that writes the multicast's cta_mask: a mov of 0b11, or (mistaken) 1 << rank.
  const auto mask_writer = [](const ir::Kernel& k) {
    uint32_t mask = ir::kNone;
    for (const ir::Inst& in : k.insts)
      if (in.op == ir::Op::cp_async_bulk_tensor_load_multicast) mask = in.operands.back().id;
    for (const ir::Inst& in : k.insts)
      if (in.ndst == 1 && in.operands[0].kind == ir::OperandKind::reg && in.operands[0].id == mask) return in;
    return ir::Inst{};
  };
  const ir::Inst all = mask_writer(build({256, 512, 512}, 2));
  CHECK(all.op == ir::Op::mov);
  CHECK(all.operands[1].imm == 3);
  CHECK(mask_writer(build({256, 512, 512}, 2, {"multicast-without-peers"})).op == ir::Op::shl);
  const ir::Kernel own_release = build({256, 512, 512}, 2, {"release-own-cta-only"});
  CHECK(count(op_counts(own_release), ir::Op::mbarrier_arrive_remote) == 0);
  CHECK(count(op_counts(own_release), ir::Op::mbarrier_arrive) == 1);
  CHECK(init_counts(own_release, "empty") == std::vector<int64_t>(3, 8));
  const ir::Kernel own_bytes = build({256, 512, 512}, 2, {"expect-own-slice-only"});
  for (const ir::Inst& in : own_bytes.insts)
    if (in.op == ir::Op::mbarrier_arrive_expect_tx) CHECK(in.operands[2].imm == (16 + 16) * 1024);
}

TEST_CASE("step 17 refuses what it cannot build, naming the value", "[kernels][errors]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kId);
  CHECK_THROWS_WITH(kernels::build_kernel(info, {{256, 512, 512}, {}, {{"cluster", 3}}}),
                    Catch::Contains("cluster=3") && Catch::Contains("1, 2, 4"));
  CHECK_THROWS_WITH(kernels::build_kernel(info, {{256, 512, 512}, {"multicast-without-peers"}, {{"cluster", 1}}}),
                    Catch::Contains("cluster=1") && Catch::Contains("no peer"));
  CHECK_THROWS_AS(kernels::build_kernel(info, {{256, 512, 100}, {}, {}}), kernels::ConfigError);
  CHECK_THROWS_WITH(kernels::build_kernel(info, {{256, 512, 100}, {}, {}}), Catch::Contains("K=100"));
}
