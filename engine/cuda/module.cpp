// gs::cuda modules: cuModuleLoadDataEx with the JIT logs captured, functions and attributes.
#include "engine/cuda/module.hpp"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "engine/cuda/driver_api.hpp"

namespace gs::cuda {

#if GEMMSCOPE_HAVE_CUDA_H

static_assert(static_cast<int>(FunctionAttribute::max_threads_per_block) ==
              CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(static_cast<int>(FunctionAttribute::static_smem_bytes) ==
              CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
static_assert(static_cast<int>(FunctionAttribute::const_bytes) ==
              CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
static_assert(static_cast<int>(FunctionAttribute::local_bytes) ==
              CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
static_assert(static_cast<int>(FunctionAttribute::num_regs) == CU_FUNC_ATTRIBUTE_NUM_REGS);
static_assert(static_cast<int>(FunctionAttribute::ptx_version) == CU_FUNC_ATTRIBUTE_PTX_VERSION);
static_assert(static_cast<int>(FunctionAttribute::binary_version) ==
              CU_FUNC_ATTRIBUTE_BINARY_VERSION);
static_assert(static_cast<int>(FunctionAttribute::max_dynamic_smem_bytes) ==
              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(static_cast<int>(FunctionAttribute::non_portable_cluster_size_allowed) ==
              CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);

namespace {

const char* attribute_name(FunctionAttribute which) {
  switch (which) {
    case FunctionAttribute::max_threads_per_block: return "MAX_THREADS_PER_BLOCK";
    case FunctionAttribute::static_smem_bytes: return "SHARED_SIZE_BYTES";
    case FunctionAttribute::const_bytes: return "CONST_SIZE_BYTES";
    case FunctionAttribute::local_bytes: return "LOCAL_SIZE_BYTES";
    case FunctionAttribute::num_regs: return "NUM_REGS";
    case FunctionAttribute::ptx_version: return "PTX_VERSION";
    case FunctionAttribute::binary_version: return "BINARY_VERSION";
    case FunctionAttribute::max_dynamic_smem_bytes: return "MAX_DYNAMIC_SHARED_SIZE_BYTES";
    case FunctionAttribute::non_portable_cluster_size_allowed:
      return "NON_PORTABLE_CLUSTER_SIZE_ALLOWED";
  }
  return "unknown attribute";
}

// A log buffer the driver filled: up to the first NUL, without trailing blank lines.
std::string log_text(const std::vector<char>& buffer) {
  std::string text(buffer.data(), strnlen(buffer.data(), buffer.size()));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) {
    text.pop_back();
  }
  return text;
}

// Owns one loaded CUmodule; shared by the Module and every Function taken from it.
struct LoadedModule {
  CUmodule module = nullptr;
  ~LoadedModule() {
    if (module != nullptr && Driver::instance().available()) (void)api().cuModuleUnload(module);
  }
};

CUmodule module_of(const std::shared_ptr<const void>& loaded) {
  return static_cast<const LoadedModule*>(loaded.get())->module;
}

}  // namespace

Module::Module(std::string_view ptx) {
  const DriverApi& cu = api();
  const std::string text(ptx);  // the driver wants a NUL-terminated image
  constexpr std::size_t log_bytes = 64 * 1024;
  std::vector<char> info(log_bytes, '\0'), error(log_bytes, '\0');
  CUjit_option options[] = {CU_JIT_INFO_LOG_BUFFER,  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_LOG_VERBOSE,      CU_JIT_WALL_TIME};
  // Scalar option values travel in the pointer slot itself; CU_JIT_WALL_TIME comes back as a
  // float written over its slot.
  void* values[] = {info.data(),
                    reinterpret_cast<void*>(static_cast<std::uintptr_t>(log_bytes)),
                    error.data(),
                    reinterpret_cast<void*>(static_cast<std::uintptr_t>(log_bytes)),
                    reinterpret_cast<void*>(std::uintptr_t{1}),
                    nullptr};
  constexpr unsigned option_count = sizeof options / sizeof options[0];

  CUmodule module = nullptr;
  const auto start = std::chrono::steady_clock::now();
  const CUresult rc = cu.cuModuleLoadDataEx(&module, text.c_str(), option_count, options, values);
  jit_.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  jit_.info_log = log_text(info);
  jit_.error_log = log_text(error);
  float jit_ms = 0.0f;
  std::memcpy(&jit_ms, &values[5], sizeof jit_ms);
  jit_.jit_ms = rc == CUDA_SUCCESS ? static_cast<double>(jit_ms) : 0.0;

  if (rc != CUDA_SUCCESS) {
    std::string detail = jit_.error_log.empty() ? std::string("the JIT error log is empty")
                                                : "JIT log: " + jit_.error_log;
    if (jit_.error_log.empty() && !jit_.info_log.empty()) detail += "; info log: " + jit_.info_log;
    check(rc, "cuModuleLoadDataEx", detail);
  }
  auto loaded = std::make_shared<LoadedModule>();
  loaded->module = module;
  loaded_ = std::move(loaded);
}

ModuleHandle Module::handle() const {
  return module_of(loaded_);
}

Function Module::get_function(std::string_view name, std::optional<std::size_t> params) const {
  const std::string entry(name);
  CUfunction function = nullptr;
  check(api().cuModuleGetFunction(&function, module_of(loaded_), entry.c_str()),
        "cuModuleGetFunction(\"" + entry + "\")");
  return Function(loaded_, function, entry, params);
}

int Function::attribute(FunctionAttribute which) const {
  int value = 0;
  check(api().cuFuncGetAttribute(&value, static_cast<CUfunction_attribute>(which), function_),
        std::string("cuFuncGetAttribute(") + attribute_name(which) + ") of '" + name_ + "'");
  return value;
}

void Function::set_max_dynamic_smem(int bytes) const {
  const DriverApi& cu = api();
  const CUresult rc =
      cu.cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
  if (rc == CUDA_SUCCESS) return;
  std::string detail =
      "kernel '" + name_ + "' asked for " + std::to_string(bytes) + " B of dynamic shared memory";
  CUdevice device = 0;
  int optin = 0;
  if (cu.cuCtxGetDevice(&device) == CUDA_SUCCESS &&
      cu.cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                              device) == CUDA_SUCCESS) {
    int static_bytes = 0;
    (void)cu.cuFuncGetAttribute(&static_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function_);
    detail += "; this GPU allows at most " + std::to_string(optin - static_bytes) +
              " B (opt-in maximum " + std::to_string(optin) + " B minus " +
              std::to_string(static_bytes) + " B of static shared memory)";
  }
  check(rc, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", detail);
}

void Function::allow_non_portable_cluster_size(bool allow) const {
  check(api().cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                                 allow ? 1 : 0),
        "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED) of '" + name_ + "'");
}

Function::ParamLayout Function::param_layout() const {
  ParamLayout layout;
  const DriverApi& cu = api();
  if (cu.cuFuncGetParamInfo == nullptr || !declared_params_) return layout;
  layout.known = true;
  for (std::size_t index = 0; index < *declared_params_; ++index) {
    std::size_t offset = 0, size = 0;
    const CUresult rc = cu.cuFuncGetParamInfo(function_, index, &offset, &size);
    if (rc == CUDA_ERROR_INVALID_VALUE) return layout;  // fewer than declared: the check says so
    if (rc != CUDA_SUCCESS) {
      layout.known = false;
      layout.params.clear();
      return layout;
    }
    layout.params.push_back({offset, size});
  }
  return layout;
}

#else  // !GEMMSCOPE_HAVE_CUDA_H

Module::Module(std::string_view) {
  Driver::instance().require();
}
ModuleHandle Module::handle() const {
  return nullptr;
}
Function Module::get_function(std::string_view name, std::optional<std::size_t> params) const {
  Driver::instance().require();
  return Function(loaded_, nullptr, std::string(name), params);
}
int Function::attribute(FunctionAttribute) const {
  Driver::instance().require();
  return 0;
}
void Function::set_max_dynamic_smem(int) const {
  Driver::instance().require();
}
void Function::allow_non_portable_cluster_size(bool) const {
  Driver::instance().require();
}
Function::ParamLayout Function::param_layout() const {
  return {};
}

#endif  // GEMMSCOPE_HAVE_CUDA_H

}  // namespace gs::cuda
