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
// The passes the Hilbert descent of tile_cell takes at most on a tiles_m x tiles_n grid.
uint32_t hilbert_passes(uint32_t tiles_m, uint32_t tiles_n);

// The same in the kernel: the first row and column of C of tile t, for tiles of tile_m x tile_n.
hopper::TileCorner tile_corner(builder::Builder& b, Order order, const builder::Reg& t, uint32_t tiles_m, uint32_t tiles_n,
                       uint32_t group_m, uint32_t tile_m, uint32_t tile_n);

}  // namespace gs::kernels::tile_order
