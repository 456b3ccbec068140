// GPU jobs: every piece of GPU work gemmscope does runs in a forked child (cuda::run_isolated),
// so a kernel that deadlocks, traps or faults costs one child, and the next job starts with a
// fresh CUDA context.
//
//   run::GpuJobResult r = run::run_gpu_job("bench hopper_tma_wgmma_64", [&](run::GpuJobContext& job) {
//     cuda::Context context(0);
//     job.step("launching");
//     job.wait_for_kernel("hopper_tma_wgmma_64", 10s, [&] { launch(...); context.synchronize(); });
//     return nlohmann::json{{"ms", 1.5}};
//   });
//   if (!r.ok()) std::cerr << r.error;   // "kernel 'hopper_tma_wgmma_64' did not finish in 10 s: ..."
//
// THE FORK RULE (engine/cuda/isolation.hpp): the process that calls run_gpu_job must never call
// CUDA itself, not even to ask whether a GPU exists. run_gpu_job asks inside the child and
// reports GpuStatus::no_driver / no_device with the driver layer's reason.
//
// Two clocks guard a job:
//  * the kernel watchdog: wait_for_kernel() arms a thread in the child for `limit`; if the wait
//    has not returned by then the child writes why to a side pipe and ends itself. The parent
//    reports "kernel 'X' did not finish in 10 s: likely an mbarrier deadlock ...". Setting up
//    (context creation, JIT, uploads, cuBLAS) does not count against it;
//  * the backstop: the whole child is killed after GpuJobLimits::total(); the message then names
//    the last step the child reported (GpuJobContext::step), e.g. "creating the CUDA context".
//
// The child's result travels as CBOR (nlohmann::json::to_cbor), so binary buffers
// (nlohmann::json::binary) come back without text encoding.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/cuda/device.hpp"

namespace gs::run {

enum class GpuStatus {
  ok,         // the job returned a result
  no_driver,  // no usable CUDA driver (no libcuda, cuInit failed, built without the toolkit)
  no_device,  // a driver, but it sees no GPU
  timed_out,  // a kernel (or the whole job) did not finish in time: the child was ended
  failed,     // the job threw: a CUDA error (fault, trap, bad launch), a JIT error, ...
  crashed,    // the child died of a signal
};
// "ok", "no driver", "no device", "timed out", "failed", "crashed".
std::string_view gpu_status_name(GpuStatus status);

struct GpuJobResult {
  GpuStatus status = GpuStatus::failed;
  nlohmann::json value;   // what the job returned, when ok
  std::string error;      // one paragraph a learner can act on, when not ok
  std::string last_step;  // the last step the child reported; empty if none
  double wall_s = 0.0;    // fork to end of the child

  bool ok() const { return status == GpuStatus::ok; }
  // no_driver or no_device: the command line exits 3 for these.
  bool no_gpu() const { return status == GpuStatus::no_driver || status == GpuStatus::no_device; }
};

struct GpuJobLimits {
  // Everything but kernel waits: context creation, JIT, allocation, uploads, cuBLAS set-up,
  // and the CPU work the job does in the child (comparisons). Generous: only a stuck driver
  // call reaches it.
  std::chrono::milliseconds setup{120'000};
  // The sum of the limits the job passes to wait_for_kernel (added to setup for the backstop).
  std::chrono::milliseconds kernels{10'000};
  std::chrono::milliseconds total() const { return setup + kernels; }
};

struct GpuJobOptions {
  GpuJobLimits limits;
  // false: run the job in this very process (no fork). Only for one-shot command-line runs
  // under a profiler (ncu follows a plain process most reliably); a hang then ends the process
  // after the watchdog's message, and this process must never fork GPU jobs afterwards.
  bool isolate = true;
  // false: skip the driver and device check before the job. Only for tests of the job
  // machinery itself (the watchdog, the result transport), which need no GPU.
  bool require_driver = true;
};

class KernelWatchdog;

// Handed to the job inside the child.
class GpuJobContext {
 public:
  // side_fd: the write end of the side pipe; in_process: the job runs without a fork.
  GpuJobContext(int side_fd, bool in_process);
  ~GpuJobContext();
  GpuJobContext(const GpuJobContext&) = delete;
  GpuJobContext& operator=(const GpuJobContext&) = delete;

  // Tells the parent what the child is doing now ("JIT-compiling the PTX"). Cheap; keep the
  // number of steps small (tens, not thousands).
  void step(std::string_view what);

  // Runs `body` (typically: launch, then synchronize) under the kernel watchdog. If body has
  // not returned after `limit`, the child reports "kernel '<kernel>' did not finish in <limit>"
  // and ends itself; the parent's GpuJobResult is then timed_out with that message.
  void wait_for_kernel(std::string_view kernel, std::chrono::milliseconds limit, const std::function<void()>& body);

 private:
  int side_fd_;
  bool in_process_;
  std::unique_ptr<KernelWatchdog> watchdog_;
};

using GpuJob = std::function<nlohmann::json(GpuJobContext&)>;

// Runs `job` in a child (see the header comment). `what` names the job in messages
// ("bench hopper_tma_wgmma_64 4096x4096x4096"). Never throws for anything the child does;
// throws std::system_error only when pipe() or fork() fail.
GpuJobResult run_gpu_job(std::string_view what, const GpuJob& job, const GpuJobOptions& options = {});

// The message of a kernel that never finished, as the watchdog writes it:
// "kernel 'spin' did not finish in 10 s: likely an mbarrier deadlock (a phase that never
// completes: check the expect_tx byte count and the parity) or a loop that never ends; the
// model can show where (gemmscope sim ...)".
std::string kernel_hang_message(std::string_view kernel, std::chrono::milliseconds limit);

// "10 s", "2.5 s", "250 ms".
std::string format_duration(std::chrono::milliseconds duration);

// The GPUs, listed in a child. Throws nothing; status no_driver / no_device when none.
struct DeviceList {
  GpuJobResult job;
  std::vector<cuda::DeviceInfo> devices;  // empty unless job.ok()
};
DeviceList list_devices_isolated(const GpuJobOptions& options = {});

// DeviceInfo <-> JSON, for job results and reports: ordinal, name, cc "9.0", cc_major,
// cc_minor, sms, sm_clock_mhz, mem_clock_mhz, mem_bus_width, total_mem_bytes,
// max_smem_per_block_optin, l2_bytes, driver ("13.0"), driver_version (13000).
nlohmann::json device_json(const cuda::DeviceInfo& device);
cuda::DeviceInfo device_from_json(const nlohmann::json& j);
// 13000 -> "13.0"; 0 -> "none".
std::string driver_version_text(int version);

}  // namespace gs::run
