#include "cli/cli.hpp"

#include <new>
#include <ostream>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "engine/ir/verify.hpp"
#include "kernels/registry.hpp"
#include "run/build_info.hpp"

namespace gs::cli {

int run_cli(const std::vector<std::string>& args, Streams io) {
  CLI::App app{"gemmscope — a microscope for GEMM kernels on NVIDIA GPUs: one kernel IR, printed as PTX "
               "for the GPU and run instruction by instruction on a CPU model of the hardware.",
               "gemmscope"};
  app.set_version_flag("--version", "gemmscope " + version_string());
  app.require_subcommand(0, 1);
  app.footer(
      "Exit codes: 0 success, 1 failed result, 2 bad usage or input, 3 no CUDA device or driver.\n"
      "Run `gemmscope COMMAND --help` for a command's options.");
  int exit_code = kExitOk;
  add_list_command(app, io, exit_code);
  add_ptx_command(app, io, exit_code);
  add_diff_command(app, io, exit_code);
  add_sass_command(app, io, exit_code);
  add_sim_command(app, io, exit_code);
  add_gpu_commands(app, io, exit_code);
  add_timeline_command(app, io, exit_code);
  add_gui_command(app, io, exit_code);
  add_draw_command(app, io, exit_code);

  // CLI11 parses from the back of a reversed vector.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    io.out << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    io.out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    io.out << "gemmscope " << version_string() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    io.err << "gemmscope: " << e.what() << "\n"
           << "Run `gemmscope --help` for usage.\n";
    return kExitUsage;
  } catch (const kernels::ConfigError& e) {
    io.err << "gemmscope: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    // A shape too large for this machine's memory: a failed result, never a crash.
    io.err << "gemmscope: out of memory: the machine could not give this run the memory it needs (try a smaller "
              "shape, or check `ulimit -v`)\n";
    return kExitFailed;
  } catch (const ir::VerifyError& e) {
    io.err << "gemmscope: internal error: " << e.what() << "\n";
    return kExitFailed;
  } catch (const std::exception& e) {
    io.err << "gemmscope: " << e.what() << "\n";
    return kExitFailed;
  }
  if (app.get_subcommands().empty()) {
    if (args.empty() && gui_available()) return open_app_default(io);
    io.out << app.help();
    return kExitOk;
  }
  return exit_code;
}

}  // namespace gs::cli
