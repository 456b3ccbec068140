// Whole-grid runs on several threads (engine/model/grid.cpp): the result is the single-threaded
// run's, bit for bit: C, statistics, hazards, the tile schedule and the traced CTA's events, for
// correct kernels, kernels with clusters, persistent walks, and mistakes that write one tile from
// several CTAs or stop the grid.
#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>
#include <thread>

#include "cli/progress.hpp"
#include "run/sim_job.hpp"

using namespace gs;
using Catch::Matchers::Contains;

namespace {

// Everything a run reports but how long it took.
nlohmann::json facts(const run::SimReport& r) {
  nlohmann::json j = run::sim_report_json(r);
  j.erase("seconds");
  nlohmann::json visits = nlohmann::json::array();
  for (const model::TileVisit& v : r.result.schedule.visits) visits.push_back({v.cta, v.tile, v.order, v.cycle});
  j["schedule"] = visits;
  j["trace"] = run::trace_json(r.result.trace, r.kernel);
  return j;
}

void check_same(run::SimRequest req, uint32_t threads) {
  req.threads = 1;
  const run::SimReport one = run::run_sim(req);
  req.threads = threads;
  const run::SimReport many = run::run_sim(req);
  REQUIRE(one.buffers.c.size() == many.buffers.c.size());
  CHECK(std::memcmp(one.buffers.c.data(), many.buffers.c.data(), one.buffers.c.size()) == 0);
  const nlohmann::json a = facts(one), b = facts(many);
  CHECK(a.dump() == b.dump());
  CHECK(one.result.stats.ctas == many.result.stats.ctas);
}

}  // namespace

TEST_CASE("grid threads: any thread count gives the single-threaded run, bit for bit", "[run][sim][model][threads]") {
  struct Case {
    const char* id;
    kernels::GemmShape shape;
    std::set<std::string> mistakes;
    std::array<uint32_t, 3> cta;
  };
  for (const Case& c : {
           Case{"simt_naive", {128, 96, 32}, {}, {1, 2, 0}},
           // Rows and columns swapped on a non-square C: CTAs write each other's tiles.
           Case{"simt_coalesced", {64, 128, 16}, {"swap-row-col"}, {0, 0, 0}},
           Case{"simt_smem_tiling", {96, 64, 64}, {}, {0, 0, 0}},
           Case{"hopper_tma_wgmma_64", {256, 192, 128}, {}, {1, 1, 0}},
           // A persistent walk: each CTA writes several tiles; and one that skips tiles.
           Case{"hopper_persistent", {5504, 768, 16}, {}, {3, 0, 0}},
           Case{"hopper_persistent", {5504, 768, 16}, {"tile-stride-off-by-one"}, {0, 0, 0}},
           // The grid stops at its first failing CTA (a deadlock): later CTAs a thread had
           // started are dropped, C included.
           Case{"hopper_producer_consumer", {256, 256, 640}, {"phase-not-flipped"}, {0, 0, 0}},
           // Clusters of two CTAs run as one unit.
           Case{"blackwell_2sm", {}, {}, {0, 0, 0}},
       }) {
    INFO(c.id << " " << (c.mistakes.empty() ? "" : *c.mistakes.begin()));
    check_same({.kernel_id = c.id, .shape = c.shape, .mistakes = c.mistakes, .cta = c.cta}, 3);
  }
}

TEST_CASE("grid threads: the pool reports progress from the calling thread, up to every CTA",
          "[run][sim][model][threads]") {
  const std::thread::id caller = std::this_thread::get_id();
  uint64_t last = 0, total = 0;
  bool same_thread = true;
  run::SimRequest req{.kernel_id = "simt_naive", .shape = {256, 256, 16}, .threads = 2};
  req.progress = [&](uint64_t done, uint64_t all) {
    same_thread = same_thread && std::this_thread::get_id() == caller;
    CHECK(done >= last);
    last = done;
    total = all;
  };
  const run::SimReport r = run::run_sim(req);
  CHECK(r.ok());
  CHECK(same_thread);
  CHECK(total == 64);
  CHECK(last == 64);
}

TEST_CASE("progress lines: a file gets a line every few seconds with the time left", "[cli][progress]") {
  std::ostringstream err;
  {
    cli::ProgressBar lines(err, cli::ProgressBar::Style::lines, "CTAs", std::chrono::milliseconds(50));
    lines.update(1, 8);  // too early
    CHECK(err.str().empty());
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    lines.update(2, 8);
  }
  CHECK_THAT(err.str(), Contains("2/8 CTAs (25%)") && Contains("so far, about") && Contains("left\n"));
  CHECK(cli::format_duration(42) == "42 s");
  CHECK(cli::format_duration(65) == "1m 05s");
  CHECK(cli::format_duration(7380) == "2h 03m");
  CHECK(cli::seconds_left(0, 10, 3.0) < 0);
  CHECK(cli::seconds_left(5, 10, 3.0) == Approx(3.0));
}

TEST_CASE("a whole-grid run expected to take minutes stops early and says how long", "[cli][progress]") {
  cli::LongRunGate gate(60.0, 2, std::chrono::milliseconds(10));
  gate.update(1, 1000);  // too early to tell
  CHECK_FALSE(gate.stopped());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  gate.update(0, 100000);  // nothing done yet: at least 20 ms x 50000 rounds of 2 threads
  REQUIRE(gate.stopped());
  CHECK(gate.stop_flag()->load());
  CHECK_THAT(gate.reason(), Contains("100000 CTAs would take at least") && Contains("on 2 threads"));
  cli::LongRunGate none(0.0, 2, std::chrono::milliseconds(0));
  none.update(1, 1'000'000'000);
  CHECK_FALSE(none.stopped());
}
