#include "run/gpu_job.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "engine/cuda/driver.hpp"
#include "engine/cuda/isolation.hpp"

namespace gs::run {

namespace {

using Clock = std::chrono::steady_clock;

// A child whose watchdog fired leaves with this status (isolated jobs), after writing the
// hang record. In-process jobs leave with 1, the command line's "failed result".
constexpr int kWatchdogExitIsolated = 97;
constexpr int kWatchdogExitInProcess = 1;

// Side-pipe records are one line each: a kind letter, then text. 'S' = a step, 'H' = a hang.
void write_record(int fd, char kind, std::string_view text) {
  if (fd < 0) return;
  std::string line(1, kind);
  line.append(text.substr(0, 600));
  for (char& ch : line)
    if (ch == '\n' || ch == '\r') ch = ' ';
  line += '\n';
  // The write end is non-blocking: a full pipe drops the record instead of stalling the job.
  (void)!write(fd, line.data(), line.size());
}

struct SideRecords {
  std::string last_step;
  std::string hang;
};

SideRecords read_records(int fd) {
  std::string text;
  char buffer[4096];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, size_t(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EOF, EAGAIN (a stuck child still holds the write end) or an error
    }
  }
  SideRecords records;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line[0] == 'S') records.last_step = std::string(line.substr(1));
    if (!line.empty() && line[0] == 'H') records.hang = std::string(line.substr(1));
    start = end + 1;
  }
  return records;
}

std::string while_step(const std::string& step) { return step.empty() ? std::string() : " (while " + step + ")"; }

// In the child: the driver, the GPU count, then the job. A missing driver is a result, not an
// error, so the parent can tell "no GPU here" (exit 3) from "the job failed" (exit 1).
nlohmann::json run_child(const GpuJob& job, GpuJobContext& context, bool require_driver) {
  if (!require_driver) return {{"gs_status", "ok"}, {"value", job(context)}};
  context.step("opening the CUDA driver");
  cuda::Driver& driver = cuda::Driver::instance();
  if (!driver.available()) return {{"gs_status", "no_driver"}, {"reason", driver.unavailable_reason()}};
  try {
    context.step("listing the GPUs");
    if (cuda::list_devices().empty())
      return {{"gs_status", "no_device"},
              {"reason", fmt::format("the CUDA driver ({}) sees no GPU", driver_version_text(driver.driver_version()))}};
    nlohmann::json value = job(context);
    return {{"gs_status", "ok"}, {"value", std::move(value)}};
  } catch (const cuda::DriverUnavailable& e) {
    return {{"gs_status", "no_driver"}, {"reason", e.what()}};
  }
}

// Turns the child's decoded answer into a result.
void interpret_answer(const nlohmann::json& answer, GpuJobResult& out) {
  const std::string status = answer.value("gs_status", std::string());
  if (status == "ok") {
    out.status = GpuStatus::ok;
    out.value = answer.contains("value") ? answer["value"] : nlohmann::json();
  } else if (status == "no_driver") {
    out.status = GpuStatus::no_driver;
    out.error = "no CUDA driver found: " + answer.value("reason", std::string("(no reason given)"));
  } else if (status == "no_device") {
    out.status = GpuStatus::no_device;
    out.error = "no CUDA device found: " + answer.value("reason", std::string("(no reason given)"));
  } else {
    out.status = GpuStatus::failed;
    out.error = "the GPU job answered something unexpected: " + answer.dump().substr(0, 200);
  }
}

}  // namespace

// The watchdog thread of a child: sleeps until armed, then until the deadline or disarm().
class KernelWatchdog {
 public:
  KernelWatchdog(int fd, int exit_code) : fd_(fd), exit_code_(exit_code), thread_([this] { loop(); }) {}
  ~KernelWatchdog() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void arm(std::chrono::milliseconds limit, std::string message) {
    {
      std::lock_guard lock(mutex_);
      armed_ = true;
      deadline_ = Clock::now() + limit;
      message_ = std::move(message);
    }
    wake_.notify_all();
  }
  void disarm() {
    std::lock_guard lock(mutex_);
    armed_ = false;
  }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      if (!armed_) {
        wake_.wait(lock, [this] { return stop_ || armed_; });
        continue;
      }
      const Clock::time_point deadline = deadline_;
      wake_.wait_until(lock, deadline, [this, deadline] { return stop_ || !armed_ || deadline_ != deadline; });
      if (!stop_ && armed_ && deadline_ == deadline && Clock::now() >= deadline) {
        write_record(fd_, 'H', message_);
        if (exit_code_ == kWatchdogExitInProcess) {
          std::fprintf(stderr, "gemmscope: %s\n", message_.c_str());
          std::fflush(stderr);
        }
        _exit(exit_code_);  // the kernel is stuck: the process (and its context) must go
      }
    }
  }

  int fd_;
  int exit_code_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool armed_ = false, stop_ = false;
  Clock::time_point deadline_{};
  std::string message_;
  std::thread thread_;  // last: starts after every other member exists
};

std::string_view gpu_status_name(GpuStatus status) {
  switch (status) {
    case GpuStatus::ok: return "ok";
    case GpuStatus::no_driver: return "no driver";
    case GpuStatus::no_device: return "no device";
    case GpuStatus::timed_out: return "timed out";
    case GpuStatus::failed: return "failed";
    case GpuStatus::crashed: return "crashed";
  }
  return "?";
}

std::string format_duration(std::chrono::milliseconds duration) {
  const long long ms = duration.count();
  if (ms < 1000) return fmt::format("{} ms", ms);
  if (ms % 1000 == 0) return fmt::format("{} s", ms / 1000);
  return fmt::format("{:.1f} s", double(ms) / 1000.0);
}

std::string kernel_hang_message(std::string_view kernel, std::chrono::milliseconds limit) {
  return fmt::format(
      "kernel '{}' did not finish in {}: likely an mbarrier deadlock (a phase that never completes: an "
      "expect_tx byte count that never arrives, or a wait on the wrong parity) or a loop that never ends; "
      "the model can show where (gemmscope sim {} ...)",
      kernel, format_duration(limit), kernel);
}

std::string driver_version_text(int version) {
  if (version <= 0) return "none";
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

GpuJobContext::GpuJobContext(int side_fd, bool in_process) : side_fd_(side_fd), in_process_(in_process) {}
GpuJobContext::~GpuJobContext() = default;

void GpuJobContext::step(std::string_view what) { write_record(side_fd_, 'S', what); }

void GpuJobContext::wait_for_kernel(std::string_view kernel, std::chrono::milliseconds limit,
                                    const std::function<void()>& body) {
  if (!watchdog_) {
    // A job running in-process (GpuJobOptions::isolate = false) has no parent to explain a
    // hang, so its watchdog prints the message itself and exits with the CLI's "failed" code.
    watchdog_ = std::make_unique<KernelWatchdog>(side_fd_, in_process_ ? kWatchdogExitInProcess : kWatchdogExitIsolated);
  }
  step(fmt::format("waiting for kernel '{}' (limit {})", kernel, format_duration(limit)));
  watchdog_->arm(limit, kernel_hang_message(kernel, limit));
  try {
    body();
  } catch (...) {
    watchdog_->disarm();
    throw;
  }
  watchdog_->disarm();
  step(fmt::format("kernel '{}' finished", kernel));
}

GpuJobResult run_gpu_job(std::string_view what, const GpuJob& job, const GpuJobOptions& options) {
  const std::string name(what);
  GpuJobResult out;
  if (options.isolate && cuda::Driver::cuda_initialised()) {
    out.status = GpuStatus::failed;
    out.error = name +
                " cannot run: this process has already initialised CUDA, and CUDA does not work in children "
                "forked after that (the fork rule, engine/cuda/isolation.hpp). Run every GPU call through "
                "run_gpu_job";
    return out;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::system_error(errno, std::generic_category(), "run_gpu_job(" + name + "): pipe2");

  if (!options.isolate) {
    const Clock::time_point start = Clock::now();
    try {
      GpuJobContext context(fds[1], /*in_process=*/true);
      interpret_answer(run_child(job, context, options.require_driver), out);
    } catch (const std::exception& e) {
      out.status = GpuStatus::failed;
      out.error = name + " failed: " + e.what();
    }
    close(fds[1]);
    out.last_step = read_records(fds[0]).last_step;
    close(fds[0]);
    if (out.status == GpuStatus::failed) out.error += while_step(out.last_step);
    out.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    return out;
  }

  const int side_write = fds[1];
  const cuda::ChildResult r = cuda::run_isolated(
      [&job, side_write, require_driver = options.require_driver]() -> std::string {
        GpuJobContext context(side_write, /*in_process=*/false);
        const std::vector<std::uint8_t> cbor = nlohmann::json::to_cbor(run_child(job, context, require_driver));
        return std::string(cbor.begin(), cbor.end());
      },
      options.limits.total(), name);
  close(fds[1]);
  const SideRecords records = read_records(fds[0]);
  close(fds[0]);

  out.wall_s = r.wall_s;
  out.last_step = records.last_step;
  if (!records.hang.empty()) {
    out.status = GpuStatus::timed_out;
    out.error = records.hang;
    return out;
  }
  switch (r.status) {
    case cuda::ChildResult::Status::ok:
      try {
        interpret_answer(nlohmann::json::from_cbor(r.payload), out);
      } catch (const nlohmann::json::exception& e) {
        out.status = GpuStatus::failed;
        out.error = name + " returned a result that could not be read (" + e.what() + ")";
      }
      return out;
    case cuda::ChildResult::Status::timed_out:
      out.status = GpuStatus::timed_out;
      out.error = fmt::format(
          "{} did not finish in {} and was killed{}. {}", name, format_duration(options.limits.total()),
          out.last_step.empty() ? std::string() : "; its last step was " + out.last_step,
          out.last_step.find("waiting for kernel") != std::string::npos
              ? "A kernel that never finishes is usually waiting on an mbarrier phase that never completes; the "
                "model can show where"
              : "A driver call that never returns (context creation, JIT) points at the driver or the GPU's state: "
                "check nvidia-smi");
      return out;
    case cuda::ChildResult::Status::crashed:
      out.status = GpuStatus::crashed;
      out.error = r.error + while_step(out.last_step);
      return out;
    case cuda::ChildResult::Status::failed:
      out.status = GpuStatus::failed;
      out.error = r.error + while_step(out.last_step);
      return out;
  }
  return out;
}

nlohmann::json device_json(const cuda::DeviceInfo& d) {
  return {{"ordinal", d.ordinal},
          {"name", d.name},
          {"cc", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
          {"cc_major", d.cc_major},
          {"cc_minor", d.cc_minor},
          {"sms", d.sms},
          {"sm_clock_mhz", d.sm_clock_khz / 1000},
          {"mem_clock_mhz", d.mem_clock_khz / 1000},
          {"mem_bus_width", d.mem_bus_width},
          {"total_mem_bytes", d.total_mem},
          {"max_smem_per_block_optin", d.max_smem_per_block_optin},
          {"l2_bytes", d.l2_bytes},
          {"driver", driver_version_text(d.driver_version)},
          {"driver_version", d.driver_version}};
}

cuda::DeviceInfo device_from_json(const nlohmann::json& j) {
  cuda::DeviceInfo d;
  d.ordinal = j.value("ordinal", 0);
  d.name = j.value("name", std::string());
  d.cc_major = j.value("cc_major", 0);
  d.cc_minor = j.value("cc_minor", 0);
  d.sms = j.value("sms", 0);
  d.sm_clock_khz = j.value("sm_clock_mhz", 0) * 1000;
  d.mem_clock_khz = j.value("mem_clock_mhz", 0) * 1000;
  d.mem_bus_width = j.value("mem_bus_width", 0);
  d.total_mem = j.value("total_mem_bytes", std::size_t{0});
  d.max_smem_per_block_optin = j.value("max_smem_per_block_optin", 0);
  d.l2_bytes = j.value("l2_bytes", 0);
  d.driver_version = j.value("driver_version", 0);
  return d;
}

DeviceList list_devices_isolated(const GpuJobOptions& options) {
  DeviceList list;
  list.job = run_gpu_job(
      "listing the GPUs",
      [](GpuJobContext&) {
        nlohmann::json devices = nlohmann::json::array();
        for (const cuda::DeviceInfo& d : cuda::list_devices()) devices.push_back(device_json(d));
        return devices;
      },
      options);
  if (list.job.ok())
    for (const nlohmann::json& d : list.job.value) list.devices.push_back(device_from_json(d));
  return list;
}

}  // namespace gs::run
