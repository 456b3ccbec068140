// What the timing probes' figures read from C (bench/timing_probes.cpp): each thread's record is
// its timed cycles (field 0), its start (field 1) and a value (kernels::kTimingOutBytes a thread).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/timing_probes.hpp"

namespace gs::probe_figures {

// Per thread: the cycles of its timed region (field 0) or its start (field 1).
inline std::vector<uint64_t> field_of(const std::vector<uint8_t>& c, uint32_t field) {
  std::vector<uint64_t> out(c.size() / kernels::kTimingOutBytes);
  for (size_t i = 0; i < out.size(); ++i) std::memcpy(&out[i], c.data() + i * kernels::kTimingOutBytes + 8 * field, 8);
  return out;
}
inline std::vector<uint64_t> cycles_of(const std::vector<uint8_t>& c) { return field_of(c, 0); }
// A stamped TMA probe's rounds (kernels::build_tma_probe with stamp_rounds): each CTA's stamp
// i + 1 less stamp i (one SM's clock each), every CTA's rounds together, sorted.
inline std::vector<uint64_t> stamped_round_times(const std::vector<uint8_t>& c, uint32_t ctas, uint32_t rounds) {
  std::vector<uint64_t> out;
  const size_t base = size_t(ctas) * 32 * kernels::kTimingOutBytes;
  if (c.size() < base + size_t(ctas) * (rounds + 1) * 8) return out;
  out.reserve(size_t(ctas) * rounds);
  for (uint32_t cta = 0; cta < ctas; ++cta)
    for (uint32_t i = 0; i < rounds; ++i) {
      uint64_t t0 = 0, t1 = 0;
      std::memcpy(&t0, c.data() + base + (size_t(cta) * (rounds + 1) + i) * 8, 8);
      std::memcpy(&t1, c.data() + base + (size_t(cta) * (rounds + 1) + i + 1) * 8, 8);
      out.push_back(t1 - t0);
    }
  std::sort(out.begin(), out.end());
  return out;
}
// The value below which `share` (0..1) of the sorted values lie (nearest rank); 0 for none.
inline double sorted_percentile(const std::vector<uint64_t>& sorted, double share) {
  if (sorted.empty()) return 0.0;
  const size_t at = std::min(sorted.size() - 1, size_t(share * double(sorted.size())));
  return double(sorted[at]);
}

// Over `records` records of `slots` u64 stamps each (from byte `base` of C), the value of stamp
// `slot` below which `share` (0..1) of the records lie (nearest rank; build_copy_arrival_probe's);
// 0 where C is too short.
inline double stamp_percentile(const std::vector<uint8_t>& c, size_t base, size_t records, uint32_t slots,
                               uint32_t slot, double share) {
  if (records == 0 || c.size() < base + records * slots * 8) return 0.0;
  std::vector<uint64_t> v(records);
  for (size_t r = 0; r < records; ++r) std::memcpy(&v[r], c.data() + base + (r * slots + slot) * 8, 8);
  std::sort(v.begin(), v.end());
  return sorted_percentile(v, share);
}
// From the first warp's start to the last warp's end (one CTA: one SM's clock).
inline double span_of_warps(const std::vector<uint8_t>& c) {
  const std::vector<uint64_t> dt = field_of(c, 0), t0 = field_of(c, 1);
  uint64_t first = ~uint64_t(0), last = 0;
  for (size_t i = 0; i < dt.size(); i += 32) {
    first = std::min(first, t0[i]);
    last = std::max(last, t0[i] + dt[i]);
  }
  return last > first ? double(last - first) : 0.0;
}
// Each CTA's span (its first warp's start to its last warp's end, one SM's clock), averaged
// over the grid's CTAs of `threads` threads.
inline double mean_cta_span(const std::vector<uint8_t>& c, uint32_t threads) {
  const std::vector<uint64_t> dt = field_of(c, 0), t0 = field_of(c, 1);
  double sum = 0;
  size_t n = 0;
  for (size_t base = 0; base + threads <= dt.size(); base += threads, ++n) {
    uint64_t first = ~uint64_t(0), last = 0;
    for (size_t i = base; i < base + threads; i += 32) {
      first = std::min(first, t0[i]);
      last = std::max(last, t0[i] + dt[i]);
    }
    sum += last > first ? double(last - first) : 0.0;
  }
  return n ? sum / double(n) : 0.0;
}
inline double mean_of_warps(const std::vector<uint64_t>& cycles) {  // lane 0 of each warp
  double sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < cycles.size(); i += 32, ++n) sum += double(cycles[i]);
  return n ? sum / double(n) : 0.0;
}

// The SM clock in MHz: each CTA's span (its first warp's start to its last warp's end, on its
// SM's clock), averaged over the CTAs of `cta_threads` threads, over the launch's time.
inline double clock_mhz(const std::vector<uint8_t>& c, double ms, size_t cta_threads) {
  return mean_cta_span(c, uint32_t(cta_threads)) / (ms * 1e3);
}

}  // namespace gs::probe_figures
