// Tests for engine/layout/wgmma_descriptor: encode/decode (facts §1.4), the canonical K-major
// and MN-major tiles, and which shared bytes the tensor core reads, cross-checked against the
// TMA image of the same tile.
#include <catch2/catch.hpp>

#include <array>
#include <random>
#include <set>
#include <vector>
#include <stdexcept>

#include "engine/layout/tma_box.hpp"
#include "engine/layout/wgmma_descriptor.hpp"

using namespace gs::layout;

namespace {

uint32_t tma_offset(const TmaBox& box, uint32_t col, uint32_t row, uint32_t base) {
    const std::array<uint32_t, 2> coord{col, row};
    return tma_box_smem_offset(box, coord, base);
}

// Any encodable descriptor: every field drawn over its whole range.
WgmmaDescriptor random_descriptor(std::mt19937& rng) {
    WgmmaDescriptor d;
    d.start_address = (rng() & 0x3FFF) << 4;
    d.leading_byte_offset = (rng() & 0x3FFF) << 4;
    d.stride_byte_offset = (rng() & 0x3FFF) << 4;
    d.base_offset = rng() & 7;
    d.swizzle = static_cast<Swizzle>(rng() % 4);
    return d;
}

TmaBox bf16_box(uint32_t inner, uint32_t rows, Swizzle sw) {
    TmaBox box;
    box.rank = 2;
    box.box_dim = {inner, rows, 1, 1, 1};
    box.elem_bytes = 2;
    box.swizzle = sw;
    return box;
}

}  // namespace

TEST_CASE("worked example: 128B K-major tile at 0x400", "[layout][wgmma_desc]") {
    const WgmmaDescriptor d = kmajor_tile_descriptor(0x400, Swizzle::b128);
    CHECK(d.leading_byte_offset == 16);
    CHECK(d.stride_byte_offset == 1024);
    CHECK(d.base_offset == 0);
    const uint64_t bits = encode_wgmma_descriptor(d);
    CHECK(bits == 0x4000004000010040ull);
    CHECK(decode_wgmma_descriptor(bits) == d);
    CHECK(describe_wgmma_descriptor(bits) == "start=0x0400 LBO=16 SBO=1024 base=0 swizzle=128B");
    // Advancing one k16 step adds 32 B = 2 in the start field (facts §1.4).
    CHECK(encode_wgmma_descriptor(kmajor_tile_descriptor(0x420, Swizzle::b128)) == bits + 2);
}

TEST_CASE("layout type bits 62-63 per swizzle", "[layout][wgmma_desc]") {
    CHECK(encode_wgmma_descriptor(kmajor_tile_descriptor(0, Swizzle::b128)) >> 62 == 1);
    CHECK(encode_wgmma_descriptor(kmajor_tile_descriptor(0, Swizzle::b64)) >> 62 == 2);
    CHECK(encode_wgmma_descriptor(kmajor_tile_descriptor(0, Swizzle::b32)) >> 62 == 3);
    CHECK(encode_wgmma_descriptor(kmajor_tile_descriptor(0, Swizzle::none, 256)) >> 62 == 0);
    CHECK(kmajor_tile_descriptor(0, Swizzle::b64).stride_byte_offset == 512);
    CHECK(kmajor_tile_descriptor(0, Swizzle::b32).stride_byte_offset == 256);
    const WgmmaDescriptor none = kmajor_tile_descriptor(0x200, Swizzle::none, 256);
    CHECK(none.leading_byte_offset == 128);
    CHECK(none.stride_byte_offset == 256);
}

TEST_CASE("wgmma descriptor encode/decode round trip on random fields",
          "[layout][wgmma_desc][property]") {
    std::mt19937 rng(20261121);
    for (int i = 0; i < 5000; ++i) {
        const WgmmaDescriptor d = random_descriptor(rng);
        const uint64_t bits = encode_wgmma_descriptor(d);
        REQUIRE(wgmma_descriptor_reserved_bits(bits) == 0);
        REQUIRE(decode_wgmma_descriptor(bits) == d);
        // And the other direction, on a random word with reserved bits cleared.
        const uint64_t word = (uint64_t{rng()} << 32 | rng());
        const uint64_t clean = word & ~wgmma_descriptor_reserved_bits(word);
        REQUIRE(encode_wgmma_descriptor(decode_wgmma_descriptor(word)) == clean);
    }
}

TEST_CASE("describe flags reserved bits", "[layout][wgmma_desc]") {
    const uint64_t bits = 0x4000004000010040ull | (uint64_t{1} << 14);
    CHECK(describe_wgmma_descriptor(bits) ==
          "start=0x0400 LBO=16 SBO=1024 base=0 swizzle=128B reserved=0x0000000000004000");
}

TEST_CASE("wgmma descriptor encode rejects values it would corrupt",
          "[layout][wgmma_desc][errors]") {
    WgmmaDescriptor d = kmajor_tile_descriptor(0x400, Swizzle::b128);
    d.start_address = 0x408;
    CHECK_THROWS_WITH(encode_wgmma_descriptor(d),
                      Catch::Contains("start address=0x408 is not a multiple of 16"));
    d.start_address = 0x40000;
    CHECK_THROWS_WITH(encode_wgmma_descriptor(d), Catch::Contains("18-bit"));
    d.start_address = 0x400;
    d.stride_byte_offset = 1000;
    CHECK_THROWS_WITH(encode_wgmma_descriptor(d), Catch::Contains("SBO=0x3E8"));
    d.stride_byte_offset = 1024;
    d.base_offset = 8;
    CHECK_THROWS_WITH(encode_wgmma_descriptor(d), Catch::Contains("base_offset=8") &&
                                                      Catch::Contains("0..7"));
    CHECK_THROWS_WITH(kmajor_tile_descriptor(0, Swizzle::none),
                      Catch::Contains("rows_stride_bytes_for_none"));
    CHECK_THROWS_WITH(kmajor_tile_descriptor(0, Swizzle::b128, 256),
                      Catch::Contains("SBO = 8 x span = 1024"));
    CHECK_THROWS_AS(kmajor_tile_descriptor(0x408, Swizzle::b128), std::invalid_argument);
}

TEST_CASE("K-major swizzled descriptors read what TMA wrote", "[layout][wgmma_desc]") {
    // A bf16 tile of 64 rows x (span/2) K elements loaded by TMA at a repeat-aligned base; the
    // wgmma reads k16 slices at start + 32*s (facts §1.4 "Advancing along K", [DEV] for 128B).
    for (const Swizzle sw : {Swizzle::b32, Swizzle::b64, Swizzle::b128}) {
        INFO("mode " << swizzle_name(sw));
        const uint32_t span = swizzle_span_bytes(sw);
        const TmaBox box = bf16_box(span / 2, 64, sw);
        const uint32_t base = 4096;
        for (uint32_t step = 0; step < span / 32; ++step) {
            const WgmmaDescriptor d = kmajor_tile_descriptor(base + 32 * step, sw);
            for (uint32_t row = 0; row < 64; ++row) {
                for (uint32_t k_byte = 0; k_byte < 32; ++k_byte) {
                    const uint32_t k = 16 * step + k_byte / 2;
                    REQUIRE(wgmma_descriptor_smem_address(d, row, k_byte, true) ==
                            tma_offset(box, k, row, base) + k_byte % 2);
                }
            }
        }
    }
}

TEST_CASE("a descriptor whose swizzle differs from the TMA's reads wrong bytes",
          "[layout][wgmma_desc]") {
    const TmaBox box = bf16_box(64, 64, Swizzle::b128);
    const WgmmaDescriptor wrong = kmajor_tile_descriptor(1024, Swizzle::b64);
    // Under 64B the hardware takes rows 64 B apart: row 1 reads bytes of TMA row 0.
    int mismatches = 0;
    for (uint32_t row = 0; row < 64; ++row) {
        for (uint32_t k = 0; k < 16; ++k) {
            if (wgmma_descriptor_smem_address(wrong, row, 2 * k, true) !=
                tma_offset(box, k, row, 1024)) {
                ++mismatches;
            }
        }
    }
    CHECK(mismatches > 512);
}

TEST_CASE("K-major no-swizzle: core matrices of 8 rows x 16 B", "[layout][wgmma_desc]") {
    const WgmmaDescriptor d = kmajor_tile_descriptor(0x800, Swizzle::none, 256);
    CHECK(wgmma_descriptor_smem_address(d, 0, 0, true) == 0x800);
    CHECK(wgmma_descriptor_smem_address(d, 9, 20, true) == 0x800 + 256 + 128 + 16 + 4);
    std::set<uint32_t> bytes;
    for (uint32_t row = 0; row < 64; ++row) {
        for (uint32_t k_byte = 0; k_byte < 32; ++k_byte) {
            bytes.insert(wgmma_descriptor_smem_address(d, row, k_byte, true));
        }
    }
    CHECK(bytes.size() == 64 * 32);  // dense: 8 groups x 256 B
    CHECK(*bytes.begin() == 0x800);
    CHECK(*bytes.rbegin() == 0x800 + 64 * 32 - 1);
}

TEST_CASE("MN-major 128B matches a TMA-loaded K x N row-major B tile", "[layout][wgmma_desc]") {
    // B stored K rows of N contiguous bf16; each TMA box is 64 N x 64 K rows (8 KB), the next
    // 64 N sit in the next box. MN atoms are therefore 8 KB apart (LBO) and groups of 8 K rows
    // 1 KB apart (SBO). From CUTLASS's canonical layouts; the roles were confirmed by probe
    // wgmma-desc/128B-MN n256 B, 2026-11-24 H100.
    const TmaBox box = bf16_box(64, 64, Swizzle::b128);
    const uint32_t base = 8192;
    for (uint32_t step = 0; step < 4; ++step) {  // k16 steps advance 16 K rows = 2 KB
        const WgmmaDescriptor d =
            mnmajor_tile_descriptor(base + 2048 * step, Swizzle::b128, 8192, 1024);
        CHECK(d.leading_byte_offset == 8192);
        CHECK(d.stride_byte_offset == 1024);
        for (uint32_t n = 0; n < 128; ++n) {
            for (uint32_t k = 0; k < 16; ++k) {
                const uint32_t box_base = base + 8192 * (n / 64);
                const uint32_t expect = tma_offset(box, n % 64, 16 * step + k, box_base);
                REQUIRE(wgmma_descriptor_smem_address(d, n, 2 * k, false) == expect);
                REQUIRE(wgmma_descriptor_smem_address(d, n, 2 * k + 1, false) == expect + 1);
            }
        }
    }
}

TEST_CASE("MN-major no-swizzle swaps LBO and SBO", "[layout][wgmma_desc]") {
    const WgmmaDescriptor d = mnmajor_tile_descriptor(0, Swizzle::none, 128, 1024);
    CHECK(d.stride_byte_offset == 128);   // MN core matrices
    CHECK(d.leading_byte_offset == 1024);  // 8-K-row groups
    // (n=19, k=9): core matrix n/8=2 (SBO), K group 1 (LBO), K row 1, element 3.
    CHECK(wgmma_descriptor_smem_address(d, 19, 18, false) == 2 * 128 + 1024 + 16 + 6);
    CHECK(wgmma_descriptor_smem_address(d, 19, 19, false) == 2 * 128 + 1024 + 16 + 7);
    // 64 N x k16 with 8 core matrices per K group (1024 B): dense, every byte once.
    std::set<uint32_t> bytes;
    for (uint32_t n = 0; n < 64; ++n) {
        for (uint32_t k_byte = 0; k_byte < 32; ++k_byte) {
            bytes.insert(wgmma_descriptor_smem_address(d, n, k_byte, false));
        }
    }
    CHECK(bytes.size() == 64 * 32);
    CHECK(*bytes.rbegin() == 64 * 32 - 1);
}

TEST_CASE("wgmma_descriptor_smem_address rejects rows and k bytes outside the slice",
          "[layout][wgmma_desc][errors]") {
    const WgmmaDescriptor d = kmajor_tile_descriptor(1024, Swizzle::b128);
    CHECK_THROWS_WITH(wgmma_descriptor_smem_address(d, 0, 32, true), Catch::Contains("0..31"));
    CHECK_THROWS_WITH(wgmma_descriptor_smem_address(d, 256, 0, true), Catch::Contains("0..255"));
    CHECK_THROWS_WITH(wgmma_descriptor_smem_address(d, 300, 0, false), Catch::Contains("0..255"));
}

namespace {

// Every byte a 64-row (or `rows`-row) k16 slice reads under d.
std::vector<uint32_t> slice_bytes(const WgmmaDescriptor& d, uint32_t rows, bool k_major) {
    std::vector<uint32_t> out;
    for (uint32_t row = 0; row < rows; ++row) {
        for (uint32_t k_byte = 0; k_byte < 32; ++k_byte) {
            out.push_back(wgmma_descriptor_smem_address(d, row, k_byte, k_major));
        }
    }
    return out;
}

// The dense tiles of every mode: (descriptor at `base`, rows, major-ness, tile bytes).
struct DenseTile {
    WgmmaDescriptor d;
    uint32_t rows;
    bool k_major;
};
std::vector<DenseTile> dense_tiles(uint32_t base) {
    std::vector<DenseTile> tiles;
    for (const Swizzle sw : {Swizzle::b32, Swizzle::b64, Swizzle::b128}) {
        // K-major: 64 rows of one span each (k16 = the first 32 B of each row) are not dense
        // unless span = 32; MN-major: atoms of span/2 MN x 8 K rows, packed.
        const uint32_t span = swizzle_span_bytes(sw);
        if (span == 32) tiles.push_back({kmajor_tile_descriptor(base, sw), 64, true});
        const uint32_t atom = 8 * span;  // one MN atom x 8 K rows
        tiles.push_back({mnmajor_tile_descriptor(base, sw, 2 * atom, atom), 128, false});
    }
    tiles.push_back({kmajor_tile_descriptor(base, Swizzle::none, 256), 64, true});
    tiles.push_back({mnmajor_tile_descriptor(base, Swizzle::none, 128, 16 * 128), 128, false});
    return tiles;
}

}  // namespace

TEST_CASE("every dense tile is read byte for byte once, on and off its repeat",
          "[layout][wgmma_desc][property]") {
    // A tile packed with no gaps: the map (row, k_byte) -> address is a bijection onto the
    // tile's bytes. The swizzle only permutes 16-byte chunks inside each 128-byte line, so this
    // holds at any 128-aligned base with any base offset.
    for (const uint32_t base : {2048u, 2048u + 128u, 2048u + 640u}) {
        for (const DenseTile& t : dense_tiles(base)) {
            for (uint32_t base_offset = 0; base_offset < 8; ++base_offset) {
                WgmmaDescriptor d = t.d;
                d.base_offset = base_offset;
                INFO("swizzle " << swizzle_name(d.swizzle) << (t.k_major ? " K" : " MN")
                                << "-major at " << base << " base offset " << base_offset);
                const std::vector<uint32_t> bytes = slice_bytes(d, t.rows, t.k_major);
                const std::set<uint32_t> distinct(bytes.begin(), bytes.end());
                REQUIRE(distinct.size() == bytes.size());
                CHECK(*distinct.begin() == base);
                CHECK(*distinct.rbegin() == base + t.rows * 32 - 1);
            }
        }
    }
}

TEST_CASE("the base offset changes only the XOR phase, inside each 128-byte line",
          "[layout][wgmma_desc][property]") {
    // For random fields and elements: undoing the documented XOR (phase = ((addr >> 7) - base)
    // & mask on bits 4-6) gives one logical address whatever the base offset, the XOR touches
    // bits 4-6 only, and without a swizzle the base offset changes nothing.
    std::mt19937 rng(20261124);
    for (int i = 0; i < 3000; ++i) {
        WgmmaDescriptor d = random_descriptor(rng);
        const bool k_major = (rng() & 1) != 0;
        const uint32_t row = rng() % 256, k_byte = rng() % 32;
        std::set<uint32_t> logical, physical;
        for (uint32_t base = 0; base < 8; ++base) {
            d.base_offset = base;
            const uint32_t got = wgmma_descriptor_smem_address(d, row, k_byte, k_major);
            const uint32_t phase = ((got >> 7) - base) & swizzle_mask(d.swizzle);
            logical.insert(got ^ (phase << 4));
            physical.insert(got);
        }
        REQUIRE(logical.size() == 1);
        for (const uint32_t got : physical) REQUIRE(((got ^ *logical.begin()) & ~0x70u) == 0);
        if (d.swizzle == Swizzle::none) REQUIRE(physical.size() == 1);
        if (d.swizzle == Swizzle::b128) REQUIRE(physical.size() == 8);  // every phase reachable
    }
}

TEST_CASE("base offset 0 reads by the absolute address ([DEV] 128B K-major)", "[layout][wgmma_desc]") {
    // The [DEV]-checked case (facts §1.4): a 1024-aligned 128B K-major tile, start advanced by
    // 32 B per k16 step; every byte at logical ^ (((logical >> 7) & 7) << 4).
    for (uint32_t step = 0; step < 4; ++step) {
        const WgmmaDescriptor d = kmajor_tile_descriptor(0x400 + 32 * step, Swizzle::b128);
        for (uint32_t row = 0; row < 64; ++row) {
            for (uint32_t k_byte = 0; k_byte < 32; ++k_byte) {
                const uint32_t logical = 0x400 + (row / 8) * 1024 + (row % 8) * 128 + 32 * step + k_byte;
                REQUIRE(wgmma_descriptor_smem_address(d, row, k_byte, true) ==
                        (logical ^ (((logical >> 7) & 7) << 4)));
            }
        }
    }
}

TEST_CASE("a base offset moves the pattern's origin to a tile off its repeat", "[layout][wgmma_desc]") {
    // A tile at P, 128-aligned but not on its repeat, swizzled relative to P (row r's chunks
    // XORed with r % 8): the PTX ISA's base offset (P >> 7) & 7 reads it as written (probe
    // wgmma-desc/128B-K @128 b1, 64B-K @640 b5, 32B-K @128 b1, 2026-11-24 H100).
    for (const Swizzle sw : {Swizzle::b32, Swizzle::b64, Swizzle::b128}) {
        const uint32_t span = swizzle_span_bytes(sw), repeat = swizzle_repeat_bytes(sw);
        for (const uint32_t p : {4096u + 128u, 4096u + 384u, 4096u + repeat - 128u}) {
            if (p % repeat == 0) continue;
            WgmmaDescriptor d = kmajor_tile_descriptor(p, sw);
            d.base_offset = wgmma_base_offset_for(p, sw);
            CHECK(d.base_offset == ((p >> 7) & 7));
            for (uint32_t row = 0; row < 64; ++row) {
                for (uint32_t k_byte = 0; k_byte < 32; ++k_byte) {
                    const uint32_t offset = (row / 8) * 8 * span + (row % 8) * span + k_byte;
                    const uint32_t relative = offset ^ (((offset >> 7) & swizzle_mask(sw)) << 4);
                    REQUIRE(wgmma_descriptor_smem_address(d, row, k_byte, true) == p + relative);
                }
            }
        }
    }
    CHECK(wgmma_base_offset_for(4096, Swizzle::b128) == 0);
    CHECK(wgmma_base_offset_for(4096 + 512, Swizzle::b64) == 0);
    CHECK(wgmma_base_offset_for(4096 + 640, Swizzle::b64) == 5);
    CHECK(wgmma_base_offset_for(4096 + 128, Swizzle::none) == 0);
}

TEST_CASE("K-major swizzled layouts do not read LBO; none does", "[layout][wgmma_desc]") {
    for (const Swizzle sw : {Swizzle::b32, Swizzle::b64, Swizzle::b128}) {
        WgmmaDescriptor d = kmajor_tile_descriptor(2048, sw);
        const std::vector<uint32_t> canonical = slice_bytes(d, 64, true);
        d.leading_byte_offset = 4096;
        CHECK(slice_bytes(d, 64, true) == canonical);
    }
    WgmmaDescriptor none = kmajor_tile_descriptor(2048, Swizzle::none, 256);
    const std::vector<uint32_t> canonical = slice_bytes(none, 64, true);
    none.leading_byte_offset = 4096;
    CHECK(slice_bytes(none, 64, true) != canonical);
    CHECK(wgmma_descriptor_smem_address(none, 0, 16, true) == 2048 + 4096);
}

TEST_CASE("UMMA smem descriptor: sm_100 layout codes and the fixed version bits",
          "[layout][umma_desc]") {
    const UmmaSmemDescriptor d = umma_descriptor_from(kmajor_tile_descriptor(0x400, Swizzle::b128));
    CHECK(d.layout == UmmaLayout::b128);
    const uint64_t bits = encode_umma_smem_descriptor(d);
    CHECK(bits == 0x4000404000010040ull);  // facts §9.2: bit 46 = 1, bits 61-63 = 2
    CHECK(decode_umma_smem_descriptor(bits) == d);
    CHECK(describe_umma_smem_descriptor(bits) == "start=0x0400 LBO=16 SBO=1024 base=0 layout=128B");
    CHECK(encode_umma_smem_descriptor({0, 0, 0, 0, false, UmmaLayout::b64}) >> 61 == 4);
    CHECK(encode_umma_smem_descriptor({0, 0, 0, 0, false, UmmaLayout::b32}) >> 61 == 6);
    CHECK(encode_umma_smem_descriptor({0, 0, 0, 0, false, UmmaLayout::b128_base32b}) >> 61 == 1);
    CHECK(encode_umma_smem_descriptor({0, 0, 0, 0, true, UmmaLayout::none}) ==
          (uint64_t{1} << 46 | uint64_t{1} << 52));
    CHECK(umma_layout_name(UmmaLayout::b128_base32b) == "128B_base32B");
    CHECK(umma_layout_of(Swizzle::none) == UmmaLayout::none);
    CHECK(umma_layout_of(Swizzle::b32) == UmmaLayout::b32);
    CHECK(umma_layout_of(Swizzle::b64) == UmmaLayout::b64);
    CHECK(umma_layout_of(Swizzle::b128) == UmmaLayout::b128);
    // sm_90 and sm_100 encode the same swizzle differently (facts §9.2 note).
    CHECK(wgmma_layout_type(Swizzle::b64) == 2);
    CHECK(static_cast<uint32_t>(umma_layout_of(Swizzle::b64)) == 4);
}

TEST_CASE("UMMA smem descriptor round trip on random fields", "[layout][umma_desc][property]") {
    std::mt19937 rng(7);
    constexpr std::array<UmmaLayout, 5> layouts{UmmaLayout::none, UmmaLayout::b128_base32b,
                                                UmmaLayout::b128, UmmaLayout::b64,
                                                UmmaLayout::b32};
    for (int i = 0; i < 2000; ++i) {
        UmmaSmemDescriptor d;
        d.start_address = (rng() & 0x3FFF) << 4;
        d.leading_byte_offset = (rng() & 0x3FFF) << 4;
        d.stride_byte_offset = (rng() & 0x3FFF) << 4;
        d.base_offset = rng() & 7;
        d.lbo_absolute = (rng() & 1) != 0;
        d.layout = layouts[rng() % layouts.size()];
        REQUIRE(decode_umma_smem_descriptor(encode_umma_smem_descriptor(d)) == d);
    }
}

TEST_CASE("UMMA smem descriptor decode rejects non-sm_100 words", "[layout][umma_desc][errors]") {
    // The sm_90 worked example has bits 46-48 = 0 and layout code (bits 61-63) 2: not sm_100.
    CHECK_THROWS_WITH(decode_umma_smem_descriptor(0x4000004000010040ull),
                      Catch::Contains("bits 46-48") && Catch::Contains("0b001"));
    const uint64_t bad_layout = (uint64_t{1} << 46) | (uint64_t{3} << 61);
    CHECK_THROWS_WITH(decode_umma_smem_descriptor(bad_layout), Catch::Contains("layout code 3"));
    CHECK_THROWS_WITH(encode_umma_smem_descriptor({0x8, 0, 0, 0, false, UmmaLayout::b128}),
                      Catch::Contains("UMMA smem descriptor start address=0x8"));
}

TEST_CASE("UMMA instruction descriptor: the facts-sheet example", "[layout][umma_desc]") {
    UmmaInstrDesc d;  // defaults: bf16 x bf16 -> f32, K-major both, M=128, N=256
    CHECK(encode_umma_instr_desc(d) == 0x08400490u);
    CHECK(decode_umma_instr_desc(0x08400490u) == d);
    d.a_major = UmmaMajor::mn;
    d.negate_b = true;
    CHECK(encode_umma_instr_desc(d) == (0x08400490u | 1u << 15 | 1u << 14));
}

TEST_CASE("UMMA instruction descriptor round trip on random fields",
          "[layout][umma_desc][property]") {
    std::mt19937 rng(99);
    for (int i = 0; i < 2000; ++i) {
        UmmaInstrDesc d;
        d.d_format = static_cast<UmmaDFormat>(rng() % 3);
        d.a_format = static_cast<UmmaABFormat>(rng() % 3);
        d.b_format = static_cast<UmmaABFormat>(rng() % 3);
        d.negate_a = (rng() & 1) != 0;
        d.negate_b = (rng() & 1) != 0;
        d.a_major = static_cast<UmmaMajor>(rng() & 1);
        d.b_major = static_cast<UmmaMajor>(rng() & 1);
        d.m = std::array<uint32_t, 3>{64, 128, 256}[rng() % 3];
        d.n = 8 * (1 + static_cast<uint32_t>(rng() % 32));
        REQUIRE(decode_umma_instr_desc(encode_umma_instr_desc(d)) == d);
    }
}

TEST_CASE("UMMA instruction descriptor and shape errors", "[layout][umma_desc][errors]") {
    UmmaInstrDesc d;
    d.n = 20;
    CHECK_THROWS_WITH(encode_umma_instr_desc(d), Catch::Contains("N=20 is not a multiple of 8"));
    d.n = 256;
    d.m = 96;
    CHECK_THROWS_WITH(encode_umma_instr_desc(d), Catch::Contains("M=96"));
    CHECK_THROWS_WITH(decode_umma_instr_desc(0x08400490u | 1u << 2),
                      Catch::Contains("only dense"));
    CHECK_THROWS_WITH(decode_umma_instr_desc(0x08400490u | 3u << 4),
                      Catch::Contains("D format 3"));
    CHECK_NOTHROW(validate_umma_f16_shape(1, 64, 8));
    CHECK_NOTHROW(validate_umma_f16_shape(2, 256, 256));
    CHECK_THROWS_WITH(validate_umma_f16_shape(1, 256, 64), Catch::Contains("M=256"));
    CHECK_THROWS_WITH(validate_umma_f16_shape(2, 128, 24),
                      Catch::Contains("N=24 is not a multiple of 16 in 16..256"));
    CHECK_THROWS_WITH(validate_umma_f16_shape(3, 128, 64), Catch::Contains("cta_group::3"));
}
