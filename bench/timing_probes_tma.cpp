// The stamped TMA probes (kernels::build_tma_probe's stamp_rounds, build_tma_gemm_wave_probe):
// every CTA's thread 0 stamps each round, and a row gives a percentile or the mean of all CTAs'
// rounds. Added to gemmscope_timing_probes' list by add_stamped_tma_probes.
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/probe_figures.hpp"
#include "bench/probe_list.hpp"
#include "kernels/timing_probes.hpp"

namespace gs::probe_list {

namespace {

using probe_figures::sorted_percentile;
using probe_figures::stamped_round_times;

// A stamped probe's figure (kernels::build_tma_probe's stamp_rounds): the share-th percentile of
// every CTA's rounds, or their mean for a negative share.
std::function<double(const std::vector<uint8_t>&, double)> stamped_figure(uint32_t ctas, uint32_t rounds,
                                                                          double share) {
  return [ctas, rounds, share](const std::vector<uint8_t>& c, double) {
    const std::vector<uint64_t> t = stamped_round_times(c, ctas, rounds);
    if (share >= 0) return sorted_percentile(t, share);
    double sum = 0;
    for (const uint64_t v : t) sum += double(v);
    return t.empty() ? 0.0 : sum / double(t.size());
  };
}

// The ring probe's stamps (kernels::build_tma_gemm_ring_probe): what each block past the ring's
// first fill kept its "math" waiting (stamp 2k less stamp 2k - 1), sorted.
std::vector<uint64_t> ring_waits(const std::vector<uint8_t>& c, uint32_t ctas, uint32_t k_blocks, uint32_t ring) {
  std::vector<uint64_t> out;
  const size_t base = size_t(ctas) * 32 * kernels::kTimingOutBytes, per_cta = 2 * size_t(k_blocks) + 1;
  if (c.size() < base + size_t(ctas) * per_cta * 8) return out;
  const auto at = [&](uint32_t cta, size_t slot) {
    uint64_t t = 0;
    std::memcpy(&t, c.data() + base + (size_t(cta) * per_cta + slot) * 8, 8);
    return t;
  };
  for (uint32_t cta = 0; cta < ctas; ++cta)
    for (uint32_t k = ring; k < k_blocks; ++k) out.push_back(at(cta, 2 * size_t(k)) - at(cta, 2 * size_t(k) - 1));
  std::sort(out.begin(), out.end());
  return out;
}

// Its K period: the mean over CTAs of (stamp of the last block's landing less that of block
// `ring`'s) over the blocks between: a block's math plus its wait, the fill left out.
double ring_period(const std::vector<uint8_t>& c, uint32_t ctas, uint32_t k_blocks, uint32_t ring) {
  const size_t base = size_t(ctas) * 32 * kernels::kTimingOutBytes, per_cta = 2 * size_t(k_blocks) + 1;
  if (c.size() < base + size_t(ctas) * per_cta * 8 || k_blocks <= ring + 1) return 0.0;
  double sum = 0;
  for (uint32_t cta = 0; cta < ctas; ++cta) {
    uint64_t first = 0, last = 0;
    std::memcpy(&first, c.data() + base + (size_t(cta) * per_cta + 2 * size_t(ring)) * 8, 8);
    std::memcpy(&last, c.data() + base + (size_t(cta) * per_cta + 2 * size_t(k_blocks - 1)) * 8, 8);
    sum += double(last - first) / double(k_blocks - 1 - ring);
  }
  return sum / ctas;
}

// The mean over CTAs of thread 0's cycles over its %globaltimer nanoseconds (record fields 0
// and 3), in MHz.
double ring_clock_mhz(const std::vector<uint8_t>& c, uint32_t ctas) {
  double sum = 0;
  uint32_t n = 0;
  for (uint32_t cta = 0; cta < ctas; ++cta) {
    uint64_t cycles = 0, ns = 0;
    const size_t at = size_t(cta) * 32 * kernels::kTimingOutBytes;
    if (c.size() < at + 32) break;
    std::memcpy(&cycles, c.data() + at, 8);
    std::memcpy(&ns, c.data() + at + 24, 8);
    if (ns == 0) continue;
    sum += 1000.0 * double(cycles) / double(ns);
    ++n;
  }
  return n ? sum / n : 0.0;
}

}  // namespace

void add_stamped_tma_probes(std::vector<Probe>& probes, uint32_t q, bool quick) {
  // The spread of the loaded latency: every CTA's thread 0 stamps each round (a 32-KiB box, one
  // in flight), and the rows give p50 / p90 / p99 / the mean of all CTAs' rounds. A ring of S
  // stages covers a box's latency with S - 1 stages of its consumer's time, its tail included
  // (docs/results/2026-12-04-model-speed-3: step 13's 3-stage ring covers even the p99 of boxes
  // shared as its panels are, so the tail is not what it loses to).
  // With `readers` CTAs reading each box together (consecutive CTAs, as a GEMM's CTAs share
  // its A and B panels: step 13's 128 x 128 tiles at 4096^3 read each panel from 32 CTAs).
  struct SpreadRow {
    uint32_t ctas;
    bool hbm;
    uint32_t readers;
  };
  for (const SpreadRow& row : {SpreadRow{132, false, 1}, SpreadRow{264, false, 1}, SpreadRow{132, true, 1},
                               SpreadRow{264, false, 32}, SpreadRow{528, false, 32}})
    for (const double share : {0.5, 0.9, 0.99, -1.0}) {
      const uint32_t rounds = 256 / q, ctas = row.ctas;
      const bool hbm = row.hbm;
      Probe p{fmt::format("tma_latency_32k_spread{}{}{}_{}", ctas, hbm ? "_hbm" : "",
                          row.readers > 1 ? fmt::format("_share{}", row.readers) : std::string(),
                          share < 0 ? std::string("mean") : fmt::format("p{}", int(share * 100 + 0.5))),
              fmt::format("TMA 32-KiB box, one in flight in each of {} CTAs{}, {} footprint: {} of every CTA's rounds "
                          "(issue to land, each round stamped)",
                          ctas, row.readers > 1 ? fmt::format(", {} CTAs reading each box together", row.readers) : "",
                          hbm ? "1-GiB (HBM)" : "8-MiB (L2)",
                          share < 0 ? std::string("the mean") : fmt::format("the {:.0f}th percentile", share * 100)),
              "cycles",
              kernels::build_tma_probe(ctas, 1, rounds, 256, quick ? 256 : (hbm ? 32768 : 256), row.readers, true),
              {}, nullptr, false};
      p.a_bytes = size_t(quick ? 256 : (hbm ? 32768 : 256)) * 256 * 128;
      p.a_value = 1;
      p.buffers.c.assign(size_t(ctas) * 32 * kernels::kTimingOutBytes + size_t(ctas) * (rounds + 1) * 8, 0);
      p.figure = stamped_figure(ctas, rounds, share);
      probes.push_back(std::move(p));
    }
  // A GEMM wave's boxes as step 13 reads them (kernels::build_tma_gemm_wave_probe): the first
  // wave's 132 CTAs of its 4096^3 and 8192^3 grids of 128 x 128 tiles, each loading its A and B
  // box of every K block, stamped: the latency its ring must cover, without the math.
  for (const uint32_t size : {4096u, 8192u})
    for (const double share : {0.5, 0.9, 0.99, -1.0}) {
      const uint32_t tiles = size / 128, k_blocks = quick ? 4 : size / 64, ctas = 132;
      Probe p{fmt::format("tma_gemm_wave{}_{}", size,
                          share < 0 ? std::string("mean") : fmt::format("p{}", int(share * 100 + 0.5))),
              fmt::format("step 13's first wave at {}^3 without its math: 132 CTAs each loading its A and B box "
                          "(128 x 64 bf16) of every K block in turn: {} of every CTA's K blocks (issue to land)",
                          size, share < 0 ? std::string("the mean") : fmt::format("the {:.0f}th percentile", share * 100)),
              "cycles", kernels::build_tma_gemm_wave_probe(tiles, tiles, k_blocks, ctas), {}, nullptr, false};
      p.a_bytes = size_t(2 * tiles) * 128 * k_blocks * 64 * 2;
      p.a_value = 1;
      p.buffers.c.assign(size_t(ctas) * 32 * kernels::kTimingOutBytes + size_t(ctas) * (k_blocks + 1) * 8, 0);
      p.figure = stamped_figure(ctas, k_blocks, share);
      probes.push_back(std::move(p));
    }
  // A GEMM's ring without its math (kernels::build_tma_gemm_ring_probe): each CTA keeps `ring`
  // K blocks (A and B box, 32 KiB) in flight and spends pace_reps x 8 dependent FMAs (about
  // 32 cycles a rep) on each block in place of the tensor cores, as step 13's consumers spend
  // about 850 cycles a block at 4096^3 (docs/results/2026-12-04-model-speed-3). The rows: what a
  // block kept the math waiting (mean and p90 over every CTA's blocks past the first fill) and the
  // K period, for the first wave of the 8192^3 grid (132 CTAs, the L2 load of a GEMM's wave at
  // that pace) and over the whole grid (4096 CTAs: what the later waves find in L2).
  // Heated rows (`_heat`): the same ring beside two warpgroups of wgmma on random data, so the
  // SMs run at the clock a GEMM holds: the same latencies in cycles of a lower clock.
  // Split rows (`_split`): step 13's roles, a producer thread and a consumer warpgroup that gives
  // each stage back through an `empty` mbarrier, so a refill also waits for that hand-off.
  // C-tile rows (`_ctile`, whole grid): each CTA then stores its 64-KiB f32 tile of C as step 13's
  // epilogue does, so the grid's L2 holds C's lines beside the panels (Nsight Compute's HBM bytes
  // of these against the plain grid rows: does a deeper ring read more from HBM with them?).
  struct RingRow {
    uint32_t size, ctas, ring, pace, heat = 0;
    bool split = false, c_tile = false, uneven = false, jitter = false;
    uint32_t drift = 0;
    bool wgmma = false;  // split, paced by step 13's eight wgmma a block (RingProbeForm::wgmma_pace)
    uint32_t tile_n = 128;  // 256: steps 14-16's 128 x 256 tiles, 48 KiB a K block (RingProbeForm::tile_n)
    kernels::RingProbeForm::Pair pair = kernels::RingProbeForm::Pair::none;  // wgmma-paced, in CTA pairs
  };
  std::vector<RingRow> ring_rows;
  for (const uint32_t pace : {12u, 20u, 28u})
    for (const uint32_t ring : {2u, 3u, 4u, 5u, 6u}) ring_rows.push_back({8192, 132, ring, pace});
  // Pace 1 (8 FMAs, about 32 cycles beside the loop's ~187): no math to cover, so each SM keeps
  // `ring` K blocks in flight and takes each as it lands; ring x the K period is then a box
  // pair's latency with that many in flight an SM. The curve of latency against the load that a
  // ring of each depth must cover, of which pace 12's rings give two points (1 and 2 blocks in
  // flight: docs/results/2026-12-04-launch, last section), where the model's box latency is one
  // figure in cycles.
  for (const uint32_t ring : {2u, 3u, 4u, 5u, 6u}) ring_rows.push_back({8192, 132, ring, 1});
  // The same curve where the wave reads less from HBM (4096^3's first wave: 5 A and 32 B panels
  // against 8192^3's 3 and 64) and for steps 14-16's 128 x 256 tiles (`_n256`: 48 KiB a K block,
  // rings of 2-4), at both sizes: how a box pair's latency under load depends on the wave's HBM
  // share and on the bytes a K block brings (docs/results/2026-12-05-device: the rule tried by
  // bytes in flight sank steps 14-16).
  for (const uint32_t ring : {2u, 3u, 4u, 5u, 6u}) ring_rows.push_back({4096, 132, ring, 1});
  for (const uint32_t size : {8192u, 4096u})
    for (const uint32_t ring : {2u, 3u, 4u}) ring_rows.push_back({.size = size, .ctas = 132, .ring = ring, .pace = 1, .tile_n = 256});
  // And at a pace near those steps' math a K block (26 reps: about 210 + 32 x 26 = 1040 cycles,
  // where a 128 x 256 x 64 block of wgmma takes 1024 at the tensor cores' rate): the wait the
  // ring leaves when the SM asks for its bytes at their rate.
  for (const uint32_t ring : {2u, 3u, 4u}) ring_rows.push_back({.size = 8192, .ctas = 132, .ring = ring, .pace = 26, .tile_n = 256});
  for (const uint32_t ring : {2u, 3u, 4u, 6u}) ring_rows.push_back({4096, 132, ring, 28});
  for (const uint32_t ring : {3u, 4u, 6u}) ring_rows.push_back({8192, quick ? 264u : 4096u, ring, 28});
  for (const uint32_t ring : {2u, 3u, 4u, 5u}) ring_rows.push_back({8192, 132, ring, 20, quick ? 4u : 200u});
  for (const uint32_t pace : {20u, 28u})
    for (const uint32_t ring : {2u, 3u, 4u, 5u, 6u}) ring_rows.push_back({8192, 132, ring, pace, 0, true});
  for (const uint32_t ring : {3u, 4u, 6u}) ring_rows.push_back({8192, quick ? 264u : 4096u, ring, 20, 0, false, true});
  for (const uint32_t ring : {3u, 4u, 6u}) ring_rows.push_back({8192, quick ? 264u : 4096u, ring, 20});
  // Uneven rows (`_uneven`, whole grid): each CTA's pace 80-120% of the others' (RingProbeForm::uneven),
  // so the CTAs that share a panel drift apart in K as a GEMM's do.
  for (const uint32_t ring : {3u, 4u, 6u})
    ring_rows.push_back({8192, quick ? 264u : 4096u, ring, 20, 0, false, false, true});
  // Jittered rows (`_jitter`, whole grid): each K block's pace 80-120% by a hash of CTA and block,
  // every CTA's mean the same (RingProbeForm::jitter): a GEMM's CTAs' drift, a random walk.
  for (const uint32_t ring : {3u, 4u, 6u})
    ring_rows.push_back({8192, quick ? 264u : 4096u, ring, 20, 0, false, false, false, true});
  // Drift rows (`_drift{k}`, whole grid): CTA c runs (c·37 mod 5)·k + 1 FMAs more a block than the
  // pace's 160 (RingProbeForm::drift_fmas): a lasting spread of about 0-2.5k% between CTAs.
  for (const uint32_t k : {1u, 2u, 4u})
    for (const uint32_t ring : {3u, 4u, 6u})
      ring_rows.push_back({8192, quick ? 264u : 4096u, ring, 20, 0, false, false, false, false, k});
  // Heated grid rows (`_grid_heat`): the whole grid at an even pace, each CTA beside two
  // warpgroups of wgmma (80 rounds, about 80k cycles, most of the ring's ~100k), so the card runs
  // at a GEMM's power and clock as step 13 does, where the plain grid rows keep 1.98 GHz and read
  // 4.09 GB at every depth (docs/results/2026-12-04-grid call 3): does the drift come with them?
  for (const uint32_t ring : {3u, 4u, 5u})
    ring_rows.push_back({8192, quick ? 264u : 4096u, ring, 20, quick ? 4u : 80u});
  // wgmma-paced grid rows (`_grid_split_wgmma`, pace 1): step 13's roles and its math, eight
  // wgmma m64n128k16 on each landed stage, without its epilogue: the tensor cores as the pace.
  // The same over the first wave alone (`_split_wgmma` without `_grid`: 132 CTAs, no later waves to
  // drift apart): what each depth costs by the loads' latency alone.
  for (const uint32_t ring : {2u, 3u, 4u, 5u, 6u}) {
    const RingRow grid{
        .size = 8192, .ctas = quick ? 264u : 4096u, .ring = ring, .pace = 1, .split = true, .wgmma = true};
    if (ring != 2) ring_rows.push_back(grid);
    RingRow wave = grid;
    wave.ctas = 132;
    ring_rows.push_back(wave);
  }
  // The wgmma-paced first wave in clusters of two (`_pair_*`, RingProbeForm::pair), a pair's tiles
  // one above the other as steps 17-19 lay them: each CTA releasing its own stages (alone); each
  // consumer warp releasing the stage in both CTAs, so the pair goes at its slower CTA's pace
  // (coupled); and that with B's box multicast in halves (multicast). Their K periods against one
  // another and the split row above: what the pairing itself costs a K block, and what multicast
  // adds or saves (latency, the clock: the SM clock figure of each).
  for (const uint32_t ring : {3u, 4u})
    for (const auto pair : {kernels::RingProbeForm::Pair::alone, kernels::RingProbeForm::Pair::coupled,
                            kernels::RingProbeForm::Pair::multicast})
      ring_rows.push_back({.size = 8192, .ctas = 132, .ring = ring, .pace = 1, .split = true, .wgmma = true, .pair = pair});
  for (const RingRow& row : ring_rows)
    for (const int what : {0, 1, 2, 3}) {  // wait mean, wait p90, K period, SM clock
      const uint32_t tiles = row.size / 128, tiles_n = row.size / row.tile_n, k_blocks = quick ? 60 : 120,
                     ctas = row.ctas, ring = row.ring;
      const bool paired = row.pair != kernels::RingProbeForm::Pair::none;
      if (what == 3 && !(row.size == 8192 && ctas == 132 && (row.pace == 20 || paired))) continue;  // one clock row a ring
      const char* names[] = {"wait_mean", "wait_p90", "period", "clock"};
      Probe p{fmt::format("tma_gemm_ring{}{}{}{}{}{}{}_s{}_pace{}_{}", row.size, row.tile_n == 256 ? "_n256" : "",
                          ctas > 132 ? "_grid" : "",
                          row.heat ? "_heat" : "", row.split ? (row.wgmma ? "_split_wgmma" : "_split") : "",
                          row.c_tile ? "_ctile" : "",
                          paired       ? std::string(kernels::ring_pair_suffix(row.pair))
                          : row.uneven ? std::string("_uneven")
                          : row.jitter ? std::string("_jitter")
                          : row.drift  ? fmt::format("_drift{}", row.drift)
                                       : std::string(),
                          ring, row.pace, names[what]),
              fmt::format("{} {} at {}^3 (K of {}){}: {} stages of a K block's A and B {} in flight, {}: {}",
                          row.tile_n == 256 ? "steps 14-16's 128 x 256 tiles'" : "step 13's",
                          ctas > 132  ? fmt::format("grid of {} CTAs{}", ctas,
                                                    row.wgmma    ? ", step 13's roles and wgmmas (no epilogue)"
                                                    : row.heat   ? ", each beside two warpgroups of wgmma"
                                                    : row.c_tile ? ", each then storing its 64-KiB f32 tile of C"
                                                    : row.uneven ? ", each at its own pace (80-120%)"
                                                    : row.jitter ? ", each block's pace 80-120% at random"
                                                    : row.drift  ? ", each a few FMAs a block slower than the last"
                                                                 : "")
                          : row.heat ? std::string("first wave beside two warpgroups of wgmma (a GEMM's clock)")
                          : paired ? fmt::format("first wave in CTA pairs sharing B's rows ({}), a producer thread and "
                                                 "a consumer warpgroup each",
                                                 row.pair == kernels::RingProbeForm::Pair::alone ? "each CTA releasing its own stages"
                                                 : row.pair == kernels::RingProbeForm::Pair::coupled
                                                     ? "each stage released in both CTAs"
                                                     : "each stage released in both, B's box multicast in halves")
                          : row.split ? std::string("first wave, a producer thread and a consumer warpgroup")
                                      : std::string("first wave"),
                          row.size, k_blocks * 64, row.wgmma ? "" : " without its math", ring,
                          row.tile_n == 256 ? "boxes (16 + 32 KiB)" : "box",
                          row.wgmma ? fmt::format("{} x its eight wgmma m64n128k16 a block", row.pace)
                                    : fmt::format("{} x 8 dependent FMAs a block in its place", row.pace),
                          what == 0   ? "the mean of what each block kept the FMAs waiting (past the first fill)"
                          : what == 1 ? "the 90th percentile of that wait"
                          : what == 2 ? "the K period (a block's FMAs and its wait)"
                                      : "the SM clock over thread 0's span (cycles / %globaltimer ns, mean of the CTAs)"),
              what == 3 ? "MHz" : "cycles",
              kernels::build_tma_gemm_ring_probe(tiles, tiles_n, k_blocks, ctas, ring, row.pace,
                                                 {.heat_reps = row.heat, .split = row.split, .c_tile = row.c_tile,
                                                  .uneven = row.uneven, .jitter = row.jitter,
                                                  .drift_fmas = row.drift, .wgmma_pace = row.wgmma, .tile_n = row.tile_n,
                                                  .pair = row.pair}),
              {}, nullptr,
              false};
      p.a_bytes = size_t(2 * tiles) * 128 * k_blocks * 64 * 2;
      p.a_value = 1;
      const size_t c_bytes = size_t(ctas) * 32 * kernels::kTimingOutBytes + size_t(ctas) * (2 * k_blocks + 1) * 8 +
                             (row.heat ? size_t(ctas) * 256 * 4 : 0) +
                             (row.c_tile ? size_t(tiles) * 128 * tiles * 128 * 4 : 0);
      p.c_bytes = c_bytes;  // made when it runs (Probe::c_bytes): 8-268 MB a row
      p.figure = [ctas, k_blocks, ring, what](const std::vector<uint8_t>& c, double) {
        if (what == 2) return ring_period(c, ctas, k_blocks, ring);
        if (what == 3) return ring_clock_mhz(c, ctas);
        const std::vector<uint64_t> w = ring_waits(c, ctas, k_blocks, ring);
        if (what == 1) return sorted_percentile(w, 0.9);
        double sum = 0;
        for (const uint64_t v : w) sum += double(v);
        return w.empty() ? 0.0 : sum / double(w.size());
      };
      probes.push_back(std::move(p));
    }
}

}  // namespace gs::probe_list
