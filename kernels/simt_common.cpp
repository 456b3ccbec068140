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

Chunks chunk_buffers(Builder& b, uint32_t as_bytes, uint32_t bs_bytes) {
  Chunks c;
  c.As = b.operand_stages("As", ir::GemmOperand::a, 1, as_bytes, 16);
  c.Bs = b.operand_stages("Bs", ir::GemmOperand::b, 1, bs_bytes, 16);
  c.as = b.smem_address(c.As, 0, "As_addr");
  c.bs = b.smem_address(c.Bs, 0, "Bs_addr");
  return c;
}

void chunk_loop(Builder& b, uint32_t K, uint32_t bk, uint32_t N, Reg& a_ptr, Reg& b_ptr,
                const std::function<void()>& copy, const std::function<void()>& compute, bool sync_after_load) {
  b.role(ir::WarpRole::simt, [&] {
    b.k_loop("kc", K / bk, [&](const Reg&) {
      b.comment("copy this chunk of A and B into shared memory");
      copy();
      if (sync_after_load) {
        b.comment("wait until the whole chunk is in shared memory");
        b.bar_sync(0);
      }
      compute();
      b.comment("everyone is done with the chunk before it is overwritten");
      b.bar_sync(0);
      a_ptr += bk * 4;      // bk columns right in A
      b_ptr += bk * N * 4;  // bk rows down in B
    });
  });
}

std::vector<Reg> zero_accumulators(Builder& b, uint32_t count) {
  std::vector<Reg> res;
  for (uint32_t i = 0; i < count; ++i) res.push_back(b.mov(Type::f32, 0.0, fmt::format("res{}", i)));
  return res;
}

void outer_product(Builder& b, std::vector<Reg>& res, const std::vector<Reg>& m, const std::vector<Reg>& n) {
  for (size_t i = 0; i < m.size(); ++i)
    for (size_t j = 0; j < n.size(); ++j) b.fma_into(res[i * n.size() + j], m[i], n[j], res[i * n.size() + j]);
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
