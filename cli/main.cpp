// gemmscope's entry point: everything happens in run_cli.
#include <iostream>
#include <string>
#include <vector>

#include "cli/cli.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return gs::cli::run_cli(args, {std::cout, std::cerr});
}
