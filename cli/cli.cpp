#include "cli/cli.hpp"

#include <algorithm>
#include <memory>
#include <new>
#include <ostream>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "engine/ir/verify.hpp"
#include "kernels/registry.hpp"
#include "run/build_info.hpp"

namespace gs::cli {

namespace {

// Options kept out of --help (for scripts and debugging) were put in CLI11's group "", which
// also empties the name in CLI11's messages ("gemmscope: : '0x0' is not a window size"). They
// get a named group instead, which this formatter leaves out of the help.
constexpr const char* kHiddenGroup = "hidden";

class Formatter : public CLI::Formatter {
 public:
  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override {
    if (group == kHiddenGroup) return "";
    return CLI::Formatter::make_group(std::move(group), is_positional, std::move(opts));
  }
};

void name_hidden_options(CLI::App& app) {
  for (CLI::Option* opt : app.get_options())
    if (opt->get_group().empty()) opt->group(kHiddenGroup);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) name_hidden_options(*sub);
}

// CLI11 reads `--json=1` (or `--json=0`, or `--json=no`) as a flag with a value and goes on;
// a flag takes no value, so any `--flag=VALUE` is refused naming the flag. The flags are those
// of the subcommand named (the same name may be an option elsewhere: bench --json FILE).
std::string flag_given_a_value(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* scope = &app;
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (scope == &app && !arg.empty() && arg[0] != '-') {
      for (const CLI::App* sub : app.get_subcommands({}))
        if (sub->get_name() == arg) scope = sub;
      continue;
    }
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) continue;
    const std::string name = arg.substr(2, eq - 2);
    for (const CLI::App* owner : {scope, &app})
      for (const CLI::Option* opt : owner->get_options())
        if (opt->get_expected_max() == 0 &&
            std::find(opt->get_lnames().begin(), opt->get_lnames().end(), name) != opt->get_lnames().end())
          return fmt::format("--{} is a flag and takes no value (got '{}'): write --{} alone, or leave it out", name,
                             arg.size() <= 60 ? arg : arg.substr(0, 57) + "...", name);
  }
  return "";
}

}  // namespace

int run_cli(const std::vector<std::string>& args, Streams io) {
  CLI::App app{"gemmscope — a microscope for GEMM kernels on NVIDIA GPUs: one kernel IR, printed as PTX "
               "for the GPU and run instruction by instruction on a CPU model of the hardware.",
               "gemmscope"};
  app.set_version_flag("--version", "gemmscope " + version_string());
  app.require_subcommand(0, 1);
  app.formatter(std::make_shared<Formatter>());  // before the subcommands, which take it over
  app.footer(
      "Exit codes: 0 success, 1 failed result, 2 bad usage or input, 3 no CUDA device or driver, 130 stopped by "
      "Ctrl-C (sweep).\n"
      "Run `gemmscope COMMAND --help` for a command's options.");
  int exit_code = kExitOk;
  add_list_command(app, io, exit_code);
  add_ptx_command(app, io, exit_code);
  add_diff_command(app, io, exit_code);
  add_sass_command(app, io, exit_code);
  add_sim_command(app, io, exit_code);
  add_gpu_commands(app, io, exit_code);
  add_sweep_command(app, io, exit_code);
  add_timeline_command(app, io, exit_code);
  add_gui_command(app, io, exit_code);
  add_draw_command(app, io, exit_code);

  name_hidden_options(app);
  if (const std::string bad = flag_given_a_value(app, args); !bad.empty()) {
    io.err << "gemmscope: " << bad << "\nRun `gemmscope --help` for usage.\n";
    return kExitUsage;
  }
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
