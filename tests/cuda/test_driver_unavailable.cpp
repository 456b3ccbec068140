// Without a usable driver (this machine: no libcuda.so.1), every GPU entry point says plainly
// what is missing, while everything that needs no GPU keeps working. The driver is only ever
// touched in a child process (see gpu_test_support.hpp). On a GPU machine these tests report
// themselves skipped; the [gpu] tests cover that side.
#include <catch2/catch.hpp>

#include "engine/cuda/context.hpp"
#include "engine/cuda/cublas.hpp"
#include "engine/cuda/device.hpp"
#include "engine/cuda/driver.hpp"
#include "engine/cuda/launch.hpp"
#include "engine/cuda/module.hpp"
#include "engine/cuda/tensor_map.hpp"
#include "tests/cuda/gpu_test_support.hpp"

using namespace gs::cuda;
using namespace gs::cuda::test;
using Catch::Contains;
using namespace std::chrono_literals;

namespace {

// Runs in the child: tries every entry point and reports how each one failed.
std::string try_everything_without_a_driver() {
  std::map<std::string, std::string> report;
  Driver& driver = Driver::instance();
  report["available"] = driver.available() ? "yes" : "no";
  if (driver.available()) return pack_report(report);  // a GPU machine: nothing to check here
  report["reason"] = driver.unavailable_reason();
  report["version"] = std::to_string(driver.driver_version());
  report["list_devices"] = outcome_of([] { (void)list_devices(); });
  report["context"] = outcome_of([] { Context context(0); });
  report["buffer"] = outcome_of([] { DeviceBuffer buffer(1024); });
  report["module"] = outcome_of([] { Module module(kWriteTidPtx); });
  report["event"] = outcome_of([] { Event event; });
  report["stream"] = outcome_of([] { Stream stream; });
  TensorMapSpec good = tensor_map_2d(TensorMapDataType::bfloat16, 0x7f0000000000ull, 4096, 8192, 64,
                                     64, TensorMapSwizzle::b128);
  report["encode_good"] = outcome_of([&] { (void)encode_tensor_map(good); });
  TensorMapSpec bad = good;
  bad.box_dim[0] = 128;
  report["encode_bad"] = outcome_of([&] { (void)encode_tensor_map(bad); });
  CublasLt& lt = CublasLt::instance();
  report["cublas_available"] = lt.available() ? "yes" : "no";
  report["cublas_reason"] = lt.unavailable_reason();
  report["cublas_matmul"] = outcome_of([&] {
    lt.matmul_bf16({128, 96, 64}, 0x1000, 0x2000, BLayout::nk, 0x3000, GemmOutput::f32);
  });
  report["cuda_initialised"] = Driver::cuda_initialised() ? "yes" : "no";
  return pack_report(report);
}

}  // namespace

TEST_CASE("without a driver every GPU entry point says what is missing", "[cuda][driver]") {
  REQUIRE_FALSE(Driver::cuda_initialised());  // this process never opens the driver itself
  const ChildResult r = run_isolated(try_everything_without_a_driver, 120s, "driver probe");
  REQUIRE(r.ok());
  auto report = unpack_report(r.payload);
  if (report["available"] == "yes") {
    WARN("skipped: a CUDA driver is available here; the no-driver checks do not apply");
    return;
  }
  const std::string reason = report["reason"];
  INFO("reason: " << reason);
  CHECK_FALSE(reason.empty());
#if GEMMSCOPE_HAVE_CUDA_H
  // This machine has the toolkit but no driver: the reason must name libcuda (or, on a machine
  // with a driver but no GPU, the failing cuInit).
  CHECK_THAT(reason, Contains("libcuda.so.1 not found (dlopen: ") || Contains("cuInit failed: "));
  if (reason.find("libcuda.so.1 not found") != std::string::npos) {
    CHECK_THAT(reason, Contains("no NVIDIA driver on this machine"));
    CHECK(report["version"] == "0");
    CHECK(report["cuda_initialised"] == "no");  // cuInit was never reached
  }
#else
  CHECK_THAT(reason, Contains("built without the CUDA toolkit"));
#endif
  // Each entry point throws DriverUnavailable carrying the same reason.
  for (const char* key :
       {"list_devices", "context", "buffer", "module", "event", "stream", "encode_good"}) {
    INFO(key << ": " << report[key]);
    CHECK_THAT(report[key],
               Contains("DriverUnavailable: no usable CUDA driver: ") && Contains(reason));
  }
  // Tensor-map validation needs no driver: a bad spec is rejected by our rules first.
  CHECK_THAT(report["encode_bad"], Contains("invalid_argument: invalid tensor map") &&
                                       Contains("exceeds the 128B swizzle span"));
  // The cuBLAS baseline explains that it depends on the driver.
  CHECK(report["cublas_available"] == "no");
#if GEMMSCOPE_HAVE_CUDA_H
  CHECK_THAT(report["cublas_reason"],
             Contains("cuBLASLt needs the CUDA driver: ") && Contains(reason));
#else
  CHECK_THAT(report["cublas_reason"], Contains("built without the CUDA toolkit"));
#endif
  CHECK_THAT(report["cublas_matmul"], Contains("cuBLASLt baseline unavailable"));
}

TEST_CASE("the [gpu] skip rule explains itself", "[cuda][driver]") {
  const std::string& why = gpu_skip_reason();
  if (why.empty()) {
    CHECK_FALSE(gpu_description().empty());
    WARN("GPU present: " << gpu_description());
  } else {
    CHECK(gpu_description().empty());
    CHECK_FALSE(Driver::cuda_initialised());  // the probe ran in a child
  }
}

TEST_CASE("CudaError formats what we did, the driver's name and text, and the detail",
          "[cuda][driver]") {
  // Without a driver the name falls back to the number; the structure is the same.
  const ChildResult r = run_isolated(
      [] {
        const CudaError e(218, "cuModuleLoadDataEx", "JIT log: line 3; error: bad");
        return std::string(e.what()) + "\x1f" + std::to_string(e.result()) + "\x1f" +
               e.error_name() + "\x1f" + e.call() + "\x1f" + e.detail();
      },
      60s);
  REQUIRE(r.ok());
  const auto parts = [&] {
    std::vector<std::string> out;
    std::size_t start = 0, end = 0;
    while ((end = r.payload.find('\x1f', start)) != std::string::npos) {
      out.push_back(r.payload.substr(start, end - start));
      start = end + 1;
    }
    out.push_back(r.payload.substr(start));
    return out;
  }();
  REQUIRE(parts.size() == 5);
  CHECK_THAT(parts[0], Contains("cuModuleLoadDataEx failed: ") &&
                           Contains(" \u2014 JIT log: line 3; error: bad"));
  CHECK(parts[1] == "218");
  CHECK_THAT(parts[2], Contains("CUDA_ERROR_INVALID_PTX") || Contains("CUresult 218"));
  CHECK(parts[3] == "cuModuleLoadDataEx");
  CHECK(parts[4] == "JIT log: line 3; error: bad");
}
