// gemmscope_model_bench: how fast the CPU model runs, on one core.
//
// For every kernel of the ladder it runs model::simulate at the kernel's example shape, at a
// larger shape (512³ for tensor-core kernels, 256³ for SIMT ones) and at a one-CTA shape,
// in fast mode (nothing recorded) and traced mode (CTA (0,0) recorded in full), and reports
// the best of N wall times and simulated warp-instructions per second. The one-CTA traced row
// is the pure traced rate: there every instruction is recorded. Last, the whole job of
// `gemmscope sim hopper_tma_wgmma_64 --m 512 --n 512 --k 512` (data, model, reference, check).
//
// Targets (the issues): >= 20 M warp-inst/s fast, >= 3 M traced, >= 10 G multiply-adds/s for
// the tensor-core kernels in fast mode, the 512³ Hopper GEMM in under 2 s. The program reports
// against them and never fails because of them: a benchmark is a measurement, not a test.
//
// Then the wgmma descriptor rows: one wgmma through descriptors the model places (canonical,
// base offset, MN-major) and through ones it cannot (reaching past shared memory, reserved
// bits). A bad descriptor must cost about what a good one does, not orders of magnitude more
// (an exception or a formatted message per element would).
//
//   gemmscope_model_bench [--repeat N] [--kernel ID[,ID...]] [--shape example|large|one-cta]
//                         [--mode fast|traced] [--threads N] [--json FILE]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "engine/model/model.hpp"
#include "run/gemm_data.hpp"
#include "run/output_file.hpp"
#include "run/probe_cases.hpp"
#include "run/sim_job.hpp"
#include "kernels/registry.hpp"

namespace {

using namespace gs;
using Clock = std::chrono::steady_clock;

constexpr double kFastTarget = 20e6;    // warp-instructions per second
constexpr double kTracedTarget = 3e6;
constexpr double kMacTarget = 10e9;     // multiply-adds per second, tensor-core kernels, fast mode
constexpr double kWholeGemmTarget = 2.0;  // seconds, 512³ of hopper_tma_wgmma_64
constexpr std::string_view kWholeGemmKernel = "hopper_tma_wgmma_64";

struct Row {
  std::string kernel;
  std::string shape_kind;  // "example", "large", "one-cta", "whole-job"
  kernels::GemmShape shape;
  std::string mode;        // "fast", "traced", "sim job"
  uint64_t ctas = 0;
  uint64_t warp_instructions = 0;
  uint64_t traced_events = 0;
  double seconds = std::numeric_limits<double>::quiet_NaN();  // best of N
  double cpu_seconds = std::numeric_limits<double>::quiet_NaN();  // CPU time of that best run
  double rate = 0.0;       // warp-instructions per second
  double macs_per_second = 0.0;  // the GEMM's M·N·K multiply-adds per second of the best run
  bool completed = false;
  std::string error;
  std::string target;      // "" or e.g. ">= 20 M/s: met"
};

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// CPU time of this process. On a machine shared with other work the wall time also counts
// the time others had the core; the CPU time says what the model itself cost.
double cpu_now() { return double(std::clock()) / CLOCKS_PER_SEC; }

std::string shape_text(kernels::GemmShape s) { return fmt::format("{}x{}x{}", s.m, s.n, s.k); }

// Runs simulate `repeat` times on fresh copies of the inputs and keeps the best wall time.
Row bench_model(const kernels::KernelInfo& info, const std::string& shape_kind, kernels::GemmShape shape, bool traced,
                int repeat, uint32_t threads) {
  Row row{.kernel = info.id, .shape_kind = shape_kind, .shape = shape, .mode = traced ? "traced" : "fast"};
  try {
    const ir::Kernel kernel = kernels::build_kernel(info, {shape, {}});
    run::GemmData data = run::make_gemm_data(info, info.c_dtype, shape, run::InputMode::integer, 1);
    model::SimOptions opts;
    opts.trace = traced;
    opts.threads = threads;
    const double flops = 2.0 * shape.m * shape.n * shape.k;
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < repeat; ++i) {
      model::GemmBuffers buffers{data.a_bytes, data.b_bytes, run::poisoned_output(shape, info.c_dtype)};
      const Clock::time_point t0 = Clock::now();
      const double c0 = cpu_now();
      const model::SimResult r = model::simulate(kernel, buffers, opts, flops);
      const double wall = seconds_since(t0), cpu = cpu_now() - c0;
      if (wall < best) {
        best = wall;
        row.cpu_seconds = cpu;
      }
      row.ctas = r.stats.ctas;
      row.warp_instructions = r.stats.warp_instructions;
      row.traced_events = r.trace.events.size();
      row.completed = r.completed;
      if (!r.completed) row.error = r.error.empty() ? "did not complete" : r.error;
    }
    row.seconds = best;
    row.rate = best > 0.0 ? double(row.warp_instructions) / best : 0.0;
    row.macs_per_second = best > 0.0 ? double(shape.m) * shape.n * shape.k / best : 0.0;
  } catch (const std::exception& e) {
    row.error = e.what();
  }
  return row;
}

// The whole `gemmscope sim` job at 512³: build, data, model (one CTA traced), reference, check.
Row bench_whole_job(int repeat) {
  const kernels::GemmShape shape{512, 512, 512};
  Row row{.kernel = std::string(kWholeGemmKernel), .shape_kind = "whole-job", .shape = shape, .mode = "sim job"};
  try {
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < repeat; ++i) {
      const double c0 = cpu_now();
      const run::SimReport r = run::run_sim({.kernel_id = row.kernel, .shape = shape});
      if (r.total_seconds < best) row.cpu_seconds = cpu_now() - c0;
      best = std::min(best, r.total_seconds);
      row.ctas = r.result.stats.ctas;
      row.warp_instructions = r.result.stats.warp_instructions;
      row.traced_events = r.result.trace.events.size();
      row.completed = r.result.completed;
      if (!r.ok()) row.error = r.cmp.correct ? "hazards or a hang" : "wrong output: " + r.cmp.first_mismatch;
    }
    row.seconds = best;
    row.rate = best > 0.0 ? double(row.warp_instructions) / best : 0.0;
    row.target = fmt::format("< {:.0f} s: {}", kWholeGemmTarget, best < kWholeGemmTarget ? "met" : "MISSED");
  } catch (const std::exception& e) {
    row.error = e.what();
  }
  return row;
}

// One wgmma through a descriptor (the probe kernel of `gemmscope probe wgmma-desc`), on the model.
Row bench_descriptor(const kernels::WgmmaDescProbe& desc, int repeat) {
  Row row{.kernel = "desc " + desc.name, .shape_kind = "probe", .shape = {64, desc.n, 16}, .mode = "fast"};
  try {
    const run::ProbeCase probe = run::make_wgmma_desc_probe_case(desc, kernels::build_wgmma_descriptor_probe(desc));
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < repeat; ++i) {
      model::GemmBuffers buffers = probe.buffers;
      const Clock::time_point t0 = Clock::now();
      const double c0 = cpu_now();
      const model::SimResult r = model::simulate(probe.kernel, buffers, {.trace = false});
      const double wall = seconds_since(t0);
      if (wall < best) {
        best = wall;
        row.cpu_seconds = cpu_now() - c0;
      }
      row.ctas = r.stats.ctas;
      row.warp_instructions = r.stats.warp_instructions;
      row.completed = r.completed;
      row.target = r.hazards.empty() ? "no hazard" : fmt::format("{} hazard(s), first {}", r.hazards.size(), gs::model::hazard_kind_name(r.hazards[0].kind));
    }
    row.seconds = best;
    row.rate = best > 0.0 ? double(row.warp_instructions) / best : 0.0;
  } catch (const std::exception& e) {
    row.error = e.what();
  }
  return row;
}

// Placeable: canonical, base offset, MN-major 256 wide. Unplaceable: an SBO that sends rows
// 8..63 past the 256 KB window, and bit 46 (the sm_100 version field) set.
std::vector<kernels::WgmmaDescProbe> bench_descriptors() {
  using layout::Swizzle;
  std::vector<kernels::WgmmaDescProbe> out;
  for (const kernels::WgmmaDescProbe& p : run::wgmma_desc_probes())
    if (p.name == "128B-K" || p.name == "128B-K @128 b1" || p.name == "128B-MN n256 B") out.push_back(p);
  out.push_back({"128B-K SBO past smem", 'A', 16, true, 0, {0, 16, 0x3FFF0, 0, Swizzle::b128}});
  out.push_back({"128B-K reserved bit 46", 'A', 16, true, 0, {0, 16, 1024, 0, Swizzle::b128}, uint64_t{1} << 46});
  return out;
}

std::optional<kernels::GemmShape> valid_shape(const kernels::KernelInfo& info, kernels::GemmShape s) {
  try {
    kernels::check_build_shape(info, s);
    return s;
  } catch (const kernels::ConfigError&) {
    return std::nullopt;
  }
}

// Tensor-core kernels at 512³, SIMT ones at 256³ (the naive kernel is slow by design).
kernels::GemmShape large_shape(const kernels::KernelInfo& info) {
  return info.family == kernels::Family::simt ? kernels::GemmShape{256, 256, 256} : kernels::GemmShape{512, 512, 512};
}

// One CTA's tile with a long K: every instruction of the run is traced.
kernels::GemmShape one_cta_shape(const kernels::KernelInfo& info) {
  const uint32_t k_step = std::max<uint32_t>(info.tile.k, 1);
  return {info.tile.m, info.tile.n, std::max<uint32_t>(512 / k_step, 1) * k_step};
}

// The warp-instruction targets are for SIMT kernels, where a warp-instruction is 32 lane
// operations. A tensor-core kernel's time goes into its MMA instructions (a wgmma is a 64xNx16
// slice of the product over 128 threads), so its rate in warp-instructions says little: its
// target is in multiply-adds per second (M·N·K over the run's time), in fast mode at the
// large shape, and the whole-job time.
void mark_target(Row& row, const kernels::KernelInfo& info) {
  if (!row.error.empty() || row.shape_kind == "whole-job") return;
  if (info.family != kernels::Family::simt) {
    if (row.mode == "fast" && row.shape_kind == "large")
      row.target =
          fmt::format(">= {:.0f} G MAC/s: {}", kMacTarget / 1e9, row.macs_per_second >= kMacTarget ? "met" : "MISSED");
    return;
  }
  if (row.mode == "fast" && row.shape_kind == "large")
    row.target = fmt::format(">= {:.0f} M/s: {}", kFastTarget / 1e6, row.rate >= kFastTarget ? "met" : "MISSED");
  if (row.mode == "traced" && row.shape_kind == "one-cta")
    row.target = fmt::format(">= {:.0f} M/s: {}", kTracedTarget / 1e6, row.rate >= kTracedTarget ? "met" : "MISSED");
}

nlohmann::json row_json(const Row& r) {
  using nlohmann::json;
  const auto number = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  return {{"kernel", r.kernel},
          {"shape_kind", r.shape_kind},
          {"shape", {{"m", r.shape.m}, {"n", r.shape.n}, {"k", r.shape.k}}},
          {"mode", r.mode},
          {"ctas", r.ctas},
          {"warp_instructions", r.warp_instructions},
          {"traced_events", r.traced_events},
          {"seconds", number(r.seconds)},
          {"cpu_seconds", number(r.cpu_seconds)},
          {"warp_instructions_per_second", number(r.rate)},
          {"macs_per_second", number(r.macs_per_second)},
          {"completed", r.completed},
          {"error", r.error.empty() ? json(nullptr) : json(r.error)},
          {"target", r.target.empty() ? json(nullptr) : json(r.target)}};
}

void print_table(const std::vector<Row>& rows, int repeat) {
  std::cout << fmt::format("gemmscope model benchmark: one core, best of {}\n", repeat)
            << fmt::format("targets: fast >= {:.0f} M warp-inst/s (SIMT kernels, large shape), traced >= {:.0f} M "
                           "warp-inst/s (SIMT, one-CTA shape, every instruction recorded), tensor-core kernels "
                           ">= {:.0f} G MAC/s (fast, large shape), whole {} 512x512x512 job < {:.0f} s\n\n",
                           kFastTarget / 1e6, kTracedTarget / 1e6, kMacTarget / 1e9, kWholeGemmKernel, kWholeGemmTarget)
            << fmt::format("{:<26} {:<9} {:<14} {:<7} {:>6} {:>14} {:>10} {:>10} {:>14} {:>9}  {}\n", "kernel", "shape",
                           "MxNxK", "mode", "CTAs", "warp-inst", "seconds", "cpu s", "M warp-inst/s", "G MAC/s",
                           "target");
  for (const Row& r : rows) {
    if (!r.error.empty() && r.ctas == 0) {
      std::cout << fmt::format("{:<26} {:<9} {:<14} {:<7} error: {}\n", r.kernel, r.shape_kind, shape_text(r.shape),
                               r.mode, r.error);
      continue;
    }
    std::cout << fmt::format("{:<26} {:<9} {:<14} {:<7} {:>6} {:>14} {:>10.4f} {:>10.4f} {:>14.2f} {:>9.2f}  {}{}\n",
                             r.kernel, r.shape_kind, shape_text(r.shape), r.mode, r.ctas, r.warp_instructions,
                             r.seconds, r.cpu_seconds, r.rate / 1e6, r.macs_per_second / 1e9, r.target,
                             r.error.empty() ? "" : "  (" + r.error + ")");
  }
  std::cout << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Measures the CPU model's speed: simulated warp-instructions per second, fast and traced, and the "
               "time of whole-grid runs. Prints a table, then one JSON object per line.",
               "gemmscope_model_bench"};
  int repeat = 3;
  uint32_t threads = 1;
  std::string only_kernel, only_shape, only_mode, json_file;
  app.add_option("--repeat", repeat, "Runs per measurement; the best is kept (default 3)")->check(CLI::Range(1, 100));
  app.add_option("--kernel", only_kernel,
                 "Only these kernel ids, comma-separated, run in the ladder's order (wgmma-desc: only the descriptor "
                 "rows)");
  app.add_option("--shape", only_shape, "Only this shape kind")->check(CLI::IsMember({"example", "large", "one-cta"}));
  app.add_option("--mode", only_mode, "Only this mode")->check(CLI::IsMember({"fast", "traced"}));
  app.add_option("--threads", threads,
                 "Threads of the whole-grid rows (default 1: the rates are one core's; 0: one per core)");
  app.add_option("--json", json_file, "Also write the rows as a JSON array to this file");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::string> wanted;
  for (size_t at = 0; !only_kernel.empty() && at <= only_kernel.size();) {
    const size_t comma = std::min(only_kernel.find(',', at), only_kernel.size());
    wanted.push_back(only_kernel.substr(at, comma - at));
    at = comma + 1;
  }
  const auto is_wanted = [&](std::string_view id) {
    return wanted.empty() || std::find(wanted.begin(), wanted.end(), id) != wanted.end();
  };
  for (const std::string& id : wanted) {
    const bool known = id == kWholeGemmKernel || id == "wgmma-desc" ||
                       std::any_of(kernels::all_kernels().begin(), kernels::all_kernels().end(),
                                   [&](const kernels::KernelInfo& k) { return k.id == id; });
    if (!known) {
      std::fprintf(stderr, "gemmscope_model_bench: unknown kernel '%s' in --kernel (see `gemmscope list`; also %s, "
                   "wgmma-desc)\n", id.c_str(), std::string(kWholeGemmKernel).c_str());
      return 2;
    }
  }

  std::vector<Row> rows;
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    if (!is_wanted(info.id)) continue;
    const std::vector<std::pair<std::string, kernels::GemmShape>> shapes{
        {"example", info.example_shape}, {"large", large_shape(info)}, {"one-cta", one_cta_shape(info)}};
    for (const auto& [kind, shape] : shapes) {
      if (!valid_shape(info, shape) || (!only_shape.empty() && kind != only_shape)) continue;
      for (const bool traced : {false, true}) {
        if (!only_mode.empty() && traced != (only_mode == "traced")) continue;
        Row row = bench_model(info, kind, shape, traced, repeat, threads);
        mark_target(row, info);
        std::fprintf(stderr, "  %s %s %s: %.3f s\n", row.kernel.c_str(), shape_text(row.shape).c_str(),
                     row.mode.c_str(), row.seconds);
        rows.push_back(std::move(row));
      }
    }
  }
  if ((only_kernel.empty() || is_wanted(kWholeGemmKernel)) && only_shape.empty() && only_mode.empty())
    rows.push_back(bench_whole_job(repeat));
  if ((only_kernel.empty() || is_wanted("wgmma-desc")) && only_shape.empty() && only_mode != "traced")
    for (const kernels::WgmmaDescProbe& desc : bench_descriptors()) {
      rows.push_back(bench_descriptor(desc, repeat));
      std::fprintf(stderr, "  %s: %.4f s\n", rows.back().kernel.c_str(), rows.back().seconds);
    }

  print_table(rows, repeat);
  nlohmann::json all = nlohmann::json::array();
  for (const Row& r : rows) {
    std::cout << row_json(r).dump() << "\n";
    all.push_back(row_json(r));
  }
  if (!json_file.empty()) {
    try {
      gs::run::write_output_file(json_file, all.dump(2) + "\n", "the benchmark JSON");
    } catch (const std::exception& e) {
      std::cerr << "gemmscope_model_bench: " << e.what() << "\n";
      return 1;
    }
  }
  return 0;
}
