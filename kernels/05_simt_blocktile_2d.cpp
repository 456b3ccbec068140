// Step 05 — 2D block tiling: each thread computes an 8×8 block of C as outer products.
//
// What it teaches: arithmetic intensity per thread. Per K step a thread loads a column of 8
// values of As (regM) and a row of 8 values of Bs (regN) into registers and adds their outer
// product into its 64 accumulators: 16 shared loads for 64 FMAs (step 04: 9 for 8). The CTA
// tile is 128×128 with BK = 8 and 256 threads (the article's kernel 5), so every float fetched
// from global memory serves 128 FMAs.
//
// Loads: 4 rounds per chunk; in round i thread t copies As[t/8 + 32i][t%8] and
// Bs[t/128 + 2i][t%128] (coalesced, consecutive shared stores).
// Compute: thread (r = t/16, c = t%16) reads As[8r+i][d] and Bs[d][8c+j] with scalar loads.
// Those reads conflict: the two thread rows of a warp read As words 64 apart (the same bank:
// 2-way), and the 16 thread columns read Bs words 8 apart, so columns c, c+4, c+8, c+12 share
// a bank (4-way, lanes 16-31 repeating lanes 0-15 as broadcasts). The model's bank record
// shows both for the PTX as written.
//
// On the GPU the picture is different, and that is a lesson too: ptxas sees that a thread's 8
// As loads of one row (k = 0..7) and its 8 Bs loads of one k (n = 8c..8c+7) are consecutive
// words and merges each four into one LDS.128. The H100 then runs a quarter of the shared
// loads (ncu: 2048 instead of 8192 at the example shape) and counts 4096 bank conflicts
// (Bs's 128-bit reads, 2-way in each half-warp) where the PTX as written has 16384
// (docs/results/2026-11-24-h100-simt). Step 06 writes the 128-bit loads itself.
//
// What changed from step 04: 8×8 results per thread (outer products of regM and regN), a
// 128×128 CTA tile, 256 threads, several loads per thread per chunk.
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

constexpr std::string_view kId = "simt_blocktile_2d";
constexpr uint32_t kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;
constexpr uint32_t kThreads = kBM * kBN / (kTM * kTN);  // 256
constexpr uint32_t kRowsA = kThreads / kBK;               // rows of As one round copies: 32
constexpr uint32_t kRowsB = kThreads / kBN;               // rows of Bs one round copies: 2

ir::Kernel build_simt_blocktile_2d(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {N / kBN, M / kBM, 1}, .block = {kThreads, 1, 1}});
  const simt::CtaStart s = simt::cta_start(b, kBM, kBN);
  const simt::Chunks sm = simt::chunk_buffers(b, kBM * kBK * 4, kBK * kBN * 4);

  Reg a_ptr = simt::element_ptr(b, s.A, s.m0 + (s.tid >> 3), K, s.tid & (kBK - 1), "a_ptr");
  Reg b_ptr = simt::element_ptr(b, s.B, s.tid >> 7, N, s.n0 + (s.tid & (kBN - 1)), "b_ptr");
  Reg slot = (s.tid << 2).named("slot");
  Reg as_store = (sm.as + slot).named("as_st");
  Reg bs_store = (sm.bs + slot).named("bs_st");
  Reg r = (s.tid >> 4).named("thread_row");
  Reg c = (s.tid & 15).named("thread_col");
  Reg as_rows = (sm.as + r * (kTM * kBK * 4)).named("as_rows");  // &As[8r][0]
  Reg bs_cols = (sm.bs + c * (kTN * 4)).named("bs_cols");         // &Bs[0][8c]
  std::vector<Reg> res = simt::zero_accumulators(b, kTM * kTN);

  const auto copy = [&] {
    for (uint32_t i = 0; i < kBM / kRowsA; ++i) {
      Reg a = b.ld_global(Type::f32, Addr::at(a_ptr, int64_t(i) * kRowsA * K * 4), fmt::format("a{}", i));
      b.st_shared(Type::f32, Addr::at(as_store, i * kRowsA * kBK * 4), {a});
    }
    for (uint32_t i = 0; i < kBK / kRowsB; ++i) {
      Reg bv = b.ld_global(Type::f32, Addr::at(b_ptr, int64_t(i) * kRowsB * N * 4), fmt::format("b{}", i));
      b.st_shared(Type::f32, Addr::at(bs_store, i * kRowsB * kBN * 4), {bv});
    }
  };
  const auto compute = [&] {
    for (uint32_t d = 0; d < kBK; ++d) {
      b.comment("regM: a column of 8 from As; regN: a row of 8 from Bs; then their outer product");
      std::vector<Reg> reg_m, reg_n;
      for (uint32_t i = 0; i < kTM; ++i)
        reg_m.push_back(b.ld_shared(Type::f32, Addr::at(as_rows, (i * kBK + d) * 4), fmt::format("m{}", i)));
      for (uint32_t j = 0; j < kTN; ++j)
        reg_n.push_back(b.ld_shared(Type::f32, Addr::at(bs_cols, (d * kBN + j) * 4), fmt::format("n{}", j)));
      simt::outer_product(b, res, reg_m, reg_n);
    }
  };
  simt::chunk_loop(b, K, kBK, N, a_ptr, b_ptr, copy, compute);
  b.role(ir::WarpRole::epilogue, [&] {
    Reg c_ptr = simt::element_ptr(b, s.C, s.m0 + r * kTM, N, s.n0 + c * kTN, "c_ptr");
    simt::store_results(b, c_ptr, N, kTM, kTN, res, 1);
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo simt_blocktile_2d_info() {
  KernelInfo k = simt::tiled_info(kId, {kBM, kBN, kBK}, kThreads);
  k.title = "2D block tiling: 8x8 outer products per thread";
  k.delta = "each thread computes an 8x8 block of C as a sum of outer products of 8 As and 8 Bs values";
  k.explanation =
      "The CTA computes a 128x128 tile with 256 threads, 8 along K at a time. Per K step each thread "
      "loads 8 values of As (a column: regM) and 8 of Bs (a row: regN) and adds their outer product "
      "to its 64 accumulators: 16 shared loads for 64 FMAs. Copying a chunk takes 4 rounds of "
      "coalesced loads per operand. The scalar shared reads conflict: a warp's two thread rows hit "
      "the same As bank (2-way), and its 16 thread columns read Bs words 8 apart, four to a bank "
      "(4-way) - see the bank view on the compute loads. On the GPU, ptxas merges each four "
      "consecutive scalar loads into one 128-bit load, so the H100 runs a quarter of these loads and "
      "counts a quarter of the conflicts: the PTX is not the machine code. The next step writes the "
      "128-bit loads itself.";
  k.example_shape = {256, 256, 16};
  // Where this step's lesson shows: outer products from registers; bank conflicts appear.
  k.focus_views = {"smem", "transport", "diff"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_barrier}, {StopKind::first_shared_load}, {StopKind::first_c_store}};
  k.pictures = {"tiling", "smem"};
  k.build = build_simt_blocktile_2d;
  return k;
}

}  // namespace gs::kernels
