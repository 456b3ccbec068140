// The stamped TMA probes (kernels/timing_probes.cpp: build_tma_probe's stamp_rounds,
// build_tma_gemm_wave_probe) on the model: where the stamps go and what they add up to, and that
// a GEMM wave's CTAs read their tiles' panels. Their PTX is assembled with the other probes'
// (test_timing_model.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "bench/probe_figures.hpp"
#include "engine/model/model.hpp"
#include "kernels/timing_probes.hpp"

using namespace gs;

TEST_CASE("the stamped TMA probe: each CTA's rounds, stamp to stamp, are the unstamped probe's rounds", "[model][timing]") {
  // Two CTAs, one 32-KiB box in flight, 16 rounds: the stamps go after the threads' records.
  constexpr uint32_t kCtas = 2, kRounds = 16;
  const ir::Kernel stamped = kernels::build_tma_probe(kCtas, 1, kRounds, 256, 16, 1, true);
  model::GemmBuffers bufs;
  bufs.a.assign(16 * 256 * 128, 1);
  bufs.c.assign(size_t(kCtas) * 32 * kernels::kTimingOutBytes + size_t(kCtas) * (kRounds + 1) * 8, 0);
  model::SimOptions opt;
  opt.trace = false;
  REQUIRE(model::simulate(stamped, bufs, opt).completed);
  const std::vector<uint64_t> rounds = probe_figures::stamped_round_times(bufs.c, kCtas, kRounds);
  REQUIRE(rounds.size() == kCtas * kRounds);
  // Thread 0's timed region of each CTA (field 0) spans its rounds: the stamps sum to within the
  // few instructions before the first stamp and after the last.
  uint64_t sum = 0;
  for (const uint64_t r : rounds) sum += r;
  uint64_t timed = 0;
  for (uint32_t cta = 0; cta < kCtas; ++cta) {
    uint64_t t = 0;
    std::memcpy(&t, bufs.c.data() + size_t(cta) * 32 * kernels::kTimingOutBytes, 8);
    timed += t;
  }
  CHECK(sum <= timed);
  CHECK(double(sum) > 0.95 * double(timed));
  // The median round is a box's issue to land, as in the unstamped one-CTA probe (its rounds
  // carry no stamp store; a round's stamp and its address take a few cycles more).
  model::GemmBuffers one;
  one.a.assign(16 * 256 * 128, 1);
  one.c.assign(32 * kernels::kTimingOutBytes, 0);
  REQUIRE(model::simulate(kernels::build_tma_probe(1, 1, kRounds, 256, 16), one, opt).completed);
  uint64_t plain_cycles = 0;
  std::memcpy(&plain_cycles, one.c.data(), 8);  // thread 0's timed cycles
  const double plain = double(plain_cycles) / kRounds;
  CHECK(probe_figures::sorted_percentile(rounds, 0.5) == Approx(plain).margin(40.0));
  CHECK(probe_figures::sorted_percentile(rounds, 0.0) <= probe_figures::sorted_percentile(rounds, 0.99));
  // Too small a C: no rounds rather than reading past it.
  CHECK(probe_figures::stamped_round_times(std::vector<uint8_t>(64), kCtas, kRounds).empty());
}

TEST_CASE("the GEMM-wave TMA probe: each CTA loads its tile's A and B boxes, K block by K block, stamped",
          "[model][timing]") {
  // A 2 x 2 grid of 128 x 128 tiles, 4 K blocks: A's rows are 0..255, B's 256..511, each element
  // its row's number, so the boxes a CTA last holds say which panels it read.
  constexpr uint32_t kTiles = 2, kBlocks = 4, kCtas = 4, kCols = kBlocks * 64;
  const ir::Kernel k = kernels::build_tma_gemm_wave_probe(kTiles, kTiles, kBlocks, kCtas);
  model::GemmBuffers bufs;
  bufs.a.resize(size_t(2 * kTiles) * 128 * kCols * 2);
  for (uint32_t row = 0; row < 2 * kTiles * 128; ++row)
    for (uint32_t col = 0; col < kCols; ++col) {
      const uint32_t bits = std::bit_cast<uint32_t>(float(row)) >> 16;  // bf16 of the row number
      bufs.a[(size_t(row) * kCols + col) * 2] = uint8_t(bits);
      bufs.a[(size_t(row) * kCols + col) * 2 + 1] = uint8_t(bits >> 8);
    }
  bufs.c.assign(size_t(kCtas) * 32 * kernels::kTimingOutBytes + size_t(kCtas) * (kBlocks + 1) * 8, 0);
  model::SimOptions opt;
  opt.trace = false;
  REQUIRE(model::simulate(k, bufs, opt).completed);
  // Thread 0's value (field 2): the first word of stage 0, its last A box's first row: CTA c's A
  // panel starts at row 128 (c / 2), as a grid running row by row gives it.
  for (uint32_t cta = 0; cta < kCtas; ++cta) {
    uint64_t value = 0;
    std::memcpy(&value, bufs.c.data() + size_t(cta) * 32 * kernels::kTimingOutBytes + 16, 8);
    INFO("CTA " << cta);
    CHECK(std::bit_cast<float>(uint32_t(value & 0xFFFF) << 16) == float(128 * (cta / kTiles)));
  }
  const std::vector<uint64_t> rounds = probe_figures::stamped_round_times(bufs.c, kCtas, kBlocks);
  REQUIRE(rounds.size() == kCtas * kBlocks);
  CHECK(rounds.front() > 0);
  CHECK_THROWS(kernels::build_tma_gemm_wave_probe(2, 2, 4, 5));  // more CTAs than tiles
}

TEST_CASE("the GEMM-ring TMA probe: each CTA's ring brings its tile's panels, and a slower ring keeps its math waiting",
          "[model][timing]") {
  // A 2 x 2 grid of 128 x 128 tiles, 6 K blocks, as in the wave probe's test: A's rows 0..255,
  // B's 256..511, each element its row's number.
  constexpr uint32_t kTiles = 2, kBlocks = 6, kCtas = 4, kCols = kBlocks * 64;
  model::GemmBuffers bufs;
  bufs.a.resize(size_t(2 * kTiles) * 128 * kCols * 2);
  for (uint32_t row = 0; row < 2 * kTiles * 128; ++row)
    for (uint32_t col = 0; col < kCols; ++col) {
      const uint32_t bits = std::bit_cast<uint32_t>(float(row)) >> 16;
      bufs.a[(size_t(row) * kCols + col) * 2] = uint8_t(bits);
      bufs.a[(size_t(row) * kCols + col) * 2 + 1] = uint8_t(bits >> 8);
    }
  const size_t stamps_at = size_t(kCtas) * 32 * kernels::kTimingOutBytes, per_cta = 2 * kBlocks + 1;
  // Runs the probe; returns each CTA's stamps.
  const auto run = [&](uint32_t ring, uint32_t pace) {
    const ir::Kernel k = kernels::build_tma_gemm_ring_probe(kTiles, kTiles, kBlocks, kCtas, ring, pace);
    bufs.c.assign(stamps_at + kCtas * per_cta * 8, 0);
    model::SimOptions opt;
    opt.trace = false;
    REQUIRE(model::simulate(k, bufs, opt).completed);
    std::vector<std::vector<uint64_t>> out(kCtas, std::vector<uint64_t>(per_cta));
    for (uint32_t cta = 0; cta < kCtas; ++cta)
      std::memcpy(out[cta].data(), bufs.c.data() + stamps_at + cta * per_cta * 8, per_cta * 8);
    return out;
  };
  // Runs a form of the probe that must finish with no hazard (C: the records and stamps only).
  const auto run_clean = [&](const ir::Kernel& k) {
    bufs.c.assign(stamps_at + kCtas * per_cta * 8, 0);
    model::SimOptions opt;
    opt.trace = false;
    const model::SimResult r = model::simulate(k, bufs, opt);
    REQUIRE(r.completed);
    CHECK(r.hazards.empty());
  };
  // Thread 0's record's value (the last run's), and CTA `cta`'s stamps, checked to rise.
  const auto record_value = [&](uint32_t cta) {
    uint64_t value = 0;
    std::memcpy(&value, bufs.c.data() + size_t(cta) * 32 * kernels::kTimingOutBytes + 16, 8);
    return value;
  };
  const auto rising_stamps = [&](uint32_t cta) {
    std::vector<uint64_t> st(per_cta);
    std::memcpy(st.data(), bufs.c.data() + stamps_at + cta * per_cta * 8, per_cta * 8);
    for (size_t i = 1; i < per_cta; ++i) CHECK(st[i] >= st[i - 1]);
    return st;
  };
  const auto paced = run(2, 16), fast = run(2, 0);
  for (uint32_t cta = 0; cta < kCtas; ++cta) {
    INFO("CTA " << cta);
    // The stamps rise, block after block, and the math took its FMAs' time: 16 reps of 8
    // dependent FMAs at least 4 cycles each.
    for (size_t s = 1; s < per_cta; ++s) CHECK(paced[cta][s] >= paced[cta][s - 1]);
    for (uint32_t blk = 0; blk < kBlocks; ++blk) CHECK(paced[cta][2 * blk + 1] - paced[cta][2 * blk] >= 16 * 8 * 4);
    CHECK(fast[cta][per_cta - 1] - fast[cta][0] < paced[cta][per_cta - 1] - paced[cta][0]);
  }
  // The boxes: thread 0's value is the first word of stage 0 XOR the FMA chain's bits (1.0f with
  // no FMAs, 0x3F800000: its low half zero), so the value's low half is the bf16 of the first A
  // row stage 0 last held (block 4's A box): its tile row's first row, 128 (c / 2), as a grid
  // running row by row gives it (bufs.c holds the last run's, pace 0).
  for (uint32_t cta = 0; cta < kCtas; ++cta) {
    uint64_t value = 0;
    std::memcpy(&value, bufs.c.data() + size_t(cta) * 32 * kernels::kTimingOutBytes + 16, 8);
    INFO("CTA " << cta);
    CHECK(std::bit_cast<float>(uint32_t(value & 0xFFFF) << 16) == float(128 * (cta / kTiles)));
    // Its span's nanoseconds (%globaltimer), beside its cycles: the clock the figure row reads.
    uint64_t cycles = 0, ns = 0;
    std::memcpy(&cycles, bufs.c.data() + size_t(cta) * 32 * kernels::kTimingOutBytes, 8);
    std::memcpy(&ns, bufs.c.data() + size_t(cta) * 32 * kernels::kTimingOutBytes + 24, 8);
    CHECK(cycles > 0);
    CHECK(ns > 0);
  }
  // Heated: the same ring beside two warpgroups of wgmma; the ring's stamps and record as before
  // (its warp is the third warpgroup's first), the heaters' accumulator bits after the stamps.
  {
    const ir::Kernel k = kernels::build_tma_gemm_ring_probe(kTiles, kTiles, kBlocks, kCtas, 2, 0, {.heat_reps = 2});
    CHECK(k.launch.block[0] == 384);
    bufs.c.assign(stamps_at + kCtas * per_cta * 8 + kCtas * 256 * 4, 0);
    model::SimOptions opt;
    opt.trace = false;
    REQUIRE(model::simulate(k, bufs, opt).completed);
    for (uint32_t cta = 0; cta < kCtas; ++cta) {
      INFO("heated CTA " << cta);
      uint64_t value = 0, first = 0, last = 0;
      std::memcpy(&value, bufs.c.data() + size_t(cta) * 32 * kernels::kTimingOutBytes + 16, 8);
      CHECK(std::bit_cast<float>(uint32_t(value & 0xFFFF) << 16) == float(128 * (cta / kTiles)));
      std::memcpy(&first, bufs.c.data() + stamps_at + cta * per_cta * 8, 8);
      std::memcpy(&last, bufs.c.data() + stamps_at + (cta * per_cta + per_cta - 1) * 8, 8);
      CHECK(last > first);
      // Each heater thread's first accumulator: two rounds of sums of random bf16 products, not 0.
      uint32_t nonzero = 0;
      for (uint32_t t = 0; t < 256; ++t) {
        uint32_t bits = 0;
        std::memcpy(&bits, bufs.c.data() + stamps_at + kCtas * per_cta * 8 + (cta * 256 + t) * 4, 4);
        nonzero += bits != 0;
      }
      CHECK(nonzero == 256);
    }
  }
  // Split: step 13's roles (a producer thread, a consumer warpgroup giving each stage back through
  // its `empty` barrier). The same boxes land in the same order (the value as above) and the
  // stamps rise. With no math every block is latency-bound: a block issued once the consumers
  // gave its stage back (the producer woken by their arrivals) lands a TMA latency later and wakes
  // them, and two such trips cover two blocks, so a block's period is at least half of a TMA
  // latency and two wakes (mbarrier_wake).
  {
    const ir::Kernel k = kernels::build_tma_gemm_ring_probe(kTiles, kTiles, kBlocks, kCtas, 2, 0, {.split = true});
    CHECK(k.launch.block[0] == 256);
    run_clean(k);
    const model::timing::CtaFigures& f = model::timing::kH100Cta;
    for (uint32_t cta = 0; cta < kCtas; ++cta) {
      INFO("split CTA " << cta);
      CHECK(std::bit_cast<float>(uint32_t(record_value(cta) & 0xFFFF) << 16) == float(128 * (cta / kTiles)));
      const std::vector<uint64_t> st = rising_stamps(cta);
      const double period = double(st[2 * (kBlocks - 1)] - st[2 * 2]) / (kBlocks - 3);
      CHECK(period >= (f.tma_latency + 2.0 * f.mbarrier_wake) / 2);
    }
  }
  // Paced by wgmma (RingProbeForm::wgmma_pace): the split roles with step 13's eight wgmma
  // m64n128k16 on each landed stage. Element (r, k) is r, so thread 0's first accumulators are
  // D[0][0] = sum of A row a_row times B row b_row and D[64][0] = the same with A row a_row + 64,
  // 64 K a block over 6 blocks, exact; the record keeps their sum's bits XOR stage 0's first word
  // (two bf16 of the A row it last held), and the K period holds the wgmmas' time.
  {
    const ir::Kernel k =
        kernels::build_tma_gemm_ring_probe(kTiles, kTiles, kBlocks, kCtas, 3, 1, {.split = true, .wgmma_pace = true});
    CHECK(k.name.find("_split_wgmma") != std::string::npos);
    run_clean(k);
    for (uint32_t cta = 0; cta < kCtas; ++cta) {
      INFO("wgmma-paced CTA " << cta);
      const uint64_t value = record_value(cta);
      const double a_row = 128.0 * (cta / kTiles), b_row = 256.0 + 128.0 * (cta % kTiles);
      const float sum = float(kBlocks * 64 * (a_row * b_row + (a_row + 64) * b_row));
      const uint32_t sum_bits = std::bit_cast<uint32_t>(sum), row_bf16 = std::bit_cast<uint32_t>(float(a_row)) >> 16;
      REQUIRE((sum_bits & 0xFFFF) == 0);  // the sums' low half is zero: the record's low half is the row's bf16
      CHECK((value & 0xFFFF) == row_bf16);
      CHECK(((value >> 16) & 0xFFFF) == (row_bf16 ^ (sum_bits >> 16)));
      const std::vector<uint64_t> st = rising_stamps(cta);
      for (uint32_t blk = 0; blk < kBlocks; ++blk) CHECK(st[2 * blk + 1] > st[2 * blk]);  // the wgmmas took time
    }
    CHECK_THROWS_WITH(kernels::build_tma_gemm_ring_probe(kTiles, kTiles, kBlocks, kCtas, 3, 1, {.wgmma_pace = true}),
                      Catch::Contains("split form"));
  }
  // In CTA pairs (RingProbeForm::pair): cluster p's rank r computes tile (2 (p / 2) + r, p % 2) of the
  // 2 x 2 grid, so CTA c reads A's row 128 (c % 2) and B's row 256 + 128 (c / 2): the two CTAs of a
  // cluster share B's rows. Each form runs clean (coupled: every stage released in both CTAs before
  // either refills it; multicast: each CTA's half of B's box lands in both) with the same sums as
  // above at its own rows, and the forms' launches are clusters of two.
  for (const auto pair : {kernels::RingProbeForm::Pair::alone, kernels::RingProbeForm::Pair::coupled,
                          kernels::RingProbeForm::Pair::multicast}) {
    const kernels::RingProbeForm form{.split = true, .wgmma_pace = true, .pair = pair};
    const ir::Kernel k = kernels::build_tma_gemm_ring_probe(kTiles, kTiles, kBlocks, kCtas, 3, 1, form);
    INFO(k.name);
    CHECK(k.launch.cluster[0] == 2);
    CHECK(k.name.find("_pair_") != std::string::npos);
    run_clean(k);
    for (uint32_t cta = 0; cta < kCtas; ++cta) {
      INFO("paired CTA " << cta);
      const uint64_t value = record_value(cta);
      const double a_row = 128.0 * (cta % 2), b_row = 256.0 + 128.0 * (cta / 2);
      const float sum = float(kBlocks * 64 * (a_row * b_row + (a_row + 64) * b_row));
      const uint32_t sum_bits = std::bit_cast<uint32_t>(sum), row_bf16 = std::bit_cast<uint32_t>(float(a_row)) >> 16;
      REQUIRE((sum_bits & 0xFFFF) == 0);
      CHECK((value & 0xFFFF) == row_bf16);
      CHECK(((value >> 16) & 0xFFFF) == (row_bf16 ^ (sum_bits >> 16)));
      rising_stamps(cta);
    }
  }
  CHECK_THROWS_WITH(kernels::build_tma_gemm_ring_probe(kTiles, kTiles, kBlocks, kCtas, 3, 1,
                                                       {.split = true, .pair = kernels::RingProbeForm::Pair::coupled}),
                    Catch::Contains("paced by wgmma"));
  CHECK_THROWS_WITH(kernels::build_tma_gemm_ring_probe(kTiles, kTiles, kBlocks, 3, 3, 1,
                                                       {.split = true, .wgmma_pace = true,
                                                        .pair = kernels::RingProbeForm::Pair::alone}),
                    Catch::Contains("3 CTAs"));
  // 128 x 256 tiles (RingProbeForm::tile_n, steps 14-16's): a K block is A's box and B's 256 rows
  // as two boxes of 128 (48 KiB on one barrier). On a 2 x 1 grid of such tiles (A's rows 0..255,
  // B's 256..511, the buffer above), CTA 1 (traced) brings rows 128.., 256.. and 384.. of every K
  // block, and its record's value holds its A row, 128, as above.
  {
    const ir::Kernel k = kernels::build_tma_gemm_ring_probe(2, 1, kBlocks, 2, 3, 0, {.tile_n = 256});
    CHECK(k.name.find("_n256") != std::string::npos);
    bufs.c.assign(stamps_at + kCtas * per_cta * 8, 0);
    model::SimOptions opt;
    opt.traced_cta = {1, 0, 0};
    const model::SimResult r = model::simulate(k, bufs, opt);
    REQUIRE(r.completed);
    CHECK(r.hazards.empty());
    std::vector<std::pair<int32_t, int32_t>> boxes;  // (K column, row) of each load, in issue order
    for (const model::TmaTransfer& t : r.trace.tma) {
      CHECK(t.bytes == 128 * 64 * 2);
      boxes.emplace_back(t.coords[0], t.coords[1]);
    }
    REQUIRE(boxes.size() == 3 * kBlocks);
    for (uint32_t blk = 0; blk < kBlocks; ++blk) {
      INFO("K block " << blk);
      for (uint32_t i = 0; i < 3; ++i) CHECK(boxes[3 * blk + i].first == int32_t(64 * blk));
      CHECK(boxes[3 * blk].second == 128);
      CHECK(boxes[3 * blk + 1].second == 256);
      CHECK(boxes[3 * blk + 2].second == 384);
    }
    CHECK(std::bit_cast<float>(uint32_t(record_value(1) & 0xFFFF) << 16) == 128.0f);
    CHECK_THROWS_WITH(kernels::build_tma_gemm_ring_probe(2, 1, kBlocks, 2, 5, 0, {.tile_n = 256}),
                      Catch::Contains("2..4 stages"));
    CHECK_THROWS_WITH(kernels::build_tma_gemm_ring_probe(2, 1, kBlocks, 2, 3, 0, {.split = true, .tile_n = 256}),
                      Catch::Contains("plain one-thread ring"));
    CHECK_THROWS_WITH(kernels::build_tma_gemm_ring_probe(2, 2, kBlocks, 2, 3, 0, {.tile_n = 192}),
                      Catch::Contains("128 or 256 columns (got 192)"));
  }
  // C tile: after its ring each CTA stores its 128 x 128 f32 tile of C, lane l's 16 bytes of each
  // row its FMA chain's value (no FMAs: lane + 1), in the tile's place of the 256 x 256 C after
  // the stamps; the four CTAs cover C.
  {
    const ir::Kernel k = kernels::build_tma_gemm_ring_probe(kTiles, kTiles, kBlocks, kCtas, 2, 0, {.c_tile = true});
    const uint32_t cols = kTiles * 128;
    const size_t tile_at = stamps_at + kCtas * per_cta * 8;
    bufs.c.assign(tile_at + size_t(cols) * cols * 4, 0xEE);
    model::SimOptions opt;
    opt.trace = false;
    const model::SimResult r = model::simulate(k, bufs, opt);
    REQUIRE(r.completed);
    CHECK(r.hazards.empty());
    uint32_t wrong = 0;
    for (uint32_t row = 0; row < cols; ++row)
      for (uint32_t col = 0; col < cols; ++col) {
        float v = 0;
        std::memcpy(&v, bufs.c.data() + tile_at + (size_t(row) * cols + col) * 4, 4);
        wrong += v != float((col % 128) / 4 + 1);
      }
    CHECK(wrong == 0);
  }
  // Uneven: CTA c runs 20 + (c·37 mod 5 − 2)·2 reps a block (c = 0..3: 16, 20, 24, 18), so its
  // FMAs take that many reps of 8 dependent FMAs: at least 4 cycles each, under twice that.
  {
    const ir::Kernel k = kernels::build_tma_gemm_ring_probe(kTiles, kTiles, kBlocks, kCtas, 2, 20, {.uneven = true});
    bufs.c.assign(stamps_at + kCtas * per_cta * 8, 0);
    model::SimOptions opt;
    opt.trace = false;
    REQUIRE(model::simulate(k, bufs, opt).completed);
    const uint32_t reps[kCtas] = {16, 20, 24, 18};
    for (uint32_t cta = 0; cta < kCtas; ++cta) {
      INFO("uneven CTA " << cta);
      std::vector<uint64_t> st(per_cta);
      std::memcpy(st.data(), bufs.c.data() + stamps_at + cta * per_cta * 8, per_cta * 8);
      for (uint32_t blk = 0; blk < kBlocks; ++blk) {
        const uint64_t fmas = st[2 * blk + 1] - st[2 * blk];
        CHECK(fmas >= reps[cta] * 8 * 4);
        CHECK(fmas < reps[cta] * 8 * 4 * 2);
      }
    }
  }
  // Jitter: each block's FMAs 16..24 reps (80-120% of 20), not all alike in a CTA, and the hash's
  // pick for CTA c and block k (the kernel's own arithmetic, u32) decides which.
  {
    const ir::Kernel k = kernels::build_tma_gemm_ring_probe(kTiles, kTiles, kBlocks, kCtas, 2, 20, {.jitter = true});
    bufs.c.assign(stamps_at + kCtas * per_cta * 8, 0);
    model::SimOptions opt;
    opt.trace = false;
    REQUIRE(model::simulate(k, bufs, opt).completed);
    uint32_t distinct = 0;
    for (uint32_t cta = 0; cta < kCtas; ++cta) {
      INFO("jittered CTA " << cta);
      std::vector<uint64_t> st(per_cta);
      std::memcpy(st.data(), bufs.c.data() + stamps_at + cta * per_cta * 8, per_cta * 8);
      std::vector<uint32_t> reps;
      for (uint32_t blk = 0; blk < kBlocks; ++blk) {
        const uint32_t r = 16 + ((cta * 0x9E3779B1u + blk * 0x85EBCA6Bu) >> 27) % 5 * 2;
        const uint64_t fmas = st[2 * blk + 1] - st[2 * blk];
        CHECK(fmas >= r * 8 * 4);
        CHECK(fmas < r * 8 * 4 * 2);
        reps.push_back(r);
      }
      std::sort(reps.begin(), reps.end());
      distinct += uint32_t(std::unique(reps.begin(), reps.end()) - reps.begin());
    }
    CHECK(distinct > kCtas);  // some CTA's blocks differ
  }
  // Drift: CTA c runs (c·37 mod 5)·8 + 1 dependent FMAs more a block, 4 cycles each at least: CTA 2
  // (74 mod 5 = 4: 33 more) takes at least 32 FMAs' latency longer a block than CTA 0 (1 more).
  {
    const ir::Kernel k = kernels::build_tma_gemm_ring_probe(kTiles, kTiles, kBlocks, kCtas, 2, 20, {.drift_fmas = 8});
    bufs.c.assign(stamps_at + kCtas * per_cta * 8, 0);
    model::SimOptions opt;
    opt.trace = false;
    REQUIRE(model::simulate(k, bufs, opt).completed);
    const auto math = [&](uint32_t cta, uint32_t blk) {
      uint64_t a = 0, e = 0;
      std::memcpy(&a, bufs.c.data() + stamps_at + (cta * per_cta + 2 * blk) * 8, 8);
      std::memcpy(&e, bufs.c.data() + stamps_at + (cta * per_cta + 2 * blk + 1) * 8, 8);
      return e - a;
    };
    for (uint32_t blk = 0; blk < kBlocks; ++blk) {
      INFO("block " << blk);
      CHECK(math(2, blk) >= math(0, blk) + 32 * 4);
      CHECK(math(0, blk) >= (20 * 8 + 1) * 4);
    }
  }
  CHECK_THROWS(kernels::build_tma_gemm_ring_probe(2, 2, 12, 4, 2, 0, {.jitter = true, .drift_fmas = 1}));
  CHECK_THROWS(kernels::build_tma_gemm_ring_probe(2, 2, 12, 4, 2, 0, {.uneven = true, .jitter = true}));
  CHECK_THROWS(kernels::build_tma_gemm_ring_probe(2, 2, 12, 4, 2, 0, {.split = true, .uneven = true}));
  CHECK_THROWS(kernels::build_tma_gemm_ring_probe(2, 2, 12, 4, 2, 0, {.heat_reps = 1, .split = true}));  // one form
  CHECK_THROWS(kernels::build_tma_gemm_ring_probe(2, 2, 12, 4, 2, 0, {.split = true, .c_tile = true}));
  CHECK_THROWS(kernels::build_tma_gemm_ring_probe(2, 2, 12, 4, 6, 0, {.heat_reps = 1}));  // heated rings stop at 5
  CHECK_THROWS(kernels::build_tma_gemm_ring_probe(2, 2, 6, 4, 4, 0));  // 6 K blocks: not a multiple of 4
  CHECK_THROWS(kernels::build_tma_gemm_ring_probe(2, 2, 6, 5, 3, 0));  // more CTAs than tiles
  CHECK_THROWS(kernels::build_tma_gemm_ring_probe(2, 2, 14, 4, 7, 0));  // a ring past 6
}
