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
//
// The tile as build parameters: bm, bn, bk, tm and tn (`--param tm=4`; the numbers above are
// the defaults). A CTA has bm·bn/(tm·tn) threads in rows of bn/tn; a round of the copy moves
// threads/bk rows of As and threads/bn rows of Bs (check_tiles says which combinations build
// and why the others do not).
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
  if (auto why = simt::copy_problem('A', "bm", t.bm, "bk", t.bk, 1, t.threads())) return why;
  if (auto why = simt::copy_problem('B', "bk", t.bk, "bn", t.bn, 1, t.threads())) return why;
  if (auto why = simt::smem_problem((t.bm + t.bn) * t.bk * 4, fmt::format("(bm + bn)·bk·4 B = ({} + {})·{}·4 B", t.bm, t.bn, t.bk)))
    return why;
  return simt::registers_problem(
      t.tm * t.tn + t.tm + t.tn,
      fmt::format("tm·tn results + tm of regM + tn of regN = {}·{} + {} + {}", t.tm, t.tn, t.tm, t.tn), t.threads());
}

ir::Kernel build_simt_blocktile_2d(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const Tile t(cfg.params);
  const uint32_t threads = t.threads();
  const uint32_t rows_a = threads / t.bk;  // rows of As one round copies: 32 as it ships
  const uint32_t rows_b = threads / t.bn;  // rows of Bs one round copies: 2
  const uint32_t thread_cols = t.bn / t.tn;  // threads along a row of the tile: 16
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {N / t.bn, M / t.bm, 1}, .block = {threads, 1, 1}});
  const simt::CtaStart s = simt::cta_start(b, t.bm, t.bn);
  const simt::Chunks sm = simt::chunk_buffers(b, t.bm * t.bk * 4, t.bk * t.bn * 4);

  Reg a_ptr = simt::element_ptr(b, s.A, s.m0 + (s.tid >> simt::log2_exact(t.bk)), K, s.tid & (t.bk - 1), "a_ptr");
  Reg b_ptr = simt::element_ptr(b, s.B, s.tid >> simt::log2_exact(t.bn), N, s.n0 + (s.tid & (t.bn - 1)), "b_ptr");
  Reg slot = (s.tid << 2).named("slot");
  Reg as_store = (sm.as + slot).named("as_st");
  Reg bs_store = (sm.bs + slot).named("bs_st");
  Reg r = (s.tid >> simt::log2_exact(thread_cols)).named("thread_row");
  Reg c = (s.tid & (thread_cols - 1)).named("thread_col");
  Reg as_rows = (sm.as + r * (t.tm * t.bk * 4)).named("as_rows");  // &As[tm·r][0]
  Reg bs_cols = (sm.bs + c * (t.tn * 4)).named("bs_cols");          // &Bs[0][tn·c]
  std::vector<Reg> res = simt::zero_accumulators(b, t.tm * t.tn);

  const auto copy = [&] {
    for (uint32_t i = 0; i < t.bm / rows_a; ++i) {
      Reg a = b.ld_global(Type::f32, Addr::at(a_ptr, int64_t(i) * rows_a * K * 4), fmt::format("a{}", i));
      b.st_shared(Type::f32, Addr::at(as_store, i * rows_a * t.bk * 4), {a});
    }
    for (uint32_t i = 0; i < t.bk / rows_b; ++i) {
      Reg bv = b.ld_global(Type::f32, Addr::at(b_ptr, int64_t(i) * rows_b * N * 4), fmt::format("b{}", i));
      b.st_shared(Type::f32, Addr::at(bs_store, i * rows_b * t.bn * 4), {bv});
    }
  };
  const auto compute = [&] {
    for (uint32_t d = 0; d < t.bk; ++d) {
      b.comment(fmt::format("regM: a column of {} from As; regN: a row of {} from Bs; then their outer product", t.tm,
                            t.tn));
      std::vector<Reg> reg_m, reg_n;
      for (uint32_t i = 0; i < t.tm; ++i)
        reg_m.push_back(b.ld_shared(Type::f32, Addr::at(as_rows, (i * t.bk + d) * 4), fmt::format("m{}", i)));
      for (uint32_t j = 0; j < t.tn; ++j)
        reg_n.push_back(b.ld_shared(Type::f32, Addr::at(bs_cols, (d * t.bn + j) * 4), fmt::format("n{}", j)));
      simt::outer_product(b, res, reg_m, reg_n);
    }
  };
  simt::chunk_loop(b, K, t.bk, N, a_ptr, b_ptr, copy, compute);
  b.role(ir::WarpRole::epilogue, [&] {
    Reg c_ptr = simt::element_ptr(b, s.C, s.m0 + r * t.tm, N, s.n0 + c * t.tn, "c_ptr");
    simt::store_results(b, c_ptr, N, t.tm, t.tn, res, 1);
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo simt_blocktile_2d_info() {
  KernelInfo k = simt::tiled_info(kId, {128, 128, 8}, 256);
  simt::declare_tile_params(
      k,
      {simt::tile_param("bm", "rows of C a CTA computes (the article's BM)", 128, {32, 64, 128, 256}),
       simt::tile_param("bn", "columns of C a CTA computes (BN)", 128, {32, 64, 128, 256}),
       simt::tile_param("bk", "K elements of each shared-memory chunk (BK)", 8, {4, 8, 16, 32, 64, 128}),
       simt::tile_param("tm", "rows of each thread's block of C (TM)", 8, {2, 4, 8, 16}),
       simt::tile_param("tn", "columns of each thread's block of C (TN)", 8, {2, 4, 8, 16})},
      check_tiles, "bm·bn/(tm·tn)");
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
