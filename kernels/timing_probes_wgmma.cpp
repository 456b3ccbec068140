// The wgmma issue and order probes (timing_probes.hpp, build_wgmma_issue_probe and
// build_wgmma_order_probe): what issuing wgmmas costs a warp, and in what order the tensor cores
// take two warpgroups' wgmmas.
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "engine/layout/swizzle.hpp"
#include "kernels/timing_probe_parts.hpp"
#include "kernels/timing_probes.hpp"

namespace gs::kernels {

using builder::Builder;
using builder::Reg;
using ir::Type;

ir::Kernel build_wgmma_issue_probe(uint32_t warpgroups, uint32_t n, uint32_t burst, uint32_t rounds, uint32_t keep) {
  if (warpgroups == 0 || warpgroups > 2 || n < 8 || n > 256 || n % 8 != 0 || burst == 0 || burst > 64 ||
      rounds == 0 || keep > 1)
    throw std::invalid_argument(fmt::format("a wgmma issue probe needs 1..2 warpgroups, N a multiple of 8 in 8..256, "
                                            "a burst of 1..64 wgmmas, a round and 0..1 groups kept in flight (got "
                                            "{}, {}, {}, {}, {})",
                                            warpgroups, n, burst, rounds, keep));
  constexpr uint32_t kK = 64;  // one 128-byte swizzle row of bf16: four k16 steps
  Builder b(fmt::format("timing_wgmma_issue_{}x{}_b{}_keep{}", warpgroups, n, burst, keep), ir::Arch::sm_90a);
  const uint32_t threads = 128 * warpgroups;
  b.set_launch({.grid = {1, 1, 1}, .block = {threads, 1, 1}});
  b.use_dynamic_smem();
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const probe_parts::WgmmaTiles tiles = probe_parts::wgmma_probe_tiles(b, threads, n, false);
  std::vector<Reg> a_desc, b_desc;
  for (uint32_t kk = 0; kk < kK / 16; ++kk) {
    a_desc.push_back(b.wgmma_descriptor(b.smem_address(tiles.sA, 32 * kk, fmt::format("a_k{}", kk)),
                                        layout::kmajor_tile_descriptor(0, layout::Swizzle::b128),
                                        fmt::format("a_desc{}", kk)));
    b_desc.push_back(b.wgmma_descriptor(b.smem_address(tiles.sB, 32 * kk, fmt::format("b_k{}", kk)),
                                        layout::kmajor_tile_descriptor(0, layout::Swizzle::b128),
                                        fmt::format("b_desc{}", kk)));
  }
  std::vector<Reg> acc;
  for (uint32_t v = 0; v < n / 2; ++v) acc.push_back(b.mov(Type::f32, 0.0, fmt::format("acc{}", v)));
  auto burst_of = [&] {
    for (uint32_t i = 0; i < burst; ++i) b.wgmma_mma_async(n, acc, a_desc[i % 4], b_desc[i % 4], 1);
  };
  b.comment("a round that is not timed: the code and the tensor cores warm");
  b.wgmma_fence();
  burst_of();
  b.wgmma_commit_group();
  b.wgmma_wait_group(0);
  b.bar_sync(0);
  Reg issue = b.mov(Type::u64, uint64_t(0), "issue");
  b.loop("round", rounds, [&](const Reg&) {
    b.wgmma_fence();
    Reg before = b.special(ir::Special::clock64, "before");
    burst_of();
    Reg after = b.special(ir::Special::clock64, "after");
    issue += after - before;
    b.wgmma_commit_group();
    b.wgmma_wait_group(keep);
  });
  b.wgmma_wait_group(0);
  b.comment("the record: the cycles spent issuing, and an accumulator's bits (ptxas keeps the wgmmas whose results are used)");
  Reg value = b.cvt(Type::u64, b.mov(Type::u32, b.mov(Type::b32, acc[0], "bits"), "u"), ir::Rounding::none, "value");
  Reg gid = b.mov(Type::u32, tiles.tid, "gid");
  probe_parts::store_result(b, pc, gid, b.mov(Type::u64, uint64_t(0), "zero64"), issue, value);
  b.ret();
  return b.finish();
}

ir::Kernel build_wgmma_order_probe(uint32_t burst, uint32_t spin) {
  if (burst == 0 || burst > 64 || spin == 0)
    throw std::invalid_argument(
        fmt::format("a wgmma order probe needs a burst of 1..64 wgmmas and a spin (got {}, {})", burst, spin));
  constexpr uint32_t kN = 256, kThreads = 256;
  Builder b(fmt::format("timing_wgmma_order_b{}_spin{}", burst, spin), ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {kThreads, 1, 1}});
  b.use_dynamic_smem();
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const probe_parts::WgmmaTiles tiles = probe_parts::wgmma_probe_tiles(b, kThreads, kN, false);
  const Reg& tid = tiles.tid;
  Reg a_desc = b.wgmma_descriptor(tiles.a_addr, layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "a_desc");
  Reg b_desc = b.wgmma_descriptor(tiles.b_addr, layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "b_desc");
  std::vector<Reg> acc;
  for (uint32_t v = 0; v < kN / 2; ++v) acc.push_back(b.mov(Type::f32, 0.0, fmt::format("acc{}", v)));
  // The chain starts from the thread's index, which ptxas cannot fold away (from a constant it
  // computed the 100 steps at build time).
  Reg x = b.cvt(Type::f32, tid, ir::Rounding::rn, "x");
  Reg t1 = b.mov(Type::u64, uint64_t(0), "t1");  // each warpgroup adds its clock64 reads (in place)
  Reg t2 = b.mov(Type::u64, uint64_t(0), "t2");
  b.comment("both warpgroups start together");
  b.bar_sync(0);
  b.if_((tid < 128u).named("first"), [&] {
    b.comment("warpgroup 0: a burst of wgmmas, one group, waited");
    t1 += b.special(ir::Special::clock64, "t1_first");
    b.wgmma_fence();
    for (uint32_t i = 0; i < burst; ++i) b.wgmma_mma_async(kN, acc, a_desc, b_desc, 1);
    b.wgmma_commit_group();
    b.wgmma_wait_group(0);
    t2 += b.special(ir::Special::clock64, "t2_first");
  });
  b.if_((tid >= 128u).named("second"), [&] {
    b.comment("warpgroup 1: a dependent fma and add chain while the burst queues, then one wgmma, waited");
    b.loop("spin", spin, [&](const Reg&) { x += b.fma(x, 1.0001, 0.5, "x_next"); });
    t1 += b.special(ir::Special::clock64, "t1_second");
    b.wgmma_fence();
    b.wgmma_mma_async(kN, acc, a_desc, b_desc, 1);
    b.wgmma_commit_group();
    b.wgmma_wait_group(0);
    t2 += b.special(ir::Special::clock64, "t2_second");
  });
  Reg sum = (acc[0] + x).named("sum");
  Reg value = b.cvt(Type::u64, b.mov(Type::u32, b.mov(Type::b32, sum, "bits"), "u"), ir::Rounding::none, "value");
  probe_parts::store_result(b, pc, tid, t1, t2, value);
  b.ret();
  return b.finish();
}

}  // namespace gs::kernels
