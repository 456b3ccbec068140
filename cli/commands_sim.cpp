// `gemmscope sim`: run a kernel on the CPU model over the whole grid, trace one CTA, check
// the output against the reference GEMM, and report what the model saw.
#include <charconv>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/cli.hpp"
#include "cli/progress.hpp"
#include "run/sim_job.hpp"

namespace gs::cli {

namespace {

// "X,Y" or "X,Y,Z" with non-negative integers; anything else is a usage error.
std::array<uint32_t, 3> parse_cta(const std::string& text) {
  std::array<uint32_t, 3> cta{0, 0, 0};
  const auto fail = [&text] {
    return kernels::ConfigError(fmt::format("--cta takes X,Y (e.g. 1,0), got '{}'", text));
  };
  size_t count = 0;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  while (true) {
    if (count == 3 || p == end) throw fail();
    const auto [next, ec] = std::from_chars(p, end, cta[count]);
    if (ec != std::errc() || next == p) throw fail();
    ++count;
    p = next;
    if (p == end) break;
    if (*p != ',') throw fail();
    ++p;
  }
  if (count < 2) throw fail();
  return cta;
}

CLI::Validator input_mode_validator() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (run::parse_input_mode(value)) return {};
        return fmt::format("'{}' is not an input mode: valid values are random, int", value);
      },
      "{random,int}", "INPUT_MODE");
}

}  // namespace

void add_sim_command(CLI::App& app, Streams io, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "sim", "Run a kernel on the CPU model: the whole grid, one CTA traced, output checked against a reference");
  struct Opts {
    std::string id;
    uint32_t m = 0, n = 0, k = 0;
    std::vector<std::string> mistakes;
    std::string inputs = "int";
    uint64_t seed = 1;
    std::string cta;
    std::string trace_file;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("ID", o->id, "Kernel id (see `gemmscope list`)")->required();
  cmd->add_option("--m", o->m, "Rows of A and C (default: the kernel's example shape)");
  cmd->add_option("--n", o->n, "Columns of B and C (default: the kernel's example shape)");
  cmd->add_option("--k", o->k, "The reduction dimension (default: the kernel's example shape)");
  cmd->add_option("--break", o->mistakes,
                  "Switch on one of the kernel's deliberate mistakes (repeatable; see `gemmscope list --json`)")
      ->delimiter(',')
      ->type_name("MISTAKE");
  cmd->add_option("--inputs", o->inputs,
                  "int: integers in [-4,4], checked exactly (default); random: uniform in [-1,1), checked to a "
                  "relative-error bound")
      ->check(input_mode_validator());
  cmd->add_option("--seed", o->seed, "Seed of the input generator (default 1)");
  cmd->add_option("--cta", o->cta, "The CTA to trace, as X,Y (default 0,0)")->type_name("X,Y");
  cmd->add_option("--trace", o->trace_file, "Write the traced CTA's events as JSON to this file")->type_name("FILE");
  cmd->add_flag("--json", o->json, "Print the report as one JSON object instead of a table");
  cmd->footer("Exit codes: 0 correct with no hazards, 1 wrong output, hazards or a hang, 2 bad usage.");

  cmd->callback([io, o, &exit_code] {
    run::SimRequest req;
    req.kernel_id = o->id;
    req.shape = {o->m, o->n, o->k};
    req.mistakes = std::set<std::string>(o->mistakes.begin(), o->mistakes.end());
    req.inputs = *run::parse_input_mode(o->inputs);  // the validator let only valid names through
    req.seed = o->seed;
    if (!o->cta.empty()) req.cta = parse_cta(o->cta);
    req.trace = true;

    ProgressBar bar(io.err, is_terminal_stderr(io.err));
    if (bar.enabled()) req.progress = [&bar](uint64_t done, uint64_t total) { bar.update(done, total); };
    const run::SimReport report = run::run_sim(req);
    bar.finish();

    if (!o->trace_file.empty()) {
      write_file_atomically(o->trace_file, run::trace_json(report.result.trace, report.kernel).dump() + "\n");
      io.err << fmt::format("wrote {} ({} events of CTA {})\n", o->trace_file, report.result.trace.events.size(),
                            run::format_cta(report.cta));
    }
    if (o->json)
      io.out << run::sim_report_json(report).dump(2) << "\n";
    else
      io.out << run::sim_report_table(report);
    exit_code = report.ok() ? kExitOk : kExitFailed;
  });
}

}  // namespace gs::cli
