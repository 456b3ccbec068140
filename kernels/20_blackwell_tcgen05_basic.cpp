// Step 20 — Blackwell: TMA loads + tcgen05.mma into tensor memory, a 128×128 tile per CTA.
//
// What it teaches: the Blackwell twin of step 11 (one CTA, one stage, TMA into 128B-swizzled
// tiles), with the three things sm_100a changes:
//   * Tensor memory (TMEM): the accumulator lives in a 128-lane × 512-column × 32-bit memory
//     beside the tensor core, not in registers. Warp 0 allocates 128 columns with
//     tcgen05.alloc (the hardware writes the base address into shared memory) and frees them
//     with tcgen05.dealloc before the CTA exits. Row i of the 128×128 f32 tile is lane i,
//     column j is column base + j.
//   * One thread issues the MMA: tcgen05.mma.cta_group::1.kind::f16 computes the whole
//     128×128×16 product, reading A and B from shared memory through sm_100 descriptors (a
//     version field at bit 46 and new layout codes: 2 = 128B swizzle, where sm_90 said 1) and
//     taking M, N and the majors from a 32-bit instruction descriptor.
//   * Completion through an mbarrier: tcgen05.mma is asynchronous and has no wait_group;
//     tcgen05.commit makes an mbarrier receive one arrival once the thread's MMAs are done.
// The epilogue: warp w may read only TMEM lanes 32w..32w+31 (its quarter), so the four warps
// each read their 32 rows with tcgen05.ld.32x32b.x32 (thread i gets lane 32w + i, register j
// column j), wait with tcgen05.wait::ld, and store to C.
//
// What changed from step 11: no per-thread accumulators and no warpgroup-wide MMA; the same
// TMA and mbarrier; a 128-row tile because one tcgen05.mma covers M = 128.
//
// And from step 19, the step before it on the ladder, the GPU changes: steps 11-19 run on Hopper
// (sm_90a); from here the kernels need sm_100a, since tcgen05 and tensor memory exist only on
// Blackwell, and an H100 or H200 refuses them. No Blackwell GPU was run here, so steps 20-23
// have no measured figure: their speeds are the model's on a B200, from NVIDIA's published B200
// figures, unconfirmed. Compare them with each other, not with the measured Hopper steps.
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

constexpr std::string_view kId = "blackwell_tcgen05_basic";

constexpr uint32_t kBM = 128, kBN = 128, kBK = 64;  // 64 bf16 = 128 B: one 128B-swizzle row
constexpr uint32_t kThreads = 128;                   // four warps: one per TMEM lane quarter
constexpr uint32_t kTileBytes = kBM * kBK * 2;       // A and B tiles alike (kBN == kBM)
constexpr uint32_t kColumns = kBN;                   // f32 accumulator: one column per C column
constexpr uint32_t kLoadColumns = 32;                // tcgen05.ld.32x32b.x32: 32 columns per load

ir::Kernel build_blackwell_tcgen05_basic(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  Builder b(std::string(kId), ir::Arch::sm_100a);
  b.set_launch({.grid = {(N + kBN - 1) / kBN, (M + kBM - 1) / kBM, 1}, .block = {kThreads, 1, 1}});

  // A is M×K and B is N×K, both K-contiguous: boxes of 64 K-elements × 128 rows. Boxes past
  // the edges of A and B are zero-filled by the copy engine, so edge tiles need no care
  // until the stores.
  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, kBM, Swizzle::b128));
  auto tmap_b = b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, kBN, Swizzle::b128));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);

  auto sA = b.operand_stages("sA", ir::GemmOperand::a, 1, kTileBytes, 1024, Swizzle::b128);
  auto sB = b.operand_stages("sB", ir::GemmOperand::b, 1, kTileBytes, 1024, Swizzle::b128);
  auto full = b.mbarriers("full", ir::BarrierRole::full, 1);        // the K-block's tiles have landed
  auto mma_done = b.mbarriers("mma_done", ir::BarrierRole::empty, 1);  // its MMAs have read them
  auto tmem_slot = b.shared("tmem_slot", 4, 16, ir::SmemUse::other);  // where tcgen05.alloc writes

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg warp = (tid >> 5).named("warp");
  Reg lane = (tid & 31).named("lane");
  b.comment("this CTA's tile: rows m0.., columns n0..");
  Reg m0 = (b.special(ir::Special::ctaid_y, "cta_y") << 7).named("m0");
  Reg n0 = (b.special(ir::Special::ctaid_x, "cta_x") << 7).named("n0");
  Reg tmA = b.tensor_map_address(tmap_a, "tmA");
  Reg tmB = b.tensor_map_address(tmap_b, "tmB");
  Reg leader = (tid == 0).named("leader");

  b.if_(leader, [&] {
    b.mbarrier_init(full.at(), 1);
    b.mbarrier_init(mma_done.at(), 1);  // one arrival per phase: the leader's tcgen05.commit
    b.fence_mbarrier_init();
  });
  b.comment("warp 0 allocates the accumulator's 128 TMEM columns; the address lands in tmem_slot");
  b.if_((warp == 0).named("allocator"), [&] {
    b.tcgen05_alloc(tmem_slot.at(), kColumns);
    b.tcgen05_relinquish_alloc_permit();  // no more allocations: other CTAs on the SM may allocate
  });
  // The allocation (a tcgen05 op) is ordered before the barrier, and reading its address after.
  b.tcgen05_fence_before_thread_sync();
  b.bar_sync(0);
  b.tcgen05_fence_after_thread_sync();
  Reg tmem = b.ld_shared(Type::u32, tmem_slot.at(), "tmem");

  b.role(ir::WarpRole::mma_issuer, [&] {
    b.if_(leader, [&] {
      Reg a_addr = b.smem_address(sA, 0, "sA_addr");
      Reg b_addr = b.smem_address(sB, 0, "sB_addr");
      const layout::UmmaSmemDescriptor tile =
          layout::umma_descriptor_from(layout::kmajor_tile_descriptor(0, Swizzle::b128));
      Reg a_desc = b.umma_descriptor(a_addr, tile, "a_desc");
      Reg b_desc = b.umma_descriptor(b_addr, tile, "b_desc");
      Reg idesc = b.tmem_instr_descriptor({.m = kBM, .n = kBN}, "idesc");
      Reg phase = b.mov(Type::u32, 0, "phase");
      Reg always = (tid == 0).named("always");  // true: this is thread 0
      b.k_loop("kb", (K + kBK - 1) / kBK, [&](const Reg& kb) {
        b.comment("the full barrier completes when both boxes (2 x 16 KiB) have landed");
        b.mbarrier_arrive_expect_tx(full.at(), 2 * kTileBytes);
        Reg k0 = (kb << 6).named("k0");
        b.cp_async_bulk_tensor_load(sA.at(), tmA, {k0, m0}, full.at());
        b.cp_async_bulk_tensor_load(sB.at(), tmB, {k0, n0}, full.at());
        b.mbarrier_wait(full.at(), phase);
        b.tcgen05_fence_after_thread_sync();
        for (uint32_t kk = 0; kk < kBK / 16; ++kk) {
          // +32 B per k16 step inside the swizzled tile = +2 in the 16-byte address field.
          Reg ad = kk == 0 ? a_desc : b.alu(ir::Op::add, Type::u64, {a_desc, 2 * kk}, fmt::format("a_desc_k{}", kk));
          Reg bd = kk == 0 ? b_desc : b.alu(ir::Op::add, Type::u64, {b_desc, 2 * kk}, fmt::format("b_desc_k{}", kk));
          // The very first MMA overwrites D (enable_input_d false); the rest accumulate.
          Reg accumulate = kk == 0 ? (kb != 0).named("accumulate") : always;
          b.tcgen05_mma(Addr::at(tmem), ad, bd, idesc, accumulate);
        }
        b.comment("one arrival on mma_done once these MMAs have read sA/sB and written TMEM");
        b.tcgen05_commit(mma_done.at());
        // Mistake ld-before-commit: the leader never waits for the commits, so the epilogue
        // below reads TMEM while the last MMAs are still running (and TMA refills the tiles
        // the MMAs read).
        if (!cfg.has("ld-before-commit")) b.mbarrier_wait(mma_done.at(), phase);
        phase ^= 1;
      });
    });
  });

  b.role(ir::WarpRole::epilogue, [&] {
    b.comment("the leader saw the last commit arrive: the accumulator in TMEM is complete");
    b.tcgen05_fence_before_thread_sync();
    b.bar_sync(0);
    b.tcgen05_fence_after_thread_sync();
    // Warp w reads TMEM lanes 32w..32w+31 = rows 32w.. of the tile: lane field 32w in bits
    // 31-16 of the address. Mistake wrong-lane-quarter: warp w names quarter (w + 1) % 4.
    Reg quarter = cfg.has("wrong-lane-quarter") ? ((warp + 1) & 3).named("quarter") : warp;
    Reg row = (m0 + (warp << 5) + lane).named("row");
    Reg C = b.global_ptr(pc, "C_ptr");
    Reg c_row = (C + b.mul_wide(row, N * 4, "c_row_off") + b.mul_wide(n0, 4u, "c_col_off")).named("c_row");
    Reg row_inside = (row < M).named("row_inside");
    Reg cols_left = b.alu(ir::Op::sub, Type::u32, {b.mov(Type::u32, N, "N"), n0}, "cols_left");  // >= 1
    for (uint32_t c0 = 0; c0 < kBN; c0 += kLoadColumns) {
      Reg taddr = (tmem + (quarter << 21) + c0).named("taddr");
      std::vector<Reg> v = b.tcgen05_ld_32x32b(kLoadColumns, Addr::at(taddr), fmt::format("d{}_", c0));
      b.tcgen05_wait_ld();
      // N is a multiple of 8: each 8-column piece of the row is wholly inside C or outside.
      for (uint32_t j = 0; j < kLoadColumns; j += 8) {
        Reg inside = b.alu(ir::Op::and_, Type::pred, {row_inside, (cols_left > c0 + j).named("col_inside")}, "inside");
        b.if_(inside, [&] {
          const int64_t offset = int64_t(c0 + j) * 4;
          b.st(ir::Op::st_global, Type::b32, Addr::at(c_row, offset), {v[j], v[j + 1], v[j + 2], v[j + 3]});
          b.st(ir::Op::st_global, Type::b32, Addr::at(c_row, offset + 16), {v[j + 4], v[j + 5], v[j + 6], v[j + 7]});
        });
      }
    }
    b.comment("every warp has read its lanes: warp 0, which allocated, frees the columns");
    b.tcgen05_fence_before_thread_sync();
    b.bar_sync(0);
    b.tcgen05_fence_after_thread_sync();
    // Mistake no-dealloc: the CTA exits with its 128 columns still allocated.
    if (!cfg.has("no-dealloc"))
      b.if_((warp == 0).named("allocator"), [&] { b.tcgen05_dealloc(tmem, kColumns); });
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo blackwell_tcgen05_basic_info() {
  KernelInfo k;
  k.id = kId;
  k.title = "Blackwell TMA + tcgen05.mma into tensor memory, 128x128 tile";
  k.arch = ir::Arch::sm_100a;
  k.family = Family::blackwell;
  k.delta = "the accumulator in tensor memory: one thread issues tcgen05.mma, tcgen05.commit signals an mbarrier, "
            "four warps read their lane quarters with tcgen05.ld";
  k.explanation =
      "One CTA of four warps computes a 128x128 tile of C. Warp 0 allocates 128 columns of tensor memory "
      "(TMEM, 128 lanes x 512 columns of 32 bits beside the tensor core); the hardware writes their address "
      "into shared memory. For each 64-wide slice of K, one thread asks the TMA engine for a 128x64 box of A "
      "and of B (128B-swizzled), waits on the full barrier, and issues four tcgen05.mma instructions, each "
      "a whole 128x128x16 product written into TMEM, then tcgen05.commit, which makes the mma_done barrier "
      "receive one arrival when those MMAs finish. After the last K slice each warp reads the 32 TMEM lanes "
      "of its quarter (rows 32w..32w+31) with tcgen05.ld.32x32b and stores them to C; warp 0 frees the "
      "columns. No register holds an accumulator until the epilogue.";
  k.tile = {kBM, kBN, kBK};
  k.example_shape = {256, 256, 256};
  k.ab_dtype = DType::bf16;
  k.c_dtype = DType::f32;
  k.b_layout = BLayout::nk;
  k.constraints = {"M, N and K multiples of 8 (TMA needs 16-byte row strides; the epilogue stores 8 columns at a time), "
                   "at most 65536; edge tiles are zero-filled by TMA and clipped at the stores"};
  k.check_shape = [](const GemmShape& s, const GemmShape&) {
    require_multiple(kId, 'M', s.m, 8, "the 8-row granule of the stores");
    require_multiple(kId, 'N', s.n, 8, "the 8-column pieces of the stores");
    require_multiple(kId, 'K', s.k, 8, "the 16-byte rows of the TMA boxes");
    require_range(kId, 'M', s.m, 8, kMaxGemmDimension);
    require_range(kId, 'N', s.n, 8, kMaxGemmDimension);
    require_range(kId, 'K', s.k, 8, kMaxGemmDimension);
  };
  k.mistakes = {
      {"ld-before-commit", "the MMA thread never waits on mma_done: the epilogue reads TMEM after a bar.sync only",
       "tcgen05.ld reads columns whose tcgen05.mma has not completed: a tmem-read-before-commit hazard (on the GPU "
       "the epilogue reads a partial accumulator, and TMA refills tiles the MMAs are still reading)"},
      {"wrong-lane-quarter", "warp w reads TMEM lanes of quarter (w + 1) % 4",
       "a tmem-wrong-lane-quarter hazard: a warp may touch only lanes 32*(w%4)..+31, and each row of C gets another "
       "warp's rows"},
      {"no-dealloc", "warp 0 never frees the 128 TMEM columns",
       "a tmem-not-freed hazard: the CTA exits with tensor memory allocated, and the SM's next CTA cannot allocate"},
  };
  k.cta_tile = [](const GemmShape& s, const GemmShape& tile, const std::array<uint32_t, 3>& cta) {
    return tile_of_block(s, tile, cta[1], cta[0]);
  };
  // Where this step's lesson shows: the accumulator in tensor memory.
  k.focus_views = {"tmem", "tma", "timeline"};
  // The moments of its run the lesson stops at (kernels/stops.def), and the article's pictures of it.
  k.stops = {{StopKind::first_tma_load}, {StopKind::tcgen05_mma}, {StopKind::tcgen05_commit}, {StopKind::tmem_read}};
  k.pictures = {"tcgen05-32x32b --x 32", "tmem"};
  k.build = build_blackwell_tcgen05_basic;
  return k;
}

}  // namespace gs::kernels
