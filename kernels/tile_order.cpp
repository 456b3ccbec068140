#include "kernels/tile_order.hpp"

#include <algorithm>
#include <cstdlib>

namespace gs::kernels::tile_order {

using builder::Builder;
using builder::Reg;
using ir::Op;
using ir::Type;

namespace {

int64_t sgn(int64_t v) { return (v > 0) - (v < 0); }

// A rectangle of the Hilbert descent: origin (x, y), long axis a, other axis b (each along x or y).
struct Part {
  int64_t x = 0, y = 0, ax = 0, ay = 0, bx = 0, by = 0;
};

Part whole_grid(uint32_t width, uint32_t height) {
  return width >= height ? Part{0, 0, width, 0, 0, height} : Part{0, 0, 0, height, width, 0};
}

// One pass: true when tile d lies on the part's single row or column (x, y is then the cell);
// else the part and d become the sub-part holding it. `passes` counts the passes.
bool descend(Part& p, int64_t& d) {
  const int64_t w = std::abs(p.ax + p.ay), h = std::abs(p.bx + p.by);
  const int64_t dax = sgn(p.ax), day = sgn(p.ay), dbx = sgn(p.bx), dby = sgn(p.by);
  if (h == 1 || w == 1) {
    p.x += (h == 1 ? dax : dbx) * d;
    p.y += (h == 1 ? day : dby) * d;
    return true;
  }
  // Halves rounded toward minus infinity (an arithmetic shift, as the kernel does it).
  int64_t ax2 = p.ax >> 1, ay2 = p.ay >> 1, bx2 = p.bx >> 1, by2 = p.by >> 1;
  if (2 * w > 3 * h) {  // long: two halves across a
    if ((std::abs(ax2 + ay2) & 1) && w > 2) ax2 += dax, ay2 += day;
    const int64_t n1 = std::abs(ax2 + ay2) * h;
    if (d < n1) {
      p.ax = ax2, p.ay = ay2;
    } else {
      d -= n1;
      p.x += ax2, p.y += ay2, p.ax -= ax2, p.ay -= ay2;
    }
    return false;
  }
  if ((std::abs(bx2 + by2) & 1) && h > 2) bx2 += dbx, by2 += dby;
  const int64_t n1 = std::abs(bx2 + by2) * std::abs(ax2 + ay2);
  const int64_t n2 = w * std::abs((p.bx - bx2) + (p.by - by2));
  if (d < n1) {  // up the lower half of b, axes swapped
    p = {p.x, p.y, bx2, by2, ax2, ay2};
  } else if (d < n1 + n2) {  // across the whole a, in the upper half
    d -= n1;
    p = {p.x + bx2, p.y + by2, p.ax, p.ay, p.bx - bx2, p.by - by2};
  } else {  // back down the rest
    d -= n1 + n2;
    p = {p.x + (p.ax - dax) + (bx2 - dbx), p.y + (p.ay - day) + (by2 - dby), -bx2, -by2, -(p.ax - ax2),
         -(p.ay - ay2)};
  }
  return false;
}

}  // namespace

BuildParam order_param(Order default_order) {
  return {"order",
          "the tile order of the persistent walk: 0 row by row, 1 grouped (16 tile-rows walked column by column), "
          "2 a Hilbert curve over the tile grid",
          uint32_t(default_order),
          {0, 1, 2}};
}

const char* order_name(Order o) {
  switch (o) {
    case Order::row: return "row";
    case Order::grouped: return "grouped";
    case Order::hilbert: return "hilbert";
  }
  return "?";
}

Cell tile_cell(Order order, uint64_t t, uint32_t tiles_m, uint32_t tiles_n, uint32_t group_m) {
  switch (order) {
    case Order::row: return {uint32_t(t / tiles_n), uint32_t(t % tiles_n)};
    case Order::grouped: {
      const uint64_t group_tiles = uint64_t(group_m) * tiles_n, group = t / group_tiles;
      const uint64_t first = group * group_m, rows = std::min<uint64_t>(group_m, tiles_m - first);
      const uint64_t p = t - group * group_tiles;
      return {uint32_t(first + p % rows), uint32_t(p / rows)};
    }
    case Order::hilbert: {
      Part p = whole_grid(tiles_n, tiles_m);  // x runs along a row of tiles (columns of C)
      int64_t d = int64_t(t);
      while (!descend(p, d)) {
      }
      return {uint32_t(p.y), uint32_t(p.x)};
    }
  }
  return {};
}

namespace {

// The cells of an order_rows x order_cols grid in `order`, round by round (round i: each walker's
// i-th cell, in walker order), each handed to `visit`.
template <class Visit>
void walk_cells(Order order, uint32_t order_rows, uint32_t order_cols, uint32_t group_m, uint32_t walkers,
                Visit&& visit) {
  const uint64_t tiles = uint64_t(order_rows) * order_cols;
  for (uint64_t round = 0; round * walkers < tiles; ++round)
    for (uint32_t walker = 0; walker < walkers && round * walkers + walker < tiles; ++walker)
      visit(tile_cell(order, round * walkers + walker, order_rows, order_cols, group_m));
}

}  // namespace

std::vector<uint32_t> walk(Order order, uint32_t order_rows, uint32_t tiles_n, uint32_t group_m, uint32_t walkers,
                           uint32_t cluster, uint32_t tiles_m) {
  std::vector<uint32_t> w;
  w.reserve(size_t(order_rows) * tiles_n * cluster);
  walk_cells(order, order_rows, tiles_n, group_m, walkers, [&](const Cell& c) {
    for (uint32_t r = 0; r < cluster; ++r)
      if (c.row * cluster + r < tiles_m) w.push_back((c.row * cluster + r) * tiles_n + c.col);
  });
  return w;
}

std::vector<uint32_t> walk_along_n(Order order, uint32_t tiles_m, uint32_t order_cols, uint32_t group_m,
                                   uint32_t walkers, uint32_t cluster, uint32_t tiles_n) {
  std::vector<uint32_t> w;
  w.reserve(size_t(tiles_m) * order_cols * cluster);
  walk_cells(order, tiles_m, order_cols, group_m, walkers, [&](const Cell& c) {
    for (uint32_t r = 0; r < cluster; ++r)
      if (c.col * cluster + r < tiles_n) w.push_back(c.row * tiles_n + c.col * cluster + r);
  });
  return w;
}

uint32_t hilbert_passes(uint32_t tiles_m, uint32_t tiles_n) {
  // Each pass halves the longer side or both (a part twice as long as wide is cut in two, then
  // the square-ish halves in both directions), so 2 per doubling of the longer side and two
  // more for the final row bound it (checked for every grid up to 69 x 69 and the ladder's
  // shapes in tests/kernels/test_tile_order.cpp).
  uint32_t longer = std::max(tiles_m, tiles_n), bits = 0;
  while ((1u << bits) < longer) ++bits;
  return 2 * bits + 2;
}

hopper::TileCorner tile_corner(Builder& b, Order order, const Reg& t, uint32_t tiles_m, uint32_t tiles_n,
                               uint32_t group_m, uint32_t tile_m, uint32_t tile_n) {
  if (order == Order::grouped) return hopper::grouped_tile_corner(b, t, tiles_m, tiles_n, group_m, tile_m, tile_n);
  if (order == Order::row) {
    Reg row = (t / tiles_n).named("tile_row");
    Reg col = (t - row * tiles_n).named("tile_col");
    return {(row * tile_m).named("m0"), (col * tile_n).named("n0")};
  }
  b.comment("the Hilbert curve: descend from the whole grid to the part that holds tile t");
  const auto s32 = [&](const builder::Src& v, const char* name) { return b.mov(Type::s32, v, name); };
  const auto abs32 = [&](const Reg& v, const char* name) {
    return b.alu(Op::max, Type::s32, {v, b.alu(Op::neg, Type::s32, {v})}, name);
  };
  const auto sgn32 = [&](const Reg& v, const char* name) {
    return b.alu(Op::min, Type::s32, {b.alu(Op::max, Type::s32, {v, -1}), 1}, name);
  };
  const Part g = whole_grid(tiles_n, tiles_m);
  Reg x = s32(0, "h_x"), y = s32(0, "h_y"), ax = s32(int(g.ax), "h_ax"), ay = s32(int(g.ay), "h_ay");
  Reg bx = s32(int(g.bx), "h_bx"), by = s32(int(g.by), "h_by");
  Reg d = b.cvt(Type::s32, t, ir::Rounding::none, "h_d");
  Reg done = s32(0, "h_done");
  b.loop("hilbert", hilbert_passes(tiles_m, tiles_n), [&](const Reg&) {
    b.if_((done == 0).named("h_descending"), [&] {
      Reg w = abs32(ax + ay, "h_w"), h = abs32(bx + by, "h_h");
      Reg dax = sgn32(ax, "h_dax"), day = sgn32(ay, "h_day"), dbx = sgn32(bx, "h_dbx"), dby = sgn32(by, "h_dby");
      Reg on_row = (h == 1).named("h_one_row");
      Reg line = b.alu(Op::or_, Type::pred, {on_row, (w == 1).named("h_one_col")}, "h_line");
      b.if_(line, [&] {
        b.mov(x, x + b.selp(dax, dbx, on_row) * d);
        b.mov(y, y + b.selp(day, dby, on_row) * d);
        b.mov(done, 1);
      });
      b.if_(b.alu(Op::not_, Type::pred, {line}, "h_split"), [&] {
        Reg ax2 = (ax >> 1).named("h_ax2"), ay2 = (ay >> 1).named("h_ay2");
        Reg bx2 = (bx >> 1).named("h_bx2"), by2 = (by >> 1).named("h_by2");
        Reg lng = ((w * 2) > (h * 3)).named("h_long");
        b.if_(lng, [&] {
          Reg odd = ((abs32(ax2 + ay2, "h_w2") & 1) == 1).named("h_w2_odd");
          Reg grow = b.alu(Op::and_, Type::pred, {odd, (w > 2).named("h_w_gt2")}, "h_grow_a");
          b.mov(ax2, ax2 + b.selp(dax, 0, grow));
          b.mov(ay2, ay2 + b.selp(day, 0, grow));
          Reg n1 = (abs32(ax2 + ay2, "h_w2r") * h).named("h_n1");
          Reg first = (d < n1).named("h_first");
          b.mov(x, b.selp(x, x + ax2, first));
          b.mov(y, b.selp(y, y + ay2, first));
          b.mov(d, b.selp(d, d - n1, first));
          b.mov(ax, b.selp(ax2, ax - ax2, first));
          b.mov(ay, b.selp(ay2, ay - ay2, first));
        });
        b.if_(b.alu(Op::not_, Type::pred, {lng}, "h_square"), [&] {
          Reg odd = ((abs32(bx2 + by2, "h_h2") & 1) == 1).named("h_h2_odd");
          Reg grow = b.alu(Op::and_, Type::pred, {odd, (h > 2).named("h_h_gt2")}, "h_grow_b");
          b.mov(bx2, bx2 + b.selp(dbx, 0, grow));
          b.mov(by2, by2 + b.selp(dby, 0, grow));
          Reg n1 = (abs32(bx2 + by2, "h_h2r") * abs32(ax2 + ay2, "h_w2h")).named("h_n1");
          Reg n12 = (n1 + w * abs32((bx - bx2) + (by - by2), "h_rest")).named("h_n12");
          Reg p1 = (d < n1).named("h_part1"), p2 = (d < n12).named("h_part12");
          // Part 3's values, then part 2's over them, then part 1's: one selp chain each.
          Reg x3 = (x + (ax - dax) + (bx2 - dbx)).named("h_x3"), y3 = (y + (ay - day) + (by2 - dby)).named("h_y3");
          Reg ax3 = b.alu(Op::neg, Type::s32, {bx2}, "h_ax3"), ay3 = b.alu(Op::neg, Type::s32, {by2}, "h_ay3");
          Reg bx3 = (ax2 - ax).named("h_bx3"), by3 = (ay2 - ay).named("h_by3");
          Reg nx = b.selp(x, b.selp(x + bx2, x3, p2), p1, "h_nx");
          Reg ny = b.selp(y, b.selp(y + by2, y3, p2), p1, "h_ny");
          Reg nd = b.selp(d, b.selp(d - n1, d - n12, p2), p1, "h_nd");
          Reg nax = b.selp(bx2, b.selp(ax, ax3, p2), p1, "h_nax");
          Reg nay = b.selp(by2, b.selp(ay, ay3, p2), p1, "h_nay");
          Reg nbx = b.selp(ax2, b.selp(bx - bx2, bx3, p2), p1, "h_nbx");
          Reg nby = b.selp(ay2, b.selp(by - by2, by3, p2), p1, "h_nby");
          b.mov(x, nx), b.mov(y, ny), b.mov(d, nd);
          b.mov(ax, nax), b.mov(ay, nay), b.mov(bx, nbx), b.mov(by, nby);
        });
      });
    });
  });
  Reg row = b.cvt(Type::u32, y, ir::Rounding::none, "tile_row"), col = b.cvt(Type::u32, x, ir::Rounding::none, "tile_col");
  return {(row * tile_m).named("m0"), (col * tile_n).named("n0")};
}

CornerHandoff corner_handoff(Builder& b, Order order, uint32_t stages) {
  CornerHandoff h;
  if (order != Order::hilbert) return h;
  h.used = true;
  const builder::Smem slots = b.shared("tile_corner", 8 * stages, 16, ir::SmemUse::other);
  h.base = b.smem_address(slots, 0, "corner_slots");
  return h;
}

void publish_corner(Builder& b, const CornerHandoff& h, const Reg& stage, const Reg& kb, const hopper::TileCorner& at) {
  if (!h.used) return;
  b.if_((kb == 0).named("first_k_block"), [&] {
    b.comment("the tile's corner, for the consumers: released by the arrive on full[stage] below");
    b.st_shared(Type::u32, builder::Addr::at((h.base + (stage << 3)).named("corner_slot")), {at.m0, at.n0});
  });
}

void consumer_corner_registers(Builder& b, CornerHandoff& h) {
  if (!h.used) return;
  h.received = {b.mov(Type::u32, 0, "m0"), b.mov(Type::u32, 0, "n0")};
}

void receive_corner(Builder& b, const CornerHandoff& h, const Reg& stage, const Reg& kb) {
  if (!h.used) return;
  b.if_((kb == 0).named("first_k_block"), [&] {
    b.comment("this tile's corner, from the producer with the stage (read before the stage is released)");
    const std::vector<Reg> v =
        b.ld_vec(Op::ld_shared, Type::u32, 2, builder::Addr::at((h.base + (stage << 3)).named("corner_slot")), "corner");
    b.mov(h.received.m0, v[0]);
    b.mov(h.received.n0, v[1]);
  });
}

}  // namespace gs::kernels::tile_order
