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
//
// The tile as build parameters: bm, bn, bk and tm (`--param bm=128`; the numbers above are the
// defaults). A CTA has bm·bn/tm threads; a round of the copy moves threads/bk rows of As and
// threads/bn = bm/tm rows of Bs, and the chunk must be whole rounds of both (check_tiles says
// which combinations build and why the others do not).
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

// The tile of a build: the CTA's bm × bn tile of C in chunks of bk, tm results per thread.
struct Tile {
  uint32_t bm, bn, bk, tm;
  explicit Tile(const ParamValues& p) : bm(p.at("bm")), bn(p.at("bn")), bk(p.at("bk")), tm(p.at("tm")) {}
  uint32_t threads() const { return bm * bn / tm; }
};

std::optional<std::string> check_tiles(const ParamValues& p) {
  const Tile t(p);
  if (t.tm > t.bm) return fmt::format("tm={} is more than bm={}: a thread's results lie in one column of the tile", t.tm, t.bm);
  if (auto why = simt::threads_problem(t.threads(), fmt::format("bm·bn/tm = {}·{}/{}", t.bm, t.bn, t.tm))) return why;
  if (auto why = simt::copy_problem('A', "bm", t.bm, "bk", t.bk, 1, t.threads())) return why;
  if (auto why = simt::copy_problem('B', "bk", t.bk, "bn", t.bn, 1, t.threads())) return why;
  if (auto why = simt::smem_problem((t.bm + t.bn) * t.bk * 4, fmt::format("(bm + bn)·bk·4 B = ({} + {})·{}·4 B", t.bm, t.bn, t.bk)))
    return why;
  return simt::registers_problem(t.tm + t.tm + 1, fmt::format("tm results + tm values of As + 1 of Bs = {} + {} + 1", t.tm, t.tm),
                                 t.threads());
}

ir::Kernel build_simt_blocktile_1d(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const Tile t(cfg.params);
  const uint32_t threads = t.threads();
  const uint32_t rows_a = threads / t.bk, rows_b = threads / t.bn;  // rows of As, Bs one round copies
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {N / t.bn, M / t.bm, 1}, .block = {threads, 1, 1}});
  const simt::CtaStart s = simt::cta_start(b, t.bm, t.bn);
  const simt::Chunks sm = simt::chunk_buffers(b, t.bm * t.bk * 4, t.bk * t.bn * 4);

  // The copy: As[t/bk][t%bk] from A, Bs[t/bn][t%bn] from B; both land at slot t of their
  // chunk, and each round after the first rows_a (rows_b) rows further on.
  Reg a_ptr = simt::element_ptr(b, s.A, s.m0 + (s.tid >> simt::log2_exact(t.bk)), K, s.tid & (t.bk - 1), "a_ptr");
  Reg b_ptr = simt::element_ptr(b, s.B, s.tid >> simt::log2_exact(t.bn), N, s.n0 + (s.tid & (t.bn - 1)), "b_ptr");
  Reg slot = (s.tid << 2).named("slot");
  Reg as_store = (sm.as + slot).named("as_st");
  Reg bs_store = (sm.bs + slot).named("bs_st");
  // The compute: thread (r, c) owns C rows tm·r..tm·r+tm-1 of column c.
  Reg r = (s.tid >> simt::log2_exact(t.bn)).named("thread_row");
  Reg c = (s.tid & (t.bn - 1)).named("thread_col");
  Reg as_rows = (sm.as + r * (t.tm * t.bk * 4)).named("as_rows");  // &As[tm·r][0]
  Reg bs_col = (sm.bs + (c << 2)).named("bs_col");                   // &Bs[0][c]
  std::vector<Reg> res = simt::zero_accumulators(b, t.tm);

  const auto copy = [&] {
    std::vector<Reg> a, bv;
    for (uint32_t i = 0; i < t.bm / rows_a; ++i)
      a.push_back(b.ld_global(Type::f32, Addr::at(a_ptr, int64_t(i) * rows_a * K * 4), "a"));
    for (uint32_t i = 0; i < t.bk / rows_b; ++i)
      bv.push_back(b.ld_global(Type::f32, Addr::at(b_ptr, int64_t(i) * rows_b * N * 4), "b"));
    for (uint32_t i = 0; i < a.size(); ++i) b.st_shared(Type::f32, Addr::at(as_store, i * threads * 4), {a[i]});
    for (uint32_t i = 0; i < bv.size(); ++i) b.st_shared(Type::f32, Addr::at(bs_store, i * threads * 4), {bv[i]});
  };
  const auto compute = [&] {
    for (uint32_t d = 0; d < t.bk; ++d) {
      b.comment(fmt::format("one value of Bs, reused for {} rows", t.tm));
      Reg y = b.ld_shared(Type::f32, Addr::at(bs_col, d * t.bn * 4), fmt::format("b{}", d));
      for (uint32_t i = 0; i < t.tm; ++i) {
        Reg x = b.ld_shared(Type::f32, Addr::at(as_rows, (i * t.bk + d) * 4), fmt::format("a{}_{}", d, i));
        b.fma_into(res[i], x, y, res[i]);
      }
    }
  };
  simt::chunk_loop(b, K, t.bk, N, a_ptr, b_ptr, copy, compute);
  b.role(ir::WarpRole::epilogue, [&] {
    Reg c_ptr = simt::element_ptr(b, s.C, s.m0 + r * t.tm, N, s.n0 + c, "c_ptr");
    simt::store_results(b, c_ptr, N, t.tm, 1, res, 1);
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo simt_blocktile_1d_info() {
  KernelInfo k = simt::tiled_info(kId, {64, 64, 8}, 512);
  simt::declare_tile_params(
      k,
      {simt::tile_param("bm", "rows of C a CTA computes (the article's BM)", 64, {32, 64, 128, 256}),
       simt::tile_param("bn", "columns of C a CTA computes (BN)", 64, {32, 64, 128, 256}),
       simt::tile_param("bk", "K elements of each shared-memory chunk (BK)", 8, {4, 8, 16, 32, 64, 128}),
       simt::tile_param("tm", "rows of C each thread computes, in one column (TM)", 8, {4, 8, 16, 32})},
      check_tiles, "bm·bn/tm");
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
