#include "gui/core/fragments_data.hpp"

#include "gui/core/colors.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/mma_sync_data.hpp"
#include "gui/core/view_data.hpp"

namespace gs::gui {

using model::EventKind;

const char* fragment_map_kind_name(FragmentMapKind k) {
  switch (k) {
    case FragmentMapKind::kernel_tile: return "kernel's output tile";
    case FragmentMapKind::wgmma_accumulator: return "wgmma accumulator (m64nNk16 D)";
    case FragmentMapKind::wgmma_a_register: return "wgmma register A (m64k16)";
    case FragmentMapKind::mma_a: return "mma.sync m16n8k16 A";
    case FragmentMapKind::mma_b: return "mma.sync m16n8k16 B";
    case FragmentMapKind::mma_c: return "mma.sync m16n8k16 C/D";
    case FragmentMapKind::ldmatrix: return "ldmatrix m8n8";
    case FragmentMapKind::tcgen05_32x32b: return "tcgen05.ld 32x32b";
    case FragmentMapKind::count_: break;
  }
  return "?";
}

namespace {

// The first instruction of an op, or nullptr.
// The output tile as the traced CTA really wrote it: every element of C its stores wrote,
// with the thread and register that wrote it (Trace::c_writes, recorded by the model), so the
// map is exact for any kernel with no per-kernel code here. A thread's values are numbered in
// the order it first stored each register; the tile's origin is the lowest row and column
// written. false when the traced CTA wrote nothing to C (or the writes do not fit a map).
bool kernel_tile_map(const LoadedKernel& k, FragmentGrid& g) {
  const model::Trace& t = k.trace();
  const uint32_t n = k.report.shape.n;
  const uint32_t elem = k.report.c_dtype == kernels::DType::f32 ? 4 : 2;
  if (t.c_writes.empty() || n == 0) return false;
  struct Element {
    uint32_t thread, row, col, reg;
  };
  std::vector<Element> elements;
  uint32_t row0 = ~0u, col0 = ~0u, row1 = 0, col1 = 0, threads = 0;
  for (const model::CWrite& w : t.c_writes)
    for (uint32_t b = 0; b < w.bytes; b += elem) {
      const uint64_t e = (w.byte_offset + b) / elem;
      const Element x{uint32_t(w.warp) * 32 + w.lane, uint32_t(e / n), uint32_t(e % n), w.reg};
      row0 = std::min(row0, x.row), col0 = std::min(col0, x.col);
      row1 = std::max(row1, x.row), col1 = std::max(col1, x.col);
      threads = std::max(threads, x.thread + 1);
      elements.push_back(x);
    }
  // Values per thread: the distinct registers it stored, in first-store order.
  std::vector<std::vector<uint32_t>> regs(threads);
  for (const Element& x : elements)
    if (std::find(regs[x.thread].begin(), regs[x.thread].end(), x.reg) == regs[x.thread].end())
      regs[x.thread].push_back(x.reg);
  size_t values = 1;
  for (const auto& r : regs) values = std::max(values, r.size());
  const int rows = int(row1 - row0 + 1), cols = int(col1 - col0 + 1);
  if (uint64_t(rows) * uint64_t(cols) > (1u << 20) || uint64_t(threads) * values > (1u << 20)) return false;
  std::vector<layout::Coord> table(size_t(threads) * values, layout::kUnmapped);
  for (const Element& x : elements) {
    const auto& r = regs[x.thread];
    const size_t v = size_t(std::find(r.begin(), r.end(), x.reg) - r.begin());
    table[size_t(x.thread) * values + v] = {int(x.row - row0), int(x.col - col0)};
  }
  try {
    g.map = layout::FragmentMap("stores of the traced CTA", int(threads), int(values), rows, cols, std::move(table));
  } catch (const std::exception&) {
    return false;
  }
  g.name = fmt::format("C as the traced CTA stored it (rows {}.., columns {}..)", row0, col0);
  g.source = "the model's record of the traced CTA's stores to C (thread and register of each element)";
  // Value v's register as thread 0 (the first thread that stored) numbered them.
  for (const auto& r : regs)
    if (!r.empty()) {
      g.value_regs = r;
      break;
    }
  return true;
}

}  // namespace

FragmentGrid fragment_grid(const LoadedKernel* k, const FragmentViewOptions& o) {
  FragmentGrid g;
  bool done = false;
  if (o.kind == FragmentMapKind::kernel_tile && k) done = kernel_tile_map(*k, g), g.from_kernel = done;
  if (!done) {
    g.value_regs.clear();
    switch (o.kind) {
      case FragmentMapKind::kernel_tile:
      case FragmentMapKind::wgmma_accumulator:
        g.map = layout::wgmma_accumulator_layout(o.kind == FragmentMapKind::kernel_tile ? 64 : o.wgmma_n);
        g.source = "facts §1.5 (PTX ISA wgmma D fragment; [DEV] N=16)";
        break;
      case FragmentMapKind::wgmma_a_register:
        g.map = layout::wgmma_a_register_layout();
        g.source = "facts §1.5 ([CUTLASS ALayout_64x16])";
        g.packed16 = true;
        g.col_label = "k";
        break;
      case FragmentMapKind::mma_a:
        g.map = layout::mma_m16n8k16_a_layout();
        g.source = "facts §2 (PTX ISA mma.m16n8k16 fragments)";
        g.packed16 = true;
        g.col_label = "k";
        break;
      case FragmentMapKind::mma_b:
        g.map = layout::mma_m16n8k16_b_layout();
        g.source = "facts §2 (PTX ISA mma.m16n8k16 fragments)";
        g.packed16 = true;
        g.row_label = "k";
        g.col_label = "n";
        break;
      case FragmentMapKind::mma_c:
        g.map = layout::mma_m16n8k16_c_layout();
        g.source = "facts §2 (PTX ISA mma.m16n8k16 fragments)";
        break;
      case FragmentMapKind::ldmatrix:
        g.map = layout::ldmatrix_layout(o.ldmatrix_x, o.ldmatrix_trans);
        g.source = "facts §2 (ldmatrix; matrix j stacked as rows 8j..8j+7)";
        g.packed16 = true;
        break;
      case FragmentMapKind::tcgen05_32x32b:
        g.map = layout::tcgen05_ld_32x32b_layout(o.tcgen05_x);
        g.source = "facts §9.3 (CUTLASS only, not checked on hardware)";
        g.row_label = "TMEM lane";
        g.col_label = "column";
        break;
      case FragmentMapKind::count_: break;
    }
    g.name = g.map.name;
  }
  g.rows = g.map.rows;
  g.cols = g.map.cols;
  g.threads = g.map.threads;
  g.values_per_thread = g.map.values_per_thread;
  g.cells.assign(size_t(g.rows) * size_t(g.cols), FragmentCell{});
  for (int t = 0; t < g.threads; ++t)
    for (int v = 0; v < g.values_per_thread; ++v) {
      const layout::Coord c = g.map.table[size_t(t) * size_t(g.values_per_thread) + size_t(v)];
      if (c == layout::kUnmapped) continue;  // an observed map: this thread stored fewer values
      FragmentCell& cell = g.cells[size_t(c.row) * size_t(g.cols) + size_t(c.col)];
      if (cell.thread >= 0) continue;  // not a bijection: keep the first, as FragmentMap::owner does
      cell = {t, v, t / 32, t % 32, g.packed16 ? v / 2 : v, g.packed16 ? v % 2 : -1};
    }
  return g;
}

std::optional<uint32_t> register_value_at(const LoadedKernel& k, uint32_t position, uint16_t warp, uint32_t reg,
                                          uint32_t lane) {
  const model::Trace& t = k.trace();
  const auto& writes = t.of_kind(EventKind::reg_write);
  if (lane >= 32) return std::nullopt;
  // The latest write at or before the position by this warp to this register covering the lane.
  auto it = std::upper_bound(writes.begin(), writes.end(), position);
  while (it != writes.begin()) {
    --it;
    const model::Event& e = t.events[*it];
    if (e.warp != warp || e.payload >= t.regs.size() || !(e.mask >> lane & 1)) continue;
    const model::RegWrite& w = t.regs[e.payload];
    if (w.reg != reg) continue;
    // The low word (32-bit view) of what the lane wrote.
    return uint32_t(t.reg_value(w, lane));
  }
  return std::nullopt;
}

std::string fragment_cell_text(const FragmentGrid& g, int row, int col) {
  if (row < 0 || col < 0 || row >= g.rows || col >= g.cols) return "";
  const FragmentCell& c = g.at(row, col);
  if (c.thread < 0) return fmt::format("({} {}, {} {}): no owner", g.row_label, row, g.col_label, col);
  const std::string who = g.threads > 32 ? fmt::format("t{} (warp {}, lane {})", c.thread, c.warp, c.lane)
                                         : fmt::format("lane {}", c.lane);
  const std::string what = g.packed16 ? fmt::format("v{} = reg {} {} half", c.value, c.reg, c.half ? "high" : "low")
                                      : fmt::format("reg {}", c.reg);
  return fmt::format("{} {} <-> ({} {}, {} {})", who, what, g.row_label, row, g.col_label, col);
}

namespace {

bool same_grid_options(const FragmentViewOptions& a, const FragmentViewOptions& b) {
  return a.kind == b.kind && a.wgmma_n == b.wgmma_n && a.ldmatrix_x == b.ldmatrix_x &&
         a.ldmatrix_trans == b.ldmatrix_trans && a.tcgen05_x == b.tcgen05_x;
}

}  // namespace

const FragmentGrid* cached_fragment_grid(FragmentGridCache& cache, const std::shared_ptr<const LoadedKernel>& k,
                                         const FragmentViewOptions& o, std::string& error) {
  const bool same_kernel = cache.has_kernel == bool(k) && cache.kernel.lock() == k;
  if (!cache.valid || !same_kernel || !same_grid_options(cache.options, o)) {
    cache = FragmentGridCache{};
    cache.kernel = k;
    cache.has_kernel = bool(k);
    cache.options = o;
    try {
      cache.grid = fragment_grid(k.get(), o);
    } catch (const std::exception& e) {
      cache.error = e.what();
    }
    cache.valid = true;
  }
  error = cache.error;
  return cache.error.empty() ? &cache.grid : nullptr;
}

nlohmann::json describe_fragments(AppState& app) {
  nlohmann::json j;
  const FragmentViewOptions& o = app.fragment_view;
  FragmentGrid g;
  try {
    g = fragment_grid(app.kernel.get(), o);
  } catch (const std::exception& e) {
    return {{"error", e.what()}};
  }
  j["map"] = g.name;
  j["kind"] = fragment_map_kind_name(o.kind);
  j["source"] = g.source;
  j["rows"] = g.rows;
  j["cols"] = g.cols;
  j["threads"] = g.threads;
  j["values_per_thread"] = g.values_per_thread;
  j["from_kernel"] = g.from_kernel;
  // A few cells: the corners and the first cells of the second row group.
  nlohmann::json sample = nlohmann::json::array();
  const int probes[][2] = {{0, 0}, {0, 1}, {1, 0}, {8, 0}, {0, 8}, {g.rows - 1, g.cols - 1}};
  for (const auto& p : probes) {
    if (p[0] >= g.rows || p[1] >= g.cols) continue;
    const FragmentCell& c = g.at(p[0], p[1]);
    nlohmann::json cell = {{"row", p[0]}, {"col", p[1]}, {"thread", c.thread}, {"value", c.value}, {"warp", c.warp},
                           {"lane", c.lane}, {"reg", c.reg}};
    // The colour the view fills the cell with (the headless test finds it in the screenshot).
    if (c.thread >= 0)
      cell["rgb"] = o.color_by_thread ? lane_rgb(uint32_t(c.warp), uint32_t(c.lane)) : warp_rgb(uint32_t(c.warp));
    sample.push_back(std::move(cell));
  }
  j["cells_sample"] = std::move(sample);
  const Selection& sel = app.selection;
  j["selected"] = nullptr;
  if (sel.row >= 0 && sel.col >= 0 && sel.row < g.rows && sel.col < g.cols) {
    const FragmentCell& c = g.at(sel.row, sel.col);
    nlohmann::json s = {{"row", sel.row}, {"col", sel.col}, {"thread", c.thread}, {"value", c.value},
                        {"warp", c.warp}, {"lane", c.lane}, {"reg", c.reg}, {"text", fragment_cell_text(g, sel.row, sel.col)}};
    if (g.from_kernel && app.kernel && c.value >= 0 && size_t(c.value) < g.value_regs.size()) {
      const uint32_t reg = g.value_regs[size_t(c.value)];
      if (reg < app.kernel->ptx.reg_names.size()) s["register"] = app.kernel->ptx.reg_names[reg];
      if (auto v = register_value_at(*app.kernel, app.playback.position, uint16_t(c.warp), reg, uint32_t(c.lane))) {
        float f;
        std::memcpy(&f, &*v, 4);
        s["value_bits"] = *v;
        s["value_f32"] = f;
      }
    }
    if (const auto op = mma_operand_of_map(o.kind); op && app.kernel && c.thread >= 0) {
      const RunningMmaSync m = running_mma_sync(*app.kernel, app.playback.position, app.selection.warp);
      s["mma_sync_value"] = mma_sync_value_text(*app.kernel, m, *op, uint32_t(c.lane), uint32_t(c.value));
    }
    j["selected"] = std::move(s);
  }
  // The kernel's own mma.sync at the cursor, for the m16n8k16 maps.
  if (mma_operand_of_map(o.kind) && app.kernel)
    j["mma_sync"] = mma_sync_json(*app.kernel, running_mma_sync(*app.kernel, app.playback.position, app.selection.warp));
  return j;
}

}  // namespace gs::gui
