// The Tiling view's data: how the running kernel cuts the GEMM, level by level, from what it
// declares and what the model recorded, with no per-kernel code: C (M x N) in the CTA tiles the
// kernel declares (ir::OutputTiling), the traced CTA's tile, inside it the elements each warp
// and each thread stored (the model's record of the traced CTA's stores to C,
// model::Trace::c_writes), and the A row panel and B column panel the CTA walks in K chunks of
// the build's K step (kernels::tile_of: a SIMT step's bk), the chunk at the playback cursor from the
// declared K loops (Builder::k_loop; the transport's K iteration). No ImGui.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;

// The part of the CTA's tile one warp stored: its bounding box (tile coordinates) and whether
// its elements fill it (a warp tile) or are spread (a wgmma warp's rows, a strided layout).
struct TilingWarp {
  uint16_t warp = 0;  // numbered in the traced CTA
  uint32_t row0 = 0, col0 = 0, rows = 0, cols = 0;
  uint32_t elements = 0;
  bool solid() const { return uint64_t(rows) * cols == elements; }
};

struct TilingData {
  bool available = false;
  std::string note;                       // why not
  uint32_t m = 0, n = 0, k = 0;           // the GEMM
  uint32_t tile_rows = 0, tile_cols = 0;  // the CTA tile the kernel declares (ir::OutputTiling)
  uint32_t tiles_m = 0, tiles_n = 0;
  uint32_t k_step = 0, chunks = 0;        // the build's K step (kernels::tile_of), and K chunks of it a tile takes
  uint32_t tile = kNone;                  // the traced CTA's first tile (row-major), kNone: none stored
  uint32_t tile_row0 = 0, tile_col0 = 0;  // its origin in C
  // Who stored each element of that tile: [row * tile_cols + col] the warp in the CTA, -1 none,
  // and its lane. Empty when the stores name no thread (owners_note says why).
  std::vector<int16_t> owner_warp;
  std::vector<uint8_t> owner_lane;
  bool from_registers = false;  // false: TMA stores (their warp issued the copy)
  std::string owners_note;
  std::vector<TilingWarp> warps;  // the CTA's warps that stored, by warp
  uint32_t first_warp = 0;        // the traced CTA's warp 0 as a trace warp
};

// At the playback cursor: the K chunk, and the thread whose outputs are marked.
struct TilingCursor {
  uint32_t k_iteration = 0, k_iterations = 0;  // the transport's (1-based; 0 before the first)
  uint32_t chunk = kNone;                      // 0-based chunk of K within the tile, kNone: none yet
  uint16_t warp = 0;                           // the selected warp (in the CTA), lane 0 unless selected
  uint32_t lane = 0;
  std::vector<std::pair<uint32_t, uint32_t>> thread_cells;  // (row, col) in the tile
  std::string k_text;                                       // "K chunk 3 of 8: k 128..191"
};

// Built once per kernel (kernel_cache.hpp).
const TilingData& tiling_data(const std::shared_ptr<const LoadedKernel>& kernel);
TilingCursor tiling_cursor(AppState& app, const TilingData& d);
nlohmann::json describe_tiling(AppState& app);

}  // namespace gs::gui
