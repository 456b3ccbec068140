// gs::sys: posix_spawn with an argument vector, output through a pipe, a time limit.
#include "engine/sys/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

extern char** environ;

namespace gs::sys {

namespace {

using Clock = std::chrono::steady_clock;

// Whether the child has ended, without reaping it: the zombie keeps its pid (and so its
// process group id) reserved, which makes kill(-pid) afterwards safe.
bool has_exited(pid_t pid) {
  siginfo_t info{};
  if (waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0) return info.si_pid == pid;
  return errno == ECHILD;
}

// Appends what the pipe holds now; returns true at end of file (or on a real error).
bool drain(int fd, std::string& out, std::size_t max_bytes, bool& truncated) {
  char buffer[65536];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      const std::size_t room = max_bytes - std::min(max_bytes, out.size());
      out.append(buffer, std::min(room, std::size_t(n)));
      truncated |= std::size_t(n) > room;
    } else if (n == 0) {
      return true;
    } else if (errno != EINTR) {
      return errno != EAGAIN && errno != EWOULDBLOCK;
    }
  }
}

// Reaps the child (already dead or SIGKILLed) and records how it ended.
void reap(pid_t pid, ProcessResult& r) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (r.status == ProcessResult::Status::timed_out) return;
  if (WIFEXITED(status)) {
    r.status = ProcessResult::Status::exited;
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.status = ProcessResult::Status::signalled;
    r.signal = WTERMSIG(status);
  }
}

bool needs_quotes(std::string_view word) {
  if (word.empty()) return true;
  return std::any_of(word.begin(), word.end(), [](char c) {
    return !(std::isalnum(static_cast<unsigned char>(c)) || std::strchr("@%_+=:,./-", c));
  });
}

struct SpawnSetup {
  posix_spawn_file_actions_t actions{};
  posix_spawnattr_t attributes{};
  SpawnSetup(int write_end) {
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, write_end, 1);
    posix_spawn_file_actions_adddup2(&actions, write_end, 2);
    posix_spawnattr_init(&attributes);
    // Its own process group (so a timeout ends everything it started), no blocked signals,
    // and the default action for those a parent (an app, a test framework) may have changed.
    posix_spawnattr_setpgroup(&attributes, 0);
    sigset_t none, defaults;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    sigemptyset(&defaults);
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGALRM}) sigaddset(&defaults, sig);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
};

}  // namespace

std::string duration_text(std::chrono::milliseconds d) {
  const long long ms = d.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  if (ms < 1000) return std::to_string(ms) + " ms";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", double(ms) / 1000.0);
  return text;
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGSYS: return "SIGSYS";
    default: return "signal " + std::to_string(signal);
  }
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& word : argv) {
    if (!text.empty()) text += ' ';
    if (!needs_quotes(word)) {
      text += word;
      continue;
    }
    text += '\'';
    for (char c : word) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
    text += '\'';
  }
  return text;
}

std::string ProcessResult::describe(std::string_view name) const {
  const std::string who(name);
  std::string first_line = output.substr(0, output.find('\n'));
  if (first_line.size() > 300) first_line = first_line.substr(0, 300) + "...";
  switch (status) {
    case Status::exited:
      if (exit_code == 0) return "";
      return who + " exited with status " + std::to_string(exit_code) +
             (first_line.empty() ? " and printed nothing" : ": " + first_line);
    case Status::signalled:
      return who + " was killed by " + signal_name(signal) + " (" + strsignal(signal) + ")" +
             (first_line.empty() ? "" : " after printing: " + first_line);
    case Status::timed_out:
      return who + " did not finish in " + duration_text(limit) + ": killed with SIGKILL";
    case Status::not_started:
      return who + " could not be started: " + error;
  }
  return "";
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult r;
  r.limit = options.limit;
  if (argv.empty() || argv[0].empty()) {
    r.error = "no program named";
    return r;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "run_process: pipe2");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  const auto start = Clock::now();
  pid_t pid = -1;
  int spawn_error = 0;
  {
    SpawnSetup setup(fds[1]);
    spawn_error = posix_spawn(&pid, args[0], &setup.actions, &setup.attributes, args.data(), environ);
  }
  close(fds[1]);
  if (spawn_error != 0) {
    close(fds[0]);
    r.error = std::strerror(spawn_error);
    return r;
  }
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);

  // Read until the program ends (and its output with it) or the limit passes.
  const auto deadline = start + options.limit;
  bool eof = false;
  while (!(eof && has_exited(pid))) {
    const auto now = Clock::now();
    if (now >= deadline) {
      r.status = ProcessResult::Status::timed_out;
      break;
    }
    if (!eof && has_exited(pid)) {
      // It ended; whatever it started may still hold the pipe: end its group, then read the rest.
      kill(-pid, SIGKILL);
    }
    const long long left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    const int slice_ms = int(std::clamp<long long>(left, 1, eof ? 5 : 50));
    pollfd p{fds[0], POLLIN, 0};
    if (eof) poll(nullptr, 0, slice_ms);
    else if (poll(&p, 1, slice_ms) > 0) eof = drain(fds[0], r.output, options.max_output_bytes, r.output_truncated);
  }
  kill(-pid, SIGKILL);  // the program on a timeout; anything it left behind otherwise
  if (r.status == ProcessResult::Status::timed_out) kill(pid, SIGKILL);
  reap(pid, r);
  if (!eof) drain(fds[0], r.output, options.max_output_bytes, r.output_truncated);
  close(fds[0]);
  r.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

TempDir::TempDir(std::string_view prefix) {
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string base = tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp";
  std::string pattern = base + "/" + std::string(prefix) + "XXXXXX";
  if (!mkdtemp(pattern.data()))
    throw std::system_error(errno, std::generic_category(), "cannot create a temporary folder " + pattern);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace gs::sys
