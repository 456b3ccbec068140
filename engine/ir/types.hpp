// Scalar types, targets, special registers and small modifier enums of the kernel IR.
//
// These are the vocabulary shared by the op table, the builder, the PTX printer, the CPU
// model and the GUI. Everything here is plain data with name tables; nothing prints PTX.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gs::ir {

// The two meanings of 0xFFFFFFFF across the project, named once: "none" in an id or index
// field (an instruction, register, payload, label), and a warp's 32 lanes as a mask.
inline constexpr uint32_t kNone = 0xFFFFFFFFu;
inline constexpr uint32_t kAllLanes = 0xFFFFFFFFu;

// PTX fundamental types as they appear in instruction suffixes (.u32, .bf16, ...).
enum class Type : uint8_t {
  none,
  pred,
  b8, b16, b32, b64,
  u8, u16, u32, u64,
  s8, s16, s32, s64,
  f16, bf16, f16x2, bf16x2, f32, f64,
  // 128 bits: only the 16-byte clusterlaunchcontrol response (ld.shared.b128, query_cancel);
  // the model keeps its high half beside the register file (machine.hpp, Cta::regs_hi).
  b128,
};

enum class TypeClass : uint8_t { none, pred, bits, unsigned_int, signed_int, floating };

std::string_view type_name(Type t);   // "u32", "bf16", ...
TypeClass type_class(Type t);
uint32_t type_bits(Type t);           // 0 for none, 1 for pred
// The register type a value of this type lives in: bf16 -> b16, bf16x2 -> b32, f16 -> b16 ...
Type register_type(Type t);
// PTX operand-type compatibility ("relaxed" rules of the ISA's operand type checking): an
// instruction of type T accepts registers of the same size whose class is T's class or bits;
// .bN instructions accept any N-bit register.
bool register_fits(Type reg, Type inst);

// Compile targets. The 'a' targets are arch-specific: sm_90a code runs only on sm_90 parts.
enum class Arch : uint8_t { sm_80, sm_90, sm_90a, sm_100a };
std::string_view arch_name(Arch a);
std::optional<Arch> parse_arch(std::string_view s);
// The lowest PTX ISA version ptxas accepts for the target (.version line), times 10: 8.0 -> 80.
uint32_t arch_min_ptx(Arch a);
using ArchMask = uint8_t;
constexpr ArchMask arch_bit(Arch a) { return ArchMask(1u << uint8_t(a)); }
constexpr ArchMask kAllArchs = 0x0F;
constexpr ArchMask kSm90Up = arch_bit(Arch::sm_90) | arch_bit(Arch::sm_90a) | arch_bit(Arch::sm_100a);
constexpr ArchMask kSm90aOnly = arch_bit(Arch::sm_90a);
constexpr ArchMask kSm100aOnly = arch_bit(Arch::sm_100a);

// Special registers read with mov (%tid.x, %laneid, ...).
enum class Special : uint8_t {
  tid_x, tid_y, tid_z,
  ntid_x, ntid_y, ntid_z,
  ctaid_x, ctaid_y, ctaid_z,
  nctaid_x, nctaid_y, nctaid_z,
  laneid, warpid, smid,
  clock, clock64,
  cluster_ctarank, cluster_nctarank,
  cluster_ctaid_x, cluster_ctaid_y, cluster_ctaid_z,
  clusterid_x, clusterid_y, clusterid_z,
  dynamic_smem_size,
  globaltimer,  // nanoseconds, one clock for every SM (the timeline's cross-SM time)
  count_,
};
std::string_view special_name(Special s);  // "%tid.x"
Type special_type(Special s);              // u32, or u64 for clock64 and globaltimer
ArchMask special_archs(Special s);

enum class CmpOp : uint8_t { none, eq, ne, lt, le, gt, ge };
std::string_view cmp_name(CmpOp c);

enum class Rounding : uint8_t { none, rn, rz, rm, rp, rni, rzi, rmi, rpi };
std::string_view rounding_name(Rounding r);

}  // namespace gs::ir
