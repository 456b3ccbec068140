// The fragments view's running mma.sync (gui/core/mma_sync_data.*): the A, B, C and D values
// of the mma at the cursor, read from the model's register writes through the m16n8k16 maps,
// and the place in C its D registers were stored to.
#include <catch2/catch.hpp>

#include <cstring>

#include <fmt/format.h>

#include "engine/layout/fragments.hpp"
#include "gui/core/app_state.hpp"
#include "gui/core/mma_sync_data.hpp"
#include "gui/core/view_data.hpp"

using namespace gs;
using namespace gs::gui;

namespace {

float c_at(const LoadedKernel& k, int row, int col) {
  float f;
  std::memcpy(&f, k.report.c_bytes().data() + (size_t(row) * k.report.shape.n + size_t(col)) * 4, 4);
  return f;
}

// D = A·B + C over the fragment, from the values the view shows (bf16 products are exact; the
// integer inputs keep the sums exact too).
void check_product(const RunningMmaSync& m) {
  const layout::FragmentMap a = layout::mma_m16n8k16_a_layout(), b = layout::mma_m16n8k16_b_layout(),
                            c = layout::mma_m16n8k16_c_layout();
  float A[16][16] = {}, B[16][8] = {}, C[16][8] = {}, D[16][8] = {};
  for (uint32_t l = 0; l < 32; ++l) {
    for (uint32_t v = 0; v < 8; ++v) {
      const auto x = mma_sync_value(m, MmaOperand::a, l, v);
      REQUIRE(x);
      A[a.at(int(l), int(v)).row][a.at(int(l), int(v)).col] = *x;
    }
    for (uint32_t v = 0; v < 4; ++v) {
      const auto x = mma_sync_value(m, MmaOperand::b, l, v);
      REQUIRE(x);
      B[b.at(int(l), int(v)).row][b.at(int(l), int(v)).col] = *x;
      const auto d = mma_sync_value(m, MmaOperand::c, l, v);
      REQUIRE(d);
      const layout::Coord rc = c.at(int(l), int(v));
      D[rc.row][rc.col] = *d;
      float in;
      std::memcpy(&in, &m.c.bits[l][v], 4);
      C[rc.row][rc.col] = (m.c.known[l] >> v & 1) ? in : 0.0f;
    }
  }
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < 8; ++n) {
      float sum = C[r][n];
      for (int k = 0; k < 16; ++k) sum += A[r][k] * B[k][n];
      INFO("D(" << r << "," << n << ")");
      CHECK(D[r][n] == sum);
    }
}

}  // namespace

TEST_CASE("mma.sync fragments: the running mma's values multiply out and land where it stores them",
          "[gui][fragments][mma_sync]") {
  for (const char* id : {"ampere_mma_global", "ampere_cp_async", "ampere_ldmatrix"}) {
    DYNAMIC_SECTION(id) {
      auto k = open_kernel({.kernel_id = id, .only_traced_cta = true});
      const uint32_t last = uint32_t(k->trace().events.size() - 1);
      const RunningMmaSync m = running_mma_sync(*k, last, 0);
      REQUIRE(m.valid);
      CHECK(m.warp == 0);
      CHECK(k->kernel().insts[m.inst].op == ir::Op::mma_sync);
      check_product(m);
      // The last mma's D is what the warp stored: each stored element holds D's value.
      REQUIRE(m.rows_from >= 0);
      CHECK(m.rows_from % 16 == 0);
      CHECK(m.cols_from % 8 == 0);
      CHECK(m.rows_from >= m.tile_row0);
      CHECK(m.cols_from >= m.tile_col0);
      const layout::FragmentMap c = layout::mma_m16n8k16_c_layout();
      for (uint32_t l = 0; l < 32; ++l)
        for (uint32_t v = 0; v < 4; ++v) {
          const layout::Coord rc = c.at(int(l), int(v));
          CHECK(m.c_row[size_t(rc.row)][size_t(rc.col)] == m.rows_from + rc.row);
          CHECK(*mma_sync_value(m, MmaOperand::c, l, v) == c_at(*k, m.rows_from + rc.row, m.cols_from + rc.col));
        }
      CHECK_THAT(mma_sync_place_text(m), Catch::Contains(fmt::format("rows {}..{}", m.rows_from, m.rows_from + 15)));
    }
  }
}

TEST_CASE("mma.sync fragments: an earlier mma of the K loop reads C and writes a partial sum",
          "[gui][fragments][mma_sync]") {
  auto k = open_kernel({.kernel_id = "ampere_cp_async", .only_traced_cta = true});
  // The second execution of the first mma.sync of warp 0: its C is the first one's D.
  uint32_t inst = kNone;
  for (uint32_t i = 0; i < k->kernel().insts.size() && inst == kNone; ++i)
    if (k->kernel().insts[i].op == ir::Op::mma_sync) inst = i;
  REQUIRE(inst != kNone);
  std::vector<uint32_t> runs;
  for (uint32_t e : k->trace().executions_of(inst))
    if (k->trace().events[e].warp == 0) runs.push_back(e);
  REQUIRE(runs.size() >= 2);
  const RunningMmaSync first = running_mma_sync(*k, runs[0], 0), second = running_mma_sync(*k, runs[1], 0);
  REQUIRE(first.valid);
  REQUIRE(second.valid);
  CHECK(first.event == runs[0]);
  CHECK(second.event == runs[1]);
  check_product(first);
  check_product(second);
  for (uint32_t l = 0; l < 32; ++l)
    for (uint32_t v = 0; v < 4; ++v) CHECK(second.c.bits[l][v] == first.d.bits[l][v]);
}

TEST_CASE("mma.sync fragments: none before the first mma or in a kernel without one; the JSON follows the map",
          "[gui][fragments][mma_sync]") {
  auto hopper = open_kernel({.kernel_id = "hopper_tma_wgmma_64", .only_traced_cta = true});
  RunningMmaSync m = running_mma_sync(*hopper, uint32_t(hopper->trace().events.size() - 1));
  CHECK_FALSE(m.valid);
  CHECK(m.note == "this kernel has no mma.sync");
  AppState app;
  app.open_now({.kernel_id = "ampere_mma_global", .only_traced_cta = true});
  REQUIRE(app.kernel);
  m = running_mma_sync(*app.kernel, 0);
  CHECK_FALSE(m.valid);
  CHECK_THAT(m.note, Catch::Contains("no mma.sync has run yet"));
  app.fragment_view.map = "mma_a";
  app.seek(app.event_count() - 1);
  nlohmann::json j = describe_views(app)["fragments"];
  REQUIRE(j.contains("mma_sync"));
  CHECK(j["mma_sync"]["valid"] == true);
  CHECK(j["mma_sync"]["a_regs"].size() == 4);
  CHECK(j["mma_sync"]["b_regs"].size() == 2);
  CHECK(j["mma_sync"]["lane0_d"].size() == 4);
  app.selection.row = 0;
  app.selection.col = 0;
  j = describe_views(app)["fragments"];
  CHECK_THAT(j["selected"]["mma_sync_value"].get<std::string>(), Catch::Contains(" lo = "));
  app.fragment_view.map = "";
  CHECK_FALSE(describe_views(app)["fragments"].contains("mma_sync"));
}
