// gs::cuda tensor maps: a TensorMapSpec encoded by the driver (cuTensorMapEncodeTiled).
//
// The 128 opaque bytes go to a kernel either as a `.param .align 64 .b8 name[128]` parameter
// (KernelArgs::add_tensor_map) or copied into global memory (64-byte aligned; cuMemAlloc gives
// 256). The PTX takes the parameter's address with `mov.b64` + `cvta.param.u64` (facts §4).
#pragma once

#include <array>
#include <cstddef>

#include "engine/cuda/tensor_map_spec.hpp"

namespace gs::cuda {

inline constexpr std::size_t kTensorMapBytes = 128;
using TensorMapBytes = std::array<std::byte, kTensorMapBytes>;

// Validates with our rules first (std::invalid_argument listing every problem), then asks the
// driver; a driver refusal is a CudaError that includes describe(spec). Needs a current Context.
TensorMapBytes encode_tensor_map(const TensorMapSpec& spec);

}  // namespace gs::cuda
