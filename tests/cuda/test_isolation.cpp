// run_isolated without a GPU: results, exceptions, time limits, crashes, early exits, big and
// partial results, leftover processes; and the parent keeps working after each.
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "engine/cuda/isolation.hpp"

using namespace gs::cuda;
using Catch::Contains;
using namespace std::chrono_literals;

namespace {

// The parent is still fine: a fresh child runs and returns.
void check_parent_still_works() {
  const ChildResult r = run_isolated([] { return std::string("still here"); }, 10s);
  CHECK(r.ok());
  CHECK(r.payload == "still here");
}

}  // namespace

TEST_CASE("run_isolated returns the job's result", "[cuda][isolation]") {
  const ChildResult r = run_isolated([] { return "pid " + std::to_string(getpid()); }, 10s);
  CHECK(r.status == ChildResult::Status::ok);
  CHECK(r.ok());
  CHECK(r.payload.rfind("pid ", 0) == 0);
  CHECK(r.payload != "pid " + std::to_string(getpid()));  // it really ran elsewhere
  CHECK(r.error.empty());
  CHECK(r.exit_code == 0);
  CHECK(r.signal == 0);
  CHECK(r.wall_s >= 0.0);
  CHECK(r.wall_s < 10.0);
}

TEST_CASE("run_isolated carries binary and large results", "[cuda][isolation]") {
  std::string binary("a\0b\xff\x1e", 5);
  ChildResult r = run_isolated([&] { return binary; }, 10s);
  CHECK(r.ok());
  CHECK(r.payload == binary);

  // Far more than a pipe buffer: the parent must drain while the child writes.
  r = run_isolated([] { return std::string(8u << 20, 'x'); }, 60s);
  CHECK(r.ok());
  CHECK(r.payload.size() == (8u << 20));
  CHECK(r.payload.find_first_not_of('x') == std::string::npos);
}

TEST_CASE("a job that throws is reported as failed with its message", "[cuda][isolation]") {
  const ChildResult r =
      run_isolated([]() -> std::string { throw std::runtime_error("boom 42"); }, 10s, "probe");
  CHECK(r.status == ChildResult::Status::failed);
  CHECK(r.error == "probe failed: boom 42");
  CHECK(r.payload.empty());
  CHECK(r.exit_code == 1);
  check_parent_still_works();
}

TEST_CASE("a job that runs past the limit is killed and reported", "[cuda][isolation]") {
  const auto start = std::chrono::steady_clock::now();
  const ChildResult r = run_isolated(
      [] {
        std::this_thread::sleep_for(30s);
        return std::string("too late");
      },
      300ms, "kernel 'spin'");
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(r.status == ChildResult::Status::timed_out);
  CHECK(r.signal == SIGKILL);
  CHECK_THAT(r.error, Contains("kernel 'spin' did not finish in 300 ms: killed with SIGKILL"));
  CHECK_THAT(r.error, Contains("mbarrier") && Contains("the CPU model can show where"));
  CHECK(r.wall_s >= 0.29);
  CHECK(waited < 5.0);
  check_parent_still_works();
}

TEST_CASE("a job that dies of SIGSEGV is reported as crashed", "[cuda][isolation]") {
  const ChildResult r = run_isolated(
      []() -> std::string {
        raise(SIGSEGV);
        return "unreachable";
      },
      10s);
  CHECK(r.status == ChildResult::Status::crashed);
  CHECK(r.signal == SIGSEGV);
  CHECK_THAT(r.error, Contains("job crashed: the child process was killed by SIGSEGV"));
  CHECK(r.exit_code == -1);
  check_parent_still_works();
}

TEST_CASE("a job that aborts is reported as crashed with SIGABRT", "[cuda][isolation]") {
  const ChildResult r = run_isolated([]() -> std::string { std::abort(); }, 10s);
  CHECK(r.status == ChildResult::Status::crashed);
  CHECK(r.signal == SIGABRT);
  CHECK_THAT(r.error, Contains("SIGABRT"));
  check_parent_still_works();
}

TEST_CASE("a job that calls _exit(3) is reported as failed with the status", "[cuda][isolation]") {
  const ChildResult r = run_isolated([]() -> std::string { _exit(3); }, 10s);
  CHECK(r.status == ChildResult::Status::failed);
  CHECK(r.exit_code == 3);
  CHECK(r.signal == 0);
  CHECK(r.error == "job exited with status 3 before returning a result");
  check_parent_still_works();
}

TEST_CASE("a child killed while sending its result reports the partial result",
          "[cuda][isolation]") {
  // The job returns a large result and arms a thread that kills the child as soon as its main
  // thread sits in write(2), i.e. while the result streams through the pipe (Linux shows the
  // current system call in /proc/self/task/<tid>/syscall). Where that file cannot be read, the
  // thread falls back to a 10 ms delay, far shorter than moving 256 MiB through a pipe.
  constexpr std::size_t size = 256u << 20;
  const ChildResult r = run_isolated(
      [] {
        std::string big(size, 'p');
        const pid_t main_thread = getpid();  // the forking thread is the child's only thread
        std::thread([main_thread] {
          const std::string path = "/proc/self/task/" + std::to_string(main_thread) + "/syscall";
          const auto give_up = std::chrono::steady_clock::now() + 10s;
          bool readable = true;
          while (readable && std::chrono::steady_clock::now() < give_up) {
            std::ifstream file(path);
            long number = -1;
            readable = static_cast<bool>(file >> number);
            if (number == SYS_write) break;
            std::this_thread::sleep_for(100us);
          }
          if (!readable) std::this_thread::sleep_for(10ms);
          kill(getpid(), SIGKILL);
        }).detach();
        return big;
      },
      60s);
  CHECK(r.status == ChildResult::Status::crashed);
  CHECK(r.signal == SIGKILL);
  CHECK_THAT(r.error,
             Contains("after sending only") && Contains("of " + std::to_string(size) + " bytes"));
  CHECK(r.payload.size() < size);
  check_parent_still_works();
}

TEST_CASE("processes a job leaves behind do not hold up the parent", "[cuda][isolation]") {
  const auto start = std::chrono::steady_clock::now();
  const ChildResult r = run_isolated(
      [] {
        if (fork() == 0) {  // a grandchild that keeps the result pipe open for 30 s
          sleep(30);
          _exit(0);
        }
        return std::string("done");
      },
      20s);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(r.ok());
  CHECK(r.payload == "done");
  CHECK(waited < 5.0);
}

TEST_CASE("status and signal names read well", "[cuda][isolation]") {
  CHECK(to_string(ChildResult::Status::ok) == "ok");
  CHECK(to_string(ChildResult::Status::timed_out) == "timed out");
  CHECK(to_string(ChildResult::Status::crashed) == "crashed");
  CHECK(signal_name(SIGSEGV) == "SIGSEGV");
  CHECK(signal_name(SIGBUS) == "SIGBUS");
  CHECK(signal_name(64) == "signal 64");
}
