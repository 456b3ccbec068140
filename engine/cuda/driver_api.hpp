// gs::cuda internal: the driver's function-pointer table. Include only from engine/cuda/*.cpp,
// inside `#if GEMMSCOPE_HAVE_CUDA_H` — it needs cuda.h, which only engine/ sources can see.
//
// cuda.h and cudaTypedefs.h are used for declarations only: types, enums, CUresult codes and
// the function-pointer typedefs. Nothing here is linked against libcuda.
//
// Each entry names a driver function by its *base* name and pins the ABI version we ask
// cuGetProcAddress for, e.g. (cuMemAlloc, 3020) -> cuMemAlloc_v2. The version is explicit per
// function, not "CUDA_VERSION for all", because CUDA 13.0 gave some base names a new ABI with
// a different signature that cuda.h does not map by macro: cuGetProcAddress("cuCtxSynchronize",
// 13000) returns cuCtxSynchronize_v2(CUcontext), while cuda.h declares cuCtxSynchronize(void)
// (PFN_cuCtxSynchronize_v13000 in cudaTypedefs.h; cuCtxGetDevice likewise). The pointer type
// is the matching PFN_<name>_v<version> typedef, and a static_assert below checks that it is
// the prototype cuda.h declares for the name our code calls.
//
// `oldest` is the oldest ABI version with the same prototype: a driver older than `version`
// is asked for max(oldest, driver version) instead. Only cuEventElapsedTime differs: its CUDA
// 12.8 ABI (cuEventElapsedTime_v2, which cuda.h 13.0 maps the name to) keeps the signature.
#pragma once

#if GEMMSCOPE_HAVE_CUDA_H

#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>
#include <string_view>
#include <type_traits>

#include "engine/cuda/driver.hpp"

// X(name, version, oldest): entry points gemmscope cannot work without.
#define GS_CUDA_REQUIRED_FUNCTIONS(X)        \
  X(cuGetErrorName, 6000, 6000)              \
  X(cuGetErrorString, 6000, 6000)            \
  X(cuInit, 2000, 2000)                      \
  X(cuDriverGetVersion, 2020, 2020)          \
  X(cuDeviceGetCount, 2000, 2000)            \
  X(cuDeviceGet, 2000, 2000)                 \
  X(cuDeviceGetName, 2000, 2000)             \
  X(cuDeviceGetAttribute, 2000, 2000)        \
  X(cuDeviceTotalMem, 3020, 3020)            \
  X(cuDevicePrimaryCtxRetain, 7000, 7000)    \
  X(cuDevicePrimaryCtxRelease, 11000, 11000) \
  X(cuCtxSetCurrent, 4000, 4000)             \
  X(cuCtxGetCurrent, 4000, 4000)             \
  X(cuCtxGetDevice, 2000, 2000)              \
  X(cuCtxSynchronize, 2000, 2000)            \
  X(cuModuleLoadDataEx, 2010, 2010)          \
  X(cuModuleUnload, 2000, 2000)              \
  X(cuModuleGetFunction, 2000, 2000)         \
  X(cuFuncSetAttribute, 9000, 9000)          \
  X(cuFuncGetAttribute, 2020, 2020)          \
  X(cuLaunchKernel, 4000, 4000)              \
  X(cuMemAlloc, 3020, 3020)                  \
  X(cuMemFree, 3020, 3020)                   \
  X(cuMemcpyHtoD, 3020, 3020)                \
  X(cuMemcpyDtoH, 3020, 3020)                \
  X(cuMemsetD8, 3020, 3020)                  \
  X(cuMemsetD32, 3020, 3020)                 \
  X(cuEventCreate, 2000, 2000)               \
  X(cuEventRecord, 2000, 2000)               \
  X(cuEventSynchronize, 2000, 2000)          \
  X(cuEventElapsedTime, 12080, 2000)         \
  X(cuEventDestroy, 4000, 4000)              \
  X(cuStreamCreate, 2000, 2000)              \
  X(cuStreamDestroy, 4000, 4000)             \
  X(cuStreamSynchronize, 2000, 2000)         \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050, 6050)

// Entry points that a feature needs; null when the driver lacks them, and the feature then
// throws a CudaError naming the driver version (cuFuncGetParamInfo arrived in CUDA 12.4).
#define GS_CUDA_OPTIONAL_FUNCTIONS(X)     \
  X(cuLaunchKernelEx, 11060, 11060)       \
  X(cuTensorMapEncodeTiled, 12000, 12000) \
  X(cuFuncGetParamInfo, 12040, 12040)     \
  X(cuOccupancyMaxActiveClusters, 11070, 11070)

namespace gs::cuda {

// Members are named after the base name as our code spells it; where cuda.h maps a name by
// macro (cuMemAlloc -> cuMemAlloc_v2) the declaration and every use are mapped alike. The
// string handed to cuGetProcAddress is #name, which macros do not touch: the base name.
struct DriverApi {
#define GS_CUDA_DECLARE_POINTER(name, version, oldest) PFN_##name##_v##version name = nullptr;
  GS_CUDA_REQUIRED_FUNCTIONS(GS_CUDA_DECLARE_POINTER)
  GS_CUDA_OPTIONAL_FUNCTIONS(GS_CUDA_DECLARE_POINTER)
#undef GS_CUDA_DECLARE_POINTER
};

// The pinned ABI of each entry has exactly the prototype cuda.h declares for the name we call.
#define GS_CUDA_CHECK_PROTOTYPE(name, version, oldest)                      \
  static_assert(std::is_same_v<PFN_##name##_v##version, decltype(&::name)>, \
                #name ": pinned ABI version and cuda.h prototype differ");  \
  static_assert((oldest) <= (version));
GS_CUDA_REQUIRED_FUNCTIONS(GS_CUDA_CHECK_PROTOTYPE)
GS_CUDA_OPTIONAL_FUNCTIONS(GS_CUDA_CHECK_PROTOTYPE)
#undef GS_CUDA_CHECK_PROTOTYPE

// The cuda.h-free handle aliases of driver.hpp must be the driver's own types.
static_assert(std::is_same_v<ContextHandle, CUcontext>);
static_assert(std::is_same_v<ModuleHandle, CUmodule>);
static_assert(std::is_same_v<FunctionHandle, CUfunction>);
static_assert(std::is_same_v<EventHandle, CUevent>);
static_assert(std::is_same_v<StreamHandle, CUstream>);
static_assert(std::is_same_v<DevicePtr, CUdeviceptr>);

// The table of the driver this process opened; throws DriverUnavailable when there is none.
inline const DriverApi& api() {
  return Driver::instance().api();
}

// Throws CudaError("<what> failed: NAME (text) — detail") unless result is CUDA_SUCCESS.
inline void check(CUresult result, std::string_view what, std::string_view detail = {}) {
  if (result != CUDA_SUCCESS) {
    throw CudaError(static_cast<int>(result), std::string(what), std::string(detail));
  }
}

// For an optional entry point: throws a CudaError(CUDA_ERROR_NOT_SUPPORTED) naming the driver
// version when it is missing.
template <class Fn>
Fn require_entry_point(Fn fn, std::string_view name) {
  if (fn == nullptr) {
    throw CudaError(CUDA_ERROR_NOT_SUPPORTED, std::string(name),
                    "this driver (version " + std::to_string(Driver::instance().driver_version()) +
                        ") does not provide it; update the NVIDIA driver");
  }
  return fn;
}

}  // namespace gs::cuda

#else  // !GEMMSCOPE_HAVE_CUDA_H

namespace gs::cuda {
struct DriverApi {};  // nothing to call: Driver::load() reports "built without the CUDA toolkit"
}  // namespace gs::cuda

#endif  // GEMMSCOPE_HAVE_CUDA_H
