// exec_memory: ld/st of parameters, global and shared memory, with bounds, alignment,
// initialisation and race checks, and the shared-memory bank model of every access.
#include <algorithm>
#include <cmath>
#include <bit>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "engine/layout/banks.hpp"
#include "engine/model/decode.hpp"
#include "engine/model/machine.hpp"
#include "engine/model/operands.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

using ir::Op;

void report(Cta& cta, HazardKind kind, uint32_t inst, uint32_t warp, uint32_t lane, uint64_t address,
            std::string detail) {
  if (!cta.hazards) return;
  for (const Hazard& h : *cta.hazards)
    if (h.kind == kind && h.inst == inst) return;  // first occurrence of each (kind, instruction)
  Hazard h{kind, inst, warp, lane, address, cta.now, std::move(detail)};
  if (cta.trace) {
    cta.trace->hazards.push_back(h);
    trace_event(cta, EventKind::hazard, cta.now, warp, inst, 0, uint32_t(cta.trace->hazards.size() - 1));
  }
  cta.hazards->push_back(std::move(h));
}

void report_tma_race(Cta& cta, uint32_t inst, uint32_t warp, uint32_t lane, uint64_t address, const std::string& what,
                     std::string_view advice) {
  const std::string why = stale_wait_cause(cta, warp);
  report(cta, HazardKind::tma_race, inst, warp, lane, address,
         why.empty() ? what + ": " + std::string(advice) : what + ". " + why);
}

uint32_t memory_address32(ExecContext& x, const ir::Operand& o, uint32_t lane) {
  switch (o.kind) {
    case ir::OperandKind::mem_reg: return uint32_t(x.cta.reg(x.warp.id, o.id, lane) + uint64_t(o.imm));
    case ir::OperandKind::mem_smem:
      return uint32_t(timing::kSmemBaseAddress + x.cta.launch.kernel->smem[o.id].offset + o.imm);
    default: return 0;
  }
}

uint64_t memory_address64(ExecContext& x, const ir::Operand& o, uint32_t lane) {
  if (o.kind == ir::OperandKind::mem_reg) return x.cta.reg(x.warp.id, o.id, lane) + uint64_t(o.imm);
  return memory_address32(x, o, lane);
}

uint8_t* smem_ptr(ExecContext& x, uint32_t addr, uint32_t bytes, uint32_t lane, bool store) {
  Cta& c = x.cta;
  const uint64_t end = uint64_t(timing::kSmemBaseAddress) + c.smem.size();
  if (addr < timing::kSmemBaseAddress || uint64_t(addr) + bytes > end) {
    report(c, HazardKind::out_of_bounds_shared, x.inst_id, x.warp.id, lane, addr,
           fmt::format("shared address 0x{:X} is outside the CTA's {} B of shared memory (0x{:X}..0x{:X})", addr,
                       c.smem.size(), timing::kSmemBaseAddress, end));
    return nullptr;
  }
  // Accesses are aligned to their size; block transfers (TMA boxes) to 16 bytes.
  const uint32_t align = std::min<uint32_t>(std::bit_floor(std::max<uint32_t>(bytes, 1)), 16);
  if (addr % align != 0)
    report(c, HazardKind::misaligned, x.inst_id, x.warp.id, lane, addr,
           fmt::format("a {}-byte shared access at 0x{:X} is not {}-byte aligned", bytes, addr, align));
  return c.smem.data() + (addr - timing::kSmemBaseAddress);
}

namespace {

// Fixed-size copies (the compiler turns them into single moves; a variable-size memcpy
// would be a library call per lane).
inline uint64_t load_bytes(const uint8_t* p, uint32_t n) {
  switch (n) {
    case 1: return *p;
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    default: { uint64_t v; std::memcpy(&v, p, 8); return v; }
  }
}
inline void store_bytes(uint8_t* p, uint64_t v, uint32_t n) {
  switch (n) {
    case 1: *p = uint8_t(v); break;
    case 2: { const uint16_t x = uint16_t(v); std::memcpy(p, &x, 2); break; }
    case 4: { const uint32_t x = uint32_t(v); std::memcpy(p, &x, 4); break; }
    default: std::memcpy(p, &v, 8); break;
  }
}

// For the n values of v: how many distinct ones there are if they are in non-decreasing
// order (coalesced and broadcast accesses list their sectors so), else ~0.
inline uint32_t distinct_if_sorted(const uint64_t* v, uint32_t n) {
  uint32_t descents = 0, changes = 0;
  for (uint32_t i = 1; i < n; ++i) {
    descents += v[i - 1] > v[i];
    changes += v[i - 1] != v[i];
  }
  return n == 0 ? 0 : descents != 0 ? ~0u : changes + 1;
}

// How many distinct values the first n of v hold (n <= 32; may reorder them).
uint32_t distinct_count(uint64_t* v, uint32_t n) {
  const uint32_t sorted = distinct_if_sorted(v, n);
  if (sorted != ~0u) return sorted;
  std::sort(v, v + n);
  return uint32_t(std::unique(v, v + n) - v);
}


}  // namespace

// Race and initialisation checks on the 4-byte words of a shared access. A word a cp.async
// is still writing is either raced (the copy was issued by another warp since the last
// barrier: nothing orders the two) or read too early (the copy's group was not completed by
// a wait_group before the barrier or the warp's own read): the first is the Ampere seed's
// `no-sync-before-prefetch` pitfall, the second its `steady-state-wait-at-tail`.
void check_shared_words(ExecContext& x, uint32_t addr, uint32_t bytes, uint32_t lane, bool store) {
  Cta& c = x.cta;
  for (uint32_t w = (addr - timing::kSmemBaseAddress) / 4; w * 4 < addr - timing::kSmemBaseAddress + bytes; ++w) {
    if (w >= c.smem_word_state.size()) return;
    SmemWord& s = c.smem_word_state[w];
    if (s.tma_pending)
      report_tma_race(c, x.inst_id, x.warp.id, lane, addr,
                      fmt::format("shared address 0x{:X} is {} before the TMA load writing it has completed", addr,
                                  store ? "written" : "read"),
                      "wait on its mbarrier first");
    if (s.cp_async_pending) {
      if (s.cp_async_warp != x.warp.id && s.cp_async_epoch == c.barrier_epoch)
        report(c, HazardKind::cp_async_race, x.inst_id, x.warp.id, lane, addr,
               fmt::format("warp {} {} shared address 0x{:X} while warp {}'s cp.async into it, issued with no "
                           "barrier in between, is still writing it",
                           x.warp.id, store ? "writes" : "reads", addr, s.cp_async_warp));
      else
        report(c, HazardKind::cp_async_read_before_wait, x.inst_id, x.warp.id, lane, addr,
               fmt::format("warp {} {} shared address 0x{:X} before the cp.async group writing it (warp {}'s) "
                           "completed: its cp.async.wait_group returned with that group still pending",
                           x.warp.id, store ? "writes" : "reads", addr, s.cp_async_warp));
    }
    if (store && s.bulk_reads != 0)
      report(c, HazardKind::bulk_store_race, x.inst_id, x.warp.id, lane, addr,
             fmt::format("shared address 0x{:X} is written while a TMA store issued earlier may still read it: the "
                         "issuing thread retires a store's reads with cp.async.bulk.wait_group.read (N: the groups "
                         "it may leave reading), and the writers must wait for that (a barrier after the wait)",
                         addr));
    if (!store && !s.written)
      report(c, HazardKind::uninitialized_shared, x.inst_id, x.warp.id, lane, addr,
             fmt::format("shared address 0x{:X} is read before anything wrote it", addr));
    const uint32_t rank = c.launch.cluster_rank;
    const bool released = s.write_release != 0 && rank < kMaxClusterRanks && x.warp.acquired[rank] >= s.write_release;
    if (s.written && s.writer_warp != x.warp.id && s.epoch == c.barrier_epoch && s.writer_warp != SmemWord::kAsync &&
        !released)
      report(c, HazardKind::shared_race, x.inst_id, x.warp.id, lane, addr,
             fmt::format("warp {} {} shared address 0x{:X} that warp {} wrote with no barrier in between (no bar.sync, "
                         "and no mbarrier phase it arrived on after writing)",
                         x.warp.id,
                         store ? "overwrites" : "reads", addr, s.writer_warp));
    if (store) {
      s.written = true;
      s.writer_warp = uint16_t(x.warp.id);
      s.epoch = c.barrier_epoch;
      s.write_release = c.releases + 1;
      s.generic_since_fence = true;
    } else {
      s.read_release = c.releases + 1;
      if (s.read_epoch != c.barrier_epoch) s.read_by = 0;
      s.read_epoch = c.barrier_epoch;
      s.read_by |= 1u << (x.warp.id % 32);
    }
  }
}

namespace {

// A store into C's tile `tile` (kNone: outside C): the schedule's visit, when the CTA has not
// stored into it lately.
inline void note_c_tile(Cta& c, uint32_t tile) {
  auto& recent = c.recent_tiles;
  if (tile != kNone && std::find(recent.begin(), recent.end(), tile) == recent.end()) {
    std::copy_backward(recent.begin(), recent.end() - 1, recent.end());
    recent[0] = tile;
    c.schedule->visits.push_back({c.launch.cta_linear, tile, c.tiles_visited++, c.now});
  }
}

// OutputTiling::tile_of, with shifts where C's sizes are powers of two (the ladder's are): it
// runs for every element a CTA stores into C, and tile_of divides six times.
inline uint32_t c_tile_of(const ir::OutputTiling& o, uint64_t offset) {
  if (!std::has_single_bit(o.elem_bytes) || !std::has_single_bit(o.cols) || !std::has_single_bit(o.tile_rows) ||
      !std::has_single_bit(o.tile_cols) || o.tile_cols > o.cols)
    return o.tile_of(offset);
  const uint64_t e = offset >> std::countr_zero(o.elem_bytes);
  if (e >= uint64_t(o.rows) * o.cols) return kNone;
  const uint64_t row = e >> std::countr_zero(o.cols), col = e & (o.cols - 1);
  return uint32_t((row >> std::countr_zero(o.tile_rows)) * (o.cols >> std::countr_zero(o.tile_cols)) +
                  (col >> std::countr_zero(o.tile_cols)));
}

}  // namespace

void store_into_c(ExecContext& x, uint64_t offset, uint32_t bytes, uint32_t reg, uint32_t lane) {
  Cta& c = x.cta;
  if (const ir::OutputTiling& o = c.launch.kernel->output; o.declared()) note_c_tile(c, c_tile_of(o, offset));
  if (c.trace)
    c.trace->c_writes.push_back({offset, uint8_t(bytes), reg, x.inst_id, uint16_t(c.launch.trace_warp_base + x.warp.id),
                                 uint8_t(lane), c.now});
}

uint8_t* cluster_smem_ptr(ExecContext& x, uint32_t addr, uint32_t bytes, uint32_t lane, bool store) {
  uint32_t local = 0;
  Cta* t = cluster_target(x, addr, lane, &local);
  if (!t) return nullptr;
  if (t == &x.cta) {
    uint8_t* p = smem_ptr(x, local, bytes, lane, store);
    if (p) check_shared_words(x, local, bytes, lane, store);
    return p;
  }
  // A peer's memory: bounds and alignment as for its own accesses (reported against the
  // peer's window). The race checks stay per CTA (a peer's words record warps of its own); a
  // remote store marks the words written by an agent outside the CTA, as the copy engine
  // does, so that the peer's later reads are not reported as uninitialised or racing.
  ExecContext peer{*t, x.warp, x.inst, x.dec, x.inst_id, x.mask, x.at_pc};
  uint8_t* p = smem_ptr(peer, local, bytes, lane, store);
  if (p && store)
    for (uint32_t w = (local - timing::kSmemBaseAddress) / 4; w * 4 < local - timing::kSmemBaseAddress + bytes; ++w) {
      t->smem_word_state[w].written = true;
      t->smem_word_state[w].writer_warp = SmemWord::kAsync;
    }
  return p;
}

// A warp's global access on the SM's load/store path: it holds the path for its bytes at
// kLsuBytesPerCycle, and for the traced CTA a cycle for each 128-byte line it touches (probes
// l1_loads_stride*: 8 lines a load take 7.7 cycles, 32 lines 33), once the path is free; a
// load's data is ready
// `load_latency` after it starts (CtaFigures::global_latency, an L2 hit, unless the traced CTA's L1 holds
// every sector: l1_latency; the bytes from HBM are a bandwidth limit of the whole wave,
// timing.cpp), a store's issue is over in a cycle.
uint32_t global_issue(Cta& c, uint32_t lanes, uint32_t bytes, bool store, uint32_t load_latency, uint32_t lines) {
  const uint64_t line_cycles = uint64_t(std::ceil(lines / timing::kL1LinesPerCycle));
  const uint64_t cycles = std::max<uint64_t>(std::max<uint64_t>(1, line_cycles),
                                             (uint64_t(lanes) * bytes + timing::kLsuBytesPerCycle - 1) /
                                                 timing::kLsuBytesPerCycle);
  const uint64_t start = std::max(c.now, c.lsu_free);
  c.lsu_free = start + cycles;
  c.cost.lsu_cycles += cycles;
  return uint32_t(start - c.now) + (store ? 1 : load_latency);
}

namespace {

// The sectors of a traced CTA's global load that its L1 does not hold (Cta::l1): each comes
// from L2 and is then held. The L1 is what the SM's 256 KB leave beside the CTA's shared memory.
uint32_t l1_misses(Cta& c, const std::array<uint64_t, 32>& addr, uint32_t lanes, uint32_t bytes) {
  constexpr uint32_t kWays = 4, kLine = 128, kSector = 32;
  if (c.l1.empty()) {
    const uint64_t smem = c.launch.kernel->smem_bytes();
    const uint64_t l1 = uint64_t(timing::kSm.l1_bytes.value);
    const uint64_t lines = std::max<uint64_t>(kWays, (l1 > smem ? l1 - smem : 0) / kLine);
    c.l1.assign(lines / kWays * kWays, Cta::L1Line{});
  }
  const uint64_t sets = c.l1.size() / kWays;
  uint64_t sector[64];
  uint32_t n = 0;
  for (uint32_t m = lanes; m; m &= m - 1) {
    const uint64_t a = addr[std::countr_zero(m)];
    for (uint64_t s = a / kSector; s <= (a + bytes - 1) / kSector && n < 64; ++s) sector[n++] = s;
  }
  std::sort(sector, sector + n);
  n = uint32_t(std::unique(sector, sector + n) - sector);
  uint32_t misses = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t line = sector[i] * kSector / kLine;
    const uint8_t bit = uint8_t(1u << (sector[i] % (kLine / kSector)));
    // The set from the line's address folded (a model choice: a power-of-two row pitch, such
    // as A's rows in a naive kernel, must not land every row in a few sets).
    Cta::L1Line* set = &c.l1[((line ^ (line >> 9) ^ (line >> 17)) % sets) * kWays];
    Cta::L1Line* hit = nullptr;
    Cta::L1Line* oldest = set;
    for (uint32_t w = 0; w < kWays; ++w) {
      if (set[w].line == line) hit = &set[w];
      if (set[w].used < oldest->used) oldest = &set[w];
    }
    if (!hit) {
      hit = oldest;
      *hit = {line, 0, 0};
    }
    if (!(hit->sectors & bit)) ++misses;
    hit->sectors |= bit;
    hit->used = ++c.l1_clock;
  }
  return misses;
}

// The distinct 128-byte lines a warp's access touches.
uint32_t distinct_lines(const std::array<uint64_t, 32>& addr, uint32_t lanes, uint32_t bytes) {
  uint64_t line[64];
  uint32_t n = 0;
  for (uint32_t m = lanes; m; m &= m - 1) {
    const uint64_t a = addr[std::countr_zero(m)];
    line[n++] = a / 128;
    if ((a + bytes - 1) / 128 != a / 128) line[n++] = (a + bytes - 1) / 128;
  }
  std::sort(line, line + n);
  return uint32_t(std::unique(line, line + n) - line);
}

}  // namespace

// Statistics and trace record of a global access: each lane's address and the distinct
// 32-byte sectors they touch (only for the traced CTA).
void account_global(ExecContext& x, uint32_t bytes, bool store, const std::array<uint64_t, 32>& addr, uint32_t lanes,
                    uint32_t sectors) {
  Cta& c = x.cta;
  // The traced CTA's loads look in its L1 first (l1_misses): all sectors there, the data comes
  // at L1 latency; any sector from L2, at L2 latency. Other CTAs' loads are L2 hits.
  const uint32_t misses = c.trace && !store ? l1_misses(c, addr, lanes, bytes) : 0;
  x.latency = global_issue(c, uint32_t(std::popcount(lanes)), bytes, store,
                           c.trace && !store && misses == 0 ? c.launch.figures->l1_latency
                                                            : c.launch.figures->global_latency,
                           c.trace ? distinct_lines(addr, lanes, bytes) : 0);
  if (!c.trace) return;
  GlobalAccess g{.mask = lanes, .bytes = uint8_t(bytes), .store = store};
  uint64_t lowest = ~uint64_t(0);
  uint64_t sector[32];
  uint32_t n = 0;
  for (uint32_t m = lanes; m; m &= m - 1) {
    const uint64_t a = addr[std::countr_zero(m)];
    lowest = std::min(lowest, a);
    sector[n++] = a / 32;
  }
  g.first_addr = n ? lowest : 0;
  for (uint32_t m = lanes; m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    const uint64_t d = addr[l] - lowest;
    g.offset[l] = d >= GlobalAccess::kFar ? GlobalAccess::kFar : uint32_t(d);
  }
  g.sectors = sectors != kCountSectors ? sectors : distinct_count(sector, n);
  if (store) {
    c.cost.global_store_bytes += 32ull * g.sectors;
    // The traced CTA's stores leave the SM at its share of L2's write bandwidth (timing.hpp,
    // CtaFigures::store_bytes_per_cycle): a store issues once the path has taken the stores before it.
    const uint64_t cycles = uint64_t(32.0 * g.sectors / c.launch.figures->store_bytes_per_cycle + 0.5);
    const uint64_t start = std::max(c.now, c.store_free);
    c.store_free = start + cycles;
    x.warp.store_hold = start + 1;
  } else {
    c.cost.global_load_bytes += 32ull * misses;
  }
  const uint32_t index = append(c.trace->global, g);
  trace_event(c, EventKind::global_access, c.now, x.warp.id, x.inst_id, x.mask, index, g.sectors);
}

namespace {

// The statistics and the time of a shared access of this many wavefronts: its latency.
[[gnu::always_inline]] inline uint32_t shared_access_cost(Cta& c, uint32_t wavefronts, uint32_t ideal_wavefronts) {
  c.stats->smem_accesses++;
  c.stats->smem_wavefronts += wavefronts;
  c.stats->smem_ideal_wavefronts += ideal_wavefronts;
  c.stats->smem_bank_conflicts += wavefronts - ideal_wavefronts;
  // The SM's shared-memory pipe takes one wavefront per cycle: the access starts when the pipe
  // is free, and its data is ready kSharedLatency after its last wavefront starts.
  const uint64_t start = std::max(c.now, c.smem_pipe_free);
  c.smem_pipe_free = start + wavefronts;
  c.cost.smem_wavefronts += wavefronts;
  return uint32_t(start - c.now) + timing::kSharedLatency + (wavefronts > 0 ? wavefronts - 1 : 0);
}

[[gnu::always_inline]] inline void charge_shared(ExecContext& x, uint32_t wavefronts, uint32_t ideal_wavefronts) {
  x.latency = shared_access_cost(x.cta, wavefronts, ideal_wavefronts);
}

// The bank report of a whole warp's ld/st.shared of `bytes` (1..16) at one address (same) or at
// consecutive ones, at one base of its alignment: the same at any other but for each lane's bank
// (tests/layout/banks_test.cpp, "moving every lane ..."), for account_shared_known.
const layout::BankReport& shared_pattern_report(uint32_t bytes, bool same) {
  static const std::array<std::array<layout::BankReport, 2>, 5> kByWidth = [] {
    std::array<std::array<layout::BankReport, 2>, 5> t{};
    for (uint32_t i = 0; i < 5; ++i)
      for (const bool one : {false, true}) {
        if (!one && i < 2) continue;  // consecutive 1- and 2-byte lanes share words: never taken
        std::array<uint32_t, 32> addr;
        for (uint32_t l = 0; l < 32; ++l) addr[l] = 0x10000 + (one ? 0 : l << i);
        t[i][one] = layout::analyze_shared_access(addr, kAllLanes, 1u << i, layout::Phasing::lsu_half_warp);
      }
    return t;
  }();
  return kByWidth[std::countr_zero(bytes)][same];
}

// Its counts alone.
layout::BankCount shared_pattern_cost(uint32_t bytes, bool same) {
  const layout::BankReport& r = shared_pattern_report(bytes, same);
  return {r.wavefronts, r.ideal_wavefronts};
}

}  // namespace

// Bank model and statistics for one warp-level shared access (facts §8).
void account_shared(ExecContext& x, const std::array<uint32_t, 32>& given, uint32_t given_bytes, bool store) {
  Cta& c = x.cta;
  // A load ptxas folded into another's SASS load costs no wavefront: its bytes come with that
  // load, which is charged at its own width (decode.hpp, shared_load_folds).
  const DecodedInst* d = c.program && x.inst_id < c.program->insts.size() ? &c.program->insts[x.inst_id] : nullptr;
  if (d && d->fold_leader != kNone) {
    c.stats->smem_accesses++;
    x.latency = timing::kSharedLatency;
    if (c.trace) {
      SmemAccess a = smem_access_record(given, x.mask, given_bytes, store, layout::BankReport{});
      a.wavefronts = a.ideal_wavefronts = 0;
      a.folded_into = d->fold_leader;
      const uint32_t index = append(c.trace->smem, a);
      trace_event(c, EventKind::smem_access, c.now, x.warp.id, x.inst_id, x.mask, index, 0);
    }
    return;
  }
  std::array<uint32_t, 32> addrs = given;
  uint32_t bytes = given_bytes;
  if (d && d->fold_bytes) {
    for (uint32_t& a : addrs) a = uint32_t(int64_t(a) + d->fold_shift);
    bytes = d->fold_bytes;
  }
  // ld/st.shared.v4 are grouped as the H100 groups LDS.128/STS.128 (banks.hpp, Phasing); the
  // other instructions that come here (cp.async) keep the width's table.
  const bool lsu = x.inst.op == Op::ld_shared || x.inst.op == Op::st_shared;
  const layout::Phasing phasing = lsu ? layout::Phasing::lsu_half_warp : layout::Phasing::by_width;
  // An untraced CTA needs only the totals: count_shared_wavefronts gives the same ones fast.
  layout::BankReport r;
  if (c.trace) {
    r = layout::analyze_shared_access(addrs, x.mask, std::min<uint32_t>(bytes, 16), phasing);
  } else {
    const layout::BankCount n = layout::count_shared_wavefronts(addrs, x.mask, std::min<uint32_t>(bytes, 16), phasing);
    r.wavefronts = n.wavefronts;
    r.ideal_wavefronts = n.ideal_wavefronts;
  }
  charge_shared(x, r.wavefronts, r.ideal_wavefronts);
  if (c.trace) {
    SmemAccess a = smem_access_record(addrs, x.mask, bytes, store, r);
    if (d) a.folded_loads = d->fold_members;
    const uint32_t index = append(c.trace->smem, a);
    trace_event(c, EventKind::smem_access, c.now, x.warp.id, x.inst_id, x.mask, index, r.wavefronts);
  }
}

namespace {

// account_shared for an access ptxas did not fold, whose bank report is known up to where its
// banks start: `canon` is the report of the same lanes' offsets from another base of the same
// alignment (every count and each lane's wavefront are the same there; only the banks turn),
// so only each lane's bank is worked out here.
void account_shared_known(ExecContext& x, const std::array<uint32_t, 32>& addrs, uint32_t bytes, bool store,
                          const layout::BankReport& canon) {
  Cta& c = x.cta;
  charge_shared(x, canon.wavefronts, canon.ideal_wavefronts);
  if (!c.trace) return;
  layout::BankReport r = canon;
  for (uint32_t m = x.mask; m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    r.lane_bank[l] = uint8_t(layout::smem_bank_of(addrs[l]));
  }
  SmemAccess a = smem_access_record(addrs, x.mask, bytes, store, r);
  a.folded_loads = x.dec.fold_members;
  const uint32_t index = append(c.trace->smem, a);
  trace_event(c, EventKind::smem_access, c.now, x.warp.id, x.inst_id, x.mask, index, r.wavefronts);
}

}  // namespace

SmemAccess smem_access_record(const std::array<uint32_t, 32>& addrs, uint32_t mask, uint32_t bytes, bool store,
                              const layout::BankReport& r) {
  SmemAccess a;
  a.addr = addrs;
  a.mask = mask;
  a.bytes = uint8_t(bytes);
  a.store = store;
  a.wavefronts = uint8_t(std::min<uint32_t>(r.wavefronts, 255));
  a.ideal_wavefronts = uint8_t(r.ideal_wavefronts);
  a.conflict_degree = uint8_t(r.conflict_degree);
  a.bank = r.lane_bank;
  a.lane_wavefront = r.lane_wavefront;
  return a;
}

void exec_memory(ExecContext& x) {
  expect_op(x, "exec_memory", Op::ld_param, Op::ld_global, Op::st_global, Op::ld_shared, Op::st_shared,
            Op::ld_shared_cluster, Op::st_shared_cluster);
  const ir::Inst& in = x.inst;
  Cta& c = x.cta;
  const uint32_t elem = std::max<uint32_t>(ir::type_bits(in.type) / 8, 1);
  const uint32_t vec = std::max<uint32_t>(in.vec, 1);
  const uint32_t bytes = elem * vec;
  const bool store = in.op == Op::st_global || in.op == Op::st_shared || in.op == Op::st_shared_cluster;
  const ir::Operand& addr_op = store ? in.operands[0] : in.operands[vec];

  if (in.op == Op::ld_param) {
    const uint64_t value = c.launch.param_values.at(addr_op.id);
    for (uint32_t l = 0; l < 32; ++l)
      if (x.mask >> l & 1) c.reg(x.warp.id, in.operands[0].id, l) = value;
    note_register_write(x, in.operands[0].id, x.mask);
    return;
  }

  // Sources of stores are checked like any register read.
  if (store)
    for (uint32_t v = 0; v < vec; ++v)
      if (in.operands[1 + v].kind == ir::OperandKind::reg) check_register_read(x, in.operands[1 + v].id, x.mask);
  if (addr_op.kind == ir::OperandKind::mem_reg) check_register_read(x, addr_op.id, x.mask);

  const bool cluster = in.op == Op::ld_shared_cluster || in.op == Op::st_shared_cluster;
  const bool shared = cluster || in.op == Op::ld_shared || in.op == Op::st_shared;
  std::array<uint32_t, 32> saddr{};
  std::array<uint64_t, 32> gaddr{};
  for (uint32_t l = 0; l < 32; ++l) {
    if (!(x.mask >> l & 1)) continue;
    uint8_t* p = nullptr;
    if (cluster) {
      saddr[l] = memory_address32(x, addr_op, l);
      p = cluster_smem_ptr(x, saddr[l], bytes, l, store);
    } else if (shared) {
      saddr[l] = memory_address32(x, addr_op, l);
      p = smem_ptr(x, saddr[l], bytes, l, store);
      if (p) check_shared_words(x, saddr[l], bytes, l, store);
    } else {
      const uint64_t a = memory_address64(x, addr_op, l);
      p = c.launch.global->find(a, bytes);
      gaddr[l] = a;
      if (!p)
        report(c, HazardKind::out_of_bounds_global, x.inst_id, x.warp.id, l, a,
               fmt::format("global address 0x{:X} ({} bytes) is outside every buffer of this GEMM", a, bytes));
      else if (a % bytes != 0)
        report(c, HazardKind::misaligned, x.inst_id, x.warp.id, l, a,
               fmt::format("a {}-byte global access at 0x{:X} is not {}-byte aligned", bytes, a, bytes));
    }
    for (uint32_t v = 0; v < vec; ++v) {
      if (store) {
        if (!p) continue;
        // A value is a register or an immediate (the IR's store signature takes both).
        const ir::Operand& o = in.operands[1 + v];
        const bool reg = o.kind == ir::OperandKind::reg;
        const uint64_t value = reg                                ? x.cta.reg(x.warp.id, o.id, l)
                               : o.kind == ir::OperandKind::fimm ? (in.type == ir::Type::f64 ? from_f64(o.fimm)
                                                                                              : from_f32(float(o.fimm)))
                                                                  : uint64_t(o.imm);
        store_bytes(p + v * elem, value, elem);  // little-endian: the low bytes
        // An immediate stored into C has no register, like a TMA store's element.
        if (const std::span<uint8_t>* cb = c.launch.global->buffers[2];
            !shared && cb && p >= cb->data() && p < cb->data() + cb->size())
          store_into_c(x, uint64_t(p + v * elem - cb->data()), elem, reg ? o.id : kNone, l);
      } else {
        uint64_t value = 0;
        if (p) value = load_bytes(p + v * elem, elem);
        c.reg(x.warp.id, in.operands[v].id, l) = value;
      }
    }
  }
  if (!store)
    for (uint32_t v = 0; v < vec; ++v) note_register_write(x, in.operands[v].id, x.mask);
  if (shared) {
    account_shared(x, saddr, bytes, store);
  } else {
    account_global(x, bytes, store, gaddr, x.mask);
  }
}

namespace {

// ---- decoded form: ld.global / st.global through [reg + offset] ----------------------------
// What exec_memory does for these, in the order it does it, for the common case where every
// lane's address is inside a buffer and aligned. Any other case goes to exec_memory before
// anything happened, so the general path reports it exactly as before. Instantiated per
// direction and element size, so that the lane loops hold no switch.

// The byte offsets of the active lanes' addresses (base[l] + offset) in buffer `b`, into off[].
// True when every active lane's access [a, a + bytes) lies inside that buffer and a is a
// multiple of bytes (a power of two). Buffers start 2^44-aligned, so a and its offset have
// the same alignment. An offset past `limit` = size - bytes, or a "negative" one (an address
// below the buffer wraps to >= 2^63, as buffers are far smaller), sets bit 63 of
// (limit - o) | o: one subtraction per lane and no branch.
template <bool kEveryLane>
[[gnu::always_inline]] inline bool lanes_inside(const uint64_t* __restrict base, uint32_t mask, uint64_t delta,
                                                uint64_t limit, uint32_t bytes, uint64_t* __restrict off) {
  uint64_t out_of_range = 0, low_bits = 0;
  // Unrolled (GCC; other compilers ignore the pragma), as the ALU lane loops are
  // (exec_alu.cpp, lanes_into): the loop counting cost about as much as the lanes' work.
#pragma GCC unroll 8
  for (uint32_t l = 0; l < 32; ++l) {
    const uint64_t o = base[l] + delta;
    off[l] = o;
    const uint64_t active = kEveryLane ? ~uint64_t(0) : uint64_t(0) - (mask >> l & 1);
    out_of_range |= ((limit - o) | o) & active;
    low_bits |= o & active;
  }
  return (out_of_range >> 63) == 0 && (low_bits & (bytes - 1)) == 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
constexpr bool kHaveAvx2Forms = true;
// A full warp's load of 4- or 8-byte elements as AVX2 gathers, 4 lanes each: lane l reads the
// element at at + off[l], zero-extended to 64 bits, exactly what load_bytes reads (offsets
// are below 2^63 after lanes_inside, so the gathers' signed indices are exact).
template <uint32_t kElem>
__attribute__((target("avx2"))) inline void gather_lanes_avx2(const uint8_t* at, const uint64_t* off, uint64_t* r) {
#pragma GCC unroll 8  // as in lanes_inside
  for (uint32_t l = 0; l < 32; l += 4) {
    const __m256i index = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(off + l));
    __m256i v;
    if constexpr (kElem == 4)
      v = _mm256_cvtepu32_epi64(_mm256_i64gather_epi32(reinterpret_cast<const int*>(at), index, 1));
    else
      v = _mm256_i64gather_epi64(reinterpret_cast<const long long*>(at), index, 1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + l), v);
  }
}
#else
constexpr bool kHaveAvx2Forms = false;
template <uint32_t kElem>
inline void gather_lanes_avx2(const uint8_t*, const uint64_t*, uint64_t*) {}
#endif

// What the trace records of a full warp's global access: the sector (address / 32) of each
// lane and the number of distinct sectors when they come in non-decreasing lane order
// (kCountSectors otherwise: account_global then sorts). off[] holds offsets below 2^63
// (lanes_inside), and sectors are smaller still, so signed comparisons order them.
[[gnu::always_inline]] inline uint32_t summarize_sectors(const uint64_t* off, uint64_t base_sector, uint64_t* sector) {
  for (uint32_t l = 0; l < 32; ++l) sector[l] = base_sector + off[l] / 32;
  return distinct_if_sorted(sector, 32);
}
#if defined(__x86_64__) && defined(__GNUC__)
// The same, 4 lanes per instruction: pairs (l, l + 1) are compared 4 at a time (sector[32]
// repeats sector[31], so the last pair is equal and neither descends nor changes).
__attribute__((target("avx2"))) inline uint32_t summarize_sectors_avx2(const uint64_t* off, uint64_t base_sector,
                                                                       uint64_t* sector /* 33 */) {
  const __m256i base = _mm256_set1_epi64x(int64_t(base_sector));
  // Each lane's sector is compared with the next lane's in registers: the next lanes are the
  // vector rotated by one with the following vector's first lane blended in. (Reading them
  // back from `sector` at an offset of one lane was a load that overlapped two vector
  // stores just made, which the CPU cannot forward: perf put a sixth of a traced
  // ld.global's time there.) Both loops unrolled (GCC), as in lanes_inside.
  __m256i s[9];
#pragma GCC unroll 8
  for (uint32_t i = 0; i < 8; ++i) {
    const __m256i o = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(off + 4 * i));
    s[i] = _mm256_add_epi64(base, _mm256_srli_epi64(o, 5));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sector + 4 * i), s[i]);
  }
  sector[32] = sector[31];
  s[8] = _mm256_permute4x64_epi64(s[7], 0xFF);  // lane 31 again: the padded pair is equal
  uint32_t descents = 0, equal = 0;
#pragma GCC unroll 8
  for (uint32_t i = 0; i < 8; ++i) {
    const __m256i a = s[i];
    const __m256i b = _mm256_blend_epi32(_mm256_permute4x64_epi64(a, 0x39), _mm256_permute4x64_epi64(s[i + 1], 0x39),
                                         0xC0);  // lanes 4i+1 .. 4i+4
    descents |= uint32_t(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(a, b)))) << (4 * i);
    equal |= uint32_t(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(a, b)))) << (4 * i);
  }
  // 31 real pairs and the padded one (always equal): distinct = 1 + (31 - (equal pairs - 1)).
  return descents != 0 ? kCountSectors : 33 - lane_count(equal);
}
#else
inline uint32_t summarize_sectors_avx2(const uint64_t* off, uint64_t base_sector, uint64_t* sector) {
  return summarize_sectors(off, base_sector, sector);
}
#endif

// An untraced CTA's store into C whose bytes all lie in one row of one tile (the first and the
// last byte do): what store_into_c does for each of its elements, done once (the first notes
// the tile; the others find it noted). False where each element must be looked at.
inline bool c_store_in_one_tile(Cta& c, const uint64_t* off, uint32_t mask, uint32_t bytes) {
  if (c.trace) return false;
  const ir::OutputTiling& o = c.launch.kernel->output;
  if (!o.declared()) return true;  // store_into_c notes nothing
  uint64_t lo = ~uint64_t(0), hi = 0;
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint64_t v = off[std::countr_zero(m)];
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  hi += bytes - 1;
  const uint32_t tile = c_tile_of(o, lo);
  const uint64_t row_bytes = uint64_t(o.elem_bytes) * o.cols;
  if (tile == kNone || tile != c_tile_of(o, hi) || lo / row_bytes != hi / row_bytes) return false;
  note_c_tile(c, tile);
  return true;
}

// The register checks of a decoded memory form, as exec_memory makes them (the address base,
// and a store's data registers), where a register is not written in every active lane or a
// wgmma may own one (decoded_reads_need_checks).
template <bool kStore>
[[gnu::always_inline]] inline void check_form_registers(ExecContext& x) {
  const DecodedInst& d = x.dec;
  const Warp& w = x.warp;
  uint32_t written_in_all = w.written[d.src[0].reg];
  if (kStore)
    for (uint32_t v = 0; v < d.vec; ++v) written_in_all &= w.written[d.data_regs[v]];
  if (decoded_reads_need_checks(x, written_in_all)) [[unlikely]] {
    if (kStore)
      for (uint32_t v = 0; v < d.vec; ++v) check_register_read(x, d.data_regs[v], x.mask);
    check_register_read(x, d.src[0].reg, x.mask);
  }
}

template <bool kStore, uint32_t kElem, bool kAvx2>
[[gnu::always_inline]] inline void global_form(ExecContext& x) {
  Cta& c = x.cta;
  const DecodedInst& d = x.dec;
  const Warp& w = x.warp;
  const uint32_t vec = d.vec, bytes = kElem * vec;
  const uint32_t mask = x.mask;
  const uint64_t* base = w.regs + 32 * size_t(d.src[0].reg);
  // The buffer of the first active lane's address; every lane must be inside it.
  const uint64_t buffer = ((base[std::countr_zero(mask)] + uint64_t(d.offset)) >> 44) - 1;
  const GlobalMemory& global = *c.launch.global;
  if (buffer >= global.buffers.size() || !global.buffers[buffer] || global.buffers[buffer]->size() < bytes) {
    exec_memory(x);
    return;
  }
  uint8_t* data = global.buffers[buffer]->data();
  const uint64_t delta = uint64_t(d.offset) - kGlobalBase[buffer];
  const uint64_t limit = global.buffers[buffer]->size() - bytes;
  const bool all_lanes = mask == kAllLanes;
  uint64_t off[32];
  if (!(all_lanes ? lanes_inside<true>(base, mask, delta, limit, bytes, off)
                  : lanes_inside<false>(base, mask, delta, limit, bytes, off))) {
    exec_memory(x);
    return;
  }
  check_form_registers<kStore>(x);
  for (uint32_t v = 0; v < vec; ++v) {
    uint64_t* r = w.regs + 32 * size_t(d.data_regs[v]);
    uint8_t* at = data + v * kElem;
    const auto lane = [&](uint32_t l) {
      if constexpr (kStore) store_bytes(at + off[l], r[l], kElem);
      else r[l] = load_bytes(at + off[l], kElem);
    };
    if (all_lanes) {
      if constexpr (kAvx2 && !kStore && (kElem == 4 || kElem == 8)) gather_lanes_avx2<kElem>(at, off, r);
      else
        for (uint32_t l = 0; l < 32; ++l) lane(l);
    } else {
      for (uint32_t m = mask; m; m &= m - 1) lane(uint32_t(std::countr_zero(m)));
    }
  }
  if (!kStore)
    for (uint32_t v = 0; v < vec; ++v) note_decoded_write(x, d.data_regs[v]);
  if constexpr (kStore)
    if (global.buffers[buffer] == global.buffers[2] && !c_store_in_one_tile(c, off, mask, bytes))  // any CTA's, into C
      for (uint32_t m = mask; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        for (uint32_t v = 0; v < vec; ++v) store_into_c(x, off[l] + v * kElem, kElem, d.data_regs[v], l);
      }
  if (!c.trace) {
    // What account_global sets.
    x.latency = global_issue(c, uint32_t(std::popcount(mask)), bytes, kStore, c.launch.figures->global_latency);
    return;
  }
  // Buffers start 32-byte aligned, so a lane's sector a / 32 = base / 32 + off / 32. A full
  // warp's sectors in lane order are counted here, fast; any other case by account_global.
  uint32_t sectors = kCountSectors;
  if (all_lanes) {
    uint64_t sector[33];
    const uint64_t base_sector = kGlobalBase[buffer] / 32;
    sectors = kAvx2 ? summarize_sectors_avx2(off, base_sector, sector) : summarize_sectors(off, base_sector, sector);
  }
  std::array<uint64_t, 32> addr;
  for (uint32_t l = 0; l < 32; ++l) addr[l] = kGlobalBase[buffer] + off[l];
  account_global(x, bytes, kStore, addr, mask, sectors);
}

#if defined(__x86_64__) && defined(__GNUC__)
// The AVX2 build's straight path (decode.hpp, DirectFn) for the commonest global access of a
// SIMT kernel: a whole warp's untraced ld.global of one 4-byte element, from registers that
// every lane has written and no wgmma can own. It does what global_form does for it, with the
// 32 offsets kept in eight vector registers from the bounds check to the gathers (global_form
// stores them to off[] and loads them back, and its frame holds off[] and sector[]), and
// without an ExecContext: about 120 instructions where the exec form took 210 (measured on
// simt_naive 256^3 with callgrind). It answers 0, having changed nothing, whenever it cannot show that every
// lane's address is inside one buffer and aligned; the scheduler then runs the exec form,
// which reports what it always did (tests/model/test_global_loads.cpp).
__attribute__((target("avx2"))) uint32_t direct_load_u32_avx2(Cta& c, Warp& w, const DecodedInst& d) {
  if (w.written[d.src[0].reg] != kAllLanes || !d.no_wgmma_regs) return 0;
  const uint64_t* base = w.regs + 32 * size_t(d.src[0].reg);
  const uint64_t buffer = ((base[0] + uint64_t(d.offset)) >> 44) - 1;
  const GlobalMemory& global = *c.launch.global;
  if (buffer >= global.buffers.size() || !global.buffers[buffer] || global.buffers[buffer]->size() < 4) return 0;
  const uint8_t* data = global.buffers[buffer]->data();
  const uint64_t limit_bytes = global.buffers[buffer]->size() - 4;
  uint64_t* r = w.regs + 32 * size_t(d.data_regs[0]);  // zero-extended to 64 bits, what load_bytes reads
  // The two commonest patterns of a SIMT kernel read without gathers (a gather of 4 costs
  // about as much as 4 loads): every lane at one address (a warp walking a row of A), and
  // lane l at the first lane's address + 4 l (consecutive columns of B). They are found on
  // the addresses as they are, and then only the first and the last lane need a bounds
  // check (every lane lies between them) and the first an alignment check (the step is 0 or
  // 4); a warp that fails either goes to global_form, which reports it.
  uint64_t step = base[1] - base[0];
  if (step == 0 || step == 4) {
    if (lanes_step_evenly_avx2(base, ~uint64_t(0), &step)) {
      const uint64_t first = base[0] + uint64_t(d.offset) - kGlobalBase[buffer];
      if (first > limit_bytes || first + 31 * step > limit_bytes || first % 4 != 0) return 0;
      if (step == 0) {
        uint32_t v;
        std::memcpy(&v, data + first, 4);
        const __m256i all = _mm256_set1_epi64x(int64_t(v));
#pragma GCC unroll 8
        for (uint32_t i = 0; i < 8; ++i) _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + 4 * i), all);
      } else {
#pragma GCC unroll 8
        for (uint32_t i = 0; i < 8; ++i) {
          const __m128i words = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + first + 16 * i));
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + 4 * i), _mm256_cvtepu32_epi64(words));
        }
      }
      w.written[d.data_regs[0]] = kAllLanes;  // note_decoded_write: |= all lanes
      return global_issue(c, 32, 4, false, c.launch.figures->global_latency);  // what account_global sets
    }
  }
  // Any other pattern. As in lanes_inside: an offset past limit or below the buffer sets bit
  // 63 of (limit - o) | o, and a misaligned one sets a low bit of o.
  const __m256i delta = _mm256_set1_epi64x(int64_t(uint64_t(d.offset) - kGlobalBase[buffer]));
  const __m256i limit = _mm256_set1_epi64x(int64_t(limit_bytes));
  __m256i off[8];
  __m256i bad = _mm256_setzero_si256(), low_bits = _mm256_setzero_si256();
#pragma GCC unroll 8
  for (uint32_t i = 0; i < 8; ++i) {
    off[i] = _mm256_add_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + 4 * i)), delta);
    bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_sub_epi64(limit, off[i]), off[i]));
    low_bits = _mm256_or_si256(low_bits, off[i]);
  }
  const __m256i sign = _mm256_set1_epi64x(int64_t(uint64_t(1) << 63)), align = _mm256_set1_epi64x(3);
  if (!_mm256_testz_si256(bad, sign) || !_mm256_testz_si256(low_bits, align)) return 0;
  // Any other pattern: gathers (offsets are below 2^63 here, so their signed indices are exact).
#pragma GCC unroll 8
  for (uint32_t i = 0; i < 8; ++i)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + 4 * i),
                        _mm256_cvtepu32_epi64(_mm256_i64gather_epi32(reinterpret_cast<const int*>(data), off[i], 1)));
  w.written[d.data_regs[0]] = kAllLanes;  // note_decoded_write: |= all lanes
  return global_issue(c, 32, 4, false, c.launch.figures->global_latency);  // what account_global sets
}
#endif

// ---- decoded form: ld.shared / st.shared through [reg + offset] ----------------------------
// What exec_memory does for them when every active lane's address is inside the CTA's shared
// memory, aligned, and every word it touches has nothing to report (check_shared_words would
// report nothing): the general path then only moves the data and updates each word's race
// bookkeeping, which this form does in flat loops. Anything else goes to exec_memory before
// anything changed. Checking every word first and updating after is what the general path's
// lane-by-lane order does too: an update by one lane (the warp's own write, or a read) can
// never make another lane's access report where it would not have before.

// check_shared_words reports nothing for warp w's access of this word.
template <bool kStore>
[[gnu::always_inline]] inline bool word_is_quiet(const SmemWord& s, const Warp& w, uint32_t rank, uint32_t epoch) {
  if constexpr (!kStore)
    if (s.written && !(s.tma_pending | s.cp_async_pending) && s.epoch != epoch) return true;  // the common read
  if (s.tma_pending || s.cp_async_pending || (kStore ? s.bulk_reads != 0 : !s.written)) return false;
  if (s.written && s.writer_warp != w.id && s.epoch == epoch && s.writer_warp != SmemWord::kAsync)
    return s.write_release != 0 && rank < kMaxClusterRanks && w.acquired[rank] >= s.write_release;
  return true;
}

// What check_shared_words records of a quiet access.
template <bool kStore>
[[gnu::always_inline]] inline void note_word(SmemWord& s, uint32_t warp, uint32_t epoch, uint32_t release) {
  if constexpr (kStore) {
    s.written = true;
    s.writer_warp = uint16_t(warp);
    s.epoch = epoch;
    s.write_release = release;
    s.generic_since_fence = true;
  } else {
    s.read_release = release;
    if (s.read_epoch != epoch) s.read_by = 0;
    s.read_epoch = epoch;
    s.read_by |= 1u << (warp % 32);
  }
}

// One value into 32 lanes. Unrolled, so that the stores are as wide as the unit's readers'
// loads: std::fill's out-of-line loop stored 16 bytes at a time, and a 32-byte load spanning
// two of them cannot take its data from the stores in flight (perf: the next FMA's loads
// stalled; simt_smem_tiling ran at 12 M warp-inst/s with it, 21 M without).
[[gnu::always_inline]] inline void broadcast_lanes(uint64_t v, uint64_t* r) {
#pragma GCC unroll 32
  for (uint32_t l = 0; l < 32; ++l) r[l] = v;
}

#if defined(__x86_64__) && defined(__GNUC__)
// 32 consecutive 4-byte words into 32 lanes, zero-extended to 64 bits (what load_bytes reads).
__attribute__((target("avx2"))) inline void widen_words_avx2(const uint8_t* at, uint64_t* r) {
#pragma GCC unroll 8
  for (uint32_t i = 0; i < 8; ++i) {
    const __m128i words = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + 16 * i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + 4 * i), _mm256_cvtepu32_epi64(words));
  }
}
#else
inline void widen_words_avx2(const uint8_t* at, uint64_t* r) {
  for (uint32_t l = 0; l < 32; ++l) r[l] = load_bytes(at + 4 * l, 4);
}
#endif

// What a shared access's lanes ask for, as offsets from its first active lane (diff): the
// words it touches and its bank report but each lane's bank depend on those offsets (and, for
// 1- and 2-byte accesses, on where in a word the first lane starts), not on where the warp's
// addresses lie: moving every lane by a multiple of the access width turns the banks round,
// which changes no bank's count and no bank's order of words (tests/layout/banks_test.cpp). A
// loop's access has the same offsets on every pass, so they are worked out once per instruction
// and kept, per thread, by instruction index. An entry is a pure function of its key (mask,
// width, a0 % 4, offsets), so one left by another kernel is harmless: it is used only where its
// key matches.
struct SharedLanePattern {
  uint32_t mask = 0;  // 0: empty
  uint32_t bytes = 0;
  uint32_t low = 0;  // a0 % 4
  std::array<uint32_t, 32> diff{};
  int32_t lo = 0, hi = 0;  // the lowest and highest offset
  layout::BankReport report;  // at a base of a0's alignment (account_shared_known)
  uint32_t nwords = 0;
  std::array<int32_t, 128> words{};  // the distinct words, from the first lane's word
};

// The pattern of this access, or nullptr where an offset is not aligned to the access (the
// general path reports it).
const SharedLanePattern* shared_lane_pattern(uint32_t inst, uint32_t mask, uint32_t bytes, uint32_t a0,
                                             const std::array<uint32_t, 32>& diff) {
  thread_local std::vector<SharedLanePattern> patterns;
  if (inst >= patterns.size()) patterns.resize(inst + 1);
  SharedLanePattern& p = patterns[inst];
  const uint32_t low = a0 & 3;
  if (p.mask == mask && p.bytes == bytes && p.low == low && p.diff == diff) return &p;
  const uint32_t align = std::min<uint32_t>(bytes, 16);
  uint32_t bits = 0;
  for (uint32_t l = 0; l < 32; ++l) bits |= diff[l];
  if ((bits & (align - 1)) != 0) return nullptr;
  p.mask = mask;
  p.bytes = bytes;
  p.low = low;
  p.diff = diff;
  p.lo = p.hi = 0;
  std::array<uint32_t, 32> addr{};
  std::vector<int32_t> words;
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint32_t l = uint32_t(std::countr_zero(m));
    const int32_t o = int32_t(diff[l]);
    p.lo = std::min(p.lo, o);
    p.hi = std::max(p.hi, o);
    // A fixed base with a0's place in its word: the bank analysis is the same for any aligned one.
    addr[l] = uint32_t(0x10000 + low + o);
    for (uint32_t i = 0; i < std::max<uint32_t>(bytes / 4, 1); ++i)
      words.push_back(((int32_t(low) + o) >> 2) + int32_t(i));
  }
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  p.nwords = uint32_t(words.size());
  std::copy(words.begin(), words.end(), p.words.begin());
  p.report = layout::analyze_shared_access(addr, mask, std::min<uint32_t>(bytes, 16), layout::Phasing::lsu_half_warp);
  return &p;
}

// A load's check and note of n neighbouring words in one pass: its notes touch no field a check
// reads, and noting a word again notes the same (a failed check leaves the general path to
// note what it notes, again). False at the first word with something to report.
[[gnu::always_inline]] inline bool note_quiet_reads(SmemWord* s, uint32_t n, const Warp& w, uint32_t rank,
                                                    uint32_t epoch, uint32_t release) {
  const uint32_t bit = 1u << (w.id % 32);
  for (uint32_t i = 0; i < n; ++i) {
    SmemWord& t = s[i];
    if (!word_is_quiet<false>(t, w, rank, epoch)) [[unlikely]]
      return false;
    t.read_release = release;
    t.read_by = (t.read_epoch == epoch ? t.read_by : 0) | bit;
    t.read_epoch = epoch;
  }
  return true;
}

// A whole warp at one address (same) or at consecutive ones (lane l at a + l × bytes, bytes
// 4..16): its words are one contiguous run, and its banks' cost is known without looking at
// the lanes (count_warp_pattern_wavefronts). False, having changed nothing, where the general
// form must look (out of bounds, misaligned, a word with something to report).
template <bool kStore, uint32_t kElem, bool kAvx2>
[[gnu::always_inline]] inline bool shared_pattern_form(ExecContext& x, bool same) {
  Cta& c = x.cta;
  const DecodedInst& d = x.dec;
  Warp& w = x.warp;
  const uint32_t vec = d.vec, bytes = kElem * vec;
  const uint64_t* base = w.regs + 32 * size_t(d.src[0].reg);
  const uint32_t a0 = uint32_t(base[0] + uint64_t(d.offset));
  const uint64_t o0 = uint32_t(a0 - timing::kSmemBaseAddress);
  const uint32_t span = same ? bytes : 32 * bytes;
  if (o0 + span > c.smem.size() || (a0 & (bytes - 1)) != 0) return false;
  const uint32_t words = std::max<uint32_t>(span / 4, 1);
  const uint32_t epoch = c.barrier_epoch;
  SmemWord* state = c.smem_word_state.data() + o0 / 4;
  const uint32_t release = c.releases + 1;
  if constexpr (kStore) {
    for (uint32_t i = 0; i < words; ++i)
      if (!word_is_quiet<kStore>(state[i], w, c.launch.cluster_rank, epoch)) return false;
  } else if (!note_quiet_reads(state, words, w, c.launch.cluster_rank, epoch, release)) {
    return false;
  }
  check_form_registers<kStore>(x);
  // One access per word is what 32 make: the updates repeat the same values.
  if constexpr (kStore)
    for (uint32_t i = 0; i < words; ++i) note_word<kStore>(state[i], w.id, epoch, release);
  uint8_t* at = c.smem.data() + o0;
  for (uint32_t v = 0; v < vec; ++v) {
    uint64_t* r = w.regs + 32 * size_t(d.data_regs[v]);
    if (same) {
      if constexpr (kStore) {
        store_bytes(at + v * kElem, r[31], kElem);  // the lanes store in order: the last one's stays
      } else {
        broadcast_lanes(load_bytes(at + v * kElem, kElem), r);
      }
    } else if constexpr (kAvx2 && !kStore && kElem == 4) {
      if (vec == 1) widen_words_avx2(at, r);  // 32 consecutive words
      else
        for (uint32_t l = 0; l < 32; ++l) r[l] = load_bytes(at + l * bytes + v * kElem, kElem);
    } else {
      for (uint32_t l = 0; l < 32; ++l) {
        if constexpr (kStore) store_bytes(at + l * bytes + v * kElem, r[l], kElem);
        else r[l] = load_bytes(at + l * bytes + v * kElem, kElem);
      }
    }
  }
  if (!kStore)
    for (uint32_t v = 0; v < vec; ++v) note_decoded_write(x, d.data_regs[v]);
  if (d.fold_leader == kNone && d.fold_bytes == 0 && !c.trace) {
    const layout::BankCount n = shared_pattern_cost(bytes, same);
    charge_shared(x, n.wavefronts, n.ideal_wavefronts);
    return true;
  }
  std::array<uint32_t, 32> addr;
  for (uint32_t l = 0; l < 32; ++l) addr[l] = a0 + (same ? 0 : l * bytes);
  if (d.fold_leader == kNone && d.fold_bytes == 0)
    account_shared_known(x, addr, bytes, kStore, shared_pattern_report(bytes, same));
  else account_shared(x, addr, bytes, kStore);
  return true;
}

template <bool kStore, uint32_t kElem, bool kAvx2>
[[gnu::always_inline]] inline void shared_form(ExecContext& x) {
  Cta& c = x.cta;
  const DecodedInst& d = x.dec;
  Warp& w = x.warp;
  const uint32_t vec = d.vec, bytes = kElem * vec;
  const uint32_t mask = x.mask;
  const uint64_t* base = w.regs + 32 * size_t(d.src[0].reg);
  const uint64_t size = c.smem.size();
  if (mask == 0 || size < bytes || c.smem_word_state.size() * 4 < size) {
    exec_memory(x);
    return;
  }
  if (mask == kAllLanes && bytes <= 16) {
    uint64_t step = 0;
    const bool even =
        kAvx2 ? lanes_step_evenly_avx2(base, 0xFFFFFFFFu, &step) : lanes_step_evenly(base, 0xFFFFFFFFu, &step);
    if (even && (step == 0 || (step == bytes && bytes >= 4)) && shared_pattern_form<kStore, kElem, kAvx2>(x, step == 0))
      return;
  }
  // Any other pattern: what it costs and which words it touches, from its lanes' offsets.
  const uint32_t first = uint32_t(std::countr_zero(mask));
  const uint32_t a0 = uint32_t(base[first] + uint64_t(d.offset));
  std::array<uint32_t, 32> diff;
  for (uint32_t l = 0; l < 32; ++l) diff[l] = uint32_t(base[l] - base[first]) & (0u - (mask >> l & 1));
  const SharedLanePattern* p = shared_lane_pattern(x.inst_id, mask, bytes, a0, diff);
  // As smem_ptr: every lane inside [kSmemBaseAddress, + size) and aligned (at most 16 bytes).
  const int64_t o0 = int64_t(uint32_t(a0 - timing::kSmemBaseAddress));
  if (!p || o0 + p->lo < 0 || o0 + p->hi + bytes > int64_t(size) || (a0 & (std::min<uint32_t>(bytes, 16) - 1)) != 0) {
    exec_memory(x);
    return;
  }
  const uint32_t rank = c.launch.cluster_rank, epoch = c.barrier_epoch;
  SmemWord* state = c.smem_word_state.data() + (o0 >> 2);
  const uint32_t release = c.releases + 1;
  bool quiet = true;
  if constexpr (kStore) {
    for (uint32_t i = 0; i < p->nwords && quiet; ++i) quiet = word_is_quiet<kStore>(state[p->words[i]], w, rank, epoch);
  } else {
    for (uint32_t i = 0; i < p->nwords && quiet; ++i)
      quiet = note_quiet_reads(state + p->words[i], 1, w, rank, epoch, release);
  }
  if (!quiet) {
    exec_memory(x);
    return;
  }
  check_form_registers<kStore>(x);
  // One update per word is what one per lane makes: lanes of one word repeat the same values.
  if constexpr (kStore)
    for (uint32_t i = 0; i < p->nwords; ++i) note_word<kStore>(state[p->words[i]], w.id, epoch, release);
  uint8_t* at = c.smem.data() + o0;
  for (uint32_t v = 0; v < vec; ++v) {
    uint64_t* r = w.regs + 32 * size_t(d.data_regs[v]);
    for (uint32_t m = mask; m; m &= m - 1) {
      const uint32_t l = uint32_t(std::countr_zero(m));
      uint8_t* q = at + int32_t(diff[l]) + v * kElem;
      if constexpr (kStore) store_bytes(q, r[l], kElem);
      else r[l] = load_bytes(q, kElem);
    }
  }
  if (!kStore)
    for (uint32_t v = 0; v < vec; ++v) note_decoded_write(x, d.data_regs[v]);
  if (d.fold_leader == kNone && d.fold_bytes == 0 && !c.trace) {
    charge_shared(x, p->report.wavefronts, p->report.ideal_wavefronts);
    return;
  }
  std::array<uint32_t, 32> addr{};
  for (uint32_t m = mask; m; m &= m - 1) addr[std::countr_zero(m)] = a0 + diff[std::countr_zero(m)];
  if (d.fold_leader == kNone && d.fold_bytes == 0) account_shared_known(x, addr, bytes, kStore, p->report);
  else account_shared(x, addr, bytes, kStore);
}

// The straight path (decode.hpp, DirectFn) of the commonest shared access of a SIMT kernel: a
// whole warp's untraced ld.shared of one 4-byte element, every lane at one address or lane l
// at a + 4 l, from an address register every lane has written and no wgmma can own, not
// folded into another load. It does what shared_pattern_form does for it without an
// ExecContext, and keeps the warp in the scheduler's straight loop (cta.cpp). It answers 0
// where it cannot show the access is quiet: the exec form then runs (the words it noted as
// read, it notes again the same).
template <bool kAvx2>
[[gnu::always_inline]] inline uint32_t direct_shared_load_u32(Cta& c, Warp& w, const DecodedInst& d) {
  if (w.written[d.src[0].reg] != kAllLanes || !d.no_wgmma_regs || d.fold_leader != kNone || d.fold_bytes != 0) return 0;
  const uint64_t* base = w.regs + 32 * size_t(d.src[0].reg);
  uint64_t step = 0;
  const bool even =
      kAvx2 ? lanes_step_evenly_avx2(base, 0xFFFFFFFFu, &step) : lanes_step_evenly(base, 0xFFFFFFFFu, &step);
  if (!even || (step != 0 && step != 4)) return 0;
  const bool same = step == 0;
  const uint32_t a0 = uint32_t(base[0] + uint64_t(d.offset));
  const uint64_t o0 = uint32_t(a0 - timing::kSmemBaseAddress);
  const uint32_t span = same ? 4 : 128;
  if (o0 + span > c.smem.size() || c.smem_word_state.size() * 4 < c.smem.size() || (a0 & 3) != 0) return 0;
  if (!note_quiet_reads(c.smem_word_state.data() + o0 / 4, span / 4, w, c.launch.cluster_rank, c.barrier_epoch,
                        c.releases + 1))
    return 0;
  uint64_t* r = w.regs + 32 * size_t(d.data_regs[0]);
  const uint8_t* at = c.smem.data() + o0;
  if (same) broadcast_lanes(load_bytes(at, 4), r);
  else if constexpr (kAvx2) widen_words_avx2(at, r);
  else
    for (uint32_t l = 0; l < 32; ++l) r[l] = load_bytes(at + 4 * l, 4);
  w.written[d.data_regs[0]] = kAllLanes;  // note_decoded_write: |= all lanes
  const layout::BankCount n = shared_pattern_cost(4, same);
  return shared_access_cost(c, n.wavefronts, n.ideal_wavefronts);
}
uint32_t direct_shared_load_u32_baseline(Cta& c, Warp& w, const DecodedInst& d) {
  return direct_shared_load_u32<false>(c, w, d);
}
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) uint32_t direct_shared_load_u32_avx2(Cta& c, Warp& w, const DecodedInst& d) {
  return direct_shared_load_u32<true>(c, w, d);
}
#else
uint32_t direct_shared_load_u32_avx2(Cta& c, Warp& w, const DecodedInst& d) {
  return direct_shared_load_u32<false>(c, w, d);
}
#endif

// The two decoded forms, each compiled for baseline x86-64 and for AVX2, which select_memory
// picks where the CPU has it (wider lane loops: the bounds checks take 4 lanes an instruction;
// integer work only, the same result).
struct GlobalForm {
  template <bool kStore, uint32_t kElem, bool kAvx2>
  [[gnu::always_inline]] static inline void run(ExecContext& x) {
    global_form<kStore, kElem, kAvx2>(x);
  }
};
struct SharedForm {
  template <bool kStore, uint32_t kElem, bool kAvx2>
  [[gnu::always_inline]] static inline void run(ExecContext& x) {
    shared_form<kStore, kElem, kAvx2>(x);
  }
};

template <class Form, bool kStore, uint32_t kElem>
void exec_form(ExecContext& x) {
  Form::template run<kStore, kElem, false>(x);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <class Form, bool kStore, uint32_t kElem>
__attribute__((target("avx2"))) void exec_form_avx2(ExecContext& x) {
  Form::template run<kStore, kElem, true>(x);
}
#else
template <class Form, bool kStore, uint32_t kElem>
void exec_form_avx2(ExecContext& x) {
  Form::template run<kStore, kElem, false>(x);
}
#endif

template <class Form, bool kStore, uint32_t kElem>
ExecFn form_fn() {
  return kHaveAvx2Forms && cpu_has_avx2() ? exec_form_avx2<Form, kStore, kElem> : exec_form<Form, kStore, kElem>;
}

template <class Form, bool kStore>
ExecFn form_for(uint32_t elem) {
  switch (elem) {
    case 1: return form_fn<Form, kStore, 1>();
    case 2: return form_fn<Form, kStore, 2>();
    case 4: return form_fn<Form, kStore, 4>();
    case 8: return form_fn<Form, kStore, 8>();
    default: return nullptr;
  }
}

}  // namespace

ExecFn select_memory(const ir::Inst& in, Program&, DecodedInst& d, const ir::Kernel&) {
  const bool shared = in.op == Op::ld_shared || in.op == Op::st_shared;
  if (in.op != Op::ld_global && in.op != Op::st_global && !shared) return nullptr;
  const bool store = in.op == Op::st_global || in.op == Op::st_shared;
  const uint32_t elem = std::max<uint32_t>(ir::type_bits(in.type) / 8, 1);
  const uint32_t vec = std::max<uint32_t>(in.vec, 1);
  if (vec > 4 || !std::has_single_bit(elem * vec) || in.operands.size() != vec + 1) return nullptr;
  const ExecFn form = shared  ? (store ? form_for<SharedForm, true>(elem) : form_for<SharedForm, false>(elem))
                      : store ? form_for<GlobalForm, true>(elem)
                              : form_for<GlobalForm, false>(elem);
  if (!form) return nullptr;
  const ir::Operand& addr = store ? in.operands[0] : in.operands[vec];
  if (addr.kind != ir::OperandKind::mem_reg) return nullptr;
  for (uint32_t v = 0; v < vec; ++v) {
    const ir::Operand& o = in.operands[store ? 1 + v : v];
    if (o.kind != ir::OperandKind::reg) return nullptr;
    d.data_regs[v] = o.id;
  }
  d.src[0] = {true, addr.id, nullptr};
  d.nsrc = 1;
  d.offset = addr.imm;
  d.elem_bytes = uint8_t(elem);
  d.vec = uint8_t(vec);
#if defined(__x86_64__) && defined(__GNUC__)
  if (!store && elem == 4 && vec == 1 && form == exec_form_avx2<GlobalForm, false, 4>) d.direct = direct_load_u32_avx2;
#endif
  if (shared && !store && elem == 4 && vec == 1)
    d.direct = kHaveAvx2Forms && cpu_has_avx2() ? direct_shared_load_u32_avx2 : direct_shared_load_u32_baseline;
  return form;
}

}  // namespace gs::model
