// The timeline document (run/timeline_doc, run/timeline_stats, run/timeline_model): the model's
// timeline of a step, its JSON read back as written, the Chrome trace's spans, the figures, and
// malformed files refused with what is wrong.
#include <catch2/catch.hpp>

#include "run/timeline_doc.hpp"
#include "run/timeline_model.hpp"
#include "run/timeline_stats.hpp"

using namespace gs;

namespace {

const run::TimelineDoc& model_doc() {
  static const run::TimelineDoc doc = run::model_timeline("hopper_producer_consumer", {}, {}, {});
  return doc;
}

}  // namespace

TEST_CASE("timeline doc: the model's timeline of step 13 has every warp, roles and K passes", "[timeline]") {
  const run::TimelineDoc& d = model_doc();
  CHECK(d.source == "model");
  CHECK(d.warnings.empty());
  REQUIRE(d.warps.size() == d.layout.warps_per_cta);
  const std::vector<run::WarpSummary> warps = run::warp_summaries(d);
  size_t producers = 0, consumers = 0;
  for (const run::WarpSummary& w : warps) {
    producers += w.role == "producer";
    consumers += w.role.find("consumer") != std::string::npos;
    if (w.role != "none") CHECK(w.k_passes > 0);
  }
  CHECK(producers >= 1);
  CHECK(consumers >= 1);
  const run::TimelineStats s = run::kernel_stats(d);
  CHECK(s.k_period.known());
  CHECK(s.tma_issue_to_land.known());
  CHECK(s.k_period.ns == Approx(s.k_period.cycles / d.clock_ghz));
}

TEST_CASE("timeline doc: JSON reads back as written", "[timeline]") {
  run::TimelineDoc d = model_doc();
  d.plain_ms = 1.5;
  d.instrumented_ms = 1.53;
  d.c_identical = true;
  const run::TimelineDoc back = run::timeline_from_json(nlohmann::json::parse(run::timeline_json(d).dump()));
  CHECK(back.kernel_id == d.kernel_id);
  CHECK(back.events.size() == d.events.size());
  CHECK(back.warps.size() == d.warps.size());
  CHECK(back.slowdown().value() == Approx(0.02));
  CHECK(back.c_identical == std::optional<bool>(true));
  for (size_t i = 0; i < d.events.size(); ++i) {
    CHECK(back.events[i].kind == d.events[i].kind);
    CHECK(back.events[i].cycle == d.events[i].cycle);
    CHECK(back.events[i].line == d.events[i].line);
    CHECK(back.events[i].file == d.events[i].file);
    CHECK(back.events[i].role == d.events[i].role);
  }
  CHECK(run::timeline_summary_text(back) == run::timeline_summary_text(d));
}

TEST_CASE("timeline doc: the Chrome trace has a span per wait and a thread per warp", "[timeline]") {
  const run::TimelineDoc& d = model_doc();
  const nlohmann::json t = run::chrome_trace_json(d);
  size_t waits = 0, begins = 0, threads = 0;
  for (const run::TimelineEvent& e : d.events) begins += e.kind == ir::RecordKind::mbar_wait_begin;
  for (const nlohmann::json& e : t.at("traceEvents")) {
    if (e["ph"] == "X" && e["name"] == "mbar_wait") ++waits;
    if (e["ph"] == "M" && e["name"] == "thread_name") ++threads;
  }
  CHECK(begins > 0);
  CHECK(waits == begins);
  CHECK(threads == d.warps.size());
}

TEST_CASE("timeline doc: malformed files are refused naming what is wrong", "[timeline]") {
  nlohmann::json j = run::timeline_json(model_doc());
  CHECK_THROWS_WITH(run::timeline_from_json(nlohmann::json::array()), Catch::Contains("not a JSON object"));
  nlohmann::json wrong_format = j;
  wrong_format["format"] = "other";
  CHECK_THROWS_WITH(run::timeline_from_json(wrong_format), Catch::Contains("'format'"));
  nlohmann::json short_row = j;
  short_row["events"][0].erase(0);
  CHECK_THROWS_WITH(run::timeline_from_json(short_row), Catch::Contains("row 0 has 8 values, expected 9"));
  nlohmann::json bad_kind = j;
  bad_kind["events"][1][0] = "teleport";
  CHECK_THROWS_WITH(run::timeline_from_json(bad_kind), Catch::Contains("unknown kind \"teleport\""));
  nlohmann::json no_events = j;
  no_events.erase("events");
  CHECK_THROWS_WITH(run::timeline_from_json(no_events), Catch::Contains("no 'events'"));
}

TEST_CASE("timeline doc: CTA choices the kernel cannot take are refused", "[timeline]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_producer_consumer");
  const ir::Kernel k = kernels::build_kernel(info, {info.example_shape, {}});
  run::TimelineRequest outside;
  outside.cta = {k.launch.grid[0], 0, 0};
  CHECK_THROWS_WITH(run::timeline_options(k, outside), Catch::Contains("outside the grid"));
  run::TimelineRequest wave;
  wave.ctas = run::TimelineCtas::wave;
  wave.sms = 2;
  const ir::TimelineOptions o = run::timeline_options(k, wave);
  CHECK(o.first_cta == 0);
  CHECK(o.ctas == std::min<uint32_t>(2, uint32_t(k.launch.ctas())));
}
