// Internal state of the CPU model (not part of the public API): one CTA's warps (warp.hpp),
// shared memory, mbarriers and asynchronous units, and the global memory they all share.
//
// Each op's semantics is a small exec_* function over this state (exec_alu.cpp,
// exec_mem.cpp, exec_sync.cpp, exec_async.cpp, exec_wgmma.cpp); decode.cpp picks the one each
// instruction runs once per kernel; cta.cpp schedules warps in modeled time.
#pragma once

#include <algorithm>
#include <array>
#include <bitset>
#include <span>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/kernel.hpp"
#include "engine/layout/wgmma_descriptor.hpp"
#include "engine/model/data_path.hpp"
#include "engine/model/decode.hpp"
#include "engine/model/b_rows.hpp"
#include "engine/model/exec.hpp"
#include "engine/model/fast_forward.hpp"
#include "engine/model/line_aligned.hpp"
#include "engine/model/model.hpp"
#include "engine/model/smem_words.hpp"
#include "engine/model/word_bits.hpp"
#include "engine/model/timing.hpp"
#include "engine/model/warp.hpp"

namespace gs::layout {
struct BankReport;  // engine/layout/banks.hpp
}

namespace gs::model {

// Virtual device addresses: buffers of A, B and C, an instrumented kernel's timeline records,
// and kernel parameters (tensor maps are referred to by the address of their parameter, as on
// the GPU).
inline constexpr uint64_t kGlobalBase[4] = {0x100000000000ull, 0x200000000000ull, 0x300000000000ull,
                                            0x400000000000ull};
inline constexpr uint64_t kParamBase = 0x700000000000ull;
inline constexpr uint64_t kParamStride = 0x1000;

struct GlobalMemory {
  std::array<std::span<uint8_t>*, 4> buffers{};  // A, B, C, timeline (null when none)
  // The index of the buffer whose window holds addr, or buffers.size() when none: buffers sit
  // 2^44 bytes apart, so the top bits name the buffer.
  uint64_t index_of(uint64_t addr) const {
    const uint64_t i = (addr >> 44) - 1;
    return i < buffers.size() && buffers[i] ? i : buffers.size();
  }
  // The buffer and offset of [addr, addr+bytes), or nullptr when out of bounds.
  uint8_t* find(uint64_t addr, uint32_t bytes) {
    const uint64_t i = index_of(addr);
    if (i == buffers.size()) return nullptr;
    const uint64_t off = addr - kGlobalBase[i];
    return off + bytes <= buffers[i]->size() ? buffers[i]->data() + off : nullptr;
  }
};

struct Cta;

struct Mbarrier : MbarrierPhase {
  bool initialized = false;
  bool init_fenced = false;  // fence.mbarrier_init / fence.proxy.async after the init
  uint32_t init_inst = kNone;
  // Per cluster rank, the latest release (Cta::releases) of that CTA's arrivals in the phase in
  // progress, and in the phase that completed last: what a wait that returns acquires.
  std::array<uint32_t, kMaxClusterRanks> phase_releases{}, completed_releases{};
  // The same inside the CTA, warp by warp: the join of the clocks of the phase's arrivals in
  // this CTA (a tcgen05.commit's arrival brings its issuer's), and of the phase completed last.
  WarpClock phase_clock{}, completed_clock{};
  // The cycle from which this CTA's waiters see the phase completed last: the completing event's
  // own cycle, or later where the news of it travels (a peer's remote arrive, remote_arrive and
  // for .release.cluster its fences too). A wait issued before then, on a phase already flipped
  // (the peer CTA ran ahead of this one), returns then, as a wait that blocked would have.
  uint64_t visible_at = 0;
};

static_assert(kMaxCtaWarps <= SmemWord::kAsync);  // a warp's number fits SmemWord's warp bytes

struct PendingTma {
  uint64_t complete_at = 0;
  uint32_t record = 0;  // index into the CTA's transfer list
};

struct TmaJob {
  uint32_t param = 0;
  std::array<int32_t, 5> coords{};
  uint32_t smem_dst = 0;
  uint32_t mbar = 0;
  uint32_t bytes = 0;
  uint64_t issue = 0, complete = 0;
  uint32_t inst = 0, warp = 0;
  uint32_t from_rank = 0;  // the %cluster_ctarank of the CTA that issued it (a multicast lands in peers)
  bool refill = false;     // issued onto bytes an earlier load was still writing (a tma-race said so)
  uint32_t trace_index = kNone;
  // A tcgen05.commit's arrival instead of a copy (exec_tcgen05.cpp): one arrive on `mbar` at
  // `complete`; in the issuing CTA, tmem_commit indexes Cta::tmem_commits.
  bool commit_arrival = false;
  uint32_t tmem_commit = kNone;
  // A clusterlaunchcontrol.try_cancel's answer instead of a copy (exec_launch_control.cpp): its
  // 16 bytes land at smem_dst and complete 16 bytes on `mbar` at `complete`.
  bool clc_response = false;
  std::array<uint32_t, 4> response{};
};

// Tensor memory of the CTA's SM (facts §9.1): 128 lanes x 512 columns of 32 bits, modelled
// per CTA since a CTA runs alone on its SM. exec_tcgen05.cpp.
struct TmemAllocation {
  uint32_t col = 0, ncols = 0, warp = 0, inst = 0;
};
struct TensorMemory {
  static constexpr uint32_t kLanes = 128, kColumns = 512;
  std::vector<uint32_t> cells;                  // [lane * kColumns + col]; empty until the first alloc
  std::vector<TmemAllocation> allocations;
  std::array<uint16_t, kColumns> pending{};     // MMAs into the column whose commit has not arrived
  uint32_t alloc_warp = kNone;                  // the one warp that may allocate and free
  bool relinquished = false;
  // The tmem-race checks (exec_tcgen05.cpp), per column of this CTA's TMEM: the warp whose MMA
  // wrote it last and that warp's stamp then (own clock entry + 1; 0: no MMA of this CTA wrote
  // it), and per warp its stamp at its latest tcgen05.ld of the column since that write (0: not
  // read since) at [column * kMaxCtaWarps + warp]; empty until the first alloc.
  std::array<uint16_t, kColumns> writer{};
  std::array<uint32_t, kColumns> write_stamp{};
  std::vector<uint32_t> read_stamp;
  // The same across the CTA pair (a cta_group::2 MMA issued by the peer writes this CTA's
  // columns, and the warp clocks above are one CTA's): this CTA's release count (Cta::releases)
  // at its latest tcgen05.ld of the column since the last MMA wrote it, plus one (0: not read
  // since). The peer's MMA may write the column only once its issuer acquired a release of this
  // CTA made after the read (Warp::acquired), as a multicast may overwrite a peer's shared memory
  // (SmemWord::read_release). CTA-grained, like that check: any later arrive of this CTA that
  // the issuer acquired counts as releasing the read.
  std::array<uint32_t, kColumns> read_release{};
};

// The CTAs of one thread-block cluster, run together (simulate.cpp, run_cluster): distributed
// shared memory, remote mbarrier arrives and barrier.cluster reach a peer through `ctas`.
struct Cluster {
  std::vector<Cta*> ctas;            // by rank in the cluster (%cluster_ctarank)
  uint32_t barrier_phase = 0;        // completed phases of barrier.cluster
};

// Shared::cluster addresses (mapa's result): the model's own encoding, since on the GPU the
// value is opaque (PTX promises only that mapa's result works in shared::cluster accesses).
// A shared::cta address (below 2^24; the window starts at kSmemBaseAddress) names the
// executing CTA's own memory; (rank + 1) << 24 | shared::cta address names CTA `rank`.
inline constexpr uint32_t kClusterRankShift = 24;
inline constexpr uint32_t cluster_address(uint32_t rank, uint32_t cta_address) {
  return (rank + 1) << kClusterRankShift | (cta_address & ((1u << kClusterRankShift) - 1));
}

// How far (in cycles) one CTA of a cluster may run ahead of the earliest next event of its
// peers (grid.cpp, run_cluster): a peer's release reaches it at most this late. Small against
// a K-block's few hundred cycles; each step costs every CTA of the cluster one call.
inline constexpr uint64_t kClusterQuantum = 32;

// The grid's clusters not yet launched, for kernels that use clusterlaunchcontrol (grid.cpp,
// run_launch_controlled; exec_launch_control.cpp): each successful try_cancel takes `next`, and
// the queue steps on. Clusters are numbered in launch order (x fastest); CTAs of one cluster
// only (grid.cpp refuses clusters of several CTAs with launch control).
struct LaunchQueue {
  uint64_t next = 0, end = 0;  // the next cluster a try_cancel cancels; one past the last
  uint64_t step = 1;           // 1 for the whole grid; the resident count when one CTA runs alone
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::vector<LaunchCancel> answers;  // every answer, in the order they were given
  // Takes the next cluster, or nothing when none is left; the answer is recorded with the cycle
  // it was asked at and the cycle it lands at.
  std::optional<uint64_t> take(uint32_t asker, uint64_t cycle, uint64_t landed) {
    std::optional<uint64_t> got;
    if (next < end) {
      got = next;
      next += step;
    }
    answers.push_back({asker, got ? uint32_t(*got) : kNone, cycle, landed});
    return got;
  }
};

// Per-CTA configuration shared by every exec function.
struct Launch {
  const ir::Kernel* kernel = nullptr;
  GlobalMemory* global = nullptr;
  std::array<uint32_t, 3> ctaid{};
  uint32_t cta_linear = 0;
  bool traced = false;
  bool record_registers = false;
  std::vector<uint64_t> param_values;  // what ld.param reads, per parameter
  Cluster* cluster = nullptr;          // null when the kernel's clusters have one CTA
  LaunchQueue* launch_queue = nullptr; // the grid's clusters not yet launched (launch control only)
  uint32_t cluster_rank = 0;
  uint32_t trace_warp_base = 0;        // traced CTAs: its warp 0 as a trace warp (trace.hpp)
  // The machine's figures the CTA's time reads (timing.hpp, CtaFigures): the predicted card's.
  const timing::CtaFigures* figures = &timing::kH100Cta;
};

struct Cta {
  Launch launch;
  uint32_t nregs = 0;
  std::vector<Warp> warps;
  // The scheduler. A ready warp has ready_key = the cycle it can issue next (or kNotReady);
  // it issues on its scheduler (warp % 4) once that is free, so the next warp to issue is
  // the one with the smallest (max(ready_key, scheduler_free[warp % 4]), warp). Each
  // scheduler caches its own best warp and rescans its warps only when one of them or its
  // busy time changed; the pick is then a minimum of 4. (The AVX2 build of the scheduler
  // loop brings the issuing warp's scheduler up to date as the warp issues: cta.cpp,
  // push_issued_avx2.) A CTA has at most 32 warps
  // (ir::verify), so a scheduler has at most 8: its keys sit side by side,
  // ready_key[warp % 4][warp / 4], and a rescan is one fixed-length pass (absent warps
  // kNotReady).
  static constexpr uint32_t kWarpsPerScheduler = 8;
  // The key of a warp that is not ready: above every modeled time (those stay far below
  // 2^61, each being an earlier time plus a latency of at most thousands of cycles, and a
  // CTA stops at SimOptions::max_cycles_per_cta), and small enough that key * 8 + slot, the
  // form rescan compares keys in, does not overflow.
  static constexpr uint64_t kNotReady = ~uint64_t(0) / kWarpsPerScheduler;
  std::array<std::array<uint64_t, kWarpsPerScheduler>, 4> ready_key{};
  // Each scheduler's pick as one number, issue time * 32 + warp, which orders picks as
  // (time, warp) does, so that the pick of the four is a minimum of four numbers (three
  // compares and selects, where comparing (time, warp) pairs took 17 instructions per issue).
  // kNoPick (above every other) when the scheduler has no ready warp. Times stay below
  // 2^58 (see kNotReady: every time is an earlier one plus a latency of at most thousands of
  // cycles), so time * 32 does not overflow.
  static constexpr uint64_t kNoPick = ~uint64_t(0);
  static uint64_t pick_of(uint64_t time, uint32_t warp) { return time == kNotReady ? kNoPick : time << 5 | warp; }
  std::array<uint64_t, 4> pick{kNoPick, kNoPick, kNoPick, kNoPick};
  uint32_t stale_picks = 0xF;         // bit s: scheduler s must be rescanned
  bool avx2 = false;                  // run the AVX2 build of the scheduler loop (cpu_has_avx2())
  // At most four warps: each scheduler has one (slot 0), whose pick is max(key, free at).
  bool one_warp_per_scheduler = false;
  void push_ready(uint32_t w, uint64_t at) {
    ready_key[w & 3][w >> 2] = at;
    stale_picks |= 1u << (w & 3);
  }
  void unready(uint32_t w) {
    ready_key[w & 3][w >> 2] = kNotReady;
    stale_picks |= 1u << (w & 3);
  }
  std::vector<uint64_t, LineAligned<uint64_t>> regs;  // [(warp * nregs + reg) * 32 + lane], raw bits
  std::vector<uint64_t> regs_hi;      // the high 64 bits of .b128 registers, laid out as regs;
                                      // empty until the first 128-bit write (exec_launch_control.cpp)
  bool clc_saw_empty = false;         // a query_cancel.is_canceled of this CTA answered false
  std::vector<uint32_t> written;      // [warp * nregs + reg]: lanes ever written
  std::vector<uint64_t> reg_ready;    // [warp * (nregs + 1) + reg]: the cycle its last write lands (cta.cpp; reg nregs: never)
  std::vector<uint8_t> wgmma_acc;     // [warp * nregs + reg]: 1 if used as a wgmma accumulator,
                                      // kTmemLoadDestination (tcgen05.hpp) if a tcgen05.ld's
  std::vector<uint8_t> reg_pending;   // [warp * nregs + reg]: owned by an un-waited wgmma group
  std::vector<uint8_t> smem;          // the window from kSmemBaseAddress
  std::vector<SmemWord> smem_word_state;
  std::vector<SmemTensorWord> smem_tensor_word;  // parallel to smem_word_state
  // Bit w set only while word w is written and no TMA load into it is pending (TMA landing sets
  // it, TMA issue clears it, note_word_state's full rule sets it when it finds so): clear says
  // nothing, look at the SmemWord. A CTA's 150 KB of shared memory is 4.7 KB of these, where
  // its SmemWord records are 1.2 MB: the first load of each record was nearly all of
  // note_word_state's 13% of hopper_fewer_arrivals.
  std::vector<uint64_t> smem_ready;
  // Bit w set while a cp.async into word w has been issued and has not landed (the only record
  // of it; which warp's copy, cp_async_warp below): a copy into words none of whose bits is set
  // cannot race another warp's copy in flight, and needs no look at their marks (a copy's first
  // load of each record was a fifth of exec_cp_async in ampere_cp_async).
  std::vector<uint64_t> cp_async_pending_bits;
  // Per 16-byte chunk, in a cluster: the release count plus one at the latest tensor-core read
  // of the whole chunk since TMA last wrote any of it (SmemTensorWord::read_release). One store
  // a chunk where a word's record took four, in 4 bytes where they took 32.
  std::vector<uint32_t> smem_chunk_read;
  // Per 128-byte line of shared memory (32 words): the smem_writes and barrier_epoch at which
  // its words were last looked at for reads, and whether every one was then a plain read
  // (memform::read_is_plain: written, no copy pending, not written in that epoch: quiet for
  // any warp). It holds while neither count moves: every path that writes a word, or its
  // written or pending flags, bumps smem_writes, and a CTA-wide barrier bumps the epoch
  // (smem_writes only grows, across CTAs too: a line never matches a count of another CTA's).
  // The 32 warps of a SIMT tile each read a line of B once an epoch: one of them looks at its
  // 32 records, the others at this (memform::lines_read_plain). Sized on first use.
  // The count an entry keeps is plain_key(), smem_writes less the landings of cp.async groups:
  // a landing sets the entries of the lines it writes itself (exec_cp_async.cpp, land), as a
  // look at them after the next barrier would find them, so that the lines a ring's stage
  // lands in need no look when the warps read them (step 09: 32 lines a CTA a K step).
  struct PlainLine {
    uint64_t writes = ~uint64_t(0);
    uint32_t epoch = 0;
    bool plain = false;
  };
  std::vector<PlainLine> smem_plain_lines;
  // (smem_writes_landed, the landings' count, is declared after smem_read_row, in what was padding.)
  uint64_t plain_key() const { return smem_writes - smem_writes_landed; }
  // The words each warp read in a barrier interval, a bit a word: warp w's row is the
  // smem_read_row words from w * smem_read_row, and holds its reads of interval
  // smem_read_epoch[w] (another interval: none). A cp.async issued into a word another warp read
  // in the same interval overwrites what it read (a write-after-read race, exec_cp_async.cpp),
  // the one reader of these; they are noted only in a kernel with a cp.async
  // (memform::read_notes). A 16-byte ldmatrix row sets 4 bits of one word where its 4 records
  // took a compare and two stores each. run_cta forgets them at a new CTA (forget_reads).
  std::vector<uint64_t> smem_read_bits;
  std::array<uint32_t, kMaxCtaWarps> smem_read_epoch{};
  uint32_t smem_read_row = 0;
  // The part of smem_writes made by cp.async landings (plain_key), modulo 2^32: where it wraps,
  // the key moves on by 2^32, so it still never comes back to a value it had (a stale entry).
  // 32 bits, in the padding after smem_read_row: a field that moved the Cta's later fields cost
  // steps 08 and 10 3-4% once (data_path.hpp, base()).
  uint32_t smem_writes_landed = 0;
  void forget_reads() { smem_read_epoch.fill(~0u); }
  // The warps other than `me` that read word `word` in this interval (bit w: warp w).
  uint32_t read_by_others(uint32_t me, uint32_t word) const {
    uint32_t by = 0;
    if (smem_read_row == 0 || word / 64 >= smem_read_row) return 0;
    for (uint32_t w = 0; w < warps.size() && w < kMaxCtaWarps; ++w)
      if (w != me && smem_read_epoch[w] == barrier_epoch &&
          (smem_read_bits[size_t(w) * smem_read_row + word / 64] >> (word % 64) & 1))
        by |= 1u << w;
    return by;
  }
  uint32_t read_release_of(uint32_t w) const {
    return std::max({smem_tensor_word[w].generic_read_release, smem_tensor_word[w].read_release, smem_chunk_read[w / 4]});
  }
  // A TMA landing in words [lo, hi): not read since. A chunk it covers in part hands its whole-
  // chunk read down to its other words first.
  void clear_tensor_reads(uint32_t lo, uint32_t hi, uint32_t landed) {
    for (uint32_t ch = lo / 4; ch * 4 < hi; ++ch) {
      uint32_t& r = smem_chunk_read[ch];
      if (r != 0 && (ch * 4 < lo || ch * 4 + 4 > hi))
        for (uint32_t w = ch * 4; w < ch * 4 + 4 && w < smem_tensor_word.size(); ++w)
          if (w < lo || w >= hi) smem_tensor_word[w].read_release = std::max(smem_tensor_word[w].read_release, r);
      r = 0;
    }
    for (uint32_t w = lo; w < hi; ++w) smem_tensor_word[w] = {0, landed, 0};
  }
  void set_ready(uint32_t lo, uint32_t hi) { word_bits::mark<true>(smem_ready, lo, hi); }
  void clear_ready(uint32_t lo, uint32_t hi) { word_bits::mark<false>(smem_ready, lo, hi); }
  // Bit w set while a TMA load into word w has been issued and has not landed. A flag of SmemWord
  // until 2026-12-06: each issue and landing of a ring's stage then rewrote every word's 16-byte
  // record (12-17% of the Hopper steps' model time, change_records); here a box is a few ORs.
  // (tma_pending_bits: declared at the end of the struct, with records_landed.)
  bool tma_pending_at(uint32_t w) const { return word_bits::at(tma_pending_bits, w); }
  bool any_tma_pending(uint32_t lo, uint32_t hi) const { return word_bits::any(tma_pending_bits, lo, hi); }
  // Bumped by every path that writes the window's bytes or the SmemWord fields a tensor-core
  // read consults or sets (written, tma_pending, generic_since_fence, landed_release,
  // read_release): smem_ptr for a store (generic stores, stmatrix, mbarrier.init), the decoded
  // store forms (exec_smem_forms.cpp), cp.async landing, TMA issue and landing (a multicast
  // bumps each destination's), remote stores into a peer, fence.proxy.async, a new CTA. Two
  // reads of the same bytes under one count and one `releases` see the same bytes and records
  // and note the same (exec_wgmma.cpp's WgmmaB).
  uint64_t smem_writes = 0;
  // Bit w set while word w's record holds what a TMA landing leaves in it (written, by the copy
  // engine, nothing unfenced): a landing sets its box's bits, and every path that leaves one of
  // those fields otherwise clears its words' (memform::note_write, a cp.async landing; a remote
  // store, barrier.cluster's and fence.proxy.async's changes cannot). A box whose bits are all set
  // lands without a look at its records: a ring's stage, K step after K step (exec_async.cpp).
  // (records_landed: declared last.)
  void unland_record(uint32_t w) { records_landed[w >> 6] &= ~(uint64_t(1) << (w & 63)); }
  bool all_landed(uint32_t lo, uint32_t hi) const { return word_bits::all(records_landed, lo, hi); }
  // Every word whose SmemWord::generic_since_fence is set lies in [unfenced_lo, unfenced_hi)
  // (word indices; grown by each generic store that sets it): fence.proxy.async looks only
  // there, not at all of a ring's records.
  uint32_t unfenced_lo = ~0u, unfenced_hi = 0;
  void note_unfenced(uint32_t word) {
    unfenced_lo = std::min(unfenced_lo, word);
    unfenced_hi = std::max(unfenced_hi, word + 1);
  }
  // wgmma's B operand (16 x N, times its sign) as a warp of warpgroup g last read it through its
  // descriptor: all four warps of a warpgroup read all of B, and the next three take it from here
  // when the key (descriptor, N, major-ness, sign, smem_writes, releases) is unchanged and the
  // read found no hazard (exec_wgmma.cpp). B is kept in float or double as BRows says.
  struct WgmmaB {
    bool valid = false;
    bool k_major = false;
    float scale = 1.0f;
    uint32_t releases = 0;
    uint64_t bits = 0, smem_writes = 0;
    BRows b;  // its N is the key's
  };
  std::vector<WgmmaB> wgmma_b;  // by warpgroup, grown on demand
  uint32_t register_pool = 0;         // registers the CTA got at launch (0: count unknown to ptxas)
  uint32_t barrier_epoch = 0;         // increments whenever a CTA-wide bar.sync releases
  uint32_t releases = 0;              // arrives by its warps (any barrier, any CTA) and barrier.cluster arrives
  const Program* program = nullptr;    // the decoded kernel (decode.hpp), shared by all CTAs
  std::map<uint32_t, Mbarrier> mbars; // by shared address
  std::vector<TmaJob> tma_jobs;
  TensorMemory tmem;
  std::vector<TmemRange> tmem_mmas;                 // every tcgen05.mma this CTA issued (per CTA of its pair)
  std::vector<std::vector<uint32_t>> tmem_commits;  // the tmem_mmas each tcgen05.commit covers
  std::vector<WarpClock> tmem_commit_clocks;        // and its issuer's clock, which its arrival carries
  std::vector<PendingTma> tma_pending;  // sorted by complete_at when popped
  // bar.sync state per barrier id: threads arrived in the current round.
  std::array<uint32_t, 16> bar_arrived{};
  std::array<uint32_t, 16> bar_expected{};
  // Per-SM shared resources (the CTA runs alone on its SM).
  std::array<uint64_t, 4> scheduler_free{};
  uint64_t tensor_free = 0;
  // A warpgroup's wgmma takes the tensor cores once, when its first warp issues it; the other
  // three warps' parts complete with it (exec_wgmma.cpp). The last few per warpgroup, by the
  // index of the wgmma in the warps' order of issue.
  struct WgmmaInstance {
    uint32_t index = ~0u;
    uint64_t issued = 0;  // when it issued: the warpgroup's warps wait at it until then
    uint64_t complete = 0;
  };
  static constexpr uint32_t kWgmmaRing = 8;
  std::array<std::array<WgmmaInstance, kWgmmaRing>, 8> wgmma_instances{};
  // The SM's wgmma issue (exec_wgmma.cpp): the next wgmma issues at wgmma_issue_free or later;
  // the tensor-core end cycles of the last instances in issue order (they end in that order),
  // wgmma_count so far (at least timing::kWgmmaQueue kept).
  static constexpr uint32_t kWgmmaEnds = 16;
  uint64_t wgmma_issue_free = 0;
  std::array<uint64_t, kWgmmaEnds> wgmma_ends{};
  uint64_t wgmma_count = 0;
  uint64_t copy_free = 0;
  // The SM's L1 data path: one wavefront a cycle for shared memory (exec_mem_forms.hpp) and a
  // line a cycle for global loads and stores (exec_global.cpp, global_issue), one pipe for both,
  // taken at the cycle each access was requested (data_path.hpp).
  DataPath data_path;
  double l1_data_fraction = 0;            // the part of a cycle the path's loads have taken beyond whole cycles
  // The L1's tag stage as cp.async meets it: a look-up a 128-byte line it reads, one a cycle,
  // before the data path (exec_cp_async.cpp). (Global loads' lines are on data_path, as their
  // probes measured them together.)
  DataPath tag_path;
  double l1_tag_fraction = 0;
  // Each sub-partition's MIO queue as cp.async meets it: the cycle the lines of the last copy its
  // warps asked for have passed the tag stage. The queue is in order, so a shared access asked
  // for later waits for them (exec_mem_forms.hpp, request_time): step 09's loads after its copies
  // (probes cp_async_fill_rows32_lds20*_sync_32warps, exec_cp_async.cpp).
  std::array<uint64_t, 4> copies_tagged{};
  uint64_t store_free = 0;                // the traced CTA's stores leaving the SM (take_store_path)
  // The traced CTA's L1 (exec_global.cpp, l1_lookup): which 32-byte sectors of which 128-byte
  // lines it holds, 4 ways a set, least recently used out, and when the last sector it asked L2
  // for arrives. It decides the bytes the CTA reads through L2 (CtaCost::global_load_bytes), its
  // loads' latency (L1's, also for a sector on its way, or L2's) and what they hold the data path
  // beyond their lines (global_issue).
  struct L1Line {
    uint64_t line = ~uint64_t(0);
    uint64_t used = 0;
    uint64_t ready = 0;  // the cycle its last sector asked of L2 arrives
    uint8_t sectors = 0;
  };
  std::vector<L1Line> l1;
  uint64_t l1_clock = 0;
  std::array<uint64_t, 4> mma_free{};     // each sub-partition's tensor core, for mma.sync (exec_mma.cpp)
  std::array<uint64_t, 4> imad_free{};    // each sub-partition's integer multiply-add pipe (DecodedInst::pipe_cycles)
  uint64_t now = 0;
  // Results.
  SimStats* stats = nullptr;
  CSchedule* schedule = nullptr;           // every CTA: the tiles of C it writes (store_into_c)
  // The tiles of its latest stores into C, newest first: a store into one of them is the same
  // visit. Several, because its warps may store two tiles at once (with K of one block, one
  // consumer warpgroup of a persistent kernel can be a whole ring of tiles ahead of the other).
  std::array<uint32_t, 8> recent_tiles = [] {
    std::array<uint32_t, 8> a;
    a.fill(kNone);
    return a;
  }();
  uint32_t tiles_visited = 0;
  Trace* trace = nullptr;                  // only for the traced CTA
  std::vector<Hazard>* hazards = nullptr;  // deduplicated by (kind, inst)
  timing::CtaCost cost;
  // Fast-forward of long loops (fast_forward.hpp), for a traced CTA run alone; null: off.
  const FastForwardPlan* fast_forward = nullptr;
  std::vector<LoopMark> loop_marks;         // [warp * loops + loop]
  std::vector<uint32_t> loop_extrapolated;  // K loops, other loops: instances whose work was extrapolated
  // Per planned loop: the passes its warps have ended, all warps together, and how many warps have
  // ended one (fast_forward_at: the CTA's work is extrapolated per warp-pass, not per the first
  // skipper's time, whose warp may run ahead of the others).
  std::vector<uint64_t> loop_passes;
  std::vector<uint32_t> loop_warps;
  std::vector<uint64_t> loop_jump;           // the cycles every warp skips in the instance below
  std::vector<uint32_t> loop_jump_instance;  // the instance (LoopMark::skips) loop_jump is for
  bool failed = false;
  std::string failure;
  // In a cluster, run_cta returns when every live warp waits and nothing is in flight
  // (blocked: a peer may release it) instead of reporting a deadlock; it resumes on the
  // next call. issued counts the warp-instructions of all calls, so that the cluster's
  // driver sees whether a call made progress.
  bool blocked = false;
  bool started = false;
  uint64_t issued = 0;
  // In a cluster, run_cta also returns before an event (an issue, a TMA completion) past the
  // horizon it was given (paused: blocked set as well), with that event's cycle in next_event,
  // so that the cluster's CTAs advance through modeled time together (grid.cpp, run_cluster).
  bool paused = false;
  uint64_t next_event = 0;
  // Shared memory's TMA-pending and landed-record bits (tma_pending_at, all_landed above), last in
  // the struct so that the fields before keep the places they had.
  std::vector<uint64_t> tma_pending_bits;
  std::vector<uint64_t> records_landed;
  // Per shared word, apart from its SmemWord (smem_words.hpp says why), last as the bits above:
  // its CTA's release count at its last generic write, plus one (0: none): a warp that acquired
  // a release made after the write (an mbarrier arrive the writer made after it, whose phase
  // the reader's wait completed on: the arrive releases, the wait acquires) reads it in order.
  std::vector<uint32_t> smem_write_release;
  // The cp.async pending on a word, read only while its bit of cp_async_pending_bits is set (a
  // landing clears that bit and leaves these): the warp that issued the latest copy into it, and
  // whether that copy was issued in this barrier interval, a bit a word of cp_async_now_bits
  // while cp_async_now_epoch is barrier_epoch (a copy of another interval: the bits are cleared
  // at the interval's first issue, copies_now). A byte and a bit a word where an 8-byte mark a
  // word, written at every issue, was a tenth of ampere_cp_async's quiet_copies.
  std::vector<uint8_t> cp_async_warp;
  std::vector<uint64_t> cp_async_now_bits;
  uint32_t cp_async_now_epoch = ~0u;
  bool cp_async_pending_at(uint32_t w) const { return word_bits::at(cp_async_pending_bits, w); }
  bool copied_now(uint32_t w) const { return cp_async_now_epoch == barrier_epoch && word_bits::at(cp_async_now_bits, w); }
  // cp_async_now_bits for an issue: cleared first where they hold an earlier interval's copies.
  uint64_t* copies_now() {
    if (cp_async_now_epoch != barrier_epoch) {
      std::fill(cp_async_now_bits.begin(), cp_async_now_bits.end(), 0);
      cp_async_now_epoch = barrier_epoch;
    }
    return cp_async_now_bits.data();
  }

  uint64_t& reg(uint32_t warp, uint32_t r, uint32_t lane) { return regs[(size_t(warp) * nregs + r) * 32 + lane]; }
  uint64_t* reg_lanes(uint32_t warp, uint32_t r) { return &regs[(size_t(warp) * nregs + r) * 32]; }
};

void report(Cta& cta, HazardKind kind, uint32_t inst, uint32_t warp, uint32_t lane, uint64_t address,
            std::string detail);
// A tma-race: shared memory touched while a TMA load into it is in flight. When the warp's
// latest wait returned on a stale phase, the detail says so and the hazard names that wait.
void report_tma_race(Cta& cta, uint32_t inst, uint32_t warp, uint32_t lane, uint64_t address, const std::string& what,
                     std::string_view advice);
// What a hazard of `warp` (a data race after a wait) owes to a wait that returned on a phase
// the warp had already waited through: sentences naming the barrier, the parity waited for,
// the phase in progress, the wait's source line and where the parity register is written;
// "" when its latest wait was not stale.
std::string stale_wait_cause(const Cta& cta, uint32_t warp);

// The tensor core's shared-memory reads of one warp's wgmma (tensor_reads.cpp): counted in
// SimStats, and recorded into op.a_read / op.b_read for the traced CTA.
void record_tensor_reads(Cta& c, uint32_t warp, MmaOp& op);
// One operand's reads through its descriptor, rows [first_row, first_row + rows) as the op
// traits' CoreMatrixRead gives them. count: add every batch to SimStats; the traced CTA
// records the first batch into *record (Trace::tensor_reads; kNone when none).
struct TensorOperandRead {
  ir::Op op;
  char operand;
  uint64_t bits;                   // the raw descriptor
  layout::WgmmaDescriptor placed;  // its placement fields (sm_90 and sm_100 place alike)
  bool k_major;
  uint32_t first_row, rows;
  uint32_t* record;
};
void record_tensor_reads(Cta& c, const TensorOperandRead& o, bool count);

// Completes TMA transfers due at or before `cycle` (writes shared memory, complete_tx).
void complete_tma(Cta& cta, const PendingTma& p);
// A tcgen05.commit's arrival (a TmaJob with commit_arrival; exec_tcgen05.cpp): the MMAs it
// covers are complete, and one arrive lands on its mbarrier.
void complete_tmem_commit(Cta& cta, const PendingTma& p);
// A clusterlaunchcontrol.try_cancel's answer lands (a TmaJob with clc_response;
// exec_launch_control.cpp): 16 bytes into shared memory, complete_tx of 16 on its mbarrier.
void complete_clc_response(Cta& cta, const PendingTma& p);
// At the CTA's exit: tensor memory still allocated is reported (exec_tcgen05.cpp).
void check_tmem_at_exit(Cta& cta);
// At the CTA's exit: TMA stores whose reads of shared memory no wait_group.read retired
// (exec_async.cpp): the SM may give that memory to the next CTA while they read it.
void check_bulk_stores_at_exit(Cta& cta);
// The barrier at shared address `addr` for a hazard's text: "mbarrier 'full[2]'" by its declared
// name (ir::mbarrier_name_at), or "the mbarrier at 0x..." where no allocation declares one.
std::string barrier_name(const Cta& cta, uint32_t addr);
// Phase completion of an mbarrier: flips, and wakes warps waiting on that parity.
void mbarrier_check_phase(Cta& cta, uint32_t addr, uint64_t cycle);

// A blocked warp becomes ready at `at` (barrier release, mbarrier phase completion).
inline void wake(Cta& c, Warp& w, uint64_t at) {
  w.state = WarpState::ready;
  w.ready_at = std::max(w.ready_at, at);
  c.push_ready(w.id, w.ready_at);
}

// The SM's register file, and the per-thread register count ptxas fixes at a kernel's entry
// (0 when it cannot: then it ignores setmaxnreg). exec_warpgroup.cpp.
inline constexpr uint32_t kRegisterFile = 65536;
uint32_t entry_register_limit(const ir::Kernel& k);
// The registers the CTA's warps hold now: 32 × each warp's limit.
uint32_t registers_held(const Cta& c);

// Runs one CTA to completion (or failure) in modeled time; in a cluster, until it blocks or
// its next event lies past `horizon` (a cycle).
void run_cta(Cta& cta, const SimOptions& opt, uint64_t horizon = ~uint64_t(0));
// Every live warp waits and nothing is in flight: reports a deadlock naming the waits (in a
// cluster, once, with the waits of the other blocked CTAs of the cluster by rank).
void report_deadlock(Cta& cta, std::span<Cta* const> blocked_peers = {});
// barrier.cluster: releases the current phase if every live warp of every CTA arrived.
bool cluster_barrier_check(Cluster& cl, uint64_t cycle);

// Appends one record to a trace table (Table<T>, table.hpp); returns its index.
template <class T>
inline uint32_t append(Table<T>& table, const T& record) {
  table.push_back(record);
  return uint32_t(table.size() - 1);
}

// Trace helpers (no-ops for untraced CTAs). trace_event returns the event's index.
// Always inlined: the scheduler loop records a warp_inst event per issue of the traced CTA.
[[gnu::always_inline]] inline uint32_t trace_event(Cta& cta, EventKind kind, uint64_t cycle, uint32_t warp,
                                                   uint32_t inst, uint32_t mask, uint32_t payload = kNone,
                                                   uint32_t a = 0) {
  if (!cta.trace) return kNone;
  return append(cta.trace->events, Event{cycle, kind, warp == kNoWarp ? kNoWarp : uint16_t(cta.launch.trace_warp_base + warp), inst, mask,
                                         payload, a, uint8_t(cta.launch.cluster_rank)});
}
// A tensor-memory operation on `cta`'s TMEM (its event carries that CTA's rank); returns the
// record's index in Trace::tmem, so that a completion can stamp complete_cycle later, or
// kNone for an untraced CTA.
inline uint32_t trace_tmem(Cta& cta, uint64_t cycle, uint32_t warp, uint32_t inst, uint32_t mask, const TmemOp& op) {
  if (!cta.trace) return kNone;
  const uint32_t index = append(cta.trace->tmem, op);
  trace_event(cta, EventKind::tmem_op, cycle, warp, inst, mask, index, uint32_t(op.kind));
  return index;
}
// Warp `warp` of the cluster's CTA `from_rank`, as a warp index of `into` for trace_event (which
// adds into's trace_warp_base): an event a peer causes in `into` (a remote arrive, a multicast's
// bytes) is recorded with the peer's warp, rank r's warp w being trace warp r * warps + w.
inline uint32_t peer_warp(const Cta& into, uint32_t from_rank, uint32_t warp) {
  return warp + (from_rank - into.launch.cluster_rank) * uint32_t(into.warps.size());
}
void trace_mbar(Cta& cta, EventKind kind, uint64_t cycle, uint32_t warp, uint32_t inst, uint32_t addr,
                const Mbarrier& m, uint32_t value);

}  // namespace gs::model
