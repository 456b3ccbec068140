// The pre-decoded program: every instruction of a kernel looked at once, before any CTA
// runs, and turned into what the scheduler needs on each issue.
//
// Interpreting ir::Inst directly costs an op-table lookup, a family switch and a walk over a
// vector of operands on every warp-instruction. The model issues millions of them for the
// same few hundred instructions, so decode_program() does that work once per simulate():
//
//   ir::Inst  ──decode──▶  DecodedInst { exec = the exec_* function for this op (and, for
//                                         the hot ALU/memory forms, for its type),
//                                         guard, label flag,
//                                         sources resolved to a register id or a constant }
//
// Decoding never changes what an instruction does: each exec_* function still holds the
// op's semantics, and forms the decoder does not specialise run through the general exec_*
// function of their family, exactly as before. The decoded form only removes look-ups.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "engine/ir/kernel.hpp"
#include "engine/ir/signature.hpp"
#include "engine/model/line_aligned.hpp"

namespace gs::model {

struct ExecContext;
struct Cta;
struct Warp;
struct DecodedInst;
using ExecFn = void (*)(ExecContext&);
// The straight path of a decoded form (DecodedInst::direct): the instruction for all 32 lanes
// of a warp, without an ExecContext and without recording anything (the scheduler runs it for
// untraced CTAs, and see DecodedInst::direct_traceable). It returns the latency, or 0 having
// changed nothing where it cannot show that the general exec has nothing more to do (a
// source not written by every lane, a register a wgmma may own, an address it cannot
// prove in bounds); the scheduler then runs exec.
using DirectFn = uint32_t (*)(Cta&, Warp&, const DecodedInst&);
// What bar.sync's straight path answers for a warp that now waits at the barrier (its state
// bar_wait): the scheduler takes it out of the picks instead of setting its next issue.
inline constexpr uint32_t kWaitsAtBarrier = ~0u;

// One source operand of a hot ALU or memory form: a register, or a constant known at decode
// time (an immediate, a floating immediate in the instruction's type, a shared-memory or
// parameter address). Constants point at 32 copies of the value so that the lane loops read
// registers and constants the same way.
struct DecodedSource {
  bool is_reg = false;
  uint32_t reg = ir::kNone;
  const uint64_t* lanes = nullptr;  // the broadcast constant (is_reg == false)
};

// How far back a load may be scheduled (DecodedInst::hoist); each warp keeps the issue times of
// its last kHoistWindow + 1 pcs (Warp::issue_at).
inline constexpr uint32_t kHoistWindow = 31;

struct DecodedInst {
  ExecFn exec = nullptr;     // nullptr for labels (they take no issue slot)
  DirectFn direct = nullptr; // for the hot forms that have one (see DirectFn)
  // What exec would add to the trace of a traced CTA, where direct succeeds, is only the
  // reg_write of dst: the scheduler then runs direct for traced CTAs too and records that
  // write itself (the ALU forms; not the loads, whose exec also records the access).
  bool direct_traceable = false;
  // Its straight path reads and writes only what its own warp and that warp's scheduler keep
  // (registers, the scheduler's tensor-core and IMAD pipes, commutative counts): an ALU form's,
  // a whole warp's bra, mma.sync's. In a CTA of at most four warps (one a scheduler), such an
  // issue commutes with every other warp's, so the straight loop runs a warp's run of them at
  // once (cta.cpp, own_run).
  bool own_state = false;
  bool is_label = false;
  // The role its kernel declares for this instruction (ir::Kernel::role_at): the traced CTA
  // records a role_enter event when a warp issues an instruction of another role.
  ir::WarpRole role = ir::WarpRole::none;
  // Where the lanes that do not branch go next: the first instruction after this one that is
  // not a label (labels take no issue slot and do nothing, so stepping over them when the pc
  // is set saves the scheduler a pass per label reached).
  uint32_t next_pc = 0;
  // Where a whole warp goes once `direct` has run: next_pc, or a bra's target (its straight
  // path is the branch of a whole warp that takes it).
  uint32_t direct_next_pc = 0;
  uint32_t guard = ir::kNone;
  bool guard_negated = false;
  // Filled for the forms an exec_* selector specialised (see select_alu / select_memory):
  uint32_t dst = ir::kNone;  // the written register
  uint8_t nsrc = 0;
  std::array<DecodedSource, 3> src{};
  // Which source register the destination also is: none, one (its index), or several. The
  // ALU forms write a full warp's result in place, without a scratch copy, when it is at
  // most one (each lane reads its own sources before it writes).
  static constexpr uint8_t kDstIsNoSource = 0xFF, kDstIsSeveralSources = 0xFE;
  uint8_t dst_source = kDstIsSeveralSources;
  // Memory forms: [src[0] + offset], vec elements of elem_bytes each, to/from data_regs.
  int64_t offset = 0;
  uint8_t elem_bytes = 0;
  uint8_t vec = 0;
  std::array<uint32_t, 4> data_regs{};
  // No register of this instruction is an operand of any wgmma of the kernel, so none can
  // ever be marked as a wgmma accumulator (Cta::wgmma_acc, set only by exec_wgmma for its
  // operands): the decoded forms then leave that part of the register checks out
  // (operands.hpp). False where unsure.
  bool no_wgmma_regs = false;
  // bra: the pc its taken lanes go to (Program::label_target of its label).
  uint32_t branch_target = 0;
  // mma.sync: its registers in Program::mma_regs (kNone: not decoded; exec_mma reads them then).
  uint32_t mma_regs = ir::kNone;
  // cp.async with a straight path: its operands in Program::copy_ops, read from its signature once
  // (kNone: not decoded; the exec form reads them then).
  uint32_t copy_ops = ir::kNone;
  // The instruction before it (pc - 1, not a label: nothing branches in between) is an mma.sync
  // with the same A registers that writes none of them: A's pairs kept there still hold.
  bool mma_same_a = false;
  // A whole warp's ld.shared.u32 straight path (memform::shared_load_u32_direct) whose instruction
  // before it (pc - 1, not a label: nothing branches in between) is one too, from the same
  // address register, which that one does not write: the register's lanes are those the load
  // before found, where that load was the warp's last issue (exec_smem_forms.cpp,
  // Warp::pattern_pc).
  bool shared_same_base = false;
  // mma.sync: how many mma.syncs from this one on (this one included, at most kMmaRun) the bf16
  // builds (AMX, AVX512_BF16) may take at once when this one issues (exec_mma.cpp,
  // direct_mma_sync): each after it has mma_same_a, no guard and no register a wgmma may own, and
  // none of the run writes a register another one of the run reads or writes. 1: this one alone.
  static constexpr uint32_t kMmaRun = 8;
  uint8_t mma_run = 1;
  // The issue model (cta.cpp). A warp issues in order; it waits only for the registers this
  // instruction reads (Program::scoreboard_regs[reads_at, reads_at + nreads): the guard, sources
  // and address bases) to be written, and then issues one instruction per cycle:
  //  * result: it writes registers (scoreboard_regs[writes_at, + nwrites)), which are ready
  //    when its latency is over; the warp goes on at the next cycle (instruction-level
  //    parallelism);
  //  * store: it writes no register (a store into memory); the warp goes on at the next cycle;
  //  * whole: the warp waits for its latency (barriers, waits, fences, control).
  enum class Issue : uint8_t { whole, result, store };
  Issue issue = Issue::whole;
  uint16_t nreads = 0, nwrites = 0;
  uint32_t reads_at = 0, writes_at = 0;
  // The registers the issue waits for (reads and writes, cta.cpp's operands_ready), each once:
  // scoreboard_regs[ready_at, + nready). An mma.sync reads and writes its accumulators (14 entries,
  // 10 registers), a pointer's add reads and writes the pointer.
  uint16_t nready = 0;
  uint32_t ready_at = 0;
  // The list holds at least this many entries, the ones past nready the register past the
  // kernel's last (always ready): operands_ready reads the first four unconditionally.
  static constexpr uint32_t kReadyFloor = 4;
  // An arithmetic op's result latency from its latency class (layout::op_traits, the machine
  // description's figure); 0: the latency its exec function computes.
  uint16_t result_latency = 0;
  // A load that ptxas would schedule earlier (set_hoists in decode.cpp): the number of
  // instructions before it in its straight run of code it may move above (register ops and
  // other loads it does not depend on, that do not read or write what it writes), at most
  // kHoistWindow. The model still runs it in the IR's order (the values are the same: nothing
  // it passes touches memory or its registers), but its data is ready `latency` after the
  // instruction `hoist` places back issued, as in the SASS, where the load takes that slot:
  // a use right after the load then waits only what the instructions in between did not hide.
  uint8_t hoist = 0;
  // Cycles it holds its sub-partition's integer multiply-add pipe (0: it does not use it): the
  // IMAD class runs at imad_pipe_rate warp-instructions a cycle per SM, half the issue rate
  // (probe imad_issue_32warps), so a second one waits for the pipe and its result comes later.
  uint8_t pipe_cycles = 0;
  // An FFMA whose warp waits this part of a cycle more before its next issue (0: none): one that
  // reads two registers the instruction before it (an FFMA) did not read in the same places, as
  // an outer product's does (a new b and accumulator beside the same a), where the card's
  // register file gives one warp fewer issues than the scheduler could (figure
  // ffma_operand_read_cycles, probe outer_8x8_4warps; set_operand_reads in decode.cpp). The
  // parts add up per warp (Warp::read_debt) to whole cycles; another warp may issue in them.
  float read_cycles = 0;
  // ld.shared that ptxas folded into one wider SASS load (shared_load_folds below).
  uint32_t fold_leader = ir::kNone;  // a folded load: the ld.shared whose SASS load carries its bytes
  uint8_t fold_bytes = 0;            // a leader: bytes per lane of its SASS load (0: as written)
  int8_t fold_shift = 0;             // a leader: that load's start, relative to its own address
  uint8_t fold_members = 0;          // a leader: the loads folded into it
  // bar.sync with a straight path (bar_sync_direct_for): its barrier and thread count, read from
  // its signature once; kEveryThread: no count (every live thread, CTA-wide). Kept in the
  // struct's tail padding: it stays three 64-byte lines.
  static constexpr uint16_t kEveryThread = 0xFFFF;
  uint8_t barrier_id = 0;
  uint16_t barrier_threads = kEveryThread;
};
static_assert(sizeof(DecodedInst) == 192);

// What ptxas made of the kernel's ld.shared, per instruction (SimOptions::sass_per_inst).
// ptxas merges scalar shared loads from one base register into one LDS.64 or LDS.128 when they
// fall in one aligned window (H100, ptxas 13.0, `gemmscope sass simt_blocktile_1d`: its 72
// ld.shared lines become 24 LDS; docs/results/2026-11-28-h100). The merged loads get no SASS
// line of their own: a load whose line has no SASS instruction is folded into the one load
// of its group that has one (the leader), where a group is the ld.shared of one type, guard and
// base register (not written between them, in one straight run of code) within one 16-byte
// window of offsets. The leader's SASS load covers the group's span (rounded up to 4, 8 or 16
// bytes a lane). Where the counts are unknown, or a load has no leader, every load is its own.
struct SharedLoadFold {
  uint32_t leader = ir::kNone;
  uint8_t bytes = 0;
  int8_t shift = 0;
  uint32_t members = 0;  // a leader: the loads folded into it
};
std::vector<SharedLoadFold> shared_load_folds(const ir::Kernel& k, const std::vector<uint16_t>& sass_per_inst);

// mma.sync's registers, from its signature once (exec_mma.cpp): the sources in operand order (A's
// four, B's two, C's four), which its checks follow, and D's four.
struct MmaRegs {
  std::array<uint32_t, 10> sources{};
  std::array<uint32_t, 4> d{};
};
// exec_mma's straight path (exec_mma.cpp) where this CPU has one (AVX2, the PTX maps regular),
// else nullptr: the decoder gives it to every mma.sync whose operands are all registers.
DirectFn mma_sync_direct();
// exec_ldmatrix's straight path (exec_ldmatrix.cpp) for an ldmatrix without .trans whose
// operands are all registers, where this CPU has AVX2, having put its address register and
// offset in d.src[0] and d.offset, its count in d.vec and its registers in d.data_regs; else
// nullptr, d unchanged.
DirectFn ldmatrix_direct_for(const ir::Inst& in, DecodedInst& d);
// exec_bar's straight path (exec_sync.cpp) for a bar.sync whose count, if it has one, is an
// immediate, having put its barrier and count in d.barrier_id and d.barrier_threads; else
// nullptr, d unchanged.
DirectFn bar_sync_direct_for(const ir::Inst& in, DecodedInst& d);
// The straight paths of cp.async, cp.async.commit_group and cp.async.wait_group
// (exec_cp_async.cpp), for an untraced whole warp with nothing to report; nullptr for any
// other op.
DirectFn cp_async_direct(ir::Op op);
namespace memform {
// The straight path of a whole warp's ld.shared.u32 (exec_smem_forms.cpp).
DirectFn shared_load_u32_direct();
}  // namespace memform

struct Program {
  // One per ir::Inst, same index (pc); each of 192 bytes three cache lines, not four.
  std::vector<DecodedInst, LineAligned<DecodedInst>> insts;
  std::vector<uint32_t> label_pc;  // label id -> pc of its label
  std::vector<uint32_t> label_target;  // label id -> first instruction after it that is not a label
  std::vector<uint8_t> reg_words;  // register id -> 32-bit words of its type (1, or 2 past 32 bits)
  std::vector<uint32_t> scoreboard_regs;  // DecodedInst::reads_at/writes_at index it
  // Storage of the broadcast constants DecodedSource::lanes points at (a deque: growing it
  // never moves what is already there).
  std::deque<std::array<uint64_t, 32>> constants;
  // Whether the kernel has a cp.async: the only reader of the warps a word was read by
  // (SmemWord::read_by and read_epoch, exec_cp_async.cpp), which shared reads then note.
  bool copies_async = true;
  std::vector<MmaRegs> mma_regs;  // DecodedInst::mma_regs indexes it
  std::vector<ir::cp_async_operands> copy_ops;  // DecodedInst::copy_ops indexes it

  // A source as a constant broadcast to 32 lanes, or nullptr for a register/special.
  const uint64_t* constant_lanes(const ir::Kernel& k, const ir::Inst& in, const ir::Operand& o);
};

// Whether this CPU runs AVX2 code (x86-64): the decoder then picks the AVX2 builds of the hot
// forms, which compute the same bits with wider lane loops. Checked once.
bool cpu_has_avx2();
// Whether it also runs FMA: the tensor cores' sums (exec_mma.cpp, tensor_sums.cpp), whose
// products are exact, so a fused multiply-add rounds as the add alone. Checked once.
bool cpu_has_avx2_fma();
// Whether it also runs AVX-512F: twice as many columns per fused multiply-add (tensor_sums.cpp).
bool cpu_has_avx512();
// Whether it also runs AVX512_BF16: two bf16 products a lane per instruction, for the float sums
// of integers small enough to be exact in bf16 (tensor_sums.cpp).
bool cpu_has_avx512_bf16();
// Whether it also runs AMX-BF16 and the kernel lets this process use the tile registers (Linux:
// arch_prctl ARCH_REQ_XCOMP_PERM, asked once here): a 16 x 16 block of bf16 pair sums an
// instruction (tensor_sums_integers.cpp). GEMMSCOPE_MODEL_NO_AMX=1 says no, so that the AVX-512
// paths can be checked and timed against it on the same CPU.
bool cpu_has_amx_bf16();

// Decodes a verified kernel. The result is read-only while CTAs run. sass_per_inst (empty: not
// known) gives the shared loads ptxas folded (shared_load_folds); sass_first (empty: not known)
// the order ptxas scheduled the instructions in, which bounds how far up a load moves (set_hoists).
// straight_copies: cp.async and its commit and wait get their straight paths (cp_async_direct;
// SimOptions::straight_copies); straight_barriers: bar.sync gets its (bar_sync_direct_for;
// SimOptions::straight_barriers).
Program decode_program(const ir::Kernel& kernel, const std::vector<uint16_t>& sass_per_inst = {},
                       const std::vector<uint32_t>& sass_first = {}, bool straight_copies = true,
                       bool straight_barriers = true);

// Per-family selectors (in the exec_*.cpp that owns the semantics): the function that runs
// this instruction, specialised for its form when the family has a fast version of it.
// They may fill d's operand fields and d.direct.
ExecFn select_alu(const ir::Inst& in, Program& p, DecodedInst& d, const ir::Kernel& k);
ExecFn select_memory(const ir::Inst& in, Program& p, DecodedInst& d, const ir::Kernel& k);
ExecFn select_control(const ir::Inst& in, Program& p, DecodedInst& d, const ir::Kernel& k);

}  // namespace gs::model
