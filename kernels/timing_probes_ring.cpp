// The GEMM-ring probe (timing_probes.hpp, build_tma_gemm_ring_probe): step 13's ring of TMA
// stages with a fixed FFMA chain in place of its math, plain or beside two warpgroups of wgmma
// (heated). The other probes are in timing_probes.cpp and timing_probes_l1.cpp.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "engine/layout/swizzle.hpp"
#include "kernels/timing_probe_parts.hpp"
#include "kernels/timing_probes.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;
using probe_parts::fill_tiles;
using probe_parts::store_result;
using probe_parts::wgmma_rounds;

ir::Kernel build_tma_gemm_ring_probe(uint32_t tiles_m, uint32_t tiles_n, uint32_t k_blocks, uint32_t ctas,
                                     uint32_t ring, uint32_t pace_reps, const RingProbeForm& form) {
  const uint32_t heat_reps = form.heat_reps;
  const bool split = form.split, c_tile = form.c_tile;
  const int pace_forms = int(form.uneven) + int(form.jitter) + int(form.drift_fmas > 0);
  using Pair = RingProbeForm::Pair;
  const Pair pair = form.pair;
  const bool paired = pair != Pair::none;
  if (paired && (!form.wgmma_pace || form.tile_n != 128 || tiles_m % 2 != 0 || ctas % 2 != 0))
    throw std::invalid_argument(fmt::format("a GEMM-ring TMA probe in CTA pairs is the form paced by wgmma, of "
                                            "128 x 128 tiles, an even count of tile rows and an even count of CTAs "
                                            "(got {} tile rows, {} CTAs{})",
                                            tiles_m, ctas, form.wgmma_pace ? "" : ", not paced by wgmma"));
  if (form.wgmma_pace && (!split || pace_forms > 0 || pace_reps == 0))
    throw std::invalid_argument("a GEMM-ring TMA probe paced by wgmma is the split form (a producer thread and a "
                                "consumer warpgroup) at an even pace of at least one round");
  if (pace_forms > 1 || (pace_forms > 0 && (heat_reps > 0 || split)))
    throw std::invalid_argument("a GEMM-ring TMA probe's uneven, jittered or drifting pace (one of them) is for the "
                                "one-thread ring, with or without its C tile");
  if (form.tile_n != 128 && form.tile_n != 256)
    throw std::invalid_argument(fmt::format("a GEMM-ring TMA probe's tile has 128 or 256 columns (got {})", form.tile_n));
  if (form.tile_n == 256 && (pace_forms > 0 || heat_reps > 0 || split || c_tile || ring > 4))
    throw std::invalid_argument(fmt::format("a GEMM-ring TMA probe of 128 x 256 tiles is the plain one-thread ring at an "
                                            "even pace, of 2..4 stages of 48 KiB (got {} stages{})",
                                            ring, pace_forms + heat_reps + int(split) + int(c_tile) > 0
                                                          ? " and another form" : ""));
  if (tiles_m == 0 || tiles_n == 0 || ctas == 0 || ctas > tiles_m * tiles_n || ring < 2 || ring > 6 ||
      k_blocks < 2 * ring || k_blocks % ring != 0 || (heat_reps > 0 && ring > 5) ||
      int(heat_reps > 0) + int(split) + int(c_tile) > 1)
    throw std::invalid_argument(fmt::format("a GEMM-ring TMA probe needs tiles, 1..tiles_m x tiles_n CTAs, a ring of "
                                            "2..6 stages (2..5 heated) and a K-block count that is a multiple of it, "
                                            "at least two rings, and one form at most of heated, split and C tile "
                                            "(got {} x {} tiles, {} CTAs, {} stages, {} K blocks, {} heat reps{}{})",
                                            tiles_m, tiles_n, ctas, ring, k_blocks, heat_reps, split ? ", split" : "",
                                            c_tile ? ", C tile" : ""));
  constexpr uint32_t kTile = 128, kBK = 64;  // step 13's 128 x 128 tile, 64-wide K blocks
  // A stage: A's box and B's tile_n rows, in boxes of 128 rows (one, or two for a 128 x 256 tile).
  const uint32_t b_boxes = form.tile_n / kTile;
  constexpr uint32_t kBoxBytes = kTile * kBK * 2;
  const uint32_t stage_bytes = (1 + b_boxes) * kBoxBytes;
  // At least 120 KiB a CTA: one CTA an SM whatever the ring, as step 13 runs (its registers
  // allow one).
  constexpr uint32_t kCtaSmem = 120 * 1024;
  // Heated: two warpgroups of wgmma m64n256k16 on random bf16 tiles (40 KiB) beside the ring's
  // warp, the ring's warp the first of a third warpgroup (wgmma takes whole warpgroups).
  constexpr uint32_t kHeatThreads = 256, kHeatK = 64, kHeatN = 256;
  const bool heated = heat_reps > 0;
  // Split: step 13's roles, a producer warpgroup (its thread 0 issues) and a consumer warpgroup
  // (every thread runs the FMAs, then arrives on the stage's `empty` barrier), so each refill
  // waits for the consumers' arrivals to reach the producer as step 13's do.
  constexpr uint32_t kSplitThreads = 256, kConsumer = 128;
  const uint32_t threads = heated ? kHeatThreads + 128 : split ? kSplitThreads : 32;
  Builder b(fmt::format("timing_tma_gemm_ring_{}x{}x{}{}_s{}_pace{}{}{}{}", tiles_m, tiles_n, k_blocks,
                        b_boxes > 1 ? "_n256" : "", ring, pace_reps,
                        heated ? fmt::format("_heat{}", heat_reps) : std::string(),
                        split ? (form.wgmma_pace ? "_split_wgmma" : "_split") : c_tile ? "_ctile" : "",
                        paired        ? std::string(ring_pair_suffix(pair))
                        : form.uneven ? std::string("_uneven")
                        : form.jitter     ? std::string("_jitter")
                        : form.drift_fmas ? fmt::format("_drift{}", form.drift_fmas)
                                          : std::string()),
            ir::Arch::sm_90a);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {threads, 1, 1}, .cluster = {paired ? 2u : 1u, 1, 1}});
  b.use_dynamic_smem();
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto tmap = b.tensor_map_param("tmap_AB", ir::row_major_bf16_map(ir::ParamRole::a, k_blocks * kBK,
                                                                  (tiles_m + tiles_n * b_boxes) * kTile, kBK, kTile,
                                                                  layout::Swizzle::b128));
  // Multicast pairs: B's box as two halves of 64 rows, one from each CTA of the pair.
  constexpr uint32_t kHalfRows = kTile / 2, kHalfBytes = kBoxBytes / 2;
  std::optional<builder::Param> tmap_half;
  if (pair == Pair::multicast)
    tmap_half = b.tensor_map_param("tmap_B_half", ir::row_major_bf16_map(ir::ParamRole::a, k_blocks * kBK,
                                                                         (tiles_m + tiles_n) * kTile, kBK, kHalfRows,
                                                                         layout::Swizzle::b128));
  auto buf = b.operand_stages("buf", ir::GemmOperand::a, ring, stage_bytes, 1024, layout::Swizzle::b128);
  auto full = b.mbarriers("full", ir::BarrierRole::full, ring);
  std::optional<builder::Smem> empty;
  if (split) empty = b.mbarriers("empty", ir::BarrierRole::empty, ring);
  const uint32_t heat_bytes = heated ? 64 * kHeatK * 2 + kHeatN * kHeatK * 2 : 0;
  if (ring * stage_bytes + heat_bytes < kCtaSmem)
    b.shared("reserved", kCtaSmem - ring * stage_bytes - heat_bytes, 128, ir::SmemUse::other);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg cta = b.special(ir::Special::ctaid_x, "cta");
  // The ring's warp (the one that stamps and leaves the records): the CTA's only warp, the third
  // warpgroup's first (heated), or the consumer warpgroup's first (split).
  Reg lane_id = heated ? (tid - kHeatThreads).named("ring_lane") : split ? (tid - kConsumer).named("ring_lane") : tid;
  Reg gid = (cta * 32u + lane_id).named("gid");
  Reg tm = b.tensor_map_address(tmap, "tm");
  Reg leader = (tid == (heated ? kHeatThreads : 0u)).named("leader");
  std::optional<builder::Smem> heat_a, heat_b;
  if (heated) {
    heat_a = b.operand_stages("sA", ir::GemmOperand::a, 1, 64 * kHeatK * 2, 1024, layout::Swizzle::b128);
    heat_b = b.operand_stages("sB", ir::GemmOperand::b, 1, kHeatN * kHeatK * 2, 1024, layout::Swizzle::b128);
    b.comment("fill the heaters' tiles with random bf16");
    fill_tiles(b, b.smem_address(*heat_a, 0, "sA_fill"), tid, heat_bytes / 16, threads, true);
  }
  b.if_(leader, [&] {
    for (uint32_t s = 0; s < ring; ++s) b.mbarrier_init(full.at(8 * s), 1);
    // A pair's stage is released by each consumer warp once (lane 0), or once in each CTA of the pair.
    const uint32_t releases = pair == Pair::none ? kConsumer : pair == Pair::alone ? kConsumer / 32 : 2 * kConsumer / 32;
    if (split)
      for (uint32_t s = 0; s < ring; ++s) b.mbarrier_init(empty->at(8 * s), releases);
    b.fence_mbarrier_init();
  });
  if (heated) b.fence_proxy_async();
  b.bar_sync(0);
  if (paired) {
    b.comment("both CTAs' barriers are initialised before either multicasts into the other or arrives on its barriers");
    b.barrier_cluster_arrive();
    b.barrier_cluster_wait();
  }
  // CTA c computes tile (c / tiles_n, c % tiles_n) as build_tma_gemm_wave_probe's do; in pairs,
  // cluster p's rank r tile (2 (p / tiles_n) + r, p % tiles_n): the pair shares B's rows.
  std::optional<Reg> rank;
  if (paired) rank = b.special(ir::Special::cluster_ctarank, "rank");
  Reg tile_cta = paired ? (cta / 2u).named("pair") : cta;
  Reg a_row = (paired ? ((tile_cta / tiles_n) * 2u + *rank) * kTile : (cta / tiles_n) * kTile).named("a_row");
  Reg b_row = (b_boxes == 1 ? ((tile_cta % tiles_n) + tiles_m) * kTile
                            : (cta % tiles_n) * (b_boxes * kTile) + tiles_m * kTile)
                  .named("b_row");
  // 2 k_blocks + 1 stamps a CTA after the threads' records: 2k once block k has landed (its wait
  // returned), 2k + 1 once its stand-in for the math is over; the last, after the loop.
  Reg stamps = (b.global_ptr(pc, "C_stamps") + b.mul_wide(cta, (2 * k_blocks + 1) * 8, "cta_stamps") +
                uint64_t(ctas) * 32 * kTimingOutBytes)
                   .named("stamps");
  const auto stamp = [&](const Reg& slot) {
    Reg t = b.special(ir::Special::clock64, "stamp_t");
    b.st_global(Type::u64, Addr::at((stamps + b.mul_wide(slot, 8u, "stamp_off")).named("stamp_at")), {t});
  };
  const auto load = [&](const Reg& block, uint32_t s) {
    b.mbarrier_arrive_expect_tx(full.at(8 * s), stage_bytes);
    Reg col = (block * kBK).named("k_col");
    b.cp_async_bulk_tensor_load(buf.at(int64_t(s) * stage_bytes), tm, {col, a_row}, full.at(8 * s));
    if (pair == Pair::multicast) {
      // This CTA's half of B's box, into the same offset of both CTAs (each expects the whole stage).
      Reg tm_half = b.tensor_map_address(*tmap_half, "tm_half");
      b.cp_async_bulk_tensor_load_multicast(
          Addr::at((b.smem_address(buf, uint64_t(s) * stage_bytes + kBoxBytes, "half_base") + *rank * kHalfBytes)
                       .named("half_at")),
          tm_half, {col, (b_row + *rank * kHalfRows).named("half_row")}, full.at(8 * s),
          b.mov(Type::u16, 3u, "pair_mask"));
      return;
    }
    for (uint32_t i = 0; i < b_boxes; ++i)
      b.cp_async_bulk_tensor_load(buf.at(int64_t(s) * stage_bytes + (1 + i) * kBoxBytes), tm,
                                  {col, i == 0 ? b_row : (b_row + i * kTile).named("b_row_i")}, full.at(8 * s));
  };
  // The ring warp's records after its span: the cycles, the value (the FMAs' bits and a landed
  // word, so neither is dead), and the span's %globaltimer nanoseconds in the record's spare word
  // (offset 24): cycles over nanoseconds is the clock the SM ran the ring at (the latencies above
  // are in its cycles).
  const auto records = [&](const Reg& acc, const Reg& t0, const Reg& ns0) {
    Reg t1 = b.special(ir::Special::clock64, "t1");
    Reg ns1 = b.special(ir::Special::globaltimer, "ns1");
    Reg bits = b.cvt(Type::u64, b.mov(Type::u32, b.mov(Type::b32, acc, "bits"), "u"), ir::Rounding::none, "acc_bits");
    Reg first_word = b.ld_shared(Type::u32, buf.at(), "first_word");
    store_result(b, pc, gid, t0, t1, (b.cvt(Type::u64, first_word, ir::Rounding::none, "value") ^ bits).named("value"));
    Reg C = b.global_ptr(pc, "C_ptr2");
    b.st_global(Type::u64, Addr::at((C + b.mul_wide(gid, kTimingOutBytes, "ns_off")).named("ns_at"), 24),
                {(ns1 - ns0).named("ns")});
  };
  // The math's stand-in: pace_reps x 8 dependent FMAs (about 4 cycles each on the card and the
  // model alike), its bits kept live in the thread's record.
  struct Pace {
    Reg x, y, acc;
  };
  const auto pace_start = [&] {
    Reg tf = b.cvt(Type::f32, lane_id, ir::Rounding::rn, "tid_f");
    return Pace{b.fma(tf, 1e-7, 0.9999, "x"), b.fma(tf, 1e-9, 1e-6, "y"), b.fma(tf, 1.0, 1.0, "acc")};
  };
  // Uneven: CTA c's pace is pace_reps + (c·37 mod 5 − 2)·(pace_reps / 10) reps, 80-120% of the
  // others', so CTAs that read the same panel drift apart in K as a GEMM's do. Jitter: each K
  // block's pace is pace_reps + (h mod 5 − 2)·(pace_reps / 10), h a hash of the CTA and the block:
  // the same mean for every CTA, their drift a random walk.
  const uint32_t tenth = pace_reps / 10;
  const auto lasting_pick = [&] { return ((cta * 37u) % 5u).named("pick"); };
  const auto spread_reps = [&](const Reg& pick) { return (pick * tenth + (pace_reps - 2 * tenth)).named("pace_reps"); };
  std::optional<Reg> uneven_reps;
  if (form.uneven && tenth > 0) uneven_reps = spread_reps(lasting_pick());
  // Drift: CTA c runs (c·37 mod 5)·form.drift_fmas + 1 dependent FMAs more a block, a lasting
  // difference of a few per cent between CTAs.
  std::optional<Reg> drift_fmas;
  if (form.drift_fmas > 0) drift_fmas = (lasting_pick() * form.drift_fmas + 1u).named("drift_fmas");
  const auto pace = [&](Pace& f, const Reg& block) {
    if (pace_reps == 0) return;
    std::optional<Reg> reps = uneven_reps;
    if (form.jitter && tenth > 0)
      reps = spread_reps((((cta * 0x9E3779B1u + block * 0x85EBCA6Bu) >> 27) % 5u).named("pick"));
    b.loop("pace", reps ? builder::Src(*reps) : builder::Src(pace_reps), [&](const Reg&) {
      for (uint32_t i = 0; i < 8; ++i) b.fma_into(f.acc, f.acc, f.x, f.y);
    });
    if (drift_fmas)  // one more FMA at least: a loop runs once
      b.loop("drift", *drift_fmas, [&](const Reg&) { b.fma_into(f.acc, f.acc, f.x, f.y); });
  };
  const auto run_ring = [&] {
    Pace f = pace_start();
    Reg& acc = f.acc;
    Reg t0 = b.special(ir::Special::clock64, "t0");
    Reg ns0 = b.special(ir::Special::globaltimer, "ns0");
    b.if_(leader, [&] {
      for (uint32_t s = 0; s < ring; ++s) load(b.mov(Type::u32, s, "first_block"), s);
      Reg phase = b.mov(Type::u32, 0u, "phase");
      // Pass p runs blocks p·ring .. p·ring + ring - 1, stage s holding block p·ring + s; each is
      // waited for, "computed", and its stage refilled with the block `ring` ahead at once (a
      // consumer that releases its stage as soon as it is done with it).
      b.loop("pass", k_blocks / ring, [&](const Reg& p) {
        for (uint32_t s = 0; s < ring; ++s) {
          Reg block = (p * ring + s).named("block");
          b.mbarrier_wait(full.at(8 * s), phase);
          stamp((block * 2u).named("landed_slot"));
          pace(f, block);
          stamp((block * 2u + 1u).named("done_slot"));
          Reg ahead = (block + ring).named("ahead");
          b.if_((ahead < k_blocks).named("refill"), [&] { load(ahead, s); });
        }
        phase ^= 1u;
      });
      stamp(b.mov(Type::u32, 2 * k_blocks, "last_slot"));
    });
    if (c_tile) {
      // Step 13's epilogue's bytes: the CTA's 128 x 128 f32 tile of a (tiles_m·128) x (tiles_n·128)
      // C after the stamps, a row of 512 bytes a warp-store (16 bytes a lane), the FMAs' bits.
      Reg tile_at = (b.global_ptr(pc, "C_tile") + uint64_t(ctas) * 32 * kTimingOutBytes +
                     uint64_t(ctas) * (2 * k_blocks + 1) * 8 +
                     b.mul_wide(cta / tiles_n, kTile * tiles_n * kTile * 4, "tile_row_off") +
                     b.mul_wide(cta % tiles_n, kTile * 4, "tile_col_off") + b.mul_wide(lane_id, 16u, "lane_off"))
                        .named("tile_at");
      Reg v = b.mov(Type::b32, acc, "c_bits");
      b.loop("c_row", kTile, [&](const Reg& r) {
        b.st_global(Type::b32, Addr::at((tile_at + b.mul_wide(r, tiles_n * kTile * 4, "c_row_off")).named("c_at")),
                    {v, v, v, v});
      });
    }
    records(acc, t0, ns0);
  };
  // Split: the producer's thread waits for a stage's `empty` phase (a fresh barrier's parity 1
  // passes at once, so the first pass fills the ring) and refills it; the consumers wait for
  // `full`, run the FMAs, arrive on `empty`; the consumer warpgroup's thread 0 stamps.
  const auto run_split = [&] {
    b.if_((tid == 0u).named("producer"), [&] {
      Reg parity = b.mov(Type::u32, 1u, "empty_parity");
      b.loop("produce", k_blocks / ring, [&](const Reg& p) {
        for (uint32_t s = 0; s < ring; ++s) {
          b.mbarrier_wait(empty->at(8 * s), parity);
          load((p * ring + s).named("block"), s);
        }
        parity ^= 1u;
      });
    });
    b.if_((tid >= kConsumer).named("consumer"), [&] {
      Pace f = pace_start();
      // wgmma_pace: the stage's A box (128 rows of 128 bytes, 128B-swizzled) as two m64 slabs 8 KiB
      // apart and B's box 16 KiB on, as step 13's consumer reads them; a descriptor's address
      // counts 16-byte units.
      std::optional<Reg> a_desc0, b_desc0;
      std::vector<Reg> acc0, acc1;
      if (form.wgmma_pace) {
        a_desc0 = b.wgmma_descriptor(b.smem_address(buf, 0, "stage_addr"),
                                     layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "a_desc0");
        b_desc0 = (*a_desc0 + uint64_t(kBoxBytes / 16)).named("b_desc0");
        for (uint32_t v = 0; v < 64; ++v) {
          acc0.push_back(b.mov(Type::f32, 0.0, fmt::format("acc0_{}", v)));
          acc1.push_back(b.mov(Type::f32, 0.0, fmt::format("acc1_{}", v)));
        }
      }
      const auto mma_pace = [&](uint32_t s) {
        Reg ad = (*a_desc0 + uint64_t(s * stage_bytes / 16)).named("a_desc_s");
        Reg bd = (*b_desc0 + uint64_t(s * stage_bytes / 16)).named("b_desc_s");
        b.loop("pace_mma", pace_reps, [&](const Reg&) {
          b.wgmma_fence();
          for (uint32_t slab = 0; slab < 2; ++slab)
            for (uint32_t kk = 0; kk < 4; ++kk)
              b.wgmma_mma_async(128, slab ? acc1 : acc0, (ad + uint64_t(slab * 512 + 2 * kk)).named("a_desc_k"),
                                (bd + uint64_t(2 * kk)).named("b_desc_k"), 1);
          b.wgmma_commit_group();
          b.wgmma_wait_group(0);
        });
      };
      Reg t0 = b.special(ir::Special::clock64, "t0");
      Reg ns0 = b.special(ir::Special::globaltimer, "ns0");
      Reg stamper = (tid == kConsumer).named("stamper");
      // In pairs, a warp's lane 0 releases its own CTA's stage (alone); coupled, lanes 0 and 1
      // release it in CTA 0 and CTA 1 of the pair (mapa: that CTA's `empty`, shared::cluster).
      std::optional<Reg> releaser, peer_empty;
      if (paired) {
        Reg lane = (tid & 31u).named("lane");
        releaser = (pair == Pair::alone ? (lane == 0u) : (lane < 2u)).named("releaser");
        if (pair != Pair::alone)
          peer_empty = b.mapa(b.smem_address(*empty, 0, "empty_base"), b.selp(lane, 0u, *releaser, "release_rank"),
                              "empty_of_rank");
      }
      Reg phase = b.mov(Type::u32, 0u, "phase");
      b.loop("consume", k_blocks / ring, [&](const Reg& p) {
        for (uint32_t s = 0; s < ring; ++s) {
          Reg block = (p * ring + s).named("block");
          b.mbarrier_wait(full.at(8 * s), phase);
          b.if_(stamper, [&] { stamp((block * 2u).named("landed_slot")); });
          if (form.wgmma_pace)
            mma_pace(s);
          else
            pace(f, block);
          b.if_(stamper, [&] { stamp((block * 2u + 1u).named("done_slot")); });
          if (pair == Pair::none) {
            b.mbarrier_arrive(empty->at(8 * s));
          } else if (pair == Pair::alone) {
            b.if_(*releaser, [&] { b.mbarrier_arrive(empty->at(8 * s)); });
          } else {
            b.if_(*releaser, [&] {
              b.mbarrier_arrive_remote(Addr::at((*peer_empty + uint64_t(8 * s)).named("empty_s_rank")));
            });
          }
        }
        phase ^= 1u;
      });
      b.if_(stamper, [&] { stamp(b.mov(Type::u32, 2 * k_blocks, "last_slot")); });
      // The record keeps the sums live: the FMAs' or, paced by wgmma, both slabs' first accumulators.
      Reg kept = form.wgmma_pace ? (acc0[0] + acc1[0]).named("mma_kept") : f.acc;
      b.if_((tid < kConsumer + 32).named("record_warp"), [&] { records(kept, t0, ns0); });
    });
  };
  if (split) {
    run_split();
    if (paired) {
      b.comment("neither CTA leaves while its peer may still arrive on its barriers or multicast into it");
      b.barrier_cluster_arrive();
      b.barrier_cluster_wait();
    }
  } else if (!heated) {
    run_ring();
  } else {
    b.if_((tid >= kHeatThreads).named("ring_warpgroup"), [&] {
      b.if_((tid < kHeatThreads + 32).named("ring_warp"), run_ring);
    });
    // The heaters: heat_reps rounds of four wgmma m64n256k16 (K = 64) a warpgroup, meant to
    // outlast the ring; each thread's first accumulator's bits after the stamps (u32 a thread,
    // CTA c's 256 from (c·256)·4 on), so the wgmma stay live.
    b.if_((tid < kHeatThreads).named("heater"), [&] {
      Reg a_desc = b.wgmma_descriptor(b.smem_address(*heat_a, 0, "sA_addr"),
                                      layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "a_desc");
      Reg b_desc = b.wgmma_descriptor(b.smem_address(*heat_b, 0, "sB_addr"),
                                      layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "b_desc");
      std::vector<Reg> acc;
      for (uint32_t v = 0; v < kHeatN / 2; ++v) acc.push_back(b.mov(Type::f32, 0.0, fmt::format("hacc{}", v)));
      static_assert(kHeatK == 64);  // wgmma_rounds' K block
      wgmma_rounds(b, "heat", heat_reps, kHeatN, a_desc, b_desc, acc);
      Reg heat_out = (b.global_ptr(pc, "C_heat") + uint64_t(ctas) * 32 * kTimingOutBytes +
                      uint64_t(ctas) * (2 * k_blocks + 1) * 8 + b.mul_wide(cta * kHeatThreads + tid, 4u, "heat_off"))
                         .named("heat_at");
      b.st_global(Type::u32, Addr::at(heat_out), {b.mov(Type::b32, acc[0], "heat_bits")});
    });
  }
  b.ret();
  return b.finish();
}

}  // namespace gs::kernels
