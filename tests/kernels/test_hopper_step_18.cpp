// Step 18 (an asynchronous TMA-store epilogue): what the epilogue issues per tile (staging
// writes, the proxy fence, barriers, TMA stores with their bulk groups and waits), C as an f32
// tensor map, the staging buffers within shared memory, its mistakes and refusals, and ptxas
// for sm_90a. Whether it computes C is tests/model's job (test_tma_store_epilogue.cpp).
#include <map>
#include <string>

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

constexpr const char* kId = "hopper_tma_store";

ir::Kernel build(kernels::GemmShape shape, std::set<std::string> mistakes = {}, kernels::ParamValues params = {}) {
  return kernels::build_kernel(kernels::kernel_or_throw(kId), {shape, std::move(mistakes), std::move(params)});
}

}  // namespace

TEST_CASE("step 18 assembles for sm_90a with clusters of 1, 2 and 4, and with each mistake", "[kernels][ptxas]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kId);
  for (uint32_t cluster : {1u, 2u, 4u})
    for (const kernels::GemmShape shape : {info.example_shape, kernels::GemmShape{8192, 8192, 8192}}) {
      DYNAMIC_SECTION("cluster=" << cluster << " " << shape.m << "x" << shape.n << "x" << shape.k) {
        test::check_assembles(ptx::emit(build(shape, {}, {{"cluster", cluster}})).text, ir::Arch::sm_90a,
                              fmt::format("{} cluster={}", kId, cluster));
      }
    }
  for (const kernels::Mistake& m : info.mistakes) {
    DYNAMIC_SECTION("--break " << m.name) {
      test::check_assembles(ptx::emit(build(info.example_shape, {m.name})).text, ir::Arch::sm_90a,
                            std::string(kId) + " " + m.name);
    }
  }
}

TEST_CASE("step 18 stores C through two staging buffers per consumer with TMA stores and bulk groups", "[kernels]") {
  const ir::Kernel k = build({256, 512, 512});
  const auto c = op_counts(k);
  CHECK(count(c, ir::Op::st_global) == 0);  // C goes out through the copy engine only
  // Per tile and consumer: 4 chunks of 64 columns; each thread writes 2 x 8 v2 pairs per chunk.
  CHECK(count(c, ir::Op::st_shared) == 4 * 16);
  CHECK(count(c, ir::Op::fence_proxy_async) == 4);
  CHECK(count(c, ir::Op::cp_async_bulk_tensor_store) == 4);
  CHECK(count(c, ir::Op::cp_async_bulk_commit_group) == 4);
  CHECK(count(c, ir::Op::cp_async_bulk_wait_group_read) == 4 + 1);  // before each chunk, and before the end
  CHECK(count(c, ir::Op::bar_sync) == 1 + 4 * 2);                   // the init's, and two per chunk
  std::vector<int64_t> waits;
  for (const ir::Inst& i : k.insts)
    if (i.op == ir::Op::cp_async_bulk_wait_group_read) waits.push_back(i.operands[0].imm);
  CHECK(waits == std::vector<int64_t>{1, 1, 1, 1, 0});  // one store (the other buffer's) may still read
  const ir::Param* tc = k.find_param(ir::ParamRole::tmap_c);
  REQUIRE(tc);
  CHECK(tc->kind == ir::ParamKind::tensor_map);
  CHECK(tc->tensor_map.dtype == ir::TensorDtype::f32);
  CHECK(tc->tensor_map.box_bytes() == 16384);
  for (const ir::SharedAlloc& a : k.smem)
    if (a.name == "sC") {
      CHECK(a.operand == ir::GemmOperand::c);
      CHECK(a.stages == 4);  // 2 buffers x 2 consumer warpgroups
      CHECK(a.offset % 1024 == 0);
    }
  CHECK(k.smem_bytes() <= 227 * 1024);
}

TEST_CASE("step 18 with a bf16 C: a bf16 tensor map of 8-KiB boxes, one packed word a pair", "[kernels]") {
  const ir::Kernel k = build({256, 512, 512}, {}, {{"c_dtype", 16}});
  const auto c = op_counts(k);
  CHECK(count(c, ir::Op::cvt_pack) == 64);        // 128 accumulators a thread, in pairs
  CHECK(count(c, ir::Op::st_shared) == 4 * 16);   // as many writes as f32's, 4 bytes each
  const ir::Param* tc = k.find_param(ir::ParamRole::tmap_c);
  REQUIRE(tc);
  CHECK(tc->tensor_map.dtype == ir::TensorDtype::bf16);
  CHECK(tc->tensor_map.box_bytes() == 8192);
  CHECK(tc->tensor_map.global_strides_bytes[0] == 512 * 2);
}

TEST_CASE("step 18 zero_acc=1: the accumulators are zeroed before each tile and every wgmma accumulates", "[kernels]") {
  const ir::Kernel plain = build({256, 512, 512});
  const ir::Kernel zeroed = build({256, 512, 512}, {}, {{"zero_acc", 1}});
  const auto movs = [](const ir::Kernel& k) {
    int n = 0;
    for (const ir::Inst& i : k.insts)
      n += i.op == ir::Op::mov && i.type == ir::Type::f32 && i.operands.size() == 2 &&
           i.operands[1].kind == ir::OperandKind::fimm && i.operands[1].fimm == 0.0;
    return n;
  };
  CHECK(movs(zeroed) == movs(plain) + 128);  // one mov.f32 of 0 for each accumulator of a thread
  CHECK(count(op_counts(zeroed), ir::Op::wgmma_mma_async) == count(op_counts(plain), ir::Op::wgmma_mma_async));
  const std::string text = ptx::emit(zeroed).text;
  CHECK_THAT(text, Catch::Contains("zero the accumulators"));
}

TEST_CASE("step 18: its mistakes change what they say", "[kernels]") {
  const auto fence = op_counts(build({256, 512, 512}, {"missing-proxy-fence"}));
  CHECK(count(fence, ir::Op::fence_proxy_async) == 0);
  CHECK(count(fence, ir::Op::cp_async_bulk_wait_group_read) == 5);
  const auto reuse = op_counts(build({256, 512, 512}, {"reuse-staging-before-wait"}));
  CHECK(count(reuse, ir::Op::cp_async_bulk_wait_group_read) == 1);  // only the last one, before the end
  CHECK(count(reuse, ir::Op::fence_proxy_async) == 4);
}

TEST_CASE("step 18 refuses a ring that does not fit beside the staging buffers, naming the choices", "[kernels][errors]") {
  CHECK_THROWS_WITH(build({256, 512, 512}, {}, {{"stages", 4}}),
                    Catch::Contains("stages=4") && Catch::Contains("+ the 64 KiB of staging buffers = 256 KiB") &&
                        Catch::Contains("at bn=256 take stages 2..3, or a smaller bn (128: up to 5)"));
  CHECK_THROWS_WITH(build({256, 512, 100}), Catch::Contains("K=100"));
}
