#include "gui/core/recorded_timeline.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "run/gpu_bench.hpp"
#include "run/input_file.hpp"
#include "run/timeline_model.hpp"
#include "run/timeline_stats.hpp"

namespace gs::gui {

namespace {

// A recorded 8192³ persistent kernel with every warp is 8 MB; a wave of 132 CTAs of it would be
// about 1 GB. The app takes files up to this, as `gemmscope timeline --import` does.
constexpr size_t kMaxTimelineBytes = size_t(1) << 30;
constexpr int kMaxTimelineDepth = 16;

std::string shape_text(kernels::GemmShape s) { return fmt::format("{}x{}x{}", s.m, s.n, s.k); }

// Starts the model's side of the timeline shown now as a job.
void request_model_timeline(AppState& app) {
  const RecordedTimeline& r = *app.recorded_timeline;
  app.cancel_jobs(JobKind::model_timeline);
  if (run::is_launch_only(r.measured)) {  // nothing of the model's to set beside it
    app.recorded_timeline->model_error = kLaunchOnlyNote;
    return;
  }
  const uint64_t gen = r.generation;
  run::ModelTimelineRequest req;
  try {
    req = run::model_request_like(r.measured);
  } catch (const std::exception& e) {
    app.recorded_timeline->model_error = e.what();
    return;
  }
  app.jobs.push_back(std::make_unique<Job>(
      JobKind::model_timeline, fmt::format("model timeline {} {}", req.kernel_id, shape_text(req.shape)),
      [req, gen](JobContext& ctx) {
        auto doc = std::make_shared<const run::TimelineDoc>(run::model_timeline(req));
        if (ctx.cancel.load()) return;
        ctx.complete([doc, gen](AppState& app) {
          if (!app.recorded_timeline || app.recorded_timeline->generation != gen) return;
          app.recorded_timeline->model = doc;
          app.status = fmt::format("the model's timeline of {} is beside the recorded one", doc->kernel_id);
        });
      },
      [gen](AppState& app, const std::string& msg) {
        if (app.recorded_timeline && app.recorded_timeline->generation == gen) app.recorded_timeline->model_error = msg;
        app.add_problem({Severity::error, "timeline", "model", "the model's timeline failed", msg});
      }));
}

uint64_t next_generation() {
  static uint64_t n = 0;
  return ++n;
}

}  // namespace

run::TimelineDoc read_timeline_file(const std::string& path) {
  if (path.empty()) throw std::runtime_error("no file named: give the path of a `gemmscope bench --timeline` file");
  nlohmann::json j;
  try {
    j = run::parse_json_bounded(run::read_input_file(path, kMaxTimelineBytes), kMaxTimelineDepth);
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    if (what.find(path) != std::string::npos) throw;  // read_input_file names the path itself
    throw std::runtime_error(fmt::format("'{}' is {} (expected a `gemmscope bench --timeline` file)", path, what));
  }
  run::TimelineDoc doc;
  try {
    doc = run::timeline_from_json(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("'{}' is not a timeline the app can show: {}", path, e.what()));
  }
  if (doc.source != "gpu")
    throw std::runtime_error(fmt::format("'{}' was recorded on the {}, not a GPU: the app sets a GPU's timeline "
                                         "beside the model's (gemmscope timeline --import shows this one)",
                                         path, doc.source));
  const kernels::KernelInfo* info = kernels::find_kernel(doc.kernel_id);
  if (!info)
    throw std::runtime_error(fmt::format("'{}' is a timeline of '{}', a kernel this build does not have "
                                         "(`gemmscope list` names them)", path, doc.kernel_id));
  try {  // the build it names: parameters and mistakes this build's kernel takes
    kernels::require_mistakes(*info, doc.mistakes);
    kernels::resolve_params(*info, doc.params);
  } catch (const kernels::ConfigError& e) {
    throw std::runtime_error(fmt::format("'{}' names a build of {} this app cannot make: {}", path, doc.kernel_id,
                                         e.what()));
  }
  if (doc.events.empty() && !run::is_launch_only(doc))
    throw std::runtime_error(fmt::format("'{}' holds no events: nothing was recorded", path));
  return doc;
}

bool is_timeline_file(const std::string& path) {
  try {
    const nlohmann::json j = run::parse_json_bounded(run::read_input_file(path, kMaxTimelineBytes), kMaxTimelineDepth);
    return j.is_object() && j.value("format", std::string()) == "gemmscope-timeline-1";
  } catch (const std::exception&) {
    return false;
  }
}

void show_recorded_timeline(AppState& app, run::TimelineDoc measured, std::string origin, std::string path,
                            bool model_job) {
  auto r = std::make_shared<RecordedTimeline>();
  r->origin = std::move(origin);
  r->path = std::move(path);
  r->measured = std::move(measured);
  r->generation = next_generation();
  app.recorded_timeline = r;
  app.timeline_view.show_recorded = true;
  app.status = fmt::format("{}: {} {} on {}", r->origin, r->measured.kernel_id, shape_text(r->measured.shape),
                           r->measured.device);
  if (model_job) request_model_timeline(app);
}

bool import_timeline(AppState& app, const std::string& path, bool model_job) {
  try {
    run::TimelineDoc doc = read_timeline_file(path);
    show_recorded_timeline(app, std::move(doc), "imported from " + path, path, model_job);
    return true;
  } catch (const std::exception& e) {
    app.add_problem({Severity::error, "timeline", "import", "cannot import the timeline " + path, e.what()});
    app.status = e.what();
    return false;
  }
}

bool model_timeline_now(AppState& app) {
  if (!app.recorded_timeline) return false;
  app.cancel_jobs(JobKind::model_timeline);
  RecordedTimeline& r = *app.recorded_timeline;
  if (run::is_launch_only(r.measured)) {
    r.model_error = kLaunchOnlyNote;
    return true;
  }
  try {
    r.model = std::make_shared<const run::TimelineDoc>(run::model_timeline(run::model_request_like(r.measured)));
    r.model_error.clear();
    return true;
  } catch (const std::exception& e) {
    r.model_error = e.what();
    app.add_problem({Severity::error, "timeline", "model", "the model's timeline failed", e.what()});
    return false;
  }
}

void request_gpu_timeline(AppState& app, const std::string& kernel_id, kernels::GemmShape shape,
                          const kernels::ParamValues& params) {
  app.cancel_jobs(JobKind::gpu_timeline);
  const int reps = app.settings.bench_reps;
  app.jobs.push_back(std::make_unique<Job>(
      JobKind::gpu_timeline, fmt::format("GPU timeline {} {}", kernel_id, shape_text(shape)),
      [kernel_id, shape, params, reps](JobContext& ctx) {
        ctx.set_status("timing the plain and the instrumented kernel");
        run::BenchRequest req;
        req.kernel_id = kernel_id;
        req.shape = shape;
        req.params = params;
        req.reps = reps;
        run::TimelineRequest t;
        t.capacity = 65536;  // every record of a persistent CTA at 8192³ (docs/results/2026-11-27-h100-timeline)
        req.timeline = t;
        const run::BenchResult res = run::run_bench(req);
        const bool no_gpu = res.status == run::GpuStatus::no_driver || res.status == run::GpuStatus::no_device;
        if (!res.timeline) {
          const std::string why = res.timeline_error.empty() ? res.error : res.timeline_error;
          ctx.complete([kernel_id, no_gpu, why, status = res.status](AppState& app) {
            const std::string title =
                no_gpu ? "no GPU here to record a timeline on: File > Import timeline... opens one recorded elsewhere"
                       : fmt::format("no timeline of {}: {}", kernel_id, run::gpu_status_name(status));
            app.add_problem({no_gpu ? Severity::warning : Severity::error, "gpu", "timeline", title, why});
            if (no_gpu) app.gpu = {GpuPresenceState::absent, "", why};  // the button greys out, saying why
            app.status = title;
          });
          return;
        }
        run::TimelineDoc doc = *res.timeline;
        ctx.complete([doc = std::move(doc)](AppState& app) mutable {
          const std::string origin = fmt::format("recorded on {} (this session)", doc.device);
          show_recorded_timeline(app, std::move(doc), origin, "");
        });
      },
      [](AppState& app, const std::string& msg) {
        app.add_problem({Severity::error, "gpu", "timeline", "recording the timeline failed", msg});
      }));
}

std::vector<std::string> bundled_timeline_files(const std::string& assets_dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  if (assets_dir.empty()) return out;
  std::error_code ec;
  const fs::path results = fs::path(assets_dir).parent_path() / "docs" / "results";
  if (!fs::is_directory(results, ec)) return out;
  std::vector<fs::path> folders;
  for (const fs::directory_entry& e : fs::directory_iterator(results, ec))
    if (e.is_directory(ec)) folders.push_back(e.path());
  std::sort(folders.rbegin(), folders.rend());  // dated names: newest first
  for (const fs::path& f : folders) {
    std::vector<std::string> files;
    for (const fs::directory_entry& e : fs::directory_iterator(f, ec)) {
      const std::string name = e.path().filename().string();
      if (e.is_regular_file(ec) && name.size() > 14 && name.ends_with(".timeline.json")) files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    out.insert(out.end(), files.begin(), files.end());
  }
  return out;
}

}  // namespace gs::gui
