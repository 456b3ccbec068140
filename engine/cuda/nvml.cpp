// gs::cuda::Nvml: dlopen("libnvidia-ml.so.1") and the five queries a benchmark samples.
#include "engine/cuda/nvml.hpp"

#include <dlfcn.h>

#include <algorithm>

#include <fmt/format.h>

namespace gs::cuda {

namespace {

// NVML's C API (nvml.h, not in the CUDA toolkit we build with): every call returns
// nvmlReturn_t, 0 for success; a device is an opaque pointer.
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;         // nvmlClockType_t NVML_CLOCK_SM
constexpr int kNvmlTemperatureGpu = 0;  // nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU

// nvmlClocksEventReasons (formerly ...ThrottleReasons): the bits a benchmark cares about.
struct LimitBit {
  uint64_t bit;
  const char* name;
};
constexpr LimitBit kLimitBits[] = {
    {0x4, "power cap"},                  // SwPowerCap: the board's power limit
    {0x8, "hardware slowdown"},          // HwSlowdown: power brake or temperature, by hardware
    {0x10, "sync boost"},                // SyncBoost
    {0x20, "thermal slowdown"},          // SwThermalSlowdown: GPU or memory temperature
    {0x40, "hardware thermal slowdown"},  // HwThermalSlowdown
    {0x80, "power brake"},               // HwPowerBrakeSlowdown: an external power brake
};

template <class F>
F symbol(void* library, const char* name) {
  return reinterpret_cast<F>(dlsym(library, name));
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::vector<std::string> clock_limit_names(uint64_t reasons) {
  std::vector<std::string> out;
  for (const LimitBit& b : kLimitBits)
    if (reasons & b.bit) out.emplace_back(b.name);
  return out;
}

GpuConditions summarize(const std::vector<GpuSample>& samples) {
  GpuConditions c;
  c.samples = int(samples.size());
  if (samples.empty()) return c;
  std::vector<double> power, clock;
  uint64_t limits = 0;
  c.sm_clock_reported_min_mhz = samples.front().sm_clock_mhz;
  for (const GpuSample& s : samples) {
    power.push_back(s.power_w);
    clock.push_back(s.sm_clock_mhz);
    c.power_max_w = std::max(c.power_max_w, s.power_w);
    c.temp_max_c = std::max(c.temp_max_c, s.temp_c);
    c.sm_clock_reported_min_mhz = std::min(c.sm_clock_reported_min_mhz, s.sm_clock_mhz);
    limits |= s.limits;
  }
  c.power_median_w = median_of(power);
  c.sm_clock_reported_median_mhz = uint32_t(median_of(clock) + 0.5);
  c.limits = clock_limit_names(limits);
  return c;
}

const Nvml& Nvml::instance() {
  static const Nvml nvml;
  return nvml;
}

Nvml::Nvml() {
  dlerror();
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    const char* why = dlerror();
    reason_ = fmt::format("libnvidia-ml.so.1 not found (dlopen: {}): power, temperature and the driver's clock are "
                          "not sampled",
                          why ? why : "unknown error");
    return;
  }
  auto init = symbol<int (*)()>(library_, "nvmlInit_v2");
  auto by_pci = symbol<int (*)(const char*, void**)>(library_, "nvmlDeviceGetHandleByPciBusId_v2");
  power_ = symbol<int (*)(void*, unsigned*)>(library_, "nvmlDeviceGetPowerUsage");
  temperature_ = symbol<int (*)(void*, int, unsigned*)>(library_, "nvmlDeviceGetTemperature");
  clock_ = symbol<int (*)(void*, int, unsigned*)>(library_, "nvmlDeviceGetClockInfo");
  reasons_ = symbol<int (*)(void*, unsigned long long*)>(library_, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!reasons_)
    reasons_ = symbol<int (*)(void*, unsigned long long*)>(library_, "nvmlDeviceGetCurrentClocksThrottleReasons");
  if (!init || !by_pci || !power_ || !temperature_ || !clock_) {
    reason_ = "libnvidia-ml.so.1 lacks nvmlInit_v2 or a device query: the driver is too old to sample";
    return;
  }
  if (const int rc = init(); rc != kNvmlSuccess) {
    reason_ = fmt::format("nvmlInit_v2 failed (nvmlReturn_t {}): power, temperature and the driver's clock are not "
                          "sampled",
                          rc);
    return;
  }
  device_for_ = by_pci;
}

void* Nvml::device(const DeviceInfo& info, std::string* why) const {
  if (!available()) {
    if (why) *why = reason_;
    return nullptr;
  }
  // NVML's bus id: "domain:bus:device.function" in hex.
  const std::string bus = fmt::format("{:08X}:{:02X}:{:02X}.0", info.pci_domain, info.pci_bus, info.pci_device);
  void* handle = nullptr;
  if (const int rc = device_for_(bus.c_str(), &handle); rc != kNvmlSuccess || !handle) {
    if (why) *why = fmt::format("NVML has no device at PCI {} (nvmlReturn_t {})", bus, rc);
    return nullptr;
  }
  return handle;
}

std::optional<GpuSample> Nvml::sample(void* device) const {
  if (!available() || !device) return std::nullopt;
  GpuSample s;
  unsigned mw = 0, temp = 0, mhz = 0;
  if (power_(device, &mw) != kNvmlSuccess) return std::nullopt;
  s.power_w = mw / 1000.0;
  if (temperature_(device, kNvmlTemperatureGpu, &temp) == kNvmlSuccess) s.temp_c = temp;
  if (clock_(device, kNvmlClockSm, &mhz) == kNvmlSuccess) s.sm_clock_mhz = mhz;
  unsigned long long reasons = 0;
  if (reasons_ && reasons_(device, &reasons) == kNvmlSuccess) s.limits = reasons;
  return s;
}

GpuSampler::GpuSampler(const DeviceInfo& info, std::chrono::milliseconds period) {
  const Nvml& nvml = Nvml::instance();
  void* device = nvml.device(info, &why_);
  if (!device) return;
  device_ = device;
  t0_ = std::chrono::steady_clock::now();
  take_sample();  // one at the start and one at stop(): a run shorter than the period has two
  running_ = true;
  thread_ = std::thread([this, period] {
    while (running_.load(std::memory_order_relaxed)) {
      std::this_thread::sleep_for(period);
      take_sample();
    }
  });
}

void GpuSampler::take_sample() {
  if (std::optional<GpuSample> s = Nvml::instance().sample(device_)) {
    s->t_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
    samples_.push_back(*s);
  }
}

std::vector<GpuSample> GpuSampler::stop() {
  if (thread_.joinable()) {
    running_ = false;
    thread_.join();
    take_sample();
  }
  return std::move(samples_);
}

GpuSampler::~GpuSampler() { stop(); }

}  // namespace gs::cuda
