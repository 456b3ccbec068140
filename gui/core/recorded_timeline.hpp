// A kernel's own timeline recorded on a GPU (`gemmscope bench --timeline`), held by the app
// next to the model's timeline of the same kernel, shape and CTA (run/timeline_model.hpp), so
// the Timeline view can set them one under the other. It comes from a file recorded elsewhere
// (File > Import timeline..., `gui --import-timeline FILE`, or a timeline document given to
// `gui --import`) or from this machine's GPU (the Timeline view's "Record on this GPU", the
// runner of `bench --timeline`). The model's timeline is made off the UI thread (a job).
//
//   import_timeline(app, "docs/results/2026-11-27-h100-timeline/hopper_persistent.timeline.json");
//   model_timeline_now(app);   // headless and tests: the model's side, synchronously
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "run/timeline_doc.hpp"

namespace gs::gui {

struct AppState;

struct RecordedTimeline {
  std::string origin;                 // "imported from FILE", "recorded on NVIDIA H100 ... (this session)"
  std::string path;                   // the file it came from ("" when recorded here)
  run::TimelineDoc measured;          // source "gpu"
  // The model's timeline of the same kernel, shape and build (the recording's parameters and
  // mistakes; the kernel's defaults for a file that does not store them), its recorded CTA (the
  // first recorded one when several were): null while it runs or when it failed (model_error
  // says why).
  std::shared_ptr<const run::TimelineDoc> model;
  std::string model_error;
  uint64_t generation = 0;            // which import this is (a late job's result for an older one is dropped)
};

// What the model's side of a launch-only recording (each warp's start and end, run::is_launch_only)
// is: none, and why.
inline constexpr const char* kLaunchOnlyNote =
    "each warp's start, end and SM only (recorded with --capacity 0): no events, so no warp lanes, figures or tiles, "
    "and no model beside it (the model traces one CTA; its waves are in the Schedule view). `gemmscope timeline ID "
    "--size N` records one CTA's events to set beside the model's.";

// Reads and checks a timeline document: the file's bytes (bounded), JSON, the
// `gemmscope-timeline-1` format, a kernel this build has with the build parameters and mistakes
// the file names, recorded on a GPU. Throws
// std::runtime_error naming the file and what is wrong ("'x.json' is not a gemmscope timeline:
// 'format' is ..."); never returns a half-read document.
run::TimelineDoc read_timeline_file(const std::string& path);

// True when the file's JSON names the timeline format (`gui --import` sends such a file here
// rather than to the throughput plot). False for anything else, unreadable files included.
bool is_timeline_file(const std::string& path);

// Imports `path` as the recorded timeline (replacing any before it) and starts the model's
// timeline as a job. A file that cannot be used is an error in the Problems view (source
// "timeline") and leaves what was shown; returns false then.
bool import_timeline(AppState& app, const std::string& path, bool model_job = true);
// Shows `measured` (recorded in this session or read by the caller) and starts the model's job
// (unless `model_job` is false: the caller runs model_timeline_now).
void show_recorded_timeline(AppState& app, run::TimelineDoc measured, std::string origin, std::string path,
                            bool model_job = true);
// Runs the model's side now, on this thread (headless runs and tests). False, with a problem,
// when it failed.
bool model_timeline_now(AppState& app);

// Records a timeline on this machine's GPU, as `bench --timeline` does (the traced CTA 0, every
// warp), and shows it. Without a CUDA driver or GPU, or on a GPU that cannot run the kernel, it
// records nothing and says why in the Problems view (a warning) and the status line.
void request_gpu_timeline(AppState& app, const std::string& kernel_id, kernels::GemmShape shape,
                          const kernels::ParamValues& params);

// The recorded timelines that come with the source tree (docs/results/<date>/<id>.timeline.json
// beside the app's assets folder, gui/app/assets.hpp), newest folder first, for the import
// dialog; empty for an installed app, which has no docs/results.
std::vector<std::string> bundled_timeline_files(const std::string& assets_dir);

}  // namespace gs::gui
