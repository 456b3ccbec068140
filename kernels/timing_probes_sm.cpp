// The SM probes of the SIMT steps' main loops (timing_probes.hpp): a K loop's copy as a burst of
// global loads from every SM at once, and an outer product's FFMAs from registers. The other
// probes are in timing_probes.cpp and timing_probes_l1.cpp.
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

namespace {

// Round i's address: every CTA its own chunk of `chunk` bytes, moving on each round through
// `chunks` of them (an 8-MiB footprint stays in L2 after its first pass; one of every CTA's
// rounds comes from HBM once), lane t at 16 t.
Reg round_address(Builder& b, const probe_parts::CopyCta& c, const Reg& i, uint32_t rounds, uint32_t chunks,
                  uint64_t chunk) {
  Reg which = ((c.cta * rounds + i) % chunks).named("which");
  return (c.A + b.mul_wide(which, uint32_t(chunk), "chunk_off") + b.mul_wide(c.tid, 16u, "lane_off")).named("at");
}
// The round's end: each load's 16 bytes into the thread's slots, bar.sync, one word read back into
// `sum` (so that ptxas keeps the copy), bar.sync.
void store_round(Builder& b, const probe_parts::CopyCta& c, const std::vector<std::vector<Reg>>& v, uint32_t threads,
                 const Reg& sum, const char* name) {
  for (uint32_t u = 0; u < v.size(); ++u)
    b.st_shared(Type::u32, Addr::at(c.slot, int32_t(u * threads * 16)), {v[u][0], v[u][1], v[u][2], v[u][3]});
  b.bar_sync(0);
  b.mov(sum, (sum ^ b.ld_shared(Type::u32, Addr::at(c.slot), "back")).named(name));
  b.bar_sync(0);
}

}  // namespace

ir::Kernel build_copy_burst_probe(uint32_t ctas, uint32_t warps, uint32_t smem_bytes, uint32_t loads, uint32_t rounds,
                                  uint64_t footprint_bytes, bool one_trip) {
  const uint32_t threads = 32 * warps;
  const uint64_t chunk = uint64_t(threads) * loads * 16;
  if (ctas == 0 || warps == 0 || warps > 32 || loads == 0 || loads > 16 || rounds == 0 ||
      smem_bytes < chunk || smem_bytes > 227 * 1024 || footprint_bytes < chunk || footprint_bytes % chunk != 0)
    throw std::invalid_argument(fmt::format("a copy-burst probe needs at least one CTA, 1..32 warps, 1..16 loads of "
                                            "16 bytes a thread, a round, shared memory for a round's copy within 227 "
                                            "KiB, and a footprint of whole rounds' copies (got {} CTAs, {} warps, {} "
                                            "bytes, {} loads, {} rounds, a {}-byte footprint)",
                                            ctas, warps, smem_bytes, loads, rounds, footprint_bytes));
  Builder b(fmt::format("timing_copy_{}_{}w_{}x16_{}k", one_trip ? "trip" : "burst", warps, loads, smem_bytes / 1024),
            ir::Arch::sm_80);
  const probe_parts::CopyCta c = probe_parts::copy_cta(b, ctas, threads, smem_bytes);
  const uint32_t chunks = uint32_t(footprint_bytes / chunk);
  Reg sum = b.mov(Type::u32, 0u, "sum");
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.loop("round", rounds, [&](const Reg& i) {
    Reg at = round_address(b, c, i, rounds, chunks, chunk);
    std::vector<std::vector<Reg>> v;
    for (uint32_t u = 0; u < loads; ++u)
      v.push_back(b.ld_vec(ir::Op::ld_global, Type::u32, 4, Addr::at(at, int32_t(u * threads * 16)), "g"));
    // No load moves below this barrier: every one is in flight before the first store waits.
    if (one_trip) b.bar_sync(0);
    store_round(b, c, v, threads, sum, "x");
  });
  Reg t1 = b.special(ir::Special::clock64, "t1");
  probe_parts::store_result(b, c.pc, c.gid, t0, t1, b.cvt(Type::u64, sum, ir::Rounding::none, "value"));
  b.ret();
  return b.finish();
}

ir::Kernel build_copy_arrival_probe(uint32_t ctas, uint32_t warps, uint32_t loads, uint32_t rounds) {
  const uint32_t threads = 32 * warps, smem_bytes = 150 * 1024;
  const uint64_t chunk = uint64_t(threads) * loads * 16, footprint = 8u << 20;
  if (ctas == 0 || ctas > 132 || warps == 0 || warps > 32 || loads == 0 || loads > 16 || rounds == 0 ||
      chunk > smem_bytes)
    throw std::invalid_argument(fmt::format("a copy-arrival probe needs 1..132 CTAs, 1..32 warps, 1..16 loads of 16 "
                                            "bytes a thread whose round fits 150 KiB, and a round (got {} CTAs, {} "
                                            "warps, {} loads, {} rounds)",
                                            ctas, warps, loads, rounds));
  Builder b(fmt::format("timing_copy_arrive_{}w_{}x16", warps, loads), ir::Arch::sm_80);
  const probe_parts::CopyCta c = probe_parts::copy_cta(b, ctas, threads, smem_bytes);
  const uint32_t chunks = uint32_t(footprint / chunk);
  Reg sum = b.mov(Type::u32, 0u, "sum");
  Reg acc = b.mov(Type::f32, 0.0f, "acc");
  // The last round's stamps, kept past the loop: the clock before its first load, and after the
  // first use of each load's data in issue order.
  Reg begin = b.mov(Type::u64, 0u, "begin");
  std::vector<Reg> in;
  for (uint32_t u = 0; u < loads; ++u) in.push_back(b.mov(Type::u64, 0u, fmt::format("in{}", u)));
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.loop("round", rounds, [&](const Reg& i) {
    Reg at = round_address(b, c, i, rounds, chunks, chunk);
    b.mov(begin, b.special(ir::Special::clock64, "t_begin"));
    std::vector<std::vector<Reg>> v;
    for (uint32_t u = 0; u < loads; ++u)
      v.push_back(b.ld_vec(ir::Op::ld_global, Type::u32, 4, Addr::at(at, int32_t(u * threads * 16)), "g"));
    // Each load's data used in issue order, the clock read after each use: a warp waits at the use
    // of load u until its data is in, so stamp u is when loads 0..u have all arrived. The uses are
    // a chain of FFMAs on the words' bits, which ptxas may not reassociate (a chain of XORs it
    // merged two loads at a time into three-input LOP3s, two clock reads then falling together).
    for (uint32_t u = 0; u < loads; ++u) {
      b.fma_into(acc, acc, 1.0, b.mov(Type::f32, b.mov(Type::b32, v[u][0], "bits"), "word"));
      b.mov(in[u], b.special(ir::Special::clock64, "t_in"));
    }
    b.bar_sync(0);
    store_round(b, c, v, threads, sum, "y");
  });
  Reg t1 = b.special(ir::Special::clock64, "t1");
  probe_parts::store_result(b, c.pc, c.gid, t0, t1, b.cvt(Type::u64, sum, ir::Rounding::none, "value"));
  probe_parts::store_spare(b, c.pc, c.gid, acc);
  // Lane 0 of each warp: stamp u less the round's start, after the threads' records.
  b.if_((c.tid % 32u) == 0u, [&] {
    Reg warp = (c.cta * warps + c.tid / 32u).named("warp");
    Reg out = (b.global_ptr(c.pc, "C_stamps") + b.mul_wide(warp, loads * 8, "warp_off")).named("stamps");
    const int32_t records = int32_t(ctas * threads * kTimingOutBytes);
    for (uint32_t u = 0; u < loads; ++u)
      b.st_global(Type::u64, Addr::at(out, records + int32_t(8 * u)), {(in[u] - begin).named("arrived")});
  });
  b.ret();
  return b.finish();
}

ir::Kernel build_outer_product_probe(uint32_t warps, uint32_t tm, uint32_t tn, uint32_t reps, uint32_t unroll) {
  if (warps == 0 || warps > 32 || tm == 0 || tn == 0 || tm * tn > 128 || reps == 0 || unroll == 0 || unroll > 64)
    throw std::invalid_argument(fmt::format("an outer-product probe needs 1..32 warps, a register tile of at most 128 "
                                            "accumulators, a repetition and 1..64 copies a pass (got {} warps, {} x {}, "
                                            "{} reps, {} copies)",
                                            warps, tm, tn, reps, unroll));
  Builder b(unroll == 1 ? fmt::format("timing_outer_{}x{}_{}w", tm, tn, warps)
                        : fmt::format("timing_outer_{}x{}_{}w_u{}", tm, tn, warps, unroll),
            ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32 * warps, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg tf = b.cvt(Type::f32, tid, ir::Rounding::rn, "tid_f");
  std::vector<Reg> a, bb, acc;
  for (uint32_t i = 0; i < tm; ++i) a.push_back(b.fma(tf, double(i + 1), 0.5, fmt::format("a{}", i)));
  for (uint32_t j = 0; j < tn; ++j) bb.push_back(b.fma(tf, double(j + 2), 0.25, fmt::format("b{}", j)));
  for (uint32_t k = 0; k < tm * tn; ++k) acc.push_back(b.mov(Type::f32, 0.0f, fmt::format("acc{}", k)));
  Reg t0 = b.special(ir::Special::clock64, "t0");
  // A step of a SIMT GEMM's inner loop without its loads: every accumulator its FFMA with one
  // value of a and one of b, the order step 05's loop has (rows of the tile in turn).
  // `unroll` copies of the step a pass: the loop's body that many times longer, as a K loop unrolled
  // over its K block is (the instructions a pass the front end fetches).
  b.loop("rep", reps, [&](const Reg&) {
    for (uint32_t u = 0; u < unroll; ++u) {
      for (uint32_t i = 0; i < tm; ++i)
        for (uint32_t j = 0; j < tn; ++j) b.fma_into(acc[i * tn + j], a[i], bb[j], acc[i * tn + j]);
      // New operands each step from the accumulators, so that nothing is loop-invariant.
      b.mov(a[0], acc[0]);
      b.mov(bb[0], acc[tm * tn - 1]);
    }
  });
  probe_parts::end_with_float_sum(b, pc, tid, t0, acc);
  return b.finish();
}

}  // namespace gs::kernels
