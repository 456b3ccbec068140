// Progress of long model runs on stderr, with an estimate of the time left.
//
// On a terminal (the stream is the process's stderr and stderr is a terminal) it is a bar,
// `[#####     ] 12/64 CTAs, about 1m 05s left`, redrawn in place at most ten times a second
// after a moment (short runs stay silent), and erased at the end so the table or JSON that
// follows starts on a clean line. Elsewhere (a file, a pipe, a CI log) it is one line every
// few seconds once a run has taken that long: `12/64 CTAs (18%), 5 s so far, about 22 s left`.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "run/run_time.hpp"

namespace gs::cli {

// "[#####     ] 12/64 CTAs" with `width` cells between the brackets.
std::string format_progress_bar(uint64_t done, uint64_t total, int width, const std::string& unit);

// True when `err` is std::cerr and file descriptor 2 is a terminal.
bool is_terminal_stderr(const std::ostream& err);

// "45 s", "1m 05s", "2h 03m" (run/run_time.hpp, which the app shares).
inline std::string format_duration(double seconds) { return run::duration_text(seconds); }
using run::seconds_left;

class ProgressBar {
 public:
  enum class Style { none, bar, lines };
  // line_every: how often a line is written in the lines style (a test makes it short).
  ProgressBar(std::ostream& err, Style style, std::string unit = "CTAs",
              std::chrono::milliseconds line_every = std::chrono::seconds(5));
  // bar when `enabled`, else none.
  ProgressBar(std::ostream& err, bool enabled, std::string unit = "CTAs")
      : ProgressBar(err, enabled ? Style::bar : Style::none, std::move(unit)) {}
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  bool enabled() const { return style_ != Style::none; }
  void update(uint64_t done, uint64_t total);
  // Erases the bar (if one was drawn). Safe to call more than once.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  void draw_bar(uint64_t done, uint64_t total, double elapsed);
  std::ostream& err_;
  Style style_;
  std::string unit_;
  std::chrono::milliseconds line_every_;
  Clock::time_point start_;
  Clock::time_point last_draw_;
  size_t drawn_width_ = 0;  // characters on the line now; 0 when nothing is shown
};

// A whole-grid run expected to take longer than this needs --allow-long.
using run::kLongRunSeconds;

// Stops a run (through the cancel flag it hands out) once a few seconds of it show that the
// whole would take longer than a limit, and says how long it would take.
class LongRunGate {
 public:
  // limit_seconds 0: no limit. threads: how many CTAs run at once (for an estimate made
  // before any has finished).
  // measure_for: how much of the run the estimate is made from.
  LongRunGate(double limit_seconds, uint32_t threads,
              std::chrono::milliseconds measure_for = std::chrono::seconds(2));
  const std::atomic<bool>* stop_flag() const { return &stop_; }
  void update(uint64_t done, uint64_t total);
  bool stopped() const { return stop_.load(); }
  const std::string& reason() const { return reason_; }

 private:
  double limit_;
  uint32_t threads_;
  std::chrono::milliseconds measure_for_;
  std::chrono::steady_clock::time_point start_;
  std::atomic<bool> stop_{false};
  std::string reason_;
};

}  // namespace gs::cli
