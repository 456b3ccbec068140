// Tests for gui/core/tma_pipeline_data: the stages, barriers and transfers of the Hopper kernel's TMA
// pipeline at chosen playback positions. Expected values come from the kernel's design
// (kernels/05: one stage, one full barrier with one arrival per phase, two 8 KiB boxes per
// K-block, 16 KiB expected per phase), not from the code under test.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "tests/gui/gui_fixture.hpp"
#include "gui/core/playback.hpp"
#include "gui/core/tma_pipeline_data.hpp"
#include "gui/core/view_data.hpp"

using namespace gs;
using namespace gs::gui;
using model::EventKind;

namespace {

std::shared_ptr<const LoadedKernel> open_hopper() { return test::hopper_kernel(); }

}  // namespace

TEST_CASE("TMA pipeline of the Hopper kernel: one stage, its barrier, its transfers", "[gui]") {
  auto k = open_hopper();
  PlaybackIndex index(k);
  const model::Trace& t = k->trace();
  const auto& issues = t.of_kind(EventKind::tma_issue);
  const auto& completes = t.of_kind(EventKind::tma_complete);
  const auto& flips = t.of_kind(EventKind::mbar_phase_flip);
  REQUIRE(issues.size() >= 2);
  REQUIRE(!completes.empty());
  REQUIRE(!flips.empty());
  const uint32_t kblocks = k->request.shape.k / 64;
  CHECK(t.tma.size() == 2 * kblocks);  // A and B per K-block

  // Before anything: one stage (one "full" barrier allocation of 8 bytes), not initialised.
  TmaPipeline p0 = tma_pipeline(*k, index.at(0));
  REQUIRE(p0.stages.size() == 1);
  REQUIRE(p0.stages[0].full.has_value());
  CHECK(!p0.stages[0].empty.has_value());
  CHECK(p0.stages[0].full->name == "full");
  CHECK(p0.in_flight == 0);
  CHECK(p0.completed == 0);

  // Right after the first issue: that transfer is in flight into the stage.
  TmaPipeline p1 = tma_pipeline(*k, index.at(issues[0]));
  CHECK(p1.in_flight == 1);
  REQUIRE(p1.stages[0].in_flight.size() == 1);
  const TransferView& first = p1.transfers[p1.stages[0].in_flight[0]];
  CHECK(first.bytes == 64 * 64 * 2);
  CHECK(first.swizzle == "128B");
  CHECK(first.state == TransferState::in_flight);
  CHECK(first.stage == 0);
  CHECK((first.dst_name == "sA" || first.dst_name == "sB"));
  CHECK(first.issue_cycle <= first.complete_cycle);
  // The barrier expects one arrival (the leader's expect_tx) and 16 KiB this phase.
  CHECK(p1.stages[0].full->expected == 1);
  CHECK(p1.stages[0].full->phase == 0);
  CHECK(p1.stages[0].full->tx_count == 2 * 64 * 64 * 2);

  // After the first tma_complete the transfer is done and no longer in flight.
  TmaPipeline p2 = tma_pipeline(*k, index.at(completes[0]));
  CHECK(p2.completed >= 1);
  CHECK(p2.transfers[t.events[completes[0]].payload].state == TransferState::done);

  // Once both boxes of K-block 0 have landed, the phase flips: phase 1, parity 1, tx 0.
  const TmaPipeline before = tma_pipeline(*k, index.at(flips[0] - 1));
  CHECK(before.stages[0].full->phase == 0);
  const TmaPipeline after = tma_pipeline(*k, index.at(flips[0]));
  const BarrierView& full = *after.stages[0].full;
  CHECK(full.phase == 1);
  CHECK(full.parity == 1);
  CHECK(full.tx_count == 0);
  CHECK(full.pending_arrivals == full.expected);  // re-armed for the next phase
  CHECK(after.stages[0].completed == 2);
  CHECK(after.stages[0].in_flight.empty());
  CHECK(after.stages[0].tiles.size() == 2);

  // At the end every transfer is done.
  const TmaPipeline end = tma_pipeline(*k, index.at(uint32_t(t.events.size() - 1)));
  CHECK(end.completed == t.tma.size());
  CHECK(end.stages[0].full->phase == kblocks);
}

TEST_CASE("TMA pipeline lists the warps waiting on the barrier with their parity", "[gui]") {
  auto k = open_hopper();
  PlaybackIndex index(k);
  const model::Trace& t = k->trace();
  const auto& blocked = t.of_kind(EventKind::mbar_wait_blocked);
  REQUIRE(!blocked.empty());
  const model::Event& e = t.events[blocked.front()];
  const TmaPipeline p = tma_pipeline(*k, index.at(blocked.front()));
  const BarrierView& full = *p.stages[0].full;
  bool found = false;
  for (const BarrierWaiter& w : full.waiters)
    if (w.warp == e.warp) {
      found = true;
      // K-block 0 waits for the first phase to complete: parity 0.
      CHECK(w.parity == 0);
    }
  CHECK(found);
}

TEST_CASE("describe_tma_pipeline", "[gui]") {
  AppState app;
  app.set_kernel(open_hopper());
  const auto& issues = app.kernel->trace().of_kind(EventKind::tma_issue);
  REQUIRE(!issues.empty());
  app.seek(issues.front());
  app.selection.tma = app.kernel->trace().events[issues.front()].payload;
  const nlohmann::json j = describe_tma_pipeline(app);
  REQUIRE(j["stages"].size() == 1);
  CHECK(j["stages"][0]["full_barrier"]["expected"] == 1);
  CHECK(j["transfers_in_flight"] == 1);
  CHECK(j["stages"][0]["in_flight"].size() == 1);
  CHECK(j["selected_tma"]["state"] == "in flight");
}

TEST_CASE("tma: transfers of one map in flight at once get rows of their own in the timeline", "[gui][tma]") {
  // Step 13's ring keeps several stages' loads of each map in flight together: drawn in one
  // row per map they covered each other (and the coordinates written in them).
  auto k = open_kernel({.kernel_id = "hopper_producer_consumer", .only_traced_cta = true});
  AppState app;
  app.set_kernel(k);
  const TmaPipeline p = tma_pipeline(*k, *app.snapshot());
  REQUIRE(p.transfers.size() > 4);
  REQUIRE(p.lanes.size() == p.lane_rows.size());
  CHECK(p.lanes.size() == 2);  // tmap_A, tmap_B
  uint32_t most_rows = 0;
  for (uint32_t r : p.lane_rows) most_rows = std::max(most_rows, r);
  CHECK(most_rows > 1);
  for (size_t i = 0; i < p.transfers.size(); ++i) {
    const TransferView& a = p.transfers[i];
    CHECK(p.lanes[a.lane] == a.map);
    CHECK(a.row < p.lane_rows[a.lane]);
    for (size_t j = i + 1; j < p.transfers.size(); ++j) {
      const TransferView& b = p.transfers[j];
      if (a.lane != b.lane || a.row != b.row) continue;
      INFO("transfers " << a.index << " and " << b.index);
      const uint64_t a_end = std::max(a.complete_cycle, a.issue_cycle + 1), b_end = std::max(b.complete_cycle, b.issue_cycle + 1);
      CHECK((a_end <= b.issue_cycle || b_end <= a.issue_cycle));
    }
  }
}

TEST_CASE("tma: a traced cluster has a ring per CTA, and a multicast fills the stage of each", "[gui][tma][cluster]") {
  // Step 17 at its example shape (256x512x512): a pair, 8 K-blocks around a 3-stage ring, so
  // stages 0 and 1 complete three phases and stage 2 two, in each CTA. Each CTA's stage takes
  // its own A box and both CTAs' slices of B (each slice multicast into both).
  auto k = open_kernel({.kernel_id = "hopper_cluster_multicast", .only_traced_cta = true});
  REQUIRE(k->trace().ctas.size() == 2);
  PlaybackIndex index(k);
  const TmaPipeline p = tma_pipeline(*k, index.at(uint32_t(k->trace().events.size() - 1)));
  CHECK(p.ctas == 2);
  REQUIRE(p.stages.size() == 6);
  const uint32_t phases[3] = {3, 3, 2};
  for (const StageView& st : p.stages) {
    INFO("rank " << st.cta << " stage " << st.index);
    CHECK(st.cta == (&st - p.stages.data()) / 3);
    REQUIRE(st.full);
    REQUIRE(st.empty);
    CHECK(st.full->flips == phases[st.index]);   // this CTA's barrier only, not both CTAs' events
    CHECK(st.empty->flips == phases[st.index]);
    CHECK(st.empty->expected == 16);              // 8 consumer warps of each CTA release it
    CHECK(st.completed == 3 * phases[st.index]);  // its A box and two slices of B per phase
  }
  uint32_t multicasts = 0;
  for (const TransferView& v : p.transfers) {
    if (v.map != "tmap_B") continue;
    ++multicasts;
    CHECK(v.cta_mask == 3);
    CHECK(v.ctas_text == fmt::format("rank {} -> ranks 0, 1", v.cta));
  }
  CHECK(multicasts == 2 * 8);
  const nlohmann::json j = tma_pipeline_json(p);
  CHECK(j["ctas"] == 2);
  CHECK(j["stages"][4]["cta"] == 1);
}

TEST_CASE("tma: a warp of the second CTA waits on its own CTA's barrier", "[gui][tma][cluster]") {
  auto k = open_kernel({.kernel_id = "hopper_cluster_multicast", .only_traced_cta = true});
  PlaybackIndex index(k);
  const model::Trace& t = k->trace();
  bool seen = false;
  for (uint32_t e : t.of_kind(EventKind::mbar_wait_blocked)) {
    if (t.events[e].cta != 1) continue;
    const TmaPipeline p = tma_pipeline(*k, index.at(e));
    for (const StageView& st : p.stages)
      for (const std::optional<BarrierView>& b : {st.full, st.empty})
        for (const BarrierWaiter& w : b->waiters) {
          CHECK(w.warp / t.warps_per_cta == st.cta);
          seen = seen || st.cta == 1;
        }
    if (seen) break;
  }
  CHECK(seen);
}
