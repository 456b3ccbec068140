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
#include "engine/layout/op_traits.hpp"
#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;

// The view shows either the loaded kernel's output tile as its traced CTA stored it, or one of
// the op traits' fragment maps (layout::fragment_maps(), engine/layout/op_traits.def): the list,
// titles, labels, parameters and sources all come from that table, so a new map appears here
// without editing the GUI.
inline constexpr const char* kKernelTileTitle = "kernel's output tile";

struct FragmentViewOptions {
  std::string map;              // an id of layout::fragment_maps(); empty: the kernel's output tile
  int param = 0;                // the map's parameter (layout::MapParam); 0: its default
  bool color_by_thread = true;  // false: by warp only
};
// The table's map the options name, or nullptr for the kernel's output tile. Throws
// std::invalid_argument naming the valid ids for an unknown one.
const layout::OperandMap* chosen_fragment_map(const FragmentViewOptions& o);
// The parameter the grid is built with: o.param, or the map's default when o.param is 0.
int chosen_fragment_param(const layout::OperandMap& m, const FragmentViewOptions& o);
// "kernel's output tile" or the map's title: what the view's combo shows.
std::string fragment_map_title(const FragmentViewOptions& o);

// A map of the op traits whose instruction the kernel runs, with the parameter it runs it at (a
// map's parameter is the instruction's {n}, Inst::aux: wgmma's N, ldmatrix's and stmatrix's
// .xN). Step 19's stmatrix.x4 gives {stmatrix, 4}: how its accumulators reach the staging tile.
struct KernelFragmentMap {
  const layout::OperandMap* map = nullptr;
  int param = 0;
};
// Every (map, parameter) the kernel's instructions use, in the table's order, each once.
std::vector<KernelFragmentMap> kernel_fragment_maps(const ir::Kernel& k);
// The parameter the kernel runs map `m` at (its first use), or nullopt when it does not use it.
std::optional<int> kernel_map_param(const ir::Kernel& k, const layout::OperandMap& m);

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

// The grid for the options. The kernel's output tile when the traced CTA stored C from
// registers; otherwise an empty grid whose name says why (no kernel, nothing stored, TMA
// stores: then it names the maps of the kernel's instructions, e.g. stmatrix's, to choose). Throws std::invalid_argument for an unknown map or a parameter it does not take
// (from engine/layout); the view offers only valid ones.
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
