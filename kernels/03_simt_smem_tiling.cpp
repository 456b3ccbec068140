// Step 03 — shared-memory tiling: chunks of A and B are loaded once and reused 32 times.
//
// What it teaches: the K loop becomes a loop over 32-wide chunks. Each of the 1024 threads
// copies one float of A's 32×32 chunk and one of B's into shared memory (coalesced), the CTA
// waits at bar.sync until the whole chunk is there, every thread runs 32 FMAs out of shared
// memory, and a second bar.sync keeps anyone from overwriting the chunk while a slower warp
// still reads it. Global traffic drops 32-fold; shared memory now carries the reuse.
// The article's kernel 3 (Simon Boehm's "shared memory cache-blocking").
//
// The shared reads: warp w reads row w of As (one word per instruction for all lanes: a
// broadcast) and row d of Bs (32 consecutive words: all 32 banks once). No bank conflicts.
//
// The mistake `no-sync-after-load` leaves out the bar.sync between the loads and the compute:
// a warp then reads Bs rows that other warps have not written yet (or wrote for the previous
// chunk). The model names it: a shared-race (read of a word another warp wrote with no barrier
// in between) or uninitialized-shared; on the GPU the result depends on timing.
//
// What changed from step 02: the K loop goes through shared memory in 32×32 chunks; the CTA's
// patch is addressed as the later steps do it (grid x over N, y over M), without edge guards.
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

constexpr std::string_view kId = "simt_smem_tiling";
constexpr uint32_t kBS = 32;  // BM = BN = BK = 32: a 32×32 chunk of A and of B per step
constexpr uint32_t kThreads = kBS * kBS;

ir::Kernel build_simt_smem_tiling(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {N / kBS, M / kBS, 1}, .block = {kThreads, 1, 1}});
  const simt::CtaStart s = simt::cta_start(b, kBS, kBS);
  const simt::Chunks sm = simt::chunk_buffers(b, kBS * kBS * 4, kBS * kBS * 4);

  Reg row = (s.tid >> 5).named("row");  // within the chunk
  Reg col = (s.tid & 31).named("col");
  // Thread (row, col) copies A[m0+row][k0+col] and B[k0+row][n0+col].
  Reg a_ptr = simt::element_ptr(b, s.A, s.m0 + row, K, col, "a_ptr");
  Reg b_ptr = simt::element_ptr(b, s.B, row, N, s.n0 + col, "b_ptr");
  Reg slot = (s.tid << 2).named("slot");          // its float in both chunks (row·32 + col)·4
  Reg as_store = (sm.as + slot).named("as_st");
  Reg bs_store = (sm.bs + slot).named("bs_st");
  Reg as_row = (sm.as + (row << 7)).named("as_row");  // &As[row][0]
  Reg bs_col = (sm.bs + (col << 2)).named("bs_col");  // &Bs[0][col]
  Reg acc = b.mov(Type::f32, 0.0, "acc");

  const auto copy = [&] {
    Reg a = b.ld_global(Type::f32, Addr::at(a_ptr), "a");
    Reg bv = b.ld_global(Type::f32, Addr::at(b_ptr), "b");
    b.st_shared(Type::f32, Addr::at(as_store), {a});
    b.st_shared(Type::f32, Addr::at(bs_store), {bv});
  };
  const auto compute = [&] {
    for (uint32_t d = 0; d < kBS; ++d) {
      Reg x = b.ld_shared(Type::f32, Addr::at(as_row, d * 4), fmt::format("a{}", d));
      Reg y = b.ld_shared(Type::f32, Addr::at(bs_col, d * kBS * 4), fmt::format("b{}", d));
      b.fma_into(acc, x, y, acc);
    }
  };
  simt::chunk_loop(b, K, kBS, N, a_ptr, b_ptr, copy, compute, !cfg.has("no-sync-after-load"));
  b.role(ir::WarpRole::epilogue, [&] {
    Reg c_ptr = simt::element_ptr(b, s.C, s.m0 + row, N, s.n0 + col, "c_ptr");
    b.st_global(Type::f32, Addr::at(c_ptr), {acc});
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo simt_smem_tiling_info() {
  KernelInfo k = simt::tiled_info(kId, {kBS, kBS, kBS}, kThreads);
  k.title = "Shared-memory tiling: 32x32 chunks reused";
  k.delta = "the K loop runs over 32-wide chunks of A and B staged in shared memory, with bar.sync around the compute";
  k.explanation =
      "Each step, the 1024 threads of the CTA copy a 32x32 chunk of A and one of B into shared "
      "memory, one float each, with coalesced loads. bar.sync waits until the chunks are complete; "
      "then each thread does 32 multiply-adds reading A's row and B's column from shared memory, and "
      "a second bar.sync keeps the next copy from overwriting a chunk another warp still reads. Each "
      "float fetched from global memory is now used 32 times, so global traffic falls 32-fold. The "
      "shared reads are conflict-free: a warp reads one word of As (a broadcast) and a full row of Bs "
      "(all 32 banks). Switch on no-sync-after-load to see the model catch the race the first "
      "bar.sync prevents.";
  k.example_shape = {64, 64, 64};
  k.mistakes = {{"no-sync-after-load", "the bar.sync between copying a chunk and computing on it is left out",
                 "warps read Bs words other warps have not written yet: the model reports a shared-race (or "
                 "uninitialized-shared) at the ld.shared, and C is wrong; on the GPU it is timing-dependent"}};
  // Where this step's lesson shows: tiles in shared memory and the barriers around them.
  k.focus_views = {"smem", "timeline", "diff"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_global_load}, {StopKind::first_barrier}, {StopKind::first_shared_load},
              {StopKind::first_c_store}};
  k.pictures = {"banks --pattern column", "smem"};
  k.build = build_simt_smem_tiling;
  return k;
}

}  // namespace gs::kernels
