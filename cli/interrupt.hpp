// Ctrl-C as a request to stop, for commands whose finished work is worth keeping (`sweep`): while
// an InterruptFlag lives, the first SIGINT sets its flag (the command stops after the step under
// way and writes what it has) and puts back the default action, so a second Ctrl-C ends the
// program at once. The previous handler returns when the flag goes out of scope.
#pragma once

#include <atomic>
#include <csignal>

namespace gs::cli {

class InterruptFlag {
 public:
  InterruptFlag();
  ~InterruptFlag();
  InterruptFlag(const InterruptFlag&) = delete;
  InterruptFlag& operator=(const InterruptFlag&) = delete;
  // Set by SIGINT; the work polls it (and may hand it to run::SimRequest::cancel).
  const std::atomic<bool>* flag() const;
  bool interrupted() const { return flag()->load(); }

 private:
  struct sigaction previous_ {};
};

// The exit status of a command stopped by Ctrl-C, as a shell reports a program SIGINT ended.
inline constexpr int kExitInterrupted = 128 + SIGINT;

}  // namespace gs::cli
