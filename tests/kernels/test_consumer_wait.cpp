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

// ptxas's line table (no disassembler needed): in step 13 instrumented, every SASS instruction
// of the K-block's descriptor arithmetic lies before the wait's end record reads the clock.
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
  // The consumer's wait-end clock read, and the PTX lines of the descriptors it must not precede.
  uint32_t end_read_line = 0;
  for (size_t r = 0; r < t.clock_reads.size(); ++r)
    if (t.clock_read_kinds[r] == ir::RecordKind::mbar_wait_end &&
        t.kernel.role_at(t.clock_reads[r]) == ir::WarpRole::consumer)
      end_read_line = module.inst_to_line.at(t.clock_reads[r]);
  REQUIRE(end_read_line > 0);
  const std::set<std::string> per_block = {"a_stage_off", "a_desc0", "a_desc1", "b_desc"};
  std::set<uint32_t> descriptor_lines;
  for (uint32_t i = 0; i < t.kernel.insts.size(); ++i) {
    if (t.in_plain_copy(i)) continue;  // the recording CTAs' code, not the plain copy
    const ir::Inst& in = t.kernel.insts[i];
    if (in.ndst > 0 && in.operands.at(0).kind == ir::OperandKind::reg &&
        per_block.count(module.reg_names.at(in.operands[0].id)))
      descriptor_lines.insert(module.inst_to_line.at(i));
  }
  REQUIRE(descriptor_lines.size() == per_block.size());
  uint32_t end_read_at = UINT32_MAX, last_descriptor_at = 0;
  for (const ptx::SassInstruction& i : s.instructions) {
    if (i.ptx_line == end_read_line) end_read_at = std::min(end_read_at, i.address);
    if (descriptor_lines.count(i.ptx_line)) last_descriptor_at = std::max(last_descriptor_at, i.address);
  }
  INFO("the wait's end record reads the clock at SASS 0x" << std::hex << end_read_at
                                                           << "; the last descriptor instruction is at 0x"
                                                           << last_descriptor_at);
  REQUIRE(end_read_at != UINT32_MAX);
  REQUIRE(last_descriptor_at > 0);
  CHECK(last_descriptor_at < end_read_at);
}

}  // namespace gs
