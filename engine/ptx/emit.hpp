// The PTX printer: ir::Kernel -> deterministic PTX text, plus a map between PTX lines and
// instruction ids so the GUI can highlight the line the model is executing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/ir/kernel.hpp"

namespace gs::ptx {

struct PtxModule {
  std::string text;
  uint32_t ptx_version = 0;           // times ten: 80 = ".version 8.0"
  std::vector<int32_t> line_to_inst;  // [line - 1] -> instruction id, or -1 for other lines
  std::vector<uint32_t> inst_to_line; // [instruction id] -> 1-based line
  std::vector<std::string> reg_names; // [register id] -> the unique PTX name, e.g. "%row_off"
};

// The PTX ISA version the kernel needs: the target's minimum and every op's minimum.
uint32_t required_ptx_version(const ir::Kernel& k);
std::string ptx_version_string(uint32_t v);  // 80 -> "8.0"

// Prints the kernel. The kernel should have passed ir::verify(); the printer itself only
// throws std::invalid_argument for operands it cannot print.
PtxModule emit(const ir::Kernel& k);

// One instruction as PTX (without indentation or trailing comment), for the GUI and tests.
std::string format_instruction(const ir::Kernel& k, const std::vector<std::string>& reg_names, const ir::Inst& inst);

// Unique, valid PTX register names for every register (debug names, de-duplicated, kept
// clear of special-register names such as %tid).
std::vector<std::string> register_names(const ir::Kernel& k);

}  // namespace gs::ptx
