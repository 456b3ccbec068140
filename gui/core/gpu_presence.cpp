#include "gui/core/gpu_presence.hpp"

#include <fmt/format.h>

#include "engine/model/machine_ceilings.hpp"
#include "gui/core/app_state.hpp"

namespace gs::gui {

const char* gpu_presence_name(GpuPresenceState s) {
  switch (s) {
    case GpuPresenceState::unknown: return "unknown";
    case GpuPresenceState::looking: return "looking";
    case GpuPresenceState::found: return "found";
    case GpuPresenceState::absent: return "absent";
    case GpuPresenceState::failing: return "failing";
  }
  return "?";
}

const model::timing::Machine* predicted_card(const GpuPresence& gpu, ir::Arch arch) {
  return gpu.state == GpuPresenceState::found ? model::timing::card_named_in(gpu.device, arch) : nullptr;
}

GpuPresence gpu_presence_of(const run::DeviceList& d) {
  if (d.job.ok() && !d.devices.empty()) return {GpuPresenceState::found, d.devices.front().name, ""};
  if (d.job.ok()) return {GpuPresenceState::absent, "", "the CUDA driver sees no GPU"};
  const std::string why = d.job.error.empty() ? std::string(run::gpu_status_name(d.job.status)) : d.job.error;
  return {d.job.no_gpu() ? GpuPresenceState::absent : GpuPresenceState::failing, "", why};
}

void request_gpu_presence(AppState& app) {
  if (app.gpu.state != GpuPresenceState::unknown) return;
  app.gpu.state = GpuPresenceState::looking;
  app.jobs.push_back(std::make_unique<Job>(
      JobKind::gpu_probe, "looking for a GPU",
      [](JobContext& ctx) {
        const GpuPresence p = gpu_presence_of(run::list_devices_isolated());
        ctx.complete([p](AppState& app) { app.gpu = p; });
      },
      [](AppState& app, const std::string& msg) { app.gpu = {GpuPresenceState::failing, "", msg}; }));
}

void gpu_presence_now(AppState& app) { app.gpu = gpu_presence_of(run::list_devices_isolated()); }

RecordButton record_button(const AppState& app) {
  RecordButton b;
  const bool recording = app.running_job(JobKind::gpu_timeline) != nullptr;
  b.label = recording ? "recording..." : "Record on this GPU";
  const std::string elsewhere = "File > Import timeline... opens a timeline recorded elsewhere.";
  switch (app.gpu.state) {
    case GpuPresenceState::unknown:
    case GpuPresenceState::looking:
      b.tooltip = "Looking for a GPU on this machine (as `gemmscope devices` does)...";
      return b;
    case GpuPresenceState::absent:
      b.tooltip = fmt::format("No GPU to record on here: {}\n{}", app.gpu.reason, elsewhere);
      return b;
    case GpuPresenceState::found:
    case GpuPresenceState::failing: break;
  }
  b.enabled = !recording && app.kernel != nullptr;
  b.tooltip = fmt::format(
      "Record this kernel's own timeline on {} (as `gemmscope bench ID --timeline F`) and set it beside the model's.{}",
      app.gpu.state == GpuPresenceState::found ? app.gpu.device : "this machine's GPU",
      app.gpu.state == GpuPresenceState::failing
          ? fmt::format("\nAsking for the GPU failed ({}); recording tries anyway.", app.gpu.reason)
          : std::string());
  if (!app.kernel) b.tooltip += "\nOpen a kernel first.";
  return b;
}

}  // namespace gs::gui
