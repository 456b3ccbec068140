#include "gui/core/jobs.hpp"

#include <chrono>
#include <exception>

#include "run/run_time.hpp"

namespace gs::gui {

void JobContext::complete(Completion c) {
  std::lock_guard<std::mutex> lock(mutex_);
  completions_.push_back(std::move(c));
}

void JobContext::progress(uint64_t done_units, uint64_t total_units) {
  if (progress_since.load() == 0)
    progress_since = std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now().time_since_epoch())
                         .count();
  done = done_units;
  total = total_units;
}

void JobContext::set_status(std::string text) {
  std::lock_guard<std::mutex> lock(mutex_);
  status_ = std::move(text);
}

std::string JobContext::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

std::vector<Completion> JobContext::take_completions() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Completion> out;
  out.swap(completions_);
  return out;
}

Job::Job(JobKind kind, std::string name, std::function<void(JobContext&)> work,
         std::function<void(AppState&, const std::string&)> on_error)
    : kind_(kind), name_(std::move(name)), on_error_(std::move(on_error)) {
  thread_ = std::thread([this, work = std::move(work)] {
    try {
      work(context_);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      error_ = e.what();
      if (error_.empty()) error_ = "failed without a message";
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      error_ = "failed with an unknown exception";
    }
    finished_ = true;
  });
}

Job::~Job() {
  context_.cancel = true;
  if (thread_.joinable()) thread_.join();
}

double Job::fraction() const {
  const uint64_t total = context_.total.load();
  if (total == 0) return -1.0;
  return std::min(1.0, double(context_.done.load()) / double(total));
}

double Job::seconds_left() const {
  const uint64_t total = context_.total.load();
  const int64_t since = context_.progress_since.load();
  if (total == 0 || since == 0) return -1.0;
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  const double elapsed = double(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count() - since) * 1e-9;
  return run::seconds_left(context_.done.load(), total, elapsed);
}

std::vector<Completion> Job::take_completions() {
  std::vector<Completion> out = context_.take_completions();
  if (finished_.load()) {
    std::lock_guard<std::mutex> lock(error_mutex_);
    if (!error_.empty() && !error_delivered_ && on_error_) {
      error_delivered_ = true;
      out.push_back([cb = on_error_, msg = error_](AppState& app) { cb(app, msg); });
    }
  }
  return out;
}

}  // namespace gs::gui
