#include "gui/core/jobs.hpp"

#include <exception>

namespace gs::gui {

void JobContext::complete(Completion c) {
  std::lock_guard<std::mutex> lock(mutex_);
  completions_.push_back(std::move(c));
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
