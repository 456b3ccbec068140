// run/gpu_job and the GPU commands of the command line, without a GPU.
//
// Jobs here mostly skip the driver check (GpuJobOptions::require_driver = false), so the
// watchdog, the step reports and the CBOR transport are exercised on any machine. The command
// line (cli/commands_gpu.cpp) runs in-process through run_cli: usage errors exit 2 before any
// GPU work, and without a driver every command exits 3 and says so. The no-driver cases skip
// themselves where a GPU is present (the [gpu] tests cover that side). GPU work is always
// forked, so this process never initialises CUDA.
#include <chrono>
#include <csignal>
#include <sstream>
#include <thread>

#include <catch2/catch.hpp>

#include "cli/cli.hpp"
#include "engine/cuda/driver.hpp"
#include "run/gpu_job.hpp"
#include "tests/cuda/gpu_test_support.hpp"

using namespace gs;
using Catch::Contains;
using namespace std::chrono_literals;

namespace {

run::GpuJobOptions machinery_only(std::chrono::milliseconds kernels = 2s) {
  run::GpuJobOptions options;
  options.require_driver = false;
  options.limits.setup = 20s;
  options.limits.kernels = kernels;
  return options;
}

struct CliRun {
  int code;
  std::string out, err;
};

CliRun run_cli(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = gs::cli::run_cli(args, {out, err});
  return {code, out.str(), err.str()};
}

}  // namespace

TEST_CASE("gpu job: a result comes back through CBOR, binary bytes included", "[run][gpu_job]") {
  const run::GpuJobResult r = run::run_gpu_job(
      "round trip",
      [](run::GpuJobContext& job) {
        job.step("making bytes");
        std::vector<uint8_t> bytes(70000);
        for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 7);
        return nlohmann::json{{"n", 42}, {"inf", INFINITY}, {"bytes", nlohmann::json::binary(std::move(bytes))}};
      },
      machinery_only());
  INFO(r.error);
  REQUIRE(r.ok());
  CHECK(r.value["n"] == 42);
  CHECK(std::isinf(r.value["inf"].get<double>()));
  const auto& bytes = r.value["bytes"].get_binary();
  REQUIRE(bytes.size() == 70000);
  CHECK(bytes[69999] == uint8_t(69999 * 7));
  CHECK(r.last_step == "making bytes");
  CHECK_FALSE(cuda::Driver::cuda_initialised());
}

TEST_CASE("gpu job: the watchdog ends a wait that never returns and says why", "[run][gpu_job]") {
  const auto t0 = std::chrono::steady_clock::now();
  const run::GpuJobResult r = run::run_gpu_job(
      "watchdog",
      [](run::GpuJobContext& job) {
        job.wait_for_kernel("quick", 2s, [] { std::this_thread::sleep_for(10ms); });
        job.wait_for_kernel("spin_forever", 300ms, [] { std::this_thread::sleep_for(60s); });
        return nlohmann::json("unreachable");
      },
      machinery_only(30s));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(r.status == run::GpuStatus::timed_out);
  CHECK_THAT(r.error, Contains("kernel 'spin_forever' did not finish in 300 ms") &&
                          Contains("likely an mbarrier deadlock") && Contains("the model can show where"));
  CHECK_THAT(r.last_step, Contains("waiting for kernel 'spin_forever'"));
  CHECK(seconds < 10.0);  // the watchdog, not the 50 s backstop, ended it
}

TEST_CASE("gpu job: the backstop names the last step", "[run][gpu_job]") {
  run::GpuJobOptions options = machinery_only(0ms);
  options.limits.setup = 500ms;
  const run::GpuJobResult r = run::run_gpu_job(
      "stuck set-up",
      [](run::GpuJobContext& job) {
        job.step("creating the CUDA context");
        std::this_thread::sleep_for(30s);
        return nlohmann::json();
      },
      options);
  CHECK(r.status == run::GpuStatus::timed_out);
  CHECK_THAT(r.error, Contains("stuck set-up did not finish in 500 ms") &&
                          Contains("its last step was creating the CUDA context") && Contains("nvidia-smi"));
}

TEST_CASE("gpu job: exceptions and crashes are reported with the step they happened in", "[run][gpu_job]") {
  const run::GpuJobResult thrown = run::run_gpu_job(
      "thrower",
      [](run::GpuJobContext& job) -> nlohmann::json {
        job.step("uploading the inputs");
        throw std::runtime_error("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY");
      },
      machinery_only());
  CHECK(thrown.status == run::GpuStatus::failed);
  CHECK_THAT(thrown.error, Contains("thrower failed: cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY") &&
                               Contains("(while uploading the inputs)"));

  const run::GpuJobResult crashed = run::run_gpu_job(
      "crasher",
      [](run::GpuJobContext& job) -> nlohmann::json {
        job.step("launching");
        std::raise(SIGSEGV);
        return nullptr;
      },
      machinery_only());
  CHECK(crashed.status == run::GpuStatus::crashed);
  CHECK_THAT(crashed.error, Contains("SIGSEGV") && Contains("(while launching)"));
}

TEST_CASE("gpu job: an in-process job returns its value without forking", "[run][gpu_job]") {
  run::GpuJobOptions options = machinery_only();
  options.isolate = false;
  const run::GpuJobResult r = run::run_gpu_job(
      "in process", [](run::GpuJobContext&) { return nlohmann::json{{"pid", long(getpid())}}; }, options);
  REQUIRE(r.ok());
  CHECK(r.value["pid"] == long(getpid()));
}

TEST_CASE("gpu job: without a driver the job reports no_driver with the reason", "[run][gpu_job]") {
  if (cuda::test::gpu_skip_reason().empty()) {
    WARN("skipped: a GPU is present here; the no-driver path does not apply");
    return;
  }
  bool ran = false;
  const run::GpuJobResult r = run::run_gpu_job("needs a GPU", [&ran](run::GpuJobContext&) {
    ran = true;  // in the child: never visible here, and never reached without a driver
    return nlohmann::json();
  });
  CHECK(r.no_gpu());
  CHECK_THAT(r.error, Contains("no CUDA driver found: ") || Contains("no CUDA device found: "));
  CHECK_FALSE(ran);
  CHECK_FALSE(cuda::Driver::cuda_initialised());
  const run::DeviceList list = run::list_devices_isolated();
  CHECK(list.job.no_gpu());
  CHECK(list.devices.empty());
}

TEST_CASE("gpu job: durations and driver versions read naturally", "[run][gpu_job]") {
  CHECK(run::format_duration(10s) == "10 s");
  CHECK(run::format_duration(2500ms) == "2.5 s");
  CHECK(run::format_duration(250ms) == "250 ms");
  CHECK(run::driver_version_text(13000) == "13.0");
  CHECK(run::driver_version_text(12080) == "12.8");
  CHECK(run::driver_version_text(0) == "none");
  CHECK_THAT(run::kernel_hang_message("k", 10s), Contains("kernel 'k' did not finish in 10 s: likely an mbarrier deadlock"));
  cuda::DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.sms = 132;
  d.sm_clock_khz = 1980000;
  d.total_mem = std::size_t(80) << 30;
  d.l2_bytes = 50 << 20;
  d.driver_version = 13000;
  const nlohmann::json j = run::device_json(d);
  CHECK(j["cc"] == "9.0");
  CHECK(j["sm_clock_mhz"] == 1980);
  CHECK(j["driver"] == "13.0");
  const cuda::DeviceInfo back = run::device_from_json(j);
  CHECK(back.name == d.name);
  CHECK(back.sms == 132);
  CHECK(back.total_mem == d.total_mem);
  CHECK(back.l2_bytes == d.l2_bytes);
}

TEST_CASE("cli gpu: bad usage exits 2 before any GPU work", "[cli][gpu_cli]") {
  CliRun r = run_cli({"bench", "no_such_kernel"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("no_such_kernel") && Contains("hopper_tma_wgmma_64"));

  r = run_cli({"bench", "simt_naive", "--sizes", "4096,12x"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("--sizes: '12x' is not a problem size: give N"));

  r = run_cli({"bench", "simt_naive", "--reps", "-1"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("--reps: '-1' is not a valid number of timed launches"));

  r = run_cli({"bench", "all", "simt_naive"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("'all' cannot be combined"));

  r = run_cli({"bench", "ampere_ldmatrix", "--break", "unswizled-ldmatrix"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("unknown mistake 'unswizled-ldmatrix' for ampere_ldmatrix: valid mistakes are "
                             "unswizzled-ldmatrix"));

  r = run_cli({"probe", "swizzle"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Contains("'swizzle' is not a probe group: valid values are tma, mbarrier, wgmma, wgmma-desc, mma, ldmatrix, cluster, warpgroup, all"));
  CHECK_FALSE(cuda::Driver::cuda_initialised());
}

TEST_CASE("cli gpu: the commands are listed in the help", "[cli][gpu_cli]") {
  const CliRun r = run_cli({"--help"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Contains("devices") && Contains("bench") && Contains("probe"));
  const CliRun bench = run_cli({"bench", "--help"});
  CHECK(bench.code == 0);
  CHECK_THAT(bench.out, Contains("--sizes") && Contains("--compare-model") && Contains("--json"));
}

TEST_CASE("cli gpu: without a driver devices, bench and probe exit 3 and say why", "[cli][gpu_cli]") {
  if (cuda::test::gpu_skip_reason().empty()) {
    WARN("skipped: a GPU is present here; the no-driver exits do not apply");
    return;
  }
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"devices"}, std::vector<std::string>{"devices", "--json"},
        std::vector<std::string>{"bench"}, std::vector<std::string>{"bench", "hopper_tma_wgmma_64", "--sizes", "128"},
        std::vector<std::string>{"bench", "all", "--compare-model"}, std::vector<std::string>{"probe"},
        std::vector<std::string>{"probe", "wgmma"}}) {
    const CliRun r = run_cli(args);
    INFO(args[0] << (args.size() > 1 ? " " + args[1] : std::string()) << ": " << r.err);
    CHECK(r.code == 3);
    CHECK_THAT(r.err, Contains("gemmscope: no CUDA driver found: ") || Contains("gemmscope: no CUDA device found: "));
    CHECK(r.out.empty());
  }
  CHECK_FALSE(cuda::Driver::cuda_initialised());
}
