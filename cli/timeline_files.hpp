// What `bench --timeline` and `timeline` share: the recording options, the GPU run with a
// timeline, and writing the JSON and the Chrome/Perfetto trace.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/cli.hpp"
#include "run/gpu_bench.hpp"
#include "run/timeline_doc.hpp"

namespace gs::cli {

struct TimelineCliOptions {
  std::string ctas = "cta";  // cta, cluster or wave
  std::string cta = "0,0";   // the traced CTA
  uint32_t capacity = 8192;  // records per warp
};

// prefix "--" gives --ctas, --cta, --capacity; "--timeline-" gives --timeline-ctas, ...
void add_timeline_record_options(CLI::App* cmd, TimelineCliOptions& o, const std::string& prefix);

// sms: the device's SMs (0: the H100's 132, for the model).
run::TimelineRequest timeline_request(const TimelineCliOptions& o, uint32_t sms);

// Runs `request` on the GPU with a timeline (request.timeline is filled from `o` and the
// device). On no GPU, a kernel this GPU cannot run or a failed run: prints why, sets exit_code,
// returns nullopt.
std::optional<run::BenchResult> bench_with_timeline(run::BenchRequest request, const TimelineCliOptions& o, Streams io,
                                                    int& exit_code);

// The trace's file for a timeline written to `json_path`: "t.json" -> "t.trace.json", else json_path + ".trace.json".
std::string default_trace_path(const std::string& json_path);

// Writes the JSON to json_path and the trace to trace_path (default_trace_path when empty).
void write_timeline_files(const run::TimelineDoc& doc, const std::string& json_path, const std::string& trace_path,
                          Streams io);

}  // namespace gs::cli
