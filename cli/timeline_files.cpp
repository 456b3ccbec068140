#include "cli/timeline_files.hpp"

#include <ostream>

#include <fmt/format.h>

#include "cli/values.hpp"
#include "run/gpu_launch.hpp"
#include "run/output_file.hpp"

namespace gs::cli {

void add_timeline_record_options(CLI::App* cmd, TimelineCliOptions& o, const std::string& prefix) {
  cmd->add_option(prefix + "ctas", o.ctas,
                  "Which CTAs record: cta (the traced one), cluster (its cluster), wave (the first wave, one CTA "
                  "per SM) or all (every CTA of the grid: give " + prefix + "capacity 0 to keep each warp's start "
                  "and end only); default cta")
      ->check(one_of({"cta", "cluster", "wave", "all"}, "a set of CTAs"));
  cmd->add_option(prefix + "cta", o.cta, "The traced CTA, X,Y (default 0,0)")->check(cta_value());
  cmd->add_option(prefix + "capacity", o.capacity,
                  "Records per warp (default 8192; 0: each warp's start and end only, no events)")
      ->check(whole_number(0, ir::kTimelineMaxCapacity, "number of records per warp"));
}

run::TimelineRequest timeline_request(const TimelineCliOptions& o, uint32_t sms) {
  run::TimelineRequest r;
  r.ctas = *run::parse_timeline_ctas(o.ctas);
  r.cta = parse_cta(o.cta);
  r.capacity = o.capacity;
  if (sms) r.sms = sms;
  return r;
}

std::optional<run::BenchResult> bench_with_timeline(run::BenchRequest req, const TimelineCliOptions& o, Streams io,
                                                    int& exit_code) {
  const kernels::KernelInfo& info = kernels::kernel_or_throw(req.kernel_id);
  const run::DeviceList devices = run::list_devices_isolated(req.job);
  if (!devices.job.ok()) {
    io.err << "gemmscope: " << devices.job.error << "\n";
    exit_code = devices.job.no_gpu() ? kExitNoDevice : kExitFailed;
    return std::nullopt;
  }
  const cuda::DeviceInfo& device = devices.devices.front();
  if (const std::optional<std::string> refusal = run::arch_refusal(info.id, info.arch, device)) {
    io.err << "gemmscope: " << *refusal << "\n";
    exit_code = kExitNoDevice;
    return std::nullopt;
  }
  req.timeline = timeline_request(o, uint32_t(device.sms));
  io.err << fmt::format("{} {}x{}x{} with a timeline ... ", info.id, req.shape.m, req.shape.n, req.shape.k)
         << std::flush;
  run::BenchResult r = run::run_bench(req);
  io.err << run::bench_summary_line(r) << "\n";
  if (!r.timeline) {
    io.err << "gemmscope: no timeline: " << (r.timeline_error.empty() ? r.error : r.timeline_error) << "\n";
    exit_code = kExitFailed;
    return std::nullopt;
  }
  return r;
}

std::string default_trace_path(const std::string& json_path) {
  if (ends_with_suffix(json_path, ".json")) return json_path.substr(0, json_path.size() - 5) + ".trace.json";
  return json_path + ".trace.json";
}

void write_timeline_files(const run::TimelineDoc& doc, const std::string& json_path, const std::string& trace_path,
                          Streams io) {
  run::write_output_file(json_path, run::timeline_json(doc).dump(1) + "\n", "--timeline");
  const std::string trace = trace_path.empty() ? default_trace_path(json_path) : trace_path;
  run::write_output_file(trace, run::chrome_trace_json(doc).dump() + "\n", "the timeline's trace");
  io.err << fmt::format("wrote {} and {}\n", json_path, trace);
}

}  // namespace gs::cli
