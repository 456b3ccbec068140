// Guided stops (gui/core/guided_stops.hpp): found from the model's trace events, so they move
// with the kernel, its shape and its mistakes; the Lesson view steps from one to the next.
#include <catch2/catch.hpp>

#include <algorithm>

#include "gui/core/guided_stops.hpp"
#include "gui/core/session.hpp"

using namespace gs::gui;
using gs::model::EventKind;

namespace {

const GuidedStop* stop_named(const std::vector<GuidedStop>& stops, const std::string& start) {
  for (const GuidedStop& s : stops)
    if (s.name.starts_with(start)) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("guided stops: step 13 stops at its first TMA load and where its ring wraps", "[gui][lesson][stops]") {
  const auto k = open_kernel({.kernel_id = "hopper_producer_consumer", .only_traced_cta = true});
  const std::vector<GuidedStop>& stops = step_stops(*k);
  REQUIRE(stops.size() >= 3);
  const auto& events = k->trace().events;
  const GuidedStop* tma = stop_named(stops, "the first TMA load is issued");
  REQUIRE(tma);
  CHECK(events[tma->event].kind == EventKind::tma_issue);
  // No TMA issue before it: the first one.
  for (uint32_t i = 0; i < tma->event; ++i) CHECK(events[i].kind != EventKind::tma_issue);
  const GuidedStop* wrap = stop_named(stops, "the ring wraps");
  REQUIRE(wrap);
  CHECK(events[wrap->event].kind == EventKind::mbar_phase_flip);
  CHECK(wrap->event > tma->event);
  // In event order, and stepping goes from one to the next.
  CHECK(std::is_sorted(stops.begin(), stops.end(),
                       [](const GuidedStop& a, const GuidedStop& b) { return a.event < b.event; }));
  CHECK(next_stop(stops, 0, true) == stops.front().event);
  CHECK(next_stop(stops, stops[0].event, true) == stops[1].event);
  CHECK(next_stop(stops, stops[1].event, false) == stops[0].event);
  CHECK_FALSE(next_stop(stops, stops.back().event, true));
}

TEST_CASE("guided stops: a mistake that causes bank conflicts adds the conflict stop", "[gui][lesson][stops]") {
  const auto plain = open_kernel({.kernel_id = "ampere_ldmatrix", .only_traced_cta = true});
  const auto broken =
      open_kernel({.kernel_id = "ampere_ldmatrix", .mistakes = {"unswizzled-ldmatrix"}, .only_traced_cta = true});
  CHECK_FALSE(stop_named(step_stops(*plain), "the first shared-memory bank conflict"));
  const GuidedStop* conflict = stop_named(step_stops(*broken), "the first shared-memory bank conflict");
  REQUIRE(conflict);
  const auto& e = broken->trace().events[conflict->event];
  REQUIRE(e.kind == EventKind::smem_access);
  CHECK(broken->trace().smem[e.payload].wavefronts > broken->trace().smem[e.payload].ideal_wavefronts);
}

TEST_CASE("guided stops: step 02's swapped mapping stops at its first uncoalesced access", "[gui][lesson][stops]") {
  const auto plain = open_kernel({.kernel_id = "simt_coalesced", .only_traced_cta = true});
  const auto swapped =
      open_kernel({.kernel_id = "simt_coalesced", .mistakes = {"swap-row-col"}, .only_traced_cta = true});
  const char* kName = "the first global access that fetches more sectors";
  CHECK_FALSE(stop_named(step_stops(*plain), kName));
  const GuidedStop* s = stop_named(step_stops(*swapped), kName);
  REQUIRE(s);
  CHECK(swapped->trace().events[s->event].kind == EventKind::global_access);
}

TEST_CASE("guided stops: a Blackwell step stops at its first tcgen05.mma and TMEM read", "[gui][lesson][stops]") {
  const auto k = open_kernel({.kernel_id = "blackwell_ws_ring", .only_traced_cta = true});
  const std::vector<GuidedStop>& stops = step_stops(*k);
  const GuidedStop* mma = stop_named(stops, "the first tcgen05.mma");
  const GuidedStop* read = stop_named(stops, "the epilogue first reads");
  REQUIRE(mma);
  REQUIRE(read);
  CHECK(mma->event < read->event);
  CHECK(k->trace().events[mma->event].kind == EventKind::tmem_op);
}
