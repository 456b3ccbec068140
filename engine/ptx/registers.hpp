// What ptxas makes of a kernel's PTX, where the model needs it: the registers per thread (what
// the occupancy, the GUI's Schedule view and the timing model's co-resident CTAs, count against
// the SM's register file) and the SASS instructions each IR instruction became (from the line
// table of the cubin, engine/ptx/cubin_lines.hpp: no disassembler needed). The second tells the
// model which scalar ld.shared ptxas folded into one wider load (engine/model/decode.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/ir/kernel.hpp"
#include "engine/ptx/cubin_lines.hpp"

namespace gs::ptx {

// The target ptxas counts a kernel's registers for: the H100 JIT-compiles sm_80 PTX for sm_90;
// a later target (Blackwell) is its own.
ir::Arch occupancy_arch(const ir::Kernel& k);

struct RegisterCount {
  uint32_t registers = 0;  // per thread; 0: not known (why says so)
  std::string source;      // "ptxas -v for sm_90a", or why there is no count
};

struct CompiledKernel {
  RegisterCount registers;
  // [IR instruction] -> SASS instructions ptxas's line table gives its PTX line; empty when
  // not known (sass_source says why).
  std::vector<uint16_t> sass_per_inst;
  // [IR instruction] -> the index of its first SASS instruction in the kernel's code (kNoSass:
  // none): the order ptxas scheduled the instructions in (the model's loads take their place in
  // it, engine/model/decode.cpp, set_hoists). Empty when sass_per_inst is.
  std::vector<uint32_t> sass_first;
  static constexpr uint32_t kNoSass = ~0u;
  std::string sass_source;  // "ptxas -lineinfo for sm_90", or why there is no count
};

// ptxas -v -lineinfo on the kernel's PTX for occupancy_arch(k). Kept per PTX text for the life
// of the process (thread-safe), so a kernel asked about again costs no second run. No ptxas, or
// a ptxas that fails, gives 0 / empty with the reason; it never throws.
CompiledKernel compiled_kernel(const ir::Kernel& k);
RegisterCount kernel_registers(const ir::Kernel& k);

// SASS instructions per PTX line (index line - 1, lines 1..line_count) from a cubin's line
// rows: each row covers the 16-byte instructions from its address to the next row's (the last
// to text_size).
std::vector<uint16_t> sass_per_line(const std::vector<SassLineRow>& rows, uint64_t text_size,
                                    size_t line_count);

}  // namespace gs::ptx
