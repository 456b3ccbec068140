// Step 08 — Ampere tensor cores: mma.sync.m16n8k16 with its fragments straight from global memory.
//
// What it teaches: the warp-level tensor-core instruction and its fragment layout (facts §2),
// with nothing else in the way. A warp owns a set of four 16×8 tiles of C side by side (a
// 16×32 strip) and walks K 16 at a time: each lane loads the four b32 words of its A
// fragment (rows g and g+8, columns 2q and 2q+8 of the 16×16 slice of A; g = lane/4,
// q = lane%4) and, per 16×8 tile, the two words of its B fragment (row n = g of B stored
// N×K, k 2q and 2q+8), and one mma.sync per tile adds A·B into four f32 accumulators. The
// A fragment is shared by the four tiles. Four warps stack their strips: the CTA covers 64×32.
//
// What changed from the SIMT steps: bf16 inputs, f32 accumulators, and the tensor cores
// doing 16·8·16 multiply-adds per instruction for the whole warp. What it costs: every
// fragment comes from global memory as scattered 4-byte loads (the 8 rows a warp reads sit K
// elements apart), nothing is reused through shared memory, so the kernel waits on memory
// like the naive SIMT step did. Step 09 stages the tiles through shared memory.
#include "engine/builder/builder.hpp"
#include "kernels/ampere_mma.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;

namespace {

// The step's id: its file's name (the registry checks it).
constexpr std::string_view kId = "ampere_mma_global";

constexpr uint32_t kWarps = 4;
constexpr uint32_t kNF = 4;                            // 16×8 tiles per warp, side by side
constexpr uint32_t kBM = 16 * kWarps, kBN = 8 * kNF;  // the CTA's 64×32 patch of C
constexpr uint32_t kBK = 16;

ir::Kernel build_ampere_mma_global(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {N / kBN, M / kBM, 1}, .block = {32 * kWarps, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pb = b.param("B", ir::ParamKind::global_ptr, ir::ParamRole::b);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg warp = (tid >> 5).named("warp");
  Reg lane = (tid & 31).named("lane");
  Reg g = (lane >> 2).named("g");  // the fragment's row group
  Reg q = (lane & 3).named("q");   // the lane's pair of columns (k for A and B)
  Reg m0 = (b.special(ir::Special::ctaid_y, "cta_y") * kBM + (warp << 4)).named("m0");  // the warp's rows
  Reg n0 = (b.special(ir::Special::ctaid_x, "cta_x") * kBN).named("n0");

  Reg A = b.global_ptr(pa, "A_ptr");
  Reg B = b.global_ptr(pb, "B_ptr");
  Reg C = b.global_ptr(pc, "C_ptr");
  // &A[m0 + g][2q] and &B[n0 + g][2q]: bf16, rows K elements long.
  Reg a_ptr = (A + b.mul_wide(m0 + g, K * 2, "a_row") + b.mul_wide(q, 4u, "a_col")).named("a_ptr");
  Reg b_ptr = (B + b.mul_wide(n0 + g, K * 2, "b_row") + b.mul_wide(q, 4u, "b_col")).named("b_ptr");
  std::vector<Reg> acc = ampere::zero_accumulators(b, 1, kNF);

  b.role(ir::WarpRole::simt, [&] {
    b.k_loop("k", K / kBK, [&](const Reg&) {
      b.comment("A fragment: rows g, g+8 x k 2q, 2q+8 (facts sheet, section 2)");
      const int64_t row8 = int64_t(8) * K * 2;  // 8 rows further down
      std::vector<Reg> fa = {b.ld_global(Type::b32, Addr::at(a_ptr, 0), "a0"),
                             b.ld_global(Type::b32, Addr::at(a_ptr, row8), "a1"),
                             b.ld_global(Type::b32, Addr::at(a_ptr, 16), "a2"),
                             b.ld_global(Type::b32, Addr::at(a_ptr, row8 + 16), "a3")};
      std::vector<std::vector<Reg>> fb;
      for (uint32_t j = 0; j < kNF; ++j) {
        const int64_t tile = int64_t(8 * j) * K * 2;  // tile j's 8 columns of C are rows of B
        fb.push_back({b.ld_global(Type::b32, Addr::at(b_ptr, tile), "b0"),
                      b.ld_global(Type::b32, Addr::at(b_ptr, tile + 16), "b1")});
      }
      ampere::mma_tiles(b, acc, {fa}, fb);
      a_ptr += kBK * 2;
      b_ptr += kBK * 2;
    });
  });

  b.role(ir::WarpRole::epilogue, [&] {
    Reg c_lane = (C + b.mul_wide(m0 + g, N * 4, "c_row") + b.mul_wide(n0 + (q << 1), 4u, "c_col")).named("c_lane");
    ampere::store_accumulators(b, acc, c_lane, 1, kNF, N);
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo ampere_mma_global_info() {
  KernelInfo k;
  k.id = kId;
  k.title = "Ampere mma.sync, fragments straight from global memory";
  k.arch = ir::Arch::sm_80;
  k.family = Family::ampere;
  k.delta = "tensor cores: one mma.sync.m16n8k16 per 16x8 tile, bf16 in, f32 accumulators";
  k.explanation =
      "Each warp computes four 16x8 tiles of C side by side. For every 16-wide slice of K, each lane "
      "loads the four 32-bit words of its A fragment (two bf16 each, rows g and g+8, columns 2q and "
      "2q+8, where g = lane/4 and q = lane%4) and two words of B per tile, straight from global memory, "
      "and the warp issues one mma.sync per tile. The tensor cores do 4096 multiply-adds per "
      "instruction, but every fragment is fetched from memory again by every warp that needs it: "
      "the kernel is limited by memory traffic, as the naive SIMT kernel was.";
  k.tile = {kBM, kBN, kBK};
  k.example_shape = {128, 64, 64};
  k.ab_dtype = DType::bf16;
  k.c_dtype = DType::f32;
  k.b_layout = BLayout::nk;
  k.constraints = {"M a multiple of 64 (four warps of 16 rows), at most 65536",
                   "N a multiple of 32 (four 16x8 tiles per warp), at most 65536",
                   "K a multiple of 16 (one mma.sync k-step), at most 65536"};
  k.check_shape = [](const GemmShape& s, const GemmShape& tile) { require_tiles(kId, s, tile); };
  // m0 = ctaid.y·64, n0 = ctaid.x·32 (above).
  k.cta_tile = [](const GemmShape& s, const GemmShape& tile, const std::array<uint32_t, 3>& cta) {
    return tile_of_block(s, tile, cta[1], cta[0]);
  };
  // Where this step's lesson shows: mma.sync's fragment layout.
  k.focus_views = {"fragments", "coalescing", "ptx"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_global_load}, {StopKind::first_mma_sync}, {StopKind::first_c_store}};
  k.pictures = {"mma-a", "mma-b", "mma-c"};
  k.build = build_ampere_mma_global;
  return k;
}

}  // namespace gs::kernels
