// The shared pieces of the Hopper steps and the ring of stages they share with the Blackwell
// steps (hopper_parts.hpp).
#include "kernels/hopper_parts.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/ir/verify.hpp"

namespace gs::kernels::tma_ring {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;

void next_stage(Builder& b, Reg& stage, Reg& phase, uint32_t stages, bool flip_phase) {
  stage += 1;
  Reg wrap = (stage == stages).named("wrap");
  b.mov(stage, b.selp(0u, stage, wrap));
  if (flip_phase) phase ^= b.selp(1u, 0u, wrap);
}

Addr Ring::full_at(const Reg& stage) const { return Addr::at((full_base + (stage << 3)).named("full_s")); }
Addr Ring::empty_at(const Reg& stage) const { return Addr::at((empty_base + (stage << 3)).named("empty_s")); }
Reg Ring::a_at(const Reg& stage) const { return (a_base + stage * a_bytes).named("sA_s"); }
Reg Ring::b_at(const Reg& stage) const { return (b_base + stage * b_bytes).named("sB_s"); }

Ring declare_ring(Builder& b, uint32_t stages, uint32_t a_bytes, uint32_t b_bytes) {
  Ring r{.stages = stages, .a_bytes = a_bytes, .b_bytes = b_bytes};
  const auto sA = b.operand_stages("sA", ir::GemmOperand::a, stages, a_bytes, 1024, layout::Swizzle::b128);
  const auto sB = b.operand_stages("sB", ir::GemmOperand::b, stages, b_bytes, 1024, layout::Swizzle::b128);
  r.full = b.mbarriers("full", ir::BarrierRole::full, stages);
  r.empty = b.mbarriers("empty", ir::BarrierRole::empty, stages);
  b.use_dynamic_smem();
  r.full_base = b.smem_address(r.full, 0, "full_base");
  r.empty_base = b.smem_address(r.empty, 0, "empty_base");
  r.a_base = b.smem_address(sA, 0, "sA_base");
  r.b_base = b.smem_address(sB, 0, "sB_base");
  return r;
}

void init_ring(Builder& b, const Ring& ring, const Reg& tid, uint32_t empty_arrivals) {
  b.comment("one thread initialises the ring's barriers");
  b.if_((tid == 0).named("init_thread"), [&] {
    for (uint32_t s = 0; s < ring.stages; ++s) {
      b.mbarrier_init(ring.full.at(8 * s), 1);
      b.mbarrier_init(ring.empty.at(8 * s), empty_arrivals);
    }
    b.fence_mbarrier_init();
  });
  b.bar_sync(0);
}

void produce_k_block(Builder& b, const Ring& ring, Reg& stage, Reg& phase, const Reg& tmA, const Reg& tmB,
                     const Reg& kb, const Reg& m0, const Reg& n0, const ProduceOptions& options) {
  if (options.wait_empty) {
    b.comment("wait until the consumers released this stage (a fresh barrier passes parity 1)");
    b.mbarrier_wait(ring.empty_at(stage), phase ^ 1, options.suspend_hint_ns);
  }
  const Addr full_s = ring.full_at(stage);
  b.mbarrier_arrive_expect_tx(full_s, ring.a_bytes + ring.b_bytes);
  Reg k0 = (kb << 6).named("k0");
  b.cp_async_bulk_tensor_load(Addr::at(ring.a_at(stage)), tmA, {k0, m0}, full_s);
  b.cp_async_bulk_tensor_load(Addr::at(ring.b_at(stage)), tmB, {k0, n0}, full_s);
  next_stage(b, stage, phase, ring.stages);
}

}  // namespace gs::kernels::tma_ring

namespace gs::kernels::hopper {

using tma_ring::next_stage;

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;

std::vector<Reg> accumulators(Builder& b, uint32_t n, const std::string& prefix) {
  std::vector<Reg> acc;
  for (uint32_t v = 0; v < n / 2; ++v) acc.push_back(b.reg(Type::f32, fmt::format("{}{}", prefix, v)));
  return acc;
}

namespace {
// One K block's wgmmas, each k16 step's descriptors from `desc(slab or -1 for B, kk)`.
template <class Desc>
void k_block_wgmmas(Builder& b, uint32_t n, const std::vector<std::vector<Reg>>& acc, const builder::Src& accumulate,
                    Desc&& desc) {
  for (uint32_t kk = 0; kk < kBK / 16; ++kk) {
    const Reg bd = desc(-1, kk);
    for (size_t slab = 0; slab < acc.size(); ++slab) {
      const Reg ad = desc(int(slab), kk);
      if (kk == 0) b.wgmma_mma_async(n, acc[slab], ad, bd, accumulate);
      else b.wgmma_mma_async(n, acc[slab], ad, bd, 1);
    }
  }
}
std::string desc_name(int slab, uint32_t kk) {
  return slab < 0 ? fmt::format("b_desc_k{}", kk) : fmt::format("a_desc{}_k{}", slab, kk);
}
}  // namespace

void wgmma_k_block(Builder& b, uint32_t n, const std::vector<std::vector<Reg>>& acc, const std::vector<Reg>& a_desc,
                   const Reg& b_desc, const builder::Src& accumulate) {
  k_block_wgmmas(b, n, acc, accumulate, [&](int slab, uint32_t kk) {
    const Reg& base = slab < 0 ? b_desc : a_desc[size_t(slab)];
    return kk == 0 ? base : b.alu(ir::Op::add, Type::u64, {base, 2 * kk}, desc_name(slab, kk));
  });
}

Reg descriptor_from_low(Builder& b, const Reg& lo, uint64_t high, const std::string& name) {
  Reg wide = b.cvt(Type::u64, lo, ir::Rounding::none, name + "_lo64");
  return b.alu(ir::Op::or_, Type::b64, {wide, static_cast<unsigned long long>(high)}, name);
}



Reg pack_bf16x2(Builder& b, const Reg& lo, const Reg& hi, std::string name) {
  Reg packed = b.reg(Type::b32, std::move(name));
  ir::Inst cvt{.op = ir::Op::cvt_pack, .type = Type::bf16x2, .type2 = Type::f32, .rounding = ir::Rounding::rn, .ndst = 1};
  cvt.operands = {ir::Operand::reg(packed.id()), ir::Operand::reg(hi.id()), ir::Operand::reg(lo.id())};
  b.record(std::move(cvt));
  return packed;
}

void store_tile_clipped(Builder& b, const std::vector<Reg>& acc, uint32_t n, const Reg& c_base, const Reg& wg_thread,
                        const Reg& row0, const Reg& col0, uint32_t M, uint32_t N, DType c_dtype) {
  const uint32_t es = c_dtype == DType::f32 ? 4 : 2;
  Reg warp = (wg_thread >> 5).named("warp_in_wg");
  Reg lane = (wg_thread & 31).named("lane");
  Reg row = (row0 + (warp << 4) + (lane >> 2)).named("row");
  Reg col = (col0 + ((lane & 3) << 1)).named("col");
  Reg c_ptr = (c_base + b.mul_wide(row, N * es, "c_row_off") + b.mul_wide(col, es, "c_col_off")).named("c_ptr");
  // Rows row and row+8 are inside C or not per thread; an 8-column block j is in or out for
  // the whole warpgroup (col0 + 8j < N).
  const Reg row_in[2] = {(row < M).named("row_in"), ((row + 8) < M).named("row8_in")};
  for (uint32_t j = 0; j < n / 8; ++j) {
    Reg cols_in = ((col0 + 8 * j) < N).named(fmt::format("cols{}_in", j));
    for (uint32_t h = 0; h < 2; ++h) {
      Reg inside = (row_in[h] & cols_in).named("inside");
      const int64_t offset = (int64_t(8 * h) * N + 8 * j) * es;
      const Reg& first = acc[4 * j + 2 * h];
      const Reg& second = acc[4 * j + 2 * h + 1];
      if (c_dtype == DType::f32) {
        ir::Inst st{.op = ir::Op::st_global, .type = Type::f32, .vec = 2, .guard = inside.id()};
        st.operands = {Addr::at(c_ptr, offset).operand, ir::Operand::reg(first.id()), ir::Operand::reg(second.id())};
        b.record(std::move(st));
      } else {
        Reg pair = pack_bf16x2(b, first, second, "c_pair");
        ir::Inst st{.op = ir::Op::st_global, .type = Type::b32, .guard = inside.id()};
        st.operands = {Addr::at(c_ptr, offset).operand, ir::Operand::reg(pair.id())};
        b.record(std::move(st));
      }
    }
  }
}

void check_edge_shape(std::string_view kernel, const GemmShape& s) {
  const char dims[3] = {'M', 'N', 'K'};
  const uint32_t values[3] = {s.m, s.n, s.k};
  for (int i = 0; i < 3; ++i) {
    require_multiple(kernel, dims[i], values[i], 8, "the 16-byte row granule of a TMA map");
    require_range(kernel, dims[i], values[i], 8, kMaxGemmDimension);
  }
}

std::vector<std::string> edge_shape_constraints() {
  return {"M, N and K multiples of 8 (a TMA row stride is a multiple of 16 bytes), each at most 65536",
          "any such shape: TMA zero-fills the parts of edge tiles outside A and B, and the epilogue skips "
          "the stores outside C"};
}

RingDescriptors ring_descriptors(Builder& b, const Ring& ring, size_t slabs, const std::optional<Reg>& a_offset) {
  b.comment("the descriptors of stage 0's tiles; stage s's are these + s x tile bytes / 16");
  const layout::WgmmaDescriptor sw128 = layout::kmajor_tile_descriptor(0, layout::Swizzle::b128);
  RingDescriptors d{.a_stage_units = ring.a_bytes / 16, .b_stage_units = ring.b_bytes / 16};
  Reg a_tile = a_offset ? (ring.a_base + *a_offset).named("sA_slab") : ring.a_base;
  // Every descriptor here shares the bits above 31 (sw128's stride and swizzle; the start field,
  // bits 0-13, stays below 2^14): the loop works on the low words.
  layout::WgmmaDescriptor constant = sw128;
  constant.start_address = 0;
  const uint64_t bits = layout::encode_wgmma_descriptor(constant);
  d.high = bits & ~uint64_t(0xFFFFFFFF);
  // The low word of the descriptor at a shared address: (address & 0x3FFFF) >> 4 (bits 0-13) ORed
  // with the constant's low bits, as Builder::descriptor_at makes the whole one.
  const auto low_word = [&](const Reg& addr, const std::string& name) {
    return (((addr & 0x3FFFFu) >> 4u) | uint32_t(bits & 0xFFFFFFFF)).named(name);
  };
  d.a_lo.push_back(low_word(a_tile, "a_desc_ring0_lo"));
  // Slab i starts 64 rows x 128 B = 8 KiB on: +512 in the descriptor's address field.
  for (size_t i = 1; i < slabs; ++i)
    d.a_lo.push_back((d.a_lo[0] + uint32_t(i * 512)).named(fmt::format("a_desc_ring{}_lo", i)));
  d.b_lo = low_word(ring.b_base, "b_desc_ring_lo");
  return d;
}

void consume_k_block(Builder& b, const Ring& ring, const RingDescriptors& d, const Reg& stage, const Reg& phase,
                     uint32_t n, const std::vector<std::vector<Reg>>& acc, const Reg& kb,
                     std::optional<uint32_t> suspend_hint_ns, bool scale_d_first, uint32_t groups_left) {
  b.comment("the stage's descriptors need no data: made before the wait, so the wgmmas follow it at once; "
            "their low words only (RingDescriptors)");
  Reg a_step = (stage * d.a_stage_units).named("a_stage_off");
  std::vector<Reg> a_lo, a_desc;
  for (size_t i = 0; i < acc.size(); ++i) {
    a_lo.push_back((d.a_lo.at(i) + a_step).named(fmt::format("a_desc{}_lo", i)));
    a_desc.push_back(descriptor_from_low(b, a_lo.back(), d.high, fmt::format("a_desc{}", i)));
  }
  Reg b_step = d.b_stage_units == d.a_stage_units ? a_step : (stage * d.b_stage_units).named("b_stage_off");
  Reg b_lo = (d.b_lo + b_step).named("b_desc_lo");
  Reg b_desc = descriptor_from_low(b, b_lo, d.high, "b_desc");
  Reg accumulate = scale_d_first ? (kb != 0).named("accumulate") : b.mov(Type::pred, 1u, "accumulate");
  b.mbarrier_wait(ring.full_at(stage), phase, suspend_hint_ns);
  b.wgmma_fence();
  // Each later k16 step's descriptors: the low word + 2 kk over the high bits.
  k_block_wgmmas(b, n, acc, accumulate, [&](int slab, uint32_t kk) {
    if (kk == 0) return slab < 0 ? b_desc : a_desc[size_t(slab)];
    const std::string name = desc_name(slab, kk);
    return descriptor_from_low(b, ((slab < 0 ? b_lo : a_lo[size_t(slab)]) + 2 * kk).named(name + "_lo"), d.high, name);
  });
  b.wgmma_commit_group();
  b.wgmma_wait_group(groups_left);
}

void zero_accumulators(Builder& b, const std::vector<Reg>& acc) {
  for (const Reg& r : acc) b.mov(r, 0.0);
}

TileCorner grouped_tile_corner(Builder& b, const Reg& t, uint32_t tiles_m, uint32_t tiles_n, uint32_t group_m,
                               uint32_t tile_m, uint32_t tile_n) {
  const uint32_t group_tiles = group_m * tiles_n;
  Reg group = (t / group_tiles).named("group");
  Reg first_m = (group * group_m).named("first_m");
  Reg tiles_m_reg = b.mov(Type::u32, tiles_m, "tiles_m");
  Reg rows = b.alu(ir::Op::min, Type::u32, {(tiles_m_reg - first_m).named("rows_left"), group_m}, "group_rows");
  Reg p = (t - group * group_tiles).named("in_group");
  Reg row = (first_m + p % rows).named("tile_row");
  Reg col = (p / rows).named("tile_col");
  return {(row * tile_m).named("m0"), (col * tile_n).named("n0")};
}

void set_hopper_info(KernelInfo& k, std::string_view id, GemmShape tile) {
  k.id = id;
  k.arch = ir::Arch::sm_90a;
  k.family = Family::hopper;
  k.tile = tile;
  k.ab_dtype = DType::bf16;
  k.c_dtype = DType::f32;
  k.b_layout = BLayout::nk;
  k.constraints = edge_shape_constraints();
  const std::string name(id);
  k.check_shape = [name](const GemmShape& s, const GemmShape&) { check_edge_shape(name, s); };
}

}  // namespace gs::kernels::hopper

// At the end of the file, so that the lines above (which recorded timelines name) stay put.
namespace gs::kernels::tma_ring {

ClusterRelease cluster_release(Builder& b, const Ring& ring, const Reg& lane, uint32_t cluster) {
  Reg releaser = (lane < cluster).named("releaser");
  // Lanes past the cluster take rank 0's address: they never arrive, the address stays valid.
  Reg rank = b.selp(lane, 0u, releaser, "release_rank");
  return {releaser, b.mapa(ring.empty_base, rank, "empty_of_rank")};
}

void release_stage_in_cluster(Builder& b, const ClusterRelease& r, const Reg& stage) {
  b.if_(r.releaser, [&] { b.mbarrier_arrive_remote(Addr::at((r.empty_base + (stage << 3)).named("empty_s_rank"))); });
}

}  // namespace gs::kernels::tma_ring

// The tile N as a build parameter, after the parts above (their lines stay put, see above).
namespace gs::kernels::hopper {

namespace {

// Shared memory of a ring of `stages` stages of a_bytes + b_tile_bytes(bn), its barriers (a full
// and an empty mbarrier a stage, and the Hilbert walk's 8-byte corner slot) and other_bytes.
uint32_t tile_n_smem(const TileNRing& r, uint32_t bn, uint32_t stages) {
  return stages * (r.a_bytes + b_tile_bytes(bn) + 24) + r.other_bytes;
}
// The most stages a bn leaves room for.
uint32_t most_stages(const TileNRing& r, uint32_t bn) {
  uint32_t s = 0;
  while (tile_n_smem(r, bn, s + 1) <= ir::kMaxDynamicSmem) ++s;
  return s;
}

}  // namespace

void declare_tile_n(KernelInfo& k, const TileNRing& ring, std::vector<BuildParam> others) {
  BuildParam bn{"bn",
                "columns of C a CTA's tile has (N of each consumer's wgmma.m64nNk16; B's box and stage are bn rows "
                "of 128 bytes; each consumer thread keeps bn/2 f32 accumulators a 64-row slab)" +
                    ring.bn_note,
                ring.bn_default,
                ring.tile_ns};
  BuildParam stages = stages_param(ring.stages_default, 2, most_stages(ring, ring.tile_ns.front()), ring.a_bytes);
  stages.description = fmt::format("shared-memory stages in the TMA ring ({} KiB of A + bn/8 KiB of B each: {} KiB at "
                                   "bn={}); how many fit depends on bn",
                                   ring.a_bytes / 1024, (ring.a_bytes + b_tile_bytes(ring.bn_default)) / 1024,
                                   ring.bn_default);
  k.params = {std::move(bn), std::move(stages)};
  for (BuildParam& p : others) k.params.push_back(std::move(p));
  const GemmShape shipped = k.tile;
  k.build_tile = [shipped](const ParamValues& p) { return GemmShape{shipped.m, p.at("bn"), shipped.k}; };
  k.check_params = [ring](const ParamValues& p) { return tile_n_ring_fits(ring, p.at("bn"), p.at("stages")); };
  k.constraints.push_back(fmt::format(
      "bn (the tile's N: {}) and stages combine where the ring fits in 227 KiB of shared memory",
      fmt::join(ring.tile_ns, ", ")));
}

std::optional<std::string> tile_n_ring_fits(const TileNRing& ring, uint32_t bn, uint32_t stages) {
  if (tile_n_smem(ring, bn, stages) <= ir::kMaxDynamicSmem) return std::nullopt;
  std::string others;  // what the smaller tiles leave room for, the nearest first
  for (auto n = ring.tile_ns.rbegin(); n != ring.tile_ns.rend(); ++n)
    if (*n < bn && most_stages(ring, *n) >= stages)
      others += fmt::format("{}{}: up to {}", others.empty() ? "" : "; ", *n, most_stages(ring, *n));
  return fmt::format("{} stages × ({} KiB of A + {} KiB of B) {}= {} KiB of shared memory, more than the {} KiB a "
                     "CTA can have: at bn={} take stages {}..{}{}",
                     stages, ring.a_bytes / 1024, b_tile_bytes(bn) / 1024,
                     ring.other_bytes ? fmt::format("+ {} ", ring.other_what) : "",
                     tile_n_smem(ring, bn, stages) / 1024, ir::kMaxDynamicSmem / 1024, bn, 2,
                     most_stages(ring, bn), others.empty() ? "" : ", or a smaller bn (" + others + ")");
}

}  // namespace gs::kernels::hopper
