// The overlapped TMA-store epilogue of the Blackwell steps 25 and 26, so that each step's file
// shows the barriers around it and not the sub-tile loop again. Step 25 teaches it (its header
// comment says every rule); the code lives here:
//   tcgen05.ld -> registers -> st.shared.v4 into a 128B-swizzled staging buffer -> TMA store,
// in sub-tiles of 128 rows x 128 bytes (32 f32 or 64 bf16 columns), through two staging buffers
// that take turns, with fence.proxy.async before the store and wait_group.read 1 before a buffer
// is written again. The accumulator's release (tmem_empty) is the step's: a callback the sub-tile
// loop calls right after the last tcgen05.wait::ld.
#pragma once

#include <functional>
#include <vector>

#include "engine/builder/builder.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels::blackwell {

// C (M x N of f32 or bf16, row-major) as a tensor of 128-byte x 128-row boxes, read from shared
// memory through the 128B swizzle.
ir::TensorMapDesc c_store_map(uint32_t M, uint32_t N, DType c_dtype);

// The epilogue's sub-tile: 128 rows of 128 bytes (one 128B-swizzle row), two staging buffers.
inline constexpr uint32_t kStoreRowBytes = 128;
inline constexpr uint32_t kStoreRows = 128;
inline constexpr uint32_t kStagingBytes = kStoreRows * kStoreRowBytes;  // 16 KiB a buffer
inline constexpr uint32_t kStagingBuffers = 2;

// The deliberate mistakes of the sub-tile loop (step 25 declares them; step 26 builds without).
struct TmaStoreMistakes {
  bool missing_proxy_fence = false;      // no fence.proxy.async before the barrier and the store
  bool reuse_before_wait = false;        // no wait_group.read before a buffer is rewritten
  bool release_before_ld_wait = false;   // the release comes between the last tcgen05.ld and its wait
};

// What the four epilogue warps hold for the whole kernel: C's tensor map, the issuing thread,
// the warp's lane quarter of TMEM, and this thread's row of a staging buffer as eight swizzled
// 16-byte pieces.
struct TmaStoreEpilogue {
  builder::Reg tmC, issuer, quarter, staging;
  std::vector<builder::Reg> piece_at;
  DType c_dtype = DType::f32;
  uint32_t sub_cols = 32;  // a sub-tile's columns: 32 f32 or 64 bf16
  uint32_t barrier = 1;    // the bar.sync id of the epilogue warps
  TmaStoreMistakes mistakes;
};

// Declared in the epilogue role (warps 0-3, thread tid = row of the sub-tile): the registers
// above. `tmem` is the CTA's TMEM base, `sC` the two staging buffers.
TmaStoreEpilogue tma_store_epilogue(builder::Builder& b, const builder::Param& tmap_c, const builder::Smem& sC,
                                    const builder::Reg& tid, const builder::Reg& warp, const builder::Reg& lane,
                                    const builder::Reg& tmem, DType c_dtype, uint32_t barrier,
                                    const TmaStoreMistakes& mistakes);

// One accumulator of `columns` columns at column acc_tmem_col of this warp's quarter (its tile
// of C at m0, n0) stored in sub-tiles: for each, tcgen05.ld and wait (after the last one,
// `release` gives the TMEM buffer back), wait until the buffer's last store is done reading,
// write the swizzled rows, fence, meet, and the issuer stores and commits a bulk group.
void store_accumulator(builder::Builder& b, const TmaStoreEpilogue& e, const builder::Reg& acc_tmem, uint32_t columns,
                       const builder::Reg& m0, const builder::Reg& n0, const std::function<void()>& release);

// After the last tile: the issuer waits until every store has read its buffer (shared memory
// goes away when the CTA exits).
void finish_tma_stores(builder::Builder& b, const TmaStoreEpilogue& e);

}  // namespace gs::kernels::blackwell
