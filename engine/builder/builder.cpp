// Core of the builder: registers, ALU, parameters, shared memory, memory and control flow.
// The synchronisation, TMA and tensor-core families are in builder_async.cpp.
#include "engine/builder/builder.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/ir/signature.hpp"

namespace gs::builder {

using ir::Inst;
using ir::Op;
using ir::Operand;

Reg Reg::named(std::string name) const {
  b_->rename(*this, std::move(name));
  return *this;
}

Builder::Builder(std::string kernel_name, Arch target) {
  k_.name = std::move(kernel_name);
  k_.target = target;
}

Reg Builder::fresh(Type type, std::string name) {
  if (name.empty()) name = fmt::format("t{}", temp_counter_++);
  k_.regs.push_back({ir::register_type(type), std::move(name)});
  return Reg(this, ir::RegId(k_.regs.size() - 1), ir::register_type(type) == Type::pred ? Type::pred : type);
}

Reg Builder::reg(Type type, std::string name) { return fresh(type, std::move(name)); }

void Builder::rename(const Reg& r, std::string name) { k_.regs.at(r.id()).name = std::move(name); }

Builder::Site::Site(Builder& b, const Where& where) : b_(b) {
  if (b.site_depth_++ == 0) b.site_ = where;
}
Builder::Site::~Site() { --b_.site_depth_; }

// The files the compiler names are as it was given them (absolute in a CMake build): keep
// them relative to the source tree, found from this file's own name, so that they match the
// sources built into the binary (kernels/sources.hpp) wherever the tree was built.
static std::string_view relative_to_tree(std::string_view file) {
  constexpr std::string_view kSelf = "engine/builder/builder.cpp";
  const std::string_view self = std::source_location::current().file_name();
  if (!self.ends_with(kSelf)) return file;
  const std::string_view root = self.substr(0, self.size() - kSelf.size());
  return file.starts_with(root) ? file.substr(root.size()) : file;
}

ir::SourceLoc Builder::locate(const Where& where) {
  const std::string_view file = relative_to_tree(where.file_name());
  auto& files = k_.source_files;
  auto it = std::find(files.begin(), files.end(), file);
  if (it == files.end()) it = files.insert(files.end(), std::string(file));
  return {uint32_t(it - files.begin()), uint32_t(where.line())};
}

Inst& Builder::record(Inst inst, Where where) {
  const Site site(*this, where);
  inst.src = locate(site_);
  // What an instruction writes is its signature's leading dst fields (signatures.def).
  inst.ndst = uint8_t(std::min<size_t>(ir::signature_dst_count(inst.info().signature, inst), 255));
  if (!pending_comment_.empty()) {
    inst.comment = std::move(pending_comment_);
    pending_comment_.clear();
  }
  k_.insts.push_back(std::move(inst));
  return k_.insts.back();
}

void Builder::comment(std::string text) { pending_comment_ = std::move(text); }

Type Builder::operand_type(std::initializer_list<Src> srcs, Type fallback) const {
  for (const Src& s : srcs)
    if (s.is_reg()) return s.type;
  return fallback;
}

Reg Builder::mov(Type type, const Src& value, std::string name, Where where) {
  const Site site(*this, where);
  Reg r = fresh(type, std::move(name));
  mov(r, value);
  return r;
}

void Builder::mov(const Reg& dst, const Src& value, Where where) {
  const Site site(*this, where);
  Inst i{.op = Op::mov, .type = dst.type(), .ndst = 1};
  i.operands = {Operand::reg(dst.id()), value.operand};
  record(std::move(i));
}

Reg Builder::special(Special s, std::string name, Where where) {
  const Site site(*this, where);
  Reg r = fresh(ir::special_type(s), std::move(name));
  Inst i{.op = Op::mov, .type = ir::special_type(s), .ndst = 1};
  i.operands = {Operand::reg(r.id()), Operand::special(s)};
  record(std::move(i));
  return r;
}

Reg Builder::alu(Op op, Type type, std::initializer_list<Src> srcs, std::string name, Where where) {
  const Site site(*this, where);
  Reg r = fresh(type, std::move(name));
  alu_into(op, r, srcs);
  return r;
}

// PTX spells the bitwise ops and shl only with .bN (and .pred) types: and.b32, shl.b64.
static Type ptx_inst_type(Op op, Type t) {
  const bool bitwise = op == Op::and_ || op == Op::or_ || op == Op::xor_ || op == Op::not_ || op == Op::shl;
  if (!bitwise || t == Type::pred) return t;
  switch (ir::type_bits(t)) {
    case 16: return Type::b16;
    case 32: return Type::b32;
    case 64: return Type::b64;
    default: return t;
  }
}

void Builder::alu_into(Op op, const Reg& dst, std::initializer_list<Src> srcs, Where where) {
  const Site site(*this, where);
  Inst i{.op = op, .type = ptx_inst_type(op, dst.type()), .ndst = 1};
  i.operands.push_back(Operand::reg(dst.id()));
  for (const Src& s : srcs) i.operands.push_back(s.operand);
  record(std::move(i));
}

Reg Builder::setp(ir::CmpOp cmp, const Src& a, const Src& b, std::string name, Where where) {
  const Site site(*this, where);
  const Type t = operand_type({a, b}, Type::u32);
  Reg p = fresh(Type::pred, std::move(name));
  Inst i{.op = Op::setp, .type = t, .cmp = cmp, .ndst = 1};
  i.operands = {Operand::reg(p.id()), a.operand, b.operand};
  record(std::move(i));
  return p;
}

Reg Builder::selp(const Src& a, const Src& b, const Reg& pred, std::string name, Where where) {
  const Site site(*this, where);
  Reg r = fresh(operand_type({a, b}, Type::u32), std::move(name));
  Inst i{.op = Op::selp, .type = r.type(), .ndst = 1};
  i.operands = {Operand::reg(r.id()), a.operand, b.operand, Operand::reg(pred.id())};
  record(std::move(i));
  return r;
}

Reg Builder::cvt(Type to, const Reg& from, ir::Rounding rnd, std::string name, Where where) {
  const Site site(*this, where);
  Reg r = fresh(to, std::move(name));
  Inst i{.op = Op::cvt, .type = to, .type2 = from.type(), .rounding = rnd, .ndst = 1};
  i.operands = {Operand::reg(r.id()), Operand::reg(from.id())};
  record(std::move(i));
  return r;
}

Reg Builder::mul_wide(const Src& a, const Src& b, std::string name, Where where) {
  const Site site(*this, where);
  const Type t = operand_type({a, b}, Type::u32);
  Reg r = fresh(t == Type::s32 ? Type::s64 : Type::u64, std::move(name));
  Inst i{.op = Op::mul_wide, .type = t, .ndst = 1};
  i.operands = {Operand::reg(r.id()), a.operand, b.operand};
  record(std::move(i));
  return r;
}

Reg Builder::fma(const Src& a, const Src& b, const Src& c, std::string name, Where where) {
  const Site site(*this, where);
  Reg r = fresh(operand_type({a, b, c}, Type::f32), std::move(name));
  fma_into(r, a, b, c);
  return r;
}

void Builder::fma_into(const Reg& dst, const Src& a, const Src& b, const Src& c, Where where) {
  const Site site(*this, where);
  Inst i{.op = Op::fma, .type = dst.type(), .rounding = ir::Rounding::rn, .ndst = 1};
  i.operands = {Operand::reg(dst.id()), a.operand, b.operand, c.operand};
  record(std::move(i));
}

// ---- parameters --------------------------------------------------------------------------------

Param Builder::param(std::string name, ir::ParamKind kind, ir::ParamRole role) {
  k_.params.push_back({std::move(name), kind, role, {}});
  return {ir::ParamId(k_.params.size() - 1), kind};
}

Param Builder::tensor_map_param(std::string name, const ir::TensorMapDesc& desc) {
  const ir::ParamRole role = desc.source == ir::ParamRole::a   ? ir::ParamRole::tmap_a
                             : desc.source == ir::ParamRole::b ? ir::ParamRole::tmap_b
                                                               : ir::ParamRole::tmap_c;
  k_.params.push_back({std::move(name), ir::ParamKind::tensor_map, role, desc});
  return {ir::ParamId(k_.params.size() - 1), ir::ParamKind::tensor_map};
}

static Type param_value_type(ir::ParamKind k) {
  switch (k) {
    case ir::ParamKind::u32: return Type::u32;
    case ir::ParamKind::s32: return Type::s32;
    case ir::ParamKind::f32: return Type::f32;
    case ir::ParamKind::u64:
    case ir::ParamKind::global_ptr: return Type::u64;
    case ir::ParamKind::tensor_map: break;
  }
  throw std::invalid_argument("a tensor-map parameter has no value to ld.param: use tensor_map_address()");
}

Reg Builder::ld_param(const Param& p, std::string name, Where where) {
  const Site site(*this, where);
  return ld(Op::ld_param, param_value_type(p.kind), Addr{Operand::mem_param(p.id)}, std::move(name));
}

Reg Builder::global_ptr(const Param& p, std::string name, Where where) {
  const Site site(*this, where);
  Reg raw = ld_param(p, name + "_param");
  return alu(Op::cvta_to_global, Type::u64, {raw}, std::move(name));
}

Reg Builder::tensor_map_address(const Param& p, std::string name, Where where) {
  const Site site(*this, where);
  if (p.kind != ir::ParamKind::tensor_map)
    throw std::invalid_argument(fmt::format("parameter '{}' is not a tensor map", k_.params.at(p.id).name));
  Reg raw = fresh(Type::b64, name + "_param");
  Inst i{.op = Op::mov, .type = Type::b64, .ndst = 1};
  i.operands = {Operand::reg(raw.id()), Operand::param_address(p.id)};
  record(std::move(i));
  return alu(Op::cvta_param, Type::u64, {raw}, std::move(name));
}

// ---- shared memory -------------------------------------------------------------------------------

Smem Builder::shared(std::string name, uint32_t bytes, uint32_t align, ir::SmemUse use, layout::Swizzle swizzle) {
  if (align == 0 || (align & (align - 1)) != 0)
    throw std::invalid_argument(fmt::format("shared allocation '{}': alignment {} is not a power of two", name, align));
  const uint32_t offset = (k_.smem_bytes() + align - 1) / align * align;
  k_.smem.push_back({std::move(name), bytes, align, offset, use, swizzle});
  if (align > k_.smem_align) k_.smem_align = align;
  return {ir::SmemId(k_.smem.size() - 1), bytes};
}

Smem Builder::operand_stages(std::string name, ir::GemmOperand operand, uint32_t stages, uint32_t stage_bytes,
                             uint32_t align, layout::Swizzle swizzle) {
  if (stages == 0) throw std::invalid_argument(fmt::format("shared allocation '{}': 0 stages", name));
  Smem s = shared(std::move(name), stages * stage_bytes, align, ir::SmemUse::tile, swizzle);
  k_.smem.back().operand = operand;
  k_.smem.back().stages = stages;
  return s;
}

Smem Builder::mbarriers(std::string name, ir::BarrierRole role, uint32_t count) {
  if (count == 0) throw std::invalid_argument(fmt::format("mbarrier array '{}': 0 barriers", name));
  Smem s = shared(std::move(name), 8 * count, 8, ir::SmemUse::mbarrier);
  k_.smem.back().barrier_role = role;
  k_.smem.back().stages = count;
  return s;
}

void Builder::role(ir::WarpRole role, const std::function<void()>& body) {
  // The slot is taken before the body runs, so an outer region precedes the regions inside
  // it (Kernel::role_at picks the last region holding an instruction: the innermost).
  const size_t slot = k_.roles.size();
  const uint32_t begin = uint32_t(k_.insts.size());
  k_.roles.push_back({role, begin, begin});
  {
    const KernelCode kernel_code(*this);
    body();
  }
  k_.roles[slot].end = uint32_t(k_.insts.size());
}

void Builder::use_dynamic_smem(bool dynamic) { k_.dynamic_smem = dynamic; }

Reg Builder::smem_address(const Smem& s, int64_t offset, std::string name, Where where) {
  const Site site(*this, where);
  Reg r = fresh(Type::u32, std::move(name));
  Inst i{.op = Op::mov, .type = Type::u32, .ndst = 1};
  i.operands = {Operand::reg(r.id()), Operand::smem_address(s.id, offset)};
  record(std::move(i));
  return r;
}

// ---- memory ----------------------------------------------------------------------------------------

Reg Builder::ld(Op op, Type type, const Addr& addr, std::string name, Where where) {
  const Site site(*this, where);
  return ld_vec(op, type, 1, addr, std::move(name)).front();
}

std::vector<Reg> Builder::ld_vec(Op op, Type type, int vec, const Addr& addr, std::string name, Where where) {
  const Site site(*this, where);
  if (vec != 1 && vec != 2 && vec != 4)
    throw std::invalid_argument(fmt::format("vector width {} is not 1, 2 or 4", vec));
  std::vector<Reg> out;
  Inst i{.op = op, .type = type, .vec = uint8_t(vec), .ndst = uint8_t(vec)};
  for (int v = 0; v < vec; ++v) {
    std::string n = name.empty() ? std::string{} : (vec == 1 ? name : fmt::format("{}{}", name, v));
    out.push_back(fresh(type, std::move(n)));
    i.operands.push_back(Operand::reg(out.back().id()));
  }
  i.operands.push_back(addr.operand);
  record(std::move(i));
  return out;
}

void Builder::st(Op op, Type type, const Addr& addr, std::initializer_list<Src> values, Where where) {
  const Site site(*this, where);
  Inst i{.op = op, .type = type, .vec = uint8_t(values.size())};
  i.operands.push_back(addr.operand);
  for (const Src& v : values) i.operands.push_back(v.operand);
  record(std::move(i));
}

void Builder::st(Op op, Type type, const Addr& addr, const std::vector<Reg>& values, Where where) {
  const Site site(*this, where);
  Inst i{.op = op, .type = type, .vec = uint8_t(values.size())};
  i.operands.push_back(addr.operand);
  for (const Reg& v : values) i.operands.push_back(Operand::reg(v.id()));
  record(std::move(i));
}

// ---- control flow ----------------------------------------------------------------------------------

Label Builder::label(std::string name) {
  k_.labels.push_back({std::move(name)});
  return {ir::LabelId(k_.labels.size() - 1)};
}

void Builder::bind(const Label& l, Where where) {
  const Site site(*this, where);
  Inst i{.op = Op::label};
  i.operands = {Operand::label(l.id)};
  record(std::move(i));
}

void Builder::bra(const Label& l, Where where) {
  const Site site(*this, where);
  Inst i{.op = Op::bra};
  i.operands = {Operand::label(l.id)};
  record(std::move(i));
}

void Builder::bra_if(const Reg& pred, const Label& l, bool negated, Where where) {
  const Site site(*this, where);
  Inst i{.op = Op::bra, .guard = pred.id(), .guard_negated = negated};
  i.operands = {Operand::label(l.id)};
  record(std::move(i));
}

void Builder::if_(const Reg& pred, const std::function<void()>& body, Where where) {
  const Site site(*this, where);
  Label skip = label(fmt::format("L_skip_{}", k_.labels.size()));
  bra_if(pred, skip, /*negated=*/true);
  {
    const KernelCode kernel_code(*this);
    body();
  }
  bind(skip);
}

void Builder::loop(std::string name, const Src& count, const std::function<void(const Reg& i)>& body, Where where) {
  emit_loop(std::move(name), count, body, false, where);
}

void Builder::k_loop(std::string name, const Src& count, const std::function<void(const Reg& i)>& body, Where where) {
  emit_loop(std::move(name), count, body, true, where);
}

void Builder::emit_loop(std::string name, const Src& count, const std::function<void(const Reg& i)>& body, bool over_k,
                        Where where) {
  const Site site(*this, where);
  Reg i = mov(Type::u32, 0, name);
  Label top = label(fmt::format("L_{}", name));
  k_.labels[top.id].k_loop = over_k;
  bind(top);
  {
    const KernelCode kernel_code(*this);
    body(i);
  }
  i += 1;
  Reg more = setp(ir::CmpOp::lt, i, count, fmt::format("{}_more", name));
  bra_if(more, top);
}

void Builder::ret(Where where) { record(Inst{.op = Op::ret}, where); }
void Builder::trap(Where where) { record(Inst{.op = Op::trap}, where); }

void Builder::set_launch(const ir::LaunchShape& shape) { k_.launch = shape; }
void Builder::set_min_ctas_per_sm(uint32_t n) { k_.min_ctas_per_sm = n; }
void Builder::declare_tile_walk(std::vector<uint32_t> walk) { k_.output.walk = std::move(walk); }

ir::Kernel Builder::finish() { return std::move(k_); }

// ---- operators --------------------------------------------------------------------------------------

namespace {
bool is_float(Type t) { return ir::type_class(t) == ir::TypeClass::floating; }
// Arithmetic has no .bN form in PTX: a bit-typed left operand (a descriptor, made by or.b64)
// is added, subtracted, multiplied or divided as the unsigned integer of its width.
Type arithmetic_type(Op op, Type t) {
  const bool arithmetic = op == Op::add || op == Op::sub || op == Op::mul_lo || op == Op::div || op == Op::rem;
  if (!arithmetic || ir::type_class(t) != ir::TypeClass::bits) return t;
  switch (t) {
    case Type::b16: return Type::u16;
    case Type::b32: return Type::u32;
    case Type::b64: return Type::u64;
    default: return t;
  }
}
Reg binary(Op op, const Reg& a, const SrcAt& b) {
  return a.builder().alu(op, arithmetic_type(op, a.type()), {a, b.src}, {}, b.where);
}
Reg compare(ir::CmpOp c, const Reg& a, const SrcAt& b) { return a.builder().setp(c, a, b.src, {}, b.where); }
Reg& in_place(Op op, Reg& a, const SrcAt& b) {
  a.builder().alu_into(op, a, {a, b.src}, b.where);
  return a;
}
}  // namespace

Reg operator+(const Reg& a, const SrcAt& b) { return binary(Op::add, a, b); }
Reg operator-(const Reg& a, const SrcAt& b) { return binary(Op::sub, a, b); }
Reg operator*(const Reg& a, const SrcAt& b) { return binary(is_float(a.type()) ? Op::mul : Op::mul_lo, a, b); }
Reg operator/(const Reg& a, const SrcAt& b) { return binary(Op::div, a, b); }
Reg operator%(const Reg& a, const SrcAt& b) { return binary(Op::rem, a, b); }
Reg operator<<(const Reg& a, const SrcAt& b) { return binary(Op::shl, a, b); }
Reg operator>>(const Reg& a, const SrcAt& b) { return binary(Op::shr, a, b); }
Reg operator&(const Reg& a, const SrcAt& b) { return binary(Op::and_, a, b); }
Reg operator|(const Reg& a, const SrcAt& b) { return binary(Op::or_, a, b); }
Reg operator^(const Reg& a, const SrcAt& b) { return binary(Op::xor_, a, b); }
Reg operator~(const RegAt& a) { return a.reg.builder().alu(Op::not_, a.reg.type(), {a.reg}, {}, a.where); }
Reg operator==(const Reg& a, const SrcAt& b) { return compare(ir::CmpOp::eq, a, b); }
Reg operator!=(const Reg& a, const SrcAt& b) { return compare(ir::CmpOp::ne, a, b); }
Reg operator<(const Reg& a, const SrcAt& b) { return compare(ir::CmpOp::lt, a, b); }
Reg operator<=(const Reg& a, const SrcAt& b) { return compare(ir::CmpOp::le, a, b); }
Reg operator>(const Reg& a, const SrcAt& b) { return compare(ir::CmpOp::gt, a, b); }
Reg operator>=(const Reg& a, const SrcAt& b) { return compare(ir::CmpOp::ge, a, b); }

Reg& operator+=(Reg& a, const SrcAt& b) { return in_place(Op::add, a, b); }
Reg& operator-=(Reg& a, const SrcAt& b) { return in_place(Op::sub, a, b); }
Reg& operator^=(Reg& a, const SrcAt& b) { return in_place(Op::xor_, a, b); }

}  // namespace gs::builder
