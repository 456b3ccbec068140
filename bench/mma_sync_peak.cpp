// gemmscope_mma_peak: the mma.sync.m16n8k16 (bf16 -> f32) throughput of GPU 0, the ceiling
// the Ampere rungs (steps 08-10) are measured against on a Hopper GPU, where cuBLAS uses
// wgmma and mma.sync cannot reach the wgmma peak.
//
// The kernel (kernels::build_mma_peak_kernel): `--ctas` CTAs of 256 threads, each warp runs
// `--iters` rounds of 8 independent mma.sync chains; one launch per repetition, timed with
// CUDA events in a child process (run::run_kernel_once). Reports every repetition and the
// best, in TFLOP/s = ctas · 8 warps · iters · 8 · 4096 / time.
//
//   gemmscope_mma_peak [--ctas N] [--iters N] [--reps N] [--json FILE]
//
// Exit status: 0 measured, 1 a launch failed, 2 bad usage, 3 no GPU.
#include <algorithm>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kernels/probes.hpp"
#include "run/gpu_launch.hpp"
#include "run/output_file.hpp"

using namespace gs;

int main(int argc, char** argv) {
  CLI::App app{"mma.sync m16n8k16 bf16 throughput of GPU 0"};
  uint32_t ctas = 132 * 4, iters = 8192, reps = 5;
  std::string json_path;
  app.add_option("--ctas", ctas, "CTAs of 256 threads (default 528: 4 per SM of an H100 SXM)")
      ->check(CLI::Range(1u, 1u << 20));
  app.add_option("--iters", iters, "rounds of 8 mma.sync per warp (default 8192)")->check(CLI::Range(1u, 1u << 24));
  app.add_option("--reps", reps, "launches (default 5)")->check(CLI::Range(1u, 100u));
  app.add_option("--json", json_path, "also write the results as JSON to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  const ir::Kernel kernel = kernels::build_mma_peak_kernel(ctas, iters);
  model::GemmBuffers buffers;
  buffers.c.assign(size_t(ctas) * kernels::kMmaPeakThreads * 4, 0xFF);
  const double flops = double(ctas) * (kernels::kMmaPeakThreads / 32) * iters * kernels::kMmaPeakChains * 2 * 16 * 8 * 16;
  nlohmann::json out = {{"ctas", ctas}, {"iters", iters}, {"flops", flops}, {"runs", nlohmann::json::array()}};
  double best = 0;
  for (uint32_t r = 0; r < reps; ++r) {
    const run::KernelRun run = run::run_kernel_once(kernel, buffers, {}, std::chrono::seconds(60));
    if (!run.job.ok()) {
      std::cerr << "gemmscope_mma_peak: " << run.job.error << "\n";
      return run.job.no_gpu() ? 3 : 1;
    }
    const double tflops = flops / (run.kernel_ms * 1e9);
    best = std::max(best, tflops);
    if (r == 0) {
      std::cout << fmt::format("device: {} ({} SMs, {} MHz max), {} registers per thread\n", run.device.name,
                               run.device.sms, run.device.sm_clock_khz / 1000, run.registers);
      out["device"] = run.device.name;
      out["registers"] = run.registers;
    }
    std::cout << fmt::format("run {}: {:.3f} ms, {:.1f} TFLOP/s\n", r, run.kernel_ms, tflops);
    out["runs"].push_back({{"ms", run.kernel_ms}, {"tflops", tflops}});
  }
  out["best_tflops"] = best;
  std::cout << fmt::format("mma.sync m16n8k16 bf16->f32 peak: {:.1f} TFLOP/s (best of {})\n", best, reps);
  if (!json_path.empty()) {
    try {
      run::write_output_file(json_path, out.dump(2) + "\n", "the results");
    } catch (const std::exception& e) {
      std::cerr << "gemmscope_mma_peak: " << e.what() << "\n";
      return 2;
    }
  }
  return 0;
}
