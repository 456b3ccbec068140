#include "run/timeline_stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "kernels/registry.hpp"

namespace gs::run {

namespace {

using R = ir::RecordKind;
using WarpKey = std::pair<uint32_t, uint32_t>;  // (cta, warp)

bool is_store(R k) { return k == R::global_store || k == R::tma_store; }
bool is_wait_begin(R k) {
  return k == R::mbar_wait_begin || k == R::mma_wait_begin || k == R::bar_begin || k == R::cp_async_wait_begin;
}
R end_of(R begin) { return R(uint8_t(begin) + 1); }  // every *_begin is followed by its *_end

TimelineFigure figure(std::vector<double> cycles, double ghz) {
  TimelineFigure f;
  if (cycles.empty()) return f;
  std::nth_element(cycles.begin(), cycles.begin() + long(cycles.size() / 2), cycles.end());
  f.cycles = cycles[cycles.size() / 2];
  f.ns = ghz > 0 ? f.cycles / ghz : 0.0;
  f.samples = cycles.size();
  return f;
}

// Each warp's events, in time order (the document keeps them so).
std::map<WarpKey, std::vector<const TimelineEvent*>> by_warp(const TimelineDoc& d) {
  std::map<WarpKey, std::vector<const TimelineEvent*>> w;
  for (const TimelineEvent& e : d.events) w[{e.cta, e.warp}].push_back(&e);
  return w;
}

std::set<ir::WarpRole> roles_of(const std::vector<const TimelineEvent*>& ev) {
  std::set<ir::WarpRole> roles;
  for (const TimelineEvent* e : ev)
    if (e->kind == R::role_enter) roles.insert(e->role);
  return roles;
}

std::vector<uint64_t> k_pass_cycles(const std::vector<const TimelineEvent*>& ev) {
  std::vector<uint64_t> c;
  for (const TimelineEvent* e : ev)
    if (e->kind == R::k_pass) c.push_back(e->cycle);
  return c;
}

// The first event of `kind` after each K pass (before the next), by pass.
std::vector<std::optional<uint64_t>> first_after_pass(const std::vector<const TimelineEvent*>& ev, R kind) {
  std::vector<std::optional<uint64_t>> out;
  for (const TimelineEvent* e : ev) {
    if (e->kind == R::k_pass) out.emplace_back();
    else if (e->kind == kind && !out.empty() && !out.back()) out.back() = e->cycle;
  }
  return out;
}

std::vector<double> epilogue_runs(const std::vector<const TimelineEvent*>& ev) {
  std::vector<double> runs;
  for (size_t i = 0; i < ev.size(); ++i) {
    if (!is_store(ev[i]->kind) || i == 0 || is_store(ev[i - 1]->kind)) continue;
    size_t last = i;
    while (last + 1 < ev.size() && is_store(ev[last + 1]->kind)) ++last;
    runs.push_back(double(ev[last]->cycle - ev[i - 1]->cycle));
  }
  return runs;
}

// Wait spans (begin, end) of one kind of begin, in order; a begin without its end is dropped.
std::vector<std::pair<const TimelineEvent*, const TimelineEvent*>> waits(const std::vector<const TimelineEvent*>& ev) {
  std::vector<std::pair<const TimelineEvent*, const TimelineEvent*>> out;
  std::vector<const TimelineEvent*> open;
  for (const TimelineEvent* e : ev) {
    if (is_wait_begin(e->kind)) open.push_back(e);
    else if (!open.empty() && e->kind == end_of(open.back()->kind)) {
      out.emplace_back(open.back(), e);
      open.pop_back();
    }
  }
  return out;
}

}  // namespace

std::vector<WarpSummary> warp_summaries(const TimelineDoc& d) {
  std::vector<WarpSummary> out;
  const auto warps = by_warp(d);
  std::map<WarpKey, const TimelineWarp*> info;
  for (const TimelineWarp& w : d.warps) info[{w.cta, w.warp}] = &w;
  for (const auto& [key, ev] : warps) {
    WarpSummary s;
    s.cta = key.first;
    s.warp = key.second;
    if (const TimelineWarp* w = info[key]) {
      s.smid = w->smid;
      s.cycles = double(w->cycles);
    }
    for (ir::WarpRole r : roles_of(ev)) s.role += (s.role.empty() ? "" : "+") + std::string(ir::warp_role_name(r));
    if (s.role.empty()) s.role = "none";
    const std::vector<uint64_t> passes = k_pass_cycles(ev);
    s.k_passes = passes.size();
    std::vector<double> diffs;
    for (size_t i = 1; i < passes.size(); ++i) diffs.push_back(double(passes[i] - passes[i - 1]));
    s.k_period = figure(diffs, d.clock_ghz);
    std::map<uint32_t, WaitSummary> by_inst;
    for (const auto& [b, e] : waits(ev)) {
      WaitSummary& w = by_inst[b->inst];
      w.kind = b->kind;
      w.inst = b->inst;
      w.line = b->line;
      w.file = b->file;
      ++w.count;
      w.total_cycles += double(e->cycle - b->cycle);
    }
    for (auto& [inst, w] : by_inst) s.waits.push_back(std::move(w));
    s.epilogue = figure(epilogue_runs(ev), d.clock_ghz);
    out.push_back(std::move(s));
  }
  return out;
}

TimelineStats kernel_stats(const TimelineDoc& d) {
  TimelineStats s;
  const auto warps = by_warp(d);
  // The math warps: consumers, else MMA issuers, else all.
  std::set<WarpKey> math, producers;
  for (ir::WarpRole want : {ir::WarpRole::consumer, ir::WarpRole::mma_issuer}) {
    for (const auto& [key, ev] : warps)
      if (roles_of(ev).count(want)) math.insert(key);
    if (!math.empty()) break;
  }
  if (math.empty())
    for (const auto& [key, ev] : warps) math.insert(key);
  for (const auto& [key, ev] : warps)
    if (roles_of(ev).count(ir::WarpRole::producer) && !math.count(key)) producers.insert(key);

  std::vector<double> period, to_land, wait, epilogue, lead;
  double waiting = 0.0, k_time = 0.0;
  for (const WarpKey& key : math) {
    const auto& ev = warps.at(key);
    const std::vector<uint64_t> passes = k_pass_cycles(ev);
    for (size_t i = 1; i < passes.size(); ++i) period.push_back(double(passes[i] - passes[i - 1]));
    const std::vector<double> runs = epilogue_runs(ev);
    epilogue.insert(epilogue.end(), runs.begin(), runs.end());
    if (passes.size() >= 2) k_time += double(passes.back() - passes.front());
    for (const auto& [b, e] : waits(ev))
      if (b->kind == R::mbar_wait_begin && !passes.empty() && b->cycle >= passes.front() && b->cycle <= passes.back()) {
        wait.push_back(double(e->cycle - b->cycle));
        waiting += double(e->cycle - b->cycle);
      }
    const std::vector<std::optional<uint64_t>> landed = first_after_pass(ev, R::mbar_wait_end);
    for (const WarpKey& pk : producers) {
      if (pk.first != key.first) continue;
      const auto& pev = warps.at(pk);
      const std::vector<std::optional<uint64_t>> issued = first_after_pass(pev, R::tma_issue);
      const std::vector<uint64_t> ppasses = k_pass_cycles(pev);
      for (size_t i = 0; i < std::min(issued.size(), landed.size()); ++i)
        if (issued[i] && landed[i] && *landed[i] >= *issued[i]) to_land.push_back(double(*landed[i] - *issued[i]));
      for (size_t i = 0; i < std::min(ppasses.size(), passes.size()); ++i)
        lead.push_back(double(passes[i]) - double(ppasses[i]));
    }
  }
  s.k_period = figure(period, d.clock_ghz);
  s.tma_issue_to_land = figure(to_land, d.clock_ghz);
  s.consumer_wait = figure(wait, d.clock_ghz);
  s.epilogue = figure(epilogue, d.clock_ghz);
  s.producer_lead = figure(lead, d.clock_ghz);
  s.consumer_wait_fraction = k_time > 0 ? waiting / k_time : 0.0;
  return s;
}

nlohmann::json timeline_stats_json(const TimelineStats& s) {
  const auto f = [](const TimelineFigure& x) -> nlohmann::json {
    if (!x.known()) return nullptr;
    return {{"cycles", x.cycles}, {"ns", x.ns}, {"samples", x.samples}};
  };
  return {{"k_period", f(s.k_period)},         {"tma_issue_to_land", f(s.tma_issue_to_land)},
          {"consumer_wait", f(s.consumer_wait)}, {"epilogue", f(s.epilogue)},
          {"producer_lead", f(s.producer_lead)}, {"consumer_wait_fraction", s.consumer_wait_fraction}};
}

std::vector<CtaRun> cta_runs(const TimelineDoc& d) {
  std::map<uint32_t, CtaRun> runs;
  for (const TimelineWarp& w : d.warps) {
    if (!w.finished) continue;
    auto [it, added] = runs.try_emplace(w.cta, CtaRun{w.cta, w.smid, w.start_ns, w.start_ns + w.ns});
    if (added) continue;
    it->second.start_ns = std::min(it->second.start_ns, w.start_ns);
    it->second.end_ns = std::max(it->second.end_ns, w.start_ns + w.ns);
  }
  std::vector<CtaRun> out;
  for (const auto& [cta, r] : runs) out.push_back(r);
  return out;
}

namespace {

// The value at fraction p of the sorted values (nearest rank), 0 for none.
double nearest_rank(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[size_t(p * double(v.size() - 1) + 0.5)];
}

}  // namespace

LaunchWaves launch_waves(const std::vector<CtaRun>& runs, uint32_t tiles_n) {
  LaunchWaves w;
  if (runs.empty()) return w;
  w.ctas = runs.size();
  std::vector<double> span;
  std::map<uint32_t, std::vector<std::pair<double, double>>> by_sm;  // SM -> (start, run) of its CTAs
  w.first_ns = runs.front().start_ns;
  w.last_ns = runs.front().end_ns;
  double first_end = runs.front().end_ns;
  for (const CtaRun& r : runs) {
    span.push_back(r.end_ns - r.start_ns);
    by_sm[r.smid].push_back({r.start_ns, r.end_ns - r.start_ns});
    w.first_ns = std::min(w.first_ns, r.start_ns);
    w.last_ns = std::max(w.last_ns, r.end_ns);
    first_end = std::min(first_end, r.end_ns);
  }
  w.sms = by_sm.size();
  w.median_run_ns = nearest_rank(span, 0.5);
  for (const CtaRun& r : runs) w.resident += r.start_ns < first_end;
  w.resident = std::max<size_t>(w.resident, 1);
  w.waves = (w.ctas + w.resident - 1) / w.resident;
  for (size_t i = 0; i < runs.size(); ++i) w.wave.push_back(uint32_t(i / w.resident));
  const double T = w.median_run_ns;
  for (size_t k = 0; k < w.waves; ++k) {
    std::vector<double> starts;
    for (size_t i = k * w.resident; i < std::min(runs.size(), (k + 1) * w.resident); ++i)
      starts.push_back(runs[i].start_ns);
    w.start_spread.push_back(starts.size() > 1 && T > 0 ? (nearest_rank(starts, 0.9) - nearest_rank(starts, 0.1)) / T
                                                        : 0.0);
  }
  std::vector<double> means;
  for (auto& [sm, v] : by_sm) {
    if (v.size() < 3) continue;
    std::sort(v.begin(), v.end());
    double sum = 0.0;
    for (size_t i = 1; i + 1 < v.size(); ++i) sum += v[i].second;
    means.push_back(sum / double(v.size() - 2));
  }
  const double lo = nearest_rank(means, 0.1);
  w.pace_spread = lo > 0 ? nearest_rank(means, 0.9) / lo : 0.0;
  if (tiles_n > 0 && T > 0) {
    std::map<uint32_t, double> start;  // by CTA id
    for (const CtaRun& r : runs) start[r.cta] = r.start_ns;
    const auto together = [&](uint32_t step, bool same_row) {
      size_t pairs = 0, close = 0;
      for (const auto& [cta, s0] : start) {
        if (same_row && cta % tiles_n + 1 >= tiles_n) continue;  // the row's last tile has no right-hand partner
        const auto it = start.find(cta + step);
        if (it == start.end()) continue;
        ++pairs;
        close += std::abs(it->second - s0) < 0.05 * T;
      }
      return pairs ? double(close) / double(pairs) : -1.0;
    };
    w.b_partners_together = together(tiles_n, false);
    w.a_partners_together = together(1, true);
  }
  return w;
}

uint32_t one_tile_per_cta_tiles_n(const TimelineDoc& d) {
  const kernels::KernelInfo* info = kernels::find_kernel(d.kernel_id);
  if (!info) return 0;
  try {
    const ir::Kernel k = kernels::build_kernel(
        *info, {info->resolve(d.shape), d.mistakes, d.build_known ? kernels::resolve_params(*info, d.params)
                                                                 : kernels::resolve_params(*info, {})});
    const ir::OutputTiling& o = k.output;
    if (!o.declared() || !o.walk.empty() || k.launch.ctas() != uint64_t(o.tiles_m()) * o.tiles_n()) return 0;
    return o.tiles_n();
  } catch (const std::exception&) {
    return 0;
  }
}

std::vector<size_t> telling_waves(size_t waves) {
  std::vector<size_t> out;
  for (size_t k : {size_t(1), size_t(2), size_t(4), size_t(8), size_t(16), size_t(24), waves})
    if (k >= 1 && k <= waves && (out.empty() || out.back() < k)) out.push_back(k);
  return out;
}

std::string wave_spreads_text(const LaunchWaves& w, int decimals) {
  std::string out;
  for (size_t k : telling_waves(w.waves))
    out += fmt::format("{}wave {} {:.{}f}", out.empty() ? "" : ", ", k, w.start_spread[k - 1], decimals);
  return out;
}

namespace {

// The waves' lines of cta_runs_text.
std::string launch_waves_text(const LaunchWaves& w) {
  const std::string spread = wave_spreads_text(w, 3);
  std::string out = fmt::format(
      "{} CTAs resident at once: {} waves; each wave's start spread (p90 - p10 over the median run): {}\nthe SMs' "
      "lasting pace (p90/p10 of each SM's mean CTA run, its first and last left out): {}\n",
      w.resident, w.waves, spread, w.pace_spread > 0 ? fmt::format("{:.4f}", w.pace_spread) : "-");
  if (w.b_partners_together >= 0)
    out += fmt::format("CTAs reading the same panel that started within 5% of a run of each other: B (a tile row "
                       "apart) {:.0f}% of the pairs, A (side by side) {:.0f}%\n",
                       100.0 * w.b_partners_together, 100.0 * std::max(w.a_partners_together, 0.0));
  return out;
}

// The CTAs' runs of a whole grid's recording in a few lines: how long a CTA ran, how many each
// SM ran, the launch from the first start to the last end, and its waves (launch_waves).
std::string cta_runs_text(const TimelineDoc& d) {
  const std::vector<CtaRun> runs = cta_runs(d);
  if (runs.empty()) return "no CTA recorded a finished warp\n";
  std::vector<double> span;
  std::map<uint32_t, uint32_t> per_sm;
  double first = runs.front().start_ns, last = runs.front().end_ns;
  for (const CtaRun& r : runs) {
    span.push_back(r.end_ns - r.start_ns);
    ++per_sm[r.smid];
    first = std::min(first, r.start_ns);
    last = std::max(last, r.end_ns);
  }
  std::sort(span.begin(), span.end());
  const auto pct = [&](double p) { return span[size_t(p * double(span.size() - 1) + 0.5)]; };
  uint32_t fewest = UINT32_MAX, most = 0;
  for (const auto& [sm, n] : per_sm) {
    fewest = std::min(fewest, n);
    most = std::max(most, n);
  }
  return fmt::format("{} CTAs on {} SMs ({}-{} an SM), from the first start to the last end {:.1f} us\n"
                     "a CTA's run (first warp's start to last warp's end): p10 {:.2f} us, p50 {:.2f}, p90 {:.2f}, "
                     "max {:.2f} (p90/p10 {:.3f})\n",
                     runs.size(), per_sm.size(), fewest, most, (last - first) / 1000.0, pct(0.1) / 1000.0,
                     pct(0.5) / 1000.0, pct(0.9) / 1000.0, span.back() / 1000.0,
                     pct(0.1) > 0 ? pct(0.9) / pct(0.1) : 0.0) +
         launch_waves_text(launch_waves(runs, one_tile_per_cta_tiles_n(d)));
}

}  // namespace

std::string timeline_summary_text(const TimelineDoc& d, const TimelineDoc* model) {
  std::string out = fmt::format("{} {}x{}x{} on {} ({}), CTAs {}..{}, clock {:.3f} GHz\n", d.kernel_id, d.shape.m,
                                d.shape.n, d.shape.k, d.device.empty() ? d.source : d.device, d.source,
                                d.layout.first_cta, d.layout.first_cta + d.layout.ctas - 1, d.clock_ghz);
  if (const std::string b = build_text(d); !b.empty()) out += "build: " + b + "\n";
  if (!d.clock.empty()) out += "clock: " + d.clock + "\n";
  if (model) {
    uint64_t skipped = 0;
    for (const TimelineSkip& k : model->skips) skipped += k.k_loop ? k.count : 0;
    out += fmt::format("model: {}, cycles at {:.3f} GHz ({}){}\n", build_text(*model), model->clock_ghz, model->clock,
                       skipped ? fmt::format("; {} K passes fast-forwarded over {} skips (run with their time, not "
                                             "recorded)", skipped, model->skips.size())
                               : std::string());
  }
  if (const std::optional<double> slow = d.slowdown())
    out += fmt::format("instrumented {:.4f} ms vs plain {:.4f} ms: {:+.1f}% ({})\n", *d.instrumented_ms, *d.plain_ms,
                       100.0 * *slow, d.c_identical ? (*d.c_identical ? "C identical" : "C DIFFERS") : "C not compared");
  for (const std::string& w : d.warnings) out += "warning: " + w + "\n";
  const auto cyc = [](const TimelineFigure& f) { return f.known() ? fmt::format("{:.0f}", f.cycles) : std::string("-"); };
  if (d.warps.size() > kWarpLinesMax) {
    out += fmt::format("\n{} warps recorded: per CTA (the JSON holds every warp's start and end)\n", d.warps.size());
    out += cta_runs_text(d);
  } else {
    out += "\nper warp (cycles of its SM):\n";
    for (const WarpSummary& w : warp_summaries(d)) {
      out += fmt::format("  CTA {} warp {:>2} SM {:>3} {:<18} {:>10.0f} cycles, {} K passes, period {}, epilogue {}\n",
                         w.cta, w.warp, w.smid, w.role, w.cycles, w.k_passes, cyc(w.k_period), cyc(w.epilogue));
      for (const WaitSummary& x : w.waits)
        out += fmt::format("      {:<20} {}:{} {}x, {:.0f} cycles in all ({:.0f} each)\n",
                           std::string(ir::record_kind_name(x.kind)).substr(0, ir::record_kind_name(x.kind).size() - 6),
                           x.file, x.line, x.count, x.total_cycles, x.count ? x.total_cycles / double(x.count) : 0.0);
    }
  }
  // Each warp's start and end only (capacity 0): no event gives a figure of the table below.
  if (is_launch_only(d) && !model)
    return out + "(`gemmscope gui --import-timeline FILE` draws the launch SM by SM, each CTA in its wave's colour)\n";
  const TimelineStats s = kernel_stats(d);
  const std::optional<TimelineStats> m = model ? std::optional(kernel_stats(*model)) : std::nullopt;
  out += fmt::format("\n{:<34} {:>12}{}\n", "median (cycles)", d.source, m ? fmt::format(" {:>12} {:>8}", "model", "ratio") : "");
  const auto row = [&](const char* name, const TimelineFigure& a, const TimelineFigure* b) {
    std::string line = fmt::format("{:<34} {:>12}", name, cyc(a));
    if (b) {
      line += fmt::format(" {:>12}", cyc(*b));
      line += a.known() && b->known() && b->cycles > 0 ? fmt::format(" {:>8.2f}", a.cycles / b->cycles) : fmt::format(" {:>8}", "-");
    }
    out += line + "\n";
  };
  row("K-iteration period", s.k_period, m ? &m->k_period : nullptr);
  row("TMA issue to land (upper bound)", s.tma_issue_to_land, m ? &m->tma_issue_to_land : nullptr);
  row("consumer wait per stage", s.consumer_wait, m ? &m->consumer_wait : nullptr);
  row("epilogue", s.epilogue, m ? &m->epilogue : nullptr);
  row("producer ahead of consumer", s.producer_lead, m ? &m->producer_lead : nullptr);
  out += fmt::format("{:<34} {:>11.1f}%{}\n", "consumer K-loop time waiting", 100.0 * s.consumer_wait_fraction,
                     m ? fmt::format(" {:>11.1f}%", 100.0 * m->consumer_wait_fraction) : "");
  return out;
}

}  // namespace gs::run
