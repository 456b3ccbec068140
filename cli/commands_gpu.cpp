// `gemmscope devices`, `gemmscope bench` and `gemmscope probe`: the commands that need a GPU.
//
// This process never calls CUDA itself (the fork rule, engine/cuda/isolation.hpp): every GPU
// call happens in a child through run::run_gpu_job, including "is there a GPU at all?". Without
// a driver or a device each command exits 3 with the driver layer's reason.
#include <cctype>
#include <charconv>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/cli.hpp"
#include "cli/devices.hpp"
#include "cli/timeline_files.hpp"
#include "cli/values.hpp"
#include "run/gpu_bench.hpp"
#include "run/gpu_compare.hpp"
#include "run/gpu_launch.hpp"
#include "run/output_file.hpp"
#include "run/probe_cases.hpp"

namespace gs::cli {

std::optional<run::DeviceList> require_device(Streams io, int& exit_code, const run::GpuJobOptions& job) {
  run::DeviceList list = run::list_devices_isolated(job);
  if (list.job.no_gpu()) {
    io.err << "gemmscope: " << list.job.error << "\n";
    exit_code = kExitNoDevice;
    return std::nullopt;
  }
  if (!list.job.ok()) {
    io.err << "gemmscope: could not list the GPUs: " << list.job.error << "\n";
    exit_code = kExitFailed;
    return std::nullopt;
  }
  return list;
}

namespace {

std::string shape_text(const kernels::GemmShape& s) { return fmt::format("{}x{}x{}", s.m, s.n, s.k); }

std::vector<const kernels::KernelInfo*> resolve_kernels(const std::vector<std::string>& ids) {
  std::vector<const kernels::KernelInfo*> infos;
  if (ids.empty() || (ids.size() == 1 && ids[0] == "all")) {
    for (const kernels::KernelInfo& k : kernels::all_kernels()) infos.push_back(&k);
    return infos;
  }
  for (const std::string& id : ids) {
    if (id == "all") throw kernels::ConfigError("'all' cannot be combined with kernel ids");
    infos.push_back(&kernels::kernel_or_throw(id));  // ConfigError naming the valid ids
  }
  return infos;
}

struct BenchOptions {
  std::vector<std::string> ids;
  std::vector<std::string> sizes;
  int reps = 20;
  double sustain_ms = 0.0;
  std::string json_file;
  bool compare_model = false;
  bool no_counted_clock = false;  // --no-counted-clock: skip the launch that counts the held SM clock
  // Hidden: for scripts (ncu) and debugging.
  bool no_cublas = false;
  int warmup = 3;
  uint64_t seed = 0;
  std::string inputs = "random";
  double kernel_timeout_s = 10.0;
  double max_timing_s = 30.0;
  bool in_process = false;
  std::vector<std::string> mistakes;
  std::vector<std::string> params;
  std::string timeline_file;   // --timeline FILE: one kernel at one size, instrumented once more
  std::string timeline_trace;  // --timeline-trace FILE (default: FILE.trace.json)
  TimelineCliOptions timeline;
};

struct Skipped {
  std::string kernel;
  std::string shape;  // empty: the whole kernel
  std::string reason;
};

void run_bench_command(const BenchOptions& o, Streams io, int& exit_code) {
  // Everything that can be wrong with the command line is checked before any GPU work.
  // (The values themselves were checked by the options' validators, cli/values.hpp.)
  const std::vector<const kernels::KernelInfo*> infos = resolve_kernels(o.ids);
  const kernels::ParamValues params = parse_params(o.params);
  for (const kernels::KernelInfo* info : infos) {
    kernels::require_mistakes(*info, {o.mistakes.begin(), o.mistakes.end()});
    kernels::resolve_params(*info, params);  // every kernel named must take every --param
  }
  std::vector<kernels::GemmShape> sizes;
  for (const std::string& s : o.sizes.empty() ? std::vector<std::string>{"4096"} : o.sizes)
    sizes.push_back(parse_bench_size(s));
  const run::InputMode inputs = *run::parse_input_mode(o.inputs);
  // The results file is checked (and, for a FIFO, opened) before the GPU is touched.
  run::OutputFile json_out = o.json_file.empty() ? run::OutputFile() : run::OutputFile(o.json_file, "--json");

  run::GpuJobOptions job;
  job.isolate = !o.in_process;
  const std::optional<run::DeviceList> devices = require_device(io, exit_code, job);
  if (!devices) return;
  const cuda::DeviceInfo& device = devices->devices.front();
  io.err << cuda::describe(device) << "\n";

  const auto kernel_limit = std::chrono::milliseconds(static_cast<long long>(o.kernel_timeout_s * 1000.0));
  std::vector<run::BenchResult> results;
  std::vector<Skipped> skipped;
  std::vector<run::ModelComparison> comparisons;
  std::vector<const kernels::KernelInfo*> runnable;
  std::vector<std::pair<const kernels::KernelInfo*, kernels::GemmShape>> work;
  for (const kernels::KernelInfo* info : infos) {
    if (const std::optional<std::string> refusal = run::arch_refusal(info->id, info->arch, device)) {
      skipped.push_back({info->id, "", *refusal});
      continue;
    }
    runnable.push_back(info);
    for (const kernels::GemmShape& size : sizes) {
      const kernels::GemmShape shape = size.m == 0 ? info->example_shape : size;
      try {
        kernels::check_build_shape(*info, shape, params);
        work.emplace_back(info, shape);
      } catch (const kernels::ConfigError& e) {
        skipped.push_back({info->id, shape_text(shape), e.what()});
      }
    }
  }
  for (const Skipped& s : skipped)
    io.err << fmt::format("skipped {}{}: {}\n", s.kernel, s.shape.empty() ? "" : " " + s.shape, s.reason);
  // Every kernel asked for needs another GPU: nothing can run here, the "no GPU" exit.
  if (runnable.empty()) {
    io.err << "gemmscope: none of the kernels can run on this device\n";
    exit_code = kExitNoDevice;
    return;
  }

  if (!o.timeline_file.empty() && work.size() != 1)
    throw kernels::ConfigError(fmt::format("--timeline records one kernel at one size; this command runs {} (give one "
                                           "ID and one --sizes value)",
                                           work.size()));
  for (size_t i = 0; i < work.size(); ++i) {
    const auto& [info, shape] = work[i];
    io.err << fmt::format("[{}/{}] {} {} ... ", i + 1, work.size(), info->id, shape_text(shape)) << std::flush;
    run::BenchRequest req;
    req.kernel_id = info->id;
    req.shape = shape;
    req.mistakes = {o.mistakes.begin(), o.mistakes.end()};
    req.params = params;
    req.reps = o.reps;
    req.warmup = o.warmup;
    req.sustain_ms = o.sustain_ms;
    req.cublas = !o.no_cublas;
    req.counted_clock = !o.no_counted_clock;
    req.inputs = inputs;
    req.seed = o.seed;
    req.kernel_limit = kernel_limit;
    req.max_timing_seconds = o.max_timing_s;
    req.job = job;
    if (!o.timeline_file.empty()) req.timeline = timeline_request(o.timeline, uint32_t(device.sms));
    try {
      results.push_back(run::run_bench(req));
      if (const run::BenchResult& r = results.back(); r.timeline) write_timeline_files(*r.timeline, o.timeline_file, o.timeline_trace, io);
    } catch (const std::exception& e) {
      // Host-side trouble (memory for the inputs, a rejected input mode): one row fails, the rest run.
      run::BenchResult failed;
      failed.kernel_id = info->id;
      failed.shape = shape;
      failed.date = run::utc_timestamp_now();
      failed.error = e.what();
      results.push_back(std::move(failed));
    }
    io.err << run::bench_summary_line(results.back()) << "\n";
  }

  if (o.compare_model) {
    for (const kernels::KernelInfo* info : runnable) {
      run::CompareOptions copt;
      copt.params = params;  // the variant the table measured (--param)
      copt.kernel_limit = kernel_limit;
      copt.job = job;
      std::vector<std::string> names{""};
      for (const kernels::Mistake& m : info->mistakes) names.push_back(m.name);
      for (const std::string& mistake : names) {
        io.err << fmt::format("model vs GPU: {} {} ... ", info->id, mistake.empty() ? "(as written)" : mistake)
               << std::flush;
        try {
          comparisons.push_back(run::compare_with_model(info->id, mistake, copt));
        } catch (const std::exception& e) {
          run::ModelComparison failed;
          failed.kernel_id = info->id;
          failed.mistake = mistake;
          failed.verdict = std::string("could not run: ") + e.what();
          comparisons.push_back(std::move(failed));
        }
        io.err << comparisons.back().verdict << "\n";
      }
    }
  }

  if (!results.empty()) io.out << run::bench_table(results);
  for (const run::BenchResult& r : results)
    if (!r.ok()) io.out << fmt::format("  {} {}: {}\n", r.kernel_id, shape_text(r.shape), run::bench_summary_line(r));
  for (const Skipped& s : skipped)
    io.out << fmt::format("skipped {}{}: {}\n", s.kernel, s.shape.empty() ? "" : " " + s.shape, s.reason);
  if (!comparisons.empty()) io.out << "\nmodel vs GPU (integer inputs, bit for bit):\n" << run::model_comparison_table(comparisons);

  if (!o.json_file.empty()) {
    nlohmann::json j;
    j["device"] = run::device_json(device);
    j["date"] = run::utc_timestamp_now();
    j["results"] = nlohmann::json::array();
    for (const run::BenchResult& r : results) j["results"].push_back(run::bench_result_json(r));
    j["skipped"] = nlohmann::json::array();
    for (const Skipped& s : skipped)
      j["skipped"].push_back({{"kernel", s.kernel}, {"shape", s.shape.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.shape)}, {"reason", s.reason}});
    j["model_comparisons"] = nlohmann::json::array();
    for (const run::ModelComparison& c : comparisons) j["model_comparisons"].push_back(run::model_comparison_json(c));
    json_out.write(j.dump(2) + "\n");
    io.err << "wrote " << o.json_file << "\n";
  }

  bool ok = true;
  for (const run::BenchResult& r : results) ok = ok && r.ok();
  for (const run::ModelComparison& c : comparisons) ok = ok && c.as_expected;
  exit_code = ok ? kExitOk : kExitFailed;
}

}  // namespace

namespace {

void add_devices_command(CLI::App& app, Streams io, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("devices", "List the CUDA GPUs: compute capability, SMs, clocks, memory");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print the GPUs as a JSON array");
  cmd->footer("Exit codes: 0 listed, 3 no CUDA driver or no GPU.");
  cmd->callback([io, json, &exit_code] {
    const std::optional<run::DeviceList> list = require_device(io, exit_code, {});
    if (!list) return;
    if (*json) {
      nlohmann::json all = nlohmann::json::array();
      for (const cuda::DeviceInfo& d : list->devices) all.push_back(run::device_json(d));
      io.out << all.dump(2) << "\n";
    } else {
      for (const cuda::DeviceInfo& d : list->devices) {
        io.out << cuda::describe(d) << "\n";
        io.out << fmt::format(
            "  compute capability {}.{}, {} SMs, SM clock {} MHz, memory {:.1f} GiB ({} MHz, {}-bit bus), L2 {} MiB, "
            "shared memory per block up to {} KiB\n",
            d.cc_major, d.cc_minor, d.sms, d.sm_clock_khz / 1000, double(d.total_mem) / double(1ull << 30),
            d.mem_clock_khz / 1000, d.mem_bus_width, d.l2_bytes >> 20, d.max_smem_per_block_optin / 1024);
      }
    }
    exit_code = kExitOk;
  });
}

void add_bench_command(CLI::App& app, Streams io, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "Check and time kernels on the GPU next to cuBLAS; optionally compare them with the model");
  auto o = std::make_shared<BenchOptions>();
  cmd->add_option("ID", o->ids, "Kernel ids, or all (default: all)")->check(non_empty("a kernel id"));
  cmd->add_option("--sizes", o->sizes, "Problem sizes: N for N×N×N, MxNxK, or example (default 4096)")
      ->delimiter(',')
      ->type_name("N|MxNxK|example,...")
      ->check(bench_size_value());
  cmd->add_option("--reps", o->reps, "Timed launches per kernel and size (default 20; 0 = check only)")
      ->check(whole_number(0, 100000, "number of timed launches"));
  add_param_option(cmd, o->params);
  cmd->add_option("--json", o->json_file, "Also write the results as JSON to this file")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  cmd->add_option("--timeline", o->timeline_file,
                  "Also record the kernel's own timeline (one kernel, one size): time the instrumented kernel, run it "
                  "once more, check C is unchanged, and write the events as JSON to FILE and as a Chrome/Perfetto "
                  "trace to FILE.trace.json")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  cmd->add_option("--timeline-trace", o->timeline_trace, "Where the timeline's Chrome/Perfetto trace goes")
      ->type_name("FILE")
      ->check(non_empty("a file name"));
  add_timeline_record_options(cmd, o->timeline, "--timeline-");
  cmd->add_flag("--compare-model", o->compare_model,
                "Also run each kernel and each of its mistakes on the GPU and the model at the example shape, with "
                "integer inputs, and compare C bit for bit");
  cmd->add_option("--sustain", o->sustain_ms,
                  "Run each kernel and cuBLAS in alternation for this many milliseconds before its timed rounds, so "
                  "that they are timed at the clock the card holds under its power limit (the clock the model "
                  "predicts; 2000 is past NVML's one-second power average); default 0: the rounds start after 3 "
                  "warm-up launches, at the higher clock a few milliseconds of work leave")
      ->type_name("MS")
      ->check(number_in(0.0, 600000.0, "milliseconds of sustained load"));
  cmd->add_flag("--no-counted-clock", o->no_counted_clock,
                "Skip the launch after the timed rounds that counts the SM clock the card held (%clock64 over "
                "%globaltimer in the timeline-instrumented build; JSON sm_clock_counted_mhz)");
  // Hidden (group ""): for scripts such as scripts/ncu-bank-conflicts.sh, and for debugging.
  cmd->add_flag("--no-cublas", o->no_cublas, "Do not time cuBLAS")->group("");
  cmd->add_option("--warmup", o->warmup, "Untimed launches before the timed ones")
      ->group("")
      ->check(whole_number(0, 10000, "number of warm-up launches"));
  cmd->add_option("--seed", o->seed, "Seed of the inputs (default: fresh)")->group("")->check(seed_value());
  cmd->add_option("--inputs", o->inputs, "random or int")->group("")->check(one_of({"random", "int", "integer"}, "an input mode"));
  cmd->add_option("--kernel-timeout", o->kernel_timeout_s, "Seconds before a launch counts as a hang")
      ->group("")
      ->check(seconds_value(3600));
  cmd->add_option("--max-timing-seconds", o->max_timing_s, "Cap on timed launches per kernel")
      ->group("")
      ->check(seconds_value(3600));
  cmd->add_flag("--in-process", o->in_process, "Run GPU work in this process (for profilers)")->group("");
  cmd->add_option("--break", o->mistakes, "Switch on a deliberate mistake (for profiling it; repeatable)")->group("");
  cmd->footer(
      "Exit codes: 0 every result correct (and every model comparison as expected), 1 a wrong result, a hang or a "
      "fault, 2 bad usage, 3 no CUDA driver or GPU.");
  cmd->callback([io, o, &exit_code] { run_bench_command(*o, io, exit_code); });
}

// `probe --save DIR`: DIR/<name>.gpu.bin and .model.bin, the name with every character other than
// a letter, digit, '-' or '+' turned into '_' ("desc 128B-K @128 b1" -> desc_128B-K__128_b1).
void save_probe_outputs(const std::string& dir, const run::ProbeReport& r) {
  std::string file = r.name;
  for (char& ch : file)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '+') ch = '_';
  const auto save = [&](const char* who, const std::vector<uint8_t>& bytes) {
    if (!bytes.empty())
      run::write_output_file(fmt::format("{}/{}.{}.bin", dir, file, who),
                             std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), "probe output");
  };
  save("gpu", r.gpu_c);
  save("model", r.model_c);
}

void add_probe_command(CLI::App& app, Streams io, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "probe",
      "Run the probe kernels on the GPU and check TMA swizzles, mbarrier parity, the wgmma, mma.sync and "
      "ldmatrix/stmatrix maps and wgmma descriptors");
  auto name = std::make_shared<std::string>("all");
  auto timeout_s = std::make_shared<double>(10.0);
  auto save_dir = std::make_shared<std::string>();
  cmd->add_option("NAME", *name, "tma, mbarrier, wgmma, wgmma-desc, mma, ldmatrix, cluster, warpgroup or all (default all)")
      ->check(one_of({"tma", "mbarrier", "wgmma", "wgmma-desc", "mma", "ldmatrix", "cluster", "warpgroup", "all"}, "a probe group"));
  cmd->add_option("--kernel-timeout", *timeout_s, "Seconds before a launch counts as a hang")
      ->group("")
      ->check(seconds_value(3600));
  // Hidden: for working out a fact the formula got wrong from the raw outputs.
  cmd->add_option("--save", *save_dir, "Write each probe's raw C (GPU and model) into this existing directory")
      ->group("")
      ->check(CLI::ExistingDirectory);
  cmd->footer("Exit codes: 0 every probe passed, 1 a probe failed, 2 bad usage, 3 no CUDA driver or GPU.");
  cmd->callback([io, name, timeout_s, save_dir, &exit_code] {
    const std::vector<run::ProbeCase> cases = run::probe_cases(*name);  // ConfigError: exit 2
    run::ProbeOptions options;
    options.kernel_limit = std::chrono::milliseconds(static_cast<long long>(*timeout_s * 1000.0));
    const run::ProbeRun run = run::run_probes(cases, options, [io, save_dir](const run::ProbeReport& r) {
      io.out << run::probe_report_line(r) << "\n" << std::flush;
      if (!save_dir->empty()) save_probe_outputs(*save_dir, r);
    });
    if (run.devices.job.no_gpu()) {
      io.err << "gemmscope: " << run.devices.job.error << "\n";
      exit_code = kExitNoDevice;
      return;
    }
    if (!run.devices.job.ok()) {
      io.err << "gemmscope: could not list the GPUs: " << run.devices.job.error << "\n";
      exit_code = kExitFailed;
      return;
    }
    size_t passed = 0, failed = 0, skipped = 0;
    for (const run::ProbeReport& r : run.reports) (r.skipped.empty() ? (r.pass() ? passed : failed) : skipped)++;
    io.out << fmt::format("{} of {} probes passed ({} failed, {} skipped)\n", passed, run.reports.size(), failed, skipped);
    exit_code = run.all_passed() ? kExitOk : kExitFailed;
  });
}

}  // namespace

void add_gpu_commands(CLI::App& app, Streams io, int& exit_code) {
  add_devices_command(app, io, exit_code);
  add_bench_command(app, io, exit_code);
  add_probe_command(app, io, exit_code);
}

}  // namespace gs::cli
