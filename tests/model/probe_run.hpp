// A timing probe (kernels/timing_probes.hpp) run on the model, and its per-thread records of C,
// for the tests that set the model's figures against the probes' (test_timing_model.cpp,
// test_sync_probes.cpp).
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/model/model.hpp"
#include "kernels/timing_probes.hpp"

namespace gs::test {

// Per-thread records of C (cycles, start, value).
struct ProbeRun {
  std::vector<uint8_t> c;
  uint64_t field(uint32_t thread, uint32_t f) const {
    uint64_t v = 0;
    std::memcpy(&v, c.data() + size_t(thread) * kernels::kTimingOutBytes + 8 * f, 8);
    return v;
  }
  // The cycles from the first of `warps` warps' starts to the last one's end (lane 0 of each:
  // its start, field 1, and its cycles, field 0), as gemmscope_timing_probes' span_of_warps.
  uint64_t span_of_warps(uint32_t warps) const {
    uint64_t first = ~uint64_t(0), last = 0;
    for (uint32_t w = 0; w < warps; ++w) {
      first = std::min(first, field(32 * w, 1));
      last = std::max(last, field(32 * w, 1) + field(32 * w, 0));
    }
    return last - first;
  }
};

inline ProbeRun run_probe(const ir::Kernel& k, uint32_t threads, std::vector<uint8_t> a = {},
                          const model::timing::Machine* machine = nullptr) {
  model::GemmBuffers bufs;
  bufs.a = std::move(a);
  bufs.c.assign(size_t(threads) * kernels::kTimingOutBytes, 0);
  model::SimOptions opt;
  opt.trace = false;
  opt.machine = machine;
  const model::SimResult r = model::simulate(k, bufs, opt);
  REQUIRE(r.completed);
  return {bufs.c};
}

}  // namespace gs::test
