#include "gui/core/compare_data.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/diff_data.hpp"
#include "gui/core/schedule_data.hpp"
#include "gui/core/session.hpp"
#include "gui/core/timeline_data.hpp"
#include "run/sim_job.hpp"

namespace gs::gui {

namespace {

std::string shape_text(kernels::GemmShape s) {
  return s.m == s.n && s.n == s.k ? fmt::format("{}³", s.m) : fmt::format("{}x{}x{}", s.m, s.n, s.k);
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : std::string(sep)) + p;
  return out;
}

std::string choices_text(const kernels::BuildParam& p) {
  std::vector<std::string> v;
  for (uint32_t c : p.choices) v.push_back(std::to_string(c));
  return join(v, ", ");
}

// One NAME=V of a variant's text: a number, or a named value (c_dtype=bf16).
std::pair<std::string, uint32_t> parse_param(const kernels::KernelInfo& info, std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
    throw kernels::ConfigError(fmt::format("'{}' is not NAME=VALUE: a build parameter of {} is written as {}", text,
                                           info.id,
                                           info.params.empty() ? std::string("(it has none)")
                                                               : info.params.front().name + "=" +
                                                                     std::to_string(info.params.front().default_value)));
  const std::string name(text.substr(0, eq));
  const std::string_view value = text.substr(eq + 1);
  const kernels::BuildParam& p = kernels::require_param(info, name);
  uint32_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size()) {
    const std::optional<uint32_t> named = kernels::named_param_value(name, value);
    if (!named)
      throw kernels::ConfigError(fmt::format("'{}' is not a value of {}'s parameter {}: valid are {}", value, info.id,
                                             name, choices_text(p)));
    v = *named;
  }
  kernels::require_param_value(info, name, v);
  return {name, v};
}

// The first shape both builds take: the one on screen, else either one's example shape.
kernels::GemmShape common_shape(const CompareInputs& in, std::string& note) {
  const kernels::KernelInfo& a = kernels::kernel_or_throw(in.a.id);
  const kernels::KernelInfo& b = kernels::kernel_or_throw(in.b.id);
  const kernels::GemmShape wanted = a.resolve(in.shape);
  std::string first_error;
  for (const kernels::GemmShape s : {wanted, a.example_shape, b.example_shape}) {
    try {
      kernels::check_build_shape(a, s, in.a.params);
      kernels::check_build_shape(b, s, in.b.params);
      if (s.m != wanted.m || s.n != wanted.n || s.k != wanted.k)
        note = fmt::format("traced at {}, not the {} on screen: {}", shape_text(s), shape_text(wanted), first_error);
      return s;
    } catch (const kernels::ConfigError& e) {
      if (first_error.empty()) first_error = e.what();
    }
  }
  throw kernels::ConfigError(fmt::format("no shape fits both: {}", first_error));
}

std::vector<CompareStall> top_stalls(const StallData& st) {
  uint64_t all = 0;
  for (const StallCause& c : st.total) all += c.cycles;
  std::vector<CompareStall> out;
  for (const StallCause& c : st.total)
    if (c.kind != StallKind::not_started && c.kind != StallKind::finished && c.cycles > 0)
      out.push_back({c.name(), c.cycles, all ? double(c.cycles) / double(all) : 0.0});
  std::stable_sort(out.begin(), out.end(), [](const CompareStall& x, const CompareStall& y) { return x.cycles > y.cycles; });
  if (out.size() > 4) out.resize(4);
  return out;
}

uint64_t to_ps(uint64_t cycles, double clock_hz) { return uint64_t(double(cycles) * 1e12 / clock_hz); }

// A side's warps as lanes of one time axis, labelled "A 3".
void add_lanes(const TimelineData& t, const LoadedKernel& k, double clock_hz, const char* side,
               std::vector<CompareLane>& lanes) {
  const size_t n = std::min<size_t>(t.rows.size(), kCompareWarps);
  for (size_t i = 0; i < n; ++i) {
    const TimelineRow& r = t.rows[i];
    CompareLane l;
    l.warp = r.warp;
    l.label = fmt::format("{} w{}", side, r.label);
    for (const TimelineSegment& g : r.segments)
      if (g.activity != WarpActivity::not_started && g.activity != WarpActivity::exited)
        l.segments.push_back({to_ps(g.begin, clock_hz), to_ps(g.end, clock_hz), g.activity});
    for (uint64_t c : r.tma_issues) l.tma_issues.push_back(to_ps(c, clock_hz));
    for (uint64_t c : r.stores) l.stores.push_back(to_ps(c, clock_hz));
    if (r.warp < k.k_pass_events.size())
      for (uint32_t e : k.k_pass_events[r.warp]) l.k_passes.push_back(to_ps(k.trace().events[e].cycle, clock_hz));
    for (SkippedSpan s : r.skipped) {
      s.begin = to_ps(s.begin, clock_hz);
      s.end = to_ps(s.end, clock_hz);
      l.skipped.push_back(s);
    }
    lanes.push_back(std::move(l));
  }
}

run::SimRequest request_of(const run::KernelVariant& v, kernels::GemmShape shape, const model::timing::Machine* m) {
  run::SimRequest r;
  r.kernel_id = v.id;
  r.shape = shape;
  r.mistakes = v.mistakes;
  r.params = v.params;
  r.only_traced_cta = true;
  r.machine = m;
  return r;
}

// One side: its traced CTA at `shape` and its prediction at the prediction shape.
CompareSide side_of(const run::KernelVariant& v, const CompareInputs& in, kernels::GemmShape shape,
                    const model::timing::Machine* machine, const std::atomic<bool>* cancel,
                    std::vector<CompareLane>& lanes, const char* label, uint64_t& end_ps) {
  CompareSide s;
  s.variant = v;
  s.name = run::variant_name(v);
  try {
    const run::SimRequest traced = request_of(v, shape, machine);
    const std::shared_ptr<const LoadedKernel> k = open_kernel(traced, {}, cancel);
    const model::SimStats& st = k->report.result.stats;
    const TimelineData t = timeline_data(*k);
    s.cycles = t.end_cycle;
    s.clock_hz = st.prediction.clock_hz > 0.0 ? st.prediction.clock_hz
                                                : (st.predicted_on ? st.predicted_on->clock_hz : model::timing::kClockHz);
    s.traced = st;
    s.tensor_busy_share = t.tensor_busy_share();
    s.warps = uint32_t(t.rows.size());
    s.hazards = k->report.result.hazards.size();
    s.stalls = top_stalls(t.stalls);
    const ScheduleData sched = schedule_waves(*k);
    s.schedule_headline = sched.headline;
    s.waves_text = sched.waves_text;
    s.ctas_per_sm = sched.ctas_per_sm;
    s.occupancy_bound = sched.occupancy.binding;
    s.wave_efficiency = sched.wave_efficiency;
    add_lanes(t, *k, s.clock_hz, label, lanes);
    for (size_t i = lanes.size() - std::min<size_t>(t.rows.size(), kCompareWarps); i < lanes.size(); ++i)
      for (const TimelineSegment& g : lanes[i].segments) end_ps = std::max(end_ps, g.end);
  } catch (const std::exception& e) {
    s.error = e.what();
    return s;
  }
  if (cancel && cancel->load()) return s;
  try {
    // As `sim --traced-cta-only` predicts it (traced: the L1 and the store path count), the speed
    // ladder's figure for the same build.
    const run::SimReport report =
        run::run_sim(run::prediction_request(v.id, in.prediction_shape, v.params, v.mistakes, machine));
    const model::SimStats& st = report.result.stats;
    s.prediction = st.prediction;
    s.predicted_tflops = st.predicted_tflops;
    s.machine = st.predicted_on ? st.predicted_on->name : "";
    s.parts = prediction_parts(st.prediction);
    s.predicted = s.predicted_tflops > 0.0 && st.prediction.waves > 0;
    if (!s.predicted)
      s.prediction_error = report.result.completed ? "the model made no prediction" : report.result.error;
  } catch (const std::exception& e) {
    s.prediction_error = e.what();
  }
  return s;
}

const char* bound_words(const CompareSide& s) { return s.prediction.parts.bound ? s.prediction.parts.bound : "?"; }

// "B is predicted 1.80x faster than A: A is bound by L1 data path, B by tensor cores".
std::string bought_line(const CompareData& d) {
  if (!d.a.predicted || !d.b.predicted) return "";
  const double r = d.why.speedup;
  const std::string verdict =
      std::abs(r - 1.0) < 0.01
          ? "B is predicted as fast as A"
          : fmt::format("B is predicted {:.2f}x {} than A", r > 1.0 ? r : 1.0 / r, r > 1.0 ? "faster" : "slower");
  const std::string ba = bound_words(d.a), bb = bound_words(d.b);
  const std::string bounds = ba == bb ? fmt::format("both are bound by {}", ba)
                                      : fmt::format("A is bound by {}, B by {}", ba, bb);
  return fmt::format("{} ({:.1f} vs {:.1f} TFLOP/s at {}): {}", verdict, d.b.predicted_tflops, d.a.predicted_tflops,
                     shape_text(d.prediction_shape), bounds);
}

std::string variant_json_name(const run::KernelVariant& v) { return variant_text(v); }

}  // namespace

run::KernelVariant parse_variant(std::string_view text) {
  run::KernelVariant v;
  std::vector<std::string_view> pieces;
  for (size_t at = 0;;) {
    const size_t plus = text.find('+', at);
    pieces.push_back(text.substr(at, plus == std::string_view::npos ? std::string_view::npos : plus - at));
    if (plus == std::string_view::npos) break;
    at = plus + 1;
  }
  std::string_view head = pieces.front();
  const size_t colon = head.find(':');
  v.id = std::string(head.substr(0, colon));
  if (v.id.empty())
    throw kernels::ConfigError(fmt::format("'{}' names no kernel: write ID[:NAME=V,...][+MISTAKE], e.g. "
                                           "hopper_producer_consumer:stages=2",
                                           text));
  const kernels::KernelInfo& info = kernels::kernel_or_throw(v.id);
  if (colon != std::string_view::npos) {
    std::string_view rest = head.substr(colon + 1);
    for (size_t at = 0; at <= rest.size();) {
      const size_t comma = std::min(rest.find(',', at), rest.size());
      const auto [name, value] = parse_param(info, rest.substr(at, comma - at));
      v.params[name] = value;
      at = comma + 1;
    }
  }
  for (size_t i = 1; i < pieces.size(); ++i) {
    if (pieces[i].empty()) throw kernels::ConfigError(fmt::format("'{}' has an empty mistake after '+'", text));
    v.mistakes.insert(std::string(pieces[i]));
  }
  check_variant(v);
  return v;
}

void check_variant(const run::KernelVariant& v) {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(v.id);
  kernels::require_mistakes(info, v.mistakes);
  kernels::resolve_params(info, v.params);
}

std::string variant_text(const run::KernelVariant& v) {
  std::string out = v.id;
  std::vector<std::string> ps;
  for (const auto& [name, value] : v.params) ps.push_back(fmt::format("{}={}", name, value));
  if (!ps.empty()) out += ":" + join(ps, ",");
  for (const std::string& m : v.mistakes) out += "+" + m;
  return out;
}

run::KernelVariant default_variant_b(const AppState& app) {
  if (!app.kernel) return {};
  const run::SimRequest& r = app.kernel->request;
  return {r.kernel_id, r.params, r.mistakes};
}

run::KernelVariant default_variant_a(const run::KernelVariant& b) {
  const kernels::KernelInfo* info = kernels::find_kernel(b.id);
  if (!info) return {};
  // What the mistake breaks, what the build's parameters buy: against the step as it ships.
  if (!b.mistakes.empty()) return {b.id, b.params, {}};
  try {
    if (!kernels::non_default_params_text(*info, b.params).empty()) return {b.id, {}, {}};
  } catch (const kernels::ConfigError&) {
  }
  const auto all = kernels::all_kernels();
  for (size_t i = 1; i < all.size(); ++i)
    if (all[i].id == b.id) return {all[i - 1].id, {}, {}};
  // The first step: itself, built otherwise.
  if (!info->params.empty()) {
    const kernels::BuildParam& p = info->params.front();
    for (uint32_t c : p.choices)
      if (c != p.default_value) {
        run::KernelVariant a{b.id, {{p.name, c}}, {}};
        try {
          kernels::resolve_params(*info, a.params);
          return a;
        } catch (const kernels::ConfigError&) {
        }
      }
  }
  return all.size() > 1 ? run::KernelVariant{all[1].id, {}, {}} : run::KernelVariant{b.id, {}, {}};
}

std::string compare_key(const CompareInputs& in) {
  return fmt::format("{}|{}|{}x{}x{}|{}x{}x{}|{}|{}", variant_text(in.a), variant_text(in.b), in.shape.m, in.shape.n,
                     in.shape.k, in.prediction_shape.m, in.prediction_shape.n, in.prediction_shape.k,
                     in.machine_a ? in.machine_a->key : "", in.machine_b ? in.machine_b->key : "");
}

std::optional<CompareInputs> compare_inputs(const AppState& app) {
  if (!app.kernel) return std::nullopt;
  CompareInputs in;
  in.b = app.compare_view.b ? *app.compare_view.b : default_variant_b(app);
  in.a = app.compare_view.a ? *app.compare_view.a : default_variant_a(in.b);
  in.shape = app.kernel->report.shape;
  in.prediction_shape = app.compare_view.prediction_shape;
  const std::string card = reference_card(app);
  for (auto [v, machine, measured, why] :
       {std::tuple{&in.a, &in.machine_a, &in.measured_a, &in.not_measured_a},
        std::tuple{&in.b, &in.machine_b, &in.measured_b, &in.not_measured_b}}) {
    const kernels::KernelInfo* info = kernels::find_kernel(v->id);
    if (!info) continue;
    *machine = &ladder_machine(app, info->arch);
    if (!v->mistakes.empty()) {
      *why = "a build with a mistake is not measured";
      continue;
    }
    const kernels::GemmShape ps = in.prediction_shape;
    if (ps.m != kSpeedShape.m || ps.n != kSpeedShape.n || ps.k != kSpeedShape.k) {
      *why = fmt::format("measurements are at {}", shape_text(kSpeedShape));
      continue;
    }
    std::string build;
    try {
      build = kernels::non_default_params_text(*info, v->params);
    } catch (const std::exception&) {
    }
    *measured = measured_build(app.speed_ladder, app.measurements, card, v->id, build);
    if (!*measured) *why = fmt::format("not measured at {}{}", shape_text(kSpeedShape), build.empty() ? "" : " with " + build);
  }
  return in;
}

CompareData compute_compare(const CompareInputs& in, const std::atomic<bool>* cancel) {
  CompareData d;
  d.key = compare_key(in);
  d.prediction_shape = in.prediction_shape;
  d.a.variant = in.a;
  d.b.variant = in.b;
  d.a.name = run::variant_name(in.a);
  d.b.name = run::variant_name(in.b);
  // A variant the kernel does not take is its side's error; a shape neither takes is both's.
  for (CompareSide* s : {&d.a, &d.b}) try {
      check_variant(s->variant);
    } catch (const std::exception& e) {
      s->error = e.what();
    }
  if (d.a.ok() && d.b.ok()) try {
      d.shape = common_shape(in, d.shape_note);
    } catch (const std::exception& e) {
      d.a.error = d.b.error = e.what();
    }
  if (!d.a.ok() || !d.b.ok()) {
    d.diff_error = !d.a.ok() ? d.a.error : d.b.error;
    return d;
  }
  d.a = side_of(in.a, in, d.shape, in.machine_a, cancel, d.lanes, "A", d.end_ps);
  d.lanes_a = uint32_t(d.lanes.size());
  if (cancel && cancel->load()) return d;
  d.b = side_of(in.b, in, d.shape, in.machine_b, cancel, d.lanes, "B", d.end_ps);
  for (auto [side, measured, why] : {std::tuple{&d.a, &in.measured_a, &in.not_measured_a},
                                     std::tuple{&d.b, &in.measured_b, &in.not_measured_b}}) {
    side->measured = *measured;
    side->not_measured = *why;
  }
  if (d.a.warps > kCompareWarps || d.b.warps > kCompareWarps)
    d.lanes_note = fmt::format("the first {} warps of each ({} in A, {} in B)", kCompareWarps, d.a.warps, d.b.warps);
  if (d.a.predicted && d.b.predicted) {
    d.why = model::timing::compare_predictions(d.a.prediction, "A", d.b.prediction, "B");
    d.bought = bought_line(d);
  }
  if (d.a.measured && d.b.measured && d.a.measured->device == d.b.measured->device && d.a.measured->tflops > 0.0)
    d.measured_ratio = d.b.measured->tflops / d.a.measured->tflops;
  try {
    d.diff = run::diff_variants(in.a, in.b, d.shape);
  } catch (const std::exception& e) {
    d.diff_error = e.what();
  }
  return d;
}

bool compare_current(const AppState& app) {
  const std::optional<CompareInputs> in = compare_inputs(app);
  return in && app.compare.data && app.compare.data->key == compare_key(*in);
}

const CompareData* request_compare(AppState& app) {
  const std::optional<CompareInputs> in = compare_inputs(app);
  if (!in) return app.compare.data.get();
  const std::string key = compare_key(*in);
  if ((app.compare.data && app.compare.data->key == key) || app.compare.pending == key) return app.compare.data.get();
  app.cancel_jobs(JobKind::compare);
  app.compare.pending = key;
  app.jobs.push_back(std::make_unique<Job>(
      JobKind::compare, fmt::format("compare {} with {}", run::variant_name(in->a), run::variant_name(in->b)),
      [in = *in](JobContext& ctx) {
        ctx.set_status(fmt::format("model runs of {} and {}", run::variant_name(in.a), run::variant_name(in.b)));
        auto d = std::make_shared<const CompareData>(compute_compare(in, &ctx.cancel));
        if (ctx.cancel.load()) return;
        ctx.complete([d](AppState& a) {
          if (a.compare.pending == d->key) a.compare.pending.clear();
          a.compare.data = d;
        });
      },
      [key](AppState& a, const std::string& msg) {
        if (a.compare.pending == key) a.compare.pending.clear();
        a.add_problem({Severity::error, "app", "compare", "the comparison failed", msg});
      }));
  return app.compare.data.get();
}

void compare_now(AppState& app) {
  const std::optional<CompareInputs> in = compare_inputs(app);
  if (!in) return;
  app.cancel_jobs(JobKind::compare);
  app.compare.pending.clear();
  app.compare.data = std::make_shared<const CompareData>(compute_compare(*in));
}

namespace {

nlohmann::json side_json(const CompareSide& s) {
  nlohmann::json parts = nlohmann::json::array();
  for (const PredictionPart& p : s.parts)
    parts.push_back({{"name", p.name}, {"cycles", p.cycles}, {"share", p.share}, {"bound", p.bound}});
  nlohmann::json stalls = nlohmann::json::array();
  for (const CompareStall& c : s.stalls) stalls.push_back({{"name", c.name}, {"cycles", c.cycles}, {"share", c.share}});
  return {{"variant", variant_json_name(s.variant)},
          {"name", s.name},
          {"error", s.error},
          {"predicted", s.predicted},
          {"prediction_error", s.prediction_error},
          {"predicted_tflops", s.predicted_tflops},
          {"machine", s.machine},
          {"bound", s.predicted ? nlohmann::json(bound_words(s)) : nlohmann::json(nullptr)},
          {"parts", parts},
          {"measured_tflops", s.measured ? nlohmann::json(s.measured->tflops) : nlohmann::json(nullptr)},
          {"measured_source", s.measured ? s.measured->source : s.not_measured},
          {"cycles", s.cycles},
          {"clock_hz", s.clock_hz},
          {"warps", s.warps},
          {"warp_instructions", s.traced.traced_cost.warp_instructions},
          {"tensor_busy_share", s.tensor_busy_share},
          {"smem", {{"bytes", s.traced.traced_cost.smem_bytes},
                    {"accesses", s.traced.smem_accesses},
                    {"wavefronts", s.traced.smem_wavefronts},
                    {"ideal_wavefronts", s.traced.smem_ideal_wavefronts},
                    {"bank_conflicts", s.traced.smem_bank_conflicts},
                    {"tensor_wavefronts", s.traced.tensor_smem_wavefronts},
                    {"tensor_bank_conflicts", s.traced.tensor_smem_bank_conflicts}}},
          {"tma_bytes", s.traced.traced_cost.tma_bytes},
          {"global_load_bytes", s.traced.traced_cost.global_load_bytes},
          {"hazards", s.hazards},
          {"stalls", stalls},
          {"schedule", {{"headline", s.schedule_headline},
                        {"waves", s.waves_text},
                        {"ctas_per_sm", s.ctas_per_sm},
                        {"occupancy_bound", s.occupancy_bound},
                        {"wave_efficiency", s.wave_efficiency}}}};
}

}  // namespace

nlohmann::json describe_compare(AppState& app) {
  const std::optional<CompareInputs> in = compare_inputs(app);
  nlohmann::json j = {{"a", in ? variant_text(in->a) : ""},
                      {"b", in ? variant_text(in->b) : ""},
                      {"show_ptx", app.compare_view.show_ptx},
                      {"current", compare_current(app)},
                      {"pending", !app.compare.pending.empty()}};
  const CompareData* d = app.compare.data.get();
  if (!d || !compare_current(app)) return j;
  nlohmann::json lanes = nlohmann::json::array();
  for (size_t i = 0; i < d->lanes.size(); ++i) {
    const CompareLane& l = d->lanes[i];
    lanes.push_back({{"label", l.label},
                     {"side", i < d->lanes_a ? "A" : "B"},
                     {"segments", l.segments.size()},
                     {"end_ps", l.segments.empty() ? 0 : l.segments.back().end}});
  }
  j["shape"] = {d->shape.m, d->shape.n, d->shape.k};
  j["shape_note"] = d->shape_note;
  j["prediction_shape"] = {d->prediction_shape.m, d->prediction_shape.n, d->prediction_shape.k};
  j["side_a"] = side_json(d->a);
  j["side_b"] = side_json(d->b);
  j["bought"] = d->bought;
  j["why"] = d->why.lines;
  j["speedup"] = d->why.speedup;
  j["measured_ratio"] = d->measured_ratio ? nlohmann::json(*d->measured_ratio) : nlohmann::json(nullptr);
  j["end_ps"] = d->end_ps;
  j["lanes"] = lanes;
  j["diff"] = {{"error", d->diff_error},
               {"left", d->diff.left_name},
               {"right", d->diff.right_name},
               {"summary", d->diff.summary},
               {"source", diff_counts_json(d->diff.source)},
               {"ptx", diff_counts_json(d->diff.ptx)}};
  return j;
}

}  // namespace gs::gui
