// A kernel whose only write to C is a TMA store, for the tests of what the model records and
// runs: one warp stages a 16×16 bf16 tile in shared memory (each lane its 16 bytes, its lane
// index in every word) and one lane stores it with TMA to rows 16..31, columns 0..15 of a
// 32×32 C, with its bulk group (commit, wait_group.read) and prefetch.tensormap first.
#pragma once

#include "engine/builder/builder.hpp"

namespace gs::test {

inline ir::Kernel tma_store_kernel() {
  using builder::Reg;
  builder::Builder b("tma_store_probe", ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {32, 1, 1}});
  const ir::TensorMapDesc d = ir::row_major_bf16_map(ir::ParamRole::c, 32, 32, 16, 16, layout::Swizzle::none);
  const builder::Param tm = b.tensor_map_param("tmap_c", d);
  const builder::Smem tile = b.shared("tile", 16 * 16 * 2, 128, ir::SmemUse::tile);
  const Reg tid = b.special(ir::Special::tid_x, "tid");
  const Reg map = b.tensor_map_address(tm, "map");
  b.prefetch_tensormap(map);
  const Reg at = (b.smem_address(tile, 0, "base") + tid * 16u).named("at");  // 32 lanes × 16 bytes
  for (int64_t i = 0; i < 4; ++i) b.st_shared(ir::Type::u32, builder::Addr::at(at, 4 * i), {tid});
  b.fence_proxy_async();
  b.bar_sync(0);
  b.if_((tid == 0u).named("leader"), [&] {
    b.cp_async_bulk_tensor_store(map, {0, 16}, tile.at());
    b.cp_async_bulk_commit_group();
    b.cp_async_bulk_wait_group_read(0);
  });
  b.ret();
  ir::Kernel k = b.finish();
  k.output = {32, 32, 2, 16, 16};
  return k;
}

}  // namespace gs::test
