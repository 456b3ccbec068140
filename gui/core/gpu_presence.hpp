// Whether this machine has a GPU the app can run on, asked once and off the UI thread: a job of
// kind gpu_probe runs run::list_devices_isolated (what `gemmscope devices` runs, in a child
// process, so a failing driver cannot take the app down). The Timeline view's "Record on this
// GPU" reads it: greyed out, saying why, where there is no driver or no device.
//
//   request_gpu_presence(app);          // once, from a view that needs to know (a no-op after)
//   const RecordButton b = record_button(app);   // b.enabled, b.tooltip
#pragma once

#include <string>

#include "engine/model/timing.hpp"
#include "run/gpu_job.hpp"

namespace gs::gui {

struct AppState;

enum class GpuPresenceState : uint8_t {
  unknown,  // not asked yet
  looking,  // the probe runs
  found,    // a device: its name
  absent,   // no CUDA driver or no device: the runtime's reason
  failing,  // the probe itself failed (timed out, crashed): its reason; recording may still work
};
const char* gpu_presence_name(GpuPresenceState s);  // "unknown", "looking", "found", "absent", "failing"

struct GpuPresence {
  GpuPresenceState state = GpuPresenceState::unknown;
  std::string device;  // "NVIDIA H100 80GB HBM3" when found
  std::string reason;  // why not, in the runtime's words, when absent or failing
};

// The card the model predicts a kernel built for `arch` on: the GPU found here where the model
// knows it and it runs that code (an H200 found: predictions on an H200), else nullptr (the
// target's own machine, model::timing::machine_for).
const model::timing::Machine* predicted_card(const GpuPresence& gpu, ir::Arch arch);

// What a device list says (pure: the tests feed it lists).
GpuPresence gpu_presence_of(const run::DeviceList& devices);
// Starts the probe as a job when nothing is known yet; its answer lands in app.gpu.
void request_gpu_presence(AppState& app);
// The probe now, on this thread (headless runs and tests).
void gpu_presence_now(AppState& app);

// "Record on this GPU" as the view draws it: enabled where a GPU is (or the probe could not
// tell), with a tooltip saying what it does, or why it is greyed out and where to get a
// recording instead.
struct RecordButton {
  bool enabled = false;
  std::string label;    // "Record on this GPU", "recording..."
  std::string tooltip;
};
RecordButton record_button(const AppState& app);

}  // namespace gs::gui
