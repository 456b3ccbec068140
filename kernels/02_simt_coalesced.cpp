// Step 02 — coalesced global access: which thread gets which element of C.
//
// What it teaches: a warp's 32 loads become one request to the memory system, served in
// 32-byte sectors. When the 32 lanes read 32 consecutive floats (128 bytes: 4 sectors) the
// request is "coalesced"; when they read 32 floats a row apart, each lane needs a sector of its
// own and 7/8 of every sector fetched is thrown away. The article's coalescing kernel maps
// row = blockIdx.x·32 + threadIdx.x/32, col = blockIdx.y·32 + threadIdx.x%32, so the lanes of
// a warp share a row of C: they read consecutive columns of B and write consecutive elements
// of C, and all read the same element of A (a broadcast: one sector).
//
// The mistake `swap-row-col` is the article's "seemingly harmless tweak": % and / swapped, so
// the lanes of a warp share a column instead. Every load of A and every store of C is then 32
// sectors instead of 1 or 4 (the model's global-access record shows them), and on the
// article's H100 the kernel ran 13× slower.
//
// What changed from step 01: the mapping is the lesson here, and the mistake shows the other
// one. Step 01 already uses the article's coalesced mapping, so this step is no faster than
// it: the gain is against the swapped mapping, not against step 01.
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

constexpr std::string_view kId = "simt_coalesced";
constexpr uint32_t kBlock = 32;  // a CTA of 32×32 threads covers a 32×32 patch of C

ir::Kernel build_simt_coalesced(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {(M + kBlock - 1) / kBlock, (N + kBlock - 1) / kBlock, 1}, .block = {kBlock * kBlock, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pb = b.param("B", ir::ParamKind::global_ptr, ir::ParamRole::b);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  // The one line this step is about: which of the two indices varies fastest across a warp.
  const bool swapped = cfg.has("swap-row-col");
  Reg in_row = swapped ? (tid & (kBlock - 1)) : (tid >> 5);
  Reg in_col = swapped ? (tid >> 5) : (tid & (kBlock - 1));
  b.comment(swapped ? "row = cta.x*32 + tid%32, col = cta.y*32 + tid/32: lanes share a column (uncoalesced)"
                    : "row = cta.x*32 + tid/32, col = cta.y*32 + tid%32: lanes share a row (coalesced)");
  Reg row = (b.special(ir::Special::ctaid_x, "cta_x") * kBlock + in_row).named("row");
  Reg col = (b.special(ir::Special::ctaid_y, "cta_y") * kBlock + in_col).named("col");

  auto done = b.label("L_done");
  Reg inside = b.alu(ir::Op::and_, Type::pred, {row < M, col < N}, "inside");
  b.bra_if(inside, done, /*negated=*/true);

  Reg zero = b.mov(Type::u32, 0, "zero");
  Reg a_ptr = simt::element_ptr(b, b.global_ptr(pa, "A_ptr"), row, K, zero, "a_ptr");  // &A[row][0]
  Reg b_ptr = simt::element_ptr(b, b.global_ptr(pb, "B_ptr"), zero, N, col, "b_ptr");  // &B[0][col]
  Reg acc = b.mov(Type::f32, 0.0, "acc");
  b.role(ir::WarpRole::simt, [&] {
    b.k_loop("k", K, [&](const Reg&) {
      Reg a = b.ld_global(Type::f32, Addr::at(a_ptr), "a");
      Reg bv = b.ld_global(Type::f32, Addr::at(b_ptr), "b");
      b.fma_into(acc, a, bv, acc);
      a_ptr += 4;      // A[row][k+1]
      b_ptr += N * 4;  // B[k+1][col]
    });
  });
  b.role(ir::WarpRole::epilogue, [&] {
    Reg c_ptr = simt::element_ptr(b, b.global_ptr(pc, "C_ptr"), row, N, col, "c_ptr");
    b.st_global(Type::f32, Addr::at(c_ptr), {acc});
  });
  b.bind(done);
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo simt_coalesced_info() {
  KernelInfo k = simt::tiled_info(kId, {kBlock, kBlock, 1}, kBlock * kBlock);
  k.title = "Coalesced SIMT: a warp reads consecutive columns";
  k.delta = "the thread-to-element mapping made the lesson: a warp shares a row of C (the mistake swaps it)";
  k.explanation =
      "The same dot products as step 01, with the mapping as the point: thread t of a 32x32 block "
      "computes row t/32, column t%32 of its patch of C, so the 32 lanes of a warp read 32 "
      "consecutive floats of B (one 128-byte request, 4 sectors), the same float of A (a broadcast, "
      "1 sector) and write 32 consecutive floats of C. Switch on swap-row-col to see the article's "
      "13x slowdown: the lanes then share a column, and every load of A and store of C costs 32 "
      "sectors. Step 01 already used the coalesced mapping, so this step runs at the same speed: it "
      "is still memory-bound, because nothing is reused through shared memory yet.";
  k.example_shape = {64, 64, 32};
  // Edges are guarded, as in step 01: any shape works.
  k.constraints = {"M, N and K in 1..65536 (edges are guarded: any size works)"};
  k.check_shape = [](const GemmShape& s, const GemmShape&) {
    require_range(kId, 'M', s.m, 1, 65536);
    require_range(kId, 'N', s.n, 1, 65536);
    require_range(kId, 'K', s.k, 1, 65536);
  };
  // row = ctaid.x·32 + ..., col = ctaid.y·32 + ...: grid x runs over M here (the article's).
  k.cta_tile = [](const GemmShape& s, const GemmShape& tile, const std::array<uint32_t, 3>& cta) {
    return tile_of_block(s, tile, cta[0], cta[1]);
  };
  k.mistakes = {{"swap-row-col", "row and column of C swapped in the thread mapping (the article's % and / swapped)",
                 "still correct, but a warp's loads of A and stores of C touch 32 sectors instead of 1 or 4: the "
                 "global-access record shows them, and the GPU runs many times slower"}};
  // Where this step's lesson shows: the same loads coalesced, and the one-line change that did it.
  k.focus_views = {"coalescing", "diff", "throughput"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_global_load}, {StopKind::first_c_store}, {StopKind::uncoalesced, "swap-row-col"}};
  k.pictures = {"coalescing"};
  k.build = build_simt_coalesced;
  return k;
}

}  // namespace gs::kernels
