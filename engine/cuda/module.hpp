// gs::cuda modules: PTX text JIT-compiled by the driver (cuModuleLoadDataEx), with its logs.
//
// A Function keeps its Module loaded (shared ownership), so a Function never outlives the code
// it points to. Both need the Context that was current at load time to stay alive.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cuda/driver.hpp"

namespace gs::cuda {

struct JitResult {
  std::string info_log;   // ptxas-style "Used N registers, ..." lines (CU_JIT_LOG_VERBOSE=1);
                          // may be empty when the driver took the code from its JIT cache
  std::string error_log;  // what went wrong; empty on success
  double wall_ms = 0.0;   // host wall time of cuModuleLoadDataEx (JIT + load)
  double jit_ms = 0.0;    // the compiler's own figure (CU_JIT_WALL_TIME); 0 when not reported
};

// The values equal CUfunction_attribute, so they pass straight to the driver.
enum class FunctionAttribute : int {
  max_threads_per_block = 0,  // from .maxntid and the register count
  static_smem_bytes = 1,      // .shared variables declared in the PTX
  const_bytes = 2,
  local_bytes = 3,  // per-thread local memory (spills, stack)
  num_regs = 4,
  ptx_version = 5,             // 10 * major + minor of the PTX .target
  binary_version = 6,          // 10 * major + minor of the SASS it was compiled to
  max_dynamic_smem_bytes = 8,  // the opt-in limit; 48 KiB until raised
  non_portable_cluster_size_allowed = 14,
};

// Offset and size of one kernel parameter in the device-side parameter layout.
struct ParamSlot {
  std::size_t offset = 0;
  std::size_t size = 0;
};

class Module;

// A kernel entry point of a loaded module. Cheap to copy. The attribute calls change state in
// the driver, not in this object, hence const.
class Function {
 public:
  FunctionHandle handle() const { return function_; }
  const std::string& name() const { return name_; }

  int attribute(FunctionAttribute which) const;
  int num_regs() const { return attribute(FunctionAttribute::num_regs); }
  int static_smem_bytes() const { return attribute(FunctionAttribute::static_smem_bytes); }
  int max_threads_per_block() const { return attribute(FunctionAttribute::max_threads_per_block); }
  int local_bytes() const { return attribute(FunctionAttribute::local_bytes); }

  // Allows `bytes` of dynamic shared memory per block (needed above 48 KiB). Throws a CudaError
  // naming the device's opt-in limit when the driver refuses.
  void set_max_dynamic_smem(int bytes) const;
  // Allows clusters of up to 16 CTAs (8 is the portable maximum).
  void allow_non_portable_cluster_size(bool allow) const;

  // The kernel's parameters as the driver sees them (cuFuncGetParamInfo, CUDA 12.4+ drivers),
  // asked for the declared count only; `known` is false when the driver cannot tell or no
  // count was declared. A driver that reports fewer than declared gives those it reports.
  struct ParamLayout {
    bool known = false;
    std::vector<ParamSlot> params;
  };
  ParamLayout param_layout() const;

 private:
  friend class Module;
  Function(std::shared_ptr<const void> owner, FunctionHandle function, std::string name,
           std::optional<std::size_t> params)
      : owner_(std::move(owner)), function_(function), name_(std::move(name)), declared_params_(params) {}
  std::shared_ptr<const void> owner_;  // keeps the module loaded
  FunctionHandle function_ = nullptr;
  std::string name_;
  std::optional<std::size_t> declared_params_;
};

class Module {
 public:
  // JIT-compiles `ptx` for the current context's device. Throws CudaError on failure with the
  // JIT error log in the message, e.g. "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX
  // (a PTX JIT compilation failed) — JIT log: ptxas application ptx input, line 21; error ...".
  explicit Module(std::string_view ptx);

  const JitResult& jit() const { return jit_; }
  ModuleHandle handle() const;

  // Throws CudaError (CUDA_ERROR_NOT_FOUND) naming the entry when there is none of that name.
  // `params`: how many parameters the entry declares (the IR's Kernel::params), which lets
  // param_layout() ask the driver about each of them and nothing past the last; without it the
  // layout is unknown (probing past the end would be a failing driver call, which
  // compute-sanitizer reports as an error).
  Function get_function(std::string_view name, std::optional<std::size_t> params = std::nullopt) const;

 private:
  std::shared_ptr<const void> loaded_;  // owns the CUmodule; unloads when the last user goes
  JitResult jit_;
};

}  // namespace gs::cuda
