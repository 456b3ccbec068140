#include "run/build_info.hpp"

namespace gs {

std::string version_string() { return std::string(GEMMSCOPE_VERSION) + " (commit " + build_commit() + ")"; }

}  // namespace gs
