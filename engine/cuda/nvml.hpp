// What the card says about itself while a benchmark runs: power, temperature, the SM clock the
// driver reports and why it holds the clock down, from NVML (libnvidia-ml.so.1), opened at run
// time like the driver. Absent without error where the library or the device is missing: a
// benchmark then says "not sampled" and why.
//
//   cuda::GpuSampler sampler(device);            // samples on a thread of its own
//   ... timed launches ...
//   cuda::GpuConditions held = cuda::summarize(sampler.stop());
//
// NVML's SM clock is not always the one the SMs hold: on our H100 it read 1980 MHz in every
// sample above 400 W while the SMs' own clock64 over %globaltimer counted 1.69-1.75 GHz
// (docs/results/2026-11-27-h100-probes); on the H200 at its 700 W power cap it fell to 1515-1725
// MHz, near the sustained clock probe's 1576 (docs/results/2026-12-02-device, call 3). It is
// recorded as "reported" and never used as the held clock. NVML's power is the average of the
// last second on Ampere and newer: run/gpu_bench.cpp keeps only samples taken a second or more
// into a run.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <atomic>
#include <thread>
#include <vector>

#include "engine/cuda/device.hpp"

namespace gs::cuda {

struct GpuSample {
  double t_ms = 0;            // since the sampler started
  double power_w = 0;         // board power
  uint32_t temp_c = 0;        // GPU temperature
  uint32_t sm_clock_mhz = 0;  // as the driver reports it (see above)
  uint64_t limits = 0;        // NVML's clock event reasons (clock_limit_names)
};

// What a run's samples say: medians and extremes, and every reason seen for a held-down clock.
struct GpuConditions {
  int samples = 0;
  double power_median_w = 0, power_max_w = 0;
  uint32_t temp_max_c = 0;
  uint32_t sm_clock_reported_median_mhz = 0, sm_clock_reported_min_mhz = 0;
  std::vector<std::string> limits;  // "power cap", "thermal slowdown", ... (clock_limit_names)
  std::string how;                  // when the samples were taken ("over the timed launches", ...)
};
GpuConditions summarize(const std::vector<GpuSample>& samples);

// NVML's clock event reason bits in words ("power cap", "hardware slowdown", ...); the idle bit
// and the bits for settings nobody here changes are left out.
std::vector<std::string> clock_limit_names(uint64_t reasons);

class Nvml {
 public:
  static const Nvml& instance();  // loads once; thread-safe
  bool available() const { return device_for_ != nullptr; }
  const std::string& unavailable_reason() const { return reason_; }
  // NVML's handle of the CUDA device at this PCI address (domain:bus:device), or nullptr with
  // `why` set.
  void* device(const DeviceInfo& info, std::string* why) const;
  std::optional<GpuSample> sample(void* device) const;

 private:
  Nvml();
  std::string reason_;
  void* library_ = nullptr;
  int (*device_for_)(const char*, void**) = nullptr;
  int (*power_)(void*, unsigned*) = nullptr;
  int (*temperature_)(void*, int, unsigned*) = nullptr;
  int (*clock_)(void*, int, unsigned*) = nullptr;
  int (*reasons_)(void*, unsigned long long*) = nullptr;
};

// Samples the device every `period` on a thread of its own from construction to stop() (or
// destruction). Without NVML it samples nothing, and why() says so.
class GpuSampler {
 public:
  explicit GpuSampler(const DeviceInfo& info, std::chrono::milliseconds period = std::chrono::milliseconds(10));
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;
  std::vector<GpuSample> stop();
  const std::string& why() const { return why_; }

 private:
  void take_sample();
  std::string why_;
  void* device_ = nullptr;
  std::chrono::steady_clock::time_point t0_;
  std::vector<GpuSample> samples_;
  std::atomic<bool> running_{false};
  std::thread thread_;
};

}  // namespace gs::cuda
