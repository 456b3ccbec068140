// The speed ladder: every step's TFLOP/s at one representative shape (4096³), whatever shape
// the traced CTA was opened at. Per step: what the model predicts there (the same run as
// `gemmscope sim ID --m 4096 --n 4096 --k 4096 --traced-cta-only`, made off the UI thread and
// kept per step, build and card), and what was measured: on the learner's GPU when the app
// has a run of the step at that shape, otherwise in the reference runs shipped with the app
// (assets/reference/<card>-<date>-*.json: our own `gemmscope bench --json` files, read by
// Measurements' importer). Beside them the speed-up over the step before and the share of
// cuBLAS in the same run.
//
// A small traced shape fills a few SMs: gpu_fill_sentence says how few, from the kernel's
// launch and the machine's SM count, so no view passes off 4 CTAs' speed as the kernel's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model/timing.hpp"
#include "gui/core/measurements.hpp"
#include "run/published_figures.hpp"

namespace gs::gui {

struct AppState;

// The shape the ladder's speeds are shown at.
inline constexpr kernels::GemmShape kSpeedShape{4096, 4096, 4096};

// One shipped `gemmscope bench --json` file, its card and date taken from its name
// ("h200-2026-11-28-ladder.json": card H200, date 2026-11-28).
struct ReferenceRun {
  std::string file;  // the file's name
  std::string card;  // "H200"
  std::string date;  // "2026-11-28"
  Measurements results;
};

// Every *.json of `dir` (sorted by name), each read with Measurements::import_file. Throws
// std::runtime_error naming the folder or the file when one cannot be read or its name does
// not start with <card>-<YYYY-MM-DD>-.
std::vector<ReferenceRun> load_reference_runs(const std::string& dir);

// The model's figure for one step at kSpeedShape on one card (pending while its job runs).
struct SpeedPrediction {
  bool done = false;
  double tflops = 0.0;
  std::string machine;  // "H100", "B200"
  bool confirmed = true;  // false: the card's figures are the vendor's, unchecked here
  std::string error;    // why there is no figure (the model refused the kernel, ...)
};

// What the app keeps for the ladder: the shipped runs and the predictions made so far.
struct SpeedLadder {
  std::vector<ReferenceRun> references;
  std::string references_error;  // why none were loaded ("" when they were)
  // Keyed by prediction_key: step, build and card.
  std::map<std::string, SpeedPrediction> predictions;
  // Where predictions are kept between runs (prediction_cache.hpp), and the program they must
  // have been made by; "" for either: none are read or kept (tests that build an AppState).
  std::string cache_dir;
  std::string program;
};

// "hopper_persistent|stages=3|H100": what a cached prediction depends on.
std::string prediction_key(const std::string& kernel_id, const kernels::ParamValues& params,
                           const std::string& machine);

// One measured figure and where it came from.
struct MeasuredSpeed {
  double tflops = 0.0;
  std::optional<double> cublas_tflops;  // cuBLAS in the same run
  std::string device;                   // "NVIDIA H200"
  std::string source;                   // "your GPU" or "H200, 2026-11-28, shipped"
  bool yours = false;                   // measured on this machine's GPU
  // How long the card ran the kernel before the timed rounds (the run's sustained_ms), where the
  // file says: 0 for short runs, whose clock is above the one the power limit holds.
  std::optional<double> sustained_ms;
};
// How a measured figure was taken, as the ladder says it beside its source: after how long under
// load, and whether that is the state the model predicts (the clock held under the power limit);
// empty where the file does not say.
std::string measured_method(const MeasuredSpeed& m);

struct SpeedRow {
  std::string kernel_id;
  int step = 0;
  std::string title;
  bool selected = false;  // the step the ladder is on
  std::optional<SpeedPrediction> predicted;  // nullopt: not asked for yet
  std::optional<MeasuredSpeed> measured;
  std::string not_measured;  // why measured is empty: "not measured here" (Blackwell), ...
  // measured / the step before's measured, when both were measured on one card.
  std::optional<double> vs_previous;
  std::optional<double> vs_cublas;  // measured / cuBLAS of the same run
  // Set on the first step of an architecture no step before needs and no shipped run measured
  // (step 20: sm_100a): why the figures change kind here, shown above the row.
  std::string gap_before;
  // What others published for the technique the step stops at (run/published_figures.def), in
  // the table's order: never measured here, shown beside the prediction, never as `measured`.
  std::vector<const run::PublishedFigure*> published;
};

// How a prediction stands, in the words every view uses beside its figure: "predicted on a B200
// from NVIDIA's figures, unconfirmed", "predicted on an H100".
std::string prediction_standing(const SpeedPrediction& p);

// The figures on a card named like `card` ("H100" matches "NVIDIA H100 80GB HBM3").
bool device_is(const std::string& device, const std::string& card);

// The ladder's rows, in step order. `reference_card`: the shipped run to prefer ("H100"), else
// the first that has the step. `mine`: the learner's own measurements (gpu source only).
std::vector<SpeedRow> speed_rows(const SpeedLadder& ladder, const Measurements& mine, const std::string& reference_card,
                                 const std::string& selected_id, const kernels::ParamValues& selected_params);
std::vector<SpeedRow> speed_rows(const AppState& app);

// "4 CTAs on 132 SMs: 3% of the GPU; speed shown at 4096³" when `ctas` leaves SMs idle, else "".
std::string gpu_fill_sentence(uint64_t ctas, uint32_t sms, kernels::GemmShape speed_shape = kSpeedShape);
// The sentence for the kernel on screen (its launch, the machine it was predicted on).
std::string gpu_fill_sentence(const AppState& app);

// The machine the app predicts a step built for `arch` on (the ladder, the Sweep view): the card
// asked for (--machine) when it runs the step's code, else the GPU found here when the model
// knows it, else the step's target's.
const model::timing::Machine& ladder_machine(const AppState& app, ir::Arch arch);

// The card whose shipped run the ladder prefers: the machine the selected step is predicted on.
std::string reference_card(const AppState& app);

// The measured figure of one build of `id` at kSpeedShape (`build`: its parameters that differ
// from the defaults, kernels::non_default_params_text; "" as it ships): a run of it on this
// machine's GPU, else in the shipped runs, reference_card's first; nullopt when none measured it.
std::optional<MeasuredSpeed> measured_build(const SpeedLadder& ladder, const Measurements& mine,
                                            const std::string& reference_card, const std::string& id,
                                            const std::string& build);


// Starts one job that predicts every step not predicted yet (for its card, the selected step
// with the edited build), each row filled as its run finishes. Does nothing while one runs.
void request_speed_predictions(AppState& app);
// The same, synchronously (headless runs, tests).
// `only`: just the steps of that target (the Throughput view's Blackwell tab needs the sm_100a
// steps' predictions alone: 6 runs instead of every step's).
void predict_speed_ladder_now(AppState& app, std::optional<ir::Arch> only = std::nullopt);
// The predictions kept by an earlier run of this program (ladder.cache_dir), added to those made;
// and the figures made so far, kept for the next run. Both do nothing without a cache_dir.
void read_kept_predictions(SpeedLadder& ladder);
void keep_predictions(const SpeedLadder& ladder);

// One published figure as the state JSON writes it (the speed ladder's rows, the Throughput view's).
nlohmann::json published_json(const run::PublishedFigure& f);
nlohmann::json describe_speed_ladder(AppState& app);

}  // namespace gs::gui
