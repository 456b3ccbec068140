// The transport's prepared data: where the playback cursor is (event i of n, cycle, K
// iteration), the event under it in words, the keyboard shortcuts (one table shared by the
// key handling, the help overlay and the tests) and the actions they trigger.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "gui/core/playback.hpp"

namespace gs::gui {

struct AppState;

struct TransportInfo {
  uint32_t position = 0;
  uint32_t events = 0;
  uint64_t cycle = 0;
  uint64_t end_cycle = 0;
  // K iterations of the warp LoadedKernel::k_warp picks for the selection (warp 0 when none is
  // selected): passes of its K loops started so far, and in the whole CTA, counting the ones
  // fast-forward skipped (LoadedKernel::k_skips), of which k_fast_forwarded in all.
  uint16_t k_warp = kNoWarp;
  uint32_t k_iteration = 0;
  uint32_t k_iterations = 0;
  uint32_t k_fast_forwarded = 0;
  bool has_k_loop = false;
  // "K iteration 3 of 8 (warp 1.0)", warps named as in every view; with skips
  // "K iteration 130 of 256 (warp 0; 5–124 fast-forwarded)".
  std::string k_text;
  std::string event_text;     // the event under the cursor in words
};
TransportInfo transport_info(AppState& app);

// The event in words: "warp 0 issued mbarrier.try_wait.parity...", "TMA load of 8192 B into
// 0x0 completes on mbarrier #0". `numbering` (a snapshot at or after the event) numbers the
// barriers as the other views do; without it barriers are named by address.
std::string describe_event(const LoadedKernel& k, uint32_t event, const Snapshot* numbering = nullptr);


// Moves the cursor to the first event at or after a cycle (model::Cursor::jump_to_cycle).
void seek_to_cycle(AppState& app, uint64_t cycle);
// The first warp-instruction (where a freshly opened kernel starts) / the last event.
void seek_start(AppState& app);
void seek_end(AppState& app);
// Play/pause; playing from the last event starts over from the beginning.
void toggle_play(AppState& app);

enum class ShortcutKey : uint8_t { space, left, right, page_up, page_down, home, end, f1, question_mark };
enum class TransportAction : uint8_t { toggle_play, step_forward, step_backward, go_start, go_end, toggle_help };

struct Shortcut {
  ShortcutKey key;
  bool ctrl = false;
  bool shift = false;
  TransportAction action;
  StepUnit unit = StepUnit::instruction;  // for step_forward / step_backward
  const char* keys;                       // as shown: "Ctrl+Right"
  const char* description;
};
std::span<const Shortcut> transport_shortcuts();
// The shortcut bound to a key with these modifiers, or null.
const Shortcut* find_shortcut(ShortcutKey key, bool ctrl, bool shift);

// Performs a shortcut's action; toggle_help flips help_open. Returns false when a step had
// nowhere to go.
bool apply_shortcut(AppState& app, const Shortcut& s, bool& help_open);

}  // namespace gs::gui
