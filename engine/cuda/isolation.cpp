// gs::cuda isolation: fork, run the job, frame its result through a pipe, wait with a limit.
// See isolation.hpp for the contract and the fork rule.
#include "engine/cuda/isolation.hpp"

#include "engine/sys/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <system_error>
#include <thread>

namespace gs::cuda {
namespace {

using sys::duration_text;

using Clock = std::chrono::steady_clock;

// The child's message: one tag byte ('O' result, 'E' exception text), an 8-byte length in host
// order (parent and child are the same program on the same machine), then the bytes.
constexpr std::size_t kHeaderBytes = 1 + sizeof(std::uint64_t);
constexpr auto kReapGrace = std::chrono::seconds(5);  // after SIGKILL, before giving up waiting
constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP};

bool write_all(int fd, const void* data, std::size_t size) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

[[noreturn]] void child_main(const std::function<std::string()>& job, int fd) {
  setpgid(0, 0);  // our own group, so the parent can kill everything the job starts
  // Report crashes as signals: undo handlers inherited from the parent (sanitizers, test
  // frameworks), make sure none of them is blocked, and write no core file.
  sigset_t crash_set;
  sigemptyset(&crash_set);
  struct sigaction action {};
  sigemptyset(&action.sa_mask);
  action.sa_handler = SIG_DFL;
  for (int sig : kCrashSignals) {
    sigaction(sig, &action, nullptr);
    sigaddset(&crash_set, sig);
  }
  sigprocmask(SIG_UNBLOCK, &crash_set, nullptr);
  action.sa_handler = SIG_IGN;  // a vanished parent makes write() fail instead of killing us
  sigaction(SIGPIPE, &action, nullptr);
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);

  char tag = 'O';
  std::string body;
  int code = 0;
  try {
    body = job();
  } catch (const std::exception& e) {
    tag = 'E';
    body = e.what();
    code = 1;
  } catch (...) {
    tag = 'E';
    body = "an exception that is not a std::exception";
    code = 1;
  }
  const std::uint64_t length = body.size();
  const bool sent = write_all(fd, &tag, 1) && write_all(fd, &length, sizeof length) &&
                    write_all(fd, body.data(), body.size());
  std::fflush(nullptr);  // the job's own stdio output; the parent flushed its buffers before fork
  _exit(sent ? code : 2);
}

// Reads what is available without blocking; returns true at end of file.
bool drain(int fd, std::string& received) {
  char buffer[65536];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      received.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0) {
      return true;
    } else if (errno == EINTR) {
      continue;
    } else {
      return errno != EAGAIN && errno != EWOULDBLOCK;  // a real error ends the stream too
    }
  }
}

// Whether the child has ended, without reaping it: a zombie keeps its pid (and so its process
// group id) reserved, which makes the later kill(-pid) safe.
bool child_has_exited(pid_t pid) {
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0) {
    return info.si_pid == pid;
  }
  return errno == ECHILD;  // someone else reaped it (e.g. SIGCHLD set to SIG_IGN)
}

// Reaps the child within kReapGrace. If it will not die (stuck in a driver call), a detached
// thread reaps it later so no zombie is left, and we report what we know.
bool reap(pid_t pid, int& status) {
  const auto give_up = Clock::now() + kReapGrace;
  while (Clock::now() < give_up) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return false;  // ECHILD: reaped elsewhere, status unknown
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::thread([pid] {
    int ignored = 0;
    waitpid(pid, &ignored, 0);
  }).detach();
  return false;
}

struct Frame {
  bool complete = false;
  char tag = 0;
  std::uint64_t expected = 0;  // 0 when the header itself is incomplete
  std::string body;
};

Frame parse_frame(const std::string& received) {
  Frame frame;
  if (received.size() < kHeaderBytes) return frame;
  frame.tag = received[0];
  std::memcpy(&frame.expected, received.data() + 1, sizeof frame.expected);
  frame.body = received.substr(kHeaderBytes);
  frame.complete = (frame.tag == 'O' || frame.tag == 'E') && frame.body.size() == frame.expected;
  return frame;
}

}  // namespace

std::string_view to_string(ChildResult::Status status) {
  switch (status) {
    case ChildResult::Status::ok: return "ok";
    case ChildResult::Status::failed: return "failed";
    case ChildResult::Status::timed_out: return "timed out";
    case ChildResult::Status::crashed: return "crashed";
  }
  return "?";
}

std::string signal_name(int signal) { return sys::signal_name(signal); }

ChildResult run_isolated(std::function<std::string()> job, std::chrono::milliseconds limit,
                         std::string_view what) {
  const std::string name(what);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "run_isolated(" + name + "): pipe2");
  }
  std::fflush(nullptr);  // or the child would inherit, and later flush, our pending output
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    close(fds[0]);
    close(fds[1]);
    throw std::system_error(error, std::generic_category(), "run_isolated(" + name + "): fork");
  }
  if (pid == 0) {
    close(fds[0]);
    child_main(job, fds[1]);
  }
  close(fds[1]);
  setpgid(pid, pid);  // also done by the child; whichever runs first wins the race harmlessly
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);

  // Collect output until the child ends or the limit passes.
  std::string received;
  bool eof = false, timed_out = false;
  const auto deadline = start + limit;
  while (!child_has_exited(pid)) {
    const auto now = Clock::now();
    if (now >= deadline) {
      timed_out = true;
      break;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    const int slice_ms = static_cast<int>(std::clamp<long long>(left, 1, 20));
    pollfd p{fds[0], POLLIN, 0};
    if (poll(eof ? nullptr : &p, eof ? 0 : 1, slice_ms) > 0 && !eof) eof = drain(fds[0], received);
  }
  const double wall_s = std::chrono::duration<double>(Clock::now() - start).count();

  // End the job's whole process group (the job itself on timeout; leftovers otherwise), then
  // collect the exit status and whatever the pipe still holds.
  kill(-pid, SIGKILL);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  const bool reaped = reap(pid, status);
  if (!eof) drain(fds[0], received);
  close(fds[0]);

  ChildResult result;
  result.wall_s = wall_s;
  const Frame frame = parse_frame(received);
  result.payload = frame.tag == 'E' ? std::string() : frame.body;
  auto progress = [&] {
    if (received.empty()) return std::string();
    if (frame.expected == 0) return " after sending " + std::to_string(received.size()) + " bytes";
    return " after sending only " + std::to_string(frame.body.size()) + " of " +
           std::to_string(frame.expected) + " bytes of its result";
  };

  if (timed_out) {
    result.status = ChildResult::Status::timed_out;
    result.signal = SIGKILL;
    result.error = name + " did not finish in " + duration_text(limit) +
                   ": killed with SIGKILL. A kernel that never finishes is usually waiting on an "
                   "mbarrier phase that never completes (a deadlock) or spinning on a flag; the "
                   "CPU model can show where";
    if (!reaped)
      result.error += ". The child did not exit within 5 s of SIGKILL (stuck in the driver?)";
    return result;
  }
  if (reaped && WIFSIGNALED(status)) {
    result.status = ChildResult::Status::crashed;
    result.signal = WTERMSIG(status);
    result.error = name + " crashed: the child process was killed by " +
                   signal_name(result.signal) + " (" + strsignal(result.signal) + ")" +
                   (frame.complete ? std::string() : progress());
    return result;
  }
  if (reaped && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  const std::string exit_text = result.exit_code >= 0
                                    ? "exited with status " + std::to_string(result.exit_code)
                                    : "ended (exit status unknown)";

  if (frame.complete && frame.tag == 'O' && result.exit_code <= 0) {
    result.status = ChildResult::Status::ok;
  } else if (frame.complete && frame.tag == 'E') {
    result.status = ChildResult::Status::failed;
    result.error = name + " failed: " + frame.body;
  } else if (frame.complete) {
    result.status = ChildResult::Status::failed;
    result.error = name + " returned a result but " + exit_text;
  } else {
    result.status = ChildResult::Status::failed;
    result.error =
        name + " " + exit_text + (received.empty() ? " before returning a result" : progress());
  }
  return result;
}

}  // namespace gs::cuda
