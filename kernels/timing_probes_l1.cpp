// The L1 probes (timing_probes.hpp): global loads by what they find in the L1 (hits of one or
// more lines, lines from L2, lines on their way), beside shared-memory loads, and cp.async from
// L2 into shared memory. The other probes are in timing_probes.cpp.
#include <algorithm>
#include <bit>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/timing_probe_parts.hpp"
#include "kernels/timing_probes.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;
using probe_parts::end_with_sums;

namespace {

// The shared words an L1 probe reads beside its global loads: lane l's word of each of 16 rows
// of 128 bytes (or `rows`), written once by warp 0 (their own addresses, so each load reads a
// known value); the caller's barrier publishes them. Lane l's slot in row 0.
// With `ways` of 2 or 4, lane l reads word l % (32 / ways) of row l / (32 / ways) beyond: `ways`
// lanes a bank, each in another row (an ld.shared of `ways` wavefronts, as step 09's fragment
// reads of rows 32 bytes apart take two).
Reg probe_shared_slots(Builder& b, const Reg& tid, const Reg& lane, uint32_t rows = 16, uint32_t ways = 1) {
  auto slots = b.shared("slots", (rows + ways - 1) * 128, 128, ir::SmemUse::other);
  const uint32_t per_row = 32 / ways;
  Reg off = ways == 1 ? (lane << 2).named("slot_off")
                      : (((lane & (per_row - 1)) << 2) + ((lane >> uint32_t(std::countr_zero(per_row))) << 7))
                            .named("slot_off");
  Reg slot = (b.smem_address(slots, 0, "slots_addr") + off).named("slot");
  b.if_((tid < 32u).named("first_warp"), [&] {
    for (uint32_t u = 0; u < rows; ++u) b.st_shared(Type::u32, Addr::at(slot, int32_t(128 * u)), {slot});
  });
  return slot;
}

}  // namespace

ir::Kernel build_l1_stride_probe(uint32_t warps, uint32_t stride, uint32_t reps, uint32_t shared_loads) {
  if (warps == 0 || warps > 32 || stride % 4 != 0 || stride > 4096 || reps == 0 || shared_loads > 8)
    throw std::invalid_argument(fmt::format("an L1 stride probe needs 1..32 warps, a stride of 0..4096 bytes (a "
                                            "multiple of 4; 0: every lane reads one word, a broadcast), a repetition "
                                            "and at most 8 shared loads a round (got {}, "
                                            "{}, {}, {})",
                                            warps, stride, reps, shared_loads));
  Builder b(shared_loads ? fmt::format("timing_l1_stride_{}_lds{}", stride, shared_loads)
                         : fmt::format("timing_l1_stride_{}", stride),
            ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32 * warps, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg lane = (tid & 31u).named("lane");
  Reg A = b.global_ptr(pa, "A_ptr");
  Reg mine = (A + b.mul_wide(lane, stride, "lane_off")).named("mine");
  Reg slot;
  if (shared_loads > 0) {
    slot = probe_shared_slots(b, tid, lane);
    b.bar_sync(0);
  }
  // Four sums, so that no chain of XORs bounds the rate; the eight loads 1 KiB apart, so that
  // ptxas cannot merge them into wider ones.
  std::vector<Reg> sum;
  for (uint32_t j = 0; j < 4; ++j) sum.push_back(b.mov(Type::b32, 0u, "sum"));
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.loop("rep", reps, [&](const Reg& i) {
    // The round's first line of the eight moves with i, so that no load is loop-invariant
    // (ptxas would hoist it out of the loop).
    Reg at = (mine + b.mul_wide((i & 7u) << 10, 1u, "round_off")).named("at");
    // The shared rows move with i too, for the same reason: rows i % 8 + u, at one address a round.
    Reg rows = shared_loads ? (slot + ((i & 7u) << 7)).named("rows") : Reg{};
    std::vector<Reg> v;
    for (uint32_t u = 0; u < 8; ++u) {
      v.push_back(b.ld(ir::Op::ld_global, Type::b32, Addr::at(at, 1024 * u), "v"));
      if (u < shared_loads) v.push_back(b.ld_shared(Type::u32, Addr::at(rows, int32_t(128 * u)), "s"));
    }
    for (uint32_t u = 0; u < v.size(); ++u) b.alu_into(ir::Op::xor_, sum[u % 4], {sum[u % 4], v[u]});
  });
  end_with_sums(b, pc, tid, t0, sum);
  return b.finish();
}

ir::Kernel build_l1_fill_probe(uint32_t warps, uint32_t vec, uint32_t reps, uint32_t shared_loads, bool same_lines) {
  if (warps == 0 || warps > 32 || (vec != 1 && vec != 4) || reps == 0 || shared_loads > 8)
    throw std::invalid_argument(fmt::format("an L1 fill probe needs 1..32 warps, loads of 1 or 4 words a lane, a "
                                            "repetition and at most 8 shared loads a round (got {}, {}, {}, {})",
                                            warps, vec, reps, shared_loads));
  Builder b(fmt::format("timing_l1_fill_v{}{}{}", vec, shared_loads ? fmt::format("_lds{}", shared_loads) : "",
                        same_lines ? "_same" : ""),
            ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32 * warps, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg lane = (tid & 31u).named("lane");
  Reg warp = (tid >> 5u).named("warp");
  Reg A = b.global_ptr(pa, "A_ptr");
  // Each load reads 32 lanes x vec words: vec lines of 128 bytes, one wavefront each.
  const uint32_t load_bytes = 128 * vec;
  Reg mine = (A + b.mul_wide(lane, 4 * vec, "lane_off")).named("mine");
  Reg slot;
  if (shared_loads > 0) {
    slot = probe_shared_slots(b, tid, lane);
    b.bar_sync(0);
  }
  std::vector<Reg> sum;
  for (uint32_t j = 0; j < 4; ++j) sum.push_back(b.mov(Type::b32, 0u, "sum"));
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.loop("rep", reps, [&](const Reg& i) {
    // Round i of warp w reads the 8 loads' lines at (i * warps + w) * 8 loads: every line once in
    // the whole run, so none is in L1 (the buffer was just copied to the card: it is in L2). With
    // same_lines every warp reads round i's lines: the first to ask misses, the others ask for
    // lines on their way from L2 (as a SIMT kernel's warps all read one row of B).
    Reg round = same_lines ? i : (i * warps + warp).named("round");
    Reg at = (mine + b.mul_wide(round, 8 * load_bytes, "round_off")).named("at");
    Reg rows = shared_loads ? (slot + ((i & 7u) << 7)).named("rows") : Reg{};
    std::vector<Reg> v;
    for (uint32_t u = 0; u < 8; ++u) {
      if (vec == 1) {
        v.push_back(b.ld(ir::Op::ld_global, Type::b32, Addr::at(at, int32_t(load_bytes * u)), "v"));
      } else {
        for (const Reg& r : b.ld_vec(ir::Op::ld_global, Type::b32, 4, Addr::at(at, int32_t(load_bytes * u)), "v"))
          v.push_back(r);
      }
      if (u < shared_loads) v.push_back(b.ld_shared(Type::u32, Addr::at(rows, int32_t(128 * u)), "s"));
    }
    for (uint32_t u = 0; u < v.size(); ++u) b.alu_into(ir::Op::xor_, sum[u % 4], {sum[u % 4], v[u]});
  });
  end_with_sums(b, pc, tid, t0, sum);
  return b.finish();
}

ir::Kernel build_cp_async_fill_probe(uint32_t warps, uint32_t reps, uint32_t shared_loads, uint32_t row_bytes,
                                     uint32_t conflict_ways, bool sync, uint32_t sync_groups) {
  if (warps == 0 || warps > 32 || reps == 0 || shared_loads > 80 || (row_bytes != 0 && row_bytes != 32 && row_bytes != 64) ||
      (conflict_ways != 1 && conflict_ways != 2 && conflict_ways != 4) || (conflict_ways > 1 && shared_loads == 0) ||
      sync_groups == 0 || sync_groups > 15 || warps % sync_groups != 0 || (sync_groups > 1 && !sync))
    throw std::invalid_argument(fmt::format("a cp.async fill probe needs 1..32 warps, a repetition, at most 80 "
                                            "shared loads a round, rows of 0 (contiguous), 32 or 64 bytes, loads of "
                                            "1, 2 or 4 ways a bank (more than 1 only with shared loads) and 1..15 "
                                            "groups meeting at barriers that divide the warps (more than 1 only with "
                                            "sync) (got {}, {}, {}, {}, {}, {})",
                                            warps, reps, shared_loads, row_bytes, conflict_ways, sync_groups));
  Builder b(fmt::format("timing_cp_async_fill{}{}{}{}{}", row_bytes ? fmt::format("_rows{}", row_bytes) : "",
                        shared_loads ? fmt::format("_lds{}", shared_loads) : "",
                        conflict_ways > 1 ? fmt::format("_c{}", conflict_ways) : "", sync ? "_sync" : "",
                        sync_groups > 1 ? fmt::format("_{}groups", sync_groups) : ""),
            ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32 * warps, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg lane = (tid & 31u).named("lane");
  Reg warp = (tid >> 5u).named("warp");
  Reg A = b.global_ptr(pa, "A_ptr");
  // A round of a warp: 4 copies of 16 bytes a lane (512 bytes, 4 lines each) into its half of a
  // 4-KiB ring of its own; the next round waits for this one's group only after issuing its own.
  // With rows of r bytes, lane l reads 16 bytes at line l/(r/16), byte (l%(r/16))*16: a copy spans
  // 512/r lines (16 or 8), each line read once.
  constexpr uint32_t kCopyBytes = 512, kCopies = 4, kRoundBytes = kCopies * kCopyBytes;
  const uint32_t src_copy = probe_parts::copy_source_span(row_bytes), src_round = kCopies * src_copy;
  b.use_dynamic_smem();  // 32 warps x 4 KiB: past the 48 KiB of static shared memory
  auto ring = b.shared("ring", warps * 2 * kRoundBytes, 128, ir::SmemUse::other);
  Reg lane_off = probe_parts::copy_lane_offset(b, lane, row_bytes);
  Reg mine_src = (A + b.cvt(Type::u64, lane_off, ir::Rounding::none, "lane_off64")).named("mine_src");
  Reg mine_dst = (b.smem_address(ring, 0, "ring_addr") + warp * (2 * kRoundBytes) + (lane << 4)).named("mine_dst");
  // Every load of a round a row of its own (ptxas would load a row read twice once): 8 + loads rows.
  const Reg slot =
      shared_loads > 0 ? probe_shared_slots(b, tid, lane, std::max(16u, 8 + shared_loads), conflict_ways) : Reg{};
  b.bar_sync(0);
  std::vector<Reg> sum;
  for (uint32_t j = 0; j < 4; ++j) sum.push_back(b.mov(Type::b32, 0u, "sum"));
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.loop("rep", reps, [&](const Reg& i) {
    // Every line is read once in the whole run (the buffer was just copied to the card: from L2).
    Reg round = (i * warps + warp).named("round");
    Reg src = (mine_src + b.mul_wide(round, src_round, "round_off")).named("src");
    Reg dst = (mine_dst + ((i & 1u) * kRoundBytes)).named("dst");
    for (uint32_t u = 0; u < kCopies; ++u)
      b.cp_async_cg(Addr::at(dst, int64_t(u * kCopyBytes)), Addr::at(src, int64_t(u * src_copy)));
    b.cp_async_commit_group();
    if (shared_loads) {
      Reg rows = (slot + ((i & 7u) << 7)).named("rows");
      for (uint32_t u = 0; u < shared_loads; ++u) {
        Reg v = b.ld_shared(Type::u32, Addr::at(rows, int32_t(128 * u)), "s");
        b.alu_into(ir::Op::xor_, sum[u % 4], {sum[u % 4], v});
      }
    }
    b.cp_async_wait_group(1);
    if (sync && sync_groups == 1) b.bar_sync(0);
    // Each group its own barrier (1..groups; 0 is the CTA's): consecutive warps, so that each
    // group has warps on every sub-partition, as a CTA of 4 warps does.
    for (uint32_t g = 0; sync && sync_groups > 1 && g < sync_groups; ++g)
      b.if_(b.setp(ir::CmpOp::eq, warp / (warps / sync_groups), g, "in_group"),
            [&] { b.bar_sync(1 + g, 32 * warps / sync_groups); });
  });
  b.cp_async_wait_group(0);
  end_with_sums(b, pc, tid, t0, sum);
  return b.finish();
}

ir::Kernel build_coresident_probe(uint32_t ctas, uint32_t warps, uint32_t smem_bytes, uint32_t lds,
                                  uint32_t ffma_per_lds, uint32_t rounds) {
  const uint32_t threads = 32 * warps;
  if (ctas == 0 || warps == 0 || warps > 32 || lds == 0 || lds > 16 || ffma_per_lds == 0 || ffma_per_lds > 64 ||
      rounds == 0 || smem_bytes < threads * 16 * (lds + 1) || smem_bytes > 227 * 1024)
    throw std::invalid_argument(fmt::format("a co-resident probe needs at least one CTA, 1..32 warps, 1..16 shared "
                                            "loads a round of 1..64 FFMAs each, a round, and 16 bytes a thread "
                                            "for each load and the copy within 227 KiB of shared memory (got {} "
                                            "CTAs, {} warps, {} bytes, {} loads, {} FFMAs, {} rounds)",
                                            ctas, warps, smem_bytes, lds, ffma_per_lds, rounds));
  Builder b(fmt::format("timing_coresident_{}w_{}k_{}x{}", warps, smem_bytes / 1024, lds, ffma_per_lds),
            ir::Arch::sm_80);
  const probe_parts::CopyCta cc = probe_parts::copy_cta(b, ctas, threads, smem_bytes);
  const Reg &tid = cc.tid, &gid = cc.gid, &slot = cc.slot;
  const builder::Param& pc = cc.pc;
  Reg mine = (cc.A + b.mul_wide(tid, 16u, "lane_off")).named("mine");
  Reg tf = b.cvt(Type::f32, tid, ir::Rounding::rn, "tid_f");
  std::vector<Reg> acc;
  for (uint32_t c = 0; c < 8; ++c) acc.push_back(b.fma(tf, double(c), 1.0, "acc"));
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.loop("round", rounds, [&](const Reg& i) {
    // The copy: 16 bytes a thread from one of 4 blocks of A (moving with i, so that ptxas does not
    // take the load out of the loop), into the row after the compute rows.
    Reg at = (mine + b.mul_wide((i & 3u) * threads, 16u, "round_off")).named("at");
    std::vector<Reg> v = b.ld_vec(ir::Op::ld_global, Type::f32, 4, Addr::at(at), "g");
    b.st_shared(Type::f32, Addr::at(slot, int32_t(lds * threads * 16)), {v[0], v[1], v[2], v[3]});
    b.bar_sync(0);
    for (uint32_t u = 0; u < lds; ++u) {
      std::vector<Reg> x = b.ld_vec(ir::Op::ld_shared, Type::f32, 4, Addr::at(slot, int32_t(u * threads * 16)), "x");
      for (uint32_t f = 0; f < ffma_per_lds; ++f) b.fma_into(acc[f % 8], x[f % 4], tf, acc[f % 8]);
    }
    b.bar_sync(0);
  });
  probe_parts::end_with_float_sum(b, pc, gid, t0, acc);
  return b.finish();
}

}  // namespace gs::kernels
