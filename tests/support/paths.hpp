// Where the built gemmscope binary is, found from the test executable itself so a build
// directory can be moved (it is carried to the GPU machine, where the tree lives elsewhere).
#pragma once

#include <filesystem>
#include <string>

namespace gs::test {

inline std::string cli_binary() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path candidate = self.parent_path().parent_path() / "gemmscope";
    if (std::filesystem::exists(candidate)) return candidate.string();
  }
  return GEMMSCOPE_CLI_PATH;  // where CMake built it
}

}  // namespace gs::test
