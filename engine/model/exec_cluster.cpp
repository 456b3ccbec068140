// exec_cluster: thread-block clusters (facts §7): mapa, barrier.cluster.arrive/wait and the
// cluster-scope fence, and the resolution of shared::cluster addresses that ld/st.shared::cluster
// (exec_mem.cpp) and the remote mbarrier arrive (exec_sync.cpp) use to reach a peer CTA.
//
// The CTAs of a cluster run together (simulate.cpp): each runs until all its live warps wait,
// then the next; a peer's arrive wakes the waiting warps at the peer's modeled time.
#include <bit>

#include <fmt/format.h>

#include "engine/model/exec_context.hpp"
#include "engine/model/tcgen05.hpp"
#include "engine/model/operands.hpp"

namespace gs::model {

using ir::Op;

Cta* cluster_target(ExecContext& x, uint32_t address, uint32_t lane, uint32_t* cta_address) {
  *cta_address = address & ((1u << kClusterRankShift) - 1);
  if (address >> kClusterRankShift == 0) return &x.cta;  // a shared::cta address: this CTA
  const uint32_t rank = (address >> kClusterRankShift) - 1;
  const Cluster* cl = x.cta.launch.cluster;
  const uint32_t size = cl ? uint32_t(cl->ctas.size()) : 1;
  if (rank >= size) {
    report(x.cta, HazardKind::out_of_bounds_shared, x.inst_id, x.warp.id, lane, address,
           fmt::format("shared::cluster address 0x{:X} names CTA rank {} but the cluster has {} CTA(s) (ranks 0..{})",
                       address, rank, size, size - 1));
    return nullptr;
  }
  return cl ? cl->ctas[rank] : &x.cta;
}

bool cluster_barrier_check(Cluster& cl, uint64_t cycle) {
  // Every warp with a live lane must have arrived for the current phase; exited warps count
  // as arrived (PTX: the barrier waits for all non-exited threads of the cluster).
  for (const Cta* c : cl.ctas)
    for (const Warp& w : c->warps)
      if (w.live() != 0 && w.cluster_arrivals <= cl.barrier_phase) return false;
  ++cl.barrier_phase;
  // barrier.cluster.arrive.release / wait.acquire: every warp acquires every CTA's releases.
  for (Cta* c : cl.ctas)
    for (Warp& w : c->warps)
      for (uint32_t r = 0; r < cl.ctas.size() && r < kMaxClusterRanks; ++r)
        w.acquired[r] = std::max(w.acquired[r], cl.ctas[r]->releases);
  // And inside each CTA, warp by warp (the tensor-memory checks): every warp released, and each
  // acquires what all of its CTA's warps knew.
  for (Cta* c : cl.ctas) {
    WarpClock clock{};
    for (Warp& w : c->warps) {
      warp_releases(*c, w, kNone);
      join_clock(clock, w.clock);
    }
    for (Warp& w : c->warps) w.clock = clock;
  }
  for (Cta* c : cl.ctas)
    for (Warp& w : c->warps)
      if (w.state == WarpState::cluster_wait && w.cluster_arrivals <= cl.barrier_phase) {
        wake(*c, w, cycle + timing::kBarrierLatency);
        trace_event(*c, EventKind::bar_released, cycle, w.id, kNone, 0, kClusterBarrierId, cl.barrier_phase);
      }
  return true;
}

void exec_cluster(ExecContext& x) {
  Cta& c = x.cta;
  Warp& w = x.warp;
  switch (x.inst.op) {
    case Op::mapa: {
      // mapa.shared::cluster.u32 d, a, rank: the same shared::cta offset in CTA `rank`.
      Sources src(x);
      const uint32_t size = c.launch.cluster ? uint32_t(c.launch.cluster->ctas.size()) : 1;
      const uint32_t dst = x.inst.operands[0].id;
      for (uint32_t l = 0; l < 32; ++l) {
        if (!(x.mask >> l & 1)) continue;
        const uint32_t a = uint32_t(src.get(1, l)), rank = uint32_t(src.get(2, l));
        if (rank >= size)
          report(c, HazardKind::out_of_bounds_shared, x.inst_id, w.id, l, a,
                 fmt::format("mapa to CTA rank {} but the cluster has {} CTA(s) (ranks 0..{})", rank, size, size - 1));
        c.reg(w.id, dst, l) = cluster_address(rank, a);
      }
      src.wrote(dst);
      break;
    }
    case Op::barrier_cluster_arrive:
      ++w.cluster_arrivals;
      ++c.releases;  // .release: what this CTA's warps did before it is released to the cluster
      if (c.launch.cluster) cluster_barrier_check(*c.launch.cluster, c.now);  // simulate() always sets it
      x.latency = timing::kBarrierLatency;
      break;
    case Op::barrier_cluster_wait: {
      const uint32_t phase = c.launch.cluster ? c.launch.cluster->barrier_phase : 0;
      if (w.cluster_arrivals > phase) {  // its arrival's phase has not completed yet
        w.state = WarpState::cluster_wait;
        w.wait_since = c.now;
        trace_event(c, EventKind::bar_blocked, c.now, w.id, x.inst_id, x.mask, kClusterBarrierId, phase);
      }
      x.latency = timing::kBarrierLatency;
      break;
    }
    case Op::fence_acq_rel_cluster: break;  // the model's accesses are in order already
    default: not_handled(x, "exec_cluster");
  }
}

}  // namespace gs::model
