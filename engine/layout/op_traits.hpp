// The op traits (op_traits.def): what an instruction is on the hardware, keyed by ir::Op, in
// the spirit of CuTe's MMA/Copy traits — its thread scope, how each operand is spread over
// threads (a FragmentMap with its labels and the fact it rests on), how a descriptor op's
// tensor core reads shared memory, and which tensor-memory lanes a tcgen05 op may touch.
//
// The model applies these (exec_*, tensor_reads.cpp) and records what it derived; the views
// read the records and list the maps; the probes compare the GPU with the same tables. Nothing
// outside engine/ does arithmetic on lanes, quarters or core matrices.
//
//   op_traits(op).scope                 ThreadScope
//   fragment_maps()                     every operand map, in table order
//   op_traits(op).maps                  the maps of one op
//   op_traits(op).smem_read             CoreMatrixRead pattern of a descriptor op, or null
//   op_traits(op).tmem_access           TmemAccessRule of a tcgen05 ld/st, or null
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/ir/ops.hpp"
#include "engine/layout/fragments.hpp"

namespace gs::layout {

enum class ThreadScope : uint8_t { thread, warp, warpgroup, cta, cta_pair, cluster };
std::string_view thread_scope_name(ThreadScope s);  // "thread", "warpgroup", "CTA pair", ...

// How a fact is established: a probe runs the instruction on a GPU and compares every element
// with the table (`gemmscope probe <fact>`); a citation is read (PTX ISA, CUTLASS, the facts
// sheet) and not run here.
enum class FactBasis : uint8_t { probe, citation };

// The one integer a map takes (wgmma's N, ldmatrix's .xN, tcgen05.ld's .xN): min..max in steps
// of `step`, or doubling from min when `doubling`.
struct MapParam {
  std::string_view name;  // "" when the map takes none
  int min = 0, max = 0, step = 1;
  bool doubling = false;
  int default_value = 0;
  std::string_view hint;  // "the wgmma's N: 8 to 256 in steps of 8"

  bool takes_param() const { return !name.empty(); }
  bool valid(int v) const;
  std::vector<int> values() const;  // every valid value, ascending ({0} for none)
  int nearest(int v) const;         // the valid value closest to v (ties: the lower)
};

// One operand's fragment map: (thread, value) -> (row, col).
struct OperandMap {
  std::string_view id;       // "wgmma_acc"
  ir::Op op;                 // the instruction it belongs to
  std::string_view operand;  // "D", "A", "B", "C/D", "dst"
  std::string_view title;    // "wgmma accumulator (m64nNk16 D)"
  std::string_view row_label, col_label;
  bool packed16 = false;     // two 16-bit values per b32 register
  std::string_view citation;  // where it is written down ("facts §2 (PTX ISA ...)")
  std::string_view probe;     // the `gemmscope probe` group that checks it on a GPU, "" for none
  MapParam param;
  FragmentMap (*make)(int param) = nullptr;

  // Tabulates the map; throws std::invalid_argument naming the value and the valid ones when
  // param is not one of param.values().
  FragmentMap build(int param) const;
  FactBasis basis() const { return probe.empty() ? FactBasis::citation : FactBasis::probe; }
  // The b32 register and half (-1 for 32-bit values) of value v.
  int register_of(int value) const { return packed16 ? value / 2 : value; }
  int half_of(int value) const { return packed16 ? value % 2 : -1; }
};

// Which warp of a map's threads a thread is in, and its lane: fragment maps number threads
// warp-major (thread = 32 * warp + lane), as the PTX ISA's fragment figures do.
inline constexpr int kWarpLanes = 32;
inline int warp_of_thread(int thread) { return thread / kWarpLanes; }
inline int lane_of_thread(int thread) { return thread % kWarpLanes; }

// A descriptor op's shared-memory read pattern (facts §1.4, tensor_reads.cpp): the tensor core
// reads an operand in batches of 32 sixteen-byte core-matrix rows, in ldmatrix .x4 lane order:
//   lane 8g + r -> core matrix g, row r: batch row 8(g%2) + r, K chunk g/2 (16 bytes each)
// A batch covers 16 rows x 32 bytes of K (two chunks). Which rows a warp's first batch starts
// at depends on the split.
struct CoreMatrixRead {
  enum class Split : uint8_t { per_warp_quarter, whole_tile } split;
  std::string_view issuer;                 // "wgmma", "tcgen05.mma": what reads, for the views
  std::string (*describe)(uint64_t bits);  // the descriptor in one line
  static constexpr uint32_t kLanes = 32, kRowsPerBatch = 16, kChunkBytes = 16;

  static uint32_t row_of_lane(uint32_t lane);    // within the batch, 0..15
  static uint32_t chunk_of_lane(uint32_t lane);  // 16-byte K chunk, 0..1
  // The first row of A and of B the issuing warp reads (per_warp_quarter: A 16q, B qN/4 with
  // q = warp % 4, of an m64nNk16; whole_tile: row 0) and how many rows it reads.
  uint32_t a_first_row(uint32_t warp) const;
  uint32_t b_first_row(uint32_t warp, uint32_t n) const;
  uint32_t a_rows(uint32_t m) const;
  uint32_t b_rows(uint32_t n) const;
};

// A tcgen05 op's tensor-memory access rule (facts §9.3, unconfirmed on hardware): warp w of a
// CTA may touch TMEM lanes 32*(w%4) .. 32*(w%4)+31 only.
struct TmemAccessRule {
  enum class Rule : uint8_t { warp_lane_quarter } rule;
  static constexpr uint32_t kQuarterLanes = 32, kQuarters = 4;

  static uint32_t quarter_of_warp(uint32_t warp_in_cta);  // 0..3
  static uint32_t first_lane(uint32_t warp_in_cta);       // 32 * quarter
  static uint32_t quarter_of_lane(uint32_t lane);         // the quarter a TMEM lane is in
  static uint32_t quarter_first_lane(uint32_t quarter);   // its first lane
  // The quarters lanes [lane, lane + lanes) touch: [first, end), end <= kQuarters.
  static std::pair<uint32_t, uint32_t> quarters_touched(uint32_t lane, uint32_t lanes);
  // Whether lanes [lane, lane + lanes) lie in the warp's quarter.
  static bool allows(uint32_t warp_in_cta, uint32_t lane, uint32_t lanes);
};

// The latency class of an arithmetic op's result (op_traits.def, LATENCY rows): which figure
// of the machine description its dependants wait for. arith and mul depend on the type.
enum class LatencyClass : uint8_t { none, alu, fma, imad, sfu, arith, mul, convert };

struct OpTraits {
  ir::Op op;
  ThreadScope scope = ThreadScope::thread;
  std::span<const OperandMap> maps;             // empty when the op has none
  const CoreMatrixRead* smem_read = nullptr;    // descriptor ops only
  const TmemAccessRule* tmem_access = nullptr;  // tcgen05 ld/st only
  LatencyClass latency = LatencyClass::none;    // arithmetic ops only
};

const OpTraits& op_traits(ir::Op op);
std::span<const OperandMap> fragment_maps();
const OperandMap* find_fragment_map(std::string_view id);  // nullptr when unknown
std::string_view fact_basis_name(FactBasis b);             // "probe", "citation"

}  // namespace gs::layout
