// The timing probes' list entry (bench/timing_probes.cpp builds the list; bench/timing_probes_sm.cpp
// adds the SM probes of the SIMT steps' main loops to it).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/ir/kernel.hpp"
#include "engine/model/model.hpp"
#include "engine/model/timing.hpp"

namespace gs::probe_list {

struct Probe {
  std::string name;     // "ffma_latency"
  std::string what;     // "FFMA dependent chain: cycles per instruction"
  std::string unit;     // "cycles", "warp-inst/cycle", "GB/s", "MHz"
  ir::Kernel kernel;
  model::GemmBuffers buffers;
  // The figure from C (per thread: cycles, start, value) and the launch's time in ms.
  std::function<double(const std::vector<uint8_t>& c, double ms)> figure;
  bool on_model = true;  // one CTA, small: also run on the model
  int timed_launches = 0;  // > 0: `ms` is the median of that many launches back to back (run_kernel_once)
  int idle_ms = 0;         // > 0: the card left idle this long first (the clock ramp's rows start from rest)
  // Where set, the model column is this figure of the model's run of the traced CTA alone (the
  // run then has only that CTA: SimOptions::only_traced_cta), instead of `figure` of its C.
  std::function<double(const model::SimResult& s, const model::timing::Machine& m)> model_figure;
  // Where set, buffers.a is made (a_bytes of a_value) only when the probe runs, and given back
  // after it: the list holds many footprints of up to a GiB, which would all be resident at once.
  size_t a_bytes = 0;
  uint8_t a_value = 0;
  // The same for buffers.c: where set, its zeros are made only when the probe runs (the C-tile
  // ring rows hold a 268-MB C each), and given back after it.
  size_t c_bytes = 0;
  // Where set, called just before the probe runs to make what its buffers hold that is big or
  // takes time to make (a pointer chase's cycle over a GiB, a GiB of random operands); buffers.a
  // and .b are given back after it. Made with the list, every probe's buffers were resident at
  // once: 8.0 GB and 39 s before the first probe ran on the development VM (2026-12-04).
  std::function<void(model::GemmBuffers&)> make_buffers;
};

// The copy-burst and outer-product probes (timing_probes_sm.cpp); q divides the counts (--quick).
void add_sm_probes(std::vector<Probe>& probes, uint32_t q);
// The probes of a GEMM wave's copies through L2 (timing_probes_l2.cpp).
void add_l2_gemm_probes(std::vector<Probe>& probes, uint32_t q);
// The probes of how far a warp's wgmma issue runs ahead of the tensor cores (timing_probes_wgmma.cpp).
void add_wgmma_issue_probes(std::vector<Probe>& probes, uint32_t q);
// The remote-arrive and mbarrier hand-off probes (timing_probes_sync.cpp).
void add_sync_probes(std::vector<Probe>& probes, uint32_t q);
// The stamped TMA probes: the spread of a loaded box's latency and a GEMM wave's own boxes
// (timing_probes_tma.cpp); quick: small footprints.
void add_stamped_tma_probes(std::vector<Probe>& probes, uint32_t q, bool quick);
// The SM clock under wgmma, alone and with TMA streaming, fresh and held at the power limit
// (timing_probes_clock.cpp); quick: small box counts.
void add_wgmma_clock_probes(std::vector<Probe>& probes, uint32_t q, bool quick);
// The SM clock under an Ampere main loop's parts, ldmatrix, mma.sync and cp.async, apart and
// together, held at the power limit (timing_probes_clock.cpp).
void add_fragment_clock_probes(std::vector<Probe>& probes, uint32_t q);

}  // namespace gs::probe_list
