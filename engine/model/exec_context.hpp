// What an exec_* function runs with (ExecContext: the CTA, the warp, the instruction, its lanes)
// and the helpers the exec families share for memory: shared-window and cluster access with their
// checks, the accounting of global and shared accesses, stores into C. The machine's state they
// act on is machine.hpp's; exec.hpp lists the functions.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "engine/layout/banks.hpp"
#include "engine/model/machine.hpp"
#include "engine/model/timing.hpp"

namespace gs::model {

struct ExecContext {
  Cta& cta;
  Warp& warp;
  const ir::Inst& inst;
  const DecodedInst& dec;  // the same instruction, decoded (decode.hpp)
  uint32_t inst_id;
  uint32_t mask;      // lanes at this pc whose guard holds
  uint32_t at_pc;     // lanes at this pc (guard true or false)
  uint32_t latency = timing::kAluLatency;
  // The warp's next issue no earlier than this cycle, whatever the instruction's issue kind: a
  // wgmma waiting for the SM's wgmma issue holds its warp there (exec_wgmma.cpp).
  uint64_t hold_until = 0;
  bool block = false;        // the warp must wait (barrier); pc does not advance
  bool branch_handled = false;
};

// Shared window access with bounds and hazard checks; returns nullptr when out of bounds.
uint8_t* smem_ptr(ExecContext& x, uint32_t addr, uint32_t bytes, uint32_t lane, bool store);
uint32_t memory_address32(ExecContext& x, const ir::Operand& o, uint32_t lane);
// Race and initialisation checks on the 4-byte words of one lane's shared access at `addr`
// (already bounds-checked by smem_ptr), and the bookkeeping of the access (exec_mem.cpp).
void check_shared_words(ExecContext& x, uint32_t addr, uint32_t bytes, uint32_t lane, bool store);
// A shared::cluster access (exec_mem.cpp): this CTA's window or a peer's, through
// cluster_target; nullptr (reported) when outside them.
uint8_t* cluster_smem_ptr(ExecContext& x, uint32_t addr, uint32_t bytes, uint32_t lane, bool store);
// Statistics, latency and trace record of one warp-level access (exec_global.cpp; exec_mem.cpp for shared): a global
// access of `bytes` per lane at addr[l] for the lanes in `lanes` (read only for the traced
// CTA), touching `sectors` distinct 32-byte sectors (kCountSectors: counted here); a shared
// access through the bank model (facts §8). data_path false: the bytes do not pass the L1's
// data path (cp.async, whose data goes from L2 into shared memory and takes only its shared
// wavefronts there: on the H200, ncu counts step 09's 134 M sectors of cp.async reads as 8 M data-path
// wavefronts besides the shared ones, docs/results/2026-12-01-device call 1), so no issue on it.
inline constexpr uint32_t kCountSectors = ~0u;
void account_global(ExecContext& x, uint32_t bytes, bool store, const std::array<uint64_t, 32>& addr, uint32_t lanes,
                    uint32_t sectors = kCountSectors, bool data_path = true);
// Returns the wavefronts it took of the data path (0 for a load folded into another).
uint32_t account_shared(ExecContext& x, const std::array<uint32_t, 32>& addrs, uint32_t bytes, bool store);
// account_shared's wavefronts of an untraced access of `access_bytes` a lane (at most 16), kept
// per thread by instruction for its next access with the same lane offsets (exec_mem.cpp).
layout::BankCount shared_wavefronts_by_inst(uint32_t inst, const std::array<uint32_t, 32>& addrs, uint32_t mask,
                                            uint32_t access_bytes, layout::Phasing phasing);
// The distinct 128-byte lines `bytes` a lane at addr[l] touch, over the lanes in `lanes`.
uint32_t distinct_lines(const std::array<uint64_t, 32>& addr, uint32_t lanes, uint32_t bytes);
// A warp's global access of `lanes` lanes x `bytes` on the SM's load/store path, asked for at its
// issue cycle (a moved global load keeps its place in the IR there: the L1 probes' figures were
// measured against it, docs/results/2026-12-02-stalls): its latency (a load's, waiting for the
// path included, with the data `load_latency` after the path takes it; a store's issue), holding
// the path a cycle for each of `lines` 128-byte lines at least, and `extra_cycles` more
// (fractions carried from access to access in Cta::l1_data_fraction) (exec_global.cpp).
uint32_t global_issue(Cta& c, uint32_t lanes, uint32_t bytes, bool store, uint32_t load_latency, uint32_t lines = 0,
                      double extra_cycles = 0.0);
// A store of `bytes` touching `lines` 128-byte lines leaves the traced CTA's SM for L2 once the
// stores before it have (Cta::store_free); returns the cycle it starts. Into its first tile of C
// (a kernel that declares its output tiling), the CTA stores as one of a wave whose CTAs started
// together and so store together: its SM's share of L2's write bandwidth, lines weighed
// (timing::store_weight). Into a persistent CTA's later tiles, when the wave's CTAs have drifted
// apart, at its SM's own path (CtaFigures::store_sm_bytes_per_cycle): on the
// H100 step 15 at 8192^3 stored its first tile's 128 KiB in 10.1k cycles, its fourth and later in
// 5.3-5.5k (2026-12-06, docs/results/2026-12-06-one-wave).
uint64_t take_store_path(Cta& c, double bytes, double lines);
// The cycles such an access holds the path for its bytes alone (at least one).
constexpr uint64_t global_byte_cycles(uint32_t lanes, uint32_t bytes) {
  return std::max<uint64_t>(1, (uint64_t(lanes) * bytes + timing::kLsuBytesPerCycle - 1) / timing::kLsuBytesPerCycle);
}
// A store of any CTA into C at byte `offset` (exec_mem.cpp), the one record of it: a new visit
// in the grid's schedule when it lands in another tile than the CTA's previous store
// (model.hpp, CSchedule), and for a traced CTA the element with the register that wrote it
// (Trace::c_writes; kNone for an immediate or a TMA store's element).
void store_into_c(ExecContext& x, uint64_t offset, uint32_t bytes, uint32_t reg, uint32_t lane);
// The trace record of one warp-level shared access the bank model analysed (the warps' own
// accesses and the tensor core's reads alike).
SmemAccess smem_access_record(const std::array<uint32_t, 32>& addrs, uint32_t mask, uint32_t bytes, bool store,
                              const layout::BankReport& report);
uint64_t memory_address64(ExecContext& x, const ir::Operand& o, uint32_t lane);
// A shared::cluster address resolved to a CTA of the cluster and a shared::cta address in
// it; nullptr (after reporting why) when the rank is outside the cluster.
Cta* cluster_target(ExecContext& x, uint32_t address, uint32_t lane, uint32_t* cta_address);

}  // namespace gs::model
