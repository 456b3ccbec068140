// Tests for gui/core/fragments_data: the owner of known cells in each map, read off the PTX
// ISA fragment figures as the facts sheet words them (§1.5 wgmma D, §2 mma.sync / ldmatrix),
// that every cell has exactly one owner, and that the kernel's tile links to its registers.
#include <catch2/catch.hpp>

#include <cstring>

#include "gui/core/app_state.hpp"
#include "tests/gui/gui_fixture.hpp"
#include "gui/core/fragments_data.hpp"
#include "gui/core/view_data.hpp"

using namespace gs;
using namespace gs::gui;

namespace {

void check_owner(const FragmentGrid& g, int row, int col, int thread, int value) {
  INFO(g.name << " (" << row << ", " << col << ")");
  const FragmentCell& c = g.at(row, col);
  CHECK(c.thread == thread);
  CHECK(c.value == value);
  CHECK(c.warp == thread / 32);
  CHECK(c.lane == thread % 32);
}

void check_every_cell_owned_once(const FragmentGrid& g) {
  INFO(g.name);
  std::vector<int> count(size_t(g.rows) * size_t(g.cols), 0);
  for (int t = 0; t < g.threads; ++t)
    for (int v = 0; v < g.values_per_thread; ++v) {
      const layout::Coord c = g.map.at(t, v);
      ++count[size_t(c.row) * size_t(g.cols) + size_t(c.col)];
    }
  for (size_t i = 0; i < count.size(); ++i) CHECK(count[i] == 1);
  for (const FragmentCell& c : g.cells) CHECK(c.thread >= 0);
}

}  // namespace

TEST_CASE("wgmma accumulator owners follow the D fragment figure", "[gui]") {
  FragmentViewOptions o;
  o.map = "wgmma_acc";
  o.param = 64;
  const FragmentGrid g = fragment_grid(nullptr, o);
  REQUIRE(g.rows == 64);
  REQUIRE(g.cols == 64);
  // Facts §1.5: warp w owns rows 16w..16w+15; lane l holds rows l/4 and l/4 + 8, column pairs
  // 2(l%4) of every 8-column block j; registers 4j + {0,1} on the upper row, 4j + {2,3} below.
  check_owner(g, 0, 0, 0, 0);
  check_owner(g, 0, 1, 0, 1);
  check_owner(g, 8, 0, 0, 2);   // c2 = (g + 8, 2q): same thread, register 2
  check_owner(g, 1, 0, 4, 0);   // next row = next group of 4 lanes
  check_owner(g, 0, 2, 1, 0);
  check_owner(g, 0, 8, 0, 4);   // next 8-column block
  check_owner(g, 16, 0, 32, 0); // warp 1
  check_owner(g, 63, 63, 127, 31);
  check_every_cell_owned_once(g);

  for (int n = 8; n <= 256; n += 8) {
    o.param = n;
    const FragmentGrid gn = fragment_grid(nullptr, o);
    CHECK(gn.cols == n);
    CHECK(gn.values_per_thread == n / 2);
    CHECK(gn.at(63, n - 1).thread == 127);
    CHECK(gn.at(63, n - 1).value == n / 2 - 1);
  }
  o.param = 256;
  check_every_cell_owned_once(fragment_grid(nullptr, o));
}

TEST_CASE("mma.sync m16n8k16, ldmatrix and tcgen05 owners", "[gui]") {
  FragmentViewOptions o;
  o.map = "mma_a";
  FragmentGrid a = fragment_grid(nullptr, o);
  CHECK(a.packed16);
  check_owner(a, 0, 0, 0, 0);   // a0 low = (g, 2q)
  check_owner(a, 8, 0, 0, 2);   // a1 = (g + 8, 2q)
  check_owner(a, 0, 8, 0, 4);   // a2 = (g, 2q + 8)
  check_owner(a, 9, 11, 4 * 1 + 1, 7);  // g = 1, q = 1: a3 high = (g + 8, 2q + 8 + 1)
  CHECK(a.at(0, 8).reg == 2);
  CHECK(a.at(0, 8).half == 0);
  check_every_cell_owned_once(a);

  o.map = "mma_b";
  FragmentGrid b = fragment_grid(nullptr, o);
  REQUIRE(b.rows == 16);
  REQUIRE(b.cols == 8);
  check_owner(b, 0, 0, 0, 0);   // b0 low = (k 2q, n g)
  check_owner(b, 8, 0, 0, 2);   // b1 low = (k 2q + 8, n g)
  check_owner(b, 3, 5, 4 * 5 + 1, 1);
  check_every_cell_owned_once(b);

  o.map = "mma_c";
  FragmentGrid c = fragment_grid(nullptr, o);
  check_owner(c, 8, 0, 0, 2);   // c2 = (g + 8, 2q)
  check_owner(c, 15, 7, 31, 3);
  check_every_cell_owned_once(c);

  for (int x : {1, 2, 4})
    for (bool trans : {false, true}) {
      o.map = trans ? "ldmatrix_trans" : "ldmatrix";
      o.param = x;
      FragmentGrid l = fragment_grid(nullptr, o);
      CHECK(l.rows == 8 * x);
      // Without .trans lane l gets row l/4, cols 2(l%4), 2(l%4)+1 of each matrix; with .trans
      // column l/4, rows 2(l%4), 2(l%4)+1.
      if (!trans) check_owner(l, 1, 3, 4 * 1 + 1, 1);
      else check_owner(l, 3, 1, 4 * 1 + 1, 1);
      if (x == 4) check_owner(l, 8 * 3, 0, 0, 6);  // matrix 3 in register 3
      check_every_cell_owned_once(l);
    }

  o.map = "tcgen05_32x32b";
  o.param = 16;
  FragmentGrid t = fragment_grid(nullptr, o);
  check_owner(t, 5, 9, 5, 9);  // thread i = TMEM lane i, register j = column j
  check_every_cell_owned_once(t);
}

TEST_CASE("kernel tile of the Hopper kernel is the m64n64 accumulator with register values", "[gui]") {
  AppState app;
  app.set_kernel(test::hopper_kernel());
  const FragmentGrid g = fragment_grid(app.kernel.get(), app.fragment_view);
  CHECK(g.from_kernel);
  CHECK(g.rows == 64);
  CHECK(g.cols == 64);
  REQUIRE(g.value_regs.size() == 32);
  CHECK(app.kernel->kernel().regs[g.value_regs[5]].name == "acc5");
  check_owner(g, 8, 0, 0, 2);

  // At the end of the trace, C = A·B is in the accumulators: the selected cell's value equals
  // the model's output element (CTA (0,0): rows and columns 0..63 of C).
  app.seek(app.event_count() - 1);
  app.selection.row = 9;
  app.selection.col = 3;
  const nlohmann::json j = describe_fragments(app);
  REQUIRE(j["selected"].is_object());
  CHECK(j["selected"]["thread"] == 4 * 1 + 1);  // g = 1 (row 9 = g + 8), q = 1 (col 3 = 2q + 1)
  CHECK(j["selected"]["value"] == 3);
  REQUIRE(j["selected"].contains("value_f32"));
  // C is f32 row-major in the model's buffers; the traced CTA (0,0) wrote rows/cols 0..63.
  const auto c = app.kernel->report.c_bytes();
  const size_t n = app.kernel->report.shape.n;
  REQUIRE(c.size() >= (9 * n + 4) * 4);
  float expect;
  std::memcpy(&expect, c.data() + (9 * n + 3) * 4, 4);
  CHECK(j["selected"]["value_f32"].get<float>() == expect);
  if (!app.kernel->report.reference.empty()) CHECK(double(expect) == app.kernel->report.reference[9 * n + 3]);
}

TEST_CASE("kernel tile of simt_naive: one thread per element, row-major", "[gui]") {
  run::SimRequest r{.only_traced_cta = true};
  r.kernel_id = "simt_naive";
  auto k = open_kernel(r);
  FragmentViewOptions o;
  const FragmentGrid g = fragment_grid(k.get(), o);
  CHECK(g.from_kernel);
  CHECK(g.rows == 32);
  CHECK(g.cols == 32);
  // kernels/01: row = tid / 32, col = tid % 32: warp w owns row w.
  check_owner(g, 0, 0, 0, 0);
  check_owner(g, 5, 7, 5 * 32 + 7, 0);
  check_every_cell_owned_once(g);
  REQUIRE(g.value_regs.size() == 1);
  CHECK(k->kernel().regs[g.value_regs[0]].name == "acc");
}

TEST_CASE("simt_naive: the selected thread's acc is what the model wrote, zero first, C at the end", "[gui]") {
  // acc's first write is the same zero in every lane (stored as base and step,
  // RegWrite::Encoding::affine), its last the lane's dot product (stored lane by lane): the
  // value shown for a thread must be the lane's either way.
  run::SimRequest r{.only_traced_cta = true};
  r.kernel_id = "simt_naive";
  auto k = open_kernel(r);
  const FragmentGrid g = fragment_grid(k.get(), FragmentViewOptions{});
  REQUIRE(g.value_regs.size() == 1);
  const uint32_t acc = g.value_regs[0];
  const model::Trace& t = k->trace();
  uint32_t first_write = 0xFFFFFFFFu;
  for (uint32_t e : t.of_kind(model::EventKind::reg_write))
    if (t.events[e].warp == 3 && t.regs[t.events[e].payload].reg == acc) {
      first_write = e;
      break;
    }
  REQUIRE(first_write != 0xFFFFFFFFu);
  CHECK(t.regs[t.events[first_write].payload].encoding == model::RegWrite::Encoding::affine);
  CHECK(register_value_at(*k, first_write, 3, acc, 17) == 0u);
  CHECK_FALSE(register_value_at(*k, first_write - 1, 3, acc, 17).has_value());  // nothing before it
  // b_ptr's first write steps by 4 bytes from lane to lane: B + 4 * col, col = lane in CTA
  // (0,0). The value shown is its low word; B's buffer starts on a 2^44 boundary.
  uint32_t b_ptr = 0xFFFFFFFFu;
  for (uint32_t i = 0; i < k->kernel().regs.size(); ++i)
    if (k->kernel().regs[i].name == "b_ptr") b_ptr = i;
  REQUIRE(b_ptr != 0xFFFFFFFFu);
  for (uint32_t e : t.of_kind(model::EventKind::reg_write))
    if (t.events[e].warp == 3 && t.regs[t.events[e].payload].reg == b_ptr) {
      CHECK(t.regs[t.events[e].payload].encoding == model::RegWrite::Encoding::affine);
      CHECK(register_value_at(*k, e, 3, b_ptr, 17) == 4u * 17u);
      break;
    }
  // At the end, thread (warp w, lane l) holds C[w][l] of CTA (0,0) (kernels/01: row = tid / 32).
  const auto c = k->report.c_bytes();
  const size_t n = k->report.shape.n;
  const uint32_t end = uint32_t(t.events.size() - 1);
  for (const auto& [warp, lane] : {std::pair{0u, 0u}, {3u, 17u}, {31u, 31u}}) {
    uint32_t expect = 0;
    std::memcpy(&expect, c.data() + (size_t(warp) * n + lane) * 4, 4);
    INFO("warp " << warp << " lane " << lane);
    CHECK(register_value_at(*k, end, uint16_t(warp), acc, lane) == expect);
  }
}

TEST_CASE("kernel tile: the traced CTA's own threads, and its first tile of a persistent walk", "[gui]") {
  // Step 22's CTAs have 192 threads; the trace also holds its pair's other CTA, whose stores
  // are not this CTA's map (the view said "320 thr").
  run::SimRequest r{.only_traced_cta = true};
  r.kernel_id = "blackwell_2sm";
  auto k = open_kernel(r);
  REQUIRE(k);
  const FragmentGrid g = fragment_grid(k.get(), FragmentViewOptions{});
  REQUIRE(g.from_kernel);
  CHECK(g.threads <= int(k->trace().warps_per_cta) * 32);
  CHECK(g.threads <= 192);
  // A persistent step at a shape where each CTA walks several tiles: the map is the first
  // tile's (128 x 128 for step 15), not a generic map under the kernel tile's name.
  run::SimRequest p{.shape = {4096, 4096, 128}, .only_traced_cta = true};
  p.kernel_id = "hopper_persistent";
  auto kp = open_kernel(p);
  REQUIRE(kp);
  const FragmentGrid gp = fragment_grid(kp.get(), FragmentViewOptions{});
  CHECK(gp.from_kernel);
  CHECK(gp.rows == int(kp->kernel().output.tile_rows));
  CHECK(gp.cols == int(kp->kernel().output.tile_cols));
  // No kernel: no map and a reason, not a generic map.
  const FragmentGrid none = fragment_grid(nullptr, FragmentViewOptions{});
  CHECK_FALSE(none.from_kernel);
  CHECK(none.rows == 0);
  CHECK(none.name == "no kernel is open");
}

TEST_CASE("every map of the op traits is a choice of the view, with its title and source", "[gui]") {
  for (const layout::OperandMap& m : layout::fragment_maps()) {
    INFO(m.id);
    FragmentViewOptions o;
    o.map = std::string(m.id);
    const FragmentGrid g = fragment_grid(nullptr, o);
    CHECK(g.rows > 0);
    CHECK(g.row_label == m.row_label);
    CHECK(g.col_label == m.col_label);
    CHECK_THAT(g.source, Catch::Contains(std::string(m.citation)));
    CHECK(fragment_map_title(o) == m.title);
  }
  FragmentViewOptions bad;
  bad.map = "no_such_map";
  CHECK_THROWS_WITH(fragment_grid(nullptr, bad), Catch::Contains("wgmma_acc"));
}

TEST_CASE("step 19 open: the view names stmatrix's map, and shows it at the kernel's .x4", "[gui][fragments]") {
  // Step 19 stores C with TMA from a staging tile its warps fill with stmatrix.x4: no register
  // map of C itself, but the op traits' stmatrix map says which lane's register lands where.
  run::SimRequest r{.only_traced_cta = true};
  r.kernel_id = "hopper_stmatrix_epilogue";
  AppState app;
  app.set_kernel(open_kernel(r));
  REQUIRE(app.kernel);
  nlohmann::json j = describe_fragments(app);
  CHECK(j["from_kernel"] == false);
  CHECK_THAT(j["map"].get<std::string>(), Catch::Contains("TMA stores") && Catch::Contains("'stmatrix m8n8' (x = 4)"));
  bool stmatrix_listed = false, acc_listed = false;
  for (const auto& m : j["kernel_maps"]) {
    stmatrix_listed |= m["id"] == "stmatrix" && m["param"] == 4;
    acc_listed |= m["id"] == "wgmma_acc" && m["param"] == 256;  // m64n256k16
    CHECK(m["id"] != "stmatrix_trans");                          // C is row-major: no .trans
  }
  CHECK(stmatrix_listed);
  CHECK(acc_listed);
  const layout::OperandMap* st = layout::find_fragment_map("stmatrix");
  REQUIRE(st);
  CHECK(kernel_map_param(app.kernel->kernel(), *st) == 4);
  CHECK_FALSE(kernel_map_param(app.kernel->kernel(), *layout::find_fragment_map("mma_a")).has_value());

  // The map chosen: 4 matrices stacked, lane l's register j at row 8j + l/4, cols 2(l%4), +1.
  app.fragment_view.map = "stmatrix";
  app.fragment_view.param = 4;
  j = describe_fragments(app);
  CHECK(j["kind"] == "stmatrix m8n8");
  CHECK(j["map"] == "stmatrix.m8n8.x4.b16");
  CHECK_THAT(j["source"].get<std::string>(), Catch::Contains("probe: gemmscope probe ldmatrix"));
  CHECK(j["rows"] == 32);
  CHECK(j["cols"] == 8);
  CHECK(j["threads"] == 32);
  CHECK(j["values_per_thread"] == 8);
  const FragmentGrid g = fragment_grid(app.kernel.get(), app.fragment_view);
  check_owner(g, 0, 1, 0, 1);      // lane 0, register 0 high
  check_owner(g, 1, 0, 4, 0);      // the next row: the next four lanes
  check_owner(g, 8, 0, 0, 2);      // matrix 1 = register 1
  check_owner(g, 26, 4, 10, 6);    // lane 10, register 3 low: matrix 3, row 2, col 4
  check_owner(g, 31, 7, 31, 7);
  CHECK(g.at(26, 4).reg == 3);
  CHECK(g.at(26, 4).half == 0);
  check_every_cell_owned_once(g);
  app.selection.row = 26;
  app.selection.col = 4;
  j = describe_fragments(app);
  CHECK(j["selected"]["text"] == "lane 10 v6 = reg 3 low half <-> (row 26, col 4)");
}
