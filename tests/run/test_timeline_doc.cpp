// The timeline document (run/timeline_doc, run/timeline_stats, run/timeline_model): the model's
// timeline of a step, its JSON read back as written, the Chrome trace's spans, the figures, and
// malformed files refused with what is wrong.
#include <map>

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "engine/model/machine_ceilings.hpp"
#include "run/timeline_doc.hpp"
#include "run/timeline_model.hpp"
#include "run/timeline_stats.hpp"

using namespace gs;

namespace {

const run::TimelineDoc& model_doc() {
  static const run::TimelineDoc doc = run::model_timeline({.kernel_id = "hopper_producer_consumer"});
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
  // Every CTA of the grid: at 8192^3 (4096 CTAs) the default 8192 records a warp would take
  // gigabytes, so it is refused naming what to give; capacity 0 keeps 64 bytes a warp.
  const ir::Kernel big = kernels::build_kernel(info, {{8192, 8192, 8192}, {}});
  REQUIRE(run::parse_timeline_ctas("all") == run::TimelineCtas::all);
  CHECK_FALSE(run::parse_timeline_ctas("every"));
  run::TimelineRequest all;
  all.ctas = run::TimelineCtas::all;
  CHECK_THROWS_WITH(run::timeline_options(big, all), Catch::Contains("4096 CTA(s)") && Catch::Contains("GiB") &&
                                                         Catch::Contains("--capacity N; 0 keeps"));
  all.capacity = 0;
  const ir::TimelineOptions every = run::timeline_options(big, all);
  CHECK(every.first_cta == 0);
  CHECK(every.ctas == 4096);
  CHECK(every.capacity == 0);
}

TEST_CASE("timeline doc: a whole grid's starts and ends give each CTA's run and SM, and read back", "[timeline]") {
  // The model's record of every CTA of step 13 at 512^3 (16 CTAs), each warp's start and end only.
  run::TimelineRequest all;
  all.ctas = run::TimelineCtas::all;
  all.capacity = 0;
  const run::TimelineDoc d =
      run::model_timeline({.kernel_id = "hopper_producer_consumer", .shape = {512, 512, 512}, .timeline = all});
  CHECK(d.events.empty());
  CHECK(d.warnings.empty());
  REQUIRE(d.layout.ctas == 16);
  REQUIRE(d.warps.size() == 16 * d.layout.warps_per_cta);
  const std::vector<run::CtaRun> runs = run::cta_runs(d);
  REQUIRE(runs.size() == 16);
  double first = 1e300;
  for (size_t i = 0; i < runs.size(); ++i) {
    CHECK(runs[i].cta == i);
    CHECK(runs[i].end_ns > runs[i].start_ns);
    first = std::min(first, runs[i].start_ns);
    // The run spans its warps: none starts before it or ends after it.
    for (const run::TimelineWarp& w : d.warps)
      if (w.cta == i) {
        CHECK(w.start_ns >= runs[i].start_ns);
        CHECK(w.start_ns + w.ns <= runs[i].end_ns + 1e-9);
      }
  }
  CHECK(first == 0.0);  // counted from the first warp's start
  const run::TimelineDoc back = run::timeline_from_json(nlohmann::json::parse(run::timeline_json(d).dump()));
  REQUIRE(back.warps.size() == d.warps.size());
  for (size_t i = 0; i < d.warps.size(); ++i) CHECK(back.warps[i].start_ns == Approx(d.warps[i].start_ns));
  // Few warps: a line each. A whole grid (over kWarpLinesMax warps): the CTAs' runs in percentiles.
  CHECK_THAT(run::timeline_summary_text(d), Catch::Contains("per warp") && !Catch::Contains("a CTA's run"));
  run::TimelineDoc many = d;
  while (many.warps.size() <= run::kWarpLinesMax) many.warps.insert(many.warps.end(), d.warps.begin(), d.warps.end());
  CHECK_THAT(run::timeline_summary_text(many), Catch::Contains("16 CTAs on ") && Catch::Contains("a CTA's run") &&
                                                   Catch::Contains("p90/p10") && !Catch::Contains("per warp ("));
  // Its waves (launch_waves), and no table of figures no event gives.
  const run::LaunchWaves w = run::launch_waves(runs);
  CHECK_THAT(run::timeline_summary_text(many),
             Catch::Contains(fmt::format("{} CTAs resident at once: {} waves", w.resident, w.waves)) &&
                 Catch::Contains("wave 1 0.") && Catch::Contains("the SMs' lasting pace") &&
                 Catch::Contains("gui --import-timeline FILE` draws the launch") &&
                 !Catch::Contains("median (cycles)"));
  CHECK(run::is_launch_only(d));
  CHECK_FALSE(run::is_launch_only(model_doc()));
}

TEST_CASE("timeline doc: a whole launch's CTAs in waves: how far apart each wave started and how the SMs' paces differ",
          "[timeline]") {
  // Two SMs, three CTAs each, the block scheduler handing out ids in order: SM 0 runs CTAs 0, 2, 4
  // in 100 ns each, SM 1 CTAs 1, 3, 5 in 110 ns each, so the second wave starts 10 ns apart and
  // the third 20 ns.
  const std::vector<run::CtaRun> runs = {{0, 0, 0, 100}, {1, 1, 0, 110},   {2, 0, 100, 200},
                                         {3, 1, 110, 220}, {4, 0, 200, 300}, {5, 1, 220, 330}};
  const run::LaunchWaves w = run::launch_waves(runs);
  CHECK(w.ctas == 6);
  CHECK(w.sms == 2);
  CHECK(w.resident == 2);  // started before the first CTA ended (CTA 2 starts as CTA 0 ends: not at once)
  CHECK(w.waves == 3);
  CHECK(w.wave == std::vector<uint32_t>{0, 0, 1, 1, 2, 2});
  CHECK(w.first_ns == 0.0);
  CHECK(w.last_ns == 330.0);
  CHECK(w.median_run_ns == 110.0);  // nearest rank of 100, 100, 100, 110, 110, 110
  REQUIRE(w.start_spread.size() == 3);
  CHECK(w.start_spread[0] == 0.0);
  CHECK(w.start_spread[1] == Approx(10.0 / 110.0));
  CHECK(w.start_spread[2] == Approx(20.0 / 110.0));
  CHECK(w.pace_spread == Approx(1.1));  // each SM's middle CTA: 110 over 100
  // Fewer than three CTAs an SM: no lasting pace to give; one CTA: one wave, no spread.
  CHECK(run::launch_waves({runs.begin(), runs.begin() + 4}).pace_spread == 0.0);
  const run::LaunchWaves one = run::launch_waves({{7, 3, 5, 50}});
  CHECK(one.waves == 1);
  CHECK(one.start_spread == std::vector<double>{0.0});
  CHECK(run::launch_waves({}).waves == 0);
  // As 3 x 2 tiles, CTA i on tile i. B's panel partners (i, i + 2) start a wave apart: (0, 2) 100 ns,
  // (1, 3) 110, (2, 4) 100, (3, 5) 110, none within 5% of T (5.5 ns). A's (0, 1), (2, 3), (4, 5)
  // start 0, 10 and 20 ns apart: the first pair together.
  CHECK(w.b_partners_together == -1.0);  // not asked
  const run::LaunchWaves tiled = run::launch_waves(runs, 2);
  CHECK(tiled.b_partners_together == 0.0);
  CHECK(tiled.a_partners_together == Approx(1.0 / 3.0));
  CHECK(run::launch_waves(runs, 6).b_partners_together == -1.0);  // one tile row: no B partners
  CHECK(run::telling_waves(0).empty());
  CHECK(run::telling_waves(3) == std::vector<size_t>{1, 2, 3});
  CHECK(run::telling_waves(32) == std::vector<size_t>{1, 2, 4, 8, 16, 24, 32});
  CHECK(run::telling_waves(24) == std::vector<size_t>{1, 2, 4, 8, 16, 24});
}

TEST_CASE("timeline doc: the model's time is its cycles at the sustained clock of the card, and says so",
          "[timeline][clock]") {
  const run::TimelineDoc& d = model_doc();  // no card: the kernel's machine, the H100
  const double sustained = model::timing::kH100Desc.clock_sustained_mhz.value / 1000.0;
  CHECK(d.clock_ghz == Approx(sustained));
  CHECK(d.clock_ghz != Approx(model::timing::kH100.clock_hz / 1e9));  // not the rated 1.83 GHz
  CHECK_THAT(d.clock, Catch::Contains("H100 SXM's sustained SM clock") &&
                          Catch::Contains(fmt::format("{:.0f} MHz", model::timing::kH100Desc.clock_sustained_mhz.value)) &&
                          Catch::Contains("the machine the kernel runs on"));
  // Every event's time is its cycle at that clock (one CTA: cycles and ns count from the same start).
  for (const run::TimelineEvent& e : d.events) CHECK(e.ns == Approx(double(e.cycle) / sustained).margin(2.0));
  const nlohmann::json j = run::timeline_json(d);
  CHECK(j["clock_ghz"].get<double>() == Approx(sustained));
  CHECK(j["clock"] == d.clock);
  CHECK(run::timeline_from_json(j).clock == d.clock);

  // The one source: the app's comparison asks the same function with the recording's device.
  const run::ModelClock named = run::model_clock("NVIDIA H100 80GB HBM3", ir::Arch::sm_90a);
  CHECK(named.named);
  CHECK(named.machine == "H100 SXM");
  CHECK(named.ghz == Approx(sustained));
  CHECK_THAT(named.text, Catch::Contains("the card 'NVIDIA H100 80GB HBM3' names"));
  const run::ModelClock other = run::model_clock("Some Other GPU", ir::Arch::sm_100a);
  CHECK_FALSE(other.named);
  CHECK(other.machine == "B200");
  CHECK(other.ghz == Approx(model::timing::kB200Desc.clock_sustained_mhz.value / 1000.0));
  CHECK_THAT(other.text, Catch::Contains("'Some Other GPU' names no machine"));
}

TEST_CASE("timeline doc: the build (parameters, mistakes) is stored, read back, and absent in older files",
          "[timeline][params]") {
  run::TimelineDoc d = model_doc();
  CHECK(d.build_known);
  CHECK(d.params == kernels::ParamValues{{"bn", 128}, {"stages", 4}});  // every declared parameter, as built
  CHECK(run::build_text(d) == "bn=128 stages=4");
  d.params["stages"] = 3;
  d.mistakes = {"skip-empty-wait"};
  nlohmann::json j = run::timeline_json(d);
  CHECK(j["params"]["stages"] == 3);
  CHECK(j["mistakes"] == nlohmann::json::array({"skip-empty-wait"}));
  const run::TimelineDoc back = run::timeline_from_json(j);
  CHECK(back.build_known);
  CHECK(back.params == d.params);
  CHECK(back.mistakes == d.mistakes);
  CHECK(run::build_text(back) == "bn=128 stages=3, mistake skip-empty-wait");
  // The model beside it is built the same way, at the recorded CTA, with the recording's card.
  run::TimelineDoc gpu = back;
  gpu.device = "NVIDIA H100 80GB HBM3";
  const run::ModelTimelineRequest m = run::model_request_like(gpu);
  CHECK(m.params == d.params);
  CHECK(m.mistakes == d.mistakes);
  CHECK(m.card == "NVIDIA H100 80GB HBM3");

  nlohmann::json old = j;  // written before the build was stored
  old.erase("params");
  old.erase("mistakes");
  const run::TimelineDoc defaults = run::timeline_from_json(old);
  CHECK_FALSE(defaults.build_known);
  CHECK(defaults.params.empty());
  CHECK_THAT(run::build_text(defaults), Catch::Contains("the kernel's defaults"));
  CHECK(run::model_request_like(defaults).params.empty());

  nlohmann::json bad = j;
  bad["params"]["stages"] = "three";
  CHECK_THROWS_WITH(run::timeline_from_json(bad), Catch::Contains("'params' value of 'stages'"));
  bad = j;
  bad["mistakes"] = "skip-empty-wait";
  CHECK_THROWS_WITH(run::timeline_from_json(bad), Catch::Contains("'mistakes'"));
  bad = j;
  bad["params"]["stages"] = 9;  // read, but the kernel refuses it when the model is asked for
  CHECK_THROWS_AS(run::model_request_like(run::timeline_from_json(bad)), kernels::ConfigError);
}

TEST_CASE("timeline doc: the model's fast-forwarded passes are its skips, with the time it moved on",
          "[timeline][fast]") {
  // K = 16384: 256 K blocks, past the 128 that fast-forward skips the middle of.
  const run::TimelineDoc d = run::model_timeline({.kernel_id = "hopper_producer_consumer", .shape = {256, 256, 16384}});
  REQUIRE_FALSE(d.skips.empty());
  std::map<std::pair<uint32_t, uint32_t>, size_t> passes;  // K passes recorded per warp
  for (const run::TimelineEvent& e : d.events) passes[{e.cta, e.warp}] += e.kind == ir::RecordKind::k_pass;
  for (const run::TimelineSkip& k : d.skips) {
    INFO("warp " << k.warp << " skipped " << k.first << "+" << k.count << " of " << k.passes);
    CHECK(k.k_loop);
    CHECK(k.passes == 256);
    CHECK(k.count > 0);
    CHECK(k.first + k.count <= k.passes);
    CHECK(k.cycles > 0);
    // The warp's records: every pass but the skipped ones, and none inside the skipped stretch.
    CHECK(passes[{k.cta, k.warp}] == k.passes - k.count);
    for (const run::TimelineEvent& e : d.events)
      if (e.cta == k.cta && e.warp == k.warp) CHECK((e.cycle <= k.cycle || e.cycle >= k.cycle + k.cycles));
  }
  const run::TimelineDoc back = run::timeline_from_json(run::timeline_json(d));
  REQUIRE(back.skips.size() == d.skips.size());
  CHECK(back.skips.front().cycle == d.skips.front().cycle);
  CHECK(back.skips.front().count == d.skips.front().count);
  CHECK_THAT(run::timeline_summary_text(model_doc(), &d), Catch::Contains("K passes fast-forwarded"));
  nlohmann::json bad = run::timeline_json(d);
  bad["fast_forwards"][0]["count"] = 1000;
  CHECK_THROWS_WITH(run::timeline_from_json(bad), Catch::Contains("'fast_forwards' row 0 skips passes"));
}
