// gs::cuda launches: kernel arguments, launch-shape validation, cuLaunchKernel(Ex).
//
// The checks (launch_config_problems, KernelArgs) are plain C++ so the CPU model and the tests
// use the same rules; launch() adds the device's and the kernel's limits from the driver.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/cuda/driver.hpp"
#include "engine/cuda/module.hpp"
#include "engine/cuda/tensor_map.hpp"

namespace gs::cuda {

struct LaunchConfig {
  std::array<unsigned, 3> grid{1, 1, 1};     // CTAs (blocks) per dimension
  std::array<unsigned, 3> block{1, 1, 1};    // threads per CTA
  std::array<unsigned, 3> cluster{1, 1, 1};  // CTAs per cluster; {1,1,1} = no cluster
  unsigned dynamic_smem_bytes = 0;           // above 48 KiB launch() raises the kernel's limit
};

// What one launch may ask for. Defaults are a generic CUDA 12 device; launch_limits() reads the
// real values for a kernel on the current device.
struct LaunchLimits {
  unsigned max_threads_per_block = 1024;  // min(device, the kernel's .maxntid / register limit)
  std::array<unsigned, 3> max_block{1024, 1024, 64};
  std::array<unsigned, 3> max_grid{2147483647u, 65535u, 65535u};
  unsigned smem_optin_bytes = 48 * 1024;  // device opt-in maximum per block (232448 on H100)
  unsigned static_smem_bytes = 0;         // the kernel's own .shared variables
  unsigned max_cluster_ctas = 8;          // 16 once the kernel allows non-portable sizes
};

// Every problem with `config` under `limits`, one message each naming the value, e.g.
// "grid.x=130 is not a multiple of cluster.x=4". Empty when the launch shape is valid.
std::vector<std::string> launch_config_problems(const LaunchConfig& config,
                                                const LaunchLimits& limits);

// "grid (8, 1, 1), block (128, 1, 1), cluster (2, 1, 1), 102400 B dynamic smem"
std::string describe(const LaunchConfig& config);

enum class KernelArgKind { u32, s32, f32, u64, ptr, tensor_map };
std::string to_string(KernelArgKind kind);

// Where one argument sits in KernelArgs' storage.
struct KernelArgSlot {
  KernelArgKind kind = KernelArgKind::u32;
  std::size_t offset = 0;
  std::size_t size = 0;
  std::size_t align = 0;
};

// Kernel parameters packed in declaration order, each at an offset aligned to its own alignment
// (the PTX parameter-space rule: u32/s32/f32 at 4, u64/ptr at 8, a tensor map at 64 by default,
// matching `.param .align 64 .b8 name[128]`). pointers() is the `void** kernelParams` array of
// cuLaunchKernel: one pointer per argument, into this object's storage.
class KernelArgs {
 public:
  static constexpr std::size_t capacity_bytes = 4096;  // the classic kernel-parameter limit

  KernelArgs& add_u32(std::uint32_t value);
  KernelArgs& add_s32(std::int32_t value);
  KernelArgs& add_f32(float value);
  KernelArgs& add_u64(std::uint64_t value);
  KernelArgs& add_ptr(DevicePtr pointer);
  KernelArgs& add_tensor_map(const TensorMapBytes& map, std::size_t align = 64);

  std::size_t count() const { return slots_.size(); }
  std::size_t size_bytes() const { return end_; }
  const std::vector<KernelArgSlot>& slots() const { return slots_; }
  std::span<const std::byte> bytes() const { return {storage_.data(), end_}; }
  const std::byte* data() const { return storage_.data(); }

  // Valid until the next add_* call or until this object is moved or destroyed.
  void** pointers();
  // "u64, u32, tensor_map"
  std::string describe() const;

 private:
  KernelArgs& add_raw(KernelArgKind kind, const void* value, std::size_t size, std::size_t align);
  alignas(128) std::array<std::byte, capacity_bytes> storage_{};
  std::size_t end_ = 0;
  std::vector<KernelArgSlot> slots_;
  std::vector<void*> pointers_;
};

// The limits for `function` on the device of the current context.
LaunchLimits launch_limits(const Function& function);

// A launch validated once (shape, limits, argument count and sizes when the driver can tell),
// with the kernel's dynamic-smem limit raised; enqueue() then costs one driver call, which keeps
// host overhead out of timing loops.
class PreparedLaunch {
 public:
  void enqueue(StreamHandle stream = nullptr);
  // How many of the grid's CTAs the GPU holds at once (the driver's occupancy answer for this
  // block, dynamic shared memory and cluster shape; whole clusters only, since a cluster must fit
  // in one GPC). A persistent kernel whose grid is larger runs its last CTAs after the others.
  unsigned resident_ctas() const;
  const LaunchConfig& config() const { return config_; }
  const Function& function() const { return function_; }

 private:
  friend PreparedLaunch prepare_launch(const Function&, const LaunchConfig&, const KernelArgs&);
  PreparedLaunch(Function function, LaunchConfig config, KernelArgs args)
      : function_(std::move(function)), config_(config), args_(std::move(args)) {}
  Function function_;
  LaunchConfig config_;
  KernelArgs args_;
};

// Throws std::invalid_argument listing every problem ("cannot launch 'gemm' with grid ...").
PreparedLaunch prepare_launch(const Function& function, const LaunchConfig& config,
                              const KernelArgs& args);

// prepare_launch + enqueue. Uses cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION when
// config.cluster is not {1,1,1}, else cuLaunchKernel. Asynchronous: a fault inside the kernel
// surfaces at the next synchronising call (Context::synchronize()).
void launch(const Function& function, const LaunchConfig& config, KernelArgs& args,
            StreamHandle stream = nullptr);

}  // namespace gs::cuda
