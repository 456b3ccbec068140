// The SASS view's data: the SASS of the kernel on screen (engine/ptx/sass.hpp), compiled by
// ptxas off the UI thread once per loaded kernel and kept with it, and which SASS
// instructions belong to the cursor's and the selected PTX line. The view shares the one
// selection: selecting a SASS instruction selects its PTX line (AppState::select_ptx_line),
// and the SASS of the selected PTX line is highlighted.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ptx/sass.hpp"
#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;

// The slot a kernel's listing lives in (LoadedKernel::derived): `listing` null while ptxas runs.
struct SassSlot {
  std::shared_ptr<const ptx::SassListing> listing;
};

// The listing of the kernel on screen; null before its job finished (or with no kernel).
std::shared_ptr<const ptx::SassListing> sass_listing(const AppState& app);
// The same for any loaded kernel: null until its listing is compiled.
std::shared_ptr<const ptx::SassListing> sass_listing_of(const LoadedKernel& k);
// Starts compiling the kernel on screen as a job, unless its listing is there or under way.
// Called by the view every frame: the first frame that shows the view starts it.
void request_sass(AppState& app);
// Compiles the kernel on screen now (headless runs and tests).
void compile_sass_now(AppState& app);

// The SASS instructions the view marks: indices into listing->instructions.
struct SassFocus {
  uint32_t current_line = 0, selected_line = 0;  // PTX lines (as the PTX view's focus)
  std::vector<size_t> current, selected;
};
SassFocus sass_focus(AppState& app);

// The rows of a highlighted group to bring into view in a listing showing `visible_rows` rows:
// the whole group when it fits (a wgmma's descriptor UMOVs and its HGMMA), else the PTX
// operation's own instruction (the first whose opcode is a signature op: HGMMA, UTMALDG, ...),
// else the group's first. Inclusive; `rows` sorted and not empty.
struct SassSpan {
  size_t first = 0, last = 0;
};
SassSpan sass_reveal_span(const ptx::SassListing& listing, const std::vector<size_t>& rows, size_t visible_rows);

// Selects the PTX line of listing->instructions[index]; false when it has none.
bool select_sass_instruction(AppState& app, size_t index);

// The PTX line the view last scrolled to, so it scrolls only when that changes.
struct SassRevealState {
  std::weak_ptr<const LoadedKernel> kernel;
  uint32_t shown_line = 0;
};

// What the view shows, for --state-json and the tests.
nlohmann::json describe_sass(AppState& app);

}  // namespace gs::gui
