// Guided stops (gui/core/guided_stops.hpp): each step declares the kinds it stops at
// (KernelInfo::stops, kernels/stops.def), and each is found from the model's trace events, so
// it moves with the shape and the mistakes; the transport steps from one to the next.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "gui/core/guided_stops.hpp"
#include "gui/core/playback.hpp"
#include "gui/core/session.hpp"

using namespace gs::gui;
using gs::kernels::StopKind;
using gs::model::EventKind;

namespace {

const GuidedStop* stop_of_kind(const std::vector<GuidedStop>& stops, StopKind kind) {
  for (const GuidedStop& s : stops)
    if (s.kind == kind) return &s;
  return nullptr;
}

// A second valid shape of the step, small: the example shape with K, M or N doubled, the first
// its shape rules take.
gs::kernels::GemmShape other_stop_shape(const gs::kernels::KernelInfo& info) {
  const gs::kernels::GemmShape e = info.example_shape;
  using gs::kernels::GemmShape;
  for (const GemmShape s : {GemmShape{e.m, e.n, 2 * e.k}, GemmShape{2 * e.m, e.n, e.k}, GemmShape{e.m, 2 * e.n, e.k}}) {
    try {
      gs::kernels::check_build_shape(info, s);
      return s;
    } catch (const gs::kernels::ConfigError&) {
    }
  }
  FAIL("no second shape for " << info.id);
  return e;
}

}  // namespace

TEST_CASE("stop kinds: each has a name, a label and a sentence, names unique", "[gui][lesson][stops]") {
  std::set<std::string_view> names;
  for (const auto& k : gs::kernels::stop_kinds()) {
    INFO(k.name);
    CHECK(names.insert(k.name).second);
    CHECK_FALSE(k.label.empty());
    CHECK(k.sentence.size() > 40);
    CHECK(gs::kernels::find_stop_kind(k.name) == k.kind);
  }
  CHECK_FALSE(gs::kernels::find_stop_kind("nope"));
}

TEST_CASE("guided stops: every step's every declared stop is found at two shapes", "[gui][lesson][stops]") {
  for (const gs::kernels::KernelInfo& info : gs::kernels::all_kernels()) {
    REQUIRE_FALSE(info.stops.empty());
    for (const gs::kernels::GemmShape shape : {info.example_shape, other_stop_shape(info)}) {
      INFO(info.id << " at " << shape.m << "x" << shape.n << "x" << shape.k);
      const auto k = open_kernel({.kernel_id = info.id, .shape = shape, .only_traced_cta = true});
      CHECK(step_stops_missing(*k) == std::vector<std::string>{});
      const std::vector<GuidedStop>& stops = step_stops(*k);
      size_t plain = 0;
      for (const gs::kernels::StepStop& d : info.stops) plain += d.mistake.empty();
      CHECK(stops.size() == plain);
      CHECK(std::is_sorted(stops.begin(), stops.end(),
                           [](const GuidedStop& a, const GuidedStop& b) { return a.event < b.event; }));
      for (const GuidedStop& s : stops) {
        INFO(s.name);
        REQUIRE(s.event < k->trace().events.size());
        CHECK(find_stop(*k, s.kind) == s.event);
        CHECK(s.sentence == gs::kernels::stop_kind_info(s.kind).sentence);
      }
    }
  }
}

TEST_CASE("guided stops: a stop a mistake declares shows with the mistake, not without", "[gui][lesson][stops]") {
  size_t checked = 0;
  for (const gs::kernels::KernelInfo& info : gs::kernels::all_kernels())
    for (const gs::kernels::StepStop& d : info.stops) {
      if (d.mistake.empty()) continue;
      INFO(info.id << " " << d.mistake << " " << gs::kernels::stop_kind_info(d.kind).name);
      const auto plain = open_kernel({.kernel_id = info.id, .only_traced_cta = true});
      const auto broken = open_kernel({.kernel_id = info.id, .mistakes = {d.mistake}, .only_traced_cta = true});
      CHECK_FALSE(find_stop(*plain, d.kind));
      CHECK_FALSE(stop_of_kind(step_stops(*plain), d.kind));
      const GuidedStop* s = stop_of_kind(step_stops(*broken), d.kind);
      REQUIRE(s);
      CHECK(s->mistake == d.mistake);
      CHECK(step_stops_missing(*broken).empty());
      ++checked;
    }
  CHECK(checked >= 2);
}

TEST_CASE("guided stops: each kind is the event it names", "[gui][lesson][stops]") {
  const auto k = open_kernel({.kernel_id = "hopper_producer_consumer", .only_traced_cta = true});
  const auto& t = k->trace();
  const GuidedStop* tma = stop_of_kind(step_stops(*k), StopKind::first_tma_load);
  REQUIRE(tma);
  CHECK(t.events[tma->event].kind == EventKind::tma_issue);
  for (uint32_t i = 0; i < tma->event; ++i) CHECK(t.events[i].kind != EventKind::tma_issue);  // the first
  const GuidedStop* wrap = stop_of_kind(step_stops(*k), StopKind::ring_wraps);
  REQUIRE(wrap);
  CHECK(t.events[wrap->event].kind == EventKind::mbar_phase_flip);
  CHECK(wrap->event > tma->event);
  const GuidedStop* drain = stop_of_kind(step_stops(*k), StopKind::pipeline_drains);
  REQUIRE(drain);
  CHECK(t.events[drain->event].kind == EventKind::tma_complete);
  for (uint32_t i = drain->event + 1; i < t.events.size(); ++i)  // the last load to land
    CHECK_FALSE((t.events[i].kind == EventKind::tma_complete && !t.tma[t.events[i].payload].store));

  const auto swapped =
      open_kernel({.kernel_id = "simt_coalesced", .mistakes = {"swap-row-col"}, .only_traced_cta = true});
  const GuidedStop* un = stop_of_kind(step_stops(*swapped), StopKind::uncoalesced);
  REQUIRE(un);
  CHECK(swapped->trace().events[un->event].kind == EventKind::global_access);

  const auto ring = open_kernel({.kernel_id = "blackwell_ws_ring", .only_traced_cta = true});
  const GuidedStop* mma = stop_of_kind(step_stops(*ring), StopKind::tcgen05_mma);
  const GuidedStop* read = stop_of_kind(step_stops(*ring), StopKind::tmem_read);
  REQUIRE(mma);
  REQUIRE(read);
  CHECK(mma->event < read->event);
  CHECK(ring->trace().events[mma->event].kind == EventKind::tmem_op);
}

TEST_CASE("transport: stepping by stop visits the step's stops in order, both ways", "[gui][lesson][stops]") {
  const auto k = open_kernel({.kernel_id = "hopper_cluster_multicast", .only_traced_cta = true});
  const std::vector<GuidedStop>& stops = step_stops(*k);
  REQUIRE(stops.size() >= 3);
  uint32_t pos = 0;
  for (const GuidedStop& s : stops) {
    const std::optional<uint32_t> next = step(*k, pos, StepUnit::stop, true);
    REQUIRE(next);
    CHECK(*next == s.event);
    CHECK(stop_at(stops, *next) == &s);
    pos = *next;
  }
  CHECK_FALSE(step(*k, pos, StepUnit::stop, true));
  for (size_t i = stops.size() - 1; i-- > 0;) {
    const std::optional<uint32_t> back = step(*k, pos, StepUnit::stop, false);
    REQUIRE(back);
    CHECK(*back == stops[i].event);
    pos = *back;
  }
  CHECK_FALSE(step(*k, pos, StepUnit::stop, false));
  CHECK(std::string(step_unit_name(StepUnit::stop)) == "stop");
  CHECK(stop_at(stops, stops.front().event - 1) == nullptr);
}
