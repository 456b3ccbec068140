// The shared pieces of the Blackwell steps (tcgen05_parts.hpp).
#include "kernels/tcgen05_parts.hpp"

#include <fmt/format.h>

namespace gs::kernels::blackwell {

using builder::Addr;
using builder::Builder;
using builder::CtaGroup;
using builder::Reg;
using ir::Type;

Reg allocate_tmem(Builder& b, const builder::Smem& slot, const Reg& alloc_warp, uint32_t columns, CtaGroup group) {
  b.comment("one whole warp allocates tensor memory; the base address is written to shared memory");
  b.if_(alloc_warp, [&] {
    b.tcgen05_alloc(slot.at(), columns, group);
    b.tcgen05_relinquish_alloc_permit(group);
  });
  b.tcgen05_fence_before_thread_sync();
  b.bar_sync(0);
  b.tcgen05_fence_after_thread_sync();
  return b.ld_shared(Type::u32, slot.at(), "tmem_base");
}

void mma_k_block(Builder& b, const Reg& d_tmem, const Reg& a_desc, const Reg& b_desc, const Reg& idesc,
                 const Reg& accumulate, const Reg& always, CtaGroup group) {
  for (uint32_t kk = 0; kk < 4; ++kk) {
    const Reg ad = kk == 0 ? a_desc : b.alu(ir::Op::add, Type::u64, {a_desc, 2 * kk}, fmt::format("a_desc_k{}", kk));
    const Reg bd = kk == 0 ? b_desc : b.alu(ir::Op::add, Type::u64, {b_desc, 2 * kk}, fmt::format("b_desc_k{}", kk));
    b.tcgen05_mma(Addr::at(d_tmem), ad, bd, idesc, kk == 0 ? accumulate : always, group);
  }
}

void drain_accumulator(Builder& b, const Reg& tmem_base, const Reg& lane, const Reg& lane0, uint32_t columns, const Reg& c_base,
                       const Reg& row0, const Reg& col0, uint32_t N) {
  Reg quarter = (tmem_base + (lane0 << 16)).named("tmem_quarter");
  Reg row = (row0 + lane).named("row");
  Reg c_row = (c_base + b.mul_wide(row, N * 4, "c_row_off") + b.mul_wide(col0, 4u, "c_col_off")).named("c_row");
  for (uint32_t c = 0; c < columns; c += 32) {
    const Reg taddr = c == 0 ? quarter : (quarter + c).named(fmt::format("tmem_col{}", c));
    const std::vector<Reg> v = b.tcgen05_ld_32x32b(32, Addr::at(taddr), fmt::format("d{}_", c));
    b.tcgen05_wait_ld();
    for (uint32_t j = 0; j < 32; j += 4)
      b.st(ir::Op::st_global, Type::f32, Addr::at(c_row, int64_t(c + j) * 4), std::vector<Reg>(v.begin() + j, v.begin() + j + 4));
  }
}

void drain_accumulator_clipped(Builder& b, const Reg& tmem_base, const Reg& lane, const Reg& lane0, uint32_t columns,
                               const Reg& c_base, const Reg& row0, const Reg& col0, uint32_t M, uint32_t N) {
  Reg quarter = (tmem_base + (lane0 << 16)).named("tmem_quarter");
  Reg row = (row0 + lane).named("row");
  Reg c_row = (c_base + b.mul_wide(row, N * 4, "c_row_off") + b.mul_wide(col0, 4u, "c_col_off")).named("c_row");
  Reg row_inside = (row < M).named("row_inside");
  Reg cols_left = b.alu(ir::Op::sub, Type::u32, {b.mov(Type::u32, N, "N"), col0}, "cols_left");  // >= 1
  for (uint32_t c = 0; c < columns; c += 32) {
    const Reg taddr = c == 0 ? quarter : (quarter + c).named(fmt::format("tmem_col{}", c));
    const std::vector<Reg> v = b.tcgen05_ld_32x32b(32, Addr::at(taddr), fmt::format("d{}_", c));
    b.tcgen05_wait_ld();
    for (uint32_t j = 0; j < 32; j += 8) {
      Reg inside = b.alu(ir::Op::and_, Type::pred, {row_inside, (cols_left > c + j).named("col_inside")}, "inside");
      b.if_(inside, [&] {
        const int64_t offset = int64_t(c + j) * 4;
        b.st(ir::Op::st_global, Type::f32, Addr::at(c_row, offset), {v[j], v[j + 1], v[j + 2], v[j + 3]});
        b.st(ir::Op::st_global, Type::f32, Addr::at(c_row, offset + 16), {v[j + 4], v[j + 5], v[j + 6], v[j + 7]});
      });
    }
  }
}

void set_blackwell_info(KernelInfo& k, std::string_view id, GemmShape tile) {
  k.id = id;
  k.arch = ir::Arch::sm_100a;
  k.family = Family::blackwell;
  k.tile = tile;
  k.ab_dtype = DType::bf16;
  k.c_dtype = DType::f32;
  k.b_layout = BLayout::nk;
  k.constraints = {fmt::format("M a multiple of {} and N a multiple of {} (whole CTA tiles), each at most 65536",
                               tile.m, tile.n),
                   "K a multiple of 64 (one TMA box and four k16 MMAs per stage), at most 65536"};
  const std::string name(id);
  k.check_shape = [name](const GemmShape& s, const GemmShape& tile) { require_tiles(name, s, tile); };
}

}  // namespace gs::kernels::blackwell
