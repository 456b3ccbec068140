// Everything the views share: the loaded kernel, one playback cursor, one selection, the
// problems list, the measurements, the jobs. Views read it and change it only through these
// members (select_*, seek, request_*), so selecting a thing in one view selects it everywhere.
// No ImGui here: the headless dump and the tests drive an AppState directly.
#pragma once

#include <array>
#include <chrono>
#include <map>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gui/core/fragments_data.hpp"
#include "gui/core/gpu_presence.hpp"
#include "gui/core/jobs.hpp"
#include "gui/core/ladder_data.hpp"
#include "gui/core/measurements.hpp"
#include "gui/core/mma_sync_data.hpp"
#include "gui/core/playback.hpp"
#include "gui/core/problems_data.hpp"
#include "gui/core/ptx_data.hpp"
#include "gui/core/recorded_timeline.hpp"
#include "gui/core/timeline_compare_data.hpp"
#include "gui/core/source_data.hpp"
#include "gui/core/diff_data.hpp"
#include "gui/core/compare_data.hpp"
#include "gui/core/sass_data.hpp"
#include "gui/core/session.hpp"
#include "gui/core/settings.hpp"
#include "gui/core/shared_memory_data.hpp"
#include "gui/core/speed_ladder.hpp"
#include "gui/core/sweep_data.hpp"
#include "gui/core/throughput_data.hpp"
#include "gui/core/tmem_data.hpp"
#include "run/run_time.hpp"

namespace gs::gui {

// The one selection. kNone / -1: nothing of that kind selected.
struct Selection {
  uint32_t inst = kNone;       // instruction id; the PTX view shows its line
  uint16_t warp = kNoWarp;     // warp of the traced CTA
  int lane = -1;
  uint32_t smem_addr = kNone;  // a shared byte address (bank and swizzle views)
  uint32_t mbar = kNone;       // a barrier's shared address
  uint32_t tma = kNone;        // index into trace.tma
  int row = -1, col = -1;      // a cell of the output tile (fragment view)
  uint32_t problem = kNone;    // index into AppState::problems
};

enum class Severity : uint8_t { error, warning, info };
const char* severity_name(Severity s);

struct Problem {
  Severity severity = Severity::error;
  std::string source;  // "model", "gpu", "jit", "app", "settings"
  std::string kind;    // a hazard kind, "config", "bench", ...
  std::string title;   // one line
  std::string detail;  // the full message (JIT logs included)
  uint32_t inst = kNone;
  uint16_t warp = kNoWarp;
  uint64_t cycle = 0;
};

// The Timeline view's choice: the model's trace of the open kernel, or a recorded timeline set
// beside the model's (shown once one is imported or recorded).
struct TimelineViewOptions {
  bool show_recorded = false;
};

// The Lesson view's choice: the article picture shown in its window (KernelInfo::pictures, as
// declared: "wgmma-acc --n 64"), "" for none.
struct LessonViewOptions {
  std::string picture;
};

struct Playback {
  uint32_t position = 0;   // event index into the trace
  bool playing = false;
  StepUnit unit = StepUnit::instruction;
  float speed = 30.0f;     // steps per second
  double carry = 0.0;      // fractional steps owed to the next frame
};

// What views remember between frames that follows from the kernel and the options (a grid
// tabulated once, a check of an unchanged request, text wrapped once). Each is keyed on its
// inputs and rebuilt when they change, so `view_caches = {}` is always safe; describe() never
// reads them.
struct ViewCaches {
  FragmentGridCache fragment_grid;
  MmaSyncCache mma_sync;                // the running mma.sync of the fragments view
  RequestChecker request_checker;       // the ladder's check of the edited request
  PtxRevealState ptx_reveal;            // lines the PTX view last scrolled to
  SourceRevealState source_reveal;      // lines the Source view last scrolled to
  std::shared_ptr<const DiffPrepared> diff;  // the Diff view's last diff (keyed on its choice)
  SassRevealState sass_reveal;          // the PTX line the SASS view last scrolled to
  WrappedTextCache problem_detail;      // the selected problem's text, wrapped to its box
  TimelineCompareCache timeline_compare;  // the Timeline view's measured-vs-model data
};

// A whole-grid run expected to take long, waiting for the user's answer (the shell's modal):
// the run asked for and the time it is expected to take.
struct LongRunQuestion {
  run::SimRequest request;  // the whole-grid request, not started
  run::RunEstimate estimate;
  std::string text() const;  // "A whole-grid run of step 13 at 4096x4096x4096 would take about ..."
};

struct AppState {
  // The kernel on screen (null until the first open finishes) and the request being edited.
  std::shared_ptr<const LoadedKernel> kernel;
  run::SimRequest request{.only_traced_cta = true};  // the GUI opens one CTA unless asked for the grid
  std::unique_ptr<PlaybackIndex> index;
  Playback playback;
  Selection selection;
  // The views' own choices (pattern, operand, swizzle mode, map, filters, rounds, ...), here
  // so that describe_<view>() reports what the view shows and each AppState has its own.
  SmemViewOptions smem_view;
  FragmentViewOptions fragment_view;
  LadderViewOptions ladder_view;
  PtxViewOptions ptx_view;
  SourceViewOptions source_view;
  DiffViewOptions diff_view;
  CompareViewOptions compare_view;
  ProblemsViewOptions problems_view;
  TmemViewOptions tmem_view;
  ThroughputControls throughput_view = default_throughput_controls();
  TimelineViewOptions timeline_view;
  LessonViewOptions lesson_view;
  // A view to bring to the front at the next frame (a lesson's picture drawn by a view): the
  // shell selects its tab or focuses its window, then clears it.
  std::optional<ViewId> raise_view;
  ViewCaches view_caches;
  // The Compare view's latest comparison and the one being made (compare_data.hpp).
  CompareResults compare;
  std::vector<Problem> problems;
  Measurements measurements;
  // Every step's speed at 4096³: the model's predictions made so far and the shipped reference
  // runs (speed_ladder.hpp; the app loads those from its assets at start).
  SpeedLadder speed_ladder;
  // The Sweep view's choice of parameters and values, and its run (under way or finished).
  SweepState sweep;
  // A GPU's timeline (imported or recorded here) with the model's beside it; null when none.
  std::shared_ptr<RecordedTimeline> recorded_timeline;
  GpuPresence gpu;  // whether this machine has a GPU to record on (gpu_presence.hpp)
  // The card the user asked predictions for (`gemmscope gui --machine`), or nullptr; a kernel it
  // cannot run is predicted on the GPU found here, else on its target's machine (on_this_card).
  const model::timing::Machine* predict_on = nullptr;
  Settings settings;
  std::string config_dir;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  // Running and finished-but-not-collected jobs.
  std::vector<std::unique_ptr<Job>> jobs;
  std::string status;  // one line for the status bar
  uint64_t open_generation = 0;  // counts request_open calls: the newest open owns the status line
  // Where views drew things in the last frame (framebuffer pixels: x, y, w, h), by name, so the
  // headless tests can find a known cell in the screenshot: "fragments.grid" is the first
  // cell's rectangle of the fragment map (cells are laid out in a regular grid from there).
  std::map<std::string, std::array<float, 4>> drawn;
  // Text the views laid out in the last frame against the room it had, in pixels: name ->
  // {needed, available}, the tightest of each name (the headless tests check that every one
  // fits at the window sizes people use). Cleared at the start of each frame.
  std::map<std::string, std::array<float, 2>> fits;

  // Loading.
  void set_kernel(std::shared_ptr<const LoadedKernel> k);  // resets playback and selection
  void open_now(const run::SimRequest& r);      // synchronous (headless, tests); errors -> problems
  void request_open(const run::SimRequest& r);  // as a job; the result replaces the kernel
  // The whole grid of the current request, as a job that first times the request's traced CTA
  // alone (run::time_whole_grid; the trace on screen serves when it is the same request). A
  // run expected to take more than long_run_limit seconds is not started: long_run_question
  // holds it until answer_long_run.
  void request_model_run();
  void answer_long_run(bool run_it);  // the modal's Run (true) or Cancel (false)
  std::optional<LongRunQuestion> long_run_question;
  double long_run_limit = run::kLongRunSeconds;  // 0: never ask (`gui --allow-long`)
  // `params` (build parameters) apply to every kernel named; each must take them. sustain_ms > 0:
  // each kernel and cuBLAS run that long before the timed rounds (BenchRequest::sustain_ms).
  void request_gpu_bench(const std::vector<std::string>& kernel_ids, kernels::GemmShape shape, int repeats,
                         const kernels::ParamValues& params = {}, double sustain_ms = 0.0);
  void cancel_jobs();
  void cancel_jobs(JobKind kind);
  const Job* running_job(JobKind kind) const;  // the first unfinished job of this kind, or null
  bool busy() const;
  void poll_jobs();  // applies finished jobs' completions (UI thread, once per frame)

  // Playback (all clamp to the trace).
  const Snapshot* snapshot();  // null without a kernel
  void seek(uint32_t position);
  bool step(StepUnit unit, bool forward);  // false when there is nothing further
  void advance_playing(double dt_seconds);
  uint32_t event_count() const;

  // Selection (cross-linked: selecting an instruction also seeks to its next execution when
  // asked; selecting a problem selects its instruction and warp).
  void select_inst(uint32_t inst, bool jump_to_next_execution);
  void select_ptx_line(uint32_t line);  // 1-based; lines without an instruction select nothing
  void select_warp(uint16_t warp);
  // A shared byte address (the bank and swizzle views), with the lane that touched it if known.
  void select_smem(uint32_t addr, std::optional<int> lane = std::nullopt);
  void select_mbarrier(uint32_t addr);  // a barrier, by its shared address
  void select_tma(uint32_t transfer);   // index into trace.tma; selects the bytes it writes too
  void select_cell(int row, int col, int lane);  // a cell of the output tile and its owner lane
  void pause() { playback.playing = false; }
  void set_step_unit(StepUnit unit) { playback.unit = unit; }
  void select_problem(uint32_t index);

  void add_problem(Problem p);
  double seconds_since_start() const;

 private:
  // The open job; estimate_first: time the traced CTA alone first and ask when it is long.
  void start_open(const run::SimRequest& r, bool estimate_first, std::shared_ptr<const LoadedKernel> known = nullptr);

 public:

  // The data behind each view at the current position, for tests and `gui --state-json`.
  nlohmann::json describe();
};

}  // namespace gs::gui
