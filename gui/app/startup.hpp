// What `gemmscope gui` decides before a window opens and after it closes: the options' ranges,
// the first kernel to open (the command line's, else the last one used, else the ladder's
// first step), and what the app remembers for next time. run_app (app.cpp) owns the window and
// the frame loop; these own the rest.
#pragma once

#include <iosfwd>
#include <array>
#include <optional>
#include <string>

#include "gui/app/app.hpp"

namespace gs::gui {

// 0 when the sizes and counts are in range; otherwise 2, after naming the bad value on err.
int check_app_options(const AppOptions& o, std::ostream& err);

// The request to open first. A kernel, shape or mistake named on the command line that does not
// fit is a usage error, reported on err (nullopt) before any window opens; a stale kernel in
// the settings falls back to the ladder's first step, and a stale shape to the example shape
// (saying why on settings_warnings).
std::optional<run::SimRequest> first_request(const AppOptions& o, const Settings& settings, std::ostream& err,
                                             std::string* settings_warnings = nullptr);

// The timeline to show: --import-timeline's file, or a timeline document given to --import
// (taken out of o.import_json). It is read and shown before the first kernel opens, and when
// --kernel names no other kernel and no shape is given, the first kernel is the recorded one at
// its shape (o.kernel_id, o.shape and *cta are set), so the playback cursor runs through it.
// Headless, the model's side is made at once. A file that cannot be read is a problem; headless
// it is bad input, said on err with a result of 2.
int import_timeline_option(AppOptions& o, AppState& app, bool headless, std::ostream& err,
                           std::optional<std::array<uint32_t, 3>>& cta);

// A headless whole-grid run (`gui --whole-grid` with --screenshot, --state-json, ...) cannot be
// asked about, so it follows `sim`'s rule: expected (run::time_whole_grid, from runs of the traced
// CTA alone) to take more than `limit_seconds`, it is refused on err with 2; limit 0
// (--allow-long) or a run of one CTA: 0.
int refuse_long_run(const run::SimRequest& req, double limit_seconds, std::ostream& err);

// Imports the --import bench files into the throughput plot. A file that cannot be read, is not
// bench JSON or holds nothing to plot is a problem (the Problems view); headless it is also bad
// input, said on err with a result of 2 (0 otherwise).
int import_files(const AppOptions& o, AppState& app, bool headless, std::ostream& err);

// --sweep-param and --sweep-size against the first kernel: 0 when they fit (or there are none),
// else 2 after naming the bad value on err (a parameter the kernel does not declare, a value it
// does not take, more than the view's two parameters).
int check_sweep_option(const AppOptions& o, const run::SimRequest& first, std::ostream& err);
// Sets the Sweep view's choice from the options and, with parameters, runs the sweep: headless
// to its end on this thread (1 after saying why on err when it could not run), else as a job.
int sweep_option(const AppOptions& o, AppState& app, bool headless, std::ostream& err);

// What the Problems view would show, for a headless run: one line per problem on err, the
// model's own findings (hazards, a wrong result) counted in one line.
void report_problems(const AppState& app, std::ostream& err);

// Saves the play speed and the open kernel's id and shape into the settings (interactive runs
// with a config directory only); a failure is reported on err.
void remember_session(AppState& app, std::ostream& err);

}  // namespace gs::gui
