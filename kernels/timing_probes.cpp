#include "kernels/timing_probes.hpp"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"

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

// Thread `gid`'s 32 bytes of C: the cycles of its timed region, its start, the value that keeps its work.
void store_result(Builder& b, const Param& pc, const Reg& gid, const Reg& t0, const Reg& t1, const Reg& value) {
  Reg dt = (t1 - t0).named("cycles");
  Reg C = b.global_ptr(pc, "C_ptr");
  Reg out = (C + b.mul_wide(gid, kTimingOutBytes, "out_off")).named("out");
  b.st_global(Type::u64, Addr::at(out), {dt});
  b.st_global(Type::u64, Addr::at(out, 8), {t0});
  b.st_global(Type::u64, Addr::at(out, 16), {value});
}

}  // namespace

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
                             uint32_t reps) {
  if (ctas == 0 || warps == 0 || warps > 32 || chains == 0 || length == 0 || reps == 0)
    throw std::invalid_argument(fmt::format("a chain probe needs 1..32 warps and at least one CTA, chain, "
                                            "instruction and repetition (got {} CTAs, {} warps, {} chains, {} "
                                            "long, {} reps)",
                                            ctas, warps, chains, length, reps));
  const bool mma = op == ChainOp::mma_sync;
  Builder b(fmt::format("timing_chain_{}_{}x{}", mma ? "hmma" : op == ChainOp::ffma ? "ffma" : op == ChainOp::imad ? "imad" : "iadd",
                        warps, chains),
            ir::Arch::sm_80);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {32 * warps, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg gid = (b.special(ir::Special::ctaid_x, "cta") * (32 * warps) + tid).named("gid");
  // Operands from the thread id, so that nothing folds at compile time.
  std::vector<std::vector<Reg>> acc(chains);
  std::vector<Reg> fa, fb;
  Reg x, y;
  if (mma) {
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
  Reg t1 = b.special(ir::Special::clock64, "t1");
  Reg x = ((sum[0] ^ sum[1]) ^ (sum[2] ^ sum[3])).named("x");
  store_result(b, pc, gid, t0, t1, b.cvt(Type::u64, b.mov(Type::u32, x, "xu"), ir::Rounding::none, "value"));
  b.ret();
  return b.finish();
}

}  // namespace gs::kernels
