// Step 12 — Hopper: a 128×128 tile of C per CTA (fast.cu's matmul_3).
//
// What it teaches: arithmetic intensity. Step 11 loads 16 KiB per K-block for a 64×64 tile:
// 2·64·64·64 FLOP per 16 KiB. Doubling both sides of the tile doubles the FLOP per byte
// loaded (32 KiB for 2·128·128·64), so the same memory traffic keeps the tensor cores busy
// twice as long, and each wgmma is bigger: m64n128k16 keeps the SM's tensor cores busy for 64
// clocks where m64n64k16 took 32, so the fixed cost of issuing and waiting is spread thinner.
//
// What changed from step 11:
//   * The TMA boxes are 64 K-elements × 128 rows (16 KiB each, still 128B-swizzled).
//   * The warpgroup issues two m64n128k16 per k16 step: one per 64-row slab of A. The second
//     slab starts 64 rows × 128 B = 8 KiB further on (+512 in the descriptor's address
//     field); both read the same 128-row B descriptor (16 core-matrix groups, SBO 1024 B).
//   * Each thread holds 2 × 64 f32 accumulators (128 registers).
//   * Any M, N, K that are multiples of 8: the grid is rounded up, TMA zero-fills the rows and
//     K-columns of a box that fall outside A or B (so they add nothing), and the epilogue skips
//     the stores outside C. The last K-block of K = 200 is a 64-wide box with 56 zero columns.
// Still one stage: the copy engine and the tensor cores take turns (the next step overlaps them).
#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/hopper_parts.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels {

using builder::Builder;
using builder::Reg;
using tma_ring::kBK;
using ir::Type;
using layout::Swizzle;

namespace {

constexpr std::string_view kId = "hopper_tile_128";

constexpr uint32_t kBM = 128, kBN = 128;
constexpr uint32_t kThreads = 128;  // one warpgroup
constexpr uint32_t kABytes = kBM * kBK * 2, kBBytes = kBN * kBK * 2;
constexpr uint32_t kSlabBytes = 64 * kBK * 2;  // one m64 slab of the A tile: 8 KiB

ir::Kernel build_hopper_tile_128(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  Builder b(std::string(kId), ir::Arch::sm_90a);
  b.set_launch({.grid = {hopper::ceil_div(N, kBN), hopper::ceil_div(M, kBM), 1}, .block = {kThreads, 1, 1}});

  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, kBM, Swizzle::b128));
  auto tmap_b = b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, kBN, Swizzle::b128));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);

  auto sA = b.operand_stages("sA", ir::GemmOperand::a, 1, kABytes, 1024, Swizzle::b128);
  auto sB = b.operand_stages("sB", ir::GemmOperand::b, 1, kBBytes, 1024, Swizzle::b128);
  auto bar = b.mbarriers("full", ir::BarrierRole::full, 1);
  b.use_dynamic_smem();  // 32 KiB of tiles + the barrier; dynamic like every later step

  Reg tid = b.special(ir::Special::tid_x, "tid");
  b.comment("this CTA's tile: rows m0.., columns n0..");
  Reg m0 = (b.special(ir::Special::ctaid_y, "cta_y") << 7).named("m0");
  Reg n0 = (b.special(ir::Special::ctaid_x, "cta_x") << 7).named("n0");
  Reg tmA = b.tensor_map_address(tmap_a, "tmA");
  Reg tmB = b.tensor_map_address(tmap_b, "tmB");
  Reg leader = (tid == 0).named("leader");

  b.if_(leader, [&] {
    b.mbarrier_init(bar.at(), 1);
    b.fence_mbarrier_init();
  });
  b.bar_sync(0);

  Reg a_addr = b.smem_address(sA, 0, "sA_addr");
  Reg b_addr = b.smem_address(sB, 0, "sB_addr");
  const layout::WgmmaDescriptor sw128 = layout::kmajor_tile_descriptor(0, Swizzle::b128);
  Reg a_desc0 = b.wgmma_descriptor(a_addr, sw128, "a_desc0");
  // Mistake slab-overlap: the second slab's descriptor starts 4 KiB (32 rows) on, not 8 KiB.
  const uint32_t slab_step = cfg.has("slab-overlap") ? kSlabBytes / 2 : kSlabBytes;
  Reg a_desc1 = b.alu(ir::Op::add, Type::u64, {a_desc0, slab_step >> 4}, "a_desc1");
  Reg b_desc = b.wgmma_descriptor(b_addr, sw128, "b_desc");

  const std::vector<std::vector<Reg>> acc = {hopper::accumulators(b, kBN, "acc0_"),
                                             hopper::accumulators(b, kBN, "acc1_")};
  Reg phase = b.mov(Type::u32, 0, "phase");

  b.k_loop("kb", hopper::ceil_div(K, kBK), [&](const Reg& kb) {
    b.role(ir::WarpRole::producer, [&] {
      b.if_(leader, [&] {
        b.comment("the barrier completes when both boxes (2 x 16 KiB, zero-filled past the edges) have landed");
        b.mbarrier_arrive_expect_tx(bar.at(), kABytes + kBBytes);
        Reg k0 = (kb << 6).named("k0");
        b.cp_async_bulk_tensor_load(sA.at(), tmA, {k0, m0}, bar.at());
        b.cp_async_bulk_tensor_load(sB.at(), tmB, {k0, n0}, bar.at());
      });
    });
    b.role(ir::WarpRole::consumer, [&] {
      b.mbarrier_wait(bar.at(), phase);
      phase ^= 1;
      b.wgmma_fence();
      hopper::wgmma_k_block(b, kBN, acc, {a_desc0, a_desc1}, b_desc, (kb != 0).named("accumulate"));
      b.wgmma_commit_group();
      b.wgmma_wait_group(0);
      b.comment("all warps are done with sA/sB before the leader refills them");
      b.bar_sync(0);
    });
  });

  b.role(ir::WarpRole::epilogue, [&] {
    Reg C = b.global_ptr(pc, "C_ptr");
    hopper::store_tile_clipped(b, acc[0], kBN, C, tid, m0, n0, M, N);
    Reg m64 = (m0 + 64).named("m0_64");
    hopper::store_tile_clipped(b, acc[1], kBN, C, tid, m64, n0, M, N);
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo hopper_tile_128_info() {
  KernelInfo k;
  hopper::set_hopper_info(k, kId, {kBM, kBN, kBK});
  k.title = "Hopper TMA + wgmma, 128x128 tile";
  k.delta = "a 128x128 tile: two m64n128k16 wgmmas per k16 step, twice the FLOP per byte loaded; any M, N, K "
            "multiple of 8";
  k.explanation =
      "The same single warpgroup and single stage as the 64x64 step, with a four times larger tile of C. "
      "Per 64-wide slice of K the copy engine brings a 128x64 box of A and of B (32 KiB), and the warpgroup "
      "issues two wgmma.m64n128k16 per k16 step, one for each 64-row half of A, both against the whole B "
      "tile. Each byte loaded now feeds twice the math, and each wgmma keeps the tensor cores busy twice as "
      "long, so less time goes to waiting. Each thread holds 128 f32 accumulators. Shapes need not be "
      "multiples of the tile: TMA fills the parts of an edge box outside A or B with zeros, and the "
      "epilogue skips stores outside C. Loads and math still take turns.";
  k.example_shape = {256, 256, 256};
  k.mistakes = {
      {"slab-overlap", "the second m64 slab's A descriptor starts 32 rows (4 KiB) on instead of 64 rows (8 KiB)",
       "rows 64..127 of each tile are computed from rows 32..95 of A: C is wrong, identically on the model and "
       "the GPU"},
  };
  k.cta_tile = [](const GemmShape& s, const GemmShape& tile, const std::array<uint32_t, 3>& cta) {
    return tile_of_block(s, tile, cta[1], cta[0]);
  };
  // Where this step's lesson shows: a 128-wide tile: more math per byte loaded.
  k.focus_views = {"tma", "throughput", "diff"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_tma_load}, {StopKind::first_wgmma}, {StopKind::pipeline_drains}};
  k.pictures = {"wgmma-acc --n 128", "tma"};
  k.build = build_hopper_tile_128;
  return k;
}

}  // namespace gs::kernels
