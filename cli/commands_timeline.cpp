// `gemmscope timeline`: a kernel's own timeline, measured on the GPU (the kernel instrumented
// by the timeline pass, engine/ir/instrument.hpp), on the model, or read from a recorded JSON,
// as a per-warp summary with the kernel's figures (and the model's beside them).
//
//   gemmscope timeline hopper_two_consumers --size 8192 --compare-model --json t.json
//   gemmscope timeline --import docs/results/.../hopper_two_consumers.timeline.json --compare-model
//   gemmscope timeline hopper_two_consumers --model
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/cli.hpp"
#include "cli/timeline_files.hpp"
#include "cli/values.hpp"
#include "run/gpu_bench.hpp"
#include "run/input_file.hpp"
#include "run/output_file.hpp"
#include "run/timeline_model.hpp"
#include "run/timeline_stats.hpp"

namespace gs::cli {

namespace {

struct TimelineOptions {
  std::string id;
  std::string size = "example";
  std::string import_file;
  bool model = false;
  bool compare_model = false;
  std::string json_file;
  std::string trace_file;
  TimelineCliOptions record;
  std::vector<std::string> params;
  int reps = 20;
};

void run_timeline_command(const TimelineOptions& o, Streams io, int& exit_code) {
  if (o.import_file.empty() == o.id.empty())
    throw kernels::ConfigError(o.id.empty() ? "give a kernel ID, or --import FILE to read a recorded timeline"
                                            : "give either a kernel ID or --import FILE, not both");
  if (!o.import_file.empty() && o.model)
    throw kernels::ConfigError("--model runs the kernel on the model; with --import use --compare-model");
  const kernels::ParamValues params = parse_params(o.params);
  run::TimelineDoc doc;
  if (!o.import_file.empty()) {
    doc = run::timeline_from_json(run::parse_json_bounded(run::read_input_file(o.import_file, 1u << 30), 16));
  } else {
    const kernels::KernelInfo& info = kernels::kernel_or_throw(o.id);
    const kernels::GemmShape shape = info.resolve(parse_bench_size(o.size));
    if (o.model) {
      doc = run::model_timeline({.kernel_id = info.id, .shape = shape, .params = params,
                                 .timeline = timeline_request(o.record, 0)});
    } else {
      run::BenchRequest req;
      req.kernel_id = info.id;
      req.shape = shape;
      req.params = params;
      req.reps = o.reps;
      std::optional<run::BenchResult> r = bench_with_timeline(req, o.record, io, exit_code);
      if (!r) return;
      doc = *r->timeline;
    }
  }
  std::optional<run::TimelineDoc> model;
  if (o.compare_model && doc.source != "model") {
    // The recording's build (the kernel's defaults for a file that does not store one; --param
    // overrides), its first CTA and its card's sustained clock.
    run::ModelTimelineRequest m = run::model_request_like(doc);
    if (!params.empty()) m.params = params;
    model = run::model_timeline(m);
  }
  io.out << run::timeline_summary_text(doc, model ? &*model : nullptr);
  if (!o.json_file.empty()) write_timeline_files(doc, o.json_file, o.trace_file, io);
  else if (!o.trace_file.empty()) run::write_output_file(o.trace_file, run::chrome_trace_json(doc).dump() + "\n", "--trace");
  exit_code = doc.warnings.empty() && doc.c_identical.value_or(true) ? kExitOk : kExitFailed;
}

}  // namespace

void add_timeline_command(CLI::App& app, Streams io, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "timeline",
      "A kernel's own timeline: every warp's events (roles, mbarrier waits, TMA issues, wgmma commits and waits, "
      "bar.sync, stores, K passes) recorded with the GPU's clocks, or the model's, or read from a recorded JSON");
  auto o = std::make_shared<TimelineOptions>();
  cmd->add_option("ID", o->id, "Kernel id")->check(non_empty("a kernel id"));
  cmd->add_option("--size", o->size, "Problem size: N for N×N×N, MxNxK, or example (default)")
      ->type_name("N|MxNxK|example")
      ->check(bench_size_value());
  cmd->add_option("--import", o->import_file, "Read a timeline recorded elsewhere (bench --timeline's JSON); no GPU")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  cmd->add_flag("--model", o->model, "Record the timeline on the model instead of the GPU");
  cmd->add_flag("--compare-model", o->compare_model, "Also record the model's timeline and set its figures beside");
  cmd->add_option("--json", o->json_file, "Write the timeline as JSON (and FILE.trace.json for Perfetto)")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  cmd->add_option("--trace", o->trace_file, "Write the Chrome/Perfetto trace to this file")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  cmd->add_option("--reps", o->reps, "Timed launches of the plain and the instrumented kernel (default 20)")
      ->check(whole_number(1, 100000, "number of timed launches"));
  add_param_option(cmd, o->params);
  add_timeline_record_options(cmd, o->record, /*prefix=*/"--");
  cmd->footer("Exit codes: 0 recorded (C identical, nothing lost), 1 records lost, a warp unfinished or C changed, "
              "2 bad usage or input, 3 no CUDA driver or GPU.");
  cmd->callback([io, o, &exit_code] { run_timeline_command(*o, io, exit_code); });
}

}  // namespace gs::cli
