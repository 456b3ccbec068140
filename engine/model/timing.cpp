#include "engine/model/timing.hpp"
#include "engine/model/machine_ceilings.hpp"
#include "engine/ir/kernel.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace gs::model::timing {

uint32_t ctas_by_registers(const MachineDesc& m, uint32_t threads, uint32_t registers_per_thread) {
  const uint32_t slots = uint32_t(m.max_ctas_per_sm.value);
  if (registers_per_thread == 0 || threads == 0) return slots;
  const uint32_t unit = uint32_t(m.register_allocation_unit.value);
  const uint32_t per_thread = std::min(registers_per_thread, uint32_t(m.max_registers_per_thread.value));
  const uint32_t per_warp = (per_thread * 32 + unit - 1) / unit * unit;
  const uint32_t warps = (threads + 31) / 32;
  return std::min(slots, uint32_t(m.registers_per_sm.value) / (per_warp * warps));
}

CtaLimit cta_limit(const MachineDesc& m, uint32_t threads, uint32_t smem_bytes, uint32_t registers_per_thread) {
  CtaLimit least{uint32_t(m.max_ctas_per_sm.value), "CTA slots"};
  const auto fewer = [&](uint32_t ctas, const char* resource) {
    if (ctas < least.ctas) least = {ctas, resource};
  };
  if (threads > 0) fewer(uint32_t(m.max_threads_per_sm.value) / threads, "threads");
  fewer(uint32_t(m.smem_bytes_per_sm.value) / (smem_bytes + uint32_t(m.smem_reserved_per_cta.value)), "shared memory");
  fewer(ctas_by_registers(m, threads, registers_per_thread), "registers");
  least.ctas = std::max<uint32_t>(least.ctas, 1);
  return least;
}

uint32_t ctas_per_sm(const MachineDesc& m, uint32_t threads, uint32_t smem_bytes, uint32_t registers_per_thread) {
  return cta_limit(m, threads, smem_bytes, registers_per_thread).ctas;
}

namespace {

// A walk over the tiles a wave at a time that marks each tile row and column with the wave that
// last touched it: flat arrays, not sets (a grid of millions of tiles, as a 65536^2 C of 32x32
// tiles, spent seconds in the sets' allocations). `visit(wave, row_last, col_last, col)` for each
// tile: *_last is the wave that touched its row (column) before it (waves count from 1; 0: none),
// `wave` itself where an earlier tile of this wave did. `end()` after each wave.
template <class Visit, class End>
void walk_panels(const GemmFacts& g, uint64_t concurrent, Visit&& visit, End&& end) {
  const auto tile_at = [&](uint64_t i) { return g.tile_order.empty() ? uint32_t(i) : g.tile_order[i]; };
  const uint64_t n = g.tile_order.empty() ? uint64_t(g.tiles_m) * g.tiles_n : g.tile_order.size();
  uint32_t most = 0;  // a walk's entries are the kernel's own: the marks cover every one it names
  for (uint32_t t : g.tile_order) most = std::max(most, t);
  const uint64_t tiles = std::max<uint64_t>(uint64_t(g.tiles_m) * g.tiles_n, uint64_t(most) + 1);
  std::vector<uint64_t> row_wave((tiles + g.tiles_n - 1) / g.tiles_n, 0), col_wave(g.tiles_n, 0);
  uint64_t wave = 0;
  for (uint64_t start = 0; start < n; start += concurrent) {
    ++wave;
    for (uint64_t i = start; i < std::min(n, start + concurrent); ++i) {
      const uint32_t t = tile_at(i), r = t / g.tiles_n, c = t % g.tiles_n;
      const uint64_t row_last = row_wave[r], col_last = col_wave[c];
      row_wave[r] = col_wave[c] = wave;
      visit(wave, row_last, col_last, c);
    }
    end();
  }
}

}  // namespace

double hbm_read_bytes(const GemmFacts& g, uint64_t concurrent, double l2_bytes) {
  const double a_panel = double(g.tile_rows) * double(g.k) * g.ab_bytes;  // one tile row's A
  const double b_panel = double(g.tile_cols) * double(g.k) * g.ab_bytes;  // one tile column's B
  const uint64_t tiles = uint64_t(g.tiles_m) * g.tiles_n;
  if (tiles == 0 || concurrent == 0) return double(g.m + g.n) * double(g.k) * g.ab_bytes;  // each byte once
  const bool b_stays = double(g.tiles_n) * b_panel + 2.0 * double(std::min<uint64_t>(concurrent, g.tiles_m)) * a_panel <=
                       l2_bytes;
  // Counted a wave at a time: a panel's bytes are whole (or half) bytes far below 2^53, so the
  // sums are exact in any order.
  std::vector<uint8_t> b_seen(g.tiles_n, 0);
  uint64_t rows = 0, cols = 0, a_loads = 0, b_loads = 0;
  bool prev_fits = false;  // the previous wave's panels are still in L2 only if they fitted in it together
  double bytes = 0;
  walk_panels(
      g, concurrent,
      [&](uint64_t wave, uint64_t row_last, uint64_t col_last, uint32_t c) {
        if (row_last != wave) {
          ++rows;
          if (!(prev_fits && row_last + 1 == wave)) ++a_loads;
        }
        if (col_last != wave) {
          ++cols;
          if (!((prev_fits && col_last + 1 == wave) || (b_stays && b_seen[c]))) ++b_loads;
          b_seen[c] = 1;
        }
      },
      [&] {
        bytes += double(a_loads) * a_panel + double(b_loads) * b_panel;
        prev_fits = double(rows) * a_panel + double(cols) * b_panel <= l2_bytes;
        rows = cols = a_loads = b_loads = 0;
      });
  return bytes;
}

double distinct_panel_bytes(const GemmFacts& g, uint64_t concurrent) {
  const double a_panel = double(g.tile_rows) * double(g.k) * g.ab_bytes;
  const double b_panel = double(g.tile_cols) * double(g.k) * g.ab_bytes;
  const uint64_t tiles = uint64_t(g.tiles_m) * g.tiles_n;
  if (tiles == 0 || concurrent == 0) return double(g.m + g.n) * double(g.k) * g.ab_bytes;
  uint64_t rows = 0, cols = 0;
  double bytes = 0;
  walk_panels(
      g, concurrent,
      [&](uint64_t wave, uint64_t row_last, uint64_t col_last, uint32_t) {
        rows += row_last != wave;
        cols += col_last != wave;
      },
      [&] {
        bytes += double(rows) * a_panel + double(cols) * b_panel;
        rows = cols = 0;
      });
  return bytes;
}

namespace {
// The share of a wave's distinct panel bytes that HBM brings, 0..1 (hbm_share_of_panels).
double together_share(const WalkTraffic& t) {
  return t.l2_distinct_bytes > 0 ? std::clamp(t.hbm_bytes / t.l2_distinct_bytes, 0.0, 1.0) : 0.0;
}
}  // namespace

double hbm_share_of_panels(const GemmFacts& g, uint64_t concurrent, double l2_bytes) {
  if (g.tiles_m == 0 || g.k == 0) return 0.0;  // no GEMM declared: an L2 hit, as before
  return together_share(walk_traffic(g, concurrent, l2_bytes));
}

WaveLoads wave_loads(const GemmFacts& g, uint64_t concurrent, uint64_t total_ctas, uint32_t per_sm, double l2_bytes) {
  WaveLoads w;
  if (g.tiles_m == 0 || g.k == 0) return w;  // no GEMM declared: an L2 hit, as hbm_share_of_panels
  const WalkTraffic t = walk_traffic(g, concurrent, l2_bytes);  // each panel walk once
  w.together = together_share(t);
  w.share = w.together;
  const uint64_t waves = concurrent > 0 ? (total_ctas + concurrent - 1) / concurrent : 0;
  if (per_sm < 2 || waves < 2) return w;
  // t.l2_bytes: every tile reads its A row panel and its B column panel once.
  w.first_reader = t.l2_bytes > 0 ? std::clamp(t.hbm_bytes / t.l2_bytes, 0.0, 1.0) : 0.0;
  w.apart = double(waves - 1) / double(waves);
  w.share = (1.0 - w.apart) * w.together + w.apart * w.first_reader;
  return w;
}

CtaFigures wave_cta_figures(const Machine& m, double hbm_share) {
  CtaFigures f = m.cta;
  const double extra = std::max(0.0, m.desc->hbm_latency.value - m.desc->l2_latency.value) * hbm_share;
  f.tma_latency = uint32_t(double(f.tma_latency) + extra + 0.5);
  return f;
}

WalkTraffic walk_traffic(const GemmFacts& g, uint64_t concurrent, double l2_bytes) {
  WalkTraffic t;
  t.hbm_bytes = hbm_read_bytes(g, concurrent, l2_bytes);
  t.l2_distinct_bytes = distinct_panel_bytes(g, concurrent);
  const uint64_t tiles = g.tile_order.empty() ? uint64_t(g.tiles_m) * g.tiles_n : g.tile_order.size();
  t.l2_bytes = double(tiles) * double(g.tile_rows + g.tile_cols) * double(g.k) * g.ab_bytes;
  if (tiles == 0) t.l2_bytes = t.hbm_bytes;  // no tiling declared: the bytes once, as hbm_read_bytes counts them
  return t;
}

void declare_ring(const ir::Kernel& k, GemmFacts& g) {
  const ir::SharedAlloc *a = nullptr, *b = nullptr;
  for (const ir::SharedAlloc& s : k.smem)
    if (s.use == ir::SmemUse::tile && s.operand == ir::GemmOperand::a) a = &s;
    else if (s.use == ir::SmemUse::tile && s.operand == ir::GemmOperand::b) b = &s;
  if (!a || !b || a->stages < 2 || a->stages != b->stages || g.tile_rows == 0) return;
  g.ring_stages = a->stages;
  g.ring_k = a->stage_bytes() / (g.tile_rows * g.ab_bytes);  // A's stage: the tile's rows x the K it holds
  g.ring_stage_bytes = a->stage_bytes() + b->stage_bytes();
}

double ring_k_blocks(const GemmFacts& g) { return g.ring_k > 0 ? double((g.k + g.ring_k - 1) / g.ring_k) : 0.0; }

double box_late_share(const MachineDesc& d, double lead, double stage_bytes) {
  // The probe's latencies scaled to these boxes: the part above the TMA's own (tma_latency) goes
  // with the bytes in flight, over the probe's K block of 32 KiB.
  const double own = d.tma_latency.value, scale = stage_bytes / 32768.0;
  const double p50 = own + (d.gemm_box_latency_p50.value - own) * scale;
  const double p90 = own + (d.gemm_box_latency_p90.value - own) * scale;
  const double p99 = own + (d.gemm_box_latency_p99.value - own) * scale;
  // Exponential tails through the percentiles: half land after p50, a tenth after p90, a hundredth after p99.
  const double below = (p90 - p50) / std::log(5.0), above = (p99 - p90) / std::log(10.0);
  if (lead <= p90) return std::min(1.0, 0.5 * std::exp(-(lead - p50) / below));
  return 0.1 * std::exp(-(lead - p90) / above);
}

WaveDrift wave_drift(const MachineDesc& d, const GemmFacts& g, uint64_t concurrent, uint64_t total_ctas,
                     double k_period) {
  WaveDrift w;
  if (g.ring_stages < 2 || g.ring_k == 0 || g.k == 0 || k_period <= 0 || concurrent == 0 || g.tiles_m == 0) return w;
  w.k_period = k_period;
  w.lead = double(g.ring_stages - 1) * k_period;
  w.late_share = box_late_share(d, w.lead, double(g.ring_stage_bytes));
  w.pulls = w.late_share * ring_k_blocks(g);
  w.free_share = std::exp(-w.pulls);
  w.waves = double(total_ctas) / double(concurrent);
  const double full = d.drift_blur_waves.value;
  // The blur grows evenly from 0 (the first wave starts together) to whole after `full` waves:
  // its mean over the launch's.
  w.blur = full <= 0 ? 1.0 : w.waves <= full ? w.waves / (2.0 * full) : 1.0 - full / (2.0 * w.waves);
  w.share = w.free_share * w.blur;
  const double kept = d.l2_kept_bytes.value;
  w.count_bytes = hbm_read_bytes(g, concurrent, kept);
  // In a stream the CTAs start one after another; L2 keeps a panel for as long as the waves take to
  // bring `kept` bytes more from HBM, in which this many tiles start.
  const double per_wave = w.waves > 0 ? w.count_bytes / w.waves : 0.0;
  w.window_tiles = per_wave > 0 ? std::clamp<uint64_t>(uint64_t(double(concurrent) * kept / per_wave + 0.5), 1, concurrent)
                                : concurrent;
  w.stream_bytes = hbm_read_bytes(g, w.window_tiles, kept);
  w.extra_bytes = w.share * std::max(0.0, w.stream_bytes - w.count_bytes);
  return w;
}

GemmFacts declared_gemm_facts(const ir::OutputTiling& o, uint64_t k) {
  GemmFacts g;
  if (!o.declared()) return g;
  g.tiles_m = o.tiles_m();
  g.tiles_n = o.tiles_n();
  g.tile_rows = o.tile_rows;
  g.tile_cols = o.tile_cols;
  g.m = o.rows;
  g.n = o.cols;
  g.k = k;
  g.tile_order = o.walk;
  return g;
}

uint64_t concurrent_tiles(const Prediction& p, uint64_t total_ctas) { return std::min(total_ctas, p.wave_ctas); }

namespace {

// The time `ctas` co-resident CTAs take together when each alone takes `alone` cycles of which
// `busiest` are at the SM unit they use most (issue, the L1 data path or tag stage, tensor
// cores; with copies beside shared accesses, also the part of the shorter L1 stage the queue's
// order costs: mio_overlap_loss).
// Breakdown::cta_alone ("latency") is this time, so with several CTAs an SM it holds their
// turns at that unit too. No fitted constant; which of two rules holds was measured:
//  * issue or the L1 data path (`in_step`): the CTAs run the same loop between the same
//    bar.syncs at the same pace, so they are busy at that unit at the same time and wait for
//    their loads at the same time: the first takes its own time and each other adds its turn
//    there, alone + (ctas - 1) x busiest. Probes coresident_datapath_* and coresident_issue_*
//    (H200, 2026-12-03, docs/results/2026-12-03-hoist): 2 CTAs an SM 173.1k and 192.5k cycles,
//    this rule 174.3k and 186.1k, a closed-network mean-value analysis (the rule before, below)
//    165.5k and 160.4k; 4 CTAs 312.5k and 318.9k, this 338.8k and 332.7k, the analysis 329.0k
//    and 293.8k (mean |error| 4.2% against 8.6%).
//  * tensor cores: asynchronous (wgmma and TMA on mbarriers), the CTAs drift apart and fill
//    each other's gaps: exact mean-value analysis of `ctas` customers each cycling through a
//    delay of Z (its time not spent at the unit) and a queue with service time D (step 12, three
//    CTAs an SM, within 5% of the card at 4096^3 and 8192^3 with it, 18-22% slow with the first).
double co_resident_cycles(double alone, double busiest, uint32_t ctas, bool in_step) {
  if (in_step) return alone + double(ctas - 1) * std::min(busiest, alone);
  const double d = std::min(busiest, alone), z = alone - d;
  double queued = 0, response = d;
  for (uint32_t n = 1; n <= ctas; ++n) {
    response = d * (1.0 + queued);
    queued = double(n) / (z + response) * response;
  }
  return z + response;
}

}  // namespace

// How many of the last, partial wave's `last_ctas` CTAs the busiest of `sms` SMs runs, each SM
// with `resident` slots: entry k is the probability that the most any SM holds is k. The block
// scheduler gives a waiting CTA the first slot that frees, and the slots of the wave before free
// over a spread of times that has nothing to do with which SM they are on, so the last wave's CTAs
// take `last_ctas` of the sms x resident slots as if drawn at random: an SM's count is
// hypergeometric, and the most over the SMs is taken as the most of `sms` independent such counts
// (P(most <= k) = F(k)^sms), never below the even share the counts' sum asks for. No constant: Nsight Compute on step 08 at 4096x1024x8192 (H200,
// 2026-12-03, docs/results/2026-12-03-last-wave call 3: 2048 CTAs, 12 an SM) counts 12 to 19 CTAs
// an SM, so 0 to 7 of the last wave's 464 where an even spread gives 3 or 4; this rule expects 7.8.
std::vector<double> busiest_sm_counts(uint32_t sms, uint32_t resident, uint64_t last_ctas) {
  const double slots = double(sms) * resident, drawn = double(std::min<uint64_t>(last_ctas, uint64_t(slots)));
  const auto log_choose = [](double n, double k) {
    return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
  };
  const double even = std::ceil(drawn / double(std::max(sms, 1u)));  // the SMs' counts add up to `drawn`
  std::vector<double> most(resident + 1, 0.0);
  double cdf = 0.0, below = 0.0;  // F(k) and P(most <= k - 1)
  for (uint32_t k = 0; k <= resident; ++k) {
    if (double(k) <= drawn && drawn - k <= slots - resident)
      cdf += std::exp(log_choose(resident, k) + log_choose(slots - resident, drawn - k) - log_choose(slots, drawn));
    const double at_most = k == resident ? 1.0 : double(k) < even ? 0.0 : std::pow(std::min(cdf, 1.0), double(sms));
    most[k] = std::max(0.0, at_most - below);
    below = at_most;
  }
  return most;
}

const Machine* machine_by_key(std::string_view key) {
  for (const Machine* m : kMachines)
    if (key == m->key) return m;
  return nullptr;
}

std::string machine_keys_for(ir::Arch arch) {
  std::string out;
  for (const Machine* m : kMachines) {
    if (!machine_runs(*m, arch)) continue;
    if (!out.empty()) out.append(", ");
    out.append(m->key);
  }
  return out;
}

std::string machine_keys() {
  std::string out;
  for (const Machine* m : kMachines) out += std::string(out.empty() ? "" : ", ") + m->key;
  return out;
}

uint32_t cluster_ctas_at_once(const MachineDesc& m, uint32_t cluster) {
  if (cluster == 2) return uint32_t(m.cluster2_ctas.value);
  if (cluster == 4) return uint32_t(m.cluster4_ctas.value);
  return 0;
}

SustainedClock sustained_clock(const MachineDesc& d, const ClockLoad& load) {
  if (!load.tensor_cores)
    return {d.clock_no_tensor_mhz.value, 0.0, "no tensor cores: the clock FFMA on every SM holds (clock_no_tensor_mhz)"};
  // A card whose tensor cores streaming from L2 hold its ceiling is not held down by its power
  // limit (the B200's description: its rated clock whatever the load).
  if (d.clock_tensor_l2_mhz.value >= d.clock_sustained_mhz.value)
    return {d.clock_sustained_mhz.value, 0.0, fmt::format("the card's clocks {}", d.clock_run)};
  // Each load's draw at a fixed clock, in units of the L2 probe's (wgmma with TMA streaming from
  // L2): a probe that held f at the limit draws (f_l2 / f)^e of it.
  const double e = d.clock_power_exponent.value, f_l2 = d.clock_tensor_l2_mhz.value;
  const auto draw_at = [&](double mhz) { return std::pow(f_l2 / mhz, e); };
  const double wgmma = draw_at(d.clock_tensor_alone_mhz.value);  // the tensor cores busy all the time on wgmma
  // The L2 probe: its busy share on wgmma and its streaming make 1; the HBM probe's streaming
  // passes L2 too, and what its clock says beyond that is HBM's.
  const double per_l2_gbs = std::max(0.0, 1.0 - wgmma * d.tensor_l2_busy_share.value) / d.tensor_l2_stream_gbs.value;
  const double per_hbm_gbs =
      std::max(0.0, (draw_at(d.clock_tensor_hbm_mhz.value) - wgmma * d.tensor_hbm_busy_share.value) /
                            d.tensor_hbm_stream_gbs.value -
                        per_l2_gbs);
  // cp.async from L2 alone (its probe) draws about 1.4 times what the TMA's bytes do by the L2
  // term (H100, 2026-12-06; 1.7 by the exponent of the _pause rows alone): its bytes take its own
  // weight, the others the L2 term's. Its probe's
  // draw holds what every SM draws just running, as wgmma alone's does, which adding the two counts
  // twice: step 10's mix as two CTAs an SM (its layout) held 1501 and 1508 MHz where this gives
  // 1527 and 1538, as one CTA of 8 warps 1655 where it gives 1536 (H100, 2026-12-06,
  // docs/results/2026-12-06-ctas).
  // A copy that reads a line a 64 bytes (step 10's rows) draws more a byte than one of whole lines
  // (its probe's): each line beyond one a 128 bytes cp_async_line_bytes more (H100, 2026-12-06,
  // docs/results/2026-12-06-mio: rows of 64 bytes held the contiguous copies' clock at 0.82 of their
  // bytes a second).
  const double line_factor =
      1.0 + d.cp_async_line_bytes.value * std::max(0.0, load.cp_async_lines_per_byte - 1.0 / 128);
  const double per_cp_async_gbs =
      draw_at(d.clock_cp_async_l2_mhz.value) / d.cp_async_l2_stream_gbs.value * line_factor;
  const double busy = std::clamp(load.tensor_share, 0.0, 1.0);
  const double l2 = std::max(0.0, load.l2_gbs), hbm = std::max(0.0, load.hbm_gbs);
  const double cp_async = std::clamp(load.cp_async_gbs, 0.0, l2);
  // A multicast byte is read from L2 once and streamed into each SM of its mask: every delivery
  // beyond the read draws what a byte from L2 draws but for L2's read of it (l2_read_draw_share,
  // the pair probes: halving L2's reads of the same delivered bytes raised the clock a fifth as
  // much as this term taken as all L2's reads would).
  const double multicast = std::max(0.0, load.multicast_gbs);
  const double multicast_draw = per_l2_gbs * (1.0 - std::clamp(d.l2_read_draw_share.value, 0.0, 1.0)) * multicast;
  const double parts[4] = {wgmma * busy, per_l2_gbs * (l2 - cp_async) + multicast_draw, per_cp_async_gbs * cp_async,
                           per_hbm_gbs * hbm};
  const double draw = parts[0] + parts[1] + parts[2] + parts[3];
  const double ceiling = d.clock_sustained_mhz.value;
  const double mhz = draw > 0 ? std::min(ceiling, f_l2 * std::pow(draw, -1.0 / e)) : ceiling;
  return {mhz, draw,
          fmt::format("the power the kernel would draw at a fixed clock is {:.2f} of the L2 probe's (wgmma with TMA "
                      "streaming from L2, which held {:.0f} MHz): tensor cores busy {:.0f}% of the time {:.2f}, {:.0f} "
                      "GB/s through L2{} {:.2f}{}, {:.0f} GB/s to and from HBM {:.2f}; the clock held at the power limit "
                      "goes as that to the power -1/{:.2f}{}; the card's clocks {}",
                      draw, f_l2, 100.0 * busy, parts[0], l2 - cp_async,
                      multicast > 0 ? fmt::format(" and {:.0f} GB/s more multicast delivers (all but L2's read of "
                                                  "them, l2_read_draw_share {:.2f})",
                                                  multicast, d.l2_read_draw_share.value)
                                    : "",
                      parts[1],
                      cp_async > 0 ? fmt::format(" and {:.0f} GB/s copied by cp.async{} {:.2f}", cp_async,
                                                 line_factor > 1.0005
                                                     ? fmt::format(" (a line each {:.0f} bytes: x{:.2f} a byte)",
                                                                   1.0 / load.cp_async_lines_per_byte, line_factor)
                                                     : "",
                                                 parts[2])
                                   : "",
                      hbm, parts[3], e,
                      mhz >= ceiling ? fmt::format(", no higher than the clock of tensor cores that draw little power "
                                                   "({:.0f} MHz)",
                                                   ceiling)
                                     : "",
                      d.clock_run)};
}

double expected_max_over_pair(uint32_t n) {
  // E[max of n standard normal draws] for n = 1, 2, 3, 4, ... 16 (order statistics), over n = 2's.
  static constexpr double kExpectedMax[] = {0.0,    0.0,    0.5642, 0.8463, 1.0294, 1.1630, 1.2672, 1.3522, 1.4236,
                                            1.4850, 1.5388, 1.5864, 1.6292, 1.6680, 1.7034, 1.7359, 1.7660};
  if (n < 2) return 0.0;
  return kExpectedMax[std::min<uint32_t>(n, 16)] / kExpectedMax[2];
}

Prediction predict_gemm(const CtaCost& cta, uint64_t total_ctas, double flops, const Machine& m,
                        const GemmFacts& gemm) {
  const MachineDesc& d = *m.desc;
  Prediction p;
  const CtaLimit limit = cta_limit(d, cta.threads, cta.smem_bytes, cta.registers_per_thread);
  p.ctas_per_sm = limit.ctas;
  p.occupancy_bound = limit.resource;
  // Fewer CTAs than slots: each SM gets fewer co-resident CTAs.
  const uint64_t per_sm_needed = (total_ctas + m.sms - 1) / m.sms;
  p.resident = uint32_t(std::min<uint64_t>(p.ctas_per_sm, std::max<uint64_t>(per_sm_needed, 1)));
  uint64_t per_wave = uint64_t(m.sms) * p.resident;
  // A cluster lives in one GPC: with one CTA per SM, the machine's figure says how many of a
  // cluster launch's CTAs fit at once (H100, clusters of 4: 120 of 132).
  if (const uint32_t at_once = cta.cluster_ctas > 1 && p.resident == 1 ? cluster_ctas_at_once(d, cta.cluster_ctas) : 0;
      at_once > 0 && at_once < per_wave && m.sms == uint32_t(d.sms.value)) {
    per_wave = at_once;
    p.cluster_basis = fmt::format("clusters of {}: {} CTAs at once, not one per SM (a cluster must fit in one GPC; "
                                  "machine figure cluster{}_ctas)",
                                  cta.cluster_ctas, at_once, cta.cluster_ctas);
  }
  p.wave_ctas = per_wave;
  p.waves = (total_ctas + per_wave - 1) / per_wave;
  const double r = p.resident;
  const double concurrent = double(std::min<uint64_t>(total_ctas, per_wave));
  Breakdown& b = p.parts;
  b.issue = r * double(cta.warp_instructions) / (d.schedulers_per_sm.value * d.issue_per_scheduler.value);
  b.smem = r * double(cta.smem_wavefronts);
  b.lsu = r * double(cta.lsu_cycles);
  b.l1_tag = r * double(cta.tag_cycles);
  b.tensor = r * cta.tensor_cycles();
  const double sm_busiest = std::max({b.issue, b.l1_data(), b.l1_tag, b.tensor});
  const bool in_step = b.tensor < std::max({b.issue, b.l1_data(), b.l1_tag});
  // A sub-partition's queue gives the tag stage and the data path their work in the order asked:
  // co-resident CTAs that copy and read shared memory keep most of the two stages' overlap, but
  // not all of it (mio_overlap_loss of the shorter stage a CTA; the probes of groups meeting at
  // barriers of their own, machines.hpp).
  const double busiest_per_cta =
      (sm_busiest + (in_step ? d.mio_overlap_loss.value * std::min(b.l1_data(), b.l1_tag) : 0.0)) / r;
  b.cta_alone = co_resident_cycles(double(cta.cycles), busiest_per_cta, p.resident, in_step);
  // A cluster whose CTAs release each stage in one another waits, every K block, for the slowest of
  // them: the model's CTAs run in step, the card's each at a pace that varies a little by block, so
  // the cluster takes the maximum of its CTAs' blocks (probe rows _pair_coupled against _pair_alone:
  // pair_coupling). For n CTAs the expected maximum of n normal draws over that of 2 scales it.
  if (cta.peer_released && cta.cluster_ctas > 1 && d.pair_coupling.value > 0) {
    const double slowest = expected_max_over_pair(cta.cluster_ctas);
    p.cluster_coupling = d.pair_coupling.value * slowest;
    b.cta_alone *= 1.0 + p.cluster_coupling;
    p.coupling_basis = fmt::format(
        "clusters of {} release each stage in every CTA: each K block waits for the slowest, +{:.1f}% (machine "
        "figure pair_coupling, {:.2f}% for a pair{})",
        cta.cluster_ctas, 100.0 * p.cluster_coupling, 100.0 * d.pair_coupling.value,
        cta.cluster_ctas == 2 ? "" : fmt::format(", x{:.2f} for the expected slowest of {}", slowest, cta.cluster_ctas));
  }
  b.l2_bytes_per_wave = concurrent * double(cta.global_load_bytes + cta.tma_bytes);
  b.l2_copy_lines_per_wave = concurrent * double(cta.cp_async_lines);
  const double multicast_bytes_per_wave = concurrent * double(cta.tma_multicast_extra_bytes);
  b.l2_distinct_bytes_per_wave = b.l2_bytes_per_wave;  // no tiling declared: every line its own
  if (gemm.k > 0 && p.waves > 0) {
    // A persistent CTA walks several tiles: the tiles in flight at once are its CTAs.
    b.hbm_bytes_per_wave = hbm_read_bytes(gemm, uint64_t(concurrent), d.l2_kept_bytes.value) / double(p.waves);
    b.hbm_bytes_per_wave = std::min(b.hbm_bytes_per_wave, b.l2_bytes_per_wave);  // no more than it reads
    b.l2_distinct_bytes_per_wave =
        std::min(b.l2_bytes_per_wave, distinct_panel_bytes(gemm, uint64_t(concurrent)) / double(p.waves));
  }
  // One CTA an SM over several waves, fed by a TMA ring: the waves drift apart where the ring hides
  // the boxes' latency, and a blurred wave reads its B panels again (wave_drift).
  if (gemm.k > 0 && p.resident == 1 && p.waves > 1 && gemm.ring_stages >= 2) {
    // The K loop's pace as the fast-forward timed it; a loop too short to fast-forward: the CTA's
    // cycles over its K blocks (its fill and epilogue in them: a little slower).
    const double blocks = ring_k_blocks(gemm);
    const bool timed = cta.k_period_cycles > 0;
    const double k_period = timed ? cta.k_period_cycles : blocks > 0 ? double(cta.cycles) / blocks : 0.0;
    p.drift = wave_drift(d, gemm, uint64_t(concurrent), total_ctas, k_period);
    if (p.drift.extra_bytes > 0)
      b.hbm_bytes_per_wave = std::min(b.hbm_bytes_per_wave + p.drift.extra_bytes / double(p.waves), b.l2_bytes_per_wave);
    // 100, 1.5, 0.035: two significant digits without an exponent.
    const auto small = [](double x) {
      return x >= 10 ? fmt::format("{:.0f}", x) : x >= 0.01 ? fmt::format("{:.2g}", x) : std::string("under 0.01");
    };
    if (p.drift.k_period > 0)
      p.drift_basis = fmt::format(
          "its {}-stage ring asks for a stage {:.0f} cycles before its use ({} K periods of {:.0f}{}); a K block's "
          "boxes land later than that {}% of the time (probe latencies gemm_box_latency_p50/p90/p99, scaled to its "
          "{} KiB), {} of its {:.0f} K blocks a tile, each pulling the CTA back to the partners that share its panels; "
          "a tile with none ({:.0f}%) lets its SM keep its own pace; over {:.1f} waves that blurs them {:.0f}% of "
          "the way to a stream of CTAs (drift_blur_waves {:.1f}): {:.0f}% of the way from the waves' {:.2f} GB from "
          "HBM to a stream's {:.2f}, {:.2f} GB more",
          gemm.ring_stages, p.drift.lead, gemm.ring_stages - 1, p.drift.k_period,
          timed ? "" : ", its cycles over its K blocks", small(100.0 * p.drift.late_share),
          gemm.ring_stage_bytes / 1024, small(p.drift.pulls), blocks, 100.0 * p.drift.free_share, p.drift.waves,
          100.0 * p.drift.blur, d.drift_blur_waves.value, 100.0 * p.drift.share, p.drift.count_bytes / 1e9,
          p.drift.stream_bytes / 1e9, p.drift.extra_bytes / 1e9);
  }
  b.store_bytes_per_wave = concurrent * double(cta.global_store_bytes);
  // The first wave's CTAs start together, so the CTAs that share a panel ask for its boxes at about
  // the same time, and L2 answers several SMs with one look-up (probes tma_l2_bw_share2..264: twice
  // the bandwidth of every CTA its own boxes, tma_l2_bw_share1). Later waves' CTAs start as earlier
  // ones end; with several CTAs an SM those ends spread, and so do the reads: eight 8-KiB-box CTAs
  // an SM with 64 reading each box reach 20.0 TB/s in one wave and 10.6 over four
  // (tma_l2_bw_8k_x8_share64, _4waves: the later three at about share1's 9.0), while one CTA an SM
  // keeps most of it over eight waves (tma_l2_bw_share8_8waves, 14.6-16.8 TB/s).
  // (H200, 2026-12-02, docs/results/2026-12-02-l2; Nsight Compute there: step 11's L2 looks up
  // 81% of the sectors it delivers at 4096^3, the probes with shared boxes 44%.)
  if (p.resident > 1 && p.waves > 1) b.l2_apart_waves = double(p.waves - 1) / double(p.waves);
  // The parts in the memory system's bytes are time at the clock: per wave, in cycles of `hz`.
  const auto at_clock = [&](double hz) {
    p.clock_hz = hz;
    const double l2_per_cycle = d.l2_bandwidth_gbs.value * 1e9 / hz;
    const double l2_shared_per_cycle = d.l2_shared_read_bandwidth_gbs.value * 1e9 / hz;
    const double hbm_per_cycle = d.hbm_bandwidth_gbs.value * 1e9 / hz;
    const double hbm_write_per_cycle = d.hbm_write_bandwidth_gbs.value * 1e9 / hz;
    // L2 serves the wave's distinct lines at its bandwidth, and every byte at what it delivers
    // to all SMs when they read the same lines together (probes l2_read_bw, tma_l2_bw_shared);
    // a wave whose CTAs read apart has every byte looked up at its bandwidth.
    const double together =
        std::max(b.l2_distinct_bytes_per_wave / l2_per_cycle, b.l2_bytes_per_wave / l2_shared_per_cycle);
    const double apart = b.l2_bytes_per_wave / l2_per_cycle;
    b.l2 = (1.0 - b.l2_apart_waves) * together + b.l2_apart_waves * apart;
    // cp.async copies that read a sector or two of each line ask L2 for more lines a byte than it
    // answers a second with all SMs copying: 0.5 a cycle an SM, where one SM alone gets a line a
    // cycle (probe cp_gemm64_k256_lds0_x9, step 09's copies in its geometry: l2_copy_lines_gps; the
    // same with ncu's lower locked SM clock, so L2's own limit).
    const double copy_lines = b.l2_copy_lines_per_wave / (d.l2_copy_lines_gps.value * 1e9 / hz);
    b.l2_by_copy_lines = copy_lines > b.l2;
    b.l2 = std::max(b.l2, copy_lines);
    b.hbm = b.hbm_bytes_per_wave / hbm_per_cycle;
    b.stores = b.store_bytes_per_wave / hbm_write_per_cycle;
    p.cycles_per_wave = 0;
    for (const PartRow& row : breakdown_rows(b))
      if (row.cycles > p.cycles_per_wave) {
        p.cycles_per_wave = row.cycles;
        b.bound = row.name;
      }
    // The last wave, when the grid is not a whole number of waves: it ends when its busiest SM
    // does. With k CTAs that SM carries k CTAs' work at its units, its co-resident CTAs take the
    // time that many take together, and the memory system carries that wave's bytes. A wave bound
    // by a unit of the SM ends sooner; one bound by a CTA's own latency takes as long as a full
    // wave. How many the busiest SM holds: in a second wave, the first wave's CTAs started
    // together and end in a burst, and the second wave's take the slots as they free, not an even
    // share (busiest_sm_counts: the chance of each count; the last wave costs each k's time
    // weighted by its chance). Over more waves the SMs' CTAs have drifted apart, and the model
    // keeps the even share: Nsight Compute counts 31-32 CTAs an SM for step 09's 3.45 waves at
    // 4096^3 (an even last wave; the random rule would put 8 of its 532 on the busiest SM, the
    // card 5), but 7-9 for step 12's 2.59 waves (H200, 2026-12-03, docs/results/2026-12-03-last-wave
    // call 4): which of the two holds after the second wave is not known, so it is not modelled.
    // With one CTA an SM every SM runs one, as in a full wave.
    p.last_wave_cycles = p.cycles_per_wave;
    p.last_wave_busiest_ctas = p.resident;
    p.last_wave_ctas = p.waves > 0 ? total_ctas - (p.waves - 1) * per_wave : 0;
    const uint64_t last_ctas = p.last_wave_ctas;
    const double bytes_share = p.waves > 0 ? double(last_ctas) / double(per_wave) : 1.0;
    const auto last_wave_at = [&](uint32_t k) {
      const double sm_share = double(k) / r;
      return std::max({co_resident_cycles(double(cta.cycles), busiest_per_cta, k, in_step),
                       sm_share * sm_busiest,
                       bytes_share * std::max({b.l2, b.hbm, b.stores})});
    };
    if (p.waves == 2 && p.resident > 1 && last_ctas < per_wave) {
      const std::vector<double> most = busiest_sm_counts(m.sms, p.resident, last_ctas);
      double cycles = 0, ctas = 0;
      for (uint32_t k = 1; k < most.size(); ++k) {
        if (most[k] <= 0.0) continue;
        cycles += most[k] * last_wave_at(k);
        ctas += most[k] * double(k);
      }
      p.last_wave_cycles = std::min(cycles, p.cycles_per_wave);
      p.last_wave_busiest_ctas = ctas;
      p.last_wave_uneven = true;
    } else if (p.waves > 2) {
      const uint32_t even = uint32_t(std::min<uint64_t>(p.resident, (last_ctas + m.sms - 1) / m.sms));
      if (even < p.resident) {
        p.last_wave_cycles = last_wave_at(even);
        p.last_wave_busiest_ctas = even;
      }
    }
  };
  const auto all_cycles = [&] { return double(p.waves - 1) * p.cycles_per_wave + p.last_wave_cycles; };
  // The clock follows the power the kernel draws (sustained_clock): for a tensor-core kernel it
  // depends on how busy it keeps the tensor cores and on its HBM traffic, both of which depend on
  // the clock; a few rounds settle it. The busy share is the kernel's FLOP over what the SMs'
  // tensor cores could do in its time (wgmma's dense rate; a B200's clocks do not depend on it).
  ClockLoad load{.tensor_cores = cta.tensor_cycles() > 0};
  if (cta.cp_async_bytes > 0 && cta.cp_async_lines > 0)
    load.cp_async_lines_per_byte = double(cta.cp_async_lines) / double(cta.cp_async_bytes);
  // The share of the bytes read through L2 that cp.async copies (cta.cp_async_bytes are of these).
  const uint64_t read_bytes = cta.global_load_bytes + cta.tma_bytes;
  const double cp_async_share = read_bytes > 0 ? double(cta.cp_async_bytes) / double(read_bytes) : 0.0;
  const double peak_per_cycle = double(m.sms) * d.wgmma_flops_per_cycle.value;
  double hz = d.clock_sustained_mhz.value * 1e6;
  for (int round = 0; round < 8; ++round) {
    at_clock(hz);
    const double wave_seconds = p.cycles_per_wave / hz;
    load.hbm_gbs = wave_seconds > 0 ? (b.hbm_bytes_per_wave + b.store_bytes_per_wave) / wave_seconds / 1e9 : 0.0;
    load.l2_gbs = wave_seconds > 0 ? b.l2_bytes_per_wave / wave_seconds / 1e9 : 0.0;
    load.multicast_gbs = wave_seconds > 0 ? multicast_bytes_per_wave / wave_seconds / 1e9 : 0.0;
    load.cp_async_gbs = load.l2_gbs * cp_async_share;
    load.tensor_share = p.waves > 0 && peak_per_cycle > 0 ? flops / (all_cycles() * peak_per_cycle) : 1.0;
    const SustainedClock c = sustained_clock(d, load);
    p.clock_basis = c.basis;
    if (std::abs(c.mhz * 1e6 - hz) < 0.5e6) break;
    hz = c.mhz * 1e6;
  }
  at_clock(hz);
  const double exact_waves = double(total_ctas) / double(per_wave);
  b.wave_quantization = p.waves > 0 ? 1.0 - exact_waves * p.cycles_per_wave / all_cycles() : 0.0;
  // The launch (probes launch_*): a fixed cost, and the GPU starting the CTAs of later waves.
  const uint64_t later_ctas = total_ctas > per_wave ? total_ctas - per_wave : 0;
  p.launch_seconds = (d.launch_us.value + double(later_ctas) * d.cta_start_ns.value * 1e-3) * 1e-6;
  p.launch_basis = fmt::format("{:.1f} us a launch (launch_us){}", d.launch_us.value,
                               later_ctas ? fmt::format(" and {:.2f} ns for each of the {} CTAs after the first wave "
                                                        "(cta_start_ns)",
                                                        d.cta_start_ns.value, later_ctas)
                                          : "");
  p.seconds = (p.waves > 0 ? all_cycles() : 0.0) / p.clock_hz + p.launch_seconds;
  p.tflops = p.seconds > 0 ? flops / p.seconds / 1e12 : 0.0;
  return p;
}

std::vector<PartRow> breakdown_rows(const Breakdown& b) {
  return {
      {"latency",
       "each CTA's own issue and the latency its warps do not hide, with its turns at the SM's busiest unit while the "
       "other co-resident CTAs use it",
       b.cta_alone},
      {"issue", "the SM's instructions over its 4 schedulers", b.issue, true},
      {"L1 data path",
       "shared-memory wavefronts and global loads' and stores' lines, one a cycle through the L1's one data path",
       b.l1_data(), true},
      {"L1 tag stage",
       "cp.async copies' lines looked up, one a cycle, before the data path; a sub-partition's queue keeps them in "
       "order with its shared accesses",
       b.l1_tag, true},
      {"tensor cores", "tensor-core busy time", b.tensor, true},
      {"L2",
       b.l2_by_copy_lines
           ? "cp.async copies' lines, one look-up each, at what L2 answers for all SMs (l2_copy_lines_gps): more than "
             "their bytes take"
       : b.l2_apart_waves > 0
           ? "global and TMA bytes: the first wave's CTAs read shared lines together (what L2 delivers to every SM); "
             "later waves' start as others end, so their reads arrive apart: each a look-up at L2 bandwidth"
           : "global and TMA bytes: the wave's distinct lines at L2 bandwidth, all at what L2 delivers to every SM",
       b.l2},
      {"HBM", "A and B panels not in L2, at HBM bandwidth", b.hbm},
      {"stores", "C to HBM at the write bandwidth", b.stores},
  };
}

}  // namespace gs::model::timing
