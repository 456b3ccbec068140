// The SM clock under a GEMM-like load (timing_probes.hpp, build_clock_under_load_probe): two
// warpgroups of wgmma beside a warp streaming TMA boxes, and what a GEMM does beside them
// (ClockLoadOptions), one thing at a time.
#include <bit>
#include <optional>
#include <functional>
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
using probe_parts::store_spare;
using probe_parts::stream_boxes;

ir::Kernel build_clock_under_load_probe(uint32_t ctas, uint32_t reps, uint32_t stages, uint32_t rounds, uint32_t boxes,
                                        bool random, bool streamed, bool mma, uint32_t idle, uint32_t mma_groups,
                                        uint32_t n, const ClockLoadOptions& o) {
  const uint32_t store_every = o.store_every, store_slots = o.store_slots, share = o.share;
  if (ctas == 0 || reps == 0 || stages == 0 || stages > 4 || rounds < 2 || boxes == 0 || (boxes & (boxes - 1)) != 0 ||
      (streamed && (stages & (stages - 1)) != 0) || mma_groups < 1 || mma_groups > 2 || n < 64 || n > 256 || n % 64 ||
      (store_every & (store_every - 1)) != 0 || store_slots == 0 || (store_slots & (store_slots - 1)) != 0 ||
      share == 0)
    throw std::invalid_argument(fmt::format("a clock-under-load probe needs CTAs, repetitions, 1..4 stages, at least 2 "
                                            "rounds, a power-of-two box count, 1 or 2 wgmma warpgroups, N of 64, 128, "
                                            "192 or 256, stores every 0 or a power of two repetitions into a power of two "
                                            "slots, and a share of at least 1 (got {}, {}, {}, {}, {}, {}, {}, {}, {}, {})",
                                            ctas, reps, stages, rounds, boxes, mma_groups, n, store_every, store_slots,
                                            share));
  if (o.handoff && (!streamed || !mma || idle != 0 || uint64_t(rounds) * stages != reps))
    throw std::invalid_argument(fmt::format("a clock-under-load probe with the hand-off streams into wgmmas with no "
                                            "pause, a stage a repetition: repetitions = rounds x stages (got streamed "
                                            "{}, wgmma {}, pause {}, {} repetitions, {} rounds of {} stages)",
                                            streamed, mma, idle, reps, rounds, stages));
  using Pair = ClockLoadOptions::Pair;
  const bool paired = o.pair != Pair::none, multicast = o.pair == Pair::multicast;
  if (paired && (!o.handoff || ctas % 2 != 0 || share != 1))
    throw std::invalid_argument(fmt::format("a clock-under-load probe in CTA pairs is the hand-off form on an even "
                                            "count of CTAs, the pair sharing its boxes by itself (got hand-off {}, {} "
                                            "CTAs, share {})",
                                            o.handoff, ctas, share));
  constexpr uint32_t kK = 64, kBoxRows = 256;
  const uint32_t a_tile = 64 * kK * 2, b_bytes = n * kK * 2, box_bytes = kBoxRows * kK * 2;
  const bool own_a = o.distinct_a && mma_groups > 1;  // each warpgroup its own rows of A
  const uint32_t a_bytes = own_a ? mma_groups * a_tile : a_tile;
  // One more warpgroup than the wgmma ones: its first warp streams (wgmma needs whole warpgroups).
  const uint32_t mma_threads = clock_under_load_streamer(mma_groups), threads = clock_under_load_threads(mma_groups);
  Builder b(fmt::format("timing_clock_under_load_{}x32k{}{}{}{}{}{}{}{}", stages, streamed ? "_streamed" : "",
                        idle ? fmt::format("_idle{}", idle) : "",
                        mma_groups != 2 || n != 256 ? fmt::format("_{}wg_n{}", mma_groups, n) : "",
                        store_every ? fmt::format("_store{}", store_every) : "",
                        share > 1 ? fmt::format("_share{}", share) : "", own_a ? "_twoa" : "",
                        o.handoff ? "_handoff" : "", o.streamer_unpaused && idle ? "_wgpause" : "",
                        multicast ? "_pairmc" : paired ? "_pair" : ""),
            ir::Arch::sm_90a);
  // A pause of `steps` dependent fmas on `x` (a register of the thread's own): the tensor cores or
  // the streaming idle meanwhile, the SM's other pipes nearly so.
  const auto pause = [&b](Reg& x, uint32_t steps) {
    if (steps > 0) b.loop("idle", steps, [&](const Reg&) { b.fma_into(x, x, 0.9999, 0.5); });
  };
  // The streaming lane pauses as long in all as a wgmma thread does (idle steps after each of
  // `reps` rounds against its `rounds`), so the two stay matched as without the pause.
  const uint32_t stream_idle = o.streamer_unpaused ? 0u : uint32_t((uint64_t(idle) * reps + rounds / 2) / rounds);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {threads, 1, 1}, .cluster = {paired ? 2u : 1u, 1, 1}});
  b.use_dynamic_smem();
  auto tmap = b.tensor_map_param(
      "tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, kK, boxes * kBoxRows, kK, kBoxRows, layout::Swizzle::none));
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  // Multicast pairs: the same boxes as half boxes of 128 rows, one from each CTA of the pair.
  std::optional<builder::Param> tmap_half;
  if (multicast)
    tmap_half = b.tensor_map_param("tmap_A_half", ir::row_major_bf16_map(ir::ParamRole::a, kK, boxes * kBoxRows, kK,
                                                                         kBoxRows / 2, layout::Swizzle::none));
  auto sA = b.operand_stages("sA", ir::GemmOperand::a, 1, a_bytes, 1024, layout::Swizzle::b128);
  auto sB = b.operand_stages("sB", ir::GemmOperand::b, 1, b_bytes, 1024, layout::Swizzle::b128);
  auto buf = b.operand_stages("buf", ir::GemmOperand::a, stages, box_bytes, 1024, layout::Swizzle::none);
  auto full = b.mbarriers("full", ir::BarrierRole::full, stages);
  // The hand-off's empty barriers: every wgmma thread arrives on its stage's once a repetition (in
  // pairs, lanes 0 and 1 of every wgmma warp of both CTAs).
  std::optional<builder::Smem> empty;
  if (o.handoff) empty = b.mbarriers("empty", ir::BarrierRole::empty, stages);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg cta = b.special(ir::Special::ctaid_x, "cta");
  Reg gid = (cta * threads + tid).named("gid");
  Reg a_addr = b.smem_address(sA, 0, "sA_addr");
  Reg b_addr = b.smem_address(sB, 0, "sB_addr");
  b.comment("fill both tiles (random bf16, or zeros); the streaming lane sets up its barriers");
  fill_tiles(b, a_addr, tid, (a_bytes + b_bytes) / 16, threads, random);
  Reg streamer = (tid == mma_threads).named("streamer");
  b.if_(streamer, [&] {
    for (uint32_t s = 0; s < stages; ++s) b.mbarrier_init(full.at(8 * s), 1);
    if (empty)
      for (uint32_t s = 0; s < stages; ++s)
        b.mbarrier_init(empty->at(8 * s), paired ? 2 * (mma_threads / 32) : mma_threads);
    b.fence_mbarrier_init();
  });
  b.fence_proxy_async();
  b.bar_sync(0);
  if (paired) {
    b.comment("both CTAs' barriers are initialised before either multicasts into the other or arrives on its barriers");
    b.barrier_cluster_arrive();
    b.barrier_cluster_wait();
  }
  if (mma) b.if_(
      (tid < mma_threads).named("mma_thread"),
      [&] {
        // A's rows of this thread's warpgroup: its own 8 KiB where distinct_a asks.
        Reg a_off = own_a ? ((tid >> 7u) * a_tile).named("a_off") : Reg{};
        Reg a_desc = b.wgmma_descriptor(own_a ? (a_addr + a_off).named("sA_mine") : a_addr,
                                        layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "a_desc");
        Reg b_desc = b.wgmma_descriptor(b_addr, layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "b_desc");
        std::vector<Reg> acc;
        for (uint32_t v = 0; v < n / 2; ++v) acc.push_back(b.mov(Type::f32, 0.0, fmt::format("acc{}", v)));
        Reg t0 = b.special(ir::Special::clock64, "t0");
        Reg ns0 = b.special(ir::Special::globaltimer, "ns0");
        Reg ring_addr = b.smem_address(buf, 0, "ring_addr");
        // The pause's chain (from tid: not folded); none without a pause.
        Reg x = idle ? b.cvt(Type::f32, tid, ir::Rounding::rn, "x") : acc[0];
        // The hand-off: this repetition's stage and its barriers' parity (the round's).
        Reg full_base = empty ? b.smem_address(full, 0, "full_base") : Reg{};
        Reg empty_base = empty ? b.smem_address(*empty, 0, "empty_base") : Reg{};
        // In pairs lane q of each wgmma warp releases the stage in CTA q of the pair (its `empty`
        // through mapa, shared::cluster).
        std::optional<Reg> releaser, release_base;
        if (paired) {
          Reg lane = (tid & 31u).named("lane");
          releaser = (lane < 2u).named("releaser");
          release_base = b.mapa(empty_base, b.selp(lane, 0u, *releaser, "release_rank"), "empty_of_rank");
        }
        b.loop("rep", reps, [&](const Reg& rep) {
          Reg stage_bar{};
          if (empty) {
            stage_bar = ((rep & (stages - 1)) << 3u).named("stage_bar");
            Reg parity = ((rep >> uint32_t(std::countr_zero(stages))) & 1u).named("parity");
            b.mbarrier_wait(Addr::at((full_base + stage_bar).named("full_s")), parity);
          }
          b.wgmma_fence();
          Reg a0 = a_desc, b0 = b_desc;
          if (streamed) {
            // This repetition's stage of the ring: A's 64 rows and B's 256 from the same box.
            Reg stage_addr = (ring_addr + (rep & (stages - 1)) * box_bytes).named("stage_addr");
            a0 = b.wgmma_descriptor(own_a ? (stage_addr + a_off).named("a_rows") : stage_addr,
                                    layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "a_ring");
            b0 = b.wgmma_descriptor(stage_addr, layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "b_ring");
          }
          for (uint32_t kk = 0; kk < kK / 16; ++kk) {
            Reg ad = kk == 0 ? a0 : b.alu(ir::Op::add, Type::u64, {a0, 2 * kk}, fmt::format("a_desc_k{}", kk));
            Reg bd = kk == 0 ? b0 : b.alu(ir::Op::add, Type::u64, {b0, 2 * kk}, fmt::format("b_desc_k{}", kk));
            b.wgmma_mma_async(n, acc, ad, bd, 1);
          }
          b.wgmma_commit_group();
          b.wgmma_wait_group(0);
          if (paired)
            b.if_(*releaser, [&] {
              b.mbarrier_arrive_remote(Addr::at((*release_base + stage_bar).named("empty_s_rank")));
            });
          else if (empty)
            b.mbarrier_arrive(Addr::at((empty_base + stage_bar).named("empty_s")));
          pause(x, idle);
          if (store_every)
            b.if_(((rep & (store_every - 1)) == store_every - 1).named("tile_end"), [&] {
              // This tile's slot, the CTA's tile in it, the warp's 512-byte rows, the lane's 16 bytes.
              const uint32_t tile_bytes = mma_threads * (n / 2) * 4;
              Reg slot = ((rep >> uint32_t(std::countr_zero(store_every))) & (store_slots - 1)).named("slot");
              Reg at = (b.global_ptr(pc, "C_tiles") + uint64_t(ctas) * threads * kTimingOutBytes +
                        b.mul_wide((slot * ctas + cta).named("tile"), tile_bytes, "tile_off") +
                        b.mul_wide((tid >> 5u).named("warp"), (n / 2) * 128, "warp_off") +
                        b.mul_wide((tid & 31u).named("lane"), 16u, "lane_off"))
                           .named("c_at");
              for (uint32_t i = 0; i < n / 8; ++i)
                b.st(ir::Op::st_global, Type::f32, Addr::at(at, int64_t(i) * 512),
                     std::vector<Reg>{acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]});
            });
        });
        Reg t1 = b.special(ir::Special::clock64, "t1");
        Reg ns1 = b.special(ir::Special::globaltimer, "ns1");
        store_result(b, pc, gid, t0, t1, (ns1 - ns0).named("ns"));
        // The accumulator (and the pause's chain) in the spare word: the wgmma and the chain stay live.
        store_spare(b, pc, gid, idle ? (acc[0] + x).named("live") : acc[0]);
      });
  b.if_(
      (tid >= mma_threads).named("stream_warp"),
      [&] {
        Reg t0 = b.special(ir::Special::clock64, "t0s");
        Reg ns0 = b.special(ir::Special::globaltimer, "ns0s");
        Reg tm = b.tensor_map_address(tmap, "tm");
        Reg xs = idle ? b.cvt(Type::f32, tid, ir::Rounding::rn, "xs") : tm;
        const std::function<void()> paused = [&] { pause(xs, stream_idle); };
        // The CTAs of a pair stream the same boxes, as `share` CTAs do.
        const uint32_t sharing = paired ? 2 : share;
        Reg group = sharing > 1 ? (cta / sharing).named("share_group") : cta;
        std::optional<probe_parts::MulticastHalf> half;
        if (multicast)
          half = probe_parts::MulticastHalf{b.tensor_map_address(*tmap_half, "tm_half"),
                                            b.special(ir::Special::cluster_ctarank, "rank")};
        stream_boxes(b, streamer, tm, buf, full, stages, rounds, boxes, kBoxRows, box_bytes,
                     (ctas + sharing - 1) / sharing, group, nullptr, nullptr, idle ? &paused : nullptr,
                     empty ? &*empty : nullptr, half ? &*half : nullptr);
        Reg t1 = b.special(ir::Special::clock64, "t1s");
        Reg ns1 = b.special(ir::Special::globaltimer, "ns1s");
        // The streaming warp's record: its clock64 span and the %globaltimer ns of the same span
        // (the clock with the TMA alone where the wgmma warps do nothing, and how long the
        // streaming outlasts the wgmmas where they run).
        store_result(b, pc, gid, t0, t1, (ns1 - ns0).named("ns_s"));
        if (idle) store_spare(b, pc, gid, xs);  // the pause's chain stays live
      });
  if (paired) {
    b.comment("neither CTA leaves while its peer may still arrive on its barriers or multicast into it");
    b.barrier_cluster_arrive();
    b.barrier_cluster_wait();
  }
  b.ret();
  return b.finish();
}

}  // namespace gs::kernels
