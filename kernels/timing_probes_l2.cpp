// The L2 probes of a GEMM wave's geometry: TMA copies of 64x64 bf16 boxes read as a GEMM of
// 64x64 tiles reads its A and B panels, with or without the tensor cores' work between them
// (timing_probes.hpp, build_tma_gemm_probe), and cp.async copies of a SIMT-data-path GEMM's
// 64x16 slices read the same way (build_cp_gemm_probe).
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "engine/layout/swizzle.hpp"
#include "kernels/hopper_parts.hpp"
#include "kernels/timing_probe_parts.hpp"
#include "kernels/timing_probes.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;
using layout::Swizzle;

namespace {

constexpr uint32_t kTile = 64;                   // rows and K columns of a box (64 bf16 = 128 B)
constexpr uint32_t kBoxBytes = kTile * kTile * 2;  // 8 KiB
constexpr uint32_t kThreads = 128;               // one warpgroup, as a 64x64 wgmma tile needs
constexpr uint32_t kOwnBoxes = 512;              // `own`: each operand a ring of 512 boxes (4 MiB)

}  // namespace

ir::Kernel build_tma_gemm_probe(uint32_t tiles_m, uint32_t tiles_n, uint32_t ksteps, uint32_t mma_reps, bool own,
                                uint32_t cta_smem_bytes) {
  if (tiles_m == 0 || tiles_n == 0 || ksteps < 2 || mma_reps > 16 || cta_smem_bytes > 200 * 1024)
    throw std::invalid_argument(fmt::format("a TMA GEMM probe needs a tile grid, at least 2 K steps, 0..16 wgmma "
                                            "rounds a step and at most 200 KiB of shared memory a CTA (got {}x{}, {}, "
                                            "{}, {})",
                                            tiles_m, tiles_n, ksteps, mma_reps, cta_smem_bytes));
  const uint32_t M = tiles_m * kTile, N = tiles_n * kTile, K = ksteps * kTile;
  Builder b(fmt::format("timing_tma_gemm_{}x{}x{}_mma{}{}", tiles_m, tiles_n, ksteps, mma_reps, own ? "_own" : ""),
            ir::Arch::sm_90a);
  b.set_launch({.grid = {tiles_n, tiles_m, 1}, .block = {kThreads, 1, 1}});
  b.use_dynamic_smem();
  // gemm: A is M x K and B is N x K (K contiguous), tile (y, x) reads A's row panel y and B's
  // row panel x, one K box a step. own: A and B are rings of 512 boxes of 64 x 64, and step k of
  // CTA c reads box (k·CTAs + c) mod 512 of each: no two CTAs of a step read the same box.
  const uint32_t a_rows = own ? kOwnBoxes * kTile : M, b_rows = own ? kOwnBoxes * kTile : N;
  const uint32_t cols = own ? kTile : K;
  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, cols, a_rows, kTile, kTile, Swizzle::b128));
  auto tmap_b = b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, cols, b_rows, kTile, kTile, Swizzle::b128));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto sA = b.operand_stages("sA", ir::GemmOperand::a, 1, kBoxBytes, 1024, Swizzle::b128);
  auto sB = b.operand_stages("sB", ir::GemmOperand::b, 1, kBoxBytes, 1024, Swizzle::b128);
  auto full = b.mbarriers("full", ir::BarrierRole::full, 1);
  // Held, never touched: the CTA's footprint, so that as many CTAs share an SM as a GEMM's do.
  if (cta_smem_bytes > 2 * kBoxBytes + 1024)
    b.shared("reserved", cta_smem_bytes - 2 * kBoxBytes - 1024, 128, ir::SmemUse::other);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg cx = b.special(ir::Special::ctaid_x, "cta_x");
  Reg cy = b.special(ir::Special::ctaid_y, "cta_y");
  Reg cta = (cy * tiles_n + cx).named("cta");
  Reg tmA = b.tensor_map_address(tmap_a, "tmA");
  Reg tmB = b.tensor_map_address(tmap_b, "tmB");
  Reg leader = (tid == 0).named("leader");
  b.if_(leader, [&] {
    b.mbarrier_init(full.at(), 1);
    b.fence_mbarrier_init();
  });
  b.bar_sync(0);
  Reg a_desc = b.wgmma_descriptor(b.smem_address(sA, 0, "sA_addr"), layout::kmajor_tile_descriptor(0, Swizzle::b128), "a_desc");
  Reg b_desc = b.wgmma_descriptor(b.smem_address(sB, 0, "sB_addr"), layout::kmajor_tile_descriptor(0, Swizzle::b128), "b_desc");
  std::vector<Reg> acc;
  for (uint32_t v = 0; v < kTile / 2; ++v) acc.push_back(b.mov(Type::f32, 0.0, fmt::format("acc{}", v)));
  Reg phase = b.mov(Type::u32, 0u, "phase");
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.loop("k", ksteps, [&](const Reg& k) {
    b.if_(leader, [&] {
      b.mbarrier_arrive_expect_tx(full.at(), 2 * kBoxBytes);
      if (own) {
        Reg row = ((((k * (tiles_m * tiles_n)) + cta) & (kOwnBoxes - 1)) << 6).named("row");
        Reg zero = b.mov(Type::u32, 0u, "col");
        b.cp_async_bulk_tensor_load(sA.at(), tmA, {zero, row}, full.at());
        b.cp_async_bulk_tensor_load(sB.at(), tmB, {zero, row}, full.at());
      } else {
        Reg k0 = (k << 6).named("k0");
        b.cp_async_bulk_tensor_load(sA.at(), tmA, {k0, (cy << 6).named("m0")}, full.at());
        b.cp_async_bulk_tensor_load(sB.at(), tmB, {k0, (cx << 6).named("n0")}, full.at());
      }
    });
    b.mbarrier_wait(full.at(), phase);
    phase ^= 1u;
    if (mma_reps > 0) {
      b.wgmma_fence();
      for (uint32_t r = 0; r < mma_reps; ++r) hopper::wgmma_k_block(b, kTile, {acc}, {a_desc}, b_desc, 1u);
      b.wgmma_commit_group();
      b.wgmma_wait_group(0);
    }
    b.bar_sync(0);  // every warp is done with the stage before the leader refills it
  });
  probe_parts::end_with_float_sum(b, pc, (cta * kThreads + tid).named("gid"), t0, acc);
  return b.finish();
}

namespace {
constexpr uint32_t kCpTile = 64;                       // a tile's rows (of A) and columns (of B)
constexpr uint32_t kCpK = 16;                          // K columns a step: 32-byte rows
constexpr uint32_t kCpStageBytes = 2 * kCpTile * kCpK * 2;  // A's 2 KiB then B's 2 KiB
}  // namespace

ir::Kernel build_cp_gemm_probe(uint32_t tiles_m, uint32_t tiles_n, uint32_t ksteps, uint32_t lds,
                               uint32_t cta_smem_bytes) {
  if (tiles_m == 0 || tiles_n == 0 || ksteps < 2 || lds > 40 || cta_smem_bytes < 2 * kCpStageBytes ||
      cta_smem_bytes > 200 * 1024)
    throw std::invalid_argument(fmt::format("a cp.async GEMM probe needs a tile grid, at least 2 K steps, 0..40 "
                                            "shared loads a step and 8 KiB..200 KiB of shared memory a CTA (got "
                                            "{}x{}, {}, {}, {})",
                                            tiles_m, tiles_n, ksteps, lds, cta_smem_bytes));
  const uint32_t K = ksteps * kCpK;
  Builder b(fmt::format("timing_cp_gemm_{}x{}x{}_lds{}_{}k", tiles_m, tiles_n, ksteps, lds, cta_smem_bytes / 1024),
            ir::Arch::sm_80);
  b.set_launch({.grid = {tiles_n, tiles_m, 1}, .block = {kThreads, 1, 1}});
  b.use_dynamic_smem();
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pb = b.param("B", ir::ParamKind::global_ptr, ir::ParamRole::b);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  // The ring's two stages, then the rest of the CTA's footprint (held, never touched), so that
  // as many CTAs share an SM as the GEMM's do.
  auto ring = b.shared("ring", cta_smem_bytes, 128, ir::SmemUse::other);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg cx = b.special(ir::Special::ctaid_x, "cta_x");
  Reg cy = b.special(ir::Special::ctaid_y, "cta_y");
  Reg gid = ((cy * tiles_n + cx) * kThreads + tid).named("gid");
  // Thread t copies 16 bytes of A's row m0 + t/2 and of B's row n0 + t/2 a step, K columns
  // (t%2)*8 on: a stage is 64 rows of 32 bytes of each, in thread order in shared memory.
  Reg row_col = b.mul_wide((tid >> 1u), K * 2, "row_off");
  Reg half = b.cvt(Type::u64, ((tid & 1u) << 4u).named("half"), ir::Rounding::none, "half64");
  Reg a_src = (b.global_ptr(pa, "A_ptr") + b.mul_wide(cy, kCpTile * K * 2, "a_panel") + row_col + half).named("a_src");
  Reg b_src = (b.global_ptr(pb, "B_ptr") + b.mul_wide(cx, kCpTile * K * 2, "b_panel") + row_col + half).named("b_src");
  Reg ring_base = b.smem_address(ring, 0, "ring_base");
  Reg dst = (ring_base + (tid << 4u)).named("dst");
  const auto copy = [&](const Reg& k) {  // K step k into stage k % 2
    Reg src_off = b.cvt(Type::u64, (k * (kCpK * 2)).named("k_bytes"), ir::Rounding::none, "k_off");
    Reg to = (dst + ((k & 1u) * kCpStageBytes)).named("to");
    b.cp_async_cg(Addr::at(to, 0), Addr::at((a_src + src_off).named("a_at"), 0));
    b.cp_async_cg(Addr::at(to, int64_t(kCpStageBytes / 2)), Addr::at((b_src + src_off).named("b_at"), 0));
    b.cp_async_commit_group();
  };
  // The work on a landed stage: `lds` conflict-free 4-byte loads a thread (a warp's 128 bytes),
  // walking the stage's 4 KiB, as step 09's fragment loads keep the L1's data path busy.
  std::vector<Reg> sum;
  for (uint32_t j = 0; j < 4; ++j) sum.push_back(b.mov(Type::b32, 0u, "sum"));
  Reg word = (ring_base + (tid << 2u)).named("word");
  const auto work = [&](const Reg& k) {
    Reg stage = (word + ((k & 1u) * kCpStageBytes)).named("stage");
    for (uint32_t u = 0; u < lds; ++u) {
      Reg v = b.ld_shared(Type::u32, Addr::at(stage, int32_t((u * 512) % kCpStageBytes)), "s");
      b.alu_into(ir::Op::xor_, sum[u % 4], {sum[u % 4], v});
    }
  };
  Reg t0 = b.special(ir::Special::clock64, "t0");
  copy(b.mov(Type::u32, 0u, "k_first"));
  b.loop("k", ksteps - 1, [&](const Reg& k) {
    copy((k + 1u).named("k_next"));
    b.cp_async_wait_group(1);
    b.bar_sync(0);
    work(k);
    b.bar_sync(0);  // every warp is done with the stage before the next copy refills it
  });
  b.cp_async_wait_group(0);
  b.bar_sync(0);
  work(b.mov(Type::u32, ksteps - 1, "k_last"));
  probe_parts::end_with_sums(b, pc, gid, t0, sum);
  return b.finish();
}

}  // namespace gs::kernels
