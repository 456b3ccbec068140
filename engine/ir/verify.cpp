#include "engine/ir/verify.hpp"

#include <fmt/format.h>

#include "engine/ir/signature.hpp"
#include "engine/layout/tma_box.hpp"

namespace gs::ir {

namespace {

bool field_admits(FieldKind f, OperandKind o) {
  switch (f) {
    case FieldKind::dst: return o == OperandKind::reg || o == OperandKind::sink;
    case FieldKind::reg: return o == OperandKind::reg;
    case FieldKind::imm: return o == OperandKind::imm;
    case FieldKind::label: return o == OperandKind::label;
    case FieldKind::addr:
      return o == OperandKind::mem_reg || o == OperandKind::mem_smem || o == OperandKind::mem_param;
    case FieldKind::src:
      return o == OperandKind::reg || o == OperandKind::imm || o == OperandKind::fimm || o == OperandKind::special ||
             o == OperandKind::smem_sym || o == OperandKind::param_sym;
  }
  return false;
}

std::string_view field_kind_name(FieldKind f) {
  switch (f) {
    case FieldKind::dst: return "a destination register (or _)";
    case FieldKind::reg: return "a register";
    case FieldKind::imm: return "an integer immediate";
    case FieldKind::label: return "a label";
    case FieldKind::addr: return "a memory operand [..]";
    case FieldKind::src: return "a register, an immediate, a special register or a symbol";
  }
  return "?";
}

std::string_view operand_kind_name(OperandKind o) {
  switch (o) {
    case OperandKind::reg: return "a register";
    case OperandKind::imm: return "an integer immediate";
    case OperandKind::fimm: return "a floating immediate";
    case OperandKind::special: return "a special register";
    case OperandKind::smem_sym: return "a shared-memory symbol";
    case OperandKind::param_sym: return "a parameter symbol";
    case OperandKind::mem_reg:
    case OperandKind::mem_smem:
    case OperandKind::mem_param: return "a memory operand";
    case OperandKind::label: return "a label";
    case OperandKind::sink: return "_";
  }
  return "?";
}

std::string join_messages(const std::vector<Problem>& problems) {
  std::string s = fmt::format("kernel failed verification ({} problem{}):", problems.size(),
                              problems.size() == 1 ? "" : "s");
  for (const Problem& p : problems) s += "\n  - " + p.message;
  return s;
}

bool is_memory_op(Op op) {
  return op == Op::ld_global || op == Op::st_global || op == Op::ld_shared || op == Op::st_shared ||
         op == Op::ld_param;
}

class Verifier {
 public:
  explicit Verifier(const Kernel& k) : k_(k), defined_(k.regs.size(), false) {}

  std::vector<Problem> run() {
    check_launch();
    check_smem();
    check_params();
    check_labels();
    for (uint32_t i = 0; i < k_.insts.size(); ++i) check_inst(i);
    if (k_.insts.empty() || (k_.insts.back().op != Op::ret && k_.insts.back().op != Op::exit &&
                             k_.insts.back().op != Op::bra && k_.insts.back().op != Op::trap))
      kernel_problem("the kernel must end with ret, exit, trap or an unconditional bra");
    return std::move(problems_);
  }

 private:
  void kernel_problem(std::string msg) { problems_.push_back({kNone, std::move(msg)}); }
  void problem(uint32_t i, std::string msg) {
    problems_.push_back({i, describe_instruction(k_, i) + ": " + std::move(msg)});
  }
  std::string reg_name(RegId r) const { return r < k_.regs.size() ? "%" + k_.regs[r].name : "%<invalid>"; }

  void check_launch() {
    const LaunchShape& L = k_.launch;
    const uint32_t threads = L.threads();
    if (threads == 0 || threads > 1024)
      kernel_problem(fmt::format("block of {} threads: a CTA has 1 to 1024 threads", threads));
    for (int d = 0; d < 3; ++d) {
      if (L.grid[d] == 0) kernel_problem(fmt::format("grid dimension {} is 0: every dimension must be >= 1", d));
      if (L.cluster[d] == 0 || (L.grid[d] % std::max(1u, L.cluster[d])) != 0)
        kernel_problem(fmt::format("grid dimension {} ({}) is not a multiple of the cluster dimension ({})", d, L.grid[d],
                                   L.cluster[d]));
    }
    const uint32_t cluster = L.cluster[0] * L.cluster[1] * L.cluster[2];
    if (cluster > 1 && k_.target == Arch::sm_80)
      kernel_problem("thread-block clusters need sm_90 or later; the kernel targets sm_80");
    if (cluster > 8) kernel_problem(fmt::format("a cluster of {} CTAs exceeds the portable limit of 8 (facts §6)", cluster));
  }

  void check_smem() {
    const uint32_t total = k_.smem_bytes();
    const uint32_t limit = k_.dynamic_smem ? kMaxDynamicSmem : kMaxStaticSmem;
    if (total > limit)
      kernel_problem(fmt::format("shared memory of {} B exceeds the {} limit of {} B{}", total,
                                 k_.dynamic_smem ? "dynamic" : "static", limit,
                                 k_.dynamic_smem ? "" : ": use dynamic shared memory (up to 232448 B)"));
    for (const SharedAlloc& a : k_.smem) {
      if (a.offset % a.align != 0)
        kernel_problem(fmt::format("shared allocation '{}' at offset {} is not aligned to its {} B", a.name, a.offset, a.align));
      const uint32_t need = a.use == SmemUse::mbarrier ? 8 : layout::swizzle_required_alignment(a.swizzle);
      if (a.align < need || a.offset % need != 0)
        kernel_problem(fmt::format("shared allocation '{}' ({}{}) must be {}-byte aligned, is aligned to {} B", a.name,
                                   a.use == SmemUse::mbarrier ? "an mbarrier" : "a tile",
                                   a.swizzle != layout::Swizzle::none
                                       ? fmt::format(" with {} swizzle", layout::swizzle_name(a.swizzle))
                                       : "",
                                   need, a.align));
    }
  }

  void check_params() {
    for (const Param& p : k_.params) {
      if (p.kind != ParamKind::tensor_map) continue;
      const TensorMapDesc& d = p.tensor_map;
      layout::TmaBox box;
      box.rank = d.rank;
      box.box_dim = d.box_dim;
      box.elem_bytes = tensor_dtype_bytes(d.dtype);
      box.swizzle = d.swizzle;
      box.element_strides = d.element_strides;
      try {
        layout::validate_tma_box(box);
      } catch (const std::exception& e) {
        kernel_problem(fmt::format("tensor map '{}': {}", p.name, e.what()));
      }
    }
  }

  void check_labels() {
    std::vector<int> bound(k_.labels.size(), 0);
    for (const Inst& i : k_.insts)
      if (i.op == Op::label && !i.operands.empty() && i.operands[0].id < bound.size()) ++bound[i.operands[0].id];
    for (uint32_t l = 0; l < k_.labels.size(); ++l) {
      if (bound[l] > 1) kernel_problem(fmt::format("label {} is bound {} times: bind each label once", k_.labels[l].name, bound[l]));
      label_bound_.push_back(bound[l] == 1);
    }
  }

  // The operands against the op's signature (signatures.def): their number, and per field the
  // operand kinds it admits and the register type it needs. Returns the register type each
  // operand must fit (Type::none: any), or an empty vector after reporting a mismatch.
  std::vector<Type> check_signature(uint32_t idx, const Inst& in) {
    const Signature sig = in.info().signature;
    const std::span<const FieldInfo> fields = signature_fields(sig);
    std::vector<Type> want;
    want.reserve(in.operands.size());
    size_t at = 0;
    for (const FieldInfo& f : fields) {
      const size_t n = field_count(f, in, in.operands.size() - std::min(at, in.operands.size()));
      for (size_t i = 0; i < n; ++i, ++at) {
        if (at >= in.operands.size()) break;
        const OperandKind kind = in.operands[at].kind;
        if (!field_admits(f.kind, kind))
          problem(idx, fmt::format("operand {} ('{}' of {}) is {}, but the field takes {}", at, f.role,
                                   signature_name(sig), operand_kind_name(kind), field_kind_name(f.kind)));
        want.push_back(field_type(f.type, in));
      }
    }
    if (at != in.operands.size()) {
      std::string roles;
      for (const FieldInfo& f : fields) roles += (roles.empty() ? "" : ", ") + std::string(f.role);
      problem(idx, fmt::format("{} takes {} operand{} ({}{}), has {}", in.info().id, at, at == 1 ? "" : "s",
                               roles.empty() ? "none" : roles,
                               in.aux || in.vec > 1 ? fmt::format("; aux {}, vec {}", in.aux, in.vec) : "",
                               in.operands.size()));
      return {};
    }
    if (const size_t ndst = signature_dst_count(sig, in); ndst != in.ndst)
      problem(idx, fmt::format("{} writes its first {} operand(s), but the instruction says ndst = {}", in.info().id,
                               ndst, in.ndst));
    return want;
  }

  void use(uint32_t i, RegId r) {
    if (r >= k_.regs.size()) {
      problem(i, fmt::format("register id {} does not exist", r));
      return;
    }
    if (!defined_[r]) problem(i, fmt::format("{} is read before any instruction writes it", reg_name(r)));
  }

  void check_inst(uint32_t idx) {
    const Inst& in = k_.insts[idx];
    const OpInfo& info = in.info();
    if (!(info.archs & arch_bit(k_.target))) {
      std::string where;
      for (Arch a : {Arch::sm_80, Arch::sm_90, Arch::sm_90a, Arch::sm_100a})
        if (info.archs & arch_bit(a)) where += (where.empty() ? "" : ", ") + std::string(arch_name(a));
      problem(idx, fmt::format("{} is not available on {}: it needs {}", info.id, arch_name(k_.target), where));
    }
    if (in.guard != kNone) {
      use(idx, in.guard);
      if (in.guard < k_.regs.size() && k_.regs[in.guard].type != Type::pred)
        problem(idx, fmt::format("guard {} is not a predicate register", reg_name(in.guard)));
    }
    if ((info.flags & F_SYNC) && in.guard != kNone && in.op != Op::bar_sync)
      problem(idx, "a .sync.aligned instruction must be executed by every thread: do not predicate it");

    const std::vector<Type> want_types = check_signature(idx, in);
    for (size_t pos = 0; pos < in.operands.size(); ++pos) {
      const Operand& o = in.operands[pos];
      const bool is_dst = pos < in.ndst;
      if (o.kind == OperandKind::reg) {
        if (o.id >= k_.regs.size()) {
          problem(idx, fmt::format("operand {} names register id {} which does not exist", pos, o.id));
          continue;
        }
        // wgmma's accumulators are written (scale-d = 0) or read-modify-written; the model
        // reports an uninitialised accumulator at run time, so only reads count here.
        if (!is_dst) use(idx, o.id);
        const Type want = pos < want_types.size() ? want_types[pos] : Type::none;
        const Type have = k_.regs[o.id].type;
        if (want != Type::none && !register_fits(have, want))
          problem(idx, fmt::format("operand {} is {} of type .{}, which does not fit .{}", pos, reg_name(o.id),
                                   type_name(have), type_name(want)));
      } else if (o.kind == OperandKind::mem_reg) {
        use(idx, o.id);
        check_address_reg(idx, in, o.id);
      } else if (o.kind == OperandKind::label) {
        if (o.id >= label_bound_.size() || !label_bound_[o.id])
          problem(idx, fmt::format("branch target {} is never bound", o.id < k_.labels.size() ? k_.labels[o.id].name : "?"));
      } else if (o.kind == OperandKind::special) {
        const Special s = Special(o.id);
        if (!(special_archs(s) & arch_bit(k_.target)))
          problem(idx, fmt::format("{} needs sm_90 or later", special_name(s)));
      } else if (o.kind == OperandKind::smem_sym || o.kind == OperandKind::mem_smem) {
        if (o.id >= k_.smem.size()) {
          problem(idx, fmt::format("shared allocation id {} does not exist", o.id));
        } else if (o.imm < 0 || uint64_t(o.imm) >= k_.smem[o.id].bytes) {
          problem(idx, fmt::format("offset {} is outside shared allocation '{}' of {} B", o.imm, k_.smem[o.id].name,
                                   k_.smem[o.id].bytes));
        }
      } else if (o.kind == OperandKind::param_sym || o.kind == OperandKind::mem_param) {
        if (o.id >= k_.params.size()) problem(idx, fmt::format("parameter id {} does not exist", o.id));
      }
    }
    for (size_t pos = 0; pos < in.ndst && pos < in.operands.size(); ++pos)
      if (in.operands[pos].kind == OperandKind::reg && in.operands[pos].id < defined_.size()) defined_[in.operands[pos].id] = true;

    check_specific(idx, in);
  }

  void check_address_reg(uint32_t idx, const Inst& in, RegId r) {
    if (r >= k_.regs.size()) return;
    const uint32_t bits = type_bits(k_.regs[r].type);
    const bool global = in.op == Op::ld_global || in.op == Op::st_global || in.op == Op::prefetch_tensormap;
    if (global && bits != 64) problem(idx, fmt::format("global address {} must be a 64-bit register", reg_name(r)));
    if (!global && bits != 32 && bits != 64)
      problem(idx, fmt::format("address {} must be a 32- or 64-bit register", reg_name(r)));
  }

  void check_specific(uint32_t idx, const Inst& in) {
    if (is_memory_op(in.op) && in.vec != 1 && in.vec != 2 && in.vec != 4)
      problem(idx, fmt::format("vector width {} is not 1, 2 or 4", in.vec));
    if (in.op == Op::wgmma_mma_async) {
      if (in.aux < 8 || in.aux > 256 || in.aux % 8)
        problem(idx, fmt::format("wgmma N={} is not a multiple of 8 in 8..256", in.aux));
      if (k_.launch.threads() % 128 != 0)
        problem(idx, fmt::format("wgmma is issued by warpgroups of 128 threads; the block has {} threads", k_.launch.threads()));
    }
    if ((in.op == Op::bar_sync || in.op == Op::bar_arrive) && !in.operands.empty()) {  // id, threads
      const int64_t id = in.operands[0].imm;
      if (in.operands[0].kind == OperandKind::imm && (id < 0 || id > 15))
        problem(idx, fmt::format("barrier id {} is out of range 0..15 (facts §7)", id));
      if (in.operands.size() > 1 && in.operands[1].kind == OperandKind::imm && in.operands[1].imm % 32 != 0)
        problem(idx, fmt::format("barrier thread count {} is not a multiple of 32 (facts §7)", in.operands[1].imm));
    }
    if (in.op == Op::cp_async_bulk_tensor_load || in.op == Op::cp_async_bulk_tensor_load_multicast) {
      if (in.aux < 1 || in.aux > 5) problem(idx, fmt::format("TMA rank {} is not 1..5", in.aux));
    }
  }

  const Kernel& k_;
  std::vector<bool> defined_;
  std::vector<bool> label_bound_;
  std::vector<Problem> problems_;
};

}  // namespace

VerifyError::VerifyError(std::vector<Problem> problems)
    : std::runtime_error(join_messages(problems)), problems_(std::move(problems)) {}

std::vector<Problem> verify_problems(const Kernel& k) { return Verifier(k).run(); }

void verify(const Kernel& k) {
  std::vector<Problem> problems = verify_problems(k);
  if (!problems.empty()) throw VerifyError(std::move(problems));
}

std::string describe_instruction(const Kernel& k, uint32_t idx) {
  if (idx >= k.insts.size()) return fmt::format("instruction {} (out of range)", idx);
  const Inst& in = k.insts[idx];
  std::string s = fmt::format("instruction {} ({}", idx, in.info().id);
  int shown = 0;
  for (const Operand& o : in.operands) {
    if (o.kind != OperandKind::reg || o.id >= k.regs.size()) continue;
    if (shown++ == 3) {
      s += " ...";
      break;
    }
    s += " %" + k.regs[o.id].name;
  }
  return s + ")";
}

}  // namespace gs::ir
