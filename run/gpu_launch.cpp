// run/gpu_launch: binding a kernel's parameters (plain C++) and running it on the GPU.
#include "run/gpu_launch.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/cuda/tensor_map.hpp"
#include "engine/layout/swizzle.hpp"
#include "engine/ptx/emit.hpp"

namespace gs::run {


namespace {

std::string_view buffer_name(ir::ParamRole role) {
  switch (role) {
    case ir::ParamRole::a: return "A";
    case ir::ParamRole::b: return "B";
    case ir::ParamRole::c: return "C";
    case ir::ParamRole::timeline: return "timeline";
    default: return "?";
  }
}

// The GEMM buffer a pointer or tensor-map parameter reads: roles a/b/c, and the tmap_* roles
// name the same buffers.
std::optional<ir::ParamRole> buffer_role(ir::ParamRole role) {
  switch (role) {
    case ir::ParamRole::a:
    case ir::ParamRole::tmap_a: return ir::ParamRole::a;
    case ir::ParamRole::b:
    case ir::ParamRole::tmap_b: return ir::ParamRole::b;
    case ir::ParamRole::c:
    case ir::ParamRole::tmap_c: return ir::ParamRole::c;
    case ir::ParamRole::timeline: return ir::ParamRole::timeline;
    default: return std::nullopt;
  }
}

const DeviceSpan& span_of(const GemmDeviceBuffers& buffers, ir::ParamRole role) {
  switch (role) {
    case ir::ParamRole::a: return buffers.a;
    case ir::ParamRole::b: return buffers.b;
    case ir::ParamRole::timeline: return buffers.timeline;
    default: return buffers.c;
  }
}

std::string_view kind_name(ir::ParamKind kind) {
  switch (kind) {
    case ir::ParamKind::u32: return "u32";
    case ir::ParamKind::u64: return "u64";
    case ir::ParamKind::s32: return "s32";
    case ir::ParamKind::f32: return "f32";
    case ir::ParamKind::global_ptr: return "global pointer";
    case ir::ParamKind::tensor_map: return "tensor map";
  }
  return "?";
}

// The buffer behind a pointer or map parameter, checked to exist.
const DeviceSpan& require_buffer(const ir::Kernel& kernel, const ir::Param& p, ir::ParamRole role,
                                 const GemmDeviceBuffers& buffers) {
  const std::optional<ir::ParamRole> which = buffer_role(role);
  if (!which)
    throw std::invalid_argument(fmt::format(
        "cannot bind parameter '{}' of kernel '{}': a {} needs the role a, b, c or timeline (it has '{}'), so the runner does "
        "not know which buffer it points to",
        p.name, kernel.name, kind_name(p.kind), ir::param_role_name(role)));
  const DeviceSpan& span = span_of(buffers, *which);
  if (span.ptr == 0)
    throw std::invalid_argument(fmt::format("cannot bind parameter '{}' of kernel '{}': no {} buffer was allocated",
                                            p.name, kernel.name, buffer_name(*which)));
  return span;
}

}  // namespace

cuda::TensorMapSpec tensor_map_spec(const ir::TensorMapDesc& desc, cuda::DevicePtr global_address) {
  cuda::TensorMapSpec spec;
  // ir::TensorDtype and the CU_TENSOR_MAP_* enums share their numbers (facts §4).
  spec.dtype = static_cast<cuda::TensorMapDataType>(static_cast<std::uint32_t>(desc.dtype));
  spec.rank = desc.rank;
  spec.global_address = global_address;
  spec.global_dim = desc.global_dim;
  spec.global_strides_bytes = desc.global_strides_bytes;
  spec.box_dim = desc.box_dim;
  spec.element_strides = desc.element_strides;
  spec.interleave = static_cast<cuda::TensorMapInterleave>(desc.interleave);
  spec.swizzle = static_cast<cuda::TensorMapSwizzle>(layout::cu_tensor_map_swizzle(desc.swizzle));
  spec.l2_promotion = static_cast<cuda::TensorMapL2Promotion>(desc.l2_promotion);
  spec.oob_fill = static_cast<cuda::TensorMapOobFill>(desc.oob_fill);
  return spec;
}

std::uint64_t tensor_map_extent_bytes(const ir::TensorMapDesc& desc) {
  if (desc.rank == 0) return 0;
  std::uint64_t last = 0;  // byte offset of the last element
  for (std::uint32_t d = 1; d < desc.rank && d < 5; ++d) {
    if (desc.global_dim[d] == 0) return 0;
    last += (desc.global_dim[d] - 1) * desc.global_strides_bytes[d - 1];
  }
  if (desc.global_dim[0] == 0) return 0;
  const std::uint64_t element = ir::tensor_dtype_bytes(desc.dtype);
  return last + desc.global_dim[0] * element;
}

std::vector<PlannedArg> plan_arguments(const ir::Kernel& kernel, const GemmDeviceBuffers& buffers,
                                       kernels::GemmShape shape) {
  std::vector<PlannedArg> plan;
  plan.reserve(kernel.params.size());
  for (const ir::Param& p : kernel.params) {
    PlannedArg arg;
    arg.param = p.name;
    arg.kind = p.kind;
    arg.role = p.role;
    switch (p.kind) {
      case ir::ParamKind::global_ptr: {
        const DeviceSpan& span = require_buffer(kernel, p, p.role, buffers);
        arg.role = *buffer_role(p.role);
        arg.value = span.ptr;
        break;
      }
      case ir::ParamKind::tensor_map: {
        const DeviceSpan& span = require_buffer(kernel, p, p.tensor_map.source, buffers);
        arg.role = *buffer_role(p.tensor_map.source);
        const std::uint64_t extent = tensor_map_extent_bytes(p.tensor_map);
        if (extent > span.bytes)
          throw std::invalid_argument(fmt::format(
              "cannot bind tensor map '{}' of kernel '{}': it spans {} B of {} but the {} buffer holds {} B (was the "
              "kernel built for a bigger shape?)",
              p.name, kernel.name, extent, buffer_name(arg.role), buffer_name(arg.role), span.bytes));
        arg.tensor_map = tensor_map_spec(p.tensor_map, span.ptr);
        break;
      }
      case ir::ParamKind::u32:
      case ir::ParamKind::s32:
      case ir::ParamKind::u64:
        if (p.role == ir::ParamRole::m)
          arg.value = shape.m;
        else if (p.role == ir::ParamRole::n)
          arg.value = shape.n;
        else if (p.role == ir::ParamRole::k)
          arg.value = shape.k;
        else
          throw std::invalid_argument(fmt::format(
              "cannot bind parameter '{}' of kernel '{}': a {} scalar needs the role m, n or k (it has '{}')", p.name,
              kernel.name, kind_name(p.kind), ir::param_role_name(p.role)));
        break;
      case ir::ParamKind::f32:
        throw std::invalid_argument(fmt::format(
            "cannot bind parameter '{}' of kernel '{}': the runner has no value for an f32 parameter", p.name,
            kernel.name));
    }
    plan.push_back(std::move(arg));
  }
  return plan;
}

cuda::KernelArgs make_kernel_args(const std::vector<PlannedArg>& plan) {
  cuda::KernelArgs args;
  for (const PlannedArg& arg : plan) {
    switch (arg.kind) {
      case ir::ParamKind::global_ptr: args.add_ptr(arg.value); break;
      case ir::ParamKind::tensor_map: args.add_tensor_map(cuda::encode_tensor_map(*arg.tensor_map)); break;
      case ir::ParamKind::u32: args.add_u32(static_cast<std::uint32_t>(arg.value)); break;
      case ir::ParamKind::s32: args.add_s32(static_cast<std::int32_t>(arg.value)); break;
      case ir::ParamKind::u64: args.add_u64(arg.value); break;
      case ir::ParamKind::f32:
        throw std::invalid_argument("make_kernel_args: parameter '" + arg.param + "' is an unbound f32");
    }
  }
  return args;
}

cuda::LaunchConfig launch_config(const ir::Kernel& kernel) {
  cuda::LaunchConfig config;
  for (int d = 0; d < 3; ++d) {
    config.grid[d] = kernel.launch.grid[d];
    config.block[d] = kernel.launch.block[d];
    config.cluster[d] = kernel.launch.cluster[d];
  }
  config.dynamic_smem_bytes = kernel.dynamic_smem ? kernel.smem_bytes() : 0;
  return config;
}

std::string describe_plan(const std::vector<PlannedArg>& plan) {
  std::string text;
  for (const PlannedArg& arg : plan) {
    if (!text.empty()) text += ", ";
    if (arg.tensor_map)
      text += fmt::format("{}: tensor map of {} ({})", arg.param, buffer_name(arg.role), cuda::describe(*arg.tensor_map));
    else if (arg.kind == ir::ParamKind::global_ptr)
      text += fmt::format("{}: pointer to {} (0x{:x})", arg.param, buffer_name(arg.role), arg.value);
    else
      text += fmt::format("{}: {} = {}", arg.param, ir::param_role_name(arg.role), arg.value);
  }
  return text;
}

// --- launching ----------------------------------------------------------------------------


std::optional<std::string> arch_refusal(std::string_view kernel_id, ir::Arch target, const cuda::DeviceInfo& device) {
  std::string why;
  if (cuda::can_run(device, ir::arch_name(target), &why)) return std::nullopt;
  // can_run's reason names the GPU again; the learner's sentence leads with what is needed.
  const std::string reason = why.substr(0, why.find(", and GPU "));
  return fmt::format("{} needs {}; this device is {} ({}): {}", kernel_id, ir::arch_name(target),
                     cuda::arch_name(device), device.name, reason);
}

LoadedKernel load_kernel(GpuJobContext& job, const cuda::Context& context, const ir::Kernel& kernel,
                         const std::string& ptx) {
  if (const std::optional<std::string> refusal = arch_refusal(kernel.name, kernel.target, context.device()))
    throw std::runtime_error(*refusal);
  job.step(fmt::format("JIT-compiling the PTX of '{}' for {}", kernel.name, cuda::arch_name(context.device())));
  cuda::Module module(ptx);
  // The IR declares the parameters: the driver is asked about those and nothing past them.
  cuda::Function function = module.get_function(kernel.name, kernel.params.size());
  const int registers = function.num_regs();
  return LoadedKernel{std::move(module), std::move(function), launch_config(kernel), registers};
}

GemmDeviceBuffers DeviceGemm::spans() const {
  GemmDeviceBuffers spans;
  if (a) spans.a = {a->ptr(), a->size()};
  if (b) spans.b = {b->ptr(), b->size()};
  if (c) spans.c = {c->ptr(), c->size()};
  return spans;
}

cuda::DeviceBuffer device_copy(const std::vector<uint8_t>& bytes) {
  if (bytes.empty()) throw std::invalid_argument("device_copy: nothing to copy (an empty buffer)");
  cuda::DeviceBuffer buffer(bytes.size());
  buffer.upload(std::as_bytes(std::span<const uint8_t>(bytes)));
  return buffer;
}

std::vector<uint8_t> download_bytes(const cuda::DeviceBuffer& buffer) {
  std::vector<uint8_t> bytes(buffer.size());
  buffer.download(std::as_writable_bytes(std::span<uint8_t>(bytes)));
  return bytes;
}

DeviceGemm upload_gemm(const model::GemmBuffers& host) {
  DeviceGemm device;
  auto upload = [](const std::vector<uint8_t>& bytes, std::optional<cuda::DeviceBuffer>& buffer) {
    if (!bytes.empty()) buffer.emplace(device_copy(bytes));
  };
  upload(host.a, device.a);
  upload(host.b, device.b);
  upload(host.c, device.c);
  return device;
}

double launch_once(GpuJobContext& job, const LoadedKernel& loaded, cuda::KernelArgs& args, const std::string& name,
                   std::chrono::milliseconds limit) {
  cuda::PreparedLaunch prepared = cuda::prepare_launch(loaded.function, loaded.config, args);
  cuda::Event start, stop;
  job.wait_for_kernel(name, limit, [&] {
    start.record();
    prepared.enqueue();
    stop.record();
    stop.synchronize();
  });
  return cuda::Event::elapsed_ms(start, stop);
}

std::vector<double> time_launches(GpuJobContext& job, const std::string& name, std::chrono::milliseconds limit,
                                  int warmup, int reps, int sets, const cuda::Stream& stream,
                                  const std::function<void(int set)>& launch) {
  std::vector<cuda::Event> starts(static_cast<size_t>(reps)), stops(static_cast<size_t>(reps));
  job.wait_for_kernel(name, limit, [&] {
    for (int w = 0; w < warmup; ++w) launch(w % sets);
    for (int r = 0; r < reps; ++r) {
      starts[size_t(r)].record(stream.handle());
      launch((warmup + r) % sets);
      stops[size_t(r)].record(stream.handle());
    }
    stream.synchronize();
  });
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) ms.push_back(cuda::Event::elapsed_ms(starts[size_t(r)], stops[size_t(r)]));
  return ms;
}

// Two kernels timed in alternation, launch by launch (A, B, A, B, ...), so that a clock that
// moves during the run moves under both alike: the overhead of one over the other is their
// medians' ratio with the drift taken out.
std::pair<std::vector<double>, std::vector<double>> time_interleaved(
    GpuJobContext& job, const std::string& name, std::chrono::milliseconds limit, int warmup, int reps, int sets,
    const cuda::Stream& stream, const std::function<void(int set)>& a, const std::function<void(int set)>& b) {
  std::vector<cuda::Event> events(static_cast<size_t>(3 * reps));
  job.wait_for_kernel(name, limit, [&] {
    for (int w = 0; w < warmup; ++w) {
      a(w % sets);
      b(w % sets);
    }
    for (int r = 0; r < reps; ++r) {
      const size_t e = 3 * size_t(r);
      events[e].record(stream.handle());
      a((warmup + r) % sets);
      events[e + 1].record(stream.handle());
      b((warmup + r) % sets);
      events[e + 2].record(stream.handle());
    }
    stream.synchronize();
  });
  std::pair<std::vector<double>, std::vector<double>> ms;
  for (int r = 0; r < reps; ++r) {
    const size_t e = 3 * size_t(r);
    ms.first.push_back(cuda::Event::elapsed_ms(events[e], events[e + 1]));
    ms.second.push_back(cuda::Event::elapsed_ms(events[e + 1], events[e + 2]));
  }
  return ms;
}

// Ours and cuBLAS (b may be empty: ours alone) launched in alternation, a chunk of about 50 ms at
// a time, until at least `ms` of wall time have passed: the card reaches the clock its power limit
// leaves before the timed rounds (BenchRequest::sustain_ms). Returns the launches of ours and the
// milliseconds it ran.
std::pair<int, double> sustain_load(GpuJobContext& job, const std::string& name, std::chrono::milliseconds limit,
                                    double ms, double per_round_ms, int sets, const cuda::Stream& stream,
                                    const std::function<void(int set)>& a, const std::function<void(int set)>& b) {
  const int chunk = int(std::clamp(std::ceil(50.0 / std::max(per_round_ms, 1e-3)), 1.0, 100000.0));
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  int launches = 0;
  while (elapsed() < ms) {
    job.wait_for_kernel(name, limit + std::chrono::milliseconds(int64_t(std::ceil(8.0 * per_round_ms * chunk))), [&] {
      for (int i = 0; i < chunk; ++i, ++launches) {
        a(launches % sets);
        if (b) b(launches % sets);
      }
      stream.synchronize();
    });
  }
  return {launches, elapsed()};
}

nlohmann::json device_of(const cuda::Context& context) { return device_json(context.device()); }

KernelRun run_kernel_once(const ir::Kernel& kernel, const model::GemmBuffers& buffers, kernels::GemmShape shape,
                          std::chrono::milliseconds kernel_limit, const GpuJobOptions& options, int timed_launches) {
  const std::string ptx = ptx::emit(kernel).text;  // in the parent: the child only talks to the GPU
  GpuJobOptions opts = options;
  opts.limits.kernels = kernel_limit;
  KernelRun run;
  run.job = run_gpu_job(
      fmt::format("kernel '{}'", kernel.name),
      [&](GpuJobContext& job) {
        job.step("creating the CUDA context");
        cuda::Context context(0);
        const LoadedKernel loaded = load_kernel(job, context, kernel, ptx);
        job.step("uploading the inputs");
        DeviceGemm device = upload_gemm(buffers);
        cuda::KernelArgs args = make_kernel_args(plan_arguments(kernel, device.spans(), shape));
        double ms = launch_once(job, loaded, args, kernel.name, kernel_limit);
        if (timed_launches > 0) {  // back to back as bench times a kernel; their median
          cuda::PreparedLaunch prepared = cuda::prepare_launch(loaded.function, loaded.config, args);
          const cuda::Stream stream;
          std::vector<double> times = time_launches(job, kernel.name, kernel_limit, 0, timed_launches, 1, stream,
                                                    [&](int) { prepared.enqueue(stream.handle()); });
          std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
          ms = times[times.size() / 2];
        }
        job.step("downloading C");
        std::vector<uint8_t> c;
        if (device.c) c = download_bytes(*device.c);
        return nlohmann::json{{"device", device_of(context)},
                              {"kernel_ms", ms},
                              {"registers", loaded.registers},
                              {"c", nlohmann::json::binary(std::move(c))}};
      },
      opts);
  if (run.job.ok()) {
    const nlohmann::json& v = run.job.value;
    run.c = v.at("c").get_binary();
    run.kernel_ms = v.value("kernel_ms", 0.0);
    run.registers = v.value("registers", 0);
    run.device = device_from_json(v.at("device"));
    run.job.value.erase("c");  // the bytes live in run.c now
  }
  return run;
}

}  // namespace gs::run
