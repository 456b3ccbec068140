// The Blackwell step 23 (persistent grid, two accumulators in tensor memory): its structure
// (who waits on which barrier, 512 TMEM columns, a persistent grid), its shape rules, and ptxas
// for sm_100a at the example shape and at 8192^3. Whether it computes C, and whether the model
// catches its mistakes, is tests/model/test_tmem_double_buffer.cpp's job.
#include <map>

#include <catch2/catch.hpp>

#include "engine/ptx/emit.hpp"
#include "kernels/registry.hpp"
#include "tests/support/kernel_ops.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;
using gs::test::count;
using gs::test::op_counts;

namespace {

constexpr const char* kStep = "blackwell_persistent_tmem2";

}  // namespace

TEST_CASE("blackwell: step 23 assembles for sm_100a at its example shape and at 8192^3", "[kernels][ptxas]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kStep);
  CHECK(info.arch == ir::Arch::sm_100a);
  CHECK(info.family == kernels::Family::blackwell);
  for (const kernels::GemmShape shape : {info.example_shape, kernels::GemmShape{8192, 8192, 8192}}) {
    DYNAMIC_SECTION(kStep << " " << shape.m << "x" << shape.n << "x" << shape.k) {
      const std::string ptx = ptx::emit(kernels::build_kernel(info, {shape, {}})).text;
      CHECK(ptx.find(".target sm_100a") != std::string::npos);
      test::check_assembles(ptx, ir::Arch::sm_100a, kStep);
    }
  }
  // A shape that is not whole tiles (edge tiles clipped) and every mistake assemble too.
  SECTION("edge shape") {
    test::check_assembles(ptx::emit(kernels::build_kernel(info, {{1000, 1032, 200}, {}})).text, ir::Arch::sm_100a,
                          std::string(kStep) + " 1000x1032x200");
  }
  test::check_mistakes_assemble(info);
}

TEST_CASE("blackwell: step 23 is one CTA per SM with two TMEM accumulators and their barriers", "[kernels]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kStep);
  const ir::Kernel k = kernels::build_kernel(info, {info.example_shape, {}});
  // 37 x 12 tiles of 128x256 over 148 CTAs (the default): 3 tiles each.
  CHECK(k.launch.grid == std::array<uint32_t, 3>{148, 1, 1});
  CHECK(k.launch.block == std::array<uint32_t, 3>{192, 1, 1});
  CHECK(k.output.walk.size() == 37 * 12);
  // Fewer tiles than CTAs: one CTA per tile.
  CHECK(kernels::build_kernel(info, {{256, 512, 128}, {}}).launch.grid == std::array<uint32_t, 3>{4, 1, 1});
  CHECK(kernels::build_kernel(info, {{2048, 2048, 128}, {}, {{"ctas", 16}}}).launch.grid ==
        std::array<uint32_t, 3>{16, 1, 1});
  const auto c = op_counts(k);
  CHECK(count(c, ir::Op::tcgen05_alloc) == 1);
  CHECK(count(c, ir::Op::tcgen05_dealloc) == 1);
  CHECK(count(c, ir::Op::tcgen05_mma) == 4);       // four k16 MMAs per K block, inside the loops
  CHECK(count(c, ir::Op::tcgen05_commit) == 2);    // the stage's release, and tmem_full[acc] per tile
  CHECK(count(c, ir::Op::tcgen05_ld_32x32b) == 8);  // 256 columns of one buffer, 32 per load
  // Waits: empty (TMA), tmem_empty + full (MMA), tmem_full (epilogue); one arrive: the epilogue's release.
  CHECK(count(c, ir::Op::mbarrier_try_wait_parity) == 4);
  CHECK(count(c, ir::Op::mbarrier_arrive) == 1);
  // All 512 columns: two accumulators of 256.
  bool alloc_512 = false;
  for (const ir::Inst& i : k.insts)
    if (i.op == ir::Op::tcgen05_alloc)
      for (const ir::Operand& o : i.operands) alloc_512 = alloc_512 || (o.kind == ir::OperandKind::imm && o.imm == 512);
  CHECK(alloc_512);
  // tmem_full[2] and tmem_empty[2]: 16 bytes each.
  int buffers = 0;
  for (const ir::SharedAlloc& a : k.smem)
    if (a.name == "tmem_full" || a.name == "tmem_empty") buffers += a.bytes == 16;
  CHECK(buffers == 2);
  // The mistakes change what they say they change.
  const auto reuse = op_counts(kernels::build_kernel(info, {info.example_shape, {"reuse-before-release"}}));
  CHECK(count(reuse, ir::Op::mbarrier_try_wait_parity) == count(c, ir::Op::mbarrier_try_wait_parity) - 1);
  const ir::Kernel per_tile = kernels::build_kernel(info, {info.example_shape, {"phase-flips-every-tile"}});
  CHECK(per_tile.insts.size() != k.insts.size());
  CHECK(count(op_counts(per_tile), ir::Op::mbarrier_try_wait_parity) == count(c, ir::Op::mbarrier_try_wait_parity));
}

TEST_CASE("blackwell: step 23 takes shapes that are not whole tiles, and refuses others naming the value",
          "[kernels][errors]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kStep);
  CHECK_NOTHROW(kernels::check_build_shape(info, {1000, 1032, 200}));
  CHECK_THROWS_WITH(kernels::check_build_shape(info, {1000, 1030, 200}), Catch::Contains("N=1030") && Catch::Contains("8"));
  CHECK_THROWS_WITH(kernels::check_build_shape(info, {1000, 1032, 100}), Catch::Contains("K=100"));
  CHECK_THROWS_WITH(kernels::build_kernel(info, {{1000, 1032, 200}, {}, {{"ctas", 100}}}),
                    Catch::Contains("ctas") && Catch::Contains("148"));
}
