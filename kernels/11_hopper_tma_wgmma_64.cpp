// Step 11 — Hopper: TMA loads + wgmma, one warpgroup, a 64×64 tile of C per CTA.
//
// What it teaches: the three Hopper pieces in their simplest arrangement (the pyptx seed
// walkthrough; fast.cu's matmul_2).
//   * TMA: one thread asks the copy engine for a 64×64 bf16 box of A and one of B; the engine
//     writes them into shared memory in the 128B-swizzled layout and counts the bytes down on
//     an mbarrier (arrive.expect_tx + complete_tx).
//   * mbarrier phases: everybody waits on the barrier's parity; the phase bit flips every
//     K-block, so the waiters flip theirs too.
//   * wgmma: the 128 threads of the warpgroup issue m64n64k16 together; A and B come from
//     shared memory through 64-bit descriptors (start address, SBO = 1024 B, 128B swizzle),
//     and each thread holds 32 f32 accumulators in the m64nNk16 fragment layout.
// Per K-block of 64, the descriptors advance 32 bytes per k16 step inside the swizzled tile
// (facts §1.4, [DEV]). One stage only: TMA and the tensor cores take turns, which is what
// the next steps fix (bigger tiles, a ring of stages, producer/consumer warpgroups).
// The epilogue scatters the accumulator fragment straight to C (f32, row-major).
//
// What changed from step 10 (Ampere): a warpgroup's wgmma instead of each warp's mma.sync,
// with A and B read by the tensor cores from shared memory through descriptors instead of
// ldmatrix into registers, and the TMA copy engine filling shared memory instead of each
// thread's cp.async. B is stored N×K (K-major), like A, so both descriptors are K-major
// (trans-a = trans-b = 0).
#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;
using layout::Swizzle;

namespace {

// The step's id: its file's name (the registry checks it).
constexpr std::string_view kId = "hopper_tma_wgmma_64";

constexpr uint32_t kBM = 64, kBN = 64, kBK = 64;  // 64 bf16 = 128 B: one 128B-swizzle row
constexpr uint32_t kWgmmaN = 64;
constexpr uint32_t kThreads = 128;  // one warpgroup
constexpr uint32_t kTileBytes = kBM * kBK * 2;

ir::Kernel build_hopper_tma_wgmma_64(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  Builder b(std::string(kId), ir::Arch::sm_90a);
  b.set_launch({.grid = {N / kBN, M / kBM, 1}, .block = {kThreads, 1, 1}});

  // Mistake wrong-swizzle: the copy engine writes the tiles unswizzled while the wgmma
  // descriptors still describe a 128B-swizzled layout.
  const Swizzle tma_swizzle = cfg.has("wrong-swizzle") ? Swizzle::none : Swizzle::b128;
  // A is M×K and B is N×K, both row-major (K contiguous): boxes of 64 K-elements × 64 rows.
  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, kBM, tma_swizzle));
  auto tmap_b = b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, kBN, tma_swizzle));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);

  // Shared memory: the two tiles on 1024-byte boundaries (the 128B swizzle repeat, so the
  // descriptor's base offset is 0), then the barrier.
  auto sA = b.operand_stages("sA", ir::GemmOperand::a, 1, kTileBytes, 1024, tma_swizzle);
  auto sB = b.operand_stages("sB", ir::GemmOperand::b, 1, kTileBytes, 1024, tma_swizzle);
  auto bar = b.mbarriers("full", ir::BarrierRole::full, 1);  // the one stage's data has landed

  Reg tid = b.special(ir::Special::tid_x, "tid");
  b.comment("this CTA's tile: rows m0.., columns n0..");
  Reg m0 = (b.special(ir::Special::ctaid_y, "cta_y") << 6).named("m0");
  Reg n0 = (b.special(ir::Special::ctaid_x, "cta_x") << 6).named("n0");
  Reg tmA = b.tensor_map_address(tmap_a, "tmA");
  Reg tmB = b.tensor_map_address(tmap_b, "tmB");
  Reg leader = (tid == 0).named("leader");

  // One thread initialises the barrier (one arrival per phase: the leader's expect_tx) and
  // makes the init visible to the copy engine before anyone uses it.
  b.if_(leader, [&] {
    b.mbarrier_init(bar.at(), 1);
    if (!cfg.has("missing-init-fence")) b.fence_mbarrier_init();
  });
  b.bar_sync(0);

  Reg a_addr = b.smem_address(sA, 0, "sA_addr");
  Reg b_addr = b.smem_address(sB, 0, "sB_addr");
  Reg a_desc = b.wgmma_descriptor(a_addr, layout::kmajor_tile_descriptor(0, Swizzle::b128), "a_desc");
  Reg b_desc = b.wgmma_descriptor(b_addr, layout::kmajor_tile_descriptor(0, Swizzle::b128), "b_desc");

  std::vector<Reg> acc;
  for (uint32_t v = 0; v < kWgmmaN / 2; ++v) acc.push_back(b.reg(Type::f32, fmt::format("acc{}", v)));
  Reg phase = b.mov(Type::u32, 0, "phase");

  b.k_loop("kb", K / kBK, [&](const Reg& kb) {
    // Thread 0 produces (asks the copy engine for the K-block); the whole warpgroup consumes.
    b.role(ir::WarpRole::producer, [&] {
      b.if_(leader, [&] {
        b.comment("the barrier completes when both boxes (2 x 8 KiB) have landed");
        // Mistake wrong-expect-tx: expect 1 KiB more than the two boxes bring.
        b.mbarrier_arrive_expect_tx(bar.at(), 2 * kTileBytes + (cfg.has("wrong-expect-tx") ? 1024 : 0));
        Reg k0 = (kb << 6).named("k0");
        b.cp_async_bulk_tensor_load(sA.at(), tmA, {k0, m0}, bar.at());
        b.cp_async_bulk_tensor_load(sB.at(), tmB, {k0, n0}, bar.at());
      });
    });
    b.role(ir::WarpRole::consumer, [&] {
      if (!cfg.has("skip-mbarrier-wait")) {
        b.comment("wait for this K-block's phase of the barrier");
        b.mbarrier_wait(bar.at(), phase);
      }
      phase ^= 1;

      if (!cfg.has("missing-wgmma-fence")) b.wgmma_fence();
      // The first wgmma of the first K-block overwrites the accumulators (scale-d = 0).
      Reg accumulate = (kb != 0).named("accumulate");
      for (uint32_t kk = 0; kk < kBK / 16; ++kk) {
        // +32 B per k16 step inside the swizzled tile = +2 in the 16-byte address field.
        Reg ad = kk == 0 ? a_desc : b.alu(ir::Op::add, Type::u64, {a_desc, 2 * kk}, fmt::format("a_desc_k{}", kk));
        Reg bd = kk == 0 ? b_desc : b.alu(ir::Op::add, Type::u64, {b_desc, 2 * kk}, fmt::format("b_desc_k{}", kk));
        if (kk == 0)
          b.wgmma_mma_async(kWgmmaN, acc, ad, bd, accumulate);
        else
          b.wgmma_mma_async(kWgmmaN, acc, ad, bd, 1);
      }
      b.wgmma_commit_group();
      b.wgmma_wait_group(0);
      b.comment("all warps are done with sA/sB before the leader refills them");
      b.bar_sync(0);
    });
  });

  b.role(ir::WarpRole::epilogue, [&] {
    // Epilogue: thread t of the warpgroup owns rows 16w + l/4 (+8) and column pairs
    // 8j + 2(l%4) of the 64×64 tile (facts §1.5): register v = 4j + 2h + e sits at
    // (row + 8h, col + 8j + e).
    Reg warp = (tid >> 5).named("warp");
    Reg lane = (tid & 31).named("lane");
    Reg row = (m0 + (warp << 4) + (lane >> 2)).named("row");
    Reg col = (n0 + ((lane & 3) << 1)).named("col");
    Reg C = b.global_ptr(pc, "C_ptr");
    Reg c_ptr = (C + b.mul_wide(row, N * 4, "c_row_off") + b.mul_wide(col, 4u, "c_col_off")).named("c_ptr");
    for (uint32_t j = 0; j < kWgmmaN / 8; ++j)
      for (uint32_t h = 0; h < 2; ++h) {
        const int64_t offset = (int64_t(8 * h) * N + 8 * j) * 4;
        b.st(ir::Op::st_global, Type::f32, Addr::at(c_ptr, offset), {acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]});
      }
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo hopper_tma_wgmma_64_info() {
  KernelInfo k;
  k.id = kId;
  k.title = "Hopper TMA + wgmma, one warpgroup, 64x64 tile";
  k.arch = ir::Arch::sm_90a;
  k.family = Family::hopper;
  k.delta = "tensor cores (wgmma m64n64k16) fed by the TMA copy engine through an mbarrier";
  k.explanation =
      "One warpgroup (128 threads) computes a 64x64 tile of C. For each 64-wide slice of K, thread 0 "
      "tells the mbarrier to expect 16 KiB and asks the TMA engine for a 64x64 box of A and of B; the "
      "engine writes both into shared memory in the 128B-swizzled layout and completes the bytes on "
      "the barrier. Everyone waits on the barrier's current phase, then the warpgroup issues four "
      "wgmma.m64n64k16 instructions whose shared-memory descriptors step 32 bytes along K. Each thread "
      "ends up with 32 f32 accumulators in the wgmma fragment layout, which the epilogue scatters to C. "
      "With a single stage, loads and math take turns: the later steps overlap them.";
  k.tile = {kBM, kBN, kBK};
  k.example_shape = {128, 128, 256};
  k.ab_dtype = DType::bf16;
  k.c_dtype = DType::f32;
  k.b_layout = BLayout::nk;
  k.constraints = {"M and N multiples of 64 (the CTA tile), at most 65536",
                   "K a multiple of 64 (one TMA box and four k16 wgmmas per step), at most 65536"};
  k.check_shape = [](const GemmShape& s, const GemmShape&) {
    require_multiple(kId, 'M', s.m, kBM, "the 64-row tile");
    require_multiple(kId, 'N', s.n, kBN, "the 64-column tile");
    require_multiple(kId, 'K', s.k, kBK, "the 64-element K step");
    require_range(kId, 'M', s.m, kBM, 65536);
    require_range(kId, 'N', s.n, kBN, 65536);
    require_range(kId, 'K', s.k, kBK, 65536);
  };
  k.mistakes = {
      {"skip-mbarrier-wait", "the warpgroup does not wait on the barrier before its wgmmas",
       "the tensor cores read sA/sB before the TMA boxes land: a tma-race hazard, and stale or zero tiles "
       "make C wrong (on the GPU it is wrong by a different, timing-dependent amount)"},
      {"wrong-swizzle", "the TMA maps write the tiles unswizzled; the wgmma descriptors still say 128B swizzle",
       "the tensor cores read bytes from the wrong 16-byte chunks: C is wrong, identically on the model and the GPU"},
      {"wrong-expect-tx", "the leader tells the barrier to expect 17 KiB but only 16 KiB arrive",
       "the transaction count never reaches zero, the phase never completes: a deadlock (the GPU hangs)"},
      {"missing-wgmma-fence", "no wgmma.fence before the K-block's wgmmas",
       "a missing-wgmma-fence hazard: the accumulators' ordering against earlier register accesses is undefined"},
      {"missing-init-fence", "no fence.mbarrier_init after mbarrier.init",
       "a missing-init-fence hazard: the copy engine may see the barrier before its initialisation"},
  };
  // m0 = ctaid.y·64, n0 = ctaid.x·64 (the tile's corner, above).
  k.cta_tile = [](const GemmShape& s, const GemmShape& tile, const std::array<uint32_t, 3>& cta) {
    return tile_of_block(s, tile, cta[1], cta[0]);
  };
  // Where this step's lesson shows: TMA, mbarriers and one warpgroup's wgmma.
  k.focus_views = {"tma", "smem", "fragments"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_tma_load}, {StopKind::tma_lands}, {StopKind::first_wgmma}, {StopKind::first_c_store}};
  k.pictures = {"swizzle --mode 128B", "wgmma-acc --n 64", "smem"};
  k.build = build_hopper_tma_wgmma_64;
  return k;
}

}  // namespace gs::kernels
