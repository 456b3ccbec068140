// The Sweep view's data: a tuner's comparison of the open kernel's variants, in the app. The
// learner picks one or two of the build parameters the kernel declares (KernelInfo::params) and
// ticks their values; run::run_sweep runs every combination at one size on the model (the
// traced CTA, as `gemmscope sweep` does) and, asked and where a GPU is, on the GPU next to
// cuBLAS, off the UI thread (a JobKind::sweep job whose cancel flag is the sweep's stop flag).
// Points land one by one; the view draws them as a heat map (two parameters: rows the first,
// columns the second) or a line (one), predicted and measured side by side, the fastest marked,
// and a combination the kernel cannot build keeps the kernel's own reason. Clicking a cell
// opens that variant the way the ladder opens one (its request's parameters, then
// request_open), so every view shows it.
//
//   SweepChoice& c = sweep_choice(app);             // the open kernel's parameters, synced
//   start_sweep(app);                               // a job; run_sweep_now(app) headless
//   const SweepData d = sweep_data(app);            // cells, best, progress
//   open_sweep_cell(app, d.cells[*d.best]);         // that variant, in every view
//
// No ImGui.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/sweep.hpp"

namespace gs::gui {

struct AppState;

// The size a sweep runs at unless the learner sets another: the speed ladder's, so a cell's
// figure reads against the ladder's rows.
inline constexpr kernels::GemmShape kSweepShape{4096, 4096, 4096};
// The view draws a heat map or a line: at most two parameters at once.
inline constexpr size_t kMaxSweepAxes = 2;
// The largest `gemmscope sweep --json` file import_sweep_json reads.
inline constexpr size_t kMaxSweepFileBytes = size_t(32) << 20;

// What the learner picked: the parameters (in the order picked) and their ticked values, the
// size, and whether the GPU measures each point too. Kept per kernel: another kernel opened
// starts from its own parameters.
struct SweepChoice {
  std::string kernel_id;           // the kernel these choices are for
  std::vector<std::string> axes;   // chosen parameters, at most kMaxSweepAxes
  std::map<std::string, std::vector<uint32_t>> values;  // per parameter its ticked values, ascending
  kernels::GemmShape shape = kSweepShape;
  bool gpu = false;
};

// A sweep under way or finished: what was asked and the points that came back, in order.
struct SweepRun {
  uint64_t generation = 0;  // which start_sweep made it; a superseded job's points are dropped
  std::string kernel_id;
  std::vector<run::SweepAxis> axes;
  kernels::GemmShape shape;  // as resolved
  std::string predicted_on;  // the card's name
  bool gpu = false;
  bool running = false;
  bool stopped = false;  // cancelled: the points that finished are kept
  size_t total = 0;
  std::vector<run::SweepPoint> points;  // valid and invalid, as each finished
  std::string error;                    // why the sweep could not run
  // A sweep run elsewhere (import_sweep_json): the file, and the card its GPU points ran on.
  std::string imported_from, measured_on;
};

struct SweepState {
  SweepChoice choice;
  std::string import_path;  // the view's field for import_sweep_json
  std::optional<SweepRun> run;
  uint64_t generation = 0;
};

// The open kernel's choice (the loaded kernel's, else the edited request's): reset to the
// kernel's first two parameters with all their values when another kernel is open.
SweepChoice& sweep_choice(AppState& app);
// Picks or drops a parameter (a third is refused: false), ticks or unticks a value.
bool set_sweep_axis(SweepChoice& c, const kernels::KernelInfo& info, const std::string& name, bool on);
void set_sweep_value(SweepChoice& c, const std::string& name, uint32_t value, bool on);
// The request the choice makes (on the card the app predicts this kernel on).
run::SweepRequest sweep_request(const AppState& app, const SweepChoice& c);
// Why the sweep cannot measure on the GPU here ("" when it can): none found, or not known yet.
std::string sweep_gpu_refusal(const AppState& app);
// Why the choice cannot run ("" when it can): run::check_sweep's message, or the GPU's refusal
// when the choice measures.
std::string sweep_choice_problem(const AppState& app, const SweepChoice& c);

// Starts the sweep of the current choice as a job (a sweep still running is cancelled first);
// false, with the reason in app.status, when the choice cannot run.
bool start_sweep(AppState& app);
// The same on this thread (headless runs, tests); `stop_after` > 0 stops it after that many
// points, as Cancel would.
bool run_sweep_now(AppState& app, size_t stop_after = 0);
void cancel_sweep(AppState& app);

// Shows a sweep run elsewhere: a `gemmscope sweep --json` file (e.g. `--gpu` on a machine with a
// GPU and no display), at the choice's size where the file has it, else at its first. The file's
// kernel, axes and size become the choice. Returns the points shown; 0, with the reason in the
// problems and app.status, for a file that cannot be read or drawn (nothing changed then).
size_t import_sweep_json(AppState& app, const std::string& path);

enum class SweepCellState : uint8_t { pending, done, invalid, failed };
const char* sweep_cell_state_name(SweepCellState s);  // "pending", "done", "invalid", "failed"

struct SweepCell {
  size_t row = 0, col = 0;  // two axes: the first's value index, the second's; one axis: 0, its index
  kernels::ParamValues swept;   // the swept values
  kernels::ParamValues params;  // every parameter as built (empty unless it built)
  SweepCellState state = SweepCellState::pending;
  double predicted = 0.0;  // TFLOP/s
  std::string bound;
  uint32_t ctas_per_sm = 0;
  std::optional<double> measured, cublas;  // TFLOP/s on the GPU, cuBLAS in the same rounds
  std::optional<run::Spread> vs_cublas;
  std::string gpu_note;  // a GPU run that failed: its summary
  std::string reason;    // invalid: why it cannot be built; failed: the model's error
  double predicted_shade = -1.0, measured_shade = -1.0;  // 0..1 on the colour scale, -1 none
  bool best = false, best_predicted = false, best_measured = false;
};

struct SweepData {
  bool available = false;
  std::string note;  // why there is nothing to show, or what to do first
  std::string kernel_id;
  std::vector<run::SweepAxis> axes;  // the run's
  kernels::GemmShape shape;
  std::string predicted_on;
  bool measured = false;  // the run measured on the GPU
  std::string imported_from, measured_on;  // an imported run's file and card
  size_t rows = 0, cols = 0;
  std::vector<SweepCell> cells;  // row-major, rows x cols
  std::optional<size_t> best;    // the fastest: measured where measured, else predicted
  std::optional<size_t> best_predicted, best_measured;
  double predicted_lo = 0, predicted_hi = 0, measured_lo = 0, measured_hi = 0;
  size_t done = 0, total = 0, invalid = 0, failed = 0;
  bool running = false, stopped = false;
  std::string error;
  std::string summary;  // "9 of 9 points at 512x512x512 on an H100; fastest bm=128 bn=64: 1.23 TFLOP/s predicted"
};

// The cells of a run: every combination in the grid, those not back yet pending.
SweepData sweep_data(const SweepRun& run);
SweepData sweep_data(AppState& app);
// The cell's figures as its tooltip shows them (one line each).
std::string sweep_cell_text(const SweepData& d, const SweepCell& c);

// Opens the cell's variant (its kernel, its parameters, the sweep's size, no mistakes) the way
// the ladder does: the edited request (select_ladder_kernel, set_param, set_mistake), then
// request_open of its traced CTA. False, and nothing changed, for a cell that did not build.
bool open_sweep_cell(AppState& app, const SweepData& d, const SweepCell& c);

nlohmann::json describe_sweep(AppState& app);

}  // namespace gs::gui
