#include "gui/core/shared_memory_data.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "engine/layout/banks.hpp"
#include "engine/layout/op_traits.hpp"
#include "engine/layout/wgmma_descriptor.hpp"
#include "engine/model/timing.hpp"
#include "gui/core/app_state.hpp"
#include "gui/core/playback.hpp"
#include "gui/core/view_data.hpp"

namespace gs::gui {

using model::EventKind;

const char* bank_pattern_name(BankPattern p) {
  switch (p) {
    case BankPattern::current: return "the kernel's access";
    case BankPattern::column_unswizzled: return "column, no swizzle";
    case BankPattern::row_unswizzled: return "row, no swizzle";
    case BankPattern::column_swizzled: return "column, 128B swizzle";
    case BankPattern::row_swizzled: return "row, 128B swizzle";
    case BankPattern::count_: break;
  }
  return "?";
}

const char* smem_use_name(ir::SmemUse u) {
  switch (u) {
    case ir::SmemUse::tile: return "tile";
    case ir::SmemUse::mbarrier: return "mbarrier";
    case ir::SmemUse::staging: return "staging";
    case ir::SmemUse::other: return "other";
  }
  return "?";
}

uint32_t smem_window_base() { return model::timing::kSmemBaseAddress; }

uint32_t allocation_at(const ir::Kernel& kernel, uint32_t addr) {
  for (uint32_t i = 0; i < kernel.smem.size(); ++i) {
    const uint32_t lo = smem_window_base() + kernel.smem[i].offset;
    if (addr >= lo && addr < lo + kernel.smem[i].bytes) return i;
  }
  return kNone;
}

std::vector<AllocationBar> allocation_map(const LoadedKernel& k, const Snapshot& s,
                                          const std::vector<uint32_t>& access_addrs) {
  const ir::Kernel& kernel = k.kernel();
  const model::Trace& t = k.trace();
  uint32_t tma_dst = kNone;
  if (s.last_tma != kNone && s.last_tma < t.events.size()) {
    const uint32_t p = t.events[s.last_tma].payload;
    if (p < t.tma.size()) tma_dst = t.tma[p].smem_dst;
  }
  std::vector<AllocationBar> bars;
  for (uint32_t i = 0; i < kernel.smem.size(); ++i) {
    const ir::SharedAlloc& a = kernel.smem[i];
    AllocationBar b{i, a.name, a.offset, smem_window_base() + a.offset, a.bytes, a.use, a.swizzle};
    b.tma_destination = tma_dst != kNone && tma_dst >= b.addr && tma_dst < b.addr + b.bytes;
    b.accessed = std::any_of(access_addrs.begin(), access_addrs.end(),
                             [&](uint32_t x) { return x >= b.addr && x < b.addr + b.bytes; });
    bars.push_back(std::move(b));
  }
  std::sort(bars.begin(), bars.end(), [](const AllocationBar& x, const AllocationBar& y) { return x.offset < y.offset; });
  return bars;
}

std::string bank_verdict(uint32_t wavefronts, uint32_t ideal, uint32_t degree) {
  const std::string head = fmt::format("{} wavefront{}, ideal {}", wavefronts, wavefronts == 1 ? "" : "s", ideal);
  if (degree <= 1) return head + ": conflict-free";
  return head + fmt::format(": {}-way conflict", degree);
}

namespace {

// Runs the bank model over (lane, addr) pairs and fills the lanes and totals.
void analyse_into(BankAccess& a, const std::vector<layout::LaneAccess>& accesses) {
  const layout::BankReport r = layout::analyze_shared_access(accesses, a.access_bytes);
  a.wavefronts = r.wavefronts;
  a.ideal_wavefronts = r.ideal_wavefronts;
  a.conflict_degree = r.conflict_degree;
  a.broadcast = r.broadcast_used;
  a.lanes.clear();
  for (const layout::LaneAccess& la : accesses) {
    SmemLane l;
    l.lane = la.lane;
    l.addr = la.addr;
    l.bank = r.lane_bank[la.lane];
    l.word = la.addr / layout::kSmemBankBytes;
    l.wavefront = r.lane_wavefront[la.lane];
    a.lanes.push_back(l);
  }
  a.valid = true;
}

}  // namespace

std::vector<std::vector<uint32_t>> bank_grid_cells(const BankAccess& a) {
  const uint32_t rows = std::max<uint32_t>(1, a.wavefronts);
  const uint32_t words = std::max<uint32_t>(1, a.access_bytes / 4);
  std::vector<std::vector<uint32_t>> cell(size_t(rows) * 32);
  for (size_t i = 0; i < a.lanes.size(); ++i) {
    const SmemLane& l = a.lanes[i];
    if (l.wavefront >= rows) continue;
    for (uint32_t w = 0; w < words; ++w) cell[size_t(l.wavefront) * 32 + (l.bank + w) % 32].push_back(uint32_t(i));
  }
  return cell;
}

BankAccess constructed_access(BankPattern pattern, uint32_t base) {
  BankAccess a;
  a.source = "pattern";
  a.access_bytes = 16;
  const bool swizzled = pattern == BankPattern::column_swizzled || pattern == BankPattern::row_swizzled;
  const bool column = pattern == BankPattern::column_unswizzled || pattern == BankPattern::column_swizzled;
  const layout::Swizzle sw = swizzled ? layout::Swizzle::b128 : layout::Swizzle::none;
  // A tile of 128-byte rows (64 bf16): the K-block of the Hopper steps.
  std::vector<layout::LaneAccess> acc;
  for (const layout::TileLaneRead& r : layout::tile_warp_read(column, sw, base)) acc.push_back({r.lane, r.addr});
  a.title = column ? fmt::format("lane l reads 16 B at row l, chunk 0 of a tile of 128-byte rows ({})",
                                 layout::swizzle_name(sw))
                   : fmt::format("lanes 8p..8p+7 read the 8 chunks of row p of a tile of 128-byte rows ({})",
                                 layout::swizzle_name(sw));
  a.note = "16-byte accesses are served a quarter-warp (8 lanes) per phase";
  analyse_into(a, acc);
  return a;
}

BankAccess recorded_access(const LoadedKernel& k, const Snapshot& s) {
  BankAccess a;
  a.source = "ld/st.shared";
  const model::Trace& t = k.trace();
  if (s.last_smem == kNone || s.last_smem >= t.events.size()) {
    a.note = "no ld/st.shared has executed yet";
    return a;
  }
  const model::Event& e = t.events[s.last_smem];
  if (e.payload >= t.smem.size()) return a;
  const model::SmemAccess& m = t.smem[e.payload];
  a.event = s.last_smem;
  a.inst = e.inst;
  a.warp = e.warp;
  a.access_bytes = m.bytes;
  a.store = m.store;
  a.title = fmt::format("warp {} {} {} B per lane", e.warp, m.store ? "stores" : "loads", m.bytes);
  // The model analysed this access when it ran; show its numbers as recorded.
  for (uint32_t lane = 0; lane < 32; ++lane) {
    if (!(m.mask >> lane & 1)) continue;
    SmemLane l;
    l.lane = lane;
    l.addr = m.addr[lane];
    l.bank = m.bank[lane];
    l.word = m.addr[lane] / layout::kSmemBankBytes;
    l.wavefront = m.lane_wavefront[lane];
    a.lanes.push_back(l);
  }
  a.wavefronts = m.wavefronts;
  a.ideal_wavefronts = m.ideal_wavefronts;
  a.conflict_degree = m.conflict_degree;
  a.valid = true;
  // ptxas's folding of narrow loads, as the model charged it (model::SmemAccess).
  const auto ptx_line = [&](uint32_t inst) { return inst < k.ptx.inst_to_line.size() ? k.ptx.inst_to_line[inst] : 0u; };
  if (m.folded_into != kNone) {
    a.folded_into = m.folded_into;
    a.note = fmt::format("merged by ptxas into the load of PTX line {}: its bytes come with that wider load, so it "
                         "takes no wavefront of its own",
                         ptx_line(m.folded_into));
  } else if (m.folded_loads > 0) {
    a.folded_loads = m.folded_loads;
    a.title = fmt::format("warp {} loads {} B per lane (ptxas merged {} more ld.shared into this one)", e.warp, m.bytes,
                          m.folded_loads);
    a.note = fmt::format("ptxas made one {}-byte load of this ld.shared and {} others of the same base register "
                         "(PTX lines without SASS of their own): the banks and wavefronts are that load's",
                         m.bytes, m.folded_loads);
  }
  return a;
}

namespace {

// The tensor-core read records of an event: a wgmma's wgmma_issue (MmaOp) or a tcgen05.mma's
// tmem_op in the issuing CTA (TmemOp); false for any other event.
bool tensor_reads_of(const model::Trace& t, uint32_t event, uint32_t& a_read, uint32_t& b_read) {
  if (event >= t.events.size()) return false;
  const model::Event& e = t.events[event];
  if (e.kind == EventKind::wgmma_issue && e.payload < t.mma.size()) {
    a_read = t.mma[e.payload].a_read, b_read = t.mma[e.payload].b_read;
    return true;
  }
  if (e.kind == EventKind::tmem_op && e.payload < t.tmem.size() && t.tmem[e.payload].kind == model::TmemOpKind::mma) {
    a_read = t.tmem[e.payload].a_read, b_read = t.tmem[e.payload].b_read;
    return a_read != kNone || b_read != kNone;
  }
  return false;
}

bool reads_tensor(const model::Trace& t, uint32_t event) {
  uint32_t a = kNone, b = kNone;
  return tensor_reads_of(t, event, a, b);
}

// The latest event of a kind at or before `position` that carries tensor-core reads (kNone).
uint32_t latest_reading(const model::Trace& t, EventKind kind, uint32_t position) {
  const auto& all = t.of_kind(kind);
  for (auto it = std::upper_bound(all.begin(), all.end(), position); it != all.begin();)
    if (reads_tensor(t, *--it)) return *it;
  return kNone;
}

uint32_t first_reading(const model::Trace& t, EventKind kind) {
  for (uint32_t e : t.of_kind(kind))
    if (reads_tensor(t, e)) return e;
  return kNone;
}

uint32_t later_of(uint32_t a, uint32_t b) { return a == kNone ? b : b == kNone ? a : std::max(a, b); }
uint32_t earlier_of(uint32_t a, uint32_t b) { return a == kNone ? b : b == kNone ? a : std::min(a, b); }

// The latest tensor-core read at or before the snapshot, of wgmma or tcgen05.mma; kNone.
uint32_t latest_tensor_read(const LoadedKernel& k, const Snapshot& s) {
  const model::Trace& t = k.trace();
  return later_of(latest_reading(t, EventKind::wgmma_issue, s.position), latest_reading(t, EventKind::tmem_op, s.position));
}

}  // namespace

uint32_t tensor_read_event_for(const LoadedKernel& k, const Snapshot& s) {
  const uint32_t latest = latest_tensor_read(k, s);
  if (latest != kNone) return latest;
  const model::Trace& t = k.trace();
  return earlier_of(first_reading(t, EventKind::wgmma_issue), first_reading(t, EventKind::tmem_op));
}

namespace {

// The swizzle the TMA wrote the byte at addr with: the latest transfer issued before the MMA
// whose destination covers it, else the allocation's declared swizzle.
layout::Swizzle data_swizzle_at(const LoadedKernel& k, uint32_t addr, uint64_t before_cycle) {
  const model::Trace& t = k.trace();
  for (size_t i = t.tma.size(); i-- > 0;) {
    const model::TmaTransfer& x = t.tma[i];
    if (x.store || x.issue_cycle > before_cycle) continue;
    if (addr >= x.smem_dst && addr < x.smem_dst + x.bytes) return layout::Swizzle(std::min<uint8_t>(x.swizzle, 3));
  }
  const uint32_t a = allocation_at(k.kernel(), addr);
  return a == kNone ? layout::Swizzle::none : k.kernel().smem[a].swizzle;
}

}  // namespace

BankAccess tensor_read_access(const LoadedKernel& k, uint32_t event, WgmmaOperand operand) {
  BankAccess a;
  a.source = "wgmma descriptor read";
  a.access_bytes = 16;
  const model::Trace& t = k.trace();
  uint32_t a_read = kNone, b_read = kNone;
  if (!tensor_reads_of(t, event, a_read, b_read)) {
    a.note = "the kernel issues neither ld/st.shared nor a tensor-core MMA";
    return a;
  }
  const model::Event& e = t.events[event];
  const bool is_a = operand == WgmmaOperand::a;
  const uint32_t record = is_a ? a_read : b_read;
  const ir::Op op = k.kernel().insts[e.inst].op;
  const layout::CoreMatrixRead* pattern = layout::op_traits(op).smem_read;
  if (!pattern) return a;
  a.source = std::string(pattern->issuer) + " descriptor read";
  a.tensor_read = true;
  a.event = event;
  a.inst = e.inst;
  a.warp = e.warp;
  if (record >= t.tensor_reads.size() || t.tensor_reads[record].smem >= t.smem.size()) {
    a.note = fmt::format("the descriptor cannot be followed: the model reported it at the {} (see Problems)", pattern->issuer);
    return a;
  }
  const model::TensorRead& read = t.tensor_reads[record];
  a.descriptor = pattern->describe(read.desc);
  a.descriptor_swizzle = layout::Swizzle(std::min<uint8_t>(read.swizzle, 3));
  const model::SmemAccess& r = t.smem[read.smem];
  // The reads as the model performed them (tensor_reads.cpp): each lane's row and K chunk as
  // it recorded them, after the op traits' core-matrix read pattern.
  uint32_t row0 = ~0u;
  std::vector<layout::LaneAccess> acc;
  std::vector<std::pair<int, int>> where;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    if (!(r.mask >> lane & 1)) continue;
    acc.push_back({lane, r.addr[lane]});
    where.emplace_back(int(read.row[lane]), int(read.chunk[lane]));
    row0 = std::min<uint32_t>(row0, read.row[lane]);
  }
  a.title = fmt::format("tensor core reads {} rows {}.. x k bytes 0..31 ({}): core matrices of 8 rows x 16 B",
                        is_a ? "A" : "B", row0 == ~0u ? 0 : row0, read.k_major ? "K-major" : "MN-major");
  a.note = "the tensor core's read pattern of core-matrix rows, analysed as 16-byte quarter-warp phases";
  const uint64_t issue_cycle = e.cycle;
  try {
    analyse_into(a, acc);
  } catch (const std::exception& ex) {  // a misaligned start address
    a.valid = false;
    a.note = std::string("the bank model rejects these addresses: ") + ex.what();
    return a;
  }
  // Where the bytes the descriptor means really are: the descriptor un-swizzles its read
  // address with its own mode (the XOR is an involution), the TMA placed that logical byte
  // with the transfer's mode. Equal modes: the same address. This assumes the TMA box is
  // packed with the row pitch the descriptor describes (true for every step of the ladder).
  std::vector<layout::LaneAccess> data;
  for (size_t i = 0; i < a.lanes.size(); ++i) {
    SmemLane& l = a.lanes[i];
    l.row = where[i].first;
    l.chunk = where[i].second;
    const layout::Swizzle ds = data_swizzle_at(k, l.addr, issue_cycle);
    if (i == 0) a.data_swizzle = ds;
    const uint32_t logical = layout::swizzle_address(a.descriptor_swizzle, l.addr);
    l.data_addr = layout::swizzle_address(ds, logical);
    l.reads_meant_data = l.data_addr == l.addr;
    if (!l.reads_meant_data) ++a.mismatched_lanes;
    data.push_back({l.lane, l.data_addr});
  }
  try {
    const layout::BankReport r = layout::analyze_shared_access(data, 16);
    a.data_wavefronts = r.wavefronts;
    a.data_conflict_degree = r.conflict_degree;
  } catch (const std::exception&) {
  }
  return a;
}

BankAccess current_access(const LoadedKernel& k, const Snapshot& s, const SmemViewOptions& o) {
  if (o.pattern != BankPattern::current) {
    // The selected tile's address keeps the pattern's addresses real; 1024-aligned fallback.
    uint32_t base = smem_window_base();
    for (const ir::SharedAlloc& a : k.kernel().smem)
      if (a.use == ir::SmemUse::tile && (smem_window_base() + a.offset) % 1024 == 0) {
        base = smem_window_base() + a.offset;
        break;
      }
    return constructed_access(o.pattern, base);
  }
  const model::Trace& t = k.trace();
  const bool has_smem = !t.of_kind(EventKind::smem_access).empty();
  const uint32_t mma = tensor_read_event_for(k, s), last_mma = latest_tensor_read(k, s);
  // The more recent of the two kinds at the cursor; a kernel with only one kind shows it.
  if (has_smem && (mma == kNone || (s.last_smem != kNone && (last_mma == kNone || s.last_smem > last_mma))))
    return recorded_access(k, s);
  if (mma != kNone) {
    BankAccess a = tensor_read_access(k, mma, o.operand);
    if (last_mma == kNone) {
      const layout::CoreMatrixRead* p = layout::op_traits(k.kernel().insts[t.events[mma].inst].op).smem_read;
      a.note = fmt::format("the first {} (not issued yet at the cursor): ", p ? p->issuer : "MMA") + a.note;
    }
    return a;
  }
  BankAccess a;
  a.source = "none";
  a.note = k.kernel().smem.empty() ? "this kernel uses no shared memory: pick a pattern to compare"
                                   : "this kernel issues no shared-memory access";
  return a;
}

SwizzleGrid swizzle_grid(layout::Swizzle mode, uint32_t base, uint32_t rows, uint32_t first_row) {
  SwizzleGrid g;
  g.mode = mode;
  g.base = base;
  g.first_row = first_row;
  g.row_bytes = mode == layout::Swizzle::none ? 128 : layout::swizzle_span_bytes(mode);
  g.rows = rows;
  g.chunks = g.row_bytes / 16;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < g.chunks; ++c) {
      SwizzleCell cell;
      cell.row = first_row + r;
      cell.logical_chunk = c;
      cell.logical_addr = base + r * g.row_bytes + 16 * c;
      cell.physical_addr = layout::swizzle_address(mode, cell.logical_addr);
      cell.xor_bits = layout::swizzle_xor_bits(mode, cell.logical_addr);
      const uint32_t row_start = base + r * g.row_bytes;
      // The XOR only touches bits 4..6 of a row aligned to its span, so the chunk stays in
      // the row; a misaligned base would move it out, which the grid shows as the raw offset.
      cell.physical_chunk = (cell.physical_addr - row_start) / 16;
      g.cells.push_back(cell);
    }
  return g;
}

std::string swizzle_cell_text(const SwizzleGrid& g, const SwizzleCell& c) {
  const uint32_t mask = layout::swizzle_mask(g.mode);
  const int nbits = mask == 7 ? 3 : mask == 3 ? 2 : mask == 1 ? 1 : 0;
  if (nbits == 0)
    return fmt::format("row {}, chunk {} -> chunk {}: no swizzle, address 0x{:04X}", c.row, c.logical_chunk,
                       c.physical_chunk, c.physical_addr);
  const std::string dst = nbits == 1 ? "bit [4]" : fmt::format("bits [4:{}]", 3 + nbits);
  const std::string src = nbits == 1 ? "bit [7]" : fmt::format("bits [7:{}]", 6 + nbits);
  std::string bin;
  for (int b = nbits - 1; b >= 0; --b) bin += (c.xor_bits >> b & 1) ? '1' : '0';
  return fmt::format("row {}, chunk {} -> chunk {}: {} ^= {} = {}", c.row, c.logical_chunk, c.physical_chunk, dst,
                     src, bin);
}

uint32_t swizzle_tile(const LoadedKernel& k, const Snapshot& s, const SmemViewOptions& o, const BankAccess* access) {
  const ir::Kernel& kernel = k.kernel();
  if (o.tile < kernel.smem.size()) return o.tile;
  if (access && access->source != "pattern" && !access->lanes.empty()) {
    const uint32_t a = allocation_at(kernel, access->lanes.front().addr);
    if (a != kNone) return a;
  }
  const model::Trace& t = k.trace();
  if (s.last_tma != kNone && s.last_tma < t.events.size() && t.events[s.last_tma].payload < t.tma.size()) {
    const uint32_t a = allocation_at(kernel, t.tma[t.events[s.last_tma].payload].smem_dst);
    if (a != kNone) return a;
  }
  for (uint32_t i = 0; i < kernel.smem.size(); ++i)
    if (kernel.smem[i].use == ir::SmemUse::tile) return i;
  return kernel.smem.empty() ? kNone : 0;
}

layout::Swizzle swizzle_mode_for(const LoadedKernel& k, uint32_t tile, const SmemViewOptions& o) {
  if (o.swizzle >= 0 && o.swizzle <= 3) return layout::Swizzle(o.swizzle);
  if (tile < k.kernel().smem.size()) return k.kernel().smem[tile].swizzle;
  return layout::Swizzle::b128;
}

SwizzleGrid swizzle_grid_for(const LoadedKernel& k, const Snapshot& s, const SmemViewOptions& o,
                             const BankAccess& access) {
  const uint32_t tile = swizzle_tile(k, s, o, &access);
  const layout::Swizzle mode = swizzle_mode_for(k, tile, o);
  const uint32_t tile_base = tile == kNone ? smem_window_base() : smem_window_base() + k.kernel().smem[tile].offset;
  const uint32_t row_bytes = mode == layout::Swizzle::none ? 128 : layout::swizzle_span_bytes(mode);
  const uint32_t block = 8 * row_bytes;  // one repeat of the pattern
  uint32_t first_row = 0;
  if (tile != kNone && access.source != "pattern" && !access.lanes.empty()) {
    const uint32_t a = access.lanes.front().addr, bytes = k.kernel().smem[tile].bytes;
    if (a >= tile_base && a < tile_base + bytes) first_row = (a - tile_base) / block * 8;
  }
  SwizzleGrid g = swizzle_grid(mode, tile_base + first_row * row_bytes, 8, first_row);
  g.tile = tile;
  return g;
}

nlohmann::json bank_access_json(const BankAccess& a) {
  nlohmann::json j;
  j["valid"] = a.valid;
  j["source"] = a.source;
  j["title"] = a.title;
  j["note"] = a.note;
  j["event"] = a.event == kNone ? nlohmann::json(nullptr) : nlohmann::json(a.event);
  j["warp"] = a.warp == kNoWarp ? nlohmann::json(nullptr) : nlohmann::json(a.warp);
  j["access_bytes"] = a.access_bytes;
  nlohmann::json lanes = nlohmann::json::array();
  for (const SmemLane& l : a.lanes) {
    nlohmann::json x = {{"lane", l.lane}, {"addr", l.addr}, {"bank", l.bank}, {"word", l.word}, {"wavefront", l.wavefront}};
    if (l.row >= 0) {
      x["row"] = l.row;
      x["chunk"] = l.chunk;
      x["data_addr"] = l.data_addr;
      x["reads_meant_data"] = l.reads_meant_data;
    }
    lanes.push_back(std::move(x));
  }
  j["lanes"] = std::move(lanes);
  j["wavefronts"] = a.wavefronts;
  j["ideal_wavefronts"] = a.ideal_wavefronts;
  j["conflict_degree"] = a.conflict_degree;
  j["verdict"] = a.valid ? bank_verdict(a.wavefronts, a.ideal_wavefronts, a.conflict_degree) : "";
  if (a.folded_into != kNone) j["merged_into_inst"] = a.folded_into;
  if (a.folded_loads > 0) j["merged_loads"] = a.folded_loads;
  if (a.tensor_read) {
    j["descriptor"] = a.descriptor;
    j["descriptor_swizzle"] = std::string(layout::swizzle_name(a.descriptor_swizzle));
    j["data_swizzle"] = std::string(layout::swizzle_name(a.data_swizzle));
    j["mismatched_lanes"] = a.mismatched_lanes;
    j["data_wavefronts"] = a.data_wavefronts;
    j["data_conflict_degree"] = a.data_conflict_degree;
  }
  return j;
}

// ---- the data behind the view ------------------------------------------------------------------

nlohmann::json describe_shared_memory(AppState& app) {
  nlohmann::json j;
  const SmemViewOptions& o = app.smem_view;
  j["pattern"] = bank_pattern_name(o.pattern);
  j["operand"] = o.operand == WgmmaOperand::a ? "A" : "B";
  const Snapshot* s = app.snapshot();
  if (!app.kernel || !s) {
    j["kernel"] = nullptr;
    return j;
  }
  const LoadedKernel& k = *app.kernel;
  const BankAccess access = current_access(k, *s, o);
  std::vector<uint32_t> addrs;
  for (const SmemLane& l : access.lanes) addrs.push_back(l.addr);
  if (access.source == "pattern") addrs.clear();  // constructed: not an access of the kernel
  nlohmann::json allocs = nlohmann::json::array();
  for (const AllocationBar& b : allocation_map(k, *s, addrs))
    allocs.push_back({{"name", b.name}, {"offset", b.offset}, {"addr", b.addr}, {"bytes", b.bytes},
                      {"use", smem_use_name(b.use)}, {"swizzle", std::string(layout::swizzle_name(b.swizzle))},
                      {"tma_destination", b.tma_destination}, {"accessed", b.accessed}});
  j["window_base"] = smem_window_base();
  j["window_bytes"] = k.kernel().smem_bytes();
  j["allocations"] = std::move(allocs);
  j["access"] = bank_access_json(access);
  const SwizzleGrid g = swizzle_grid_for(k, *s, o, access);
  const uint32_t tile = g.tile;
  nlohmann::json sw = {{"mode", std::string(layout::swizzle_name(g.mode))},
                       {"tile", tile == kNone ? nlohmann::json(nullptr) : nlohmann::json(k.kernel().smem[tile].name)},
                       {"base", g.base}, {"first_row", g.first_row}, {"rows", g.rows}, {"chunks", g.chunks},
                       {"row_bytes", g.row_bytes}};
  nlohmann::json placement = nlohmann::json::array();
  for (uint32_t r = 0; r < g.rows; ++r) {
    nlohmann::json row = nlohmann::json::array();
    for (uint32_t c = 0; c < g.chunks; ++c) row.push_back(g.at(r, c).physical_chunk);
    placement.push_back(std::move(row));
  }
  sw["physical_chunk"] = std::move(placement);
  sw["selected_cell"] = nullptr;
  if (app.selection.smem_addr != kNone) {
    for (const SwizzleCell& c : g.cells)
      if (app.selection.smem_addr >= c.physical_addr && app.selection.smem_addr < c.physical_addr + 16)
        sw["selected_cell"] = {{"row", c.row}, {"logical_chunk", c.logical_chunk}, {"physical_chunk", c.physical_chunk},
                               {"physical_addr", c.physical_addr}, {"xor_bits", c.xor_bits},
                               {"text", swizzle_cell_text(g, c)}};
    j["selected_addr"] = app.selection.smem_addr;
    j["selected_bank"] = layout::smem_bank_of(app.selection.smem_addr);
  }
  j["swizzle"] = std::move(sw);
  return j;
}

}  // namespace gs::gui
