// Why one prediction is faster than another, in the model's own terms.
//
// A prediction's time is waves x (its largest part's cycles per wave) / clock + the launch
// (timing.hpp, predict_gemm). Two kernels of one GEMM compare part by part once each part is a
// time for the whole GEMM: waves x the part's cycles per wave / the clock. Then the speed-up is
// read off the bounds: the slower kernel's binding part, what the same part takes in the faster
// one, and what binds the faster one instead. The comparison computes nothing the predictions do
// not hold, so it says only what the model knows.
#pragma once

#include <string>
#include <vector>

#include "engine/model/timing.hpp"

namespace gs::model::timing {

// One limit of the breakdown as a time for the whole GEMM in each prediction (seconds).
struct PartTimes {
  const char* name = "";
  double a = 0.0, b = 0.0;
  bool sm_unit = false;  // PartRow::sm_unit
};

struct PredictionComparison {
  double speedup = 0.0;  // a's seconds over b's: b is this many times faster (below 1: slower)
  const char* bound_a = "";
  const char* bound_b = "";
  std::vector<PartTimes> parts;  // breakdown_rows order
  double launch_a = 0.0, launch_b = 0.0;
  // The explanation, one sentence a line: the verdict, a's bound and what it takes in b, b's
  // bound, then what else moved (waves, CTAs per SM, the clock, the launch).
  std::vector<std::string> lines;
};

// The time of a prediction's part for the whole GEMM: waves (the last by its share of a full one,
// Prediction::last_wave_cycles) x its cycles per wave / the clock.
double part_seconds(const Prediction& p, double part_cycles);
// a and b are predictions of the same GEMM (the shape, the card) by two kernels or builds named
// name_a and name_b. Both must have run (waves > 0); otherwise the comparison says so in its
// one line and has no parts.
PredictionComparison compare_predictions(const Prediction& a, const std::string& name_a, const Prediction& b,
                                         const std::string& name_b);

}  // namespace gs::model::timing
