// Internal state of the CPU model (machine.hpp): one warp's registers, program counters,
// scoreboard, clocks and what it waits on, with what a warp keeps between instructions (its
// last mma.sync A fragment, the tensor-memory columns its MMAs wrote, its vector clock).
#pragma once

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/ir/kernel.hpp"
#include "engine/model/decode.hpp"
#include "engine/model/line_aligned.hpp"
#include "engine/model/model.hpp"
#include "engine/model/timing.hpp"

namespace gs::model {

struct Cta;

// Tensor-memory columns an MMA wrote in CTA `cta` (its own, or the peer's for cta_group::2);
// released once a commit covering it has arrived (its columns then count as pending no more).
struct TmemRange {
  Cta* cta = nullptr;
  uint32_t col = 0, ncols = 0;
  bool released = false;
};

enum class WarpState : uint8_t { ready, bar_wait, mbar_wait, wgmma_wait, cluster_wait, regs_wait, exited };

// Cluster ranks the model's release bookkeeping covers (the PTX ISA's largest cluster, 16 CTAs
// with the non-portable size).
inline constexpr uint32_t kMaxClusterRanks = 16;

// The order of the warps' actions inside one CTA, as a vector clock (tensor memory's hazard
// checks, exec_tcgen05.cpp): entry v of a warp's clock is the number of warp v's releases that
// warp has acquired, its own entry the releases it has made. A release is an mbarrier arrive
// (the phase carries the arriver's clock to the warps whose wait returns on it), a bar.sync
// (its warps exchange clocks) or a tcgen05.commit (its arrival carries the issuer's clock). An
// action of warp v stamped s (v's own entry + 1 when it acted) is ordered before warp u's later
// action when u's entry v is at least s. A CTA has at most 1024 threads: 32 warps.
inline constexpr uint32_t kMaxCtaWarps = 32;
using WarpClock = std::array<uint32_t, kMaxCtaWarps>;
inline void join_clock(WarpClock& into, const WarpClock& from) {
  for (uint32_t v = 0; v < kMaxCtaWarps; ++v) into[v] = std::max(into[v], from[v]);
}

// What an mma.sync's A fragment gives the bf16 pair sums (tensor_sums_integers.cpp): its four
// registers' low words in the order the build's sums read them (pair-major for avx512_bf16, the
// tile's 16 rows of 8 pairs for amx_bf16: a warp's kept A is only ever read back by the build
// that kept it, fastest_sums_build()), and whether every value is an integer of at most 256. A warp keeps its last one for the next mma.sync that reads the same A registers right
// after it (DecodedInst::mma_same_a: eight of step 10's in a row share A).
struct MmaAPairs {
  alignas(64) std::array<uint32_t, 4 * 2 * 16> words{};
  bool integers = false;
};

struct Warp {
  uint32_t id = 0;
  // Program counters: while every live lane is at one pc (the common case) it is `upc`;
  // after a divergent branch each lane has its own in `pc`, and the lanes with the smallest
  // pc run first (min-PC reconvergence) until they meet again.
  bool uniform = true;
  uint32_t upc = 0;
  uint32_t exited = 0;            // lanes that finished
  uint32_t present = 0;           // lanes that exist (a partial last warp has fewer)
  // This warp's rows of Cta::regs and Cta::written (register r's lanes at regs + 32 * r, its
  // written lanes at written[r]), so that the hot exec forms find an operand without a
  // multiply. Set by reset_cta once those tables have their size for the kernel.
  uint64_t* regs = nullptr;
  uint32_t* written = nullptr;
  // The issue model's scoreboard (cta.cpp): register r's value is usable from cycle
  // reg_ready[r] on (its row of Cta::reg_ready).
  uint64_t* reg_ready = nullptr;
  // When this warp last issued each pc, by pc % 32 (kHoistWindow + 1): a load ptxas schedules
  // earlier (DecodedInst::hoist) has its data from the time the instruction it moves above issued.
  std::array<uint64_t, kHoistWindow + 1> issue_at{};
  // Its last mma.sync's A pairs (MmaAPairs), kept by the straight path: valid for the mma.sync at
  // mma_a_pc + 1 while issue_at still says pc mma_a_pc issued at mma_a_at (it was the last
  // instruction this warp issued before that one).
  MmaAPairs mma_a;
  uint32_t mma_a_pc = ~0u;
  uint64_t mma_a_at = 0;
  // The mma.syncs before this pc whose sums a run's first one computed (DecodedInst::mma_run,
  // exec_mma.cpp): each of them, issued right after the one before (mma_a_pc, mma_a_at), writes
  // nothing more. 0: none.
  uint32_t mma_batch_end = 0;
  // Its last ld.shared.u32 whose lanes' offsets were found to be those of a kept pattern
  // (exec_smem_forms.cpp, pattern_load_u32): its pc, its issue time and the pattern's version
  // (SharedLanePattern::version). While issue_at still says pc pattern_pc issued at pattern_at,
  // that was the warp's last issue; the load at pattern_pc + 1 from the same register
  // (DecodedInst::shared_same_base) finds the lanes as that one found them.
  uint32_t pattern_pc = ~0u;
  uint64_t pattern_at = 0;
  uint64_t pattern_version = 0;
  // Bit i: the ten source registers of the mma.sync of Program::mma_regs[i] (i < kMmaWrittenBits)
  // were written in every lane when this warp last looked (exec_mma.cpp, direct_mma_sync). A
  // register's written lanes only grow within a CTA (Cta::written: every write ORs its lanes in,
  // and reset_cta clears them with the warp), so the answer stays true once it is.
  static constexpr uint32_t kMmaWrittenBits = 128;
  std::array<uint64_t, kMmaWrittenBits / 64> mma_sources_written{};
  // The parts of a cycle its FFMAs' register reads have held it beyond their issue cycles
  // (DecodedInst::read_cycles), not yet a whole cycle.
  float read_debt = 0;

  uint32_t live() const { return present & ~exited; }
  // The pc to run next and the live lanes at it.
  uint32_t next_pc(uint32_t* at_pc) {
    const uint32_t lv = live();
    if (uniform) {
      *at_pc = lv;
      return upc;
    }
    uint32_t best = kNone, mask = 0;
    for (uint32_t l = 0; l < 32; ++l) {
      if (!(lv >> l & 1)) continue;
      if (pc[l] < best) {
        best = pc[l];
        mask = 0;
      }
      if (pc[l] == best) mask |= 1u << l;
    }
    if (mask == lv) {  // reconverged
      uniform = true;
      upc = best;
    }
    *at_pc = mask;
    return best;
  }
  void set_pc(uint32_t lanes, uint32_t value) {
    if (uniform && (lanes & live()) == live()) {  // the common case, inline in the scheduler loop
      upc = value;
      return;
    }
    set_pc_per_lane(lanes, value);
  }
  [[gnu::noinline]] void set_pc_per_lane(uint32_t lanes, uint32_t value) {
    if (uniform) {
      pc.fill(upc);
      uniform = false;
    }
    for (uint32_t l = 0; l < 32; ++l)
      if (lanes >> l & 1) pc[l] = value;
  }
  WarpState state = WarpState::ready;
  uint64_t ready_at = 0;          // modeled cycle of the next issue
  ir::WarpRole role = ir::WarpRole::none;  // the declared role of its last issue (traced CTA)
  // What a waiting warp waits for.
  uint32_t wait_bar_id = 0;
  uint32_t wait_mbar = 0;
  uint32_t wait_parity = 0;
  uint64_t wait_since = 0;
  // mbarrier waits that returned (exec_mbarrier_wait): per barrier, its completed phases when
  // this warp's last wait on it returned; and the latest wait that returned on a phase this
  // warp had already waited through (the parity was not flipped), which the hazards it leads
  // to name as their cause. inst == kNone: the latest wait was not stale.
  std::vector<std::pair<uint32_t, uint32_t>> passed_phases;  // (barrier address, completed phases)
  // Per cluster rank r, the latest release of CTA r (Cta::releases) this warp has acquired: by a
  // wait that returned on a phase CTA r's warps arrived in, a bar.sync with warps that had, or
  // barrier.cluster. A multicast that overwrites a peer's bytes its warps read after their
  // latest release this warp acquired is a cluster-race (exec_async.cpp).
  std::array<uint32_t, kMaxClusterRanks> acquired{};
  // TMA stores (cp.async.bulk.tensor shared -> global) this warp issued that may still read
  // shared memory: those since its last cp.async.bulk.commit_group, and the committed groups
  // (oldest first) that no cp.async.bulk.wait_group.read has retired yet (exec_bulk_group).
  struct BulkStore {
    uint32_t smem = 0, bytes = 0;
    uint64_t read_done = 0;  // the cycle its copy has read the last byte
  };
  std::vector<BulkStore> bulk_uncommitted;
  std::vector<std::vector<BulkStore>> bulk_groups;
  struct StaleWait {
    uint32_t inst = kNone;
    uint32_t addr = 0, parity = 0, phase = 0;  // phase: completed phases (the current one's parity is phase & 1)
  };
  StaleWait stale_wait;
  // barrier.cluster.arrive instructions this warp has executed; its arrival for phase p is
  // the (p+1)-th (exec_cluster.cpp).
  uint32_t cluster_arrivals = 0;
  // setmaxnreg (exec_warpgroup.cpp): this warp's registers per thread, and what a blocked
  // setmaxnreg.inc asks for.
  uint32_t reg_limit = 0;
  uint32_t wait_regs = 0;
  // wgmma bookkeeping: groups committed and not yet waited on.
  bool wgmma_fenced = false;
  bool wgmma_any = false;
  struct Group {
    uint64_t complete_at = 0;
    std::vector<uint32_t> regs;
  };
  std::vector<uint32_t> uncommitted_regs;
  uint64_t uncommitted_complete_at = 0;
  uint32_t wgmma_issued = 0;
  // The traced CTA's last global store: the warp's next issue waits until the SM's store path
  // took it (exec_global.cpp); 0 elsewhere.
  uint64_t store_hold = 0;  // this warp's wgmma.mma_async so far: which of its warpgroup's it is
  // The cycle the L1's data path has taken this warp's shared accesses so far (the last wavefront's
  // end): a fence.proxy.async waits for its generic shared writes to be performed (exec_sync.cpp).
  uint64_t shared_done = 0;
  // Set when a phase's completion wakes the warp's wait: its try_wait then runs again and passes
  // at the woken cost (mbarrier_latency), not the cost of a wait that finds its phase complete
  // when it first asks (mbarrier_wait_done_latency; exec_sync.cpp).
  bool woken_from_mbar = false;
  std::vector<Group> groups;
  // cp.async bookkeeping (exec_cp_async.cpp): copies issued and not yet committed, and the
  // committed groups, oldest first. Their bytes land in shared memory when a wait retires
  // the group. A copy is one lane's, or a whole warp's whose lanes fill 32 cp-sizes of
  // consecutive bytes in any order (its bytes in shared-memory order: what they land is the same).
  struct CpAsyncCopy {
    uint32_t smem = 0;   // shared byte address
    uint32_t bytes = 0;  // a lane's cp-size (4, 8 or 16), or 32 of them
    uint32_t at = 0;     // where its bytes start in the group's data
  };
  struct CpAsyncGroup {
    uint64_t complete_at = 0;
    std::vector<CpAsyncCopy> copies;
    std::vector<uint8_t> data;  // the copies' bytes, read from global at issue; zeros past src-size
  };
  std::vector<CpAsyncCopy> cp_async_uncommitted;
  std::vector<uint8_t> cp_async_uncommitted_data;
  uint64_t cp_async_uncommitted_complete_at = 0;
  std::vector<CpAsyncGroup> cp_async_groups;
  // tcgen05 (exec_tcgen05.cpp): the MMAs this warp issued whose columns no commit's arrival
  // has released yet (indices into Cta::tmem_mmas), and when the last MMA it ever issued
  // completes. A commit covers every earlier MMA of the thread, not only those since its
  // previous commit (facts §9.2, commit_arrives_when_done), so neither is reset by a commit.
  std::vector<uint32_t> tmem_unreleased;
  uint64_t tmem_mma_complete_at = 0;
  std::vector<uint32_t> tmem_ld_regs;  // tcgen05.ld destinations not yet waited for (wait::ld)
  // The order of its actions against the CTA's other warps (WarpClock above), and the TMEM
  // columns its tcgen05.ld read since its last release, with the first lane read: the next
  // release hands them back (a TmemOp of kind release in the trace).
  WarpClock clock{};
  std::bitset<512> tmem_unreleased_reads;
  uint32_t tmem_read_lane = 0;
  // The per-lane pcs (see uniform), last: the fields that every issue reads then share the
  // first cache line of a Warp.
  std::array<uint32_t, 32> pc{};
};

}  // namespace gs::model
