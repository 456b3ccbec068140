// What steps 18 and 19 take from step 17 as it is (kernels/17_hopper_cluster_multicast.cpp
// teaches it inline): the producer thread of a persistent kernel in clusters whose CTAs share B's
// box through multicast; and step 19's mirror of it (share=a), where the CTAs share A's box.
#pragma once

#include <cstdint>
#include <functional>

#include "engine/builder/builder.hpp"
#include "kernels/hopper_parts.hpp"
#include "kernels/tile_order.hpp"

namespace gs::kernels::tma_ring {

// The operand a cluster's CTAs share: B when they lie one above the other (one tile-column: the
// same columns of C, so the same rows of B), A when they lie side by side (one tile-row).
enum class SharedOperand { a, b };

struct ClusterProducer {
  const Ring* ring = nullptr;
  builder::Param tmap_a, tmap_b;
  uint32_t cluster = 1;           // CTAs per cluster; the shared operand's box goes out in `cluster` slices
  SharedOperand shared = SharedOperand::b;
  uint32_t a_rows = 0;            // A's box: rows (the tile's M; read with share a only) ...
  uint32_t b_rows = 0;            // B's box: rows (the tile's N) ...
  uint32_t k_block = 0;           // ... and the K block's columns, A's box the same K
  builder::Reg rank, my_tiles;    // %cluster_ctarank; the tiles this CTA walks
  std::function<hopper::TileCorner(const builder::Reg&)> tile_corner;  // tile i of the walk -> its corner
  uint32_t k_blocks = 0;
  const tile_order::CornerHandoff* handoff = nullptr;  // the Hilbert walk's corners for the consumers
  uint32_t suspend_hint_ns = 0;   // the empty barrier's try_wait suspend-time hint
};

// Step 17's producer, run by one thread: for each tile and K block, wait until the stage is empty
// (parity phase ^ 1), arm its full barrier with A's and B's whole boxes (every CTA receives all of
// the shared operand: its own slice and its peers'), load the other operand's box and this CTA's
// 1/cluster slice of the shared one's box, multicast into every CTA of the cluster (cta_mask all
// ones; plain loads with one CTA). Shared B: slice r is rows n0 + r·b_rows/cluster of B's box;
// shared A: rows m0 + r·a_rows/cluster of A's, the CTAs' m0 being the same.
void cluster_producer(builder::Builder& b, const ClusterProducer& p);

}  // namespace gs::kernels::tma_ring
