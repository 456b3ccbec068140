// Tests for engine/layout/tma_box: the shared-memory image of a TMA box (facts §4) and the
// §3 swizzle examples that were checked byte for byte on an H100.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <set>
#include <stdexcept>

#include "engine/layout/tma_box.hpp"

using namespace gs::layout;

namespace {

TmaBox box2d(uint32_t inner, uint32_t rows, Swizzle sw, uint32_t elem_bytes = 2) {
    TmaBox box;
    box.rank = 2;
    box.box_dim = {inner, rows, 1, 1, 1};
    box.elem_bytes = elem_bytes;
    box.swizzle = sw;
    return box;
}

uint32_t offset2d(const TmaBox& box, uint32_t col, uint32_t row, uint32_t base) {
    const std::array<uint32_t, 2> coord{col, row};
    return tma_box_smem_offset(box, coord, base);
}

}  // namespace

TEST_CASE("128B: row r chunk c lands at chunk c ^ (r % 8)", "[layout][tma]") {
    const TmaBox box = box2d(64, 64, Swizzle::b128);  // 64 bf16 = 128 B rows
    for (const uint32_t base : {1024u, 3u * 1024u}) {
        for (uint32_t r = 0; r < 64; ++r) {
            for (uint32_t c = 0; c < 64; ++c) {
                const uint32_t chunk = (2 * c) / 16;
                const uint32_t expect = base + 128 * r + 16 * (chunk ^ (r % 8)) + (2 * c) % 16;
                REQUIRE(offset2d(box, c, r, base) == expect);
            }
        }
    }
}

TEST_CASE("64B: two rows per line, chunk (0..3) xor (r/2) % 4", "[layout][tma]") {
    const TmaBox box = box2d(32, 64, Swizzle::b64);  // 32 bf16 = 64 B rows
    const uint32_t base = 2048;
    for (uint32_t r = 0; r < 64; ++r) {
        for (uint32_t c = 0; c < 32; ++c) {
            const uint32_t chunk = (2 * c) / 16;  // 0..3 inside the 64-byte row
            const uint32_t expect = base + 64 * r + 16 * (chunk ^ ((r / 2) % 4)) + (2 * c) % 16;
            REQUIRE(offset2d(box, c, r, base) == expect);
        }
    }
}

TEST_CASE("32B: the chunk flips for rows 4-7 of every 8", "[layout][tma]") {
    const TmaBox box = box2d(16, 64, Swizzle::b32);  // 16 bf16 = 32 B rows
    const uint32_t base = 1024;
    for (uint32_t r = 0; r < 64; ++r) {
        const uint32_t flip = (r % 8) >= 4 ? 1 : 0;
        for (uint32_t c = 0; c < 16; ++c) {
            const uint32_t chunk = (2 * c) / 16;  // 0..1
            const uint32_t expect = base + 32 * r + 16 * (chunk ^ flip) + (2 * c) % 16;
            REQUIRE(offset2d(box, c, r, base) == expect);
        }
    }
}

TEST_CASE("no swizzle packs the box densely, dimension 0 fastest", "[layout][tma]") {
    TmaBox box;
    box.rank = 3;
    box.box_dim = {8, 5, 3, 1, 1};
    box.elem_bytes = 4;
    const std::array<uint32_t, 3> coord{7, 4, 2};
    CHECK(tma_box_smem_offset(box, coord, 0x100) == 0x100 + 4 * (7 + 8 * (4 + 5 * 2)));
    CHECK(tma_box_bytes(box) == 8 * 5 * 3 * 4);
}

TEST_CASE("the image of a box is a permutation of its bytes", "[layout][tma][property]") {
    for (const Swizzle sw : {Swizzle::none, Swizzle::b32, Swizzle::b64, Swizzle::b128}) {
        const uint32_t inner = sw == Swizzle::none ? 64 : swizzle_span_bytes(sw) / 2;
        const TmaBox box = box2d(inner, 48, sw);
        const uint32_t base = 4096;
        const auto image = tma_box_smem_image(box, base);
        REQUIRE(image.size() == tma_box_bytes(box) / 2);
        const std::set<uint32_t> distinct(image.begin(), image.end());
        CHECK(distinct.size() == image.size());
        CHECK(*std::min_element(image.begin(), image.end()) >= base);
        CHECK(*std::max_element(image.begin(), image.end()) < base + tma_box_bytes(box));
        // The image lists elements in box order: entry 3*inner + 5 is element (5, 3).
        CHECK(image[3 * inner + 5] == offset2d(box, 5, 3, base));
    }
}

TEST_CASE("fast.cu's 3-D box: BK/64 slabs of rows x 128 B", "[layout][tma]") {
    // dims {64, rows, K/64}, box {64, 128, 2}, 128B swizzle (facts §4).
    TmaBox box;
    box.rank = 3;
    box.box_dim = {64, 128, 2, 1, 1};
    box.elem_bytes = 2;
    box.swizzle = Swizzle::b128;
    CHECK(tma_box_bytes(box) == 2 * 128 * 128);
    // Element k=64+3 of row 9 is slab 1, row 9, column 3; slab 1 starts 128*128 B later.
    const std::array<uint32_t, 3> coord{3, 9, 1};
    const uint32_t base = 1024;
    CHECK(tma_box_smem_offset(box, coord, base) ==
          base + 128 * 128 + 9 * 128 + 16 * (0 ^ (9 % 8)) + 6);
}

TEST_CASE("element strides shrink the box; elementStrides[0] is ignored", "[layout][tma]") {
    TmaBox box = box2d(64, 64, Swizzle::none);
    box.element_strides = {4, 3, 1, 1, 1};
    CHECK(tma_box_extent(box, 0) == 64);  // stride 4 on dim 0 ignored (interleave NONE)
    CHECK(tma_box_extent(box, 1) == 22);  // ceil(64 / 3)
    CHECK(tma_box_bytes(box) == 128 * 22);
    const std::array<uint32_t, 2> last{63, 21};
    CHECK(tma_box_smem_offset(box, last, 0) == 128 * 21 + 126);
    const std::array<uint32_t, 2> outside{0, 22};
    CHECK_THROWS_WITH(tma_box_smem_offset(box, outside, 0), Catch::Contains("use 0..21"));
}

TEST_CASE("a misaligned base swizzles by absolute address bits", "[layout][tma]") {
    // Base 128 past a 1024 boundary: row 0 sits on address line 9, so its chunks XOR with 1.
    const TmaBox box = box2d(64, 8, Swizzle::b128);
    CHECK_FALSE(tma_box_base_is_aligned(box, 1024 + 128));
    CHECK(tma_box_base_is_aligned(box, 2048));
    CHECK(offset2d(box, 0, 0, 1024 + 128) == 1024 + 128 + 16);
    CHECK(offset2d(box, 0, 0, 2048) == 2048);
}

TEST_CASE("validate_tma_box names the bad field", "[layout][tma][errors]") {
    CHECK_NOTHROW(validate_tma_box(box2d(64, 256, Swizzle::b128)));

    // boxDim[0] * elemSize above the swizzle span (facts §3 "Inner box limit").
    CHECK_THROWS_AS(validate_tma_box(box2d(128, 64, Swizzle::b128)), std::invalid_argument);
    CHECK_THROWS_WITH(validate_tma_box(box2d(128, 64, Swizzle::b128)),
                      Catch::Contains("boxDim[0]=128") &&
                          Catch::Contains("256 B exceeds the 128B swizzle span (128 B)") &&
                          Catch::Contains("use at most 64 elements"));
    CHECK_THROWS_WITH(validate_tma_box(box2d(32, 64, Swizzle::b32)),
                      Catch::Contains("32B swizzle span (32 B): use at most 16 elements"));
    CHECK_NOTHROW(validate_tma_box(box2d(128, 64, Swizzle::none)));

    // Row bytes not a multiple of 16.
    CHECK_THROWS_WITH(validate_tma_box(box2d(12, 64, Swizzle::none)),
                      Catch::Contains("boxDim[0]=12") && Catch::Contains("multiple of 16 B") &&
                          Catch::Contains("multiple of 8 elements"));
    // Box dimension range.
    CHECK_THROWS_WITH(validate_tma_box(box2d(64, 257, Swizzle::none)),
                      Catch::Contains("boxDim[1]=257") && Catch::Contains("1..256"));
    CHECK_THROWS_WITH(validate_tma_box(box2d(64, 0, Swizzle::none)),
                      Catch::Contains("boxDim[1]=0"));
    // Rank.
    TmaBox bad_rank = box2d(64, 64, Swizzle::none);
    bad_rank.rank = 6;
    CHECK_THROWS_WITH(validate_tma_box(bad_rank), Catch::Contains("rank=6") &&
                                                      Catch::Contains("1..5"));
    bad_rank.rank = 0;
    CHECK_THROWS_AS(validate_tma_box(bad_rank), std::invalid_argument);
    // Element strides.
    TmaBox bad_stride = box2d(64, 64, Swizzle::none);
    bad_stride.element_strides[1] = 9;
    CHECK_THROWS_WITH(validate_tma_box(bad_stride),
                      Catch::Contains("elementStrides[1]=9") && Catch::Contains("1..8"));
    // Element size.
    CHECK_THROWS_WITH(validate_tma_box(box2d(64, 64, Swizzle::none, 3)),
                      Catch::Contains("element size 3 B"));
}

TEST_CASE("tma_box_smem_offset rejects bad coordinates and bases", "[layout][tma][errors]") {
    const TmaBox box = box2d(64, 64, Swizzle::b128);
    const std::array<uint32_t, 1> short_coord{0};
    CHECK_THROWS_WITH(tma_box_smem_offset(box, short_coord, 1024),
                      Catch::Contains("1 entries, the box has rank 2"));
    const std::array<uint32_t, 2> wide{64, 0};
    CHECK_THROWS_WITH(tma_box_smem_offset(box, wide, 1024),
                      Catch::Contains("coordinate[0]=64") && Catch::Contains("0..63"));
    const std::array<uint32_t, 2> ok{0, 0};
    CHECK_THROWS_WITH(tma_box_smem_offset(box, ok, 1032), Catch::Contains("16-byte aligned"));
}
