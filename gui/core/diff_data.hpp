// The Diff view's data: "what changed" (run/kernel_diff) for the kernel on screen, against
// the step before it, another kernel the learner picks, or itself with one of its mistakes
// switched on. Computed once per choice and kept until the kernel or the choice changes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/kernel_diff.hpp"

namespace gs::gui {

struct AppState;

enum class DiffAgainst : uint8_t { previous_step, other_kernel, mistake };
const char* diff_against_name(DiffAgainst a);

struct DiffViewOptions {
  DiffAgainst against = DiffAgainst::previous_step;
  std::string other;    // the other kernel's id (other_kernel)
  std::string mistake;  // the mistake's name (mistake)
  bool show_ptx = false;  // the PTX diff instead of the source diff
  bool changes_only = true;  // unchanged lines folded away, a few kept around each change
};

struct DiffPrepared {
  std::string key;    // the kernel and choice it was made for
  std::string error;  // why there is no diff (the first step has no step before it, ...)
  run::KernelDiff diff;
};

// The diff for the kernel on screen and the view's options, computed when they change.
const DiffPrepared& diff_prepared(AppState& app);

// A row of the side-by-side display: a run of removed lines and the run of added lines that
// replaces it share rows (left and right), unchanged lines sit on both sides, and with a
// context a stretch of unchanged lines far from any change is one fold row.
struct SideBySideRow {
  run::DiffKind kind = run::DiffKind::same;  // same, or a change (removed/added on either side)
  int32_t left = -1, right = -1;             // 0-based lines, -1: nothing on that side
  uint32_t folded = 0;                       // > 0: a fold of this many unchanged lines
};
std::vector<SideBySideRow> side_by_side(const run::TextDiff& d, int context);

// A side of a diff in the state JSON: {left, right (the titles), removed, added}.
nlohmann::json diff_counts_json(const run::TextDiff& t);

}  // namespace gs::gui
