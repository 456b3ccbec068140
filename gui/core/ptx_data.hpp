// The PTX view's prepared data: every line of the emitted text split into coloured tokens,
// each line's instruction and execution count, and which lines the playback position and the
// selection point at. Tokenizing happens once per loaded kernel (PtxPrepared); a frame only
// looks things up, so a PTX of thousands of lines stays cheap to draw.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;

// What a piece of a PTX line is, for its colour. Opcodes are split by the op table's family
// (ir::Family), folded into the groups a reader tells apart at a glance.
enum class PtxTokenKind : uint8_t {
  plain,            // punctuation, spaces, symbols such as gs_smem or tmap_A
  directive,        // .version .reg .shared .entry ... and type words after them
  label,            // L_kb:  and label operands
  predicate,        // @%p / @!%p guards
  op_alu,           // mov add setp cvt ...
  op_memory,        // ld st ldmatrix cp.async (non-bulk)
  op_tma,           // cp.async.bulk.tensor, prefetch.tensormap
  op_mbarrier,      // mbarrier.*
  op_mma,           // wgmma.* mma.sync tcgen05.*
  op_control,       // bra ret exit trap
  op_sync,          // bar.sync fence.* barrier.cluster elect.sync setmaxnreg
  reg,              // %name, %tid.x
  immediate,        // 42 0x3FFFF 0f3F800000 -1
  comment,          // // ... to the end of the line
  count_,
};
const char* ptx_token_kind_name(PtxTokenKind k);

struct PtxToken {
  uint16_t begin = 0;  // byte offset in the line
  uint16_t length = 0;
  PtxTokenKind kind = PtxTokenKind::plain;
};

// The opcode group of an op-table family.
PtxTokenKind kind_of_family(ir::Family f);
// The opcode group of a mnemonic ("mbarrier.try_wait.parity.shared::cta.b64" -> op_mbarrier),
// found in the op table by the longest spelling that prefixes it; op_alu when none does.
PtxTokenKind opcode_kind(std::string_view mnemonic);
// Splits one line into tokens covering it end to end (gaps are plain).
std::vector<PtxToken> tokenize_ptx_line(std::string_view line);

struct PtxLineInfo {
  uint32_t inst = kNone;        // instruction printed on the line
  uint32_t executions = 0;      // warp-instruction events of it in the trace
  std::vector<PtxToken> tokens;
};

struct PtxPrepared {
  std::vector<PtxLineInfo> lines;  // [line - 1]
  uint32_t instruction_lines = 0;  // lines that print an instruction (labels excluded)
  uint32_t executed_lines = 0;     // of those, executed at least once
  uint32_t max_line_chars = 0;
};
PtxPrepared prepare_ptx(const LoadedKernel& k);

// prepare_ptx of the kernel on screen, rebuilt only when the kernel changes.
const PtxPrepared& ptx_prepared(const std::shared_ptr<const LoadedKernel>& k);

// The lines the view marks at the current playback position.
struct PtxFocus {
  uint32_t current_inst = kNone;  // instruction of the event under the cursor
  uint32_t current_line = 0;
  uint32_t selected_inst = kNone;
  uint32_t selected_line = 0;
};
PtxFocus ptx_focus(AppState& app);

// The PTX view's own choices, kept in AppState so describe_ptx() reports them.
struct PtxViewOptions {
  bool follow = true;  // scroll to the cursor's instruction when it moves
};

// Which lines the view last brought into view, so it scrolls only when they change (and the
// reader may scroll freely in between). Reset when the kernel changes; the weak_ptr tells a
// new kernel apart from an old one that happened to reuse its address.
struct PtxRevealState {
  std::weak_ptr<const LoadedKernel> kernel;
  uint32_t shown_current = 0, shown_selected = 0;  // PTX lines, 0: none
};

// The hover text of a line: the op's summary from the op table, execution count, family.
std::string ptx_line_tooltip(const LoadedKernel& k, const PtxPrepared& p, uint32_t line);

}  // namespace gs::gui
