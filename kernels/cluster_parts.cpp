#include "kernels/cluster_parts.hpp"

namespace gs::kernels::tma_ring {

using builder::Addr;
using builder::Reg;
using ir::Type;

void cluster_producer(builder::Builder& b, const ClusterProducer& p) {
  const Ring& ring = *p.ring;
  const bool share_a = p.shared == SharedOperand::a;
  const uint32_t slice_rows = (share_a ? p.a_rows : p.b_rows) / p.cluster;
  const uint32_t slice_bytes = (share_a ? ring.a_bytes : ring.b_bytes) / p.cluster;
  Reg tmA = b.tensor_map_address(p.tmap_a, "tmA");
  Reg tmB = b.tensor_map_address(p.tmap_b, "tmB");
  Reg cta_mask = b.mov(Type::u16, (1u << p.cluster) - 1, "cta_mask");
  Reg slice_row = (p.rank * slice_rows).named("slice_row");
  Reg slice_off = (p.rank * slice_bytes).named("slice_off");
  Reg stage = b.mov(Type::u32, 0, "stage");
  Reg phase = b.mov(Type::u32, 0, "phase");
  b.loop("tile_load", p.my_tiles, [&](const Reg& i) {
    const hopper::TileCorner at = p.tile_corner(i);
    b.k_loop("kb_load", p.k_blocks, [&](const Reg& kb) {
      b.mbarrier_wait(ring.empty_at(stage), phase ^ 1, p.suspend_hint_ns);
      tile_order::publish_corner(b, *p.handoff, stage, kb, at);
      const Addr full_s = ring.full_at(stage);
      b.mbarrier_arrive_expect_tx(full_s, ring.a_bytes + ring.b_bytes);
      Reg k0 = (kb * p.k_block).named("k0");
      if (p.cluster > 1 && share_a)
        b.cp_async_bulk_tensor_load_multicast(Addr::at((ring.a_at(stage) + slice_off).named("sA_slice")), tmA,
                                              {k0, (at.m0 + slice_row).named("a_row")}, full_s, cta_mask);
      else
        b.cp_async_bulk_tensor_load(Addr::at(ring.a_at(stage)), tmA, {k0, at.m0}, full_s);
      if (p.cluster == 1 || share_a)
        b.cp_async_bulk_tensor_load(Addr::at(ring.b_at(stage)), tmB, {k0, at.n0}, full_s);
      else
        b.cp_async_bulk_tensor_load_multicast(Addr::at((ring.b_at(stage) + slice_off).named("sB_slice")), tmB,
                                              {k0, (at.n0 + slice_row).named("b_row")}, full_s, cta_mask);
      next_stage(b, stage, phase, ring.stages);
    });
  });
}

}  // namespace gs::kernels::tma_ring
