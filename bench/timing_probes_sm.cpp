// The SM probes of the SIMT steps' main loops for gemmscope_timing_probes (timing_probes.cpp):
// a K loop's copy as a burst of global loads from every SM at once, and an outer product's FFMAs.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "bench/probe_figures.hpp"
#include "bench/probe_list.hpp"
#include "kernels/timing_probes.hpp"

namespace gs::probe_list {

using namespace gs::probe_figures;

void add_sm_probes(std::vector<Probe>& probes, uint32_t q) {
  // A K loop's copy from every SM at once, against one SM alone (probes the SIMT steps' loads under
  // a wave: step 07's warps wait on them 18% of their cycles, docs/results/2026-12-03-source), from L2
  // (an 8-MiB footprint) and from HBM (every chunk once); and an outer product's FFMAs alone.
  // Then by warps and loads a thread (132 CTAs, L2): what the round's time follows.
  // copy_trip_*: the same rounds with a bar.sync between the loads and the stores (one_trip): one
  // trip to L2 a round whatever order ptxas gives the stores, so the round's time is the latency and
  // the rate the SM's L1 is filled at, by warps and loads a thread (step 07 copies as 4 warps of 8
  // loads, two CTAs an SM: copy_trip_4w_8x16_264ctas).
  struct Burst {
    uint32_t ctas, warps, loads;
    bool hbm = false, one_trip = false;
  };
  for (const auto& [ctas, warps, loads, hbm, one_trip] :
       {Burst{1, 4, 8}, Burst{132, 4, 8}, Burst{264, 4, 8}, Burst{132, 4, 8, true}, Burst{264, 4, 8, true},
        Burst{132, 4, 1}, Burst{132, 4, 2}, Burst{132, 4, 4}, Burst{132, 4, 16}, Burst{132, 8, 8}, Burst{132, 16, 4},
        Burst{132, 16, 8}, Burst{132, 1, 8}, Burst{1, 4, 8, false, true}, Burst{132, 1, 8, false, true},
        Burst{132, 4, 2, false, true}, Burst{132, 4, 4, false, true}, Burst{132, 4, 8, false, true},
        Burst{132, 4, 16, false, true}, Burst{132, 8, 8, false, true}, Burst{132, 16, 8, false, true},
        Burst{264, 4, 8, false, true}}) {
    const uint32_t rounds = 64 / q, threads = 32 * warps;
    const uint64_t chunk = uint64_t(threads) * loads * 16, footprint = hbm ? chunk * ctas * rounds : 8u << 20;
    Probe p{one_trip                       ? fmt::format("copy_trip_{}w_{}x16_{}ctas", warps, loads, ctas)
            : warps == 4 && loads == 8 ? fmt::format("copy_burst_{}ctas{}", ctas, hbm ? "_hbm" : "")
                                       : fmt::format("copy_burst_{}w_{}x16_{}ctas", warps, loads, ctas),
            fmt::format("{} CTAs ({} an SM) of {} warps, rounds of {} ld.global.v4 a thread ({} KiB a CTA) from {}, "
                        "{}st.shared, bar.sync: cycles a round",
                        ctas, ctas > 132 ? 2 : 1, warps, loads, chunk / 1024,
                        hbm ? "HBM (each chunk once)" : "L2 (8-MiB footprint)", one_trip ? "bar.sync, " : ""),
            "cycles", kernels::build_copy_burst_probe(ctas, warps, ctas > 132 ? 100 * 1024 : 150 * 1024, loads, rounds,
                                                      footprint, one_trip),
            {}, nullptr, true};
    p.a_bytes = footprint;  // made when it runs (Probe::a_bytes)
    p.buffers.c.assign(size_t(ctas) * threads * kernels::kTimingOutBytes, 0);
    p.figure = [threads, rounds](const std::vector<uint8_t>& c, double) { return mean_cta_span(c, threads) / rounds; };
    p.model_figure = [rounds](const model::SimResult& s, const model::timing::Machine&) {
      return double(s.stats.traced_cta_cycles) / rounds;
    };
    probes.push_back(std::move(p));
  }
  // When a one-trip round's loads come back (build_copy_arrival_probe): a row a load, the median over
  // every warp of the grid of the cycles from the round's first load to that load's data (and every
  // one before it) in: one warp and four of 8 loads (4 and 16 KiB a CTA), four of 16.
  // Then the last load's spread over the warps (a median hides a tail of slow lines) and the round's
  // own length (each CTA's span over its rounds, as copy_trip_*'s figure), each also `_warm`: the
  // records of a third launch back to back. The other rows read the one launch after A's upload,
  // whose chunks every CTA reads once (the CTAs that share a chunk read it in the same round):
  // whatever of the 8 MiB the upload did not leave in L2 comes from HBM (Nsight Compute counted
  // 81.5% of the burst's sectors hitting L2, docs/results/2026-12-03-source); after two launches
  // the footprint is in L2.
  using Figure = std::function<double(const std::vector<uint8_t>&, double)>;
  for (const auto& [warps, loads] : {std::pair{1u, 8u}, {4u, 8u}, {4u, 16u}}) {
    const uint32_t ctas = 132, rounds = 64 / q, threads = 32 * warps;
    const size_t records = size_t(ctas) * threads * kernels::kTimingOutBytes, stamped = size_t(ctas) * warps;
    const ir::Kernel kernel = kernels::build_copy_arrival_probe(ctas, warps, loads, rounds);
    const auto row = [&](std::string name, std::string what, bool warm, Figure figure) {
      Probe p{std::move(name), std::move(what), "cycles", kernel, {}, nullptr, true};
      p.a_bytes = 8u << 20;
      p.timed_launches = warm ? 2 : 0;
      p.buffers.c.assign(records + stamped * loads * 8, 0);
      p.figure = std::move(figure);
      probes.push_back(std::move(p));
    };
    const auto stamp_at = [=](uint32_t slot, double share) {
      return [=](const std::vector<uint8_t>& c, double) {
        return stamp_percentile(c, records, stamped, loads, slot, share);
      };
    };
    for (uint32_t u = 0; u < loads; ++u)
      row(fmt::format("copy_arrive_{}w_{}x16_l{}", warps, loads, u + 1),
          fmt::format("132 CTAs (1 an SM) of {} warps, one-trip rounds of {} ld.global.v4 a thread from L2: cycles "
                      "from a round's first load until its loads 1..{} are in (median warp)",
                      warps, loads, u + 1),
          false, stamp_at(u, 0.5));
    for (const bool warm : {false, true}) {
      const std::string suffix = warm ? "_warm" : "", launch = warm ? ", the third launch back to back (A in L2)" : "";
      // Cold, the median is the l{loads} row above.
      const std::vector<std::pair<std::string, double>> tails =
          warm ? std::vector<std::pair<std::string, double>>{{"p10", 0.1}, {"p50", 0.5}, {"p90", 0.9}, {"max", 1.0}}
               : std::vector<std::pair<std::string, double>>{{"p10", 0.1}, {"p90", 0.9}, {"max", 1.0}};
      for (const auto& [tag, share] : tails)
        row(fmt::format("copy_arrive_{}w_{}x16_l{}_{}{}", warps, loads, loads, tag, suffix),
            fmt::format("the same, loads 1..{} in: the {} warp{}", loads, tag, launch), warm,
            stamp_at(loads - 1, share));
      row(fmt::format("copy_arrive_{}w_{}x16_round{}", warps, loads, suffix),
          fmt::format("the same: cycles a round (each CTA's span over its rounds){}", launch), warm,
          [threads, rounds](const std::vector<uint8_t>& c, double) { return mean_cta_span(c, threads) / rounds; });
    }
  }
  for (const uint32_t warps : {4u, 8u}) {
    const uint32_t reps = 256 / q;
    Probe p{fmt::format("outer_8x8_{}warps", warps),
            fmt::format("FFMA outer product 8 x 8 from registers (step 05's), {} warps: warp-FFMA per cycle of the SM",
                        warps),
            "warp-inst/cycle", kernels::build_outer_product_probe(warps, 8, 8, reps), {}, nullptr, true};
    p.buffers.c.assign(size_t(warps) * 32 * kernels::kTimingOutBytes, 0);
    const double ffma = double(warps) * 64 * reps;
    p.figure = [ffma](const std::vector<uint8_t>& c, double) { return ffma / span_of_warps(c); };
    probes.push_back(std::move(p));
  }
  // The same with step 07's register tile (8 x 16) and its body unrolled `unroll` times a pass: a
  // pass of 1 is 2 KiB of SASS, one of 16 (2048 FFMA, step 07's K block) 33 KiB, one of 32 66
  // KiB. Does the issue rate fall once a loop outgrows the instructions a scheduler keeps near it
  // (step 07, the one loop of the ladder past 12 KiB, runs 7% more cycles than the model gives it)?
  for (const auto& [warps, unroll] : {std::pair{8u, 1u}, {8u, 2u}, {8u, 4u}, {8u, 8u}, {8u, 12u}, {8u, 16u},
                                      {8u, 32u}, {4u, 1u}, {4u, 16u}}) {
    const uint32_t passes = std::max(1u, 1024 / unroll / q);
    Probe p{fmt::format("outer_8x16_{}warps_u{}", warps, unroll),
            fmt::format("FFMA outer product 8 x 16 from registers (step 07's tile), {} warps, {} copies a loop pass: "
                        "warp-FFMA per cycle of the SM",
                        warps, unroll),
            "warp-inst/cycle", kernels::build_outer_product_probe(warps, 8, 16, passes, unroll), {}, nullptr, true};
    p.buffers.c.assign(size_t(warps) * 32 * kernels::kTimingOutBytes, 0);
    const double ffma = double(warps) * 128 * passes * unroll;
    p.figure = [ffma](const std::vector<uint8_t>& c, double) { return ffma / span_of_warps(c); };
    probes.push_back(std::move(p));
  }
}

}  // namespace gs::probe_list
