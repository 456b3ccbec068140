// gs::cuda tensor-map spec rules (no cuda.h). Each rule cites the requirement it implements;
// the source is the cuTensorMapEncodeTiled doc comment of CUDA 13.0's cuda.h (facts §3, §4).
#include "engine/cuda/tensor_map_spec.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace gs::cuda {
namespace {

constexpr std::uint32_t kMaxRank = 5;
constexpr std::uint64_t kMaxGlobalDim = std::uint64_t{1} << 32;
constexpr std::uint64_t kStrideLimit = std::uint64_t{1} << 40;
constexpr std::uint32_t kMaxBoxDim = 256;
constexpr std::uint32_t kMaxElementStride = 8;

bool valid(TensorMapDataType v) {
  return static_cast<std::uint32_t>(v) <= 15;
}
bool valid(TensorMapInterleave v) {
  return static_cast<std::uint32_t>(v) <= 2;
}
bool valid(TensorMapSwizzle v) {
  return static_cast<std::uint32_t>(v) <= 6;
}
bool valid(TensorMapL2Promotion v) {
  return static_cast<std::uint32_t>(v) <= 3;
}
bool valid(TensorMapOobFill v) {
  return static_cast<std::uint32_t>(v) <= 1;
}

template <class Enum>
std::string number(Enum value) {
  return std::to_string(static_cast<std::uint32_t>(value));
}

std::string hex(std::uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// "2 B" for whole bytes, "4 bits" for the packed sub-byte types.
std::string element_size_text(TensorMapDataType dtype) {
  const std::uint32_t bits = element_size_bits(dtype);
  return bits % 8 == 0 ? std::to_string(bits / 8) + " B" : std::to_string(bits) + " bits";
}

template <class T, std::size_t N>
std::string list(const std::array<T, N>& values, std::size_t count) {
  std::string text = "{";
  for (std::size_t i = 0; i < count && i < N; ++i) {
    if (i != 0) text += ", ";
    text += std::to_string(values[i]);
  }
  return text + "}";
}

bool is_align16b_packed(TensorMapDataType dtype) {
  return dtype == TensorMapDataType::u4x16_align16b || dtype == TensorMapDataType::u6x16_align16b;
}

}  // namespace

TensorMapSpec tensor_map_2d(TensorMapDataType dtype, std::uint64_t global_address,
                            std::uint64_t rows, std::uint64_t cols, std::uint32_t box_rows,
                            std::uint32_t box_cols, TensorMapSwizzle swizzle) {
  TensorMapSpec spec;
  spec.dtype = dtype;
  spec.rank = 2;
  spec.global_address = global_address;
  spec.global_dim = {cols, rows, 1, 1, 1};
  spec.global_strides_bytes = {cols * element_size_bits(dtype) / 8, 0, 0, 0};
  spec.box_dim = {box_cols, box_rows, 1, 1, 1};
  spec.swizzle = swizzle;
  return spec;
}

std::uint32_t element_size_bits(TensorMapDataType dtype) {
  switch (dtype) {
    case TensorMapDataType::uint8: return 8;
    case TensorMapDataType::uint16:
    case TensorMapDataType::float16:
    case TensorMapDataType::bfloat16: return 16;
    case TensorMapDataType::uint32:
    case TensorMapDataType::int32:
    case TensorMapDataType::float32:
    case TensorMapDataType::float32_ftz:
    case TensorMapDataType::tfloat32:
    case TensorMapDataType::tfloat32_ftz: return 32;
    case TensorMapDataType::uint64:
    case TensorMapDataType::int64:
    case TensorMapDataType::float64: return 64;
    case TensorMapDataType::u4x16_align8b: return 4;
    case TensorMapDataType::u4x16_align16b:
    case TensorMapDataType::u6x16_align16b: return 8;
  }
  return 0;  // not a data type; tensor_map_problems reports it
}

bool is_floating(TensorMapDataType dtype) {
  switch (dtype) {
    case TensorMapDataType::float16:
    case TensorMapDataType::float32:
    case TensorMapDataType::float64:
    case TensorMapDataType::bfloat16:
    case TensorMapDataType::float32_ftz:
    case TensorMapDataType::tfloat32:
    case TensorMapDataType::tfloat32_ftz: return true;
    default: return false;
  }
}

bool is_packed(TensorMapDataType dtype) {
  return static_cast<std::uint32_t>(dtype) >= 13 && static_cast<std::uint32_t>(dtype) <= 15;
}

std::uint32_t swizzle_span_bytes(TensorMapSwizzle swizzle) {
  switch (swizzle) {
    case TensorMapSwizzle::none: return 0;
    case TensorMapSwizzle::b32: return 32;
    case TensorMapSwizzle::b64: return 64;
    default: return 128;  // 128B and the three 128B_ATOM_* modes
  }
}

std::string to_string(TensorMapDataType dtype) {
  static constexpr const char* names[] = {
      "UINT8",        "UINT16",       "UINT32",        "INT32",        "UINT64",      "INT64",
      "FLOAT16",      "FLOAT32",      "FLOAT64",       "BFLOAT16",     "FLOAT32_FTZ", "TFLOAT32",
      "TFLOAT32_FTZ", "16U4_ALIGN8B", "16U4_ALIGN16B", "16U6_ALIGN16B"};
  return valid(dtype) ? names[static_cast<std::uint32_t>(dtype)] : "dtype " + number(dtype);
}

std::string to_string(TensorMapInterleave interleave) {
  static constexpr const char* names[] = {"NONE", "16B", "32B"};
  return valid(interleave) ? names[static_cast<std::uint32_t>(interleave)]
                           : "interleave " + number(interleave);
}

std::string to_string(TensorMapSwizzle swizzle) {
  static constexpr const char* names[] = {
      "NONE", "32B", "64B", "128B", "128B_ATOM_32B", "128B_ATOM_32B_FLIP_8B", "128B_ATOM_64B"};
  return valid(swizzle) ? names[static_cast<std::uint32_t>(swizzle)] : "swizzle " + number(swizzle);
}

std::string to_string(TensorMapL2Promotion promotion) {
  static constexpr const char* names[] = {"NONE", "L2_64B", "L2_128B", "L2_256B"};
  return valid(promotion) ? names[static_cast<std::uint32_t>(promotion)]
                          : "l2Promotion " + number(promotion);
}

std::string to_string(TensorMapOobFill fill) {
  static constexpr const char* names[] = {"NONE", "NAN_REQUEST_ZERO_FMA"};
  return valid(fill) ? names[static_cast<std::uint32_t>(fill)] : "oobFill " + number(fill);
}

std::uint64_t tensor_map_box_bytes(const TensorMapSpec& spec) {
  const std::uint32_t rank = std::min(spec.rank, kMaxRank);
  std::uint64_t bits = element_size_bits(spec.dtype);
  for (std::uint32_t i = 0; i < rank; ++i) {
    const std::uint32_t stride =
        (i == 0 && spec.interleave == TensorMapInterleave::none) ? 1 : spec.element_strides[i];
    bits *= stride == 0 ? 0 : (spec.box_dim[i] + stride - 1) / stride;
  }
  return bits / 8;
}

std::vector<std::string> tensor_map_problems(const TensorMapSpec& spec) {
  std::vector<std::string> problems;
  auto problem = [&](std::string text) { problems.push_back(std::move(text)); };
  // An interleave value the driver does not know is reported once, then treated as NONE.
  const bool interleaved = valid(spec.interleave) && spec.interleave != TensorMapInterleave::none;
  const bool interleave_32b = spec.interleave == TensorMapInterleave::b32;

  // Enumerations: each must be one of the driver's values.
  if (!valid(spec.dtype))
    problem("dtype=" + number(spec.dtype) + " is not a CUtensorMapDataType (0 to 15)");
  if (!valid(spec.interleave)) {
    problem("interleave=" + number(spec.interleave) +
            " is not a CUtensorMapInterleave (0 NONE, 1 16B, 2 32B)");
  }
  if (!valid(spec.swizzle))
    problem("swizzle=" + number(spec.swizzle) + " is not a CUtensorMapSwizzle (0 to 6)");
  if (!valid(spec.l2_promotion)) {
    problem("l2Promotion=" + number(spec.l2_promotion) +
            " is not a CUtensorMapL2promotion (0 to 3)");
  }
  if (!valid(spec.oob_fill))
    problem("oobFill=" + number(spec.oob_fill) + " is not a CUtensorMapFloatOOBfill (0 or 1)");

  // rank: 1..5, and at least 3 when interleaved.
  if (spec.rank < 1 || spec.rank > kMaxRank) {
    problem("rank=" + std::to_string(spec.rank) +
            " is out of range: a tensor map has 1 to 5 dimensions");
  } else if (interleaved && spec.rank < 3) {
    problem("rank=" + std::to_string(spec.rank) + " with interleave " + to_string(spec.interleave) +
            ": interleaved layouts need rank 3 to 5");
  }
  const std::uint32_t rank = std::min(spec.rank, kMaxRank);

  // globalAddress: 16-byte aligned; 32 with INTERLEAVE_32B and the ALIGN16B packed types.
  const std::uint64_t address_alignment =
      (interleave_32b || is_align16b_packed(spec.dtype)) ? 32 : 16;
  if (spec.global_address % address_alignment != 0) {
    problem("globalAddress=" + hex(spec.global_address) + " is not " +
            std::to_string(address_alignment) + "-byte aligned (it is " +
            std::to_string(spec.global_address % address_alignment) + " bytes past a multiple of " +
            std::to_string(address_alignment) + ")");
  }

  // globalDim[i]: 1 .. 2^32 elements; packed types constrain dimension 0.
  for (std::uint32_t i = 0; i < rank; ++i) {
    const std::uint64_t dim = spec.global_dim[i];
    if (dim < 1 || dim > kMaxGlobalDim) {
      problem("globalDim[" + std::to_string(i) + "]=" + std::to_string(dim) +
              " is out of range: 1 to 2^32 elements");
    }
  }
  if (rank >= 1 && is_align16b_packed(spec.dtype) && spec.global_dim[0] % 128 != 0) {
    problem("globalDim[0]=" + std::to_string(spec.global_dim[0]) +
            " must be a multiple of 128 for " + to_string(spec.dtype));
  }
  if (rank >= 1 && spec.dtype == TensorMapDataType::u4x16_align8b && spec.global_dim[0] % 2 != 0) {
    problem("globalDim[0]=" + std::to_string(spec.global_dim[0]) +
            " must be even for 16U4_ALIGN8B");
  }

  // globalStrides[i] (dimensions 1..rank-1, bytes): multiple of 16 (32 with INTERLEAVE_32B and
  // ALIGN16B packed types), below 2^40.
  const std::uint64_t stride_multiple =
      (interleave_32b || is_align16b_packed(spec.dtype)) ? 32 : 16;
  for (std::uint32_t i = 0; i + 1 < rank; ++i) {
    const std::uint64_t stride = spec.global_strides_bytes[i];
    const std::string field =
        "globalStrides[" + std::to_string(i) + "]=" + std::to_string(stride) + " B";
    if (stride % stride_multiple != 0) {
      problem(field + " is not a multiple of " + std::to_string(stride_multiple) + " B" +
              (interleave_32b ? " (required with interleave 32B)" : ""));
    }
    if (stride >= kStrideLimit) problem(field + " is not below 2^40 B");
  }

  // boxDim[i]: 1..256 elements.
  for (std::uint32_t i = 0; i < rank; ++i) {
    const std::uint32_t box = spec.box_dim[i];
    if (box < 1 || box > kMaxBoxDim) {
      problem("boxDim[" + std::to_string(i) + "]=" + std::to_string(box) +
              " is out of range: 1 to 256 elements");
    }
  }
  const std::uint32_t bits = element_size_bits(spec.dtype);
  if (rank >= 1 && bits != 0 && spec.box_dim[0] >= 1) {
    const std::uint64_t inner_bits = std::uint64_t{spec.box_dim[0]} * bits;
    const std::string inner = "boxDim[0]=" + std::to_string(spec.box_dim[0]) + " \u00d7 " +
                              element_size_text(spec.dtype) + " = " +
                              std::to_string(inner_bits / 8) + " B";
    // With interleave NONE the inner box row must be a whole number of 16-byte chunks.
    if (!interleaved && inner_bits % 128 != 0) {
      problem(inner +
              " is not a multiple of 16 B (required with interleave NONE): use a multiple of " +
              std::to_string(128 / std::gcd<std::uint64_t>(128, bits)) + " elements");
    }
    // With interleave NONE and a swizzle, the inner box row must fit the swizzle span.
    const std::uint32_t span = swizzle_span_bytes(spec.swizzle);
    if (!interleaved && span != 0 && valid(spec.swizzle) && inner_bits > std::uint64_t{span} * 8) {
      problem(inner + " exceeds the " + to_string(spec.swizzle) + " swizzle span: at most " +
              std::to_string(std::uint64_t{span} * 8 / bits) + " elements");
    }
    if (is_align16b_packed(spec.dtype) && spec.box_dim[0] != 128) {
      problem("boxDim[0]=" + std::to_string(spec.box_dim[0]) + " must be 128 for " +
              to_string(spec.dtype));
    }
  }

  // elementStrides[i]: 1..8 (dimension 0's is ignored by TMA with interleave NONE, but the
  // driver's rule covers the whole array).
  for (std::uint32_t i = 0; i < rank; ++i) {
    const std::uint32_t stride = spec.element_strides[i];
    if (stride < 1 || stride > kMaxElementStride) {
      problem("elementStrides[" + std::to_string(i) + "]=" + std::to_string(stride) +
              " is out of range: 1 to 8");
    }
  }

  // INTERLEAVE_32B forces SWIZZLE_32B.
  if (interleave_32b && spec.swizzle != TensorMapSwizzle::b32) {
    problem("interleave 32B requires swizzle 32B (got " + to_string(spec.swizzle) + ")");
  }

  // Packed sub-byte types: interleave and swizzle restrictions.
  if (spec.dtype == TensorMapDataType::u6x16_align16b && interleaved) {
    problem("16U6_ALIGN16B requires interleave NONE (got " + to_string(spec.interleave) + ")");
  }
  if (is_align16b_packed(spec.dtype)) {
    const bool allowed = spec.swizzle == TensorMapSwizzle::none ||
                         spec.swizzle == TensorMapSwizzle::b128 ||
                         spec.swizzle == TensorMapSwizzle::b128_atom_32b ||
                         (spec.dtype == TensorMapDataType::u6x16_align16b &&
                          spec.swizzle == TensorMapSwizzle::b128_atom_64b);
    if (!allowed) {
      problem("swizzle " + to_string(spec.swizzle) + " is not supported with " +
              to_string(spec.dtype) + " (NONE, 128B or 128B_ATOM_32B" +
              (spec.dtype == TensorMapDataType::u6x16_align16b
                   ? std::string(", or 128B_ATOM_64B for stores")
                   : std::string()) +
              ")");
    }
  }

  // NaN fill only for floating-point, non-packed types.
  if (spec.oob_fill == TensorMapOobFill::nan_request_zero_fma && valid(spec.dtype) &&
      (!is_floating(spec.dtype) || is_packed(spec.dtype))) {
    problem("oobFill NAN_REQUEST_ZERO_FMA needs a floating-point data type (got " +
            to_string(spec.dtype) + ")");
  }
  return problems;
}

void validate_tensor_map(const TensorMapSpec& spec) {
  const std::vector<std::string> problems = tensor_map_problems(spec);
  if (problems.empty()) return;
  std::string text = "invalid tensor map (" + describe(spec) +
                     "): " + std::to_string(problems.size()) +
                     (problems.size() == 1 ? " problem" : " problems");
  for (const std::string& p : problems) text += "\n  - " + p;
  throw std::invalid_argument(text);
}

std::string describe(const TensorMapSpec& spec) {
  const std::size_t rank = std::min(spec.rank, kMaxRank);
  return to_string(spec.dtype) + " rank " + std::to_string(spec.rank) + " at " +
         hex(spec.global_address) + ", globalDim " + list(spec.global_dim, rank) +
         ", globalStrides " + list(spec.global_strides_bytes, rank == 0 ? 0 : rank - 1) +
         " B, boxDim " + list(spec.box_dim, rank) + ", elementStrides " +
         list(spec.element_strides, rank) + ", interleave " + to_string(spec.interleave) +
         ", swizzle " + to_string(spec.swizzle) + ", l2Promotion " + to_string(spec.l2_promotion) +
         ", oobFill " + to_string(spec.oob_fill);
}

}  // namespace gs::cuda
