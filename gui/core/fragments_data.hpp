// The prepared data of the fragments view: which (thread, value) of a warp or warpgroup holds
// each (row, col) of a tile, as a grid the view colours by warp and thread. The maps come from
// engine/layout/fragments.hpp; the "kernel tile" choice picks the map the loaded kernel's
// output tile really uses and links each value to the register that holds it, so the view can
// show the register's value at the playback position.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/layout/fragments.hpp"
#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;

enum class FragmentMapKind : uint8_t {
  kernel_tile,        // the loaded kernel's output tile
  wgmma_accumulator,  // m64nNk16 f32 D, any N
  wgmma_a_register,   // register-A of wgmma (bf16)
  mma_a,              // mma.sync m16n8k16 A / B / C
  mma_b,
  mma_c,
  ldmatrix,           // ldmatrix .x1/.x2/.x4 (.trans)
  tcgen05_32x32b,     // tcgen05.ld.32x32b.xN
  count_,
};
const char* fragment_map_kind_name(FragmentMapKind k);

struct FragmentViewOptions {
  FragmentMapKind kind = FragmentMapKind::kernel_tile;
  int wgmma_n = 64;         // 8..256 step 8
  int ldmatrix_x = 4;       // 1, 2, 4
  bool ldmatrix_trans = false;
  int tcgen05_x = 32;       // power of two 1..128
  bool color_by_thread = true;  // false: by warp only
};

// One element's owner in the grid.
struct FragmentCell {
  int thread = -1, value = -1;  // -1: nobody holds it
  int warp = -1, lane = -1;
  int reg = -1;                 // the b32 register of the value (value/2 for 16-bit operands)
  int half = -1;                // 0 low / 1 high half for 16-bit operands, -1 for 32-bit
};

struct FragmentGrid {
  std::string name;             // "wgmma m64n64k16 accumulator"
  std::string source;           // where the map comes from ("facts §1.5", ...)
  std::string row_label = "row", col_label = "col";
  int rows = 0, cols = 0;
  int threads = 0, values_per_thread = 0;
  bool packed16 = false;        // two 16-bit values per b32 register
  bool from_kernel = false;     // the loaded kernel's own tile: values are registers it writes
  std::vector<uint32_t> value_regs;  // from_kernel: [value] -> the kernel's register id
  std::vector<FragmentCell> cells;   // rows * cols, row-major
  const FragmentCell& at(int row, int col) const { return cells[size_t(row) * size_t(cols) + size_t(col)]; }
  layout::FragmentMap map;
};

// The grid for the options. A kernel with no known map (or no kernel) gets the wgmma
// accumulator for kind == kernel_tile. Throws std::invalid_argument for out-of-range options
// (from engine/layout); the view clamps them before calling.
FragmentGrid fragment_grid(const LoadedKernel* k, const FragmentViewOptions& o);

// The view's grid between frames (a 64x256 map is 16K cells: too many to tabulate every
// frame). Keyed on the kernel (a weak_ptr, so a new kernel at a freed one's address is told
// apart) and on the options that shape the grid; colour_by_thread does not.
struct FragmentGridCache {
  std::weak_ptr<const LoadedKernel> kernel;
  bool has_kernel = false;
  FragmentViewOptions options;
  FragmentGrid grid;
  std::string error;  // fragment_grid's exception message
  bool valid = false;
};
// fragment_grid through the cache: rebuilt only when the kernel or the map options change.
// Null (and `error` set) when the options are out of range.
const FragmentGrid* cached_fragment_grid(FragmentGridCache& cache, const std::shared_ptr<const LoadedKernel>& k,
                                         const FragmentViewOptions& o, std::string& error);

// The value of register `reg` of (warp, lane) as last written at or before the playback
// position, read from the trace's register writes; nullopt when the trace has none. The one
// place that reads model::RegWrite (its layout may change).
std::optional<uint32_t> register_value_at(const LoadedKernel& k, uint32_t position, uint16_t warp, uint32_t reg,
                                          uint32_t lane);

// "t37 (warp 1, lane 5) v6 = reg 6 <-> (row 24, col 11)".
std::string fragment_cell_text(const FragmentGrid& g, int row, int col);

}  // namespace gs::gui
