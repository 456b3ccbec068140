// A progress bar for long model runs: `[#####     ] 12/64 CTAs` on stderr, redrawn in place.
//
// It draws only when the stream is the process's stderr and stderr is a terminal (pipes,
// files, CI logs and in-process tests get nothing), waits a moment before the first draw
// so short runs stay silent, redraws at most ten times a second, and erases itself at the
// end so the table or JSON that follows starts on a clean line.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace gs::cli {

// "[#####     ] 12/64 CTAs" with `width` cells between the brackets.
std::string format_progress_bar(uint64_t done, uint64_t total, int width, const std::string& unit);

// True when `err` is std::cerr and file descriptor 2 is a terminal.
bool is_terminal_stderr(const std::ostream& err);

class ProgressBar {
 public:
  ProgressBar(std::ostream& err, bool enabled, std::string unit = "CTAs");
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  bool enabled() const { return enabled_; }
  void update(uint64_t done, uint64_t total);
  // Erases the bar (if one was drawn). Safe to call more than once.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::ostream& err_;
  bool enabled_;
  std::string unit_;
  Clock::time_point start_;
  Clock::time_point last_draw_;
  size_t drawn_width_ = 0;  // characters on the line now; 0 when nothing is shown
};

}  // namespace gs::cli
