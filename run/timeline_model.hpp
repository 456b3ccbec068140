// The model's timeline of a kernel: the kernel instrumented with the timeline pass, run on the
// CPU model, its records decoded exactly as a GPU's are. Its clock is the modeled cycle, so
// its figures (run/timeline_stats.hpp) sit beside the measured ones.
//
//   run::TimelineDoc model = run::model_timeline("hopper_two_consumers", {8192, 8192, 8192}, {}, {});
#pragma once

#include <string>

#include "run/timeline_doc.hpp"

namespace gs::run {

// Runs only the recorded CTAs' part of the grid where it can (the traced CTA or its cluster);
// `wave` runs the whole grid. Throws kernels::ConfigError for a kernel, shape or option it does
// not take, and std::runtime_error when the model did not finish (naming why).
TimelineDoc model_timeline(const std::string& kernel_id, kernels::GemmShape shape, const kernels::ParamValues& params,
                           const TimelineRequest& request);

}  // namespace gs::run
