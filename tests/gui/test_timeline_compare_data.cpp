// The Timeline view's measured-vs-model part: the committed H100 recordings open without a GPU,
// with lanes for the GPU's warps and the model's, and the same figures as the command line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/timeline_compare_data.hpp"
#include "engine/model/machines.hpp"
#include "run/gpu_job.hpp"
#include "tests/support/cli_run.hpp"

using namespace gs;
using namespace gs::gui;

namespace {

const std::string kDir = std::string(GEMMSCOPE_SOURCE_DIR) + "/docs/results/2026-11-27-h100-timeline/";

// The figures `gemmscope timeline --import F --compare-model` prints: name -> {gpu, model, ratio}.
std::map<std::string, std::array<std::string, 3>> cli_figures(const std::string& file) {
  const test::CliRun r = test::run_cli({"timeline", "--import", file, "--compare-model"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  std::map<std::string, std::array<std::string, 3>> out;
  std::istringstream in(r.out);
  std::string line;
  const std::regex row(R"(^(.+?)\s{2,}(\S+)\s+(\S+)\s+(\S+)$)");
  bool table = false;
  while (std::getline(in, line)) {
    if (line.rfind("median (cycles)", 0) == 0) table = true;
    std::smatch m;
    if (table && std::regex_match(line, m, row)) out[m[1].str()] = {m[2].str(), m[3].str(), m[4].str()};
  }
  return out;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / ("gemmscope-tl-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace

TEST_CASE("timeline compare: every committed H100 recording opens without a GPU, with the GPU's and the model's lanes "
          "and the command line's figures",
          "[gui][timeline][recorded]") {
  for (const char* id : {"hopper_tma_wgmma_64", "hopper_tile_128", "hopper_producer_consumer", "hopper_two_consumers",
                         "hopper_persistent", "hopper_fewer_arrivals"}) {
    const std::string file = kDir + id + ".timeline.json";
    INFO(file);
    AppState app;
    REQUIRE(import_timeline(app, file, /*model_job=*/false));
    REQUIRE(app.recorded_timeline);
    CHECK(app.timeline_view.show_recorded);
    REQUIRE(model_timeline_now(app));
    const RecordedTimeline& r = *app.recorded_timeline;
    const TimelineCompareData d = timeline_compare_data(r, nullptr);
    CHECK(d.model_status.empty());
    // The model's clock is the sustained clock of the machine the file names (an H100), not the GPU's.
    CHECK(d.model_machine == "H100 SXM");
    CHECK(d.model_ghz == Approx(model::timing::kH100Desc.clock_sustained_mhz.value / 1000.0));
    CHECK(d.measured_ghz == Approx(r.measured.clock_ghz));
    // One measured lane per recorded warp, each with the model's lane of the same CTA and warp under it.
    std::set<std::pair<uint32_t, uint32_t>> warps;
    for (const run::TimelineEvent& e : r.measured.events) warps.insert({e.cta, e.warp});
    size_t measured = 0, modelled = 0;
    for (size_t i = 0; i < d.lanes.size(); ++i) {
      const CompareLane& l = d.lanes[i];
      CHECK_FALSE(l.segments.empty());
      if (l.model) {
        ++modelled;
        REQUIRE(i > 0);
        CHECK(d.lanes[i - 1].cta == l.cta);
        CHECK(d.lanes[i - 1].warp == l.warp);
        CHECK_FALSE(d.lanes[i - 1].model);
      } else {
        ++measured;
      }
      for (const TimelineSegment& s : l.segments) CHECK(s.end <= d.end_ps);
    }
    CHECK(measured == warps.size());
    CHECK(modelled == warps.size());  // the model traced the recorded CTA
    // The figures per kind are the CLI's, to the digit.
    const auto cli = cli_figures(file);
    for (const KindDifference& k : d.kinds) {
      INFO(k.name);
      REQUIRE(cli.count(k.name));
      CHECK(cli.at(k.name)[0] == cycles_text(k.measured));
      CHECK(cli.at(k.name)[1] == cycles_text(k.model));
      CHECK(cli.at(k.name)[2] == (k.known() ? fmt::format("{:.2f}", k.ratio()) : std::string("-")));
    }
    // SM by SM: the recorded CTA on its SM, with its tiles.
    REQUIRE_FALSE(d.sms.empty());
    CHECK(d.sms.front().smid == r.measured.warps.front().smid);
    CHECK_FALSE(d.sms.front().tiles.empty());
    const nlohmann::json j = describe_timeline_compare(app);
    CHECK(j["kinds"].size() == d.kinds.size());
    CHECK(j["lanes"].size() == d.lanes.size());
  }
}

TEST_CASE("timeline compare: a persistent CTA's tiles are its runs of stores, and the cursor follows only the "
          "recorded run",
          "[gui][timeline][recorded]") {
  AppState app;
  REQUIRE(import_timeline(app, kDir + "hopper_persistent.timeline.json", false));
  const TimelineCompareData d = timeline_compare_data(*app.recorded_timeline, nullptr);
  REQUIRE_FALSE(d.sms.empty());
  // 8192² in 128×256 tiles over 132 CTAs: CTA 0 walks 16 of the 2048 tiles.
  CHECK(d.sms.front().tiles.size() == 16);
  for (size_t i = 1; i < d.sms.front().tiles.size(); ++i)
    CHECK(d.sms.front().tiles[i].begin == d.sms.front().tiles[i - 1].end);
  CHECK_FALSE(d.cursor_follows);
  CHECK_FALSE(compare_cursor_ps(d, 100).has_value());
  CHECK(d.cursor_note.find("hopper_persistent at 8192x8192x8192") != std::string::npos);
  const run::SimRequest req = recorded_request(*app.recorded_timeline);
  CHECK(req.kernel_id == "hopper_persistent");
  CHECK(req.shape.m == 8192);
}

TEST_CASE("timeline compare: a corrupt or foreign file is a clear error in the Problems view, never a crash",
          "[gui][timeline][recorded]") {
  const std::string good = kDir + "hopper_producer_consumer.timeline.json";
  std::ifstream in(good);
  const nlohmann::json doc = nlohmann::json::parse(in);
  nlohmann::json bad_row = doc, unknown_kernel = doc, on_model = doc, empty = doc, ends_only = doc;
  bad_row["events"][3] = {"k_pass", 1};
  unknown_kernel["kernel"] = "no_such_kernel";
  on_model["source"] = "model";
  empty["events"] = nlohmann::json::array();
  ends_only["events"] = nlohmann::json::array();  // timeline --ctas all --capacity 0, but not a warp ended
  ends_only["layout"]["capacity"] = 0;
  ends_only["warps"] = nlohmann::json::array();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {write_temp("truncated.json", doc.dump().substr(0, 5000)), "not valid JSON"},
      {write_temp("bench.json", R"({"format":"gemmscope-bench-1","results":[]})"), "expected \"gemmscope-timeline-1\""},
      {write_temp("array.json", "[1,2,3]"), "not a JSON object"},
      {write_temp("row.json", bad_row.dump()), "'events' row 3 has 2 values"},
      {write_temp("kernel.json", unknown_kernel.dump()), "does not have"},
      {write_temp("model.json", on_model.dump()), "not a GPU"},
      {write_temp("empty.json", empty.dump()), "holds no events"},
      {write_temp("ends.json", ends_only.dump()), "holds no events"},
      {"/nonexistent/t.timeline.json", "/nonexistent/t.timeline.json"},
  };
  for (const auto& [path, says] : cases) {
    INFO(path);
    AppState app;
    REQUIRE(import_timeline(app, good, false));
    const auto before = app.recorded_timeline;
    CHECK_FALSE(import_timeline(app, path, false));
    CHECK(app.recorded_timeline == before);  // what was shown stays
    REQUIRE_FALSE(app.problems.empty());
    const Problem& p = app.problems.back();
    CHECK(p.source == "timeline");
    CHECK(p.severity == Severity::error);
    CHECK(p.detail.find(says) != std::string::npos);
    CHECK(p.title.find(path) != std::string::npos);
    // Headless, the same file is bad input: exit 2 before any window opens, the reason on stderr.
    const test::CliRun r = test::run_cli({"gui", "--no-settings", "--import-timeline", path, "--state-json",
                                          write_temp("state.json", "")});
    CHECK(r.code == 2);
    CHECK(r.err.find(says) != std::string::npos);
  }
}

TEST_CASE("timeline compare: the model's clock is the sustained clock of the machine the file names, else the "
          "kernel's, said so",
          "[gui][timeline][recorded]") {
  AppState app;
  REQUIRE(import_timeline(app, kDir + "hopper_producer_consumer.timeline.json", false));
  RecordedTimeline& r = *app.recorded_timeline;
  std::string machine;
  bool fallback = true;
  CHECK(model_clock_ghz(r.measured, &machine, &fallback) ==
        Approx(model::timing::kH100Desc.clock_sustained_mhz.value / 1000));
  CHECK_FALSE(fallback);
  CHECK(machine == "H100 SXM");
  r.measured.device = "Some Other GPU";
  const TimelineCompareData d = timeline_compare_data(r, nullptr);
  CHECK(d.model_ghz == Approx(model::timing::machine_for(ir::Arch::sm_90a).desc->clock_sustained_mhz.value / 1000.0));
  CHECK(d.clocks.find("'Some Other GPU' names no machine") != std::string::npos);
  CHECK_FALSE(d.model_status.empty());  // no model's side yet: the view says so
}

TEST_CASE("timeline compare: 'Record on this GPU' without a GPU records nothing and says where to get a recording",
          "[gui][timeline][recorded]") {
  if (!run::list_devices_isolated().job.no_gpu()) {
    WARN("skipped: a GPU is present, so the no-GPU path is not taken here");
    return;
  }
  AppState app;
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_producer_consumer");
  request_gpu_timeline(app, info.id, info.resolve({}), {});
  REQUIRE(app.running_job(JobKind::gpu_timeline) != nullptr);
  for (int i = 0; i < 600 && app.busy(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  app.poll_jobs();
  CHECK_FALSE(app.busy());
  CHECK_FALSE(app.recorded_timeline);
  REQUIRE_FALSE(app.problems.empty());
  const Problem& p = app.problems.back();
  CHECK(p.source == "gpu");
  CHECK(p.kind == "timeline");
  CHECK(p.severity == Severity::warning);
  CHECK(p.title.find("File > Import timeline") != std::string::npos);
  CHECK(app.gpu.state == GpuPresenceState::absent);  // the button greys out from now on, saying why
  CHECK(app.gpu.reason == p.detail);
}

namespace {

// A whole launch as `timeline --ctas all --capacity 0` records it (each warp's start, end and SM,
// no events), made from a committed recording's header: 12 CTAs of one warp on 4 SMs, CTA i on
// SM i % 4, every CTA on SM j running 1000 + 10 j ns, so the waves' starts spread by 10 j ns a
// wave (the slowest SM 3% behind the fastest).
std::string launch_file() {
  std::ifstream in(kDir + "hopper_producer_consumer.timeline.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["events"] = nlohmann::json::array();
  doc["layout"] = {{"capacity", 0}, {"ctas", 12}, {"first_cta", 0}, {"warps_per_cta", 1}};
  doc["warps"] = nlohmann::json::array();
  for (uint32_t i = 0; i < 12; ++i) {
    const uint32_t sm = i % 4, wave = i / 4;
    const double run = 1000.0 + 10.0 * sm;
    doc["warps"].push_back({{"cta", i}, {"warp", 0}, {"smid", sm}, {"finished", true}, {"kept", 0}, {"records", 0},
                            {"start_ns", wave * run}, {"ns", run}, {"cycles", uint64_t(run * 1.5)}});
  }
  return write_temp("launch.json", doc.dump());
}

}  // namespace

TEST_CASE("timeline compare: a whole launch's recording (each warp's start and end) opens SM by SM, its CTAs in waves",
          "[gui][timeline][recorded]") {
  AppState app;
  REQUIRE(import_timeline(app, launch_file(), false));
  REQUIRE(model_timeline_now(app));  // nothing of the model's to make: not an error
  CHECK_FALSE(app.recorded_timeline->model);
  CHECK(app.recorded_timeline->model_error == kLaunchOnlyNote);
  const TimelineCompareData d = timeline_compare_data(*app.recorded_timeline, nullptr);
  REQUIRE(d.launch);
  CHECK(d.lanes.empty());
  CHECK(d.kinds.empty());
  CHECK(d.model_status.empty());
  CHECK(std::find(d.notes.begin(), d.notes.end(), kLaunchOnlyNote) != d.notes.end());
  const LaunchMap& L = *d.launch;
  REQUIRE(L.rows.size() == 4);
  for (uint32_t sm = 0; sm < 4; ++sm) {
    INFO("SM " << sm);
    const LaunchRow& r = L.rows[sm];
    CHECK(r.smid == sm);
    REQUIRE(r.bars.size() == 3);
    for (uint32_t w = 0; w < 3; ++w) {
      CHECK(r.bars[w].cta == 4 * w + sm);
      CHECK(r.bars[w].wave == w);
      CHECK(r.bars[w].begin == uint64_t(w * (1000 + 10 * sm)) * 1000);  // ps
      CHECK(r.bars[w].end == uint64_t((w + 1) * (1000 + 10 * sm)) * 1000);
    }
  }
  CHECK(d.end_ps == 3090u * 1000);
  CHECK(L.waves.resident == 4);
  CHECK(L.waves.median_run_ns == 1020.0);
  CHECK(L.waves.start_spread[1] == Approx(30.0 / 1020.0));
  CHECK(L.waves.start_spread[2] == Approx(60.0 / 1020.0));
  CHECK(L.waves.pace_spread == Approx(1.03));
  CHECK_THAT(L.summary, Catch::Contains("12 CTAs on 4 SMs, 4 at once: 3 waves in 3.1 µs"));
  CHECK_THAT(L.spread, Catch::Contains("wave 1 0.00, wave 2 0.03, wave 3 0.06"));
  CHECK_THAT(L.pace, Catch::Contains("3.0% longer"));
  // The state the headless app writes holds the same.
  app.timeline_view.show_recorded = true;
  const nlohmann::json j = describe_timeline_compare(app);
  REQUIRE(j["launch"].is_object());
  CHECK(j["launch"]["waves"] == 3);
  CHECK(j["launch"]["rows"].size() == 4);
  CHECK(j["launch"]["rows"][3]["bars"][2] == nlohmann::json::array({11, 2, 2060000, 3090000}));
}

TEST_CASE("timeline compare: the bundled launches of step 13 at 8192^3 on an H200 keep their waves behind 3 stages "
          "and blur them behind 6",
          "[gui][timeline][recorded]") {
  const std::string dir = std::string(GEMMSCOPE_SOURCE_DIR) + "/docs/results/2026-12-04-launch/";
  // File > Import timeline... lists them (newest folder first).
  const std::vector<std::string> listed = bundled_timeline_files(std::string(GEMMSCOPE_SOURCE_DIR) + "/assets");
  for (const char* name : {"step13-8192-stages3.timeline.json", "step13-8192-stages6.timeline.json"})
    CHECK(std::find(listed.begin(), listed.end(), dir + name) != listed.end());
  std::array<run::LaunchWaves, 2> waves;
  for (size_t i = 0; i < 2; ++i) {
    AppState app;
    REQUIRE(import_timeline(app, dir + (i == 0 ? "step13-8192-stages3" : "step13-8192-stages6") + ".timeline.json",
                            false));
    const TimelineCompareData d = timeline_compare_data(*app.recorded_timeline, nullptr);
    REQUIRE(d.launch);
    CHECK(d.launch->rows.size() == 132);
    waves[i] = d.launch->waves;
    CHECK(waves[i].ctas == 4096);
    CHECK(waves[i].resident == 132);
    CHECK(waves[i].waves == 32);
  }
  // Wave 24's starts: within 3% of a CTA's run behind 3 stages, over a third of it behind 6; the
  // SMs' lasting pace 0.2% and 1.5% apart (docs/results/2026-12-04-grid).
  CHECK(waves[0].start_spread[23] < 0.05);
  CHECK(waves[1].start_spread[23] > 0.3);
  CHECK(waves[0].pace_spread < 1.005);
  CHECK(waves[1].pace_spread > 1.01);
  // And so B's panel partners (CTAs a tile row apart) start together about half the time behind 3
  // stages, one time in ten behind 6; A's (side by side) nearly always.
  CHECK(waves[0].b_partners_together > 0.4);
  CHECK(waves[1].b_partners_together < 0.2);
  CHECK(waves[0].a_partners_together > 0.9);
  CHECK(waves[1].a_partners_together > 0.9);
}

#include "gui/core/colors.hpp"
#include "tests/gui/headless.hpp"

TEST_CASE("timeline compare: a whole launch is drawn a row an SM, each CTA a bar in its wave's colour",
          "[gui][xvfb][timeline]") {
  using namespace gs::gui::test;
  if (!xvfb_or_skip()) return;
  const Headless h = run_headless("timeline_launch", "--import-timeline '" + launch_file() +
                                                         "' --view timeline --size 1280x800 --theme dark");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& launch = h.state["views"]["timeline"]["recorded"]["launch"];
  REQUIRE(launch.is_object());
  REQUIRE(h.state["drawn"].contains("timeline.launch"));
  const auto g = h.state["drawn"]["timeline.launch"].get<std::array<float, 4>>();  // x, first row's y, w, row h
  const double end = h.state["views"]["timeline"]["recorded"]["end_ps"].get<double>();
  const auto x_at = [&](double ps) { return int(g[0] + g[2] * float(ps / end)); };
  CHECK(g[3] >= 4.0f);  // four rows have room to be tall
  // SM 0 ends its last CTA at 3000 of 3090 ns: the row's right end is the background.
  const int y0 = int(g[1] + 0.4f * g[3]);
  const std::array<int, 3> idle = h.pixel(x_at(3060e3), y0);
  for (size_t row = 0; row < 4; ++row) {
    const int y = int(g[1] + (float(row) + 0.4f) * g[3]);
    std::vector<std::array<int, 3>> colours;
    for (const auto& bar : launch["rows"][row]["bars"]) {
      const double b = bar[2].get<double>(), e = bar[3].get<double>();
      const std::array<int, 3> p = h.pixel(x_at((b + e) / 2), y);
      INFO("SM " << row << " CTA " << bar[0] << ": " << p[0] << "," << p[1] << "," << p[2]);
      CHECK(p != idle);
      colours.push_back(p);
    }
    // Each wave its own colour, the same on every SM.
    CHECK(colours[0] != colours[1]);
    CHECK(colours[1] != colours[2]);
    if (row > 0) {
      const auto& first = launch["rows"][0]["bars"];
      CHECK(h.pixel(x_at((first[1][2].get<double>() + first[1][3].get<double>()) / 2), y0) == colours[1]);
    }
  }
}

TEST_CASE("timeline compare: the GPU's lanes are drawn in the states' colours, the model's lighter under them",
          "[gui][xvfb][timeline]") {
  using namespace gs::gui::test;
  if (!xvfb_or_skip()) return;
  const std::string file = kDir + "hopper_producer_consumer.timeline.json";
  const Headless h = run_headless("timeline_recorded", "--import-timeline '" + file + "' --view timeline --size 1280x800 "
                                                       "--theme dark");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& view = h.state["views"]["timeline"]["recorded"];
  REQUIRE(view.is_object());
  CHECK(view["shown"] == true);
  CHECK(view["cursor_follows"] == true);  // the recorded kernel opened at its shape
  CHECK(h.state["kernel"] == "hopper_producer_consumer");
  REQUIRE(h.state["drawn"].contains("timeline.recorded"));
  const auto g = h.state["drawn"]["timeline.recorded"].get<std::array<float, 4>>();  // first lane: x, y, w, row h
  const double end = view["end_ps"].get<double>();
  const Rgb ok = ok_rgb(true), warn = warn_rgb(true);
  const auto is_state = [&](const std::array<int, 3>& p) {
    const auto near = [&](const Rgb& c) {
      return std::abs(p[0] - c[0]) <= 3 && std::abs(p[1] - c[1]) <= 3 && std::abs(p[2] - c[2]) <= 3;
    };
    return near(ok) || near(warn);
  };
  size_t lanes_checked = 0;
  const auto& lanes = view["lanes"];
  for (size_t i = 0; i < lanes.size(); ++i) {
    const float y = g[1] + float(i) * g[3] + 0.5f * g[3];
    if (y >= float(h.h) - 40) break;  // scrolled out of the window
    const double b = lanes[i]["begin_ps"].get<double>(), e = lanes[i]["end_ps"].get<double>();
    const int x0 = int(g[0] + g[2] * float(b / end)) + 2, x1 = int(g[0] + g[2] * float(e / end)) - 2;
    if (x1 - x0 < 20) continue;
    size_t hits = 0;
    for (int x = x0; x < x1; ++x) hits += is_state(h.pixel(x, int(y)));
    const double share = double(hits) / double(x1 - x0);
    INFO("lane " << i << " " << lanes[i]["label"] << " share " << share);
    // A GPU lane is its states' colours wherever ticks leave room; the model's, blended lighter, never is.
    if (lanes[i]["model"] == false) CHECK(share > 0.3);
    else CHECK(share < 0.05);
    ++lanes_checked;
  }
  CHECK(lanes_checked >= 8);  // producer_consumer: 8 warps, each a GPU lane and a model lane
}

TEST_CASE("timeline compare: the model's fast-forwarded passes are hatched stretches of its lanes, with their count",
          "[gui][timeline][recorded][fast]") {
  AppState app;
  REQUIRE(import_timeline(app, kDir + "hopper_producer_consumer.timeline.json", false));
  REQUIRE(model_timeline_now(app));
  const TimelineCompareData d = timeline_compare_data(*app.recorded_timeline, nullptr);
  size_t lanes_with_skips = 0;
  for (size_t i = 0; i < d.lanes.size(); ++i) {
    const CompareLane& l = d.lanes[i];
    if (!l.model) {
      CHECK(l.skipped.empty());  // a GPU runs every pass
      continue;
    }
    INFO("model lane of warp " << l.warp);
    if (l.k_passes.empty()) continue;
    ++lanes_with_skips;
    REQUIRE(l.skipped.size() == 1);  // 128 K blocks at 8192: one skip of the K loop's middle
    const SkippedSpan& k = l.skipped.front();
    CHECK(k.k_loop);
    // The passes it ran and the passes it skipped are the GPU's passes of the same warp.
    CHECK(l.k_passes.size() + k.count == d.lanes[i - 1].k_passes.size());
    // Nothing the model recorded lies inside the stretch, and the stretch is inside the lane.
    for (uint64_t p : l.k_passes) CHECK((p <= k.begin || p >= k.end));
    CHECK(k.begin >= l.segments.front().begin);
    CHECK(k.end <= l.segments.back().end);
  }
  CHECK(lanes_with_skips == 5);  // the producer and the four consumer warps
  const nlohmann::json j = describe_timeline_compare(app);
  bool described = false;
  for (const auto& l : j["lanes"])
    if (!l["skipped"].empty()) described |= l["skipped"][0]["text"].get<std::string>().find("K iterations") != std::string::npos;
  CHECK(described);
  bool legend = false;
  for (const CompareLegendItem& item : compare_legend()) legend |= item.mark == CompareMark::skipped;
  CHECK(legend);
}

TEST_CASE("timeline compare: a recording of an older build of the kernel is said to be one", "[gui][timeline][recorded]") {
  AppState app;
  REQUIRE(import_timeline(app, kDir + "hopper_tile_128.timeline.json", false));
  const auto said = [&] {
    for (const std::string& n : timeline_compare_data(*app.recorded_timeline, nullptr).notes)
      if (n.find("the kernel changed since it was recorded") != std::string::npos) return true;
    return false;
  };
  // The file was recorded on 2026-11-27; the helpers step 12 calls have moved since (the note is
  // right to say so then). Pinned to today's lines, it is the kernel as recorded.
  CHECK(said());
  run::TimelineDoc& m = app.recorded_timeline->measured;
  const kernels::KernelInfo& info = kernels::kernel_or_throw(m.kernel_id);
  const ir::Kernel k = kernels::build_kernel(info, {info.resolve(m.shape), {}, kernels::resolve_params(info, {})});
  for (run::TimelineEvent& e : m.events) {
    REQUIRE(e.inst < k.insts.size());
    e.line = k.insts[e.inst].src.line;
    e.file = std::string(k.source_file(k.insts[e.inst].src));
  }
  CHECK_FALSE(said());  // step 12 as it was recorded
  app.recorded_timeline->measured.events[5].line += 1000;  // an instruction now at another line
  CHECK(said());
}

namespace {

// A pixel of the hatch: between the window's background and the muted colour, without a hue.
bool is_hatch(const std::array<int, 3>& p) {
  const Rgb lo = window_rgb(true), hi = muted_rgb(true);
  for (int c = 0; c < 3; ++c)
    if (p[c] < lo[c] - 3 || p[c] > hi[c] + 3) return false;
  return std::abs(p[0] - p[1]) <= 6 && std::abs(p[2] - p[0]) <= 14;
}

// The share of hatch pixels along a row of pixels y, x in [x0, x1).
double hatch_share(const gs::gui::test::Headless& h, int x0, int x1, int y) {
  size_t hits = 0;
  for (int x = x0; x < x1; ++x) hits += is_hatch(h.pixel(x, y));
  return x1 > x0 ? double(hits) / double(x1 - x0) : 0.0;
}

}  // namespace

TEST_CASE("timeline: fast-forwarded stretches are drawn hatched, not as running, in both the model trace and the "
          "comparison",
          "[gui][xvfb][timeline][fast]") {
  using namespace gs::gui::test;
  if (!xvfb_or_skip()) return;
  SECTION("GPU vs model: the model's lanes") {
    const Headless h = run_headless("timeline_skipped_recorded",
                                    "--import-timeline '" + kDir + "hopper_producer_consumer.timeline.json' --view "
                                    "timeline --size 1280x800 --theme dark");
    INFO(h.output);
    REQUIRE(h.code == 0);
    const auto& view = h.state["views"]["timeline"]["recorded"];
    const auto g = h.state["drawn"]["timeline.recorded"].get<std::array<float, 4>>();
    const double end = view["end_ps"].get<double>();
    size_t checked = 0;
    for (size_t i = 0; i < view["lanes"].size(); ++i) {
      const auto& lane = view["lanes"][i];
      const int y = int(g[1] + float(i) * g[3] + 0.5f * g[3]);
      if (y >= h.h - 40 || lane["skipped"].empty()) continue;
      const auto& k = lane["skipped"][0];
      const int x0 = int(g[0] + g[2] * float(k["begin"].get<double>() / end)) + 3;
      const int x1 = int(g[0] + g[2] * float(k["end"].get<double>() / end)) - 3;
      REQUIRE(x1 - x0 > 100);
      INFO("lane " << i << " " << lane["label"]);
      CHECK(hatch_share(h, x0, x1, y) > 0.95);                        // the model's skipped stretch
      CHECK(hatch_share(h, x0, x1, int(float(y) - g[3])) < 0.5);       // the GPU's lane above ran there
      ++checked;
    }
    CHECK(checked == 5);
  }
  SECTION("model trace: the warps' rows") {
    const Headless h = run_headless("timeline_skipped_model",
                                    "--kernel hopper_producer_consumer --m 256 --n 256 --k 16384 --view timeline "
                                    "--size 1280x800 --theme dark");
    INFO(h.output);
    REQUIRE(h.code == 0);
    const auto& view = h.state["views"]["timeline"];
    const auto g = h.state["drawn"]["timeline.plot"].get<std::array<float, 4>>();  // x, y, width, row height
    const double end = view["end_cycle"].get<double>();
    size_t checked = 0;
    for (size_t i = 0; i < view["rows"].size(); ++i) {
      const auto& row = view["rows"][i];
      if (row["skipped"].empty()) continue;
      const auto& k = row["skipped"][0];
      const int y = int(g[1] + float(i) * g[3] + 0.5f * g[3]);
      const int x0 = int(g[0] + g[2] * float(k["begin"].get<double>() / end)) + 3;
      const int x1 = int(g[0] + g[2] * float(k["end"].get<double>() / end)) - 3;
      REQUIRE(x1 - x0 > 100);
      INFO("row " << i);
      CHECK(hatch_share(h, x0, x1, y) > 0.95);
      // Before the skip the warp ran and waited: coloured, not hatched.
      CHECK(hatch_share(h, int(g[0]) + 1, std::min(x0 - 3, int(g[0]) + 40), y) < 0.5);
      ++checked;
    }
    CHECK(checked == 5);
  }
}

TEST_CASE("timeline compare: a recording's build parameters and mistakes drive the model and the opened kernel; an "
          "old file without them says the defaults ran",
          "[gui][timeline][recorded][params]") {
  std::ifstream in(kDir + "hopper_producer_consumer.timeline.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  // A file recorded before the build was stored: the same recording without it.
  doc.erase("params");
  doc.erase("mistakes");
  const std::string old_file = write_temp("old.timeline.json", doc.dump());
  {
    AppState app;
    REQUIRE(import_timeline(app, old_file, false));
    const TimelineCompareData d = timeline_compare_data(*app.recorded_timeline, nullptr);
    CHECK(std::find(d.notes.begin(), d.notes.end(),
                    "the model ran the kernel's default build parameters (the recording does not name its own)") !=
          d.notes.end());
    CHECK(recorded_request(*app.recorded_timeline).params.empty());
  }
  doc["params"] = {{"stages", 3}};
  doc["mistakes"] = nlohmann::json::array();
  const std::string three = write_temp("stages3.timeline.json", doc.dump());
  AppState app;
  REQUIRE(import_timeline(app, three, false));
  REQUIRE(model_timeline_now(app));
  const RecordedTimeline& r = *app.recorded_timeline;
  CHECK(r.model->params.at("stages") == 3);  // the model ran the recorded build
  const run::SimRequest req = recorded_request(r);
  CHECK(req.params.at("stages") == 3);
  const TimelineCompareData d = timeline_compare_data(r, nullptr);
  CHECK(std::find(d.notes.begin(), d.notes.end(), "the model ran the recorded build: stages=3") != d.notes.end());
  // The kernel opened at the default build is not the recorded run; at stages=3 it is.
  app.open_now({.kernel_id = req.kernel_id, .shape = req.shape, .cta = req.cta, .only_traced_cta = true});
  CHECK_FALSE(is_recorded_run(app.kernel.get(), r));
  app.open_now(req);
  CHECK(is_recorded_run(app.kernel.get(), r));
  CHECK(timeline_compare_data(r, app.kernel.get()).cursor_follows);

  // A build this app cannot make is refused, naming it.
  doc["params"] = {{"stages", 9}};
  const std::string nine = write_temp("stages9.timeline.json", doc.dump());
  CHECK_FALSE(import_timeline(app, nine, false));
  CHECK_THAT(app.problems.back().detail, Catch::Contains("stages=9"));
  doc["params"] = {{"stages", 3}};
  doc["mistakes"] = {"no-such-mistake"};
  CHECK_FALSE(import_timeline(app, write_temp("mistake.timeline.json", doc.dump()), false));
  CHECK_THAT(app.problems.back().detail, Catch::Contains("no-such-mistake"));
}

TEST_CASE("timeline compare: headless, importing a recording opens its recorded build", "[gui][xvfb][timeline][params]") {
  using namespace gs::gui::test;
  if (!xvfb_or_skip()) return;
  std::ifstream in(kDir + "hopper_producer_consumer.timeline.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["params"] = {{"stages", 3}};
  doc["mistakes"] = nlohmann::json::array();
  const std::string three = write_temp("stages3-headless.timeline.json", doc.dump());
  const Headless h = run_headless("timeline_stages3", "--import-timeline '" + three + "' --view timeline --size 1280x800");
  INFO(h.output);
  REQUIRE(h.code == 0);
  CHECK(h.state["views"]["ladder"]["params"]["stages"] == 3);
  CHECK(h.state["views"]["timeline"]["recorded"]["cursor_follows"] == true);
}
