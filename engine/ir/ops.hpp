// The op enum and its table, generated from ops.def (the single source of truth: PTX
// spelling, operand syntax and signature, the GUI's family, the model's exec function,
// targets, PTX version, a summary for learners). What an op is on the hardware (thread scope,
// fragment maps, read patterns) is in the op traits, engine/layout/op_traits.def.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "engine/ir/types.hpp"

namespace gs::ir {

// How an instruction's operands are laid out in PTX text.
enum class Syntax : uint8_t {
  none,          // no operands:                      wgmma.fence.sync.aligned;
  plain,         // comma-separated operands:         add.u32 %a, %b, 1;
  vec_dst,       // {d0..dN}, [addr] when vec > 1:    ld.shared.v4.b32 {..}, [%a];
  vec_src,       // [addr], {s0..sN} when vec > 1:    st.global.v2.f32 [%p], {..};
  label,         // NAME:
  tensor_load,   // [dst], [tmap, {c0..}], [mbar] (, mask)
  tensor_store,  // [tmap, {c0..}], [src]
  wgmma,         // {d0..d(N/2-1)}, a_desc, b_desc, scale_d, imm_scale_a, imm_scale_b, trans_a, trans_b
  mma_sync,      // {d0..d3}, {a0..a3}, {b0, b1}, {c0..c3}
  ldmatrix,      // {d0..d(n-1)}, [addr]
  stmatrix,      // [addr], {s0..s(n-1)}
  tcgen05_ld,    // {r0..r(n-1)}, [taddr]
};

// Operand signatures (signatures.def; accessors and field tables in signature.hpp).
enum class Signature : uint8_t {
#define SIG_BEGIN(name) name,
#define FIELD(role, kind, type, count)
#define SIG_END(name)
#include "engine/ir/signatures.def"
#undef SIG_BEGIN
#undef FIELD
#undef SIG_END
  count_,
};

// How the GUI groups and colours an op. The model does not dispatch by family: ops.def's exec
// column names the function that runs each op (engine/model/decode.cpp).
enum class Family : uint8_t {
  alu, convert, memory, control, barrier, fence, mbarrier, tma, wgmma, mma, ldmatrix,
  cp_async, cluster, misc, tcgen05,
};
std::string_view family_name(Family f);

enum OpFlags : uint16_t {
  F_TYPED = 1 << 0,   // ".type" suffix from Inst::type
  F_CMP = 1 << 1,     // ".cmp" from Inst::cmp (setp)
  F_RND = 1 << 2,     // ".rnd" from Inst::rounding when set
  F_VEC = 1 << 3,     // ".vN" from Inst::vec when > 1
  F_TYPE2 = 1 << 4,   // second type suffix from Inst::type2 (cvt.dst.src)
  F_BRANCH = 1 << 5,  // transfers control to a label
  F_SYNC = 1 << 6,    // warp- or warpgroup-collective (.sync.aligned or bar)
  // ".L2::cache_hint" when the signature's last field, an optional b64 cache policy (from
  // createpolicy), is present: PTX's {.level::cache_hint} ... {, cache-policy} form of the op
  F_CACHE_HINT = 1 << 7,
};

enum class Op : uint16_t {
#define OP(id, spelling, syntax, signature, family, exec, archs, min_ptx, flags, summary) id,
#include "engine/ir/ops.def"
#undef OP
  count_,
};

struct OpInfo {
  Op op;
  std::string_view id;        // enum name as text, e.g. "mbarrier_try_wait_parity"
  std::string_view spelling;  // PTX stem; "{n}" is filled from Inst::aux
  Syntax syntax;
  Signature signature;
  Family family;
  bool modelled;              // false for the not_modelled rows: the CPU model cannot run it
  ArchMask archs;
  uint32_t min_ptx;  // PTX ISA version times ten
  uint16_t flags;
  std::string_view summary;
};

const OpInfo& op_info(Op op);
std::span<const OpInfo> all_ops();
std::optional<Op> find_op(std::string_view id);

}  // namespace gs::ir
