// gs::cuda tensor maps: our validation, then cuTensorMapEncodeTiled.
#include "engine/cuda/tensor_map.hpp"

#include <cstdint>
#include <cstring>

#include "engine/cuda/driver.hpp"
#include "engine/cuda/driver_api.hpp"

namespace gs::cuda {

#if GEMMSCOPE_HAVE_CUDA_H

// The spec's enums are the driver's numbers (tensor_map_spec.hpp promises it).
static_assert(static_cast<int>(TensorMapDataType::bfloat16) == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
static_assert(static_cast<int>(TensorMapDataType::float32) == CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
static_assert(static_cast<int>(TensorMapDataType::tfloat32_ftz) ==
              CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ);
static_assert(static_cast<int>(TensorMapDataType::u6x16_align16b) ==
              CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B);
static_assert(static_cast<int>(TensorMapInterleave::b32) == CU_TENSOR_MAP_INTERLEAVE_32B);
static_assert(static_cast<int>(TensorMapSwizzle::b32) == CU_TENSOR_MAP_SWIZZLE_32B);
static_assert(static_cast<int>(TensorMapSwizzle::b64) == CU_TENSOR_MAP_SWIZZLE_64B);
static_assert(static_cast<int>(TensorMapSwizzle::b128) == CU_TENSOR_MAP_SWIZZLE_128B);
static_assert(static_cast<int>(TensorMapSwizzle::b128_atom_64b) ==
              CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B);
static_assert(static_cast<int>(TensorMapL2Promotion::b256) == CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
static_assert(static_cast<int>(TensorMapOobFill::nan_request_zero_fma) ==
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
static_assert(sizeof(CUtensorMap) == kTensorMapBytes);
static_assert(alignof(CUtensorMap) >= 64, "cuTensorMapEncodeTiled wants a 64-byte aligned map");

TensorMapBytes encode_tensor_map(const TensorMapSpec& spec) {
  validate_tensor_map(spec);
  const DriverApi& cu = api();
  auto encode = require_entry_point(cu.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");

  // The driver reads rank entries of each array (rank - 1 for the strides).
  cuuint64_t global_dim[5], global_strides[4];
  cuuint32_t box_dim[5], element_strides[5];
  for (std::size_t i = 0; i < 5; ++i) {
    global_dim[i] = spec.global_dim[i];
    box_dim[i] = spec.box_dim[i];
    element_strides[i] = spec.element_strides[i];
  }
  for (std::size_t i = 0; i < 4; ++i) global_strides[i] = spec.global_strides_bytes[i];

  CUtensorMap map{};
  const CUresult rc = encode(
      &map, static_cast<CUtensorMapDataType>(spec.dtype), spec.rank,
      reinterpret_cast<void*>(static_cast<std::uintptr_t>(spec.global_address)), global_dim,
      global_strides, box_dim, element_strides, static_cast<CUtensorMapInterleave>(spec.interleave),
      static_cast<CUtensorMapSwizzle>(spec.swizzle),
      static_cast<CUtensorMapL2promotion>(spec.l2_promotion),
      static_cast<CUtensorMapFloatOOBfill>(spec.oob_fill));
  check(rc, "cuTensorMapEncodeTiled",
        "our rules accepted the spec, the driver did not: " + describe(spec));

  TensorMapBytes bytes;
  std::memcpy(bytes.data(), &map, kTensorMapBytes);
  return bytes;
}

#else  // !GEMMSCOPE_HAVE_CUDA_H

TensorMapBytes encode_tensor_map(const TensorMapSpec& spec) {
  validate_tensor_map(spec);
  Driver::instance().require();
  return {};
}

#endif  // GEMMSCOPE_HAVE_CUDA_H

}  // namespace gs::cuda
