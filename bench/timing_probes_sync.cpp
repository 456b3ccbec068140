// The synchronisation probes for gemmscope_timing_probes (timing_probes.cpp): a remote arrive's
// round trip and issue cost between the two CTAs of a cluster, and an mbarrier hand-off inside a
// CTA (kernels/timing_probes_sync.cpp).
#include <string>

#include <fmt/format.h>

#include "bench/probe_figures.hpp"
#include "bench/probe_list.hpp"
#include "kernels/timing_probes.hpp"

namespace gs::probe_list {

using namespace gs::probe_figures;

void add_sync_probes(std::vector<Probe>& probes, uint32_t q) {
  for (const bool cluster_scope : {false, true})
    for (const uint32_t hint : {0u, 10'000'000u}) {
      // Two CTAs of a cluster pass a token back and forth through remote mbarrier arrives, as a
      // cluster step's consumers release a stage in their peer (step 17): one round trip a
      // round. The default arrive (release at CTA scope, as CUTLASS releases a stage) and the
      // .release.cluster one that steps 17-18 used until 2026-11-28.
      const uint32_t rounds = 4096 / q;
      const std::string scope = cluster_scope ? "_cluster_scope" : "";
      Probe p{(hint ? "remote_arrive_round_trip_hint" : "remote_arrive_round_trip") + scope,
              fmt::format("2-CTA cluster, mbarrier.arrive{}.shared::cluster on the peer's barrier and try_wait on its "
                          "own{}: cycles a round trip",
                          cluster_scope ? ".release.cluster" : "", hint ? " (suspend hint 10 ms, as steps 16-18)" : ""),
              "cycles", kernels::build_remote_arrive_probe(rounds, hint, cluster_scope), {}, nullptr, true};
      p.buffers.c.assign(2 * 32 * kernels::kTimingOutBytes, 0);
      p.figure = [rounds](const std::vector<uint8_t>& c, double) { return double(cycles_of(c)[0]) / rounds; };
      probes.push_back(std::move(p));
    }
  for (const bool cluster_scope : {false, true}) {
    const uint32_t arrives = 4096 / q;
    Probe p{std::string("remote_arrive_issue") + (cluster_scope ? "_cluster_scope" : ""),
            fmt::format("2-CTA cluster, one lane makes mbarrier.arrive{}.shared::cluster on the peer's barrier back to "
                        "back: the issuing warp's cycles per arrive",
                        cluster_scope ? ".release.cluster" : ""),
            "cycles", kernels::build_remote_arrive_issue_probe(arrives, cluster_scope), {}, nullptr, true};
    p.buffers.c.assign(2 * 32 * kernels::kTimingOutBytes, 0);
    p.figure = [arrives](const std::vector<uint8_t>& c, double) { return double(cycles_of(c)[0]) / arrives; };
    probes.push_back(std::move(p));
  }
  for (const uint32_t arrivals : {1u, 128u}) {
    // A stage given back inside the CTA as step 13's consumers give it (kernels::build_mbarrier_handoff_probe):
    // the time from an arrive to the warp waiting on it running again, twice a round.
    const uint32_t rounds = 4096 / q;
    Probe p{fmt::format("mbarrier_handoff_{}", arrivals),
            fmt::format("one CTA, two warpgroups: {} of the second arrive on an mbarrier, the first's thread 0 waits "
                        "on it and arrives on a second that the whole second warpgroup waits on: cycles a round (two "
                        "hand-offs)",
                        arrivals == 1 ? std::string("one thread") : fmt::format("all {} threads", arrivals)),
            "cycles", kernels::build_mbarrier_handoff_probe(rounds, arrivals), {}, nullptr, true};
    p.buffers.c.assign(256 * kernels::kTimingOutBytes, 0);
    p.figure = [rounds](const std::vector<uint8_t>& c, double) { return double(cycles_of(c)[0]) / rounds; };
    probes.push_back(std::move(p));
  }
  for (const uint32_t hint : {0u, 10'000'000u}) {
    // A consumer's full-barrier wait on a stage that landed long before (steps 15-19 wait about
    // 139 cycles a K block between their timeline's records, 2026-12-06): cycles a wait, the loop's
    // branch included.
    const uint32_t rounds = 4096 / q;
    Probe p{hint ? "mbarrier_wait_done_hint" : "mbarrier_wait_done",
            fmt::format("one warpgroup waits on an mbarrier whose phase completed before{}: cycles a wait",
                        hint ? " (suspend hint 10 ms, as steps 16-18)" : ""),
            "cycles", kernels::build_mbarrier_wait_done_probe(rounds, hint), {}, nullptr, true};
    p.buffers.c.assign(128 * kernels::kTimingOutBytes, 0);
    p.figure = [rounds](const std::vector<uint8_t>& c, double) { return double(cycles_of(c)[0]) / rounds; };
    probes.push_back(std::move(p));
  }
}

}  // namespace gs::probe_list
