// The shared pieces of the Hopper steps (hopper_parts.hpp).
#include "kernels/hopper_parts.hpp"

#include <fmt/format.h>

namespace gs::kernels::hopper {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;

std::vector<Reg> accumulators(Builder& b, uint32_t n, const std::string& prefix) {
  std::vector<Reg> acc;
  for (uint32_t v = 0; v < n / 2; ++v) acc.push_back(b.reg(Type::f32, fmt::format("{}{}", prefix, v)));
  return acc;
}

void wgmma_k_block(Builder& b, uint32_t n, const std::vector<std::vector<Reg>>& acc, const std::vector<Reg>& a_desc,
                   const Reg& b_desc, const builder::Src& accumulate) {
  for (uint32_t kk = 0; kk < kBK / 16; ++kk) {
    const Reg bd = kk == 0 ? b_desc : b.alu(ir::Op::add, Type::u64, {b_desc, 2 * kk}, fmt::format("b_desc_k{}", kk));
    for (size_t slab = 0; slab < acc.size(); ++slab) {
      const Reg ad = kk == 0 ? a_desc[slab]
                             : b.alu(ir::Op::add, Type::u64, {a_desc[slab], 2 * kk}, fmt::format("a_desc{}_k{}", slab, kk));
      if (kk == 0) b.wgmma_mma_async(n, acc[slab], ad, bd, accumulate);
      else b.wgmma_mma_async(n, acc[slab], ad, bd, 1);
    }
  }
}

void store_tile_clipped(Builder& b, const std::vector<Reg>& acc, uint32_t n, const Reg& c_base, const Reg& wg_thread,
                        const Reg& row0, const Reg& col0, uint32_t M, uint32_t N) {
  Reg warp = (wg_thread >> 5).named("warp_in_wg");
  Reg lane = (wg_thread & 31).named("lane");
  Reg row = (row0 + (warp << 4) + (lane >> 2)).named("row");
  Reg col = (col0 + ((lane & 3) << 1)).named("col");
  Reg c_ptr = (c_base + b.mul_wide(row, N * 4, "c_row_off") + b.mul_wide(col, 4u, "c_col_off")).named("c_ptr");
  // Rows row and row+8 are inside C or not per thread; an 8-column block j is in or out for
  // the whole warpgroup (col0 + 8j < N).
  const Reg row_in[2] = {(row < M).named("row_in"), ((row + 8) < M).named("row8_in")};
  for (uint32_t j = 0; j < n / 8; ++j) {
    Reg cols_in = ((col0 + 8 * j) < N).named(fmt::format("cols{}_in", j));
    for (uint32_t h = 0; h < 2; ++h) {
      Reg inside = (row_in[h] & cols_in).named("inside");
      const int64_t offset = (int64_t(8 * h) * N + 8 * j) * 4;
      ir::Inst st{.op = ir::Op::st_global, .type = Type::f32, .vec = 2, .guard = inside.id()};
      st.operands = {Addr::at(c_ptr, offset).operand, ir::Operand::reg(acc[4 * j + 2 * h].id()),
                     ir::Operand::reg(acc[4 * j + 2 * h + 1].id())};
      b.record(std::move(st));
    }
  }
}

void next_stage(Builder& b, Reg& stage, Reg& phase, uint32_t stages, bool flip_phase) {
  stage += 1;
  Reg wrap = (stage == stages).named("wrap");
  b.mov(stage, b.selp(0u, stage, wrap));
  if (flip_phase) phase ^= b.selp(1u, 0u, wrap);
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

}  // namespace gs::kernels::hopper
