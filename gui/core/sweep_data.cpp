#include "gui/core/sweep_data.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/ladder_data.hpp"
#include "gui/core/speed_ladder.hpp"
#include "run/input_file.hpp"

namespace gs::gui {

namespace {

std::string shape_text(const kernels::GemmShape& s) { return fmt::format("{}x{}x{}", s.m, s.n, s.k); }

// The kernel the view sweeps: the one on screen, else the one being opened.
const kernels::KernelInfo* open_kernel_info(const AppState& app) {
  return kernels::find_kernel(app.kernel ? app.kernel->request.kernel_id : app.request.kernel_id);
}

// A new choice for `info`: its first parameters (up to two), every value of each.
SweepChoice first_choice(const kernels::KernelInfo& info) {
  SweepChoice c;
  c.kernel_id = info.id;
  for (const kernels::BuildParam& p : info.params) {
    if (c.axes.size() == kMaxSweepAxes) break;
    c.axes.push_back(p.name);
    c.values[p.name] = p.choices;
  }
  return c;
}

// A point that came back, into the run (the job's completion, or the synchronous run's).
void add_point(SweepRun& run, run::SweepPoint p) { run.points.push_back(std::move(p)); }

// The run start_sweep and run_sweep_now begin with: what was asked, nothing back yet.
SweepRun new_run(AppState& app, const run::SweepRequest& req) {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(req.kernel_id);
  SweepRun r;
  r.generation = ++app.sweep.generation;
  r.kernel_id = info.id;
  r.axes = req.axes;
  r.shape = info.resolve(req.shapes.front());
  r.predicted_on = req.machine ? req.machine->name : model::timing::machine_for(info.arch).name;
  r.gpu = req.gpu.has_value();
  r.running = true;
  r.total = run::sweep_combinations(req.axes).size();
  return r;
}

// The index of `value` among the axis's values; nullopt when it is not one.
std::optional<size_t> value_index(const run::SweepAxis& a, const kernels::ParamValues& swept) {
  const auto it = swept.find(a.name);
  if (it == swept.end()) return std::nullopt;
  const auto v = std::find(a.values.begin(), a.values.end(), it->second);
  if (v == a.values.end()) return std::nullopt;
  return size_t(v - a.values.begin());
}

std::string tflops_text(double v) { return fmt::format("{:.3g} TFLOP/s", v); }

}  // namespace

SweepChoice& sweep_choice(AppState& app) {
  SweepChoice& c = app.sweep.choice;
  const kernels::KernelInfo* info = open_kernel_info(app);
  if (info && c.kernel_id != info->id) {
    const kernels::GemmShape shape = c.kernel_id.empty() ? kSweepShape : c.shape;  // the size stays the learner's
    const bool gpu = c.gpu;
    c = first_choice(*info);
    c.shape = shape;
    c.gpu = gpu;
  }
  return c;
}

bool set_sweep_axis(SweepChoice& c, const kernels::KernelInfo& info, const std::string& name, bool on) {
  const auto at = std::find(c.axes.begin(), c.axes.end(), name);
  if (!on) {
    if (at != c.axes.end()) c.axes.erase(at);
    return true;
  }
  if (at != c.axes.end()) return true;
  if (c.axes.size() >= kMaxSweepAxes) return false;
  const kernels::BuildParam& p = kernels::require_param(info, name);
  c.axes.push_back(p.name);
  if (c.values[p.name].empty()) c.values[p.name] = p.choices;
  return true;
}

void set_sweep_value(SweepChoice& c, const std::string& name, uint32_t value, bool on) {
  std::vector<uint32_t>& v = c.values[name];
  const auto at = std::find(v.begin(), v.end(), value);
  if (on && at == v.end()) {
    v.push_back(value);
    std::sort(v.begin(), v.end());
  } else if (!on && at != v.end()) {
    v.erase(at);
  }
}

run::SweepRequest sweep_request(const AppState& app, const SweepChoice& c) {
  run::SweepRequest req;
  req.kernel_id = c.kernel_id;
  for (const std::string& name : c.axes) {
    const auto it = c.values.find(name);
    req.axes.push_back({name, it == c.values.end() ? std::vector<uint32_t>{} : it->second});
  }
  req.shapes = {c.shape};
  if (const kernels::KernelInfo* info = kernels::find_kernel(c.kernel_id)) req.machine = &ladder_machine(app, info->arch);
  if (c.gpu) {
    run::BenchRequest b;
    b.reps = app.settings.bench_reps;
    req.gpu = b;
  }
  return req;
}

std::string sweep_gpu_refusal(const AppState& app) {
  switch (app.gpu.state) {
    case GpuPresenceState::unknown:
    case GpuPresenceState::looking: return "looking for a GPU on this machine (as `gemmscope devices` does)";
    case GpuPresenceState::absent: return "no GPU to measure on here: " + app.gpu.reason;
    case GpuPresenceState::found:
    case GpuPresenceState::failing: break;  // a probe that failed may still leave a GPU: the runs say
  }
  return "";
}

std::string sweep_choice_problem(const AppState& app, const SweepChoice& c) {
  if (c.gpu)
    if (std::string why = sweep_gpu_refusal(app); !why.empty()) return why;
  try {
    run::check_sweep(sweep_request(app, c));
  } catch (const kernels::ConfigError& e) {
    return e.what();
  }
  return "";
}

bool start_sweep(AppState& app) {
  const SweepChoice& c = sweep_choice(app);
  if (const std::string why = sweep_choice_problem(app, c); !why.empty()) {
    app.status = "cannot sweep: " + why;
    return false;
  }
  cancel_sweep(app);
  const run::SweepRequest req = sweep_request(app, c);
  app.sweep.run = new_run(app, req);
  const uint64_t generation = app.sweep.run->generation;
  app.jobs.push_back(std::make_unique<Job>(
      JobKind::sweep, fmt::format("sweep {} at {}", req.kernel_id, shape_text(app.sweep.run->shape)),
      [req, generation](JobContext& ctx) {
        run::SweepRequest r = req;
        r.stop = &ctx.cancel;  // Cancel: no point starts after it, the model run under way stops
        const run::SweepResult result = run::run_sweep(r, [&](const run::SweepPoint& p, size_t done, size_t total) {
          ctx.progress(done, total);
          ctx.set_status(fmt::format("{} of {} points", done, total));
          ctx.complete([p, generation](AppState& app) {
            if (app.sweep.run && app.sweep.run->generation == generation) add_point(*app.sweep.run, p);
          });
        });
        ctx.complete([generation, stopped = result.stopped, done = result.points.size() + result.invalid.size(),
                      total = result.total](AppState& app) {
          if (!app.sweep.run || app.sweep.run->generation != generation) return;
          app.sweep.run->running = false;
          app.sweep.run->stopped = stopped;
          app.status = stopped ? fmt::format("sweep cancelled after {} of {} points", done, total)
                               : fmt::format("sweep done: {} points", total);
        });
      },
      [generation](AppState& app, const std::string& msg) {
        if (app.sweep.run && app.sweep.run->generation == generation) {
          app.sweep.run->running = false;
          app.sweep.run->error = msg;
        }
        app.add_problem({Severity::error, "app", "sweep", "the sweep failed", msg});
      }));
  app.status = fmt::format("sweeping {} at {}: {} points", req.kernel_id, shape_text(app.sweep.run->shape),
                           app.sweep.run->total);
  return true;
}

bool run_sweep_now(AppState& app, size_t stop_after) {
  const SweepChoice& c = sweep_choice(app);
  if (const std::string why = sweep_choice_problem(app, c); !why.empty()) {
    app.status = "cannot sweep: " + why;
    return false;
  }
  cancel_sweep(app);
  std::atomic<bool> stop{false};
  run::SweepRequest req = sweep_request(app, c);
  req.stop = &stop;
  app.sweep.run = new_run(app, req);
  SweepRun& run = *app.sweep.run;
  try {
    const run::SweepResult result = run::run_sweep(req, [&](const run::SweepPoint& p, size_t done, size_t) {
      add_point(run, p);
      if (stop_after > 0 && done >= stop_after) stop = true;
    });
    run.stopped = result.stopped;
  } catch (const std::exception& e) {
    run.error = e.what();
  }
  run.running = false;
  return run.error.empty();
}

void cancel_sweep(AppState& app) {
  app.cancel_jobs(JobKind::sweep);
  // Its points so far stay; the job's last completion says it stopped. A run whose job is gone
  // (superseded) is no longer running either way.
  if (app.sweep.run && app.sweep.run->running && !app.running_job(JobKind::sweep)) app.sweep.run->running = false;
}

size_t import_sweep_json(AppState& app, const std::string& path) {
  const auto refuse = [&](const std::string& why) {
    app.add_problem({Severity::error, "app", "import", "cannot show the sweep in " + path, why});
    app.status = "cannot import " + path + ": " + why;
    return size_t(0);
  };
  run::SweepResult file;
  try {
    if (path.empty()) throw std::runtime_error("no file named: give the path of a `gemmscope sweep --json` file");
    file = run::sweep_from_json(run::parse_json_bounded(run::read_input_file(path, kMaxSweepFileBytes), 32));
  } catch (const std::exception& e) {
    return refuse(e.what());
  }
  if (file.axes.size() > kMaxSweepAxes)
    return refuse(fmt::format("it sweeps {} parameters; the Sweep view draws one or two (`gemmscope sweep` prints the "
                              "table of more)",
                              file.axes.size()));
  const SweepChoice& asked = app.sweep.choice;
  kernels::GemmShape shape = file.shapes.front();
  for (const kernels::GemmShape& s : file.shapes)
    if (s.m == asked.shape.m && s.n == asked.shape.n && s.k == asked.shape.k) shape = s;
  cancel_sweep(app);
  SweepRun r;
  r.generation = ++app.sweep.generation;
  r.kernel_id = file.kernel_id;
  r.axes = file.axes;
  r.shape = shape;
  r.predicted_on = file.predicted_on;
  r.gpu = file.gpu;
  r.stopped = file.stopped;
  r.total = run::sweep_combinations(file.axes).size();
  r.imported_from = path;
  const auto at_shape = [&](const run::SweepPoint& p) {
    return p.shape.m == shape.m && p.shape.n == shape.n && p.shape.k == shape.k;
  };
  for (const std::vector<run::SweepPoint>* list : {&file.points, &file.invalid})
    for (const run::SweepPoint& p : *list)
      if (at_shape(p)) {
        if (r.measured_on.empty() && p.gpu) r.measured_on = p.gpu->device;
        r.points.push_back(p);
      }
  const size_t shown = r.points.size();
  SweepChoice c;
  c.kernel_id = file.kernel_id;
  for (const run::SweepAxis& a : file.axes) {
    c.axes.push_back(a.name);
    c.values[a.name] = a.values;
  }
  c.shape = shape;
  c.gpu = false;  // measuring again is the learner's choice, on this machine's GPU
  app.sweep.choice = c;
  app.sweep.run = std::move(r);
  app.status = fmt::format("imported {} point{} of a sweep of {} at {} from {}{}", shown, shown == 1 ? "" : "s",
                           file.kernel_id, shape_text(shape), path,
                           file.shapes.size() > 1 ? fmt::format(" (the file has {} sizes: --sweep-size picks one)",
                                                                file.shapes.size())
                                                  : "");
  return shown;
}

const char* sweep_cell_state_name(SweepCellState s) {
  switch (s) {
    case SweepCellState::pending: return "pending";
    case SweepCellState::done: return "done";
    case SweepCellState::invalid: return "invalid";
    case SweepCellState::failed: return "failed";
  }
  return "?";
}

SweepData sweep_data(const SweepRun& run) {
  SweepData d;
  d.available = true;
  d.kernel_id = run.kernel_id;
  d.axes = run.axes;
  d.shape = run.shape;
  d.predicted_on = run.predicted_on;
  d.measured = run.gpu;
  d.imported_from = run.imported_from;
  d.measured_on = run.measured_on;
  d.running = run.running;
  d.stopped = run.stopped;
  d.error = run.error;
  d.total = run.total;
  if (run.axes.empty() || run.axes.size() > kMaxSweepAxes) {
    d.available = false;
    d.note = "a sweep of one or two parameters is drawn here";
    return d;
  }
  const bool two = run.axes.size() == 2;
  d.rows = two ? run.axes[0].values.size() : 1;
  d.cols = run.axes[two ? 1 : 0].values.size();
  d.cells.resize(d.rows * d.cols);
  for (const kernels::ParamValues& combo : run::sweep_combinations(run.axes)) {
    const size_t r = two ? *value_index(run.axes[0], combo) : 0, col = *value_index(run.axes[two ? 1 : 0], combo);
    SweepCell& c = d.cells[r * d.cols + col];
    c.row = r;
    c.col = col;
    c.swept = combo;
  }
  for (const run::SweepPoint& p : run.points) {
    const std::optional<size_t> r = two ? value_index(run.axes[0], p.swept) : std::optional<size_t>(0);
    const std::optional<size_t> col = value_index(run.axes[two ? 1 : 0], p.swept);
    if (!r || !col) continue;
    SweepCell& c = d.cells[*r * d.cols + *col];
    ++d.done;
    c.params = p.params;
    if (!p.invalid.empty()) {
      c.state = SweepCellState::invalid;
      c.reason = p.invalid;
      ++d.invalid;
      continue;
    }
    if (!p.model_error.empty()) {
      c.state = SweepCellState::failed;
      c.reason = p.model_error;
      ++d.failed;
    } else {
      c.state = SweepCellState::done;
      c.predicted = p.predicted_tflops;
      c.bound = p.bound;
      c.ctas_per_sm = p.ctas_per_sm;
    }
    c.measured = p.gpu_tflops();
    c.cublas = p.cublas_tflops();
    c.vs_cublas = p.vs_cublas();
    if (p.gpu && !p.gpu->ok()) c.gpu_note = run::bench_summary_line(*p.gpu);
  }
  // The colour scales and the fastest, over the cells that have the figure.
  const auto scale = [&](auto figure, double& lo, double& hi, double SweepCell::*shade, std::optional<size_t>& best) {
    bool any = false;
    for (size_t i = 0; i < d.cells.size(); ++i) {
      const std::optional<double> v = figure(d.cells[i]);
      if (!v) continue;
      lo = any ? std::min(lo, *v) : *v;
      hi = any ? std::max(hi, *v) : *v;
      if (!best || *v > *figure(d.cells[*best])) best = i;
      any = true;
    }
    for (SweepCell& c : d.cells)
      if (const std::optional<double> v = figure(c)) c.*shade = hi > lo ? (*v - lo) / (hi - lo) : 1.0;
  };
  scale([](const SweepCell& c) { return c.state == SweepCellState::done ? std::optional(c.predicted) : std::nullopt; },
        d.predicted_lo, d.predicted_hi, &SweepCell::predicted_shade, d.best_predicted);
  scale([](const SweepCell& c) { return c.measured; }, d.measured_lo, d.measured_hi, &SweepCell::measured_shade,
        d.best_measured);
  // Ranked as `gemmscope sweep` ranks (run::sweep_speed): measured where the run measured.
  d.best = d.measured ? d.best_measured : d.best_predicted;
  if (d.best_predicted) d.cells[*d.best_predicted].best_predicted = true;
  if (d.best_measured) d.cells[*d.best_measured].best_measured = true;
  if (d.best) d.cells[*d.best].best = true;

  d.summary = fmt::format("{} of {} point{} at {}, predicted on {}{}", d.done, d.total, d.total == 1 ? "" : "s",
                          shape_text(d.shape), d.predicted_on,
                          !d.measured                  ? ""
                          : d.imported_from.empty()    ? ", measured on this GPU"
                          : d.measured_on.empty()      ? ", measured on a GPU"
                                                       : ", measured on " + d.measured_on);
  if (!d.imported_from.empty()) d.summary += " (imported from " + d.imported_from + ")";
  if (d.best) {
    const SweepCell& b = d.cells[*d.best];
    d.summary += fmt::format("; fastest {}: {} {}", run::swept_text(d.axes, b.swept),
                             tflops_text(d.measured ? b.measured.value_or(0.0) : b.predicted),
                             d.measured ? "measured" : "predicted");
  }
  if (d.invalid > 0) d.summary += fmt::format("; {} cannot be built", d.invalid);
  if (d.failed > 0) d.summary += fmt::format("; {} failed on the model", d.failed);
  if (d.stopped) d.summary += "; cancelled";
  return d;
}

SweepData sweep_data(AppState& app) {
  if (app.sweep.run) return sweep_data(*app.sweep.run);
  SweepData d;
  const kernels::KernelInfo* info = open_kernel_info(app);
  if (!info)
    d.note = "open a kernel first";
  else if (info->params.empty()) {
    // The steps that declare some, from the registry (`gemmscope list` prints their parameters).
    std::string steps;
    for (const kernels::KernelInfo& k : kernels::all_kernels())
      if (!k.params.empty()) steps += fmt::format("{}{:02}", steps.empty() ? "" : " ", k.step);
    d.note = fmt::format("{} has no build parameters to sweep: open a step that has some (steps {}; `gemmscope list` "
                         "shows them)",
                         info->id, steps);
  }
  else
    d.note = "pick parameters and values above, then Run";
  d.kernel_id = info ? info->id : "";
  return d;
}

std::string sweep_cell_text(const SweepData& d, const SweepCell& c) {
  std::string out = run::swept_text(d.axes, c.swept);
  switch (c.state) {
    case SweepCellState::pending: return out + "\nnot run yet";
    case SweepCellState::invalid: return out + "\ncannot be built: " + c.reason;
    case SweepCellState::failed: out += "\nthe model's run failed: " + c.reason; break;
    case SweepCellState::done:
      out += fmt::format("\npredicted {} on {}, bound by {}, {} CTA{} per SM", tflops_text(c.predicted), d.predicted_on,
                         c.bound, c.ctas_per_sm, c.ctas_per_sm == 1 ? "" : "s");
      break;
  }
  if (c.measured) {
    out += "\nmeasured " + tflops_text(*c.measured);
    if (c.cublas) out += ", cuBLAS " + tflops_text(*c.cublas);
    if (c.vs_cublas)
      out += fmt::format(", {:.2f}x cuBLAS ({:.2f}-{:.2f})", c.vs_cublas->median, c.vs_cublas->q1, c.vs_cublas->q3);
  } else if (d.measured) {
    out += "\nnot measured" + (c.gpu_note.empty() ? std::string() : ": " + c.gpu_note);
  }
  if (c.best) out += "\nthe fastest of the sweep";
  if (c.state != SweepCellState::pending) out += "\nclick to open this variant in every view";
  return out;
}

bool open_sweep_cell(AppState& app, const SweepData& d, const SweepCell& c) {
  const kernels::KernelInfo* info = kernels::find_kernel(d.kernel_id);
  if (!info || c.params.empty() || c.state == SweepCellState::invalid || c.state == SweepCellState::pending) return false;
  // The ladder's path: pick the kernel, set each parameter as built, no mistakes (the sweep
  // ran none), the sweep's size; then open its traced CTA.
  select_ladder_kernel(app, info->id);
  for (const kernels::BuildParam& p : info->params)
    if (const auto it = c.params.find(p.name); it != c.params.end()) set_param(app, p, it->second);
  for (const std::string& m : std::vector<std::string>(app.request.mistakes.begin(), app.request.mistakes.end()))
    set_mistake(app, m, false);
  app.request.shape = d.shape;
  app.request_open(trace_request(app));
  return true;
}

nlohmann::json describe_sweep(AppState& app) {
  const SweepChoice& c = sweep_choice(app);
  nlohmann::json values = nlohmann::json::object();
  for (const auto& [name, v] : c.values) values[name] = v;
  nlohmann::json j{{"choice",
                    {{"kernel", c.kernel_id},
                     {"axes", c.axes},
                     {"values", values},
                     {"shape", {c.shape.m, c.shape.n, c.shape.k}},
                     {"gpu", c.gpu},
                     {"problem", sweep_choice_problem(app, c)}}}};
  const SweepData d = sweep_data(app);
  j["available"] = d.available;
  j["note"] = d.note;
  if (!app.sweep.run) return j;
  const auto number = [](std::optional<double> v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json axes = nlohmann::json::array(), cells = nlohmann::json::array();
  for (const run::SweepAxis& a : d.axes) axes.push_back({{"name", a.name}, {"values", a.values}});
  for (const SweepCell& cell : d.cells) {
    const bool done = cell.state == SweepCellState::done;
    cells.push_back({{"row", cell.row},
                     {"col", cell.col},
                     {"swept", cell.swept},
                     {"params", cell.params},
                     {"state", sweep_cell_state_name(cell.state)},
                     {"predicted_tflops", number(done ? std::optional(cell.predicted) : std::nullopt)},
                     {"bound", done ? nlohmann::json(cell.bound) : nlohmann::json(nullptr)},
                     {"measured_tflops", number(cell.measured)},
                     {"cublas_tflops", number(cell.cublas)},
                     {"vs_cublas", number(cell.vs_cublas ? std::optional(cell.vs_cublas->median) : std::nullopt)},
                     {"reason", cell.reason},
                     {"shade", cell.predicted_shade},
                     {"best", cell.best}});
  }
  const auto index = [](std::optional<size_t> i) { return i ? nlohmann::json(*i) : nlohmann::json(nullptr); };
  j["run"] = {{"kernel", d.kernel_id},
              {"axes", axes},
              {"shape", {d.shape.m, d.shape.n, d.shape.k}},
              {"predicted_on", d.predicted_on},
              {"measured", d.measured},
              {"imported_from", d.imported_from},
              {"measured_on", d.measured_on},
              {"rows", d.rows},
              {"cols", d.cols},
              {"done", d.done},
              {"total", d.total},
              {"invalid", d.invalid},
              {"failed", d.failed},
              {"running", d.running},
              {"stopped", d.stopped},
              {"error", d.error},
              {"best", index(d.best)},
              {"best_predicted", index(d.best_predicted)},
              {"best_measured", index(d.best_measured)},
              {"predicted_range", {d.predicted_lo, d.predicted_hi}},
              {"summary", d.summary},
              {"cells", cells}};
  return j;
}

}  // namespace gs::gui
