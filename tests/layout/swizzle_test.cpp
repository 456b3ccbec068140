// Tests for engine/layout/swizzle: names, per-mode numbers, the address XOR of facts §3 and
// its CuTe Swizzle<B,M,S> form.
#include <catch2/catch.hpp>

#include <array>
#include <set>
#include <stdexcept>

#include "engine/layout/swizzle.hpp"

using namespace gs::layout;

namespace {
constexpr std::array<Swizzle, 4> kAllModes{Swizzle::none, Swizzle::b32, Swizzle::b64,
                                           Swizzle::b128};
}

TEST_CASE("swizzle names round-trip and parse case-insensitively", "[layout][swizzle]") {
    CHECK(swizzle_name(Swizzle::none) == "none");
    CHECK(swizzle_name(Swizzle::b32) == "32B");
    CHECK(swizzle_name(Swizzle::b64) == "64B");
    CHECK(swizzle_name(Swizzle::b128) == "128B");
    for (const Swizzle sw : kAllModes) CHECK(parse_swizzle(swizzle_name(sw)) == sw);
    CHECK(parse_swizzle("128b") == Swizzle::b128);
    CHECK(parse_swizzle("NONE") == Swizzle::none);
    CHECK_FALSE(parse_swizzle("128").has_value());
    CHECK_FALSE(parse_swizzle("16B").has_value());
    CHECK_FALSE(parse_swizzle("").has_value());
}

TEST_CASE("swizzle per-mode numbers follow facts §3", "[layout][swizzle]") {
    CHECK(swizzle_span_bytes(Swizzle::none) == 0);
    CHECK(swizzle_span_bytes(Swizzle::b32) == 32);
    CHECK(swizzle_span_bytes(Swizzle::b64) == 64);
    CHECK(swizzle_span_bytes(Swizzle::b128) == 128);
    CHECK(swizzle_repeat_bytes(Swizzle::none) == 16);
    CHECK(swizzle_repeat_bytes(Swizzle::b32) == 256);
    CHECK(swizzle_repeat_bytes(Swizzle::b64) == 512);
    CHECK(swizzle_repeat_bytes(Swizzle::b128) == 1024);
    for (const Swizzle sw : kAllModes) {
        CHECK(swizzle_required_alignment(sw) == swizzle_repeat_bytes(sw));
        // The repeat is eight rows of the span (one 16-byte chunk for none).
        if (sw != Swizzle::none) CHECK(swizzle_repeat_bytes(sw) == 8 * swizzle_span_bytes(sw));
    }
    CHECK(cu_tensor_map_swizzle(Swizzle::none) == 0);
    CHECK(cu_tensor_map_swizzle(Swizzle::b32) == 1);
    CHECK(cu_tensor_map_swizzle(Swizzle::b64) == 2);
    CHECK(cu_tensor_map_swizzle(Swizzle::b128) == 3);
}

TEST_CASE("swizzle_address spot values", "[layout][swizzle]") {
    // Row 1 of a 128B tile (address bit 7 set): chunk 0 moves to chunk 1.
    CHECK(swizzle_address(Swizzle::b128, 0x080) == 0x090);
    // Row 7, chunk 2, byte 5: chunk 2 ^ 7 = 5.
    CHECK(swizzle_address(Swizzle::b128, 7 * 128 + 2 * 16 + 5) == 7 * 128 + 5 * 16 + 5);
    // Bits 7..9 repeat every 1024 B: row 8 behaves like row 0.
    CHECK(swizzle_address(Swizzle::b128, 8 * 128 + 3 * 16) == 8 * 128 + 3 * 16);
    // 64B reads bits 7..8 only: bit 9 (0x200) does not change anything.
    CHECK(swizzle_address(Swizzle::b64, 0x200 + 0x10) == 0x210);
    CHECK(swizzle_address(Swizzle::b64, 0x180) == 0x1B0);
    // 32B reads bit 7 only.
    CHECK(swizzle_address(Swizzle::b32, 0x180) == 0x190);
    CHECK(swizzle_address(Swizzle::none, 0x3F0) == 0x3F0);

    CHECK(swizzle_xor_bits(Swizzle::b128, 0x380) == 7);
    CHECK(swizzle_xor_bits(Swizzle::b64, 0x380) == 3);
    CHECK(swizzle_xor_bits(Swizzle::b32, 0x380) == 1);
    CHECK(swizzle_xor_bits(Swizzle::none, 0x380) == 0);
}

TEST_CASE("swizzle twice is the identity", "[layout][swizzle][property]") {
    for (const Swizzle sw : kAllModes) {
        INFO("mode " << swizzle_name(sw));
        for (uint32_t a = 0; a < (1u << 16); ++a) {
            if (swizzle_address(sw, swizzle_address(sw, a)) != a) {
                FAIL("not an involution at " << a);
            }
        }
        // And far up in the address space.
        for (uint32_t a = 0xFFFF0000u; a != 0; ++a) {
            if (swizzle_address(sw, swizzle_address(sw, a)) != a) {
                FAIL("not an involution at " << a);
            }
        }
    }
}

TEST_CASE("swizzle permutes each aligned repeat onto itself", "[layout][swizzle][property]") {
    for (const Swizzle sw : kAllModes) {
        INFO("mode " << swizzle_name(sw));
        const uint32_t repeat = swizzle_repeat_bytes(sw);
        for (const uint32_t base : {0u, 1024u, 4096u, 7u * 1024u}) {
            std::set<uint32_t> image;
            for (uint32_t a = base; a < base + repeat; ++a) {
                const uint32_t p = swizzle_address(sw, a);
                CHECK(p >= base);
                CHECK(p < base + repeat);
                // The XOR only touches bits 4..6: bytes stay inside their 16-byte chunk.
                CHECK(p % 16 == a % 16);
                image.insert(p);
            }
            CHECK(image.size() == repeat);
        }
    }
}

TEST_CASE("SwizzleBMS agrees with swizzle_address", "[layout][swizzle]") {
    CHECK(to_bms(Swizzle::b128).bits == 3);
    CHECK(to_bms(Swizzle::b64).bits == 2);
    CHECK(to_bms(Swizzle::b32).bits == 1);
    CHECK(to_bms(Swizzle::none).bits == 0);
    for (const Swizzle sw : kAllModes) {
        CHECK(to_bms(sw).base == 4);
        CHECK(to_bms(sw).shift == 3);
        const SwizzleBMS bms = to_bms(sw);
        INFO("mode " << swizzle_name(sw));
        for (uint32_t a = 0; a < (1u << 16); ++a) {
            if (bms.apply(a) != swizzle_address(sw, a)) FAIL("differs at " << a);
        }
    }
}

TEST_CASE("SwizzleBMS follows the CuTe formula for other parameters", "[layout][swizzle]") {
    // Swizzle<2,3,4>: bits [7,9) are XORed onto bits [3,5).
    const SwizzleBMS s{2, 3, 4};
    CHECK(s.apply(0x080) == 0x088);
    CHECK(s.apply(0x100) == 0x110);
    CHECK(s.apply(0x180) == 0x198);
    CHECK(s.apply(0x07F) == 0x07F);
    CHECK(s.apply(s.apply(0x1AB)) == 0x1AB);
}

TEST_CASE("SwizzleBMS rejects overlapping or oversized fields", "[layout][swizzle][errors]") {
    CHECK_THROWS_AS((SwizzleBMS{3, 4, 2}.apply(0)), std::invalid_argument);
    CHECK_THROWS_WITH((SwizzleBMS{3, 4, 2}.apply(0)), Catch::Contains("Swizzle<3,4,2>"));
    CHECK_THROWS_AS((SwizzleBMS{3, 24, 8}.apply(0)), std::invalid_argument);
    CHECK_THROWS_AS((SwizzleBMS{-1, 4, 3}.apply(0)), std::invalid_argument);
    CHECK_NOTHROW(SwizzleBMS{3, 4, 3}.apply(0));
}

TEST_CASE("an invalid Swizzle value is reported, not read out of bounds",
          "[layout][swizzle][errors]") {
    const auto bad = static_cast<Swizzle>(9);
    CHECK_THROWS_WITH(swizzle_name(bad), Catch::Contains("not a Swizzle mode"));
    CHECK_THROWS_AS(swizzle_address(bad, 0), std::invalid_argument);
}

TEST_CASE("the tile's row and column warp reads: each lane's 16 bytes, through the swizzle", "[layout][swizzle]") {
  using namespace gs::layout;
  const auto row = tile_warp_read(false, Swizzle::none, 1024);
  REQUIRE(row.size() == 32);
  CHECK(row[9].lane == 9);
  CHECK(row[9].addr == 1024 + 128 * 1 + 16 * 1);  // lanes 8..15 read row 1
  const auto col = tile_warp_read(true, Swizzle::none, 1024);
  CHECK(col[5].addr == 1024 + 128 * 5);  // lane l: row l, chunk 0
  const auto swz = tile_warp_read(true, Swizzle::b128, 1024);
  for (uint32_t l = 0; l < 32; ++l) CHECK(swz[l].addr == swizzle_address(Swizzle::b128, col[l].addr));
}
