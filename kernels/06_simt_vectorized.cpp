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
//
// The tile as build parameters: bm, bn, bk, tm and tn (`--param bn=64`; the numbers above are
// the defaults). Every access is 4 floats wide, so bk, tm and tn are multiples of 4; a round of
// the copy moves 4·threads/bk rows of A and 4·threads/bn rows of B (check_tiles says which
// combinations build and why the others do not).
#include <algorithm>

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

// The tile of a build: the CTA's bm × bn tile of C in chunks of bk, tm × tn results per thread.
struct Tile {
  uint32_t bm, bn, bk, tm, tn;
  explicit Tile(const ParamValues& p)
      : bm(p.at("bm")), bn(p.at("bn")), bk(p.at("bk")), tm(p.at("tm")), tn(p.at("tn")) {}
  uint32_t threads() const { return bm * bn / (tm * tn); }
};

std::optional<std::string> check_tiles(const ParamValues& p) {
  const Tile t(p);
  if (t.tm > t.bm || t.tn > t.bn)
    return fmt::format("a thread's tm × tn = {} × {} results do not fit the bm × bn = {} × {} tile", t.tm, t.tn, t.bm, t.bn);
  if (auto why = simt::threads_problem(t.threads(), fmt::format("bm·bn/(tm·tn) = {}·{}/({}·{})", t.bm, t.bn, t.tm, t.tn)))
    return why;
  if (auto why = simt::copy_problem('A', "bm", t.bm, "bk", t.bk, 4, t.threads())) return why;
  if (auto why = simt::copy_problem('B', "bk", t.bk, "bn", t.bn, 4, t.threads())) return why;
  if (auto why = simt::smem_problem((t.bm + t.bn) * t.bk * 4, fmt::format("(bm + bn)·bk·4 B = ({} + {})·{}·4 B", t.bm, t.bn, t.bk)))
    return why;
  return simt::registers_problem(
      t.tm * t.tn + t.tm + t.tn,
      fmt::format("tm·tn results + tm of regM + tn of regN = {}·{} + {} + {}", t.tm, t.tn, t.tm, t.tn), t.threads());
}

std::vector<Reg> ld_v4(Builder& b, ir::Op op, const Addr& at, const std::string& name) {
  return b.ld_vec(op, Type::f32, 4, at, name);
}

ir::Kernel build_simt_vectorized(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const Tile t(cfg.params);
  const uint32_t threads = t.threads();
  const uint32_t loads_a = t.bk / 4, loads_b = t.bn / 4;  // 128-bit loads in a row of A's chunk, of B's
  const uint32_t rows_a = threads / loads_a, rows_b = threads / loads_b;  // rows one round copies
  const uint32_t thread_cols = t.bn / t.tn;  // threads along a row of the tile: 16 as it ships
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {N / t.bn, M / t.bm, 1}, .block = {threads, 1, 1}});
  const simt::CtaStart s = simt::cta_start(b, t.bm, t.bn);
  const simt::Chunks sm = simt::chunk_buffers(b, t.bk * t.bm * 4, t.bk * t.bn * 4);  // As transposed: As[k][m]

  // The copy: A[m0 + t/(bk/4)][4(t%(bk/4)) ..+3] and B[t/(bn/4)][n0 + 4(t%(bn/4)) ..+3]; as it
  // ships A[m0 + t/2][4(t%2) ..+3] and B[t/32][n0 + 4(t%32) ..+3].
  Reg a_row = (s.tid >> simt::log2_exact(loads_a)).named("a_row");
  Reg a_col = ((s.tid & (loads_a - 1)) << 2).named("a_col");
  Reg a_ptr = simt::element_ptr(b, s.A, s.m0 + a_row, K, a_col, "a_ptr");
  Reg b_ptr = simt::element_ptr(b, s.B, s.tid >> simt::log2_exact(loads_b), N, s.n0 + ((s.tid & (loads_b - 1)) << 2),
                                "b_ptr");
  Reg as_store = (sm.as + ((a_col * t.bm + a_row) << 2)).named("as_st");  // &As[a_col][a_row]
  Reg bs_store = (sm.bs + (s.tid << 4)).named("bs_st");                   // &Bs[t/(bn/4)][4(t%(bn/4))]
  Reg r = (s.tid >> simt::log2_exact(thread_cols)).named("thread_row");
  Reg c = (s.tid & (thread_cols - 1)).named("thread_col");
  Reg as_rows = (sm.as + r * (t.tm * 4)).named("as_rows");  // &As[0][tm·r]
  Reg bs_cols = (sm.bs + c * (t.tn * 4)).named("bs_cols");  // &Bs[0][tn·c]
  std::vector<Reg> res = simt::zero_accumulators(b, t.tm * t.tn);

  const auto copy = [&] {
    b.comment("128-bit loads: 4 floats of A's row and of B's row per thread");
    std::vector<std::vector<Reg>> a, bv;
    for (uint32_t i = 0; i < t.bm / rows_a; ++i)
      a.push_back(ld_v4(b, ir::Op::ld_global, Addr::at(a_ptr, int64_t(i) * rows_a * K * 4), "a"));
    for (uint32_t i = 0; i < t.bk / rows_b; ++i)
      bv.push_back(ld_v4(b, ir::Op::ld_global, Addr::at(b_ptr, int64_t(i) * rows_b * N * 4), "b"));
    b.comment("A's 4 floats go down a column of the transposed As: 4 scalar stores");
    for (uint32_t i = 0; i < a.size(); ++i)
      for (uint32_t j = 0; j < 4; ++j) b.st_shared(Type::f32, Addr::at(as_store, (j * t.bm + i * rows_a) * 4), {a[i][j]});
    for (uint32_t i = 0; i < bv.size(); ++i) b.st(ir::Op::st_shared, Type::f32, Addr::at(bs_store, i * threads * 16), bv[i]);
  };
  const auto compute = [&] {
    for (uint32_t d = 0; d < t.bk; ++d) {
      std::vector<Reg> reg_m, reg_n;
      for (uint32_t h = 0; h < std::max(t.tm, t.tn) / 4; ++h) {
        if (h < t.tm / 4)
          for (const Reg& x : ld_v4(b, ir::Op::ld_shared, Addr::at(as_rows, (d * t.bm + 4 * h) * 4), "m"))
            reg_m.push_back(x);
        if (h < t.tn / 4)
          for (const Reg& x : ld_v4(b, ir::Op::ld_shared, Addr::at(bs_cols, (d * t.bn + 4 * h) * 4), "n"))
            reg_n.push_back(x);
      }
      simt::outer_product(b, res, reg_m, reg_n);
    }
  };
  simt::chunk_loop(b, K, t.bk, N, a_ptr, b_ptr, copy, compute);
  b.role(ir::WarpRole::epilogue, [&] {
    Reg c_ptr = simt::element_ptr(b, s.C, s.m0 + r * t.tm, N, s.n0 + c * t.tn, "c_ptr");
    simt::store_results(b, c_ptr, N, t.tm, t.tn, res, 4);
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo simt_vectorized_info() {
  KernelInfo k = simt::tiled_info(kId, {128, 128, 8}, 256);
  simt::declare_tile_params(
      k,
      {simt::tile_param("bm", "rows of C a CTA computes (the article's BM)", 128, {32, 64, 128, 256}),
       simt::tile_param("bn", "columns of C a CTA computes (BN)", 128, {32, 64, 128, 256}),
       simt::tile_param("bk", "K elements of each shared-memory chunk (BK; a multiple of 4: A is read 4 floats at a "
                              "time)",
                        8, {4, 8, 16, 32, 64, 128}),
       simt::tile_param("tm", "rows of each thread's block of C (TM; regM is read 4 at a time)", 8, {4, 8, 16}),
       simt::tile_param("tn", "columns of each thread's block of C (TN; regN and C's stores go 4 at a time)", 8,
                        {4, 8, 16})},
      check_tiles, "bm·bn/(tm·tn)");
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
