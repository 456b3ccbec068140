// tcgen05 in the model (exec_tcgen05.cpp, exec_tcgen05_mma.cpp): a hand-built kernel computes
// one 128 x N x 64 tile with tcgen05.mma into tensor memory and reads it back with
// tcgen05.ld 32x32b, exactly on integer inputs; each mistake switch breaks one rule, and the
// model must name it.
#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include <catch2/catch.hpp>

#include "engine/builder/builder.hpp"
#include "engine/layout/wgmma_descriptor.hpp"
#include "engine/model/model.hpp"
#include "engine/model/timing.hpp"
#include "engine/model/values.hpp"

using namespace gs;
using builder::Addr;
using builder::Builder;
using builder::CtaGroup;
using builder::Reg;
using ir::Type;

namespace {

constexpr uint32_t kM = 128, kK = 64;

// One way to break the kernel (none: the correct one).
enum class Mistake {
  none,
  no_commit_wait,     // tcgen05.ld without waiting on the commit's mbarrier
  wrong_quarter,      // warp w reads lanes of quarter (w + 1) % 4
  no_dealloc,         // the CTA exits with its columns allocated
  use_before_wait_ld, // the loaded registers are stored before tcgen05.wait::ld
  bad_column_count,   // tcgen05.alloc of 48 columns (from a register: the builder checks immediates)
  dealloc_other_warp, // warp 1 frees what warp 0 allocated
  sm90_descriptor,    // an sm_90 wgmma descriptor given to tcgen05.mma
  bad_m,              // an instruction descriptor with M=256 for cta_group::1
  no_commit,          // the MMAs are never committed: the wait never completes
};

// A (M x K, row-major bf16), B (N x K, bf16: each of B's columns is a K-major row), C (M x N,
// f32). 128 threads: thread t copies row t of A and rows t, t+128 of B into 128B-swizzled
// K-major tiles; warp 0 allocates `columns`; thread 0 issues 4 MMAs (k16 steps, the
// descriptors' start advancing 32 bytes) and commits to an mbarrier; every warp waits on it
// and reads its 32 lanes with tcgen05.ld.32x32b.x8, 8 columns at a time, into C.
// pair: the same with cta_group::2 over a 2-CTA cluster: CTA r holds A rows 128r.. and B's
// columns r*N/2.., thread 0 of rank 0 issues M=256 MMAs, the commit multicasts to both CTAs'
// barriers, and each CTA reads its 128 rows of D from its own tensor memory.
// per_mma_commits: thread 0 also commits after each MMA (to a second barrier, as a ring
// releases its stages), so the final commit has no MMA of its own since the previous one:
// it still arrives only when all four are done (tcgen05.commit covers every earlier MMA).
ir::Kernel tile_kernel(uint32_t n, Mistake mistake = Mistake::none, bool pair = false, bool per_mma_commits = false) {
  const uint32_t ctas = pair ? 2 : 1;
  const CtaGroup group = pair ? CtaGroup::two : CtaGroup::one;
  Builder b("tcgen05_tile", ir::Arch::sm_100a);
  b.set_launch({.grid = {ctas, 1, 1}, .block = {128, 1, 1}, .cluster = {ctas, 1, 1}});
  b.use_dynamic_smem();  // 48 KiB of tiles and the barrier: past the static 48 KiB
  auto pa = b.param("A", ir::ParamKind::global_ptr, ir::ParamRole::a);
  auto pb = b.param("B", ir::ParamKind::global_ptr, ir::ParamRole::b);
  auto pc = b.param("C", ir::ParamKind::global_ptr, ir::ParamRole::c);
  builder::Smem a_tile = b.shared("a_tile", kM * kK * 2, 1024, ir::SmemUse::tile, layout::Swizzle::b128);
  builder::Smem b_tile = b.shared("b_tile", 256 * kK * 2, 1024, ir::SmemUse::tile, layout::Swizzle::b128);
  builder::Smem bar = b.shared("mma_done", 8, 8, ir::SmemUse::mbarrier);
  builder::Smem step_bar = b.shared("step_done", 8, 8, ir::SmemUse::mbarrier);
  builder::Smem slot = b.shared("tmem_slot", 4, 16, ir::SmemUse::other);
  Reg tid = b.special(ir::Special::tid_x, "tid");
  Reg warp = (tid >> 5).named("warp");
  Reg lane = (tid & 31).named("lane");
  Reg A = b.global_ptr(pa, "A_ptr"), B = b.global_ptr(pb, "B_ptr"), C = b.global_ptr(pc, "C_ptr");
  Reg a_base = b.smem_address(a_tile, 0, "a_base"), b_base = b.smem_address(b_tile, 0, "b_base");
  Reg rank = pair ? b.special(ir::Special::cluster_ctarank, "rank") : b.mov(Type::u32, 0, "rank");
  // Row r of a K-major 128B-swizzled tile: chunk c (16 bytes) at (r*128 + c*16) ^ ((r % 8) << 4).
  const auto copy_row = [&](const Reg& src_row, const Reg& tile_base, const Reg& r) {
    for (uint32_t chunk = 0; chunk < 8; ++chunk) {
      std::vector<Reg> v = b.ld_vec(ir::Op::ld_global, Type::b32, 4, Addr::at(src_row, 16 * chunk));
      Reg off = ((r << 7) + ((r & 7) ^ chunk) * 16u).named("swz");
      b.st(ir::Op::st_shared, Type::b32, Addr::at((tile_base + off).named("dst")), v);
    }
  };
  copy_row((A + b.mul_wide((tid + (rank << 7)).named("a_r"), kK * 2, "a_off")).named("a_row"), a_base, tid);
  const uint32_t b_rows = n / ctas;
  for (uint32_t r0 = 0; r0 < b_rows; r0 += 128)
    b.if_((tid < b_rows - r0).named("has_b_row"), [&] {
      Reg r = (tid + r0).named("b_r");
      Reg src = (r + rank * b_rows).named("b_src");
      copy_row((B + b.mul_wide(src, kK * 2, "b_off")).named("b_row"), b_base, r);
    });
  b.fence_proxy_async();  // the tensor core (async proxy) reads what st.shared wrote
  b.if_((tid == 0).named("t0"), [&] {
    b.mbarrier_init(bar.at(), 1);
    b.mbarrier_init(step_bar.at(), kK / 16);
    b.fence_mbarrier_init();
  });
  const uint32_t columns = n < 32 ? 32 : n;
  b.if_((warp == 0).named("w0"), [&] {
    if (mistake == Mistake::bad_column_count) b.tcgen05_alloc(slot.at(), b.mov(Type::u32, 48, "ncols"), group);
    else b.tcgen05_alloc(slot.at(), columns, group);
    b.tcgen05_relinquish_alloc_permit(group);
  });
  b.tcgen05_fence_before_thread_sync();
  b.bar_sync(0);
  b.tcgen05_fence_after_thread_sync();
  if (pair) {  // the peer's tiles, barrier and columns are ready before rank 0 issues
    b.barrier_cluster_arrive();
    b.barrier_cluster_wait();
  }
  Reg tmem = b.ld_shared(Type::u32, slot.at(), "tmem");
  b.if_(((tid | rank) == 0).named("issuer"), [&] {
    layout::UmmaInstrDesc id{.m = mistake == Mistake::bad_m || pair ? 256u : kM, .n = n};
    Reg idesc = b.tmem_instr_descriptor(id, "idesc");
    for (uint32_t kk = 0; kk < kK / 16; ++kk) {
      Reg a_at = (a_base + 32 * kk).named("a_at"), b_at = (b_base + 32 * kk).named("b_at");
      const layout::WgmmaDescriptor sm90 = layout::kmajor_tile_descriptor(0, layout::Swizzle::b128);
      Reg ad = mistake == Mistake::sm90_descriptor ? b.wgmma_descriptor(a_at, sm90, "a_desc")
                                                   : b.umma_descriptor(a_at, layout::umma_descriptor_from(sm90), "a_desc");
      Reg bd = b.umma_descriptor(b_at, layout::umma_descriptor_from(sm90), "b_desc");
      Reg accumulate = (b.mov(Type::u32, kk, "kk") != 0).named("accumulate");
      b.tcgen05_mma(Addr::at(tmem), ad, bd, idesc, accumulate, group);
      if (per_mma_commits) b.tcgen05_commit(step_bar.at());
    }
    if (mistake == Mistake::no_commit) return;
    if (pair) b.tcgen05_commit_multicast(bar.at(), b.mov(Type::b16, 3, "both"), group);
    else b.tcgen05_commit(bar.at());
  });
  if (mistake != Mistake::no_commit_wait) b.mbarrier_wait(bar.at(), 0);
  b.tcgen05_fence_after_thread_sync();
  Reg quarter = mistake == Mistake::wrong_quarter ? ((warp + 1) & 3).named("quarter") : (warp & 3).named("quarter");
  Reg row = ((rank << 7) + (warp << 5) + lane).named("row");
  Reg c_row = (C + b.mul_wide(row, n * 4, "c_off")).named("c_row");
  for (uint32_t col = 0; col < n; col += 8) {
    Reg taddr = (tmem + (quarter << 21) + col).named("taddr");  // lane 32*quarter in bits 31-16
    std::vector<Reg> v = b.tcgen05_ld_32x32b(8, Addr::at(taddr), "acc");
    if (mistake != Mistake::use_before_wait_ld) b.tcgen05_wait_ld();
    b.st(ir::Op::st_global, Type::b32, Addr::at(c_row, 4 * col), {v[0], v[1], v[2], v[3]});
    b.st(ir::Op::st_global, Type::b32, Addr::at(c_row, 4 * col + 16), {v[4], v[5], v[6], v[7]});
    if (mistake == Mistake::use_before_wait_ld) b.tcgen05_wait_ld();
  }
  b.tcgen05_fence_before_thread_sync();
  b.bar_sync(0);
  const uint32_t freeing_warp = mistake == Mistake::dealloc_other_warp ? 1 : 0;
  if (mistake != Mistake::no_dealloc)
    b.if_((warp == freeing_warp).named("frees"), [&] { b.tcgen05_dealloc(tmem, columns, group); });
  b.ret();
  return b.finish();
}

struct TileRun {
  model::SimResult result;
  uint64_t mismatches = 0;
};

// Random integer (or real, rounded to bf16) inputs; the reference in double, compared exactly
// for integers and to a relative 1e-5 otherwise.
TileRun run_tile(const ir::Kernel& k, uint32_t n, bool integer, uint64_t seed = 7, uint32_t m = kM) {
  model::GemmBuffers bufs;
  std::mt19937_64 rng(seed);
  const auto draw = [&] {
    const uint64_t x = rng();
    const float v = integer ? float(int(x % 9) - 4) : float(double(x >> 11) / double(1ull << 53) * 2.0 - 1.0);
    return model::bf16_to_f32(model::f32_to_bf16_rne(v));
  };
  std::vector<float> A(size_t(m) * kK), B(size_t(n) * kK);
  bufs.a.resize(A.size() * 2);
  bufs.b.resize(B.size() * 2);
  for (size_t i = 0; i < A.size(); ++i) {
    A[i] = draw();
    const uint16_t h = model::f32_to_bf16_rne(A[i]);
    std::memcpy(bufs.a.data() + 2 * i, &h, 2);
  }
  for (size_t i = 0; i < B.size(); ++i) {
    B[i] = draw();
    const uint16_t h = model::f32_to_bf16_rne(B[i]);
    std::memcpy(bufs.b.data() + 2 * i, &h, 2);
  }
  bufs.c.assign(size_t(m) * n * 4, 0xFF);
  TileRun r;
  r.result = model::simulate(k, bufs);
  for (uint32_t row = 0; row < m; ++row)
    for (uint32_t j = 0; j < n; ++j) {
      double ref = 0;
      for (uint32_t kk = 0; kk < kK; ++kk) ref += double(A[row * kK + kk]) * double(B[size_t(j) * kK + kk]);
      float c;
      std::memcpy(&c, bufs.c.data() + 4 * (size_t(row) * n + j), 4);
      const bool ok = integer ? double(c) == ref : std::abs(double(c) - ref) <= 1e-5 * (1 + std::abs(ref));
      if (!ok) ++r.mismatches;
    }
  return r;
}

std::set<std::string> kinds(const model::SimResult& r) {
  std::set<std::string> s;
  for (const model::Hazard& h : r.hazards) s.insert(std::string(model::hazard_kind_name(h.kind)));
  return s;
}

std::string details(const model::SimResult& r) {
  std::string s = r.error;
  for (const model::Hazard& h : r.hazards) s += "\n" + std::string(model::hazard_kind_name(h.kind)) + ": " + h.detail;
  return s;
}

}  // namespace

TEST_CASE("tcgen05: a 128xNx64 tile through tensor memory is exact, for N = 8, 64, 256", "[model][tcgen05]") {
  for (uint32_t n : {8u, 64u, 256u}) {
    for (bool integer : {true, false}) {
      INFO("N=" << n << (integer ? " integer" : " random"));
      const TileRun r = run_tile(tile_kernel(n), n, integer);
      INFO(details(r.result));
      REQUIRE(r.result.completed);
      CHECK(r.result.hazards.empty());
      CHECK(r.mismatches == 0);
    }
  }
}

TEST_CASE("tcgen05: each broken rule is named by its hazard", "[model][tcgen05]") {
  const struct {
    Mistake mistake;
    const char* hazard;
  } cases[] = {
      {Mistake::no_commit_wait, "tmem-read-before-commit"},
      {Mistake::wrong_quarter, "tmem-wrong-lane-quarter"},
      {Mistake::no_dealloc, "tmem-not-freed"},
      {Mistake::use_before_wait_ld, "tmem-ld-before-wait"},
      {Mistake::bad_column_count, "bad-tmem-alloc"},
      {Mistake::dealloc_other_warp, "tmem-dealloc-mismatch"},
      {Mistake::sm90_descriptor, "bad-tcgen05-descriptor"},
      {Mistake::bad_m, "bad-tcgen05-descriptor"},
      {Mistake::no_commit, "deadlock"},
  };
  for (const auto& c : cases) {
    INFO("expects " << c.hazard);
    const TileRun r = run_tile(tile_kernel(64, c.mistake), 64, true);
    INFO(details(r.result));
    CHECK(kinds(r.result).count(c.hazard) == 1);
  }
}

TEST_CASE("tcgen05: a commit covers every earlier MMA of the thread, not only those since its last commit",
          "[model][tcgen05]") {
  // After a commit per MMA, the final commit has no MMA of its own: were it to arrive at once,
  // the epilogue's reads would come before the last MMAs complete (tmem-read-before-commit).
  const TileRun r = run_tile(tile_kernel(256, Mistake::none, false, /*per_mma_commits=*/true), 256, true);
  INFO(details(r.result));
  REQUIRE(r.result.completed);
  CHECK(r.result.hazards.empty());
  CHECK(r.mismatches == 0);
  CHECK(r.result.stats.traced_cta_cycles >= 4 * model::timing::tcgen05_busy_cycles(128, 256));
}

TEST_CASE("tcgen05: the commit's arrival waits for the MMAs on the tensor core", "[model][tcgen05]") {
  // Four 128x256x16 MMAs keep the tensor core busy 4 x 128 cycles (timing.hpp): the CTA cannot
  // finish sooner than that after the first MMA issues.
  const TileRun r = run_tile(tile_kernel(256), 256, true);
  REQUIRE(r.result.completed);
  CHECK(r.result.stats.traced_cta_cycles >= 4 * model::timing::tcgen05_busy_cycles(128, 256));
  CHECK(r.result.stats.mma_ops == 4);
}

TEST_CASE("tcgen05 cta_group::2: a 256xNx64 tile split over a CTA pair is exact, for N = 64, 256", "[model][tcgen05]") {
  for (uint32_t n : {64u, 256u}) {
    for (bool integer : {true, false}) {
      INFO("N=" << n << (integer ? " integer" : " random"));
      const TileRun r = run_tile(tile_kernel(n, Mistake::none, /*pair=*/true), n, integer, 11, 2 * kM);
      INFO(details(r.result));
      REQUIRE(r.result.completed);
      CHECK(r.result.hazards.empty());
      CHECK(r.mismatches == 0);
      CHECK(r.result.stats.mma_ops == 4);  // one thread of the pair issued them
    }
  }
}

TEST_CASE("timing: sm_100a kernels are predicted on a B200 (148 SMs), the others on the H100 (132)", "[model][timing]") {
  using namespace model::timing;
  CHECK(&machine_for(ir::Arch::sm_100a) == &kB200);
  CHECK(&machine_for(ir::Arch::sm_90a) == &kH100);
  CHECK(&machine_for(ir::Arch::sm_80) == &kH100);
  CHECK(kB200.sms == 148);
  CHECK_FALSE(kB200.confirmed);
  // 2.25 PFLOP/s dense bf16 over 148 SMs at 8192 FLOP per cycle (facts table tensor_rate).
  CHECK(std::abs(double(kB200.sms) * kTcgen05FlopsPerCycle * kB200.clock_hz / 2.25e15 - 1.0) < 0.01);
  // 148 one-per-SM CTAs are one wave on a B200 and two on an H100.
  const CtaCost cta{.cycles = 1000, .threads = 1024, .smem_bytes = 200 * 1024};
  const Prediction b = predict_gemm(cta, 148, 1e12, kB200), h = predict_gemm(cta, 148, 1e12, kH100);
  CHECK(b.ctas_per_sm == 1);
  CHECK(b.waves == 1);
  CHECK(h.waves == 2);
  // Seconds are at each machine's sustained clock for a kernel without tensor cores (machines.hpp:
  // measured on the H100, the rated one for the unconfirmed B200).
  CHECK(b.clock_hz == Approx(kB200Desc.clock_no_tensor_mhz.value * 1e6));
  CHECK(h.clock_hz == Approx(kH100Desc.clock_no_tensor_mhz.value * 1e6));
  CHECK(b.seconds == Approx(1000 / b.clock_hz + b.launch_seconds));
  CHECK(h.seconds == Approx(2000 / h.clock_hz + h.launch_seconds));
  CHECK(machine_words(kB200).find("unconfirmed") != std::string::npos);
  CHECK(machine_words(kH100) == "an H100");
}

TEST_CASE("tcgen05: the model records each ld's lane-quarter verdict and the MMA's tensor-core reads",
          "[model][tcgen05]") {
  for (const bool wrong : {false, true}) {
    INFO((wrong ? "wrong quarter" : "own quarter"));
    const TileRun r = run_tile(tile_kernel(64, wrong ? Mistake::wrong_quarter : Mistake::none), 64, true);
    const model::Trace& t = r.result.trace;
    uint32_t loads = 0, mmas_with_reads = 0;
    for (const model::Event& e : t.events) {
      if (e.kind != model::EventKind::tmem_op) continue;
      const model::TmemOp& op = t.tmem[e.payload];
      const uint32_t warp = e.warp - t.ctas[e.cta].first_warp;
      if (op.kind == model::TmemOpKind::load) {
        ++loads;
        CHECK(op.quarter == warp % 4);  // the op traits' rule: warp w owns quarter w % 4
        CHECK(op.outside_quarter == wrong);
      }
      if (op.kind == model::TmemOpKind::mma && op.a_read != model::kNone) {
        ++mmas_with_reads;
        REQUIRE(op.b_read < t.tensor_reads.size());
        const model::TensorRead& a = t.tensor_reads[op.a_read];
        CHECK(a.op == ir::Op::tcgen05_mma);
        CHECK(a.operand == 'A');
        REQUIRE(a.smem < t.smem.size());
        CHECK(t.smem[a.smem].mask == 0xFFFFFFFFu);
        // Lane 8g + r reads row 8(g%2) + r of chunk g/2 of the tile's first rows.
        CHECK(a.row[9] == 9);
        CHECK(a.chunk[9] == 0);
        CHECK(a.row[17] == 1);
        CHECK(a.chunk[17] == 1);
        CHECK(t.tensor_reads[op.b_read].operand == 'B');
      }
    }
    CHECK(loads > 0);
    CHECK(mmas_with_reads > 0);
  }
}
