// gs::cuda devices: what the driver reports about each GPU, and whether a PTX target can run on
// it. The target logic is plain C++ (no driver needed) so the CPU side and the tests share it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gs::cuda {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;                  // "NVIDIA H100 80GB HBM3"
  int cc_major = 0, cc_minor = 0;    // compute capability: 9.0 for H100
  int sms = 0;                       // multiprocessors: 132 on H100 SXM
  int sm_clock_khz = 0;              // CU_DEVICE_ATTRIBUTE_CLOCK_RATE (max SM clock)
  int mem_clock_khz = 0;             // CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE
  int mem_bus_width = 0;             // bits: 5120 on H100 SXM
  std::size_t total_mem = 0;         // bytes
  int max_smem_per_block_optin = 0;  // 232448 on H100: dynamic smem above 48 KiB needs opt-in
  int l2_bytes = 0;                  // 52428800 on H100 SXM
  int driver_version = 0;            // 13000 for CUDA 13.0
  int pci_domain = 0, pci_bus = 0, pci_device = 0;  // where NVML finds it (cuda/nvml.hpp)
};

// Every GPU the driver sees, in ordinal order. Throws DriverUnavailable (with the reason: no
// libcuda, cuInit failed, built without the toolkit) rather than returning an empty list, so a
// caller can always tell "no driver" from "driver but zero GPUs" (the latter returns empty).
std::vector<DeviceInfo> list_devices();

// One device by ordinal; throws std::out_of_range naming the count when there is no such GPU.
DeviceInfo device_info(int ordinal);

// "sm_90" for compute capability 9.0 (the plain target; see can_run for "a" targets).
std::string arch_name(const DeviceInfo& device);

// One line: "GPU 0: NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 1980 MHz, 79.6 GiB, 50 MiB L2,
// driver 13.0".
std::string describe(const DeviceInfo& device);

// A PTX target: "sm_80" -> {8, 0, none}; "sm_90a" -> {9, 0, arch_specific};
// "sm_100f" -> {10, 0, family}. The last digit is the minor version.
struct ArchTarget {
  enum class Kind { portable, arch_specific, family };
  int major = 0, minor = 0;
  Kind kind = Kind::portable;
};
std::optional<ArchTarget> parse_arch_target(std::string_view target);

// Whether PTX for `target` can be JIT-compiled and run on `device`:
//  * "sm_XY"  runs on compute capability >= X.Y (PTX is forward compatible through the JIT);
//  * "sm_XYa" runs only on exactly X.Y (wgmma/setmaxnreg need sm_90a, tcgen05 sm_100a);
//  * "sm_XYf" runs on the same major X with minor >= Y (CUDA 12.9 family targets).
// On false, *why (when given) names the device and the target, e.g. "sm_90a code runs only on
// compute capability 9.0, and GPU 0 (NVIDIA A100-SXM4-80GB) is 8.0".
bool can_run(const DeviceInfo& device, std::string_view target, std::string* why);

}  // namespace gs::cuda
