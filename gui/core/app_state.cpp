#include "gui/core/app_state.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "run/gpu_bench.hpp"
#include "gui/core/advisories.hpp"
#include "gui/core/model_problems.hpp"
#include "gui/core/resource_advice.hpp"
#include "gui/core/view_data.hpp"

namespace gs::gui {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::error: return "error";
    case Severity::warning: return "warning";
    case Severity::info: return "info";
  }
  return "?";
}

namespace {

std::string shape_text(kernels::GemmShape s) { return fmt::format("{}x{}x{}", s.m, s.n, s.k); }

// Model hazards of a loaded kernel as problems (the trace's first, then whole-grid ones).
void add_model_problems(AppState& app, const LoadedKernel& k) {
  for (Problem& p : model_problems(k)) app.add_problem(std::move(p));
}

// The status line after the user cancelled `job`: what was cancelled and what is still shown.
std::string cancelled_status(const AppState& app, const std::string& job) {
  if (!app.kernel) return fmt::format("cancelled {}; nothing is loaded", job);
  const run::SimRequest& r = app.kernel->request;
  return fmt::format("cancelled {}; still showing {} {} ({})", job, r.kernel_id, shape_text(r.shape),
                     app.kernel->report.judged ? "whole grid, judged" : "one CTA traced, not judged");
}

}  // namespace

void AppState::add_problem(Problem p) { problems.push_back(std::move(p)); }

double AppState::seconds_since_start() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

void AppState::set_kernel(std::shared_ptr<const LoadedKernel> k) {
  // Problems from the previous kernel's model run go; GPU and app problems stay.
  problems.erase(std::remove_if(problems.begin(), problems.end(), [](const Problem& p) { return p.source == "model"; }),
                 problems.end());
  kernel = std::move(k);
  index = kernel ? std::make_unique<PlaybackIndex>(kernel) : nullptr;
  playback = Playback{.speed = playback.speed};
  selection = Selection{};
  if (!kernel) return;
  request = kernel->request;
  add_model_problems(*this, *kernel);
  for (Problem& p : advisories(kernel)) add_problem(std::move(p));
  update_resource_advice(*this);  // spills and occupancy: once ptxas has counted the registers
  const model::SimStats& st = kernel->report.result.stats;
  if (st.predicted_tflops > 0.0) {
    // The prediction travels with the model's point, parts and all (measurements.hpp), under
    // the build that ran, so it pairs with a GPU run or an imported result of the same build.
    const run::SimReport& r = kernel->report;
    ModelPrediction parts{st.prediction, st.predicted_on->name, st.predicted_on->sms,
                          r.registers > 0 ? fmt::format("{} per thread ({})", r.registers, r.registers_source)
                                          : r.registers_source};
    const std::vector<std::string> mistakes(kernel->request.mistakes.begin(), kernel->request.mistakes.end());
    measurements.add_model_prediction(kernel->request.kernel_id, kernel->request.shape, st.predicted_tflops,
                                      st.predicted_on->name, seconds_since_start(), std::move(parts),
                                      variant_build(kernel->request.kernel_id, kernel->request.params, mistakes));
  }
  // Start on the first instruction, warp 0 selected.
  if (auto first = gui::step(*kernel, 0, StepUnit::instruction, true)) playback.position = *first;
  selection.warp = 0;
  if (const Snapshot* s = snapshot(); s && !s->warps.empty()) selection.inst = s->warps[0].inst;
  status = fmt::format("opened {} {} in {:.2f} s", kernel->request.kernel_id, shape_text(kernel->request.shape),
                       kernel->open_seconds);
}

namespace {

// The request with the card to predict on, the first that runs the kernel's code of: the one
// the request names, the one the user asked for (--machine), the GPU found here when the model
// knows it (an H200: the H200's figures); else none (the kernel's target's machine). A request
// copied from another kernel's keeps that card where it can (a Hopper card for a Blackwell step
// cannot).
run::SimRequest on_this_card(const run::SimRequest& asked, const model::timing::Machine* predict_on,
                             const GpuPresence& gpu) {
  run::SimRequest r = asked;
  const kernels::KernelInfo* info = kernels::find_kernel(r.kernel_id);
  if (!info) return r;  // opening it says why
  const auto runs = [&](const model::timing::Machine* m) { return m && model::timing::machine_runs(*m, info->arch); };
  if (!runs(r.machine)) r.machine = runs(predict_on) ? predict_on : predicted_card(gpu, info->arch);
  return r;
}

}  // namespace

void AppState::open_now(const run::SimRequest& asked) {
  const run::SimRequest r = on_this_card(asked, predict_on, gpu);
  request = r;
  try {
    set_kernel(open_kernel(r));
  } catch (const std::exception& e) {
    add_problem({Severity::error, "app", "config", fmt::format("cannot open {}", r.kernel_id), e.what()});
    status = e.what();
  }
}

namespace {

// The same run as far as its time goes: kernel, shape, mistakes, parameters and traced CTA.
bool same_run(const run::SimRequest& loaded, const run::SimRequest& r) {
  const kernels::KernelInfo* info = kernels::find_kernel(r.kernel_id);
  if (!info || loaded.kernel_id != r.kernel_id) return false;
  const kernels::GemmShape a = info->resolve(loaded.shape), b = info->resolve(r.shape);
  return a.m == b.m && a.n == b.n && a.k == b.k && loaded.mistakes == r.mistakes &&
         kernels::resolve_params(*info, loaded.params) == kernels::resolve_params(*info, r.params) &&
         loaded.cta == r.cta;
}

std::string asking_status(const LongRunQuestion& q) {
  return fmt::format("{} {}: expected to take {}; waiting for Run or Cancel", q.request.kernel_id,
                     shape_text(q.request.shape), run::duration_text(q.estimate.seconds));
}

}  // namespace

std::string LongRunQuestion::text() const {
  const kernels::KernelInfo* info = kernels::find_kernel(request.kernel_id);
  const kernels::GemmShape s = info ? info->resolve(request.shape) : request.shape;
  return fmt::format("A whole-grid run of {} at {} on the model would take {}. Run it? (Cancel keeps what is on "
                     "screen; the traced CTA alone opens at any shape in about a second.)",
                     request.kernel_id, shape_text(s), estimate.text());
}

void AppState::request_open(const run::SimRequest& r) { start_open(r, false); }

void AppState::start_open(const run::SimRequest& asked, bool estimate_first, std::shared_ptr<const LoadedKernel> known) {
  const run::SimRequest r = on_this_card(asked, predict_on, gpu);
  request = r;
  long_run_question.reset();
  // A newer open replaces an older one still running.
  cancel_jobs(JobKind::open);
  cancel_jobs(JobKind::model_run);
  const bool whole = !r.only_traced_cta;
  const std::string name = fmt::format("{} {} {}", whole ? "model run" : "open", r.kernel_id, shape_text(r.shape));
  jobs.push_back(std::make_unique<Job>(
      whole ? JobKind::model_run : JobKind::open, name,
      [r, name, estimate_first, known, limit = long_run_limit, generation = ++open_generation](JobContext& ctx) {
        const auto cancelled = [&] {
          // Keep what is on screen and say so; a newer open that superseded this one says
          // what it did itself.
          ctx.complete([name, generation](AppState& app) {
            if (app.open_generation == generation) app.status = cancelled_status(app, name);
          });
        };
        if (estimate_first) {
          // The traced CTA alone (bounded: fast-forward) says how long the grid would take.
          const kernels::KernelInfo& info = kernels::kernel_or_throw(r.kernel_id);
          run::require_whole_grid_fits(info, info.resolve(r.shape));
          ctx.set_status("timing the traced CTA to estimate the run");
          run::SimRequest timed = r;
          timed.cancel = &ctx.cancel;
          const run::RunEstimate e =
              run::time_whole_grid(timed, model::grid_threads(r.threads), known ? &known->report : nullptr);
          if (ctx.cancel.load()) return cancelled();
          if (limit > 0.0 && e.seconds > limit) {
            ctx.complete([q = LongRunQuestion{r, e}, generation](AppState& app) {
              if (app.open_generation != generation) return;
              app.long_run_question = q;
              app.status = asking_status(q);
            });
            return;
          }
          ctx.set_status(fmt::format("expected {}", run::duration_text(e.seconds)));
        }
        auto k = open_kernel(
            r, [&ctx](uint64_t done, uint64_t total) { ctx.progress(done, total); }, &ctx.cancel);
        if (ctx.cancel.load()) return cancelled();
        ctx.complete([k](AppState& app) { app.set_kernel(k); });
      },
      [name = r.kernel_id](AppState& app, const std::string& msg) {
        app.add_problem({Severity::error, "app", "config", "cannot open " + name, msg});
        app.status = msg;
      }));
}

void AppState::request_model_run() {
  run::SimRequest r = request;
  r.only_traced_cta = false;
  long_run_question.reset();
  // The traced CTA on screen, when it is this request's, saves the estimate one run.
  const bool same = kernel && !kernel->whole_grid() && same_run(kernel->request, r);
  start_open(r, true, same ? kernel : nullptr);
}

void AppState::answer_long_run(bool run_it) {
  if (!long_run_question) return;
  const LongRunQuestion q = std::move(*long_run_question);
  long_run_question.reset();
  if (run_it) return start_open(q.request, false);
  status = fmt::format("did not run the whole grid of {} {} (expected {})", q.request.kernel_id,
                       shape_text(q.request.shape), run::duration_text(q.estimate.seconds));
}

void AppState::request_gpu_bench(const std::vector<std::string>& kernel_ids, kernels::GemmShape shape, int repeats,
                                 const kernels::ParamValues& params, double sustain_ms) {
  const int reps = settings.bench_reps;
  const auto started_at = started;
  jobs.push_back(std::make_unique<Job>(
      JobKind::gpu_bench, fmt::format("GPU bench {} kernel(s) at {}", kernel_ids.size(), shape_text(shape)),
      [kernel_ids, shape, repeats, reps, params, sustain_ms, started_at](JobContext& ctx) {
        ctx.total = uint64_t(kernel_ids.size()) * uint64_t(std::max(1, repeats));
        for (int round = 0; round < std::max(1, repeats) && !ctx.cancel.load(); ++round) {
          for (const std::string& id : kernel_ids) {
            if (ctx.cancel.load()) return;
            ctx.set_status(fmt::format("round {}: {} {}", round + 1, id, shape_text(shape)));
            run::BenchRequest req;
            req.kernel_id = id;
            req.shape = shape;
            req.params = params;
            req.reps = reps;
            req.sustain_ms = sustain_ms;
            run::BenchResult res = run::run_bench(req);
            const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_at).count();
            nlohmann::json j = run::bench_result_json(res);
            const bool no_gpu = res.status == run::GpuStatus::no_driver || res.status == run::GpuStatus::no_device;
            ctx.complete([j, res_ok = res.ok(), status = res.status, error = res.error, id, no_gpu, t](AppState& app) {
              if (status == run::GpuStatus::ok) app.measurements.add_bench_json(j, MeasurementSource::gpu, t);
              if (!res_ok)
                app.add_problem({no_gpu ? Severity::warning : Severity::error, "gpu", "bench",
                                 fmt::format("GPU bench of {}: {}", id, run::gpu_status_name(status)),
                                 error.empty() ? j.dump(2) : error});
            });
            ++ctx.done;
            if (no_gpu) return;  // nothing more to try on this machine
          }
        }
      },
      [](AppState& app, const std::string& msg) { app.add_problem({Severity::error, "gpu", "bench", "GPU bench failed", msg}); }));
}

void AppState::cancel_jobs() {
  for (auto& j : jobs) j->request_cancel();
}

void AppState::cancel_jobs(JobKind kind) {
  for (auto& j : jobs)
    if (j->kind() == kind) j->request_cancel();
}

const Job* AppState::running_job(JobKind kind) const {
  for (const auto& j : jobs)
    if (j->kind() == kind && !j->finished()) return j.get();
  return nullptr;
}

bool AppState::busy() const {
  return std::any_of(jobs.begin(), jobs.end(), [](const auto& j) { return !j->finished(); });
}

void AppState::poll_jobs() {
  for (auto& j : jobs)
    for (Completion& c : j->take_completions()) c(*this);
  jobs.erase(std::remove_if(jobs.begin(), jobs.end(),
                            [](const auto& j) { return j->finished() && j->take_completions().empty(); }),
             jobs.end());
}

const Snapshot* AppState::snapshot() {
  if (!kernel || !index) return nullptr;
  // On a warp-instruction the views show the state once it took effect: its consequences (a
  // try_wait that blocks, an arrival, a TMA issue) are recorded right after it in the same
  // cycle. Later cycles stay out, and stepping by event shows every event on its own.
  uint32_t pos = playback.position;
  const model::Trace& t = kernel->trace();
  if (playback.unit != StepUnit::event && pos < t.events.size() &&
      t.events[pos].kind == model::EventKind::warp_inst) {
    const uint64_t cycle = t.events[pos].cycle;
    while (pos + 1 < t.events.size() && t.events[pos + 1].kind != model::EventKind::warp_inst &&
           t.events[pos + 1].cycle == cycle)
      ++pos;
  }
  return &index->at(pos);
}

uint32_t AppState::event_count() const { return kernel ? uint32_t(kernel->trace().events.size()) : 0; }

void AppState::seek(uint32_t position) {
  const uint32_t n = event_count();
  playback.position = n == 0 ? 0 : std::min(position, n - 1);
  // Follow the cursor: the instruction of the event under it becomes the selection.
  if (kernel && playback.position < n) {
    const model::Event& e = kernel->trace().events[playback.position];
    if (e.kind == model::EventKind::warp_inst) {
      selection.inst = e.inst;
      selection.warp = e.warp;
    }
  }
}

bool AppState::step(StepUnit unit, bool forward) {
  if (!kernel) return false;
  auto next = gui::step(*kernel, playback.position, unit, forward, selection.warp);
  if (!next) return false;
  seek(*next);
  return true;
}

void AppState::advance_playing(double dt) {
  if (!playback.playing || !kernel) return;
  playback.carry += dt * playback.speed;
  // At most a few hundred steps a frame, so a huge dt (a stall) cannot freeze the UI.
  int steps = int(std::min(playback.carry, 512.0));
  playback.carry -= steps;
  while (steps-- > 0)
    if (!step(playback.unit, true)) {
      playback.playing = false;
      playback.carry = 0.0;
      break;
    }
}

void AppState::select_inst(uint32_t inst, bool jump_to_next_execution) {
  if (!kernel || inst >= kernel->kernel().insts.size()) return;
  selection.inst = inst;
  if (!jump_to_next_execution) return;
  model::Cursor c(kernel->trace());
  c.seek(playback.position);
  // The next execution after the cursor (by the selected warp when there is one), else wrap
  // to the first.
  while (c.next_execution(inst)) {
    if (selection.warp == kNoWarp || kernel->trace().events[c.position()].warp == selection.warp) {
      seek(c.position());
      selection.inst = inst;
      return;
    }
  }
  const auto& all = kernel->trace().executions_of(inst);
  if (!all.empty()) {
    seek(all.front());
    selection.inst = inst;
  }
}

void AppState::select_ptx_line(uint32_t line) {
  if (!kernel) return;
  const uint32_t inst = kernel->inst_of_line(line);
  if (inst != kNone) select_inst(inst, true);
}

void AppState::select_warp(uint16_t warp) {
  if (!kernel || warp >= kernel->trace().warps) return;
  selection.warp = warp;
}

void AppState::select_smem(uint32_t addr, std::optional<int> lane) {
  selection.smem_addr = addr;
  if (lane) selection.lane = *lane;
}

void AppState::select_mbarrier(uint32_t addr) { selection.mbar = addr; }

void AppState::select_tma(uint32_t transfer) {
  if (!kernel || transfer >= kernel->trace().tma.size()) return;
  selection.tma = transfer;
  selection.smem_addr = kernel->trace().tma[transfer].smem_dst;
}

void AppState::select_cell(int row, int col, int lane) {
  selection.row = row;
  selection.col = col;
  selection.lane = lane;
}

void AppState::select_problem(uint32_t i) {
  if (i >= problems.size()) return;
  selection.problem = i;
  const Problem& p = problems[i];
  if (p.warp != kNoWarp) select_warp(p.warp);
  if (p.inst != kNone) {
    // Jump to the hazard's event in the trace when it has one, else to the instruction.
    if (kernel) {
      const model::Trace& t = kernel->trace();
      for (uint32_t e : t.of_kind(model::EventKind::hazard)) {
        const model::Event& ev = t.events[e];
        if (ev.payload < t.hazards.size() && model::hazard_kind_name(t.hazards[ev.payload].kind) == p.kind && ev.inst == p.inst) {
          seek(e);
          selection.inst = p.inst;
          return;
        }
      }
    }
    select_inst(p.inst, true);
  }
}

nlohmann::json AppState::describe() {
  nlohmann::json j;
  j["kernel"] = kernel ? nlohmann::json(kernel->request.kernel_id) : nlohmann::json(nullptr);
  j["views"] = describe_views(*this);
  j["long_run_question"] = long_run_question ? nlohmann::json{{"kernel", long_run_question->request.kernel_id},
                                                               {"expected_seconds", long_run_question->estimate.seconds},
                                                               {"cta_seconds", long_run_question->estimate.cta_seconds},
                                                               {"ctas", long_run_question->estimate.ctas},
                                                               {"threads", long_run_question->estimate.threads},
                                                               {"text", long_run_question->text()}}
                                             : nlohmann::json(nullptr);
  j["position"] = playback.position;
  j["events"] = event_count();
  j["selection"] = {{"inst", selection.inst == kNone ? nlohmann::json(nullptr) : nlohmann::json(selection.inst)},
                    {"warp", selection.warp == kNoWarp ? nlohmann::json(nullptr) : nlohmann::json(selection.warp)},
                    {"line", kernel && selection.inst != kNone ? nlohmann::json(kernel->line_of(selection.inst))
                                                               : nlohmann::json(nullptr)}};
  nlohmann::json drawn_json = nlohmann::json::object();
  for (const auto& [name, r] : drawn) drawn_json[name] = r;
  j["drawn"] = drawn_json;
  nlohmann::json fits_json = nlohmann::json::object();
  for (const auto& [name, f] : fits) fits_json[name] = {{"needed", f[0]}, {"available", f[1]}};
  j["fits"] = fits_json;
  return j;
}

}  // namespace gs::gui
