// Running another program (ptxas, nvdisasm, cuobjdump) safely: an argument vector handed to
// posix_spawn, never a shell command line, so no character of a path or an environment
// variable can end a quotation and run something else. Its standard output and standard error
// are captured by this program through a pipe (no log file), and it runs under a time limit:
// a program still running at the limit is killed with its whole process group and the result
// says so, naming the program and the limit.
//
//   const gs::sys::ProcessResult r = gs::sys::run_process({ptxas, "-v", "in.ptx"}, {.limit = 30s});
//   if (!r.ok()) message = r.describe("ptxas");   // "ptxas did not finish in 30 s: ..."
//
// TempDir is a folder under /tmp removed with everything in it when it goes out of scope, on
// every path (a tool that failed, timed out or threw included).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gs::sys {

struct ProcessOptions {
  std::chrono::milliseconds limit{std::chrono::seconds(60)};
  // Output past this is dropped (and the result says so); the program still runs to its end.
  std::size_t max_output_bytes = std::size_t(64) << 20;
};

struct ProcessResult {
  enum class Status {
    exited,       // exit_code holds its status
    signalled,    // killed by `signal` (not by us)
    timed_out,    // still running at the limit: killed with SIGKILL
    not_started,  // posix_spawn failed: error says why (no such file, not executable, ...)
  };
  Status status = Status::not_started;
  int exit_code = -1;  // when exited
  int signal = 0;      // when signalled
  std::string output;  // standard output and standard error together, in the order written
  bool output_truncated = false;
  std::string error;   // not_started: the system's reason
  std::chrono::milliseconds limit{0};
  double wall_s = 0.0;

  bool ok() const { return status == Status::exited && exit_code == 0; }
  // One sentence on what went wrong, naming the program as `name`: "ptxas exited with status
  // 1: <its first line of output>", "... exited with status 1 and printed nothing", "... was
  // killed by SIGSEGV", "... did not finish in 30 s: killed with SIGKILL", "... could not be
  // started: No such file or directory". Empty when ok().
  std::string describe(std::string_view name) const;
};

// Runs argv[0] (a path; $PATH is not searched) with the arguments argv[1...], standard input
// from /dev/null. Never throws for a failing program; throws std::system_error only when no
// pipe can be made.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// argv as a shell would need it typed (each word single-quoted where needed): for messages and
// for a reader to re-run by hand, never for running.
std::string command_line(const std::vector<std::string>& argv);

// "30 s", "1.5 s", "250 ms".
std::string duration_text(std::chrono::milliseconds d);
// "SIGKILL", "SIGSEGV", ..., "signal 42".
std::string signal_name(int signal);

class TempDir {
 public:
  // Creates /tmp/<prefix>XXXXXX (or under $TMPDIR). Throws std::system_error when it cannot.
  explicit TempDir(std::string_view prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

}  // namespace gs::sys
