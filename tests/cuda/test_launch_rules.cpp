// Launch-side rules that need no GPU: KernelArgs packing, launch-shape checks, PTX targets.
#include <catch2/catch.hpp>
#include <cstring>
#include <stdexcept>

#include "engine/cuda/device.hpp"
#include "engine/cuda/launch.hpp"

using namespace gs::cuda;
using Catch::Contains;

namespace {

TensorMapBytes sample_map(unsigned char seed) {
  TensorMapBytes map{};
  for (std::size_t i = 0; i < map.size(); ++i)
    map[i] = std::byte(static_cast<unsigned char>(seed + i));
  return map;
}

template <class T>
T read_at(const KernelArgs& args, std::size_t offset) {
  T value{};
  std::memcpy(&value, args.data() + offset, sizeof value);
  return value;
}

LaunchLimits h100_limits() {
  LaunchLimits limits;
  limits.smem_optin_bytes = 232448;  // facts §10 [DEV]
  return limits;
}

DeviceInfo device(int major, int minor, std::string name) {
  DeviceInfo info;
  info.ordinal = 0;
  info.name = std::move(name);
  info.cc_major = major;
  info.cc_minor = minor;
  return info;
}

}  // namespace

TEST_CASE("KernelArgs packs each argument at its natural alignment", "[cuda][launch]") {
  KernelArgs args;
  args.add_u32(7).add_u64(0x1122334455667788ull).add_ptr(0xdead0000beefull).add_f32(1.5f);
  args.add_tensor_map(sample_map(3)).add_s32(-2);

  REQUIRE(args.count() == 6);
  const auto& s = args.slots();
  // u32 at 0; u64 aligned up from 4 to 8; ptr at 16; f32 at 24; tensor map aligned up from 28
  // to 64; s32 right after it at 192.
  CHECK(s[0].offset == 0);
  CHECK(s[1].offset == 8);
  CHECK(s[2].offset == 16);
  CHECK(s[3].offset == 24);
  CHECK(s[4].offset == 64);
  CHECK(s[4].size == 128);
  CHECK(s[4].align == 64);
  CHECK(s[5].offset == 192);
  CHECK(args.size_bytes() == 196);
  CHECK(args.describe() == "u32, u64, ptr, f32, tensor_map, s32");

  CHECK(read_at<std::uint32_t>(args, 0) == 7u);
  CHECK(read_at<std::uint64_t>(args, 8) == 0x1122334455667788ull);
  CHECK(read_at<std::uint64_t>(args, 16) == 0xdead0000beefull);
  CHECK(read_at<float>(args, 24) == 1.5f);
  CHECK(read_at<std::int32_t>(args, 192) == -2);
  CHECK(std::memcmp(args.data() + 64, sample_map(3).data(), 128) == 0);

  // The storage itself is 128-byte aligned, so each slot is aligned in memory too, and the
  // kernelParams array points at the slots.
  CHECK(reinterpret_cast<std::uintptr_t>(args.data()) % 128 == 0);
  void** pointers = args.pointers();
  for (std::size_t i = 0; i < args.count(); ++i) {
    CHECK(pointers[i] == static_cast<const void*>(args.data() + s[i].offset));
    CHECK(reinterpret_cast<std::uintptr_t>(pointers[i]) % s[i].align == 0);
  }
}

TEST_CASE("KernelArgs tensor-map alignment is configurable but at least 64", "[cuda][launch]") {
  KernelArgs args;
  args.add_u32(1).add_tensor_map(sample_map(0), 128);
  CHECK(args.slots()[1].offset == 128);
  CHECK_THROWS_WITH(args.add_tensor_map(sample_map(0), 32), Contains("at least 64-byte alignment"));
}

TEST_CASE("KernelArgs refuses more than 4096 bytes of parameters", "[cuda][launch]") {
  KernelArgs args;
  for (int i = 0; i < 32; ++i) args.add_tensor_map(sample_map(0));
  CHECK(args.size_bytes() == 4096);
  CHECK_THROWS_AS(args.add_u32(1), std::length_error);
  CHECK_THROWS_WITH(args.add_u32(1),
                    Contains("argument 32 (u32, 4 B at offset 4096) exceeds the 4096 B"));
}

TEST_CASE("a copied KernelArgs points into its own storage", "[cuda][launch]") {
  KernelArgs original;
  original.add_u64(42).add_u32(9);
  KernelArgs copy = original;
  void** pointers = copy.pointers();
  CHECK(pointers[0] == static_cast<const void*>(copy.data()));
  CHECK(pointers[1] == static_cast<const void*>(copy.data() + 8));
  std::uint64_t value = 0;
  std::memcpy(&value, pointers[0], 8);
  CHECK(value == 42);
}

TEST_CASE("a typical Hopper launch shape is valid", "[cuda][launch]") {
  LaunchConfig config;
  config.grid = {132, 1, 1};
  config.block = {384, 1, 1};
  config.cluster = {2, 1, 1};
  config.dynamic_smem_bytes = 200 * 1024;
  CHECK(launch_config_problems(config, h100_limits()).empty());
  CHECK(describe(config) ==
        "grid (132, 1, 1), block (384, 1, 1), cluster (2, 1, 1), 204800 B dynamic smem");
}

TEST_CASE("launch_config_problems names each bad value", "[cuda][launch]") {
  const LaunchLimits limits = h100_limits();
  LaunchConfig config;
  config.grid = {130, 1, 1};
  config.block = {128, 1, 1};
  config.cluster = {4, 1, 1};
  auto problems = launch_config_problems(config, limits);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "grid.x=130 is not a multiple of cluster.x=4");

  config = LaunchConfig{};
  config.block = {32, 33, 1};
  problems = launch_config_problems(config, limits);
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0],
             Contains("block (32, 33, 1) = 1056 threads exceeds the 1024 threads per block"));

  config = LaunchConfig{};
  config.dynamic_smem_bytes = 240000;
  problems = launch_config_problems(config, limits);
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0],
             Contains("dynamic shared memory 240000 B exceeds the 232448 B this kernel may use"));

  LaunchLimits with_static = limits;
  with_static.static_smem_bytes = 1024;
  config.dynamic_smem_bytes = 232000;
  problems = launch_config_problems(config, with_static);
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0],
             Contains("exceeds the 231424 B") && Contains("minus 1024 B of static shared memory"));

  config = LaunchConfig{};
  config.grid = {4, 4, 1};
  config.cluster = {4, 4, 1};
  problems = launch_config_problems(config, limits);
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0], Contains("cluster (4, 4, 1) = 16 CTAs exceeds the maximum of 8"));
  LaunchLimits non_portable = limits;
  non_portable.max_cluster_ctas = 16;
  CHECK(launch_config_problems(config, non_portable).empty());

  config = LaunchConfig{};
  config.grid = {1, 0, 70000};
  config.block = {2048, 1, 1};
  config.cluster = {1, 1, 0};
  problems = launch_config_problems(config, limits);
  CHECK(problems.size() == 5);
  const std::string all = Catch::Detail::stringify(problems);
  CHECK_THAT(all, Contains("grid.y=0: every grid dimension must be at least 1"));
  CHECK_THAT(all, Contains("grid.z=70000 exceeds the device limit of 65535"));
  CHECK_THAT(all, Contains("block.x=2048 exceeds the device limit of 1024"));
  CHECK_THAT(all, Contains("cluster.z=0: every cluster dimension must be at least 1"));
  CHECK_THAT(all, Contains("block (2048, 1, 1) = 2048 threads exceeds the 1024 threads"));

  config = LaunchConfig{};
  config.block = {32, 1, 0};
  problems = launch_config_problems(config, limits);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "block.z=0: every block dimension must be at least 1");
}

TEST_CASE("a kernel's own thread limit is respected", "[cuda][launch]") {
  LaunchLimits limits = h100_limits();
  limits.max_threads_per_block = 384;  // e.g. .maxntid 384
  LaunchConfig config;
  config.block = {512, 1, 1};
  const auto problems = launch_config_problems(config, limits);
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0], Contains("512 threads exceeds the 384 threads per block"));
}

TEST_CASE("PTX targets parse", "[cuda][device]") {
  auto t = parse_arch_target("sm_90a");
  REQUIRE(t);
  CHECK(t->major == 9);
  CHECK(t->minor == 0);
  CHECK(t->kind == ArchTarget::Kind::arch_specific);
  t = parse_arch_target("sm_100a");
  REQUIRE(t);
  CHECK((t->major == 10 && t->minor == 0));
  t = parse_arch_target("sm_86");
  REQUIRE(t);
  CHECK((t->major == 8 && t->minor == 6 && t->kind == ArchTarget::Kind::portable));
  t = parse_arch_target("sm_100f");
  REQUIRE(t);
  CHECK(t->kind == ArchTarget::Kind::family);
  for (const char* bad : {"sm90", "compute_90", "sm_", "sm_9", "sm_9x", "sm_1000", "sm_05", ""}) {
    INFO(bad);
    CHECK_FALSE(parse_arch_target(bad));
  }
}

TEST_CASE("can_run: sm_90a only on 9.0, sm_100a only on 10.0, sm_80 on 8.0 and newer",
          "[cuda][device]") {
  const DeviceInfo h100 = device(9, 0, "NVIDIA H100 80GB HBM3");
  const DeviceInfo a100 = device(8, 0, "NVIDIA A100-SXM4-80GB");
  const DeviceInfo b200 = device(10, 0, "NVIDIA B200");
  const DeviceInfo b300 = device(10, 3, "NVIDIA B300");
  CHECK(arch_name(h100) == "sm_90");
  CHECK(arch_name(b300) == "sm_103");

  std::string why = "stale";
  CHECK(can_run(h100, "sm_90a", &why));
  CHECK(why.empty());
  CHECK(can_run(h100, "sm_80", &why));
  CHECK(can_run(h100, "sm_90", &why));
  CHECK(can_run(b200, "sm_80", &why));
  CHECK(can_run(b200, "sm_100a", &why));
  CHECK(can_run(a100, "sm_80", nullptr));

  CHECK_FALSE(can_run(h100, "sm_100a", &why));
  CHECK(why ==
        "sm_100a code runs only on compute capability 10.0, and GPU 0 (NVIDIA H100 80GB HBM3) is "
        "9.0");
  CHECK_FALSE(can_run(a100, "sm_90a", &why));
  CHECK(
      why ==
      "sm_90a code runs only on compute capability 9.0, and GPU 0 (NVIDIA A100-SXM4-80GB) is 8.0");
  CHECK_FALSE(can_run(b200, "sm_90a", &why));
  CHECK_THAT(why, Contains("NVIDIA B200") && Contains("is 10.0"));
  CHECK_FALSE(can_run(a100, "sm_86", &why));
  CHECK(
      why ==
      "sm_86 code needs compute capability 8.6 or newer, and GPU 0 (NVIDIA A100-SXM4-80GB) is 8.0");
  CHECK_FALSE(can_run(device(7, 5, "Tesla T4"), "sm_80", nullptr));

  // Family targets: same major, minor at least the target's.
  CHECK(can_run(b300, "sm_100f", &why));
  CHECK_FALSE(can_run(b300, "sm_100a", &why));
  CHECK_FALSE(can_run(h100, "sm_100f", &why));
  CHECK_THAT(why, Contains("10.x with x >= 0"));

  CHECK_FALSE(can_run(h100, "sm90a", &why));
  CHECK_THAT(why, Contains("target 'sm90a' is not a PTX target"));
}
