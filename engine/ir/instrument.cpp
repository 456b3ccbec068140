// The timeline pass (instrument.hpp): one walk over the instructions that decides where the
// events are, then one that copies the kernel with the recording code around them.
#include "engine/ir/instrument.hpp"

#include <array>
#include <tuple>
#include <utility>
#include <stdexcept>

#include <fmt/format.h>

namespace gs::ir {

std::string_view record_kind_name(RecordKind k) {
  static constexpr std::array<std::string_view, size_t(RecordKind::count_)> names{
      "role_enter", "mbar_wait_begin", "mbar_wait_end", "tma_issue",    "tma_store",
      "mma_commit", "mma_wait_begin",  "mma_wait_end",  "bar_begin",    "bar_end",
      "global_store", "k_pass",        "cp_async_commit", "cp_async_wait_begin", "cp_async_wait_end"};
  return size_t(k) < names.size() ? names[size_t(k)] : "?";
}

namespace {

// One event to record: its kind, the original instruction it names, and the guard it runs under.
struct Site {
  RecordKind kind;
  uint32_t inst;
  RegId guard = kNone;
  bool negated = false;
};

struct SitePlan {
  std::vector<std::vector<Site>> before, after;
  std::vector<bool> epilogue_before;  // ret / exit
};

bool is_wait(Op op) { return op == Op::mbarrier_try_wait_parity || op == Op::mbarrier_test_wait_parity; }

// The first instruction at or after `i` that issues (labels do not): what the model's event names.
uint32_t first_issued(const Kernel& k, uint32_t i) {
  while (i < k.insts.size() && k.insts[i].op == Op::label) ++i;
  return i < k.insts.size() ? i : kNone;
}

SitePlan plan_sites(const Kernel& k) {
  const uint32_t n = uint32_t(k.insts.size());
  SitePlan p;
  p.before.resize(n);
  p.after.resize(n);
  p.epilogue_before.assign(n, false);
  // Roles first, so a role's record precedes the other records before the same instruction.
  // The model reports a warp entering a role when it issues an instruction of a declared role
  // other than the one it last entered (code outside every region keeps it): a record before
  // every instruction whose role differs from the one before it in the listing, the start of a
  // region and the return to an outer one alike; the decoder drops a record of the role the
  // warp is already in.
  WarpRole before = WarpRole::none;
  for (uint32_t i = 0; i < n; ++i) {
    const WarpRole role = k.role_at(i);
    if (role != before && role != WarpRole::none)
      if (const uint32_t at = first_issued(k, i); at != kNone && k.role_at(at) == role)
        p.before[i].push_back({RecordKind::role_enter, at});
    before = role;
  }
  for (uint32_t i = 0; i < n; ++i) {
    const Inst& in = k.insts[i];
    const Site here{RecordKind::role_enter, i, in.guard, in.guard_negated};
    const auto add = [&](std::vector<Site>& list, RecordKind kind) {
      Site s = here;
      s.kind = kind;
      list.push_back(s);
    };
    switch (in.op) {
      case Op::label:
        // A wait loop as Builder::mbarrier_wait writes it: label; try_wait p; @!p bra label.
        if (i + 2 < n && is_wait(k.insts[i + 1].op) && k.insts[i + 2].op == Op::bra &&
            k.insts[i + 2].guard != kNone && k.insts[i + 2].operands.at(0).id == in.operands.at(0).id) {
          p.before[i].push_back({RecordKind::mbar_wait_begin, i + 1});
          p.after[i + 2].push_back({RecordKind::mbar_wait_end, i + 1});
        }
        if (in.operands.at(0).id < k.labels.size() && k.labels[in.operands[0].id].k_loop)
          if (const uint32_t at = first_issued(k, i + 1); at != kNone)
            p.after[i].push_back({RecordKind::k_pass, at});
        break;
      case Op::cp_async_bulk_tensor_load:
      case Op::cp_async_bulk_tensor_load_multicast: add(p.before[i], RecordKind::tma_issue); break;
      case Op::cp_async_bulk_tensor_store: add(p.before[i], RecordKind::tma_store); break;
      case Op::wgmma_commit_group: add(p.after[i], RecordKind::mma_commit); break;
      case Op::tcgen05_commit:
      case Op::tcgen05_commit_multicast:
      case Op::tcgen05_commit_cta_pair:
      case Op::tcgen05_commit_cta_pair_multicast: add(p.before[i], RecordKind::mma_commit); break;
      case Op::wgmma_wait_group:
        add(p.before[i], RecordKind::mma_wait_begin);
        add(p.after[i], RecordKind::mma_wait_end);
        break;
      case Op::bar_sync:
      case Op::barrier_cluster_wait:
        add(p.before[i], RecordKind::bar_begin);
        add(p.after[i], RecordKind::bar_end);
        break;
      case Op::st_global: add(p.before[i], RecordKind::global_store); break;
      case Op::cp_async_commit_group: add(p.after[i], RecordKind::cp_async_commit); break;
      case Op::cp_async_wait_group:
      case Op::cp_async_wait_all:
        add(p.before[i], RecordKind::cp_async_wait_begin);
        add(p.after[i], RecordKind::cp_async_wait_end);
        break;
      case Op::ret:
      case Op::exit: p.epilogue_before[i] = true; break;
      default: break;
    }
  }
  return p;
}

// Writes the recording code. Every instruction it makes carries the source line and a comment
// of the instruction it instruments, so the PTX and the Source view say where it came from.
class Writer {
 public:
  Writer(Kernel& k, const TimelineLayout& layout) : k_(k), layout_(layout) {
    base_ = reg(Type::u64, "tl_base");
    hdr_ = reg(Type::u64, "tl_header");
    ptr_ = reg(Type::u64, "tl_next");
    end_ = reg(Type::u64, "tl_end");
    t64_ = reg(Type::u64, "tl_t64");
    c64_ = reg(Type::u64, "tl_c64");
    linear_ = reg(Type::u32, "tl_cta");
    t0_ = reg(Type::u32, "tl_t0");
    t1_ = reg(Type::u32, "tl_t1");
    t2_ = reg(Type::u32, "tl_t2");
    clk_ = reg(Type::u32, "tl_clock");
    tag_ = reg(Type::u32, "tl_tag");
    rec_ = reg(Type::pred, "tl_records");
    cta_rec_ = reg(Type::pred, "tl_cta_records");
    p_ = reg(Type::pred, "tl_p");
    g_ = reg(Type::pred, "tl_g");
    ng_ = reg(Type::pred, "tl_not_guard");
    ParamId id = ParamId(k_.params.size());
    k_.params.push_back({"timeline", ParamKind::global_ptr, ParamRole::timeline, {}});
    param_ = id;
  }

  std::vector<Inst> out;

  void set_origin(const Inst& in, std::string what) {
    src_ = in.src;
    comment_ = "timeline: " + std::move(what);
  }

  // Every lane: which area is its warp's, and whether it is the lane that records.
  void prologue() {
    comment_ = "timeline: which warp area this lane records into";
    emit({.op = Op::ld_param, .type = Type::u64, .ndst = 1}, {R(base_), Operand::mem_param(param_)});
    emit({.op = Op::cvta_to_global, .type = Type::u64, .ndst = 1}, {R(base_), R(base_)});
    // linear CTA id = ctaid.x + nctaid.x * (ctaid.y + nctaid.y * ctaid.z)
    special(linear_, Special::ctaid_z);
    special(t0_, Special::nctaid_y);
    special(t1_, Special::ctaid_y);
    alu(Op::mad_lo, Type::u32, linear_, {R(linear_), R(t0_), R(t1_)});
    special(t0_, Special::nctaid_x);
    special(t1_, Special::ctaid_x);
    alu(Op::mad_lo, Type::u32, linear_, {R(linear_), R(t0_), R(t1_)});
    // linear thread = tid.x + ntid.x * (tid.y + ntid.y * tid.z); warps are 32 consecutive ones
    special(t0_, Special::tid_z);
    special(t1_, Special::ntid_y);
    special(t2_, Special::tid_y);
    alu(Op::mad_lo, Type::u32, t0_, {R(t0_), R(t1_), R(t2_)});
    special(t1_, Special::ntid_x);
    special(t2_, Special::tid_x);
    alu(Op::mad_lo, Type::u32, t0_, {R(t0_), R(t1_), R(t2_)});
    alu(Op::and_, Type::b32, t1_, {R(t0_), Operand::integer(31)});  // lane
    alu(Op::shr, Type::u32, t0_, {R(t0_), Operand::integer(5)});    // warp in the CTA
    alu(Op::sub, Type::u32, t2_, {R(linear_), Operand::integer(layout_.first_cta)});  // slot
    setp(CmpOp::lt, Type::u32, cta_rec_, R(t2_), Operand::integer(layout_.ctas));
    setp(CmpOp::eq, Type::u32, g_, R(t1_), Operand::integer(0));
    alu(Op::and_, Type::pred, rec_, {R(cta_rec_), R(g_)});
    alu(Op::mad_lo, Type::u32, t2_, {R(t2_), Operand::integer(layout_.warps_per_cta), R(t0_)});  // area index
    emit({.op = Op::mul_wide, .type = Type::u32, .ndst = 1},
         {R(hdr_), R(t2_), Operand::integer(int64_t(layout_.area_bytes()))});
    alu(Op::add, Type::u64, hdr_, {R(hdr_), R(base_)});
    alu(Op::add, Type::u64, ptr_, {R(hdr_), Operand::integer(kTimelineHeaderBytes)});
    // tl_end: the area's end for the recording lane, 0 for every other lane (its records never fit)
    alu(Op::add, Type::u64, t64_, {R(ptr_), Operand::integer(int64_t(layout_.capacity) * kTimelineRecordBytes)});
    emit({.op = Op::selp, .type = Type::u64, .ndst = 1}, {R(end_), R(t64_), Operand::integer(0), R(rec_)});
    comment_ = "timeline: the warp's start (globaltimer, clock64, smid, CTA)";
    special(t64_, Special::globaltimer);
    special(c64_, Special::clock64);
    special(t1_, Special::smid);
    store(rec_, 0, {R(t64_)}, Type::u64);
    store(rec_, 16, {R(c64_)}, Type::u64);
    store(rec_, 32, {R(t1_), R(linear_)}, Type::u32);
  }

  // One record: [tl_next] = {tag, %clock} when it fits, and tl_next moves on either way. Only
  // the recording CTAs run these (the others run the plain copy, plain_copy), so a record is
  // straight-line code: no branch splits the block it sits in, and ptxas schedules the
  // kernel's own instructions around it.
  void record(const Site& s, InstrumentedKernel& r) {
    r.clock_reads.push_back(uint32_t(out.size()));
    r.clock_read_kinds.push_back(s.kind);
    special(clk_, Special::clock);
    setp(CmpOp::lt, Type::u64, p_, R(ptr_), R(end_));
    if (s.guard != kNone) and_guard(p_, s.guard, s.negated);
    alu(Op::mov, Type::u32, tag_, {Operand::integer(int64_t(uint32_t(s.kind) << 24 | s.inst))});
    store(p_, -1, {R(tag_), R(clk_)}, Type::u32);
    Inst add{.op = Op::add, .type = Type::u64, .ndst = 1, .guard = s.guard, .guard_negated = s.negated};
    emit(add, {R(ptr_), R(ptr_), Operand::integer(kTimelineRecordBytes)});
  }

  // After the prologue: the recording CTAs jump to the recording copy; the others fall through
  // into the plain copy, laid out first. They run the kernel's own instructions, in the kernel's
  // own order and nothing else, so recording one CTA costs the others one untaken branch.
  // (Before, each record was branched over: one branch per event, and each branch a block
  // boundary that kept ptxas from hiding step 13's descriptor arithmetic behind its full-barrier
  // wait, H100 at 8192^3: +7.1% to +10.8%, docs/results/2026-11-27-h100-timeline. With the plain
  // copy placed after the recording one, step 13 still paid +3.0%, docs/results/2026-11-28-h100.)
  LabelId branch_to_recording() {
    comment_ = "timeline: the recording CTAs run the copy at tl_record; the others the kernel as it was";
    const LabelId recording = LabelId(k_.labels.size());
    k_.labels.push_back({"tl_record"});
    emit({.op = Op::bra, .guard = cta_rec_}, {Operand::label(recording)});
    return recording;
  }

  // The original instructions, their labels renamed (a copy of each, "plain_" + name, k_loop
  // kept), a ret where the kernel falls off its end, then `recording`'s label. Returns where the
  // copy begins and ends; the copy's role regions are the original's, offset by the begin.
  std::pair<uint32_t, uint32_t> plain_copy(const Kernel& original, LabelId recording, bool ends_with_exit) {
    const uint32_t begin = uint32_t(out.size());
    std::vector<LabelId> renamed(original.labels.size());
    for (size_t l = 0; l < original.labels.size(); ++l) {
      renamed[l] = LabelId(k_.labels.size());
      LabelInfo copy = original.labels[l];
      copy.name = "plain_" + copy.name;
      k_.labels.push_back(std::move(copy));
    }
    for (const Inst& in : original.insts) {
      Inst copy = in;
      for (Operand& o : copy.operands)
        if (o.kind == OperandKind::label && o.id < renamed.size()) o.id = renamed[o.id];
      out.push_back(std::move(copy));
    }
    const uint32_t end = uint32_t(out.size());
    if (!ends_with_exit) {
      comment_ = "timeline: the plain kernel ends here";
      emit({.op = Op::ret}, {});
    }
    comment_ = "timeline: the recording CTAs' copy";
    emit({.op = Op::label}, {Operand::label(recording)});
    return {begin, end};
  }

  // Before a ret/exit (under its guard) and at the end: the warp's end, its count, the magic.
  void epilogue(RegId guard, bool negated) {
    RegId pred = rec_;
    if (guard != kNone) {
      alu(Op::mov, Type::pred, g_, {R(rec_)});
      and_guard(g_, guard, negated);
      pred = g_;
    }
    special(t64_, Special::globaltimer);
    special(c64_, Special::clock64);
    store(pred, 8, {R(t64_)}, Type::u64);
    store(pred, 24, {R(c64_)}, Type::u64);
    alu(Op::sub, Type::u64, t64_, {R(ptr_), R(hdr_)});
    alu(Op::shr, Type::u64, t64_, {R(t64_), Operand::integer(3)});
    emit({.op = Op::cvt, .type = Type::u32, .type2 = Type::u64, .ndst = 1}, {R(t0_), R(t64_)});
    alu(Op::sub, Type::u32, t0_, {R(t0_), Operand::integer(kTimelineHeaderBytes / kTimelineRecordBytes)});
    alu(Op::mov, Type::u32, t1_, {Operand::integer(kTimelineMagic)});
    store(pred, 40, {R(t0_), R(t1_)}, Type::u32);
  }

 private:
  static Operand R(RegId r) { return Operand::reg(r); }

  RegId reg(Type t, const char* name) {
    k_.regs.push_back({t, name});
    return RegId(k_.regs.size() - 1);
  }
  void emit(Inst i, std::vector<Operand> ops) {
    i.operands = std::move(ops);
    i.src = src_;
    i.comment = comment_;
    out.push_back(std::move(i));
  }
  void special(RegId dst, Special s) {
    emit({.op = Op::mov, .type = special_type(s), .ndst = 1}, {R(dst), Operand::special(s)});
  }
  void alu(Op op, Type t, RegId dst, std::vector<Operand> srcs) {
    srcs.insert(srcs.begin(), R(dst));
    emit({.op = op, .type = t, .ndst = 1}, std::move(srcs));
  }
  void setp(CmpOp c, Type t, RegId dst, Operand a, Operand b) {
    emit({.op = Op::setp, .type = t, .cmp = c, .ndst = 1}, {R(dst), a, b});
  }
  // pred = pred && guard (or && !guard)
  void and_guard(RegId pred, RegId guard, bool negated) {
    RegId g = guard;
    if (negated) {
      alu(Op::not_, Type::pred, ng_, {R(guard)});
      g = ng_;
    }
    alu(Op::and_, Type::pred, pred, {R(pred), R(g)});
  }
  // @pred st.global [header + offset] (offset < 0: [tl_next]) of one or two values.
  void store(RegId pred, int64_t offset, std::vector<Operand> values, Type t) {
    Inst i{.op = Op::st_global, .type = t, .vec = uint8_t(values.size()), .guard = pred};
    std::vector<Operand> ops{offset < 0 ? Operand::mem(ptr_) : Operand::mem(hdr_, offset)};
    ops.insert(ops.end(), values.begin(), values.end());
    emit(i, std::move(ops));
  }

  Kernel& k_;
  const TimelineLayout& layout_;
  ParamId param_ = 0;
  RegId base_, hdr_, ptr_, end_, t64_, c64_, linear_, t0_, t1_, t2_, clk_, tag_, rec_, cta_rec_, p_, g_, ng_;
  SourceLoc src_;
  std::string comment_;
};

}  // namespace

InstrumentedKernel instrument_timeline(const Kernel& kernel, const TimelineOptions& o) {
  if (o.capacity > kTimelineMaxCapacity)
    throw std::invalid_argument(fmt::format("timeline capacity {} records per warp is not in 0..{} (0: each warp's "
                                            "start and end only)",
                                            o.capacity, kTimelineMaxCapacity));
  const uint64_t grid = kernel.launch.ctas();
  if (o.ctas == 0 || o.first_cta >= grid || uint64_t(o.first_cta) + o.ctas > grid)
    throw std::invalid_argument(fmt::format("timeline CTAs {}..{} are not inside the grid of {} CTAs (linear ids "
                                            "0..{})",
                                            o.first_cta, uint64_t(o.first_cta) + o.ctas - 1, grid, grid - 1));
  if (kernel.find_param(ParamRole::timeline))
    throw std::invalid_argument(fmt::format("kernel '{}' already records a timeline", kernel.name));
  if (kernel.insts.size() >= (1u << 24))
    throw std::invalid_argument(fmt::format("kernel '{}' has {} instructions; a timeline record names at most 2^24",
                                            kernel.name, kernel.insts.size()));

  InstrumentedKernel r;
  r.kernel = kernel;
  r.layout = {o.first_cta, o.ctas, o.capacity, (kernel.launch.threads() + 31) / 32};
  const SitePlan plan = plan_sites(kernel);
  Writer w(r.kernel, r.layout);
  w.prologue();
  const LabelId recording = w.branch_to_recording();
  const uint32_t n = uint32_t(kernel.insts.size());
  const bool ends_with_exit = n > 0 && (kernel.insts.back().op == Op::ret || kernel.insts.back().op == Op::exit) &&
                              kernel.insts.back().guard == kNone;
  std::tie(r.plain_begin, r.plain_end) = w.plain_copy(kernel, recording, ends_with_exit);
  std::vector<uint32_t> new_begin(n + 1);
  // Capacity 0 keeps each warp's start and end only: no record sites, so the recording copy runs
  // the kernel's own instructions between its start and end stamps, at the plain kernel's pace.
  const auto record_sites = [&](const Inst& in, const std::vector<Site>& sites) {
    if (o.capacity == 0) return;
    for (const Site& s : sites) {
      w.set_origin(in, std::string(record_kind_name(s.kind)));
      w.record(s, r);
      ++r.sites;
    }
  };
  for (uint32_t i = 0; i < n; ++i) {
    const Inst& in = kernel.insts[i];
    new_begin[i] = uint32_t(w.out.size());
    record_sites(in, plan.before[i]);
    if (plan.epilogue_before[i]) {
      w.set_origin(in, "the warp's end");
      w.epilogue(in.guard, in.guard_negated);
    }
    w.out.push_back(in);
    record_sites(in, plan.after[i]);
  }
  new_begin[n] = uint32_t(w.out.size());
  if (!ends_with_exit) {  // falling off the end returns too
    if (n > 0) w.set_origin(kernel.insts.back(), "the warp's end");
    w.epilogue(kNone, false);
  }
  for (RoleRegion& region : r.kernel.roles) {
    region.begin = new_begin[std::min(region.begin, n)];
    region.end = new_begin[std::min(region.end, n)];
  }
  for (const RoleRegion& region : kernel.roles)
    r.kernel.roles.push_back({region.role, r.plain_begin + region.begin, r.plain_begin + region.end});
  r.kernel.insts = std::move(w.out);
  r.kernel.name = kernel.name;
  return r;
}

}  // namespace gs::ir
