// The SASS a kernel's PTX becomes, each instruction linked to the PTX line it came from.
//
// ptxas -v -lineinfo assembles the PTX into a cubin; the cubin's line table gives each SASS
// address its PTX line (engine/ptx/cubin_lines.hpp); nvdisasm (or cuobjdump) gives the
// instructions' text. ptxas's -v report (registers, spills, shared memory, stack) comes with
// it, and instructions on local memory (LDL/STL: spills) are flagged.
//
// ptxas's line table is exact for most instructions but gives the instructions it schedules
// as a group (HGMMA after a wgmma.fence, the SYNCS of an mbarrier wait) the line of a
// neighbour (on step 11: its four HGMMA carry the lines of the add.u32 and the descriptor
// adds around them). For a few SASS opcodes whose PTX origin is unambiguous (kSignatureOps)
// the link is then corrected to a PTX line of that operation, and marked as such.
//
//   SassListing s = compile_sass(module.text, ir::Arch::sm_90a);
//   if (s.ok()) for (auto& i : s.instructions) print(i.address, i.text, i.ptx_line);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/types.hpp"
#include "engine/ptx/cubin_lines.hpp"

namespace gs::ptx {

// ptxas -v's resource report for the kernel ("Used 58 registers, used 1 barriers, 16392 bytes
// smem", "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads").
struct PtxasReport {
  bool found = false;  // the log held a report
  uint32_t registers = 0, barriers = 0;
  // smem_bytes: static shared memory only (ptxas does not see .extern dynamic shared memory).
  uint64_t smem_bytes = 0, stack_bytes = 0, spill_store_bytes = 0, spill_load_bytes = 0;
  bool spills() const { return spill_store_bytes + spill_load_bytes > 0; }
};
PtxasReport parse_ptxas_report(std::string_view log);

// How a SASS instruction got its PTX line.
enum class LineLink {
  none,          // no row of the line table covers it
  line_table,    // ptxas's own line table
  opcode_match,  // corrected: the opcode names its PTX operation (see above)
};
std::string_view line_link_name(LineLink link);

struct SassInstruction {
  uint32_t address = 0;   // byte offset in the kernel's code
  std::string text;       // "HGMMA.64x64x16.F32.BF16 R24, gdesc[UR4], RZ, !UPT, gsb0" (no ';')
  std::string opcode;     // "HGMMA.64x64x16.F32.BF16": the first word after any predicate
  uint32_t ptx_line = 0;  // 1-based line of the PTX given to compile_sass; 0 when unknown
  LineLink link = LineLink::none;
  bool local_memory = false;  // LDL/STL: registers spilled to local memory (or a local array)
};

enum class SassStatus {
  ok,
  no_ptxas,             // the toolkit is missing: message says what to install
  ptxas_failed,         // ptxas rejected the PTX: ptxas_log says why
  no_disassembler,      // ptxas ran (report and line rows are there) but no nvdisasm/cuobjdump
  disassembler_failed,  // the disassembler ran and failed: disassembler_log says why
};

struct SassListing {
  SassStatus status = SassStatus::no_ptxas;
  std::string message;  // one sentence for the learner when status is not ok
  std::string arch;     // "sm_90a"
  std::string ptxas_command, ptxas_log;
  std::string disassembler_command, disassembler_log;
  PtxasReport report;
  CubinLines lines;                          // address -> PTX line, straight from the cubin
  std::vector<SassInstruction> instructions;  // in address order

  bool ok() const { return status == SassStatus::ok; }
  // Indices into `instructions` of those linked to PTX line `line`.
  std::vector<size_t> instructions_of_line(uint32_t line) const;
  size_t local_memory_count() const;
};

// The SASS operations whose PTX origin is unambiguous: a SASS opcode prefix ("HGMMA") and the
// PTX mnemonics that become it ("wgmma.mma_async").
struct SignatureOp {
  std::string_view sass_prefix;
  std::string_view ptx_prefix;
  std::string_view ptx_contains = {};  // also required in the PTX line ("" for none)
};
extern const std::vector<SignatureOp> kSignatureOps;

// Assembles and disassembles `ptx` for `target`. Never throws for a missing toolkit or a
// failing tool: the status and message say what happened.
SassListing compile_sass(const std::string& ptx, ir::Arch target);

// The instructions of nvdisasm's or cuobjdump -sass's listing: every "/*0040*/ TEXT ;" line.
std::vector<SassInstruction> parse_disassembly(std::string_view listing);

// Why a parsed listing is not the code of a cubin with `text_size` bytes of code (0: unknown):
// an instruction out of place, or too few or too many. Empty when it matches.
std::string listing_mismatch(const std::vector<SassInstruction>& instructions, uint64_t text_size);

// Gives each instruction its PTX line from `rows`, then corrects signature ops against the
// PTX text (see above).
void link_to_ptx(std::vector<SassInstruction>& instructions, const std::vector<SassLineRow>& rows,
                 std::string_view ptx);

}  // namespace gs::ptx
