// Step 04 — 1D block tiling: each thread computes TM = 8 elements of a column of C.
//
// What it teaches: step 03 does two shared loads per FMA, so shared memory, not the FP32
// units, sets its speed. Here a thread keeps one value of Bs in a register and multiplies it
// into 8 accumulators (8 rows of its column), so each K step costs 1 + 8 shared loads for 8
// FMAs. The CTA tile grows to 64×64 with BK = 8 and 512 threads (the article's kernel 4).
//
// Loads: thread t copies As[t/8][t%8] and Bs[t/64][t%64] (coalesced global loads, consecutive
// shared stores). Compute: thread (row r = t/64, column c = t%64) reads Bs[d][c] (a warp: 32
// consecutive words) and As[8r+i][d] (the same word for the whole warp: a broadcast). No bank
// conflicts anywhere.
//
// What changed from step 03: 8 results per thread in registers, a 64×64 CTA tile with 8-wide
// K chunks, 512 threads.
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

constexpr std::string_view kId = "simt_blocktile_1d";
constexpr uint32_t kBM = 64, kBN = 64, kBK = 8, kTM = 8;
constexpr uint32_t kThreads = kBM * kBN / kTM;  // 512

ir::Kernel build_simt_blocktile_1d(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {N / kBN, M / kBM, 1}, .block = {kThreads, 1, 1}});
  const simt::CtaStart s = simt::cta_start(b, kBM, kBN);
  const simt::Chunks sm = simt::chunk_buffers(b, kBM * kBK * 4, kBK * kBN * 4);

  // The copy: As[t/8][t%8] from A, Bs[t/64][t%64] from B; both land at slot t of their chunk.
  Reg a_ptr = simt::element_ptr(b, s.A, s.m0 + (s.tid >> 3), K, s.tid & (kBK - 1), "a_ptr");
  Reg b_ptr = simt::element_ptr(b, s.B, s.tid >> 6, N, s.n0 + (s.tid & (kBN - 1)), "b_ptr");
  Reg slot = (s.tid << 2).named("slot");
  Reg as_store = (sm.as + slot).named("as_st");
  Reg bs_store = (sm.bs + slot).named("bs_st");
  // The compute: thread (r, c) owns C rows 8r..8r+7 of column c.
  Reg r = (s.tid >> 6).named("thread_row");
  Reg c = (s.tid & (kBN - 1)).named("thread_col");
  Reg as_rows = (sm.as + r * (kTM * kBK * 4)).named("as_rows");  // &As[8r][0]
  Reg bs_col = (sm.bs + (c << 2)).named("bs_col");                 // &Bs[0][c]
  std::vector<Reg> res = simt::zero_accumulators(b, kTM);

  const auto copy = [&] {
    Reg a = b.ld_global(Type::f32, Addr::at(a_ptr), "a");
    Reg bv = b.ld_global(Type::f32, Addr::at(b_ptr), "b");
    b.st_shared(Type::f32, Addr::at(as_store), {a});
    b.st_shared(Type::f32, Addr::at(bs_store), {bv});
  };
  const auto compute = [&] {
    for (uint32_t d = 0; d < kBK; ++d) {
      b.comment(fmt::format("one value of Bs, reused for {} rows", kTM));
      Reg y = b.ld_shared(Type::f32, Addr::at(bs_col, d * kBN * 4), fmt::format("b{}", d));
      for (uint32_t i = 0; i < kTM; ++i) {
        Reg x = b.ld_shared(Type::f32, Addr::at(as_rows, (i * kBK + d) * 4), fmt::format("a{}_{}", d, i));
        b.fma_into(res[i], x, y, res[i]);
      }
    }
  };
  simt::chunk_loop(b, K, kBK, N, a_ptr, b_ptr, copy, compute);
  b.role(ir::WarpRole::epilogue, [&] {
    Reg c_ptr = simt::element_ptr(b, s.C, s.m0 + r * kTM, N, s.n0 + c, "c_ptr");
    simt::store_results(b, c_ptr, N, kTM, 1, res, 1);
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo simt_blocktile_1d_info() {
  KernelInfo k = simt::tiled_info(kId, {kBM, kBN, kBK}, kThreads);
  k.title = "1D block tiling: 8 results per thread";
  k.delta = "each thread computes 8 elements of a column of C, reusing one Bs value 8 times from a register";
  k.explanation =
      "The CTA computes a 64x64 tile of C with 512 threads, in chunks of 8 along K. Each thread owns "
      "8 consecutive rows of one column: per K step it reads one value of Bs into a register and "
      "multiplies it into 8 accumulators with 8 values of As. That is 9 shared loads for 8 FMAs "
      "where step 03 needed 16, and each float of A and B fetched from global memory is now used 64 "
      "times. All shared accesses are conflict-free: a warp reads one word of As (broadcast) and 32 "
      "consecutive words of Bs.";
  k.example_shape = {128, 128, 32};
  // Where this step's lesson shows: fewer shared loads per FMA.
  k.focus_views = {"smem", "throughput", "diff"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_barrier}, {StopKind::first_shared_load}, {StopKind::first_c_store}};
  k.pictures = {"smem"};
  k.build = build_simt_blocktile_1d;
  return k;
}

}  // namespace gs::kernels
