// The Source view's prepared data: the kernel's own C++ (built into the binary, kernels/
// sources.hpp) with syntax colours, the instructions each line recorded (ir::Inst::src) and
// how often they ran in the trace, and which lines the playback position and the selection
// point at. A kernel may span several files (a step and kernels/hopper_parts.cpp): the view
// shows the file of the current instruction unless the learner pins another.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;

// What a piece of a C++ line is, for its colour: a small tokenizer of our own (no compiler).
enum class CppTokenKind : uint8_t {
  plain,         // identifiers, punctuation, spaces
  keyword,       // if for return auto const namespace ...
  type,          // uint32_t Reg Builder std::... words ending in _t
  string,        // "..." and '...'
  comment,       // // ... and /* ... */
  number,        // 42 0x3FFFF 1.5f 1'000
  preprocessor,  // #include ...
  call,          // a name followed by '(': b.mbarrier_wait(
  count_,
};
const char* cpp_token_kind_name(CppTokenKind k);

struct CppToken {
  uint16_t begin = 0;  // byte offset in the line
  uint16_t length = 0;
  CppTokenKind kind = CppTokenKind::plain;
};

// Carries a /* comment */ from one line to the next.
struct CppLexState {
  bool in_block_comment = false;
};
// Splits one line into tokens covering it end to end.
std::vector<CppToken> tokenize_cpp_line(std::string_view line, CppLexState& state);

struct SourceLineInfo {
  std::vector<uint32_t> insts;  // instructions this line recorded, in program order
  uint32_t executions = 0;      // warp-instruction events of those instructions in the trace
  std::vector<CppToken> tokens;
};

struct SourceFileData {
  std::string path;                    // "kernels/11_hopper_tma_wgmma_64.cpp"
  std::vector<std::string_view> text;  // [line - 1], views into the built-in source
  std::vector<SourceLineInfo> lines;   // [line - 1]
  uint32_t max_line_chars = 0;
  uint32_t recording_lines = 0;  // lines that recorded at least one instruction
  uint32_t executed_lines = 0;   // of those, executed at least once
};

struct SourcePrepared {
  std::vector<SourceFileData> files;  // [ir::Kernel::source_files index]; empty text when not built in
};
SourcePrepared prepare_source(const LoadedKernel& k);
// prepare_source of the kernel on screen, rebuilt only when the kernel changes.
const SourcePrepared& source_prepared(const std::shared_ptr<const LoadedKernel>& k);

struct SourcePlace {
  uint32_t file = kNone;  // index into SourcePrepared::files
  uint32_t line = 0;      // 1-based, 0: none
  friend bool operator==(const SourcePlace&, const SourcePlace&) = default;
};

// The lines the view marks at the current playback position, and the file it shows.
struct SourceFocus {
  uint32_t current_inst = kNone;
  SourcePlace current;
  uint32_t selected_inst = kNone;
  SourcePlace selected;
  uint32_t shown_file = kNone;  // the pinned file, else the current's, else the selected's, else 0
};
SourceFocus source_focus(AppState& app);

// A click on a source line: selects the one of its instructions that executes next after the
// cursor and jumps there (as a click in the PTX view does); a line that recorded nothing
// selects nothing. The PTX view then shows that instruction's line: one selection.
void select_source_line(AppState& app, uint32_t file, uint32_t line);

// The view's own choices, kept in AppState so describe_source() reports them.
struct SourceViewOptions {
  bool follow = true;           // scroll to the cursor's line when it moves
  uint32_t pinned_file = kNone; // a file the learner picked; kNone: follow the instruction
};

// What the view last scrolled to (as PtxRevealState).
struct SourceRevealState {
  std::weak_ptr<const LoadedKernel> kernel;
  SourcePlace shown_current, shown_selected;
  uint32_t shown_file = kNone;
};

// The hover text of a line: its instructions, how often they ran, what a click does.
std::string source_line_tooltip(const LoadedKernel& k, const SourceFileData& f, uint32_t line);

}  // namespace gs::gui
