// Tensor-map rules (facts §3, §4): every rule has a failing spec and a message check; the specs
// gemmscope really uses pass. No GPU and no cuda.h needed.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "engine/cuda/tensor_map_spec.hpp"

using namespace gs::cuda;
using Catch::Contains;

namespace {

constexpr std::uint64_t kBase = 0x7f0000000000ull;  // 256-byte aligned, like cuMemAlloc's

// The reference spec: a 4096×8192 row-major bf16 matrix read in 64×64 boxes with 128B swizzle.
TensorMapSpec good_spec() {
  TensorMapSpec spec;
  spec.dtype = TensorMapDataType::bfloat16;
  spec.rank = 2;
  spec.global_address = kBase;
  spec.global_dim = {8192, 4096, 1, 1, 1};
  spec.global_strides_bytes = {8192 * 2, 0, 0, 0};
  spec.box_dim = {64, 64, 1, 1, 1};
  spec.swizzle = TensorMapSwizzle::b128;
  return spec;
}

// Checks that validate_tensor_map throws std::invalid_argument naming `text`, and that
// tensor_map_problems has exactly `count` problems.
void check_rejected(const TensorMapSpec& spec, const std::string& text, std::size_t count = 1) {
  INFO(describe(spec));
  CHECK_THROWS_AS(validate_tensor_map(spec), std::invalid_argument);
  CHECK_THROWS_WITH(validate_tensor_map(spec), Contains(text));
  CHECK(tensor_map_problems(spec).size() == count);
}

}  // namespace

TEST_CASE("the reference 128B-swizzled bf16 64x64 box passes", "[cuda][tensor_map]") {
  const TensorMapSpec spec = good_spec();
  CHECK(tensor_map_problems(spec).empty());
  CHECK_NOTHROW(validate_tensor_map(spec));
  CHECK(tensor_map_box_bytes(spec) == 64 * 64 * 2);
  CHECK(describe(spec) ==
        "BFLOAT16 rank 2 at 0x7f0000000000, globalDim {8192, 4096}, globalStrides {16384} B, "
        "boxDim {64, 64}, elementStrides {1, 1}, interleave NONE, swizzle 128B, "
        "l2Promotion NONE, oobFill NONE");
}

TEST_CASE("tensor_map_2d builds the row-major spec of facts §4", "[cuda][tensor_map]") {
  const TensorMapSpec spec =
      tensor_map_2d(TensorMapDataType::bfloat16, kBase, 4096, 8192, 64, 64, TensorMapSwizzle::b128);
  const TensorMapSpec expected = good_spec();
  CHECK(spec.global_dim == expected.global_dim);
  CHECK(spec.global_strides_bytes == expected.global_strides_bytes);
  CHECK(spec.box_dim == expected.box_dim);
  CHECK(spec.swizzle == expected.swizzle);
  CHECK(tensor_map_problems(spec).empty());
}

TEST_CASE("fast.cu's 3-D K-chunk view is valid", "[cuda][tensor_map]") {
  // A rows×K bf16 matrix as {64, rows, K/64} with strides {K·2, 128}: the outer stride is
  // smaller than the middle one, which the rules allow.
  const std::uint64_t rows = 4096, k = 8192;
  TensorMapSpec spec = good_spec();
  spec.rank = 3;
  spec.global_dim = {64, rows, k / 64, 1, 1};
  spec.global_strides_bytes = {k * 2, 128, 0, 0};
  spec.box_dim = {64, 128, 2, 1, 1};
  CHECK(tensor_map_problems(spec).empty());
  CHECK(tensor_map_box_bytes(spec) == 64 * 128 * 2 * 2);
}

TEST_CASE("rank must be 1..5, and 3..5 when interleaved", "[cuda][tensor_map]") {
  TensorMapSpec spec = good_spec();
  spec.rank = 0;
  check_rejected(spec, "rank=0 is out of range: a tensor map has 1 to 5 dimensions");
  spec.rank = 6;
  check_rejected(spec, "rank=6 is out of range: a tensor map has 1 to 5 dimensions");

  spec = good_spec();
  spec.interleave = TensorMapInterleave::b16;
  spec.swizzle = TensorMapSwizzle::none;
  check_rejected(spec, "rank=2 with interleave 16B: interleaved layouts need rank 3 to 5");
  spec.rank = 3;
  spec.global_dim[2] = 2;
  spec.global_strides_bytes[1] = 8192 * 2 * 4096;
  CHECK(tensor_map_problems(spec).empty());
}

TEST_CASE("globalAddress must be 16-byte aligned, 32 with interleave 32B", "[cuda][tensor_map]") {
  TensorMapSpec spec = good_spec();
  spec.global_address = kBase + 8;
  check_rejected(spec, "globalAddress=0x7f0000000008 is not 16-byte aligned");

  spec = good_spec();
  spec.rank = 3;
  spec.global_dim[2] = 1;
  spec.global_strides_bytes[1] = 8192 * 2 * 4096;
  spec.interleave = TensorMapInterleave::b32;
  spec.swizzle = TensorMapSwizzle::b32;
  CHECK(tensor_map_problems(spec).empty());
  spec.global_address = kBase + 16;
  check_rejected(spec, "globalAddress=0x7f0000000010 is not 32-byte aligned");
}

TEST_CASE("globalDim must be 1..2^32 elements", "[cuda][tensor_map]") {
  TensorMapSpec spec = good_spec();
  spec.global_dim[1] = 0;
  check_rejected(spec, "globalDim[1]=0 is out of range: 1 to 2^32 elements");
  spec.global_dim[1] = (1ull << 32) + 1;
  check_rejected(spec, "globalDim[1]=4294967297 is out of range: 1 to 2^32 elements");
  spec.global_dim[1] = 1ull << 32;
  CHECK(tensor_map_problems(spec).empty());
  // Entries past the rank are ignored.
  spec = good_spec();
  spec.global_dim[3] = 0;
  spec.box_dim[4] = 999;
  CHECK(tensor_map_problems(spec).empty());
}

TEST_CASE("globalStrides must be multiples of 16 B (32 B with interleave 32B) below 2^40",
          "[cuda][tensor_map]") {
  TensorMapSpec spec = good_spec();
  spec.global_strides_bytes[0] = 8200;
  check_rejected(spec, "globalStrides[0]=8200 B is not a multiple of 16 B");
  spec.global_strides_bytes[0] = 1ull << 40;
  check_rejected(spec, "globalStrides[0]=1099511627776 B is not below 2^40 B");

  spec = good_spec();
  spec.rank = 3;
  spec.global_dim = {16, 64, 8, 1, 1};
  spec.global_strides_bytes = {48, 48 * 64, 0, 0};
  spec.box_dim = {16, 64, 8, 1, 1};
  spec.interleave = TensorMapInterleave::b32;
  spec.swizzle = TensorMapSwizzle::b32;
  check_rejected(spec,
                 "globalStrides[0]=48 B is not a multiple of 32 B (required with interleave 32B)");
}

TEST_CASE("boxDim must be 1..256 elements", "[cuda][tensor_map]") {
  TensorMapSpec spec = good_spec();
  spec.box_dim[1] = 300;
  check_rejected(spec, "boxDim[1]=300 is out of range: 1 to 256 elements");
  spec.box_dim[1] = 0;
  check_rejected(spec, "boxDim[1]=0 is out of range: 1 to 256 elements");
  spec.box_dim[1] = 256;
  CHECK(tensor_map_problems(spec).empty());
}

TEST_CASE("the inner box row must be a multiple of 16 B without interleave", "[cuda][tensor_map]") {
  TensorMapSpec spec = good_spec();
  spec.swizzle = TensorMapSwizzle::none;
  spec.box_dim[0] = 4;
  check_rejected(
      spec,
      "boxDim[0]=4 \u00d7 2 B = 8 B is not a multiple of 16 B (required with interleave NONE): "
      "use a multiple of 8 elements");
  spec.dtype = TensorMapDataType::float32;
  spec.global_strides_bytes[0] = 8192 * 4;
  spec.box_dim[0] = 6;
  check_rejected(spec, "boxDim[0]=6 \u00d7 4 B = 24 B is not a multiple of 16 B");
  spec.box_dim[0] = 8;
  CHECK(tensor_map_problems(spec).empty());
}

TEST_CASE("the inner box row must fit the swizzle span", "[cuda][tensor_map]") {
  TensorMapSpec spec = good_spec();
  spec.box_dim[0] = 128;
  check_rejected(
      spec, "boxDim[0]=128 \u00d7 2 B = 256 B exceeds the 128B swizzle span: at most 64 elements");
  spec.swizzle = TensorMapSwizzle::b64;
  spec.box_dim[0] = 64;
  check_rejected(
      spec, "boxDim[0]=64 \u00d7 2 B = 128 B exceeds the 64B swizzle span: at most 32 elements");
  spec.box_dim[0] = 32;
  CHECK(tensor_map_problems(spec).empty());
  spec.swizzle = TensorMapSwizzle::b32;
  check_rejected(
      spec, "boxDim[0]=32 \u00d7 2 B = 64 B exceeds the 32B swizzle span: at most 16 elements");
  spec.box_dim[0] = 16;
  CHECK(tensor_map_problems(spec).empty());
  spec.swizzle = TensorMapSwizzle::b128_atom_64b;  // all 128B_* modes span 128 bytes
  spec.box_dim[0] = 72;
  check_rejected(spec, "exceeds the 128B_ATOM_64B swizzle span: at most 64 elements");
}

TEST_CASE("elementStrides must be 1..8", "[cuda][tensor_map]") {
  TensorMapSpec spec = good_spec();
  spec.element_strides[1] = 9;
  check_rejected(spec, "elementStrides[1]=9 is out of range: 1 to 8");
  spec.element_strides[1] = 0;
  check_rejected(spec, "elementStrides[1]=0 is out of range: 1 to 8");
  spec.element_strides[1] = 2;
  CHECK(tensor_map_problems(spec).empty());
  CHECK(tensor_map_box_bytes(spec) == 64 * 32 * 2);  // ceil(64 / 2) rows
}

TEST_CASE("interleave 32B requires swizzle 32B", "[cuda][tensor_map]") {
  TensorMapSpec spec = good_spec();
  spec.rank = 3;
  spec.global_dim[2] = 1;
  spec.global_strides_bytes[1] = 8192 * 2 * 4096;
  spec.interleave = TensorMapInterleave::b32;
  spec.swizzle = TensorMapSwizzle::b128;
  check_rejected(spec, "interleave 32B requires swizzle 32B (got 128B)");
}

TEST_CASE("enumerations must hold driver values", "[cuda][tensor_map]") {
  TensorMapSpec spec = good_spec();
  spec.swizzle = static_cast<TensorMapSwizzle>(9);
  check_rejected(spec, "swizzle=9 is not a CUtensorMapSwizzle (0 to 6)");
  spec = good_spec();
  spec.dtype = static_cast<TensorMapDataType>(16);
  check_rejected(spec, "dtype=16 is not a CUtensorMapDataType (0 to 15)");
  spec = good_spec();
  spec.interleave = static_cast<TensorMapInterleave>(3);
  check_rejected(spec, "interleave=3 is not a CUtensorMapInterleave");
  spec = good_spec();
  spec.l2_promotion = static_cast<TensorMapL2Promotion>(4);
  check_rejected(spec, "l2Promotion=4 is not a CUtensorMapL2promotion (0 to 3)");
  spec = good_spec();
  spec.oob_fill = static_cast<TensorMapOobFill>(2);
  check_rejected(spec, "oobFill=2 is not a CUtensorMapFloatOOBfill (0 or 1)");
}

TEST_CASE("NaN out-of-bounds fill needs a floating-point type", "[cuda][tensor_map]") {
  TensorMapSpec spec = good_spec();
  spec.oob_fill = TensorMapOobFill::nan_request_zero_fma;
  CHECK(tensor_map_problems(spec).empty());
  spec.dtype = TensorMapDataType::uint16;
  check_rejected(spec,
                 "oobFill NAN_REQUEST_ZERO_FMA needs a floating-point data type (got UINT16)");
}

TEST_CASE("packed sub-byte types follow their own rules", "[cuda][tensor_map]") {
  TensorMapSpec spec = good_spec();
  spec.dtype = TensorMapDataType::u4x16_align16b;
  spec.global_strides_bytes[0] = 8192;
  spec.box_dim[0] = 128;
  CHECK(tensor_map_problems(spec).empty());
  spec.box_dim[0] = 64;
  check_rejected(spec, "boxDim[0]=64 must be 128 for 16U4_ALIGN16B");
  spec.box_dim[0] = 128;
  spec.global_address = kBase + 16;
  check_rejected(spec, "is not 32-byte aligned");
  spec.global_address = kBase;
  spec.swizzle = TensorMapSwizzle::b64;
  check_rejected(spec, "swizzle 64B is not supported with 16U4_ALIGN16B", 2);
}

TEST_CASE("validate_tensor_map lists every problem", "[cuda][tensor_map]") {
  TensorMapSpec spec = good_spec();
  spec.global_address = kBase + 4;
  spec.box_dim[0] = 128;
  spec.element_strides[0] = 0;
  REQUIRE(tensor_map_problems(spec).size() == 3);
  CHECK_THROWS_WITH(validate_tensor_map(spec),
                    Contains("3 problems") && Contains("globalAddress") &&
                        Contains("boxDim[0]=128") && Contains("elementStrides[0]=0") &&
                        Contains("invalid tensor map (BFLOAT16 rank 2"));
}
