// Fast-forward: a traced CTA's work bounded by design (model/fast_forward.cpp).
//
// Run alone (SimOptions::fast_forward, for the app and `sim --traced-cta-only`), a CTA of a
// large GEMM would walk every K block of every tile it owns: at 8192^3 a persistent CTA runs
// 16 tiles x 128 K blocks, at 65536^3 thousands of tiles x 1024. The model runs, and the
// trace shows, the first passes of each long declared loop (Builder::k_loop, Builder::loop)
// and its last ones, and skips the passes between: at the backward branch that starts pass
// `first`, every warp of the loop moves the loop's counter on by a multiple of the ring's
// period and moves its clock on by the time of as many passes as the ones just before it.
// Skipping whole periods (twice every declared stage count) leaves each stage index and
// barrier parity where the skipped passes would have left them, so the ring's protocol runs
// on unchanged. The CTA's tensor-core and copy work are extrapolated the same way, so the
// prediction stays the whole CTA's. What the skipped passes compute is not computed: the
// CTA's tile of C holds the sums of the passes that ran (a run of the traced CTA alone does
// not judge C). Each skip is an event (EventKind::fast_forward) and a Trace::fast_forwards
// record, which the views and `sim` show.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ir/kernel.hpp"
#include "engine/model/timing.hpp"

namespace gs::model {

struct Cta;
struct Warp;

struct LoopPlan {
  uint32_t label = 0, back_edge = 0, counter = 0;
  bool k_loop = false;
  uint32_t period = 1;      // passes are skipped in whole multiples of this
  uint32_t first = 0;       // passes 0..first-1 run in full, the period before `first` timed
  uint32_t last = 0;        // at least this many passes run in full at the end
  uint32_t min_passes = 0;  // loops with fewer passes run in full
};

struct FastForwardPlan {
  std::vector<LoopPlan> loops;
  std::vector<uint32_t> loop_at;  // per instruction: the loop whose backward branch it is, or kNone
};

// The plan for a kernel: every declared counted loop, K loops with the period of the
// kernel's declared stages.
FastForwardPlan plan_fast_forward(const ir::Kernel& k);

// What a warp saw at a loop's backward branch the period before `first`.
struct LoopMark {
  uint64_t cycle = 0;
  timing::CtaCost cost;  // the CTA's counted work then: each part is extrapolated over the skip
  uint64_t loop_passes = 0;  // the passes every warp of the CTA had ended of this loop then
  uint32_t skips = 0;  // instances of the loop this warp fast-forwarded
  bool entered = false;  // this warp has ended a pass of the loop (counted in Cta::loop_warps)
};

// At the backward branch `pc` of a planned loop, before it runs: skips passes when this is
// the pass to skip at. Returns the cycles the warp's clock moves on (0: nothing skipped).
uint64_t fast_forward_at(Cta& c, Warp& w, uint32_t pc, uint32_t mask);

}  // namespace gs::model
