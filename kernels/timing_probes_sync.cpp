// The synchronisation probes (timing_probes.hpp): an mbarrier hand-off inside a CTA, and a
// remote arrive's round trip and issue cost between the two CTAs of a cluster. The other probes
// are in timing_probes.cpp, timing_probes_l1.cpp and timing_probes_ring.cpp.
#include <cstdint>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/builder/builder.hpp"
#include "kernels/timing_probe_parts.hpp"
#include "kernels/timing_probes.hpp"

namespace gs::kernels {

using builder::Addr;
using builder::Builder;
using builder::Reg;
using ir::Type;
using probe_parts::store_result;

namespace {

// The two probes of a remote arrive: a cluster of two CTAs of one warp, each with one mbarrier
// (`count` arrivals) that the other may arrive on once both exist.
struct ClusterPair {
  builder::Param c;
  Reg bar_address, rank, gid, leader;
};

ClusterPair cluster_pair(Builder& b, uint32_t count) {
  b.set_launch({.grid = {2, 1, 1}, .block = {32, 1, 1}, .cluster = {2, 1, 1}});
  ClusterPair p{b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c), {}, {}, {}, {}};
  auto bar = b.mbarriers("bar", ir::BarrierRole::other, 1);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  p.rank = b.special(ir::Special::cluster_ctarank, "rank");
  p.gid = (p.rank * 32u + tid).named("gid");
  p.leader = (tid == 0).named("leader");
  b.if_(p.leader, [&] {
    b.mbarrier_init(bar.at(), count);
    b.fence_mbarrier_init();
  });
  b.comment("both barriers exist before either CTA arrives on the other's");
  b.barrier_cluster_arrive();
  b.barrier_cluster_wait();
  p.bar_address = b.smem_address(bar, 0, "bar_own");
  return p;
}

// The timed region's end: no CTA exits while its peer may still arrive on its barrier; each
// thread's record (its rank as the value).
ir::Kernel finish_cluster_pair(Builder& b, const ClusterPair& p, const Reg& t0) {
  Reg t1 = b.special(ir::Special::clock64, "t1");
  b.comment("no CTA exits while its peer may still arrive on its barrier");
  b.barrier_cluster_arrive();
  b.barrier_cluster_wait();
  store_result(b, p.c, p.gid, t0, t1, b.cvt(Type::u64, p.rank, ir::Rounding::none, "value"));
  b.ret();
  return b.finish();
}

}  // namespace

ir::Kernel build_remote_arrive_probe(uint32_t rounds, uint32_t suspend_hint_ns, bool cluster_scope) {
  if (rounds == 0) throw std::invalid_argument("a remote-arrive probe needs at least one round");
  Builder b(fmt::format("timing_remote_arrive{}{}", suspend_hint_ns ? "_hint" : "", cluster_scope ? "_cluster_scope" : ""),
            ir::Arch::sm_90a);
  const ClusterPair p = cluster_pair(b, 1);
  Reg peer = b.mapa(p.bar_address, (p.rank ^ 1u).named("peer_rank"), "bar_peer");
  const std::optional<uint32_t> hint = suspend_hint_ns ? std::optional<uint32_t>(suspend_hint_ns) : std::nullopt;
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.if_(p.leader, [&] {
    Reg first = (p.rank == 0u).named("first");
    b.loop("round", rounds, [&](const Reg& i) {
      Reg parity = (i & 1u).named("parity");
      b.if_(first, [&] { b.mbarrier_arrive_remote(Addr::at(peer), cluster_scope); });
      b.mbarrier_wait(Addr::at(p.bar_address), parity, hint);
      b.if_((p.rank == 1u).named("second"), [&] { b.mbarrier_arrive_remote(Addr::at(peer), cluster_scope); });
    });
  });
  return finish_cluster_pair(b, p, t0);
}

ir::Kernel build_remote_arrive_issue_probe(uint32_t arrives, bool cluster_scope) {
  if (arrives == 0 || arrives >= (1u << 20))
    throw std::invalid_argument(fmt::format("a remote-arrive issue probe makes 1..{} arrives (an mbarrier's count), "
                                            "not {}",
                                            (1u << 20) - 1, arrives));
  Builder b(fmt::format("timing_remote_arrive_issue{}", cluster_scope ? "_cluster_scope" : ""), ir::Arch::sm_90a);
  const ClusterPair p = cluster_pair(b, arrives);
  Reg peer = b.mapa(p.bar_address, b.mov(Type::u32, 1, "rank1"), "bar_on_rank1");
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.if_(p.leader, [&] {
    b.if_((p.rank == 0u).named("sender"), [&] {
      b.comment("back to back: what the issuing warp pays per arrive");
      b.loop("arrive", arrives, [&](const Reg&) { b.mbarrier_arrive_remote(Addr::at(peer), cluster_scope); });
    });
    b.if_((p.rank == 1u).named("receiver"),
          [&] { b.mbarrier_wait(Addr::at(p.bar_address), b.mov(Type::u32, 0, "parity0")); });
  });
  return finish_cluster_pair(b, p, t0);
}

ir::Kernel build_mbarrier_handoff_probe(uint32_t rounds, uint32_t arrivals) {
  constexpr uint32_t kGroup = 128;
  if (rounds == 0 || arrivals == 0 || arrivals > kGroup)
    throw std::invalid_argument(fmt::format("an mbarrier hand-off probe needs at least one round and 1..{} arrivals "
                                            "(got {} rounds, {} arrivals)",
                                            kGroup, rounds, arrivals));
  Builder b(fmt::format("timing_mbarrier_handoff_{}", arrivals), ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {2 * kGroup, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto ping = b.mbarriers("ping", ir::BarrierRole::empty, 1);
  auto pong = b.mbarriers("pong", ir::BarrierRole::full, 1);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  b.if_((tid == 0u).named("init"), [&] {
    b.mbarrier_init(ping.at(), arrivals);
    b.mbarrier_init(pong.at(), 1);
    b.fence_mbarrier_init();
  });
  b.bar_sync(0);
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.if_((tid == 0u).named("producer"), [&] {
    b.loop("round", rounds, [&](const Reg& i) {
      b.mbarrier_wait(ping.at(), (i & 1u).named("parity"));
      b.mbarrier_arrive(pong.at());
    });
  });
  b.if_((tid >= kGroup).named("consumer"), [&] {
    Reg arriver = (tid < kGroup + arrivals).named("arriver");
    b.loop("round", rounds, [&](const Reg& i) {
      b.if_(arriver, [&] { b.mbarrier_arrive(ping.at()); });
      b.mbarrier_wait(pong.at(), (i & 1u).named("parity"));
    });
  });
  Reg t1 = b.special(ir::Special::clock64, "t1");
  store_result(b, pc, tid, t0, t1, b.cvt(Type::u64, tid, ir::Rounding::none, "value"));
  b.ret();
  return b.finish();
}

ir::Kernel build_mbarrier_wait_done_probe(uint32_t rounds, uint32_t suspend_hint_ns) {
  if (rounds == 0)
    throw std::invalid_argument("an mbarrier wait probe needs at least one round (got 0)");
  Builder b(fmt::format("timing_mbarrier_wait_done{}", suspend_hint_ns ? "_hint" : ""), ir::Arch::sm_90a);
  b.set_launch({.grid = {1, 1, 1}, .block = {128, 1, 1}});
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  auto bar = b.mbarriers("done", ir::BarrierRole::full, 1);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  b.if_((tid == 0u).named("init"), [&] {
    b.mbarrier_init(bar.at(), 1);
    b.fence_mbarrier_init();
    b.mbarrier_arrive(bar.at());  // phase 0 completes
  });
  b.bar_sync(0);
  Reg t0 = b.special(ir::Special::clock64, "t0");
  b.loop("round", rounds, [&](const Reg&) {
    if (suspend_hint_ns) b.mbarrier_wait(bar.at(), 0u, suspend_hint_ns);
    else b.mbarrier_wait(bar.at(), 0u);
  });
  Reg t1 = b.special(ir::Special::clock64, "t1");
  store_result(b, pc, tid, t0, t1, b.cvt(Type::u64, tid, ir::Rounding::none, "value"));
  b.ret();
  return b.finish();
}

}  // namespace gs::kernels
