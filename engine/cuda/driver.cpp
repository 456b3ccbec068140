// gs::cuda::Driver: dlopen("libcuda.so.1"), cuGetProcAddress_v2 for every entry point, cuInit.
// See driver.hpp for the contract and driver_api.hpp for the table.
#include "engine/cuda/driver.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <type_traits>
#include <utility>

#include "engine/cuda/driver_api.hpp"

namespace gs::cuda {
namespace {

// The process that called cuInit (0: nobody). Kept outside Driver so cuda_initialised() can be
// asked without constructing, and so opening, the driver.
std::atomic<long>& cuinit_pid() {
  static std::atomic<long> pid{0};
  return pid;
}

std::string message_for(const std::string& call, const std::string& name,
                        const std::string& description, const std::string& detail, int result) {
  std::string text = call + " failed: " + name;
  if (!description.empty()) text += " (" + description + ")";
  if (!detail.empty()) text += " \u2014 " + detail;
  if (std::string hint = hint_for_result(result); !hint.empty()) text += "\n  hint: " + hint;
  return text;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

}  // namespace

// --- CudaError --------------------------------------------------------------------------------

CudaError::CudaError(int result, std::string call, std::string detail)
    : CudaError(result, std::move(call), std::move(detail), Driver::instance().error_name(result),
                Driver::instance().error_string(result)) {}

CudaError::CudaError(int result, std::string call, std::string detail, std::string name,
                     std::string description)
    : std::runtime_error(message_for(call, name, description, detail, result)),
      result_(result),
      call_(std::move(call)),
      detail_(std::move(detail)),
      name_(std::move(name)),
      description_(std::move(description)) {}

// --- Driver -----------------------------------------------------------------------------------

Driver& Driver::instance() {
  // Deliberately never destroyed: tearing down the driver table or dlclose-ing libcuda while
  // static destructors of other objects may still release CUDA resources is a classic crash at
  // exit. The process exit releases everything the driver holds.
  static Driver* driver = new Driver();
  return *driver;
}

Driver::Driver() {
  load();
}
Driver::~Driver() = default;

bool Driver::cuda_initialised() {
  return cuinit_pid().load() != 0;
}

bool Driver::available() const {
  return reason_.empty() && init_pid_ == static_cast<long>(getpid());
}

std::string Driver::unavailable_reason() const {
  if (!reason_.empty()) return reason_;
  const long self = static_cast<long>(getpid());
  if (init_pid_ != self) {
    return "CUDA was initialised (cuInit) by process " + std::to_string(init_pid_) +
           " before this process (" + std::to_string(self) +
           ") was forked from it, and CUDA cannot be used in a child forked after cuInit. "
           "Keep the parent free of CUDA calls and do all GPU work in run_isolated children";
  }
  return {};
}

void Driver::require() const {
  if (!available()) throw DriverUnavailable(unavailable_reason());
}

const DriverApi& Driver::api() const {
  require();
  return *api_;
}

#if GEMMSCOPE_HAVE_CUDA_H

namespace {
std::string version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}
}  // namespace

std::string Driver::error_name(int result) const {
  const char* text = nullptr;
  if (api_ && api_->cuGetErrorName &&
      api_->cuGetErrorName(static_cast<CUresult>(result), &text) == CUDA_SUCCESS && text) {
    return text;
  }
  return "CUresult " + std::to_string(result);
}

std::string Driver::error_string(int result) const {
  const char* text = nullptr;
  if (api_ && api_->cuGetErrorString &&
      api_->cuGetErrorString(static_cast<CUresult>(result), &text) == CUDA_SUCCESS && text) {
    return text;
  }
  return {};
}

void Driver::load() {
  dlerror();
  library_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    const char* why = dlerror();
    reason_ = std::string("libcuda.so.1 not found (dlopen: ") + (why ? why : "unknown error") +
              "): no NVIDIA driver on this machine. The CPU model still works; GPU runs, "
              "timings and the cuBLAS baseline need a machine with an NVIDIA GPU and driver";
    return;
  }

  auto get_proc =
      reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(library_, "cuGetProcAddress_v2"));
  auto get_version =
      reinterpret_cast<PFN_cuDriverGetVersion_v2020>(dlsym(library_, "cuDriverGetVersion"));
  if (get_proc == nullptr || get_version == nullptr) {
    reason_ =
        "libcuda.so.1 has no cuGetProcAddress_v2: the NVIDIA driver predates CUDA 12.0; "
        "gemmscope needs a driver for CUDA 12.0 or newer";
    return;
  }
  if (get_version(&driver_version_) != CUDA_SUCCESS || driver_version_ <= 0) {
    reason_ = "cuDriverGetVersion failed: the NVIDIA driver installation looks broken";
    return;
  }
  if (driver_version_ < 12000) {
    reason_ = "the NVIDIA driver supports CUDA " + version_text(driver_version_) +
              "; gemmscope needs CUDA 12.0 or newer (cuLaunchKernelEx, cuTensorMapEncodeTiled)";
    return;
  }

  // Each entry point at its pinned ABI version (driver_api.hpp explains why per function).
  // cuGetProcAddress refuses a version above the driver's, so an older driver is asked for the
  // oldest ABI version with the same prototype instead.
  auto table = std::make_unique<DriverApi>();
  auto lookup = [&](const char* symbol, auto& slot, int version, int oldest, bool required) {
    const int asked = std::max(oldest, std::min(version, driver_version_));
    void* fn = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    const CUresult rc = asked <= driver_version_
                            ? get_proc(symbol, &fn, asked, CU_GET_PROC_ADDRESS_DEFAULT, &status)
                            : CUDA_ERROR_NOT_SUPPORTED;
    if (rc == CUDA_SUCCESS && fn != nullptr && status == CU_GET_PROC_ADDRESS_SUCCESS) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(fn);
      return true;
    }
    if (!required) return true;
    reason_ = std::string("the NVIDIA driver (CUDA ") + version_text(driver_version_) +
              ") does not provide " + symbol + " at the CUDA " + version_text(asked) +
              " ABI (cuGetProcAddress returned " + std::to_string(static_cast<int>(rc)) +
              ", status " + std::to_string(static_cast<int>(status)) + ")";
    return false;
  };
#define GS_CUDA_LOOKUP_REQUIRED(name, version, oldest) \
  if (!lookup(#name, table->name, version, oldest, true)) return;
#define GS_CUDA_LOOKUP_OPTIONAL(name, version, oldest) \
  lookup(#name, table->name, version, oldest, false);
  GS_CUDA_REQUIRED_FUNCTIONS(GS_CUDA_LOOKUP_REQUIRED)
  GS_CUDA_OPTIONAL_FUNCTIONS(GS_CUDA_LOOKUP_OPTIONAL)
#undef GS_CUDA_LOOKUP_REQUIRED
#undef GS_CUDA_LOOKUP_OPTIONAL
  api_ = std::move(table);  // from here on error_name() can ask the driver

  init_pid_ = static_cast<long>(getpid());
  cuinit_pid().store(init_pid_);
  const CUresult rc = api_->cuInit(0);
  if (rc != CUDA_SUCCESS) {
    reason_ = "cuInit failed: " + error_name(rc);
    if (std::string text = error_string(rc); !text.empty()) reason_ += " (" + text + ")";
    if (rc == CUDA_ERROR_OUT_OF_MEMORY && kAddressSanitizer) {
      reason_ +=
          ". This binary runs under AddressSanitizer, whose shadow-gap protection takes "
          "the address range the driver maps: run it with "
          "ASAN_OPTIONS=protect_shadow_gap=0";
    } else if (std::string hint = hint_for_result(rc); !hint.empty()) {
      reason_ += ": " + hint;
    }
  }
}

std::string hint_for_result(int result) {
  constexpr const char* unusable =
      " The context is now unusable and later calls fail too; run kernels under run_isolated so "
      "the parent keeps a clean process.";
  switch (static_cast<CUresult>(result)) {
    case CUDA_ERROR_NO_DEVICE:
      return "no GPU is visible to this process (check nvidia-smi and CUDA_VISIBLE_DEVICES)";
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
      return "the kernel module and the user-space driver (libcuda) do not match or are too old";
    case CUDA_ERROR_INVALID_CONTEXT:
      return "no current context on this thread: create a gs::cuda::Context first";
    case CUDA_ERROR_INVALID_PTX:
      return "the PTX did not assemble; the JIT log names the line (ptxas on the same text "
             "reports the same error)";
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
      return "the PTX .version is newer than this driver's JIT compiler; update the driver or "
             "emit an older .version";
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
      return "the PTX .target does not fit this GPU (sm_90a runs only on compute capability 9.0, "
             "sm_100a only on 10.0)";
    case CUDA_ERROR_NOT_FOUND: return "no symbol of that name: check the .entry name in the PTX";
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
      return "the block needs more registers (per thread x threads) or shared memory than one SM "
             "has";
    case CUDA_ERROR_INVALID_CLUSTER_SIZE:
      return "the cluster shape does not fit: the grid must be a multiple of it and it may hold "
             "at most 8 CTAs (16 with the non-portable attribute)";
    case CUDA_ERROR_ILLEGAL_ADDRESS:
      return std::string(
                 "a kernel read or wrote outside its allocations (check coordinates, "
                 "strides and bounds; the CPU model's out-of-bounds check names the "
                 "instruction).") +
             unusable;
    case CUDA_ERROR_MISALIGNED_ADDRESS:
      return std::string(
                 "an access was not aligned to its size (mbarriers need 8 B, vector "
                 "loads their width, TMA destinations 128 B).") +
             unusable;
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
      return std::string(
                 "the GPU met an instruction it cannot execute (e.g. wgmma or setmaxnreg "
                 "outside sm_90a, tcgen05 outside sm_100a).") +
             unusable;
    case CUDA_ERROR_LAUNCH_FAILED:
      return std::string("the kernel faulted or executed trap.") + unusable;
    case CUDA_ERROR_LAUNCH_TIMEOUT:
      return std::string("the kernel ran past the display watchdog.") + unusable;
    default: return {};
  }
}

#else  // !GEMMSCOPE_HAVE_CUDA_H

std::string Driver::error_name(int result) const {
  return "CUresult " + std::to_string(result);
}
std::string Driver::error_string(int) const {
  return {};
}

void Driver::load() {
  reason_ =
      "built without the CUDA toolkit (cuda.h was not found when gemmscope was "
      "configured), so the GPU runner is disabled; the CPU model works. Install the CUDA "
      "toolkit and re-run CMake to enable it";
}

std::string hint_for_result(int) {
  return {};
}

#endif  // GEMMSCOPE_HAVE_CUDA_H

}  // namespace gs::cuda
