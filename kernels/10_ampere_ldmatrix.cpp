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
//
// The tiles as build parameters (`--param bm=256`; the numbers above are the defaults): the CTA
// tile bm × bn (64, 128 or 256 each) and the warp tile wm × wn (32, 64 or 128 each), so a CTA has
// (bm/wm)·(bn/wn) warps, and the ring's stages. BK stays 32: the 64-byte stage row is what the
// 64B swizzle and the two k16 halves are built for. check_ldmatrix_tiles says which combinations
// build and why the others do not: the warps must fit a CTA, every thread must copy in every
// round of cp.async, and a lane's accumulators and fragments must fit its registers.
#include <algorithm>
#include <optional>
#include <tuple>

#include <fmt/format.h>

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

// What a build does not change: K steps of 32 bf16, so a stage row is 64 bytes, the 64B
// swizzle's row, and a K step is two k16 halves.
constexpr uint32_t kBK = 32;
constexpr uint32_t kRowBytes = kBK * 2;  // 64 B per stage row
constexpr uint32_t kChunksPerRow = kRowBytes / 16;  // 4 16-byte cp.async chunks

// The tiles of a build: the CTA's bm × bn tile of C, a warp's wm × wn part of it (2 × 2 warps of
// 64 × 64 as it ships).
struct LdmatrixTiles {
  uint32_t bm, bn, wm, wn, stages;
  explicit LdmatrixTiles(const ParamValues& p)
      : bm(p.at("bm")), bn(p.at("bn")), wm(p.at("wm")), wn(p.at("wn")), stages(p.at("stages")) {}
  uint32_t warps_n() const { return bn / wn; }
  uint32_t warps() const { return (bm / wm) * warps_n(); }
  uint32_t threads() const { return 32 * warps(); }
  uint32_t mf() const { return wm / 16; }  // m16n8 tiles of a warp along M: 4
  uint32_t nf() const { return wn / 8; }   // and along N: 8
  uint32_t a_stage_bytes() const { return bm * kRowBytes; }  // 8 KiB
  uint32_t b_stage_bytes() const { return bn * kRowBytes; }  // 8 KiB
  uint32_t copy_rows() const { return threads() / kChunksPerRow; }  // rows one round of copies fills: 32
  uint32_t smem_bytes() const { return stages * (a_stage_bytes() + b_stage_bytes()); }
  // Two CTAs per SM where two CTAs' stages fit in its 228 KiB (each CTA keeps 1 KiB for itself):
  // as it ships, 8 warps and 2 × 64 KiB. A larger ring leaves room for one.
  uint32_t ctas_per_sm() const { return 2 * (smem_bytes() + 1024) <= 228 * 1024 ? 2 : 1; }
  // What a lane keeps through the K loop: its accumulators (wm·wn/32 f32) and both k16 halves'
  // fragments (register double buffering: 2 · (mf·4 + nf·2) = wm/2 + wn/2), 192 as it ships.
  uint32_t registers() const { return wm * wn / 32 + wm / 2 + wn / 2; }
};

// Which builds the step's structure allows, and why not the others (KernelInfo::check_params).
std::optional<std::string> check_ldmatrix_tiles(const ParamValues& p) {
  const LdmatrixTiles t(p);
  if (t.wm > t.bm || t.wn > t.bn)
    return fmt::format("the wm × wn = {} × {} warp tile does not fit the bm × bn = {} × {} CTA tile: make the warp "
                       "tile smaller or the CTA tile larger",
                       t.wm, t.wn, t.bm, t.bn);
  if (t.threads() > 1024)
    return fmt::format("(bm/wm)·(bn/wn) = ({}/{})·({}/{}) = {} warps, {} threads, more than the 1024 a CTA can have: "
                       "make the warp tile larger or the CTA tile smaller",
                       t.bm, t.wm, t.bn, t.wn, t.warps(), t.threads());
  // Thread t copies 16-byte chunk t%4 of rows t/4, t/4 + threads/4, ... of A's and B's stages.
  for (const auto& [operand, name, rows] : {std::tuple{'A', "bm", t.bm}, std::tuple{'B', "bn", t.bn}})
    if (rows % t.copy_rows() != 0)
      return fmt::format("the {} threads copy {} rows of 64 bytes a round (4 cp.async of 16 bytes a row), but {}'s "
                         "stage has {}={}: every thread must copy in every round, so {} must be a multiple of {}: "
                         "make the warp tile larger (fewer warps) or {} larger",
                         t.threads(), t.copy_rows(), operand, name, rows, name, t.copy_rows(), name);
  // Shared memory needs no rule: 6 stages of a 256 × 256 tile are 6 × 32 KiB = 192 KiB, within 227.
  const uint32_t limit = std::min(255u, 65536 / (t.ctas_per_sm() * t.threads()));
  if (t.registers() > limit)
    return fmt::format("wm·wn/32 accumulators + (wm + wn)/2 fragment registers = {}·{}/32 + ({} + {})/2 = {} registers "
                       "a lane keeps through the K loop, more than the {} each of {} threads gets with {} CTA(s) per SM "
                       "({}): make the warp tile smaller{}",
                       t.wm, t.wn, t.wm, t.wn, t.registers(), limit, t.threads(), t.ctas_per_sm(),
                       limit == 255 ? "255 a thread" : fmt::format("65536 / ({}·{})", t.ctas_per_sm(), t.threads()),
                       limit == 255 ? "" : ", or the CTA tile (fewer warps share the SM's registers)");
  return std::nullopt;
}

// The byte offset of 16-byte chunk `chunk` of stage row `row`, swizzled or not (as registers).
Reg chunk_offset(Builder& b, const Reg& row, const Reg& chunk, bool swizzle, const std::string& name) {
  Reg c = swizzle ? (chunk ^ ((row >> 1) & 3)).named(name + "_xor") : chunk;
  return ((row << 6) + (c << 4)).named(name);
}

ir::Kernel build_ampere_ldmatrix(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  const LdmatrixTiles t(cfg.params);
  const uint32_t stages = t.stages;
  const uint32_t threads = t.threads();
  const uint32_t iters = K / kBK;
  const bool swizzle = !cfg.has("unswizzled-ldmatrix");
  Builder b(std::string(kId), ir::Arch::sm_80);
  b.set_launch({.grid = {N / t.bn, M / t.bm, 1}, .block = {threads, 1, 1}});
  // Two CTAs (8 warps, 128 KiB of stages) per SM as it ships: at most 255 registers a thread.
  b.set_min_ctas_per_sm(t.ctas_per_sm());
  b.use_dynamic_smem();  // 4 stages of 16 KiB: past the 48 KiB of static shared memory
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pb = b.param("B", ir::ParamKind::global_ptr, ir::ParamRole::b);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const layout::Swizzle sw = swizzle ? layout::Swizzle::b64 : layout::Swizzle::none;
  auto sA = b.operand_stages("sA", ir::GemmOperand::a, stages, t.a_stage_bytes(), 1024, sw);
  auto sB = b.operand_stages("sB", ir::GemmOperand::b, stages, t.b_stage_bytes(), 1024, sw);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg warp = (tid >> 5).named("warp");
  Reg lane = (tid & 31).named("lane");
  Reg m0 = (b.special(ir::Special::ctaid_y, "cta_y") * t.bm).named("m0");
  Reg n0 = (b.special(ir::Special::ctaid_x, "cta_x") * t.bn).named("n0");
  Reg A = b.global_ptr(pa, "A_ptr");
  Reg B = b.global_ptr(pb, "B_ptr");
  Reg C = b.global_ptr(pc, "C_ptr");

  // Copies: thread t moves chunk t%4 of rows t/4 + 32i, i = 0..3, of each stage (A and B alike;
  // in a build, rows t/4 + (threads/4)·i, bm/(threads/4) of A's and bn/(threads/4) of B's).
  Reg load_row = (tid >> 2).named("load_row");
  Reg load_chunk = (tid & 3).named("load_chunk");
  // Row + 32i: + 2048i bytes, the same XOR (threads/4 is a multiple of 8, leaving row bits 1-2 alone).
  Reg load_smem = chunk_offset(b, load_row, load_chunk, swizzle, "load_smem");
  Reg a_src = (A + b.mul_wide(m0 + load_row, K * 2, "a_row") + b.mul_wide(load_chunk, 16u, "a_col")).named("a_src");
  Reg b_src = (B + b.mul_wide(n0 + load_row, K * 2, "b_row") + b.mul_wide(load_chunk, 16u, "b_col")).named("b_src");
  Reg a_dst = (b.smem_address(sA, 0, "sA_addr") + load_smem).named("a_dst");
  Reg b_dst = (b.smem_address(sB, 0, "sB_addr") + load_smem).named("b_dst");
  const int64_t next_rows = int64_t(t.copy_rows()) * K * 2;  // 32 rows further in global
  const uint32_t a_copies = t.bm / t.copy_rows(), b_copies = t.bn / t.copy_rows();  // 4 and 4
  // The copies of the K step that a_src/b_src point at, into the stages at `a_stage` and
  // `b_stage` bytes.
  const auto issue = [&](const Src& a_stage, const Src& b_stage) {
    Reg ad = (a_dst + a_stage).named("a_stage_dst");
    Reg bd = (b_dst + b_stage).named("b_stage_dst");
    for (uint32_t i = 0; i < std::max(a_copies, b_copies); ++i) {
      const int64_t smem = int64_t(i) * t.copy_rows() * kRowBytes;
      if (i < a_copies) b.cp_async_cg(Addr::at(ad, smem), Addr::at(a_src, i * next_rows));
      if (i < b_copies) b.cp_async_cg(Addr::at(bd, smem), Addr::at(b_src, i * next_rows));
    }
    a_src += kBK * 2;
    b_src += kBK * 2;
  };

  b.comment("prologue: steps 0 .. STAGES-2 into stages 0 .. STAGES-2, one group each");
  for (uint32_t s = 0; s + 1 < stages; ++s) {
    if (s < iters) issue(s * t.a_stage_bytes(), s * t.b_stage_bytes());
    b.cp_async_commit_group();  // empty past K: the group count stays uniform
  }

  // ldmatrix row addresses (facts §2: lane l names row l%8 of matrix l/8), per k16 half kk:
  //   A .x4, tile mf: rows 64·wm + 16·mf + l%16, chunk 2kk + l/16 -> a0..a3 of the fragment
  //   B .x4, tiles 2p, 2p+1: rows 64·wn + 16·p + l%8 + 8·(l/16), chunk 2kk + (l/8)%2 -> b0, b1 of each
  // 16·mf and 16·p rows are multiples of 16, which leave the XOR alone: they become immediates.
  // Warp w is warp row wm = w/2 and warp column wn = w%2 (in a build w / (bn/wn) and w % (bn/wn),
  // its rows starting at wm·(the wm parameter)); every tile parameter is a power of two.
  Reg wm = (warp >> log2_exact(t.warps_n())).named("wm");
  Reg wn = (warp & (t.warps_n() - 1)).named("wn");
  Reg a_row = ((wm << log2_exact(t.wm)) + (lane & 15)).named("a_frag_row");
  Reg b_row = ((wn << log2_exact(t.wn)) + (lane & 7) + ((lane >> 4) << 3)).named("b_frag_row");
  Reg sA0 = b.smem_address(sA, 0, "sA_base");
  Reg sB0 = b.smem_address(sB, 0, "sB_base");
  std::vector<Reg> a_lane, b_lane;
  for (uint32_t kk = 0; kk < 2; ++kk) {
    Reg a_chunk = ((lane >> 4) + 2 * kk).named("a_chunk");
    Reg b_chunk = (((lane >> 3) & 1) + 2 * kk).named("b_chunk");
    a_lane.push_back((sA0 + chunk_offset(b, a_row, a_chunk, swizzle, "a_off")).named("a_lane"));
    b_lane.push_back((sB0 + chunk_offset(b, b_row, b_chunk, swizzle, "b_off")).named("b_lane"));
  }

  std::vector<Reg> acc = ampere::zero_accumulators(b, t.mf(), t.nf());
  // The stage offsets count A's stage bytes; B's stage is bn/bm times as many bytes (the same as
  // it ships, bm = bn).
  Reg read_stage = b.mov(Type::u32, 0, "read_stage");  // bytes: step ki % STAGES
  Reg write_stage = b.mov(Type::u32, (stages - 1) * t.a_stage_bytes(), "write_stage");  // (ki + STAGES-1) % STAGES
  const auto b_stage = [&](const Reg& a_stage) {
    if (t.bn == t.bm) return a_stage;
    return (t.bn > t.bm ? a_stage << log2_exact(t.bn / t.bm) : a_stage >> log2_exact(t.bm / t.bn)).named("b_stage");
  };
  const auto advance = [&](const Reg& stage) {
    Reg next = (stage + t.a_stage_bytes()).named("next_stage");
    b.mov(stage, b.selp(0, next, next == stages * t.a_stage_bytes(), "wrapped"));
  };

  b.role(ir::WarpRole::consumer, [&] {
    b.k_loop("ki", iters, [&](const Reg& ki) {
      b.comment("step ki's group has landed (STAGES-2 younger ones may fly); all warps are past step ki-1");
      b.cp_async_wait_group(stages - 2);
      b.bar_sync(0);
      b.comment("refill the stage read in step ki-1 with step ki + STAGES-1");
      b.if_(ki + (stages - 1) < iters, [&] { issue(write_stage, b_stage(write_stage)); });
      b.cp_async_commit_group();
      // Both halves' fragments first (register double buffering), then the math.
      std::vector<std::vector<std::vector<Reg>>> fa(2), fb(2);
      const Reg b_read = b_stage(read_stage);
      for (uint32_t kk = 0; kk < 2; ++kk) {
        Reg a_at = (a_lane[kk] + read_stage).named("a_at");
        Reg b_at = (b_lane[kk] + b_read).named("b_at");
        for (uint32_t mf = 0; mf < t.mf(); ++mf)
          fa[kk].push_back(b.ldmatrix(4, false, Addr::at(a_at, int64_t(mf) * 16 * kRowBytes), "a"));
        for (uint32_t p = 0; p < t.nf() / 2; ++p) {
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
    Reg row = (m0 + (wm << log2_exact(t.wm)) + (lane >> 2)).named("c_row");
    Reg col = (n0 + (wn << log2_exact(t.wn)) + ((lane & 3) << 1)).named("c_col");
    Reg c_lane = (C + b.mul_wide(row, N * 4, "c_row_off") + b.mul_wide(col, 4u, "c_col_off")).named("c_lane");
    ampere::store_accumulators(b, acc, c_lane, t.mf(), t.nf(), N);
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
      "cp.async copies write through the same XOR. The tiles are build parameters: the CTA's bm x bn (64, 128 "
      "or 256 each) and a warp's wm x wn (32, 64 or 128 each), as long as the warps fit a CTA, every thread copies "
      "in every round of cp.async, and a lane's wm*wn/32 accumulators and its fragments fit its registers.";
  k.tile = {128, 128, kBK};
  k.example_shape = {256, 256, 128};  // 2x2 CTAs: the views and tests look at CTAs off the diagonal
  k.ab_dtype = DType::bf16;
  k.c_dtype = DType::f32;
  k.b_layout = BLayout::nk;
  k.constraints = {"M a multiple of bm and N a multiple of bn (the CTA tile: 128x128 as it ships), at most 65536",
                   "K a multiple of 32 (one stage), at most 65536",
                   "the tile's parameters (`gemmscope list --json`) combine only where the warps, the copies and "
                   "the registers allow"};
  k.check_shape = [](const GemmShape& s, const GemmShape& tile) { require_tiles(kId, s, tile); };
  k.params = {
      {"bm", "rows of C a CTA computes (its A stage is bm rows of 64 bytes)", 128, {64, 128, 256}},
      {"bn", "columns of C a CTA computes (its B stage is bn rows of 64 bytes)", 128, {64, 128, 256}},
      {"wm", "rows of C a warp computes: wm/16 m16n8 tiles down, one ldmatrix.x4 of A each", 64, {32, 64, 128}},
      {"wn", "columns of C a warp computes: wn/8 m16n8 tiles across, one ldmatrix.x4 of B per two", 64, {32, 64, 128}},
      stages_param(4, 2, 6, 2 * 128 * kRowBytes)};
  k.params.back().description = "shared-memory stages in the cp.async ring ((bm + bn) · 64 bytes each: 16 KiB as it "
                                "ships)";
  k.build_tile = [](const ParamValues& p) { return GemmShape{p.at("bm"), p.at("bn"), kBK}; };
  k.check_params = check_ldmatrix_tiles;
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
