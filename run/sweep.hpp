// A sweep over a kernel's build parameters, the way a tuner compares variants: every combination
// of the values asked for, at each size. A combination the kernel cannot build (its parameters'
// rule, KernelInfo::check_params, or a shape its tile does not divide) is listed with the reason;
// every other one runs on the model (its traced CTA at the shape, as `sim --traced-cta-only` runs
// it: the predicted TFLOP/s and the limit that binds it) and, when the
// request asks, on the GPU next to cuBLAS (run_bench: paired rounds, their spread).
// `gemmscope sweep` runs it.
//
//   run::SweepRequest req{.kernel_id = "simt_warptile", .axes = {{"bm", {64, 128}}, {"bk", {8, 16}}},
//                         .shapes = {{4096, 4096, 4096}}};
//   run::SweepResult r = run::run_sweep(req);   // 4 points, each predicted
//   run::sort_by_speed(r);                      // fastest first, per shape
//   run::sweep_json(r); run::sweep_csv(r);
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model/timing.hpp"
#include "kernels/registry.hpp"
#include "run/gpu_bench.hpp"

namespace gs::run {

// One swept parameter and its values, in the order asked for.
struct SweepAxis {
  std::string name;
  std::vector<uint32_t> values;
};

struct SweepRequest {
  std::string kernel_id;
  std::vector<SweepAxis> axes;             // each parameter once, each value one the kernel takes
  std::vector<kernels::GemmShape> shapes;  // a 0 dimension takes the kernel's example shape's
  // The card the time is predicted on (nullptr: the kernel's target's, timing::machine_for).
  const model::timing::Machine* machine = nullptr;
  // Set: every point that builds is measured too, with this request's settings (reps, cuBLAS,
  // the job's isolation); its kernel, shape and parameters are the point's.
  std::optional<BenchRequest> gpu;
  // Set to true (Ctrl-C): no point starts after it, a model run under way stops, and the result
  // keeps the points that finished (SweepResult::stopped).
  const std::atomic<bool>* stop = nullptr;
};

struct SweepPoint {
  kernels::GemmShape shape;
  // The swept values (the axes'), and every parameter the kernel declares as built (the others
  // at their defaults; empty for a point that does not build).
  kernels::ParamValues swept, params;
  std::string invalid;  // why the kernel cannot be built so at this shape; "" for a point that ran
  // The model: its predicted TFLOP/s and seconds, the limit that binds (timing::Breakdown) and
  // the CTAs per SM; model_error when the run failed (hazards, a hang), with no prediction.
  double predicted_tflops = 0.0, predicted_seconds = 0.0;
  std::string bound;
  uint32_t ctas_per_sm = 0;
  std::string model_error;
  std::optional<BenchResult> gpu;  // the GPU's run, when the request asked for one
  // The GPU's median TFLOP/s, cuBLAS's in the same rounds, and ours over cuBLAS (the paired
  // rounds' median ratio with its quartiles); nullopt where not measured or not timed.
  std::optional<double> gpu_tflops() const;
  std::optional<double> cublas_tflops() const;
  std::optional<Spread> vs_cublas() const;
};

struct SweepResult {
  std::string kernel_id;
  std::vector<SweepAxis> axes;
  std::vector<kernels::GemmShape> shapes;  // as resolved
  std::string predicted_on;                // the card's name
  bool gpu = false;                        // the request measured on the GPU
  std::vector<SweepPoint> points;          // the points that built, in the order they ran
  std::vector<SweepPoint> invalid;         // the points that do not build, with their reasons
  size_t total = 0;                        // points asked for: combinations x shapes
  bool stopped = false;                    // the request's stop flag ended it early
};

// Throws kernels::ConfigError for an unknown kernel, no axes, a parameter the kernel does not
// declare (or named twice), a value it does not take or an axis without values, naming the
// value and what is valid; nothing has run then.
void check_sweep(const SweepRequest& request);
// Every combination of the axes' values (the last axis changing fastest), as parameter values.
std::vector<kernels::ParamValues> sweep_combinations(const std::vector<SweepAxis>& axes);

// Runs the sweep: check_sweep, then for each shape each combination in order. `on_point` is
// called as each point is done (valid or not) with the points done and the total.
SweepResult run_sweep(const SweepRequest& request,
                      const std::function<void(const SweepPoint&, size_t done, size_t total)>& on_point = {});

// "bm=64 bk=16": the swept values in the axes' order (params_text sorts by name).
std::string swept_text(const std::vector<SweepAxis>& axes, const kernels::ParamValues& swept);

// The point's speed for ranking: the GPU's median TFLOP/s where measured, else the model's.
double sweep_speed(const SweepPoint& point, bool gpu);
// Sorts the points that ran fastest first within each shape (shapes in the request's order);
// a point whose model run failed goes last.
void sort_by_speed(SweepResult& result);

// {kernel, predicted_on, gpu, stopped, total, axes [{name, values}], shapes [{m,n,k}],
//  points [{shape, swept, params, predicted_tflops, predicted_seconds, bound, ctas_per_sm,
//  model_error, gpu_tflops, cublas_tflops, vs_cublas {median, q1, q3}, gpu (bench_result_json)}],
//  invalid [{shape, swept, reason}]}. Numbers that do not exist are null.
nlohmann::json sweep_json(const SweepResult& result);
// A result back from sweep_json (a sweep run elsewhere, e.g. with --gpu on a machine with a GPU):
// the points and the invalid ones as written, each GPU run through bench_result_from_json. At
// most kMaxSweepFilePoints points. Throws kernels::ConfigError naming the field ("points[3]:
// ...") and what it should be: an unknown kernel, axes that are not {name, values}, a point
// whose swept values are not the axes', a shape not in `shapes`, a negative or non-finite figure.
inline constexpr size_t kMaxSweepFilePoints = 4096;
SweepResult sweep_from_json(const nlohmann::json& j);
// One line per point, valid ones first (in the result's order), then the invalid:
// kernel,m,n,k,<each axis>,valid,predicted_tflops,bound,ctas_per_sm,gpu_tflops,cublas_tflops,
// vs_cublas,vs_cublas_q1,vs_cublas_q3,note (the reason, or the model's error), with a header.
std::string sweep_csv(const SweepResult& result);
// The table for a terminal: per shape the points fastest first with their rank, values,
// predicted TFLOP/s and bound (and the GPU's figures), then the invalid ones with their reasons.
std::string sweep_table(const SweepResult& result);

}  // namespace gs::run
