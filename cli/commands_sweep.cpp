// `gemmscope sweep`: every combination of a kernel's build parameters the command names, at each
// size, on the model (and with --gpu on the GPU next to cuBLAS), as a table sorted by speed with
// the combinations the kernel cannot build and why, and as JSON and CSV (run/sweep.hpp).
//
// Everything that can be wrong with the command line (the kernel, a parameter, a value, a size,
// an output path, the GPU) is found before the first point runs. Ctrl-C stops after the point
// under way; the finished points are printed and written as if the sweep had ended there.
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/cli.hpp"
#include "cli/devices.hpp"
#include "cli/interrupt.hpp"
#include "cli/values.hpp"
#include "run/output_file.hpp"
#include "run/sweep.hpp"

namespace gs::cli {

namespace {

struct SweepOptions {
  std::string id;
  std::vector<std::string> params;
  std::vector<std::string> sizes;
  std::string machine;
  bool gpu = false;
  int reps = 20;
  std::string json_file, csv_file;
  bool in_process = false;  // hidden: GPU work in this process (profilers)
};

std::string shape_text(const kernels::GemmShape& s) { return fmt::format("{}x{}x{}", s.m, s.n, s.k); }

// "[3/12] bm=64 bk=16 at 4096x4096x4096: 12.3 TFLOP/s predicted (bound by l1)".
std::string point_line(const run::SweepPoint& p, size_t done, size_t total) {
  std::string values;
  for (const auto& [name, value] : p.swept) values += fmt::format("{}{}={}", values.empty() ? "" : " ", name, value);
  std::string what;
  if (!p.invalid.empty())
    what = "cannot be built: " + p.invalid;
  else if (!p.model_error.empty())
    what = "model: " + p.model_error;
  else
    what = fmt::format("{:.2f} TFLOP/s predicted (bound by {})", p.predicted_tflops, p.bound);
  if (p.gpu) what += "; GPU: " + run::bench_summary_line(*p.gpu);
  return fmt::format("[{}/{}] {} at {}: {}", done, total, values, shape_text(p.shape), what);
}

void run_sweep_command(const SweepOptions& o, Streams io, int& exit_code) {
  // The request, checked whole before anything runs (ConfigError: exit 2).
  run::SweepRequest req;
  req.kernel_id = kernels::kernel_or_throw(o.id).id;
  for (const std::string& text : o.params) {
    auto [name, values] = parse_param_values(text);
    req.axes.push_back({name, values});
  }
  for (const std::string& s : o.sizes.empty() ? std::vector<std::string>{"4096"} : o.sizes)
    req.shapes.push_back(parse_bench_size(s));
  if (!o.machine.empty()) req.machine = machine_option(o.machine, o.id);
  run::check_sweep(req);
  run::OutputFile json_out = o.json_file.empty() ? run::OutputFile() : run::OutputFile(o.json_file, "--json");
  run::OutputFile csv_out = o.csv_file.empty() ? run::OutputFile() : run::OutputFile(o.csv_file, "--csv");

  if (o.gpu) {
    run::GpuJobOptions job;
    job.isolate = !o.in_process;
    const std::optional<run::DeviceList> devices = require_device(io, exit_code, job);
    if (!devices) return;  // exit 3 (no driver or GPU) with the driver layer's reason
    const cuda::DeviceInfo& device = devices->devices.front();
    const kernels::KernelInfo& info = kernels::kernel_or_throw(req.kernel_id);
    if (const std::optional<std::string> refusal = run::arch_refusal(info.id, info.arch, device)) {
      io.err << "gemmscope: " << *refusal << "\n";
      exit_code = kExitNoDevice;
      return;
    }
    io.err << cuda::describe(device) << "\n";
    run::BenchRequest bench;
    bench.reps = o.reps;
    bench.job = job;
    req.gpu = bench;
  }

  const InterruptFlag interrupt;
  req.stop = interrupt.flag();
  run::SweepResult result = run::run_sweep(req, [&](const run::SweepPoint& p, size_t done, size_t total) {
    io.err << point_line(p, done, total) << "\n" << std::flush;
  });
  run::sort_by_speed(result);

  io.out << run::sweep_table(result);
  if (!o.json_file.empty()) {
    json_out.write(run::sweep_json(result).dump(2) + "\n");
    io.err << "wrote " << o.json_file << "\n";
  }
  if (!o.csv_file.empty()) {
    csv_out.write(run::sweep_csv(result));
    io.err << "wrote " << o.csv_file << "\n";
  }
  if (result.stopped) {
    io.err << "gemmscope: stopped by Ctrl-C: the finished points are kept\n";
    exit_code = kExitInterrupted;
    return;
  }
  bool ok = !result.points.empty();
  for (const run::SweepPoint& p : result.points) ok = ok && p.model_error.empty() && (!p.gpu || p.gpu->ok());
  if (result.points.empty())
    io.err << fmt::format("gemmscope: none of the {} combinations can be built (the reasons are above)\n", result.total);
  exit_code = ok ? kExitOk : kExitFailed;
}

}  // namespace

void add_sweep_command(CLI::App& app, Streams io, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Run every combination of a kernel's build parameters on the model (and the GPU): a table sorted by speed, "
      "what bounds each, and the combinations that cannot be built with their reasons");
  auto o = std::make_shared<SweepOptions>();
  cmd->add_option("ID", o->id, "Kernel id (see `gemmscope list`)")->required()->check(non_empty("a kernel id"));
  add_param_values_option(cmd, o->params);
  cmd->add_option("--sizes,--size", o->sizes, "Problem sizes: N for N×N×N, MxNxK, or example (default 4096)")
      ->delimiter(',')
      ->type_name("N|MxNxK|example,...")
      ->check(bench_size_value());
  cmd->add_option("--machine", o->machine,
                  fmt::format("The card the time is predicted on: {} (default: the kernel's target's)",
                              model::timing::machine_keys()))
      ->type_name("CARD");
  cmd->add_flag("--gpu", o->gpu,
                "Also measure every combination that builds on this machine's GPU, next to cuBLAS in paired rounds "
                "(as `gemmscope bench`)");
  cmd->add_option("--reps", o->reps, "With --gpu: timed launches per combination and size (default 20)")
      ->check(whole_number(1, 100000, "number of timed launches"));
  cmd->add_option("--json", o->json_file, "Also write the results as JSON to this file")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  cmd->add_option("--csv", o->csv_file, "Also write the results as CSV to this file")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  cmd->add_flag("--in-process", o->in_process, "Run GPU work in this process (for profilers)")->group("");
  cmd->footer(
      "Each finished combination prints a line on stderr. Ctrl-C stops after the one under way and prints and writes "
      "the finished ones.\nExit codes: 0 every combination that builds ran, 1 a model or GPU run failed or none "
      "builds, 2 bad usage, 3 no CUDA driver or GPU (--gpu), 130 stopped by Ctrl-C.");
  cmd->callback([io, o, &exit_code] { run_sweep_command(*o, io, exit_code); });
}

}  // namespace gs::cli
