#include "kernels/timing_probes.hpp"

#include <bit>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "engine/layout/swizzle.hpp"
#include "kernels/timing_probe_parts.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::Param;
using builder::Reg;
using ir::Type;

namespace {

constexpr uint32_t kStreamThreads = 256;
constexpr uint32_t kStreamBlockBytes = kStreamThreads * 16;
constexpr uint32_t kChaseUnroll = 8;
constexpr uint32_t kStreamLoads = 4;

}  // namespace

namespace probe_parts {

// Thread `gid`'s 32 bytes of C: the cycles of its timed region, its start, the value that keeps its work.
void store_result(Builder& b, const Param& pc, const Reg& gid, const Reg& t0, const Reg& t1, const Reg& value) {
  Reg dt = (t1 - t0).named("cycles");
  Reg C = b.global_ptr(pc, "C_ptr");
  Reg out = (C + b.mul_wide(gid, kTimingOutBytes, "out_off")).named("out");
  b.st_global(Type::u64, Addr::at(out), {dt});
  b.st_global(Type::u64, Addr::at(out, 8), {t0});
  b.st_global(Type::u64, Addr::at(out, 16), {value});
}

CopyCta copy_cta(Builder& b, uint32_t ctas, uint32_t threads, uint32_t smem_bytes) {
  b.set_launch({.grid = {ctas, 1, 1}, .block = {threads, 1, 1}});
  b.use_dynamic_smem();
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto tile = b.shared("tile", smem_bytes, 128, ir::SmemUse::other);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg cta = b.special(ir::Special::ctaid_x, "cta");
  Reg gid = (cta * threads + tid).named("gid");
  Reg A = b.global_ptr(pa, "A_ptr");
  Reg slot = (b.smem_address(tile, 0, "tile_addr") + (tid << 4)).named("slot");
  return {pc, tid, cta, gid, A, slot};
}

// A float's bits in thread `gid`'s record's spare word (offset 24): the work that made it stays
// live (ptxas drops what nothing stores).
void store_spare(Builder& b, const Param& pc, const Reg& gid, const Reg& value) {
  Reg bits = b.cvt(Type::u64, b.mov(Type::u32, b.mov(Type::b32, value, "bits"), "u"), ir::Rounding::none, "spare_bits");
  Reg C = b.global_ptr(pc, "C_spare");
  b.st_global(Type::u64, Addr::at((C + b.mul_wide(gid, kTimingOutBytes, "pad_off")).named("pad"), 24), {bits});
}

// The end of a probe that kept four XOR sums of what it read: the clock, the record with the
// sums folded into its value, and the return.
void end_with_sums(Builder& b, const Param& pc, const Reg& id, const Reg& t0, const std::vector<Reg>& sum) {
  Reg t1 = b.special(ir::Special::clock64, "t1");
  Reg x = ((sum[0] ^ sum[1]) ^ (sum[2] ^ sum[3])).named("x");
  store_result(b, pc, id, t0, t1, b.cvt(Type::u64, b.mov(Type::u32, x, "xu"), ir::Rounding::none, "value"));
  b.ret();
}

// The end of a probe whose work is f32 accumulators: the clock, the record with their sum's bits
// as its value, and the return.
void end_with_float_sum(Builder& b, const Param& pc, const Reg& id, const Reg& t0, const std::vector<Reg>& acc) {
  Reg t1 = b.special(ir::Special::clock64, "t1");
  Reg sum = acc[0];
  for (size_t k = 1; k < acc.size(); ++k) sum = (sum + acc[k]).named("sum");
  store_result(b, pc, id, t0, t1,
               b.cvt(Type::u64, b.mov(Type::u32, b.mov(Type::b32, sum, "bits"), "u"), ir::Rounding::none, "value"));
  b.ret();
}

Reg copy_lane_offset(Builder& b, const Reg& lane, uint32_t row_bytes) {
  const uint32_t per_row = row_bytes / 16;  // lanes a row (0: contiguous)
  if (per_row == 0) return (lane << 4u).named("lane_off");
  return (((lane >> uint32_t(std::countr_zero(per_row))) << 7u) + ((lane & (per_row - 1)) << 4u)).named("lane_off");
}

// Fills `words` 16-byte chunks of shared memory from `base`, `threads` threads a round: zeros,
// or (random) bf16 pairs of random sign and mantissa in [0.5, 1) from a multiplicative hash of
// the chunk, so that the tensor cores multiply data whose bits toggle as a GEMM's do (the power
// they draw, and so the clock the SM holds, depends on it).
void fill_tiles(Builder& b, const Reg& base, const Reg& tid, uint32_t words, uint32_t threads, bool random) {
  Reg zero = b.mov(Type::b32, 0u, "zero");
  b.loop("fill", (words + threads - 1) / threads, [&](const Reg& i) {
    Reg w = (i * threads + tid).named("w");
    b.if_((w < words).named("in"), [&] {
      Reg at = (base + (w << 4)).named("fill_at");
      if (!random) {
        b.st(ir::Op::st_shared, Type::b32, Addr::at(at), {zero, zero, zero, zero});
        return;
      }
      Reg h = (w * 0x9E3779B1u).named("h");
      std::vector<Reg> v;
      for (uint32_t j = 0; j < 4; ++j) {
        Reg x = (h ^ (0x85EBCA6Bu * (j + 1))).named(fmt::format("x{}", j));
        x = (x * 0xC2B2AE35u).named(fmt::format("y{}", j));
        v.push_back(((x & 0x807F807Fu) | 0x3F003F00u).named(fmt::format("pair{}", j)));
      }
      b.st(ir::Op::st_shared, Type::b32, Addr::at(at), {v[0], v[1], v[2], v[3]});
    });
  });
}

probe_parts::WgmmaTiles wgmma_probe_tiles(Builder& b, uint32_t threads, uint32_t n, bool random) {
  constexpr uint32_t kK = 64;  // one 128-byte swizzle row of bf16
  const uint32_t a_bytes = 64 * kK * 2, b_bytes = (n * kK * 2 + 1023) / 1024 * 1024;
  WgmmaTiles t{b.operand_stages("sA", ir::GemmOperand::a, 1, a_bytes, 1024, layout::Swizzle::b128),
               b.operand_stages("sB", ir::GemmOperand::b, 1, b_bytes, 1024, layout::Swizzle::b128),
               {}, {}, {}};
  t.tid = b.special(ir::Special::tid_x, "tid");
  t.a_addr = b.smem_address(t.sA, 0, "sA_addr");
  t.b_addr = b.smem_address(t.sB, 0, "sB_addr");
  b.comment(random ? "fill both tiles with random bf16 (16 bytes a thread a round)" : "zero both tiles (16 bytes a thread a round)");
  fill_tiles(b, t.a_addr, t.tid, (a_bytes + b_bytes) / 16, threads, random);
  b.fence_proxy_async();
  b.bar_sync(0);
  return t;
}

// One 64-wide K block, four wgmma m64nNk16 along K (the descriptors' address field 32 bytes, 2
// units, further each), into acc, committed and waited for.
void wgmma_k_block(Builder& b, uint32_t n, const Reg& a_desc, const Reg& b_desc, std::vector<Reg>& acc) {
  b.wgmma_fence();
  for (uint32_t kk = 0; kk < 4; ++kk) {
    Reg ad = kk == 0 ? a_desc : b.alu(ir::Op::add, Type::u64, {a_desc, 2 * kk}, fmt::format("a_desc_k{}", kk));
    Reg bd = kk == 0 ? b_desc : b.alu(ir::Op::add, Type::u64, {b_desc, 2 * kk}, fmt::format("b_desc_k{}", kk));
    b.wgmma_mma_async(n, acc, ad, bd, 1);
  }
  b.wgmma_commit_group();
  b.wgmma_wait_group(0);
}

// `reps` rounds (a loop named `loop`) of wgmma_k_block on the same tiles: the wgmma probe's timed
// loop and the heated ring's heaters.
void wgmma_rounds(Builder& b, const std::string& loop, uint32_t reps, uint32_t n, const Reg& a_desc,
                  const Reg& b_desc, std::vector<Reg>& acc) {
  b.loop(loop, reps, [&](const Reg&) { wgmma_k_block(b, n, a_desc, b_desc, acc); });
}

}  // namespace probe_parts

using probe_parts::end_with_sums;
using probe_parts::fill_tiles;
using probe_parts::store_result;
using probe_parts::store_spare;
using probe_parts::wgmma_k_block;
using probe_parts::wgmma_rounds;

const char* chain_op_name(ChainOp op) {
  switch (op) {
    case ChainOp::ffma: return "fma.rn.f32";
    case ChainOp::imad: return "mad.lo.u32";
    case ChainOp::iadd: return "add.u32";
    case ChainOp::mma_sync: return "mma.sync.m16n8k16.bf16";
  }
  return "?";
}

ir::Kernel build_chain_probe(ChainOp op, uint32_t ctas, uint32_t warps, uint32_t chains, uint32_t length,
                             uint32_t reps, bool random_operands) {
  if (ctas == 0 || warps == 0 || warps > 32 || chains == 0 || length == 0 || reps == 0)
    throw std::invalid_argument(fmt::format("a chain probe needs 1..32 warps and at least one CTA, chain, "
                                            "instruction and repetition (got {} CTAs, {} warps, {} chains, {} "
                                            "long, {} reps)",
                                            ctas, warps, chains, length, reps));
  const bool mma = op == ChainOp::mma_sync;
  Builder b(fmt::format("timing_chain_{}_{}x{}{}", mma ? "hmma" : op == ChainOp::ffma ? "ffma" : op == ChainOp::imad ? "imad" : "iadd",
                        warps, chains, mma && random_operands ? "_random" : ""),
            ir::Arch::sm_80);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {32 * warps, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg gid = (b.special(ir::Special::ctaid_x, "cta") * (32 * warps) + tid).named("gid");
  // Operands from the thread id, so that nothing folds at compile time.
  std::vector<std::vector<Reg>> acc(chains);
  std::vector<Reg> fa, fb;
  Reg x, y;
  if (mma && random_operands) {
    // Every bit of sign and mantissa in play, exponents below 2^0 (mask 0xBF7F a half): a hash of
    // the global thread index and the register, as random bf16 tiles set the tensor cores' power.
    for (uint32_t i = 0; i < 6; ++i) {
      Reg h = (gid * 0x9E3779B1u + (i + 1) * 0x85EBCA6Bu).named("h");
      h = (h ^ (h >> 15u)).named("h_mix");
      h = (h * 0x2C1B3C6Du).named("h_mul");
      h = (h ^ (h >> 13u)).named("h_fin");
      (i < 4 ? fa : fb).push_back(b.alu(ir::Op::and_, Type::b32, {h, 0xBF7FBF7Fu}, i < 4 ? "a" : "b"));
    }
    for (auto& chain : acc)
      for (uint32_t v = 0; v < 4; ++v) chain.push_back(b.mov(Type::f32, 0.0, "acc"));
  } else if (mma) {
    for (uint32_t i = 0; i < 4; ++i) fa.push_back(b.alu(ir::Op::and_, Type::b32, {tid, 0x3F003F00u + i}, "a"));
    for (uint32_t i = 0; i < 2; ++i) fb.push_back(b.alu(ir::Op::and_, Type::b32, {tid, 0x3E003E00u + i}, "b"));
    for (auto& chain : acc)
      for (uint32_t v = 0; v < 4; ++v) chain.push_back(b.mov(Type::f32, 0.0, "acc"));
  } else if (op == ChainOp::ffma) {
    Reg tf = b.cvt(Type::f32, tid, ir::Rounding::rn, "tid_f");
    x = b.fma(tf, 1e-7, 0.9999, "x");
    y = b.fma(tf, 1e-9, 1e-6, "y");
    for (uint32_t c = 0; c < chains; ++c) acc[c].push_back(b.fma(tf, double(c), 1.0, "acc"));
  } else {
    x = (tid | 1u).named("x");
    y = (tid + 7u).named("y");
    for (uint32_t c = 0; c < chains; ++c) acc[c].push_back((tid + c).named("acc"));
  }
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.loop("rep", reps, [&](const Reg&) {
    for (uint32_t i = 0; i < length; ++i)
      for (auto& chain : acc) {
        switch (op) {
          case ChainOp::ffma: b.fma_into(chain[0], chain[0], x, y); break;
          case ChainOp::imad: b.alu_into(ir::Op::mad_lo, chain[0], {chain[0], x, y}); break;
          case ChainOp::iadd: b.alu_into(ir::Op::add, chain[0], {chain[0], x}); break;
          case ChainOp::mma_sync: b.mma_sync(chain, fa, fb, chain); break;
        }
      }
  });
  Reg t1 = b.special(ir::Special::clock64, "t1");
  Reg value = b.mov(Type::u64, 0u, "value");
  for (const auto& chain : acc)
    for (const Reg& r : chain) {
      Reg bits = b.mov(Type::b32, r, "bits");
      Reg wide = b.cvt(Type::u64, b.mov(Type::u32, bits, "u"), ir::Rounding::none, "wide");
      b.alu_into(ir::Op::xor_, value, {value, wide});
    }
  store_result(b, pc, gid, t0, t1, value);
  b.ret();
  return b.finish();
}

ir::Kernel build_shared_rate_probe(uint32_t warps, uint32_t vec, uint32_t chains, uint32_t length, uint32_t reps,
                                   uint32_t ways) {
  if (warps == 0 || warps > 32 || (vec != 1 && vec != 2 && vec != 4) || chains == 0 || length == 0 || reps == 0 ||
      (ways != 1 && ways != 2 && ways != 4 && ways != 8) || (ways > 1 && vec != 1) ||
      uint64_t(chains) * warps * 32 * vec * 4 * ways > 200 * 1024)
    throw std::invalid_argument(fmt::format("a shared-memory rate probe needs 1..32 warps, 1, 2 or 4 words a lane, at "
                                            "least one chain, load and repetition, a 1-, 2-, 4- or 8-way conflict (of "
                                            "one-word loads) and at most 200 KiB of slots (got {} warps, {} words, {} "
                                            "chains, {} long, {} reps, {}-way)",
                                            warps, vec, chains, length, reps, ways));
  const uint32_t threads = 32 * warps, lane_bytes = 4 * vec * ways, chain_bytes = threads * lane_bytes;
  Builder b(ways == 1 ? fmt::format("timing_lds_rate_v{}_{}x{}", vec, warps, chains)
                      : fmt::format("timing_lds_rate_v{}_{}x{}_{}way", vec, warps, chains, ways),
            ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {threads, 1, 1}});
  b.use_dynamic_smem();
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto slots = b.shared("slots", chains * chain_bytes, 128, ir::SmemUse::other);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg base = b.smem_address(slots, 0, "slots_addr");
  Reg zero = b.mov(Type::u32, 0u, "zero");
  b.comment("each lane's slot in each chain's region holds the slot's own address (its other words zero)");
  std::vector<Reg> p;
  for (uint32_t c = 0; c < chains; ++c) {
    Reg at = (base + (tid * lane_bytes + c * chain_bytes)).named(fmt::format("slot{}", c));
    b.st_shared(Type::u32, Addr::at(at), {at});
    for (uint32_t w = 1; w < vec; ++w) b.st_shared(Type::u32, Addr::at(at, int32_t(4 * w)), {zero});
    p.push_back(b.mov(Type::u32, at, fmt::format("p{}", c)));
  }
  b.bar_sync(0);
  Reg t0 = b.special(ir::Special::clock64, "t0");
  // Each round issues every chain's load before any chain uses its result (in-order issue: a
  // use right after its load would hold the warp there), as ptxas's schedule does.
  b.loop("rep", reps, [&](const Reg&) {
    for (uint32_t i = 0; i < length; ++i) {
      std::vector<std::vector<Reg>> q;
      for (uint32_t c = 0; c < chains; ++c)
        q.push_back(vec == 1 ? std::vector<Reg>{b.ld_shared(Type::u32, Addr::at(p[c]), "q")}
                             : b.ld_vec(ir::Op::ld_shared, Type::u32, int(vec), Addr::at(p[c]), "q"));
      for (uint32_t c = 0; c < chains; ++c)  // the other words are zero: the same address
        b.mov(p[c], vec == 1 ? q[c][0] : (q[c][0] | q[c][1]).named("q01"));
    }
  });
  Reg t1 = b.special(ir::Special::clock64, "t1");
  Reg x = p[0];
  for (uint32_t c = 1; c < chains; ++c) x = (x ^ p[c]).named("x");
  store_result(b, pc, tid, t0, t1, b.cvt(Type::u64, x, ir::Rounding::none, "value"));
  b.ret();
  return b.finish();
}

ir::Kernel build_shared_chase_probe(uint32_t words, uint32_t hops) {
  if (words < 64 || words > 16384 || hops % kChaseUnroll != 0 || hops == 0)
    throw std::invalid_argument(fmt::format("a shared chase needs 64..16384 words and a multiple of {} hops (got {} "
                                            "words, {} hops)",
                                            kChaseUnroll, words, hops));
  Builder b("timing_chase_shared", ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto ring = b.shared("ring", words * 4, 128, ir::SmemUse::tile);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg base = b.smem_address(ring, 0, "ring_base");
  b.comment("word i holds the address of word (i + 33) % words");
  b.loop("fill", words / 32, [&](const Reg& i) {
    Reg w = ((i << 5) + tid).named("w");
    Reg next = (((w + 33u) % words) << 2).named("next");
    b.st_shared(Type::u32, Addr::at((base + (w << 2)).named("at")), {(base + next).named("next_addr")});
  });
  b.bar_sync(0);
  Reg p = b.mov(Type::u32, base, "p");
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.loop("hop", hops / kChaseUnroll, [&](const Reg&) {
    for (uint32_t u = 0; u < kChaseUnroll; ++u) b.mov(p, b.ld_shared(Type::u32, Addr::at(p), "q"));
  });
  Reg t1 = b.special(ir::Special::clock64, "t1");
  store_result(b, pc, tid, t0, t1, b.cvt(Type::u64, p, ir::Rounding::none, "value"));
  b.ret();
  return b.finish();
}

ir::Kernel build_global_chase_probe(uint32_t warm_hops, uint32_t hops) {
  if (hops % kChaseUnroll != 0 || hops == 0 || warm_hops % kChaseUnroll != 0)
    throw std::invalid_argument(fmt::format("a global chase needs multiples of {} hops (got {} warm, {} timed)",
                                            kChaseUnroll, warm_hops, hops));
  Builder b("timing_chase_global", ir::Arch::sm_80);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg A = b.global_ptr(pa, "A_ptr");
  // Every lane chases the same chain (one line per hop: the warp's load is one request).
  Reg off = b.mov(Type::u64, 0u, "off");
  const auto chase = [&](const char* name, uint32_t n) {
    b.loop(name, n / kChaseUnroll, [&](const Reg&) {
      for (uint32_t u = 0; u < kChaseUnroll; ++u)
        b.mov(off, b.ld_global(Type::u64, Addr::at((A + off).named("at")), "next"));
    });
  };
  if (warm_hops > 0) chase("warm", warm_hops);
  Reg t0 = b.special(ir::Special::clock64, "t0");
  chase("hop", hops);
  Reg t1 = b.special(ir::Special::clock64, "t1");
  store_result(b, pc, tid, t0, t1, off);
  b.ret();
  return b.finish();
}

ir::Kernel build_stream_probe(uint32_t ctas, uint32_t rounds, uint32_t blocks) {
  if (ctas == 0 || rounds == 0 || blocks == 0 || (blocks & (blocks - 1)) != 0)
    throw std::invalid_argument(fmt::format("a stream probe needs CTAs, rounds and a power-of-two block count (got "
                                            "{}, {}, {})",
                                            ctas, rounds, blocks));
  Builder b(fmt::format("timing_stream_{}", blocks), ir::Arch::sm_80);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {kStreamThreads, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg cta = b.special(ir::Special::ctaid_x, "cta");
  Reg gid = (cta * kStreamThreads + tid).named("gid");
  Reg A = b.global_ptr(pa, "A_ptr");
  Reg mine = (A + b.mul_wide(tid, 16u, "lane_off")).named("mine");
  std::vector<Reg> sum;
  for (int v = 0; v < 4; ++v) sum.push_back(b.mov(Type::b32, 0u, "sum"));
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.loop("round", rounds, [&](const Reg& i) {
    // kStreamLoads independent loads a round, so that several are in flight per thread.
    std::vector<std::vector<Reg>> loaded;
    for (uint32_t u = 0; u < kStreamLoads; ++u) {
      Reg block = ((((i * kStreamLoads) + u) * ctas + cta) & (blocks - 1)).named("block");
      Reg at = (mine + b.mul_wide(block, kStreamBlockBytes, "block_off")).named("at");
      loaded.push_back(b.ld_vec(ir::Op::ld_global, Type::b32, 4, Addr::at(at), "v"));
    }
    for (const std::vector<Reg>& v : loaded)
      for (int j = 0; j < 4; ++j) b.alu_into(ir::Op::xor_, sum[j], {sum[j], v[j]});
  });
  end_with_sums(b, pc, gid, t0, sum);
  return b.finish();
}

ir::Kernel build_store_stream_probe(uint32_t ctas, uint32_t rounds, uint32_t blocks, bool scattered) {
  if (ctas == 0 || rounds == 0 || blocks == 0 || (blocks & (blocks - 1)) != 0)
    throw std::invalid_argument(fmt::format("a store probe needs CTAs, rounds and a power-of-two block count (got "
                                            "{}, {}, {})",
                                            ctas, rounds, blocks));
  Builder b(fmt::format("timing_store_{}_{}", scattered ? "scattered" : "stream", blocks), ir::Arch::sm_80);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {kStreamThreads, 1, 1}});
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg cta = b.special(ir::Special::ctaid_x, "cta");
  Reg gid = (cta * kStreamThreads + tid).named("gid");
  Reg A = b.global_ptr(pa, "A_ptr");
  // Streamed: thread t's 16 bytes at 16t. Scattered (a wgmma epilogue's pattern): warp w's lane
  // l writes 8 bytes at line (w % 4)·8 + l / 4, sector (w / 4)·2 + j (j = 0, 1: two stores),
  // byte (l % 4)·8 of the block's 32 lines; each store touches 8 lines, one sector in each.
  Reg warp = (tid >> 5).named("warp");
  Reg lane = (tid & 31u).named("lane");
  Reg line = (((warp & 3u) << 3) + (lane >> 2)).named("line");
  Reg scatter_off = ((line << 7) + ((warp >> 2) << 6) + ((lane & 3u) << 3)).named("scatter_off");
  Reg mine = (A + b.mul_wide(scattered ? scatter_off : tid, scattered ? 1u : 16u, "lane_off")).named("mine");
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.loop("round", rounds, [&](const Reg& i) {
    for (uint32_t u = 0; u < kStreamLoads; ++u) {
      Reg block = ((((i * kStreamLoads) + u) * ctas + cta) & (blocks - 1)).named("block");
      Reg at = (mine + b.mul_wide(block, kStreamBlockBytes, "block_off")).named("at");
      if (scattered) {
        b.st(ir::Op::st_global, Type::b32, Addr::at(at), {gid, i});
        b.st(ir::Op::st_global, Type::b32, Addr::at(at, 32), {block, tid});
      } else {
        b.st(ir::Op::st_global, Type::b32, Addr::at(at), {gid, i, block, tid});
      }
    }
  });
  Reg t1 = b.special(ir::Special::clock64, "t1");
  store_result(b, pc, gid, t0, t1, b.cvt(Type::u64, gid, ir::Rounding::none, "value"));
  b.ret();
  return b.finish();
}

namespace probe_parts {

// Lane `streamer` keeps `stages` TMA boxes in flight for `rounds` rounds, each stage on its own
// full barrier: stage s of round i loads box ((i·stages + s)·groups + group) mod boxes, i.e.
// rows box·box_rows.. of the tensor map, into buf's stage s; it waits for the stage's previous
// box before it asks for the next, and for the last round's boxes at the end.
void stream_boxes(Builder& b, const Reg& streamer, const Reg& tm, const builder::Smem& buf, const builder::Smem& full, uint32_t stages,
                  uint32_t rounds, uint32_t boxes, uint32_t box_rows, uint32_t box_bytes, uint32_t groups,
                  const Reg& group, const Reg* stamps,
                  const std::function<std::pair<Reg, Reg>(const Reg& round, uint32_t s)>* coords,
                  const std::function<void()>* after_round, const builder::Smem* empty, const MulticastHalf* half) {
  // stamps: where clock64 goes, 8 bytes a slot: slot 0 before the first copies, slot i + 1 once
  // round i's boxes have landed (its waits returned), before round i + 1's copies. after_round:
  // what the streaming lane does after each round's copies are asked for (a pause).
  const auto stamp = [&](const Reg& slot) {
    Reg t = b.special(ir::Special::clock64, "stamp_t");
    b.st_global(Type::u64, Addr::at((*stamps + b.mul_wide(slot, 8u, "stamp_off")).named("stamp_at")), {t});
  };
  const auto load = [&](const Reg& round, uint32_t s) {
    b.mbarrier_arrive_expect_tx(full.at(8 * s), box_bytes);
    if (coords) {  // the caller's (column, row) of stage s's box in this round
      const auto [col, row] = (*coords)(round, s);
      b.cp_async_bulk_tensor_load(buf.at(int64_t(s) * box_bytes), tm, {col, row}, full.at(8 * s));
      return;
    }
    // A power-of-two footprint wraps with a mask (the rows measured first); any other with rem.
    Reg step = (((round * stages) + s) * groups + group).named("step");
    Reg box = ((boxes & (boxes - 1)) == 0 ? (step & (boxes - 1)) : (step % boxes)).named("box");
    if (half) {  // this CTA's half of the box, into both CTAs of the pair
      Reg row = ((box * box_rows) + half->rank * (box_rows / 2)).named("half_row");
      Reg at = (b.smem_address(buf, uint64_t(s) * box_bytes, "stage_base") + half->rank * (box_bytes / 2))
                   .named("half_at");
      b.cp_async_bulk_tensor_load_multicast(Addr::at(at), half->tm_half, {0u, row}, full.at(8 * s),
                                            b.mov(Type::u16, 3u, "pair_mask"));
      return;
    }
    b.cp_async_bulk_tensor_load(buf.at(int64_t(s) * box_bytes), tm, {0u, (box * box_rows).named("row")},
                                full.at(8 * s));
  };
  b.if_(streamer, [&] {
    Reg first = b.mov(Type::u32, 0u, "first");
    if (stamps) stamp(first);
    for (uint32_t s = 0; s < stages; ++s) load(first, s);
    Reg phase = b.mov(Type::u32, 0u, "phase");
    b.loop("round", rounds - 1, [&](const Reg& i) {
      Reg next = (i + 1u).named("next");
      if (stamps) {  // every stage's box of round i first, then the stamp, then round i + 1's copies
        for (uint32_t s = 0; s < stages; ++s) b.mbarrier_wait(full.at(8 * s), phase);
        stamp(next);
        for (uint32_t s = 0; s < stages; ++s) load(next, s);
      } else {
        for (uint32_t s = 0; s < stages; ++s) {
          b.mbarrier_wait((empty ? *empty : full).at(8 * s), phase);
          load(next, s);
        }
      }
      if (after_round) (*after_round)();
      phase ^= 1u;
    });
    for (uint32_t s = 0; s < stages; ++s) b.mbarrier_wait(full.at(8 * s), phase);
    if (stamps) stamp(b.mov(Type::u32, rounds, "last"));
  });
}

}  // namespace probe_parts

using probe_parts::stream_boxes;

ir::Kernel build_wgmma_probe(uint32_t warpgroups, uint32_t n, uint32_t reps, uint32_t ctas, bool random) {
  if (warpgroups == 0 || warpgroups > 3 || n < 8 || n > 256 || n % 8 != 0 || reps == 0 || ctas == 0)
    throw std::invalid_argument(fmt::format("a wgmma probe needs 1..3 warpgroups, N a multiple of 8 in 8..256 and a "
                                            "repetition (got {}, {}, {})",
                                            warpgroups, n, reps));
  constexpr uint32_t kK = 64;  // one 128-byte swizzle row of bf16
  Builder b(fmt::format("timing_wgmma_{}x{}", warpgroups, n), ir::Arch::sm_90a);
  const uint32_t threads = 128 * warpgroups;
  b.set_launch({.grid = {ctas, 1, 1}, .block = {threads, 1, 1}});
  b.use_dynamic_smem();
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const probe_parts::WgmmaTiles tiles = probe_parts::wgmma_probe_tiles(b, threads, n, random);
  const Reg& tid = tiles.tid;
  const Reg& a_addr = tiles.a_addr;
  const Reg& b_addr = tiles.b_addr;
  Reg a_desc = b.wgmma_descriptor(a_addr, layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "a_desc");
  Reg b_desc = b.wgmma_descriptor(b_addr, layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "b_desc");
  std::vector<Reg> acc;
  for (uint32_t v = 0; v < n / 2; ++v) acc.push_back(b.mov(Type::f32, 0.0, fmt::format("acc{}", v)));
  Reg t0 = b.special(ir::Special::clock64, "t0");
  static_assert(kK == 64);  // wgmma_rounds' K block
  wgmma_rounds(b, "rep", reps, n, a_desc, b_desc, acc);
  Reg t1 = b.special(ir::Special::clock64, "t1");
  Reg value = b.cvt(Type::u64, b.mov(Type::u32, b.mov(Type::b32, acc[0], "bits"), "u"), ir::Rounding::none, "value");
  Reg gid = (b.special(ir::Special::ctaid_x, "cta") * threads + tid).named("gid");
  store_result(b, pc, gid, t0, t1, value);
  b.ret();
  return b.finish();
}

ir::Kernel build_wgmma_stages_probe(uint32_t stages, uint32_t reps, bool random) {
  if (stages == 0 || stages > 4 || reps == 0)
    throw std::invalid_argument(
        fmt::format("a wgmma stages probe needs 1..4 stages and a repetition (got {}, {})", stages, reps));
  constexpr uint32_t kK = 64, kN = 256, kThreads = 256;
  constexpr uint32_t kABytes = 128 * kK * 2, kBBytes = kN * kK * 2;  // a stage: 16 KiB of A, 32 KiB of B
  Builder b(fmt::format("timing_wgmma_stages{}", stages), ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {kThreads, 1, 1}});
  b.use_dynamic_smem();
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  const builder::Smem sA = b.operand_stages("sA", ir::GemmOperand::a, stages, kABytes, 1024, layout::Swizzle::b128);
  const builder::Smem sB = b.operand_stages("sB", ir::GemmOperand::b, stages, kBBytes, 1024, layout::Swizzle::b128);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg a_base = b.smem_address(sA, 0, "sA_addr");
  Reg b_base = b.smem_address(sB, 0, "sB_addr");
  b.comment(random ? "fill every stage with random bf16" : "zero every stage");
  fill_tiles(b, a_base, tid, stages * (kABytes + kBBytes) / 16, kThreads, random);
  b.fence_proxy_async();
  b.bar_sync(0);
  Reg a_mine = (a_base + (tid >> 7) * (64 * kK * 2)).named("sA_mine");  // the warpgroup's 64 rows
  std::vector<Reg> acc;
  for (uint32_t v = 0; v < kN / 2; ++v) acc.push_back(b.mov(Type::f32, 0.0, fmt::format("acc{}", v)));
  Reg stage = b.mov(Type::u32, 0u, "stage");
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.loop("rep", reps, [&](const Reg&) {
    Reg a_desc = b.wgmma_descriptor((a_mine + stage * kABytes).named("sA_s"),
                                    layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "a_desc");
    Reg b_desc = b.wgmma_descriptor((b_base + stage * kBBytes).named("sB_s"),
                                    layout::kmajor_tile_descriptor(0, layout::Swizzle::b128), "b_desc");
    wgmma_k_block(b, kN, a_desc, b_desc, acc);
    stage += 1;
    b.mov(stage, b.selp(0u, stage, (stage == stages).named("wrap")));
  });
  Reg t1 = b.special(ir::Special::clock64, "t1");
  Reg value = b.cvt(Type::u64, b.mov(Type::u32, b.mov(Type::b32, acc[0], "bits"), "u"), ir::Rounding::none, "value");
  store_result(b, pc, tid, t0, t1, value);
  b.ret();
  return b.finish();
}

// What the TMA streaming probes' CTAs share: one warp, whose thread 0 (leader) streams boxes of
// the tensor map `tmap` into `stages` stages of box_bytes, each completing on its full barrier
// (initialised, fenced and met at a bar.sync here).
struct TmaStreamCta {
  Param pc;
  builder::Smem buf, full;
  Reg cta, gid, tm, leader;
};
TmaStreamCta tma_stream_cta(Builder& b, const Param& tmap, uint32_t stages, uint32_t box_bytes,
                            layout::Swizzle swizzle) {
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto buf = b.operand_stages("buf", ir::GemmOperand::a, stages, box_bytes, 1024, swizzle);
  auto full = b.mbarriers("full", ir::BarrierRole::full, stages);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg cta = b.special(ir::Special::ctaid_x, "cta");
  Reg gid = (cta * 32u + tid).named("gid");
  Reg tm = b.tensor_map_address(tmap, "tm");
  Reg leader = (tid == 0).named("leader");
  b.if_(leader, [&] {
    for (uint32_t s = 0; s < stages; ++s) b.mbarrier_init(full.at(8 * s), 1);
    b.fence_mbarrier_init();
  });
  b.bar_sync(0);
  return {pc, buf, full, cta, gid, tm, leader};
}

// The clock, thread 0's record (its value the first word of stage 0) and the return.
void end_tma_stream(Builder& b, const TmaStreamCta& t, const Reg& t0) {
  Reg t1 = b.special(ir::Special::clock64, "t1");
  Reg first_word = b.ld_shared(Type::u32, t.buf.at(), "first_word");
  store_result(b, t.pc, t.gid, t0, t1, b.cvt(Type::u64, first_word, ir::Rounding::none, "value"));
  b.ret();
}

// Stamps after the CTAs' 32 records: `slots` a CTA (build_tma_probe's stamp_rounds).
Reg stamp_slots(Builder& b, const TmaStreamCta& t, uint32_t ctas, uint32_t slots) {
  return (b.global_ptr(t.pc, "C_stamps") + b.mul_wide(t.cta, slots * 8, "cta_stamps") +
          uint64_t(ctas) * 32 * kTimingOutBytes)
      .named("stamps");
}

ir::Kernel build_tma_probe(uint32_t ctas, uint32_t stages, uint32_t rounds, uint32_t box_rows, uint32_t boxes,
                           uint32_t share, bool stamp_rounds) {
  if (ctas == 0 || stages == 0 || stages > 8 || rounds < 2 || box_rows == 0 || box_rows > 256 || boxes == 0 ||
      share == 0)
    throw std::invalid_argument(fmt::format("a TMA probe needs CTAs, 1..8 stages, at least 2 rounds, 1..256 box rows "
                                            "a box count and a share of at least 1 (got {}, {}, {}, {}, "
                                            "{}, {})",
                                            ctas, stages, rounds, box_rows, boxes, share));
  constexpr uint32_t kCols = 64;  // bf16: 128 bytes a row
  const uint32_t box_bytes = box_rows * kCols * 2;
  Builder b(fmt::format("timing_tma_{}x{}_share{}{}", stages, box_rows, share, stamp_rounds ? "_stamped" : ""),
            ir::Arch::sm_90a);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {32, 1, 1}});
  b.use_dynamic_smem();  // up to 8 boxes of 32 KiB
  auto tmap = b.tensor_map_param(
      "tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, kCols, boxes * box_rows, kCols, box_rows, layout::Swizzle::none));
  const TmaStreamCta t = tma_stream_cta(b, tmap, stages, box_bytes, layout::Swizzle::none);
  Reg t0 = b.special(ir::Special::clock64, "t0");
  // Stage s of round i asks for box ((i·stages + s)·groups + cta / share) mod boxes, with
  // groups = ceil(ctas / share): the `share` CTAs of a group load the same box at about the
  // same time.
  const uint32_t groups = (ctas + share - 1) / share;
  std::optional<Reg> stamps;
  if (stamp_rounds) stamps = stamp_slots(b, t, ctas, rounds + 1);
  stream_boxes(b, t.leader, t.tm, t.buf, t.full, stages, rounds, boxes, box_rows, box_bytes, groups,
               (t.cta / share).named("group"), stamps ? &*stamps : nullptr);
  end_tma_stream(b, t, t0);
  return b.finish();
}

ir::Kernel build_tma_gemm_wave_probe(uint32_t tiles_m, uint32_t tiles_n, uint32_t k_blocks, uint32_t ctas) {
  if (tiles_m == 0 || tiles_n == 0 || k_blocks < 2 || ctas == 0 || ctas > tiles_m * tiles_n)
    throw std::invalid_argument(fmt::format("a GEMM-wave TMA probe needs tiles, at least 2 K blocks and 1..tiles_m x "
                                            "tiles_n CTAs (got {} x {} tiles, {} K blocks, {} CTAs)",
                                            tiles_m, tiles_n, k_blocks, ctas));
  constexpr uint32_t kTile = 128, kBK = 64;  // step 13's 128 x 128 tile, 64-wide K blocks
  constexpr uint32_t kBoxBytes = kTile * kBK * 2;
  Builder b(fmt::format("timing_tma_gemm_wave_{}x{}x{}", tiles_m, tiles_n, k_blocks), ir::Arch::sm_90a);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {32, 1, 1}});
  b.use_dynamic_smem();
  // A's rows (tiles_m panels) then B's (tiles_n), each row K = k_blocks x 64 bf16, as step 13 reads them.
  auto tmap = b.tensor_map_param("tmap_AB", ir::row_major_bf16_map(ir::ParamRole::a, k_blocks * kBK,
                                                                  (tiles_m + tiles_n) * kTile, kBK, kTile,
                                                                  layout::Swizzle::b128));
  const TmaStreamCta t = tma_stream_cta(b, tmap, 2, kBoxBytes, layout::Swizzle::b128);
  const Reg& cta = t.cta;
  // CTA c computes tile (c / tiles_n, c % tiles_n), as step 13's grid runs row by row: its A
  // panel is row c / tiles_n, its B panel row tiles_m + c % tiles_n; round i is K block i.
  Reg a_row = ((cta / tiles_n) * kTile).named("a_row");
  Reg b_row = (((cta % tiles_n) + tiles_m) * kTile).named("b_row");
  const std::function<std::pair<Reg, Reg>(const Reg&, uint32_t)> coords = [&](const Reg& round, uint32_t s) {
    return std::pair<Reg, Reg>{(round * kBK).named("k_col"), s == 0 ? a_row : b_row};
  };
  Reg stamps = stamp_slots(b, t, ctas, k_blocks + 1);
  Reg t0 = b.special(ir::Special::clock64, "t0");
  stream_boxes(b, t.leader, t.tm, t.buf, t.full, 2, k_blocks, 1, kTile, kBoxBytes, 1, cta, &stamps, &coords);
  end_tma_stream(b, t, t0);
  return b.finish();
}

ir::Kernel build_clock_spin_probe(uint32_t ctas, uint32_t reps) {
  if (ctas == 0 || reps == 0)
    throw std::invalid_argument(fmt::format("a clock spin needs at least one CTA and one repetition (got {} CTAs, {} "
                                            "reps)",
                                            ctas, reps));
  Builder b(fmt::format("timing_clock_spin_{}", reps), ir::Arch::sm_80);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {32, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg gid = (b.special(ir::Special::ctaid_x, "cta") * 32u + tid).named("gid");
  Reg tf = b.cvt(Type::f32, tid, ir::Rounding::rn, "tid_f");
  Reg x = b.fma(tf, 1e-7, 0.9999, "x"), y = b.fma(tf, 1e-9, 1e-6, "y");
  Reg acc = b.fma(tf, 1.0, 1.0, "acc");
  Reg t0 = b.special(ir::Special::clock64, "t0");
  Reg ns0 = b.special(ir::Special::globaltimer, "ns0");
  b.loop("rep", reps, [&](const Reg&) {
    for (uint32_t i = 0; i < 8; ++i) b.fma_into(acc, acc, x, y);
  });
  Reg t1 = b.special(ir::Special::clock64, "t1");
  Reg ns1 = b.special(ir::Special::globaltimer, "ns1");
  store_result(b, pc, gid, t0, t1, (ns1 - ns0).named("ns"));
  store_spare(b, pc, gid, acc);  // the fma chain stays live
  b.ret();
  return b.finish();
}

ir::Kernel build_launch_probe(uint32_t ctas, uint32_t threads, uint32_t smem_bytes) {
  if (ctas == 0 || threads == 0 || threads > 1024 || threads % 32 != 0)
    throw std::invalid_argument(fmt::format("a launch probe needs at least one CTA of 32..1024 threads, a multiple of "
                                            "32 (got {} CTAs of {})",
                                            ctas, threads));
  Builder b(fmt::format("timing_launch_{}x{}{}", ctas, threads, smem_bytes ? fmt::format("_smem{}k", smem_bytes / 1024) : ""),
            ir::Arch::sm_90a);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {threads, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  if (smem_bytes > 0) {
    b.use_dynamic_smem();
    b.shared("reserved", smem_bytes, 128, ir::SmemUse::other);  // only held, never touched: the CTA's footprint
  }
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg cta = b.special(ir::Special::ctaid_x, "cta");
  b.if_((tid == 0).named("first"), [&] {
    Reg t = b.special(ir::Special::clock64, "t");
    store_result(b, pc, cta, t, t, b.cvt(Type::u64, cta, ir::Rounding::none, "value"));
  });
  b.ret();
  return b.finish();
}

}  // namespace gs::kernels
