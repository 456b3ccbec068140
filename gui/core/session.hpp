// A kernel opened in the app: built, printed as PTX, and one CTA traced on the model. Immutable
// once loaded; every view reads it through a shared_ptr<const LoadedKernel> and a playback
// position (gui/core/playback.hpp). No ImGui here: tests and the headless dump use it directly.
//
//   auto k = gui::open_kernel({.kernel_id = info.id, .shape = {128, 128, 4096}, .only_traced_cta = true});
//   k->ptx.inst_to_line[17];        // the PTX line of instruction 17
//   k->trace().events.size();       // what the model recorded for CTA (0,0)
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <typeindex>
#include <vector>

#include "engine/ir/kernel.hpp"
#include "engine/model/trace.hpp"
#include "engine/ptx/emit.hpp"
#include "run/sim_job.hpp"
#include "kernels/registry.hpp"

namespace gs::gui {

using ir::kNone;
using model::kNoWarp;


// A loop over K the kernel declared (Builder::k_loop) as the transport sees it: the instruction
// that starts each pass (the target of its backward branch), so "step one K iteration" can jump
// to it and "K iteration i of n" can count the passes.
struct LoopInfo {
  uint32_t head = kNone;    // first instruction of the body
  uint32_t branch = kNone;  // the backward branch
};

struct LoadedKernel {
  run::SimRequest request;               // what was opened (no progress or cancel hooks)
  const kernels::KernelInfo* info = nullptr;
  run::SimReport report;                 // the kernel as built, stats, hazards, the trace
  ptx::PtxModule ptx;                    // text, line <-> instruction maps, register names
  std::vector<std::string> ptx_lines;    // ptx.text split into lines (no newlines)
  std::vector<std::string> inst_text;    // [instruction id] -> one line of PTX
  std::vector<LoopInfo> k_loops;         // the declared K loops (find_k_loops), in program order
  // [trace warp] the events where it starts a pass of any K loop, in trace order.
  std::vector<std::vector<uint32_t>> k_pass_events;
  bool is_k_loop_head(uint32_t inst) const {
    for (const LoopInfo& l : k_loops)
      if (l.head == inst) return true;
    return false;
  }
  // The passes of K loops warp `warp` starts in the whole trace (0 when it runs none).
  uint32_t k_passes(uint16_t warp) const { return warp < k_pass_events.size() ? uint32_t(k_pass_events[warp].size()) : 0; }
  // [trace warp] the K iterations fast-forward skipped for it (model/fast_forward.hpp), in trace
  // order, numbered over the whole CTA: a skip of a K loop's passes, and a skip of an outer
  // loop's passes (a persistent CTA's tiles) with the K iterations those passes hold.
  struct KSkip {
    uint32_t event = 0;         // the fast_forward event
    uint32_t first = 0;         // the first K iteration skipped (1-based, whole CTA)
    uint32_t count = 0;         // K iterations skipped
  };
  std::vector<std::vector<KSkip>> k_skips;
  // The K iterations warp `warp` does in the whole CTA: those traced and those skipped.
  uint32_t k_iterations(uint16_t warp) const;
  // Of those, the ones done up to and including trace event `position`, given the traced passes
  // a snapshot there counts (Snapshot's k_passes).
  uint32_t k_iterations_at(uint16_t warp, uint32_t position, uint32_t traced_passes) const;
  // The warp whose K iterations the transport counts and steps by: `preferred` (warp 0 for
  // kNoWarp) when it runs a K loop, else the lowest warp that does (a producer/consumer
  // kernel's warp 0 may run none); kNoWarp when no warp does.
  uint16_t k_warp(uint16_t preferred) const {
    if (preferred == kNoWarp) preferred = 0;
    if (k_passes(preferred) > 0) return preferred;
    for (size_t w = 0; w < k_pass_events.size(); ++w)
      if (!k_pass_events[w].empty()) return uint16_t(w);
    return kNoWarp;
  }
  double open_seconds = 0.0;             // build + PTX + model, wall time

  const ir::Kernel& kernel() const { return report.kernel; }
  const model::Trace& trace() const { return report.result.trace; }
  bool whole_grid() const { return !request.only_traced_cta; }
  // The instruction's PTX line (1-based), 0 when it has none.
  uint32_t line_of(uint32_t inst) const;
  // The instruction printed on a PTX line (1-based), kNone for other lines.
  uint32_t inst_of_line(uint32_t line) const;

  // Data the views derive from the kernel once, on first use (kernel_cache.hpp), one slot per
  // derived type. It lives and dies with the kernel. Filled and read on the UI thread only.
  mutable std::map<std::type_index, std::shared_ptr<const void>> derived;
};

// Builds, prints and runs the kernel on the model. Throws kernels::ConfigError (bad id, shape,
// mistake, CTA) or model::ModelError with a message that names the bad value. Never returns
// null. progress/cancel are passed to the model (cancelled: the result says so).
// The request's trace is always on; its progress and cancel are replaced by these.
std::shared_ptr<const LoadedKernel> open_kernel(const run::SimRequest& request,
                                                std::function<void(uint64_t, uint64_t)> progress = {},
                                                const std::atomic<bool>* cancel = nullptr);

// The K loops the kernel declared (labels with LabelInfo::k_loop and the backward branch to
// them), in program order: a producer's loop over K and a consumer's are both K loops.
std::vector<LoopInfo> find_k_loops(const ir::Kernel& kernel);

}  // namespace gs::gui
