// The registry as JSON: what `gemmscope list --json` prints and the GUI's ladder reads.
#pragma once

#include <nlohmann/json.hpp>

#include "kernels/registry.hpp"

namespace gs::kernels {

nlohmann::json shape_json(const GemmShape& s);
nlohmann::json kernel_info_json(const KernelInfo& k);
nlohmann::json registry_json();  // an array, in ladder order

}  // namespace gs::kernels
