// run/gpu_launch (binding): every ir::Param becomes the right launch argument, checked number by
// number without a GPU (planning is plain C++; only encoding a tensor map needs the driver).
#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "engine/cuda/tensor_map_spec.hpp"
#include "run/gpu_launch.hpp"
#include "kernels/probes.hpp"

using namespace gs;
using Catch::Contains;

namespace {

constexpr cuda::DevicePtr kA = 0x7f0000000000ull, kB = 0x7f1000000000ull, kC = 0x7f2000000000ull;

run::GemmDeviceBuffers buffers_for(kernels::GemmShape s, size_t ab_bytes, size_t c_bytes) {
  return {{kA, size_t(s.m) * s.k * ab_bytes}, {kB, size_t(s.n) * s.k * ab_bytes}, {kC, size_t(s.m) * s.n * c_bytes}};
}

const run::PlannedArg& arg_named(const std::vector<run::PlannedArg>& plan, const std::string& name) {
  for (const run::PlannedArg& a : plan)
    if (a.param == name) return a;
  FAIL("no argument named " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("binding: the Hopper kernel's tensor maps become the driver's numbers", "[run][binding]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_tma_wgmma_64");
  const kernels::GemmShape shape{4096, 2048, 8192};  // M, N, K all different, so a swap shows
  const ir::Kernel kernel = kernels::build_kernel(info, {shape, {}});
  const std::vector<run::PlannedArg> plan = run::plan_arguments(kernel, buffers_for(shape, 2, 4), shape);
  REQUIRE(plan.size() == kernel.params.size());

  const run::PlannedArg& a = arg_named(plan, "tmap_A");
  REQUIRE(a.tensor_map);
  const cuda::TensorMapSpec& ma = *a.tensor_map;
  CHECK(a.kind == ir::ParamKind::tensor_map);
  CHECK(a.role == ir::ParamRole::a);
  CHECK(static_cast<uint32_t>(ma.dtype) == 9);  // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
  CHECK(ma.rank == 2);
  CHECK(ma.global_address == kA);
  CHECK(ma.global_dim[0] == 8192);  // K, contiguous
  CHECK(ma.global_dim[1] == 4096);  // M
  CHECK(ma.global_strides_bytes[0] == 8192 * 2);
  CHECK(ma.box_dim[0] == 64);
  CHECK(ma.box_dim[1] == 64);
  CHECK(ma.element_strides[0] == 1);
  CHECK(ma.element_strides[1] == 1);
  CHECK(static_cast<uint32_t>(ma.swizzle) == 3);  // CU_TENSOR_MAP_SWIZZLE_128B
  CHECK(static_cast<uint32_t>(ma.interleave) == 0);
  CHECK(static_cast<uint32_t>(ma.l2_promotion) == 0);
  CHECK(static_cast<uint32_t>(ma.oob_fill) == 0);
  CHECK(cuda::tensor_map_problems(ma).empty());
  CHECK(cuda::tensor_map_box_bytes(ma) == 64 * 64 * 2);

  const run::PlannedArg& b = arg_named(plan, "tmap_B");
  REQUIRE(b.tensor_map);
  CHECK(b.role == ir::ParamRole::b);
  CHECK(b.tensor_map->global_address == kB);
  CHECK(b.tensor_map->global_dim[0] == 8192);  // K
  CHECK(b.tensor_map->global_dim[1] == 2048);  // N: B is stored N×K
  CHECK(b.tensor_map->global_strides_bytes[0] == 8192 * 2);
  CHECK(cuda::tensor_map_problems(*b.tensor_map).empty());

  const run::PlannedArg& c = arg_named(plan, "C");
  CHECK(c.kind == ir::ParamKind::global_ptr);
  CHECK(c.role == ir::ParamRole::c);
  CHECK(c.value == kC);
  CHECK_FALSE(c.tensor_map);
  CHECK_THAT(run::describe_plan(plan), Contains("tmap_A: tensor map of A (BFLOAT16 rank 2") && Contains("C: pointer to C"));
}

TEST_CASE("binding: step 18's C tensor map is C's buffer in f32 boxes of 64x64, valid at an odd shape", "[run][binding]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_tma_store");
  const kernels::GemmShape shape{1000, 1000, 1000};  // the stores clip at row and column 1000
  const ir::Kernel kernel = kernels::build_kernel(info, {shape, {}});
  const std::vector<run::PlannedArg> plan = run::plan_arguments(kernel, buffers_for(shape, 2, 4), shape);
  const run::PlannedArg& c = arg_named(plan, "tmap_C");
  REQUIRE(c.tensor_map);
  const cuda::TensorMapSpec& m = *c.tensor_map;
  CHECK(c.role == ir::ParamRole::c);
  CHECK(m.global_address == kC);
  CHECK(static_cast<uint32_t>(m.dtype) == 7);  // CU_TENSOR_MAP_DATA_TYPE_FLOAT32
  CHECK(m.global_dim[0] == 1000);               // N, contiguous
  CHECK(m.global_dim[1] == 1000);               // M
  CHECK(m.global_strides_bytes[0] == 1000 * 4);
  CHECK(m.box_dim[0] == 64);
  CHECK(m.box_dim[1] == 64);
  CHECK(static_cast<uint32_t>(m.swizzle) == 0);  // the staging buffer is packed
  CHECK(cuda::tensor_map_problems(m).empty());
}

TEST_CASE("binding: the wrong-swizzle mistake reaches the driver as SWIZZLE_NONE", "[run][binding]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_tma_wgmma_64");
  const kernels::GemmShape shape = info.example_shape;
  const ir::Kernel kernel = kernels::build_kernel(info, {shape, {"wrong-swizzle"}});
  const auto plan = run::plan_arguments(kernel, buffers_for(shape, 2, 4), shape);
  CHECK(static_cast<uint32_t>(arg_named(plan, "tmap_A").tensor_map->swizzle) == 0);
  CHECK(static_cast<uint32_t>(arg_named(plan, "tmap_B").tensor_map->swizzle) == 0);
}

TEST_CASE("binding: each swizzle of the TMA probe maps to its CUtensorMapSwizzle", "[run][binding]") {
  struct Case {
    uint32_t cols;
    layout::Swizzle sw;
    uint32_t cu;
  };
  for (const Case c : {Case{16, layout::Swizzle::b32, 1}, Case{32, layout::Swizzle::b64, 2},
                       Case{64, layout::Swizzle::b128, 3}, Case{64, layout::Swizzle::none, 0}}) {
    const ir::Kernel k = kernels::build_tma_placement_probe(c.cols, c.sw);
    run::GemmDeviceBuffers buffers{{kA, size_t(64) * c.cols * 2}, {}, {kC, size_t(64) * c.cols * 2}};
    const auto plan = run::plan_arguments(k, buffers, {});
    const cuda::TensorMapSpec& spec = *arg_named(plan, "tmap_A").tensor_map;
    CHECK(static_cast<uint32_t>(spec.swizzle) == c.cu);
    CHECK(spec.box_dim[0] == c.cols);
    CHECK(spec.box_dim[1] == 64);
    CHECK(cuda::tensor_map_problems(spec).empty());
  }
}

TEST_CASE("binding: launch shape and dynamic shared memory come from the kernel", "[run][binding]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_tma_wgmma_64");
  const ir::Kernel kernel = kernels::build_kernel(info, {{256, 128, 256}, {}});
  const cuda::LaunchConfig config = run::launch_config(kernel);
  CHECK(config.grid == std::array<unsigned, 3>{2, 4, 1});  // N/64, M/64
  CHECK(config.block == std::array<unsigned, 3>{128, 1, 1});
  CHECK(config.cluster == std::array<unsigned, 3>{1, 1, 1});
  CHECK(config.dynamic_smem_bytes == (kernel.dynamic_smem ? kernel.smem_bytes() : 0u));

  builder::Builder b("dyn", ir::Arch::sm_90);
  b.set_launch({.grid = {3, 2, 1}, .block = {64, 1, 1}, .cluster = {3, 1, 1}});
  b.shared("tile", 64 * 1024, 1024, ir::SmemUse::tile);
  b.use_dynamic_smem();
  b.ret();
  const ir::Kernel dyn = b.finish();
  const cuda::LaunchConfig d = run::launch_config(dyn);
  CHECK(d.dynamic_smem_bytes == 64 * 1024);
  CHECK(d.cluster == std::array<unsigned, 3>{3, 1, 1});
  CHECK(d.grid == std::array<unsigned, 3>{3, 2, 1});
}

TEST_CASE("binding: pointer kernels pack without a driver", "[run][binding]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("simt_naive");
  const kernels::GemmShape shape{100, 70, 33};
  const ir::Kernel kernel = kernels::build_kernel(info, {shape, {}});
  const auto plan = run::plan_arguments(kernel, buffers_for(shape, 4, 4), shape);
  REQUIRE(plan.size() == 3);
  CHECK(plan[0].value == kA);
  CHECK(plan[1].value == kB);
  CHECK(plan[2].value == kC);
  cuda::KernelArgs args = run::make_kernel_args(plan);
  CHECK(args.count() == 3);
  CHECK(args.describe() == "ptr, ptr, ptr");
  CHECK(args.size_bytes() == 24);
}

TEST_CASE("binding: what cannot be bound is named", "[run][binding]") {
  const kernels::KernelInfo& info = kernels::kernel_or_throw("hopper_tma_wgmma_64");
  const kernels::GemmShape shape = info.example_shape;
  const ir::Kernel kernel = kernels::build_kernel(info, {shape, {}});

  run::GemmDeviceBuffers small = buffers_for(shape, 2, 4);
  small.a.bytes /= 2;
  CHECK_THROWS_WITH(run::plan_arguments(kernel, small, shape),
                    Contains("tensor map 'tmap_A'") && Contains("spans 65536 B of A but the A buffer holds 32768 B"));

  run::GemmDeviceBuffers no_b = buffers_for(shape, 2, 4);
  no_b.b = {};
  CHECK_THROWS_WITH(run::plan_arguments(kernel, no_b, shape), Contains("no B buffer was allocated"));

  builder::Builder b("roles", ir::Arch::sm_80);
  b.param("count", ir::ParamKind::u32);
  b.ret();
  const ir::Kernel anonymous = b.finish();
  CHECK_THROWS_WITH(run::plan_arguments(anonymous, buffers_for(shape, 2, 4), shape),
                    Contains("parameter 'count'") && Contains("needs the role m, n or k"));

  builder::Builder s("scalars", ir::Arch::sm_80);
  s.param("M", ir::ParamKind::u32, ir::ParamRole::m);
  s.param("K", ir::ParamKind::u64, ir::ParamRole::k);
  s.ret();
  const auto plan = run::plan_arguments(s.finish(), {}, {96, 80, 48});
  CHECK(plan[0].value == 96);
  CHECK(plan[1].value == 48);
}

TEST_CASE("binding: a tensor map's extent is its last element's end", "[run][binding]") {
  ir::TensorMapDesc d;
  d.dtype = ir::TensorDtype::bf16;
  d.rank = 2;
  d.global_dim = {64, 128, 1, 1, 1};
  d.global_strides_bytes = {256, 0, 0, 0};  // rows padded to 256 B
  CHECK(run::tensor_map_extent_bytes(d) == 127 * 256 + 64 * 2);
  d.rank = 3;
  d.global_dim = {64, 128, 4, 1, 1};
  d.global_strides_bytes = {256, 256 * 128, 0, 0};
  CHECK(run::tensor_map_extent_bytes(d) == 3 * 256 * 128 + 127 * 256 + 64 * 2);
}
