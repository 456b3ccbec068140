#include "kernels/simt_common.hpp"

#include <fmt/format.h>

namespace gs::kernels::simt {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;

KernelInfo tiled_info(std::string_view id, GemmShape tile, uint32_t threads) {
  KernelInfo k;
  k.id = std::string(id);
  k.arch = ir::Arch::sm_80;
  k.family = Family::simt;
  k.tile = tile;
  k.ab_dtype = DType::f32;
  k.c_dtype = DType::f32;
  k.b_layout = BLayout::kn;
  k.constraints = {fmt::format("M a multiple of {} and N a multiple of {} (the CTA tile), at most 65536", tile.m, tile.n),
                   fmt::format("K a multiple of {} (one shared-memory chunk per step), at most 65536", tile.k),
                   fmt::format("{} threads per CTA; no edge guards, as in the article", threads)};
  const std::string name(id);
  k.check_shape = [name, tile](const GemmShape& s) {
    require_multiple(name, 'M', s.m, tile.m, fmt::format("the {}-row tile", tile.m));
    require_multiple(name, 'N', s.n, tile.n, fmt::format("the {}-column tile", tile.n));
    require_multiple(name, 'K', s.k, tile.k, fmt::format("the {}-element K chunk", tile.k));
    require_range(name, 'M', s.m, tile.m, 65536);
    require_range(name, 'N', s.n, tile.n, 65536);
    require_range(name, 'K', s.k, tile.k, 65536);
  };
  k.cta_tile = [tile](const GemmShape& s, const std::array<uint32_t, 3>& cta) {
    return tile_of_block(s, tile, cta[1], cta[0]);
  };
  return k;
}

CtaStart cta_start(Builder& b, uint32_t bm, uint32_t bn) {
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pb = b.param("B", ir::ParamKind::global_ptr, ir::ParamRole::b);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  CtaStart s;
  s.tid = b.special(ir::Special::tid_x, "tid");
  b.comment("this CTA's tile of C: rows m0.., columns n0..");
  s.m0 = (b.special(ir::Special::ctaid_y, "cta_y") * bm).named("m0");
  s.n0 = (b.special(ir::Special::ctaid_x, "cta_x") * bn).named("n0");
  s.A = b.global_ptr(pa, "A_ptr");
  s.B = b.global_ptr(pb, "B_ptr");
  s.C = b.global_ptr(pc, "C_ptr");
  return s;
}

Reg element_ptr(Builder& b, const Reg& base, const Reg& row, uint32_t cols, const Reg& col, std::string name) {
  // Two widening multiplies: row·cols can pass 2^32 bytes at the largest shapes.
  return (base + b.mul_wide(row, cols * 4u, name + "_row_off") + b.mul_wide(col, 4u, name + "_col_off"))
      .named(std::move(name));
}

void store_results(Builder& b, const Reg& c_ptr, uint32_t N, uint32_t rows, uint32_t cols, const std::vector<Reg>& res,
                   int vec) {
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; c += uint32_t(vec)) {
      const Addr at = Addr::at(c_ptr, (int64_t(r) * N + c) * 4);
      if (vec == 1) {
        b.st_global(Type::f32, at, {res[r * cols + c]});
      } else {
        const std::vector<Reg> part(res.begin() + r * cols + c, res.begin() + r * cols + c + vec);
        b.st(ir::Op::st_global, Type::f32, at, part);
      }
    }
}

}  // namespace gs::kernels::simt
