#include "cli/progress.hpp"

#include <algorithm>
#include <iostream>
#include <ostream>

#include <fmt/format.h>
#include <unistd.h>

namespace gs::cli {

namespace {
constexpr auto kFirstDrawAfter = std::chrono::milliseconds(300);
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
constexpr int kBarWidth = 30;
}  // namespace

std::string format_progress_bar(uint64_t done, uint64_t total, int width, const std::string& unit) {
  const uint64_t clamped = std::min(done, total);
  const int filled = total == 0 ? width : int((clamped * uint64_t(width)) / total);
  return fmt::format("[{}{}] {}/{} {}", std::string(size_t(filled), '#'), std::string(size_t(width - filled), ' '),
                     done, total, unit);
}

bool is_terminal_stderr(const std::ostream& err) { return &err == &std::cerr && ::isatty(STDERR_FILENO) == 1; }

ProgressBar::ProgressBar(std::ostream& err, bool enabled, std::string unit)
    : err_(err), enabled_(enabled), unit_(std::move(unit)), start_(Clock::now()), last_draw_(start_) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  if (now - start_ < kFirstDrawAfter) return;
  if (drawn_width_ > 0 && now - last_draw_ < kRedrawEvery) return;
  last_draw_ = now;
  const std::string bar = format_progress_bar(done, total, kBarWidth, unit_);
  // Pad over a longer previous line (the counts can only grow, but be safe).
  const size_t pad = drawn_width_ > bar.size() ? drawn_width_ - bar.size() : 0;
  err_ << '\r' << bar << std::string(pad, ' ') << std::flush;
  drawn_width_ = std::max(drawn_width_, bar.size());
}

void ProgressBar::finish() {
  if (drawn_width_ == 0) return;
  err_ << '\r' << std::string(drawn_width_, ' ') << '\r' << std::flush;
  drawn_width_ = 0;
}

}  // namespace gs::cli
