#include "gui/core/speed_ladder.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "engine/ir/ops.hpp"
#include "engine/model/timing.hpp"
#include "gui/core/app_state.hpp"
#include "gui/core/gpu_presence.hpp"
#include "gui/core/prediction_cache.hpp"
#include "run/sim_job.hpp"

namespace gs::gui {

namespace fs = std::filesystem;

namespace {

bool is_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool same_shape(kernels::GemmShape a, kernels::GemmShape b) { return a.m == b.m && a.n == b.n && a.k == b.k; }

std::string cube_text(kernels::GemmShape s) {
  return s.m == s.n && s.n == s.k ? fmt::format("{}³", s.m) : fmt::format("{}x{}x{}", s.m, s.n, s.k);
}

// The variant of `id` at the ladder's shape among `m`'s variants of `source`: the kernel as it
// ships ("" build) first, else the first of another build; with `build`, that build only.
const Variant* find_variant(const Measurements& m, const std::string& id, MeasurementSource source,
                            const std::string* build = nullptr) {
  const Variant* other = nullptr;
  for (const Variant& v : m.variants) {
    if (v.kernel_id != id || v.source != source || !same_shape(v.shape, kSpeedShape) || v.points.empty()) continue;
    if (build) {
      if (v.params == *build) return &v;
      continue;
    }
    if (v.params.empty()) return &v;
    // A mistake's run is never the step's speed.
    if (!other && v.params.find("mistake") == std::string::npos) other = &v;
  }
  return other;
}

MeasuredSpeed measured_of(const Variant& v, std::string source, bool yours) {
  MeasuredSpeed s;
  s.tflops = v.latest_tflops();
  s.cublas_tflops = v.latest_cublas();
  s.device = v.device;
  s.source = std::move(source);
  s.yours = yours;
  if (!v.points.empty()) s.sustained_ms = v.points.back().notes.sustained_ms;
  return s;
}

// The shipped runs in the order they are asked: the preferred card's first.
std::vector<const ReferenceRun*> runs_in_order(const SpeedLadder& ladder, const std::string& reference_card) {
  std::vector<const ReferenceRun*> order;
  for (const ReferenceRun& r : ladder.references)
    if (r.card == upper(reference_card)) order.push_back(&r);
  for (const ReferenceRun& r : ladder.references)
    if (r.card != upper(reference_card)) order.push_back(&r);
  return order;
}

// `id` measured on the learner's GPU, else in the first shipped run of `order` that has it
// (find_variant: `build` only, when given).
std::optional<MeasuredSpeed> measured_in(const std::vector<const ReferenceRun*>& order, const Measurements& mine,
                                         const std::string& id, const std::string* build) {
  if (const Variant* v = find_variant(mine, id, MeasurementSource::gpu, build)) return measured_of(*v, "your GPU", true);
  for (const ReferenceRun* r : order)
    if (const Variant* v = find_variant(r->results, id, MeasurementSource::imported, build))
      return measured_of(*v, fmt::format("{}, {}, shipped", r->card, r->date), false);
  return std::nullopt;
}

}  // namespace

std::string measured_method(const MeasuredSpeed& m) {
  if (!m.sustained_ms) return {};
  if (timed_under_power_limit(m.sustained_ms))
    return fmt::format("after {:.0f} s of load: under the power limit, as the model predicts", *m.sustained_ms / 1000.0);
  return "short runs: a clock above the power-limited one the model predicts";
}

// The machine the ladder predicts a step on: the card asked for (--machine) when it runs the
// step's code, else the GPU found here when the model knows it, else the step's target's.
const model::timing::Machine& ladder_machine(const AppState& app, ir::Arch arch) {
  if (app.predict_on && model::timing::machine_runs(*app.predict_on, arch)) return *app.predict_on;
  if (const model::timing::Machine* m = predicted_card(app.gpu, arch)) return *m;
  return model::timing::machine_for(arch);
}

namespace {

struct PredictionTask {
  std::string key;
  run::SimRequest request;
};

// The steps whose prediction is not kept yet, each as the run that makes it.
std::vector<PredictionTask> missing_predictions(const AppState& app, std::optional<ir::Arch> only = std::nullopt) {
  std::vector<PredictionTask> tasks;
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    if (only && info.arch != *only) continue;
    const kernels::ParamValues params = info.id == app.request.kernel_id ? app.request.params : kernels::ParamValues{};
    const model::timing::Machine& machine = ladder_machine(app, info.arch);
    const std::string key = prediction_key(info.id, params, machine.name);
    if (app.speed_ladder.predictions.count(key)) continue;
    // As `sim --traced-cta-only` predicts it, traced: the same figure as the command line's.
    tasks.push_back({key, run::prediction_request(info.id, kSpeedShape, params, {}, &machine)});
  }
  return tasks;
}

SpeedPrediction predict(const run::SimRequest& r) {
  SpeedPrediction p;
  p.done = true;
  p.machine = r.machine->name;
  p.confirmed = r.machine->confirmed;
  try {
    const run::SimReport report = run::run_sim(r);
    p.tflops = report.result.stats.predicted_tflops;
    if (report.result.stats.predicted_on) p.machine = report.result.stats.predicted_on->name;
    if (!(p.tflops > 0.0)) p.error = "the model made no prediction";
  } catch (const std::exception& e) {
    p.error = e.what();
  }
  return p;
}

}  // namespace

std::vector<ReferenceRun> load_reference_runs(const std::string& dir) {
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec))
    throw std::runtime_error(fmt::format("no reference measurements: '{}' is not a folder", dir));
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<ReferenceRun> runs;
  for (const fs::path& f : files) {
    ReferenceRun run;
    run.file = f.filename().string();
    // <card>-<YYYY-MM-DD>-<what>.json
    const size_t dash = run.file.find('-');
    if (dash == std::string::npos || dash == 0 || !is_date(std::string_view(run.file).substr(dash + 1, 10)))
      throw std::runtime_error(fmt::format("'{}': a reference run is named <card>-<YYYY-MM-DD>-<what>.json, e.g. "
                                           "h200-2026-11-28-ladder.json",
                                           f.string()));
    run.card = upper(run.file.substr(0, dash));
    run.date = run.file.substr(dash + 1, 10);
    run.results.import_file(f.string(), 0.0);
    runs.push_back(std::move(run));
  }
  if (runs.empty()) throw std::runtime_error(fmt::format("no reference measurements: '{}' has no .json file", dir));
  return runs;
}

std::string prediction_key(const std::string& kernel_id, const kernels::ParamValues& params,
                           const std::string& machine) {
  return fmt::format("{}|{}|{}", kernel_id, kernels::params_text(params), machine);
}

bool device_is(const std::string& device, const std::string& card) {
  if (card.empty()) return false;
  // "H100" in "NVIDIA H100 80GB HBM3" as a word of its own (not "H1000").
  const std::string d = upper(device), c = upper(card);
  for (size_t at = d.find(c); at != std::string::npos; at = d.find(c, at + 1)) {
    const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(d[at - 1]));
    const size_t end = at + c.size();
    const bool ends = end == d.size() || !std::isalnum(static_cast<unsigned char>(d[end]));
    if (starts && ends) return true;
  }
  return false;
}

namespace {

// Why the figures change kind at `step`, the first of an architecture `before` does not run and
// no shipped run measured: the instructions only its architecture has (the op table's families
// of ops that run on it and not on `before`'s), the steps that need it, the cards that were
// measured (`cards`, "H100, H200") and the card the model predicts them on.
std::string gap_sentence(const kernels::KernelInfo& before, const kernels::KernelInfo& step, const SpeedRow& row,
                         const std::string& cards) {
  std::vector<std::string_view> families;
  for (const ir::OpInfo& op : ir::all_ops()) {
    const bool here = (op.archs & ir::arch_bit(step.arch)) != 0, there = (op.archs & ir::arch_bit(before.arch)) != 0;
    const std::string_view f = ir::family_name(op.family);
    if (here && !there && std::find(families.begin(), families.end(), f) == families.end()) families.push_back(f);
  }
  std::string ops;
  for (size_t i = 0; i < families.size(); ++i)
    ops += (i == 0 ? "" : i + 1 == families.size() ? " and " : ", ") + std::string(families[i]);
  int last = step.step;
  for (const kernels::KernelInfo& k : kernels::all_kernels())
    if (k.arch == step.arch && k.step > last) last = k.step;
  const std::string steps =
      last > step.step ? fmt::format("Steps {}-{}", step.step, last) : fmt::format("Step {}", step.step);
  std::string figures = "the model's";
  if (row.predicted && row.predicted->done && row.predicted->error.empty())
    figures = fmt::format("the model's on a {}{}", row.predicted->machine,
                          row.predicted->confirmed ? "" : ", from NVIDIA's published figures, unconfirmed");
  return fmt::format("{} need {}{}, which {}: their speeds are {}. Step {}'s lesson says more.", steps,
                     ir::arch_name(step.arch), ops.empty() ? "" : " (" + ops + " instructions)",
                     cards.empty() ? "no GPU measured here has" : "the GPUs measured here (" + cards + ") lack",
                     figures, step.step);
}

}  // namespace

std::vector<SpeedRow> speed_rows(const SpeedLadder& ladder, const Measurements& mine, const std::string& reference_card,
                                 const std::string& selected_id, const kernels::ParamValues& selected_params) {
  const std::vector<const ReferenceRun*> order = runs_in_order(ladder, reference_card);

  std::string cards;  // the shipped runs' cards, each once
  for (const ReferenceRun* r : order)
    if (cards.find(r->card) == std::string::npos) cards += (cards.empty() ? "" : ", ") + r->card;

  std::vector<SpeedRow> rows;
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    SpeedRow row;
    row.kernel_id = info.id;
    row.step = info.step;
    row.title = info.title;
    row.selected = info.id == selected_id;
    // The predictions kept for this step, of its build (the selected step's edited one).
    const kernels::ParamValues params = row.selected ? selected_params : kernels::ParamValues{};
    const std::string prefix = prediction_key(info.id, params, "");
    for (const auto& [key, p] : ladder.predictions)
      if (key.starts_with(prefix) && key.find('|', prefix.size()) == std::string::npos) {
        // Several cards: the reference card's, else any.
        if (!row.predicted || device_is(p.machine, reference_card)) row.predicted = p;
      }
    row.measured = measured_in(order, mine, info.id, nullptr);
    if (!row.measured)
      row.not_measured = info.family == kernels::Family::blackwell ? "not measured here (no Blackwell GPU was run)"
                                                                   : "not measured at 4096³ yet";
    if (row.measured && row.measured->cublas_tflops)
      row.vs_cublas = row.measured->tflops / *row.measured->cublas_tflops;
    if (!rows.empty() && row.measured && rows.back().measured &&
        rows.back().measured->device == row.measured->device && rows.back().measured->tflops > 0.0)
      row.vs_previous = row.measured->tflops / rows.back().measured->tflops;
    row.published = run::published_for_step(info.step);
    const kernels::KernelInfo* before = rows.empty() ? nullptr : kernels::find_kernel(rows.back().kernel_id);
    if (before && before->arch != info.arch && !row.measured) row.gap_before = gap_sentence(*before, info, row, cards);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string prediction_standing(const SpeedPrediction& p) {
  const std::string card = p.machine.empty() ? "the model's card" : p.machine;
  const bool vowel = !card.empty() && std::string_view("AEFHILMNORSX").find(card[0]) != std::string_view::npos;
  return fmt::format("predicted on {}{}{}", vowel ? "an " : "a ", card,
                     p.confirmed ? "" : " from NVIDIA's figures, unconfirmed");
}

std::string reference_card(const AppState& app) {
  const kernels::KernelInfo* info = kernels::find_kernel(app.request.kernel_id);
  // A Blackwell step has no shipped run: the Hopper card the other steps are predicted on.
  const ir::Arch arch = info && info->arch != ir::Arch::sm_100a ? info->arch : ir::Arch::sm_90a;
  return ladder_machine(app, arch).name;
}

std::optional<MeasuredSpeed> measured_build(const SpeedLadder& ladder, const Measurements& mine,
                                            const std::string& reference_card, const std::string& id,
                                            const std::string& build) {
  return measured_in(runs_in_order(ladder, reference_card), mine, id, &build);
}

std::vector<SpeedRow> speed_rows(const AppState& app) {
  return speed_rows(app.speed_ladder, app.measurements, reference_card(app), app.request.kernel_id,
                    app.request.params);
}

std::string gpu_fill_sentence(uint64_t ctas, uint32_t sms, kernels::GemmShape speed_shape) {
  if (sms == 0 || ctas >= sms) return "";
  const double share = 100.0 * double(ctas) / double(sms);
  return fmt::format("{} CTA{} on {} SMs: {:.0f}% of the GPU; speed shown at {}", ctas, ctas == 1 ? "" : "s", sms,
                     std::max(1.0, share), cube_text(speed_shape));
}

std::string gpu_fill_sentence(const AppState& app) {
  if (!app.kernel) return "";
  const auto& stats = app.kernel->report.result.stats;
  const auto& grid = app.kernel->kernel().launch.grid;
  const uint64_t ctas = uint64_t(grid[0]) * grid[1] * grid[2];
  const uint32_t sms = stats.predicted_on ? stats.predicted_on->sms : 0;
  return gpu_fill_sentence(ctas, sms);
}

void request_speed_predictions(AppState& app) {
  if (app.running_job(JobKind::speed_ladder)) return;
  std::vector<PredictionTask> tasks = missing_predictions(app);
  if (tasks.empty()) return;
  for (const PredictionTask& t : tasks) app.speed_ladder.predictions[t.key] = SpeedPrediction{};  // pending
  const size_t n = tasks.size();
  app.jobs.push_back(std::make_unique<Job>(
      JobKind::speed_ladder, fmt::format("model speed of {} step(s) at {}", n, cube_text(kSpeedShape)),
      [tasks = std::move(tasks)](JobContext& ctx) {
        for (size_t i = 0; i < tasks.size() && !ctx.cancel; ++i) {
          ctx.set_status(fmt::format("{} ({} of {})", tasks[i].request.kernel_id, i + 1, tasks.size()));
          SpeedPrediction p = predict(tasks[i].request);
          ctx.complete([key = tasks[i].key, p](AppState& a) { a.speed_ladder.predictions[key] = p; });
          ctx.progress(i + 1, tasks.size());
        }
        // Cancelled: the steps not reached are asked again next time.
        ctx.complete([tasks](AppState& a) {
          auto& kept = a.speed_ladder.predictions;
          for (const PredictionTask& t : tasks)
            if (auto it = kept.find(t.key); it != kept.end() && !it->second.done) kept.erase(it);
          keep_predictions(a.speed_ladder);
        });
      },
      [](AppState& a, const std::string& msg) {
        for (auto& [key, p] : a.speed_ladder.predictions)
          if (!p.done) p = SpeedPrediction{true, 0.0, "", true, msg};
      }));
}

void predict_speed_ladder_now(AppState& app, std::optional<ir::Arch> only) {
  // The runs are independent: spread over the cores (25 steps take about 9 s on one).
  const std::vector<PredictionTask> tasks = missing_predictions(app, only);
  std::vector<SpeedPrediction> out(tasks.size());
  std::atomic<size_t> next{0};
  const auto work = [&] {
    for (size_t i = next++; i < tasks.size(); i = next++) out[i] = predict(tasks[i].request);
  };
  std::vector<std::thread> threads(std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8) - 1);
  for (std::thread& t : threads) t = std::thread(work);
  work();
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < tasks.size(); ++i) app.speed_ladder.predictions[tasks[i].key] = out[i];
  if (!tasks.empty()) keep_predictions(app.speed_ladder);
}

void read_kept_predictions(SpeedLadder& ladder) {
  for (auto& [key, p] : load_prediction_cache(ladder.cache_dir, ladder.program)) ladder.predictions.emplace(key, p);
}

void keep_predictions(const SpeedLadder& ladder) {
  // A cache that cannot be written costs the next run its time only: nothing to tell the user.
  save_prediction_cache(ladder.cache_dir, ladder.program, ladder.predictions);
}

nlohmann::json published_json(const run::PublishedFigure& f) {
  return {{"id", f.id},
          {"tflops", f.tflops},
          {"cublas_tflops", f.cublas_tflops > 0.0 ? nlohmann::json(f.cublas_tflops) : nlohmann::json(nullptr)},
          {"source", f.source},
          {"stage", f.stage},
          {"card", f.card},
          {"shape", {{"m", f.shape.m}, {"n", f.shape.n}, {"k", f.shape.k}}},
          {"date", f.date},
          {"url", f.url},
          {"differs", f.differs},
          {"standing", run::kPublishedNotMeasured}};
}

nlohmann::json describe_speed_ladder(AppState& app) {
  nlohmann::json rows = nlohmann::json::array();
  for (const SpeedRow& r : speed_rows(app)) {
    nlohmann::json row{{"kernel", r.kernel_id}, {"step", r.step}, {"selected", r.selected}};
    if (!r.predicted) row["predicted"] = nullptr;
    else if (!r.predicted->done) row["predicted"] = "pending";
    else if (!r.predicted->error.empty()) row["predicted"] = {{"error", r.predicted->error}};
    else
      row["predicted"] = {{"tflops", r.predicted->tflops},
                          {"machine", r.predicted->machine},
                          {"confirmed", r.predicted->confirmed}};
    const auto or_null = [](const std::optional<double>& x) {
      return x ? nlohmann::json(*x) : nlohmann::json(nullptr);
    };
    if (r.measured)
      row["measured"] = {{"tflops", r.measured->tflops},
                         {"cublas_tflops", or_null(r.measured->cublas_tflops)},
                         {"device", r.measured->device},
                         {"source", r.measured->source},
                         {"yours", r.measured->yours},
                         {"sustained_ms", or_null(r.measured->sustained_ms)},
                         {"method", measured_method(*r.measured)}};
    else
      row["measured"] = {{"none", r.not_measured}};
    nlohmann::json published = nlohmann::json::array();
    for (const run::PublishedFigure* f : r.published) published.push_back(published_json(*f));
    row["published"] = std::move(published);
    row["vs_previous"] = or_null(r.vs_previous);
    row["vs_cublas"] = or_null(r.vs_cublas);
    if (!r.gap_before.empty()) row["gap_before"] = r.gap_before;
    rows.push_back(std::move(row));
  }
  nlohmann::json refs = nlohmann::json::array();
  for (const ReferenceRun& r : app.speed_ladder.references)
    refs.push_back({{"file", r.file}, {"card", r.card}, {"date", r.date}, {"results", r.results.variants.size()}});
  return {{"shape", {{"m", kSpeedShape.m}, {"n", kSpeedShape.n}, {"k", kSpeedShape.k}}},
          {"reference_card", reference_card(app)},
          {"references", refs},
          {"references_error", app.speed_ladder.references_error},
          {"gpu_fill", gpu_fill_sentence(app)},
          {"rows", rows}};
}

}  // namespace gs::gui
