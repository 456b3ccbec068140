#include "gui/core/timeline_compare_data.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "engine/model/machine_ceilings.hpp"
#include "gui/core/app_state.hpp"
#include "run/timeline_model.hpp"

namespace gs::gui {

namespace {

using R = ir::RecordKind;
using WarpKey = std::pair<uint32_t, uint32_t>;  // (cta, warp)

// ns -> ps on the axis, clamped so that no file's numbers overflow or go negative.
uint64_t ps_of(double ns) { return uint64_t(std::clamp(ns, 0.0, 1e15) * 1000.0); }

bool is_store(R k) { return k == R::global_store || k == R::tma_store; }

WarpActivity wait_state(R begin) {
  switch (begin) {
    case R::mbar_wait_begin:
    case R::cp_async_wait_begin: return WarpActivity::waiting_mbarrier;
    case R::mma_wait_begin: return WarpActivity::waiting_wgmma;
    case R::bar_begin: return WarpActivity::waiting_bar;
    default: return WarpActivity::ready;
  }
}
bool is_begin(R k) { return wait_state(k) != WarpActivity::ready; }
bool is_end(R k) { return k == R::mbar_wait_end || k == R::cp_async_wait_end || k == R::mma_wait_end || k == R::bar_end; }

struct Timed {
  const run::TimelineEvent* e;
  uint64_t ps;
};

// Each warp's events with their time on the axis: the GPU's by ns, the model's by cycles / clock.
std::map<WarpKey, std::vector<Timed>> timed_by_warp(const run::TimelineDoc& d, double model_ghz) {
  std::map<WarpKey, std::vector<Timed>> out;
  for (const run::TimelineEvent& e : d.events)
    out[{e.cta, e.warp}].push_back({&e, model_ghz > 0 ? ps_of(double(e.cycle) / model_ghz) : ps_of(e.ns)});
  for (auto& [key, v] : out)
    std::stable_sort(v.begin(), v.end(), [](const Timed& a, const Timed& b) { return a.ps < b.ps; });
  return out;
}

std::string roles_text(const std::vector<Timed>& ev) {
  std::set<ir::WarpRole> roles;
  for (const Timed& t : ev)
    if (t.e->kind == R::role_enter && t.e->role != ir::WarpRole::none) roles.insert(t.e->role);
  std::string s;
  for (ir::WarpRole r : roles) s += (s.empty() ? "" : "+") + std::string(ir::warp_role_name(r));
  return s;
}

CompareLane lane_of(const std::vector<Timed>& ev, bool model, uint32_t cta, uint32_t warp) {
  CompareLane l;
  l.model = model;
  l.cta = cta;
  l.warp = warp;
  if (ev.empty()) return l;
  WarpActivity state = WarpActivity::ready;
  uint64_t since = ev.front().ps;
  const auto close = [&](uint64_t at, WarpActivity next) {
    if (at > since) {
      if (!l.segments.empty() && l.segments.back().activity == state && l.segments.back().end == since)
        l.segments.back().end = at;
      else
        l.segments.push_back({since, at, state});
    }
    state = next;
    since = std::max(since, at);
  };
  for (const Timed& t : ev) {
    const R k = t.e->kind;
    if (is_begin(k)) close(t.ps, wait_state(k));
    else if (is_end(k)) close(t.ps, WarpActivity::ready);
    if (k == R::tma_issue) l.tma_issues.push_back(t.ps);
    if (is_store(k) && (l.stores.empty() || l.stores.back() != t.ps)) l.stores.push_back(t.ps);
    if (k == R::k_pass) l.k_passes.push_back(t.ps);
  }
  close(ev.back().ps + 1, WarpActivity::ready);  // the last event shows, however short
  return l;
}

// The CTA's tiles: one warp that stores C (the lowest with stores), its runs of stores.
std::vector<TileSpan> tiles_of(const std::map<WarpKey, std::vector<Timed>>& warps, uint32_t cta) {
  std::vector<TileSpan> out;
  for (const auto& [key, ev] : warps) {
    if (key.first != cta) continue;
    uint64_t from = ev.empty() ? 0 : ev.front().ps;
    for (size_t i = 0; i < ev.size(); ++i) {
      if (!is_store(ev[i].e->kind)) continue;
      size_t last = i;
      while (last + 1 < ev.size() && is_store(ev[last + 1].e->kind)) ++last;
      out.push_back({from, ev[last].ps + 1, uint32_t(out.size()), ""});
      from = ev[last].ps + 1;
      i = last;
    }
    if (!out.empty()) return out;
  }
  return out;
}

// The tiles the model's schedule gives `cta`, in its order ("(row,col)"), when the open kernel
// is the recorded run.
std::vector<std::string> model_tile_names(const LoadedKernel* open, uint32_t cta) {
  std::vector<std::pair<uint32_t, uint32_t>> visits;
  if (!open) return {};
  const model::CSchedule& s = open->report.result.schedule;
  if (s.tiles_n == 0) return {};
  for (const model::TileVisit& v : s.visits)
    if (v.cta == cta) visits.push_back({v.order, v.tile});
  std::sort(visits.begin(), visits.end());
  std::vector<std::string> names;
  for (const auto& [order, tile] : visits) names.push_back(fmt::format("({},{})", tile / s.tiles_n, tile % s.tiles_n));
  return names;
}

// Names from the model's schedule only when it holds as many tiles as the runs: a fast-forwarded
// tile loop records only its first and last tiles, and the k-th visit is then not the k-th tile.
void name_tiles(std::vector<TileSpan>& tiles, const std::vector<std::string>& names) {
  const bool named = names.size() == tiles.size();
  for (TileSpan& t : tiles) t.tile = named ? names[t.order] : fmt::format("#{}", t.order);
}

// The mean wait per execution of each wait instruction, over every warp of the document.
std::map<uint32_t, std::pair<size_t, double>> waits_by_inst(const run::TimelineDoc& d) {
  std::map<uint32_t, std::pair<size_t, double>> out;
  for (const run::WarpSummary& w : run::warp_summaries(d))
    for (const run::WaitSummary& x : w.waits) {
      out[x.inst].first += x.count;
      out[x.inst].second += x.total_cycles;
    }
  return out;
}

std::string wait_name(R begin) {
  switch (begin) {
    case R::mbar_wait_begin: return "mbarrier wait";
    case R::mma_wait_begin: return "wgmma wait";
    case R::bar_begin: return "bar.sync";
    case R::cp_async_wait_begin: return "cp.async wait";
    default: return std::string(ir::record_kind_name(begin));
  }
}

void fill_waits(const run::TimelineDoc& m, const run::TimelineDoc* model, TimelineCompareData& d) {
  const auto measured = waits_by_inst(m);
  const auto modelled = model ? waits_by_inst(*model) : decltype(measured){};
  std::map<uint32_t, const run::TimelineEvent*> first;  // each wait instruction's first begin
  for (const run::TimelineEvent& e : m.events)
    if (is_begin(e.kind) && !first.count(e.inst)) first[e.inst] = &e;
  for (const auto& [inst, mc] : measured) {
    const run::TimelineEvent* e = first.count(inst) ? first[inst] : nullptr;
    if (!e || mc.first == 0) continue;
    WaitDifference w;
    w.inst = inst;
    const std::string role = e->role == ir::WarpRole::none ? "" : fmt::format(" ({})", ir::warp_role_name(e->role));
    w.what = fmt::format("{}{} {}:{}", wait_name(e->kind), role, std::filesystem::path(e->file).filename().string(),
                         e->line);
    w.measured_count = mc.first;
    w.measured_mean = mc.second / double(mc.first);
    if (auto it = modelled.find(inst); it != modelled.end() && it->second.first > 0) {
      w.model_count = it->second.first;
      w.model_mean = it->second.second / double(it->second.first);
    }
    d.waits.push_back(std::move(w));
  }
}

// Every parameter the kernel declares, as `req` builds it (its defaults where it names none).
kernels::ParamValues resolved_params(const run::SimRequest& req) {
  const kernels::KernelInfo* info = kernels::find_kernel(req.kernel_id);
  try {
    return info ? kernels::resolve_params(*info, req.params) : req.params;
  } catch (const kernels::ConfigError&) {
    return req.params;
  }
}

// A recording of another build of the kernel (its code changed since): the recorded events'
// instructions, by index, no longer carry the source lines the file recorded for them. Empty
// when they all do.
std::string moved_instructions_note(const run::TimelineDoc& m, const run::SimRequest& build) {
  const kernels::KernelInfo* info = kernels::find_kernel(m.kernel_id);
  if (!info) return "";
  ir::Kernel k;
  try {
    k = kernels::build_kernel(*info, {info->resolve(m.shape), build.mistakes, kernels::resolve_params(*info, build.params)});
  } catch (const std::exception&) {
    return "";
  }
  size_t moved = 0;
  for (const run::TimelineEvent& e : m.events)
    moved += e.inst >= k.insts.size() || k.insts[e.inst].src.line != e.line ||
             std::filesystem::path(std::string(k.source_file(k.insts[e.inst].src))).filename() !=
                 std::filesystem::path(e.file).filename();
  if (moved == 0) return "";
  return fmt::format("{} of the {} recorded events name an instruction that this build of {} has at another source "
                     "line: the kernel changed since it was recorded, so the waits per instruction do not line up "
                     "with the model's (record it again: bench {} --timeline FILE)",
                     moved, m.events.size(), m.kernel_id, m.kernel_id);
}

uint64_t launch_ps(double ns, double first_ns) { return uint64_t(std::max(0.0, ns - first_ns) * 1000.0 + 0.5); }

LaunchMap launch_map(const run::TimelineDoc& m) {
  LaunchMap L;
  const std::vector<run::CtaRun> runs = run::cta_runs(m);
  L.waves = run::launch_waves(runs, run::one_tile_per_cta_tiles_n(m));
  const run::LaunchWaves& w = L.waves;
  std::map<uint32_t, LaunchRow> rows;
  for (size_t i = 0; i < runs.size(); ++i) {
    LaunchRow& row = rows[runs[i].smid];
    row.smid = runs[i].smid;
    row.bars.push_back({launch_ps(runs[i].start_ns, w.first_ns), launch_ps(runs[i].end_ns, w.first_ns), runs[i].cta,
                        w.wave[i]});
  }
  for (auto& [sm, row] : rows) {
    std::sort(row.bars.begin(), row.bars.end(),
              [](const LaunchBar& a, const LaunchBar& b) { return a.begin < b.begin; });
    L.rows.push_back(std::move(row));
  }
  if (runs.empty()) {
    L.summary = "no CTA recorded a finished warp";
    return L;
  }
  L.summary = fmt::format("{} CTAs on {} SMs, {} at once: {} waves in {:.1f} µs; a CTA's run {:.2f} µs (the median)",
                          w.ctas, w.sms, w.resident, w.waves, (w.last_ns - w.first_ns) / 1000.0,
                          w.median_run_ns / 1000.0);
  L.spread = "how far apart each wave's CTAs started, (p90 - p10) of their starts over a CTA's run (0: together, "
             "about 1: a stream): " + run::wave_spreads_text(w, 2);
  L.pace = w.pace_spread > 0
               ? fmt::format("the SMs' lasting pace: the slowest tenth's mean CTA run {:.1f}% longer than the fastest "
                             "tenth's (p90/p10 of each SM's mean run, its first and last CTA left out); a ring that "
                             "does not hold the CTAs together lets that add up wave after wave",
                             100.0 * (w.pace_spread - 1.0))
               : "the SMs' lasting pace: no SM ran three CTAs";
  if (w.b_partners_together >= 0)
    L.partners = fmt::format("CTAs reading the same panel that started within 5% of a run of each other, so that the "
                             "second finds its K blocks still in L2: B's (a tile row apart) {:.0f}% of the pairs, A's "
                             "(side by side) {:.0f}%",
                             100.0 * w.b_partners_together, 100.0 * std::max(w.a_partners_together, 0.0));
  return L;
}

}  // namespace

double model_clock_ghz(const run::TimelineDoc& measured, std::string* machine, bool* fallback) {
  const kernels::KernelInfo* info = kernels::find_kernel(measured.kernel_id);
  const run::ModelClock c = run::model_clock(measured.device, info ? info->arch : ir::Arch::sm_90a);
  if (fallback) *fallback = !c.named;
  if (machine) *machine = c.machine;
  return c.ghz;
}

run::SimRequest recorded_request(const RecordedTimeline& r) {
  run::SimRequest req;
  req.kernel_id = r.measured.kernel_id;
  req.shape = r.measured.shape;
  req.only_traced_cta = true;
  if (r.measured.build_known) {
    req.params = r.measured.params;
    req.mistakes = r.measured.mistakes;
  }
  try {
    req.cta = run::model_request_like(r.measured).timeline.cta;
  } catch (const std::exception&) {
  }
  return req;
}

bool is_recorded_run(const LoadedKernel* open, const RecordedTimeline& r) {
  if (!open) return false;
  const run::SimRequest rec = recorded_request(r);
  const kernels::GemmShape& s = open->report.shape;
  return open->request.kernel_id == rec.kernel_id && s.m == rec.shape.m && s.n == rec.shape.n && s.k == rec.shape.k &&
         open->request.cta == rec.cta && open->report.params == resolved_params(rec) &&
         open->request.mistakes == rec.mistakes;
}

TimelineCompareData timeline_compare_data(const RecordedTimeline& r, const LoadedKernel* open) {
  TimelineCompareData d;
  d.available = true;
  const run::TimelineDoc& m = r.measured;
  const run::TimelineDoc* model = r.model.get();
  bool fallback = false;
  d.model_ghz = model_clock_ghz(m, &d.model_machine, &fallback);
  d.measured_ghz = m.clock_ghz;
  const uint32_t last_cta = m.layout.first_cta + std::max(m.layout.ctas, 1u) - 1;
  d.headline = fmt::format("{} {}x{}x{} on {}, CTA{} {}, {}", m.kernel_id, m.shape.m, m.shape.n, m.shape.k,
                           m.device.empty() ? "a GPU" : m.device, last_cta > m.layout.first_cta ? "s" : "",
                           last_cta > m.layout.first_cta ? fmt::format("{}..{}", m.layout.first_cta, last_cta)
                                                         : fmt::format("{}", m.layout.first_cta),
                           r.origin);
  d.clocks = fmt::format("GPU: its %globaltimer (SM clock {:.3f} GHz, the warps' clock64 over it); model: cycles "
                         "at the {} sustained clock, {:.0f} MHz{}",
                         d.measured_ghz, d.model_machine, d.model_ghz * 1000.0,
                         fallback ? fmt::format(" ('{}' names no machine the model describes: the kernel's)", m.device)
                                  : std::string());
  if (run::is_launch_only(m)) {
    d.launch = launch_map(m);
    for (const LaunchRow& row : d.launch->rows)
      for (const LaunchBar& b : row.bars) d.end_ps = std::max(d.end_ps, b.end);
    d.notes.push_back(kLaunchOnlyNote);
    return d;
  }
  if (!model) d.model_status = r.model_error.empty() ? "the model's timeline is being made" : r.model_error;

  const auto measured_warps = timed_by_warp(m, 0.0);
  const auto model_warps = model ? timed_by_warp(*model, d.model_ghz) : decltype(measured_warps){};
  std::map<WarpKey, uint32_t> smid;
  for (const run::TimelineWarp& w : m.warps) smid[{w.cta, w.warp}] = w.smid;
  for (const auto& [key, ev] : measured_warps) {
    CompareLane l = lane_of(ev, false, key.first, key.second);
    l.smid = smid.count(key) ? smid[key] : 0;
    const std::string role = roles_text(ev);
    l.label = fmt::format("{}w{}{}", m.layout.ctas > 1 ? fmt::format("CTA {} ", key.first) : "", key.second,
                          role.empty() ? "" : " " + role);
    d.lanes.push_back(std::move(l));
    if (auto it = model_warps.find(key); it != model_warps.end()) {
      CompareLane ml = lane_of(it->second, true, key.first, key.second);
      ml.label = "  model";
      for (const run::TimelineSkip& k : model->skips)
        if (k.cta == key.first && k.warp == key.second)
          ml.skipped.push_back({ps_of(double(k.cycle) / d.model_ghz), ps_of(double(k.cycle + k.cycles) / d.model_ghz),
                                k.first, k.count, k.passes, k.k_loop});
      d.lanes.push_back(std::move(ml));
    }
  }
  for (const CompareLane& l : d.lanes)
    for (const TimelineSegment& s : l.segments) d.end_ps = std::max(d.end_ps, s.end);

  if (model) {
    std::set<uint32_t> model_ctas, measured_ctas;
    for (const auto& [key, ev] : model_warps) model_ctas.insert(key.first);
    for (const auto& [key, ev] : measured_warps) measured_ctas.insert(key.first);
    for (uint32_t c : measured_ctas)
      if (!model_ctas.count(c))
        d.notes.push_back(fmt::format("the model traced CTA {} only: the GPU's CTA {} has no model lanes",
                                      model_ctas.empty() ? 0 : *model_ctas.begin(), c));
    for (uint32_t c : model_ctas)
      if (!measured_ctas.count(c))
        d.notes.push_back(fmt::format("the model traced CTA {}, which the recording does not hold", c));
    size_t measured_passes = 0, model_passes = 0;
    for (const run::TimelineEvent& e : m.events) measured_passes += e.kind == R::k_pass && model_ctas.count(e.cta);
    for (const run::TimelineEvent& e : model->events) model_passes += e.kind == R::k_pass;
    if (model_passes < measured_passes)
      d.notes.push_back(fmt::format("the model ran {} of the {} K passes the GPU recorded in the same warps and "
                                    "fast-forwarded the rest (a long loop's middle passes: architecture.md): its "
                                    "lanes are hatched where it skipped them (hover for how many)",
                                    model_passes, measured_passes));
  }
  if (const std::string moved = moved_instructions_note(m, recorded_request(r)); !moved.empty()) d.notes.push_back(moved);
  d.notes.push_back(m.build_known ? fmt::format("the model ran the recorded build{}",
                                                 run::build_text(m).empty() ? "" : ": " + run::build_text(m))
                                   : "the model ran the kernel's default build parameters (the recording does not "
                                     "name its own)");

  const run::TimelineStats ms = run::kernel_stats(m);
  const std::optional<run::TimelineStats> mo = model ? std::optional(run::kernel_stats(*model)) : std::nullopt;
  const run::TimelineStats none;
  const run::TimelineStats& mm = mo ? *mo : none;
  d.kinds = {{"K-iteration period", ms.k_period, mm.k_period},
             {"TMA issue to land (upper bound)", ms.tma_issue_to_land, mm.tma_issue_to_land},
             {"consumer wait per stage", ms.consumer_wait, mm.consumer_wait},
             {"epilogue", ms.epilogue, mm.epilogue},
             {"producer ahead of consumer", ms.producer_lead, mm.producer_lead}};
  d.measured_wait_fraction = ms.consumer_wait_fraction;
  d.model_wait_fraction = mm.consumer_wait_fraction;
  fill_waits(m, model, d);

  // SM by SM: each recorded CTA's tiles, then the model's CTA (its tiles named by the open
  // kernel's schedule when that is the recorded run).
  const bool same_run = is_recorded_run(open, r);
  std::set<uint32_t> ctas;
  for (const auto& [key, ev] : measured_warps) ctas.insert(key.first);
  for (uint32_t c : ctas) {
    SmRow row;
    row.cta = c;
    for (const run::TimelineWarp& w : m.warps)
      if (w.cta == c) row.smid = w.smid;
    row.label = fmt::format("SM {} CTA {}", row.smid, c);
    row.tiles = tiles_of(measured_warps, c);
    name_tiles(row.tiles, same_run ? model_tile_names(open, c) : std::vector<std::string>{});
    d.sms.push_back(std::move(row));
    if (model) {
      SmRow mr;
      mr.model = true;
      mr.cta = c;
      mr.label = fmt::format("model CTA {}", c);
      mr.tiles = tiles_of(model_warps, c);
      if (mr.tiles.empty()) continue;
      name_tiles(mr.tiles, same_run ? model_tile_names(open, c) : std::vector<std::string>{});
      d.sms.push_back(std::move(mr));
    }
  }
  d.schedule_note = fmt::format(
      "{} recorded CTA{}: the tiles each worked on, from its previous tile's last store to this one's (the records "
      "hold no addresses, so a tile is named from the model's schedule of the same CTA{}, when that holds every tile: "
      "#k where the model fast-forwarded its tile loop){}",
      ctas.size(), ctas.size() == 1 ? "" : "s", same_run ? "" : ", once the recorded kernel is open at its shape",
      ctas.size() == 1 ? "; a recording of one CTA shows one SM (bench --timeline-ctas wave records one CTA per SM)"
                       : "");

  d.cursor_follows = same_run;
  if (!same_run)
    d.cursor_note = fmt::format("the playback cursor is in {}: open {} at {}x{}x{} (the button) to follow it here",
                                open ? fmt::format("{} {}x{}x{}", open->request.kernel_id, open->report.shape.m,
                                                   open->report.shape.n, open->report.shape.k)
                                     : std::string("no kernel"),
                                m.kernel_id, m.shape.m, m.shape.n, m.shape.k);
  return d;
}

const TimelineCompareData& timeline_compare_cached(AppState& app) {
  static const TimelineCompareData empty;
  if (!app.recorded_timeline) return empty;
  TimelineCompareCache& c = app.view_caches.timeline_compare;
  const RecordedTimeline& r = *app.recorded_timeline;
  if (!c.data || c.generation != r.generation || c.model != r.model.get() || c.kernel != app.kernel.get() ||
      (!r.model && c.data->model_status != (r.model_error.empty() ? "the model's timeline is being made" : r.model_error))) {
    c.data = std::make_shared<const TimelineCompareData>(timeline_compare_data(r, app.kernel.get()));
    c.generation = r.generation;
    c.model = r.model.get();
    c.kernel = app.kernel.get();
  }
  return *c.data;
}

std::optional<uint64_t> compare_cursor_ps(const TimelineCompareData& d, uint64_t cycle) {
  if (!d.cursor_follows || d.model_ghz <= 0) return std::nullopt;
  return ps_of(double(cycle) / d.model_ghz);
}

uint64_t compare_cycle_at(const TimelineCompareData& d, uint64_t ps) {
  return uint64_t(double(ps) / 1000.0 * d.model_ghz);
}

const std::vector<CompareLegendItem>& compare_legend() {
  static const std::vector<CompareLegendItem> items = {
      {"running", CompareMark::state, WarpActivity::ready},
      {"mbarrier wait", CompareMark::state, WarpActivity::waiting_mbarrier},
      {"bar.sync", CompareMark::state, WarpActivity::waiting_bar},
      {"wgmma.wait", CompareMark::state, WarpActivity::waiting_wgmma},
      {"TMA issue", CompareMark::tma_issue},
      {"store to C", CompareMark::store},
      {"K pass", CompareMark::k_pass},
      {"model (under each GPU lane)", CompareMark::model_lane, WarpActivity::ready},
      {"fast-forwarded by the model (passes skipped)", CompareMark::skipped},
  };
  return items;
}

std::string cycles_text(const run::TimelineFigure& f) {
  return f.known() ? fmt::format("{:.0f}", f.cycles) : std::string("-");
}

namespace {

nlohmann::json launch_json(const LaunchMap& L) {
  const run::LaunchWaves& w = L.waves;
  nlohmann::json rows = nlohmann::json::array();
  for (const LaunchRow& r : L.rows) {
    nlohmann::json bars = nlohmann::json::array();
    for (const LaunchBar& b : r.bars) bars.push_back({b.cta, b.wave, b.begin, b.end});
    rows.push_back({{"smid", r.smid}, {"bars", bars}});
  }
  return {{"ctas", w.ctas},          {"sms", w.sms},
          {"resident", w.resident},  {"waves", w.waves},
          {"median_run_ns", w.median_run_ns},
          {"launch_ns", w.last_ns - w.first_ns},
          {"start_spread", w.start_spread},
          {"pace_spread", w.pace_spread},
          {"summary", L.summary},    {"spread", L.spread},
          {"pace", L.pace},          {"partners", L.partners},
          {"b_partners_together", w.b_partners_together},
          {"a_partners_together", w.a_partners_together},
          {"bar_columns", {"cta", "wave", "begin_ps", "end_ps"}},
          {"rows", rows}};
}

}  // namespace

nlohmann::json describe_timeline_compare(AppState& app) {
  if (!app.recorded_timeline) return nullptr;
  const TimelineCompareData& d = timeline_compare_cached(app);
  const auto fig = [](const run::TimelineFigure& f) -> nlohmann::json {
    if (!f.known()) return nullptr;
    return {{"cycles", f.cycles}, {"ns", f.ns}, {"samples", f.samples}};
  };
  nlohmann::json kinds = nlohmann::json::array();
  for (const KindDifference& k : d.kinds)
    kinds.push_back({{"name", k.name},
                     {"measured", fig(k.measured)},
                     {"model", fig(k.model)},
                     {"measured_text", cycles_text(k.measured)},
                     {"model_text", cycles_text(k.model)},
                     {"ratio", k.known() ? nlohmann::json(k.ratio()) : nlohmann::json(nullptr)},
                     {"ratio_text", k.known() ? fmt::format("{:.2f}", k.ratio()) : std::string("-")},
                     {"difference_cycles", k.known() ? nlohmann::json(k.difference_cycles()) : nlohmann::json(nullptr)}});
  nlohmann::json lanes = nlohmann::json::array();
  for (const CompareLane& l : d.lanes) {
    nlohmann::json skipped = nlohmann::json::array();
    for (const SkippedSpan& k : l.skipped) skipped.push_back(skipped_json(k));
    lanes.push_back({{"model", l.model}, {"cta", l.cta}, {"warp", l.warp}, {"label", l.label},
                     {"segments", l.segments.size()},
                     {"begin_ps", l.segments.empty() ? 0 : l.segments.front().begin},
                     {"end_ps", l.segments.empty() ? 0 : l.segments.back().end},
                     {"tma_issues", l.tma_issues.size()},
                     {"stores", l.stores.size()}, {"k_passes", l.k_passes.size()}, {"skipped", skipped}});
  }
  nlohmann::json waits = nlohmann::json::array();
  for (const WaitDifference& w : d.waits)
    waits.push_back({{"what", w.what}, {"inst", w.inst}, {"measured_count", w.measured_count},
                     {"measured_mean_cycles", w.measured_mean}, {"model_count", w.model_count},
                     {"model_mean_cycles", w.model_mean}});
  nlohmann::json sms = nlohmann::json::array();
  for (const SmRow& s : d.sms) {
    nlohmann::json tiles = nlohmann::json::array();
    for (const TileSpan& t : s.tiles) tiles.push_back({{"order", t.order}, {"tile", t.tile}, {"begin_ps", t.begin}, {"end_ps", t.end}});
    sms.push_back({{"model", s.model}, {"cta", s.cta}, {"smid", s.smid}, {"label", s.label}, {"tiles", tiles}});
  }
  const Snapshot* s = app.snapshot();
  const std::optional<uint64_t> cursor = s ? compare_cursor_ps(d, s->cycle) : std::nullopt;
  return {{"shown", app.timeline_view.show_recorded},
          {"headline", d.headline},
          {"origin", app.recorded_timeline->origin},
          {"kernel", app.recorded_timeline->measured.kernel_id},
          {"clocks", d.clocks},
          {"measured_clock_ghz", d.measured_ghz},
          {"model_clock_ghz", d.model_ghz},
          {"model_machine", d.model_machine},
          {"model_status", d.model_status},
          {"notes", d.notes},
          {"end_ps", d.end_ps},
          {"lanes", lanes},
          {"kinds", kinds},
          {"consumer_wait_fraction", {{"measured", d.measured_wait_fraction}, {"model", d.model_wait_fraction}}},
          {"waits", waits},
          {"sms", sms},
          {"schedule_note", d.schedule_note},
          {"cursor_follows", d.cursor_follows},
          {"cursor_ps", cursor ? nlohmann::json(*cursor) : nlohmann::json(nullptr)},
          {"cursor_note", d.cursor_note},
          {"launch", d.launch ? launch_json(*d.launch) : nlohmann::json(nullptr)}};
}

}  // namespace gs::gui
