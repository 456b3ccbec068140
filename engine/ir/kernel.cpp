#include "engine/ir/kernel.hpp"

#include <algorithm>

namespace gs::ir {

std::string_view param_role_name(ParamRole r) {
  switch (r) {
    case ParamRole::none: return "none";
    case ParamRole::a: return "A";
    case ParamRole::b: return "B";
    case ParamRole::c: return "C";
    case ParamRole::m: return "M";
    case ParamRole::n: return "N";
    case ParamRole::k: return "K";
    case ParamRole::tmap_a: return "tensor map of A";
    case ParamRole::tmap_b: return "tensor map of B";
    case ParamRole::tmap_c: return "tensor map of C";
    case ParamRole::timeline: return "timeline buffer";
  }
  return "?";
}

uint32_t tensor_dtype_bytes(TensorDtype t) {
  switch (t) {
    case TensorDtype::u8: return 1;
    case TensorDtype::u16: case TensorDtype::f16: case TensorDtype::bf16: return 2;
    case TensorDtype::u32: case TensorDtype::s32: case TensorDtype::f32: return 4;
    case TensorDtype::u64: case TensorDtype::s64: case TensorDtype::f64: return 8;
  }
  return 0;
}

uint32_t TensorMapDesc::box_bytes() const {
  // elementStrides[0] is ignored with interleave NONE (facts §4): the inner row is dense.
  uint64_t bytes = uint64_t(box_dim[0]) * tensor_dtype_bytes(dtype);
  for (uint32_t i = 1; i < rank; ++i) bytes *= (box_dim[i] + element_strides[i] - 1) / element_strides[i];
  return uint32_t(bytes);
}

TensorMapDesc row_major_bf16_map(ParamRole source, uint32_t cols, uint32_t rows, uint32_t box_cols, uint32_t box_rows,
                                 layout::Swizzle swizzle) {
  TensorMapDesc d;
  d.source = source;
  d.dtype = TensorDtype::bf16;
  d.rank = 2;
  d.global_dim = {cols, rows, 1, 1, 1};
  d.global_strides_bytes = {uint64_t(cols) * 2, 0, 0, 0};
  d.box_dim = {box_cols, box_rows, 1, 1, 1};
  d.swizzle = swizzle;
  return d;
}

uint32_t Kernel::smem_bytes() const {
  uint32_t end = 0;
  for (const SharedAlloc& a : smem) end = std::max(end, a.offset + a.bytes);
  return end;
}

const Param* Kernel::find_param(ParamRole role) const {
  for (const Param& p : params)
    if (p.role == role) return &p;
  return nullptr;
}

}  // namespace gs::ir

namespace gs::ir {

std::string_view gemm_operand_name(GemmOperand o) {
  switch (o) {
    case GemmOperand::none: return "none";
    case GemmOperand::a: return "A";
    case GemmOperand::b: return "B";
    case GemmOperand::c: return "C";
  }
  return "?";
}

std::string_view barrier_role_name(BarrierRole r) {
  switch (r) {
    case BarrierRole::none: return "none";
    case BarrierRole::full: return "full";
    case BarrierRole::empty: return "empty";
    case BarrierRole::other: return "other";
  }
  return "?";
}

std::string_view warp_role_name(WarpRole r) {
  switch (r) {
    case WarpRole::none: return "none";
    case WarpRole::simt: return "SIMT";
    case WarpRole::producer: return "producer";
    case WarpRole::consumer: return "consumer";
    case WarpRole::mma_issuer: return "MMA issuer";
    case WarpRole::epilogue: return "epilogue";
  }
  return "?";
}

WarpRole Kernel::role_at(uint32_t inst) const {
  // Later-opened regions are inner ones (Builder::role records the outer one first).
  for (size_t i = roles.size(); i-- > 0;)
    if (inst >= roles[i].begin && inst < roles[i].end) return roles[i].role;
  return WarpRole::none;
}

std::string_view Kernel::source_file(const SourceLoc& loc) const {
  return loc.file < source_files.size() ? std::string_view(source_files[loc.file]) : std::string_view();
}

}  // namespace gs::ir
