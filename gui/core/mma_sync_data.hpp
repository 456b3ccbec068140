// The running kernel's mma.sync at the playback cursor, for the fragments view's m16n8k16
// A, B and C maps: the instruction's own registers (from the IR), each lane's values of them
// as the model recorded them (register writes), and where the fragment lies in C: the traced
// CTA's stores of the D registers (Trace::c_writes) give each D element's (row, col) of C,
// so A's row r is C's row of D's row r and B's column n is C's column of D's column n. Nothing
// here knows which kernel runs; a kernel without mma.sync gets valid = false.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "gui/core/fragments_data.hpp"
#include "gui/core/session.hpp"

namespace gs::gui {

struct MmaSyncOperand {
  static constexpr uint32_t kMaxRegs = 4;
  uint32_t count = 0;                         // registers: A 4, B 2, C 4, D 4
  std::array<uint32_t, kMaxRegs> regs{};      // register ids
  std::array<std::array<uint32_t, kMaxRegs>, 32> bits{};  // [lane][register] its 32 bits
  std::array<uint32_t, 32> known{};           // [lane] bit r: register r has a recorded value
};

struct RunningMmaSync {
  bool valid = false;
  std::string note;          // why there is none
  uint32_t event = kNone;    // the warp_inst event of the mma.sync
  uint32_t inst = kNone;
  uint16_t warp = kNoWarp;
  // Values at the mma: A, B and C as it read them (before its own writes), D as it wrote them.
  MmaSyncOperand a, b, c, d;
  // D element (row, col) of the fragment -> C's (row, col): -1 where the traced CTA never
  // stored that register of that lane after this mma (the value went elsewhere first).
  std::array<std::array<int, 8>, 16> c_row{}, c_col{};
  int rows_from = -1, cols_from = -1;  // C's first row / column of this fragment (-1: unknown)
  int tile_row0 = -1, tile_col0 = -1;  // the traced CTA's tile origin in C (lowest row/col it stored)
};

// The latest mma.sync at or before `position`, of `warp` (or of any warp: kNoWarp).
RunningMmaSync running_mma_sync(const LoadedKernel& k, uint32_t position, uint16_t warp = kNoWarp);

enum class MmaOperand : uint8_t { a, b, c };
// The value lane `lane`'s element `value` of a fragment map holds at the mma, as text
// ("%r12 hi = 1.5"; C maps show "C 2 -> D 3.5"); "" when the value is not recorded.
std::string mma_sync_value_text(const LoadedKernel& k, const RunningMmaSync& m, MmaOperand op, uint32_t lane,
                                uint32_t value);
// The same value as a number for the cell (A/B: bf16, C/D: f32 of D); nullopt if unknown.
std::optional<float> mma_sync_value(const RunningMmaSync& m, MmaOperand op, uint32_t lane, uint32_t value);
// "mma.sync of warp 2 at event 812: rows 32..47, columns 8..15 of C (tile rows 32.., cols 8..)".
std::string mma_sync_place_text(const RunningMmaSync& m);

nlohmann::json mma_sync_json(const LoadedKernel& k, const RunningMmaSync& m);

// The view's running mma between frames (reading 14 registers of 32 lanes back from the
// cursor is too slow to repeat every frame), keyed on the kernel, the position and the warp.
struct MmaSyncCache {
  std::weak_ptr<const LoadedKernel> kernel;
  uint32_t position = kNone;
  uint16_t warp = kNoWarp;
  RunningMmaSync value;
};
const RunningMmaSync& cached_running_mma_sync(MmaSyncCache& cache, const std::shared_ptr<const LoadedKernel>& k,
                                              uint32_t position, uint16_t warp);
// The fragment maps that show the running mma.sync, and which operand each is.
std::optional<MmaOperand> mma_operand_of_map(const FragmentViewOptions& o);

}  // namespace gs::gui
