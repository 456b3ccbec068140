// Which PTX line each SASS instruction came from, read straight out of the cubin that
// `ptxas -lineinfo` writes: no disassembler needed for the links, only for the mnemonics.
//
// With -lineinfo and no .loc directives in the PTX, ptxas 13.0 writes a section
// `.nv_debug_line_sass`: a DWARF (version 2) line-number program whose rows are
// (SASS byte address within the kernel's .text section, line of the PTX file it was given).
// It also writes `.nv_debug_ptx_txt`, the PTX it read with comments blanked and one NUL per
// line, which is how we know the lines are the input's own numbering (checked on the Hopper
// step: its 16 st.global lines 103..118 are the rows of its 16 STG addresses, in order).
// When the PTX carries `.loc` directives, the same rows appear in `.debug_line` instead; both
// are read, `.nv_debug_line_sass` first.
//
//   CubinLines lines = read_cubin_lines(cubin_bytes);
//   uint32_t ptx_line = ptx_line_at(lines.rows, 0x490);  // 0: no row covers the address
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gs::ptx {

// One row of the line table: from `address` up to the next row's address, the code came
// from PTX line `line` (1-based).
struct SassLineRow {
  uint32_t address = 0;
  uint32_t line = 0;
};

struct CubinLines {
  std::string line_section;  // the section the rows came from; empty when there is none
  uint64_t text_size = 0;    // bytes of code in the kernel's .text.<name> section
  std::vector<SassLineRow> rows;  // sorted by address; end-of-sequence rows dropped
};

// Throws std::runtime_error naming what is wrong when `cubin` is not a 64-bit little-endian
// ELF file or a section lies outside it. A cubin without line information gives no rows.
CubinLines read_cubin_lines(std::string_view cubin);

// Decodes one DWARF (v2 to v4) line-number program (a whole .debug_line-style section).
// Throws std::runtime_error on a truncated or malformed program.
std::vector<SassLineRow> decode_line_program(std::string_view section);

// The PTX line of the code at `address`, or 0 when no row covers it.
uint32_t ptx_line_at(const std::vector<SassLineRow>& rows, uint32_t address);

}  // namespace gs::ptx
