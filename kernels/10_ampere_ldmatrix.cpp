// Step 10 — Ampere at full speed: ldmatrix.x4 from XOR-swizzled shared memory, a 4-stage
// cp.async ring, a 128×128×32 tile and register double buffering.
//
// What it teaches: how an mma.sync kernel is fed fast enough (the CUTLASS sm80 recipe).
//   * Tile: 4 warps, 2 (M) × 2 (N), each owning 64×64 of the CTA's 128×128 tile of C: 4 × 8
//     m16n8 tiles, 128 f32 accumulators per lane. Per k16 step a warp reads 4 A fragments and
//     8 B fragments (8 ldmatrix.x4, 4 KiB) for 32 mma.sync: 32 FLOPs per byte of shared
//     memory, where step 09's 16×64 strip did 8 (its 8 mma.sync read 1.25 KiB).
//   * ldmatrix.x4: one instruction gives the warp a whole 16×16 A fragment (or two 8-column
//     B fragments), each lane naming one 16-byte row of one of the four 8×8 matrices (facts
//     §2). It replaces four ld.shared.b32 per lane, and reads each 16-byte row once.
//   * Swizzle: a stage row is 32 bf16 = 64 bytes, so the 8 rows of one 8×8 matrix sit 64
//     bytes apart and land on only two 16-byte bank groups: 4 wavefronts per matrix instead
//     of 1. XOR-ing the 16-byte chunk index with bits 1-2 of the row (the 64B swizzle:
//     byte ^ ((byte >> 7) & 3) << 4) puts the 8 rows on 8 different bank groups; the
//     cp.async writes use the same XOR, so the data is where the ldmatrix looks for it.
//   * A 4-stage cp.async ring, one bar.sync per K step: step ki waits for its own group with
//     wait_group(STAGES-2), syncs (so every warp is done with the stage read in step ki-1),
//     refills that stage with step ki+3, and computes while three copies are in flight.
//   * Register double buffering: both k16 halves' fragments of a stage are loaded before the
//     first half's mma.sync, so the second half's ldmatrix overlaps the first half's math.
//
// Mistake `unswizzled-ldmatrix`: the same kernel without the XOR. C is still right; every
// ldmatrix matrix takes 4 wavefronts (a 4-way conflict: the rows are 64 bytes, not 128, so
// two rows share a 128-byte line), which the model's bank record and ncu's
// l1tex__data_bank_conflicts counters both show.
//
// What changed from step 09: ldmatrix.x4 instead of ld.shared for the fragments, the XOR
// swizzle on both sides of shared memory, a 4-stage ring instead of 2, and a 128×128 tile with
// 64×64 per warp instead of 64×64 with a 16×64 strip per warp.
#include "engine/builder/builder.hpp"
#include "kernels/ampere_mma.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using builder::Src;
using ir::Type;

namespace {

// The step's id: its file's name (the registry checks it).
constexpr std::string_view kId = "ampere_ldmatrix";

constexpr uint32_t kBM = 128, kBN = 128, kBK = 32;
constexpr uint32_t kWarps = 4, kThreads = 32 * kWarps;
constexpr uint32_t kWarpM = 64, kWarpN = 64;                    // warps 2 (M) × 2 (N)
constexpr uint32_t kMF = kWarpM / 16, kNF = kWarpN / 8;         // 4 × 8 m16n8 tiles per warp
constexpr uint32_t kRowBytes = kBK * 2;                         // 64 B per stage row
constexpr uint32_t kStageBytes = kBM * kRowBytes;               // 8 KiB of A (and of B)
constexpr uint32_t kChunksPerThread = kBM * kRowBytes / 16 / kThreads;  // 4 16-byte copies per operand

// The byte offset of 16-byte chunk `chunk` of stage row `row`, swizzled or not (as registers).
Reg chunk_offset(Builder& b, const Reg& row, const Reg& chunk, bool swizzle, const std::string& name) {
  Reg c = swizzle ? (chunk ^ ((row >> 1) & 3)).named(name + "_xor") : chunk;
  return ((row << 6) + (c << 4)).named(name);
}

ir::Kernel build_ampere_ldmatrix(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const uint32_t stages = cfg.param("stages");
  const uint32_t iters = K / kBK;
  const bool swizzle = !cfg.has("unswizzled-ldmatrix");
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {N / kBN, M / kBM, 1}, .block = {kThreads, 1, 1}});
  b.set_min_ctas_per_sm(2);  // two CTAs (8 warps, 128 KiB of stages) per SM: at most 255 registers
  b.use_dynamic_smem();      // 4 stages of 16 KiB: past the 48 KiB of static shared memory
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pb = b.param("B", ir::ParamKind::global_ptr, ir::ParamRole::b);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const layout::Swizzle sw = swizzle ? layout::Swizzle::b64 : layout::Swizzle::none;
  auto sA = b.operand_stages("sA", ir::GemmOperand::a, stages, kStageBytes, 1024, sw);
  auto sB = b.operand_stages("sB", ir::GemmOperand::b, stages, kStageBytes, 1024, sw);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg warp = (tid >> 5).named("warp");
  Reg lane = (tid & 31).named("lane");
  Reg m0 = (b.special(ir::Special::ctaid_y, "cta_y") * kBM).named("m0");
  Reg n0 = (b.special(ir::Special::ctaid_x, "cta_x") * kBN).named("n0");
  Reg A = b.global_ptr(pa, "A_ptr");
  Reg B = b.global_ptr(pb, "B_ptr");
  Reg C = b.global_ptr(pc, "C_ptr");

  // Copies: thread t moves chunk t%4 of rows t/4 + 32i, i = 0..3, of each stage (A and B alike).
  Reg load_row = (tid >> 2).named("load_row");
  Reg load_chunk = (tid & 3).named("load_chunk");
  Reg load_smem = chunk_offset(b, load_row, load_chunk, swizzle, "load_smem");  // row + 32i: + 2048i, same XOR
  Reg a_src = (A + b.mul_wide(m0 + load_row, K * 2, "a_row") + b.mul_wide(load_chunk, 16u, "a_col")).named("a_src");
  Reg b_src = (B + b.mul_wide(n0 + load_row, K * 2, "b_row") + b.mul_wide(load_chunk, 16u, "b_col")).named("b_src");
  Reg a_dst = (b.smem_address(sA, 0, "sA_addr") + load_smem).named("a_dst");
  Reg b_dst = (b.smem_address(sB, 0, "sB_addr") + load_smem).named("b_dst");
  const int64_t next_rows = int64_t(kBM / kChunksPerThread) * K * 2;  // 32 rows further in global
  // The copies of the K step that a_src/b_src point at, into the stage at `stage` bytes.
  const auto issue = [&](const Src& stage) {
    Reg ad = (a_dst + stage).named("a_stage_dst");
    Reg bd = (b_dst + stage).named("b_stage_dst");
    for (uint32_t i = 0; i < kChunksPerThread; ++i) {
      const int64_t smem = int64_t(i) * (kStageBytes / kChunksPerThread);
      b.cp_async_cg(Addr::at(ad, smem), Addr::at(a_src, i * next_rows));
      b.cp_async_cg(Addr::at(bd, smem), Addr::at(b_src, i * next_rows));
    }
    a_src += kBK * 2;
    b_src += kBK * 2;
  };

  b.comment("prologue: steps 0 .. STAGES-2 into stages 0 .. STAGES-2, one group each");
  for (uint32_t s = 0; s + 1 < stages; ++s) {
    if (s < iters) issue(s * kStageBytes);
    b.cp_async_commit_group();  // empty past K: the group count stays uniform
  }

  // ldmatrix row addresses (facts §2: lane l names row l%8 of matrix l/8), per k16 half kk:
  //   A .x4, tile mf: rows 64·wm + 16·mf + l%16, chunk 2kk + l/16 -> a0..a3 of the fragment
  //   B .x4, tiles 2p, 2p+1: rows 64·wn + 16·p + l%8 + 8·(l/16), chunk 2kk + (l/8)%2 -> b0, b1 of each
  // 16·mf and 16·p rows are multiples of 16, which leave the XOR alone: they become immediates.
  Reg wm = (warp >> 1).named("wm");
  Reg wn = (warp & 1).named("wn");
  Reg a_row = ((wm << 6) + (lane & 15)).named("a_frag_row");
  Reg b_row = ((wn << 6) + (lane & 7) + ((lane >> 4) << 3)).named("b_frag_row");
  Reg sA0 = b.smem_address(sA, 0, "sA_base");
  Reg sB0 = b.smem_address(sB, 0, "sB_base");
  std::vector<Reg> a_lane, b_lane;
  for (uint32_t kk = 0; kk < 2; ++kk) {
    Reg a_chunk = ((lane >> 4) + 2 * kk).named("a_chunk");
    Reg b_chunk = (((lane >> 3) & 1) + 2 * kk).named("b_chunk");
    a_lane.push_back((sA0 + chunk_offset(b, a_row, a_chunk, swizzle, "a_off")).named("a_lane"));
    b_lane.push_back((sB0 + chunk_offset(b, b_row, b_chunk, swizzle, "b_off")).named("b_lane"));
  }

  std::vector<Reg> acc = ampere::zero_accumulators(b, kMF, kNF);
  Reg read_stage = b.mov(Type::u32, 0, "read_stage");                            // bytes: step ki % STAGES
  Reg write_stage = b.mov(Type::u32, (stages - 1) * kStageBytes, "write_stage");  // (ki + STAGES-1) % STAGES
  const auto advance = [&](const Reg& stage) {
    Reg next = (stage + kStageBytes).named("next_stage");
    b.mov(stage, b.selp(0, next, next == stages * kStageBytes, "wrapped"));
  };

  b.role(ir::WarpRole::consumer, [&] {
    b.k_loop("ki", iters, [&](const Reg& ki) {
      b.comment("step ki's group has landed (STAGES-2 younger ones may fly); all warps are past step ki-1");
      b.cp_async_wait_group(stages - 2);
      b.bar_sync(0);
      b.comment("refill the stage read in step ki-1 with step ki + STAGES-1");
      b.if_(ki + (stages - 1) < iters, [&] { issue(write_stage); });
      b.cp_async_commit_group();
      // Both halves' fragments first (register double buffering), then the math.
      std::vector<std::vector<std::vector<Reg>>> fa(2), fb(2);
      for (uint32_t kk = 0; kk < 2; ++kk) {
        Reg a_at = (a_lane[kk] + read_stage).named("a_at");
        Reg b_at = (b_lane[kk] + read_stage).named("b_at");
        for (uint32_t mf = 0; mf < kMF; ++mf)
          fa[kk].push_back(b.ldmatrix(4, false, Addr::at(a_at, int64_t(mf) * 16 * kRowBytes), "a"));
        for (uint32_t p = 0; p < kNF / 2; ++p) {
          std::vector<Reg> r = b.ldmatrix(4, false, Addr::at(b_at, int64_t(p) * 16 * kRowBytes), "b");
          fb[kk].push_back({r[0], r[1]});
          fb[kk].push_back({r[2], r[3]});
        }
      }
      for (uint32_t kk = 0; kk < 2; ++kk) ampere::mma_tiles(b, acc, fa[kk], fb[kk]);
      advance(read_stage);
      advance(write_stage);
    });
  });

  b.role(ir::WarpRole::epilogue, [&] {
    Reg row = (m0 + (wm << 6) + (lane >> 2)).named("c_row");
    Reg col = (n0 + (wn << 6) + ((lane & 3) << 1)).named("c_col");
    Reg c_lane = (C + b.mul_wide(row, N * 4, "c_row_off") + b.mul_wide(col, 4u, "c_col_off")).named("c_lane");
    ampere::store_accumulators(b, acc, c_lane, kMF, kNF, N);
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo ampere_ldmatrix_info() {
  KernelInfo k;
  k.id = kId;
  k.title = "Ampere ldmatrix + swizzled 4-stage cp.async ring, 128x128x32 tile";
  k.arch = ir::Arch::sm_80;
  k.family = Family::ampere;
  k.delta = "ldmatrix.x4 from XOR-swizzled stages, 4-stage ring, 128x128 tile, 64x64 per warp";
  k.explanation =
      "Four warps share a 128x128 tile of C, each computing 64x64 with 32 mma.sync per 16-wide slice "
      "of K. A 4-stage ring of cp.async copies keeps three K steps in flight while one is computed, with a "
      "single bar.sync per step. Fragments come from shared memory with ldmatrix.x4: one instruction "
      "loads four 8x8 matrices, each lane naming one 16-byte row. A stage row is 64 bytes, so without "
      "care the 8 rows of a matrix fall on the same banks (4-way conflicts); XOR-ing the 16-byte chunk "
      "index with bits of the row number (the 64-byte swizzle) spreads them over all 32 banks, and the "
      "cp.async copies write through the same XOR.";
  k.tile = {kBM, kBN, kBK};
  k.example_shape = {256, 256, 128};  // 2x2 CTAs: the views and tests look at CTAs off the diagonal
  k.ab_dtype = DType::bf16;
  k.c_dtype = DType::f32;
  k.b_layout = BLayout::nk;
  k.constraints = {"M and N multiples of 128 (the CTA tile), at most 65536",
                   "K a multiple of 32 (one stage), at most 65536"};
  k.check_shape = [](const GemmShape& s, const GemmShape& tile) { require_tiles(kId, s, tile); };
  k.params = {stages_param(4, 2, 6, 2 * kStageBytes)};
  k.mistakes = {
      {"unswizzled-ldmatrix", "the stages are laid out row after row, without the XOR (copies and ldmatrix alike)",
       "C is still right, but each ldmatrix matrix's 8 rows share two 16-byte bank groups: 4 wavefronts "
       "instead of 1, in the model's bank record and in ncu's shared-load bank-conflict counter"},
  };
  // m0 = ctaid.y·128, n0 = ctaid.x·128.
  k.cta_tile = [](const GemmShape& s, const GemmShape& tile, const std::array<uint32_t, 3>& cta) {
    return tile_of_block(s, tile, cta[1], cta[0]);
  };
  // Where this step's lesson shows: ldmatrix and the XOR swizzle.
  k.focus_views = {"smem", "fragments", "ptx"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_cp_async_wait}, {StopKind::first_ldmatrix}, {StopKind::first_mma_sync},
              {StopKind::pipeline_drains}, {StopKind::bank_conflict, "unswizzled-ldmatrix"}};
  k.pictures = {"ldmatrix --num 4", "swizzle --mode 128B", "banks --pattern column-swizzled"};
  k.build = build_ampere_ldmatrix;
  return k;
}

}  // namespace gs::kernels
