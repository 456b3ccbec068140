#include "gui/core/tiling_data.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/kernel_cache.hpp"
#include "gui/core/transport_data.hpp"

namespace gs::gui {

namespace {

// Tiles larger than this are drawn without their owners (a map of 1 M elements per frame).
constexpr uint64_t kMaxOwnerElements = 1u << 20;

void record_owners(const LoadedKernel& k, TilingData& d) {
  const model::Trace& t = k.trace();
  const ir::OutputTiling& out = k.kernel().output;
  const uint32_t elem = out.elem_bytes;
  for (const model::TracedCta& c : t.ctas)
    if (c.linear == t.traced_cta) d.first_warp = c.first_warp;
  const uint32_t end_warp = d.first_warp + std::max<uint32_t>(t.warps_per_cta, 1);
  // The traced CTA's first tile: the tile of its first store.
  for (const model::CWrite& w : t.c_writes)
    if (w.warp >= d.first_warp && w.warp < end_warp) {
      d.tile = out.tile_of(w.byte_offset);
      break;
    }
  if (d.tile == kNone) {
    d.owners_note = "the traced CTA stored nothing to C";
    return;
  }
  d.tile_row0 = d.tile / d.tiles_n * d.tile_rows;
  d.tile_col0 = d.tile % d.tiles_n * d.tile_cols;
  if (uint64_t(d.tile_rows) * d.tile_cols > kMaxOwnerElements) {
    d.owners_note = "the tile is too large to draw element by element";
    return;
  }
  d.owner_warp.assign(size_t(d.tile_rows) * d.tile_cols, -1);
  d.owner_lane.assign(d.owner_warp.size(), 0);
  bool registers = false, shared = false;
  for (const model::CWrite& w : t.c_writes) {
    if (w.warp < d.first_warp || w.warp >= end_warp) continue;
    (w.reg == kNone ? shared : registers) = true;
    for (uint32_t b = 0; b < w.bytes; b += elem) {
      const uint64_t e = (w.byte_offset + b) / elem;
      const uint32_t row = uint32_t(e / d.n), col = uint32_t(e % d.n);
      if (row < d.tile_row0 || col < d.tile_col0 || row - d.tile_row0 >= d.tile_rows ||
          col - d.tile_col0 >= d.tile_cols)
        continue;  // another tile (a persistent CTA's later ones)
      const size_t i = size_t(row - d.tile_row0) * d.tile_cols + (col - d.tile_col0);
      if (d.owner_warp[i] >= 0) continue;  // the first store of an element names its owner
      d.owner_warp[i] = int16_t(w.warp - d.first_warp);
      d.owner_lane[i] = w.lane;
    }
  }
  d.from_registers = registers && !shared;
  d.owners_note = d.from_registers
                      ? "each element coloured by the warp whose thread stored it from a register"
                      : "C is stored by TMA from shared memory: an element's colour is the warp that issued the copy, "
                        "not the thread that computed it";
  // Each warp's bounding box and count.
  std::vector<TilingWarp> warps(std::max<uint32_t>(t.warps_per_cta, 1));
  for (uint32_t w = 0; w < warps.size(); ++w) warps[w] = {uint16_t(w), ~0u, ~0u, 0, 0, 0};
  std::vector<std::array<uint32_t, 2>> last(warps.size(), {0, 0});
  for (uint32_t r = 0; r < d.tile_rows; ++r)
    for (uint32_t c = 0; c < d.tile_cols; ++c) {
      const int16_t o = d.owner_warp[size_t(r) * d.tile_cols + c];
      if (o < 0 || size_t(o) >= warps.size()) continue;
      TilingWarp& w = warps[size_t(o)];
      w.row0 = std::min(w.row0, r), w.col0 = std::min(w.col0, c);
      last[size_t(o)] = {std::max(last[size_t(o)][0], r), std::max(last[size_t(o)][1], c)};
      ++w.elements;
    }
  for (size_t i = 0; i < warps.size(); ++i)
    if (warps[i].elements) {
      warps[i].rows = last[i][0] - warps[i].row0 + 1;
      warps[i].cols = last[i][1] - warps[i].col0 + 1;
      d.warps.push_back(warps[i]);
    }
}

TilingData build(const LoadedKernel& k) {
  TilingData d;
  const ir::OutputTiling& out = k.kernel().output;
  d.m = k.report.shape.m;
  d.n = k.report.shape.n;
  d.k = k.report.shape.k;
  if (!out.declared()) {
    d.note = "this kernel declares no output tiling (ir::OutputTiling): its CTA tile is not known";
    return d;
  }
  d.available = true;
  d.tile_rows = out.tile_rows;
  d.tile_cols = out.tile_cols;
  d.tiles_m = out.tiles_m();
  d.tiles_n = out.tiles_n();
  d.k_step = k.info ? kernels::tile_of(*k.info, k.report.params).k : 0;  // the build's K chunk
  d.chunks = d.k_step ? (d.k + d.k_step - 1) / d.k_step : 0;
  record_owners(k, d);
  return d;
}

}  // namespace

const TilingData& tiling_data(const std::shared_ptr<const LoadedKernel>& kernel) {
  return cached_for_kernel<TilingData>(kernel, build);
}

TilingCursor tiling_cursor(AppState& app, const TilingData& d) {
  TilingCursor c;
  if (!app.kernel || !d.available) return c;
  const TransportInfo info = transport_info(app);
  c.k_iteration = info.k_iteration;
  c.k_iterations = info.k_iterations;
  // A persistent CTA's K iterations run on over its tiles: the chunk is the place within one.
  if (d.chunks && c.k_iteration > 0) c.chunk = (c.k_iteration - 1) % d.chunks;
  c.k_text = c.chunk == kNone ? (info.has_k_loop ? "before the first K chunk" : "the kernel declares no K loop")
                              : fmt::format("K chunk {} of {}: k {}..{}", c.chunk + 1, d.chunks, c.chunk * d.k_step,
                                            std::min(d.k, (c.chunk + 1) * d.k_step) - 1);
  const uint16_t selected = app.selection.warp == kNoWarp ? uint16_t(d.first_warp) : app.selection.warp;
  c.warp = uint16_t(selected >= d.first_warp ? selected - d.first_warp : 0);
  c.lane = app.selection.lane >= 0 ? uint32_t(app.selection.lane) : 0;
  for (uint32_t i = 0; i < d.owner_warp.size(); ++i)
    if (d.owner_warp[i] == int16_t(c.warp) && d.owner_lane[i] == c.lane)
      c.thread_cells.push_back({i / d.tile_cols, i % d.tile_cols});
  return c;
}

nlohmann::json describe_tiling(AppState& app) {
  const TilingData& d = tiling_data(app.kernel);
  const TilingCursor c = tiling_cursor(app, d);
  nlohmann::json warps = nlohmann::json::array();
  for (const TilingWarp& w : d.warps)
    warps.push_back({{"warp", w.warp},
                     {"origin", {w.row0, w.col0}},
                     {"extent", {w.rows, w.cols}},
                     {"elements", w.elements},
                     {"solid", w.solid()}});
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& [r, col] : c.thread_cells) cells.push_back({r, col});
  return {{"available", d.available},
          {"note", d.note},
          {"shape", {d.m, d.n, d.k}},
          {"cta_tile", {d.tile_rows, d.tile_cols}},
          {"tiles", {d.tiles_m, d.tiles_n}},
          {"k_step", d.k_step},
          {"chunks", d.chunks},
          {"tile", d.tile == kNone ? nlohmann::json(nullptr) : nlohmann::json(d.tile)},
          {"tile_origin", {d.tile_row0, d.tile_col0}},
          {"from_registers", d.from_registers},
          {"owners_note", d.owners_note},
          {"warps", warps},
          {"k_iteration", c.k_iteration},
          {"k_iterations", c.k_iterations},
          {"chunk", c.chunk == kNone ? nlohmann::json(nullptr) : nlohmann::json(c.chunk)},
          {"k_text", c.k_text},
          {"thread", {{"warp", c.warp}, {"lane", c.lane}, {"cells", cells}}}};
}

}  // namespace gs::gui
