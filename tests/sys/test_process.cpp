// Running other programs (engine/sys/process.hpp): an argument vector and no shell, the output
// captured, a time limit that kills the program's whole process group, temporary folders that
// go on every path.
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "engine/sys/process.hpp"
#include "tests/support/scratch.hpp"

using namespace gs;
using Catch::Matchers::Contains;
using namespace std::chrono_literals;

namespace {

std::string script(const test::ScratchDir& dir, const std::string& name, const std::string& body) {
  const std::string path = dir.write(name, "#!/bin/sh\n" + body);
  ::chmod(path.c_str(), 0755);
  return path;
}

// Whether the process is alive (a zombie waiting for its parent to read its status is not).
bool running(const std::string& pid) {
  const std::string stat = test::read_file("/proc/" + pid + "/stat");
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

}  // namespace

TEST_CASE("process: arguments reach the program as they are, never through a shell", "[sys][process]") {
  test::ScratchDir dir;
  const std::string marker = dir.path("INJECTED");
  const std::string hostile = "a';touch " + marker + ";'b $(touch " + marker + ") `touch " + marker + "`";
  const sys::ProcessResult r = sys::run_process({"/bin/echo", hostile, "two words"});
  REQUIRE(r.ok());
  CHECK(r.output == hostile + " two words\n");
  CHECK_FALSE(std::filesystem::exists(marker));
  // The command line shown to a reader quotes each word so that it could be typed back.
  CHECK(sys::command_line({"/x y/ptxas", "-v", "it's"}) == "'/x y/ptxas' -v 'it'\\''s'");
}

TEST_CASE("process: standard output and standard error are both captured", "[sys][process]") {
  test::ScratchDir dir;
  const sys::ProcessResult r = sys::run_process({script(dir, "both", "echo out; echo err >&2; exit 4\n")});
  CHECK(r.status == sys::ProcessResult::Status::exited);
  CHECK(r.exit_code == 4);
  CHECK_THAT(r.output, Contains("out\n") && Contains("err\n"));
  CHECK(r.describe("tool") == "tool exited with status 4: out");
  const sys::ProcessResult silent = sys::run_process({script(dir, "silent", "exit 1\n")});
  CHECK(silent.describe("tool") == "tool exited with status 1 and printed nothing");
}

TEST_CASE("process: a program past its time limit is killed with what it started", "[sys][process]") {
  test::ScratchDir dir;
  const std::string pid_file = dir.path("grandchild.pid");
  // A program that starts a grandchild (holding the output pipe) and then never ends.
  const std::string hang = script(dir, "hang", "sleep 30 & echo $! > '" + pid_file + "'\necho started\nsleep 30\n");
  const auto t0 = std::chrono::steady_clock::now();
  const sys::ProcessResult r = sys::run_process({hang}, {.limit = 300ms});
  const auto took = std::chrono::steady_clock::now() - t0;
  CHECK(r.status == sys::ProcessResult::Status::timed_out);
  CHECK(took < 5s);
  CHECK(r.output == "started\n");
  CHECK(r.describe("ptxas") == "ptxas did not finish in 300 ms: killed with SIGKILL");
  const std::string grandchild = test::read_file(pid_file);
  REQUIRE_FALSE(grandchild.empty());
  const std::string pid = grandchild.substr(0, grandchild.find('\n'));
  for (int i = 0; i < 100 && running(pid); ++i) std::this_thread::sleep_for(10ms);  // SIGKILL lands at once
  CHECK_FALSE(running(pid));
}

TEST_CASE("process: a program that cannot start or dies of a signal says so", "[sys][process]") {
  test::ScratchDir dir;
  const sys::ProcessResult missing = sys::run_process({dir.path("no-such-tool")});
  CHECK(missing.status == sys::ProcessResult::Status::not_started);
  CHECK_THAT(missing.describe("nvdisasm"), Contains("nvdisasm could not be started: No such file"));
  const sys::ProcessResult killed = sys::run_process({script(dir, "segv", "kill -SEGV $$\n")});
  CHECK(killed.status == sys::ProcessResult::Status::signalled);
  CHECK_THAT(killed.describe("ptxas"), Contains("ptxas was killed by SIGSEGV"));
  // A program that ends while something it started still holds the output: not waited for.
  const auto t0 = std::chrono::steady_clock::now();
  const sys::ProcessResult early = sys::run_process({script(dir, "early", "echo bye; sleep 30 &\n")}, {.limit = 20s});
  CHECK(early.ok());
  CHECK(std::chrono::steady_clock::now() - t0 < 5s);
}

TEST_CASE("process: output past the limit is dropped, not held", "[sys][process]") {
  test::ScratchDir dir;
  const sys::ProcessResult r =
      sys::run_process({script(dir, "loud", "i=0; while [ $i -lt 2000 ]; do echo 0123456789; i=$((i+1)); done\n")},
                       {.max_output_bytes = 100});
  CHECK(r.ok());
  CHECK(r.output.size() == 100);
  CHECK(r.output_truncated);
}

TEST_CASE("process: a temporary folder goes with everything in it", "[sys][process]") {
  std::string path;
  {
    const sys::TempDir dir("gemmscope-test-");
    path = dir.path();
    CHECK(std::filesystem::is_directory(path));
    std::filesystem::create_directories(dir.file("sub"));
    std::ofstream(dir.file("sub/a.txt")) << "x";
  }
  CHECK_FALSE(std::filesystem::exists(path));
}
