// The timing probes (kernels/timing_probes.hpp) as kernels: every one assembles with ptxas for its
// target, and the model runs them, each leaving its records where the probe says and showing the
// figures of the machine description it reads (split from test_timing_model.cpp, which checks
// the timing model itself).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "engine/model/model.hpp"
#include "engine/model/timing.hpp"
#include "engine/ptx/emit.hpp"
#include "kernels/timing_probes.hpp"
#include "tests/model/probe_run.hpp"
#include "tests/support/ptxas_check.hpp"

using namespace gs;
using kernels::ChainOp;
using test::ProbeRun;
using test::run_probe;

TEST_CASE("probes: every timing probe kernel assembles with ptxas for its target", "[model][timing][ptxas]") {
  const std::vector<ir::Kernel> kernels = {
      kernels::build_chain_probe(ChainOp::ffma, 1, 4, 2, 8, 2),
      kernels::build_chain_probe(ChainOp::mma_sync, 1, 1, 1, 8, 2),
      kernels::build_shared_chase_probe(1024, 64),
      kernels::build_global_chase_probe(8, 64),
      kernels::build_stream_probe(4, 2, 16),
      kernels::build_store_stream_probe(4, 2, 16, false),
      kernels::build_store_stream_probe(4, 2, 16, true),
      kernels::build_l1_stride_probe(2, 128, 4),
      kernels::build_l1_stride_probe(2, 0, 4),
      kernels::build_l1_fill_probe(2, 1, 4, 0, true),
      kernels::build_l1_fill_probe(2, 4, 4, 8),
      kernels::build_cp_async_fill_probe(32, 4, 8),
      kernels::build_cp_async_fill_probe(32, 4, 20, 32, 2, true),  // step 09's mix with a bar.sync a round
      kernels::build_cp_async_fill_probe(32, 4, 0, 32),
      kernels::build_cp_async_fill_probe(32, 4, 8, 64),
      kernels::build_cp_async_fill_probe(32, 4, 8, 32, 2),
      kernels::build_wgmma_probe(2, 256, 2),
      kernels::build_tma_probe(2, 4, 2, 256, 16, 1),
      kernels::build_tma_probe(4, 4, 2, 128, 16, 2),
      kernels::build_tma_probe(4, 2, 2, 64, 24, 1),  // a footprint that is not a power of two
      kernels::build_tma_probe(4, 1, 4, 256, 16, 1, true),  // each round stamped
      kernels::build_tma_gemm_wave_probe(4, 4, 4, 8),
      kernels::build_tma_gemm_ring_probe(4, 4, 6, 8, 3, 2),
      kernels::build_tma_gemm_ring_probe(4, 4, 6, 8, 3, 2, {.heat_reps = 2}),  // heated
      kernels::build_tma_gemm_ring_probe(4, 4, 6, 8, 3, 2, {.split = true}),      // split roles
      kernels::build_tma_gemm_ring_probe(4, 4, 6, 8, 3, 2, {.c_tile = true}),     // C tile
      kernels::build_tma_gemm_ring_probe(4, 4, 6, 8, 3, 20, {.uneven = true}),    // uneven pace
      kernels::build_tma_gemm_ring_probe(4, 4, 6, 8, 3, 20, {.jitter = true}),    // jittered pace
      kernels::build_tma_gemm_ring_probe(4, 4, 6, 8, 3, 20, {.drift_fmas = 2}),   // lasting drift
      kernels::build_tma_gemm_ring_probe(4, 2, 6, 8, 3, 1, {.tile_n = 256}),      // 128 x 256 tiles
      kernels::build_mbarrier_handoff_probe(4, 1),
      kernels::build_mbarrier_handoff_probe(4, 128),
      kernels::build_mbarrier_wait_done_probe(4, 0),
      kernels::build_mbarrier_wait_done_probe(4, 10'000'000),
      kernels::build_wgmma_stages_probe(3, 2, true),
      kernels::build_clock_under_load_probe(2, 2, 1, 2, 4),
      kernels::build_clock_under_load_probe(2, 2, 1, 2, 4, false),
      kernels::build_wgmma_probe(2, 256, 2, 2, true),
      kernels::build_wgmma_issue_probe(2, 256, 4, 2, 1),
      kernels::build_wgmma_issue_probe(1, 64, 16, 2, 0),
      kernels::build_wgmma_order_probe(8, 4),
      kernels::build_remote_arrive_probe(4),
      kernels::build_remote_arrive_probe(4, 10'000'000),
      kernels::build_remote_arrive_probe(4, 0, true),
      kernels::build_remote_arrive_issue_probe(4, false),
      kernels::build_remote_arrive_issue_probe(4, true),
      kernels::build_clock_under_load_probe(2, 2, 4, 2, 16),
      kernels::build_clock_under_load_probe(2, 2, 4, 2, 16, true, false, false),  // the TMA alone
      kernels::build_clock_under_load_probe(2, 2, 4, 2, 16, true, true, true, 8),  // paused
      kernels::build_chain_probe(ChainOp::mma_sync, 2, 8, 8, 8, 2, true),          // random operands
      kernels::build_launch_probe(4, 128, 0),
      kernels::build_shared_rate_probe(4, 1, 2, 4, 2),
      kernels::build_shared_rate_probe(2, 4, 2, 4, 2),
      kernels::build_launch_probe(2, 384, 200 * 1024),
      kernels::build_clock_spin_probe(4, 16),
      kernels::build_coresident_probe(4, 8, 100 * 1024, 8, 8, 4),
      kernels::build_copy_burst_probe(4, 4, 100 * 1024, 8, 2, 4 * 16384),
      kernels::build_copy_burst_probe(4, 4, 100 * 1024, 8, 2, 4 * 16384, true),  // one trip a round
      kernels::build_copy_arrival_probe(2, 4, 8, 2),
      kernels::build_outer_product_probe(4, 8, 8, 4),
      kernels::build_shared_rate_probe(4, 1, 2, 4, 2, 4),
      kernels::build_fragment_power_probe(2, 8, 2, {true, false, 0}),          // ldmatrix alone
      kernels::build_fragment_power_probe(2, 8, 2, {true, true, 0}),           // ldmatrix feeding mma.sync
      kernels::build_fragment_power_probe(2, 8, 2, {false, false, 1u << 16}),  // cp.async alone
      kernels::build_fragment_power_probe(2, 8, 2, {true, true, 1u << 16}),    // all three
      kernels::build_fragment_power_probe(4, 4, 2, {true, true, 1u << 16, true}),  // with a bar.sync a round
      kernels::build_fragment_power_probe(2, 8, 2, {false, false, 1u << 16, false, 32}),  // step 09's rows
      kernels::build_fragment_power_probe(4, 4, 2, {true, true, 1u << 16, true, 64}),     // step 10's rows
      kernels::build_cp_async_fill_probe(32, 2, 48, 32, 2, true, 8),  // 8 groups, each its own barrier
      kernels::build_clock_under_load_probe(4, 2, 2, 2, 16, true, true, true, 0, 1, 128),  // one wgmma warpgroup
      kernels::build_clock_under_load_probe(2, 2, 4, 2, 16, true, true, true, 0, 2, 128),
      kernels::build_clock_under_load_probe(2, 2, 4, 2, 16, true, true, true, 0, 2, 256, {.store_every = 64}),  // an epilogue
      kernels::build_clock_under_load_probe(4, 2, 4, 2, 16, true, true, true, 0, 2, 256, {.share = 2}),  // shared boxes
      kernels::build_clock_under_load_probe(2, 2, 4, 2, 16, true, true, true, 0, 2, 256, {.distinct_a = true}),  // own A
      kernels::build_clock_under_load_probe(2, 2, 4, 2, 16, true, false, true, 0, 2, 256, {.distinct_a = true}),
      kernels::build_clock_under_load_probe(2, 8, 4, 2, 16, true, true, true, 0, 2, 256, {.handoff = true}),  // hand-off
      kernels::build_clock_under_load_probe(4, 8, 4, 2, 16, true, true, true, 0, 2, 256,
                                            {.handoff = true, .pair = kernels::ClockLoadOptions::Pair::coupled}),
      kernels::build_clock_under_load_probe(4, 8, 4, 2, 16, true, true, true, 0, 2, 256,
                                            {.handoff = true, .pair = kernels::ClockLoadOptions::Pair::multicast}),
  };
  for (const ir::Kernel& k : kernels) test::check_assembles(ptx::emit(k).text, k.target, k.name);
}

TEST_CASE("L1: a traced load holds the data path by what it finds there: a hit, a miss, a line on its way",
          "[model][timing]") {
  // The probes of docs/results/2026-12-02-stalls on the model (traced, as gemmscope_timing_probes
  // runs them): warp-loads a cycle of one CTA of 32 warps, 8 one-line loads a round.
  const auto rate = [](const ir::Kernel& k, size_t a_bytes) {
    model::GemmBuffers bufs;
    bufs.a.assign(a_bytes, 1);
    bufs.c.assign(32 * 32 * kernels::kTimingOutBytes, 0);
    model::SimOptions opt;
    opt.trace = true;
    opt.machine = &model::timing::kH200;
    const model::SimResult r = model::simulate(k, bufs, opt);
    REQUIRE(r.completed);
    const ProbeRun run{bufs.c};
    const uint64_t span = run.span_of_warps(32);
    REQUIRE(span > 0);
    return 32.0 * 8 * 64 / double(span);
  };
  using model::timing::kL1MissRequestCycles, model::timing::kL1PendingRequestCycles, model::timing::kL1RequestCycles;
  // Hits: a line's cycle and kL1RequestCycles each (the card: 0.94).
  const double hits = rate(kernels::build_l1_stride_probe(32, 4, 64), 8 * 1024 + 256);
  CHECK(hits == Approx(1.0 / (1.0 + kL1RequestCycles)).epsilon(0.03));
  // Every warp reads the same 8 new lines a round: 8 misses and 248 loads that find their line
  // on its way from L2 (the card: 0.77; before the L1 knew lines on their way, the model: 0.99).
  const double same = rate(kernels::build_l1_fill_probe(32, 1, 64, 0, true), 64 * 8 * 128 + 1024);
  CHECK(same == Approx(256.0 / (256.0 * (1.0 + kL1RequestCycles) + 8 * (kL1MissRequestCycles - kL1RequestCycles) +
                                248 * (kL1PendingRequestCycles - kL1RequestCycles)))
                    .epsilon(0.05));
  CHECK(same < hits - 0.05);
  // Every line read once: each load a miss, and L2's latency to wait (the card: 0.735).
  const double misses = rate(kernels::build_l1_fill_probe(32, 1, 64), 64 * 32 * 8 * 128 + 1024);
  CHECK(misses <= 1.0 / (1.0 + kL1MissRequestCycles) + 0.01);
  CHECK(misses < same);
}

TEST_CASE("probes: the shared-memory rate probe's chases stay on their own slots", "[model][timing]") {
  // Each lane's chase returns to its own slot: a thread's value is the XOR of its chains' final
  // pointers, its slot in each chain's region (chain c at c x 32 x warps x 4 x vec bytes on).
  for (const uint32_t vec : {1u, 4u}) {
    const uint32_t warps = 2, chains = 3, lane = 4 * vec, region = warps * 32 * lane;
    const ProbeRun r = run_probe(kernels::build_shared_rate_probe(warps, vec, chains, 4, 2), 64);
    const auto expected = [&](uint64_t base, uint32_t t) {
      uint64_t x = 0;
      for (uint32_t c = 0; c < chains; ++c) x ^= base + uint64_t(t) * lane + uint64_t(c) * region;
      return x;
    };
    std::optional<uint64_t> base;  // where the slots begin: the one base that explains thread 0
    for (uint64_t b = 0; b < 4096 && !base; b += 16)
      if (expected(b, 0) == r.field(0, 2)) base = b;
    REQUIRE(base);
    for (uint32_t t : {1u, 17u, 63u}) {
      INFO("vec " << vec << " thread " << t);
      CHECK(r.field(t, 2) == expected(*base, t));
      CHECK(r.field(t, 0) > 0);
    }
  }
  CHECK_THROWS_WITH(kernels::build_shared_rate_probe(4, 3, 1, 1, 1), Catch::Contains("1, 2 or 4 words a lane"));
}

TEST_CASE("probes: a launch probe's CTAs each leave their record and nothing else", "[model][timing]") {
  // Records are per CTA (thread 0's), indexed by the CTA: 5 CTAs write 5 records.
  const ProbeRun r = run_probe(kernels::build_launch_probe(5, 64, 4096), 6);
  for (uint32_t cta = 0; cta < 5; ++cta) {
    CHECK(r.field(cta, 2) == cta);
    CHECK(r.field(cta, 0) == 0);  // start and end are the same clock64 read
  }
  CHECK(r.field(5, 2) == 0);  // the record past the last CTA stays as it was
  CHECK_THROWS_WITH(kernels::build_launch_probe(1, 48, 0), Catch::Contains("got 1 CTAs of 48"));
}

TEST_CASE("probes: a clock spin counts a fixed number of cycles and the nanoseconds they took", "[model][timing]") {
  // On the model %globaltimer is the modeled cycle in ns at the kernel's machine's clock: every
  // CTA's cycles over its nanoseconds is that clock, as bench reads a spin's records.
  const uint32_t ctas = 3, reps = 64;
  const ProbeRun r = run_probe(kernels::build_clock_spin_probe(ctas, reps), ctas * 32);
  const ir::Kernel k = kernels::build_clock_spin_probe(ctas, reps);
  const double mhz = model::timing::machine_for(k.target).clock_hz / 1e6;
  for (uint32_t cta = 0; cta < ctas; ++cta) {
    INFO("CTA " << cta);
    const uint64_t cycles = r.field(cta * 32, 0), ns = r.field(cta * 32, 2);
    CHECK(cycles >= 8 * reps * 4);  // 8 dependent FFMAs a repetition, about 4 cycles each
    CHECK(cycles < 8 * reps * 4 * 2);
    REQUIRE(ns > 0);
    CHECK(1e3 * double(cycles) / double(ns) == Approx(mhz).epsilon(0.01));
  }
  CHECK_THROWS_WITH(kernels::build_clock_spin_probe(0, 1), Catch::Contains("got 0 CTAs"));
}

TEST_CASE("probes: a one-trip copy burst copies what the burst copies, a bar.sync between its loads and stores",
          "[model][timing]") {
  // 4 CTAs of 4 warps, 2 rounds of 8 loads a thread over a 64-KiB footprint of distinct bytes.
  std::vector<uint8_t> a(4 * 16384);
  for (size_t i = 0; i < a.size(); ++i) a[i] = uint8_t(i * 7 + i / 251);
  const ir::Kernel burst = kernels::build_copy_burst_probe(4, 4, 100 * 1024, 8, 2, 4 * 16384);
  const ir::Kernel trip = kernels::build_copy_burst_probe(4, 4, 100 * 1024, 8, 2, 4 * 16384, true);
  const auto bars = [](const ir::Kernel& k) {
    return std::count_if(k.insts.begin(), k.insts.end(), [](const ir::Inst& i) { return i.op == ir::Op::bar_sync; });
  };
  CHECK(bars(trip) == bars(burst) + 1);
  // In the one-trip round every ld.global comes before that barrier and every st.shared after it.
  size_t first_bar = trip.insts.size(), last_load = 0, first_store = trip.insts.size();
  for (size_t i = 0; i < trip.insts.size(); ++i) {
    const ir::Op op = trip.insts[i].op;
    if (op == ir::Op::ld_global) last_load = i;
    if (op == ir::Op::bar_sync && first_bar == trip.insts.size()) first_bar = i;
    if (op == ir::Op::st_shared && first_store == trip.insts.size()) first_store = i;
  }
  CHECK(last_load < first_bar);
  CHECK(first_bar < first_store);
  const test::ProbeRun rb = test::run_probe(burst, 4 * 128, a), rt = test::run_probe(trip, 4 * 128, a);
  bool any_value = false;
  for (uint32_t t = 0; t < 4 * 128; ++t) {
    CHECK(rt.field(t, 2) == rb.field(t, 2));
    any_value |= rt.field(t, 2) != 0;
  }
  CHECK(any_value);
}

TEST_CASE("probes: the copy-arrival probe stamps each load's data in issue order", "[model][timing]") {
  // 2 CTAs of 4 warps, 2 rounds of 8 loads a thread over the probe's 8-MiB footprint.
  const uint32_t ctas = 2, warps = 4, loads = 8, threads = ctas * 32 * warps;
  const ir::Kernel k = kernels::build_copy_arrival_probe(ctas, warps, loads, 2);
  // In the IR each load's use (an fma reading its word) comes before the clock read of its stamp,
  // and that clock read before the next load's use.
  std::vector<size_t> uses, clocks;
  for (size_t i = 0; i < k.insts.size(); ++i) {
    if (k.insts[i].op == ir::Op::fma) uses.push_back(i);
    const std::vector<ir::Operand>& o = k.insts[i].operands;
    if (k.insts[i].op == ir::Op::mov && o.size() == 2 && o[1].kind == ir::OperandKind::special &&
        o[1].id == uint32_t(ir::Special::clock64))
      clocks.push_back(i);
  }
  REQUIRE(uses.size() == loads);
  // t0, the round's start, a stamp a load, t1.
  REQUIRE(clocks.size() == loads + 3);
  for (uint32_t u = 0; u < loads; ++u) {
    CHECK(uses[u] < clocks[2 + u]);
    if (u + 1 < loads) CHECK(clocks[2 + u] < uses[u + 1]);
  }
  std::vector<uint8_t> a(8u << 20);
  for (size_t i = 0; i < a.size(); ++i) a[i] = uint8_t(i * 13 + i / 509);
  const size_t stamps_bytes = size_t(ctas) * warps * loads * 8;
  const test::ProbeRun r = test::run_probe(k, threads + uint32_t(stamps_bytes / kernels::kTimingOutBytes), a);
  const size_t base = size_t(threads) * kernels::kTimingOutBytes;
  for (uint32_t w = 0; w < ctas * warps; ++w) {
    uint64_t before = 0;
    for (uint32_t u = 0; u < loads; ++u) {
      uint64_t t = 0;
      std::memcpy(&t, r.c.data() + base + (size_t(w) * loads + u) * 8, 8);
      CHECK(t > 0);
      CHECK(t >= before);  // stamp u: loads 0..u in
      before = t;
    }
  }
}

TEST_CASE("probes: the model runs the new probes and shows its machine description's figures", "[model][timing]") {
  // The clock under load: the wgmma warps' cycles over their %globaltimer nanoseconds is the
  // clock the model's globaltimer counts at, while the streaming warp's boxes land.
  {
    const uint32_t boxes = 4;
    const ProbeRun r =
        run_probe(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes), 384, std::vector<uint8_t>(boxes * 32768, 1));
    // A record's clock: its cycles over its nanoseconds (thread 0 a wgmma warp's, 256 the streamer's).
    const double hz = model::timing::machine_for(ir::Arch::sm_90a).clock_hz;
    const auto clock_of = [](const ProbeRun& run, uint32_t thread) {
      REQUIRE(run.field(thread, 2) > 0);
      return double(run.field(thread, 0)) / double(run.field(thread, 2)) * 1e9;
    };
    CHECK(clock_of(r, 0) == Approx(hz).epsilon(0.01));
    CHECK(clock_of(r, 256) == Approx(hz).epsilon(0.01));  // the streaming warp's own span
    // The TMA alone (mma false): the wgmma warps record nothing, the streamer its span.
    const ProbeRun alone = run_probe(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, false, false), 384,
                                     std::vector<uint8_t>(boxes * 32768, 1));
    CHECK(alone.field(0, 0) == 0);
    CHECK(clock_of(alone, 256) == Approx(hz).epsilon(0.01));
    // A pause after each repetition (and the streamer as long in all): the wgmma threads take more
    // cycles a repetition, the tensor cores busy a smaller share (a pause shorter than the other
    // warpgroup's wgmmas hides behind them); the clock is still the clock.
    const auto streamed = [&](uint32_t pause) {
      return run_probe(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, true, true, pause), 384,
                       std::vector<uint8_t>(boxes * 32768, 1));
    };
    const ProbeRun busy = streamed(0), paused = streamed(256);
    CHECK(double(paused.field(0, 0)) > 1.2 * double(busy.field(0, 0)));
    CHECK(clock_of(paused, 0) == Approx(hz).epsilon(0.01));
    // The streaming lane paused as long: it ends no sooner against the wgmmas than without the pause.
    CHECK(double(paused.field(256, 2)) / double(paused.field(0, 2)) >=
          0.9 * double(busy.field(256, 2)) / double(busy.field(0, 2)));
    // One wgmma warpgroup of N = 128: 256 threads, the streamer's record at thread 128, and each
    // repetition half the tensor-core time of N = 256 (two warpgroups share the SM's at 256).
    const ProbeRun one = run_probe(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, true, true, 0, 1, 128),
                                   256, std::vector<uint8_t>(boxes * 32768, 1));
    CHECK(clock_of(one, 0) == Approx(hz).epsilon(0.01));
    CHECK(clock_of(one, 128) == Approx(hz).epsilon(0.01));
    CHECK(one.field(128, 0) > 0);
    CHECK(double(one.field(0, 0)) < 0.75 * double(busy.field(0, 0)));
    CHECK_THROWS_AS(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, true, true, 0, 3, 128),
                    std::invalid_argument);
    // An epilogue after every 4th repetition into 2 slots (store_every, store_slots), as the rows
    // sm_clock_under_wgmma_streamed_l2_matched_store*: each wgmma thread's 128 accumulators land
    // after the records, a warp's 512 bytes an instruction, one tile a slot (repetitions 3 and 7
    // fill slots 0 and 1); the records stay the clock's, and the repetitions take longer.
    const uint32_t slots = 2;
    const size_t records = 384 * kernels::kTimingOutBytes;
    const uint64_t stored = kernels::clock_under_load_store_bytes(1, 2, 256, slots);
    CHECK(stored == uint64_t(slots) * 256 * 128 * 4);
    model::GemmBuffers bufs;
    bufs.a.assign(boxes * 32768, 1);
    bufs.c.assign(records + stored, 0xFF);  // no accumulator's f32 is all ones
    std::fill(bufs.c.begin(), bufs.c.begin() + records, 0);
    const model::SimResult sr = model::simulate(
        kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, true, true, 0, 2, 256,
                                              {.store_every = 4, .store_slots = slots}),
        bufs, model::SimOptions{});
    REQUIRE(sr.completed);
    const ProbeRun with_stores{bufs.c};
    CHECK(clock_of(with_stores, 0) == Approx(hz).epsilon(0.01));
    CHECK(with_stores.field(0, 0) > busy.field(0, 0));
    size_t left = 0;
    for (size_t i = records; i + 4 <= bufs.c.size(); i += 4) left += bufs.c[i] == 0xFF && bufs.c[i + 1] == 0xFF &&
                                                                  bufs.c[i + 2] == 0xFF && bufs.c[i + 3] == 0xFF;
    CHECK(left == 0);
    CHECK_THROWS_AS(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, true, true, 0, 2, 256, {.store_every = 3}),
                    std::invalid_argument);
    // The producer/consumer hand-off (the rows sm_clock_under_wgmma_streamed_l2_handoff*): 4 rounds
    // of 2 stages for 8 repetitions, every wait returning and every stage released, no hazard (the
    // free ring's wgmmas read stages the TMA may be writing; these wait for them); the clock is
    // still the clock, and waiting for each box takes no less time than reading the free ring.
    model::GemmBuffers hb;
    hb.a.assign(boxes * 32768, 1);
    hb.c.assign(384 * kernels::kTimingOutBytes, 0);
    const model::SimResult hr = model::simulate(
        kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, true, true, 0, 2, 256, {.handoff = true}), hb,
        model::SimOptions{});
    REQUIRE(hr.completed);
    CHECK(hr.hazards.empty());
    const ProbeRun handoff{hb.c};
    CHECK(clock_of(handoff, 0) == Approx(hz).epsilon(0.01));
    CHECK(handoff.field(0, 0) >= busy.field(0, 0));
    CHECK(handoff.field(256, 0) > 0);  // the streaming lane's record
    // The hand-off needs a stage a repetition, streamed into wgmmas, with no pause.
    CHECK_THROWS_AS(kernels::build_clock_under_load_probe(1, 8, 2, 2, boxes, true, true, true, 0, 2, 256, {.handoff = true}),
                    std::invalid_argument);
    CHECK_THROWS_AS(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, false, true, 0, 2, 256, {.handoff = true}),
                    std::invalid_argument);
    CHECK_THROWS_AS(kernels::build_clock_under_load_probe(1, 8, 2, 4, boxes, true, true, true, 16, 2, 256, {.handoff = true}),
                    std::invalid_argument);
    // In CTA pairs (the rows ..._handoff_pair and _pairmc): the pair streams the same boxes, each
    // stage released in both CTAs; multicast, each CTA loads half of each box into both. Every wait
    // returns, no hazard, both CTAs' wgmma and streaming records written; the pair's CTAs receive
    // the same bytes either way, and multicast asks L2 for half of them.
    using Pair = kernels::ClockLoadOptions::Pair;
    const auto pair_run = [&](Pair pair) {
      model::GemmBuffers pb;
      pb.a.assign(boxes * 32768, 1);
      pb.c.assign(2 * 384 * kernels::kTimingOutBytes, 0);
      model::SimResult r = model::simulate(
          kernels::build_clock_under_load_probe(2, 8, 2, 4, boxes, true, true, true, 0, 2, 256,
                                                {.handoff = true, .pair = pair}),
          pb, model::SimOptions{});
      return std::pair{std::move(r), ProbeRun{pb.c}};
    };
    const auto [coupled, coupled_run] = pair_run(Pair::coupled);
    const auto [multicast, multicast_run] = pair_run(Pair::multicast);
    for (const auto* r : {&coupled, &multicast}) {
      REQUIRE(r->completed);
      CHECK(r->hazards.empty());
    }
    for (const ProbeRun* run : {&coupled_run, &multicast_run})
      for (const size_t cta : {0u, 1u}) {
        CHECK(run->field(384 * cta, 0) > 0);        // a wgmma thread's cycles
        CHECK(run->field(384 * cta + 256, 0) > 0);  // the streaming lane's
      }
    CHECK(multicast.stats.tma_bytes == coupled.stats.tma_bytes / 2);
    // Pairs need the hand-off and an even count of CTAs.
    CHECK_THROWS_AS(kernels::build_clock_under_load_probe(3, 8, 2, 4, boxes, true, true, true, 0, 2, 256,
                                                          {.handoff = true, .pair = Pair::multicast}),
                    std::invalid_argument);
    CHECK_THROWS_AS(kernels::build_clock_under_load_probe(2, 8, 2, 4, boxes, true, true, true, 0, 2, 256,
                                                          {.pair = Pair::coupled}),
                    std::invalid_argument);
  }
  // Two warpgroups reading a ring's stages in turn, each round's descriptors made from its stage:
  // the tensor cores' rate, as the H100 reads it (wgmma_n256_2wg_stages3: 1024.98 cycles a round,
  // 2026-12-06), the rotation costing nothing.
  {
    const uint32_t rounds = 8;
    const ProbeRun r = run_probe(kernels::build_wgmma_stages_probe(3, rounds, false), 256);
    const uint64_t span = r.span_of_warps(8);
    CHECK(double(span) / rounds == Approx(1024.98).epsilon(0.02));
    CHECK_THROWS_AS(kernels::build_wgmma_stages_probe(5, 2, false), std::invalid_argument);
  }
  // wgmma m64n256k16 from shared memory: N/2 cycles each on the SM's tensor cores.
  {
    const ProbeRun r = run_probe(kernels::build_wgmma_probe(2, 256, 8), 256);
    const uint64_t span = r.span_of_warps(8);
    const double flop_per_cycle = 2.0 * 8 * 4 * 2 * 64 * 256 * 16 / double(span);
    CHECK(flop_per_cycle == Approx(model::timing::kTensorFlopsPerCycle).epsilon(0.05));
  }
  // A burst of wgmmas from one warpgroup (probes wgmma_issue_*): each holds the SM's wgmma issue
  // for its N's figure, the next waits; with kWgmmaQueue or more on the tensor cores, the crowded
  // figure. So a burst's issue cycles grow by wgmma_issue_cycles(N) a wgmma up to the queue, by
  // the crowded figure beyond, and two warpgroups' bursts share the issue.
  {
    namespace t = model::timing;
    const auto issue = [](uint32_t groups, uint32_t n, uint32_t burst) {
      const ProbeRun r = run_probe(kernels::build_wgmma_issue_probe(groups, n, burst, 4, 0), 128 * groups);
      return double(r.field(0, 0)) / 4;  // warp 0's cycles issuing a burst, over the rounds
    };
    const double b2 = issue(1, 256, 2), b4 = issue(1, 256, 4), b8 = issue(1, 256, 8);
    CHECK(b4 - b2 == Approx(2 * t::wgmma_issue_cycles(256, false)).margin(1));
    CHECK(b8 - b4 == Approx(4 * t::wgmma_issue_cycles(256, false)).margin(1));
    CHECK(t::wgmma_issue_cycles(256, true) > t::wgmma_issue_cycles(256, false));
    CHECK(issue(1, 256, 32) - issue(1, 256, 24) == Approx(8 * t::wgmma_issue_cycles(256, true)).margin(1));
    CHECK(issue(1, 64, 32) - issue(1, 64, 24) == Approx(8 * t::wgmma_issue_cycles(64, true)).margin(1));
    CHECK(t::wgmma_issue_cycles(64, false) < t::wgmma_issue_cycles(256, false));
    CHECK(issue(2, 256, 8) > 1.5 * b8);  // the other warpgroup's wgmmas take the issue too
  }
  // One TMA box in flight: its issue-to-land time grows with the box by the copy engine's rate.
  {
    const double small =
        double(run_probe(kernels::build_tma_probe(1, 1, 16, 8, 16), 32, std::vector<uint8_t>(16 * 8 * 128)).field(0, 0)) /
        16;
    const double large =
        double(run_probe(kernels::build_tma_probe(1, 1, 16, 256, 16), 32, std::vector<uint8_t>(16 * 256 * 128))
                   .field(0, 0)) /
        16;
    CHECK(small > model::timing::kH100Cta.tma_latency);
    CHECK((large - small) == Approx(31.0 * 1024 / model::timing::kH100Cta.tma_bytes_per_cycle).epsilon(0.05));
  }
  // Stores: the store probe completes and writes every byte of its blocks.
  {
    model::GemmBuffers bufs;
    bufs.a.assign(16 * 4096, 0xEE);
    bufs.c.assign(4 * 256 * kernels::kTimingOutBytes, 0);
    model::SimOptions opt;
    const model::SimResult r = model::simulate(kernels::build_store_stream_probe(4, 4, 16, true), bufs, opt);
    REQUIRE(r.completed);
    uint32_t untouched = 0;  // 4-byte words still 0xEEEEEEEE: no stored value is
    for (size_t i = 0; i < bufs.a.size(); i += 4) untouched += std::memcmp(bufs.a.data() + i, "\xEE\xEE\xEE\xEE", 4) == 0;
    CHECK(untouched == 0);  // every byte of the 16 blocks written
  }
}
