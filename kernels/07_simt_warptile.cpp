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
//
// The tiles as build parameters, the article's names in lower case: bm, bn, bk, wm, wn, wniter,
// tm and tn (`--param wn=32`; the numbers above are the defaults). A CTA has (bm/wm)·(bn/wn)
// warps; a warp's tile is wmiter × wniter sub-tiles of (32/lanes_n·tm) × (lanes_n·tn), lanes_n =
// wn/wniter/tn lanes along a row, wmiter = wm·wn/(32·tm·tn·wniter) (1 as it ships). check_tiles
// says which combinations build and why the others do not.
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

// The tiles of a build: the CTA's bm × bn tile of C in chunks of bk; a warp's wm × wn tile in
// wmiter × wniter sub-tiles; a lane's tm × tn results in each.
struct Tiles {
  uint32_t bm, bn, bk, wm, wn, wniter, tm, tn;
  explicit Tiles(const ParamValues& p)
      : bm(p.at("bm")), bn(p.at("bn")), bk(p.at("bk")), wm(p.at("wm")), wn(p.at("wn")), wniter(p.at("wniter")),
        tm(p.at("tm")), tn(p.at("tn")) {}
  uint32_t warps() const { return (bm / wm) * (bn / wn); }
  uint32_t threads() const { return 32 * warps(); }
  uint32_t wsub_n() const { return wn / wniter; }     // columns of a sub-tile: 16 as it ships
  uint32_t lanes_n() const { return wsub_n() / tn; }  // lanes along a sub-tile's row: 4
  uint32_t wsub_m() const { return 32 / lanes_n() * tm; }  // rows of a sub-tile: 64
  uint32_t wmiter() const { return wm / wsub_m(); }       // sub-tiles along M: 1
};

std::optional<std::string> check_tiles(const ParamValues& p) {
  const Tiles t(p);
  if (t.wm > t.bm || t.wn > t.bn)
    return fmt::format("the wm × wn = {} × {} warp tile does not fit the bm × bn = {} × {} CTA tile", t.wm, t.wn, t.bm, t.bn);
  if (auto why = simt::threads_problem(t.threads(), fmt::format("32·(bm/wm)·(bn/wn) = 32·({}/{})·({}/{})", t.bm, t.wm, t.bn, t.wn)))
    return why;
  if (t.wniter * t.tn > t.wn)
    return fmt::format("wniter·tn = {}·{} is more than wn={}: each of the wniter sub-tiles needs at least one lane's tn "
                       "columns",
                       t.wniter, t.tn, t.wn);
  if (t.lanes_n() > 32)
    return fmt::format("wn/wniter/tn = {}/{}/{} = {} lanes along a sub-tile's row, more than a warp's 32: make wniter or "
                       "tn larger",
                       t.wn, t.wniter, t.tn, t.lanes_n());
  if (t.wm % t.wsub_m() != 0)
    return fmt::format("a sub-tile has 32/(wn/wniter/tn)·tm = {} rows, which does not divide wm={}: wm·wn must be a "
                       "multiple of 32·tm·tn·wniter = {}",
                       t.wsub_m(), t.wm, 32 * t.tm * t.tn * t.wniter);
  if (auto why = simt::copy_problem('A', "bm", t.bm, "bk", t.bk, 4, t.threads())) return why;
  if (auto why = simt::copy_problem('B', "bk", t.bk, "bn", t.bn, 4, t.threads())) return why;
  if (auto why = simt::smem_problem((t.bm + t.bn) * t.bk * 4, fmt::format("(bm + bn)·bk·4 B = ({} + {})·{}·4 B", t.bm, t.bn, t.bk)))
    return why;
  return simt::registers_problem(
      t.wm * t.wn / 32 + t.tm * t.wmiter() + t.tn * t.wniter,
      fmt::format("wm·wn/32 results + tm·wmiter of regM + tn·wniter of regN = {}·{}/32 + {}·{} + {}·{}", t.wm, t.wn, t.tm,
                  t.wmiter(), t.tn, t.wniter),
      t.threads());
}

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
  const Tiles t(cfg.params);
  const uint32_t threads = t.threads();
  const uint32_t rows_a = threads * 4 / t.bk;  // rows of A one round copies: 32 as it ships
  const uint32_t rows_b = threads * 4 / t.bn;  // rows of B one round copies: 4
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {N / t.bn, M / t.bm, 1}, .block = {threads, 1, 1}});
  const simt::CtaStart s = simt::cta_start(b, t.bm, t.bn);
  const simt::Chunks sm = simt::chunk_buffers(b, t.bm * t.bk * 4, t.bk * t.bn * 4);

  // The copy: round i reads A[m0 + t/(bk/4) + rows_a·i][4(t%(bk/4))..] and
  // B[t/(bn/4) + rows_b·i][n0 + 4(t%(bn/4))..]; as it ships A[m0 + t/4 + 32i][4(t%4)..] and
  // B[t/32 + 4i][n0 + 4(t%32)..].
  Reg a_row = (s.tid >> simt::log2_exact(t.bk / 4)).named("a_row");
  Reg a_col = ((s.tid & (t.bk / 4 - 1)) << 2).named("a_col");
  Reg a_ptr = simt::element_ptr(b, s.A, s.m0 + a_row, K, a_col, "a_ptr");
  Reg b_ptr = simt::element_ptr(b, s.B, s.tid >> simt::log2_exact(t.bn / 4), N, s.n0 + ((s.tid & (t.bn / 4 - 1)) << 2),
                                "b_ptr");
  // Transposed: &As[a_col][a_row] (k-major); else &As[a_row][a_col] (as in A).
  Reg as_store = (sm.as + (transpose ? (a_col * t.bm + a_row) << 2 : s.tid << 4)).named("as_st");
  Reg bs_store = (sm.bs + (s.tid << 4)).named("bs_st");

  // The warp tile: warp w covers rows wm·(w/(bn/wn)).., columns wn·(w%(bn/wn)).. (as it ships
  // 64(w/2).., 64(w%2)..); lane l is thread row l/lanes_n and thread column l%lanes_n of every
  // wsub_m × wsub_n sub-tile (l/4 and l%4 of every 64×16 one).
  Reg warp = (s.tid >> 5).named("warp");
  Reg lane = (s.tid & 31).named("lane");
  const uint32_t warps_n = t.bn / t.wn;
  Reg m_in = ((warp >> simt::log2_exact(warps_n)) * t.wm + (lane >> simt::log2_exact(t.lanes_n())) * t.tm)
                 .named("m_in_tile");  // first of its tm rows, sub-tile 0
  Reg n_in = ((warp & (warps_n - 1)) * t.wn + (lane & (t.lanes_n() - 1)) * t.tn).named("n_in_tile");  // first column
  Reg as_rows = (sm.as + (transpose ? m_in << 2 : m_in * (t.bk * 4))).named("as_rows");
  Reg bs_cols = (sm.bs + (n_in << 2)).named("bs_cols");
  // Sub-tile (i, j)'s tm × tn results: res[(wniter·i + j)·tm·tn + tn·r + c].
  std::vector<Reg> res = simt::zero_accumulators(b, t.tm * t.tn * t.wmiter() * t.wniter);
  const auto slice = [](const std::vector<Reg>& v, uint32_t w, uint32_t size) {
    return std::vector<Reg>(v.begin() + w * size, v.begin() + (w + 1) * size);
  };

  const auto copy = [&] {
    for (uint32_t i = 0; i < t.bm / rows_a; ++i) {
      std::vector<Reg> a = load4(b, ir::Op::ld_global, Addr::at(a_ptr, int64_t(i) * rows_a * K * 4), scalar, "a");
      if (transpose) {
        for (uint32_t j = 0; j < 4; ++j) b.st_shared(Type::f32, Addr::at(as_store, (j * t.bm + i * rows_a) * 4), {a[j]});
      } else {
        store4(b, ir::Op::st_shared, Addr::at(as_store, i * rows_a * t.bk * 4), a, scalar);
      }
    }
    for (uint32_t i = 0; i < t.bk / rows_b; ++i) {
      std::vector<Reg> bv = load4(b, ir::Op::ld_global, Addr::at(b_ptr, int64_t(i) * rows_b * N * 4), scalar, "b");
      store4(b, ir::Op::st_shared, Addr::at(bs_store, i * rows_b * t.bn * 4), bv, scalar);
    }
  };
  const auto compute = [&] {
    for (uint32_t d = 0; d < t.bk; ++d) {
      std::vector<Reg> reg_m, reg_n;
      for (uint32_t i = 0; i < t.wmiter(); ++i) {
        if (transpose) {
          for (uint32_t h = 0; h < t.tm / 4; ++h)
            for (const Reg& x :
                 load4(b, ir::Op::ld_shared, Addr::at(as_rows, (d * t.bm + i * t.wsub_m() + 4 * h) * 4), scalar, "m"))
              reg_m.push_back(x);
        } else {
          for (uint32_t r = 0; r < t.tm; ++r)
            reg_m.push_back(b.ld_shared(Type::f32, Addr::at(as_rows, ((i * t.wsub_m() + r) * t.bk + d) * 4), "m"));
        }
      }
      for (uint32_t j = 0; j < t.wniter; ++j)
        for (uint32_t h = 0; h < t.tn / 4; ++h)
          for (const Reg& x :
               load4(b, ir::Op::ld_shared, Addr::at(bs_cols, (d * t.bn + j * t.wsub_n() + 4 * h) * 4), scalar, "n"))
            reg_n.push_back(x);
      for (uint32_t i = 0; i < t.wmiter(); ++i)
        for (uint32_t j = 0; j < t.wniter; ++j) {
          std::vector<Reg> part = slice(res, i * t.wniter + j, t.tm * t.tn);  // the same registers
          simt::outer_product(b, part, slice(reg_m, i, t.tm), slice(reg_n, j, t.tn));
        }
    }
  };
  simt::chunk_loop(b, K, t.bk, N, a_ptr, b_ptr, copy, compute);
  b.role(ir::WarpRole::epilogue, [&] {
    for (uint32_t i = 0; i < t.wmiter(); ++i)
      for (uint32_t j = 0; j < t.wniter; ++j) {
        // The column first, then the row, the order the rung has always recorded them in; sub-tile
        // 0 along M starts at the lane's first row (no offset to add).
        Reg col = s.n0 + n_in + j * t.wsub_n();
        Reg row = i == 0 ? s.m0 + m_in : s.m0 + m_in + i * t.wsub_m();
        Reg c_ptr = simt::element_ptr(b, s.C, row, N, col, fmt::format("c_ptr{}", i * t.wniter + j));
        simt::store_results(b, c_ptr, N, t.tm, t.tn, slice(res, i * t.wniter + j, t.tm * t.tn), scalar ? 1 : 4);
      }
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo simt_warptile_info() {
  KernelInfo k = simt::tiled_info(kId, {128, 128, 16}, 128);
  simt::declare_tile_params(
      k,
      {simt::tile_param("bm", "rows of C a CTA computes (the article's BM)", 128, {64, 128, 256}),
       simt::tile_param("bn", "columns of C a CTA computes (BN)", 128, {64, 128, 256}),
       simt::tile_param("bk", "K elements of each shared-memory chunk (BK; a multiple of 4: A is read 4 floats at a "
                              "time)",
                        16, {8, 16, 32, 64, 128}),
       simt::tile_param("wm", "rows of C a warp computes (WM)", 64, {32, 64, 128}),
       simt::tile_param("wn", "columns of C a warp computes (WN)", 64, {32, 64, 128}),
       simt::tile_param("wniter", "sub-tiles a warp sweeps along N (WNITER; WMITER follows from the others)", 4,
                        {1, 2, 4, 8}),
       simt::tile_param("tm", "rows of each lane's results in a sub-tile (TM; regM is read 4 at a time)", 8, {4, 8, 16}),
       simt::tile_param("tn", "columns of each lane's results in a sub-tile (TN; regN and C's stores go 4 at a time)", 4,
                        {4, 8})},
      check_tiles, "32·(bm/wm)·(bn/wn)");
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
