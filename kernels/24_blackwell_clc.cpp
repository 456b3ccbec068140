// Step 24 — Blackwell: cluster launch control, a grid that hands out its own tiles.
//
// What it teaches: step 23's persistent grid walks a static schedule: CTA c takes tiles c,
// c + 148, c + 296, ... whatever happens on the GPU. If some SMs are busy with another kernel,
// or some tiles take longer, the walk cannot adapt. Here the grid is launched the ordinary way,
// one CTA per tile, and the CTAs that are running ask the GPU for work that has not started:
//   clusterlaunchcontrol.try_cancel [response], [clc_full]
// cancels the launch of a CTA (a cluster of one) that has not started yet, if there is one, and
// writes a 16-byte answer into shared memory: "cancelled CTA x", or "none left". The asker then
// computes the cancelled CTA's tile itself, so the tile is computed exactly once and the CTA that
// would have computed it never runs. The answer arrives like a TMA load: it completes 16 bytes
// on an mbarrier (the asker arrives there with expect_tx 16 first), and only after a wait on that
// barrier may a thread read it, with ld.shared.b128 into a 128-bit register, and decode it:
//   query_cancel.is_canceled.pred.b128   p, answer   was a CTA cancelled?
//   query_cancel.get_first_ctaid::x      x, answer   its ctaid.x: the next tile (grouped order)
// Once an answer said "none left", asking again is undefined (PTX ISA): the loops end there.
//
// Each answer is read by all three roles (they all need the next tile), so the answers form a
// ring of two slots with its own barriers, as the stages and the accumulators do:
//   clc_full[s]    the TMA thread's arrive.expect_tx(16) plus the answer's 16 bytes;
//   clc_empty[s]   every reader arrives once it has decoded the answer (1 TMA thread + 1 MMA
//                  thread + 128 epilogue threads): the slot may take the next answer.
//
// Phases, as the code runs them:
//   launch       one CTA per tile, tile = ctaid.x in the grouped order (step 15); the GPU runs
//                as many as fit (one per SM), the rest wait in its queue;
//   barriers     the ring's full/empty per stage, tmem_full[2] / tmem_empty[2] (step 23), and
//                clc_full[2] / clc_empty[2] for the answers; warp 5 allocates 512 TMEM columns;
//   TMA warp     (warp 4) one thread, per tile: ask for the next tile (try_cancel into answer
//                slot s), load this tile's K-blocks into the ring, then wait for the answer and
//                read it; go on while it says a CTA was cancelled, with that CTA's tile;
//   MMA warp     (warp 5) one elected thread, per tile: step 23's accumulation into buffer acc,
//                then read the same answer to know whether another tile follows;
//   epilogue     (warps 0-3) per tile: step 23's drain of buffer acc, clipped at C's edges, then
//                read the answer for the next tile's corner;
//   end          bar.sync, and warp 5 frees the 512 columns.
// The Schedule view shows the result: which CTA computed which tile and when. The first wave's
// CTAs compute their own tiles; each later tile goes to whichever CTA asked first, not to a fixed
// CTA, and the cancelled CTAs never appear.
//
// What changed from step 23: the grid is one CTA per tile (no "ctas" parameter); the static walk
// (my_tiles, cta + i·ctas) is gone, and each role's tile loop runs while the answers say "a CTA
// was cancelled"; the answer ring (clc_response[2], clc_full[2], clc_empty[2]) is new.
#include <functional>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/hopper_parts.hpp"
#include "kernels/registry.hpp"
#include "kernels/tcgen05_parts.hpp"
#include "kernels/tile_order.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::CtaGroup;
using builder::Reg;
using tma_ring::kBK;
using ir::Type;
using layout::Swizzle;

namespace {

constexpr std::string_view kId = "blackwell_clc";

constexpr uint32_t kBM = 128, kBN = 256;
constexpr uint32_t kStages = 4;
constexpr uint32_t kThreads = 6 * 32;     // warps 0-3 epilogue, 4 TMA, 5 MMA
constexpr uint32_t kTmaWarp = 4, kMmaWarp = 5;
constexpr uint32_t kAccumulators = 2;     // the ring of accumulators in TMEM (step 23)
constexpr uint32_t kTmemColumns = kAccumulators * kBN;
constexpr uint32_t kEpilogueThreads = 4 * 32;
constexpr uint32_t kABytes = kBM * kBK * 2, kBBytes = kBN * kBK * 2;
constexpr uint32_t kGroupM = 16;          // tile-rows per group of the tile order (step 15)
constexpr uint32_t kAnswerSlots = 2;      // the ring of try_cancel answers
constexpr uint32_t kAnswerBytes = 16;     // one answer: opaque, 16 bytes, 16-byte aligned
constexpr uint32_t kAnswerReaders = 1 + 1 + kEpilogueThreads;  // clc_empty's arrivals: TMA, MMA, epilogue

// The deliberate mistakes, each with what it changes (the registry entry says the symptom).
constexpr const char* kReadBeforeWait = "read-answer-before-wait";  // no wait on clc_full before ld.shared.b128
constexpr const char* kAskAfterEmpty = "ask-after-none-left";       // one more try_cancel after "none left"

ir::Kernel build_blackwell_clc(const GemmConfig& cfg) {
  const auto [M, N, K] = cfg.shape;
  Builder b(std::string(kId), ir::Arch::sm_100a);
  const uint32_t tiles_m = hopper::ceil_div(M, kBM), tiles_n = hopper::ceil_div(N, kBN);
  const uint32_t tiles = tiles_m * tiles_n;
  b.set_launch({.grid = {tiles, 1, 1}, .block = {kThreads, 1, 1}});
  b.set_min_ctas_per_sm(1);  // as step 23: one CTA per SM, 118 registers without a spill
  // The launch order: CTA c's own tile is tile c. Which CTA computes a later tile is decided
  // while the grid runs (the model records it: the Schedule view).
  b.declare_tile_walk(tile_order::walk(tile_order::Order::grouped, tiles_m, tiles_n, kGroupM, tiles, 1, tiles_m));

  auto tmap_a = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, K, M, kBK, kBM, Swizzle::b128));
  auto tmap_b = b.tensor_map_param("tmap_B", ir::row_major_bf16_map(ir::ParamRole::b, K, N, kBK, kBN, Swizzle::b128));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const tma_ring::Ring ring = tma_ring::declare_ring(b, kStages, kABytes, kBBytes);
  const builder::Smem tmem_full = b.mbarriers("tmem_full", ir::BarrierRole::other, kAccumulators);
  const builder::Smem tmem_empty = b.mbarriers("tmem_empty", ir::BarrierRole::other, kAccumulators);
  const builder::Smem clc_full = b.mbarriers("clc_full", ir::BarrierRole::other, kAnswerSlots);
  const builder::Smem clc_empty = b.mbarriers("clc_empty", ir::BarrierRole::other, kAnswerSlots);
  const builder::Smem answers = b.shared("clc_response", kAnswerSlots * kAnswerBytes, 16, ir::SmemUse::other);
  const builder::Smem tmem_slot = b.shared("tmem_slot", 4, 16, ir::SmemUse::other);

  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg warp = (tid >> 5).named("warp");
  Reg lane = (tid & 31).named("lane");
  Reg cta = b.special(ir::Special::ctaid_x, "cta");
  const auto tile_corner = [&](const Reg& tile) {
    return tile_order::tile_corner(b, tile_order::Order::grouped, tile, tiles_m, tiles_n, kGroupM, kBM, kBN);
  };
  const uint32_t k_blocks = hopper::ceil_div(K, kBK);

  b.if_((tid == 0).named("init_thread"), [&] {
    for (uint32_t a = 0; a < kAccumulators; ++a) {
      b.mbarrier_init(tmem_full.at(8 * a), 1);
      b.mbarrier_init(tmem_empty.at(8 * a), kEpilogueThreads);
    }
    for (uint32_t s = 0; s < kAnswerSlots; ++s) {
      b.mbarrier_init(clc_full.at(8 * s), 1);
      b.mbarrier_init(clc_empty.at(8 * s), kAnswerReaders);
    }
  });
  tma_ring::init_ring(b, ring, tid, 1);
  Reg tmem_full_base = b.smem_address(tmem_full, 0, "tmem_full_base");
  Reg tmem_empty_base = b.smem_address(tmem_empty, 0, "tmem_empty_base");
  Reg clc_full_base = b.smem_address(clc_full, 0, "clc_full_base");
  Reg clc_empty_base = b.smem_address(clc_empty, 0, "clc_empty_base");
  Reg answer_base = b.smem_address(answers, 0, "answer_base");
  const auto full_of = [&](const Reg& acc) { return Addr::at((tmem_full_base + (acc << 3)).named("tmem_full_acc")); };
  const auto empty_of = [&](const Reg& acc) { return Addr::at((tmem_empty_base + (acc << 3)).named("tmem_empty_acc")); };
  const auto answer_full = [&](const Reg& s) { return Addr::at((clc_full_base + (s << 3)).named("clc_full_s")); };
  const auto answer_empty = [&](const Reg& s) { return Addr::at((clc_empty_base + (s << 3)).named("clc_empty_s")); };
  const auto answer_at = [&](const Reg& s) { return Addr::at((answer_base + s * kAnswerBytes).named("answer")); };
  Reg mma_warp = (warp == kMmaWarp).named("mma_warp");
  Reg tmem = blackwell::allocate_tmem(b, tmem_slot, mma_warp, kTmemColumns, CtaGroup::one);

  // The TMA thread's request for the next tile into slot s, once every reader is done with the
  // slot's previous answer (a fresh barrier passes parity 1).
  const auto ask = [&](const Reg& s, const Reg& s_phase) {
    b.mbarrier_wait(answer_empty(s), s_phase ^ 1);
    b.mbarrier_arrive_expect_tx(answer_full(s), kAnswerBytes);
    b.clc_try_cancel(answer_at(s), answer_full(s));
  };
  // Every reader's part: wait for the answer in slot s, decode it, give the slot back, step on.
  // Returns (a CTA was cancelled, its ctaid.x: the next tile).
  struct Answer {
    Reg more, tile;
  };
  const auto read_answer = [&](Reg& s, Reg& s_phase) {
    // Mistake read-answer-before-wait: the answer is loaded before it has landed.
    if (!cfg.has(kReadBeforeWait)) b.mbarrier_wait(answer_full(s), s_phase);
    Reg answer = b.ld_shared_b128(answer_at(s), "answer");
    Answer a{b.clc_query_is_canceled(answer, "cancelled"), b.clc_query_first_ctaid_x(answer, "next_tile")};
    b.mbarrier_arrive(answer_empty(s));
    tma_ring::next_stage(b, s, s_phase, kAnswerSlots);
    return a;
  };
  // do { body(tile); } while (the answer said a CTA was cancelled): the tile loop of each role.
  const auto tile_loop = [&](const std::string& name, const std::function<Reg(Reg& tile)>& body) {
    Reg tile = b.mov(Type::u32, cta, "tile");  // the first tile is this CTA's own
    builder::Label top = b.label("L_" + name);
    b.bind(top);
    Reg more = body(tile);
    b.bra_if(more, top);
  };

  b.comment("warp 4: one thread asks for the next tile, then fills the ring with this one");
  b.if_((tid == kTmaWarp * 32).named("tma_thread"), [&] {
    b.role(ir::WarpRole::producer, [&] {
      Reg tmA = b.tensor_map_address(tmap_a, "tmA");
      Reg tmB = b.tensor_map_address(tmap_b, "tmB");
      Reg stage = b.mov(Type::u32, 0, "stage");
      Reg phase = b.mov(Type::u32, 0, "phase");
      Reg slot = b.mov(Type::u32, 0, "slot");
      Reg slot_phase = b.mov(Type::u32, 0, "slot_phase");
      tile_loop("tile_load", [&](Reg& tile) {
        b.comment("ask early: the answer travels while this tile's loads are issued");
        ask(slot, slot_phase);
        const hopper::TileCorner at = tile_corner(tile);
        b.k_loop("kb_load", k_blocks, [&](const Reg& kb) {
          tma_ring::produce_k_block(b, ring, stage, phase, tmA, tmB, kb, at.m0, at.n0);
        });
        const Answer next = read_answer(slot, slot_phase);
        b.mov(tile, next.tile);
        return next.more;
      });
      // Mistake ask-after-none-left: one more request after the answer said none was left.
      if (cfg.has(kAskAfterEmpty)) ask(slot, slot_phase);
    });
  });

  b.comment("warp 5: one elected thread accumulates each tile, then reads the answer: is there another?");
  b.if_(mma_warp, [&] {
    b.role(ir::WarpRole::mma_issuer, [&] {
      Reg elected = b.elect_sync("mma_thread");
      b.if_(elected, [&] {
        const layout::UmmaSmemDescriptor sw128 =
            layout::umma_descriptor_from(layout::kmajor_tile_descriptor(0, Swizzle::b128));
        Reg idesc = b.tmem_instr_descriptor({.m = kBM, .n = kBN}, "idesc");
        Reg always = b.mov(Type::pred, 1, "always");
        Reg stage = b.mov(Type::u32, 0, "stage");
        Reg phase = b.mov(Type::u32, 0, "phase");
        Reg acc = b.mov(Type::u32, 0, "acc");
        Reg acc_phase = b.mov(Type::u32, 0, "acc_phase");
        Reg slot = b.mov(Type::u32, 0, "slot");
        Reg slot_phase = b.mov(Type::u32, 0, "slot_phase");
        tile_loop("tile", [&](Reg& tile) {
          (void)tile;  // the MMA thread needs no corner: the TMA thread placed the tile's boxes
          b.mbarrier_wait(empty_of(acc), acc_phase ^ 1);
          b.tcgen05_fence_after_thread_sync();
          Reg d_tmem = b.mov(Type::b32, (tmem + acc * kBN).named("acc_columns"), "d_tmem");
          b.k_loop("kb", k_blocks, [&](const Reg& kb) {
            b.mbarrier_wait(ring.full_at(stage), phase);
            b.tcgen05_fence_after_thread_sync();
            Reg a_desc = b.umma_descriptor(ring.a_at(stage), sw128, "a_desc");
            Reg b_desc = b.umma_descriptor(ring.b_at(stage), sw128, "b_desc");
            blackwell::mma_k_block(b, d_tmem, a_desc, b_desc, idesc, (kb != 0).named("accumulate"), always, CtaGroup::one);
            b.tcgen05_commit(ring.empty_at(stage));
            tma_ring::next_stage(b, stage, phase, kStages);
          });
          b.tcgen05_commit(full_of(acc));
          tma_ring::next_stage(b, acc, acc_phase, kAccumulators);
          return read_answer(slot, slot_phase).more;
        });
      });
    });
  });

  b.comment("warps 0-3: drain each finished accumulator, give it back, and read where the next tile is");
  b.if_((warp < 4).named("epilogue_warp"), [&] {
    b.role(ir::WarpRole::epilogue, [&] {
      Reg C = b.global_ptr(pc, "C_ptr");
      Reg acc = b.mov(Type::u32, 0, "acc");
      Reg acc_phase = b.mov(Type::u32, 0, "acc_phase");
      Reg slot = b.mov(Type::u32, 0, "slot");
      Reg slot_phase = b.mov(Type::u32, 0, "slot_phase");
      tile_loop("tile_store", [&](Reg& tile) {
        const hopper::TileCorner at = tile_corner(tile);
        b.mbarrier_wait(full_of(acc), acc_phase);
        b.tcgen05_fence_after_thread_sync();
        Reg acc_tmem = (tmem + acc * kBN).named("acc_tmem");
        // (T128, V256) -> (M128, N256): thread 32w + l holds row 32w + l, register j column j.
        blackwell::drain_accumulator_clipped(b, acc_tmem, lane, (warp << 5).named("lane0"), kBN, C,
                                             (at.m0 + (warp << 5)).named("row0"), at.n0, M, N);
        b.tcgen05_fence_before_thread_sync();
        b.mbarrier_arrive(empty_of(acc));
        tma_ring::next_stage(b, acc, acc_phase, kAccumulators);
        const Answer next = read_answer(slot, slot_phase);
        b.mov(tile, next.tile);
        return next.more;
      });
    });
  });

  b.comment("everyone is done with TMEM before the allocating warp frees it");
  b.bar_sync(0);
  b.if_(mma_warp, [&] {
    b.tcgen05_fence_after_thread_sync();
    b.tcgen05_dealloc(tmem, kTmemColumns);
  });
  b.ret();
  return b.finish();
}

}  // namespace

KernelInfo blackwell_clc_info() {
  KernelInfo k;
  blackwell::set_blackwell_info(k, kId, {kBM, kBN, kBK});
  k.title = "Blackwell cluster launch control: the running CTAs take the tiles of CTAs not yet launched";
  k.delta = "one CTA per tile again, but each running CTA asks the GPU for a CTA that has not started "
            "(clusterlaunchcontrol.try_cancel), computes its tile instead, and stops at the answer 'none left': a "
            "dynamic schedule in place of step 23's static walk";
  k.explanation =
      "The grid has one CTA per tile, as in step 21, but only the first wave (one CTA per SM) gets to run for "
      "long. The TMA thread of each CTA asks the GPU to cancel the launch of a CTA that has not started yet, "
      "with clusterlaunchcontrol.try_cancel. The answer, 16 bytes, lands in shared memory and completes 16 bytes "
      "on the mbarrier clc_full[s], like a TMA load. After waiting there, each role loads it into a 128-bit "
      "register (ld.shared.b128) and decodes it: query_cancel.is_canceled says whether a CTA was cancelled, "
      "get_first_ctaid::x which one. The cancelled CTA never runs: its tile, in the grouped order of step 15, is "
      "this CTA's next tile. Every role reads every answer (the MMA thread to know whether to go on, the epilogue "
      "for the tile's corner), so the answers sit in a ring of two slots with clc_full and clc_empty barriers, "
      "and the TMA thread asks for the next tile before loading the current one, so the answer travels while it "
      "works. When the answer says none was left, every loop ends: asking again would be undefined. Which CTA "
      "takes which tile is decided while the grid runs, by who asks first: the Schedule view shows it.";
  // 37 x 12 = 444 tiles, 444 CTAs: 148 run at once (one per SM of a B200) and take the other 296
  // tiles between them, about 3 tiles each, as step 23's walk did.
  k.example_shape = {4736, 3072, 128};
  k.constraints = hopper::edge_shape_constraints();
  k.check_shape = [](const GemmShape& s, const GemmShape&) { hopper::check_edge_shape(kId, s); };
  k.mistakes = {
      {kReadBeforeWait, "every role loads the try_cancel answer without waiting on clc_full first",
       "the answer is read before it lands: clc-response-before-complete names the ld.shared.b128. The register "
       "holds what the slot held before (nothing the first time, which reads as 'none cancelled'), so the TMA "
       "thread stops after its own tile, while the MMA thread and the epilogue, reading later, see the landed "
       "answer and wait for a tile nobody loads: a deadlock, and the cancelled CTAs' tiles are never computed"},
      {kAskAfterEmpty, "the TMA thread sends one more try_cancel after the answer said no CTA was left",
       "clc-retry-after-empty: the PTX ISA calls a request after a failed answer undefined; stop asking at the first "
       "'none left'"},
  };
  // Where this step's lesson shows: which CTA took which tile and when, and the answer's wait.
  k.focus_views = {"schedule", "timeline", "tmem"};
  k.stops = {{StopKind::next_tile}, {StopKind::tcgen05_mma}, {StopKind::tmem_read}, {StopKind::pipeline_drains}};
  k.pictures = {"schedule", "timeline"};
  k.build = build_blackwell_clc;
  return k;
}

}  // namespace gs::kernels
