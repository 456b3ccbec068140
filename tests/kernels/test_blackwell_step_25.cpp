// The Blackwell step 25 (overlapped TMA-store epilogue): its structure (step 23's roles, an
// epilogue of 8 sub-tiles a tile through two staging buffers, each with a proxy fence, a TMA
// store and a bulk group, tmem_empty arrived on after the last tcgen05.wait::ld), what each
// mistake changes, its shape rules, and ptxas for sm_100a at the example shape and at 8192^3.
// Whether it computes C is tests/model/test_tma_store_overlap.cpp's job.
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

constexpr const char* kStep = "blackwell_tma_store_epilogue";

}  // namespace

TEST_CASE("blackwell: step 25 assembles for sm_100a at its example shape and at 8192^3", "[kernels][ptxas]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kStep);
  CHECK(info.arch == ir::Arch::sm_100a);
  CHECK(info.family == kernels::Family::blackwell);
  for (const kernels::GemmShape shape : {info.example_shape, kernels::GemmShape{8192, 8192, 8192}}) {
    DYNAMIC_SECTION(kStep << " " << shape.m << "x" << shape.n << "x" << shape.k) {
      const std::string ptx = ptx::emit(kernels::build_kernel(info, {shape, {}})).text;
      CHECK(ptx.find(".target sm_100a") != std::string::npos);
      CHECK(ptx.find("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group") != std::string::npos);
      CHECK(ptx.find("fence.proxy.async.shared::cta") != std::string::npos);
      CHECK(ptx.find("cp.async.bulk.wait_group.read 1") != std::string::npos);
      CHECK(ptx.find("tcgen05.wait::ld") != std::string::npos);
      test::check_assembles(ptx, ir::Arch::sm_100a, kStep);
    }
  }
  SECTION("edge shape") {
    test::check_assembles(ptx::emit(kernels::build_kernel(info, {{1000, 1032, 200}, {}})).text, ir::Arch::sm_100a,
                          std::string(kStep) + " 1000x1032x200");
  }
  SECTION("bf16 C at 8192^3") {
    const std::string ptx = ptx::emit(kernels::build_kernel(info, {{8192, 8192, 8192}, {}, {{"c_dtype", 16}}})).text;
    CHECK(ptx.find("tcgen05.ld.sync.aligned.32x32b.x64.b32") != std::string::npos);
    CHECK(ptx.find("cvt.rn.bf16x2.f32") != std::string::npos);
    test::check_assembles(ptx, ir::Arch::sm_100a, std::string(kStep) + " c_dtype=16");
  }
  test::check_mistakes_assemble(info);
}

TEST_CASE("blackwell: step 25 drains each accumulator in 8 sub-tiles through two staging buffers and TMA stores",
          "[kernels]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kStep);
  const ir::Kernel k = kernels::build_kernel(info, {info.example_shape, {}});
  CHECK(k.launch.grid == std::array<uint32_t, 3>{148, 1, 1});  // step 23's persistent grid
  CHECK(k.launch.block == std::array<uint32_t, 3>{192, 1, 1});
  const auto c = op_counts(k);
  CHECK(count(c, ir::Op::tcgen05_ld_32x32b) == 8);  // 256 columns, 32 a sub-tile
  CHECK(count(c, ir::Op::tcgen05_wait_ld) == 8);
  CHECK(count(c, ir::Op::cp_async_bulk_tensor_store) == 8);
  CHECK(count(c, ir::Op::cp_async_bulk_commit_group) == 8);
  CHECK(count(c, ir::Op::fence_proxy_async) == 8);
  CHECK(count(c, ir::Op::cp_async_bulk_wait_group_read) == 8 + 1);  // before each rewrite, and at the end
  CHECK(count(c, ir::Op::st_global) == 0);                          // C goes through the copy engine only
  // The staging buffers: two of 128 rows x 128 bytes, 128B-swizzled, 1024-aligned.
  int staging = 0;
  for (const ir::SharedAlloc& a : k.smem)
    staging += a.name == "sC" && a.bytes == 2 * 16384 && a.align == 1024 && a.swizzle == layout::Swizzle::b128;
  CHECK(staging == 1);
  // C's map: f32, 32 x 128 boxes, the same swizzle.
  bool c_map = false;
  for (const ir::Param& p : k.params)
    if (p.kind == ir::ParamKind::tensor_map && p.tensor_map.source == ir::ParamRole::c)
      c_map = p.tensor_map.dtype == ir::TensorDtype::f32 && p.tensor_map.box_dim[0] == 32 &&
              p.tensor_map.box_dim[1] == 128 && p.tensor_map.swizzle == layout::Swizzle::b128;
  CHECK(c_map);
  // tmem_empty is arrived on once a tile, after the last tcgen05.wait::ld and before the last
  // sub-tile's store: the TMEM buffer goes back before its stores are done.
  const std::vector<size_t> waits = where(k, ir::Op::tcgen05_wait_ld), stores = where(k, ir::Op::cp_async_bulk_tensor_store);
  const std::vector<size_t> arrives = where(k, ir::Op::mbarrier_arrive);
  REQUIRE(arrives.size() == 1);
  CHECK(arrives[0] > waits.back());
  CHECK(arrives[0] < stores.back());
  CHECK(arrives[0] > stores[stores.size() - 2]);  // after the seventh sub-tile's store was issued

  // bf16 C: 64 columns (128 bytes) a sub-tile, so 4 sub-tiles a tile, the pairs rounded and
  // stored as words; the staging buffers and the arrive's place are the same.
  const ir::Kernel half = kernels::build_kernel(info, {info.example_shape, {}, {{"c_dtype", 16}}});
  const auto h = op_counts(half);
  CHECK(count(h, ir::Op::tcgen05_ld_32x32b) == 4);
  CHECK(count(h, ir::Op::cp_async_bulk_tensor_store) == 4);
  CHECK(count(h, ir::Op::cp_async_bulk_wait_group_read) == 4 + 1);
  CHECK(count(h, ir::Op::cvt_pack) == 4 * 32);  // 64 columns a sub-tile: 32 pairs
  for (const ir::Param& p : half.params)
    if (p.kind == ir::ParamKind::tensor_map && p.tensor_map.source == ir::ParamRole::c)
      CHECK((p.tensor_map.dtype == ir::TensorDtype::bf16 && p.tensor_map.box_dim[0] == 64));
  const std::vector<size_t> half_arrives = where(half, ir::Op::mbarrier_arrive);
  REQUIRE(half_arrives.size() == 1);
  CHECK(half_arrives[0] > where(half, ir::Op::tcgen05_wait_ld).back());

  // The mistakes change what they say they change.
  const ir::Kernel no_fence = kernels::build_kernel(info, {info.example_shape, {"missing-proxy-fence"}});
  CHECK(count(op_counts(no_fence), ir::Op::fence_proxy_async) == 0);
  const ir::Kernel no_wait = kernels::build_kernel(info, {info.example_shape, {"reuse-staging-before-wait"}});
  CHECK(count(op_counts(no_wait), ir::Op::cp_async_bulk_wait_group_read) == 1);  // only the final one
  const ir::Kernel early = kernels::build_kernel(info, {info.example_shape, {"release-tmem-before-ld-wait"}});
  const std::vector<size_t> early_arrive = where(early, ir::Op::mbarrier_arrive), early_wait = where(early, ir::Op::tcgen05_wait_ld);
  REQUIRE(early_arrive.size() == 1);
  CHECK(early_arrive[0] < early_wait.back());
  CHECK(early_arrive[0] > where(early, ir::Op::tcgen05_ld_32x32b).back());
}

TEST_CASE("blackwell: step 25 takes shapes that are not whole tiles, and refuses others naming the value",
          "[kernels][errors]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kStep);
  CHECK_NOTHROW(kernels::check_build_shape(info, {1000, 1032, 200}));
  CHECK_THROWS_WITH(kernels::check_build_shape(info, {1000, 1030, 200}), Catch::Contains("N=1030") && Catch::Contains("8"));
  CHECK_THROWS_WITH(kernels::check_build_shape(info, {1004, 1032, 200}), Catch::Contains("M=1004"));
  CHECK_THROWS_WITH(kernels::check_build_shape(info, {1000, 1032, 100}), Catch::Contains("K=100"));
}
