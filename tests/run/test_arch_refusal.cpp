// The GPU runner refuses a kernel built for another GPU with a sentence naming what it needs
// and what the device is: run::arch_refusal on fake device properties (no GPU needed), then
// [gpu] the same refusal from the runner and from `gemmscope bench` on the real device.
#include <catch2/catch.hpp>

#include "engine/cuda/device.hpp"
#include "kernels/registry.hpp"
#include "run/gpu_bench.hpp"
#include "run/gpu_launch.hpp"
#include "tests/cuda/gpu_test_support.hpp"
#include "tests/support/cli_run.hpp"

using namespace gs;
using Catch::Contains;

namespace {

cuda::DeviceInfo fake(int major, int minor, std::string name) {
  cuda::DeviceInfo d;
  d.name = std::move(name);
  d.cc_major = major;
  d.cc_minor = minor;
  return d;
}

}  // namespace

TEST_CASE("arch_refusal: an sm_100a kernel on an H100 names both, an sm_90a one runs", "[run]") {
  const cuda::DeviceInfo h100 = fake(9, 0, "NVIDIA H100 80GB HBM3");
  const cuda::DeviceInfo b200 = fake(10, 0, "NVIDIA B200");
  const std::optional<std::string> r = run::arch_refusal("blackwell_tcgen05_basic", ir::Arch::sm_100a, h100);
  REQUIRE(r);
  CHECK(*r ==
        "blackwell_tcgen05_basic needs sm_100a; this device is sm_90 (NVIDIA H100 80GB HBM3): sm_100a code runs only "
        "on compute capability 10.0");
  CHECK_FALSE(run::arch_refusal("blackwell_tcgen05_basic", ir::Arch::sm_100a, b200));
  CHECK_FALSE(run::arch_refusal("hopper_tma_wgmma_64", ir::Arch::sm_90a, h100));
  const std::optional<std::string> hopper_on_b200 = run::arch_refusal("hopper_tma_wgmma_64", ir::Arch::sm_90a, b200);
  REQUIRE(hopper_on_b200);
  CHECK_THAT(*hopper_on_b200, Contains("hopper_tma_wgmma_64 needs sm_90a; this device is sm_100 (NVIDIA B200)"));
  CHECK_FALSE(run::arch_refusal("simt_naive", ir::Arch::sm_80, b200));
}

TEST_CASE("[gpu] the runner and gemmscope bench refuse sm_100a kernels on a GPU that is not sm_100", "[run][gpu]") {
  GS_REQUIRE_GPU_OR_SKIP();
  const run::DeviceList list = run::list_devices_isolated();
  REQUIRE(list.job.ok());
  const cuda::DeviceInfo& device = list.devices.front();
  if (device.cc_major == 10 && device.cc_minor == 0) {
    WARN("skipped: this GPU (" << device.name << ") runs sm_100a kernels");
    return;
  }
  const kernels::KernelInfo& info = kernels::kernel_or_throw("blackwell_tcgen05_basic");
  run::BenchRequest req;
  req.kernel_id = info.id;
  req.shape = info.example_shape;
  req.reps = 0;
  req.cublas = false;
  const run::BenchResult r = run::run_bench(req);
  CHECK(r.status != run::GpuStatus::ok);
  CHECK_THAT(r.error, Contains("blackwell_tcgen05_basic needs sm_100a; this device is " + cuda::arch_name(device) +
                               " (" + device.name + ")"));

  const test::CliRun cli = test::run_cli({"bench", "blackwell_tcgen05_basic", "--sizes", "example"});
  INFO(cli.err);
  CHECK(cli.code == 3);
  CHECK_THAT(cli.err, Contains("skipped blackwell_tcgen05_basic: blackwell_tcgen05_basic needs sm_100a"));
  CHECK_THAT(cli.err, Contains("none of the kernels can run on this device"));
}
