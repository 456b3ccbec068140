// The Compare view's data: two variants of the ladder side by side (two steps, one step with two
// parameter sets, a step with and without a mistake). For each: the model's predicted TFLOP/s at
// the speed ladder's shape with its breakdown (timing::Breakdown: what bounds it), the measured
// TFLOP/s where a GPU measured that build (speed_ladder.hpp), and its traced CTA at one shape
// for both: the timeline (timeline_data.hpp), the Schedule view's occupancy and waves
// (schedule_data.hpp), the shared-memory figures the Shared memory view counts, the stalls by
// cause. Then what changed (run::diff_variants: source and PTX) and what it bought
// (timing::compare_predictions: the model's sentences, from the two breakdowns).
//
// The runs are a job (JobKind::compare): request_compare starts it when the choice changes, the
// view shows the pending state until it lands; compare_now does it at once (headless, tests).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model/prediction_compare.hpp"
#include "gui/core/speed_ladder.hpp"
#include "gui/core/stall_causes.hpp"
#include "gui/core/throughput_data.hpp"
#include "gui/core/timeline_compare_data.hpp"
#include "run/kernel_diff.hpp"

namespace gs::gui {

struct AppState;

// "ID", "ID:NAME=V", "ID+MISTAKE", "ID:NAME=V,NAME=V+MISTAKE+MISTAKE" (ids, parameters and
// mistakes as the kernels declare them): what `gui --compare-with` takes. Throws
// kernels::ConfigError naming the bad id, parameter, value or mistake and the valid ones.
run::KernelVariant parse_variant(std::string_view text);
// Throws kernels::ConfigError when the kernel does not declare the parameters or mistakes, or
// does not take the values (together), naming the valid ones.
void check_variant(const run::KernelVariant& v);
// The text parse_variant reads back: the id, every parameter set, the mistakes.
std::string variant_text(const run::KernelVariant& v);

// What a side shows when the learner has not picked one, read before -> after as `gemmscope
// diff` reads: B the kernel on screen (its build and mistakes); A what it came from: B without
// its mistakes where it has some, else B as it ships where B's build sets parameters, else the
// step before it as it ships; for the first step as it ships, the same step with its first
// parameter at another value, else the next step.
run::KernelVariant default_variant_b(const AppState& app);
run::KernelVariant default_variant_a(const run::KernelVariant& b);

struct CompareViewOptions {
  std::optional<run::KernelVariant> a, b;  // nullopt: the defaults above (B follows the kernel on screen, A follows B)
  kernels::GemmShape prediction_shape = kSpeedShape;  // where the TFLOP/s are predicted
  bool show_ptx = false;      // the PTX diff instead of the source diff
  bool changes_only = true;   // unchanged lines folded away
};

// The first few causes of a traced CTA's stalls, summed over its warps (StallData::total).
struct CompareStall {
  std::string name;
  uint64_t cycles = 0;
  double share = 0.0;  // of all the warps' cycles
};

struct CompareSide {
  run::KernelVariant variant;
  std::string name;   // run::variant_name
  std::string error;  // why this side has no figures (the build or the model refused it); "" when it has
  // The prediction at CompareData::prediction_shape.
  bool predicted = false;
  std::string prediction_error;
  double predicted_tflops = 0.0;
  std::string machine;  // the card it is predicted on ("H100")
  model::timing::Prediction prediction;
  std::vector<PredictionPart> parts;  // its breakdown (throughput_data.hpp), breakdown_rows order
  // Measured at kSpeedShape: this build on this machine's GPU, else in a shipped run.
  std::optional<MeasuredSpeed> measured;
  std::string not_measured;  // why not
  // The traced CTA at CompareData::shape.
  // Its run's figures: the Shared memory view's wavefront and conflict counts (smem_*,
  // tensor_smem_*) and what the traced CTA did (traced_cost: warp instructions, shared bytes,
  // TMA and global bytes).
  model::SimStats traced;
  uint64_t cycles = 0;            // modeled cycles of the traced CTA (its timeline's end)
  double clock_hz = 0.0;          // the clock its cycles are turned into time at
  double tensor_busy_share = 0.0;
  uint32_t warps = 0;
  size_t hazards = 0;
  std::vector<CompareStall> stalls;  // largest first, at most 4
  // The Schedule view's figures at that shape (schedule_waves).
  std::string schedule_headline, waves_text;
  uint32_t ctas_per_sm = 0;
  std::string occupancy_bound;
  double wave_efficiency = 0.0;
  bool ok() const { return error.empty(); }
};

struct CompareData {
  std::string key;                   // the choice it was made for (compare_key)
  kernels::GemmShape shape;          // both traced CTAs ran at this shape
  std::string shape_note;            // why not the shape on screen ("" when it is)
  kernels::GemmShape prediction_shape;
  CompareSide a, b;
  // What it bought: the model's comparison of the two predictions, and a line of it.
  model::timing::PredictionComparison why;
  std::string bought;                // "B is predicted 1.80x faster than A: A is bound by ..., B by ..."
  std::optional<double> measured_ratio;  // B's measured TFLOP/s over A's, when both were measured on one card
  // Both timelines on one time axis (ps; each side's cycles at its own clock): A's warps, then B's.
  std::vector<CompareLane> lanes;
  uint64_t end_ps = 0;
  uint32_t lanes_a = 0;              // the first lanes_a lanes are A's
  std::string lanes_note;            // warps left out of a long list
  // What changed.
  run::KernelDiff diff;
  std::string diff_error;
};

// The warps of each side drawn at most (a 1024-thread SIMT CTA has 32).
inline constexpr uint32_t kCompareWarps = 12;

// What one comparison is made of, taken from the app on the UI thread.
struct CompareInputs {
  run::KernelVariant a, b;
  kernels::GemmShape shape;             // the shape on screen (0s: the first kernel's example shape)
  kernels::GemmShape prediction_shape = kSpeedShape;
  const model::timing::Machine* machine_a = nullptr;  // the card each is predicted on (nullptr: its target's)
  const model::timing::Machine* machine_b = nullptr;
  std::optional<MeasuredSpeed> measured_a, measured_b;
  std::string not_measured_a, not_measured_b;
};
std::string compare_key(const CompareInputs& in);
// The inputs for the kernel on screen and the view's choice; nullopt without a kernel.
std::optional<CompareInputs> compare_inputs(const AppState& app);
// Builds both variants, runs their traced CTAs and predictions on the model, diffs them. Never
// throws: a side the model refuses carries its error. `cancel` is checked between runs.
CompareData compute_compare(const CompareInputs& in, const std::atomic<bool>* cancel = nullptr);

// The comparison the app keeps: the latest one made and the key of the one being made.
struct CompareResults {
  std::shared_ptr<const CompareData> data;
  std::string pending;  // the key of the running job's choice; "" when none runs
};
// The comparison for the view's choice: starts the job when the choice changed (nothing while one
// for the same choice runs). Returns the latest data, which may be for an earlier choice (then
// compare_current is false) or null.
const CompareData* request_compare(AppState& app);
bool compare_current(const AppState& app);
// The same at once, on this thread (headless, tests).
void compare_now(AppState& app);

nlohmann::json describe_compare(AppState& app);

}  // namespace gs::gui
