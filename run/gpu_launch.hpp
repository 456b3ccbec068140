// Running one ir::Kernel on the GPU.
//
// Binding: each ir::Param becomes one launch argument.
//   global_ptr  (role a / b / c)     -> the device pointer of that GEMM buffer
//   global_ptr  (role timeline)      -> the record buffer of an instrumented kernel (ir/instrument.hpp)
//   tensor_map  (TensorMapDesc)      -> a cuda::TensorMapSpec (everything from the desc, the
//                                       global address = the buffer of desc.source), encoded
//                                       by the driver and passed as a 128-byte .param
//   u32/s32/u64 (role m / n / k)     -> the problem size
// Planning (plan_arguments) is plain C++, so the tests check every number without a GPU;
// make_kernel_args then asks the driver to encode the tensor maps (needs a current Context).
// The model binds the same parameters by the same roles (engine/model), so the GPU and the model
// read exactly the same bytes.
//
// Launching: the pieces a GPU job uses inside its child (load the kernel, upload the GEMM
// buffers, launch under the watchdog), and run_kernel_once, the whole round trip for callers in
// the parent (the model comparison, the probes, the tests).
//
//   run::KernelRun r = run::run_kernel_once(kernel, buffers, shape);   // buffers: A, B, poisoned C
//   if (r.job.ok()) use(r.c);        // C as the GPU left it, byte for byte
//   else report(r.job.error);        // "kernel 'x' did not finish in 10 s: ...", a fault, no driver
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <utility>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/cuda/context.hpp"
#include "engine/cuda/launch.hpp"
#include "engine/cuda/module.hpp"
#include "engine/cuda/tensor_map_spec.hpp"
#include "engine/ir/kernel.hpp"
#include "engine/model/model.hpp"
#include "run/gpu_job.hpp"
#include "kernels/registry.hpp"

namespace gs::run {

// --- binding --------------------------------------------------------------------------------

// One device buffer of the GEMM: its address and how many bytes it holds (0 = not allocated).
struct DeviceSpan {
  cuda::DevicePtr ptr = 0;
  std::size_t bytes = 0;
};

struct GemmDeviceBuffers {
  DeviceSpan a, b, c;
  DeviceSpan timeline;  // an instrumented kernel's record buffer (ParamRole::timeline)
};

// One kernel argument, decided but not yet encoded.
struct PlannedArg {
  std::string param;                              // the parameter's name, for messages
  ir::ParamKind kind = ir::ParamKind::u32;
  ir::ParamRole role = ir::ParamRole::none;       // for tensor maps: the desc's source
  std::uint64_t value = 0;                        // pointer or scalar (unused for tensor maps)
  std::optional<cuda::TensorMapSpec> tensor_map;  // set for tensor_map params
};

// The driver's description of a tensor map from the kernel's: dtype number, rank, dims,
// strides, box, element strides, swizzle (layout::cu_tensor_map_swizzle), interleave, L2
// promotion and OOB fill copied over; the address supplied by the caller.
cuda::TensorMapSpec tensor_map_spec(const ir::TensorMapDesc& desc, cuda::DevicePtr global_address);

// Bytes of global memory the map can touch: the last element's offset + its size.
std::uint64_t tensor_map_extent_bytes(const ir::TensorMapDesc& desc);

// Every argument of `kernel`, in parameter order. Throws std::invalid_argument naming the
// parameter when one cannot be bound: a pointer or map without a buffer role, a scalar without
// an m/n/k role, a buffer that was not allocated, a tensor map reaching past its buffer
// ("tensor map 'tmap_A' spans 8192 B of A but the A buffer holds 4096 B").
std::vector<PlannedArg> plan_arguments(const ir::Kernel& kernel, const GemmDeviceBuffers& buffers,
                                       kernels::GemmShape shape);

// Encodes the tensor maps (cuda::encode_tensor_map: our rules, then the driver) and packs the
// arguments. Needs a current cuda::Context.
cuda::KernelArgs make_kernel_args(const std::vector<PlannedArg>& plan);

// The launch shape of the kernel: grid, block and cluster from kernel.launch; dynamic shared
// memory = kernel.smem_bytes() when kernel.dynamic_smem, else 0 (static .shared arrays are
// part of the compiled kernel).
cuda::LaunchConfig launch_config(const ir::Kernel& kernel);

// "tmap_A: tensor map of A (BFLOAT16 rank 2 ...), C: pointer to C" for logs.
std::string describe_plan(const std::vector<PlannedArg>& plan);

// --- inside a GPU job's child ------------------------------------------------------------

// The kernel JIT-compiled for the current context's GPU, with its launch shape.
struct LoadedKernel {
  cuda::Module module;
  cuda::Function function;
  cuda::LaunchConfig config;
  int registers = 0;
};

// Why the kernel `kernel_id`, built for `target`, cannot run on `device`, or nullopt when it
// can (cuda::can_run decides), in the words a learner reads first:
//   "blackwell_tcgen05_basic needs sm_100a; this device is sm_90 (NVIDIA H100 80GB HBM3): sm_100a
//    code runs only on compute capability 10.0"
// Plain C++ over DeviceInfo, so it is tested without a GPU.
std::optional<std::string> arch_refusal(std::string_view kernel_id, ir::Arch target, const cuda::DeviceInfo& device);

// Checks that the GPU can run the kernel's target (arch_refusal; throws std::runtime_error
// with its reason), JIT-compiles
// `ptx` (the text of ptx::emit(kernel), made in the parent) and finds the entry point.
LoadedKernel load_kernel(GpuJobContext& job, const cuda::Context& context, const ir::Kernel& kernel,
                         const std::string& ptx);

// A device buffer holding a copy of `bytes` (which must not be empty).
cuda::DeviceBuffer device_copy(const std::vector<uint8_t>& bytes);
// All of a device buffer, downloaded.
std::vector<uint8_t> download_bytes(const cuda::DeviceBuffer& buffer);

// The GEMM's buffers on the device; an empty host buffer gets no device buffer.
struct DeviceGemm {
  std::optional<cuda::DeviceBuffer> a, b, c;
  GemmDeviceBuffers spans() const;
};
DeviceGemm upload_gemm(const model::GemmBuffers& host);

// Launches once on the default stream and synchronizes under the watchdog; returns the
// kernel's time from events (milliseconds).
double launch_once(GpuJobContext& job, const LoadedKernel& loaded, cuda::KernelArgs& args, const std::string& name,
                   std::chrono::milliseconds limit);

// Times `launch(i)` (i = which input set) `warmup` times untimed, then `reps` times between
// events, all on `stream`, under the watchdog. Returns per-launch milliseconds. (How bench
// times a kernel and cuBLAS, and run_kernel_once's timed_launches.)
std::vector<double> time_launches(GpuJobContext& job, const std::string& name, std::chrono::milliseconds limit,
                                  int warmup, int reps, int sets, const cuda::Stream& stream,
                                  const std::function<void(int set)>& launch);

// Two kernels timed in alternation, launch by launch (A, B, A, B, ...), after `warmup` untimed
// pairs: a clock that moves during the run moves under both alike. Returns each side's
// per-launch milliseconds. (bench's paired rounds, ours and cuBLAS.)
std::pair<std::vector<double>, std::vector<double>> time_interleaved(
    GpuJobContext& job, const std::string& name, std::chrono::milliseconds limit, int warmup, int reps, int sets,
    const cuda::Stream& stream, const std::function<void(int set)>& a, const std::function<void(int set)>& b);

// `a` and `b` (b may be empty) launched in alternation, chunks of about 50 ms under the watchdog
// (each `limit` plus 8 times its expected time), until at least `ms` of wall time have passed.
// Returns the launches of `a` and the milliseconds it ran. (bench --sustain: the card at the clock
// its power limit leaves before the timed rounds.)
std::pair<int, double> sustain_load(GpuJobContext& job, const std::string& name, std::chrono::milliseconds limit,
                                    double ms, double per_round_ms, int sets, const cuda::Stream& stream,
                                    const std::function<void(int set)>& a, const std::function<void(int set)>& b);

// Where the child says which GPU it ran on: device_json(context.device()).
nlohmann::json device_of(const cuda::Context& context);

// --- in the parent -----------------------------------------------------------------------

struct KernelRun {
  GpuJobResult job;         // status and error; ok when the kernel ran to the end
  std::vector<uint8_t> c;   // C after the launch (job.ok() only)
  double kernel_ms = 0.0;   // the launch, from events
  int registers = 0;        // per thread, as the JIT compiled it
  cuda::DeviceInfo device;  // the GPU it ran on (job.ok() only)
};

// Uploads buffers.a/b/c (C's initial bytes: poison them to catch unwritten elements), launches
// the kernel once with its own launch shape (kernels::GemmShape for m/n/k parameters), and
// downloads C. A kernel still running after `kernel_limit` ends the child (timed_out).
// `timed_launches` > 0: after that first launch, that many more are queued back to back, each
// between two events, as `gemmscope bench` times a kernel (run/gpu_bench.hpp), and kernel_ms is
// their median (the launch probes: what a launch costs when the GPU is never idle).
KernelRun run_kernel_once(const ir::Kernel& kernel, const model::GemmBuffers& buffers, kernels::GemmShape shape,
                          std::chrono::milliseconds kernel_limit = std::chrono::seconds(10),
                          const GpuJobOptions& options = {}, int timed_launches = 0);

}  // namespace gs::run
