// The grid of a launch, run CTA by CTA (cluster by cluster) on a pool of threads (grid.cpp).
// Internal to the model: simulate() calls it.
#pragma once

#include <span>

#include "engine/model/machine.hpp"

namespace gs::model {

// What every CTA of the launch shares: the kernel, its decoded program and its launch
// (parameters, global memory); each CTA gets its own copy of `launch` with its ids filled in.
struct GridLaunch {
  const ir::Kernel* kernel = nullptr;
  const Program* program = nullptr;
  const FastForwardPlan* fast_forward = nullptr;  // the kernel's loops (SimOptions::fast_forward)
  Launch launch;
  std::span<uint8_t> c;  // the C buffer, which the pool restores and rewrites (grid.cpp says when)
  // Kernels that use clusterlaunchcontrol: the CTAs the GPU runs at once (simulate.cpp: the
  // machine's SMs times the CTAs an SM holds, or SimOptions::resident_ctas). 0: no launch control.
  uint64_t resident = 0;
};

// Runs every CTA the options ask for (every CTA, or the traced one's cluster alone), the
// traced one recording into result.trace, and merges their statistics, hazards, tile visits
// and failure into `result` in grid order. With SimOptions::threads above 1 the CTAs (the
// clusters) run on that many threads and the result is the single-threaded run's, bit for
// bit: C included. Sets traced_cost to the traced CTA's cost.
void run_grid(const GridLaunch& g, const SimOptions& opt, SimResult& result, timing::CtaCost& traced_cost);

}  // namespace gs::model
