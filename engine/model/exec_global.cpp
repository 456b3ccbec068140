// The traced CTA's global loads and stores on the SM's L1 path (machine.hpp): what a load finds in
// the CTA's L1 (hit, miss, a line on its way from L2), the cycles it holds the data path, its
// latency, and the access's statistics and trace record. exec_mem.cpp executes the
// instructions and calls account_global and global_issue.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "engine/model/exec_mem_forms.hpp"
#include "engine/model/exec_context.hpp"
#include "engine/model/values.hpp"

namespace gs::model {

using memform::distinct_count;

// A warp's global access on the SM's L1 data path, the one that shared memory's wavefronts take
// too (probe l1_shared_mix_32warps; ncu counts both as l1tex__data_pipe_lsu_wavefronts): it
// holds the path for its bytes at kLsuBytesPerCycle, and a cycle for each 128-byte line it touches (probes
// l1_loads_stride*: 8 lines a load take 7.7 cycles, 32 lines 33), once the path is free; a
// load's data is ready
// `load_latency` after it starts (CtaFigures::global_latency, an L2 hit, unless the traced CTA's L1 holds
// every sector: l1_latency; the bytes from HBM are a bandwidth limit of the whole wave,
// timing.cpp), a store's issue is over in a cycle.
uint32_t global_issue(Cta& c, uint32_t lanes, uint32_t bytes, bool store, uint32_t load_latency, uint32_t lines,
                      double extra_cycles) {
  const uint64_t line_cycles = uint64_t(std::ceil(lines / timing::kL1LinesPerCycle));
  uint64_t cycles = std::max(line_cycles, global_byte_cycles(lanes, bytes));
  if (extra_cycles > 0) {  // whole cycles as the fractions add up
    c.l1_data_fraction += extra_cycles;
    const double whole = std::floor(c.l1_data_fraction);
    c.l1_data_fraction -= whole;
    cycles += uint64_t(whole);
  }
  const DataPath::Taken t = c.data_path.take(c.now, cycles);
  c.cost.lsu_cycles += cycles;
  return uint32_t(t.first - c.now) + (store ? 1 : load_latency);
}

uint64_t take_store_path(Cta& c, double bytes, double lines) {
  const timing::CtaFigures& f = *c.launch.figures;
  const bool apart = c.tiles_visited > 1;  // a later tile of C (Cta::tiles_visited, store_into_c)
  const double cycles =
      apart ? bytes / f.store_sm_bytes_per_cycle : timing::store_weight(f, bytes, lines) / f.store_bytes_per_cycle;
  const uint64_t start = std::max(c.now, c.store_free);
  c.store_free = start + uint64_t(cycles + 0.5);
  return start;
}

namespace {

// What a traced CTA's global load finds in its L1 (Cta::l1): the sectors it does not hold (each
// comes from L2 and is then held, arriving `l2_latency` after the load), and whether any it holds
// is still on its way from L2 (an earlier load asked for it). The L1 is what the SM's 256 KB
// leave beside the CTA's shared memory.
struct L1Lookup {
  uint32_t misses = 0;
  bool pending = false;
};
L1Lookup l1_lookup(Cta& c, const std::array<uint64_t, 32>& addr, uint32_t lanes, uint32_t bytes, uint32_t l2_latency) {
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
  // Lanes in address order (coalesced, strided and broadcast loads) list their sectors sorted.
  if (!std::is_sorted(sector, sector + n)) std::sort(sector, sector + n);
  n = uint32_t(std::unique(sector, sector + n) - sector);
  L1Lookup found;
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
      *hit = {line, 0, 0, 0};
    }
    if (!(hit->sectors & bit)) {
      ++found.misses;
      hit->ready = std::max(hit->ready, c.now + l2_latency);
    } else if (hit->ready > c.now) {
      found.pending = true;
    }
    hit->sectors |= bit;
    hit->used = ++c.l1_clock;
  }
  return found;
}

}  // namespace

uint32_t distinct_lines(const std::array<uint64_t, 32>& addr, uint32_t lanes, uint32_t bytes) {
  uint64_t line[64];
  uint32_t n = 0;
  for (uint32_t m = lanes; m; m &= m - 1) {
    const uint64_t a = addr[std::countr_zero(m)];
    line[n++] = a / 128;
    if ((a + bytes - 1) / 128 != a / 128) line[n++] = (a + bytes - 1) / 128;
  }
  return distinct_count(line, n);
}

// Statistics and trace record of a global access: each lane's address and the distinct
// 32-byte sectors they touch (only for the traced CTA).
void account_global(ExecContext& x, uint32_t bytes, bool store, const std::array<uint64_t, 32>& addr, uint32_t lanes,
                    uint32_t sectors, bool data_path) {
  Cta& c = x.cta;
  // The traced CTA's loads look in its L1 first (l1_lookup): all sectors there or on their way
  // from L2 (an earlier load asked for them), the data comes at L1 latency; any sector from L2,
  // at L2 latency. Each kind holds the data path beyond its lines' cycles as the probes
  // l1_loads_stride4_32warps, l1_fill_same_v1_32warps and l1_fill_v1_32warps measured
  // (machines.hpp). A load that finds its line on its way waits no longer than a hit: the model
  // runs a loop's iterations as the IR has them, one after another, where ptxas unrolls and
  // hoists their loads so that several iterations' loads are in flight (step 01's SASS: 3.2
  // instructions an iteration against the IR's 8); waiting for the line's arrival would
  // serialise what the SASS overlaps (step 01 at 4096^3 fell to 3.3 TFLOP/s, the card does 6.4).
  // Other CTAs' loads are L2 hits.
  const uint32_t global_latency = c.launch.figures->global_latency;
  const L1Lookup found = c.trace && !store ? l1_lookup(c, addr, lanes, bytes, global_latency) : L1Lookup{};
  uint32_t lines = ~0u;  // the distinct lines the lanes touch, counted once when asked
  const auto lines_of = [&] { return lines != ~0u ? lines : (lines = distinct_lines(addr, lanes, bytes)); };
  if (data_path) {
    uint32_t latency = global_latency;
    double extra = 0.0;
    if (c.trace && !store) {
      if (found.misses > 0) {
        extra = timing::kL1MissRequestCycles;
      } else if (found.pending) {
        latency = c.launch.figures->l1_latency;
        extra = timing::kL1PendingRequestCycles;
      } else {
        latency = c.launch.figures->l1_latency;
        extra = timing::kL1RequestCycles;
      }
    }
    x.latency = global_issue(c, lane_count(lanes), bytes, store, latency, c.trace ? lines_of() : 0, extra);
  }
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
    // What HBM will take of it: the bytes the lanes write. L2 is write-back: the sectors a store
    // fills in part (a tcgen05 epilogue's 16 bytes a lane, each lane its own row) are filled by
    // the stores after it and leave for HBM once, whole; counting the sectors touched made the
    // HBM part of steps 21-24 twice C. The SM's path to L2 below still takes whole sectors.
    c.cost.global_store_bytes += uint64_t(lane_count(lanes)) * bytes;
    // The traced CTA's stores leave the SM on its path into L2, 32 bytes a sector touched
    // (take_store_path): a store issues once the path has taken the stores before it.
    x.warp.store_hold = take_store_path(c, 32.0 * g.sectors, lines_of()) + 1;
  } else {
    c.cost.global_load_bytes += 32ull * found.misses;
  }
  const uint32_t index = append(c.trace->global, g);
  trace_event(c, EventKind::global_access, c.now, x.warp.id, x.inst_id, x.mask, index, g.sectors);
}

}  // namespace gs::model
