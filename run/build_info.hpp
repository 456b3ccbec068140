// What this binary is: the project version and the git commit it was built from, for
// `gemmscope --version` and the app's About window. The commit is taken at build time into one
// generated .cpp (cmake/build_commit.cmake), so a new commit recompiles that file only.
#pragma once

#include <string>

namespace gs {

// The commit's 12-digit hash, with "-dirty" when tracked files differed from it, or "unknown"
// when built outside a git checkout.
const char* build_commit();

// "0.1.0 (commit 1a2b3c4d5e6f)".
std::string version_string();

}  // namespace gs
