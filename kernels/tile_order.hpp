// The order in which a persistent kernel's CTAs walk the tiles of C: a build parameter "order"
// of steps 15-19. Which tiles run at the same moment decides which panels of A and B the L2
// holds for several of them (the timing model counts it from the grid's schedule).
//
//   row      tile t is (t / tiles_n, t % tiles_n): a wave reads few rows of A and all of B.
//   grouped  groups of group_m tile-rows, walked column by column inside a group (steps 15-18's
//            order: a wave's tiles share group_m row panels of A and a few column panels of B).
//   hilbert  a generalized Hilbert curve over the tile grid (any width and height, not only
//            powers of two): consecutive tiles are neighbours (at most one diagonal step in the
//            whole walk), so any run of tiles is compact in both directions.
//
// The Hilbert walk is defined by the recursive split of a rectangle given by its origin and two
// axis vectors a (the long side) and b: a rectangle of one row or column is walked along it;
// one much longer than wide (2|a| > 3|b|) is cut across a into two halves walked one after the
// other; otherwise into three parts (the lower half of b walked with the axes swapped, the whole
// a across the upper half, and back down the rest), the halves rounded so that every part has
// an even side where it needs one. tile_cell finds tile t by descending into the part that
// holds it, one level per pass, so a kernel computes it in a loop of at most hilbert_passes
// passes without a table.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/builder/builder.hpp"
#include "kernels/hopper_parts.hpp"
#include "kernels/registry.hpp"

namespace gs::kernels::tile_order {

enum class Order : uint32_t { row = 0, grouped = 1, hilbert = 2 };

// "order": 0 row, 1 grouped, 2 hilbert (the build parameter's values are numbers).
BuildParam order_param(Order default_order);
const char* order_name(Order o);

struct Cell {
  uint32_t row = 0, col = 0;
};

// Tile t (0 <= t < tiles_m * tiles_n) in `order` on the host: what the kernel computes.
Cell tile_cell(Order order, uint64_t t, uint32_t tiles_m, uint32_t tiles_n, uint32_t group_m);
// The walk of a persistent grid (ir::OutputTiling::walk): `walkers` CTAs (or clusters of
// `cluster` CTAs one above the other) take tiles walker, walker + walkers, ... of the order over a
// order_rows x tiles_n grid (of cluster tiles: rank r of a cluster tile is C's tile-row
// cluster * row + r); tiles past C's tiles_m rows are left out.
std::vector<uint32_t> walk(Order order, uint32_t order_rows, uint32_t tiles_n, uint32_t group_m, uint32_t walkers,
                           uint32_t cluster, uint32_t tiles_m);
// The same for clusters of `cluster` CTAs side by side (step 19's share=a): the order runs over a
// tiles_m x order_cols grid of cluster tiles, and rank r of a cluster tile is C's tile-column
// cluster * col + r; tiles past C's tiles_n columns are left out.
std::vector<uint32_t> walk_along_n(Order order, uint32_t tiles_m, uint32_t order_cols, uint32_t group_m,
                                   uint32_t walkers, uint32_t cluster, uint32_t tiles_n);
// The passes the Hilbert descent of tile_cell takes at most on a tiles_m x tiles_n grid.
uint32_t hilbert_passes(uint32_t tiles_m, uint32_t tiles_n);

// The same in the kernel: the first row and column of C of tile t, for tiles of tile_m x tile_n.
hopper::TileCorner tile_corner(builder::Builder& b, Order order, const builder::Reg& t, uint32_t tiles_m, uint32_t tiles_n,
                       uint32_t group_m, uint32_t tile_m, uint32_t tile_n);

// The Hilbert cell costs a descent of up to hilbert_passes passes, a few hundred dependent
// instructions: computed by the consumers at each tile boundary it left the tensor cores idle
// (1-4% on the H100, docs/results/2026-11-28-h100-s2). So with the Hilbert order only the
// producer computes it, ahead of time, and hands the tile's corner to the consumers with the
// tile's first stage: one 8-byte slot per stage. The producer writes the slot after waiting for
// the stage's empty barrier and before its arrive on the full barrier; the consumers read it
// after their full wait and before they release the stage. The ring's barriers order both (the
// producer's arrive releases its write, the consumers' wait acquires it), and the producer
// rewrites a slot only when every consumer released its stage.
struct CornerHandoff {
  bool used = false;  // the order is Hilbert: the consumers read the corner, not compute it
  builder::Reg base;  // the shared address of slot 0
  hopper::TileCorner received;  // the consumers' registers for the current tile's corner
};
// Declares the slots (with the Hilbert order only); call before the roles branch.
CornerHandoff corner_handoff(builder::Builder& b, Order order, uint32_t stages);
// Producer, in its K loop before the arrive on full[stage]: at kb == 0, the tile's corner.
void publish_corner(builder::Builder& b, const CornerHandoff& h, const builder::Reg& stage, const builder::Reg& kb,
                    const hopper::TileCorner& at);
// Consumers, in their K loop after the full wait and before the release: at kb == 0, into
// h.received (declared by consumer_corner_registers).
void receive_corner(builder::Builder& b, const CornerHandoff& h, const builder::Reg& stage, const builder::Reg& kb);
// The consumers' registers for the received corner (declared once, in the consumer role).
void consumer_corner_registers(builder::Builder& b, CornerHandoff& h);

}  // namespace gs::kernels::tile_order
