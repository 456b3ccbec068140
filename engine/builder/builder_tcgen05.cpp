// The Blackwell tcgen05 family of the builder (facts §9): tensor-memory allocation, the
// single-thread MMA into tensor memory, its commit to an mbarrier, the tensor-memory <->
// register moves and the fences, plus the two descriptors tcgen05.mma reads.
//
// Each cta_group::2 form is its own op row (ops.def); CtaGroup picks the row, so the PTX
// spelling, the model and the views all see which group an instruction belongs to.
#include <bit>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"

namespace gs::builder {

using ir::Inst;
using ir::Op;
using ir::Operand;

namespace {

Op pick(CtaGroup group, Op one, Op two) { return group == CtaGroup::two ? two : one; }

// A column count given as an immediate is checked here, with the rule ptxas applies
// ("value must be power of 2" [PTXAS]) and the range from facts §9.1; a register count is
// the model's to check at run time.
void check_columns(const Src& ncols, const char* what) {
  if (ncols.is_reg() || ncols.operand.kind != ir::OperandKind::imm) return;
  const int64_t n = ncols.operand.imm;
  if (n < 32 || n > 512 || !std::has_single_bit(static_cast<uint64_t>(n)))
    throw std::invalid_argument(
        fmt::format("{} of {} columns: tensor memory is allocated in a power of two of columns "
                    "from 32 to 512 (32, 64, 128, 256 or 512)",
                    what, n));
}

// tcgen05.ld/st .xN: N is a power of two in 1..128 (ptxas rejects .x3: "Unknown modifier").
void check_repeat(size_t x, const char* what) {
  if (x < 1 || x > 128 || !std::has_single_bit(x))
    throw std::invalid_argument(
        fmt::format("{}.32x32b.x{}: the repeat count is a power of two from 1 to 128", what, x));
}

// tcgen05.mma's tensor-memory operands must be .b32 registers: ptxas rejects a .u32 one
// ("Arguments mismatch for instruction 'tcgen05.mma'", facts table mma_address_b32), while ld,
// st and dealloc take either. An address in another register type is copied into a .b32 one.
Addr b32_address(Builder& b, const Addr& a) {
  if (a.operand.kind != ir::OperandKind::mem_reg) return a;
  const ir::RegInfo& info = b.kernel().regs.at(a.operand.id);
  if (info.type == Type::b32) return a;
  Reg copy = b.mov(Type::b32, Reg(&b, a.operand.id, info.type), info.name + "_b32");
  return Addr::at(copy, a.operand.imm);
}

}  // namespace

void Builder::tcgen05_alloc(const Addr& smem_dst, const Src& ncols, CtaGroup group, Where where) {
  const Site site(*this, where);
  check_columns(ncols, "tcgen05.alloc");
  Inst i{.op = pick(group, Op::tcgen05_alloc, Op::tcgen05_alloc_cta_pair)};
  i.operands = {smem_dst.operand, ncols.operand};
  record(std::move(i));
}

void Builder::tcgen05_dealloc(const Src& taddr, const Src& ncols, CtaGroup group, Where where) {
  const Site site(*this, where);
  check_columns(ncols, "tcgen05.dealloc");
  Inst i{.op = pick(group, Op::tcgen05_dealloc, Op::tcgen05_dealloc_cta_pair)};
  i.operands = {taddr.operand, ncols.operand};
  record(std::move(i));
}

void Builder::tcgen05_relinquish_alloc_permit(CtaGroup group, Where where) {
  const Site site(*this, where);
  record(Inst{.op = pick(group, Op::tcgen05_relinquish_alloc_permit, Op::tcgen05_relinquish_alloc_permit_cta_pair)});
}

void Builder::tcgen05_mma(const Addr& d_tmem, const Reg& a_desc, const Reg& b_desc, const Src& idesc,
                          const Reg& enable_input_d, CtaGroup group, Where where) {
  const Site site(*this, where);
  const Addr d = b32_address(*this, d_tmem);
  Inst i{.op = pick(group, Op::tcgen05_mma, Op::tcgen05_mma_cta_pair)};
  i.operands = {d.operand, Operand::reg(a_desc.id()), Operand::reg(b_desc.id()), idesc.operand,
                Operand::reg(enable_input_d.id())};
  record(std::move(i));
}

void Builder::tcgen05_mma_tmem_a(const Addr& d_tmem, const Addr& a_tmem, const Reg& b_desc, const Src& idesc,
                                 const Reg& enable_input_d, CtaGroup group, Where where) {
  const Site site(*this, where);
  const Addr d = b32_address(*this, d_tmem), a = b32_address(*this, a_tmem);
  Inst i{.op = pick(group, Op::tcgen05_mma_tmem_a, Op::tcgen05_mma_cta_pair_tmem_a)};
  i.operands = {d.operand, a.operand, Operand::reg(b_desc.id()), idesc.operand,
                Operand::reg(enable_input_d.id())};
  record(std::move(i));
}

void Builder::tcgen05_commit(const Addr& bar, CtaGroup group, Where where) {
  const Site site(*this, where);
  Inst i{.op = pick(group, Op::tcgen05_commit, Op::tcgen05_commit_cta_pair)};
  i.operands = {bar.operand};
  record(std::move(i));
}

void Builder::tcgen05_commit_multicast(const Addr& bar, const Reg& cta_mask, CtaGroup group, Where where) {
  const Site site(*this, where);
  Inst i{.op = pick(group, Op::tcgen05_commit_multicast, Op::tcgen05_commit_cta_pair_multicast)};
  i.operands = {bar.operand, Operand::reg(cta_mask.id())};
  record(std::move(i));
}

std::vector<Reg> Builder::tcgen05_ld_32x32b(uint32_t x, const Addr& taddr, std::string name, Where where) {
  const Site site(*this, where);
  check_repeat(x, "tcgen05.ld");
  Inst i{.op = Op::tcgen05_ld_32x32b, .ndst = uint8_t(x), .aux = x};
  std::vector<Reg> out;
  out.reserve(x);
  for (uint32_t j = 0; j < x; ++j) {
    out.push_back(reg(Type::b32, name.empty() ? std::string{} : fmt::format("{}{}", name, j)));
    i.operands.push_back(Operand::reg(out.back().id()));
  }
  i.operands.push_back(taddr.operand);
  record(std::move(i));
  return out;
}

void Builder::tcgen05_st_32x32b(const Addr& taddr, const std::vector<Reg>& values, Where where) {
  const Site site(*this, where);
  check_repeat(values.size(), "tcgen05.st");
  Inst i{.op = Op::tcgen05_st_32x32b, .aux = uint32_t(values.size())};
  i.operands.push_back(taddr.operand);
  for (const Reg& r : values) i.operands.push_back(Operand::reg(r.id()));
  record(std::move(i));
}

void Builder::tcgen05_wait_ld(Where where) { record(Inst{.op = Op::tcgen05_wait_ld}, where); }
void Builder::tcgen05_wait_st(Where where) { record(Inst{.op = Op::tcgen05_wait_st}, where); }
void Builder::tcgen05_fence_before_thread_sync(Where where) { record(Inst{.op = Op::tcgen05_fence_before}, where); }
void Builder::tcgen05_fence_after_thread_sync(Where where) { record(Inst{.op = Op::tcgen05_fence_after}, where); }

Reg Builder::tmem_instr_descriptor(const layout::UmmaInstrDesc& desc, std::string name, Where where) {
  const Site site(*this, where);
  const uint32_t bits = layout::encode_umma_instr_desc(desc);  // throws on M/N the fields cannot hold
  comment("instruction descriptor: " + layout::describe_umma_instr_desc(bits));
  return mov(Type::b32, static_cast<unsigned>(bits), std::move(name));
}

Reg Builder::umma_descriptor(const Reg& tile_addr, const layout::UmmaSmemDescriptor& fields, std::string name,
                             Where where) {
  const Site site(*this, where);
  layout::UmmaSmemDescriptor constant = fields;
  constant.start_address = 0;
  const uint64_t high = layout::encode_umma_smem_descriptor(constant);
  return descriptor_at(tile_addr, high, layout::describe_umma_smem_descriptor(high), std::move(name));
}

void Builder::clc_try_cancel(const Addr& response, const Addr& bar, Where where) {
  const Site site(*this, where);
  Inst i{.op = Op::clc_try_cancel};
  i.operands = {response.operand, bar.operand};
  record(std::move(i));
}

namespace {
// Both query_cancel forms: op d, response (a .pred or a .b32 from the .b128 answer).
Reg clc_query(Builder& b, Op op, Type type, const Reg& response, std::string name) {
  Reg d = b.reg(type, std::move(name));
  Inst i{.op = op, .ndst = 1};
  i.operands = {Operand::reg(d.id()), Operand::reg(response.id())};
  b.record(std::move(i));
  return d;
}
}  // namespace

Reg Builder::clc_query_is_canceled(const Reg& response, std::string name, Where where) {
  const Site site(*this, where);
  return clc_query(*this, Op::clc_query_is_canceled, Type::pred, response, name.empty() ? "is_canceled" : std::move(name));
}

Reg Builder::clc_query_first_ctaid_x(const Reg& response, std::string name, Where where) {
  const Site site(*this, where);
  return clc_query(*this, Op::clc_query_first_ctaid_x, Type::b32, response,
                   name.empty() ? "first_ctaid_x" : std::move(name));
}

}  // namespace gs::builder
