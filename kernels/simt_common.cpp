#include "kernels/simt_common.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/ir/verify.hpp"

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
  k.check_shape = [name](const GemmShape& s, const GemmShape& tile) {
    require_multiple(name, 'M', s.m, tile.m, fmt::format("the {}-row tile", tile.m));
    require_multiple(name, 'N', s.n, tile.n, fmt::format("the {}-column tile", tile.n));
    require_multiple(name, 'K', s.k, tile.k, fmt::format("the {}-element K chunk", tile.k));
    require_range(name, 'M', s.m, tile.m, 65536);
    require_range(name, 'N', s.n, tile.n, 65536);
    require_range(name, 'K', s.k, tile.k, 65536);
  };
  k.cta_tile = [](const GemmShape& s, const GemmShape& tile, const std::array<uint32_t, 3>& cta) {
    return tile_of_block(s, tile, cta[1], cta[0]);
  };
  return k;
}

BuildParam tile_param(std::string_view name, std::string_view what, uint32_t default_value,
                      std::vector<uint32_t> choices) {
  return {std::string(name), std::string(what), default_value, std::move(choices)};
}

void declare_tile_params(KernelInfo& k, std::vector<BuildParam> params,
                         std::function<std::optional<std::string>(const ParamValues&)> rule,
                         std::string_view threads) {
  k.params = std::move(params);
  k.build_tile = [](const ParamValues& p) { return GemmShape{p.at("bm"), p.at("bn"), p.at("bk")}; };
  k.check_params = std::move(rule);
  k.constraints = {
      fmt::format("M a multiple of bm and N a multiple of bn (the CTA tile: {}x{} as it ships), at most 65536", k.tile.m,
                  k.tile.n),
      fmt::format("K a multiple of bk (one shared-memory chunk per step: {} as it ships), at most 65536", k.tile.k),
      fmt::format("{} threads per CTA; no edge guards, as in the article; the tile's parameters (`gemmscope list "
                  "--json`) combine only where the copy, the threads, shared memory and registers allow",
                  threads)};
}

std::optional<std::string> threads_problem(uint32_t threads, std::string_view formula) {
  if (threads > 1024)
    return fmt::format("{} = {} threads, more than the 1024 a CTA can have: make the thread tile larger or the "
                       "CTA tile smaller",
                       formula, threads);
  if (threads < 32 || threads % 32 != 0)
    return fmt::format("{} = {} threads, not a whole number of 32-thread warps: make the thread tile smaller or the "
                       "CTA tile larger",
                       formula, threads);
  return std::nullopt;
}

std::optional<std::string> copy_problem(char operand, std::string_view rows_name, uint32_t rows,
                                        std::string_view cols_name, uint32_t cols, uint32_t vec, uint32_t threads) {
  const std::string load = vec == 1 ? "float" : fmt::format("{}-float load", vec);
  if (cols % vec != 0)
    return fmt::format("{}={} is not a multiple of the {} floats a thread's 128-bit load of {} moves", cols_name, cols,
                       vec, operand);
  const uint32_t per_row = cols / vec;  // the loads of one row of the chunk
  if (per_row > threads || threads % per_row != 0)
    return fmt::format("a row of {}'s chunk is {} = {} {}s, more than the {} threads copy at once: make {} smaller",
                       operand, vec == 1 ? std::string(cols_name) : fmt::format("{}/{}", cols_name, vec), per_row, load,
                       threads, cols_name);
  const uint32_t rows_per_round = threads / per_row;
  if (rows % rows_per_round != 0)
    return fmt::format("the {} threads copy {} rows of {}'s chunk a round, but it has {}={}: {} must be a multiple of "
                       "{} (each thread copies whole {}s, every thread every round): make {} or {} larger, or the "
                       "CTA's threads fewer",
                       threads, rows_per_round, operand, rows_name, rows, rows_name, rows_per_round, load, rows_name,
                       cols_name);
  return std::nullopt;
}

std::optional<std::string> smem_problem(uint32_t bytes, std::string_view formula) {
  if (bytes > ir::kMaxDynamicSmem)
    return fmt::format("{} = {} KiB of shared memory, more than the {} KiB a CTA can have: make the CTA tile or bk "
                       "smaller",
                       formula, bytes / 1024, ir::kMaxDynamicSmem / 1024);
  return std::nullopt;
}

std::optional<std::string> registers_problem(uint32_t registers, std::string_view formula, uint32_t threads) {
  constexpr uint32_t kPerThread = 255, kPerCta = 65536;
  const uint32_t limit = std::min(kPerThread, kPerCta / threads);
  if (registers > limit)
    return fmt::format("{} = {} registers a thread keeps through the K loop, more than the {} each of {} threads can "
                       "have ({}): make the thread tile smaller",
                       formula, registers, limit, threads,
                       limit == kPerThread ? "255 a thread" : fmt::format("65536 a CTA / {}", threads));
  return std::nullopt;
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
  if (as_bytes + bs_bytes > ir::kMaxStaticSmem) b.use_dynamic_smem();
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
