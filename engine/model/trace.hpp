// What the CPU model saw, as an immutable list of events with modeled cycle stamps.
//
// The model writes events through a TraceSink (a null sink in fast mode); the GUI reads a
// finished Trace through a Cursor that walks forwards and backwards and searches. Events
// are small fixed-size records; variable-sized payloads (a warp's 32 lane addresses, a TMA
// box's coordinates, register values) live in side tables that an event indexes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/ops.hpp"
#include "engine/ir/types.hpp"
#include "engine/model/table.hpp"

namespace gs::model {

enum class EventKind : uint8_t {
  cta_start,          // a: cta linear id
  cta_end,
  warp_inst,          // one warp-instruction issued: inst, warp, mask
  smem_access,        // payload -> SmemAccess
  global_access,      // payload -> GlobalAccess
  tma_issue,          // payload -> TmaTransfer
  tma_complete,       // payload -> TmaTransfer (same record)
  mbar_init,          // payload -> MbarEvent
  mbar_arrive,
  mbar_expect_tx,
  mbar_complete_tx,
  mbar_phase_flip,
  mbar_wait_blocked,  // a warp's try_wait found the phase incomplete and sleeps
  mbar_wait_released,
  bar_blocked,        // bar.sync: payload = barrier id (kClusterBarrierId: barrier.cluster), a = threads expected
  bar_released,
  wgmma_issue,        // a wgmma (not mma.sync, not tcgen05.mma): payload -> MmaOp
  wgmma_complete,     // a wgmma group completed, at the wait_group that retires it
  reg_write,          // payload -> RegWrite
  hazard,             // payload -> index into Trace::hazards
  role_enter,         // a warp enters a region its kernel declared (Builder::role): a = ir::WarpRole
  wgmma_commit,       // wgmma.commit_group: a = the warp's groups in flight after it
  wgmma_wait_blocked, // wgmma.wait_group N finds more than N groups in flight: a = N
  wgmma_wait_released, // ... and the groups it waits for have completed: a = groups left
  reg_limit,          // setmaxnreg took effect: a = the warp's registers per thread now
  cp_async_commit,    // cp.async.commit_group (and wait_all's): a = the warp's groups in flight after it
  cp_async_wait,      // cp.async.wait_group / wait_all: a = the oldest groups it retired, payload = groups left
  tmem_op,            // payload -> TmemOp (Trace::tmem), a = TmemOpKind: a tcgen05 op on a CTA's TMEM
  fast_forward,       // a warp skipped passes of a long loop: payload -> FastForward (Trace::fast_forwards)
  wgmma_issue_wait,   // a wgmma waits at issue for the SM's wgmma issue (the wgmmas before it): a = the cycles
  count_,
};
const char* event_kind_name(EventKind k);

using ir::kAllLanes;
using ir::kNone;
inline constexpr uint16_t kNoWarp = 0xFFFF;  // Event::warp of an event no warp caused
inline constexpr uint32_t kClusterBarrierId = 0xFFFF;  // bar_blocked/released payload of barrier.cluster

// A trace holds the traced CTA and, when the kernel has clusters, every CTA of its cluster.
// Warps are numbered across them: CTA rank r's warp w is trace warp r * warps_per_cta + w.
struct Event {
  uint64_t cycle = 0;       // modeled cycle (the trace is sorted by it, ties by order)
  EventKind kind = EventKind::warp_inst;
  uint16_t warp = 0;        // trace warp (see above), kNoWarp for none
  uint32_t inst = kNone;    // instruction id
  uint32_t mask = 0;        // active lanes
  uint32_t payload = kNone; // index into the side table of its kind
  uint32_t a = 0;           // small kind-specific value (see EventKind comments)
  uint8_t cta = 0;          // the CTA's rank in its cluster (Trace::ctas[cta]); 0 without clusters
};

// One traced CTA.
struct TracedCta {
  std::array<uint32_t, 3> ctaid{};
  uint32_t linear = 0;      // ctaid.x + grid.x * (ctaid.y + grid.y * ctaid.z)
  uint32_t rank = 0;        // %cluster_ctarank
  uint32_t first_warp = 0;  // its warp 0 as a trace warp
};

struct SmemAccess {
  std::array<uint32_t, 32> addr{};  // byte address per lane (valid where mask has the bit)
  uint32_t mask = 0;
  uint8_t bytes = 4;                // per lane: 1, 2, 4, 8, 16
  bool store = false;
  uint8_t wavefronts = 1;
  uint8_t ideal_wavefronts = 1;
  uint8_t conflict_degree = 1;      // the worst bank's distinct words in one phase
  std::array<uint8_t, 32> bank{};         // bank of each lane's first word
  std::array<uint8_t, 32> lane_wavefront{};  // which wavefront serves each lane
  // ld.shared that ptxas folded (decode.hpp, shared_load_folds). A folded load: folded_into is
  // the instruction whose SASS load carries its bytes, and it takes no wavefront (wavefronts 0).
  // A leader: folded_loads loads ride on it, and addr/bytes are its SASS load's (wider).
  uint32_t folded_into = 0xFFFFFFFFu;
  uint8_t folded_loads = 0;
};

// One warp-level global access (ld/st.global, cp.async's source): each lane's address, so a
// view can show which 32-byte sectors and 128-byte lines the warp touches.
struct GlobalAccess {
  static constexpr uint32_t kFar = ~0u;  // offset of a lane 4 GiB or more above first_addr
  uint32_t mask = 0;          // the lanes that accessed global memory
  uint8_t bytes = 4;          // per lane
  bool store = false;
  uint32_t sectors = 0;       // distinct 32-byte sectors touched
  uint64_t first_addr = 0;    // lowest address touched
  std::array<uint32_t, 32> offset{};  // lane l's address - first_addr (lanes in mask), or kFar
};

struct TmaTransfer {
  uint32_t param = 0;         // the tensor-map parameter
  std::array<int32_t, 5> coords{};
  uint32_t rank = 2;
  uint32_t smem_dst = 0;      // shared byte address
  uint32_t bytes = 0;
  uint8_t swizzle = 0;        // layout::Swizzle
  bool store = false;
  uint32_t mbar = 0;          // shared address of the barrier completed (loads)
  uint64_t issue_cycle = 0;
  uint64_t complete_cycle = 0;
  uint8_t cta = 0;            // the issuing CTA's rank in its cluster (Trace::ctas)
  uint16_t cta_mask = 1;      // the ranks whose shared memory it writes (a multicast: several)
};

// An mbarrier's phase state, the one record of it: the model's live barrier (machine.hpp's
// Mbarrier), each traced barrier event (MbarEvent) and the views' playback of a barrier
// (gui/core/playback.hpp, tma_pipeline_data.hpp) are this plus what each adds.
struct MbarrierPhase {
  uint32_t phase = 0;             // completed phases; the current phase's parity is phase & 1
  uint32_t expected = 0;          // arrivals per phase
  uint32_t pending_arrivals = 0;  // arrivals still missing in the current phase
  int64_t tx_count = 0;           // transaction bytes still expected in the current phase
};

// A barrier's state right after an event on it.
struct MbarEvent : MbarrierPhase {
  uint32_t addr = 0;          // shared byte address of the barrier
  uint32_t value = 0;         // arrivals / bytes this event added or removed; waited parity
};

// One batch of the tensor core's shared-memory reads through a descriptor, as the model
// performed them (tensor_reads.cpp, after the op traits' CoreMatrixRead): 32 lanes of 16 bytes,
// each lane one row of one core matrix, with the operand row and K chunk it read.
struct TensorRead {
  uint32_t smem = kNone;             // addresses, banks and wavefronts (Trace::smem)
  ir::Op op = ir::Op::wgmma_mma_async;  // the instruction: its traits describe the descriptor
  char operand = 'A';
  uint64_t desc = 0;                 // the raw descriptor
  uint8_t swizzle = 0;               // layout::Swizzle the descriptor places with
  bool k_major = true;
  std::array<uint16_t, 32> row{};    // each lane's operand row (lanes in the SmemAccess mask)
  std::array<uint8_t, 32> chunk{};   // each lane's 16-byte K chunk
};

// A wgmma (per warp of its warpgroup).
struct MmaOp {
  uint32_t m = 64, n = 0, k = 16;
  uint64_t a_desc = 0, b_desc = 0;  // raw descriptors (decode with layout::)
  // The tensor core's first batch of shared-memory reads of A and of B for this warp's part of
  // the first k16 slice (A: this warp's 16 rows, B: its first 16), indices into
  // Trace::tensor_reads; kNone where the descriptor could not be followed.
  uint32_t a_read = kNone, b_read = kNone;
  bool a_k_major = true, b_k_major = true;
  bool scale_d = true;
  uint32_t group = 0;         // the wgmma-group it was committed in
  uint64_t issue_cycle = 0, complete_cycle = 0;
};

// A tensor-memory operation (tcgen05, facts §9): what the tensor-memory view draws. The model
// records one per CTA whose TMEM the op touches, its event stamped with that CTA's rank: a
// cta_group::2 MMA issued in rank 0 is one record for rank 0's lanes and one for rank 1's.
// release: a warp's first release (an mbarrier arrive or bar.sync) after its tcgen05.ld of the
// columns: from then on a warp that acquires it may overwrite them (one record per release).
enum class TmemOpKind : uint8_t { alloc, dealloc, relinquish, mma, commit, load, store, release };
const char* tmem_op_kind_name(TmemOpKind k);  // "alloc", "mma", "commit", "load", ...

inline constexpr uint8_t kNoQuarter = 0xFF;

struct TmemOp {
  TmemOpKind kind = TmemOpKind::alloc;
  uint32_t lane = 0, column = 0;    // the first lane and column touched (a TMEM address's halves)
  uint32_t lanes = 0, columns = 0;  // extent: alloc/dealloc 128 x ncols, mma this CTA's M rows x N,
                                    // ld/st 32 x the columns one thread moves, release the warp's
                                    // lanes x the columns from its first to its last read since
                                    // its previous release; 0 for relinquish/commit
  uint8_t cta_group = 1;
  uint16_t cta_mask = 0;            // commit: the ranks whose barrier receives the arrive (bit r)
  uint32_t mbar = 0;                // commit: the barrier's shared address
  uint32_t mma = kNone;             // mma: its MmaOp in Trace::mma where the model keeps one
  uint32_t a_read = kNone, b_read = kNone;  // mma, in the issuing CTA: the tensor core's first
                                    // batch of reads of A and B (Trace::tensor_reads)
  uint8_t quarter = kNoQuarter;     // ld/st: the lane quarter the op traits' rule gives the warp
  bool outside_quarter = false;     // ld/st: it touched lanes outside that quarter
  bool overwrite = false;           // mma: enable_input_d was false (D = A·B starts an accumulator)
  uint64_t issue_cycle = 0;
  uint64_t complete_cycle = 0;      // mma: the tensor core is done; commit: the arrive landed;
                                    // alloc/ld/st/dealloc: the issue cycle (they are synchronous)
};

// One mma.sync of the traced CTA on its warp's sub-partition tensor core: issued at
// issue_cycle (once that tensor core was free), its result ready at complete_cycle. The
// Timeline's tensor lane merges these with the wgmma and tcgen05.mma stretches.
struct MmaSyncOp {
  uint32_t inst = kNone;
  uint16_t warp = 0;  // trace warp
  uint64_t issue_cycle = 0, complete_cycle = 0;
};

// Passes of a declared loop that a warp of a traced CTA run alone did not run (model
// fast_forward.hpp): the loop went from pass `first` (0-based) on to pass first + count, and
// the warp's clock moved on by `cycles`, the time of as many passes as the ones before.
struct FastForward {
  uint32_t label = kNone;     // the loop's head (Kernel::labels)
  bool k_loop = false;        // a loop over K (its passes are K iterations)
  uint32_t first = 0, count = 0, passes = 0;  // skipped first..first+count-1 of `passes`
  uint16_t warp = 0;          // trace warp
  uint64_t cycle = 0, cycles = 0;
};

// A register write: the values of the lanes that wrote, and only those (a write by one
// elected lane stores one value, not 32). Read them with Trace::reg_value.
struct RegWrite {
  // How Trace::values holds them, from value_offset on:
  //   packed: popcount(mask) lanes × words, in lane order;
  //   affine (whole-warp writes only): two values of `words` words each, base then step; lane
  //     l wrote base + step × l, modulo 2^(32 × words). A uniform write has step 0.
  // Most whole-warp writes of a SIMT kernel are affine (loop counters, predicates and
  // addresses: 78% of the words simt_naive writes), and storing them as two values instead
  // of 32 makes a traced run write a third of the bytes.
  enum class Encoding : uint8_t { packed, affine };
  uint32_t reg = 0;           // register id
  uint32_t value_offset = 0;  // index into Trace::values
  uint8_t words = 1;          // 32-bit words per value: 1, or 2 for 64-bit registers (low word first)
  Encoding encoding = Encoding::packed;
  uint32_t mask = 0;          // the lanes written (the reg_write event's mask)
};

// One element of C written by the traced CTA, as the model saw the store: which thread and
// register wrote it. The fragments view builds the output tile's map from these, for any
// kernel. reg is kNone for bytes a TMA store copied from shared memory.
struct CWrite {
  uint64_t byte_offset = 0;  // into C (row-major): the view divides by C's element size
  uint8_t bytes = 0;
  uint32_t reg = kNone;
  uint32_t inst = kNone;
  uint16_t warp = 0;         // trace warp
  uint8_t lane = 0;
  uint64_t cycle = 0;
};

// What went wrong (hazards.def): the model reports each kind with a detail sentence.
enum class HazardKind : uint8_t {
#define HAZARD(id, name, meaning) id,
#include "engine/model/hazards.def"
#undef HAZARD
  count_,
};
std::string_view hazard_kind_name(HazardKind k);     // "tma-race"
std::string_view hazard_kind_meaning(HazardKind k);  // a learner's sentence
std::optional<HazardKind> find_hazard_kind(std::string_view name);

struct Hazard {
  HazardKind kind = HazardKind::unsupported;
  uint32_t inst = kNone;
  uint32_t warp = kNone;     // in its CTA
  uint32_t lane = kNone;
  uint64_t address = 0;
  uint64_t cycle = 0;
  std::string detail;   // one sentence a learner can act on
};

class Trace {
 public:
  Table<Event> events;
  Table<SmemAccess> smem;
  Table<GlobalAccess> global;
  Table<TmaTransfer> tma;
  Table<MbarEvent> mbar;
  Table<MmaOp> mma;            // wgmma
  Table<MmaSyncOp> mma_sync;   // mma.sync (Ampere steps)
  Table<RegWrite> regs;
  Table<uint32_t> values;
  Table<CWrite> c_writes;  // in store order
  Table<TmemOp> tmem;      // tensor-memory operations, in issue order
  Table<TensorRead> tensor_reads;  // tensor-core shared-memory reads (MmaOp, TmemOp a_read/b_read)
  Table<FastForward> fast_forwards;  // passes skipped (a traced CTA run alone), in order
  std::vector<Hazard> hazards;
  uint32_t traced_cta = 0;     // linear id of the CTA the run was asked to trace
  std::vector<TracedCta> ctas; // every CTA traced (its cluster), by rank
  uint32_t warps_per_cta = 0;
  uint32_t warps = 0;          // trace warps: warps_per_cta × ctas.size()
  uint64_t end_cycle = 0;

  // The value lane `lane` wrote in a register write (0 for a lane not in w.mask).
  uint64_t reg_value(const RegWrite& w, uint32_t lane) const;

  // Index built once after recording (Trace::finalize) for fast search.
  void finalize();
  // Events of a kind, in order (indices into events).
  const Table<uint32_t>& of_kind(EventKind k) const { return by_kind_[size_t(k)]; }
  // Warp-instruction events of one instruction id, in order.
  const Table<uint32_t>& executions_of(uint32_t inst) const;

 private:
  std::array<Table<uint32_t>, size_t(EventKind::count_)> by_kind_;
  std::vector<Table<uint32_t>> by_inst_;
  Table<uint32_t> empty_;
};

// The model writes through this; the null sink (fast mode) records nothing.
class TraceSink {
 public:
  explicit TraceSink(Trace* trace) : trace_(trace) {}
  bool enabled() const { return trace_ != nullptr; }
  Trace* trace() const { return trace_; }

 private:
  Trace* trace_;
};

// A playback position over a finished trace: an index into events. Everything a view shows
// is derived from (trace, position).
class Cursor {
 public:
  explicit Cursor(const Trace& t) : t_(&t) {}
  uint32_t position() const { return pos_; }
  const Event* current() const { return pos_ < t_->events.size() ? &t_->events[pos_] : nullptr; }
  bool at_end() const { return pos_ + 1 >= t_->events.size(); }
  void seek(uint32_t event_index);
  // Step to the next / previous warp_inst event (optionally of one warp).
  bool step_forward(std::optional<uint16_t> warp = std::nullopt);
  bool step_backward(std::optional<uint16_t> warp = std::nullopt);
  // Next / previous event of a kind after / before the position.
  bool next_of_kind(EventKind k);
  bool prev_of_kind(EventKind k);
  // Next / previous execution of an instruction id.
  bool next_execution(uint32_t inst);
  bool prev_execution(uint32_t inst);
  // The first event at or after a cycle.
  void jump_to_cycle(uint64_t cycle);
  uint64_t cycle() const { return current() ? current()->cycle : 0; }

 private:
  const Trace* t_;
  uint32_t pos_ = 0;
};

}  // namespace gs::model
