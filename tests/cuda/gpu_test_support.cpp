// Helpers for tests/cuda (see gpu_test_support.hpp).
#include "tests/cuda/gpu_test_support.hpp"

#include <stdexcept>

#include "engine/cuda/device.hpp"
#include "engine/cuda/driver.hpp"

// CUDA under AddressSanitizer: ASan protects a "shadow gap" address range that the CUDA driver
// wants to map, and cuInit then fails with CUDA_ERROR_OUT_OF_MEMORY. Turning the protection off
// is the documented workaround. Weak, so a definition elsewhere in the test binary wins instead
// of clashing; ASAN_OPTIONS from the environment still override it.
#if defined(GEMMSCOPE_ASAN_BUILD)
extern "C" __attribute__((weak, used, visibility("default"))) const char* __asan_default_options() {
  return "protect_shadow_gap=0";
}
#endif

namespace gs::cuda::test {
namespace {

struct Probe {
  std::string skip_reason;
  std::string description;
};

const Probe& probe() {
  static const Probe result = [] {
    Probe p;
    if (Driver::cuda_initialised()) {
      p.skip_reason =
          "this test process initialised CUDA (cuInit) before the [gpu] tests ran; they run GPU "
          "work in forked children, which CUDA forbids after cuInit in the parent. Run them "
          "alone: gemmscope_tests \"[gpu]\"";
      return p;
    }
    const ChildResult r = run_isolated(
        [] {
          Driver& driver = Driver::instance();
          if (!driver.available()) return "no\x1f" + driver.unavailable_reason();
          const std::vector<DeviceInfo> devices = list_devices();
          if (devices.empty()) return std::string("no\x1fthe driver sees no GPU");
          return "yes\x1f" + describe(devices.front());
        },
        std::chrono::seconds(120), "CUDA probe");
    if (!r.ok()) {
      p.skip_reason = "the CUDA probe child did not report: " + r.error;
      return p;
    }
    const std::size_t split = r.payload.find('\x1f');
    const std::string verdict = r.payload.substr(0, split);
    const std::string text =
        split == std::string::npos ? std::string() : r.payload.substr(split + 1);
    if (verdict == "yes") {
      p.description = text;
    } else {
      p.skip_reason = text;
    }
    return p;
  }();
  return result;
}

}  // namespace

const std::string& gpu_skip_reason() {
  return probe().skip_reason;
}
const std::string& gpu_description() {
  return probe().description;
}

ChildResult run_gpu(std::function<std::string()> job, std::string_view what,
                    std::chrono::milliseconds limit) {
  return run_isolated(std::move(job), limit, what);
}

std::string outcome_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const CudaError& e) {
    return std::string("CudaError: ") + e.what();
  } catch (const DriverUnavailable& e) {
    return std::string("DriverUnavailable: ") + e.what();
  } catch (const std::invalid_argument& e) {
    return std::string("invalid_argument: ") + e.what();
  } catch (const std::out_of_range& e) {
    return std::string("out_of_range: ") + e.what();
  } catch (const std::runtime_error& e) {
    return std::string("runtime_error: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
  return "no exception";
}

std::string pack_report(const std::map<std::string, std::string>& report) {
  std::string text;
  for (const auto& [key, value] : report) text += key + '\x1f' + value + '\x1e';
  return text;
}

std::map<std::string, std::string> unpack_report(const std::string& text) {
  std::map<std::string, std::string> report;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\x1e', start);
    if (end == std::string::npos) end = text.size();
    const std::string record = text.substr(start, end - start);
    const std::size_t split = record.find('\x1f');
    if (split != std::string::npos) report[record.substr(0, split)] = record.substr(split + 1);
    start = end + 1;
  }
  return report;
}

std::string write_tid_ptx_with_syntax_error() {
  std::string ptx = kWriteTidPtx;
  const std::string good = "mad.lo.s32 %r5, %r2, %r3, %r4;";
  const std::size_t at = ptx.find(good);
  if (at == std::string::npos) throw std::logic_error("write_tid fixture changed");
  ptx.replace(at, good.size(), "mad.lo.s32 %r5, %r2, %r3;");
  return ptx;
}

}  // namespace gs::cuda::test
