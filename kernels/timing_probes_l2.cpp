// The L2 probes of a GEMM wave's geometry: TMA copies of 64x64 bf16 boxes read as a GEMM of
// 64x64 tiles reads its A and B panels, with or without the tensor cores' work between them
// (timing_probes.hpp, build_tma_gemm_probe).
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "engine/layout/swizzle.hpp"
#include "kernels/hopper_parts.hpp"
#include "kernels/timing_probe_parts.hpp"
#include "kernels/timing_probes.hpp"

namespace gs::kernels {

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

}  // namespace gs::kernels
