// The `gemmscope` command line as a function, so tests can run it in-process.
//
// Exit codes (README): 0 success, 1 a failed result (wrong output, hazards, internal error),
// 2 bad usage or input (the message names the value and what would be valid), 3 no CUDA
// device or driver for a command that needs one.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gs::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNoDevice = 3;

struct Streams {
  std::ostream& out;
  std::ostream& err;
};

// args excludes the program name.
int run_cli(const std::vector<std::string>& args, Streams io);

// Each command file registers its subcommand; the callback stores the command's exit code.
void add_list_command(CLI::App& app, Streams io, int& exit_code);
void add_ptx_command(CLI::App& app, Streams io, int& exit_code);
void add_diff_command(CLI::App& app, Streams io, int& exit_code);
void add_sass_command(CLI::App& app, Streams io, int& exit_code);
void add_sim_command(CLI::App& app, Streams io, int& exit_code);
void add_gpu_commands(CLI::App& app, Streams io, int& exit_code);  // devices, bench, probe
void add_sweep_command(CLI::App& app, Streams io, int& exit_code);  // build parameters' combinations
void add_timeline_command(CLI::App& app, Streams io, int& exit_code);  // a kernel's own timeline
void add_gui_command(CLI::App& app, Streams io, int& exit_code);
void add_draw_command(CLI::App& app, Streams io, int& exit_code);  // pictures of the layout views

// Plain `gemmscope` opens the app when it was built with the GUI and a display is present.
bool gui_available();
int open_app_default(Streams io);

}  // namespace gs::cli
