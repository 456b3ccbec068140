#include "engine/model/fast_forward.hpp"

#include <algorithm>
#include <bit>
#include <numeric>

#include "engine/model/machine.hpp"
#include "engine/model/operands.hpp"

namespace gs::model {

namespace {

// K loops: at least this many passes before any is skipped (8192 / 64-wide K blocks: 128),
// the first 2 periods run in full (the ring fills, then a period at full rate is timed),
// and the last period. Other counted loops (a persistent CTA's tiles): 4 passes, the first
// 2 and the last run.
constexpr uint32_t kMinKPasses = 128;
constexpr uint32_t kMinOtherPasses = 4;

// The counter of a counted loop whose backward branch is instruction b, as Builder::loop and
// Builder::k_loop end one: `add i, i, 1; setp.lt more, i, count; @more bra top`, with `top`
// bound before b and the count a register or an immediate. kNone for any other branch (its
// loop, if it is one, runs in full).
uint32_t loop_counter(const ir::Kernel& k, const std::vector<uint32_t>& bound_at, uint32_t b) {
  if (b < 2) return kNone;
  const ir::Inst& bra = k.insts[b];
  const ir::Inst& test = k.insts[b - 1];
  const ir::Inst& step = k.insts[b - 2];
  if (bra.op != ir::Op::bra || bra.guard == kNone || bra.guard_negated || bra.operands.size() != 1 ||
      bra.operands[0].kind != ir::OperandKind::label || bra.operands[0].id >= bound_at.size() ||
      bound_at[bra.operands[0].id] >= b)
    return kNone;
  if (test.op != ir::Op::setp || test.cmp != ir::CmpOp::lt || test.operands.size() != 3 ||
      test.operands[0].kind != ir::OperandKind::reg || test.operands[0].id != bra.guard ||
      test.operands[1].kind != ir::OperandKind::reg ||
      (test.operands[2].kind != ir::OperandKind::reg && test.operands[2].kind != ir::OperandKind::imm))
    return kNone;
  const uint32_t counter = test.operands[1].id;
  if (step.op != ir::Op::add || step.operands.size() != 3 || step.operands[0].kind != ir::OperandKind::reg ||
      step.operands[0].id != counter || step.operands[1].kind != ir::OperandKind::reg ||
      step.operands[1].id != counter || step.operands[2].kind != ir::OperandKind::imm || step.operands[2].imm != 1)
    return kNone;
  return counter;
}

}  // namespace

FastForwardPlan plan_fast_forward(const ir::Kernel& k) {
  uint32_t stages = 1;  // the least common multiple of every declared stage count
  for (const ir::SharedAlloc& a : k.smem)
    if (a.stages > 1) stages = std::lcm(stages, a.stages);
  FastForwardPlan plan;
  plan.loop_at.assign(k.insts.size(), kNone);
  std::vector<uint32_t> bound_at(k.labels.size(), kNone);  // where each label is bound
  for (uint32_t i = 0; i < k.insts.size(); ++i)
    if (k.insts[i].op == ir::Op::label && !k.insts[i].operands.empty() && k.insts[i].operands[0].id < bound_at.size())
      bound_at[k.insts[i].operands[0].id] = i;
  for (uint32_t b = 0; b < k.insts.size(); ++b) {
    const uint32_t counter = loop_counter(k, bound_at, b);
    if (counter == kNone) continue;
    const uint32_t label = k.insts[b].operands[0].id;
    const bool k_loop = k.labels[label].k_loop;
    LoopPlan p{label, b, counter, k_loop};
    // A K loop with no ring spans 8 passes a period: a 32-byte sector of 4-byte elements, so
    // that a SIMT kernel's L1 misses (one pass in eight) fall in the period as often as in the
    // loop.
    p.period = k_loop ? (stages > 1 ? 2 * stages : 8) : 1;
    // A ring-less K loop's warps drift apart (their L1 misses come at different passes): 4
    // periods first, so that the period the skip measures is a settled one.
    p.first = k_loop ? std::max((stages > 1 ? 2 : 4) * p.period, 4u) : 2;
    p.last = k_loop ? std::max(p.period, 2u) : 1;
    p.min_passes = std::max(k_loop ? kMinKPasses : kMinOtherPasses, p.first + p.last + p.period);
    plan.loop_at[b] = uint32_t(plan.loops.size());
    plan.loops.push_back(p);
  }
  return plan;
}

uint64_t fast_forward_at(Cta& c, Warp& w, uint32_t pc, uint32_t mask) {
  if (mask == 0) return 0;
  const FastForwardPlan& plan = *c.fast_forward;
  const uint32_t index = plan.loop_at[pc];
  const LoopPlan& p = plan.loops[index];
  const ir::Inst& test = c.launch.kernel->insts[pc - 1];
  const uint32_t lane = uint32_t(std::countr_zero(mask));
  // The counter after the pass that ends here: the pass the branch starts.
  const uint64_t pass = uint32_t(c.reg(w.id, p.counter, lane));
  const ir::Operand& n_op = test.operands[2];
  const uint64_t passes = n_op.kind == ir::OperandKind::imm ? uint64_t(n_op.imm) : uint32_t(c.reg(w.id, n_op.id, lane));
  if (pass >= passes) return 0;
  LoopMark& mark = c.loop_marks[size_t(w.id) * plan.loops.size() + index];
  // A loop too short to skip is still timed: its K loop's pace, over the same period a skip
  // would take, is what its ring's refills are asked at (timing::wave_drift).
  const bool skips = passes >= p.min_passes;
  if (!skips && !(p.k_loop && c.cost.k_period_cycles == 0)) return 0;
  if (skips) {
    if (!mark.entered) {
      mark.entered = true;
      ++c.loop_warps[index];
    }
    ++c.loop_passes[index];
  }
  if (pass == p.first - p.period) {
    mark.cycle = c.now;
    mark.cost = c.cost;
    mark.loop_passes = c.loop_passes[index];
  }
  if (pass != p.first) return 0;
  // The first warp to end a timed period of a K loop gives the CTA's pace: a pass of it.
  if (p.k_loop && c.cost.k_period_cycles == 0) c.cost.k_period_cycles = double(c.now - mark.cycle) / double(p.period);
  if (!skips) return 0;
  const uint64_t skip = (passes - p.first - p.last) / p.period * p.period;
  if (skip == 0) return 0;
  for (uint32_t m = mask; m; m &= m - 1) c.reg(w.id, p.counter, uint32_t(std::countr_zero(m))) += skip;
  // The skipped passes take as long as the passes before them did. Two measures of it: the
  // warp's own last period, and the CTA's pace that the first warp to skip this instance of the
  // loop measured (the passes all the loop's warps ended in its last period over that period's
  // cycles, for `skip` passes of each of them). A window is only ever slowed by what does not
  // last (a warp that drifted behind the others, a ring still filling), so each warp takes the
  // shorter. Its own period alone made simt_naive's lagging warps jump too far (its skipped CTA
  // ended 18% after its full run); the CTA's pace alone made step 13's consumers at 8192^3 jump
  // 8% too far. Both now within 5% of the full run (tests/run/test_fast_forward.cpp).
  const uint32_t instance = ++mark.skips;
  // Anything measured over the warp's last period, grown over the skip: by its own periods, or
  // per pass that all the loop's warps ended in that period.
  const uint64_t ended = c.loop_passes[index] - mark.loop_passes, warps = c.loop_warps[index];
  const auto by_own = [&](uint64_t grew) { return grew * skip / p.period; };
  const auto by_passes = [&](uint64_t grew) { return ended > 0 ? grew * skip * warps / ended : by_own(grew); };
  const uint64_t own = by_own(c.now - mark.cycle);
  if (c.loop_jump_instance[index] != instance) {
    c.loop_jump[index] = by_passes(c.now - mark.cycle);
    c.loop_jump_instance[index] = instance;
  }
  const uint64_t cycles = std::min(own, c.loop_jump[index]);
  // The first warp to skip the j-th instance of a K loop (of any K loop: a producer's and its
  // consumers' are one stretch of the CTA's work) brings the CTA's work up to date; other
  // loops (tiles) likewise among themselves. Later skippers' windows may include that
  // extrapolation, so they add nothing.
  uint32_t& done = c.loop_extrapolated[p.k_loop ? 0 : 1];
  if (instance > done) {
    done = instance;
    // Every part of the work the prediction reads (timing::CtaCost) grows as in the period
    // before: the tensor cores, the copy engine, the shared-memory pipe, the load/store path
    // the bytes through L2 and the issue slots (run_cta_loop brings the CTA's count up to
    // date before it calls here). The work of that period is the CTA's, all warps' together, and
    // so are the skipped passes: each of the loop's warps skips `skip`. So the work grows by what
    // a pass cost (the period's work over the passes all warps ended in it) times the passes
    // skipped, not by the skipper's own periods: the first warp to get here may have run ahead
    // of the others (simt_naive's warps drift: its first skipper's period held 16% less than
    // the CTA's passes, and every part of its prediction came out that much short).
    const auto grow = [&](uint64_t& now, uint64_t then) { now += by_passes(now - then); };
    grow(c.cost.warp_instructions, mark.cost.warp_instructions);
    grow(c.cost.tensor_busy_cycles, mark.cost.tensor_busy_cycles);
    grow(c.cost.mma_sync_partition_cycles, mark.cost.mma_sync_partition_cycles);
    grow(c.cost.tma_bytes, mark.cost.tma_bytes);
    grow(c.cost.tma_multicast_extra_bytes, mark.cost.tma_multicast_extra_bytes);
    grow(c.cost.smem_wavefronts, mark.cost.smem_wavefronts);
    grow(c.cost.lsu_cycles, mark.cost.lsu_cycles);
    grow(c.cost.global_load_bytes, mark.cost.global_load_bytes);
    grow(c.cost.cp_async_bytes, mark.cost.cp_async_bytes);
    grow(c.cost.cp_async_lines, mark.cost.cp_async_lines);
    grow(c.cost.tag_cycles, mark.cost.tag_cycles);
    // C is stored once a tile, never once a K step: what a K loop's period stored is another
    // warp's epilogue of the tile before (Blackwell steps 23-26 drain TMEM beside the next
    // tile's K loop), which a K-loop jump must not grow (step 25 at 8192^3 counted 1.8 GB of C
    // a wave for a 268 MB C). A tile loop's jump grows it: its passes are tiles.
    if (!p.k_loop) grow(c.cost.global_store_bytes, mark.cost.global_store_bytes);
  }
  if (c.trace) {
    if (c.launch.record_registers) record_register_write(c, w.id, pc, p.counter, mask);
    const uint16_t warp = uint16_t(c.launch.trace_warp_base + w.id);
    const uint32_t record = append(c.trace->fast_forwards, FastForward{p.label, p.k_loop, uint32_t(pass),
                                                                       uint32_t(skip), uint32_t(passes), warp, c.now,
                                                                       cycles});
    trace_event(c, EventKind::fast_forward, c.now, w.id, pc, mask, record, uint32_t(skip));
  }
  return cycles;
}

}  // namespace gs::model
