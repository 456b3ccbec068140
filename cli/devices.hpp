// The GPU check every command that needs a GPU makes first (`bench`, `sweep --gpu`): the device
// list from a child process (run::list_devices_isolated: this process never calls CUDA).
#pragma once

#include <optional>

#include "cli/cli.hpp"
#include "run/gpu_launch.hpp"

namespace gs::cli {

// The GPUs; without a driver or device prints the driver layer's reason and sets exit 3 (1 when
// the listing itself failed), returning nullopt.
std::optional<run::DeviceList> require_device(Streams io, int& exit_code, const run::GpuJobOptions& job);

}  // namespace gs::cli
