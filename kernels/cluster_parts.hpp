// What steps 18 and 19 take from step 17 as it is (kernels/17_hopper_cluster_multicast.cpp
// teaches it inline): the producer thread of a persistent kernel in clusters whose CTAs share B's
// box through multicast.
#pragma once

#include <cstdint>
#include <functional>

#include "engine/builder/builder.hpp"
#include "kernels/hopper_parts.hpp"
#include "kernels/tile_order.hpp"

namespace gs::kernels::tma_ring {

struct ClusterProducer {
  const Ring* ring = nullptr;
  builder::Param tmap_a, tmap_b;
  uint32_t cluster = 1;           // CTAs per cluster; B's box goes out in `cluster` slices
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
// B: its own slice and its peers'), load A's box and this CTA's 1/cluster slice of B's box,
// multicast into every CTA of the cluster (cta_mask all ones; a plain load with one CTA).
void cluster_producer(builder::Builder& b, const ClusterProducer& p);

}  // namespace gs::kernels::tma_ring
