// `gemmscope sass`: the SASS a kernel's PTX becomes, each instruction under the PTX line it
// came from, with ptxas's resource report (run/sass_job.hpp).
#include <ostream>

#include <CLI/CLI.hpp>

#include "cli/cli.hpp"
#include "cli/values.hpp"
#include "run/sass_job.hpp"

namespace gs::cli {

void add_sass_command(CLI::App& app, Streams io, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "sass", "Compile a kernel's PTX with ptxas and print its SASS, each instruction under its PTX line");
  struct Opts {
    std::string id;
    uint32_t m = 0, n = 0, k = 0;
    std::vector<std::string> mistakes;
    std::vector<std::string> params;
    bool timeline = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("ID", o->id, "Kernel id (see `gemmscope list`)")->required();
  add_shape_options(cmd, o->m, o->n, o->k);
  add_mistake_option(cmd, o->mistakes, "--mistake,--break");
  add_param_option(cmd, o->params);
  cmd->add_flag("--timeline", o->timeline,
                "The kernel instrumented by the timeline pass, as `bench --timeline` runs it (CTA 0 records): what "
                "the recording costs, in SASS");
  cmd->footer(
      "Needs the CUDA toolkit's ptxas and nvdisasm (or cuobjdump), found beside the ptxas gemmscope was built with, "
      "on PATH or in /usr/local/cuda/bin; GEMMSCOPE_PTXAS and GEMMSCOPE_NVDISASM name them.\n"
      "Exit codes: 0 the SASS listing, 1 a tool missing or failing (the message says which; without a disassembler "
      "the report and each address's PTX line are still printed), 2 bad usage.");
  cmd->callback([io, o, &exit_code] {
    run::SassRequest req;
    req.kernel_id = o->id;
    req.shape = {o->m, o->n, o->k};
    req.mistakes = std::set<std::string>(o->mistakes.begin(), o->mistakes.end());
    req.params = parse_params(o->params);
    req.timeline = o->timeline;
    const run::SassReport report = run::run_sass(req);
    const std::string text = run::sass_report_text(report);
    if (report.listing.ok()) {
      io.out << text;
      exit_code = kExitOk;
      return;
    }
    // A partial listing (no disassembler) still goes to standard output; the reason to stderr.
    if (!report.listing.instructions.empty()) io.out << text;
    io.err << "gemmscope: " << report.listing.message << "\n";
    if (report.listing.status == ptx::SassStatus::ptxas_failed) io.err << report.listing.ptxas_log;
    if (report.listing.status == ptx::SassStatus::disassembler_failed) io.err << report.listing.disassembler_log;
    exit_code = kExitFailed;
  });
}

}  // namespace gs::cli
