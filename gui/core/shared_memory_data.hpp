// The prepared data of the shared-memory view: the allocation map of the kernel's shared
// window, the 32 banks of one access, and the swizzle grid. No ImGui; every number comes from
// engine/layout (banks.hpp, swizzle.hpp, wgmma_descriptor.hpp), never from a formula here.
//
// Which access the bank panel shows:
//   * the latest ld/st.shared at the playback position (Snapshot::last_smem), as the model
//     recorded it (the model runs layout::analyze_shared_access on every access);
//   * else, for kernels whose shared memory is read only by the tensor cores (the Hopper
//     steps issue no ld/st.shared), the rows that the latest wgmma reads through its A or B
//     descriptor: 4 core matrices of 8 rows x 16 B (rows r0..r0+15, k bytes 0..31 of the k16
//     slice), each core matrix analysed as one quarter-warp phase of a 16-byte access. This
//     is a picture of the address pattern, not a documented wavefront count of the tensor
//     core's own shared-memory port;
//   * or one of the classic constructed patterns (BankPattern) so a learner can compare.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir/kernel.hpp"
#include "engine/layout/swizzle.hpp"
#include "gui/core/session.hpp"

namespace gs::gui {

struct AppState;
struct Snapshot;

enum class BankPattern : uint8_t {
  current,             // the kernel's access at the cursor (ld/st.shared or wgmma read)
  column_unswizzled,   // lane l reads 16 B of row l, chunk 0, rows of 128 B: 8-way conflict
  row_unswizzled,      // lanes 8p..8p+7 read the 8 chunks of row p: conflict-free
  column_swizzled,     // the column under 128B swizzle: conflict-free
  row_swizzled,        // the row under 128B swizzle: conflict-free
  count_,
};
const char* bank_pattern_name(BankPattern p);

enum class WgmmaOperand : uint8_t { a, b };

// The shared-memory view's own choices, kept in AppState so describe_shared_memory() reports
// what the view shows.
struct SmemViewOptions {
  BankPattern pattern = BankPattern::current;
  WgmmaOperand operand = WgmmaOperand::a;
  int swizzle = -1;         // -1: the selected tile's mode; else a layout::Swizzle value
  uint32_t tile = kNone;    // allocation index for the swizzle grid; kNone: the first tile
};

// ---- allocation map -----------------------------------------------------------------------

struct AllocationBar {
  uint32_t index = 0;       // into kernel.smem
  std::string name;
  uint32_t offset = 0;      // from the start of gs_smem
  uint32_t addr = 0;        // shared byte address the model and the GPU use (offset + window base)
  uint32_t bytes = 0;
  ir::SmemUse use = ir::SmemUse::other;
  layout::Swizzle swizzle = layout::Swizzle::none;
  bool tma_destination = false;  // the latest TMA transfer writes into it
  bool accessed = false;         // the access in the bank panel touches it
};

const char* smem_use_name(ir::SmemUse u);
// The shared address of byte 0 of gs_smem in the model (and on the GPU: the 1 KiB the driver
// reserves comes first).
uint32_t smem_window_base();
// The allocations in address order, with the current TMA destination and access marked.
std::vector<AllocationBar> allocation_map(const LoadedKernel& k, const Snapshot& s,
                                          const std::vector<uint32_t>& access_addrs);
// The allocation containing a shared address, or kNone.
uint32_t allocation_at(const ir::Kernel& kernel, uint32_t addr);

// ---- bank panel -----------------------------------------------------------------------------

struct SmemLane {
  uint32_t lane = 0;
  uint32_t addr = 0;
  uint32_t bank = 0;
  uint32_t word = 0;        // addr / 4: lanes asking for the same word share it (broadcast)
  uint32_t wavefront = 0;
  // wgmma reads only: which operand row and 16-byte k chunk the lane stands for, and where
  // the byte the descriptor means actually lies given how the TMA wrote the tile.
  int row = -1, chunk = -1;
  uint32_t data_addr = 0;
  bool reads_meant_data = true;
};

struct BankAccess {
  bool valid = false;
  std::string source;       // "ld/st.shared", "wgmma descriptor read", "tcgen05.mma descriptor read", "pattern"
  bool tensor_read = false; // the tensor core's read through a descriptor (the fields below)
  std::string title;        // what the lanes are, in words
  std::string note;         // why there is nothing, or a caveat
  uint32_t event = kNone;   // the trace event shown
  uint32_t inst = kNone;
  uint16_t warp = kNoWarp;
  uint32_t access_bytes = 4;
  bool store = false;
  std::vector<SmemLane> lanes;
  uint32_t wavefronts = 0, ideal_wavefronts = 0, conflict_degree = 0;
  bool broadcast = false;
  // ld.shared that ptxas merged (model::SmemAccess): this one rides on instruction folded_into
  // (kNone: not merged), or folded_loads others ride on this one.
  uint32_t folded_into = kNone;
  uint32_t folded_loads = 0;
  // wgmma reads: the descriptor, its swizzle, the swizzle the TMA wrote the data with, and the
  // same analysis for the addresses the data really sits at.
  std::string descriptor;
  layout::Swizzle descriptor_swizzle = layout::Swizzle::none;
  layout::Swizzle data_swizzle = layout::Swizzle::none;
  uint32_t mismatched_lanes = 0;
  uint32_t data_wavefronts = 0, data_conflict_degree = 0;
};

// "3 wavefronts, ideal 1: 3-way conflict" / "4 wavefronts, ideal 4: conflict-free".
std::string bank_verdict(uint32_t wavefronts, uint32_t ideal, uint32_t degree);

// The bank panel's boxes: for each (wavefront, bank), row-major with 32 banks a row, the indices
// into a.lanes of the lanes that wavefront serves from that bank (a lane of an access wider
// than 4 B appears in every bank it touches). max(1, wavefronts) rows.
std::vector<std::vector<uint32_t>> bank_grid_cells(const BankAccess& a);

// One of the constructed patterns over a tile of 128-byte rows starting at base (a multiple of
// 1024 so that the swizzle of the absolute address equals the swizzle inside the tile).
BankAccess constructed_access(BankPattern pattern, uint32_t base);
// The latest ld/st.shared at or before the snapshot, as recorded.
BankAccess recorded_access(const LoadedKernel& k, const Snapshot& s);
// The tensor core's first batch of reads of operand A or B (16 rows x 32 B) that the model
// recorded for a wgmma's wgmma_issue event or a tcgen05.mma's tmem_op event, with each lane's
// row and chunk as recorded.
BankAccess tensor_read_access(const LoadedKernel& k, uint32_t event, WgmmaOperand operand);
// The event of tensor-core reads the view shows at a snapshot (wgmma or tcgen05.mma): the
// latest at or before it, else the first.
uint32_t tensor_read_event_for(const LoadedKernel& k, const Snapshot& s);
// What the bank panel shows for the options.
BankAccess current_access(const LoadedKernel& k, const Snapshot& s, const SmemViewOptions& o);

// ---- swizzle grid ---------------------------------------------------------------------------

struct SwizzleCell {
  uint32_t row = 0, logical_chunk = 0, physical_chunk = 0;
  uint32_t logical_addr = 0, physical_addr = 0;
  uint32_t xor_bits = 0;
};

struct SwizzleGrid {
  layout::Swizzle mode = layout::Swizzle::none;
  uint32_t base = 0;        // shared address of the first row's chunk 0
  uint32_t first_row = 0;   // the tile row the grid starts at (cells carry tile rows)
  uint32_t tile = kNone;    // the allocation shown (swizzle_grid_for), kNone if none
  uint32_t row_bytes = 128; // the swizzle span (128 B for none)
  uint32_t rows = 8, chunks = 8;
  std::vector<SwizzleCell> cells;  // rows * chunks, row-major by logical (row, chunk)
  // grid_row counts from the grid's first row (0..rows-1), not the tile's.
  const SwizzleCell& at(uint32_t grid_row, uint32_t chunk) const { return cells[grid_row * chunks + chunk]; }
};

// Rows of the mode's span (128 B for none), 16-byte chunks, physical = layout::swizzle_address.
// base is the address of tile row first_row.
SwizzleGrid swizzle_grid(layout::Swizzle mode, uint32_t base, uint32_t rows = 8, uint32_t first_row = 0);
// "row 3, chunk 1 -> chunk 2: bits [4:6] ^= bits [7:9] = 011".
std::string swizzle_cell_text(const SwizzleGrid& g, const SwizzleCell& c);
// The allocation the swizzle grid shows: options.tile, else the tile the access reads, else the
// TMA destination, else the first tile; kNone when the kernel has no shared memory.
uint32_t swizzle_tile(const LoadedKernel& k, const Snapshot& s, const SmemViewOptions& o,
                      const BankAccess* access = nullptr);
layout::Swizzle swizzle_mode_for(const LoadedKernel& k, uint32_t tile, const SmemViewOptions& o);
// The grid the view draws: the chosen tile and mode, 8 rows (one swizzle repeat) starting at
// the repeat that holds the access's first lane when the access reads this tile, so the
// lanes of the bank panel can be marked in it.
SwizzleGrid swizzle_grid_for(const LoadedKernel& k, const Snapshot& s, const SmemViewOptions& o,
                             const BankAccess& access);

nlohmann::json bank_access_json(const BankAccess& a);

}  // namespace gs::gui
