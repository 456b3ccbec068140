// The Hopper consumers' K-block (kernels/hopper_parts.cpp, consume_k_block): the stage's wgmma
// descriptors are made before the wait on full[s], so the wgmmas follow the wait at once. In the
// kernel instrumented by the timeline pass the wait's end record (a clock read) is a block
// boundary for ptxas; work placed after the wait then stays after it, on the critical path of a
// one-consumer kernel's every K iteration (step 13: +8-11% on the H100,
// docs/results/2026-11-27-h100-s2/README.md).
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "engine/ir/instrument.hpp"
#include "engine/ptx/emit.hpp"
#include "engine/ptx/sass.hpp"
#include "kernels/registry.hpp"
#include "tests/support/ptxas_check.hpp"

namespace gs {

namespace {

bool is_wait(ir::Op op) { return op == ir::Op::mbarrier_try_wait_parity || op == ir::Op::mbarrier_test_wait_parity; }

// The instruction after each consumer's mbarrier wait loop (label; try_wait p; @!p bra label).
std::vector<uint32_t> after_consumer_waits(const ir::Kernel& k) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i + 3 < k.insts.size(); ++i)
    if (k.insts[i].op == ir::Op::label && is_wait(k.insts[i + 1].op) && k.insts[i + 2].op == ir::Op::bra &&
        k.role_at(i + 1) == ir::WarpRole::consumer)
      out.push_back(i + 3);
  return out;
}

}  // namespace

TEST_CASE("Hopper consumers: the wgmmas follow the full-barrier wait at once", "[kernels][timeline]") {
  for (const char* id : {"hopper_producer_consumer", "hopper_two_consumers", "hopper_persistent",
                         "hopper_fewer_arrivals", "hopper_cluster_multicast", "hopper_tma_store"}) {
    const kernels::KernelInfo& info = kernels::kernel_or_throw(id);
    for (const kernels::GemmShape shape : {info.example_shape, kernels::GemmShape{8192, 8192, 8192}}) {
      const ir::Kernel k = kernels::build_kernel(info, {shape, {}, kernels::resolve_params(info, {})});
      const std::vector<uint32_t> after = after_consumer_waits(k);
      INFO(id << " at " << shape.m << "x" << shape.n << "x" << shape.k);
      REQUIRE(after.size() == 1);
      // wgmma.fence, then the first wgmma: every operand was ready before the wait.
      CHECK(k.insts.at(after[0]).op == ir::Op::wgmma_fence);
      CHECK(k.insts.at(after[0] + 1).op == ir::Op::wgmma_mma_async);
    }
  }
}

// ptxas's line table (no disassembler needed): in step 13 instrumented, no SASS instruction of
// the K-block's descriptor arithmetic lies between the wait's end record (its clock read) and the
// block's first wgmma: the stage's descriptors are made before the wait (hopper::consume_k_block).
TEST_CASE("step 13 instrumented: no descriptor arithmetic after the wait's end record", "[kernels][timeline][ptxas]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_producer_consumer");
  const ir::Kernel plain = kernels::build_kernel(info, {{8192, 8192, 8192}, {}, kernels::resolve_params(info, {})});
  const ir::InstrumentedKernel t = ir::instrument_timeline(plain, {});
  const ptx::PtxModule module = ptx::emit(t.kernel);
  const ptx::SassListing s = ptx::compile_sass(module.text, t.kernel.target);
  if (s.status == ptx::SassStatus::no_ptxas) {
    if (test::ptxas_required()) FAIL("GEMMSCOPE_REQUIRE_PTXAS=1 but " << s.message);
    WARN("skipped: " << s.message);
    return;
  }
  INFO(s.message);
  REQUIRE(!s.instructions.empty());  // addresses and lines from the cubin, with or without a disassembler
  // The consumer's wait-end clock read, the first wgmma after it, and the PTX lines of the
  // descriptors' arithmetic.
  uint32_t end_read_line = 0, end_read_inst = 0;
  for (size_t r = 0; r < t.clock_reads.size(); ++r)
    if (t.clock_read_kinds[r] == ir::RecordKind::mbar_wait_end &&
        t.kernel.role_at(t.clock_reads[r]) == ir::WarpRole::consumer) {
      end_read_inst = t.clock_reads[r];
      end_read_line = module.inst_to_line.at(end_read_inst);
    }
  REQUIRE(end_read_line > 0);
  uint32_t wgmma_line = 0;
  for (uint32_t i = end_read_inst; i < t.kernel.insts.size() && wgmma_line == 0; ++i)
    if (t.kernel.insts[i].op == ir::Op::wgmma_mma_async) wgmma_line = module.inst_to_line.at(i);
  REQUIRE(wgmma_line > 0);
  const std::set<std::string> per_block = {"a_stage_off", "a_desc0_lo", "a_desc0", "a_desc1_lo",
                                           "a_desc1",     "b_desc_lo",  "b_desc"};
  std::set<uint32_t> descriptor_lines;
  std::set<std::string> seen;
  for (uint32_t i = 0; i < t.kernel.insts.size(); ++i) {
    if (t.in_plain_copy(i)) continue;  // the recording CTAs' code, not the plain copy
    const ir::Inst& in = t.kernel.insts[i];
    if (in.ndst > 0 && in.operands.at(0).kind == ir::OperandKind::reg &&
        per_block.count(module.reg_names.at(in.operands[0].id))) {
      descriptor_lines.insert(module.inst_to_line.at(i));
      seen.insert(module.reg_names.at(in.operands[0].id));
    }
  }
  CHECK(seen == per_block);
  uint32_t end_read_at = UINT32_MAX;
  for (const ptx::SassInstruction& i : s.instructions)
    if (i.ptx_line == end_read_line) end_read_at = std::min(end_read_at, i.address);
  REQUIRE(end_read_at != UINT32_MAX);
  uint32_t wgmma_at = UINT32_MAX;
  for (const ptx::SassInstruction& i : s.instructions)
    if (i.ptx_line == wgmma_line && i.address > end_read_at) wgmma_at = std::min(wgmma_at, i.address);
  REQUIRE(wgmma_at != UINT32_MAX);
  uint32_t between = 0;
  for (const ptx::SassInstruction& i : s.instructions)
    if (descriptor_lines.count(i.ptx_line) && i.address > end_read_at && i.address < wgmma_at) ++between;
  INFO("the wait's end record reads the clock at SASS 0x" << std::hex << end_read_at << ", the first wgmma is at 0x"
                                                           << wgmma_at);
  CHECK(between == 0);
}

}  // namespace gs
