// Running ptxas, the independent judge of emitted PTX (style.md: ptxas is our NASM).
#pragma once

#include <optional>
#include <string>

#include "engine/ir/types.hpp"

namespace gs::ptx {

struct PtxasResult {
  bool ran = false;   // false when no ptxas was found
  bool ok = false;    // assembled without errors
  int exit_code = -1;
  std::string log;    // ptxas's messages (-v resource report included)
  std::string command;
};

// Where ptxas is: $GEMMSCOPE_PTXAS, the toolkit found at configure time, then $PATH.
std::optional<std::string> find_ptxas();

// Assembles `ptx` for `target` (with -v so the log carries registers/spills/smem).
PtxasResult run_ptxas(const std::string& ptx, ir::Arch target);

}  // namespace gs::ptx
