// Hostile command lines (issue 15): every flag value is valid or exit 2 with a message naming
// the value and what would be valid; output paths are checked before the work and written
// without destroying what they lead to; shapes too large for the machine are refused up front.
// scripts/fuzz-cli.py goes wider (the ctest entry fuzz_cli_short runs its short form).
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tests/support/cli_run.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/scratch.hpp"

namespace fs = std::filesystem;

namespace {

using Run = gs::test::CliRun;
Run run(const std::vector<std::string>& args) { return gs::test::run_cli(args); }

using Scratch = gs::test::ScratchDir;
using gs::test::read_file;

// The real binary's exit code for a shell command line.
int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST_CASE("cli: no flag value quietly becomes a default: each is valid or exit 2 naming it", "[cli][errors]") {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases{
      {{"ptx", "simt_naive", "--m", "0"}, "--m: '0' is not a valid M: give a whole number from 1 to 65536"},
      {{"ptx", "simt_naive", "--k", "0"}, "'0' is not a valid K"},
      {{"ptx", "simt_naive", "--m", ""}, "--m: '' is not a valid M"},
      {{"ptx", "simt_naive", "--m", "-1"}, "'-1' is not a valid M: give a whole number from 1 to 65536"},
      {{"ptx", "simt_naive", "--n", "65537"}, "'65537' is not a valid N"},
      {{"ptx", "simt_naive", "--n", "0x10"}, "'0x10' is not a valid N"},
      {{"ptx", "simt_naive", "-o", ""}, "--output: '' is not a file name"},
      {{"ptx", "simt_naive", "--m", "010"}, "'010' is not a valid M: give a whole number from 1 to 65536"},
      {{"sim", "simt_naive", "--seed", ""}, "--seed: '' is not a valid seed"},
      {{"sim", "simt_naive", "--seed", "-1"}, "'-1' is not a valid seed: give a whole number from 0 to 18446744073709551615"},
      {{"sim", "simt_naive", "--cta", ""}, "--cta: '' is not a CTA: give X,Y"},
      {{"sim", "simt_naive", "--cta", "1,1,1"}, "CTA (1,1,1) is outside the grid (4,4,1): z=1 must be below 1"},
      {{"sim", "simt_naive", "--cta", "9,0"}, "x=9 must be below 4"},
      {{"sim", "simt_naive", "--trace", ""}, "--trace: '' is not a file name"},
      {{"sim", "simt_naive", "--break", ""}, "--break: '' is not a mistake name"},
      {{"sim", "simt_naive", "--inputs", ""}, "'' is not an input mode"},
      {{"gui", "--theme", ""}, "--theme: '' is not a theme: valid values are dark, light"},
      {{"gui", "--screenshot", ""}, "--screenshot: '' is not a file name"},
      {{"gui", "--kernel", ""}, "--kernel: '' is not a kernel id"},
      {{"gui", "--frames", "0"}, "'0' is not a valid number of frames: give a whole number from 1 to 100000"},
      {{"gui", "--size", "10x10"}, "'10x10' is not a window size"},
      {{"gui", "--select-line", "0"}, "'0' is not a valid PTX line"},
      {{"gui", "--import", ""}, "--import: '' is not a file name"},
      {{"bench", "--reps", "-1"}, "'-1' is not a valid number of timed launches"},
      {{"bench", "--sizes", "0"}, "'0' is not a problem size"},
      {{"bench", "--kernel-timeout", "nan"}, "'nan' is not a number of seconds"},
      {{"probe", ""}, "'' is not a probe group"},
  };
  for (const Case& c : cases) {
    std::string line;
    for (const std::string& a : c.args) line += " '" + a + "'";
    INFO("gemmscope" << line);
    const Run r = run(c.args);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.message));
    CHECK(r.out.empty());
  }
}

TEST_CASE("cli: output paths are checked before the work", "[cli][errors]") {
  Scratch s;
  fs::create_directory(s.path("dir"));
  // Without a GPU, bench would answer 3 after looking for one: the path is refused first.
  Run r = run({"bench", "--json", "/proc/x.json"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--json '/proc/x.json'"));
  r = run({"sim", "simt_naive", "--trace", s.path("dir")});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--trace '" + s.path("dir") + "' is a directory"));
  CHECK(r.out.empty());  // the model never ran
  CHECK(fs::is_directory(s.path("dir")));
  r = run({"sim", "simt_naive", "--trace", s.path("no/such/t.json")});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("does not exist"));
  r = run({"ptx", "simt_naive", "-o", s.path("dir")});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("is a directory") && !Catch::Contains("Success"));
}

TEST_CASE("cli: -o follows links and writes through devices and pipes", "[cli]") {
  Scratch s;
  std::ofstream(s.path("target.ptx")) << "old";
  fs::create_symlink("target.ptx", s.path("link.ptx"));
  Run r = run({"ptx", "simt_naive", "-o", s.path("link.ptx")});
  CHECK(r.code == 0);
  CHECK(fs::is_symlink(s.path("link.ptx")));
  CHECK_THAT(read_file(s.path("target.ptx")), Catch::Contains(".target sm_80"));

  // A device that fails writes: a private twin of /dev/full as root (a broken writer must not
  // be able to replace the real one), the real one otherwise.
  std::string full = "/dev/full";
  if (geteuid() == 0 && mknod(s.path("full").c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0) full = s.path("full");
  r = run({"ptx", "simt_naive", "-o", full});
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("writing '" + full + "' failed: No space left on device"));
  struct stat st {};
  REQUIRE(lstat(full.c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));

  // /dev/stdout is the command's standard output, whatever it is redirected to. Given as a
  // link of our own to /proc/self/fd/1 (what /dev/stdout is), so that a broken writer run as
  // root replaces that link and not the machine's /dev/stdout.
  const std::string bin = gs::test::cli_binary();
  const std::string stdout_link = s.path("stdout");
  fs::create_symlink("/proc/self/fd/1", stdout_link);
  CHECK(shell(bin + " ptx simt_naive -o " + stdout_link + " > '" + s.path("stdout.ptx") + "' 2>/dev/null") == 0);
  CHECK_THAT(read_file(s.path("stdout.ptx")), Catch::Contains(".target sm_80"));
  CHECK(shell(bin + " ptx simt_naive -o " + stdout_link + " 2>/dev/null | grep -q 'target sm_80'") == 0);
  CHECK(fs::is_symlink(stdout_link));
}

TEST_CASE("cli: a whole-grid run larger than the machine's memory is refused up front", "[cli][errors]") {
  Run r = run({"sim", "simt_naive", "--m", "65536", "--n", "65536", "--k", "65536"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("a whole-grid run of simt_naive at M=65536 N=65536 K=65536 needs about") &&
                        Catch::Contains("GiB"));
  // Under an address-space limit the same holds for a shape this machine could otherwise run:
  // refused, never a bad_alloc ending in a signal or exit 0.
  // Not under AddressSanitizer: its shadow memory needs terabytes of address space, so a
  // process started under `ulimit -v` aborts before main (exit 134, seen in the CI build).
#if !defined(GEMMSCOPE_ASAN_BUILD)
  const std::string bin = gs::test::cli_binary();
  CHECK(shell("ulimit -v 1000000; " + bin + " sim simt_naive --m 16384 --n 16384 --k 64 > /dev/null 2>&1") == 2);
#endif
}
