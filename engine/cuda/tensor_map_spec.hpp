// gs::cuda tensor-map specs: what cuTensorMapEncodeTiled is asked for, as plain data.
//
// This header does not include cuda.h: the CPU model (engine/model) and the GUI use the same
// spec to place TMA boxes in shared memory, and the tests check the rules without a toolkit.
// The enum values equal the driver's CUtensorMap* enums (tensor_map.cpp static_asserts it), so
// a spec converts to a driver call by casts alone.
//
// The rules checked here are the documented requirements of cuTensorMapEncodeTiled
// (facts sheet §4, CUDA 13.0 cuda.h), applied before the driver sees the spec so that a learner
// gets a message naming the field and the valid range instead of CUDA_ERROR_INVALID_VALUE.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gs::cuda {

enum class TensorMapDataType : std::uint32_t {
  uint8 = 0,
  uint16 = 1,
  uint32 = 2,
  int32 = 3,
  uint64 = 4,
  int64 = 5,
  float16 = 6,
  float32 = 7,
  float64 = 8,
  bfloat16 = 9,
  float32_ftz = 10,
  tfloat32 = 11,
  tfloat32_ftz = 12,
  u4x16_align8b = 13,   // 16 × U4 packed in 8 bytes
  u4x16_align16b = 14,  // 16 × U4 in 16 bytes (8-byte gaps)
  u6x16_align16b = 15,  // 16 × U6 in 16 bytes (4-byte gaps)
};
enum class TensorMapInterleave : std::uint32_t { none = 0, b16 = 1, b32 = 2 };
enum class TensorMapSwizzle : std::uint32_t {
  none = 0,
  b32 = 1,
  b64 = 2,
  b128 = 3,
  b128_atom_32b = 4,
  b128_atom_32b_flip_8b = 5,
  b128_atom_64b = 6,  // CUDA 13, for Blackwell
};
enum class TensorMapL2Promotion : std::uint32_t { none = 0, b64 = 1, b128 = 2, b256 = 3 };
enum class TensorMapOobFill : std::uint32_t { zeros = 0, nan_request_zero_fma = 1 };

// Dimension 0 is the innermost, contiguous one. Entries at and past `rank` are ignored.
// Row-major M×K bf16 matrix: global_dim = {K, M}, global_strides_bytes = {K * 2}.
struct TensorMapSpec {
  TensorMapDataType dtype = TensorMapDataType::bfloat16;
  std::uint32_t rank = 2;
  std::uint64_t global_address = 0;
  std::array<std::uint64_t, 5> global_dim{1, 1, 1, 1, 1};         // elements, 1 .. 2^32
  std::array<std::uint64_t, 4> global_strides_bytes{0, 0, 0, 0};  // dims 1..rank-1, in bytes
  std::array<std::uint32_t, 5> box_dim{1, 1, 1, 1, 1};            // elements, 1 .. 256
  std::array<std::uint32_t, 5> element_strides{1, 1, 1, 1, 1};    // 1 .. 8
  TensorMapInterleave interleave = TensorMapInterleave::none;
  TensorMapSwizzle swizzle = TensorMapSwizzle::none;
  TensorMapL2Promotion l2_promotion = TensorMapL2Promotion::none;
  TensorMapOobFill oob_fill = TensorMapOobFill::zeros;
};

// The spec of a row-major rows×cols matrix read in boxes of box_rows×box_cols elements.
TensorMapSpec tensor_map_2d(TensorMapDataType dtype, std::uint64_t global_address,
                            std::uint64_t rows, std::uint64_t cols, std::uint32_t box_rows,
                            std::uint32_t box_cols, TensorMapSwizzle swizzle);

// Bits one element occupies in memory: 16 for bf16; 4 for u4x16_align8b; 8 for the ALIGN16B
// packed types (16 values in 16 bytes, gaps included).
std::uint32_t element_size_bits(TensorMapDataType dtype);
bool is_floating(TensorMapDataType dtype);
bool is_packed(TensorMapDataType dtype);
// 32 / 64 / 128 bytes; 0 for none. All 128B_* variants span 128 bytes.
std::uint32_t swizzle_span_bytes(TensorMapSwizzle swizzle);

// Names as the driver's enums spell them, without the prefix: "BFLOAT16", "128B", "L2_128B".
std::string to_string(TensorMapDataType dtype);
std::string to_string(TensorMapInterleave interleave);
std::string to_string(TensorMapSwizzle swizzle);
std::string to_string(TensorMapL2Promotion promotion);
std::string to_string(TensorMapOobFill fill);

// Bytes one box delivers to shared memory (and the complete_tx count an mbarrier expects):
// the product over dimensions of ceil(box_dim[i] / element_strides[i]) elements (dimension 0
// ignores its element stride with interleave none), out-of-bounds elements included.
std::uint64_t tensor_map_box_bytes(const TensorMapSpec& spec);

// Every violated rule, one message each naming the field, its value and the valid range, e.g.
// "boxDim[0]=128 × 2 B = 256 B exceeds the 128B swizzle span: at most 64 elements".
// Empty when the spec is valid.
std::vector<std::string> tensor_map_problems(const TensorMapSpec& spec);

// Throws std::invalid_argument listing every problem (see tensor_map_problems).
void validate_tensor_map(const TensorMapSpec& spec);

// One line for error messages and logs: "BFLOAT16 rank 2 at 0x7f0000000000, globalDim {8192,
// 4096}, globalStrides {16384} B, boxDim {64, 64}, elementStrides {1, 1}, interleave NONE,
// swizzle 128B, l2Promotion NONE, oobFill NONE".
std::string describe(const TensorMapSpec& spec);

}  // namespace gs::cuda
