// Step 07 — warp tiling: the article's reference SIMT kernel.
//
// What it teaches: a level of tiling between the CTA and the thread. BM = BN = 128, BK = 16,
// 128 threads = 4 warps; each warp owns a 64×64 warp tile (WM = WN = 64), which it covers in
// WNITER = 4 sub-tiles of 64×16 (WMITER = 1). In a sub-tile the 32 lanes form an 8×4 grid of
// threads, each computing TM×TN = 8×4 results, so a thread holds 8·16 = 128 accumulators and
// per K step loads regM (8 values of the transposed As: two ld.shared.v4) and regN (4 per
// sub-tile: four ld.shared.v4) for 128 FMAs. A warp's lanes read compact 64-float runs of As
// and Bs, and its 64×64 tile keeps its loads within a few 128-byte lines.
//
// The copy (as in the article): A through 128-bit loads, stored transposed into As with 4
// scalar stores each; B through 128-bit loads and 128-bit stores. The transposed stores
// conflict 4-way: the 4 threads that share a row of A (t%4 = 0..3) write words 4·128 apart,
// the same bank. The bank record of those st.shared shows it: 4 wavefronts instead of 1.
//
// Mistakes that show what the layout and the vector width buy (the result stays correct):
//  * `no-transpose` — As kept row-major like A (one st.shared.v4 per row instead of four
//    scalar stores), so regM becomes 8 scalar loads whose 8 thread rows hit one bank: 8-way.
//  * `scalar-loads` — every 128-bit access split into 4 scalar ones: 4× the load and store
//    instructions on both global and shared memory in the PTX. (ptxas can merge consecutive
//    scalar accesses back into 128-bit ones, as it does in step 05, so the GPU may not pay it.)
//
// What changed from step 06: warp tiles (a warp's threads cover a 64×64 region in 4 slices),
// BK = 16, 128 threads with 128 results each, several load rounds per chunk.
#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/registry.hpp"
#include "kernels/simt_common.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;

namespace {

constexpr std::string_view kId = "simt_warptile";
constexpr uint32_t kBM = 128, kBN = 128, kBK = 16;
constexpr uint32_t kWM = 64, kWN = 64, kWNIter = 4, kTM = 8, kTN = 4;
constexpr uint32_t kThreads = 128;
constexpr uint32_t kWSubN = kWN / kWNIter;     // 16 columns per sub-tile
constexpr uint32_t kRowsA = kThreads * 4 / kBK;  // rows of A one round copies: 32
constexpr uint32_t kRowsB = kThreads * 4 / kBN;  // rows of B one round copies: 4
static_assert(kWM * kWN == 32 * kTM * kTN * kWNIter, "WMITER = 1: one sub-tile along M");

// ld/st of 4 consecutive floats: one 128-bit access, or four scalar ones (`scalar-loads`).
std::vector<Reg> load4(Builder& b, ir::Op op, const Addr& at, bool scalar, const std::string& name) {
  if (!scalar) return b.ld_vec(op, Type::f32, 4, at, name);
  std::vector<Reg> v;
  for (int j = 0; j < 4; ++j)
    v.push_back(b.ld(op, Type::f32, Addr{ir::Operand::mem(at.operand.id, at.operand.imm + 4 * j)}, name));
  return v;
}
void store4(Builder& b, ir::Op op, const Addr& at, const std::vector<Reg>& v, bool scalar) {
  if (!scalar) return b.st(op, Type::f32, at, v);
  for (int j = 0; j < 4; ++j) b.st(op, Type::f32, Addr{ir::Operand::mem(at.operand.id, at.operand.imm + 4 * j)}, {v[j]});
}

ir::Kernel build_simt_warptile(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const bool transpose = !cfg.has("no-transpose");
  const bool scalar = cfg.has("scalar-loads");
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {N / kBN, M / kBM, 1}, .block = {kThreads, 1, 1}});
  const simt::CtaStart s = simt::cta_start(b, kBM, kBN);
  const simt::Chunks sm = simt::chunk_buffers(b, kBM * kBK * 4, kBK * kBN * 4);

  // The copy: round i reads A[m0 + t/4 + 32i][4(t%4)..] and B[t/32 + 4i][n0 + 4(t%32)..].
  Reg a_row = (s.tid >> 2).named("a_row");
  Reg a_col = ((s.tid & 3) << 2).named("a_col");
  Reg a_ptr = simt::element_ptr(b, s.A, s.m0 + a_row, K, a_col, "a_ptr");
  Reg b_ptr = simt::element_ptr(b, s.B, s.tid >> 5, N, s.n0 + ((s.tid & 31) << 2), "b_ptr");
  // Transposed: &As[a_col][a_row] (k-major); else &As[a_row][a_col] (as in A).
  Reg as_store = (sm.as + (transpose ? (a_col * kBM + a_row) << 2 : s.tid << 4)).named("as_st");
  Reg bs_store = (sm.bs + (s.tid << 4)).named("bs_st");

  // The warp tile: warp w covers rows 64(w/2).., columns 64(w%2)..; lane l is thread row
  // l/4 and thread column l%4 of every 64×16 sub-tile.
  Reg warp = (s.tid >> 5).named("warp");
  Reg lane = (s.tid & 31).named("lane");
  Reg m_in = ((warp >> 1) * kWM + (lane >> 2) * kTM).named("m_in_tile");             // first of its 8 rows
  Reg n_in = ((warp & 1) * kWN + (lane & 3) * kTN).named("n_in_tile");               // first column, sub-tile 0
  Reg as_rows = (sm.as + (transpose ? m_in << 2 : m_in * (kBK * 4))).named("as_rows");
  Reg bs_cols = (sm.bs + (n_in << 2)).named("bs_cols");
  // Slice w's 8×4 results: res[32w + 4i + j].
  std::vector<Reg> res = simt::zero_accumulators(b, kTM * kTN * kWNIter);
  const auto slice = [](const std::vector<Reg>& v, uint32_t w, uint32_t size) {
    return std::vector<Reg>(v.begin() + w * size, v.begin() + (w + 1) * size);
  };

  const auto copy = [&] {
    for (uint32_t i = 0; i < kBM / kRowsA; ++i) {
      std::vector<Reg> a = load4(b, ir::Op::ld_global, Addr::at(a_ptr, int64_t(i) * kRowsA * K * 4), scalar, "a");
      if (transpose) {
        for (uint32_t j = 0; j < 4; ++j) b.st_shared(Type::f32, Addr::at(as_store, (j * kBM + i * kRowsA) * 4), {a[j]});
      } else {
        store4(b, ir::Op::st_shared, Addr::at(as_store, i * kRowsA * kBK * 4), a, scalar);
      }
    }
    for (uint32_t i = 0; i < kBK / kRowsB; ++i) {
      std::vector<Reg> bv = load4(b, ir::Op::ld_global, Addr::at(b_ptr, int64_t(i) * kRowsB * N * 4), scalar, "b");
      store4(b, ir::Op::st_shared, Addr::at(bs_store, i * kRowsB * kBN * 4), bv, scalar);
    }
  };
  const auto compute = [&] {
    for (uint32_t d = 0; d < kBK; ++d) {
      std::vector<Reg> reg_m, reg_n;
      if (transpose) {
        for (uint32_t h = 0; h < kTM / 4; ++h)
          for (const Reg& x : load4(b, ir::Op::ld_shared, Addr::at(as_rows, (d * kBM + 4 * h) * 4), scalar, "m"))
            reg_m.push_back(x);
      } else {
        for (uint32_t i = 0; i < kTM; ++i)
          reg_m.push_back(b.ld_shared(Type::f32, Addr::at(as_rows, (i * kBK + d) * 4), "m"));
      }
      for (uint32_t w = 0; w < kWNIter; ++w)
        for (const Reg& x : load4(b, ir::Op::ld_shared, Addr::at(bs_cols, (d * kBN + w * kWSubN) * 4), scalar, "n"))
          reg_n.push_back(x);
      for (uint32_t w = 0; w < kWNIter; ++w) {
        std::vector<Reg> part = slice(res, w, kTM * kTN);  // the same registers
        simt::outer_product(b, part, reg_m, slice(reg_n, w, kTN));
      }
    }
  };
  simt::chunk_loop(b, K, kBK, N, a_ptr, b_ptr, copy, compute);
  b.role(ir::WarpRole::epilogue, [&] {
    for (uint32_t w = 0; w < kWNIter; ++w) {
      Reg c_ptr = simt::element_ptr(b, s.C, s.m0 + m_in, N, s.n0 + n_in + w * kWSubN, fmt::format("c_ptr{}", w));
      simt::store_results(b, c_ptr, N, kTM, kTN, slice(res, w, kTM * kTN), scalar ? 1 : 4);
    }
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo simt_warptile_info() {
  KernelInfo k = simt::tiled_info(kId, {kBM, kBN, kBK}, kThreads);
  k.title = "Warp tiling: the article's reference SIMT kernel";
  k.delta = "a warp tile between CTA and thread: 4 warps of 64x64, each in 4 slices of 64x16, 8x4 results per slice";
  k.explanation =
      "BM = BN = 128, BK = 16, 4 warps. Each warp owns a 64x64 part of the tile and sweeps it in "
      "WNITER = 4 slices of 64x16; within a slice its 32 lanes form an 8x4 grid, each lane computing "
      "8x4 results, so a thread holds 128 accumulators. Per K step a thread loads regM (8 values of "
      "the transposed As, two ld.shared.v4) and regN (4 per slice, four ld.shared.v4) and does 128 "
      "FMAs. The copy uses 128-bit global loads; B goes to Bs with 128-bit stores, A is written "
      "down the columns of the transposed As with scalar stores, which conflict 4-way (the bank view "
      "of those st.shared). Switch on no-transpose (As row-major: regM becomes 8 scalar loads, "
      "8-way conflicts) or scalar-loads (no 128-bit accesses) to see what each choice buys.";
  k.example_shape = {256, 256, 32};
  k.mistakes = {
      {"no-transpose", "As kept row-major like A: one 128-bit store per row, regM read with 8 scalar loads",
       "still correct, but regM's scalar loads conflict 8-way: the bank record shows 8 wavefronts per load. "
       "(ptxas merges each 4 of them along k into a 128-bit load on the GPU, which still conflicts 4-way)"},
      {"scalar-loads", "every 128-bit global and shared access split into four 32-bit ones",
       "still correct, with 4x the memory instructions in the PTX and the model (ptxas may merge "
       "consecutive scalar accesses back into 128-bit ones on the GPU, as it does for step 05)"},
  };
  // Where this step's lesson shows: warp tiles and their conflict-free reads.
  k.focus_views = {"tiling", "smem", "warps"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_shared_load}, {StopKind::first_c_store}};
  k.pictures = {"tiling"};
  k.build = build_simt_warptile;
  return k;
}

}  // namespace gs::kernels
