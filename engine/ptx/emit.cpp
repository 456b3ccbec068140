#include "engine/ptx/emit.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/ir/signature.hpp"

namespace gs::ptx {

using ir::Inst;
using ir::Kernel;
using ir::Operand;
using ir::OperandKind;
using ir::Syntax;

uint32_t required_ptx_version(const Kernel& k) {
  uint32_t v = ir::arch_min_ptx(k.target);
  for (const Inst& i : k.insts) v = std::max(v, i.info().min_ptx);
  return v;
}

std::string ptx_version_string(uint32_t v) { return fmt::format("{}.{}", v / 10, v % 10); }

namespace {

// Names that PTX reserves as special registers: a register may not take them.
const std::set<std::string>& reserved_names() {
  static const std::set<std::string> names{
      "tid", "ntid", "laneid", "warpid", "nwarpid", "ctaid", "nctaid", "smid", "nsmid", "gridid",
      "clock", "clock64", "globaltimer", "pm0", "envreg0", "lanemask_eq", "lanemask_le", "lanemask_lt",
      "lanemask_ge", "lanemask_gt", "clusterid", "nclusterid", "cluster_ctaid", "cluster_nctaid",
      "cluster_ctarank", "cluster_nctarank", "is_explicit_cluster", "dynamic_smem_size",
      "total_smem_size", "aggr_smem_size"};
  return names;
}

std::string sanitize(const std::string& raw, const char* fallback) {
  std::string s;
  for (char c : raw) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (s.empty()) s = fallback;
  if (std::isdigit(static_cast<unsigned char>(s[0]))) s = "v" + s;
  return s;
}

// Unique names: the first "k" is k, the next k_1, k_2, ...
std::vector<std::string> unique_names(const std::vector<std::string>& raw, const char* fallback, bool avoid_reserved) {
  std::set<std::string> used;
  std::vector<std::string> out;
  out.reserve(raw.size());
  for (const std::string& r : raw) {
    std::string base = sanitize(r, fallback);
    if (avoid_reserved && reserved_names().count(base)) base += "_";
    std::string name = base;
    for (int n = 1; used.count(name); ++n) name = fmt::format("{}_{}", base, n);
    used.insert(name);
    out.push_back(name);
  }
  return out;
}

std::string format_integer(int64_t v) {
  if (v >= 65536) return fmt::format("0x{:X}", uint64_t(v));
  return std::to_string(v);
}

struct Printer {
  const Kernel& k;
  const std::vector<std::string>& regs;
  std::vector<std::string> labels;

  std::string operand(const Operand& o, const Inst& inst) const {
    switch (o.kind) {
      case OperandKind::reg: return "%" + regs.at(o.id);
      case OperandKind::imm:
        // Bit patterns with the top bit set (a 64B-swizzle descriptor) print as hex, not negative.
        if (o.imm < 0 && ir::type_class(inst.type) == ir::TypeClass::bits) return fmt::format("0x{:X}", uint64_t(o.imm));
        return format_integer(o.imm);
      case OperandKind::fimm:
        if (inst.type == ir::Type::f64) return fmt::format("0d{:016X}", std::bit_cast<uint64_t>(o.fimm));
        return fmt::format("0f{:08X}", std::bit_cast<uint32_t>(static_cast<float>(o.fimm)));
      case OperandKind::special: return std::string(ir::special_name(ir::Special(o.id)));
      case OperandKind::smem_sym: return symbol_plus(k.smem.at(o.id).offset + o.imm);
      case OperandKind::param_sym: return k.params.at(o.id).name;
      case OperandKind::mem_reg:
        if (o.imm == 0) return fmt::format("[%{}]", regs.at(o.id));
        return fmt::format("[%{}{:+d}]", regs.at(o.id), o.imm);
      case OperandKind::mem_smem: return "[" + symbol_plus(k.smem.at(o.id).offset + o.imm) + "]";
      case OperandKind::mem_param: return "[" + k.params.at(o.id).name + "]";
      case OperandKind::label: return labels.at(o.id);
      case OperandKind::sink: return "_";
    }
    return "?";
  }

  static std::string symbol_plus(int64_t off) {
    return off == 0 ? std::string(ir::kSmemSymbol) : fmt::format("{}+{}", ir::kSmemSymbol, off);
  }

  // A field's operands, comma-separated, in braces when asked.
  std::string join(const Inst& i, std::span<const Operand> ops, bool braces = false) const {
    std::string s = braces ? "{" : "";
    for (size_t n = 0; n < ops.size(); ++n) s += (n ? ", " : "") + operand(ops[n], i);
    return braces ? s + "}" : s;
  }
  // Fields from..end, comma-separated.
  std::string join_from(const Inst& i, const std::vector<std::span<const Operand>>& f, size_t from) const {
    std::string s;
    for (size_t n = from; n < f.size(); ++n)
      if (!f[n].empty()) s += (s.empty() ? "" : ", ") + join(i, f[n]);
    return s;
  }

  std::string mnemonic(const Inst& i) const {
    const ir::OpInfo& info = i.info();
    std::string m(info.spelling);
    if (auto pos = m.find("{n}"); pos != std::string::npos) m.replace(pos, 3, std::to_string(i.aux));
    if ((info.flags & ir::F_CMP) && i.cmp != ir::CmpOp::none) m += "." + std::string(ir::cmp_name(i.cmp));
    if ((info.flags & ir::F_RND) && i.rounding != ir::Rounding::none) m += "." + std::string(ir::rounding_name(i.rounding));
    if ((info.flags & ir::F_VEC) && i.vec > 1) m += fmt::format(".v{}", i.vec);
    if ((info.flags & ir::F_TYPED) && i.type != ir::Type::none) m += "." + std::string(ir::type_name(i.type));
    if ((info.flags & ir::F_TYPE2) && i.type2 != ir::Type::none) m += "." + std::string(ir::type_name(i.type2));
    if ((info.flags & ir::F_CACHE_HINT) && !ir::field_operands(i).back().empty()) m += ".L2::cache_hint";
    return m;
  }

  // The operands by field of the op's signature (signatures.def); the syntax says where the
  // braces and brackets go.
  std::string operands(const Inst& i) const {
    const std::vector<std::span<const Operand>> f = ir::field_operands(i);
    switch (i.info().syntax) {
      case Syntax::none:
      case Syntax::label: return "";
      case Syntax::plain:
        if (i.info().signature == ir::Signature::elect)  // "_|%p, membermask"
          return join(i, f[0]) + "|" + join(i, f[1]) + ", " + join_from(i, f, 2);
        return join_from(i, f, 0);
      case Syntax::vec_dst: return join(i, f[0], i.vec > 1) + ", " + join_from(i, f, 1);           // {d..}, [addr]
      case Syntax::vec_src: return join(i, f[0]) + ", " + join(i, f[1], i.vec > 1);              // [addr], {s..}
      case Syntax::tensor_load:  // [dst], [map, {coords}], [bar] (, mask)
        return join(i, f[0]) + ", [" + join(i, f[1]) + ", " + join(i, f[2], true) + "], " + join_from(i, f, 3);
      case Syntax::tensor_store:  // [map, {coords}], [src]
        return "[" + join(i, f[0]) + ", " + join(i, f[1], true) + "], " + join_from(i, f, 2);
      case Syntax::wgmma: return join(i, f[0], true) + ", " + join_from(i, f, 1);  // {d..}, descriptors, flags
      case Syntax::mma_sync:
        return join(i, f[0], true) + ", " + join(i, f[1], true) + ", " + join(i, f[2], true) + ", " + join(i, f[3], true);
      case Syntax::ldmatrix:
      case Syntax::tcgen05_ld: return join(i, f[0], true) + ", " + join_from(i, f, 1);  // {d..}, [addr]
      case Syntax::stmatrix: return join(i, f[0]) + ", " + join(i, f[1], true);        // [addr], {s..}
    }
    return "";
  }

  std::string instruction(const Inst& i) const {
    if (i.op == ir::Op::label) return labels.at(ir::label_def_operands_of(i).target.id) + ":";
    std::string s;
    if (i.guard != ir::kNone) s += fmt::format("@{}%{} ", i.guard_negated ? "!" : "", regs.at(i.guard));
    s += mnemonic(i);
    const std::string ops = operands(i);
    if (!ops.empty()) s += " " + ops;
    return s + ";";
  }
};

std::vector<std::string> label_names(const Kernel& k) {
  std::vector<std::string> raw;
  for (const ir::LabelInfo& l : k.labels) raw.push_back(l.name);
  return unique_names(raw, "L", false);
}

std::string param_decl(const ir::Param& p) {
  switch (p.kind) {
    case ir::ParamKind::u32: return ".param .u32 " + p.name;
    case ir::ParamKind::s32: return ".param .s32 " + p.name;
    case ir::ParamKind::f32: return ".param .f32 " + p.name;
    case ir::ParamKind::u64:
    case ir::ParamKind::global_ptr: return ".param .u64 " + p.name;
    case ir::ParamKind::tensor_map: return ".param .align 64 .b8 " + p.name + "[128]";  // facts §4
  }
  return "";
}

std::string_view use_name(ir::SmemUse u) {
  switch (u) {
    case ir::SmemUse::tile: return "tile";
    case ir::SmemUse::mbarrier: return "mbarrier";
    case ir::SmemUse::staging: return "staging";
    case ir::SmemUse::other: return "other";
  }
  return "";
}

}  // namespace

std::vector<std::string> register_names(const Kernel& k) {
  std::vector<std::string> raw;
  raw.reserve(k.regs.size());
  for (const ir::RegInfo& r : k.regs) raw.push_back(r.name);
  return unique_names(raw, "r", true);
}

std::string format_instruction(const Kernel& k, const std::vector<std::string>& reg_names, const Inst& inst) {
  Printer p{k, reg_names, label_names(k)};
  return p.instruction(inst);
}

PtxModule emit(const Kernel& k) {
  PtxModule out;
  out.ptx_version = required_ptx_version(k);
  out.reg_names = register_names(k);
  Printer printer{k, out.reg_names, label_names(k)};

  std::string& t = out.text;
  auto line = [&](const std::string& s, int32_t inst = -1) {
    t += s;
    t += '\n';
    out.line_to_inst.push_back(inst);
  };

  const ir::LaunchShape& L = k.launch;
  line("//");
  line(fmt::format("// {} - generated by gemmscope {}", k.name, GEMMSCOPE_VERSION));
  line(fmt::format("// grid ({}, {}, {}), block ({}, {}, {}), cluster ({}, {}, {}), shared {} B{}", L.grid[0], L.grid[1],
                   L.grid[2], L.block[0], L.block[1], L.block[2], L.cluster[0], L.cluster[1], L.cluster[2],
                   k.smem_bytes(), k.dynamic_smem ? " (dynamic)" : ""));
  line("//");
  line(".version " + ptx_version_string(out.ptx_version));
  line(".target " + std::string(ir::arch_name(k.target)));
  line(".address_size 64");
  line("");
  if (!k.smem.empty()) {
    for (const ir::SharedAlloc& a : k.smem)
      line(fmt::format("// {} {:>6} B at {}+{}{}{}", use_name(a.use), a.bytes, ir::kSmemSymbol, a.offset,
                       a.swizzle != layout::Swizzle::none ? ", swizzle " + std::string(layout::swizzle_name(a.swizzle)) : "",
                       ": " + a.name));
    if (k.dynamic_smem)
      line(fmt::format(".extern .shared .align {} .b8 {}[];", k.smem_align, ir::kSmemSymbol));
    else
      line(fmt::format(".shared .align {} .b8 {}[{}];", k.smem_align, ir::kSmemSymbol, k.smem_bytes()));
    line("");
  }

  line(fmt::format(".visible .entry {}(", k.name));
  for (size_t p = 0; p < k.params.size(); ++p)
    line("\t" + param_decl(k.params[p]) + (p + 1 < k.params.size() ? "," : ""));
  line(")");
  line(fmt::format(".maxntid {}, {}, {}", L.block[0], L.block[1], L.block[2]));
  if (k.min_ctas_per_sm > 0) line(fmt::format(".minnctapersm {}", k.min_ctas_per_sm));
  if (k.max_regs > 0) line(fmt::format(".maxnreg {}", k.max_regs));
  if (L.cluster != std::array<uint32_t, 3>{1, 1, 1}) {
    line(".explicitcluster");
    line(fmt::format(".reqnctapercluster {}, {}, {}", L.cluster[0], L.cluster[1], L.cluster[2]));
  }
  line("{");

  // Register declarations, one line per type, in first-declared order of types.
  std::map<ir::Type, std::vector<std::string>> by_type;
  std::vector<ir::Type> type_order;
  for (size_t r = 0; r < k.regs.size(); ++r) {
    const ir::Type ty = k.regs[r].type;
    if (!by_type.count(ty)) type_order.push_back(ty);
    by_type[ty].push_back("%" + out.reg_names[r]);
  }
  for (ir::Type ty : type_order) {
    std::string decl = fmt::format("\t.reg .{} ", ir::type_name(ty));
    const std::vector<std::string>& names = by_type[ty];
    for (size_t n = 0; n < names.size(); ++n) {
      decl += names[n];
      if (n + 1 == names.size()) break;
      decl += ",";
      if (decl.size() > 96) {
        line(decl);
        decl = "\t\t";
      } else {
        decl += " ";
      }
    }
    line(decl + ";");
  }
  line("");

  out.inst_to_line.resize(k.insts.size());
  for (size_t i = 0; i < k.insts.size(); ++i) {
    const Inst& inst = k.insts[i];
    std::string s = printer.instruction(inst);
    if (inst.op != ir::Op::label) s = "\t" + s;
    if (!inst.comment.empty()) s += "\t// " + inst.comment;
    out.inst_to_line[i] = uint32_t(out.line_to_inst.size() + 1);
    line(s, int32_t(i));
  }
  line("}");
  return out;
}

}  // namespace gs::ptx
