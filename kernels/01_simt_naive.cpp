// Step 01 — naive SIMT GEMM: one thread per element of C, fp32, no shared memory.
//
// What it teaches: the SIMT model itself. Each thread computes one dot product of a row of A
// and a column of B straight from global memory, so every element of A and B is loaded M or N
// times and the kernel is bound by memory traffic long before the FP32 units are busy. The
// article's first kernel ("Inside NVIDIA GPUs", naive_kernel): 32×32 threads per block,
// row = blockIdx.x·32 + threadIdx.x/32, col = blockIdx.y·32 + threadIdx.x%32, B row-major K×N.
// Consecutive threads of a warp read consecutive columns of B and write consecutive elements
// of C (coalesced), while all 32 lanes read the same element of A (a broadcast).
//
// What changed: nothing — this is the bottom of the ladder.
#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;

namespace {

// The step's id: its file's name (the registry checks it).
constexpr std::string_view kId = "simt_naive";

constexpr uint32_t kTile = 32;  // the block covers a 32×32 patch of C

ir::Kernel build_simt_naive(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {(M + kTile - 1) / kTile, (N + kTile - 1) / kTile, 1}, .block = {kTile * kTile, 1, 1}});

  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pb = b.param("B", ir::ParamKind::global_ptr, ir::ParamRole::b);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg row = (b.special(ir::Special::ctaid_x, "cta_x") * kTile + (tid >> 5)).named("row");
  Reg col = (b.special(ir::Special::ctaid_y, "cta_y") * kTile + (tid & 31)).named("col");

  // Threads past the edge of C do nothing (the guard of the article's kernel).
  auto done = b.label("L_done");
  b.comment("guard: row < M && col < N");
  Reg inside = b.alu(ir::Op::and_, Type::pred, {row < M, col < N}, "inside");
  b.bra_if(inside, done, /*negated=*/true);

  Reg A = b.global_ptr(pa, "A_ptr");
  Reg B = b.global_ptr(pb, "B_ptr");
  Reg C = b.global_ptr(pc, "C_ptr");
  Reg a_ptr = b.reg(Type::u64, "a_ptr");  // &A[row][i]
  Reg b_ptr = b.reg(Type::u64, "b_ptr");  // &B[i][col]
  b.alu_into(ir::Op::add, a_ptr, {A, b.mul_wide(row, K * 4, "a_row_off")});
  b.alu_into(ir::Op::add, b_ptr, {B, b.mul_wide(col, 4u, "b_col_off")});
  Reg acc = b.mov(Type::f32, 0.0, "acc");

  // Every thread inside C runs the same dot product: the warps' role is plain SIMT work.
  b.role(ir::WarpRole::simt, [&] {
    b.k_loop("i", K, [&](const Reg&) {
      Reg a = b.ld_global(Type::f32, Addr::at(a_ptr), "a");
      Reg bv = b.ld_global(Type::f32, Addr::at(b_ptr), "b");
      b.comment("acc += a * b");
      b.fma_into(acc, a, bv, acc);
      a_ptr += 4;      // next column of A
      b_ptr += N * 4;  // next row of B
    });
  });

  b.role(ir::WarpRole::epilogue, [&] {
    Reg c_off = b.mul_wide(row, N * 4, "c_row_off");
    Reg c_ptr = (C + c_off + b.mul_wide(col, 4u, "c_col_off")).named("c_ptr");
    b.st_global(Type::f32, Addr::at(c_ptr), {acc});
  });
  b.bind(done);
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo simt_naive_info() {
  KernelInfo k;
  k.id = kId;
  k.title = "Naive SIMT: one thread per element of C";
  k.arch = ir::Arch::sm_80;
  k.family = Family::simt;
  k.delta = "the starting point: fp32 dot products straight from global memory";
  k.explanation =
      "Every thread computes one element of C as a dot product of a row of A and a column of B, "
      "reading both from global memory. A block of 32x32 threads covers a 32x32 patch of C. "
      "Neighbouring threads read neighbouring columns of B (coalesced) and the same element of A "
      "(broadcast), but nothing is reused through shared memory, so each input element is fetched "
      "from memory up to M or N times: the kernel is memory-bound at a few percent of the GPU's peak.";
  k.tile = {kTile, kTile, 1};
  k.example_shape = {128, 128, 64};
  k.ab_dtype = DType::f32;
  k.c_dtype = DType::f32;
  k.b_layout = BLayout::kn;
  k.constraints = {"M, N and K in 1..65536 (edges are guarded: any size works)"};
  k.check_shape = [](const GemmShape& s, const GemmShape&) {
    require_range(kId, 'M', s.m, 1, 65536);
    require_range(kId, 'N', s.n, 1, 65536);
    require_range(kId, 'K', s.k, 1, 65536);
  };
  // row = ctaid.x·32 + ..., col = ctaid.y·32 + ... (the article's mapping, above).
  k.cta_tile = [](const GemmShape& s, const GemmShape& tile, const std::array<uint32_t, 3>& cta) {
    return tile_of_block(s, tile, cta[0], cta[1]);
  };
  // Where this step's lesson shows: a warp's loads as sectors: the lesson of steps 01-02.
  k.focus_views = {"gpu", "memory", "coalescing"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_global_load}, {StopKind::first_c_store}};
  k.pictures = {"coalescing"};
  k.build = build_simt_naive;
  return k;
}

}  // namespace gs::kernels
