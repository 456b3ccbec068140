// The Blackwell step 24 (cluster launch control): its structure (one CTA per tile, one
// try_cancel per tile by the TMA thread, every role reading every answer through the answer
// ring), its shape rules, and ptxas for sm_100a at the example shape and at 8192^3. Whether it
// computes C and how the grid's queue answers is tests/model/test_launch_control.cpp's job.
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

constexpr const char* kStep = "blackwell_clc";

}  // namespace

TEST_CASE("blackwell: step 24 assembles for sm_100a at its example shape and at 8192^3", "[kernels][ptxas]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kStep);
  CHECK(info.arch == ir::Arch::sm_100a);
  CHECK(info.family == kernels::Family::blackwell);
  for (const kernels::GemmShape shape : {info.example_shape, kernels::GemmShape{8192, 8192, 8192}}) {
    DYNAMIC_SECTION(kStep << " " << shape.m << "x" << shape.n << "x" << shape.k) {
      const std::string ptx = ptx::emit(kernels::build_kernel(info, {shape, {}})).text;
      CHECK(ptx.find(".target sm_100a") != std::string::npos);
      CHECK(ptx.find(".reg .b128") != std::string::npos);
      CHECK(ptx.find("ld.shared.b128") != std::string::npos);
      CHECK(ptx.find("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128") !=
            std::string::npos);
      test::check_assembles(ptx, ir::Arch::sm_100a, kStep);
    }
  }
  SECTION("edge shape") {
    test::check_assembles(ptx::emit(kernels::build_kernel(info, {{1000, 1032, 200}, {}})).text, ir::Arch::sm_100a,
                          std::string(kStep) + " 1000x1032x200");
  }
  test::check_mistakes_assemble(info);
}

TEST_CASE("blackwell: step 24 is one CTA per tile that asks for the next with clusterlaunchcontrol", "[kernels]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kStep);
  const ir::Kernel k = kernels::build_kernel(info, {info.example_shape, {}});
  // 37 x 12 tiles of 128x256: one CTA each (step 23 launched 148).
  CHECK(k.launch.grid == std::array<uint32_t, 3>{37 * 12, 1, 1});
  CHECK(k.launch.block == std::array<uint32_t, 3>{192, 1, 1});
  CHECK(info.params.empty());
  const auto c = op_counts(k);
  CHECK(count(c, ir::Op::clc_try_cancel) == 1);           // the TMA thread asks, once a tile
  CHECK(count(c, ir::Op::ld_shared_b128) == 3);           // TMA, MMA and epilogue each read the answer
  CHECK(count(c, ir::Op::clc_query_is_canceled) == 3);
  CHECK(count(c, ir::Op::clc_query_first_ctaid_x) == 3);
  CHECK(count(c, ir::Op::tcgen05_alloc) == 1);
  CHECK(count(c, ir::Op::tcgen05_ld_32x32b) == 8);
  // Waits: empty (TMA) + clc_empty (TMA's request) + clc_full x3, tmem_empty + full (MMA), tmem_full.
  CHECK(count(c, ir::Op::mbarrier_try_wait_parity) == 8);
  int answer_slots = 0;
  for (const ir::SharedAlloc& a : k.smem) answer_slots += a.name == "clc_response" && a.bytes == 32 && a.align == 16;
  CHECK(answer_slots == 1);
  // The mistakes change what they say they change.
  const auto early = op_counts(kernels::build_kernel(info, {info.example_shape, {"read-answer-before-wait"}}));
  CHECK(count(early, ir::Op::mbarrier_try_wait_parity) == count(c, ir::Op::mbarrier_try_wait_parity) - 3);
  const auto again = op_counts(kernels::build_kernel(info, {info.example_shape, {"ask-after-none-left"}}));
  CHECK(count(again, ir::Op::clc_try_cancel) == 2);
}

TEST_CASE("blackwell: step 24 takes shapes that are not whole tiles, and refuses others naming the value",
          "[kernels][errors]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kStep);
  CHECK_NOTHROW(kernels::check_build_shape(info, {1000, 1032, 200}));
  CHECK_THROWS_WITH(kernels::check_build_shape(info, {1000, 1030, 200}), Catch::Contains("N=1030") && Catch::Contains("8"));
  CHECK_THROWS_WITH(kernels::check_build_shape(info, {1000, 1032, 100}), Catch::Contains("K=100"));
}
