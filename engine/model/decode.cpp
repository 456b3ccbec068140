// decode_program: the once-per-kernel pass that picks each instruction's exec function and
// resolves what can be resolved before any CTA runs (see decode.hpp).
#include "engine/model/decode.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <span>
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <fmt/format.h>

#include "engine/ir/signature.hpp"
#include "engine/ir/verify.hpp"
#include "engine/layout/op_traits.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

using ir::Family;
using ir::Op;

void not_handled(const ExecContext& x, const char* exec) {
  const std::string where = x.cta.launch.kernel ? ir::describe_instruction(*x.cta.launch.kernel, x.inst_id)
                                                : fmt::format("instruction {}", x.inst_id);
  throw NotModelledError(fmt::format("the CPU model routed {} ({}) to {}, which does not run it: the op table's exec "
                                     "column and {}'s switch disagree",
                                     x.inst.info().id, where, exec, exec));
}

bool cpu_has_avx2() {
#if defined(__x86_64__) && defined(__GNUC__)
  // GEMMSCOPE_MODEL_NO_AVX2=1 takes the portable paths on a CPU that has AVX2, so that they can be
  // checked against the AVX2 ones bit for bit (docs/results/2026-12-05-model-speed-4).
  static const bool avx2 = [] {
    if (const char* no = std::getenv("GEMMSCOPE_MODEL_NO_AVX2"); no && std::string_view(no) == "1") return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return avx2;
#else
  return false;
#endif
}

bool cpu_has_avx2_fma() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool fma = cpu_has_avx2() && __builtin_cpu_supports("fma") != 0;
  return fma;
#else
  return false;
#endif
}

bool cpu_has_avx512() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx512 = cpu_has_avx2_fma() && __builtin_cpu_supports("avx512f") != 0;
  return avx512;
#else
  return false;
#endif
}

bool cpu_has_avx512_bf16() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool bf16 = cpu_has_avx512() && __builtin_cpu_supports("avx512bf16") != 0;
  return bf16;
#else
  return false;
#endif
}

bool cpu_has_amx_bf16() {
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
  static const bool amx = [] {
    if (const char* no = std::getenv("GEMMSCOPE_MODEL_NO_AMX"); no && std::string_view(no) == "1") return false;
    if (!cpu_has_avx512_bf16() || __builtin_cpu_supports("avx512bw") == 0) return false;
    // CPUID leaf 7, sub-leaf 0: EDX bit 22 AMX-BF16, bit 24 AMX-TILE (Intel SDM vol. 2A, CPUID).
    uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) || !(edx >> 22 & 1) || !(edx >> 24 & 1)) return false;
    // The tile data is an XSAVE feature Linux hands out on request, per process (Documentation/
    // arch/x86/xstate.rst): ARCH_REQ_XCOMP_PERM (0x1023) for XFEATURE_XTILEDATA (18). A kernel
    // or hypervisor that does not offer it says no, and the AVX-512 paths run instead.
    constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  }();
  return amx;
#else
  return false;
#endif
}

const uint64_t* Program::constant_lanes(const ir::Kernel& k, const ir::Inst& in, const ir::Operand& o) {
  uint64_t v = 0;
  switch (o.kind) {
    case ir::OperandKind::imm: v = uint64_t(o.imm); break;
    // The same constants Sources resolves: a floating immediate takes the instruction's type.
    case ir::OperandKind::fimm: v = in.type == ir::Type::f64 ? from_f64(o.fimm) : from_f32(float(o.fimm)); break;
    case ir::OperandKind::smem_sym: v = timing::kSmemBaseAddress + k.smem[o.id].offset + uint64_t(o.imm); break;
    case ir::OperandKind::param_sym: v = kParamBase + kParamStride * o.id; break;
    default: return nullptr;  // registers, special registers (per CTA/lane/cycle), memory
  }
  std::array<uint64_t, 32>& lanes = constants.emplace_back();
  lanes.fill(v);
  return lanes.data();
}

namespace {

// The dispatch table, generated from ops.def's exec column: the function that runs each op.
// Labels (no_exec) take no issue slot; not_modelled ops have no semantics yet and are refused
// before a run starts (decode_program).
constexpr ExecFn no_exec = nullptr;
constexpr ExecFn not_modelled = nullptr;
constexpr std::array<ExecFn, size_t(Op::count_)> kExec{{
#define OP(id, spelling, syntax, signature, family, exec, archs, min_ptx, flags, summary) exec,
#include "engine/ir/ops.def"
#undef OP
}};

ExecFn exec_of(const ir::Inst& in) { return kExec[size_t(in.op)]; }

bool is_store(Op op) {
  switch (op) {
    case Op::st_global:
    case Op::st_shared:
    case Op::st_shared_cluster:
    case Op::stmatrix:
    case Op::stmatrix_trans:
    case Op::cp_async_cg:
    case Op::cp_async_ca:
    case Op::cp_async_bulk_tensor_store: return true;
    default: return false;
  }
}

// DecodedInst::issue and the registers the scoreboard checks and sets.
void set_issue(const ir::Inst& in, uint32_t nregs, Program& p, DecodedInst& d) {
  if (d.is_label) return;
  d.reads_at = uint32_t(p.scoreboard_regs.size());
  if (in.guard != ir::kNone) p.scoreboard_regs.push_back(in.guard);
  for (size_t i = in.ndst; i < in.operands.size(); ++i) {
    const ir::Operand& o = in.operands[i];
    if (o.kind == ir::OperandKind::reg || o.kind == ir::OperandKind::mem_reg) p.scoreboard_regs.push_back(o.id);
  }
  d.nreads = uint16_t(p.scoreboard_regs.size() - d.reads_at);
  d.writes_at = uint32_t(p.scoreboard_regs.size());
  for (size_t i = 0; i < in.ndst && i < in.operands.size(); ++i)
    if (in.operands[i].kind == ir::OperandKind::reg) p.scoreboard_regs.push_back(in.operands[i].id);
  d.nwrites = uint16_t(p.scoreboard_regs.size() - d.writes_at);
  d.ready_at = uint32_t(p.scoreboard_regs.size());
  for (uint32_t i = d.reads_at; i < d.ready_at; ++i) {
    const uint32_t r = p.scoreboard_regs[i];
    if (std::find(p.scoreboard_regs.begin() + d.ready_at, p.scoreboard_regs.end(), r) == p.scoreboard_regs.end())
      p.scoreboard_regs.push_back(r);
  }
  d.nready = uint16_t(p.scoreboard_regs.size() - d.ready_at);
  // At least kReadyFloor entries, the missing ones the register past the kernel's last, whose
  // ready time stays 0 (Cta::reg_ready's rows have it): the scoreboard's wait reads four without
  // a loop (cta.cpp, operands_ready).
  for (uint32_t i = d.nready; i < DecodedInst::kReadyFloor; ++i) p.scoreboard_regs.push_back(nregs);
  using layout::LatencyClass;
  const bool floating = ir::type_class(in.type) == ir::TypeClass::floating;
  switch (layout::op_traits(in.op).latency) {
    case LatencyClass::none: break;
    case LatencyClass::alu: d.result_latency = timing::kAluLatency; break;
    case LatencyClass::fma: d.result_latency = timing::kFmaLatency; break;
    case LatencyClass::imad: d.result_latency = timing::kImadLatency; break;
    case LatencyClass::sfu: d.result_latency = timing::kSfuLatency; break;
    case LatencyClass::arith: d.result_latency = floating ? timing::kFmaLatency : timing::kAluLatency; break;
    case LatencyClass::mul: d.result_latency = floating ? timing::kFmaLatency : timing::kImadLatency; break;
    case LatencyClass::convert:
      d.result_latency = floating || ir::type_class(in.type2) == ir::TypeClass::floating ? timing::kSfuLatency
                                                                                          : timing::kAluLatency;
      break;
  }
  const LatencyClass cls = layout::op_traits(in.op).latency;
  if (cls == LatencyClass::imad || (cls == LatencyClass::mul && !floating))
    d.pipe_cycles = uint8_t(std::lround(timing::kSm.schedulers_per_sm.value / timing::kSm.imad_pipe_rate.value));
  d.issue = d.nwrites > 0 ? DecodedInst::Issue::result
            : is_store(in.op) ? DecodedInst::Issue::store
                              : DecodedInst::Issue::whole;
}

// The loads ptxas schedules ahead of the register work before them (DecodedInst::hoist).
// ptxas's list scheduler moves a load up to where its address is known, so that its latency
// overlaps the arithmetic before its use: step 04's SASS issues 7 of a k-block's 24 LDS before
// its first FFMA and interleaves the rest, where the IR (the article's loop) puts each load
// right before its one FMA (H200, docs/results/2026-12-02-stalls, section 1; the SASS in
// call1/ncu-sass.tgz). A load moves above register ops (alu, convert), other loads and stores
// into the other state space (a global load above a shared store: step 05's copy stores each
// loaded value before it loads the next); never above a store into its own space, a barrier,
// fence, wait, branch, label, tensor-core op or a read of a special
// register (the probes time themselves with %clock64), nor above an instruction that writes a
// register it reads or reads or writes one it writes.
bool is_hoistable_load(Op op) {
  switch (op) {
    case Op::ld_global:
    case Op::ld_shared:
    case Op::ldmatrix:
    case Op::ldmatrix_trans: return true;
    default: return false;
  }
}
// A store into the other state space than the load's: shared and global memory never alias.
bool other_space_store(Op load, Op op) {
  const bool shared_load = load != Op::ld_global;
  return shared_load ? op == Op::st_global : op == Op::st_shared;
}
bool may_pass(Op load, const ir::Inst& in) {
  // Register ops are the ones with a result latency class (op_traits.def, LATENCY rows).
  if (in.op != Op::ld_param && !is_hoistable_load(in.op) && !other_space_store(load, in.op) &&
      layout::op_traits(in.op).latency == layout::LatencyClass::none)
    return false;
  return std::none_of(in.operands.begin(), in.operands.end(),
                      [](const ir::Operand& o) { return o.kind == ir::OperandKind::special; });
}
// The FFMAs that read two new registers (DecodedInst::read_cycles): an f32 fma with three register
// sources, two of which differ from the same sources of the fma right before it (none before it,
// or another instruction: all three are new). A chain's FFMA (c = c * x + y, x and y the same
// each time) reads one new register and keeps the scheduler's rate (probe ffma_issue_1warp).
void set_operand_reads(const ir::Kernel& k, Program& p) {
  const auto ffma_sources = [&](uint32_t pc, std::array<uint32_t, 3>& src) {
    const ir::Inst& in = k.insts[pc];
    if (in.op != Op::fma || in.type != ir::Type::f32 || in.operands.size() != size_t(in.ndst) + 3) return false;
    for (uint32_t i = 0; i < 3; ++i) {
      const ir::Operand& o = in.operands[in.ndst + i];
      if (o.kind != ir::OperandKind::reg) return false;
      src[i] = o.id;
    }
    return true;
  };
  const float cycles = float(timing::kSm.ffma_operand_read_cycles.value);
  uint32_t before = kNone;  // the instruction before pc (labels are none)
  for (uint32_t pc = 0; pc < k.insts.size(); ++pc) {
    if (p.insts[pc].is_label) continue;
    std::array<uint32_t, 3> src{}, prev{};
    if (ffma_sources(pc, src)) {
      uint32_t fresh = 3;
      if (before != kNone && ffma_sources(before, prev)) {
        fresh = 0;
        for (uint32_t i = 0; i < 3; ++i) fresh += src[i] != prev[i];
      }
      if (fresh >= 2) p.insts[pc].read_cycles = cycles;
    }
    before = pc;
  }
}

// Where the SASS order is known (sass_first: each instruction's first SASS instruction), a load
// moves up no further than ptxas put it: to the first instruction before it (within the reach
// above) that ptxas placed after it, and not at all when it placed none after it. ptxas keeps a
// load below stores it could pass when the registers for more loads in flight run short: step
// 07's copy issues 7 of its 8 LDG.128 before the first STS and the 8th after six of them
// (H200, docs/results/2026-12-03-source, section 1), and the model charges that load a second
// latency. On the card a sunk load costs little (H100, docs/results/2026-12-08-trip: a one-trip
// round of that copy takes 1000 cycles, the sunk burst 1009): its data comes while the first
// loads' data is still arriving, a spread the model does not have (architecture.md).
void set_hoists(const ir::Kernel& k, Program& p, const std::vector<uint32_t>& sass_first) {
  constexpr uint32_t kNoSass = ~0u;  // no SASS instruction (ptx::CompiledKernel::kNoSass)
  const bool ordered = sass_first.size() == k.insts.size();
  const uint32_t* sb = p.scoreboard_regs.data();
  const auto shares = [&](const uint32_t* a, uint32_t na, const uint32_t* b, uint32_t nb) {
    for (uint32_t i = 0; i < na; ++i)
      for (uint32_t j = 0; j < nb; ++j)
        if (a[i] == b[j]) return true;
    return false;
  };
  for (uint32_t pc = 0; pc < k.insts.size(); ++pc) {
    if (!is_hoistable_load(k.insts[pc].op)) continue;
    const DecodedInst& d = p.insts[pc];
    const uint32_t* reads = sb + d.reads_at;
    const uint32_t* writes = sb + d.writes_at;
    uint32_t h = 0;
    for (uint32_t at = pc; at-- > 0 && h < kHoistWindow;) {
      const DecodedInst& e = p.insts[at];
      if (e.is_label || !may_pass(k.insts[pc].op, k.insts[at])) break;
      if (shares(sb + e.writes_at, e.nwrites, reads, d.nreads)) break;   // it computes what the load reads
      if (shares(sb + e.reads_at, e.nreads + e.nwrites, writes, d.nwrites)) break;  // it reads or writes what the load writes
      ++h;
    }
    if (ordered && sass_first[pc] != kNoSass) {
      uint32_t placed = 0;  // the farthest instruction back that ptxas placed after the load
      for (uint32_t back = 1; back <= h; ++back) {
        const uint32_t at = sass_first[pc - back];
        if (at != kNoSass && at > sass_first[pc]) placed = back;
      }
      h = placed;
    }
    p.insts[pc].hoist = uint8_t(h);
  }
}

}  // namespace

bool has_semantics(ir::Op op) { return kExec[size_t(op)] != nullptr; }

Program decode_program(const ir::Kernel& k, const std::vector<uint16_t>& sass_per_inst,
                       const std::vector<uint32_t>& sass_first, bool straight_copies, bool straight_barriers) {
  Program p;
  p.label_pc.assign(k.labels.size(), 0);
  for (const ir::RegInfo& r : k.regs) p.reg_words.push_back(ir::type_bits(r.type) > 32 ? 2 : 1);
  p.insts.resize(k.insts.size());
  for (uint32_t pc = 0; pc < k.insts.size(); ++pc) {
    const ir::Inst& in = k.insts[pc];
    DecodedInst& d = p.insts[pc];
    d.guard = in.guard;
    d.guard_negated = in.guard_negated;
    d.role = k.role_at(pc);
    if (in.op == Op::label) {
      d.is_label = true;
      p.label_pc[in.operands[0].id] = pc;
      continue;
    }
    if (!in.info().modelled)
      throw NotModelledError(fmt::format(
          "the CPU model cannot run {} yet ({}): its semantics are not modelled, so the kernel runs only on a GPU",
          in.info().id, ir::describe_instruction(k, pc)));
    d.exec = exec_of(in);
    // A family may have a faster version of this exact form (same semantics, fewer checks of
    // the operand kinds at run time); it leaves d.exec alone when it has none.
    ExecFn fast = nullptr;
    if (d.exec == exec_alu) fast = select_alu(in, p, d, k);
    else if (d.exec == exec_memory) fast = select_memory(in, p, d, k);
    if (fast) d.exec = fast;
  }
  // Branch targets and fall-throughs step over labels (see DecodedInst::next_pc).
  const uint32_t ninst = uint32_t(k.insts.size());
  uint32_t next_real = ninst;  // first non-label at or after pc + 1
  for (uint32_t pc = ninst; pc-- > 0;) {
    p.insts[pc].next_pc = p.insts[pc].direct_next_pc = next_real;
    if (!p.insts[pc].is_label) next_real = pc;
  }
  p.label_target.resize(p.label_pc.size());
  for (size_t id = 0; id < p.label_pc.size(); ++id) {
    const uint32_t at = p.label_pc[id];
    p.label_target[id] = at < ninst && p.insts[at].is_label ? p.insts[at].next_pc : at;
  }
  // mma.sync's registers, where every operand is one (the signature says so of a verified kernel).
  for (uint32_t pc = 0; pc < ninst; ++pc) {
    const ir::Inst& in = k.insts[pc];
    if (in.op != Op::mma_sync) continue;
    const ir::mma_sync_operands ops = ir::mma_sync_operands_of(in);
    if (ops.d.size() != 4 || ops.a.size() != 4 || ops.b.size() != 2 || ops.c.size() != 4) continue;
    MmaRegs r;
    bool regs = true;
    const auto take = [&](std::span<const ir::Operand> from, uint32_t* to) {
      for (size_t i = 0; i < from.size(); ++i) {
        regs = regs && from[i].kind == ir::OperandKind::reg;
        to[i] = from[i].id;
      }
    };
    take(ops.a, r.sources.data());
    take(ops.b, r.sources.data() + 4);
    take(ops.c, r.sources.data() + 6);
    take(ops.d, r.d.data());
    if (!regs) continue;
    p.insts[pc].mma_regs = uint32_t(p.mma_regs.size());
    p.mma_regs.push_back(r);
    p.insts[pc].direct = mma_sync_direct();
  }
  for (uint32_t pc = 0; pc < ninst; ++pc)
    if (k.insts[pc].op == Op::ldmatrix) p.insts[pc].direct = ldmatrix_direct_for(k.insts[pc], p.insts[pc]);
  if (straight_copies)
    for (uint32_t pc = 0; pc < ninst; ++pc)
      if (const DirectFn direct = cp_async_direct(k.insts[pc].op)) {
        p.insts[pc].direct = direct;
        if (k.insts[pc].op == Op::cp_async_cg || k.insts[pc].op == Op::cp_async_ca) {
          p.insts[pc].copy_ops = uint32_t(p.copy_ops.size());
          p.copy_ops.push_back(ir::cp_async_operands_of(k.insts[pc]));
        }
      }
  if (straight_barriers)
    for (uint32_t pc = 0; pc < ninst; ++pc)
      if (const DirectFn direct = bar_sync_direct_for(k.insts[pc], p.insts[pc])) p.insts[pc].direct = direct;
  for (uint32_t pc = 1; pc < ninst; ++pc) {
    DecodedInst& d = p.insts[pc];
    const DecodedInst& before = p.insts[pc - 1];
    if (d.mma_regs == kNone || before.is_label || before.mma_regs == kNone) continue;
    const MmaRegs& r = p.mma_regs[d.mma_regs];
    const MmaRegs& q = p.mma_regs[before.mma_regs];
    bool same = std::equal(r.sources.begin(), r.sources.begin() + 4, q.sources.begin());
    for (const uint32_t w : q.d) same = same && std::find(r.sources.begin(), r.sources.begin() + 4, w) == r.sources.begin() + 4;
    d.mma_same_a = same;
  }
  // Consecutive fragment loads from one address register (DecodedInst::shared_same_base).
  if (const DirectFn load = memform::shared_load_u32_direct(); load != nullptr)
    for (uint32_t pc = 1; pc < ninst; ++pc) {
      DecodedInst& d = p.insts[pc];
      const DecodedInst& before = p.insts[pc - 1];
      d.shared_same_base = !before.is_label && d.direct == load && before.direct == load && d.src[0].is_reg &&
                           before.src[0].is_reg && before.src[0].reg == d.src[0].reg &&
                           before.data_regs[0] != d.src[0].reg;
    }
  p.copies_async = std::any_of(k.insts.begin(), k.insts.end(), [](const ir::Inst& in) {
    return in.op == Op::cp_async_cg || in.op == Op::cp_async_ca;
  });
  const std::vector<SharedLoadFold> folds = shared_load_folds(k, sass_per_inst);
  for (uint32_t pc = 0; pc < folds.size(); ++pc) {
    p.insts[pc].fold_leader = folds[pc].leader;
    p.insts[pc].fold_bytes = folds[pc].bytes;
    p.insts[pc].fold_shift = folds[pc].shift;
    p.insts[pc].fold_members = uint8_t(std::min<uint32_t>(folds[pc].members, 255));
  }
  // Branches, once every label's target is known.
  for (uint32_t pc = 0; pc < ninst; ++pc)
    if (p.insts[pc].exec == exec_control)
      if (const ExecFn fast = select_control(k.insts[pc], p, p.insts[pc], k)) p.insts[pc].exec = fast;
  // Which instructions cannot touch a wgmma accumulator (DecodedInst::no_wgmma_regs): every
  // register operand of a wgmma may become one, and so may a tcgen05.ld destination (marked
  // the same way until tcgen05.wait::ld); nothing else can.
  const auto names_register = [](const ir::Operand& o) {
    return o.kind == ir::OperandKind::reg || o.kind == ir::OperandKind::mem_reg;
  };
  std::vector<bool> wgmma_reg(k.regs.size(), false);
  for (const ir::Inst& in : k.insts)
    if (exec_of(in) == exec_wgmma || exec_of(in) == exec_tcgen05)  // tcgen05.ld: tcgen05.hpp
      for (const ir::Operand& o : in.operands)
        if (names_register(o)) wgmma_reg[o.id] = true;
  for (uint32_t pc = 0; pc < ninst; ++pc) {
    const std::vector<ir::Operand>& ops = k.insts[pc].operands;
    p.insts[pc].no_wgmma_regs =
        std::none_of(ops.begin(), ops.end(), [&](const ir::Operand& o) { return names_register(o) && wgmma_reg[o.id]; });
  }
  // Runs of mma.syncs that share A and none of whose registers another one of the run writes:
  // each one's sums come out the same computed when the first issues (DecodedInst::mma_run).
  for (uint32_t pc = 0; pc < ninst; ++pc) {
    DecodedInst& head = p.insts[pc];
    if (head.mma_regs == kNone || !head.no_wgmma_regs) continue;
    uint32_t run = 1;
    for (; run < DecodedInst::kMmaRun && pc + run < ninst; ++run) {
      const DecodedInst& next = p.insts[pc + run];
      if (!next.mma_same_a || next.guard != ir::kNone || !next.no_wgmma_regs || next.mma_regs == kNone) break;
      const MmaRegs& r = p.mma_regs[next.mma_regs];
      bool apart = true;
      for (uint32_t i = 0; i < run && apart; ++i) {
        const MmaRegs& q = p.mma_regs[p.insts[pc + i].mma_regs];
        for (const uint32_t w : q.d)
          apart = apart && std::find(r.sources.begin(), r.sources.end(), w) == r.sources.end() &&
                  std::find(r.d.begin(), r.d.end(), w) == r.d.end();
        for (const uint32_t w : r.d) apart = apart && std::find(q.sources.begin(), q.sources.end(), w) == q.sources.end();
      }
      if (!apart) break;
    }
    head.mma_run = uint8_t(run);
  }
  for (uint32_t pc = 0; pc < ninst; ++pc) set_issue(k.insts[pc], uint32_t(k.regs.size()), p, p.insts[pc]);
  set_hoists(k, p, sass_first);
  set_operand_reads(k, p);
  // The straight paths that keep to their own warp's state (DecodedInst::own_state): the ALU
  // forms' (select_alu marks them direct_traceable: they write their destination and nothing
  // else), a whole warp's bra, mma.sync's.
  for (uint32_t pc = 0; pc < ninst; ++pc) {
    DecodedInst& d = p.insts[pc];
    const Op op = k.insts[pc].op;
    d.own_state = d.direct != nullptr && (d.direct_traceable || op == Op::bra || op == Op::mma_sync);
  }
  return p;
}

}  // namespace gs::model
