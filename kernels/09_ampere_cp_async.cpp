// Step 09 — Ampere: a two-stage cp.async ring into shared memory, ld.shared fragments, mma.sync.
//
// What it teaches: pyptx's Ampere pipelined GEMM (seed 002) exactly as written there. A CTA
// of 4 warps computes a 64×64 tile of C, BK = 16:
//   * cp.async.cg: thread t copies 16 bytes (8 bf16) of A and of B per stage, row t/2,
//     columns (t%2)·8, global -> shared without passing through registers;
//   * a two-stage ring primed in a prologue (stages 0 and 1, one commit_group each); each K
//     step waits with cp.async.wait_group(STAGES-1) — one group may stay in flight — and
//     bar.sync, so every warp's copies of this stage have landed;
//   * each warp owns 16 rows: per-thread ld.shared.b32 fragment loads (4 words of A, 2 of B
//     per 16×8 tile) and 8 mma.sync per K step (the warp's 16×64 strip);
//   * bar.sync again before the prefetch of step ki+2 overwrites the stage just read;
//   * the m16n8 epilogue: each lane stores its 8 tiles' accumulators to C.
// In the last STAGES-1 steps no prefetch is issued, so fewer groups are pending and the wait
// must go down to wait_group(0) — the seed's comment explains why.
//
// The seed's two pitfalls are its mistakes: `steady-state-wait-at-tail` (the tail keeps
// wait_group(1), which returns while the last stage is still in flight: the model reports a
// cp-async-read-before-wait) and `no-sync-before-prefetch` (no bar.sync between computing
// and prefetching: a fast warp's cp.async overwrites bytes a slower warp still reads, a
// cp-async-race).
//
// What changed from step 08: A and B tiles are fetched once per CTA with 16-byte copies and
// reused by all four warps, and the copy of the next slice overlaps the math on this one.
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
constexpr std::string_view kId = "ampere_cp_async";

constexpr uint32_t kBM = 64, kBN = 64, kBK = 16;
constexpr uint32_t kWarps = 4, kThreads = 32 * kWarps;
constexpr uint32_t kStages = 2;
constexpr uint32_t kNF = kBN / 8;               // 8 mma.sync tiles per warp per K step
constexpr uint32_t kStageBytes = kBM * kBK * 2;  // 2048 B of A (and of B) per stage
constexpr uint32_t kRowBytes = kBK * 2;          // 32 B: one row of a stage

ir::Kernel build_ampere_cp_async(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const uint32_t iters = K / kBK;
  const bool wait_at_tail = cfg.has("steady-state-wait-at-tail");
  const bool no_sync = cfg.has("no-sync-before-prefetch");
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {N / kBN, M / kBM, 1}, .block = {kThreads, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pb = b.param("B", ir::ParamKind::global_ptr, ir::ParamRole::b);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto sA = b.operand_stages("sA", ir::GemmOperand::a, kStages, kStageBytes, 128);
  auto sB = b.operand_stages("sB", ir::GemmOperand::b, kStages, kStageBytes, 128);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg warp = (tid >> 5).named("warp");
  Reg lane = (tid & 31).named("lane");
  Reg m_base = (b.special(ir::Special::ctaid_y, "cta_y") << 6).named("m_base");
  Reg n_base = (b.special(ir::Special::ctaid_x, "cta_x") << 6).named("n_base");
  Reg A = b.global_ptr(pa, "A_ptr");
  Reg B = b.global_ptr(pb, "B_ptr");
  Reg C = b.global_ptr(pc, "C_ptr");

  // Thread t copies row t/2, columns (t%2)·8 .. +7 of each stage's 64×16 tiles of A and B.
  Reg load_row = (tid >> 1).named("load_row");
  Reg col_start = ((tid & 1) << 3).named("col_start");
  Reg load_smem = ((load_row * kBK + col_start) * 2).named("load_smem_off");
  Reg a_src = (A + b.mul_wide(m_base + load_row, K * 2, "a_row") + b.mul_wide(col_start, 2u, "a_col")).named("a_src");
  Reg b_src = (B + b.mul_wide(n_base + load_row, K * 2, "b_row") + b.mul_wide(col_start, 2u, "b_col")).named("b_src");
  Reg a_dst = (b.smem_address(sA, 0, "sA_addr") + load_smem).named("a_dst");
  Reg b_dst = (b.smem_address(sB, 0, "sB_addr") + load_smem).named("b_dst");
  // The copies of K step `step` into stage `stage` (a_src/b_src point at the step's columns).
  const auto issue = [&](uint32_t stage, const Reg& a_from, const Reg& b_from) {
    b.cp_async_cg(Addr::at(a_dst, int64_t(stage) * kStageBytes), Addr::at(a_from));
    b.cp_async_cg(Addr::at(b_dst, int64_t(stage) * kStageBytes), Addr::at(b_from));
  };

  b.comment("prologue: prime both stages");
  issue(0, a_src, b_src);
  b.cp_async_commit_group();
  if (iters > 1) {
    issue(1, (a_src + kBK * 2).named("a_src1"), (b_src + kBK * 2).named("b_src1"));
    b.cp_async_commit_group();
  }

  // Fragment addresses: A rows 16·warp + g (+8), B rows 8·j + g, columns 2q (+8).
  Reg g = (lane >> 2).named("g");
  Reg col_lo = ((lane & 3) << 1).named("col_lo");
  Reg a_frag = (b.smem_address(sA, 0, "sA_frag") + (((warp << 4) + g) * kBK + col_lo) * 2).named("a_frag");
  Reg b_frag = (b.smem_address(sB, 0, "sB_frag") + (g * kBK + col_lo) * 2).named("b_frag");
  std::vector<Reg> acc = ampere::zero_accumulators(b, 1, kNF);
  Reg stage_off = b.mov(Type::u32, 0, "stage_off");  // (ki & 1) · 2048: the stage this step reads
  Reg next_a = (a_src + kStages * kBK * 2).named("next_a");  // the columns of step ki + 2
  Reg next_b = (b_src + kStages * kBK * 2).named("next_b");

  // One K step: wait for the stage, read fragments, 8 mma.sync; then (with `prefetch`) refill
  // the same stage with step ki + 2.
  const auto step = [&](uint32_t wait_target, bool prefetch) {
    b.cp_async_wait_group(wait_target);
    b.bar_sync(0);
    Reg a_at = (a_frag + stage_off).named("a_at");
    Reg b_at = (b_frag + stage_off).named("b_at");
    b.comment("A fragment: (row, col) = (g, 2q), (g+8, 2q), (g, 2q+8), (g+8, 2q+8)");
    std::vector<Reg> fa;
    for (const int64_t off : {int64_t(0), int64_t(8 * kRowBytes), int64_t(16), int64_t(8 * kRowBytes + 16)})
      fa.push_back(b.ld_shared(Type::b32, Addr::at(a_at, off), "a"));
    b.comment("B fragments: row 8j + g of the N x 16 stage, k 2q and 2q+8");
    std::vector<std::vector<Reg>> fb;
    for (uint32_t j = 0; j < kNF; ++j)
      fb.push_back({b.ld_shared(Type::b32, Addr::at(b_at, int64_t(8 * j) * kRowBytes), "b"),
                    b.ld_shared(Type::b32, Addr::at(b_at, int64_t(8 * j) * kRowBytes + 16), "b")});
    ampere::mma_tiles(b, acc, {fa}, fb);
    if (!(no_sync && prefetch)) {
      b.comment("every warp has read this stage before anyone overwrites it");
      b.bar_sync(0);
    }
    if (prefetch) {
      b.comment("prefetch step ki + 2 into the stage just read");
      b.cp_async_cg(Addr::at((a_dst + stage_off).named("a_next_dst")), Addr::at(next_a));
      b.cp_async_cg(Addr::at((b_dst + stage_off).named("b_next_dst")), Addr::at(next_b));
      b.cp_async_commit_group();
      next_a += kBK * 2;
      next_b += kBK * 2;
    }
    b.alu_into(ir::Op::xor_, stage_off, {stage_off, kStageBytes});
  };

  b.role(ir::WarpRole::consumer, [&] {
    // Steps 0 .. iters-3: the steady state, one group left in flight, prefetch of ki + 2.
    if (iters > kStages) b.k_loop("ki", iters - kStages, [&](const Reg&) { step(kStages - 1, true); });
    // The tail: no more prefetches, so the pending count drops and so must the wait
    // (the mistake keeps the steady-state value).
    // Each tail step is a K loop of one pass, so the app counts it as the K iteration it is.
    for (uint32_t ki = iters > kStages ? iters - kStages : 0; ki < iters; ++ki) {
      const uint32_t tail = ki + kStages >= iters ? ki + kStages - iters : 0;
      const uint32_t target = wait_at_tail ? kStages - 1 : (kStages - 1 > tail ? kStages - 1 - tail : 0);
      b.k_loop("ki_tail", 1u, [&](const Reg&) { step(target, false); });
    }
  });

  b.role(ir::WarpRole::epilogue, [&] {
    Reg c_lane = (C + b.mul_wide(m_base + (warp << 4) + g, N * 4, "c_row") + b.mul_wide(n_base + col_lo, 4u, "c_col"))
                     .named("c_lane");
    ampere::store_accumulators(b, acc, c_lane, 1, kNF, N);
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo ampere_cp_async_info() {
  KernelInfo k;
  k.id = kId;
  k.title = "Ampere cp.async double buffering (the pyptx seed), 64x64 tile";
  k.arch = ir::Arch::sm_80;
  k.family = Family::ampere;
  k.delta = "tiles staged through shared memory by cp.async in a two-stage ring, reused by all four warps";
  k.explanation =
      "Four warps compute a 64x64 tile of C. Every thread copies 16 bytes of A and 16 of B per K step "
      "with cp.async.cg (row t/2, columns (t%2)*8), straight from global to shared memory. Two stages "
      "are primed before the loop; each step waits with cp.async.wait_group 1 (one copy may stay in "
      "flight) and bar.sync, reads its fragments with ld.shared.b32 and issues 8 mma.sync per warp, "
      "then syncs again and prefetches step k+2 into the stage it just read. In the last step no "
      "prefetch is pending behind the current one, so the wait must drop to wait_group 0. The ld.shared "
      "fragment reads of rows 32 bytes apart hit each bank twice: 2-way bank conflicts, which the "
      "ldmatrix step removes.";
  k.tile = {kBM, kBN, kBK};
  k.example_shape = {128, 128, 64};
  k.ab_dtype = DType::bf16;
  k.c_dtype = DType::f32;
  k.b_layout = BLayout::nk;
  k.constraints = {"M and N multiples of 64 (the CTA tile), at most 65536",
                   "K a multiple of 16 (one stage), at most 65536"};
  k.check_shape = [](const GemmShape& s, const GemmShape& tile) { require_tiles(kId, s, tile); };
  k.mistakes = {
      {"steady-state-wait-at-tail", "the last step waits with cp.async.wait_group 1 like the steady state",
       "with no prefetch behind it, wait_group 1 returns while the last stage is still in flight: a "
       "cp-async-read-before-wait hazard, and C is wrong (the model reads the stale stage; on the GPU the "
       "error depends on timing)"},
      {"no-sync-before-prefetch", "no bar.sync between a step's mma.sync and the prefetch into the same stage",
       "a fast warp's cp.async overwrites the stage while slower warps still read it: a cp-async-race hazard "
       "(on the GPU, C is wrong only when the copy wins the race)"},
  };
  // m_base = ctaid.y·64, n_base = ctaid.x·64 (the seed's grid).
  k.cta_tile = [](const GemmShape& s, const GemmShape& tile, const std::array<uint32_t, 3>& cta) {
    return tile_of_block(s, tile, cta[1], cta[0]);
  };
  // Where this step's lesson shows: the cp.async ring of stages.
  k.focus_views = {"tma", "smem", "timeline"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_cp_async_wait}, {StopKind::first_mma_sync}, {StopKind::pipeline_drains}};
  k.pictures = {"mma-c", "tma"};
  k.build = build_ampere_cp_async;
  return k;
}

}  // namespace gs::kernels
