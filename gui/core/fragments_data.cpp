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

const layout::OperandMap* chosen_fragment_map(const FragmentViewOptions& o) {
  if (o.map.empty()) return nullptr;
  if (const layout::OperandMap* m = layout::find_fragment_map(o.map)) return m;
  std::string ids;
  for (const layout::OperandMap& m : layout::fragment_maps()) ids += fmt::format("{}{}", ids.empty() ? "" : ", ", m.id);
  throw std::invalid_argument(fmt::format("'{}' is not a fragment map: valid ones are {} (or none: the kernel's output tile)", o.map, ids));
}

int chosen_fragment_param(const layout::OperandMap& m, const FragmentViewOptions& o) {
  return o.param == 0 ? m.param.default_value : o.param;
}

std::string fragment_map_title(const FragmentViewOptions& o) {
  const layout::OperandMap* m = layout::find_fragment_map(o.map);
  return m ? std::string(m->title) : std::string(kKernelTileTitle);
}

std::vector<KernelFragmentMap> kernel_fragment_maps(const ir::Kernel& k) {
  std::vector<KernelFragmentMap> out;
  for (const layout::OperandMap& m : layout::fragment_maps())
    for (const ir::Inst& in : k.insts) {
      if (in.op != m.op) continue;
      const int param = m.param.takes_param() ? int(in.aux) : 0;
      const bool seen = std::any_of(out.begin(), out.end(), [&](const KernelFragmentMap& u) { return u.map == &m && u.param == param; });
      if (!seen && m.param.valid(param)) out.push_back({&m, param});
    }
  return out;
}

std::optional<int> kernel_map_param(const ir::Kernel& k, const layout::OperandMap& m) {
  for (const KernelFragmentMap& u : kernel_fragment_maps(k))
    if (u.map == &m) return u.param;
  return std::nullopt;
}

namespace {

// The output tile as the traced CTA really wrote it: every element of C its stores wrote,
// with the thread and register that wrote it (Trace::c_writes, recorded by the model), so the
// map is exact for any kernel with no per-kernel code here. Only the traced CTA's own warps
// count (a cluster's other CTAs are traced too), numbered from its warp 0, and only the first
// tile of C it wrote when the kernel declares its tiling (a persistent CTA writes many). A
// thread's values are numbered in the order it first stored each register; the tile's origin
// is the lowest row and column written. Empty, with `why` set, when there is no such map.
bool kernel_tile_map(const LoadedKernel& k, FragmentGrid& g, std::string& why) {
  const model::Trace& t = k.trace();
  const uint32_t n = k.report.shape.n;
  const uint32_t elem = k.report.c_dtype == kernels::DType::f32 ? 4 : 2;
  if (t.c_writes.empty() || n == 0) {
    why = "the traced CTA stored nothing to C";
    return false;
  }
  // The traced CTA's warps in the trace's numbering.
  uint32_t first_warp = 0;
  for (const model::TracedCta& c : t.ctas)
    if (c.linear == t.traced_cta) first_warp = c.first_warp;
  const uint32_t end_warp = first_warp + std::max<uint32_t>(t.warps_per_cta, 1);
  const ir::OutputTiling& tiling = k.kernel().output;
  struct Element {
    uint32_t thread, row, col, reg;
  };
  std::vector<Element> elements;
  uint32_t row0 = ~0u, col0 = ~0u, row1 = 0, col1 = 0, threads = 0, tile = kNone;
  bool from_shared = false;
  for (const model::CWrite& w : t.c_writes) {
    if (w.warp < first_warp || w.warp >= end_warp) continue;
    if (w.reg == kNone) {  // a TMA store's bytes: no register held them when they were stored
      from_shared = true;
      continue;
    }
    if (tiling.declared()) {
      const uint32_t in = tiling.tile_of(w.byte_offset);
      if (tile == kNone) tile = in;
      if (in != tile) continue;
    }
    for (uint32_t b = 0; b < w.bytes; b += elem) {
      const uint64_t e = (w.byte_offset + b) / elem;
      const Element x{uint32_t(w.warp - first_warp) * uint32_t(layout::kWarpLanes) + w.lane, uint32_t(e / n),
                      uint32_t(e % n), w.reg};
      row0 = std::min(row0, x.row), col0 = std::min(col0, x.col);
      row1 = std::max(row1, x.row), col1 = std::max(col1, x.col);
      threads = std::max(threads, x.thread + 1);
      elements.push_back(x);
    }
  }
  if (elements.empty()) {
    why = from_shared ? "the traced CTA stores C with TMA stores from shared memory: no thread's register holds an "
                        "element of C when it is stored, so there is no register map of the output tile"
                      : "the traced CTA stored nothing to C";
    // Where the registers went instead: the maps of the kernel's own instructions (stmatrix's
    // into the staging tile, the accumulator's), which the combo offers.
    std::string maps;
    for (const KernelFragmentMap& u : kernel_fragment_maps(k.kernel()))
      maps += fmt::format("{}'{}'{}", maps.empty() ? "" : ", ", u.map->title,
                          u.map->param.takes_param() ? fmt::format(" ({} = {})", u.map->param.name, u.param) : "");
    if (from_shared && !maps.empty()) why += fmt::format("; the maps of this kernel's instructions are {}: choose one above", maps);
    return false;
  }
  // Values per thread: the distinct registers it stored, in first-store order.
  std::vector<std::vector<uint32_t>> regs(threads);
  for (const Element& x : elements)
    if (std::find(regs[x.thread].begin(), regs[x.thread].end(), x.reg) == regs[x.thread].end())
      regs[x.thread].push_back(x.reg);
  size_t values = 1;
  for (const auto& r : regs) values = std::max(values, r.size());
  const int rows = int(row1 - row0 + 1), cols = int(col1 - col0 + 1);
  if (uint64_t(rows) * uint64_t(cols) > (1u << 20) || uint64_t(threads) * values > (1u << 20)) {
    why = fmt::format("the traced CTA's stores span {}x{} elements of C, too many to draw", rows, cols);
    return false;
  }
  std::vector<layout::Coord> table(size_t(threads) * values, layout::kUnmapped);
  for (const Element& x : elements) {
    const auto& r = regs[x.thread];
    const size_t v = size_t(std::find(r.begin(), r.end(), x.reg) - r.begin());
    table[size_t(x.thread) * values + v] = {int(x.row - row0), int(x.col - col0)};
  }
  try {
    g.map = layout::FragmentMap("stores of the traced CTA", int(threads), int(values), rows, cols, std::move(table));
  } catch (const std::exception& e) {
    why = e.what();
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

// The citation, and the probe that checks the map on a GPU where one does.
std::string fact_text(const layout::OperandMap& m) {
  if (m.basis() == layout::FactBasis::citation) return std::string(m.citation);
  return fmt::format("{}; probe: gemmscope probe {}", m.citation, m.probe);
}

}  // namespace

FragmentGrid fragment_grid(const LoadedKernel* k, const FragmentViewOptions& o) {
  FragmentGrid g;
  const layout::OperandMap* m = chosen_fragment_map(o);
  if (m) {
    g.map = m->build(chosen_fragment_param(*m, o));
    g.name = g.map.name;
    g.source = fact_text(*m);
    g.row_label = m->row_label;
    g.col_label = m->col_label;
    g.packed16 = m->packed16;
  } else {
    std::string why = "no kernel is open";
    g.from_kernel = k && kernel_tile_map(*k, g, why);
    if (!g.from_kernel) {
      g.name = why;
      g.source = "the model's record of the traced CTA's stores to C";
      return g;
    }
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
      cell = {t, v, layout::warp_of_thread(t), layout::lane_of_thread(t), m ? m->register_of(v) : v, m ? m->half_of(v) : -1};
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
  return a.map == b.map && a.param == b.param;
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
  j["kind"] = fragment_map_title(o);
  j["source"] = g.source;
  j["rows"] = g.rows;
  j["cols"] = g.cols;
  j["threads"] = g.threads;
  j["values_per_thread"] = g.values_per_thread;
  j["from_kernel"] = g.from_kernel;
  // The maps of the open kernel's instructions, with the parameter it runs each at.
  nlohmann::json used = nlohmann::json::array();
  if (app.kernel)
    for (const KernelFragmentMap& u : kernel_fragment_maps(app.kernel->kernel()))
      used.push_back({{"id", std::string(u.map->id)}, {"title", std::string(u.map->title)}, {"param", u.param}});
  j["kernel_maps"] = std::move(used);
  // A few cells: the corners and the first cells of the second row group.
  nlohmann::json sample = nlohmann::json::array();
  const int probes[][2] = {{0, 0}, {0, 1}, {1, 0}, {8, 0}, {0, 8}, {g.rows - 1, g.cols - 1}};
  for (const auto& p : probes) {
    if (p[0] < 0 || p[1] < 0 || p[0] >= g.rows || p[1] >= g.cols) continue;  // an empty grid has no corner
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
    if (const auto op = mma_operand_of_map(o); op && app.kernel && c.thread >= 0) {
      const RunningMmaSync m = running_mma_sync(*app.kernel, app.playback.position, app.selection.warp);
      s["mma_sync_value"] = mma_sync_value_text(*app.kernel, m, *op, uint32_t(c.lane), uint32_t(c.value));
    }
    j["selected"] = std::move(s);
  }
  // The kernel's own mma.sync at the cursor, for the m16n8k16 maps.
  if (mma_operand_of_map(o) && app.kernel)
    j["mma_sync"] = mma_sync_json(*app.kernel, running_mma_sync(*app.kernel, app.playback.position, app.selection.warp));
  return j;
}

}  // namespace gs::gui
