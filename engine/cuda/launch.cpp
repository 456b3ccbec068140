// gs::cuda launches: argument packing, shape checks, cuLaunchKernel / cuLaunchKernelEx.
#include "engine/cuda/launch.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "engine/cuda/driver_api.hpp"

namespace gs::cuda {
namespace {

constexpr unsigned kDefaultDynamicSmemLimit = 48 * 1024;
constexpr const char* kAxis[3] = {"x", "y", "z"};

std::string triple(const std::array<unsigned, 3>& v) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) +
         ")";
}

unsigned long long product(const std::array<unsigned, 3>& v) {
  return 1ull * v[0] * v[1] * v[2];
}

}  // namespace

// --- shape checks -----------------------------------------------------------------------------

std::vector<std::string> launch_config_problems(const LaunchConfig& config,
                                                const LaunchLimits& limits) {
  std::vector<std::string> problems;
  for (int a = 0; a < 3; ++a) {
    const std::string axis = kAxis[a];
    if (config.grid[a] == 0) {
      problems.push_back("grid." + axis + "=0: every grid dimension must be at least 1");
    } else if (config.grid[a] > limits.max_grid[a]) {
      problems.push_back("grid." + axis + "=" + std::to_string(config.grid[a]) +
                         " exceeds the device limit of " + std::to_string(limits.max_grid[a]));
    }
    if (config.block[a] == 0) {
      problems.push_back("block." + axis + "=0: every block dimension must be at least 1");
    } else if (config.block[a] > limits.max_block[a]) {
      problems.push_back("block." + axis + "=" + std::to_string(config.block[a]) +
                         " exceeds the device limit of " + std::to_string(limits.max_block[a]));
    }
    if (config.cluster[a] == 0) {
      problems.push_back("cluster." + axis +
                         "=0: every cluster dimension must be at least 1 "
                         "(use {1, 1, 1} for no cluster)");
    } else if (config.grid[a] % config.cluster[a] != 0) {
      problems.push_back("grid." + axis + "=" + std::to_string(config.grid[a]) +
                         " is not a multiple of cluster." + axis + "=" +
                         std::to_string(config.cluster[a]));
    }
  }
  const unsigned long long threads = product(config.block);
  if (threads > limits.max_threads_per_block) {
    problems.push_back("block " + triple(config.block) + " = " + std::to_string(threads) +
                       " threads exceeds the " + std::to_string(limits.max_threads_per_block) +
                       " threads per block this kernel allows on this device");
  }
  const unsigned long long ctas = product(config.cluster);
  if (ctas > limits.max_cluster_ctas) {
    problems.push_back("cluster " + triple(config.cluster) + " = " + std::to_string(ctas) +
                       " CTAs exceeds the maximum of " + std::to_string(limits.max_cluster_ctas) +
                       (limits.max_cluster_ctas <= 8
                            ? " (the portable size; Function::allow_non_portable_cluster_size "
                              "permits up to 16 where the GPU supports it)"
                            : ""));
  }
  const unsigned long long allowed = limits.smem_optin_bytes > limits.static_smem_bytes
                                         ? limits.smem_optin_bytes - limits.static_smem_bytes
                                         : 0;
  if (config.dynamic_smem_bytes > allowed) {
    problems.push_back("dynamic shared memory " + std::to_string(config.dynamic_smem_bytes) +
                       " B exceeds the " + std::to_string(allowed) +
                       " B this kernel may use (opt-in maximum " +
                       std::to_string(limits.smem_optin_bytes) + " B minus " +
                       std::to_string(limits.static_smem_bytes) + " B of static shared memory)");
  }
  return problems;
}

std::string describe(const LaunchConfig& config) {
  std::string text = "grid " + triple(config.grid) + ", block " + triple(config.block);
  if (product(config.cluster) != 1) text += ", cluster " + triple(config.cluster);
  return text + ", " + std::to_string(config.dynamic_smem_bytes) + " B dynamic smem";
}

// --- KernelArgs -------------------------------------------------------------------------------

std::string to_string(KernelArgKind kind) {
  switch (kind) {
    case KernelArgKind::u32: return "u32";
    case KernelArgKind::s32: return "s32";
    case KernelArgKind::f32: return "f32";
    case KernelArgKind::u64: return "u64";
    case KernelArgKind::ptr: return "ptr";
    case KernelArgKind::tensor_map: return "tensor_map";
  }
  return "?";
}

KernelArgs& KernelArgs::add_raw(KernelArgKind kind, const void* value, std::size_t size,
                                std::size_t align) {
  if (align == 0 || (align & (align - 1)) != 0 || align > 128) {
    throw std::invalid_argument("kernel argument " + std::to_string(slots_.size()) + " (" +
                                to_string(kind) + "): alignment " + std::to_string(align) +
                                " is not a power of two up to 128");
  }
  const std::size_t offset = (end_ + align - 1) / align * align;
  if (offset + size > capacity_bytes) {
    throw std::length_error("kernel argument " + std::to_string(slots_.size()) + " (" +
                            to_string(kind) + ", " + std::to_string(size) + " B at offset " +
                            std::to_string(offset) + ") exceeds the " +
                            std::to_string(capacity_bytes) + " B of kernel parameters");
  }
  std::memcpy(storage_.data() + offset, value, size);
  slots_.push_back({kind, offset, size, align});
  end_ = offset + size;
  return *this;
}

KernelArgs& KernelArgs::add_u32(std::uint32_t value) {
  return add_raw(KernelArgKind::u32, &value, 4, 4);
}
KernelArgs& KernelArgs::add_s32(std::int32_t value) {
  return add_raw(KernelArgKind::s32, &value, 4, 4);
}
KernelArgs& KernelArgs::add_f32(float value) {
  return add_raw(KernelArgKind::f32, &value, 4, 4);
}
KernelArgs& KernelArgs::add_u64(std::uint64_t value) {
  return add_raw(KernelArgKind::u64, &value, 8, 8);
}
KernelArgs& KernelArgs::add_ptr(DevicePtr pointer) {
  static_assert(sizeof(DevicePtr) == 8);
  return add_raw(KernelArgKind::ptr, &pointer, 8, 8);
}
KernelArgs& KernelArgs::add_tensor_map(const TensorMapBytes& map, std::size_t align) {
  if (align < 64) {
    throw std::invalid_argument("a tensor map parameter needs at least 64-byte alignment (got " +
                                std::to_string(align) + ")");
  }
  return add_raw(KernelArgKind::tensor_map, map.data(), map.size(), align);
}

void** KernelArgs::pointers() {
  pointers_.clear();
  for (const KernelArgSlot& slot : slots_) pointers_.push_back(storage_.data() + slot.offset);
  return pointers_.data();
}

std::string KernelArgs::describe() const {
  std::string text;
  for (const KernelArgSlot& slot : slots_)
    text += (text.empty() ? "" : ", ") + to_string(slot.kind);
  return text.empty() ? "none" : text;
}

// --- driver side ------------------------------------------------------------------------------

#if GEMMSCOPE_HAVE_CUDA_H

namespace {

std::string join_problems(const std::vector<std::string>& problems) {
  std::string text;
  for (const std::string& p : problems) text += "\n  - " + p;
  return text;
}

// Compares the packed arguments with the kernel's parameters as the driver reports them. An
// empty parameter list is not trusted (a driver that cannot tell may report none), and extra
// arguments to a kernel without parameters are harmless anyway.
void check_arguments(const Function& function, const KernelArgs& args,
                     std::vector<std::string>& problems) {
  const Function::ParamLayout layout = function.param_layout();
  if (!layout.known || layout.params.empty()) return;
  if (layout.params.size() != args.count()) {
    std::string sizes;
    for (const ParamSlot& p : layout.params)
      sizes += (sizes.empty() ? "" : ", ") + std::to_string(p.size);
    problems.push_back("kernel '" + function.name() + "' takes " +
                       std::to_string(layout.params.size()) + " parameters (" + sizes + " B) but " +
                       std::to_string(args.count()) + " arguments were given (" + args.describe() +
                       ")");
    return;
  }
  for (std::size_t i = 0; i < args.count(); ++i) {
    const KernelArgSlot& slot = args.slots()[i];
    if (slot.size != layout.params[i].size) {
      problems.push_back("argument " + std::to_string(i) + " is a " + to_string(slot.kind) + " (" +
                         std::to_string(slot.size) + " B) but parameter " + std::to_string(i) +
                         " of kernel '" + function.name() + "' is " +
                         std::to_string(layout.params[i].size) + " B");
    }
  }
}

// The driver's description of a cluster launch; `attribute` (the cluster's shape) must outlive it.
CUlaunchConfig cluster_launch_config(const LaunchConfig& c, StreamHandle stream, CUlaunchAttribute& attribute) {
  attribute = CUlaunchAttribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = c.cluster[0];
  attribute.value.clusterDim.y = c.cluster[1];
  attribute.value.clusterDim.z = c.cluster[2];
  CUlaunchConfig launch_config{};
  launch_config.gridDimX = c.grid[0];
  launch_config.gridDimY = c.grid[1];
  launch_config.gridDimZ = c.grid[2];
  launch_config.blockDimX = c.block[0];
  launch_config.blockDimY = c.block[1];
  launch_config.blockDimZ = c.block[2];
  launch_config.sharedMemBytes = c.dynamic_smem_bytes;
  launch_config.hStream = stream;
  launch_config.attrs = &attribute;
  launch_config.numAttrs = 1;
  return launch_config;
}

}  // namespace

LaunchLimits launch_limits(const Function& function) {
  const DriverApi& cu = api();
  CUdevice device = 0;
  check(cu.cuCtxGetDevice(&device), "cuCtxGetDevice (a launch needs a current Context)");
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    check(cu.cuDeviceGetAttribute(&value, which, device), "cuDeviceGetAttribute");
    return static_cast<unsigned>(value);
  };
  LaunchLimits limits;
  limits.max_block = {attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                      attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                      attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)};
  limits.max_grid = {attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
                     attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                     attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)};
  limits.max_threads_per_block = std::min(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
                                          static_cast<unsigned>(function.max_threads_per_block()));
  limits.smem_optin_bytes = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  limits.static_smem_bytes = static_cast<unsigned>(function.static_smem_bytes());
  limits.max_cluster_ctas =
      function.attribute(FunctionAttribute::non_portable_cluster_size_allowed) != 0 ? 16 : 8;
  return limits;
}

PreparedLaunch prepare_launch(const Function& function, const LaunchConfig& config,
                              const KernelArgs& args) {
  std::vector<std::string> problems = launch_config_problems(config, launch_limits(function));
  check_arguments(function, args, problems);
  if (!problems.empty()) {
    throw std::invalid_argument("cannot launch '" + function.name() + "' with " + describe(config) +
                                ":" + join_problems(problems));
  }
  // Above 48 KiB the kernel must opt in; raise its limit only when needed (the attribute is
  // sticky per function, so repeated launches do not pay for it again).
  if (config.dynamic_smem_bytes > kDefaultDynamicSmemLimit &&
      static_cast<unsigned>(function.attribute(FunctionAttribute::max_dynamic_smem_bytes)) <
          config.dynamic_smem_bytes) {
    function.set_max_dynamic_smem(static_cast<int>(config.dynamic_smem_bytes));
  }
  return PreparedLaunch(function, config, args);
}

void PreparedLaunch::enqueue(StreamHandle stream) {
  const DriverApi& cu = api();
  void** params = args_.pointers();
  const LaunchConfig& c = config_;
  if (product(c.cluster) != 1) {
    auto launch_ex = require_entry_point(cu.cuLaunchKernelEx, "cuLaunchKernelEx");
    CUlaunchAttribute attribute{};
    CUlaunchConfig launch_config = cluster_launch_config(c, stream, attribute);
    check(launch_ex(&launch_config, function_.handle(), params, nullptr),
          "cuLaunchKernelEx('" + function_.name() + "', " + describe(c) + ")");
    return;
  }
  check(cu.cuLaunchKernel(function_.handle(), c.grid[0], c.grid[1], c.grid[2], c.block[0],
                          c.block[1], c.block[2], c.dynamic_smem_bytes, stream, params, nullptr),
        "cuLaunchKernel('" + function_.name() + "', " + describe(c) + ")");
}

unsigned PreparedLaunch::resident_ctas() const {
  const DriverApi& cu = api();
  const LaunchConfig& c = config_;
  const unsigned block = c.block[0] * c.block[1] * c.block[2];
  if (product(c.cluster) != 1) {
    auto max_clusters = require_entry_point(cu.cuOccupancyMaxActiveClusters, "cuOccupancyMaxActiveClusters");
    CUlaunchAttribute attribute{};
    const CUlaunchConfig launch_config = cluster_launch_config(c, nullptr, attribute);
    int clusters = 0;
    check(max_clusters(&clusters, function_.handle(), &launch_config),
          "cuOccupancyMaxActiveClusters('" + function_.name() + "', " + describe(c) + ")");
    return static_cast<unsigned>(clusters) * static_cast<unsigned>(product(c.cluster));
  }
  int per_sm = 0;
  check(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, function_.handle(), static_cast<int>(block),
                                                        c.dynamic_smem_bytes),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor('" + function_.name() + "', " + describe(c) + ")");
  CUdevice device = 0;
  check(cu.cuCtxGetDevice(&device), "cuCtxGetDevice (an occupancy query needs a current Context)");
  int sms = 0;
  check(cu.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device), "cuDeviceGetAttribute");
  return static_cast<unsigned>(per_sm) * static_cast<unsigned>(sms);
}

#else  // !GEMMSCOPE_HAVE_CUDA_H

LaunchLimits launch_limits(const Function&) {
  Driver::instance().require();
  return {};
}

PreparedLaunch prepare_launch(const Function& function, const LaunchConfig& config,
                              const KernelArgs& args) {
  Driver::instance().require();
  return PreparedLaunch(function, config, args);
}

void PreparedLaunch::enqueue(StreamHandle) {
  Driver::instance().require();
}

unsigned PreparedLaunch::resident_ctas() const {
  Driver::instance().require();
  return 0;
}

#endif  // GEMMSCOPE_HAVE_CUDA_H

void launch(const Function& function, const LaunchConfig& config, KernelArgs& args,
            StreamHandle stream) {
  prepare_launch(function, config, args).enqueue(stream);
}

}  // namespace gs::cuda
