// exec_mma: warp-level mma.sync.m16n8k16 (bf16 x bf16 -> f32). The fragments are spread
// over the 32 lanes as the facts sheet's §2 maps say (layout::mma_m16n8k16_*_layout, checked
// on the GPU by `gemmscope probe mma`): gather A, B and C from the lanes, multiply, scatter D.
#include <cmath>
#include <fmt/format.h>

#include "engine/layout/fragments.hpp"
#include "engine/ir/signature.hpp"
#include "engine/model/machine.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

namespace {

struct MmaMaps {
  layout::FragmentMap a = layout::mma_m16n8k16_a_layout();  // (T32,V8) -> (M16,K16)
  layout::FragmentMap b = layout::mma_m16n8k16_b_layout();  // (T32,V4) -> (K16,N8)
  layout::FragmentMap c = layout::mma_m16n8k16_c_layout();  // (T32,V4) -> (M16,N8)
};
const MmaMaps& maps() {
  static const MmaMaps m;
  return m;
}

}  // namespace

void exec_mma(ExecContext& x) {
  expect_op(x, "exec_mma", ir::Op::mma_sync);
  Cta& c = x.cta;
  const ir::mma_sync_operands ops = ir::mma_sync_operands_of(x.inst);
  if (x.mask != kAllLanes)
    report(c, HazardKind::mma_divergent, x.inst_id, x.warp.id, kNone, 0,
           "mma.sync.aligned must be executed by all 32 lanes of the warp");
  Sources src(x);  // checks the A, B and C registers
  const MmaMaps& m = maps();
  float A[16][16] = {}, B[16][8] = {}, C[16][8] = {};
  for (uint32_t l = 0; l < 32; ++l) {
    for (uint32_t e = 0; e < 8; ++e) {  // element e sits in register e/2, low half when e is even
      const uint32_t word = uint32_t(src.get(ops.a_at + e / 2, l));
      const layout::Coord rc = m.a.at(int(l), int(e));
      A[rc.row][rc.col] = bf16_to_f32(uint16_t(e % 2 == 0 ? word : word >> 16));
    }
    for (uint32_t e = 0; e < 4; ++e) {
      const uint32_t word = uint32_t(src.get(ops.b_at + e / 2, l));
      const layout::Coord kn = m.b.at(int(l), int(e));
      B[kn.row][kn.col] = bf16_to_f32(uint16_t(e % 2 == 0 ? word : word >> 16));
    }
    for (uint32_t v = 0; v < 4; ++v) {
      const layout::Coord rc = m.c.at(int(l), int(v));
      C[rc.row][rc.col] = as_f32(src.get(ops.c_at + v, l));
    }
  }
  for (uint32_t v = 0; v < 4; ++v) {
    uint64_t* d = c.reg_lanes(x.warp.id, ops.d[v].id);
    for (uint32_t l = 0; l < 32; ++l) {
      const layout::Coord rc = m.c.at(int(l), int(v));
      double sum = 0.0;  // bf16 products are exact in float; the sum is rounded once into f32
      for (uint32_t k = 0; k < 16; ++k) sum += double(A[rc.row][k] * B[k][rc.col]);
      d[l] = from_f32(float(double(C[rc.row][rc.col]) + sum));
    }
    note_register_write(x, ops.d[v].id, x.mask);
  }
  c.stats->mma_ops++;
  // The warp's sub-partition's tensor core takes one m16n8k16 at a quarter of the SM's measured
  // mma.sync rate; the result is ready kMmaSyncLatency after it starts.
  constexpr double kFlops = 2 * 16 * 8 * 16;
  const uint64_t busy = uint64_t(std::ceil(kFlops / (timing::kMmaSyncFlopsPerCycle / 4)));
  uint64_t& free_at = c.mma_free[x.warp.id & 3];
  const uint64_t start = std::max(c.now, free_at);
  free_at = start + busy;
  c.cost.tensor_busy_cycles += uint64_t(std::ceil(kFlops / timing::kMmaSyncFlopsPerCycle));  // the SM's share
  x.latency = uint32_t(start - c.now) + timing::kMmaSyncLatency;
  if (c.trace)
    append(c.trace->mma_sync, MmaSyncOp{x.inst_id, uint16_t(c.launch.trace_warp_base + x.warp.id), start,
                                        start + timing::kMmaSyncLatency});
}

}  // namespace gs::model
