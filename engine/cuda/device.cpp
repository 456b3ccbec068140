// gs::cuda devices: attribute queries (driver) and PTX-target compatibility (plain C++).
#include "engine/cuda/device.hpp"

#include <cctype>
#include <cstdio>
#include <stdexcept>

#include "engine/cuda/driver.hpp"
#include "engine/cuda/driver_api.hpp"

namespace gs::cuda {

// --- PTX targets (no driver needed) -----------------------------------------------------------

std::optional<ArchTarget> parse_arch_target(std::string_view target) {
  constexpr std::string_view prefix = "sm_";
  if (target.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view rest = target.substr(prefix.size());
  ArchTarget parsed;
  if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) {
    parsed.kind = rest.back() == 'a' ? ArchTarget::Kind::arch_specific : ArchTarget::Kind::family;
    rest.remove_suffix(1);
  }
  if (rest.size() < 2 || rest.size() > 3) return std::nullopt;
  int number = 0;
  for (char c : rest) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    number = number * 10 + (c - '0');
  }
  parsed.major = number / 10;
  parsed.minor = number % 10;
  if (parsed.major == 0) return std::nullopt;
  return parsed;
}

std::string arch_name(const DeviceInfo& device) {
  return "sm_" + std::to_string(device.cc_major) + std::to_string(device.cc_minor);
}

bool can_run(const DeviceInfo& device, std::string_view target, std::string* why) {
  const std::string who = "GPU " + std::to_string(device.ordinal) + " (" + device.name + ")";
  const std::string has =
      who + " is " + std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor);
  auto fail = [&](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return false;
  };
  const std::optional<ArchTarget> parsed = parse_arch_target(target);
  if (!parsed) {
    return fail("target '" + std::string(target) +
                "' is not a PTX target of the form sm_<major><minor>[a|f] (e.g. sm_80, sm_90a, "
                "sm_100a)");
  }
  const std::string wanted = std::to_string(parsed->major) + "." + std::to_string(parsed->minor);
  const int device_cc = device.cc_major * 10 + device.cc_minor;
  const int target_cc = parsed->major * 10 + parsed->minor;
  switch (parsed->kind) {
    case ArchTarget::Kind::arch_specific:
      if (device_cc != target_cc) {
        return fail(std::string(target) + " code runs only on compute capability " + wanted +
                    ", and " + has);
      }
      break;
    case ArchTarget::Kind::family:
      if (device.cc_major != parsed->major || device.cc_minor < parsed->minor) {
        return fail(std::string(target) + " code runs only on compute capability " +
                    std::to_string(parsed->major) +
                    ".x with x >= " + std::to_string(parsed->minor) + ", and " + has);
      }
      break;
    case ArchTarget::Kind::portable:
      if (device_cc < target_cc) {
        return fail(std::string(target) + " code needs compute capability " + wanted +
                    " or newer, and " + has);
      }
      break;
  }
  if (why != nullptr) why->clear();
  return true;
}

std::string describe(const DeviceInfo& device) {
  char text[384];
  std::snprintf(text, sizeof text,
                "GPU %d: %s, %s, %d SMs, %d MHz, %.1f GiB, %d MiB L2, %d KiB smem/block opt-in, "
                "driver %d.%d",
                device.ordinal, device.name.c_str(), arch_name(device).c_str(), device.sms,
                device.sm_clock_khz / 1000,
                static_cast<double>(device.total_mem) / (1024.0 * 1024.0 * 1024.0),
                device.l2_bytes / (1024 * 1024), device.max_smem_per_block_optin / 1024,
                device.driver_version / 1000, (device.driver_version % 1000) / 10);
  return text;
}

// --- driver queries ---------------------------------------------------------------------------

#if GEMMSCOPE_HAVE_CUDA_H

namespace {

int device_count() {
  int count = 0;
  check(api().cuDeviceGetCount(&count), "cuDeviceGetCount");
  return count;
}

DeviceInfo query_device(int ordinal) {
  const DriverApi& cu = api();
  CUdevice device = 0;
  check(cu.cuDeviceGet(&device, ordinal), "cuDeviceGet(" + std::to_string(ordinal) + ")");
  DeviceInfo info;
  info.ordinal = ordinal;
  char name[256] = {};
  check(cu.cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
  info.name = name;
  auto attribute = [&](CUdevice_attribute which, const char* label) {
    int value = 0;
    check(cu.cuDeviceGetAttribute(&value, which, device),
          std::string("cuDeviceGetAttribute(") + label + ")");
    return value;
  };
  info.cc_major =
      attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR");
  info.cc_minor =
      attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR");
  info.sms = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT");
  info.sm_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "CLOCK_RATE");
  info.mem_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "MEMORY_CLOCK_RATE");
  info.mem_bus_width =
      attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "GLOBAL_MEMORY_BUS_WIDTH");
  info.max_smem_per_block_optin = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                            "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN");
  info.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2_CACHE_SIZE");
  info.pci_domain = attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, "PCI_DOMAIN_ID");
  info.pci_bus = attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, "PCI_BUS_ID");
  info.pci_device = attribute(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, "PCI_DEVICE_ID");
  size_t bytes = 0;
  check(cu.cuDeviceTotalMem(&bytes, device), "cuDeviceTotalMem");
  info.total_mem = bytes;
  info.driver_version = Driver::instance().driver_version();
  return info;
}

}  // namespace

std::vector<DeviceInfo> list_devices() {
  const int count = device_count();
  std::vector<DeviceInfo> devices;
  devices.reserve(static_cast<std::size_t>(count));
  for (int ordinal = 0; ordinal < count; ++ordinal) devices.push_back(query_device(ordinal));
  return devices;
}

DeviceInfo device_info(int ordinal) {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count) {
    throw std::out_of_range("no GPU " + std::to_string(ordinal) + ": the driver sees " +
                            std::to_string(count) + " GPU(s)");
  }
  return query_device(ordinal);
}

#else  // !GEMMSCOPE_HAVE_CUDA_H

std::vector<DeviceInfo> list_devices() {
  Driver::instance().require();  // throws DriverUnavailable("built without the CUDA toolkit")
  return {};
}

DeviceInfo device_info(int) {
  Driver::instance().require();
  return {};
}

#endif  // GEMMSCOPE_HAVE_CUDA_H

}  // namespace gs::cuda
