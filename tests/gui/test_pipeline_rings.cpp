// The pipeline view's rings: the cp.async ring of the Ampere step 09 (each warp's groups in
// flight, the stage each fills, the wait that retires it) from the model's commit/wait records,
// and the TMA ring of the Hopper steps 13-16, whose full/empty phases must follow the ring's
// order for any stage count. Expected values come from the kernels' designs.
#include <catch2/catch.hpp>

#include <algorithm>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/cp_async_ring.hpp"
#include "gui/core/playback.hpp"
#include "gui/core/tma_pipeline_data.hpp"
#include "gui/core/view_data.hpp"
#include "kernels/registry.hpp"

using namespace gs;
using namespace gs::gui;
using model::EventKind;

namespace {

// The groups of one warp, in commit order.
std::vector<const CpAsyncGroup*> groups_of(const CpAsyncRing& ring, uint16_t warp) {
  std::vector<const CpAsyncGroup*> out;
  for (const CpAsyncGroup& g : ring.groups)
    if (g.warp == warp) out.push_back(&g);
  return out;
}

// Whether warp `warp` is released from an mbarrier wait later in the cycle of event `pos`.
bool released_in_same_cycle(const model::Trace& t, uint32_t pos, uint16_t warp) {
  for (uint32_t i = pos + 1; i < t.events.size() && t.events[i].cycle == t.events[pos].cycle; ++i)
    if (t.events[i].kind == EventKind::mbar_wait_released && t.events[i].warp == warp) return true;
  return false;
}

}  // namespace

TEST_CASE("cp.async ring: step 09's groups fill the two stages in turn and each wait retires the oldest",
          "[gui][tma][cp_async]") {
  // 128 x 128 x 96: 6 K steps of 16, two primed in the prologue, four prefetched.
  auto k = open_kernel({.kernel_id = "ampere_cp_async", .shape = {128, 128, 96}, .only_traced_cta = true});
  const CpAsyncRing& ring = cp_async_ring(k);
  CHECK(ring.stages == 2);
  const ir::Kernel& kernel = k->kernel();
  for (uint16_t w = 0; w < 4; ++w) {
    INFO("warp " << w);
    const std::vector<const CpAsyncGroup*> gs = groups_of(ring, w);
    REQUIRE(gs.size() == 6);
    for (uint32_t n = 0; n < gs.size(); ++n) {
      const CpAsyncGroup& g = *gs[n];
      CHECK(g.number == n);
      // Each group: one 16-byte copy of A and one of B per thread, into stage n mod 2.
      CHECK(g.copy_events.size() == 2);
      CHECK(g.bytes == 2 * 32 * 16);
      CHECK(g.stages_text == fmt::format("sA[{}] sB[{}]", n % 2, n % 2));
      REQUIRE(g.retire != kNone);
      CHECK(g.retire > g.commit);
      CHECK(kernel.insts[g.wait_inst].op == ir::Op::cp_async_wait_group);
    }
  }
  // Warp 0 at its first wait (wait_group 1): two groups in flight before it, one after.
  const std::vector<const CpAsyncGroup*> w0 = groups_of(ring, 0);
  const uint32_t first_wait = w0[0]->retire;
  const auto warp0_at = [&](uint32_t position) {
    for (const CpAsyncWarpAt& w : cp_async_ring_at(ring, position))
      if (w.warp == 0) return w;
    return CpAsyncWarpAt{};
  };
  CHECK(warp0_at(first_wait - 1).in_flight.size() == 2);
  const CpAsyncWarpAt after = warp0_at(first_wait);
  REQUIRE(after.in_flight.size() == 1);
  CHECK(ring.groups[after.in_flight[0]].number == 1);
  CHECK(after.retired == 1);
  // At the first copy, before any commit, the warp has one copy not yet committed.
  CHECK(warp0_at(w0[0]->copy_events[0]).uncommitted == 1);
  CHECK(warp0_at(w0[0]->copy_events[0]).in_flight.empty());
}

TEST_CASE("cp.async ring: with steady-state-wait-at-tail the last group is never waited for",
          "[gui][tma][cp_async]") {
  auto k = open_kernel({.kernel_id = "ampere_cp_async", .shape = {128, 128, 96},
                        .mistakes = {"steady-state-wait-at-tail"}, .only_traced_cta = true});
  const CpAsyncRing& ring = cp_async_ring(k);
  const std::vector<const CpAsyncGroup*> w0 = groups_of(ring, 0);
  REQUIRE(w0.size() == 6);
  CHECK(w0.back()->retire == kNone);
  for (size_t n = 0; n + 1 < w0.size(); ++n) CHECK(w0[n]->retire != kNone);
  // The state JSON shows it still in flight at the end.
  AppState app;
  app.set_kernel(k);
  app.seek(app.event_count() - 1);
  const nlohmann::json j = describe_views(app)["tma"];
  REQUIRE(j.contains("cp_async"));
  bool found = false;
  for (const auto& w : j["cp_async"]["warps"])
    if (w["warp"] == 0) {
      REQUIRE(w["in_flight"].size() == 1);
      CHECK(w["in_flight"][0]["number"] == 5);
      CHECK(w["in_flight"][0]["retired_by"].is_null());
      found = true;
    }
  CHECK(found);
}

TEST_CASE("cp.async ring: none in a kernel without cp.async", "[gui][tma][cp_async]") {
  auto k = open_kernel({.kernel_id = "simt_naive", .shape = {64, 64, 8}, .only_traced_cta = true});
  CHECK(cp_async_ring(k).groups.empty());
  AppState app;
  app.set_kernel(k);
  CHECK_FALSE(describe_views(app)["tma"].contains("cp_async"));
}

TEST_CASE("TMA ring: full and empty phases follow the ring for each Hopper stage count", "[gui][tma]") {
  const struct {
    const char* id;
    kernels::GemmShape shape;
  } cases[] = {{"hopper_producer_consumer", {128, 128, 640}},
               {"hopper_two_consumers", {256, 256, 512}},
               {"hopper_persistent", {256, 256, 256}},
               {"hopper_fewer_arrivals", {256, 256, 512}}};
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.id) {
      // The ring has the kernel's default stage count (a build parameter, moved by H100 sweeps).
      const kernels::ParamValues params = kernels::resolve_params(kernels::kernel_or_throw(c.id), {});
      REQUIRE(params.count("stages") == 1);
      const uint32_t stages = params.at("stages");
      auto k = open_kernel({.kernel_id = c.id, .shape = c.shape, .only_traced_cta = true});
      REQUIRE(k->trace().hazards.empty());
      PlaybackIndex index(k);
      const model::Trace& t = k->trace();
      // Every phase flip, and the events just before them, plus evenly spaced positions.
      std::vector<uint32_t> positions;
      for (uint32_t e : t.of_kind(EventKind::mbar_phase_flip)) positions.insert(positions.end(), {e - 1, e});
      for (uint32_t i = 0; i < 200; ++i) positions.push_back(uint32_t(uint64_t(t.events.size() - 1) * i / 199));
      uint64_t checked = 0;
      for (uint32_t pos : positions) {
        const TmaPipeline p = tma_pipeline(*k, index.at(pos));
        REQUIRE(p.stages.size() == stages);
        for (uint32_t s = 0; s < stages; ++s) {
          const StageView& st = p.stages[s];
          INFO("position " << pos << " stage " << s);
          CHECK(st.index == s);
          REQUIRE(st.full);
          REQUIRE(st.empty);
          // A stage is filled (full completes), then released (empty completes), in turn.
          CHECK(st.full->phase >= st.empty->phase);
          CHECK(st.full->phase <= st.empty->phase + 1);
          CHECK(st.full->parity == (st.full->phase & 1));
          // A blocked waiter waits for the phase in progress, or the phase it waits for has
          // just completed and its release follows in the same cycle.
          for (const BarrierView* b : {&*st.full, &*st.empty})
            for (const BarrierWaiter& w : b->waiters)
              if (w.parity != (b->phase & 1)) CHECK(released_in_same_cycle(t, pos, w.warp));
          ++checked;
        }
      }
      CHECK(checked >= 200 * stages);
      // At the end the ring went round evenly: stage s holds K-blocks s, s + S, ...
      const TmaPipeline end = tma_pipeline(*k, index.at(uint32_t(t.events.size() - 1)));
      uint32_t total = 0, most = 0, least = ~0u;
      for (const StageView& st : end.stages) {
        total += st.full->phase;
        most = std::max(most, st.full->phase);
        least = std::min(least, st.full->phase);
      }
      CHECK(most - least <= 1);
      CHECK(end.stages[0].full->phase == most);
      CHECK(total * 2 == t.tma.size() - std::count_if(t.tma.begin(), t.tma.end(), [](const auto& x) { return x.store; }));
    }
  }
}
