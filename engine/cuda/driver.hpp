// gs::cuda — the CUDA driver, opened at run time.
//
// gemmscope never links libcuda. The driver is opened with dlopen("libcuda.so.1") the first time
// Driver::instance() is called, every entry point is fetched with cuGetProcAddress_v2 at an ABI
// version pinned per function (e.g. cuMemAlloc at 3020 = cuMemAlloc_v2; see driver_api.hpp),
// and cuInit(0) is called.
// On a machine without a GPU or driver nothing fails at start-up: available() is false and
// unavailable_reason() says what is missing, while the CPU model keeps working.
//
// This header deliberately does not include cuda.h: the build gives only engine/ sources the
// CUDA include directory, and the GUI, the command line and the tests include this header. The
// driver's handle types are forward-declared under their cuda.h tags, so `StreamHandle` here is
// the very same type as cuda.h's `CUstream` (driver_api.hpp static_asserts that).
//
// Fork rule (see isolation.hpp): CUDA is not fork-safe once cuInit has run. A process that wants
// to run GPU work in forked children (run_isolated) must not touch the driver itself. If a child
// forked after the parent initialised CUDA calls instance(), available() is false and the reason
// says so, instead of the driver failing in obscure ways.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

// The driver's opaque handle tags, exactly as cuda.h spells them (typedef struct CUctx_st* ...).
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUevent_st;
struct CUstream_st;

namespace gs::cuda {

using ContextHandle = CUctx_st*;       // == CUcontext
using ModuleHandle = CUmod_st*;        // == CUmodule
using FunctionHandle = CUfunc_st*;     // == CUfunction
using EventHandle = CUevent_st*;       // == CUevent
using StreamHandle = CUstream_st*;     // == CUstream; nullptr is the legacy default stream
using DevicePtr = unsigned long long;  // == CUdeviceptr on 64-bit hosts

// A driver call that returned something other than CUDA_SUCCESS.
// what(): "<call> failed: <NAME> (<driver's description>)[ — <detail>][. Hint: ...]"
class CudaError : public std::runtime_error {
 public:
  CudaError(int result, std::string call, std::string detail = {});

  int result() const { return result_; }                   // the CUresult, as a number
  const std::string& error_name() const { return name_; }  // "CUDA_ERROR_INVALID_PTX"
  const std::string& error_string() const { return description_; }
  const std::string& call() const { return call_; }      // what we were doing
  const std::string& detail() const { return detail_; }  // e.g. the JIT error log

 private:
  CudaError(int result, std::string call, std::string detail, std::string name,
            std::string description);
  int result_;
  std::string call_, detail_, name_, description_;
};

// Thrown by every GPU entry point when the driver cannot be used: no libcuda, cuInit failed,
// built without the CUDA toolkit, or CUDA was initialised in a parent process before fork().
class DriverUnavailable : public std::runtime_error {
 public:
  explicit DriverUnavailable(const std::string& reason)
      : std::runtime_error("no usable CUDA driver: " + reason) {}
};

struct DriverApi;  // the function-pointer table; defined in driver_api.hpp (needs cuda.h)

class Driver {
 public:
  // Opens the driver on first use (dlopen, cuGetProcAddress, cuInit). Never throws.
  static Driver& instance();

  // True when the driver was opened and initialised by this very process.
  bool available() const;
  // Why available() is false, in words a user can act on; empty when available.
  std::string unavailable_reason() const;
  // Throws DriverUnavailable (with unavailable_reason()) unless available().
  void require() const;

  // cuDriverGetVersion: 13000 for CUDA 13.0; 0 when no driver was found.
  int driver_version() const { return driver_version_; }

  // The table of entry points. Only code that includes driver_api.hpp can use it. Calls
  // require() first, so it never hands out a table that may not be used.
  const DriverApi& api() const;

  // "CUDA_ERROR_INVALID_PTX" / "a PTX JIT compilation failed"; "CUresult 218" when the driver
  // cannot name it (no driver, or an unknown code).
  std::string error_name(int result) const;
  std::string error_string(int result) const;

  // True once cuInit has been called by this process or by a process it was forked from.
  // Cheap; it never opens the driver (tests use it to decide whether fork is still safe).
  static bool cuda_initialised();

  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

 private:
  Driver();
  ~Driver();
  void load();

  void* library_ = nullptr;         // dlopen handle of libcuda.so.1, never closed
  std::unique_ptr<DriverApi> api_;  // null when built without cuda.h
  std::string reason_;              // empty when the driver loaded and cuInit succeeded
  int driver_version_ = 0;
  long init_pid_ = 0;  // the process that called cuInit
};

// A short note a learner can act on for the common CUresults (ILLEGAL_ADDRESS, LAUNCH_FAILED,
// INVALID_PTX, ...); empty when we have nothing better than the driver's own text.
std::string hint_for_result(int result);

}  // namespace gs::cuda
