// gemmscope_open_bench: the bounded open, at the largest shapes the ladder takes.
//
// The target (issue #27): opening a kernel in the app, or `gemmscope sim ID --traced-cta-only`,
// at any valid shape of any step takes under 1 s and 500 MB. For every step it finds the
// largest valid shape (each dimension kernels::kMaxGemmDimension, else the largest multiple of
// the step's tile below it that the step takes) and a few lopsided large ones
// (65536x128x65536, 128x65536x65536, 65536x65536x128, where the step takes them), and opens
// each in a child process of its own, so that each row's peak memory is that open's alone
// (wait4's ru_maxrss of a fresh exec of this program):
//   app: what the app does when it opens a kernel: gui::AppState::open_now (build, PTX, the
//        traced CTA run alone with fast-forward, the playback index, problems, advice);
//        in a build without the app, run::run_sim as below;
//   sim: what `gemmscope sim ID --traced-cta-only` does: run::run_sim and its report table.
// It prints a table (and with --json a file) of step, shape, mode, wall seconds of the open in
// the child, peak MB, and the verdict against the targets. It never fails because of a
// target: a benchmark is a measurement.
//
//   gemmscope_open_bench [--kernel ID] [--mode app|sim|both] [--max-only] [--json FILE]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kernels/registry.hpp"
#include "run/output_file.hpp"
#include "run/sim_job.hpp"
#ifdef GEMMSCOPE_HAVE_GUI
#include "gui/core/app_state.hpp"
#endif

namespace {

using namespace gs;

constexpr double kSecondsTarget = 1.0;
constexpr double kMegabytesTarget = 500.0;

std::string shape_text(kernels::GemmShape s) { return fmt::format("{}x{}x{}", s.m, s.n, s.k); }

// Why the step does not take the shape; empty when it does.
std::string refusal(const kernels::KernelInfo& info, kernels::GemmShape s) {
  try {
    kernels::build_kernel(info, {s, {}, {}});
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

// The largest shape the step takes: each dimension the maximum, else the largest multiple of
// the step's tile (M, N, K step) at or below it, else the example shape's multiple.
std::optional<kernels::GemmShape> largest_shape(const kernels::KernelInfo& info) {
  const uint32_t top = kernels::kMaxGemmDimension;
  const auto down = [&](uint32_t tile) { return tile == 0 ? top : top / tile * tile; };
  for (const kernels::GemmShape s :
       {kernels::GemmShape{top, top, top}, kernels::GemmShape{down(info.tile.m), down(info.tile.n), down(info.tile.k)},
        kernels::GemmShape{down(info.example_shape.m), down(info.example_shape.n), down(info.example_shape.k)}})
    if (refusal(info, s).empty()) return s;
  return std::nullopt;
}

struct Row {
  std::string kernel;
  int step = 0;
  std::string kind;  // "largest", "lopsided"
  kernels::GemmShape shape;
  std::string mode;  // "app", "sim"
  double seconds = 0.0;
  double peak_mb = 0.0;
  std::string error;
  bool met() const { return error.empty() && seconds < kSecondsTarget && peak_mb < kMegabytesTarget; }
};

// The child: opens once and prints its wall seconds (or "error: ...") on stdout.
int child_main(const std::string& id, kernels::GemmShape shape, const std::string& mode) {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    run::SimRequest req{.kernel_id = id, .shape = shape, .only_traced_cta = true};
#ifdef GEMMSCOPE_HAVE_GUI
    if (mode == "app") {
      gui::AppState app;
      app.open_now(req);
      if (!app.kernel) throw std::runtime_error(app.status);
    } else
#endif
    {
      const run::SimReport r = run::run_sim(req);
      const std::string table = run::sim_report_table(r);
      if (table.empty()) throw std::runtime_error("empty report");
    }
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
  std::printf("%.6f\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return 0;
}

// Runs the child as a fresh process (exec of this program) and collects its figures.
Row run_child(const std::string& self, Row row) {
  int fds[2];
  if (::pipe(fds) != 0) return row.error = "pipe failed", row;
  const pid_t pid = ::fork();
  if (pid < 0) return row.error = "fork failed", row;
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::close(fds[1]);
    const std::string m = std::to_string(row.shape.m), n = std::to_string(row.shape.n), k = std::to_string(row.shape.k);
    ::execl(self.c_str(), self.c_str(), "--child", row.kernel.c_str(), m.c_str(), n.c_str(), k.c_str(),
            row.mode.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t got; (got = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, size_t(got));
  ::close(fds[0]);
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  row.peak_mb = double(usage.ru_maxrss) / 1024.0;  // kilobytes on Linux
  while (!out.empty() && out.back() == '\n') out.pop_back();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || out.rfind("error: ", 0) == 0)
    row.error = out.empty() ? fmt::format("child ended with status {}", status) : out;
  else
    row.seconds = std::stod(out);
  return row;
}

nlohmann::json row_json(const Row& r) {
  return {{"kernel", r.kernel}, {"step", r.step},       {"kind", r.kind},
          {"shape", {{"m", r.shape.m}, {"n", r.shape.n}, {"k", r.shape.k}}},
          {"mode", r.mode},     {"seconds", r.seconds}, {"peak_mb", r.peak_mb},
          {"met", r.met()},     {"error", r.error}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 7 && std::string(argv[1]) == "--child")
    return child_main(argv[2], {uint32_t(std::stoul(argv[3])), uint32_t(std::stoul(argv[4])), uint32_t(std::stoul(argv[5]))},
                      argv[6]);
  CLI::App cli("gemmscope_open_bench: the traced-CTA open at the largest shapes, each in its own process");
  std::string only, mode = "both", json_file;
  bool max_only = false;
  cli.add_option("--kernel", only, "Only this kernel");
  cli.add_option("--mode", mode, "app, sim or both (default)")->check(CLI::IsMember({"app", "sim", "both"}));
  cli.add_flag("--max-only", max_only, "Only each step's largest shape, not the lopsided ones");
  cli.add_option("--json", json_file, "Also write the rows as JSON to this file");
  CLI11_PARSE(cli, argc, argv);
  std::optional<run::OutputFile> json_out;
  if (!json_file.empty()) json_out.emplace(json_file, "--json");
#ifndef GEMMSCOPE_HAVE_GUI
  std::cerr << "this build has no app: the app rows run run::run_sim, as the sim rows do\n";
#endif
  const std::string self = "/proc/self/exe";
  char path[4096];
  const ssize_t len = ::readlink(self.c_str(), path, sizeof path - 1);
  const std::string exe = len > 0 ? std::string(path, size_t(len)) : std::string(argv[0]);

  const uint32_t top = kernels::kMaxGemmDimension;
  const std::vector<kernels::GemmShape> lopsided = {{top, 128, top}, {128, top, top}, {top, top, 128}};
  std::vector<Row> rows;
  std::cout << fmt::format("{:<4} {:<34} {:<9} {:<20} {:<4} {:>8} {:>9}  {}\n", "step", "kernel", "kind", "shape",
                           "mode", "seconds", "peak MB", "target (< 1 s, < 500 MB)");
  for (const kernels::KernelInfo& info : kernels::all_kernels()) {
    if (!only.empty() && info.id != only) continue;
    std::vector<std::pair<std::string, kernels::GemmShape>> shapes;
    const std::optional<kernels::GemmShape> big = largest_shape(info);
    if (big) shapes.emplace_back("largest", *big);
    else std::cout << fmt::format("{:<4} {:<34} takes none of the largest shapes tried\n", info.step, info.id);
    if (!max_only)
      for (const kernels::GemmShape s : lopsided)
        if ((!big || shape_text(s) != shape_text(*big)) && refusal(info, s).empty()) shapes.emplace_back("lopsided", s);
    for (const auto& [kind, shape] : shapes)
      for (const std::string m : {"app", "sim"}) {
        if (mode != "both" && mode != m) continue;
        if (m == "sim" && kind != "largest" && mode == "both") continue;  // the app's rows cover the rest
        const Row r = run_child(exe, Row{.kernel = info.id, .step = info.step, .kind = kind, .shape = shape, .mode = m});
        std::cout << fmt::format("{:<4} {:<34} {:<9} {:<20} {:<4} {:>8.3f} {:>9.1f}  {}\n", r.step, r.kernel, r.kind,
                                 shape_text(r.shape), r.mode, r.seconds, r.peak_mb,
                                 !r.error.empty() ? "error: " + r.error : r.met() ? "met" : "MISSED")
                  << std::flush;
        rows.push_back(r);
      }
  }
  size_t met = 0;
  for (const Row& r : rows) met += r.met();
  std::cout << fmt::format("{} of {} opens met the target\n", met, rows.size());
  if (json_out) {
    nlohmann::json j = nlohmann::json::array();
    for (const Row& r : rows) j.push_back(row_json(r));
    json_out->write(nlohmann::json{{"seconds_target", kSecondsTarget}, {"megabytes_target", kMegabytesTarget}, {"rows", j}}
                        .dump(2) +
                    "\n");
  }
  return 0;
}
