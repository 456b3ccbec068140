// "Record on this GPU" (the Timeline view) and what it knows of this machine's GPU
// (gui/core/gpu_presence.*): greyed out with the runtime's reason where there is no driver or
// device, working where there is a GPU.
#include <algorithm>
#include <thread>

#include <catch2/catch.hpp>

#include "gui/core/app_state.hpp"
#include "gui/core/gpu_presence.hpp"
#include "gui/core/timeline_data.hpp"
#include "tests/gui/gui_fixture.hpp"

using namespace gs;
using namespace gs::gui;

namespace {

run::DeviceList device_list(run::GpuStatus status, std::string error, std::vector<std::string> names = {}) {
  run::DeviceList d;
  d.job.status = status;
  d.job.error = std::move(error);
  for (const std::string& n : names) d.devices.push_back({.name = n});
  return d;
}

}  // namespace

TEST_CASE("gpu presence: a device list says found, absent (no driver or device, with why) or failing",
          "[gui][timeline][gpu_presence]") {
  const GpuPresence found = gpu_presence_of(device_list(run::GpuStatus::ok, "", {"NVIDIA H100 80GB HBM3"}));
  CHECK(found.state == GpuPresenceState::found);
  CHECK(found.device == "NVIDIA H100 80GB HBM3");
  const GpuPresence no_driver = gpu_presence_of(device_list(run::GpuStatus::no_driver, "libcuda.so.1 not found"));
  CHECK(no_driver.state == GpuPresenceState::absent);
  CHECK(no_driver.reason == "libcuda.so.1 not found");
  CHECK(gpu_presence_of(device_list(run::GpuStatus::no_device, "no CUDA device")).state == GpuPresenceState::absent);
  CHECK(gpu_presence_of(device_list(run::GpuStatus::ok, "")).state == GpuPresenceState::absent);  // a driver, no GPU
  const GpuPresence crashed = gpu_presence_of(device_list(run::GpuStatus::crashed, "the child died of signal 11"));
  CHECK(crashed.state == GpuPresenceState::failing);
  CHECK(crashed.reason == "the child died of signal 11");
}

TEST_CASE("gpu presence: 'Record on this GPU' is greyed out without a GPU, saying why, and works with one",
          "[gui][timeline][gpu_presence]") {
  AppState app = test::hopper_app();
  app.gpu = {GpuPresenceState::absent, "", "no CUDA driver found: libcuda.so.1 not found"};
  RecordButton b = record_button(app);
  CHECK_FALSE(b.enabled);
  CHECK(b.label == "Record on this GPU");
  CHECK_THAT(b.tooltip, Catch::Contains("No GPU to record on here: no CUDA driver found: libcuda.so.1 not found") &&
                            Catch::Contains("File > Import timeline"));
  const nlohmann::json j = describe_timeline(app);
  CHECK(j["record_button"]["enabled"] == false);
  CHECK(j["record_button"]["gpu"] == "absent");

  app.gpu = {GpuPresenceState::found, "NVIDIA H100 80GB HBM3", ""};
  b = record_button(app);
  CHECK(b.enabled);
  CHECK_THAT(b.tooltip, Catch::Contains("on NVIDIA H100 80GB HBM3"));
  app.gpu = {GpuPresenceState::failing, "", "timed out"};
  b = record_button(app);
  CHECK(b.enabled);  // the probe could not tell: recording tries and says what happened
  CHECK_THAT(b.tooltip, Catch::Contains("timed out"));
  app.gpu = {GpuPresenceState::looking, "", ""};
  CHECK_FALSE(record_button(app).enabled);
  AppState empty;
  empty.gpu = {GpuPresenceState::found, "NVIDIA H100 80GB HBM3", ""};
  CHECK_FALSE(record_button(empty).enabled);  // no kernel to record
}

TEST_CASE("gpu presence: on this machine the probe gives the runtime's answer, once, off the UI thread",
          "[gui][timeline][gpu_presence]") {
  AppState app;
  request_gpu_presence(app);
  CHECK(app.gpu.state == GpuPresenceState::looking);
  REQUIRE(app.running_job(JobKind::gpu_probe) != nullptr);
  request_gpu_presence(app);  // asked once
  CHECK(std::count_if(app.jobs.begin(), app.jobs.end(), [](const auto& j) { return j->kind() == JobKind::gpu_probe; }) == 1);
  for (int i = 0; i < 600 && app.busy(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  app.poll_jobs();
  const run::DeviceList devices = run::list_devices_isolated();
  if (devices.job.no_gpu()) {
    CHECK(app.gpu.state == GpuPresenceState::absent);
    CHECK(app.gpu.reason == devices.job.error);  // the runtime's words
    CHECK_FALSE(app.gpu.reason.empty());
  } else if (devices.job.ok()) {
    CHECK(app.gpu.state == GpuPresenceState::found);
    CHECK(app.gpu.device == devices.devices.front().name);
  }
}

#include "tests/gui/headless.hpp"

namespace {

// The brightest pixel of a rectangle (x, y, w, h): a button's label.
int brightest(const gs::gui::test::Headless& h, const std::array<float, 4>& r) {
  int best = 0;
  for (int y = int(r[1]); y < int(r[1] + r[3]) && y < h.h; ++y)
    for (int x = int(r[0]); x < int(r[0] + r[2]) && x < h.w; ++x) {
      const auto p = h.pixel(x, y);
      best = std::max(best, (p[0] + p[1] + p[2]) / 3);
    }
  return best;
}

}  // namespace

TEST_CASE("gpu presence: the Timeline draws 'Record on this GPU' greyed out where the state says so",
          "[gui][xvfb][timeline][gpu_presence]") {
  using namespace gs::gui::test;
  if (!xvfb_or_skip()) return;
  const std::string file =
      std::string(GEMMSCOPE_SOURCE_DIR) + "/docs/results/2026-11-27-h100-timeline/hopper_producer_consumer.timeline.json";
  const Headless h = run_headless("record_button", "--import-timeline '" + file + "' --view timeline --size 1280x800 "
                                                   "--theme dark");
  INFO(h.output);
  REQUIRE(h.code == 0);
  const auto& button = h.state["views"]["timeline"]["record_button"];
  const run::DeviceList devices = run::list_devices_isolated();
  CHECK(button["enabled"] == !devices.job.no_gpu());
  if (devices.job.no_gpu()) CHECK(button["gpu_reason"] == devices.job.error);
  // Its label against the enabled "Close the recording" beside it: dimmer when greyed out.
  const int record = brightest(h, h.state["drawn"]["timeline.record"].get<std::array<float, 4>>());
  const int close = brightest(h, h.state["drawn"]["timeline.close"].get<std::array<float, 4>>());
  INFO("record " << record << ", close " << close);
  if (button["enabled"] == false) CHECK(record < close * 3 / 4);
  else CHECK(record >= close * 9 / 10);
}
