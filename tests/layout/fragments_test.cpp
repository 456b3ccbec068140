// Tests for engine/layout/fragments: every map is a bijection onto its tile, spot values from
// the facts sheet (§1.5, §2, §9.3), and the relations between maps that kernels rely on.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "engine/layout/fragments.hpp"

using namespace gs::layout;

namespace {

// Bijection plus a consistent inverse: owner(at(t, v)) == (t, v) for every entry.
void check_map(const FragmentMap& map) {
    INFO(map.name);
    REQUIRE(map.threads * map.values_per_thread == map.rows * map.cols);
    CHECK(map.is_bijection());
    for (int t = 0; t < map.threads; ++t) {
        for (int v = 0; v < map.values_per_thread; ++v) {
            const Coord c = map.at(t, v);
            const auto who = map.owner(c.row, c.col);
            REQUIRE(who.has_value());
            REQUIRE(who->first == t);
            REQUIRE(who->second == v);
        }
    }
}

}  // namespace

TEST_CASE("every wgmma accumulator map is a bijection onto 64 x N", "[layout][fragments]") {
    for (int n = 8; n <= 256; n += 8) {
        const FragmentMap map = wgmma_accumulator_layout(n);
        CHECK(map.threads == 128);
        CHECK(map.values_per_thread == n / 2);
        CHECK(map.rows == 64);
        CHECK(map.cols == n);
        check_map(map);
    }
}

TEST_CASE("every mma.sync, ldmatrix, wgmma-A and tcgen05 map is a bijection",
          "[layout][fragments]") {
    check_map(wgmma_a_register_layout());
    check_map(mma_m16n8k16_a_layout());
    check_map(mma_m16n8k16_b_layout());
    check_map(mma_m16n8k16_c_layout());
    for (const int num : {1, 2, 4}) {
        check_map(ldmatrix_layout(num, false));
        check_map(ldmatrix_layout(num, true));
    }
    for (int x = 1; x <= 128; x *= 2) check_map(tcgen05_ld_32x32b_layout(x));
}

TEST_CASE("wgmma m64n64 accumulator spot values (facts §1.5)", "[layout][fragments]") {
    const FragmentMap map = wgmma_accumulator_layout(64);
    CHECK(map.at(0, 0) == Coord{0, 0});
    CHECK(map.at(5, 3) == Coord{9, 3});
    CHECK(map.at(127, 31) == Coord{63, 63});
    CHECK(map.at(0, 1) == Coord{0, 1});
    CHECK(map.at(0, 2) == Coord{8, 0});
    CHECK(map.at(0, 4) == Coord{0, 8});
    CHECK(map.at(33, 0) == Coord{16, 2});  // warp 1, lane 1
    const auto who = map.owner(63, 63);
    REQUIRE(who.has_value());
    CHECK(*who == std::pair{127, 31});
}

TEST_CASE("wgmma accumulator: fast.cu's d[g][k] covers columns 16g..16g+15",
          "[layout][fragments]") {
    const FragmentMap map = wgmma_accumulator_layout(128);
    for (int t = 0; t < 128; ++t) {
        for (int v = 0; v < 64; ++v) {
            const int g = v / 8;
            const int col = map.at(t, v).col;
            REQUIRE(col >= 16 * g);
            REQUIRE(col < 16 * g + 16);
        }
    }
}

TEST_CASE("each warp's 16x8 block of the accumulator is an mma m16n8 C fragment",
          "[layout][fragments]") {
    const FragmentMap acc = wgmma_accumulator_layout(256);
    const FragmentMap c = mma_m16n8k16_c_layout();
    for (int t = 0; t < 128; ++t) {
        for (int v = 0; v < 128; ++v) {
            const Coord in_block = c.at(t % 32, v % 4);
            REQUIRE(acc.at(t, v) == Coord{16 * (t / 32) + in_block.row, 8 * (v / 4) + in_block.col});
        }
    }
}

TEST_CASE("wgmma register A is the mma A fragment stacked per warp", "[layout][fragments]") {
    const FragmentMap wa = wgmma_a_register_layout();
    const FragmentMap a = mma_m16n8k16_a_layout();
    CHECK(wa.rows == 64);
    CHECK(wa.cols == 16);
    for (int t = 0; t < 128; ++t) {
        for (int e = 0; e < 8; ++e) {
            const Coord c = a.at(t % 32, e);
            REQUIRE(wa.at(t, e) == Coord{16 * (t / 32) + c.row, c.col});
        }
    }
    // Facts §1.5: q1 (values 2,3) = A[r+8][k0..k0+1], q2 (values 4,5) = A[r][k0+8..k0+9].
    CHECK(wa.at(38, 2) == Coord{16 + 1 + 8, 4});
    CHECK(wa.at(38, 5) == Coord{16 + 1, 13});
}

TEST_CASE("mma.sync m16n8k16 spot values (facts §2)", "[layout][fragments]") {
    // Lane 6: g = 1, q = 2.
    const FragmentMap a = mma_m16n8k16_a_layout();
    CHECK(a.at(6, 0) == Coord{1, 4});   // a0 low  = (g, 2q)
    CHECK(a.at(6, 1) == Coord{1, 5});   // a0 high = (g, 2q+1)
    CHECK(a.at(6, 2) == Coord{9, 4});   // a1 = (g+8, 2q..)
    CHECK(a.at(6, 4) == Coord{1, 12});  // a2 = (g, 2q+8..)
    CHECK(a.at(6, 6) == Coord{9, 12});  // a3 = (g+8, 2q+8..)
    CHECK(a.at(6, 7) == Coord{9, 13});

    const FragmentMap b = mma_m16n8k16_b_layout();
    CHECK(b.rows == 16);  // k
    CHECK(b.cols == 8);   // n
    CHECK(b.at(6, 0) == Coord{4, 1});   // b0 low: k = 2q, n = g
    CHECK(b.at(6, 1) == Coord{5, 1});
    CHECK(b.at(6, 2) == Coord{12, 1});  // b1 low: k = 2q + 8
    CHECK(b.at(6, 3) == Coord{13, 1});

    const FragmentMap c = mma_m16n8k16_c_layout();
    CHECK(c.at(6, 0) == Coord{1, 4});
    CHECK(c.at(6, 1) == Coord{1, 5});
    CHECK(c.at(6, 2) == Coord{9, 4});
    CHECK(c.at(6, 3) == Coord{9, 5});
    CHECK(c.at(31, 3) == Coord{15, 7});
}

TEST_CASE("ldmatrix.x4 over a 16x16 tile gives the mma A fragment (facts §2)",
          "[layout][fragments]") {
    // Matrix order (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15).
    const FragmentMap ld = ldmatrix_layout(4, false);
    const FragmentMap a = mma_m16n8k16_a_layout();
    const Coord origin[4] = {{0, 0}, {8, 0}, {0, 8}, {8, 8}};
    for (int lane = 0; lane < 32; ++lane) {
        for (int v = 0; v < 8; ++v) {
            const Coord stacked = ld.at(lane, v);
            const int matrix = stacked.row / 8;
            const Coord in_tile{origin[matrix].row + stacked.row % 8,
                                origin[matrix].col + stacked.col};
            REQUIRE(in_tile == a.at(lane, v));
        }
    }
}

TEST_CASE("ldmatrix spot values with and without .trans", "[layout][fragments]") {
    const FragmentMap plain = ldmatrix_layout(2, false);
    CHECK(plain.rows == 16);
    CHECK(plain.values_per_thread == 4);
    CHECK(plain.at(5, 0) == Coord{1, 2});      // lane 5: row 1, cols 2, 3
    CHECK(plain.at(5, 1) == Coord{1, 3});
    CHECK(plain.at(5, 2) == Coord{8 + 1, 2});  // register 1 = matrix 1
    const FragmentMap trans = ldmatrix_layout(1, true);
    CHECK(trans.at(5, 0) == Coord{2, 1});  // lane 5: column 1, rows 2, 3
    CHECK(trans.at(5, 1) == Coord{3, 1});
    CHECK(trans.at(31, 1) == Coord{7, 7});

    CHECK(ldmatrix_row_address_lane(4, 2, 3) == 19);
    CHECK(ldmatrix_row_address_lane(1, 0, 7) == 7);
    CHECK_THROWS_WITH(ldmatrix_row_address_lane(2, 2, 0), Catch::Contains("matrix 0..1"));
    CHECK_THROWS_WITH(ldmatrix_row_address_lane(4, 0, 8), Catch::Contains("row 0..7"));
}

TEST_CASE("stmatrix: the PTX ISA's fragment positions, and ldmatrix's table under its own name", "[layout][fragments]") {
    // PTX ISA "stmatrix": four lanes hold one row; lane l's register j has row l/4 of matrix j,
    // elements 2(l%4) (low half) and 2(l%4)+1 (high); .trans stores the transposed matrix.
    const FragmentMap x4 = stmatrix_layout(4, false);
    CHECK(x4.name == "stmatrix.m8n8.x4.b16");
    CHECK(x4.rows == 32);
    CHECK(x4.cols == 8);
    CHECK(x4.values_per_thread == 8);
    CHECK(x4.at(0, 0) == Coord{0, 0});
    CHECK(x4.at(5, 1) == Coord{1, 3});           // lane 5, register 0 high: row 1, col 2·1 + 1
    CHECK(x4.at(10, 6) == Coord{24 + 2, 4});     // lane 10, register 3 low: matrix 3, row 2, col 4
    CHECK(x4.at(31, 7) == Coord{24 + 7, 7});
    const FragmentMap t2 = stmatrix_layout(2, true);
    CHECK(t2.name == "stmatrix.m8n8.x2.trans.b16");
    CHECK(t2.at(5, 0) == Coord{2, 1});           // lane 5: column 1, rows 2 and 3
    CHECK(t2.at(5, 1) == Coord{3, 1});
    CHECK(t2.at(31, 2) == Coord{8 + 6, 7});      // register 1 = matrix 1
    // What stmatrix stores is where ldmatrix loads from: the same (lane, value) -> (row, col).
    for (int num : {1, 2, 4})
        for (bool trans : {false, true}) {
            INFO("x" << num << (trans ? " trans" : ""));
            const FragmentMap st = stmatrix_layout(num, trans), ld = ldmatrix_layout(num, trans);
            CHECK(st.table == ld.table);
            CHECK(st.is_bijection());
        }
    CHECK_THROWS_WITH(stmatrix_layout(3, false), Catch::Contains("stmatrix .x3"));
}

TEST_CASE("tcgen05.ld 32x32b: thread = TMEM lane, register = column", "[layout][fragments]") {
    const FragmentMap map = tcgen05_ld_32x32b_layout(8);
    CHECK(map.rows == 32);
    CHECK(map.cols == 8);
    CHECK(map.at(5, 3) == Coord{5, 3});
    CHECK(map.at(31, 7) == Coord{31, 7});
}

TEST_CASE("fragment maps reject bad arguments with actionable messages",
          "[layout][fragments][errors]") {
    CHECK_THROWS_AS(wgmma_accumulator_layout(20), std::invalid_argument);
    CHECK_THROWS_WITH(wgmma_accumulator_layout(20),
                      Catch::Contains("wgmma N=20 is not a multiple of 8 in 8..256"));
    CHECK_THROWS_WITH(wgmma_accumulator_layout(264), Catch::Contains("N=264"));
    CHECK_THROWS_WITH(wgmma_accumulator_layout(0), Catch::Contains("N=0"));
    CHECK_THROWS_WITH(ldmatrix_layout(3, false), Catch::Contains(".x3 is invalid"));
    CHECK_THROWS_WITH(tcgen05_ld_32x32b_layout(3), Catch::Contains("power of two"));
    CHECK_THROWS_WITH(tcgen05_ld_32x32b_layout(256), Catch::Contains("x256"));
    const FragmentMap c = mma_m16n8k16_c_layout();
    CHECK_THROWS_WITH(c.at(32, 0), Catch::Contains("threads 0..31"));
    CHECK_THROWS_WITH(c.at(0, 4), Catch::Contains("values 0..3"));
    CHECK_FALSE(c.owner(16, 0).has_value());
    CHECK_FALSE(c.owner(0, -1).has_value());
}

TEST_CASE("is_bijection and owner see a broken table", "[layout][fragments]") {
    // Two threads claim (0,0), nobody holds (1,1).
    const FragmentMap dup("dup", 2, 2, 2, 2, {{0, 0}, {0, 1}, {1, 0}, {0, 0}});
    CHECK_FALSE(dup.is_bijection());
    CHECK_FALSE(dup.owner(1, 1).has_value());
    CHECK(dup.owner(0, 0) == std::pair{0, 0});  // first in table order

    // A table of the right size for the threads but not for the tile.
    const FragmentMap small("small", 1, 2, 2, 2, {{0, 0}, {1, 1}});
    CHECK_FALSE(small.is_bijection());

    CHECK_THROWS_WITH(FragmentMap("out", 1, 1, 2, 2, {{2, 0}}),
                      Catch::Contains("outside the 2x2 tile"));
    CHECK_THROWS_WITH(FragmentMap("size", 2, 2, 2, 2, {{0, 0}}),
                      Catch::Contains("expected threads*values = 4"));
}
