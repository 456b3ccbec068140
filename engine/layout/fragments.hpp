// Fragment maps as runtime data: which (thread, value) of a warp or warpgroup holds which
// (row, col) of a tile. The CPU model scatters and gathers registers with them, the GUI colours
// tiles with them, and the tests prove each is a bijection.
//
// "value" is the element index inside the thread's fragment, in the order the PTX instruction
// lists it: for 16-bit operands value e lives in b32 register e/2, in the low half when e is
// even (facts sheet §2). For f32 fragments value = register.
//
// Maps and their sources:
//   wgmma_accumulator_layout(N)  (T128,V N/2) -> (M64,N)   facts §1.5, [DEV] N=16
//   wgmma_a_register_layout()    (T128,V8)    -> (M64,K16) facts §1.5 [CUTLASS ALayout_64x16]
//   mma_m16n8k16_a_layout()      (T32,V8)     -> (M16,K16) facts §2
//   mma_m16n8k16_b_layout()      (T32,V4)     -> (K16,N8)  facts §2
//   mma_m16n8k16_c_layout()      (T32,V4)     -> (M16,N8)  facts §2
//   ldmatrix_layout(x, trans)    (T32,V2x)    -> (8x rows, 8 cols)  facts §2
//   stmatrix_layout(x, trans)    (T32,V2x)    -> (8x rows, 8 cols)  facts §2, ldmatrix's table
//   tcgen05_ld_32x32b_layout(x)  (T32,Vx)     -> (lane 32, col x)   facts §9.3, CUTLASS only
#pragma once

#include <compare>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gs::layout {

struct Coord {
    int row = 0;
    int col = 0;

    auto operator<=>(const Coord&) const = default;
};

// A (thread, value) -> (row, col) table plus its inverse. Build it with the constructor (or
// make_fragment_map); the fields are public for reading, and must not be modified afterwards
// because owner() answers from the inverse built at construction.
// A (thread, value) that holds no element of the tile: allowed only in maps observed from a
// kernel's stores (a thread that stored fewer values than others); the tables of instructions
// never have it.
inline constexpr Coord kUnmapped{-1, -1};

struct FragmentMap {
    std::string name;
    int threads = 0;
    int values_per_thread = 0;
    int rows = 0;
    int cols = 0;
    std::vector<Coord> table;  // index thread * values_per_thread + value

    FragmentMap() = default;
    // Throws std::invalid_argument if table.size() != threads * values_per_thread or a
    // coordinate lies outside rows x cols.
    FragmentMap(std::string name, int threads, int values_per_thread, int rows, int cols,
                std::vector<Coord> table);

    // Throws std::invalid_argument for thread/value out of range.
    Coord at(int thread, int value) const;

    // The (thread, value) holding (row, col), in O(1); std::nullopt if none does or if
    // (row, col) is outside the tile. If several do (not a bijection), the first in table order.
    std::optional<std::pair<int, int>> owner(int row, int col) const;

    // Every (row, col) of the tile is held by exactly one (thread, value). Recomputed from
    // table on each call, so it checks the data, not a flag.
    bool is_bijection() const;

private:
    std::vector<int> inverse_;  // row * cols + col -> table index, -1 if unowned
};

// Tabulates fn(thread, value) for every thread and value.
FragmentMap make_fragment_map(std::string name, int threads, int values_per_thread, int rows,
                              int cols, const std::function<Coord(int, int)>& fn);

// m64nNk16 f32 accumulator, facts §1.5 ([DEV] for N=16, CUTLASS CLayout_64xN for all N):
//   // (T128,V N/2) -> (M64,N)
//   row(t,v) = 16*(t/32) + (t%32)/4 + 8*((v>>1)&1)
//   col(t,v) = 8*(v>>2) + 2*(t%4) + (v&1)
// Throws std::invalid_argument unless N is a multiple of 8 in 8..256.
FragmentMap wgmma_accumulator_layout(int n);

// Register-A operand of wgmma (bf16), facts §1.5:
//   // (T128,V8) -> (M64,K16); value e = b32 register e/2, low half = lower k
//   row = 16*(t/32) + (t%32)/4 + 8*((e>>1)&1),  col = 2*(t%4) + (e&1) + 8*(e>>2)
FragmentMap wgmma_a_register_layout();

// mma.sync.m16n8k16 bf16 -> f32 fragments, facts §2 (g = lane/4, q = lane%4):
//   A // (T32,V8) -> (M16,K16): row = g + 8*((e>>1)&1), col = 2q + (e&1) + 8*(e>>2)
//   B // (T32,V4) -> (K16,N8):  row(k) = 2q + (e&1) + 8*(e>>1), col(n) = g
//   C // (T32,V4) -> (M16,N8):  row = g + 8*(e>>1), col = 2q + (e&1)
FragmentMap mma_m16n8k16_a_layout();
FragmentMap mma_m16n8k16_b_layout();
FragmentMap mma_m16n8k16_c_layout();

// ldmatrix.m8n8.x{1,2,4}{.trans}.b16, facts §2. Matrix j is stacked vertically: tile row
// 8*j + r is row r of matrix j (the row whose address lane 8*j + r supplies).
//   // (T32,V 2*num) -> (8*num rows, 8 cols); value = 2*register + half, register j = matrix j
//   no trans: lane l gets row l/4, cols 2(l%4), 2(l%4)+1
//   trans:    lane l gets col l/4, rows 2(l%4), 2(l%4)+1
// Throws std::invalid_argument unless num_matrices is 1, 2 or 4. stmatrix uses the same map.
FragmentMap ldmatrix_layout(int num_matrices, bool trans);

// stmatrix.m8n8.x{1,2,4}{.trans}.b16, facts §2 and the PTX ISA's stmatrix section (its fragment
// figure: a group of four lanes holds one row, lane l row l/4, elements 2(l%4) and 2(l%4)+1;
// .trans the transposed matrix): the store puts back what ldmatrix loads, so the table is
// ldmatrix_layout's, named for stmatrix.
//   // (T32,V 2*num) -> (8*num rows, 8 cols); lane l's register j, half h: row 8j + l/4, col
//   // 2(l%4) + h (.trans: row 8j + 2(l%4) + h, col l/4)
FragmentMap stmatrix_layout(int num_matrices, bool trans);

// The lane whose address operand gives row `row` (0..7) of matrix `matrix` (facts §2: lane i
// supplies row i%8 of matrix i/8): 8*matrix + row. Throws for values out of range.
int ldmatrix_row_address_lane(int num_matrices, int matrix, int row);

// tcgen05.ld.32x32b.x{x}, facts §9.3: thread i reads TMEM lane (base + i), register j is
// column (base + j).   // (T32,Vx) -> (lane 32, col x)
// From CUTLASS's Copy_Traits, NOT checked on hardware (no Blackwell GPU was available).
// Throws std::invalid_argument unless x is a power of two in 1..128.
FragmentMap tcgen05_ld_32x32b_layout(int x);

}  // namespace gs::layout
