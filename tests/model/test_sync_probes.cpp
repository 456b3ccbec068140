// The synchronisation probes on the model (kernels/timing_probes_sync.cpp): a remote arrive's round
// trip and issue cost between the CTAs of a cluster, and an mbarrier hand-off inside a CTA, against
// the machine figures they measured (remote_arrive_latency, cluster_release_stall,
// mbarrier_wake_latency, mbarrier_wait_done_latency).
#include <catch2/catch.hpp>

#include "engine/model/timing.hpp"
#include "kernels/timing_probes.hpp"
#include "tests/model/probe_run.hpp"

using namespace gs;
using test::ProbeRun;
using test::run_probe;

TEST_CASE("probes: the model's hand-offs and remote arrives take the machine description's figures", "[model][timing]") {
  // The remote-arrive round trip: both CTAs of the cluster run, the token comes back each round.
  {
    const ProbeRun r = run_probe(kernels::build_remote_arrive_probe(64), 64);
    CHECK(r.field(0, 2) == 0);   // rank 0's record
    CHECK(r.field(32, 2) == 1);  // rank 1's
    // Two remote arrives a round, each reaching the peer remote_arrive cycles later and waking
    // its waiter mbarrier_wake cycles after that (probe remote_arrive_round_trip: 414.1 cycles on
    // the H100, 2026-11-28): the round trip is those figures and the loop's few instructions.
    const double round_trip = double(r.field(0, 0)) / 64;
    const model::timing::CtaFigures& f = model::timing::kH100Cta;
    CHECK(round_trip >= 2.0 * (f.remote_arrive + f.mbarrier_wake));
    CHECK(round_trip == Approx(414.1).epsilon(0.03));
  }
  // The same with .release.cluster arrives: each arrive waits for its fences first
  // (cluster_release_stall), so each half of the trip takes them too (probe
  // remote_arrive_round_trip_cluster_scope: 1893.2 cycles on the H100, 2026-11-28).
  {
    const ProbeRun r = run_probe(kernels::build_remote_arrive_probe(64, 0, true), 64);
    const double round_trip = double(r.field(0, 0)) / 64;
    const model::timing::CtaFigures& f = model::timing::kH100Cta;
    CHECK(round_trip >= 2.0 * (f.cluster_release_stall + f.remote_arrive + f.mbarrier_wake));
    CHECK(round_trip == Approx(1893.2).epsilon(0.1));
  }
  // A local hand-off, as step 13's consumers give a stage back: one thread or a warpgroup
  // arrives, a warp waiting on the barrier wakes mbarrier_wake cycles later, twice a round
  // (probe mbarrier_handoff_*: 124.07 cycles a round on the H200 either way, 2026-12-04).
  for (const uint32_t arrivals : {1u, 128u}) {
    INFO(arrivals << " arrivals");
    const uint32_t rounds = 64;
    const ProbeRun r = run_probe(kernels::build_mbarrier_handoff_probe(rounds, arrivals), 256);
    const double round = double(r.field(0, 0)) / rounds;
    CHECK(round >= 2.0 * model::timing::kH100Cta.mbarrier_wake);
    CHECK(round == Approx(124.07).epsilon(0.03));
  }
  // A wait on a phase that completed before it asked (a consumer's stage that landed long before)
  // answers later than a woken one: probe mbarrier_wait_done, 58.06 cycles a loop pass on the H100
  // with or without the suspend hint (2026-12-06), the wait's mbarrier_wait_done_latency and the
  // loop's few instructions; the hand-offs above, whose waits are woken, do not pay it.
  for (const uint32_t hint : {0u, 10'000'000u}) {
    INFO("hint " << hint);
    const uint32_t rounds = 64;
    const ProbeRun r = run_probe(kernels::build_mbarrier_wait_done_probe(rounds, hint), 128);
    const double each = double(r.field(0, 0)) / rounds;
    CHECK(each >= model::timing::kMbarrierWaitDoneLatency);
    CHECK(each == Approx(58.06).epsilon(0.03));
  }
  CHECK_THROWS(kernels::build_mbarrier_wait_done_probe(0, 0));
  CHECK_THROWS_WITH(kernels::build_mbarrier_handoff_probe(4, 129), Catch::Contains("got 4 rounds, 129 arrivals"));
  CHECK_THROWS(kernels::build_mbarrier_handoff_probe(0, 1));
  // What an arrive costs the warp that issues it: the .release.cluster form waits for the
  // GPU-wide memory barrier (machine figure cluster_release_stall, probe remote_arrive_issue_*:
  // 674 against 6 cycles on the H100), the default form does not.
  {
    const uint32_t n = 16;
    const ProbeRun plain = run_probe(kernels::build_remote_arrive_issue_probe(n, false), 64);
    const ProbeRun cluster = run_probe(kernels::build_remote_arrive_issue_probe(n, true), 64);
    const double plain_each = double(plain.field(0, 0)) / n, cluster_each = double(cluster.field(0, 0)) / n;
    CHECK(plain_each < 30);
    CHECK(cluster_each - plain_each == Approx(model::timing::kH100Cta.cluster_release_stall).margin(1.0));
    CHECK(cluster_each == Approx(674.1).epsilon(0.05));  // the H100's figure, 2026-11-28
  }
}
