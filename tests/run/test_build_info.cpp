// The version and commit the binaries report (run/build_info.hpp, generated at build time by
// cmake/build_commit.cmake).
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <string>

#include "run/build_info.hpp"
#include "tests/support/cli_run.hpp"
#include "tests/support/shell.hpp"

// The name must not start with "--": ctest passes it to the test binary, which would take it
// for an option ("Unrecognised token: --version", seen in the CI build).
TEST_CASE("gemmscope --version names the version and a commit of this repository", "[cli][version]") {
  const gs::test::CliRun r = gs::test::run_cli({"--version"});
  CHECK(r.code == 0);
  CHECK(r.out == "gemmscope " + gs::version_string() + "\n");

  std::smatch m;
  const std::string text = gs::version_string();
  REQUIRE(std::regex_match(text, m, std::regex(R"((\d+\.\d+\.\d+) \(commit ([0-9a-f]{12}(-dirty)?|unknown)\))")));
  CHECK(m[1] == GEMMSCOPE_VERSION);
  const std::string commit = m[2].str().substr(0, 12);
  const std::string git = "git -C " + gs::test::shell_quote(GEMMSCOPE_SOURCE_DIR) + " ";
  // As cmake/build_commit.cmake decides: the source folder itself holds .git and git reads it.
  if (!std::filesystem::exists(std::filesystem::path(GEMMSCOPE_SOURCE_DIR) / ".git") ||
      gs::test::run_shell(git + "rev-parse HEAD").code != 0) {
    // Not a git checkout (a release tarball), no git, or one git refuses to read.
    CHECK(commit == "unknown");
    return;
  }
  // Built from this checkout: the hash is one of its commits (HEAD at build time, which may be
  // behind HEAD now if nothing was rebuilt since).
  REQUIRE(commit != "unknown");
  const gs::test::ShellRun known = gs::test::run_shell(git + "cat-file -e " + commit + "^{commit}");
  INFO(known.output);
  CHECK(known.code == 0);
}
