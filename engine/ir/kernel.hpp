// The kernel as data: parameters, typed virtual registers with debug names, shared-memory
// allocations, labels, launch shape and one flat list of instructions.
//
// The builder records it, verify() checks it, the PTX printer prints it and the CPU model
// runs it. An ir::Kernel is immutable once built; back ends only read it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/ir/ops.hpp"
#include "engine/ir/types.hpp"
#include "engine/layout/swizzle.hpp"

namespace gs::ir {

using RegId = uint32_t;
using LabelId = uint32_t;
using SmemId = uint32_t;
using ParamId = uint32_t;

enum class OperandKind : uint8_t {
  reg,        // %name
  imm,        // integer immediate
  fimm,       // floating immediate (printed as 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX)
  special,    // %tid.x ...
  smem_sym,   // the shared address of an allocation (+ offset) as a value: gs_smem+1024
  param_sym,  // a kernel parameter's name as a value (its address, for cvta.param)
  mem_reg,    // [%r + offset]
  mem_smem,   // [gs_smem + alloc offset + offset]
  mem_param,  // [param]
  label,      // a branch target
  sink,       // "_": a discarded result
};

struct Operand {
  OperandKind kind = OperandKind::imm;
  uint32_t id = kNone;  // register, special, allocation, parameter or label
  int64_t imm = 0;      // immediate, or the byte offset of a memory/address operand
  double fimm = 0.0;

  static Operand reg(RegId r) { return {OperandKind::reg, r, 0, 0.0}; }
  static Operand integer(int64_t v) { return {OperandKind::imm, kNone, v, 0.0}; }
  static Operand floating(double v) { return {OperandKind::fimm, kNone, 0, v}; }
  static Operand special(Special s) { return {OperandKind::special, uint32_t(s), 0, 0.0}; }
  static Operand smem_address(SmemId a, int64_t off = 0) { return {OperandKind::smem_sym, a, off, 0.0}; }
  static Operand param_address(ParamId p) { return {OperandKind::param_sym, p, 0, 0.0}; }
  static Operand mem(RegId base, int64_t off = 0) { return {OperandKind::mem_reg, base, off, 0.0}; }
  static Operand mem_smem(SmemId a, int64_t off = 0) { return {OperandKind::mem_smem, a, off, 0.0}; }
  static Operand mem_param(ParamId p) { return {OperandKind::mem_param, p, 0, 0.0}; }
  static Operand label(LabelId l) { return {OperandKind::label, l, 0, 0.0}; }
  static Operand sink() { return {OperandKind::sink, kNone, 0, 0.0}; }

  bool is_reg() const { return kind == OperandKind::reg; }
  bool is_memory() const {
    return kind == OperandKind::mem_reg || kind == OperandKind::mem_smem || kind == OperandKind::mem_param;
  }
};

// Where the kernel's C++ recorded an instruction (the builder fills it from
// std::source_location): an index into Kernel::source_files and a 1-based line. Kept to two
// numbers so an Inst stays small; file == kNone when unknown (an Inst made by hand).
struct SourceLoc {
  uint32_t file = kNone;
  uint32_t line = 0;
  bool known() const { return file != kNone && line > 0; }
  friend bool operator==(const SourceLoc&, const SourceLoc&) = default;
};

struct Inst {
  Op op = Op::mov;
  Type type = Type::none;    // the ".type" suffix
  Type type2 = Type::none;   // second suffix (cvt source type)
  CmpOp cmp = CmpOp::none;   // setp
  Rounding rounding = Rounding::none;
  uint8_t vec = 1;           // .v2 / .v4 for ld/st
  uint8_t ndst = 0;          // the first ndst operands are written, the rest read
  uint32_t aux = 0;          // op-specific count: wgmma N, tensor rank, ldmatrix .xN
  RegId guard = kNone;       // @p / @!p predicate register, kNone when unguarded
  bool guard_negated = false;
  std::vector<Operand> operands;
  std::string comment;       // printed after the instruction; shown by the GUI
  SourceLoc src;             // the kernel source line that recorded it

  const OpInfo& info() const { return op_info(op); }
};

struct RegInfo {
  Type type;         // a register type (see register_type())
  std::string name;  // debug name chosen by the kernel author, e.g. "row_off"
};

enum class ParamKind : uint8_t { u32, u64, s32, f32, global_ptr, tensor_map };

// Which GEMM operand a parameter carries, so the runner and the model can bind buffers.
// timeline: the record buffer an instrumented kernel writes (engine/ir/instrument.hpp).
enum class ParamRole : uint8_t { none, a, b, c, m, n, k, tmap_a, tmap_b, tmap_c, timeline };
std::string_view param_role_name(ParamRole r);

// Element types a tensor map can describe (CUtensorMapDataType numbers, facts §4).
enum class TensorDtype : uint8_t { u8 = 0, u16 = 1, u32 = 2, s32 = 3, u64 = 4, s64 = 5, f16 = 6, f32 = 7, f64 = 8, bf16 = 9 };
uint32_t tensor_dtype_bytes(TensorDtype t);

// Everything cuTensorMapEncodeTiled takes except the global address, which is bound at
// launch to the buffer of `source` (facts §4). The model and the GPU runner both build
// their tensor map from this one description.
struct TensorMapDesc {
  ParamRole source = ParamRole::none;  // a, b or c
  TensorDtype dtype = TensorDtype::bf16;
  uint32_t rank = 2;
  std::array<uint64_t, 5> global_dim{1, 1, 1, 1, 1};           // elements, dim 0 innermost
  std::array<uint64_t, 4> global_strides_bytes{0, 0, 0, 0};    // dims 1..rank-1
  std::array<uint32_t, 5> box_dim{1, 1, 1, 1, 1};
  std::array<uint32_t, 5> element_strides{1, 1, 1, 1, 1};
  layout::Swizzle swizzle = layout::Swizzle::none;
  uint32_t interleave = 0;    // CU_TENSOR_MAP_INTERLEAVE_NONE
  uint32_t l2_promotion = 0;  // CU_TENSOR_MAP_L2_PROMOTION_NONE
  uint32_t oob_fill = 0;      // CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE: zeros
  uint32_t box_bytes() const;
};

// A row-major rows × cols bf16 matrix as a 2-D tensor (dim 0 = cols, contiguous), read in
// boxes of box_cols × box_rows: the map every GEMM operand and probe table here uses.
TensorMapDesc row_major_bf16_map(ParamRole source, uint32_t cols, uint32_t rows, uint32_t box_cols, uint32_t box_rows,
                                 layout::Swizzle swizzle);

struct Param {
  std::string name;
  ParamKind kind = ParamKind::u32;
  ParamRole role = ParamRole::none;
  TensorMapDesc tensor_map;  // meaningful when kind == tensor_map
};

// What a shared-memory allocation holds: the GUI's allocation map colours by it.
enum class SmemUse : uint8_t { tile, mbarrier, staging, other };

// Facts a kernel declares about its shared memory, so that views read them instead of
// guessing from names (Builder::operand_stages, Builder::mbarriers):
//   which GEMM operand a tile allocation holds, and in how many equal stages;
//   what an mbarrier array is for: `full` completes when a stage's data has landed, `empty`
//   when its consumers have released it; barrier i of an array belongs to stage i.
enum class GemmOperand : uint8_t { none, a, b, c };
std::string_view gemm_operand_name(GemmOperand o);
enum class BarrierRole : uint8_t { none, full, empty, other };
std::string_view barrier_role_name(BarrierRole r);

struct SharedAlloc {
  std::string name;
  uint32_t bytes = 0;
  uint32_t align = 16;
  uint32_t offset = 0;  // from the start of the kernel's shared window (gs_smem)
  SmemUse use = SmemUse::other;
  layout::Swizzle swizzle = layout::Swizzle::none;  // for tiles written/read swizzled
  GemmOperand operand = GemmOperand::none;  // tiles: the operand whose stages these are
  BarrierRole barrier_role = BarrierRole::none;  // mbarrier arrays: what they signal
  uint32_t stages = 1;  // equal slices: tile stage i, or barrier i (8 bytes each)
  uint32_t stage_bytes() const { return stages ? bytes / stages : bytes; }
};

// What a warp does in a part of the kernel, as its author declares it (Builder::role): the
// model reports a warp entering a region (EventKind::role_enter) and the views show it; code
// outside every region keeps the role the warp last entered.
enum class WarpRole : uint8_t { none, simt, producer, consumer, mma_issuer, epilogue };
std::string_view warp_role_name(WarpRole r);  // "producer", ...
// Instructions [begin, end) are in the region; regions nest, the innermost one counts.
struct RoleRegion {
  WarpRole role = WarpRole::none;
  uint32_t begin = 0, end = 0;
};

struct LabelInfo {
  std::string name;
  // The head of a loop over K that the kernel declared (Builder::k_loop): one pass is one K
  // iteration (a K block, or a chunk of K), which the app steps and counts by.
  bool k_loop = false;
};

struct LaunchShape {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  std::array<uint32_t, 3> cluster{1, 1, 1};  // printed as .reqnctapercluster when not 1x1x1
  uint32_t threads() const { return block[0] * block[1] * block[2]; }
  uint64_t ctas() const { return uint64_t(grid[0]) * grid[1] * grid[2]; }
};

// The name of the one shared array every allocation lives in. Offsets inside it are ours
// (SharedAlloc::offset), so the model places every byte exactly where the GPU does.
inline constexpr std::string_view kSmemSymbol = "gs_smem";

// How the kernel's C (row-major) divides into the output tiles its CTAs compute, as the kernel
// declares it (kernels::build_kernel fills it from KernelInfo::tile and the shape), so that the
// model can record which CTA wrote which tile, in what order (model::CSchedule), for any
// kernel, persistent ones included. rows == 0: not declared, nothing is recorded.
struct OutputTiling {
  uint32_t rows = 0, cols = 0;            // C's shape in elements
  uint32_t elem_bytes = 4;
  uint32_t tile_rows = 0, tile_cols = 0;  // a CTA's tile (the last row/column of tiles may be partial)
  // A persistent kernel's walk as it declares it (Builder::declare_tile_walk): the row-major tile
  // indices in the order its CTAs take them, round by round (round i: each CTA's i-th tile, in
  // CTA order; a CTA whose tile lies outside C takes none). Empty: one tile per CTA in launch
  // order, or not declared. The prediction reads it when only the traced CTA ran.
  std::vector<uint32_t> walk;
  bool declared() const { return rows && cols && elem_bytes && tile_rows && tile_cols; }
  uint32_t tiles_m() const { return tile_rows ? (rows + tile_rows - 1) / tile_rows : 0; }
  uint32_t tiles_n() const { return tile_cols ? (cols + tile_cols - 1) / tile_cols : 0; }
  // The tile (row-major index) holding byte `offset` of C; kNone outside C.
  uint32_t tile_of(uint64_t offset) const {
    const uint64_t e = offset / elem_bytes;
    if (e >= uint64_t(rows) * cols) return kNone;
    return uint32_t(e / cols / tile_rows * tiles_n() + e % cols / tile_cols);
  }
};

struct Kernel {
  std::string name;
  Arch target = Arch::sm_90a;
  std::vector<Param> params;
  std::vector<RegInfo> regs;
  std::vector<SharedAlloc> smem;
  bool dynamic_smem = false;  // gs_smem is `.extern .shared` and sized at launch
  uint32_t smem_align = 16;   // alignment of gs_smem: the largest allocation alignment
  std::vector<LabelInfo> labels;
  std::vector<Inst> insts;
  // The files Inst::src indexes, relative to the source tree ("kernels/hopper_parts.cpp").
  std::vector<std::string> source_files;
  LaunchShape launch;
  uint32_t min_ctas_per_sm = 0;  // .minnctapersm when > 0 (with .maxntid fixes the register budget)
  uint32_t max_regs = 0;         // .maxnreg when > 0

  std::vector<RoleRegion> roles;  // in the order they were opened (outer before inner)
  OutputTiling output;            // C's tiles (not printed: a fact for the model and the views)

  uint32_t smem_bytes() const;  // end of the last allocation
  const Param* find_param(ParamRole role) const;
  // The declared role of instruction `inst`: the innermost region holding it (none outside).
  WarpRole role_at(uint32_t inst) const;
  // The file of Inst::src ("" when unknown).
  std::string_view source_file(const SourceLoc& loc) const;
};

}  // namespace gs::ir
