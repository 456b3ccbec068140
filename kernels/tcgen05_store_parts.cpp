// The overlapped TMA-store epilogue of steps 25-26 (tcgen05_store_parts.hpp; step 25 teaches it).
#include "kernels/tcgen05_store_parts.hpp"

#include <fmt/format.h>

#include "kernels/hopper_parts.hpp"

namespace gs::kernels::blackwell {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;
using layout::Swizzle;

namespace {
constexpr uint32_t kPiece = 16;  // bytes: one st.shared.v4.f32, one unit of the swizzle
}  // namespace

ir::TensorMapDesc c_store_map(uint32_t M, uint32_t N, DType c_dtype) {
  const uint32_t es = c_dtype == DType::f32 ? 4 : 2;
  ir::TensorMapDesc d;
  d.source = ir::ParamRole::c;
  d.dtype = c_dtype == DType::f32 ? ir::TensorDtype::f32 : ir::TensorDtype::bf16;
  d.global_dim = {N, M, 1, 1, 1};
  d.global_strides_bytes = {uint64_t(N) * es, 0, 0, 0};
  d.box_dim = {kStoreRowBytes / es, kStoreRows, 1, 1, 1};
  d.swizzle = Swizzle::b128;
  return d;
}

TmaStoreEpilogue tma_store_epilogue(Builder& b, const builder::Param& tmap_c, const builder::Smem& sC, const Reg& tid,
                                    const Reg& warp, const Reg& lane, const Reg& tmem, DType c_dtype, uint32_t barrier,
                                    const TmaStoreMistakes& mistakes) {
  TmaStoreEpilogue e;
  e.c_dtype = c_dtype;
  e.sub_cols = kStoreRowBytes / (c_dtype == DType::f32 ? 4 : 2);
  e.barrier = barrier;
  e.mistakes = mistakes;
  e.tmC = b.tensor_map_address(tmap_c, "tmC");
  e.issuer = (tid == 0).named("store_issuer");  // one thread issues every store
  // Warp w reads TMEM lanes 32w..32w+31 (its quarter): the lane sits in bits 31-16 of the address.
  e.quarter = (tmem + ((warp * 32) << 16)).named("tmem_quarter");
  // (T128, V32) -> (M128, N32) (f32; bf16: V64 -> N64): thread t holds row t of the
  // sub-tile, register j column j (tcgen05.ld.32x32b.x32 or .x64). Row t of a buffer is 128
  // bytes at t * 128; its 16-byte piece p (f32 columns 4p..4p+3, bf16 8p..8p+7) sits at piece
  // p ^ (t % 8), the 128B swizzle, and t % 8 = lane % 8.
  // The eight addresses are computed once.
  e.staging = b.smem_address(sC, 0, "sC_base");
  Reg row_at = (e.staging + tid * kStoreRowBytes).named("row_at");
  Reg row8 = (lane % 8).named("row8");
  for (uint32_t p = 0; p < kStoreRowBytes / kPiece; ++p)
    e.piece_at.push_back((row_at + (row8 ^ p) * kPiece).named(fmt::format("piece{}_at", p)));
  return e;
}

void store_accumulator(Builder& b, const TmaStoreEpilogue& e, const Reg& acc_tmem, uint32_t columns, const Reg& m0,
                       const Reg& n0, const std::function<void()>& release) {
  const uint32_t threads = kStoreRows;  // the epilogue's four warps: one row each
  const uint32_t subtiles = columns / e.sub_cols;
  for (uint32_t s = 0; s < subtiles; ++s) {
    const bool last = s + 1 == subtiles;
    const int64_t buffer = int64_t(s % kStagingBuffers) * kStagingBytes;
    b.comment(fmt::format("sub-tile {}: columns {}..{} through buffer {}", s, s * e.sub_cols, (s + 1) * e.sub_cols - 1,
                          s % kStagingBuffers));
    const Reg taddr = s == 0 ? acc_tmem : (acc_tmem + s * e.sub_cols).named(fmt::format("tmem_col{}", s * e.sub_cols));
    const std::vector<Reg> v = b.tcgen05_ld_32x32b(e.sub_cols, Addr::at(taddr), fmt::format("d{}_", s * e.sub_cols));
    // Mistake release-tmem-before-ld-wait: the release comes before the last load is waited for.
    if (last && e.mistakes.release_before_ld_wait) release();
    b.tcgen05_wait_ld();
    if (last && !e.mistakes.release_before_ld_wait) release();
    // Mistake reuse-staging-before-wait: the buffer is written while the store that read it
    // two sub-tiles ago may still be reading.
    if (!e.mistakes.reuse_before_wait) b.if_(e.issuer, [&] { b.cp_async_bulk_wait_group_read(kStagingBuffers - 1); });
    b.bar_sync(e.barrier, threads);  // the buffer is free for every writer
    for (uint32_t p = 0; p < kStoreRowBytes / kPiece; ++p) {
      if (e.c_dtype == DType::f32) {
        b.st_shared(Type::f32, Addr::at(e.piece_at[p], buffer), {v[4 * p], v[4 * p + 1], v[4 * p + 2], v[4 * p + 3]});
      } else {  // each pair rounded to bf16 (first column in the low half): four words
        std::vector<Reg> w;
        for (uint32_t j = 8 * p; j < 8 * p + 8; j += 2) w.push_back(hopper::pack_bf16x2(b, v[j], v[j + 1], "c_pair"));
        b.st_shared(Type::b32, Addr::at(e.piece_at[p], buffer), {w[0], w[1], w[2], w[3]});
      }
    }
    // Mistake missing-proxy-fence: the TMA store may read what the generic proxy has not made
    // visible to the async proxy.
    if (!e.mistakes.missing_proxy_fence) b.fence_proxy_async();
    b.bar_sync(e.barrier, threads);  // every row is in and fenced
    b.if_(e.issuer, [&] {
      b.cp_async_bulk_tensor_store(e.tmC, {(n0 + s * e.sub_cols).named("c_col"), m0}, Addr::at(e.staging, buffer));
      b.cp_async_bulk_commit_group();
    });
  }
}

void finish_tma_stores(Builder& b, const TmaStoreEpilogue& e) {
  b.comment("the last stores must have read their buffers before the CTA's shared memory goes away");
  b.if_(e.issuer, [&] { b.cp_async_bulk_wait_group_read(0); });
}

}  // namespace gs::kernels::blackwell
