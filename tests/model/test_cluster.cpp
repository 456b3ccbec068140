// Thread-block clusters in the model: the CTAs of a cluster run together, reach each other's
// shared memory through mapa + ld/st.shared::cluster, arrive on each other's mbarriers and
// meet at barrier.cluster (kernels/probes.cpp, build_cluster_probe).
#include <algorithm>

#include <catch2/catch.hpp>
#include <cstring>

#include "engine/builder/builder.hpp"
#include "engine/model/model.hpp"
#include "engine/ptx/emit.hpp"
#include "kernels/probes.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;

namespace {

std::vector<uint32_t> words_of(const std::vector<uint8_t>& bytes) {
  std::vector<uint32_t> w(bytes.size() / 4);
  std::memcpy(w.data(), bytes.data(), w.size() * 4);
  return w;
}

}  // namespace

model::GemmBuffers probe_buffers() {
  model::GemmBuffers bufs;
  bufs.a.resize(kernels::kClusterProbeABytes);
  for (size_t i = 0; i < bufs.a.size(); ++i) bufs.a[i] = uint8_t(i * 7 + 3);
  bufs.c.assign(kernels::kClusterProbeWords * 4, 0xEE);
  return bufs;
}

TEST_CASE("cluster: multicast, DSMEM loads and stores, remote arrive and barrier.cluster", "[model][cluster]") {
  const ir::Kernel k = kernels::build_cluster_probe();
  model::GemmBuffers bufs = probe_buffers();
  const std::vector<uint32_t> a = words_of(bufs.a);
  const model::SimResult r = model::simulate(k, bufs);
  INFO(r.error);
  REQUIRE(r.completed);
  std::string hazards;
  for (const model::Hazard& h : r.hazards) hazards += h.detail + "\n";
  CHECK(hazards == "");
  CHECK(r.stats.ctas == 4);
  const std::vector<uint32_t> c = words_of(bufs.c);
  uint32_t wrong = 0;
  for (uint32_t cta = 0; cta < 4; ++cta)
    for (uint32_t t = 0; t < 64; ++t) {
      const uint32_t peer = cta ^ 1;
      wrong += c[cta * 192 + t] != peer * 1000 + t;
      wrong += c[cta * 192 + 64 + t] != peer * 1000 + t + 500000;
      wrong += c[cta * 192 + 128 + t] != a[(cta / 2) * 64 + t];
    }
  CHECK(wrong == 0);
}

TEST_CASE("cluster: the traced CTA's cluster runs alone and is traced", "[model][cluster]") {
  const ir::Kernel k = kernels::build_cluster_probe();
  model::GemmBuffers bufs = probe_buffers();
  model::SimOptions opt;
  opt.trace = true;
  opt.only_traced_cta = true;
  opt.traced_cta = {3, 0, 0};
  const model::SimResult r = model::simulate(k, bufs, opt);
  REQUIRE(r.completed);
  CHECK(r.stats.ctas == 2);  // CTAs 2 and 3
  CHECK(r.trace.traced_cta == 3);
  CHECK_FALSE(r.trace.events.empty());
  const std::vector<uint32_t> c = words_of(bufs.c);
  CHECK(c[3 * 192 + 5] == 2 * 1000 + 5);
  CHECK(c[2 * 192 + 64 + 5] == 3 * 1000 + 5 + 500000);
  CHECK(c[0] == 0xEEEEEEEEu);  // the other cluster did not run
}

TEST_CASE("cluster: every CTA of the traced cluster is traced, and each event names its CTA", "[model][cluster]") {
  const ir::Kernel k = kernels::build_cluster_probe();
  model::GemmBuffers bufs = probe_buffers();
  model::SimOptions opt;
  opt.traced_cta = {3, 0, 0};
  const model::SimResult r = model::simulate(k, bufs, opt);  // whole grid: CTAs 0 and 1 run untraced
  REQUIRE(r.completed);
  const model::Trace& t = r.trace;
  REQUIRE(t.ctas.size() == 2);
  CHECK(t.ctas[0].linear == 2);
  CHECK(t.ctas[1].linear == 3);
  CHECK(t.ctas[0].rank == 0);
  CHECK(t.ctas[1].rank == 1);
  CHECK(t.traced_cta == 3);
  const uint32_t per_cta = (k.launch.threads() + 31) / 32;
  CHECK(t.warps_per_cta == per_cta);
  CHECK(t.warps == 2 * per_cta);
  CHECK(t.ctas[1].first_warp == per_cta);
  // Both CTAs' instructions are in the trace, each tagged with its rank, and a warp's number
  // says which CTA it belongs to.
  std::array<uint32_t, 2> insts{};
  uint32_t mismatched = 0;
  for (const model::Event& e : t.events) {
    if (e.kind != model::EventKind::warp_inst) continue;
    REQUIRE(e.cta < 2);
    insts[e.cta]++;
    mismatched += e.warp / per_cta != e.cta;
  }
  CHECK(insts[0] > 0);
  CHECK(insts[1] > 0);
  CHECK(mismatched == 0);
  // Sorted by cycle across the two CTAs.
  for (size_t i = 1; i < t.events.size(); ++i) REQUIRE(t.events[i - 1].cycle <= t.events[i].cycle);
}

TEST_CASE("cluster: a CTA waiting at barrier.cluster for a peer that never comes is a deadlock",
          "[model][cluster]") {
  using builder::Builder;
  using builder::Reg;
  Builder b("cluster_deadlock", ir::Arch::sm_90);
  b.set_launch({.grid = {2, 1, 1}, .block = {32, 1, 1}, .cluster = {2, 1, 1}});
  auto bar = b.shared("bar", 8, 8, ir::SmemUse::mbarrier);
  Reg rank = b.special(ir::Special::cluster_ctarank, "rank");
  b.if_((rank == 0).named("first"), [&] {
    b.mbarrier_init(bar.at(), 1);
    b.barrier_cluster_arrive();
    b.barrier_cluster_wait();
    b.mbarrier_wait(bar.at(), 0u);  // nobody arrives: rank 0 never reaches the second barrier
  });
  // Rank 1 waits on a barrier.cluster phase that rank 0 never arrives for (it is live, waiting).
  b.if_((rank == 1).named("second"), [&] {
    b.barrier_cluster_arrive();
    b.barrier_cluster_wait();
    b.barrier_cluster_arrive();
    b.barrier_cluster_wait();
  });
  b.ret();
  const ir::Kernel k = b.finish();
  model::GemmBuffers bufs;
  const model::SimResult r = model::simulate(k, bufs);
  CHECK_FALSE(r.completed);
  bool deadlock = false;
  for (const model::Hazard& h : r.hazards) deadlock = deadlock || h.kind == model::HazardKind::deadlock;
  CHECK(deadlock);
}

TEST_CASE("cluster: mapa to a rank outside the cluster is reported", "[model][cluster]") {
  using builder::Addr;
  using builder::Builder;
  using builder::Reg;
  Builder b("cluster_bad_rank", ir::Arch::sm_90);
  b.set_launch({.grid = {2, 1, 1}, .block = {32, 1, 1}, .cluster = {2, 1, 1}});
  auto s = b.shared("s", 128, 16, ir::SmemUse::other);
  Reg far = b.mapa(b.smem_address(s, 0, "s_addr"), 5u, "far");
  Reg v = b.ld_shared_cluster(ir::Type::u32, Addr::at(far), "v");
  (void)v;
  b.ret();
  const ir::Kernel k = b.finish();
  model::GemmBuffers bufs;
  const model::SimResult r = model::simulate(k, bufs);
  bool reported = false;
  for (const model::Hazard& h : r.hazards)
    reported = reported || (h.kind == model::HazardKind::out_of_bounds_shared && h.detail.find("rank 5") != std::string::npos);
  CHECK(reported);
}

TEST_CASE("cluster: the cluster probe assembles for sm_90", "[model][cluster][ptxas]") {
  const ir::Kernel k = kernels::build_cluster_probe();
  test::check_assembles(ptx::emit(k).text, k.target, "probe_cluster");
}

namespace {

// Rank 1 reads its 128-byte tile, rank 0 multicasts a row of A into it once rank 1 arrived on
// rank 0's barrier `go`: after its read (release_after_read) the copy is ordered after the read;
// before it, nothing orders the read before the copy, however late rank 0 is (cluster-race).
ir::Kernel overwrite_after_release_kernel(bool release_after_read) {
  using builder::Addr;
  using builder::Builder;
  using builder::Reg;
  Builder b("multicast_after_release", ir::Arch::sm_90);
  b.set_launch({.grid = {2, 1, 1}, .block = {32, 1, 1}, .cluster = {2, 1, 1}});
  auto map = b.tensor_map_param("tmap_A", ir::row_major_bf16_map(ir::ParamRole::a, 64, 1, 64, 1, layout::Swizzle::none));
  auto tile = b.shared("tile", 128, 128, ir::SmemUse::tile);
  auto go = b.shared("go", 8, 8, ir::SmemUse::mbarrier);
  auto landed = b.shared("landed", 8, 8, ir::SmemUse::mbarrier);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg rank = b.special(ir::Special::cluster_ctarank, "rank");
  b.st_shared(ir::Type::u32, Addr::at(b.smem_address(tile, 0, "tile_addr") + tid * 4u), {tid});
  b.if_((tid == 0).named("leader"), [&] {
    b.mbarrier_init(go.at(), 1);
    b.mbarrier_init(landed.at(), 1);
    b.fence_mbarrier_init();
  });
  b.barrier_cluster_arrive();
  b.barrier_cluster_wait();
  b.if_(((rank == 1) & (tid == 0)).named("reader"), [&] {
    b.mbarrier_arrive_expect_tx(landed.at(), 128u);
    Reg peer_go = b.mapa(b.smem_address(go, 0, "go_addr"), 0u, "peer_go");
    if (!release_after_read) b.mbarrier_arrive_remote(Addr::at(peer_go));
    Reg v = b.ld_shared(ir::Type::u32, tile.at(), "v");
    (void)v;
    if (release_after_read) b.mbarrier_arrive_remote(Addr::at(peer_go));
    b.mbarrier_wait(landed.at(), 0u);
  });
  b.if_(((rank == 0) & (tid == 0)).named("writer"), [&] {
    b.mbarrier_wait(go.at(), 0u);
    Reg tm = b.tensor_map_address(map, "tm");
    Reg to_rank1 = b.mov(ir::Type::b16, 2u, "to_rank1");
    b.cp_async_bulk_tensor_load_multicast(tile.at(), tm, {0u, 0u}, landed.at(), to_rank1);
  });
  b.barrier_cluster_arrive();
  b.barrier_cluster_wait();
  b.ret();
  return b.finish();
}

}  // namespace

TEST_CASE("cluster: a multicast over a peer's reads needs a release from the peer after them", "[model][cluster][hazards]") {
  for (const bool after : {true, false}) {
    DYNAMIC_SECTION("peer released " << (after ? "after" : "before") << " its read") {
      const ir::Kernel k = overwrite_after_release_kernel(after);
      model::GemmBuffers bufs;
      bufs.a.assign(128, 0);
      const model::SimResult r = model::simulate(k, bufs);
      std::string hazards;
      for (const model::Hazard& h : r.hazards) hazards += h.detail + "\n";
      INFO(hazards);
      CHECK(r.completed);
      const auto race = std::find_if(r.hazards.begin(), r.hazards.end(),
                                     [](const model::Hazard& h) { return h.kind == model::HazardKind::cluster_race; });
      if (after) {
        CHECK(r.hazards.empty());
        continue;
      }
      REQUIRE(race != r.hazards.end());
      CHECK(k.insts[race->inst].op == ir::Op::cp_async_bulk_tensor_load_multicast);
      CHECK_THAT(race->detail, Catch::Contains("CTA rank 0's multicast writes") && Catch::Contains("in CTA rank 1"));
    }
  }
}

TEST_CASE("cluster: the ordering kernel assembles for sm_90", "[model][cluster][ptxas]") {
  test::check_assembles(ptx::emit(overwrite_after_release_kernel(false)).text, ir::Arch::sm_90, "multicast_after_release");
}
