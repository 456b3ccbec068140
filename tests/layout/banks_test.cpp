// Tests for engine/layout/banks: the wavefront model of facts §8 on the access patterns a
// GEMM makes (tile rows, tile columns, swizzled columns, strided words, broadcasts).
#include <catch2/catch.hpp>

#include <array>
#include <functional>
#include <random>
#include <stdexcept>
#include <vector>

#include "engine/layout/banks.hpp"
#include "engine/layout/swizzle.hpp"

using namespace gs::layout;

namespace {

constexpr uint32_t kAll = 0xFFFFFFFFu;

std::array<uint32_t, 32> lanes(const std::function<uint32_t(uint32_t)>& addr_of) {
    std::array<uint32_t, 32> a{};
    for (uint32_t l = 0; l < 32; ++l) a[l] = addr_of(l);
    return a;
}

BankReport analyze(const std::array<uint32_t, 32>& a, uint32_t mask, uint32_t bytes) {
    return analyze_shared_access(std::span<const uint32_t, 32>(a), mask, bytes);
}

}  // namespace

TEST_CASE("smem_bank_of is (addr / 4) % 32", "[layout][banks]") {
    CHECK(smem_bank_of(0) == 0);
    CHECK(smem_bank_of(3) == 0);
    CHECK(smem_bank_of(4) == 1);
    CHECK(smem_bank_of(124) == 31);
    CHECK(smem_bank_of(128) == 0);
    CHECK(smem_bank_of(128 + 20) == 5);
}

TEST_CASE("16-byte column of an unswizzled 128-byte-row tile is 8-way", "[layout][banks]") {
    const auto a = lanes([](uint32_t l) { return 128 * l; });  // lane l: row l, chunk 0
    const BankReport r = analyze(a, kAll, 16);
    CHECK(r.wavefronts == 32);
    CHECK(r.ideal_wavefronts == 4);
    CHECK(r.conflict_degree == 8);
    CHECK_FALSE(r.broadcast_used);
    for (uint32_t l = 0; l < 32; ++l) {
        CHECK(r.lane_wavefront[l] == l);  // phase l/8 starts at 8*(l/8), slot l%8
        CHECK(r.lane_bank[l] == 0);
    }
}

TEST_CASE("16-byte row of a tile is conflict-free", "[layout][banks]") {
    const auto a = lanes([](uint32_t l) { return 16 * l; });
    const BankReport r = analyze(a, kAll, 16);
    CHECK(r.wavefronts == 4);
    CHECK(r.ideal_wavefronts == 4);
    CHECK(r.conflict_degree == 1);
    CHECK(r.lane_wavefront[0] == 0);
    CHECK(r.lane_wavefront[9] == 1);
    CHECK(r.lane_wavefront[31] == 3);
    CHECK(r.lane_bank[9] == 4);
}

TEST_CASE("128B swizzle makes the column conflict-free (facts §3 'Why it works')",
          "[layout][banks]") {
    const auto column = lanes([](uint32_t l) { return swizzle_address(Swizzle::b128, 128 * l); });
    const BankReport r = analyze(column, kAll, 16);
    CHECK(r.wavefronts == 4);
    CHECK(r.conflict_degree == 1);
    // Every chunk of the column, not only chunk 0.
    for (uint32_t chunk = 0; chunk < 8; ++chunk) {
        const auto col = lanes([chunk](uint32_t l) {
            return swizzle_address(Swizzle::b128, 1024 + 128 * l + 16 * chunk);
        });
        CHECK(analyze(col, kAll, 16).wavefronts == 4);
    }
    // A row stays conflict-free under the swizzle.
    const auto row = lanes([](uint32_t l) { return swizzle_address(Swizzle::b128, 16 * l); });
    CHECK(analyze(row, kAll, 16).wavefronts == 4);
}

TEST_CASE("4-byte words with a 128-byte stride are 32-way", "[layout][banks]") {
    const auto a = lanes([](uint32_t l) { return 128 * l; });
    const BankReport r = analyze(a, kAll, 4);
    CHECK(r.wavefronts == 32);
    CHECK(r.ideal_wavefronts == 1);
    CHECK(r.conflict_degree == 32);
    CHECK(r.lane_wavefront[17] == 17);
}

TEST_CASE("consecutive 4-byte words and broadcasts take one wavefront", "[layout][banks]") {
    const auto consecutive = lanes([](uint32_t l) { return 4 * l + 256; });
    const BankReport c = analyze(consecutive, kAll, 4);
    CHECK(c.wavefronts == 1);
    CHECK_FALSE(c.broadcast_used);

    const auto same = lanes([](uint32_t) { return 0x40u; });
    const BankReport b = analyze(same, kAll, 4);
    CHECK(b.wavefronts == 1);
    CHECK(b.conflict_degree == 1);
    CHECK(b.broadcast_used);

    // Two bytes of one word per pair of lanes (2-byte access): broadcast, no conflict.
    const auto halves = lanes([](uint32_t l) { return 2 * l; });
    const BankReport h = analyze(halves, kAll, 2);
    CHECK(h.wavefronts == 1);
    CHECK(h.broadcast_used);

    // Two distinct words on one bank plus broadcasts of each: 2 wavefronts.
    const auto two = lanes([](uint32_t l) { return (l % 2) * 128; });
    CHECK(analyze(two, kAll, 4).wavefronts == 2);
}

TEST_CASE("8-byte accesses are counted per half-warp", "[layout][banks]") {
    const auto dense = lanes([](uint32_t l) { return 8 * l; });
    const BankReport d = analyze(dense, kAll, 8);
    CHECK(d.wavefronts == 2);
    CHECK(d.ideal_wavefronts == 2);
    CHECK(d.conflict_degree == 1);
    // Stride 16 B: within a half-warp lanes l and l+8 share banks -> 2 wavefronts per phase.
    const auto strided = lanes([](uint32_t l) { return 16 * l; });
    const BankReport s = analyze(strided, kAll, 8);
    CHECK(s.wavefronts == 4);
    CHECK(s.conflict_degree == 2);
    CHECK(s.lane_wavefront[8] == 1);
    CHECK(s.lane_wavefront[16] == 2);
}

TEST_CASE("inactive lanes and empty phases cost nothing", "[layout][banks]") {
    const auto a = lanes([](uint32_t l) { return 16 * l; });
    const BankReport r = analyze(a, 0x0000FFFFu, 16);
    CHECK(r.wavefronts == 2);
    CHECK(r.ideal_wavefronts == 2);
    CHECK(r.active_mask == 0x0000FFFFu);
    CHECK(r.lane_wavefront[15] == 1);
    CHECK(r.lane_wavefront[20] == kInactiveLane);
    CHECK(r.lane_bank[20] == kInactiveLane);

    const BankReport none = analyze(a, 0, 16);
    CHECK(none.wavefronts == 0);
    CHECK(none.ideal_wavefronts == 0);
    CHECK(none.conflict_degree == 0);
}

TEST_CASE("ldmatrix phases: padded rows avoid the conflict (facts §8)", "[layout][banks]") {
    // One 8x8 matrix per quarter-warp: 8 row addresses. Rows 128 B apart: 8-way.
    const auto plain = lanes([](uint32_t l) { return 128 * (l % 8) + 16 * (l / 8); });
    CHECK(analyze(plain, kAll, 16).wavefronts == 32);
    // fast.cu pads by 8 bf16: rows 144 B apart land in 8 distinct 16-byte bank groups.
    const auto padded = lanes([](uint32_t l) { return 144 * (l % 8) + 16 * (l / 8); });
    CHECK(analyze(padded, kAll, 16).wavefronts == 4);
}

TEST_CASE("the sparse LaneAccess form agrees with the dense one", "[layout][banks]") {
    const std::vector<LaneAccess> list{{0, 0}, {1, 128}, {9, 256}, {31, 4}};
    const BankReport sparse = analyze_shared_access(std::span<const LaneAccess>(list), 4);
    std::array<uint32_t, 32> dense{};
    dense[1] = 128;
    dense[9] = 256;
    dense[31] = 4;
    const BankReport full = analyze(dense, (1u << 0) | (1u << 1) | (1u << 9) | (1u << 31), 4);
    CHECK(sparse.wavefronts == 3);
    CHECK(sparse.wavefronts == full.wavefronts);
    CHECK(sparse.lane_wavefront == full.lane_wavefront);
    CHECK(sparse.active_mask == full.active_mask);
}

TEST_CASE("bank analysis rejects bad widths, misaligned addresses and bad lanes",
          "[layout][banks][errors]") {
    const auto a = lanes([](uint32_t l) { return 16 * l; });
    CHECK_THROWS_WITH(analyze(a, kAll, 3), Catch::Contains("width 3 B is invalid"));
    auto misaligned = a;
    misaligned[7] = 0x104;
    CHECK_THROWS_WITH(analyze(misaligned, kAll, 16),
                      Catch::Contains("lane 7") && Catch::Contains("0x104"));
    // A misaligned address on an inactive lane is ignored.
    CHECK_NOTHROW(analyze(misaligned, kAll & ~(1u << 7), 16));
    const std::vector<LaneAccess> dup{{3, 0}, {3, 16}};
    CHECK_THROWS_WITH(analyze_shared_access(std::span<const LaneAccess>(dup), 4),
                      Catch::Contains("lane 3 is listed twice"));
    const std::vector<LaneAccess> far{{32, 0}};
    CHECK_THROWS_WITH(analyze_shared_access(std::span<const LaneAccess>(far), 4),
                      Catch::Contains("lane 32"));
}

TEST_CASE("ld/st.shared.v4 in half-warp phases, as the H100 counts LDS.128", "[layout][banks]") {
    const auto lsu = [](const std::array<uint32_t, 32>& a, uint32_t bytes) {
        return analyze_shared_access(std::span<const uint32_t, 32>(a), kAll, bytes, Phasing::lsu_half_warp);
    };
    // One vector for the whole warp: 2 wavefronts (one per half), ideal 2; by quarters 4.
    // (simt_blocktile_1d's LDS.128 on the H100: 8192 wavefronts for 4096 instructions.)
    const auto same = lanes([](uint32_t) { return 256u; });
    CHECK(lsu(same, 16).wavefronts == 2);
    CHECK(lsu(same, 16).ideal_wavefronts == 2);
    CHECK(analyze(same, kAll, 16).wavefronts == 4);
    // A contiguous 512-byte row: 4 wavefronts either way, no conflict.
    const auto row = lanes([](uint32_t l) { return 16 * l; });
    const BankReport r = lsu(row, 16);
    CHECK(r.wavefronts == 4);
    CHECK(r.ideal_wavefronts == 4);
    CHECK(r.conflict_degree == 1);
    // simt_blocktile_2d's Bs reads as ptxas vectorises them: lane l reads 16 B at 32(l%16):
    // columns c and c+4 share banks, 4 distinct words per bank in a half: 8 wavefronts, ideal 4
    // (the H100 counts 4 conflicts per instruction).
    const auto bs = lanes([](uint32_t l) { return 32 * (l % 16); });
    const BankReport b = lsu(bs, 16);
    CHECK(b.wavefronts == 8);
    CHECK(b.ideal_wavefronts == 4);
    CHECK(b.conflict_degree == 2);
    // As reads: the two halves each read one vector, 256 B apart: 2 wavefronts, no conflict.
    const auto as = lanes([](uint32_t l) { return 256 * (l / 16); });
    CHECK(lsu(as, 16).wavefronts == 2);
    CHECK(lsu(as, 16).wavefronts - lsu(as, 16).ideal_wavefronts == 0);
    // Narrower accesses are unchanged.
    const auto words = lanes([](uint32_t l) { return 128 * l; });
    CHECK(lsu(words, 4).wavefronts == analyze(words, kAll, 4).wavefronts);
}

TEST_CASE("count_shared_wavefronts gives analyze_shared_access's totals for every pattern", "[layout][banks]") {
    // Random accesses over a few lines (many conflicts and broadcasts), over many lines (few),
    // strided rows and columns, random masks, every width and both phasings: the totals must be
    // the full analysis's, including the phases with more than 4 distinct units a slot.
    std::mt19937 rng(29);
    uint64_t cases = 0, conflicted = 0;
    for (const uint32_t bytes : {1u, 2u, 4u, 8u, 16u})
        for (const Phasing phasing : {Phasing::by_width, Phasing::lsu_half_warp})
            for (uint32_t trial = 0; trial < 600; ++trial) {
                const uint32_t span = trial % 3 == 0 ? 256 : trial % 3 == 1 ? 2048 : 65536;
                const uint32_t stride = bytes * (1 + trial % 9);
                std::array<uint32_t, 32> a{};
                for (uint32_t l = 0; l < 32; ++l)
                    a[l] = trial % 4 == 3 ? 1024 + l * stride : (rng() % span) / bytes * bytes;
                const uint32_t mask = trial % 5 == 0 ? uint32_t(rng()) : kAll;
                const std::span<const uint32_t, 32> s(a);
                const BankReport full = analyze_shared_access(s, mask, bytes, phasing);
                const BankCount fast = count_shared_wavefronts(s, mask, bytes, phasing);
                INFO("bytes " << bytes << " trial " << trial);
                REQUIRE(fast.wavefronts == full.wavefronts);
                REQUIRE(fast.ideal_wavefronts == full.ideal_wavefronts);
                ++cases;
                conflicted += full.wavefronts > full.ideal_wavefronts;
            }
    CHECK(cases == 6000);
    CHECK(conflicted > 1000);  // the random patterns do exercise the conflicted phases
    // Bad input fails as the full analysis does.
    std::array<uint32_t, 32> a{};
    a[3] = 6;
    CHECK_THROWS_WITH(count_shared_wavefronts(std::span<const uint32_t, 32>(a), kAll, 4),
                      Catch::Contains("lane 3 shared address"));
    CHECK_THROWS_AS(count_shared_wavefronts(std::span<const uint32_t, 32>(a), kAll, 3), std::invalid_argument);
}

TEST_CASE("moving every lane by a multiple of the width only turns the banks round", "[layout][banks]") {
    // The model keeps one report per pattern of lane offsets (exec_mem.cpp, account_shared_known):
    // every count, each lane's wavefront and the broadcast flag must not depend on the base, and
    // each lane's bank must move with it.
    std::mt19937 rng(32);
    for (const uint32_t bytes : {1u, 2u, 4u, 8u, 16u})
        for (const Phasing phasing : {Phasing::by_width, Phasing::lsu_half_warp})
            for (uint32_t trial = 0; trial < 300; ++trial) {
                std::array<uint32_t, 32> off{};
                const uint32_t span = trial % 2 ? 512 : 8192, stride = trial % 7;
                for (uint32_t l = 0; l < 32; ++l)
                    off[l] = trial % 3 == 0 ? l * stride * bytes : (rng() % span) / bytes * bytes;
                const uint32_t mask = trial % 4 == 0 ? uint32_t(rng()) | 1u : kAll;
                // Two bases with the same place in a 16-byte unit (and so in a word).
                const uint32_t low = rng() % 16 / bytes * bytes;
                const uint32_t base1 = 0x10000 + low, base2 = 0x10000 + 16 * (1 + rng() % 4096) + low;
                std::array<uint32_t, 32> a1{}, a2{};
                for (uint32_t l = 0; l < 32; ++l) {
                    a1[l] = base1 + off[l];
                    a2[l] = base2 + off[l];
                }
                const BankReport r1 = analyze_shared_access(std::span<const uint32_t, 32>(a1), mask, bytes, phasing);
                const BankReport r2 = analyze_shared_access(std::span<const uint32_t, 32>(a2), mask, bytes, phasing);
                INFO("bytes " << bytes << " trial " << trial);
                REQUIRE(r1.wavefronts == r2.wavefronts);
                REQUIRE(r1.ideal_wavefronts == r2.ideal_wavefronts);
                REQUIRE(r1.conflict_degree == r2.conflict_degree);
                REQUIRE(r1.broadcast_used == r2.broadcast_used);
                REQUIRE(r1.lane_wavefront == r2.lane_wavefront);
                for (uint32_t l = 0; l < 32; ++l)
                    if (mask >> l & 1) REQUIRE(r2.lane_bank[l] == smem_bank_of(a2[l]));
            }
}
