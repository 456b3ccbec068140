// Fragment maps (facts sheet §1.5, §2, §9.3). See fragments.hpp for the formulas.
#include "engine/layout/fragments.hpp"

#include <stdexcept>

#include "engine/layout/format_detail.hpp"

namespace gs::layout {

namespace {

using detail::str;

// The 16x8 / 16x16 quad pattern shared by mma.sync A and C and by the wgmma fragments:
// lane l owns rows g and g+8 (g = l/4) and column pair 2q, 2q+1 (q = l%4) of each 8-wide block.
int group_of(int lane) { return lane / 4; }
int quad_of(int lane) { return lane % 4; }

}  // namespace

FragmentMap::FragmentMap(std::string name_in, int threads_in, int values_per_thread_in,
                         int rows_in, int cols_in, std::vector<Coord> table_in)
    : name(std::move(name_in)),
      threads(threads_in),
      values_per_thread(values_per_thread_in),
      rows(rows_in),
      cols(cols_in),
      table(std::move(table_in)) {
    if (threads <= 0 || values_per_thread <= 0 || rows <= 0 || cols <= 0) {
        throw std::invalid_argument("fragment map " + name + ": threads, values, rows and cols "
                                    "must be positive");
    }
    if (table.size() != static_cast<size_t>(threads) * static_cast<size_t>(values_per_thread)) {
        throw std::invalid_argument("fragment map " + name + ": table has " + str(table.size()) +
                                    " entries, expected threads*values = " +
                                    str(threads * values_per_thread));
    }
    inverse_.assign(static_cast<size_t>(rows) * static_cast<size_t>(cols), -1);
    for (size_t i = 0; i < table.size(); ++i) {
        const Coord c = table[i];
        if (c == kUnmapped) continue;  // an observed map: a thread that holds fewer values
        if (c.row < 0 || c.row >= rows || c.col < 0 || c.col >= cols) {
            throw std::invalid_argument(
                "fragment map " + name + ": (thread " + str(static_cast<int>(i) / values_per_thread) +
                ", value " + str(static_cast<int>(i) % values_per_thread) + ") -> (" +
                str(c.row) + "," + str(c.col) + ") is outside the " + str(rows) + "x" + str(cols) +
                " tile");
        }
        int& slot = inverse_[static_cast<size_t>(c.row) * static_cast<size_t>(cols) +
                             static_cast<size_t>(c.col)];
        if (slot < 0) slot = static_cast<int>(i);
    }
}

Coord FragmentMap::at(int thread, int value) const {
    if (thread < 0 || thread >= threads || value < 0 || value >= values_per_thread) {
        throw std::invalid_argument("fragment map " + name + ": (thread " + str(thread) +
                                    ", value " + str(value) + ") is out of range: threads 0.." +
                                    str(threads - 1) + ", values 0.." +
                                    str(values_per_thread - 1));
    }
    return table[static_cast<size_t>(thread) * static_cast<size_t>(values_per_thread) +
                 static_cast<size_t>(value)];
}

std::optional<std::pair<int, int>> FragmentMap::owner(int row, int col) const {
    if (row < 0 || row >= rows || col < 0 || col >= cols || inverse_.empty()) return std::nullopt;
    const int index = inverse_[static_cast<size_t>(row) * static_cast<size_t>(cols) +
                               static_cast<size_t>(col)];
    if (index < 0) return std::nullopt;
    return std::pair{index / values_per_thread, index % values_per_thread};
}

bool FragmentMap::is_bijection() const {
    if (rows <= 0 || cols <= 0 ||
        table.size() != static_cast<size_t>(rows) * static_cast<size_t>(cols) ||
        table.size() != static_cast<size_t>(threads) * static_cast<size_t>(values_per_thread)) {
        return false;
    }
    std::vector<bool> seen(table.size(), false);
    for (const Coord c : table) {
        if (c.row < 0 || c.row >= rows || c.col < 0 || c.col >= cols) return false;
        const size_t cell = static_cast<size_t>(c.row) * static_cast<size_t>(cols) +
                            static_cast<size_t>(c.col);
        if (seen[cell]) return false;
        seen[cell] = true;
    }
    return true;  // |table| == |tile| and no cell twice, so every cell exactly once
}

FragmentMap make_fragment_map(std::string name, int threads, int values_per_thread, int rows,
                              int cols, const std::function<Coord(int, int)>& fn) {
    std::vector<Coord> table;
    table.reserve(static_cast<size_t>(threads) * static_cast<size_t>(values_per_thread));
    for (int t = 0; t < threads; ++t) {
        for (int v = 0; v < values_per_thread; ++v) table.push_back(fn(t, v));
    }
    return FragmentMap(std::move(name), threads, values_per_thread, rows, cols, std::move(table));
}

FragmentMap wgmma_accumulator_layout(int n) {
    if (n < 8 || n > 256 || n % 8 != 0) {
        throw std::invalid_argument("wgmma N=" + str(n) + " is not a multiple of 8 in 8..256");
    }
    // (T128,V N/2) -> (M64,N): warp w owns rows 16w..16w+15; each group of 4 registers is one
    // mma.sync m16n8 C fragment for the 8-column block v/4 (facts §1.5).
    return make_fragment_map("wgmma m64n" + str(n) + "k16 f32 accumulator", 128, n / 2, 64, n,
                             [](int t, int v) {
                                 const int lane = t % 32;
                                 return Coord{16 * (t / 32) + group_of(lane) + 8 * ((v >> 1) & 1),
                                              8 * (v >> 2) + 2 * quad_of(lane) + (v & 1)};
                             });
}

FragmentMap wgmma_a_register_layout() {
    // (T128,V8) -> (M64,K16): each warp's 16 rows are an mma.sync m16n8k16 A fragment
    // (facts §1.5: q0 = A[r][k0..], q1 = A[r+8][k0..], q2 = A[r][k0+8..], q3 = A[r+8][k0+8..]).
    return make_fragment_map("wgmma m64k16 register A (bf16)", 128, 8, 64, 16, [](int t, int e) {
        const int lane = t % 32;
        return Coord{16 * (t / 32) + group_of(lane) + 8 * ((e >> 1) & 1),
                     2 * quad_of(lane) + (e & 1) + 8 * (e >> 2)};
    });
}

FragmentMap mma_m16n8k16_a_layout() {
    // (T32,V8) -> (M16,K16): a0 = (g, 2q..), a1 = (g+8, 2q..), a2 = (g, 2q+8..), a3 = (g+8, 2q+8..)
    return make_fragment_map("mma.m16n8k16 A (bf16)", 32, 8, 16, 16, [](int l, int e) {
        return Coord{group_of(l) + 8 * ((e >> 1) & 1), 2 * quad_of(l) + (e & 1) + 8 * (e >> 2)};
    });
}

FragmentMap mma_m16n8k16_b_layout() {
    // (T32,V4) -> (K16,N8): b0 = (k 2q..2q+1, n g), b1 = (k 2q+8..2q+9, n g)
    return make_fragment_map("mma.m16n8k16 B (bf16)", 32, 4, 16, 8, [](int l, int e) {
        return Coord{2 * quad_of(l) + (e & 1) + 8 * (e >> 1), group_of(l)};
    });
}

FragmentMap mma_m16n8k16_c_layout() {
    // (T32,V4) -> (M16,N8): c0 = (g, 2q), c1 = (g, 2q+1), c2 = (g+8, 2q), c3 = (g+8, 2q+1)
    return make_fragment_map("mma.m16n8k16 C/D (f32)", 32, 4, 16, 8, [](int l, int e) {
        return Coord{group_of(l) + 8 * (e >> 1), 2 * quad_of(l) + (e & 1)};
    });
}

FragmentMap ldmatrix_layout(int num_matrices, bool trans) {
    if (num_matrices != 1 && num_matrices != 2 && num_matrices != 4) {
        throw std::invalid_argument("ldmatrix .x" + str(num_matrices) +
                                    " is invalid: use .x1, .x2 or .x4");
    }
    // (T32,V 2*num) -> (8*num, 8): value 2j+h is half h of register j, which holds matrix j.
    const std::string name = "ldmatrix.m8n8.x" + str(num_matrices) + (trans ? ".trans" : "") +
                             ".b16";
    return make_fragment_map(name, 32, 2 * num_matrices, 8 * num_matrices, 8,
                             [trans](int l, int v) {
                                 const int matrix = v / 2;
                                 const int half = v % 2;
                                 const int fixed = l / 4;               // row, or col if .trans
                                 const int moving = 2 * (l % 4) + half;  // col, or row if .trans
                                 return trans ? Coord{8 * matrix + moving, fixed}
                                              : Coord{8 * matrix + fixed, moving};
                             });
}

FragmentMap stmatrix_layout(int num_matrices, bool trans) {
    if (num_matrices != 1 && num_matrices != 2 && num_matrices != 4) {
        throw std::invalid_argument("stmatrix .x" + str(num_matrices) +
                                    " is invalid: use .x1, .x2 or .x4");
    }
    FragmentMap loaded = ldmatrix_layout(num_matrices, trans);
    return FragmentMap("stmatrix.m8n8.x" + str(num_matrices) + (trans ? ".trans" : "") + ".b16",
                       loaded.threads, loaded.values_per_thread, loaded.rows, loaded.cols,
                       std::move(loaded.table));
}

int ldmatrix_row_address_lane(int num_matrices, int matrix, int row) {
    if (num_matrices != 1 && num_matrices != 2 && num_matrices != 4) {
        throw std::invalid_argument("ldmatrix .x" + str(num_matrices) +
                                    " is invalid: use .x1, .x2 or .x4");
    }
    if (matrix < 0 || matrix >= num_matrices || row < 0 || row >= 8) {
        throw std::invalid_argument("ldmatrix .x" + str(num_matrices) + " matrix " + str(matrix) +
                                    " row " + str(row) + " is out of range: matrix 0.." +
                                    str(num_matrices - 1) + ", row 0..7");
    }
    return 8 * matrix + row;
}

FragmentMap tcgen05_ld_32x32b_layout(int x) {
    if (x < 1 || x > 128 || (x & (x - 1)) != 0) {
        throw std::invalid_argument("tcgen05.ld.32x32b.x" + str(x) +
                                    " is invalid: x is a power of two in 1..128");
    }
    // (T32,Vx) -> (lane 32, col x). From CUTLASS Copy_Traits, not checked on hardware.
    return make_fragment_map("tcgen05.ld.32x32b.x" + str(x), 32, x, 32, x,
                             [](int l, int j) { return Coord{l, j}; });
}

}  // namespace gs::layout
