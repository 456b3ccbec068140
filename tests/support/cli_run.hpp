// Test helper: run the command line in-process and capture its exit code and output.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace gs::test {

struct CliRun {
  int code;
  std::string out, err;
};

inline CliRun run_cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = gs::cli::run_cli(args, {out, err});
  return {code, out.str(), err.str()};
}

}  // namespace gs::test
