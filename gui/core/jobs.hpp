// Work the app does off the UI thread: model runs and GPU benchmarks. A job runs a function on
// its own thread with progress and a cancel flag; what it produces comes back to the UI thread
// as "completions" (functions on the app state) that AppState::poll_jobs applies between
// frames. The UI never waits on a job; a job never touches the app state directly.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gs::gui {

struct AppState;

// What a job does. The app finds, cancels and shows its jobs by kind, never by their names
// (which are for people: "model run step 13 4096³").
enum class JobKind {
  open,       // open a kernel: run its traced CTA on the model
  model_run,  // open a kernel with its whole grid run on the model
  gpu_bench,  // time kernels on the GPU next to cuBLAS
  sass,       // ptxas and the disassembler: the SASS listing
  registers,  // ptxas -v: the registers per thread the occupancy needs
  model_timeline,  // the model's timeline of a recorded one (recorded_timeline.hpp)
  gpu_timeline,    // record a kernel's own timeline on the GPU (bench --timeline's runner)
  gpu_probe,       // whether this machine has a GPU (gpu_presence.hpp)
  speed_ladder,    // the model's TFLOP/s of every step at the speed ladder's shape (speed_ladder.hpp)
  sweep,           // the Sweep view's run over build parameters (sweep_data.hpp)
  compare,         // two variants' model runs and diff for the Compare view (compare_data.hpp)
};

using Completion = std::function<void(AppState&)>;

// What the job's function sees.
class JobContext {
 public:
  std::atomic<uint64_t> done{0}, total{0};  // progress in the job's own units
  // When `total` was first seen set (steady clock, ns since its epoch; 0: not yet).
  std::atomic<int64_t> progress_since{0};
  // Sets done and total, and progress_since at the first call.
  void progress(uint64_t done_units, uint64_t total_units);
  std::atomic<bool> cancel{false};
  // Queue a change to the app state; applied on the UI thread in order.
  void complete(Completion c);
  // Status line shown next to the progress bar ("bench 2/3: <kernel id> 4096³").
  void set_status(std::string text);
  std::string status() const;
  std::vector<Completion> take_completions();

 private:
  mutable std::mutex mutex_;
  std::vector<Completion> completions_;
  std::string status_;
};

class Job {
 public:
  // Starts `work` on a new thread. Exceptions from `work` become a problem (via on_error).
  Job(JobKind kind, std::string name, std::function<void(JobContext&)> work,
      std::function<void(AppState&, const std::string&)> on_error);
  ~Job();  // requests cancel and joins
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  JobKind kind() const { return kind_; }
  const std::string& name() const { return name_; }
  bool finished() const { return finished_.load(); }
  void request_cancel() { context_.cancel = true; }
  bool cancel_requested() const { return context_.cancel.load(); }
  double fraction() const;  // 0..1, or -1 when the total is unknown
  // The time left at the rate of the progress so far (run::seconds_left), or -1 while no unit
  // is done. The clock starts at the job's first progress, not at its start (a model run
  // makes its data first).
  double seconds_left() const;
  std::string status() const { return context_.status(); }
  // Completions produced so far (and the error completion once the job has failed).
  std::vector<Completion> take_completions();

 private:
  JobKind kind_;
  std::string name_;
  JobContext context_;
  std::atomic<bool> finished_{false};
  std::function<void(AppState&, const std::string&)> on_error_;
  std::mutex error_mutex_;
  std::string error_;
  bool error_delivered_ = false;
  std::thread thread_;
};

}  // namespace gs::gui
