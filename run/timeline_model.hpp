// The model's timeline of a kernel: the kernel instrumented with the timeline pass, run on the
// CPU model, its records decoded exactly as a GPU's are. Its clock is the modeled cycle, so
// its figures (run/timeline_stats.hpp) sit beside the measured ones; its time is those cycles at
// the sustained clock of the card it is compared with (model_clock, timeline_doc.hpp).
//
//   run::TimelineDoc model = run::model_timeline({.kernel_id = "hopper_two_consumers",
//                                                 .shape = {8192, 8192, 8192}});
//   run::TimelineDoc beside = run::model_timeline(model_request_like(recorded));  // its build, CTA, card
#pragma once

#include <set>
#include <string>

#include "run/timeline_doc.hpp"

namespace gs::run {

struct ModelTimelineRequest {
  std::string kernel_id;
  kernels::GemmShape shape;         // a 0 takes that dimension of the kernel's example shape
  kernels::ParamValues params;      // an unset one takes the kernel's default
  std::set<std::string> mistakes;
  TimelineRequest timeline;         // which CTAs record
  std::string card;                 // the device compared with ("NVIDIA H100 80GB HBM3"): whose sustained
                                    // clock turns cycles into time; "" for the kernel's machine
};

// Runs only the recorded CTAs' part of the grid where it can (the traced CTA or its cluster);
// `wave` and `all` run the whole grid. A long loop's middle passes are fast-forwarded (the document's
// skips say which). Throws kernels::ConfigError for a kernel, shape, mistake or option it does
// not take, and std::runtime_error when the model did not finish (naming why).
TimelineDoc model_timeline(const ModelTimelineRequest& request);

// The model's request beside a recorded document: its kernel, shape, build (the kernel's
// defaults for a file that does not store it), first recorded CTA (one CTA) and card.
// Throws kernels::ConfigError for a kernel, shape or build this build cannot make.
ModelTimelineRequest model_request_like(const TimelineDoc& recorded);

}  // namespace gs::run
