// The synchronisation and asynchronous families of the builder: CTA barriers, fences,
// mbarriers, TMA, wgmma, and the Ampere/cluster/warp-specialisation ops of later steps.
#include <stdexcept>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"

namespace gs::builder {

using ir::Inst;
using ir::Op;
using ir::Operand;

namespace {
Inst simple(Op op) { return Inst{.op = op}; }
}  // namespace

// ---- CTA barriers and fences ---------------------------------------------------------------------

void Builder::bar_sync(uint32_t id, uint32_t threads, Where where) {
  const Site site(*this, where);
  Inst i = simple(Op::bar_sync);
  i.operands.push_back(Operand::integer(id));
  if (threads != 0) i.operands.push_back(Operand::integer(threads));
  record(std::move(i));
}

void Builder::bar_arrive(uint32_t id, uint32_t threads, Where where) {
  const Site site(*this, where);
  Inst i = simple(Op::bar_arrive);
  i.operands = {Operand::integer(id), Operand::integer(threads)};
  record(std::move(i));
}

void Builder::fence_proxy_async(Where where) { record(simple(Op::fence_proxy_async), where); }
void Builder::fence_mbarrier_init(Where where) { record(simple(Op::fence_mbarrier_init), where); }

// ---- mbarriers (facts §6) ---------------------------------------------------------------------------

void Builder::mbarrier_init(const Addr& bar, uint32_t count, Where where) {
  const Site site(*this, where);
  Inst i = simple(Op::mbarrier_init);
  i.operands = {bar.operand, Operand::integer(count)};
  record(std::move(i));
}

void Builder::mbarrier_arrive(const Addr& bar, Where where) {
  const Site site(*this, where);
  Inst i = simple(Op::mbarrier_arrive);
  i.operands = {Operand::sink(), bar.operand};
  record(std::move(i));
}

void Builder::mbarrier_arrive_expect_tx(const Addr& bar, const Src& bytes, Where where) {
  const Site site(*this, where);
  Inst i = simple(Op::mbarrier_arrive_expect_tx);
  i.operands = {Operand::sink(), bar.operand, bytes.operand};
  record(std::move(i));
}

void Builder::mbarrier_expect_tx(const Addr& bar, const Src& bytes, Where where) {
  const Site site(*this, where);
  Inst i = simple(Op::mbarrier_expect_tx);
  i.operands = {bar.operand, bytes.operand};
  record(std::move(i));
}

static Reg wait_parity(Builder& b, Op op, const Addr& bar, const Src& parity, std::string name,
                       std::optional<uint32_t> suspend_hint_ns = std::nullopt) {
  Reg p = b.reg(ir::Type::pred, name.empty() ? "ready" : std::move(name));
  Inst i{.op = op, .ndst = 1};
  i.operands = {Operand::reg(p.id()), bar.operand, parity.operand};
  if (suspend_hint_ns) i.operands.push_back(Operand::integer(*suspend_hint_ns));
  b.record(std::move(i));
  return p;
}

Reg Builder::mbarrier_try_wait_parity(const Addr& bar, const Src& parity, std::string name,
                                      std::optional<uint32_t> suspend_hint_ns, Where where) {
  const Site site(*this, where);
  return wait_parity(*this, Op::mbarrier_try_wait_parity, bar, parity, std::move(name), suspend_hint_ns);
}

Reg Builder::mbarrier_test_wait_parity(const Addr& bar, const Src& parity, std::string name, Where where) {
  const Site site(*this, where);
  return wait_parity(*this, Op::mbarrier_test_wait_parity, bar, parity, std::move(name));
}

void Builder::mbarrier_wait(const Addr& bar, const Src& parity, std::optional<uint32_t> suspend_hint_ns, Where where) {
  const Site site(*this, where);
  Label retry = label(fmt::format("L_wait_{}", kernel().labels.size()));
  bind(retry);
  Reg ready = mbarrier_try_wait_parity(bar, parity, {}, suspend_hint_ns);
  bra_if(ready, retry, /*negated=*/true);
}

// ---- TMA (facts §4, §5) ------------------------------------------------------------------------------

void Builder::cp_async_bulk_tensor_load(const Addr& dst, const Reg& tensor_map, std::initializer_list<Src> coords,
                                        const Addr& bar, Where where) {
  const Site site(*this, where);
  if (coords.size() < 1 || coords.size() > 5)
    throw std::invalid_argument(fmt::format("a TMA load takes 1 to 5 coordinates, not {}", coords.size()));
  Inst i{.op = Op::cp_async_bulk_tensor_load, .aux = uint32_t(coords.size())};
  i.operands = {dst.operand, Operand::reg(tensor_map.id())};
  for (const Src& c : coords) i.operands.push_back(c.operand);
  i.operands.push_back(bar.operand);
  record(std::move(i));
}

void Builder::cp_async_bulk_tensor_load_multicast(const Addr& dst, const Reg& tensor_map,
                                                  std::initializer_list<Src> coords, const Addr& bar,
                                                  const Reg& cta_mask, Where where) {
  const Site site(*this, where);
  if (coords.size() < 1 || coords.size() > 5)
    throw std::invalid_argument(fmt::format("a TMA load takes 1 to 5 coordinates, not {}", coords.size()));
  Inst i{.op = Op::cp_async_bulk_tensor_load_multicast, .aux = uint32_t(coords.size())};
  i.operands = {dst.operand, Operand::reg(tensor_map.id())};
  for (const Src& c : coords) i.operands.push_back(c.operand);
  i.operands.push_back(bar.operand);
  i.operands.push_back(Operand::reg(cta_mask.id()));
  record(std::move(i));
}

namespace {

// [map, {coords}], [src] (, cache-policy): the signature tensor_store.
Inst tensor_store_inst(const Reg& tensor_map, std::initializer_list<Src> coords, const Addr& src) {
  if (coords.size() < 1 || coords.size() > 5)
    throw std::invalid_argument(fmt::format("a TMA store takes 1 to 5 coordinates, not {}", coords.size()));
  Inst i{.op = Op::cp_async_bulk_tensor_store, .aux = uint32_t(coords.size())};
  i.operands = {Operand::reg(tensor_map.id())};
  for (const Src& c : coords) i.operands.push_back(c.operand);
  i.operands.push_back(src.operand);
  return i;
}

}  // namespace

void Builder::cp_async_bulk_tensor_store(const Reg& tensor_map, std::initializer_list<Src> coords, const Addr& src, Where where) {
  const Site site(*this, where);
  record(tensor_store_inst(tensor_map, coords, src));
}

void Builder::cp_async_bulk_tensor_store(const Reg& tensor_map, std::initializer_list<Src> coords, const Addr& src,
                                         const Reg& cache_policy, Where where) {
  const Site site(*this, where);
  Inst i = tensor_store_inst(tensor_map, coords, src);
  i.operands.push_back(Operand::reg(cache_policy.id()));  // printed with .L2::cache_hint (F_CACHE_HINT)
  record(std::move(i));
}

Reg Builder::createpolicy_fractional_evict_first(std::string name, Where where) {
  const Site site(*this, where);
  Reg policy = reg(Type::b64, name.empty() ? "policy" : std::move(name));
  Inst i{.op = Op::createpolicy_fractional_evict_first, .ndst = 1};
  i.operands = {Operand::reg(policy.id())};
  record(std::move(i));
  return policy;
}

void Builder::cp_async_bulk_commit_group(Where where) { record(simple(Op::cp_async_bulk_commit_group), where); }

void Builder::cp_async_bulk_wait_group_read(uint32_t n, Where where) {
  const Site site(*this, where);
  Inst i = simple(Op::cp_async_bulk_wait_group_read);
  i.operands = {Operand::integer(n)};
  record(std::move(i));
}

void Builder::prefetch_tensormap(const Reg& tensor_map, Where where) {
  const Site site(*this, where);
  Inst i = simple(Op::prefetch_tensormap);
  i.operands = {Operand::mem(tensor_map.id())};
  record(std::move(i));
}

// ---- wgmma (facts §1) -----------------------------------------------------------------------------------

Reg Builder::descriptor_at(const Reg& tile_addr, uint64_t constant_bits, const std::string& description,
                           std::string name) {
  // Bits 0-13 hold (address & 0x3FFFF) >> 4 on sm_90 and sm_100 alike (facts §1.4, §9.2).
  Reg addr64 = cvt(Type::u64, tile_addr, ir::Rounding::none, name + "_addr");
  Reg field = alu(Op::and_, Type::b64, {addr64, 0x3FFFF}, name + "_lo18");
  Reg start = alu(Op::shr, Type::u64, {field, 4}, name + "_start");
  comment("descriptor: " + description);
  return alu(Op::or_, Type::b64, {start, static_cast<unsigned long long>(constant_bits)}, std::move(name));
}

Reg Builder::wgmma_descriptor(const Reg& tile_addr, const layout::WgmmaDescriptor& fields, std::string name, Where where) {
  const Site site(*this, where);
  layout::WgmmaDescriptor constant = fields;
  constant.start_address = 0;
  const uint64_t high = layout::encode_wgmma_descriptor(constant);
  return descriptor_at(tile_addr, high, layout::describe_wgmma_descriptor(high), std::move(name));
}

void Builder::wgmma_fence(Where where) { record(simple(Op::wgmma_fence), where); }

void Builder::wgmma_mma_async(uint32_t n, const std::vector<Reg>& acc, const Reg& a_desc, const Reg& b_desc,
                              const Src& scale_d, int scale_a, int scale_b, int trans_a, int trans_b, Where where) {
  const Site site(*this, where);
  if (n < 8 || n > 256 || n % 8 != 0)
    throw std::invalid_argument(fmt::format("wgmma N={} is not a multiple of 8 in 8..256", n));
  if (acc.size() != n / 2)
    throw std::invalid_argument(fmt::format("wgmma m64n{}k16 needs {} f32 accumulator registers, got {}", n, n / 2,
                                            acc.size()));
  Inst i{.op = Op::wgmma_mma_async, .ndst = uint8_t(std::min<size_t>(acc.size(), 255)), .aux = n};
  for (const Reg& r : acc) i.operands.push_back(Operand::reg(r.id()));
  i.operands.push_back(Operand::reg(a_desc.id()));
  i.operands.push_back(Operand::reg(b_desc.id()));
  i.operands.push_back(scale_d.operand);
  for (int imm : {scale_a, scale_b, trans_a, trans_b}) i.operands.push_back(Operand::integer(imm));
  record(std::move(i));
}

void Builder::wgmma_commit_group(Where where) { record(simple(Op::wgmma_commit_group), where); }

void Builder::wgmma_wait_group(uint32_t n, Where where) {
  const Site site(*this, where);
  Inst i = simple(Op::wgmma_wait_group);
  i.operands = {Operand::integer(n)};
  record(std::move(i));
}

// ---- Ampere tensor cores and async copies (facts §2) ------------------------------------------------

void Builder::mma_sync(const std::vector<Reg>& d, const std::vector<Reg>& a, const std::vector<Reg>& b,
                       const std::vector<Reg>& c, Where where) {
  const Site site(*this, where);
  if (d.size() != 4 || a.size() != 4 || b.size() != 2 || c.size() != 4)
    throw std::invalid_argument("mma.sync m16n8k16 takes 4 D, 4 A, 2 B and 4 C registers");
  Inst i{.op = Op::mma_sync, .ndst = 4};
  for (const auto* group : {&d, &a, &b, &c})
    for (const Reg& r : *group) i.operands.push_back(Operand::reg(r.id()));
  record(std::move(i));
}

std::vector<Reg> Builder::ldmatrix(uint32_t num, bool trans, const Addr& addr, std::string name, Where where) {
  const Site site(*this, where);
  if (num != 1 && num != 2 && num != 4) throw std::invalid_argument(fmt::format("ldmatrix .x{} is not .x1, .x2 or .x4", num));
  Inst i{.op = trans ? Op::ldmatrix_trans : Op::ldmatrix, .ndst = uint8_t(num), .aux = num};
  std::vector<Reg> out;
  for (uint32_t j = 0; j < num; ++j) {
    out.push_back(reg(Type::b32, name.empty() ? std::string{} : fmt::format("{}{}", name, j)));
    i.operands.push_back(Operand::reg(out.back().id()));
  }
  i.operands.push_back(addr.operand);
  record(std::move(i));
  return out;
}

void Builder::stmatrix(uint32_t num, bool trans, const Addr& addr, const std::vector<Reg>& values, Where where) {
  const Site site(*this, where);
  if ((num != 1 && num != 2 && num != 4) || values.size() != num)
    throw std::invalid_argument(fmt::format("stmatrix .x{} needs {} registers (got {})", num, num, values.size()));
  Inst i{.op = trans ? Op::stmatrix_trans : Op::stmatrix, .aux = num};
  i.operands.push_back(addr.operand);
  for (const Reg& r : values) i.operands.push_back(Operand::reg(r.id()));
  record(std::move(i));
}

void Builder::cp_async_cg(const Addr& dst_shared, const Addr& src_global, uint32_t bytes,
                          std::optional<Src> src_bytes, Where where) {
  const Site site(*this, where);
  if (bytes != 16) throw std::invalid_argument(fmt::format("cp.async.cg copies 16 bytes, not {}", bytes));
  cp_async(Op::cp_async_cg, dst_shared, src_global, bytes, src_bytes);
}

void Builder::cp_async_ca(const Addr& dst_shared, const Addr& src_global, uint32_t bytes,
                          std::optional<Src> src_bytes, Where where) {
  const Site site(*this, where);
  if (bytes != 4 && bytes != 8 && bytes != 16)
    throw std::invalid_argument(fmt::format("cp.async.ca copies 4, 8 or 16 bytes, not {}", bytes));
  cp_async(Op::cp_async_ca, dst_shared, src_global, bytes, src_bytes);
}

void Builder::cp_async(ir::Op op, const Addr& dst_shared, const Addr& src_global, uint32_t bytes,
                       const std::optional<Src>& src_bytes) {
  Inst i = simple(op);
  i.operands = {dst_shared.operand, src_global.operand, Operand::integer(bytes)};
  if (src_bytes) i.operands.push_back(src_bytes->operand);
  record(std::move(i));
}

void Builder::cp_async_wait_all(Where where) { record(simple(Op::cp_async_wait_all), where); }

void Builder::cp_async_commit_group(Where where) { record(simple(Op::cp_async_commit_group), where); }

void Builder::cp_async_wait_group(uint32_t n, Where where) {
  const Site site(*this, where);
  Inst i = simple(Op::cp_async_wait_group);
  i.operands = {Operand::integer(n)};
  record(std::move(i));
}

// ---- clusters and warp specialisation (facts §6, §7) ---------------------------------------------

Reg Builder::mapa(const Reg& addr, const Src& cta_rank, std::string name, Where where) {
  const Site site(*this, where);
  Reg r = reg(Type::u32, std::move(name));
  Inst i{.op = Op::mapa, .type = Type::u32, .ndst = 1};
  i.operands = {Operand::reg(r.id()), Operand::reg(addr.id()), cta_rank.operand};
  record(std::move(i));
  return r;
}

void Builder::barrier_cluster_arrive(Where where) { record(simple(Op::barrier_cluster_arrive), where); }
void Builder::barrier_cluster_wait(Where where) { record(simple(Op::barrier_cluster_wait), where); }
void Builder::fence_acq_rel_cluster(Where where) { record(simple(Op::fence_acq_rel_cluster), where); }

void Builder::mbarrier_arrive_remote(const Addr& bar, Where where) { mbarrier_arrive_remote(bar, false, where); }

void Builder::mbarrier_arrive_remote(const Addr& bar, bool cluster_scope, Where where) {
  const Site site(*this, where);
  Inst i = simple(cluster_scope ? Op::mbarrier_arrive_remote_cluster_scope : Op::mbarrier_arrive_remote);
  i.operands = {Operand::sink(), bar.operand};
  record(std::move(i));
}

void Builder::setmaxnreg(bool increase, uint32_t regs, Where where) {
  const Site site(*this, where);
  if (regs < 24 || regs > 256 || regs % 8 != 0)
    throw std::invalid_argument(fmt::format("setmaxnreg {} is not a multiple of 8 in 24..256 (facts §7)", regs));
  Inst i = simple(increase ? Op::setmaxnreg_inc : Op::setmaxnreg_dec);
  i.operands = {Operand::integer(regs)};
  record(std::move(i));
}

Reg Builder::elect_sync(std::string name, Where where) {
  const Site site(*this, where);
  Reg p = reg(Type::pred, name.empty() ? "elected" : std::move(name));
  Inst i{.op = Op::elect_sync, .ndst = 2};
  i.operands = {Operand::sink(), Operand::reg(p.id()), Operand::integer(ir::kAllLanes)};
  // elect.sync writes "_|p": the printer joins the two destinations with '|'.
  record(std::move(i));
  return p;
}

}  // namespace gs::builder
