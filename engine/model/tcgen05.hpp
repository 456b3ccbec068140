// What the two tcgen05 files of the model share (exec_tcgen05.cpp: tensor memory, ld/st,
// commit; exec_tcgen05_mma.cpp: the MMA). Internal to engine/model.
#pragma once

#include <cstdint>

#include "engine/model/exec_context.hpp"

namespace gs::model {

// A TMEM address: lane in bits 31-16, column in bits 15-0 (facts §9.1).
inline uint32_t tmem_lane(uint32_t taddr) { return taddr >> 16; }
inline uint32_t tmem_column(uint32_t taddr) { return taddr & 0xFFFF; }

// Cta::wgmma_acc's mark of a tcgen05.ld destination: reading it while Cta::reg_pending is
// set (before tcgen05.wait::ld) is the tmem-ld-before-wait hazard (operands.cpp).
inline constexpr uint8_t kTmemLoadDestination = 2;

// Whether columns [col, col + ncols) lie inside one allocation of c's tensor memory.
bool tmem_columns_allocated(const Cta& c, uint32_t col, uint32_t ncols);
// The MMAs of commit `record` (Cta::tmem_commits) are complete: their columns are readable.
void release_tmem_columns(Cta& c, uint32_t record);
// tcgen05.mma of every form (exec_tcgen05_mma.cpp).
void tmem_mma(ExecContext& x);

// Warp w of c releases (an mbarrier arrive in its own CTA, a bar.sync): its own clock entry
// moves on (WarpClock, machine.hpp), and the TMEM columns it read since its last release are
// handed back (a release record in the trace). With hand_back false (a bar.sync with a thread
// count: a named barrier of some warps, as step 25's epilogue warps meet at between sub-tiles)
// the clock moves on but nothing is handed back: the columns read so far stay in the warp's span,
// so its later arrive on the empty barrier records the hand-back of the whole buffer, the release
// the MMA thread acquires. Either way a release while a tcgen05.ld of the warp is not yet waited
// for is a tmem-race at the release.
void warp_releases(Cta& c, Warp& w, uint32_t inst, bool hand_back = true);
// The tmem-race check of an MMA by warp w writing columns [col, col + ncols) of `target`'s
// TMEM (exec_tcgen05_mma.cpp): every tcgen05.ld of them since their last write must be ordered
// before it. Then the columns' write stamps are this MMA's (in the issuing CTA; a peer's
// columns written by a cta_group::2 MMA are left unchecked: the clocks are per CTA).
void tmem_mma_writes(ExecContext& x, Cta& target, uint32_t col, uint32_t ncols);

}  // namespace gs::model
