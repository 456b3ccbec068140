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

ProgressBar::ProgressBar(std::ostream& err, Style style, std::string unit, std::chrono::milliseconds line_every)
    : err_(err), style_(style), unit_(std::move(unit)), line_every_(line_every), start_(Clock::now()), last_draw_(start_) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(uint64_t done, uint64_t total) {
  if (style_ == Style::none) return;
  const Clock::time_point now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (style_ == Style::bar) {
    if (now - start_ < kFirstDrawAfter) return;
    if (drawn_width_ > 0 && now - last_draw_ < kRedrawEvery) return;
    last_draw_ = now;
    return draw_bar(done, total, elapsed);
  }
  if (now - last_draw_ < line_every_) return;
  last_draw_ = now;
  const double left = seconds_left(done, total, elapsed);
  err_ << fmt::format("{}/{} {} ({}%), {} so far, {}\n", done, total, unit_, total ? done * 100 / total : 100,
                      format_duration(elapsed), left < 0 ? "time left not known yet" : "about " + format_duration(left) + " left")
       << std::flush;
}

void ProgressBar::draw_bar(uint64_t done, uint64_t total, double elapsed) {
  const double left = seconds_left(done, total, elapsed);
  const std::string bar = format_progress_bar(done, total, kBarWidth, unit_) +
                          (left < 0 ? std::string() : ", about " + format_duration(left) + " left");
  // Pad over a longer previous line.
  const size_t pad = drawn_width_ > bar.size() ? drawn_width_ - bar.size() : 0;
  err_ << '\r' << bar << std::string(pad, ' ') << std::flush;
  drawn_width_ = std::max(drawn_width_, bar.size());
}

void ProgressBar::finish() {
  if (drawn_width_ == 0) return;
  err_ << '\r' << std::string(drawn_width_, ' ') << '\r' << std::flush;
  drawn_width_ = 0;
}

LongRunGate::LongRunGate(double limit_seconds, uint32_t threads, std::chrono::milliseconds measure_for)
    : limit_(limit_seconds),
      threads_(std::max(1u, threads)),
      measure_for_(measure_for),
      start_(std::chrono::steady_clock::now()) {}

void LongRunGate::update(uint64_t done, uint64_t total) {
  if (limit_ <= 0.0 || stop_.load() || done >= total) return;
  const auto since = std::chrono::steady_clock::now() - start_;
  if (since < measure_for_) return;
  const double elapsed = std::chrono::duration<double>(since).count();
  const double expected = run::expected_total_seconds(done, total, elapsed, threads_);
  if (expected <= limit_) return;
  reason_ = fmt::format("this whole-grid run of {} CTAs would take {} {} on {} thread{} ({} CTAs done in {})", total,
                        done > 0 ? "about" : "at least", format_duration(expected), threads_, threads_ == 1 ? "" : "s",
                        done, format_duration(elapsed));
  stop_ = true;
}

}  // namespace gs::cli
