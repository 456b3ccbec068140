// The test helpers' reading of a sanitizer's output (tests/support/shell.hpp): a crash of
// LeakSanitizer's own tracer is told apart from a leak, which must always fail.
#include <catch2/catch.hpp>

#include "tests/support/shell.hpp"

TEST_CASE("shell support: the leak checker's own crash is not a leak, and a leak is never taken for it", "[support]") {
  const std::string tracer =
      "Tracer caught signal 11: addr=0x2ab8 pc=0x7f64818e80f0 sp=0x7f64713fed10\n"
      "==12515==LeakSanitizer has encountered a fatal error.\n"
      "==12515==HINT: LeakSanitizer does not work under ptrace (strace, gdb, etc)\n";
  CHECK(gs::test::leak_checker_crashed(tracer));
  const std::string leak =
      "==1==ERROR: LeakSanitizer: detected memory leaks\n\nDirect leak of 8 byte(s) in 1 object(s)\n";
  CHECK_FALSE(gs::test::leak_checker_crashed(leak));
  CHECK_FALSE(gs::test::leak_checker_crashed(leak + tracer));
  CHECK_FALSE(gs::test::leak_checker_crashed("gemmscope gui: no display\n"));
  // A command that fails for its own reason is run once: no retry, its output as it was.
  const gs::test::ShellRun r = gs::test::run_shell("echo own failure; exit 3");
  CHECK(r.code == 3);
  CHECK(r.output == "own failure\n");
}
