// Step 06 — vectorized memory access: 128-bit loads and stores, As stored transposed.
//
// What it teaches: one ld.global.v4.f32 moves 4 floats for the cost of one instruction, and so
// does ld.shared.v4.f32. The copy of a chunk becomes one 128-bit global load per thread per
// operand (A: thread t reads 4 floats of row t/2; B: 4 floats of row t/32). B's 4 floats go
// to Bs with one st.shared.v4. A's 4 floats are consecutive along K, but the compute wants a
// column of As (8 rows, one k) in consecutive words, so As is stored transposed (As[k][m]):
// four scalar stores per thread, which conflict 2-way (the two threads of a row write words
// 128·4 apart: the same bank). In the compute, regM and regN are each two ld.shared.v4.
//
// The H100 serves a 128-bit shared access a half-warp (16 lanes) at a time, one wavefront per
// 128 bytes of distinct data at best (engine/layout/banks.hpp, Phasing): regM's 16 lanes of a
// half read one address (a broadcast: 1 wavefront), regN's read 16 addresses 32 bytes apart,
// of which columns c, c+4, c+8, c+12 share banks (4 wavefronts where 2 would do). The model's
// bank record shows each half.
//
// What changed from step 05: 128-bit global loads, As transposed, ld.shared.v4 for regM and
// regN, st.global.v4 for C.
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

constexpr std::string_view kId = "simt_vectorized";
constexpr uint32_t kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;
constexpr uint32_t kThreads = kBM * kBN / (kTM * kTN);  // 256

std::vector<Reg> ld_v4(Builder& b, ir::Op op, const Addr& at, const std::string& name) {
  return b.ld_vec(op, Type::f32, 4, at, name);
}

ir::Kernel build_simt_vectorized(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {N / kBN, M / kBM, 1}, .block = {kThreads, 1, 1}});
  const simt::CtaStart s = simt::cta_start(b, kBM, kBN);
  const simt::Chunks sm = simt::chunk_buffers(b, kBK * kBM * 4, kBK * kBN * 4);  // As transposed: As[k][m]

  // The copy: A[m0 + t/2][4(t%2) ..+3] and B[t/32][n0 + 4(t%32) ..+3].
  Reg a_row = (s.tid >> 1).named("a_row");
  Reg a_col = ((s.tid & 1) << 2).named("a_col");
  Reg a_ptr = simt::element_ptr(b, s.A, s.m0 + a_row, K, a_col, "a_ptr");
  Reg b_ptr = simt::element_ptr(b, s.B, s.tid >> 5, N, s.n0 + ((s.tid & 31) << 2), "b_ptr");
  Reg as_store = (sm.as + ((a_col * kBM + a_row) << 2)).named("as_st");  // &As[a_col][a_row]
  Reg bs_store = (sm.bs + (s.tid << 4)).named("bs_st");                  // &Bs[t/32][4(t%32)]
  Reg r = (s.tid >> 4).named("thread_row");
  Reg c = (s.tid & 15).named("thread_col");
  Reg as_rows = (sm.as + r * (kTM * 4)).named("as_rows");  // &As[0][8r]
  Reg bs_cols = (sm.bs + c * (kTN * 4)).named("bs_cols");  // &Bs[0][8c]
  std::vector<Reg> res = simt::zero_accumulators(b, kTM * kTN);

  const auto copy = [&] {
    b.comment("128-bit loads: 4 floats of A's row and of B's row per thread");
    std::vector<Reg> a = ld_v4(b, ir::Op::ld_global, Addr::at(a_ptr), "a");
    std::vector<Reg> bv = ld_v4(b, ir::Op::ld_global, Addr::at(b_ptr), "b");
    b.comment("A's 4 floats go down a column of the transposed As: 4 scalar stores");
    for (uint32_t j = 0; j < 4; ++j) b.st_shared(Type::f32, Addr::at(as_store, j * kBM * 4), {a[j]});
    b.st(ir::Op::st_shared, Type::f32, Addr::at(bs_store), bv);
  };
  const auto compute = [&] {
    for (uint32_t d = 0; d < kBK; ++d) {
      std::vector<Reg> reg_m, reg_n;
      for (uint32_t h = 0; h < 2; ++h) {
        for (const Reg& x : ld_v4(b, ir::Op::ld_shared, Addr::at(as_rows, (d * kBM + 4 * h) * 4), "m"))
          reg_m.push_back(x);
        for (const Reg& x : ld_v4(b, ir::Op::ld_shared, Addr::at(bs_cols, (d * kBN + 4 * h) * 4), "n"))
          reg_n.push_back(x);
      }
      simt::outer_product(b, res, reg_m, reg_n);
    }
  };
  simt::chunk_loop(b, K, kBK, N, a_ptr, b_ptr, copy, compute);
  b.role(ir::WarpRole::epilogue, [&] {
    Reg c_ptr = simt::element_ptr(b, s.C, s.m0 + r * kTM, N, s.n0 + c * kTN, "c_ptr");
    simt::store_results(b, c_ptr, N, kTM, kTN, res, 4);
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo simt_vectorized_info() {
  KernelInfo k = simt::tiled_info(kId, {kBM, kBN, kBK}, kThreads);
  k.title = "Vectorized: 128-bit loads, As transposed";
  k.delta = "128-bit loads (ld.global.v4, ld.shared.v4), As stored transposed so regM is one vector read";
  k.explanation =
      "The same 128x128 tile and 8x8 outer products as step 05, with fewer, wider memory "
      "instructions. Each thread copies a chunk with one 128-bit load of A and one of B; B's four "
      "floats go to Bs with one 128-bit store, while A's are written down a column of As, which is "
      "stored transposed (k-major) so that a thread's 8 values of regM are consecutive. regM and "
      "regN are then two ld.shared.v4 each instead of 16 scalar loads. A 128-bit shared access is "
      "served a half-warp at a time: the bank view shows regM's broadcasts, regN's 2-way "
      "conflicts, and the 2-way conflicts of the transposed scalar stores into As.";
  k.example_shape = {256, 256, 16};
  // Where this step's lesson shows: 128-bit loads and the transposed tile.
  k.focus_views = {"coalescing", "smem", "ptx"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_global_load}, {StopKind::first_shared_load}, {StopKind::first_c_store}};
  k.pictures = {"banks --pattern row", "coalescing"};
  k.build = build_simt_vectorized;
  return k;
}

}  // namespace gs::kernels
